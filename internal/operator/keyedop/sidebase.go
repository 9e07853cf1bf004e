package keyedop

// SideOutputs lets a context of another package emit to side outputs: a
// context that embeds it is a SideOutputContext (package weir's Output
// takes it). The context sets TS to the timestamp of the element at hand;
// Err keeps the first error of an emit, for the operator to return after
// the function.
type SideOutputs struct {
	// Outputs is op.Context.SideOutputs.
	Outputs map[string]any
	TS      int64
	Err     error
}

func (s *SideOutputs) sideOutput(id string) (any, int64) { return s.Outputs[id], s.TS }

func (s *SideOutputs) recordErr(err error) {
	if s.Err == nil {
		s.Err = err
	}
}

// TakeErr returns the error kept and forgets it.
func (s *SideOutputs) TakeErr() error {
	err := s.Err
	s.Err = nil
	return err
}
