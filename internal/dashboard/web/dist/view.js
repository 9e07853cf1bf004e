// A page of the dashboard: built once when the route is entered, then
// refreshed in place at the refresh interval. Forms are part of what is
// built once, so that a refresh never loses what the user typed.
export {};
