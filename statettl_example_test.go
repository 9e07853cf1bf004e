package weir_test

import (
	"context"
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/weir-engine/weir"
)

// lastSeen remembers, per user, the last page they visited, for a day.
type lastSeen struct{ page weir.ValueState[string] }

func (l *lastSeen) Open(rc *weir.KeyedRuntimeContext[string]) error {
	ttl := weir.NewStateTTLConfig(24 * time.Hour)
	ttl.Update = weir.OnReadAndWrite // a read keeps the entry alive too
	ttl.CleanupFullSnapshot = true   // checkpoints never hold expired entries
	var err error
	l.page, err = weir.GetValueState[string](rc, "last-page", weir.WithStateTTL(ttl))
	return err
}

func (l *lastSeen) ProcessElement(ctx *weir.KeyedContext[string, string], v pageVisit) error {
	if prev, ok := l.page.Value(); ok {
		ctx.Collect(fmt.Sprintf("%s: %s -> %s", v.User, prev, v.Page))
	} else {
		ctx.Collect(fmt.Sprintf("%s: new visit to %s", v.User, v.Page))
	}
	l.page.Update(v.Page)
	return nil
}

type pageVisit struct{ User, Page string }

// A keyed state with a time to live: entries a day old are gone (expiry
// itself is shown by TestStateTTLAcrossSavepointRescaleAndFailure, which
// advances a fake clock).
func ExampleWithStateTTL() {
	env := weir.NewEnv(weir.WithParallelism(2))
	visits := weir.FromSlice(env, []pageVisit{{"ann", "/home"}, {"bob", "/docs"}, {"ann", "/pricing"}}).SetParallelism(1)
	out := weir.Process(weir.KeyBy(visits, func(v pageVisit) string { return v.User }),
		weir.KeyedProcessFunction[string, pageVisit, string](&lastSeen{}))
	got, err := weir.Collect(context.Background(), out)
	if err != nil {
		log.Fatal(err)
	}
	slices.Sort(got)
	for _, s := range got {
		fmt.Println(s)
	}
	// Output:
	// ann: /home -> /pricing
	// ann: new visit to /home
	// bob: new visit to /docs
}
