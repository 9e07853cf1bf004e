package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNotInstalled is returned (wrapped) by New when the PostgreSQL server
// binaries cannot be found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL is not installed")

// defaultBin is where Debian's postgresql-15 puts the server binaries.
const defaultBin = "/usr/lib/postgresql/15/bin"

// findBin returns the directory of initdb, pg_ctl and postgres: WEIR_PGBIN,
// else Debian's PostgreSQL 15, else the newest installed major version (the
// same search as scripts/postgres.sh).
func findBin() (string, error) {
	return findBinIn(os.Getenv("WEIR_PGBIN"), defaultBin, "/usr/lib/postgresql/*/bin")
}

// findBinIn is findBin with the places to look as arguments, for tests.
func findBinIn(override, def, pattern string) (string, error) {
	const how = "run scripts/test.sh, which installs it, or scripts/postgres.sh install as root"
	if override != "" {
		if isExec(filepath.Join(override, "postgres")) {
			return override, nil
		}
		return "", fmt.Errorf("%w (no postgres in WEIR_PGBIN=%s): unset WEIR_PGBIN and %s",
			ErrNotInstalled, override, how)
	}
	if isExec(filepath.Join(def, "postgres")) {
		return def, nil
	}
	dirs, _ := filepath.Glob(pattern)
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) < major(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if isExec(filepath.Join(dirs[i], "postgres")) {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("%w (no server binaries in %s): %s", ErrNotInstalled, def, how)
}

// major is the version number in /usr/lib/postgresql/<major>/bin.
func major(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// owner is the account that runs the servers: postgres when we are root
// (initdb refuses root), else ourselves.
type owner struct {
	asPostgres bool
	uid, gid   int
}

func currentOwner() (owner, error) {
	if os.Geteuid() != 0 {
		return owner{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return owner{}, fmt.Errorf("pgtest: running as root needs the postgres user "+
			"(the PostgreSQL package creates it): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return owner{asPostgres: true, uid: uid, gid: gid}, nil
}

// command runs a server binary as the owner.
func (o owner) command(bin string, args ...string) *exec.Cmd {
	if o.asPostgres {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

// run runs a server binary as the owner and returns its output in the
// error when it fails.
func (o owner) run(bin string, args ...string) error {
	out, err := o.command(bin, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: %s %s: %w\n%s", filepath.Base(bin),
			strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// mkdir makes a private directory that the owner can use.
func (o owner) mkdir(parent, pattern string) (string, error) {
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if err := os.Chown(dir, o.uid, o.gid); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("pgtest: %w", err)
	}
	return dir, nil
}

// baseDir is where data directories go: /dev/shm if usable, else the
// system's temp directory.
func baseDir() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && fi.Mode()&0o002 != 0 {
		return "/dev/shm"
	}
	return os.TempDir()
}
