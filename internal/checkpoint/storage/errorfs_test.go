package storage_test

import (
	"errors"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// errInjected is the error errorFS injects.
var errInjected = errors.New("injected fault")

// errorFS is a storage.FS over the operating system's that records every
// call and fails the ones a test picks: the n-th call, or those a predicate
// selects. Calls on files (write, sync, close, read) count like the others.
type errorFS struct {
	os storage.FS

	mu     sync.Mutex
	ops    []string // "op path", in order
	failAt int      // 1-based index into ops of the call to fail; 0: none
	when   func(op, name string) bool
}

func newErrorFS() *errorFS { return &errorFS{os: storage.OSFS()} }

// reset forgets the recorded calls and arms the fault at the n-th call
// from now (0 disarms it).
func (e *errorFS) reset(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ops, e.failAt, e.when = nil, n, nil
}

// failWhen fails every call for which f returns true.
func (e *errorFS) failWhen(f func(op, name string) bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.when = f
}

func (e *errorFS) calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ops...)
}

func (e *errorFS) check(op, name string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ops = append(e.ops, op+" "+name)
	if len(e.ops) == e.failAt || (e.when != nil && e.when(op, name)) {
		return fmt.Errorf("%s %s: %w", op, name, errInjected)
	}
	return nil
}

func (e *errorFS) Create(name string) (storage.File, error) {
	if err := e.check("create", name); err != nil {
		return nil, err
	}
	f, err := e.os.Create(name)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, name: name, fs: e}, nil
}

func (e *errorFS) Open(name string) (storage.File, error) {
	if err := e.check("open", name); err != nil {
		return nil, err
	}
	f, err := e.os.Open(name)
	if err != nil {
		return nil, err
	}
	return &errorFile{f: f, name: name, fs: e}, nil
}

func (e *errorFS) Rename(oldname, newname string) error {
	if err := e.check("rename", newname); err != nil {
		return err
	}
	return e.os.Rename(oldname, newname)
}

func (e *errorFS) Remove(name string) error {
	if err := e.check("remove", name); err != nil {
		return err
	}
	return e.os.Remove(name)
}

func (e *errorFS) Mkdir(name string) error {
	if err := e.check("mkdir", name); err != nil {
		return err
	}
	return e.os.Mkdir(name)
}

func (e *errorFS) ReadDir(name string) ([]string, error) {
	if err := e.check("readdir", name); err != nil {
		return nil, err
	}
	return e.os.ReadDir(name)
}

func (e *errorFS) Stat(name string) (int64, bool, error) {
	if err := e.check("stat", name); err != nil {
		return 0, false, err
	}
	return e.os.Stat(name)
}

func (e *errorFS) SyncDir(name string) error {
	if err := e.check("syncdir", name); err != nil {
		return err
	}
	return e.os.SyncDir(name)
}

type errorFile struct {
	f    storage.File
	name string
	fs   *errorFS
}

func (f *errorFile) Read(p []byte) (int, error) {
	if err := f.fs.check("read", f.name); err != nil {
		return 0, err
	}
	return f.f.Read(p)
}

func (f *errorFile) Write(p []byte) (int, error) {
	if err := f.fs.check("write", f.name); err != nil {
		return 0, err
	}
	return f.f.Write(p)
}

func (f *errorFile) Sync() error {
	if err := f.fs.check("sync", f.name); err != nil {
		return err
	}
	return f.f.Sync()
}

// Close always releases the file, then reports an injected fault if one is
// due.
func (f *errorFile) Close() error {
	err := f.f.Close()
	if ierr := f.fs.check("close", f.name); ierr != nil {
		return ierr
	}
	return err
}
