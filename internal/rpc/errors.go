package rpc

import (
	"context"
	"errors"
	"io/fs"

	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
)

// errorKinds are the sentinels an Error message keeps by kind.
var errorKinds = []struct {
	kind rpcpb.ErrorKind
	err  error
}{
	{rpcpb.ErrorKind_ERROR_KIND_UNRECOVERABLE, scheduler.ErrUnrecoverable},
	{rpcpb.ErrorKind_ERROR_KIND_NOT_EXIST, fs.ErrNotExist},
	{rpcpb.ErrorKind_ERROR_KIND_PERMISSION, fs.ErrPermission},
	{rpcpb.ErrorKind_ERROR_KIND_CANCELED, context.Canceled},
	{rpcpb.ErrorKind_ERROR_KIND_DEADLINE_EXCEEDED, context.DeadlineExceeded},
	{rpcpb.ErrorKind_ERROR_KIND_CONSEQUENCE, scheduler.ErrConsequence},
}

// EncodeError turns err into a message (nil for nil): its text, the kinds
// it matches, and a reference to err itself that DecodeError resolves in
// this process. Every encoded error must be decoded once, or its reference
// stays in the process's Handoff.
func EncodeError(err error) *rpcpb.Error {
	if err == nil {
		return nil
	}
	m := EncodeRemoteError(err)
	m.EmbeddedRef = PutLocal(err)
	return m
}

// EncodeRemoteError turns err into a message (nil for nil) for a receiver
// in another process: its text and the kinds it matches, no reference.
func EncodeRemoteError(err error) *rpcpb.Error {
	if err == nil {
		return nil
	}
	m := &rpcpb.Error{Message: err.Error()}
	var lost LostCachedDataset
	if errors.As(err, &lost) {
		m.LostCachedDataset = lost.LostCachedDataset()
	}
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			m.Kinds = append(m.Kinds, k.kind)
		}
	}
	return m
}

// DecodeError turns a message back into an error (nil for nil): the
// original error when it was encoded in this process, otherwise an error
// with its text that matches its kinds under errors.Is.
func DecodeError(m *rpcpb.Error) error {
	if m == nil {
		return nil
	}
	if m.EmbeddedRef != 0 {
		if v, ok := TakeLocal(m.EmbeddedRef); ok {
			if err, ok := v.(error); ok {
				return err
			}
		}
	}
	re := &RemoteError{Message: m.Message}
	for _, k := range errorKinds {
		for _, mk := range m.Kinds {
			if mk == k.kind {
				re.kinds = append(re.kinds, k.err)
			}
		}
	}
	if ds := m.GetLostCachedDataset(); ds != "" {
		return lostCachedDataset{RemoteError: re, dataset: ds}
	}
	return re
}

// RemoteError is an error that came from another process: its text and
// the kinds it matched there.
type RemoteError struct {
	Message string
	kinds   []error
}

func (e *RemoteError) Error() string { return e.Message }

// Unwrap returns the sentinels of the error's kinds, for errors.Is.
func (e *RemoteError) Unwrap() []error { return e.kinds }

// LostCachedDataset is an error that says which cached dataset (FLIP-205)
// could not be read: cache.ReadError, and a RemoteError that crossed from
// one (the JobManager then recomputes the dataset; see cache.Lost).
type LostCachedDataset interface {
	error
	LostCachedDataset() string
}

// lostCachedDataset is a RemoteError that names the cached dataset it
// could not read.
type lostCachedDataset struct {
	*RemoteError
	dataset string
}

func (e lostCachedDataset) LostCachedDataset() string { return e.dataset }
