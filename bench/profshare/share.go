package main

import (
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/google/pprof/profile"
)

// A group is a part of the engine or the job that samples are counted in.
type group struct {
	name string
	// frame matches the function names of the group's frames.
	frame *regexp.Regexp
}

// groups are tested in order on each frame, innermost frame first; the
// first frame that matches a group decides the sample's group. A frame
// that matches none (the Go runtime's map and memory functions, say)
// passes the sample on to its caller, so a map lookup counts for the code
// that made it.
var groups = []group{
	{"generator", regexp.MustCompile(`weir/bench/nexmark\.|weir/bench/nexmark/queries\.\(\*split\)\.fill`)},
	{"source chain: source reader, timestamp assigner, map/filter/flatMap, sinks", regexp.MustCompile(`weir/bench/nexmark/queries\.Source|internal/operator/(source|watermark)\.|internal/operator\.|internal/typeinfo\.`)},
	{"timers", regexp.MustCompile(`internal/timer\.|internal/task\..*[tT]imer`)},
	{"keyed state", regexp.MustCompile(`internal/state[/.]`)},
	{"record encoding and send", regexp.MustCompile(`internal/codec\..*(encode|Append)|internal/network\..*([wW]rit|[oO]utbox)`)},
	{"record decoding and receive", regexp.MustCompile(`internal/codec\.|internal/network\.`)},
	{"window operator: slices, firing", regexp.MustCompile(`internal/operator/keyedop\..*[wW]indow`)},
	{"the query's own functions and operators", regexp.MustCompile(`weir/bench/nexmark/(queries|reference)\.|internal/operator/(processop|keyedop)\.`)},
	{"task loop, mailbox", regexp.MustCompile(`internal/(task|taskmanager)\.`)},
	{"allocation and GC assist", regexp.MustCompile(`^runtime\.(mallocgc|gcAssist|newobject|newarray|growslice|makeslice|makemap|wbBuf)`)},
}

// other is the group of samples no frame of which matches a group.
const other = "other (runtime)"

// Shares is the CPU time of a profile's counted samples per group.
type Shares struct {
	// Group maps a group's name to its samples' CPU time.
	Group map[string]time.Duration
	// Total is the CPU time of all counted samples.
	Total time.Duration
}

// Share counts p's samples labelled key=value (all samples if key is
// empty) in their groups.
func Share(p *profile.Profile, key, value string) (Shares, error) {
	vi := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			vi = i
		}
	}
	if vi < 0 {
		return Shares{}, fmt.Errorf("not a CPU profile: no cpu/nanoseconds sample type")
	}
	s := Shares{Group: map[string]time.Duration{}}
	for _, sm := range p.Sample {
		if key != "" && !hasLabel(sm, key, value) {
			continue
		}
		d := time.Duration(sm.Value[vi])
		s.Group[classify(sm)] += d
		s.Total += d
	}
	return s, nil
}

func hasLabel(sm *profile.Sample, key, value string) bool {
	for _, v := range sm.Label[key] {
		if v == value {
			return true
		}
	}
	return false
}

// classify names the group of a sample: that of its innermost frame that
// matches one. Inlined functions are frames of their own, innermost first
// within a location, as pprof lists them.
func classify(sm *profile.Sample) string {
	for _, loc := range sm.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			for _, g := range groups {
				if g.frame.MatchString(line.Function.Name) {
					return g.name
				}
			}
		}
	}
	return other
}

// writeTable writes the shares as a Markdown table, a column per profile,
// in percent of each profile's counted samples, and their CPU time below.
func writeTable(w io.Writer, names []string, shares []Shares) error {
	fmt.Fprint(w, "| where the time goes (% of the counted samples) |")
	for _, n := range names {
		fmt.Fprintf(w, " %s |", n)
	}
	fmt.Fprint(w, "\n|---|")
	for range names {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	rows := make([]string, 0, len(groups)+1)
	for _, g := range groups {
		rows = append(rows, g.name)
	}
	for _, row := range append(rows, other) {
		fmt.Fprintf(w, "| %s |", row)
		for _, s := range shares {
			fmt.Fprintf(w, " %s |", percent(s.Group[row], s.Total))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "\nCounted samples:")
	for i, s := range shares {
		sep := ","
		if i == len(shares)-1 {
			sep = "."
		}
		fmt.Fprintf(w, " %s %.2f s%s", names[i], s.Total.Seconds(), sep)
	}
	_, err := fmt.Fprintln(w)
	return err
}

func percent(d, total time.Duration) string {
	if d == 0 || total == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f", 100*float64(d)/float64(total))
}
