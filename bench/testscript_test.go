package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestTestScriptRunsNestedModules checks that scripts/test.sh runs the
// tests of every nested Go module of the repository (bench/peers, whose
// Beam results are checked against the reference): the root `go test
// ./...` stops at a nested go.mod, so each needs its own line.
func TestTestScriptRunsNestedModules(t *testing.T) {
	root := ".."
	script, err := os.ReadFile(filepath.Join(root, "scripts", "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var nested []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" && filepath.Dir(path) != root {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			nested = append(nested, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(nested) == 0 {
		t.Fatal("found no nested module; bench/peers should be one")
	}
	for _, dir := range nested {
		runs := regexp.MustCompile(`(?m)^[^#\n]*cd ` + regexp.QuoteMeta(dir) + `\b[^\n]*go test\b`)
		if !runs.Match(script) {
			t.Errorf("scripts/test.sh never runs `cd %s && ... go test`: the nested module's tests are skipped", dir)
		}
	}
}
