package weir_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir"
)

type order struct {
	ID     int
	Amount int
}

type shipment struct {
	Order   int
	Carrier string
}

// shipJoin joins each order with its shipment, whichever arrives first,
// keeping the early one in keyed state.
type shipJoin struct {
	order    weir.ValueState[order]
	shipment weir.ValueState[shipment]
}

func (j *shipJoin) Open(rc *weir.KeyedRuntimeContext[int]) error {
	var err error
	if j.order, err = weir.GetValueState[order](rc, "order"); err != nil {
		return err
	}
	j.shipment, err = weir.GetValueState[shipment](rc, "shipment")
	return err
}

func (j *shipJoin) ProcessElement1(ctx *weir.KeyedContext[int, string], o order) error {
	if s, ok := j.shipment.Value(); ok {
		ctx.Collect(fmt.Sprintf("%d:%d:%s", o.ID, o.Amount, s.Carrier))
		j.shipment.Clear()
		return nil
	}
	j.order.Update(o)
	return nil
}

func (j *shipJoin) ProcessElement2(ctx *weir.KeyedContext[int, string], s shipment) error {
	if o, ok := j.order.Value(); ok {
		ctx.Collect(fmt.Sprintf("%d:%d:%s", o.ID, o.Amount, s.Carrier))
		j.order.Clear()
		return nil
	}
	j.shipment.Update(s)
	return nil
}

func TestCoProcessJoinsTwoStreams(t *testing.T) {
	const n = 2000
	var orders []order
	var ships []shipment
	var want []string
	for i := 0; i < n; i++ {
		orders = append(orders, order{ID: i, Amount: i * 3})
		// Every third order ships in reverse order, so both sides arrive
		// first for some keys.
		id := i
		if i%3 == 0 {
			id = n - 1 - i
		}
		ships = append(ships, shipment{Order: id, Carrier: fmt.Sprintf("c%d", id%7)})
	}
	seen := map[int]bool{}
	for _, s := range ships {
		seen[s.Order] = true
	}
	for _, o := range orders {
		if seen[o.ID] {
			want = append(want, fmt.Sprintf("%d:%d:c%d", o.ID, o.Amount, o.ID%7))
		}
	}
	slices.Sort(want)
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprint("p", p), func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(p))
			o := weir.KeyBy(weir.FromSlice(env, orders), func(o order) int { return o.ID })
			s := weir.KeyBy(weir.FromSlice(env, ships).SetParallelism(2), func(s shipment) int { return s.Order })
			joined := weir.CoProcess(weir.Connect(o, s), weir.KeyedCoProcessFunction[int, order, shipment, string](&shipJoin{}))
			got, err := weir.Collect(context.Background(), joined)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%d joined, want %d; first %v vs %v", len(got), len(want), got[:min(3, len(got))], want[:3])
			}
		})
	}
}

// Each input of a two-input operator ends on its own: the first input's
// EndOfData does not end the second.
func TestCoProcessInputsEndSeparately(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	short := weir.KeyBy(weir.FromSlice(env, []order{{1, 1}}), func(o order) int { return o.ID })
	long := weir.KeyBy(weir.Generate(env, weir.Generator[shipment]{
		Fn: func(i int64) (shipment, error) { return shipment{Order: int(i % 5), Carrier: "x"}, nil }, Count: 5000,
	}), func(s shipment) int { return s.Order })
	joined := weir.CoProcess(weir.Connect(short, long), weir.KeyedCoProcessFunction[int, order, shipment, string](&countBoth{}))
	got, err := weir.Collect(context.Background(), joined)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5001 {
		t.Fatalf("%d elements processed, want all 5001 of both inputs", len(got))
	}
}

type countBoth struct{}

func (countBoth) ProcessElement1(ctx *weir.KeyedContext[int, string], o order) error {
	ctx.Collect("order")
	return nil
}

func (countBoth) ProcessElement2(ctx *weir.KeyedContext[int, string], s shipment) error {
	ctx.Collect("shipment")
	return nil
}
