package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// decodeBody decodes the request's body, one JSON object, strictly into v:
// unknown fields, wrong types and trailing data are errors of the
// client's (400). An empty body stands for {}, as in Flink. The body is
// already bounded by http.MaxBytesReader (see dispatch).
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return newError(errTooLarge, "request body larger than %d bytes", mbe.Limit)
		}
		return newError(errBadRequest, "reading the request body: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return newError(errBadRequest, "malformed request body: %s", describeJSONError(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return newError(errBadRequest, "malformed request body: data after the JSON object")
	}
	return nil
}

// describeJSONError says what is wrong with a body in the client's terms.
func describeJSONError(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field == "" {
			return fmt.Sprintf("want a JSON object, not %s", te.Value)
		}
		return fmt.Sprintf("field %q: want %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names a Go kind as its JSON type.
func jsonKind(kind string) string {
	switch kind {
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	}
	return kind
}
