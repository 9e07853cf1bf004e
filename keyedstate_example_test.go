package weir_test

import (
	"context"
	"fmt"
	"log"
	"slices"

	"github.com/weir-engine/weir"
)

// pageCounter keeps three keyed states per user: the number of visits
// (ValueState), the visits per page (MapState) and the pages in the order
// first seen (ListState).
type pageCounter struct {
	visits  weir.ValueState[int]
	perPage weir.MapState[string, int]
	order   weir.ListState[string]
}

func (p *pageCounter) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	if p.visits, err = weir.GetValueState[int](rc, "visits"); err != nil {
		return err
	}
	if p.perPage, err = weir.GetMapState[string, int](rc, "per-page"); err != nil {
		return err
	}
	p.order, err = weir.GetListState[string](rc, "first-seen")
	return err
}

func (p *pageCounter) ProcessElement(ctx *weir.KeyedContext[string, string], v pageVisit) error {
	n, _ := p.visits.Value()
	p.visits.Update(n + 1)
	seen, ok := p.perPage.Get(v.Page)
	if !ok {
		p.order.Add(v.Page)
	}
	p.perPage.Put(v.Page, seen+1)
	ctx.Collect(fmt.Sprintf("%s: visit %d, %s %d time(s), pages %v", v.User, n+1, v.Page, seen+1, p.order.Get()))
	return nil
}

// Keyed state: each user's states are their own, checkpointed with the job
// and redistributed by key group when it is restored at another
// parallelism.
func ExampleGetMapState() {
	env := weir.NewEnv(weir.WithParallelism(2))
	visits := weir.FromSlice(env, []pageVisit{{"ann", "/home"}, {"bob", "/docs"}, {"ann", "/pricing"}, {"ann", "/home"}}).SetParallelism(1)
	out := weir.Process(weir.KeyBy(visits, func(v pageVisit) string { return v.User }),
		weir.KeyedProcessFunction[string, pageVisit, string](&pageCounter{}))
	got, err := weir.Collect(context.Background(), out)
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(got)
	for _, s := range got {
		fmt.Println(s)
	}
	// Output:
	// ann: visit 1, /home 1 time(s), pages [/home]
	// ann: visit 2, /pricing 1 time(s), pages [/home /pricing]
	// ann: visit 3, /home 2 time(s), pages [/home /pricing]
	// bob: visit 1, /docs 1 time(s), pages [/docs]
}
