package pgtest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// initdbArgs are the arguments after -D DIR. --no-sync: a test cluster
// need not survive a power cut, and syncing 40 MB takes seconds here.
var initdbArgs = []string{"-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"}

// templates caches the template data directory per process, after the
// first lookup or build.
var templates struct {
	sync.Mutex
	dir map[string]string
}

// template returns a data directory made by initdb, to copy. It is built
// once per PostgreSQL version, owner and base directory, and shared by all
// test processes: a directory named by a hash of those, put in place with
// an atomic rename, so concurrent builders never see half a template.
func template(bin string, o owner, base string) (string, error) {
	out, err := exec.Command(filepath.Join(bin, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("pgtest: %s --version: %w", filepath.Join(bin, "postgres"), err)
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%d|%s", out, bin, o.uid, strings.Join(initdbArgs, " ")))
	final := filepath.Join(base, "weir-pgtest-template-"+hex.EncodeToString(h[:6]))
	data := filepath.Join(final, "data")

	templates.Lock()
	defer templates.Unlock()
	if d, ok := templates.dir[final]; ok {
		return d, nil
	}
	if ready(final) {
		return remember(final, data), nil
	}
	tmp, err := o.mkdir(base, "weir-pgtest-template-tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	args := append([]string{"-D", filepath.Join(tmp, "data")}, initdbArgs...)
	if err := o.run(filepath.Join(bin, "initdb"), args...); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, "ready"), nil, 0o644); err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process won the race: use its template.
		if !ready(final) {
			return "", fmt.Errorf("pgtest: install template: %w", err)
		}
	}
	return remember(final, data), nil
}

func ready(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "ready"))
	return err == nil
}

func remember(final, data string) string {
	if templates.dir == nil {
		templates.dir = map[string]string{}
	}
	templates.dir[final] = data
	return data
}

// copyDir copies the template data directory to dst, keeping owners and
// modes (postgres insists on a 0700 data directory it owns).
func copyDir(src, dst string) error {
	out, err := exec.Command("cp", "-a", src, dst).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: copy template: %w: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dst, "PG_VERSION")); err != nil {
		return errors.Join(errors.New("pgtest: template copy has no PG_VERSION"), err)
	}
	return nil
}
