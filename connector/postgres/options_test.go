package postgres

import (
	"context"
	"strings"
	"testing"

	weir "github.com/weir-engine/weir"
)

func TestOptionsValidate(t *testing.T) {
	ok := options("postgres://u@127.0.0.1:1/db", "t")
	for _, tc := range []struct {
		name   string
		change func(*Options[rec])
		want   string // "" for valid
	}{
		{"valid", func(*Options[rec]) {}, ""},
		{"schema-qualified", func(o *Options[rec]) { o.Table = "s.t" }, ""},
		{"no DSN", func(o *Options[rec]) { o.DSN = "" }, "DSN is empty"},
		{"bad DSN", func(o *Options[rec]) { o.DSN = "postgres://a b@:x" }, "DSN"},
		{"no table", func(o *Options[rec]) { o.Table = "" }, "table is empty"},
		{"three-part table", func(o *Options[rec]) { o.Table = "a.b.c" }, "schema.table"},
		{"empty table part", func(o *Options[rec]) { o.Table = "a." }, "empty part"},
		{"no columns", func(o *Options[rec]) { o.Columns = nil }, "no Columns"},
		{"empty column", func(o *Options[rec]) { o.Columns = []string{"a", ""} }, "column 1 is empty"},
		{"no Row", func(o *Options[rec]) { o.Row = nil }, "row function is nil"},
		{"transaction prefix", func(o *Options[rec]) { o.TransactionPrefix = "orders-1" }, ""},
		{"transaction prefix with a space", func(o *Options[rec]) { o.TransactionPrefix = "my sink" }, "transaction prefix \"my sink\""},
		{"transaction prefix too long", func(o *Options[rec]) { o.TransactionPrefix = strings.Repeat("p", 169) }, "more than 168"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.change(&o)
			err := o.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want an error with %q", err, tc.want)
			}
			if _, tryErr := TryNewSink(o); tryErr == nil {
				t.Error("TryNewSink accepted invalid options")
			}
			// NewSink defers the error to the runtime's first calls.
			s := NewSink(o)
			if _, err := s.CreateWriter(context.Background(), sinkContext(newJobID(), 0, 1, 0)); err == nil {
				t.Error("CreateWriter accepted invalid options")
			}
			if _, err := s.CreateCommitter(context.Background(), weir.SinkContext{}); err == nil {
				t.Error("CreateCommitter accepted invalid options")
			}
		})
	}
}

func TestCreateWriterChecksContext(t *testing.T) {
	s := NewSink(options(shared.DSN, "unused"))
	job := newJobID()
	for _, tc := range []struct {
		name string
		info weir.SinkContext
		want string
	}{
		{"no uid", weir.SinkContext{JobID: job, Parallelism: 1}, "operator uid"},
		{"subtask out of range", weir.SinkContext{JobID: job, OperatorUID: "u", SubtaskIndex: 2, Parallelism: 2}, "subtask 2 of parallelism 2"},
		{"no parallelism", weir.SinkContext{JobID: job, OperatorUID: "u"}, "parallelism 0"},
		{"negative restore", weir.SinkContext{JobID: job, OperatorUID: "u", Parallelism: 1, RestoredFromID: -1}, "restored from checkpoint -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.CreateWriter(testContext(t), tc.info)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "unused") {
				t.Fatalf("CreateWriter = %v, want an error naming the table with %q", err, tc.want)
			}
		})
	}
}
