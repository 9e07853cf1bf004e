package weir_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"time"

	"github.com/weir-engine/weir"
)

// sensorReading is a sensor's value at an event time in milliseconds.
type sensorReading struct {
	Sensor string
	TS     int64
}

// watermarkReport tells, for each reading, the event time the operator had
// reached when the reading came (KeyedContext.TimerService's
// CurrentWatermark, Flink's timerService().currentWatermark()).
type watermarkReport struct{}

func (watermarkReport) ProcessElement(ctx *weir.KeyedContext[string, string], r sensorReading) error {
	wm := ctx.TimerService().CurrentWatermark()
	if wm == math.MinInt64 {
		ctx.Collect(fmt.Sprintf("%s@%d: no watermark yet", r.Sensor, r.TS))
		return nil
	}
	ctx.Collect(fmt.Sprintf("%s@%d: watermark %d", r.Sensor, r.TS, wm))
	return nil
}

// A watermark strategy with idleness: a subtask of the assigner that gets
// no reading for a minute no longer holds back event time downstream
// (WithIdleness). A process function reads the current watermark: with a
// watermark after every reading, each reading sees the one its
// predecessor allowed (its timestamp less the out-of-orderness, less 1 ms).
func ExampleWatermarkStrategy_WithIdleness() {
	readings := []sensorReading{{"s1", 1000}, {"s2", 2000}, {"s1", 1500}, {"s1", 4000}}
	env := weir.NewEnv(weir.WithParallelism(1))
	strategy := weir.BoundedOutOfOrderness(time.Second, func(r sensorReading) int64 { return r.TS }).
		WithIdleness(time.Minute)
	strategy.PerElement = true // deterministic for the example; the default is periodic
	stamped := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, readings), strategy)
	report := weir.Process(weir.KeyBy(stamped, func(r sensorReading) string { return r.Sensor }), watermarkReport{})
	got, err := weir.Collect(context.Background(), report)
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range got {
		fmt.Println(line)
	}
	// Output:
	// s1@1000: no watermark yet
	// s2@2000: watermark -1
	// s1@1500: watermark 999
	// s1@4000: watermark 999
}
