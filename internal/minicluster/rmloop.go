package minicluster

import (
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/queue"
	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// rmLoop is the ResourceManager at the edge: one goroutine owns the
// resourcemanager state machine and the gateways of the TaskManagers and
// JobMasters it decides about. Other goroutines hand it requests; it
// steps the state machine and performs the decisions by pushing events
// into the JobMasters' loops, which never blocks.
type rmLoop struct {
	requests *queue.Queue[rmRequest]
	stop     chan struct{}
	done     chan struct{}

	// Owned by the loop's goroutine.
	rm  *resourcemanager.ResourceManager
	tms map[string]jobmaster.TaskManager
	jms map[string]*jobmaster.JobMaster
}

// rmRequest is one event for the state machine with the gateway it
// introduces (tm with TaskManagerRegistered, jm with the first
// DeclareResources of a job), or a query (read) run on the loop.
type rmRequest struct {
	ev    any
	tm    jobmaster.TaskManager
	jm    *jobmaster.JobMaster
	read  func(*resourcemanager.ResourceManager)
	reply chan error
}

func startRMLoop() *rmLoop {
	l := &rmLoop{
		requests: queue.New[rmRequest](), stop: make(chan struct{}), done: make(chan struct{}),
		rm: resourcemanager.New(), tms: make(map[string]jobmaster.TaskManager), jms: make(map[string]*jobmaster.JobMaster),
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
		l.tms[e.ID] = r.tm
	case resourcemanager.DeclareResources:
		if r.jm != nil {
			l.jms[e.Job] = r.jm
		}
	}
	for _, d := range l.rm.Ready() {
		switch d := d.(type) {
		case resourcemanager.OfferSlots:
			for _, tm := range byTaskManager(d.Slots) {
				l.jms[d.Job].RegisterTaskManager(l.tms[tm[0].TaskManager], tm)
			}
		case resourcemanager.NotifyLost:
			l.jms[d.Job].DisconnectTaskManager(d.TaskManager, d.Reason)
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
