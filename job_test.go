package weir

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
)

func nopBuilder(*Env, []string) error { return nil }

func TestRegistry(t *testing.T) {
	r := &jobRegistry{}
	for _, name := range []string{"b", "a", "c"} {
		if err := r.register(name, "job "+name, nopBuilder); err != nil {
			t.Fatalf("register %q: %v", name, err)
		}
	}
	if got := r.names(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("names %q, want sorted a, b, c", got)
	}
	if j, ok := r.lookup("b"); !ok || j.description != "job b" {
		t.Fatalf("lookup b = %+v, %v", j, ok)
	}
	if err := r.err(); err != nil {
		t.Fatalf("err = %v after good registrations", err)
	}
}

func TestRegistryRefusesBadRegistrations(t *testing.T) {
	r := &jobRegistry{}
	if err := r.register("a", "first", nopBuilder); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		build JobBuilder
		want  string
	}{
		{"", nopBuilder, "empty job name"},
		{"b", nil, `job "b" has a nil builder`},
		{"a", nopBuilder, `job "a" registered twice`},
	} {
		err := r.register(tt.name, "second", tt.build)
		if !errors.Is(err, ErrBadRegistration) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("register(%q) = %v, want ErrBadRegistration: %s", tt.name, err, tt.want)
		}
	}
	// The first registration stands; the errors are all kept for Main.
	if j, _ := r.lookup("a"); j.description != "first" {
		t.Errorf("a was replaced by %q", j.description)
	}
	if got := r.names(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("names %q, want [a]", got)
	}
	err := r.err()
	for _, want := range []string{"empty job name", "nil builder", "registered twice"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err() = %v, want it to mention %q", err, want)
		}
	}
}

func TestParseJobFlags(t *testing.T) {
	newFS := func(out *bytes.Buffer) (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("job", flag.ContinueOnError)
		fs.SetOutput(out)
		return fs, fs.String("input", "", "the `FILE` to read")
	}
	var out bytes.Buffer
	fs, input := newFS(&out)
	if err := ParseJobFlags(fs, []string{"--input", "a", "rest"}); err != nil || *input != "a" || !slices.Equal(fs.Args(), []string{"rest"}) {
		t.Fatalf("parse: %v, input %q, args %q", err, *input, fs.Args())
	}

	// A bad flag is an error and nothing is printed: weir run prints it
	// on one line.
	out.Reset()
	fs, _ = newFS(&out)
	err := ParseJobFlags(fs, []string{"--bogus"})
	if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: -bogus") || out.Len() != 0 {
		t.Fatalf("bad flag: %v, printed %q", err, out.String())
	}

	// Help prints the usage to the flag set's output.
	out.Reset()
	fs, _ = newFS(&out)
	err = ParseJobFlags(fs, []string{"-h"})
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "-input FILE") {
		t.Fatalf("help: %v, printed %q", err, out.String())
	}
	if fs.Output() != &out {
		t.Fatal("the flag set's output was not restored")
	}
}
