package storage

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// FS is the file system under local storage: the few calls it makes, so
// that tests can inject a failure at each step of a checkpoint write. Names
// are absolute OS paths. Implementations must return errors for which
// errors.Is(err, fs.ErrNotExist) holds when a name does not exist.
type FS interface {
	// Create creates name for writing; it fails if name exists.
	Create(name string) (File, error)
	// Open opens name for reading.
	Open(name string) (File, error)
	// Rename atomically replaces newname with oldname.
	Rename(oldname, newname string) error
	// Remove removes a file or an empty directory.
	Remove(name string) error
	// Mkdir creates one directory.
	Mkdir(name string) error
	// ReadDir lists the names in a directory.
	ReadDir(name string) ([]string, error)
	// Stat returns the size of a file and whether it is a directory.
	Stat(name string) (size int64, isDir bool, err error)
	// SyncDir makes the directory's entries (creations, renames,
	// removals) durable.
	SyncDir(name string) error
}

// File is an open file of an FS.
type File interface {
	io.Reader
	io.Writer
	// Sync makes the written bytes durable.
	Sync() error
	// Close releases the file.
	Close() error
}

// OSFS returns the operating system's file system.
func OSFS() FS { return osFS{} }

type osFS struct{}

func (osFS) Create(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

func (osFS) Open(name string) (File, error) { return os.Open(name) }

func (osFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }

func (osFS) Remove(name string) error { return os.Remove(name) }

func (osFS) Mkdir(name string) error { return os.Mkdir(name, 0o755) }

func (osFS) ReadDir(name string) ([]string, error) {
	entries, err := os.ReadDir(name)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, err
}

func (osFS) Stat(name string) (int64, bool, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return 0, false, err
	}
	return fi.Size(), fi.IsDir(), nil
}

func (osFS) SyncDir(name string) error {
	d, err := os.Open(name)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// cryptoRand reads crypto/rand, which never fails on supported platforms.
type cryptoRand struct{}

func (cryptoRand) Read(p []byte) (int, error) { return rand.Read(p) }

// randomHex returns n random bytes from r as 2n hex digits.
func randomHex(r io.Reader, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("random name: %w", err)
	}
	return hex.EncodeToString(b), nil
}
