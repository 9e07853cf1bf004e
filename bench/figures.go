package main

import (
	"regexp"
)

// inlineFigure marks a figure quoted in the prose of the benchmarks page,
// outside the generated section: <!-- bench:weir:q5 -->2.24 M<!-- /bench -->
// quotes Weir's events/s on q5 from the latest run, and renderDoc rewrites
// it with every run, so the prose never goes stale (bench:beam:qN quotes
// Beam's).
var inlineFigure = regexp.MustCompile(`<!-- bench:(weir|beam):(q\d+) -->([^<]*)<!-- /bench -->`)

// fillFigures returns text with every inline figure set from rows; a figure
// whose query the run lacks is left as it is.
func fillFigures(text string, rows []nexmarkRow) string {
	return inlineFigure.ReplaceAllStringFunc(text, func(m string) string {
		sub := inlineFigure.FindStringSubmatch(m)
		for _, r := range rows {
			if r.Query != sub[2] {
				continue
			}
			v := r.Weir
			if sub[1] == "beam" {
				v = r.Beam
			}
			if v == 0 {
				return m
			}
			return "<!-- bench:" + sub[1] + ":" + sub[2] + " -->" + human(v) + "<!-- /bench -->"
		}
		return m
	})
}
