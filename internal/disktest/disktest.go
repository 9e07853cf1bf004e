// Package disktest gives tests a real small disk: a tmpfs of a chosen
// size, so that writes fail with ENOSPC exactly as on a full disk.
package disktest

import (
	"fmt"
	"os/exec"
	"testing"
)

// Small mounts a tmpfs of size bytes at a new directory and returns it,
// and a function that makes it large (256 MiB). The test is skipped where
// mounting is not allowed (it needs root). The disk is unmounted when the
// test ends.
func Small(t testing.TB, size int) (dir string, grow func()) {
	t.Helper()
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("a small disk needs a tmpfs mount, which is not allowed here: %v: %s", err, out)
	}
	t.Cleanup(func() {
		// Lazily: a Pebble database that failed on the full disk may
		// still be closing its files in the background.
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir, func() {
		if out, err := exec.Command("mount", "-o", "remount,size=256m", dir).CombinedOutput(); err != nil {
			t.Fatalf("grow %s: %v: %s", dir, err, out)
		}
	}
}
