package cluster

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/weir-engine/weir/internal/memsize"
)

// Config is a cluster configuration file: YAML with Flink's key names
// where Flink has them, flat ("rest.port: 8081") as in Flink's
// config.yaml. Each key is a flag of `weir jobmanager` or `weir
// taskmanager`; a flag given on the command line overrides the file.
type Config map[string]string

// configKeys are the known keys, with the flag each sets and how its value
// is checked.
var configKeys = map[string]struct {
	flag  string
	check func(string) error
}{
	"jobmanager.rpc.address": {"rpc-addr (host)", nil},
	"jobmanager.rpc.port":    {"rpc-addr (port)", checkPort},
	"rest.address":           {"rest-addr (host)", nil},
	"rest.port":              {"rest-addr (port)", checkPort},
	"state.checkpoints.dir":  {"checkpoint-dir", nil},
	"state.savepoints.dir":   {"savepoint-dir", nil},
	"jobmanager.scheduler":   {"scheduler", checkOneOf("adaptive", "default")},
	"scheduler-mode":         {"scheduler-mode", checkOneOf("reactive")},
	"jobmanager.adaptive-scheduler.submission.resource-wait-timeout":          {"resource-wait-timeout", checkDuration},
	"jobmanager.adaptive-scheduler.submission.resource-stabilization-timeout": {"resource-stabilization-timeout", checkDuration},
	"jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling":        {"cooldown-after-rescaling", checkDuration},
	"high-availability.storageDir":                                            {"ha-storage-dir", nil},
	"slot.request.timeout":                                                    {"slot-wait", checkDuration},
	"heartbeat.interval":                                                      {"heartbeat-interval", checkDuration},
	"heartbeat.timeout":                                                       {"heartbeat-timeout", checkDuration},
	"taskmanager.numberOfTaskSlots":                                           {"slots", checkPositive},
	"taskmanager.rpc.address":                                                 {"rpc-addr (host) of a TaskManager", nil},
	"taskmanager.data.address":                                                {"data-addr", nil},
	"taskmanager.state.local.root-dirs":                                       {"data-dir", nil},
	"taskmanager.memory.process.size":                                         {"process-memory", checkSize},
	// Security (tls.go): Flink's key names, PEM files for its keystores.
	"security.ssl.internal.enabled": {"(internal-tls-* apply)", checkBool},
	"security.ssl.internal.cert":    {"internal-tls-cert", nil},
	"security.ssl.internal.key":     {"internal-tls-key", nil},
	"security.ssl.internal.ca":      {"internal-tls-ca", nil},
	"security.ssl.rest.enabled":     {"(rest-tls-* apply)", checkBool},
	"security.ssl.rest.cert":        {"rest-tls-cert", nil},
	"security.ssl.rest.key":         {"rest-tls-key", nil},
	"security.rest.token-file":      {"rest-token-file", nil},
}

// Known reports whether key is a configuration key of the processes.
func Known(key string) bool {
	_, ok := configKeys[key]
	return ok
}

func checkSize(s string) error {
	_, err := memsize.Parse(s)
	return err
}

func checkBool(s string) error {
	if s != "true" && s != "false" {
		return fmt.Errorf("want true or false")
	}
	return nil
}

// LoadConfig reads a configuration file. Unknown keys, values that are
// not scalars and bad values are errors that name the key.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var raw map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil && err.Error() != "EOF" {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cfg := Config{}
	var unknown []string
	for k, v := range raw {
		key, ok := configKeys[k]
		if !ok {
			unknown = append(unknown, k)
			continue
		}
		switch v.(type) {
		case string, int, float64, bool:
		default:
			return nil, fmt.Errorf("config %s: %s: want a single value, not %T", path, k, v)
		}
		s := fmt.Sprint(v)
		if key.check != nil {
			if err := key.check(s); err != nil {
				return nil, fmt.Errorf("config %s: %s: %q: %w", path, k, s, err)
			}
		}
		cfg[k] = s
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("config %s: unknown keys %s (known: %s)", path, strings.Join(unknown, ", "), strings.Join(knownKeys(), ", "))
	}
	return cfg, nil
}

func knownKeys() []string {
	var out []string
	for k := range configKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Address joins the host key and the port key into HOST:PORT over def
// ("" when the file has neither).
func (c Config) Address(hostKey, portKey, def string) string {
	h, hok := c[hostKey]
	p, pok := c[portKey]
	if !hok && !pok {
		return ""
	}
	dh, dp, err := net.SplitHostPort(def)
	if err != nil {
		dh, dp = "127.0.0.1", "0"
	}
	if !hok {
		h = dh
	}
	if !pok {
		p = dp
	}
	return net.JoinHostPort(h, p)
}

func checkPort(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("want a port number")
	}
	return nil
}

func checkPositive(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("want a positive number")
	}
	return nil
}

// checkDuration accepts Go durations ("10s") and Flink's milliseconds.
func checkDuration(s string) error {
	_, err := ParseDuration(s)
	return err
}

// ParseDuration parses a Go duration ("10s") or a number of milliseconds,
// Flink's unit for heartbeat.interval and heartbeat.timeout.
func ParseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 10s, or milliseconds")
	}
	return d, nil
}

// checkOneOf accepts one of the values.
func checkOneOf(values ...string) func(string) error {
	return func(v string) error {
		for _, w := range values {
			if v == w {
				return nil
			}
		}
		return fmt.Errorf("want %s", strings.Join(values, " or "))
	}
}
