package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseRunArgs(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want RunArgs
	}{
		{"empty", nil, RunArgs{}},
		{"job only", []string{"wc"}, RunArgs{Job: "wc"}},
		{"job flags pass through in order",
			[]string{"wc", "--input", "a.txt", "b.txt", "-x=1", "-v"},
			RunArgs{Job: "wc", JobArgs: []string{"--input", "a.txt", "b.txt", "-x=1", "-v"}}},
		{"engine flags before the job",
			[]string{"--parallelism", "3", "--mode=batch", "wc", "--input", "a"},
			RunArgs{Job: "wc", Engine: EngineFlags{Parallelism: 3, Mode: "batch"}, JobArgs: []string{"--input", "a"}}},
		{"checkpointing", []string{"sequence", "--checkpoint-interval", "100ms", "--checkpoint-dir=/cp", "--from-savepoint", "/sp/x", "--keys", "3"},
			RunArgs{Job: "sequence", Engine: EngineFlags{CheckpointInterval: 100 * time.Millisecond, CheckpointDir: "/cp", FromSavepoint: "/sp/x"}, JobArgs: []string{"--keys", "3"}}},
		{"pebble", []string{"sequence", "--state-backend", "pebble", "--incremental", "--state-dir=/st"},
			RunArgs{Job: "sequence", Engine: EngineFlags{StateBackend: "pebble", Incremental: true, StateDir: "/st"}}},
		{"interleaved",
			[]string{"wc", "--input", "a", "--parallelism=2", "--output", "d", "--taskmanagers", "2", "b", "--slots=4", "--quiet"},
			RunArgs{Job: "wc", Engine: EngineFlags{Parallelism: 2, TaskManagers: 2, Slots: 4, Quiet: true},
				JobArgs: []string{"--input", "a", "--output", "d", "b"}}},
		{"one dash, as Go's flag package",
			[]string{"-parallelism", "5", "wc", "-mode", "streaming"},
			RunArgs{Job: "wc", Engine: EngineFlags{Parallelism: 5, Mode: "streaming"}}},
		{"automatic mode", []string{"wc", "--mode", "automatic"}, RunArgs{Job: "wc", Engine: EngineFlags{Mode: "automatic"}}},
		{"quiet=false", []string{"wc", "--quiet=false"}, RunArgs{Job: "wc"}},
		{"last one wins", []string{"wc", "--parallelism", "2", "--parallelism", "7"},
			RunArgs{Job: "wc", Engine: EngineFlags{Parallelism: 7}}},
		{"-- sends the rest to the job",
			[]string{"wc", "--parallelism", "2", "--", "--parallelism", "9", "--detach"},
			RunArgs{Job: "wc", Engine: EngineFlags{Parallelism: 2}, JobArgs: []string{"--parallelism", "9", "--detach"}}},
		{"-- before the job", []string{"--", "wc", "--mode", "x"},
			RunArgs{Job: "wc", JobArgs: []string{"--mode", "x"}}},
		{"help before the job", []string{"--help"}, RunArgs{Help: true}},
		{"-h before a job", []string{"-h", "wc"}, RunArgs{Job: "wc", Help: true}},
		{"help after the job is the job's", []string{"wc", "-h"}, RunArgs{Job: "wc", JobArgs: []string{"-h"}}},
		{"negative numbers and - are job arguments", []string{"wc", "--n", "-5", "-"},
			RunArgs{Job: "wc", JobArgs: []string{"--n", "-5", "-"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRunArgs(tt.args)
			if err != nil {
				t.Fatalf("ParseRunArgs(%q): %v", tt.args, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseRunArgs(%q) =\n%+v, want\n%+v", tt.args, got, tt.want)
			}
		})
	}
}

func TestParseRunArgsErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"wc", "--parallelism", "abc"}, `invalid value "abc" for --parallelism: want an integer from 1 to 32768`},
		{[]string{"wc", "--parallelism=0"}, `invalid value "0" for --parallelism`},
		{[]string{"wc", "--parallelism", "-2"}, `invalid value "-2" for --parallelism`},
		{[]string{"wc", "--parallelism", "40000"}, `invalid value "40000" for --parallelism`},
		{[]string{"wc", "--parallelism"}, "flag --parallelism needs a value (N)"},
		{[]string{"wc", "--parallelism", "--mode"}, `invalid value "--mode" for --parallelism`},
		{[]string{"wc", "--mode", "fast"}, `invalid value "fast" for --mode: want streaming, batch or automatic`},
		{[]string{"wc", "--mode="}, `invalid value "" for --mode`},
		{[]string{"wc", "--taskmanagers", "0"}, `invalid value "0" for --taskmanagers`},
		{[]string{"wc", "--slots", "x"}, `invalid value "x" for --slots`},
		{[]string{"wc", "--quiet=maybe"}, `invalid value "maybe" for --quiet: want true or false`},
		{[]string{"wc", "--checkpoint-interval", "0s"}, "--checkpoint-interval"},
		{[]string{"wc", "--checkpoint-dir="}, "--checkpoint-dir"},
		{[]string{"wc", "--from-savepoint="}, "--from-savepoint"},
		{[]string{"wc", "--state-backend", "rocksdb"}, `invalid value "rocksdb" for --state-backend: want hashmap or pebble`},
		{[]string{"wc", "--incremental"}, "--incremental and --state-dir need --state-backend pebble"},
		{[]string{"wc", "--state-dir", "/tmp/x", "--state-backend", "hashmap"}, "need --state-backend pebble"},
		{[]string{"--jobmanager", "http://localhost:6123", "wc"}, `invalid value "http://localhost:6123" for --jobmanager: want HOST:PORT without a scheme`},
		{[]string{"wc", "--jobmanager", "localhost:0"}, `invalid value "localhost:0" for --jobmanager`},
		{[]string{"wc", "--detach"}, "--detach needs --jobmanager"},
		{[]string{"--paralelism", "2", "wc"}, "unknown engine flag --paralelism before the job name (job flags go after it) (did you mean --parallelism?)"},
		{[]string{"--input", "a", "wc"}, "unknown engine flag --input before the job name"},
	} {
		_, err := ParseRunArgs(tt.args)
		if err == nil {
			t.Errorf("ParseRunArgs(%q) succeeded, want error %q", tt.args, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseRunArgs(%q) = %q, want one line containing %q", tt.args, err, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	for name, want := range map[string]string{
		"paralelism":  " (did you mean --parallelism?)",
		"parallelsim": " (did you mean --parallelism?)",
		"slot":        " (did you mean --slots?)",
		"parallelism": "",
		"input":       "",
		"x":           "",
	} {
		if got := suggest(name); got != want {
			t.Errorf("suggest(%q) = %q, want %q", name, got, want)
		}
	}
}
