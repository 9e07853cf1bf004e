package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// The engine's log on the console. `weir run` hands the engine a logger
// that writes one line per record on stderr: warnings and errors by
// default, informational messages too with --verbose. Each line starts
// with "weir: " as the command's own messages do, so that a restart loop
// or a full disk is visible as it happens rather than only in the final
// error:
//
//	weir: job restarting (attempt 3) after: operator "sink" (subtask 1/2): write /out/.part-0: no space left on device
//	weir: warning: checkpoint failed: id=7 kind=checkpoint reason=...
//
// A record is a restart when its message says "restarting" and it carries
// the failure as a "cause" attribute (the JobMaster's "job failed,
// restarting" record, with "generation" the attempt); it gets the first
// form above. Every other record is "weir: <level>: <message>: key=value
// ...", the attributes in their order, values quoted where they hold
// spaces.

// NewLogger returns the console logger of `weir run`: records at warning
// level and above on w, info too when verbose.
func NewLogger(w io.Writer, verbose bool) *slog.Logger {
	return slog.New(&consoleHandler{out: &lockedWriter{w: w}, level: logLevel(verbose)})
}

// logLevel is the least level logged: info when verbose, else warnings.
func logLevel(verbose bool) slog.Level {
	if verbose {
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// NewJSONLogger returns the logger of `weir run --log-format json`: slog's
// JSON records on w, one per line, at the level NewLogger would log.
func NewJSONLogger(w io.Writer, verbose bool) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: logLevel(verbose)}))
}

// newEngineLogger is the logger the engine flags ask for.
func newEngineLogger(w io.Writer, f EngineFlags) *slog.Logger {
	if f.LogFormat == "json" {
		return NewJSONLogger(w, f.Verbose)
	}
	return NewLogger(w, f.Verbose)
}

// lockedWriter serializes the lines of every handler derived from one
// logger.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) writeLine(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, s)
}

// consoleHandler is the slog.Handler of NewLogger.
type consoleHandler struct {
	out    *lockedWriter
	level  slog.Level
	attrs  []slog.Attr // from WithAttrs, groups already applied to keys
	prefix string      // the open groups, "a.b."
}

// Enabled implements slog.Handler.
func (h *consoleHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

// WithAttrs implements slog.Handler.
func (h *consoleHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range as {
		a.Key = h.prefix + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

// WithGroup implements slog.Handler.
func (h *consoleHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

// Handle implements slog.Handler.
func (h *consoleHandler) Handle(_ context.Context, r slog.Record) error {
	attrs := append([]slog.Attr(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		a.Key = h.prefix + a.Key
		attrs = append(attrs, a)
		return true
	})
	h.out.writeLine(formatRecord(r.Level, r.Message, attrs))
	return nil
}

// formatRecord renders one record as its line, newline included.
func formatRecord(level slog.Level, msg string, attrs []slog.Attr) string {
	if line, ok := restartLine(msg, attrs); ok {
		return line
	}
	var b strings.Builder
	b.WriteString("weir: ")
	switch {
	case level >= slog.LevelError:
		b.WriteString("error: ")
	case level >= slog.LevelWarn:
		b.WriteString("warning: ")
	}
	b.WriteString(oneLineText(msg))
	for i, a := range flatten(attrs) {
		if i == 0 {
			b.WriteString(":")
		}
		fmt.Fprintf(&b, " %s=%s", a.Key, quoteValue(a.Value.String()))
	}
	b.WriteByte('\n')
	return b.String()
}

// restartLine formats a restart record (see the package's log notes).
func restartLine(msg string, attrs []slog.Attr) (string, bool) {
	if !strings.Contains(msg, "restarting") {
		return "", false
	}
	var cause, attempt string
	for _, a := range flatten(attrs) {
		switch a.Key {
		case "cause":
			cause = a.Value.String()
		case "generation", "attempt":
			attempt = a.Value.String()
		}
	}
	if cause == "" {
		return "", false
	}
	if attempt != "" {
		attempt = " (attempt " + attempt + ")"
	}
	return "weir: job restarting" + attempt + " after: " + oneLineText(strings.TrimPrefix(cause, "weir: ")) + "\n", true
}

// flatten expands group attributes into dotted keys.
func flatten(attrs []slog.Attr) []slog.Attr {
	var out []slog.Attr
	for _, a := range attrs {
		a.Value = a.Value.Resolve()
		if a.Value.Kind() != slog.KindGroup {
			if a.Key != "" {
				out = append(out, a)
			}
			continue
		}
		for _, g := range flatten(a.Value.Group()) {
			if a.Key != "" {
				g.Key = a.Key + "." + g.Key
			}
			out = append(out, g)
		}
	}
	return out
}

// oneLineText folds line breaks so that a record stays one line.
func oneLineText(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\r", "")
	return strings.ReplaceAll(s, "\n", " | ")
}

// quoteValue quotes a value that holds spaces, quotes or line breaks.
func quoteValue(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\r\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}
