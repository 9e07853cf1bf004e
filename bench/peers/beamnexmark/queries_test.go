package beamnexmark

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// testEvents keeps `go test ./...` quick: each query and config is one
// prism job of a few tens of milliseconds.
const (
	testEvents = 20_000
	testShards = 4
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	// prism logs every job's life cycle at INFO; beam.Init set that level.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	os.Exit(m.Run())
}

// config is the benchmark's stream: DefaultConfig with n events.
func config(n int64) nexmark.Config {
	c := nexmark.DefaultConfig()
	c.NumEvents = n
	return c
}

func stream(c nexmark.Config) []nexmark.Event {
	return slices.Collect(nexmark.NewGenerator(c).All())
}

// testConfigs are the streams each query is checked on. At the default
// 10,000 events/s, 20k events span 2 s, one q7 window; the slower ones
// span 200 s, so windowed queries see many windows, and "out-of-order"
// also permutes events within groups of 97. With -short (scripts/test.sh)
// only "out-of-order", the most demanding, runs.
func testConfigs() map[string]nexmark.Config {
	def := config(testEvents)
	slow := def
	slow.FirstEventRate = 100
	ooo := slow
	ooo.OutOfOrderGroupSize = 97
	if testing.Short() {
		return map[string]nexmark.Config{"out-of-order": ooo}
	}
	return map[string]nexmark.Config{"default": def, "slow": slow, "out-of-order": ooo}
}

// check runs q on prism for every test config and compares its output,
// sorted with cmp, with the reference's answer.
func check[T comparable](t *testing.T, q Query, ref func(events []nexmark.Event) []T, cmp func(a, b T) int) {
	for name, c := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			want := ref(stream(c))
			got, err := RunAs[T](context.Background(), c, c.NumEvents, testShards, q)
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(got, cmp)
			if len(want) == 0 {
				t.Fatal("reference result is empty; the test proves nothing")
			}
			if len(got) != len(want) {
				t.Fatalf("got %d rows, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d: got %+v, want %+v", i, got[i], want[i])
				}
			}
			t.Logf("%d rows match the reference", len(want))
		})
	}
}

func TestQ0(t *testing.T) {
	check(t, Q0, func(e []nexmark.Event) []reference.Q0Result {
		return []reference.Q0Result{reference.Q0(slices.Values(e))}
	}, func(a, b reference.Q0Result) int { return 0 })
}

func TestQ1(t *testing.T) {
	check(t, Q1, func(e []nexmark.Event) []reference.Q1Row { return reference.Q1(slices.Values(e)) }, reference.CompareQ1)
}

func TestQ2(t *testing.T) {
	check(t, Q2, func(e []nexmark.Event) []reference.Q2Row { return reference.Q2(slices.Values(e)) }, reference.CompareQ2)
}

func TestQ3(t *testing.T) {
	check(t, Q3, func(e []nexmark.Event) []reference.Q3Row { return reference.Q3(slices.Values(e)) }, reference.CompareQ3)
}

func TestQ4(t *testing.T) {
	check(t, Q4, func(e []nexmark.Event) []reference.Q4Row { return reference.Q4(slices.Values(e)) },
		func(a, b reference.Q4Row) int { return int(a.Category - b.Category) })
}

func TestQ5(t *testing.T) {
	check(t, Q5, func(e []nexmark.Event) []reference.Q5Row { return reference.Q5(slices.Values(e)) }, reference.CompareQ5)
}

func TestQ7(t *testing.T) {
	check(t, Q7, func(e []nexmark.Event) []reference.Q7Row { return reference.Q7(slices.Values(e)) }, reference.CompareQ7)
}

func TestQ8(t *testing.T) {
	check(t, Q8, func(e []nexmark.Event) []reference.Q8Row { return reference.Q8(slices.Values(e)) }, reference.CompareQ8)
}
