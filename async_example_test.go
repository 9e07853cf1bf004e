package weir_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync/atomic"
	"time"

	"github.com/weir-engine/weir"
)

// errBusy is what the simulated service answers to the first call.
var errBusy = errors.New("service busy")

// Enrich each user id with a name from a (simulated) remote service, many
// lookups at once, results in input order; a busy answer is retried after
// a short backoff, and a lookup that takes longer than the timeout gets a
// placeholder instead of failing the job.
func ExampleAsyncWaitOrdered() {
	var calls atomic.Int64
	lookup := func(ctx context.Context, id int) ([]string, error) {
		if calls.Add(1) == 1 {
			return nil, errBusy // the first call of all is refused
		}
		if id == 4 {
			<-ctx.Done() // this one never answers
			return nil, ctx.Err()
		}
		return []string{fmt.Sprintf("%d:%s", id, strings.Repeat("x", id))}, nil
	}
	env := weir.NewEnv(weir.WithParallelism(1))
	names := weir.AsyncWaitOrdered(weir.FromSlice(env, []int{1, 2, 3, 4, 5}), lookup, 50*time.Millisecond,
		weir.WithAsyncCapacity(10),
		weir.WithAsyncRetry(weir.ExponentialBackoffRetry(3, time.Millisecond, 10*time.Millisecond, 2).
			IfError(func(err error) bool { return errors.Is(err, errBusy) })),
		weir.WithAsyncTimeoutHandler(func(id int) ([]string, error) { return []string{fmt.Sprintf("%d:?", id)}, nil }))
	got, err := weir.Collect(context.Background(), names)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got)
	// Output: [1:x 2:xx 3:xxx 4:? 5:xxxxx]
}
