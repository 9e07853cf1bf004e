package task

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/weir-engine/weir/internal/barrier"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// Config tunes the runtime of tasks.
type Config struct {
	// BufferSize is the size at which a network buffer is sent.
	BufferSize int
	// BufferTimeout bounds how long a record may wait in a partly filled
	// buffer while the task is busy (0: 100ms); a negative one sends the
	// buffer after every record (Flink's buffer timeout 0).
	BufferTimeout time.Duration
	// StateBackend is where keyed operators keep their state.
	StateBackend op.StateBackend
	Clock        clock.Clock
	Logger       *slog.Logger
}

func (c *Config) ensureDefaults() {
	if c.BufferSize <= 0 {
		c.BufferSize = network.DefaultBufferSize
	}
	if c.BufferTimeout == 0 {
		c.BufferTimeout = 100 * time.Millisecond
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Descriptor says which subtask to run and where its channels are.
type Descriptor struct {
	JobID      string
	Generation int
	Graph      *graph.JobGraph
	Vertex     *graph.JobVertex
	Subtask    int
	// Network connects the subtask's input channels to its producers'
	// result partitions and publishes its own.
	Network network.ConnectionManager
	// Channels sizes the channels of the job (network.DefaultSizing when
	// zero); the JobMaster picks it for the network memory it has.
	Channels network.Sizing

	// Checkpointing enables checkpoints; Checkpoints receives the task's
	// acknowledgements (nil: discarded).
	Checkpointing bool
	Checkpoints   Responder
	// NoFinalCheckpoint turns FLIP-147's wait for a final checkpoint off.
	NoFinalCheckpoint bool
	// Restored holds the state of each operator (by uid) to start from,
	// LastCheckpointID the checkpoint it comes from, and ChannelState the
	// in-flight data of an unaligned checkpoint, per channel (see
	// Snapshot.ChannelState for the numbering).
	Restored         map[string]*op.Restored
	LastCheckpointID int64
	ChannelState     map[int][][]byte
	// Restore, when set, reads Restored and ChannelState on the task's
	// goroutine before its operators open (see restore.go).
	Restore Restorer
	// RequestSplit asks the enumerator of the source operator uid for a
	// split for this subtask (dynamic split assignment); reply may be
	// called from any goroutine.
	RequestSplit func(uid string, subtask int, reply func(split []byte, ok bool))
	// ReportWatermark reports the watermark of the source operator uid to
	// the JobMaster's alignment coordinator; reply may be called from any
	// goroutine.
	ReportWatermark func(uid string, subtask int, r op.AlignmentReport, reply func(maxAllowed int64))
	// FinishedOnRestore marks a subtask of an operator that had fully
	// finished at the checkpoint restored from (FLIP-147): it opens no
	// operator, ends its outputs at once and finishes.
	FinishedOnRestore bool
}

// Task runs one subtask.
type Task struct {
	desc Descriptor
	cfg  Config
	log  *slog.Logger
	ctx  context.Context

	mail       *mailbox
	chain      []*chainOp
	writers    []network.Writer
	partitions []*network.ResultPartition
	// outputWake receives a token when a partition becomes available.
	outputWake chan struct{}
	gate       *network.Gate
	// inProgress is the data buffer being delivered, when the task
	// stopped in the middle of it (see loop.go).
	inProgress *inProgressBuffer
	// inProgressSlot is where inProgress points while set.
	inProgressSlot inProgressBuffer
	// callbacks holds each input channel's channelCallbacks.
	callbacks   []channelCallbacks
	layout      []inputChannel
	readers     []network.Reader
	valve       *network.Valve
	source      op.Source
	sized       op.SizedSource // the source, when it knows its size
	sourceEnded bool
	timers      timerSet

	endOfData      []bool
	endOfPartition []bool
	// eodPerInput counts, per logical input of the head, the channels that
	// have not delivered EndOfData yet.
	eodPerInput map[int]int
	eodCount    int
	eopCount    int
	recordsIn   int64

	// checkpointing (see checkpoint.go)
	barriers    *barrier.Handler
	lastBarrier network.CheckpointBarrier
	// overtaken holds, while the barrier polled from overtakenCh is
	// handled, the buffers it overtook.
	overtaken   [][]byte
	overtakenCh int
	// pendingAck is the snapshot taken and not acknowledged yet: an
	// unaligned one waits for the channel state of its channels.
	pendingAck  *pendingSnapshot
	finishedOps bool
	finalAfter  int64
	finalDone   bool
	drain       *network.CheckpointBarrier
	// drained is set once the task took the snapshot of a
	// stop-with-savepoint --drain: it waits for that savepoint to complete
	// even when final checkpoints are off, so sinks commit their last data.
	drained bool
	// stopID is the stop-with-savepoint (without drain) whose snapshot the
	// task took: it processes no input and fires no timer until the
	// savepoint completes (then stopped is set and the task ends) or is
	// aborted (then it goes on).
	stopID  int64
	stopped bool
	// ownStatus: an operator of the chain announces the watermark status
	// (handWatermarkStatus), not the input valve.
	ownStatus bool

	// Metrics is updated as the task runs.
	Metrics Metrics
}

// New returns a task for desc.
func New(desc Descriptor, cfg Config) *Task {
	cfg.ensureDefaults()
	if desc.Checkpoints == nil {
		desc.Checkpoints = discardResponder{}
	}
	if desc.Channels == (network.Sizing{}) {
		desc.Channels = network.DefaultSizing
	}
	t := &Task{
		desc: desc,
		cfg:  cfg,
		log:  cfg.Logger.With("job", desc.JobID, "vertex", desc.Vertex.ID, "task", desc.Vertex.Name, "subtask", desc.Subtask),
		mail: newMailbox(),

		outputWake: make(chan struct{}, 1),
	}
	t.timers.init(cfg.Clock, t.mail)
	t.Metrics.InputWatermark.Store(op.MinWatermark)
	return t
}

// Name identifies the subtask in logs and errors.
func (t *Task) Name() string {
	return fmt.Sprintf("%s (%d/%d)", t.desc.Vertex.Name, t.desc.Subtask+1, t.desc.Vertex.Parallelism)
}

// Mailbox returns the task's mailbox, for actions from other goroutines.
func (t *Task) Mailbox() op.Mailbox { return t.mail }

// Run runs the subtask to its end. It returns nil when the subtask finished,
// ctx's error when it was cancelled, and the failure otherwise. running is
// called once the operators are open.
func (t *Task) Run(ctx context.Context, running func()) (err error) {
	t.ctx = ctx
	defer t.mail.close()
	defer func() { err = t.cleanup(err) }()
	// A panic in an operator or user function fails the task, and through
	// it the job, instead of the process.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("task %s: panic: %v\n%s", t.Name(), r, debug.Stack())
		}
	}()
	if err := t.loadRestored(ctx); err != nil {
		return err
	}
	if err := t.setup(); err != nil {
		return err
	}
	if t.desc.FinishedOnRestore {
		return t.runFinished(running)
	}
	for i := len(t.chain) - 1; i >= 0; i-- {
		c := t.chain[i]
		c.opened = true
		if err := c.inst.Open(c.ctx); err != nil {
			return op.Attribute(fmt.Errorf("open: %w", err), c.node.Name, t.desc.Subtask, t.desc.Vertex.Parallelism)
		}
	}
	if err := t.replayChannelState(); err != nil {
		return err
	}
	if running != nil {
		running()
	}
	t.scheduleFlush()
	if err := t.loop(func() bool { return t.stopped || t.inputEnded() }); err != nil {
		return err
	}
	if t.stopped {
		// Stop-with-savepoint without drain: the savepoint holds the
		// task's state and its commits ran; the operators close without
		// finishing, and nothing more goes downstream, whose tasks stop
		// on their own notification.
		return t.closeOperators()
	}
	if err := t.finishOperators(); err != nil {
		return err
	}
	t.finishedOps = true
	if err := t.broadcast(network.EndOfData{}); err != nil {
		return err
	}
	t.desc.Checkpoints.EndOfData()
	if b := t.drain; b != nil {
		if err := t.snapshot(b.ID, b.Timestamp, *b, nil); err != nil {
			return err
		}
		t.ackIfComplete()
	}
	// Every task waits for its final checkpoint (FLIP-147), so that the
	// checkpoint that commits the sinks' last data sees all tasks running.
	waitFinal := t.desc.Checkpointing && !t.desc.NoFinalCheckpoint
	if err := t.loop(func() bool { return t.eopCount == len(t.layout) && (!(waitFinal || t.drained) || t.finalDone) }); err != nil {
		return err
	}
	if err := t.closeOperators(); err != nil {
		return err
	}
	return t.broadcast(network.EndOfPartition{})
}

// runFinished is the life of a subtask that finished before the checkpoint
// it is restored from: its inputs, which must be finished too, end; it ends
// its outputs as a finishing subtask does, with the final watermark and
// then EndOfData (FLIP-147: a consumer restored before it had taken the
// final watermark still fires its event-time timers).
func (t *Task) runFinished(running func()) error {
	if running != nil {
		running()
	}
	t.finishedOps = true
	for _, w := range t.writers {
		if e, ok := w.(watermarkEmitter); ok {
			if err := e.EmitWatermark(op.MaxWatermark); err != nil {
				return fmt.Errorf("task %s: %w", t.Name(), err)
			}
		}
	}
	if err := t.broadcast(network.EndOfData{}); err != nil {
		return err
	}
	t.desc.Checkpoints.EndOfData()
	if err := t.loop(func() bool { return t.eopCount == len(t.layout) }); err != nil {
		return err
	}
	return t.broadcast(network.EndOfPartition{})
}

func (t *Task) setup() error {
	if t.desc.Vertex.IsSource() {
		if len(t.desc.Vertex.Inputs) > 0 {
			return fmt.Errorf("task: source vertex %v has inputs", t.desc.Vertex)
		}
	} else {
		t.layout = gateLayout(t.desc.Vertex, t.desc.Subtask)
		t.gate = network.NewGate(len(t.layout), t.desc.Channels.Credit)
		for i, ch := range t.layout {
			id := t.partitionID(ch.edge, ch.output, ch.producer)
			if err := t.desc.Network.RequestSubpartition(id, ch.subpartition, t.gate.Channel(i)); err != nil {
				return fmt.Errorf("task: input channel %d: %w", i, err)
			}
		}
		t.valve = network.NewValve(len(t.layout))
		t.endOfData = make([]bool, len(t.layout))
		t.endOfPartition = make([]bool, len(t.layout))
		t.eodPerInput = make(map[int]int)
		for _, ch := range t.layout {
			t.eodPerInput[ch.edge.StreamEdge.Input]++
		}
		t.barriers = barrier.New(len(t.layout), barrier.Options{LastCheckpointID: t.desc.LastCheckpointID})
	}
	writers, err := t.buildWriters()
	if err != nil {
		return err
	}
	if err := t.buildChain(writers); err != nil {
		return err
	}
	t.handWatermarkStatus()
	if t.desc.Vertex.IsSource() {
		src, ok := t.chain[0].inst.(op.Source)
		if !ok {
			return fmt.Errorf("task: head of source vertex %v is %T, not a source", t.desc.Vertex, t.chain[0].inst)
		}
		t.source = src
		t.sized, _ = src.(op.SizedSource)
		// Not known before the source opened and polled once.
		t.Metrics.SourceTotal.Store(-1)
		return nil
	}
	return t.buildReaders()
}

func (t *Task) channelEndOfData(ch int) error {
	if t.endOfData[ch] {
		return nil
	}
	t.endOfData[ch] = true
	t.eodCount++
	// The channel sends no more data, so its watermark no longer holds
	// the others back: the valve forgets it now, while the operators can
	// still emit, not at its EndOfPartition, which may come after the task
	// finished and sent EndOfData itself (timers fired then emitted data
	// after the end of data). Every producer sends the final watermark
	// before EndOfData, so normally this advances nothing.
	if err := t.forwardValve(t.valve.End(ch)); err != nil {
		return err
	}
	input := t.layout[ch].edge.StreamEdge.Input
	t.eodPerInput[input]--
	if t.eodPerInput[input] == 0 {
		// Input i ended: the head hears it at once, before the other
		// inputs end (FLIP-147: endInput(i) per input, then finish).
		if b, ok := t.chain[0].inst.(op.BoundedInput); ok {
			return t.chain[0].attr(t)(b.EndInput(input))
		}
	}
	return nil
}

func (t *Task) headWatermark(wm int64) error {
	head := t.chain[0]
	if w, ok := head.inst.(op.WatermarkInput); ok {
		return head.attr(t)(w.ProcessWatermark(wm))
	}
	return head.emitWatermark(wm)
}

func (t *Task) inputEnded() bool {
	if t.source != nil {
		return t.sourceEnded
	}
	return t.eodCount == len(t.layout)
}

// finishOperators ends the input of every operator after the head and
// finishes all, head to tail, then stops processing-time timers.
func (t *Task) finishOperators() error {
	for i, c := range t.chain {
		attr := c.attr(t)
		if i > 0 {
			if b, ok := c.inst.(op.BoundedInput); ok {
				if err := b.EndInput(0); err != nil {
					return attr(fmt.Errorf("end input: %w", err))
				}
			}
		}
		if err := c.inst.Finish(); err != nil {
			return attr(fmt.Errorf("finish: %w", err))
		}
	}
	t.timers.stopAll()
	return nil
}

// closeOperators closes every opened operator, head to tail, and reports
// all errors.
func (t *Task) closeOperators() error {
	var errs []error
	for _, c := range t.chain {
		if c == nil || !c.opened {
			continue
		}
		c.opened = false
		if err := c.inst.Close(); err != nil {
			errs = append(errs, c.attr(t)(fmt.Errorf("close: %w", err)))
		}
	}
	return errors.Join(errs...)
}

// cleanup closes what is still open after a failure or cancellation and
// releases the input gate.
func (t *Task) cleanup(err error) error {
	t.timers.stopAll()
	t.dropPendingAck()
	if cerr := t.closeOperators(); cerr != nil {
		if err == nil {
			err = cerr
		} else {
			t.log.Warn("close after failure", "err", cerr)
		}
	}
	if t.gate != nil {
		t.gate.Release()
	}
	if err != nil {
		// A pipelined partition outlives its producer until consumed;
		// after a failure nothing will consume it.
		for _, p := range t.partitions {
			p.Release()
		}
	}
	t.publishMetrics()
	return err
}

func (t *Task) flush() error {
	for _, w := range t.writers {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	t.publishMetrics()
	return nil
}

func (t *Task) publishMetrics() {
	var out int64
	for _, w := range t.writers {
		out += w.RecordsOut()
	}
	t.Metrics.RecordsOut.Store(out)
	t.Metrics.RecordsIn.Store(t.recordsIn)
}

func (t *Task) broadcast(e network.Event) error {
	_, err := t.broadcastOvertaking(e)
	return err
}

// broadcastOvertaking sends e on every output and returns, for a priority
// event, the data buffers it overtook per output channel, numbered as in
// Snapshot.ChannelState (nil when it overtook none).
func (t *Task) broadcastOvertaking(e network.Event) (map[int][][]byte, error) {
	var overtaken map[int][][]byte
	base := len(t.layout)
	for _, w := range t.writers {
		o, err := w.BroadcastEvent(e)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.Name(), err)
		}
		for i, bufs := range o {
			if len(bufs) > 0 {
				if overtaken == nil {
					overtaken = make(map[int][][]byte)
				}
				overtaken[base+i] = bufs
			}
		}
		base += w.Partition().NumSubpartitions()
	}
	t.publishMetrics()
	return overtaken, nil
}

// ownTimers schedules the task's own callbacks, whose errors are the
// task's.
func (t *Task) ownTimers() timers {
	return timers{attr: func(err error) error { return err }, set: &t.timers}
}

// scheduleFlush flushes partly filled buffers every BufferTimeout while the
// task runs, so a busy task does not hold back a slow trickle of records.
func (t *Task) scheduleFlush() {
	if t.cfg.BufferTimeout < 0 {
		return // the writers flush after every record
	}
	sched := t.ownTimers()
	var tick func() error
	tick = func() error {
		if err := t.flush(); err != nil {
			return err
		}
		sched.Schedule(t.cfg.Clock.Now().Add(t.cfg.BufferTimeout), tick)
		return nil
	}
	sched.Schedule(t.cfg.Clock.Now().Add(t.cfg.BufferTimeout), tick)
}
