package keyed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The working directories of processes that are gone are removed; those
// of this process and of running ones, and anything else, stay.
func TestRemoveOrphans(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	root := t.TempDir()
	names := map[string]bool{ // name: kept
		fmt.Sprintf("weir-%d-0123abcd-count-0-11", gone.Process.Pid): false,
		fmt.Sprintf("weir-%d-0123abcd-count-1-22", os.Getpid()):      true,
		fmt.Sprintf("weir-%d-0123abcd-count-0-33", os.Getppid()):     true,
		"weir-notapid-x":  true,
		"someone-else":    true,
		"weir--0123-0-44": true,
	}
	for name := range names {
		if err := os.MkdirAll(filepath.Join(root, name, "db"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeOrphans(root, nil)
	var want, got []string
	for name, kept := range names {
		if kept {
			want = append(want, name)
		}
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("left %v, want %v", got, want)
	}
}
