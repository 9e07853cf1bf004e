package graph

// Substitute returns sinks with transformations replaced, copy on write:
// it walks from the sinks through Inputs, asks replace about each
// transformation once, and uses its answer in the transformation's place.
// replace returns the transformation to use (t itself to keep it) and
// whether to walk on into that transformation's inputs; a transformation
// whose inputs changed is copied with the new inputs, keeping its ID, so
// the program's transformations are never modified and default uids stay
// the same.
//
// It is how an execution reads a cached stream (FLIP-205): the cache node
// is replaced by a source of the cached partitions, and what is upstream
// of it is no longer reached, so it does not run.
func Substitute(sinks []*Transformation, replace func(t *Transformation) (use *Transformation, walk bool)) []*Transformation {
	memo := make(map[*Transformation]*Transformation)
	var visit func(t *Transformation) *Transformation
	visit = func(t *Transformation) *Transformation {
		if t == nil {
			return nil
		}
		if r, ok := memo[t]; ok {
			return r
		}
		use, walk := replace(t)
		if walk {
			var inputs []*Transformation
			for i, in := range use.Inputs {
				r := visit(in)
				if r != in && inputs == nil {
					inputs = append(make([]*Transformation, 0, len(use.Inputs)), use.Inputs[:i]...)
				}
				if inputs != nil {
					inputs = append(inputs, r)
				}
			}
			if inputs != nil {
				c := *use
				c.Inputs = inputs
				use = &c
			}
		}
		memo[t] = use
		return use
	}
	out := make([]*Transformation, len(sinks))
	for i, s := range sinks {
		out[i] = visit(s)
	}
	return out
}
