package rpc_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// recordingTE is a TaskExecutorGateway that records the messages it gets
// and answers triggers with accepted = (id is even).
type recordingTE struct {
	rpc.TaskExecutorGateway // methods a test does not call
	got                     []*rpcpb.TriggerCheckpointRequest
	answers                 []*rpcpb.TriggerCheckpointResponse
}

func (r *recordingTE) TriggerCheckpoint(_ context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	r.got = append(r.got, m)
	a := &rpcpb.TriggerCheckpointResponse{Accepted: m.GetBarrier().GetId()%2 == 0}
	r.answers = append(r.answers, a)
	return rpc.Completed(a, nil)
}

func trigger(id int64, job string) *rpcpb.TriggerCheckpointRequest {
	return &rpcpb.TriggerCheckpointRequest{Task: &rpcpb.TaskKey{JobId: job}, Barrier: &rpcpb.CheckpointBarrier{Id: id}}
}

// With encoding on, the receiver gets a copy made from bytes: not the
// sender's message, and changes the sender makes after the call do not
// reach it; the answer comes back as a copy too. With encoding off the
// message itself is handed over.
func TestLocalEncodesEveryMessage(t *testing.T) {
	for _, encode := range []bool{true, false} {
		t.Run(map[bool]string{true: "on", false: "off"}[encode], func(t *testing.T) {
			l := rpc.NewLocalEncoding(encode)
			te := &recordingTE{}
			stop, err := l.ServeTaskExecutor("tm-0", te)
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			req := trigger(4, "job")
			resp, err := l.TaskExecutor("tm-0").TriggerCheckpoint(context.Background(), req).Wait(context.Background())
			if err != nil || !resp.GetAccepted() {
				t.Fatalf("answer %v, %v; want accepted", resp, err)
			}
			req.Task.JobId = "changed after the call"
			if len(te.got) != 1 || te.got[0].GetBarrier().GetId() != 4 {
				t.Fatalf("received %v; want the trigger of checkpoint 4", te.got)
			}
			crossed := te.got[0] != req || resp != te.answers[0]
			if crossed != encode {
				t.Fatalf("request or answer copied = %v; want %v", crossed, encode)
			}
			if encode && te.got[0].GetTask().GetJobId() != "job" {
				t.Fatalf("a change after the call reached the receiver: %q", te.got[0].GetTask().GetJobId())
			}
		})
	}
}

// What protobuf cannot carry does not cross: a string that is not UTF-8
// fails the call with an encode error, and the receiver never sees it.
func TestLocalRefusesWhatIsNotAMessage(t *testing.T) {
	l := rpc.NewLocalEncoding(true)
	te := &recordingTE{}
	stop, err := l.ServeTaskExecutor("tm-0", te)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	_, err = l.TaskExecutor("tm-0").TriggerCheckpoint(context.Background(), trigger(2, "job\xff")).Wait(context.Background())
	if err == nil || !strings.Contains(err.Error(), "rpc: encode") {
		t.Fatalf("err = %v; want an encode error", err)
	}
	if len(te.got) != 0 {
		t.Fatalf("the receiver got %v", te.got)
	}
}

// Calls reach their endpoint only while it is served; an address served
// twice is refused.
func TestLocalAddresses(t *testing.T) {
	l := rpc.NewLocalEncoding(true)
	te := &recordingTE{}
	stop, err := l.ServeTaskExecutor("tm-0", te)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.ServeTaskExecutor("tm-0", te); err == nil {
		t.Fatal("serving tm-0 twice: no error")
	}
	ctx := context.Background()
	cases := []struct {
		name string
		addr string
		stop bool
		want error
	}{
		{"served", "tm-0", false, nil},
		{"unknown address", "tm-1", false, rpc.ErrUnreachable},
		{"stopped", "tm-0", true, rpc.ErrUnreachable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.stop {
				stop()
			}
			_, err := l.TaskExecutor(c.addr).TriggerCheckpoint(ctx, trigger(2, "j")).Wait(ctx)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v; want %v", err, c.want)
			}
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.TaskExecutor("tm-0").TriggerCheckpoint(cancelled, trigger(2, "j")).Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("call with a cancelled context: err = %v", err)
	}
}

// Calls from one sender to one receiver arrive in the order they were
// made, and an answer completed later by the callee (as the JobMaster's
// loop answers a split request) reaches the caller's callback then.
func TestLocalKeepsOrderAndDefersAnswers(t *testing.T) {
	l := rpc.NewLocalEncoding(true)
	jm := &deferringJM{}
	stop, err := l.ServeJobMaster("jm", jm)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var answers []string
	for _, uid := range []string{"a", "b", "c"} {
		l.JobMaster("jm").RequestSplit(context.Background(), &rpcpb.SplitRequest{OperatorUid: uid}).OnComplete(
			func(m *rpcpb.SplitAssignment, err error) {
				if err != nil {
					t.Errorf("split of %s: %v", uid, err)
				}
				answers = append(answers, string(m.GetSplit()))
			})
	}
	if len(answers) != 0 || len(jm.pending) != 3 {
		t.Fatalf("answered %v before the callee did; %d pending", answers, len(jm.pending))
	}
	for _, p := range jm.pending {
		p.f.Complete(&rpcpb.SplitAssignment{Split: []byte("split-" + p.uid)}, nil)
	}
	if got := strings.Join(answers, ","); got != "split-a,split-b,split-c" {
		t.Fatalf("answers %s", got)
	}
}

type deferringJM struct {
	rpc.JobMasterGateway
	pending []struct {
		uid string
		f   *rpc.Future[*rpcpb.SplitAssignment]
	}
}

func (d *deferringJM) RequestSplit(_ context.Context, m *rpcpb.SplitRequest) *rpc.Future[*rpcpb.SplitAssignment] {
	f := rpc.NewFuture[*rpcpb.SplitAssignment]()
	d.pending = append(d.pending, struct {
		uid string
		f   *rpc.Future[*rpcpb.SplitAssignment]
	}{m.GetOperatorUid(), f})
	return f
}

// WEIR_RPC_ENCODE decides; unset, encoding is on in a test binary.
func TestEncodingSwitch(t *testing.T) {
	for _, c := range []struct {
		env  string
		want bool
	}{{"1", true}, {"0", false}, {"", true}} {
		t.Setenv(rpc.EncodeEnv, c.env)
		if got := rpc.Encoding(); got != c.want {
			t.Errorf("%s=%q: Encoding() = %v; want %v", rpc.EncodeEnv, c.env, got, c.want)
		}
	}
}
