package security_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/security"
	"github.com/weir-engine/weir/internal/security/securitytest"
)

// Missing and bad files are errors that say which file and why.
func TestFilesErrors(t *testing.T) {
	ca := securitytest.NewCA(t, "c")
	good := ca.Issue(t, "p")
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		files security.Files
		want  string
	}{
		{"no CA", security.Files{Cert: good.Cert, Key: good.Key}, "needs a certificate, a key and a CA"},
		{"a missing certificate", security.Files{Cert: "/nonexistent.pem", Key: good.Key, CA: good.CA}, "/nonexistent.pem"},
		{"a CA that is not PEM", security.Files{Cert: good.Cert, Key: good.Key, CA: notPEM}, "no PEM certificate"},
		{"a key of another certificate", security.Files{Cert: good.Cert, Key: ca.Issue(t, "q").Key, CA: good.CA}, "private key does not match"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := tt.files.Mutual(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Mutual: %v, want an error with %q", err, tt.want)
			}
		})
	}
	if _, _, err := good.Mutual(); err != nil {
		t.Errorf("Mutual of good files: %v", err)
	}
}
