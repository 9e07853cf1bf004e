// Package sequence is the end-to-end correctness job of DESIGN.md, like
// Flink's DataStream all-round test program: a long source emits K keys
// with sequence numbers 0..N-1 each, an optional short source emits a few
// records and finishes early, a keyed operator counts the records of each
// key in keyed state, and an exactly-once sink writes "key<TAB>seq<TAB>count"
// lines. With exactly-once output, every key's sequence numbers appear once
// each and count = seq+1, whatever failures and restarts happened; Verify
// checks that.
package sequence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/weir-engine/weir"
)

// Name and Description register the job.
const (
	Name        = "sequence"
	Description = "--keys K --records-per-key N [--rate R] [--short-source-records M] [--fail-after N] --output DIR [--sink file|postgres --postgres-dsn DSN --postgres-table T [--postgres-txn-prefix P]] [--sink kafka --kafka-brokers HOST:PORT,... --topic T [--kafka-delivery exactly-once|at-least-once|none]]: exactly-once check"
)

// Config is the job's configuration.
type Config struct {
	Keys          int
	RecordsPerKey int64
	// Rate limits the long source (records/s over all subtasks); 0: none.
	Rate float64
	// ShortRecords is the number of records of the short source (0: none).
	ShortRecords int64
	// FailAfter makes the counting subtask 0 fail once, in the job's first
	// attempt, after that many records (0: never).
	FailAfter int64
	// DynamicSplits hands the long source's splits, one per key, out on
	// request from an enumerator on the JobMaster (FLIP-27), instead of
	// dealing them out at the start.
	DynamicSplits bool
}

// Record is one element of the sources.
type Record struct {
	Key string
	Seq int64
}

// Count is one output line.
type Count struct {
	Key        string
	Seq, Count int64
}

// String formats c as key<TAB>seq<TAB>count.
func (c Count) String() string {
	return c.Key + "\t" + strconv.FormatInt(c.Seq, 10) + "\t" + strconv.FormatInt(c.Count, 10)
}

// keySplit is the part of a source read by one subtask: the keys
// first, first+step, ... below numKeys, in rounds of one record per key, so
// each key is emitted in sequence order by exactly one subtask at any
// parallelism.
type keySplit struct {
	First, Step, NumKeys int
	Next, Total          int64 // index into this split's records, and their number
	Prefix               string
}

func (s keySplit) keysInSplit() int64 {
	if s.First >= s.NumKeys {
		return 0
	}
	return int64((s.NumKeys-1-s.First)/s.Step + 1)
}

// splits divides numKeys keys with records records in all (key k gets the
// records j with j mod numKeys == k) over p subtasks.
func splits(prefix string, numKeys int, records int64) func(p int) ([]keySplit, error) {
	return func(p int) ([]keySplit, error) {
		var out []keySplit
		for i := 0; i < p && i < numKeys; i++ {
			s := keySplit{First: i, Step: p, NumKeys: numKeys, Prefix: prefix}
			// Records of this split: every j < records with j mod numKeys in
			// the split's keys.
			for k := int64(i); k < int64(numKeys); k += int64(p) {
				if k < records {
					s.Total += (records-1-k)/int64(numKeys) + 1
				}
			}
			out = append(out, s)
		}
		return out, nil
	}
}

func read(s *keySplit, budget int, emit func(Record) error) (bool, error) {
	n := s.keysInSplit()
	for ; budget > 0 && s.Next < s.Total; budget-- {
		round, idx := s.Next/n, s.Next%n
		key := int64(s.First) + idx*int64(s.Step)
		if err := emit(Record{Key: s.Prefix + strconv.FormatInt(key, 10), Seq: round}); err != nil {
			return false, err
		}
		s.Next++
	}
	return s.Next >= s.Total, nil
}

// Source is the long source (and, with prefix "s", the short one).
func Source(env *weir.Env, prefix string, numKeys int, records int64, rate float64) weir.DataStream[Record] {
	return source(env, prefix, numKeys, records, rate, false)
}

// source builds a source; dynamic splits are one per key, handed out on
// request.
func source(env *weir.Env, prefix string, numKeys int, records int64, rate float64, dynamic bool) weir.DataStream[Record] {
	split := splits(prefix, numKeys, records)
	if dynamic {
		perKey := split
		split = func(int) ([]keySplit, error) { return perKey(numKeys) }
	}
	return weir.FromSplits(env, weir.SplitSource[Record, keySplit]{
		Name:          "source-" + prefix,
		Splits:        split,
		Read:          read,
		RatePerSecond: rate,
		Dynamic:       dynamic,
		Progress:      func(s *keySplit) (int64, int64) { return s.Next, s.Total },
	})
}

// Build adds the job to env and returns the stream of counts; the caller
// adds the sink.
func Build(env *weir.Env, cfg Config) (weir.DataStream[Count], error) {
	switch {
	case cfg.Keys < 1:
		return weir.DataStream[Count]{}, fmt.Errorf("--keys %d must be at least 1", cfg.Keys)
	case cfg.RecordsPerKey < 0 || cfg.ShortRecords < 0 || cfg.FailAfter < 0 || cfg.Rate < 0:
		return weir.DataStream[Count]{}, errors.New("--records-per-key, --short-source-records, --fail-after and --rate must not be negative")
	}
	in := source(env, "k", cfg.Keys, int64(cfg.Keys)*cfg.RecordsPerKey, cfg.Rate, cfg.DynamicSplits).UID("source-long")
	if cfg.ShortRecords > 0 {
		short := Source(env, "s", cfg.Keys, cfg.ShortRecords, 0).UID("source-short")
		in = weir.Union(in, short)
	}
	counts := weir.Process(weir.KeyBy(in, func(r Record) string { return r.Key }),
		weir.KeyedProcessFunction[string, Record, Count](&counter{failAfter: cfg.FailAfter}))
	return counts.Name("count").UID("count"), env.Err()
}

// counter counts the records of each key.
type counter struct {
	failAfter int64
	seen      int64
	attempt   int
	subtask   int
	count     weir.ValueState[int64]
}

func (c *counter) Open(rc *weir.KeyedRuntimeContext[string]) error {
	c.attempt, c.subtask = rc.Attempt, rc.SubtaskIndex
	var err error
	c.count, err = weir.GetValueState[int64](rc, "count")
	return err
}

func (c *counter) ProcessElement(ctx *weir.KeyedContext[string, Count], r Record) error {
	c.seen++
	if c.failAfter > 0 && c.attempt == 0 && c.subtask == 0 && c.seen == c.failAfter {
		return fmt.Errorf("sequence: failing after %d records, as --fail-after asked", c.seen)
	}
	n, _ := c.count.Value()
	n++
	c.count.Update(n)
	ctx.Collect(Count{Key: r.Key, Seq: r.Seq, Count: n})
	return nil
}

// Verify checks output lines against the configuration: every key of both
// sources has each sequence number exactly once, with count = seq+1.
func Verify(cfg Config, lines []string) error {
	seen, err := parse(lines)
	if err != nil {
		return err
	}
	want := func(prefix string, records int64) error {
		for k := 0; k < cfg.Keys; k++ {
			key := prefix + strconv.Itoa(k)
			n := int64(0)
			if int64(k) < records {
				n = (records-1-int64(k))/int64(cfg.Keys) + 1
			}
			if int64(len(seen[key])) != n {
				return fmt.Errorf("key %s has %d sequence numbers, want %d", key, len(seen[key]), n)
			}
			for s := int64(0); s < n; s++ {
				if !seen[key][s] {
					return fmt.Errorf("key %s misses seq %d", key, s)
				}
			}
		}
		return nil
	}
	if err := want("k", int64(cfg.Keys)*cfg.RecordsPerKey); err != nil {
		return err
	}
	return want("s", cfg.ShortRecords)
}

// CommittedLines reads the committed output of the file sink under dir:
// the lines of its visible part files (pending ones start with a dot).
func CommittedLines(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines, nil
}

// VerifyPrefix checks output of a job that was stopped before its end
// (stop-with-savepoint --drain): every line once, count = seq+1, and each
// key's sequence numbers 0..n-1 without a gap, whatever n. It returns the
// number of lines.
func VerifyPrefix(lines []string) (int, error) {
	seen, err := parse(lines)
	if err != nil {
		return 0, err
	}
	for key, seqs := range seen {
		for s := int64(0); s < int64(len(seqs)); s++ {
			if !seqs[s] {
				return 0, fmt.Errorf("key %s misses seq %d while later ones are there", key, s)
			}
		}
	}
	return len(lines), nil
}

// parse reads output lines into the sequence numbers seen per key,
// refusing malformed lines, a count other than seq+1 and duplicates.
func parse(lines []string) (map[string]map[int64]bool, error) {
	seen := make(map[string]map[int64]bool)
	for _, line := range lines {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("malformed line %q", line)
		}
		seq, err1 := strconv.ParseInt(f[1], 10, 64)
		count, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("malformed line %q", line)
		}
		if count != seq+1 {
			return nil, fmt.Errorf("key %s seq %d has count %d, want %d", f[0], seq, count, seq+1)
		}
		if seen[f[0]] == nil {
			seen[f[0]] = make(map[int64]bool)
		}
		if seen[f[0]][seq] {
			return nil, fmt.Errorf("key %s seq %d appears twice", f[0], seq)
		}
		seen[f[0]][seq] = true
	}
	return seen, nil
}
