package rest_test

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
)

// FuzzRawRequest feeds raw bytes, as they come off a connection, to the
// request decoding of the API behind its token: net/http's parser, then
// the token check, the router and the body decoding. A request the parser
// refuses is one net/http answers 400 itself; any other is answered
// without a 5xx, and 401 unless it carries the token.
func FuzzRawRequest(f *testing.F) {
	for _, seed := range []string{
		"GET /jobs/overview HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\n\r\n",
		"POST /jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nContent-Length: 13\r\n\r\n{\"job\":[1,2]}",
		"PATCH /jobs/" + runningID + "?mode=cancel HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /jobs/" + runningID + "/stop HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"dra\r\n0\r\n\r\n",
		"GET /jobs/%zz HTTP/1.0\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	srv := rest.NewServer(newFake(), rest.Options{Token: "tok"})
	defer srv.Close()
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
		if err != nil {
			return
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%q: %d %s", raw, w.Code, w.Body)
		}
		if req.Header.Get("Authorization") != "Bearer tok" && w.Code != http.StatusUnauthorized {
			t.Fatalf("%q: %d without the token", raw, w.Code)
		}
		if ct := w.Header().Get("Content-Type"); w.Code == http.StatusUnauthorized && !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%q: 401 with Content-Type %q", raw, ct)
		}
	})
}
