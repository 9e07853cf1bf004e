package cli

import (
	"github.com/spf13/cobra"

	"github.com/weir-engine/weir/internal/cluster"
)

// securityFlags adds the TLS flags of a cluster process (and, for the
// JobManager, those of its REST API) and returns their values.
func securityFlags(cmd *cobra.Command, jm bool) *cluster.Security {
	var s cluster.Security
	f := cmd.Flags()
	f.StringVar(&s.Internal.Cert, "internal-tls-cert", "", "PEM `FILE` of this process's certificate for mutual TLS between the cluster's processes (security.ssl.internal.cert)")
	f.StringVar(&s.Internal.Key, "internal-tls-key", "", "PEM `FILE` of its private key (security.ssl.internal.key)")
	f.StringVar(&s.Internal.CA, "internal-tls-ca", "", "PEM `FILE` of the cluster's CA: only peers with a certificate it signed are accepted (security.ssl.internal.ca)")
	if jm {
		f.StringVar(&s.REST.Cert, "rest-tls-cert", "", "PEM `FILE` of the REST API's HTTPS certificate (security.ssl.rest.cert)")
		f.StringVar(&s.REST.Key, "rest-tls-key", "", "PEM `FILE` of its private key (security.ssl.rest.key)")
		f.StringVar(&s.RESTTokenFile, "rest-token-file", "", "`FILE` holding the bearer token every REST request must carry (security.rest.token-file)")
	}
	return &s
}

// securityConfig adds to set the flags of the configuration's security
// keys; a section whose enabled key is false sets none.
func securityConfig(c cluster.Config, set map[string]string, jm bool) {
	if c["security.ssl.internal.enabled"] != "false" {
		set["internal-tls-cert"] = c["security.ssl.internal.cert"]
		set["internal-tls-key"] = c["security.ssl.internal.key"]
		set["internal-tls-ca"] = c["security.ssl.internal.ca"]
	}
	if !jm {
		return
	}
	if c["security.ssl.rest.enabled"] != "false" {
		set["rest-tls-cert"] = c["security.ssl.rest.cert"]
		set["rest-tls-key"] = c["security.ssl.rest.key"]
	}
	set["rest-token-file"] = c["security.rest.token-file"]
}
