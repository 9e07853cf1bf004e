package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The dashboard's tests drive a headless Chromium (Debian's chromium,
// which scripts/test.sh installs) with chromedp against the real
// processes. Without Chromium they skip, unless WEIR_REQUIRE_CHROMIUM is
// set (scripts/test.sh sets it), so that CI cannot skip them silently.

// browserTimeout bounds a whole browser test, and awaitTimeout one wait
// for the page: a page that never shows what a test awaits fails it,
// with what it shows, rather than hanging.
const (
	browserTimeout = 60 * time.Second
	awaitTimeout   = 15 * time.Second
)

// chromiumPath finds the browser, or skips or fails the test without it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("WEIR_REQUIRE_CHROMIUM") != "" {
		t.Fatal("no chromium on PATH, and WEIR_REQUIRE_CHROMIUM is set (scripts/chromium.sh install installs it)")
	}
	t.Skip("no chromium on PATH (scripts/chromium.sh install); set WEIR_REQUIRE_CHROMIUM to fail instead")
	return ""
}

// browser is a headless Chromium tab of a test.
type browser struct {
	t   *testing.T
	ctx context.Context
}

// newBrowser starts Chromium for t; it is stopped when t ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	// Chromium exits at start now and then on a loaded machine, before it
	// says where DevTools listen ("chrome failed to start", with nothing
	// in its output but the usual warnings): one more try, then fail.
	var err error
	for try := 1; try <= 2; try++ {
		var b *browser
		if b, err = startBrowser(t); err == nil {
			return b
		}
		t.Logf("start chromium, try %d: %v", try, err)
	}
	t.Fatalf("start chromium: %v", err)
	return nil
}

// startBrowser starts a headless Chromium with one tab, stopped when the
// test ends.
func startBrowser(t *testing.T) (*browser, error) {
	exe := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true))
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	// Cleanups run last first: the tab, then the browser process (the
	// allocator waits for it to exit), then the timeout.
	t.Cleanup(cancel)
	t.Cleanup(cancelAlloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		return nil, err
	}
	return &browser{t: t, ctx: tab}, nil
}

// do runs steps in the tab; what failed names the step.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// open navigates to url.
func (b *browser) open(url string) {
	b.t.Helper()
	b.do("open "+url, chromedp.Navigate(url))
}

// await waits until the JavaScript expression is truthy, re-evaluated
// on each change of the page's DOM (no timed polling), and returns its
// value as a string.
func (b *browser) await(what, expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Poll[any](expr, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(awaitTimeout)))
	if err != nil {
		shows, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		b.t.Fatalf("awaiting %s (%s): %v; the page shows:\n%s", what, expr, err, shows)
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// eval evaluates expr and returns its string value.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// screenshot writes the whole page as NAME.png into WEIR_SCREENSHOT_DIR
// (the README's pictures are made with WEIR_SCREENSHOT_DIR=docs/img), or
// into the test's temporary directory.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("WEIR_SCREENSHOT_DIR")
	if dir == "" {
		dir = b.t.TempDir()
	}
	// The whole document as PNG, clipped to the root element's box as it
	// is when taken: chromedp.FullScreenshot leaves the clip to Chromium,
	// which cut a tall page at the window's height now and then.
	buf, err := chromedp.Run(b.ctx, chromedp.Screenshot(chromedp.CSS("html")))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// setValue sets the value of the input that CSS selector sel finds, as
// a script of the page does (chromedp's SetValue refuses "", and Clear
// leaves a number input as it was).
func setValue(sel, v string) chromedp.Action[chromedp.Void] {
	qs, _ := json.Marshal(sel)
	qv, _ := json.Marshal(v)
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%s).value = %s`, qs, qv))
}

// click clicks the element that CSS selector sel finds, once visible.
func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel))
}
