package graph

import "fmt"

// SubtaskID names one subtask of a job vertex: the JobVertex ID and the
// subtask index. It is the one identifier of a parallel instance that the
// scheduler, the checkpoint coordinator and the JobMaster share.
type SubtaskID struct{ Vertex, Subtask int }

// String formats the subtask as vertex/subtask, e.g. 3/0.
func (id SubtaskID) String() string { return fmt.Sprintf("%d/%d", id.Vertex, id.Subtask) }
