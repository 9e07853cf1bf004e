package storage

import (
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/weir-engine/weir/internal/keygroup"
)

// castagnoli is the CRC-32C table used for the metadata trailer and for
// state streams.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Validate checks the invariants a Metadata must hold to be written or
// restored: the fields a restore relies on are in range, ids are unique,
// handles are consistent and their paths stay inside the job's directories,
// and a savepoint references nothing outside its own directory. Encode
// calls it (its errors then wrap ErrInvalid), and so does Decode (wrapping
// ErrCorrupt), so a restore never sees a Metadata that fails it.
func (md *Metadata) Validate() error {
	if md.JobID == "" {
		return errors.New("empty job id")
	}
	if md.CheckpointID < 0 {
		return fmt.Errorf("negative checkpoint id %d", md.CheckpointID)
	}
	if md.Kind != KindCheckpoint && md.Kind != KindSavepoint {
		return fmt.Errorf("invalid kind %v", md.Kind)
	}
	uids := make(map[string]bool, len(md.Operators))
	for i := range md.Operators {
		op := &md.Operators[i]
		if err := op.validate(md.Kind); err != nil {
			return fmt.Errorf("operator %d (uid %q): %w", i, op.UID, err)
		}
		if uids[op.UID] {
			return fmt.Errorf("operator %d: duplicate uid %q", i, op.UID)
		}
		uids[op.UID] = true
	}
	names := make(map[string]bool, len(md.MasterStates))
	for i, ms := range md.MasterStates {
		if ms.Name == "" {
			return fmt.Errorf("master state %d: empty name", i)
		}
		if names[ms.Name] {
			return fmt.Errorf("master state %d: duplicate name %q", i, ms.Name)
		}
		names[ms.Name] = true
	}
	return nil
}

func (op *OperatorState) validate(kind Kind) error {
	if op.UID == "" {
		return errors.New("empty uid")
	}
	if op.Parallelism < 1 || op.Parallelism > keygroup.UpperBoundMaxParallelism {
		return fmt.Errorf("parallelism %d outside [1, %d]", op.Parallelism, keygroup.UpperBoundMaxParallelism)
	}
	if op.MaxParallelism < op.Parallelism || op.MaxParallelism > keygroup.UpperBoundMaxParallelism {
		return fmt.Errorf("max parallelism %d outside [parallelism %d, %d]",
			op.MaxParallelism, op.Parallelism, keygroup.UpperBoundMaxParallelism)
	}
	seen := make(map[int]bool, len(op.Subtasks))
	for i := range op.Subtasks {
		st := &op.Subtasks[i]
		if st.Index < 0 || st.Index >= op.Parallelism {
			return fmt.Errorf("subtask %d: index %d outside [0, %d)", i, st.Index, op.Parallelism)
		}
		if seen[st.Index] {
			return fmt.Errorf("subtask %d: duplicate index %d", i, st.Index)
		}
		seen[st.Index] = true
		if err := st.validate(op.MaxParallelism, kind); err != nil {
			return fmt.Errorf("subtask %d: %w", st.Index, err)
		}
	}
	return nil
}

func (st *SubtaskState) validate(maxParallelism int, kind Kind) error {
	for i := range st.Keyed {
		if err := st.Keyed[i].validate(maxParallelism, kind); err != nil {
			return fmt.Errorf("keyed state %d: %w", i, err)
		}
	}
	names := make(map[string]bool, len(st.OperatorLists))
	for i, ls := range st.OperatorLists {
		if ls.Name == "" {
			return fmt.Errorf("operator list state %d: empty name", i)
		}
		if names[ls.Name] {
			return fmt.Errorf("operator list state %d: duplicate name %q", i, ls.Name)
		}
		names[ls.Name] = true
		if ls.Mode < ModeSplit || ls.Mode > ModeBroadcast {
			return fmt.Errorf("operator list state %q: invalid mode %v", ls.Name, ls.Mode)
		}
	}
	for i, h := range st.ChannelState {
		if err := h.validate(kind); err != nil {
			return fmt.Errorf("channel state %d: %w", i, err)
		}
	}
	return nil
}

func (k *KeyedStateHandle) validate(maxParallelism int, kind Kind) error {
	if k.KeyGroupStart < 0 || k.KeyGroupStart > k.KeyGroupEnd || k.KeyGroupEnd >= maxParallelism {
		return fmt.Errorf("key groups [%d, %d] not a range inside [0, %d)", k.KeyGroupStart, k.KeyGroupEnd, maxParallelism)
	}
	if n := k.KeyGroupEnd - k.KeyGroupStart + 1; len(k.Offsets) != 0 && len(k.Offsets) != n {
		return fmt.Errorf("%d offsets for %d key groups", len(k.Offsets), n)
	}
	for i, off := range k.Offsets {
		if off < 0 || off > k.Stream.Size {
			return fmt.Errorf("offset of key group %d is %d, outside the stream of %d bytes", k.KeyGroupStart+i, off, k.Stream.Size)
		}
	}
	if err := k.Stream.validate(kind); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	for i, f := range k.Shared {
		if err := f.validate(kind); err != nil {
			return fmt.Errorf("shared file %d: %w", i, err)
		}
	}
	return nil
}

// validate checks that h is one of the three forms (file, inline, empty)
// and consistent.
func (h StreamHandle) validate(kind Kind) error {
	switch {
	case h.Inline != nil:
		if h.Path != "" {
			return fmt.Errorf("both inline bytes and path %q", h.Path)
		}
		if h.Size != int64(len(h.Inline)) {
			return fmt.Errorf("size %d but %d inline bytes", h.Size, len(h.Inline))
		}
		if c := crc32.Checksum(h.Inline, castagnoli); c != h.CRC {
			return fmt.Errorf("crc %08x of inline bytes, handle says %08x", c, h.CRC)
		}
	case h.Path != "":
		if err := checkStreamPath(h.Path); err != nil {
			return fmt.Errorf("path: %w", err)
		}
		if kind == KindSavepoint && outsideDir(h.Path) {
			return fmt.Errorf("savepoint references %q outside its directory", h.Path)
		}
		if h.Size < 0 {
			return fmt.Errorf("negative size %d", h.Size)
		}
	default:
		if h.Size != 0 || h.CRC != 0 {
			return fmt.Errorf("no path and no inline bytes, but size %d and crc %08x", h.Size, h.CRC)
		}
	}
	return nil
}

func (f SharedFile) validate(kind Kind) error {
	if f.Key == "" {
		return errors.New("empty key")
	}
	if err := checkSharedPath(f.Path); err != nil {
		return fmt.Errorf("path: %w", err)
	}
	if kind == KindSavepoint && outsideDir(f.Path) {
		return fmt.Errorf("savepoint references %q outside its directory", f.Path)
	}
	if f.Size < 0 {
		return fmt.Errorf("negative size %d", f.Size)
	}
	if !f.HasCRC && f.CRC != 0 {
		return fmt.Errorf("crc %08x recorded without its flag", f.CRC)
	}
	return nil
}
