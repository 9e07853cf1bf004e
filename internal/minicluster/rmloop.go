package minicluster

import (
	"context"
	"log/slog"

	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/queue"
	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// rmLoop is the ResourceManager at the edge: one goroutine owns the
// resourcemanager state machine and the addresses of the TaskManagers and
// JobMasters it decides about. Other goroutines hand it requests (the
// TaskManagers through its rpc.ResourceManagerGateway, see rmgateway.go);
// it steps the state machine and performs the decisions as messages to
// the JobMasters' gateways (OfferSlots, DisconnectTaskManager), which
// queue them as events of their loops and never block.
type rmLoop struct {
	requests  *queue.Queue[rmRequest]
	stop      chan struct{}
	done      chan struct{}
	transport jobMasters
	log       *slog.Logger

	// Owned by the loop's goroutine.
	rm  *resourcemanager.ResourceManager
	tms map[string]tmAddress
	jms map[string]string
}

// jobMasters is how the ResourceManager reaches the JobMasters (and the
// TaskManagers, to release cluster partitions).
type jobMasters interface {
	JobMaster(addr string) rpc.JobMasterGateway
	TaskExecutor(addr string) rpc.TaskExecutorGateway
}

// tmAddress is where a registered TaskManager's gateway and data plane are
// served, and its network memory, which every offer of its slots carries.
type tmAddress struct {
	address string
	data    string
	network network.Capacity
}

// rmRequest is one event for the state machine with the address it
// introduces (tm with TaskManagerRegistered, jm with the first
// DeclareResources of a job), or a query (read) run on the loop.
type rmRequest struct {
	ev    any
	tm    string
	data  string
	jm    string
	read  func(*resourcemanager.ResourceManager)
	reply chan error
}

func startRMLoop(transport jobMasters, log *slog.Logger) *rmLoop {
	l := &rmLoop{
		requests: queue.New[rmRequest](), stop: make(chan struct{}), done: make(chan struct{}), transport: transport, log: log,
		rm: resourcemanager.New(), tms: make(map[string]tmAddress), jms: make(map[string]string),
	}
	go l.run()
	return l
}

func (l *rmLoop) run() {
	defer close(l.done)
	for {
		select {
		case <-l.requests.Signal():
			for _, r := range l.requests.PopAll() {
				r.reply <- l.handle(r)
			}
		case <-l.stop:
			return
		}
	}
}

// call hands r to the loop and waits until the loop handled it: the
// decisions it led to have reached the JobMasters' queues.
func (l *rmLoop) call(r rmRequest) error {
	r.reply = make(chan error, 1)
	l.requests.Push(r)
	select {
	case err := <-r.reply:
		return err
	case <-l.done:
		return ErrClosed
	}
}

// close stops the loop once it handled the requests before it.
func (l *rmLoop) close() {
	close(l.stop)
	<-l.done
}

func (l *rmLoop) handle(r rmRequest) error {
	if r.read != nil {
		r.read(l.rm)
		return nil
	}
	if err := l.rm.Step(r.ev); err != nil {
		return err
	}
	switch e := r.ev.(type) {
	case resourcemanager.TaskManagerRegistered:
		l.tms[e.ID] = tmAddress{address: r.tm, data: r.data, network: e.Network}
	case resourcemanager.DeclareResources:
		if r.jm != "" {
			l.jms[e.Job] = r.jm
		}
	}
	for _, d := range l.rm.Ready() {
		switch d := d.(type) {
		case resourcemanager.OfferSlots:
			for _, ss := range byTaskManager(d.Slots) {
				id := ss[0].TaskManager
				tm := jobmaster.TaskManager{ID: id, Address: l.tms[id].address, Slots: ss, Network: l.tms[id].network, DataAddress: l.tms[id].data}
				tell(l, "offer slots", d.Job, l.transport.JobMaster(l.jms[d.Job]).OfferSlots(context.Background(), jobmaster.SlotOffer(d.Job, tm)))
			}
		case resourcemanager.NotifyLost:
			m := disconnect(d.TaskManager, d.Reason)
			tell(l, "disconnect "+d.TaskManager, d.Job, l.transport.JobMaster(l.jms[d.Job]).DisconnectTaskManager(context.Background(), m))
		case resourcemanager.ReleasePartitions:
			l.releasePartitions(d)
		case resourcemanager.DatasetEvicted:
			l.log.Info("cached partitions evicted to keep within the cache quota: the next job that needs the dataset computes it again",
				"dataset", d.Dataset, "taskmanager", d.TaskManager, "bytes", d.Bytes)
		}
	}
	switch e := r.ev.(type) {
	case resourcemanager.TaskManagerLost:
		delete(l.tms, e.ID)
	case resourcemanager.JobEnded:
		delete(l.jms, e.Job)
	}
	return nil
}

// tell logs a message to a JobMaster that was not taken. In process the
// JobMaster queued it by the time the call returned; a JobMaster that is
// gone (its job ended) no longer needs it.
func tell[T any](l *rmLoop, what, job string, f *rpc.Future[T]) {
	f.OnComplete(func(_ T, err error) {
		if err != nil {
			l.log.Debug("a message to a JobMaster was not taken", "message", what, "job", job, "err", err)
		}
	})
}

// byTaskManager groups slots by their TaskManager, in the order the
// TaskManagers first appear.
func byTaskManager(ss []slots.ID) [][]slots.ID {
	var out [][]slots.ID
	at := make(map[string]int)
	for _, s := range ss {
		i, ok := at[s.TaskManager]
		if !ok {
			i = len(out)
			at[s.TaskManager] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}
