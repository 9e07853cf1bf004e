// Package security builds the TLS configurations of Weir's processes from
// PEM files: mutual TLS between the processes of a cluster (the gRPC
// control plane and the TCP data plane; Flink's security.ssl.internal.*)
// and server TLS for the REST API (Flink's security.ssl.rest.*).
//
// Internal connections authenticate both ends by the cluster's CA: a peer
// is accepted when its certificate chains to the CA file, whatever host
// name it carries, as Flink's internal SSL trusts whoever holds a
// certificate of the cluster's truststore. Host names are not checked
// because TaskManagers are reached at addresses that are rarely known
// when their certificates are issued (pod IPs); the CA is the cluster's
// identity, so it must sign nothing else.
package security

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// Files are the PEM files of one TLS end: its certificate chain and
// private key, and the CA certificates it trusts.
type Files struct {
	Cert, Key, CA string
}

// Enabled reports whether any file is set.
func (f Files) Enabled() bool { return f.Cert != "" || f.Key != "" || f.CA != "" }

// Mutual is the cluster's internal TLS: the server side requires a client
// certificate signed by the CA, the client side presents its certificate
// and accepts only a server certificate signed by the CA. Every file is
// required.
func (f Files) Mutual() (server, client *tls.Config, err error) {
	if f.Cert == "" || f.Key == "" || f.CA == "" {
		return nil, nil, errors.New("internal TLS needs a certificate, a key and a CA file")
	}
	cert, err := f.keyPair()
	if err != nil {
		return nil, nil, err
	}
	pool, err := loadPool(f.CA)
	if err != nil {
		return nil, nil, err
	}
	server = &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
	}
	client = &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{cert},
		// The chain is checked against the CA below, without a host name.
		InsecureSkipVerify: true,
		VerifyConnection:   verifyChain(pool),
	}
	return server, client, nil
}

// Server is server-only TLS (the REST API): the certificate and key are
// required, and a CA file, when set, makes the server also require client
// certificates signed by it (Flink's
// security.ssl.rest.authentication-enabled).
func (f Files) Server() (*tls.Config, error) {
	if f.Cert == "" || f.Key == "" {
		return nil, errors.New("TLS needs a certificate and a key file")
	}
	cert, err := f.keyPair()
	if err != nil {
		return nil, err
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if f.CA != "" {
		if c.ClientCAs, err = loadPool(f.CA); err != nil {
			return nil, err
		}
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return c, nil
}

// Client is the TLS of a client of the REST API: it trusts the CA file
// (the system's roots when ""), and presents the certificate when one is
// set.
func (f Files) Client() (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	var err error
	if f.CA != "" {
		if c.RootCAs, err = loadPool(f.CA); err != nil {
			return nil, err
		}
	}
	if f.Cert != "" || f.Key != "" {
		cert, err := f.keyPair()
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

func (f Files) keyPair() (tls.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("TLS certificate %s and key %s: %w", f.Cert, f.Key, err)
	}
	return cert, nil
}

func loadPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("TLS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("TLS CA %s: no PEM certificate in it", path)
	}
	return pool, nil
}

// verifyChain checks the server's chain against pool, host name aside.
func verifyChain(pool *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{
			Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		})
		if err != nil {
			return fmt.Errorf("the server's certificate is not the cluster's: %w", err)
		}
		return nil
	}
}
