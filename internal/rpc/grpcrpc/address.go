package grpcrpc

import (
	"fmt"
	"strings"
)

// Address returns the address of the endpoint name on the server that
// listens at hostport.
func Address(hostport, name string) string {
	if name == "" {
		return hostport
	}
	return hostport + "/" + name
}

// splitAddress splits "host:port/name" into the server's address and the
// endpoint's name ("" when there is none).
func splitAddress(addr string) (hostport, name string, err error) {
	hostport, name, _ = strings.Cut(addr, "/")
	if hostport == "" {
		return "", "", fmt.Errorf("grpcrpc: address %q has no host:port", addr)
	}
	return hostport, name, nil
}
