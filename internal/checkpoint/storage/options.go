package storage

import (
	"fmt"
	"io"
	"log/slog"

	"gocloud.dev/blob"
)

// VerifyMode is how much of a checkpoint LatestCompleted reads before it
// accepts it.
type VerifyMode uint8

// The verification modes.
const (
	// VerifyFull reads every referenced state and shared file and checks
	// its size and CRC (shared files of format 1.0 snapshots, which
	// recorded no CRC: size only). It costs one read of the whole
	// checkpoint and finds every damaged file.
	VerifyFull VerifyMode = iota
	// VerifySize only checks that every referenced file exists with the
	// size its handle records: cheap on object stores, blind to damage
	// that keeps the size, which ReadState still detects at restore.
	VerifySize
)

// String returns "full" or "size".
func (m VerifyMode) String() string {
	switch m {
	case VerifyFull:
		return "full"
	case VerifySize:
		return "size"
	}
	return fmt.Sprintf("VerifyMode(%d)", uint8(m))
}

// Defaults of Options.
const (
	// DefaultInlineThreshold is Flink's state.storage.fs.memory-threshold:
	// state streams up to 20 KiB are kept inline in _metadata.
	DefaultInlineThreshold = 20 << 10
	// DefaultMaxMetadataSize bounds what ReadMetadata reads, so a wrong
	// location cannot make it allocate without bound.
	DefaultMaxMetadataSize = 256 << 20
)

// Options configures a Storage. The zero value is ready to use; fields left
// zero take the documented defaults.
type Options struct {
	// Logger receives a line for each checkpoint LatestCompleted skips and
	// for failed best-effort cleanups. Default: discard.
	Logger *slog.Logger

	// FS is the file system for local (plain path and file://) storage.
	// Default: the operating system's. Tests pass an error-injecting one.
	FS FS

	// URLMux resolves non-file URLs to buckets. Default:
	// blob.DefaultURLMux(), which knows the schemes of the gocloud.dev
	// blob drivers linked into the binary (mem:// via memblob, s3:// via
	// s3blob, gs:// via gcsblob).
	URLMux *blob.URLMux

	// InlineThreshold is the largest state stream WriteState keeps inline
	// in the metadata instead of writing a file. Zero means
	// DefaultInlineThreshold; negative means never inline.
	InlineThreshold int

	// MaxMetadataSize is the largest _metadata ReadMetadata accepts. Zero
	// means DefaultMaxMetadataSize.
	MaxMetadataSize int64

	// Verify is how LatestCompleted checks the state files of a checkpoint
	// before accepting it. Default: VerifyFull.
	Verify VerifyMode

	// SavepointDir is the target directory of savepoints written with an
	// empty target (a path or URL). Default: "savepoints" under the
	// storage root.
	SavepointDir string

	// Rand is the source of the random parts of file and savepoint names.
	// Default: crypto/rand. It must be safe for concurrent use.
	Rand io.Reader
}

// EnsureDefaults fills the zero fields of o with their defaults.
func (o *Options) EnsureDefaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.FS == nil {
		o.FS = OSFS()
	}
	if o.URLMux == nil {
		o.URLMux = blob.DefaultURLMux()
	}
	if o.InlineThreshold == 0 {
		o.InlineThreshold = DefaultInlineThreshold
	}
	if o.MaxMetadataSize == 0 {
		o.MaxMetadataSize = DefaultMaxMetadataSize
	}
	if o.Rand == nil {
		o.Rand = cryptoRand{}
	}
}

// Validate reports options that cannot work.
func (o *Options) Validate() error {
	if o.MaxMetadataSize < 0 {
		return fmt.Errorf("%w: negative MaxMetadataSize %d", ErrInvalid, o.MaxMetadataSize)
	}
	if o.Verify > VerifySize {
		return fmt.Errorf("%w: unknown Verify mode %d", ErrInvalid, o.Verify)
	}
	if o.InlineThreshold > 1<<30 {
		return fmt.Errorf("%w: InlineThreshold %d is above 1 GiB", ErrInvalid, o.InlineThreshold)
	}
	return nil
}
