package cli

import (
	"fmt"
	"maps"
	"slices"

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

// tlsSection is a configuration's TLS keys under prefix ("enabled" and
// the file keys) and the flag of each file key.
type tlsSection struct {
	prefix string
	flags  map[string]string
}

var (
	internalTLSKeys = tlsSection{"security.ssl.internal.", map[string]string{"cert": "internal-tls-cert", "key": "internal-tls-key", "ca": "internal-tls-ca"}}
	restTLSKeys     = tlsSection{"security.ssl.rest.", map[string]string{"cert": "rest-tls-cert", "key": "rest-tls-key"}}
)

// securityConfig adds to set the flags of the configuration's security
// keys. A section whose enabled key is false sets none; one whose enabled
// key is true must name its files, so that a cluster meant to be closed
// never starts open.
func securityConfig(c cluster.Config, set map[string]string, jm bool) error {
	sections := []tlsSection{internalTLSKeys}
	if jm {
		sections = append(sections, restTLSKeys)
		set["rest-token-file"] = c["security.rest.token-file"]
	}
	for _, sec := range sections {
		enabled := c[sec.prefix+"enabled"]
		if enabled == "false" {
			continue
		}
		for _, suffix := range slices.Sorted(maps.Keys(sec.flags)) {
			flag, v := sec.flags[suffix], c[sec.prefix+suffix]
			if v == "" && enabled == "true" {
				return fmt.Errorf("%senabled is true but %s%s is not set", sec.prefix, sec.prefix, suffix)
			}
			set[flag] = v
		}
	}
	return nil
}
