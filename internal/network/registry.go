package network

import "sync"

// GateKey names the input gate of one subtask of one attempt of a job.
type GateKey struct {
	Job        string
	Generation int
	Vertex     int
	Subtask    int
}

// Registry is the in-process network of a cluster: producers and consumers
// find a consumer's gate by its key, whichever is deployed first.
type Registry struct {
	mu    sync.Mutex
	gates map[GateKey]*Gate
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{gates: make(map[GateKey]*Gate)}
}

// Gate returns the gate for key, creating it with n channels sized by s
// (the sizing of the job, the same for the producers and the consumer).
func (r *Registry) Gate(key GateKey, n int, s Sizing) *Gate {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, ok := r.gates[key]
	if !ok {
		g = NewGate(n, s.Credit, s.Backlog)
		r.gates[key] = g
	}
	return g
}

// ReleaseJob releases and forgets every gate of a job's generation.
func (r *Registry) ReleaseJob(job string, generation int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, g := range r.gates {
		if k.Job == job && k.Generation == generation {
			g.Release()
			delete(r.gates, k)
		}
	}
}
