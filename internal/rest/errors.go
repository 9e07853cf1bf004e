package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/weir-engine/weir/internal/rest/api"
)

// Error kinds of requests. A handler marks its error with one of them (or
// returns a Dispatcher error as it is); statusOf turns the kind into the
// status code.
var (
	errBadRequest   = errors.New("bad request")
	errNotFound     = errors.New("not found")
	errMethod       = errors.New("method not allowed")
	errTooLarge     = errors.New("request body too large")
	errShuttingDown = errors.New("server shutting down")
)

// ErrClosed is returned by Serve and Start on a closed Server.
var ErrClosed = errors.New("rest: server closed")

// statusOf maps an error to the status code of its answer: the one place
// that does.
func statusOf(err error) int {
	switch {
	case errors.Is(err, errBadRequest), errors.Is(err, ErrBadSubmission):
		return http.StatusBadRequest
	case errors.Is(err, errNotFound), errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, errMethod):
		return http.StatusMethodNotAllowed
	case errors.Is(err, ErrJobEnded):
		return http.StatusConflict
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errShuttingDown), errors.Is(err, ErrClosed):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// kindError is an error of a given kind whose message is its own: the
// kind selects the status, the message goes to the client unchanged.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Is(target error) bool { return target == e.kind }

// newError returns an error of kind with a formatted message.
func newError(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// writeJSON writes v as the JSON body of an answer with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		// Only a bug makes our own types unencodable.
		status = http.StatusInternalServerError
		b, _ = json.Marshal(api.ErrorResponse{Errors: []string{"rest: encoding the answer: " + err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, werr := w.Write(append(b, '\n'))
	if err != nil {
		return fmt.Errorf("rest: encoding %T: %w", v, err)
	}
	return werr
}
