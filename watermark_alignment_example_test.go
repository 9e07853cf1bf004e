package weir_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"time"

	"github.com/weir-engine/weir"
)

// Watermark alignment: two split sources in the group "sensors" cover the
// same second of event time, "slow" at 1 ms per reading (paced in
// processing time too), "fast" at 10 ms. With a drift of 100 ms, fast
// pauses whenever it runs more than 100 ms ahead of slow's watermark (its
// reader, a SplitPauser, pauses the split), and it resumes as slow
// catches up; without alignment it would finish its second while slow is
// still near the start. The readers (alignReader, in the end-to-end test)
// emit at most 5 readings per poll.
func ExampleWatermarkStrategy_WithWatermarkAlignment() {
	world := &alignWorld{}
	world.gate.Store(math.MaxInt64)
	env := weir.NewEnv(weir.WithParallelism(1))
	strategy := weir.WatermarkStrategy[int64]{Interval: time.Millisecond}.
		WithWatermarkAlignment("sensors", 100*time.Millisecond, 2*time.Millisecond)
	read := func(name string, fast bool, split alignSplit) weir.DataStream[int64] {
		return weir.FromSplits(env, weir.SplitSource[int64, alignSplit]{
			Name:   name,
			Splits: func(int) ([]alignSplit, error) { return []alignSplit{split}, nil },
			NewSourceReader: func(rc weir.ReaderContext[int64]) (weir.SourceReader[int64, alignSplit], error) {
				r := &alignReader{ctx: rc, world: world, fast: fast, paused: map[string]bool{}}
				if fast {
					return alignPausing{r}, nil
				}
				return r, nil
			},
			Watermarks: &strategy,
		})
	}
	slow := read("slow", false, alignSplit{ID: "s", Step: 1, Count: 1000})
	fast := read("fast", true, alignSplit{ID: "f", Base: 1000, Step: 10, Count: 100})
	got, err := weir.Collect(context.Background(), weir.Union(slow, fast))
	if err != nil {
		log.Fatal(err)
	}
	world.mu.Lock()
	defer world.mu.Unlock()
	fmt.Println("readings:", len(got))
	fmt.Println("fast stayed within drift + one poll of slow:", world.lead <= 100+5*10)
	fmt.Println("fast paused:", world.pauses.Load() > 0)
	// Output:
	// readings: 1100
	// fast stayed within drift + one poll of slow: true
	// fast paused: true
}
