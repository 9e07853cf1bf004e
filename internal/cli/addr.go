package cli

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultJobManager is the REST address the cluster commands talk to
// without --jobmanager: Flink's default.
const DefaultJobManager = "127.0.0.1:8081"

// checkHostPort validates a HOST:PORT address. The host may be empty
// (127.0.0.1 is meant); port 0 ("pick a free one") is allowed only for an
// address to listen on.
func checkHostPort(addr string, listen bool) error {
	if strings.Contains(addr, "://") {
		return errors.New("want HOST:PORT without a scheme")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want HOST:PORT")
	}
	if strings.ContainsAny(host, " \t/\\") {
		return fmt.Errorf("invalid host %q", host)
	}
	low := 1
	if listen {
		low = 0
	}
	if n, err := strconv.Atoi(port); err != nil || n < low || n > 65535 {
		return fmt.Errorf("invalid port %q: want a number from %d to 65535", port, low)
	}
	return nil
}

// dialAddr is addr with an empty host made 127.0.0.1.
func dialAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return addr
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// checkJobID validates a job id: 32 lower-case hex characters, as Flink's.
func checkJobID(id string) error {
	ok := len(id) == 32
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
	}
	if !ok {
		return fmt.Errorf("invalid job id %q: want 32 lower-case hex characters", id)
	}
	return nil
}
