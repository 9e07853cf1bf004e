package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	for _, tt := range []struct {
		name, yaml, err string
		want            map[string]string
	}{
		{name: "flink keys", yaml: "rest.port: 8082\njobmanager.rpc.address: 127.0.0.2\nheartbeat.timeout: 5000\ntaskmanager.numberOfTaskSlots: 4\nstate.checkpoints.dir: /cp\n",
			want: map[string]string{"rest.port": "8082", "jobmanager.rpc.address": "127.0.0.2", "heartbeat.timeout": "5000",
				"taskmanager.numberOfTaskSlots": "4", "state.checkpoints.dir": "/cp"}},
		{name: "empty", yaml: "", want: map[string]string{}},
		{name: "unknown key", yaml: "rest.port: 1\nrest.prot: 2\n", err: "unknown keys rest.prot"},
		{name: "bad port", yaml: "rest.port: 99999\n", err: `rest.port: "99999": want a port number`},
		{name: "bad slots", yaml: "taskmanager.numberOfTaskSlots: 0\n", err: "want a positive number"},
		{name: "bad duration", yaml: "heartbeat.interval: soon\n", err: "heartbeat.interval"},
		{name: "not a scalar", yaml: "rest.port: [1, 2]\n", err: "want a single value"},
		{name: "not yaml", yaml: "rest.port: : :\n", err: "config"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "weir.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadConfig(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("LoadConfig = %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestConfigAddressAndDurations(t *testing.T) {
	c := Config{"rest.port": "9000"}
	if got := c.Address("rest.address", "rest.port", "127.0.0.1:8081"); got != "127.0.0.1:9000" {
		t.Errorf("Address = %q", got)
	}
	if got := c.Address("jobmanager.rpc.address", "jobmanager.rpc.port", "127.0.0.1:6123"); got != "" {
		t.Errorf("Address of absent keys = %q, want empty", got)
	}
	for in, want := range map[string]time.Duration{"5000": 5 * time.Second, "2s": 2 * time.Second} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
