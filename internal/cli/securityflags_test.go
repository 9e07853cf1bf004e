package cli

import (
	"maps"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/cluster"
)

// The configuration's security keys set the flags; an enabled section
// without its files is an error, a disabled one sets nothing.
func TestSecurityConfig(t *testing.T) {
	files := cluster.Config{"security.ssl.internal.cert": "c.pem", "security.ssl.internal.key": "k.pem", "security.ssl.internal.ca": "ca.pem"}
	with := func(extra cluster.Config) cluster.Config {
		c := maps.Clone(files)
		maps.Copy(c, extra)
		return c
	}
	for _, tt := range []struct {
		name string
		c    cluster.Config
		jm   bool
		want map[string]string
		err  string
	}{
		{name: "files", c: files, want: map[string]string{"internal-tls-cert": "c.pem", "internal-tls-key": "k.pem", "internal-tls-ca": "ca.pem"}},
		{name: "disabled", c: with(cluster.Config{"security.ssl.internal.enabled": "false"}), want: map[string]string{}},
		{name: "enabled without a CA", c: cluster.Config{"security.ssl.internal.enabled": "true", "security.ssl.internal.cert": "c.pem", "security.ssl.internal.key": "k.pem"},
			err: "security.ssl.internal.enabled is true but security.ssl.internal.ca is not set"},
		{name: "REST enabled without files", c: cluster.Config{"security.ssl.rest.enabled": "true"}, jm: true, err: "security.ssl.rest.cert"},
		{name: "REST keys on a TaskManager", c: cluster.Config{"security.ssl.rest.enabled": "true", "security.rest.token-file": "t"}, want: map[string]string{}},
		{name: "token", c: cluster.Config{"security.rest.token-file": "t"}, jm: true, want: map[string]string{"rest-token-file": "t"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set := map[string]string{}
			err := securityConfig(tt.c, set, tt.jm)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, v := range set {
				if v != "" {
					got[k] = v
				}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("flags %v, want %v", got, tt.want)
			}
		})
	}
}
