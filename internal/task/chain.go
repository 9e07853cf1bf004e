package task

import (
	"fmt"
	"maps"
	"slices"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// chainOp is one operator of the task's chain.
type chainOp struct {
	node *graph.StreamNode
	inst op.Operator
	ctx  *op.Context
	// emitWatermark forwards a watermark to every output of the operator,
	// for operators that do not handle watermarks themselves.
	emitWatermark func(wm int64) error
	opened        bool
}

func (c *chainOp) attr(t *Task) func(error) error {
	return func(err error) error {
		return op.Attribute(err, c.node.Name, t.desc.Subtask, t.desc.Vertex.Parallelism)
	}
}

type watermarkEmitter interface{ EmitWatermark(int64) error }

func typeOf(t graph.Type, where string) (typeinfo.Info, error) {
	info, ok := t.(typeinfo.Info)
	if !ok {
		return nil, fmt.Errorf("task: %s has type %v without runtime type info", where, t)
	}
	return info, nil
}

// buildWriters creates, per output edge of the vertex, the subtask's result
// partition (registered with the connection manager, for the consumers to
// connect to) and the record writer that fills it.
func (t *Task) buildWriters() (map[*graph.StreamEdge]network.Writer, error) {
	v := t.desc.Vertex
	writers := make(map[*graph.StreamEdge]network.Writer)
	for k, e := range v.Outputs {
		typ := network.Pipelined
		if e.Blocking {
			typ = network.Blocking
		}
		part, err := network.NewResultPartition(t.partitionID(e, k, t.desc.Subtask), network.PartitionOptions{
			Type:          typ,
			Dir:           t.cfg.StateBackend.LocalDir,
			Subpartitions: graph.NumConsumers(e.Pattern, v.Parallelism, e.Target.Parallelism, t.desc.Subtask),
			Backlog:       t.desc.Channels.Backlog,
			Wake:          t.outputWake,
		})
		if err != nil {
			return nil, fmt.Errorf("task: output to %v: %w", e.Target, err)
		}
		if err := t.desc.Network.RegisterPartition(part); err != nil {
			return nil, fmt.Errorf("task: output to %v: %w", e.Target, err)
		}
		t.partitions = append(t.partitions, part)
		info, err := typeOf(e.StreamEdge.Type, fmt.Sprintf("edge %v", e.StreamEdge.Source))
		if err != nil {
			return nil, err
		}
		w, err := info.NewWriter(part, e.StreamEdge.Partitioner, e.Target.MaxParallelism, t.desc.Subtask, t.cfg.BufferSize)
		if err != nil {
			return nil, fmt.Errorf("task: writer for %v: %w", e.Target, err)
		}
		if t.cfg.BufferTimeout < 0 {
			w.SetFlushAlways()
		}
		writers[e.StreamEdge] = w
		t.writers = append(t.writers, w)
	}
	return writers, nil
}

// buildChain instantiates the operators of the vertex from tail to head,
// wiring each one's outputs to its chained successors and record writers.
func (t *Task) buildChain(writers map[*graph.StreamEdge]network.Writer) error {
	v := t.desc.Vertex
	built := make(map[*graph.StreamNode]*chainOp)
	t.chain = make([]*chainOp, len(v.Chain))
	for i := len(v.Chain) - 1; i >= 0; i-- {
		n := v.Chain[i]
		c := &chainOp{node: n}
		var main []any
		sides := make(map[string][]any)
		sideTypes := make(map[string]typeinfo.Info)
		for _, e := range n.OutEdges {
			info, err := typeOf(e.Type, fmt.Sprintf("output of %v", n))
			if err != nil {
				return err
			}
			var out any
			if target, ok := built[e.Target]; ok {
				out, err = info.ChainInput(target.inst, target.emitWatermark, target.attr(t))
				if err != nil {
					return fmt.Errorf("task: chain %v to %v: %w", n, e.Target, err)
				}
			} else {
				out = writers[e]
			}
			if e.SideTag == "" {
				main = append(main, out)
			} else {
				sides[e.SideTag] = append(sides[e.SideTag], out)
				sideTypes[e.SideTag] = info
			}
		}
		info, err := typeOf(n.OutType, fmt.Sprintf("operator %v", n))
		if err != nil {
			return err
		}
		mainOut, err := info.FanOut(main)
		if err != nil {
			return fmt.Errorf("task: outputs of %v: %w", n, err)
		}
		sideOuts := make(map[string]any, len(sides))
		var sideEmitters []watermarkEmitter
		for _, tag := range slices.Sorted(maps.Keys(sides)) {
			outs := sides[tag]
			o, err := sideTypes[tag].FanOut(outs)
			if err != nil {
				return fmt.Errorf("task: side output %q of %v: %w", tag, n, err)
			}
			sideOuts[tag] = o
			sideEmitters = append(sideEmitters, o.(watermarkEmitter))
		}
		if len(sideEmitters) > 0 {
			// An operator's watermarks go to its side outputs too, after
			// the main output's: a consumer of a side output sees event
			// time advance, and the final watermark before EndOfData.
			mainOut, err = info.AlsoWatermarks(mainOut, func(wm int64) error {
				for _, e := range sideEmitters {
					if err := e.EmitWatermark(wm); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("task: outputs of %v: %w", n, err)
			}
		}
		c.emitWatermark = mainOut.(watermarkEmitter).EmitWatermark
		inst, err := n.Factory(mainOut)
		if err != nil {
			return op.Attribute(fmt.Errorf("create: %w", err), n.Name, t.desc.Subtask, v.Parallelism)
		}
		operator, ok := inst.(op.Operator)
		if !ok {
			return fmt.Errorf("task: %v created %T, which is not an operator", n, inst)
		}
		c.inst = operator
		c.ctx = &op.Context{
			JobID:          t.desc.JobID,
			Attempt:        t.desc.Generation,
			Name:           n.Name,
			UID:            n.UID,
			SubtaskIndex:   t.desc.Subtask,
			Parallelism:    v.Parallelism,
			MaxParallelism: n.MaxParallelism,
			KeyGroups:      keygroup.RangeFor(n.MaxParallelism, v.Parallelism, t.desc.Subtask),
			Logger:         t.log.With("operator", n.Name),
			Timers:         timers{attr: c.attr(t), set: &t.timers},
			Mailbox:        t.mail,
			Done:           t.ctx.Done(),
			SideOutputs:    sideOuts,
			Checkpointing:  t.desc.Checkpointing,
			StateBackend:   t.cfg.StateBackend,
			Restored:       t.desc.Restored[n.UID],
			Splits:         t.splitRequester(n),
			Alignment:      t.aligner(n),
		}
		built[n] = c
		t.chain[i] = c
	}
	return nil
}

// buildReaders creates the reader of each gate channel's input edge.
func (t *Task) buildReaders() error {
	head := t.chain[0]
	byEdge := make(map[*graph.JobEdge]network.Reader)
	for _, ch := range t.layout {
		r, ok := byEdge[ch.edge]
		if !ok {
			info, err := typeOf(ch.edge.StreamEdge.Type, fmt.Sprintf("input of %v", head.node))
			if err != nil {
				return err
			}
			var target any = head.inst
			if in := ch.edge.StreamEdge.Input; in > 0 {
				m, ok := head.inst.(op.MultiInput)
				if !ok {
					return fmt.Errorf("task: %v has no input %d", head.node, in)
				}
				target = m.InputAt(in)
			}
			r, err = info.NewReader(target, head.attr(t))
			if err != nil {
				return fmt.Errorf("task: input of %v: %w", head.node, err)
			}
			byEdge[ch.edge] = r
		}
		t.readers = append(t.readers, r)
	}
	return nil
}
