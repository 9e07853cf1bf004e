package resourcemanager

import (
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Events, the input of Step. They are plain values so that the RPC layer
// can carry them as messages later.
type (
	// TaskManagerRegistered: a TaskManager joined with Slots slots and the
	// given network memory.
	TaskManagerRegistered struct {
		ID      string
		Slots   int
		Network network.Capacity
	}
	// TaskManagerLost: a TaskManager is gone with its slots, for Reason.
	TaskManagerLost struct {
		ID     string
		Reason string
	}
	// DeclareResources sets the slots a job needs: at least Min to run,
	// and Max at most. A job declares once when it is submitted and again
	// when its needs change; the first declaration fixes its place in the
	// order jobs are served in.
	DeclareResources struct {
		Job      string
		Min, Max int
	}
	// SlotsFreed: a job gives back slots it holds (it declined an offer
	// or needs fewer). A job that still declares more than it then holds
	// is offered free slots again, so it lowers its declaration first.
	SlotsFreed struct {
		Job   string
		Slots []slots.ID
	}
	// JobEnded: a job ended; its slots are free and its declaration is
	// forgotten.
	JobEnded struct{ Job string }
)

// Decisions, the output of Ready, in the order they were taken.
type (
	// OfferSlots gives Slots to Job; they are the job's from now on.
	OfferSlots struct {
		Job   string
		Slots []slots.ID
	}
	// NotifyLost tells Job that TaskManager, on which it held slots, is
	// lost for Reason.
	NotifyLost struct {
		Job, TaskManager, Reason string
	}
)

// TaskManagerInfo describes a registered TaskManager.
type TaskManagerInfo struct {
	ID      string
	Slots   int
	Free    int
	Network network.Capacity
}
