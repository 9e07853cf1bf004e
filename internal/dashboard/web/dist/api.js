// The JSON bodies of Weir's REST API that the dashboard reads: a mirror of
// internal/rest/api (Flink's field names). Fields another version of the
// server may lack are optional, and the pages show "–" for them.
export {};
