// Package broadcastop holds the non-keyed broadcast process operator (Op),
// whose second input is a broadcast stream, and its contexts. The keyed
// variant is keyedop's broadcast operator; both keep their broadcast
// state in opstate.BroadcastStates.
//
// Broadcast state is map state kept by every subtask, written only on the
// broadcast side: every subtask sees the same broadcast elements, so if
// the function changes the state by them alone, every copy is the same,
// and a restore at any parallelism gives each new subtask one copy (the
// BroadcastList mode of internal/restore). Only the states declared on the
// broadcast stream are accessible; the element side reads them only.
package broadcastop
