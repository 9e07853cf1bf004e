package codec_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
)

// ConcA and ConcB are asked for by no other test, so their first For happens
// here, from many goroutines at once.
type ConcA struct {
	S []ConcB
	M map[string]*ConcB
}

type ConcB struct {
	N    int
	Back *ConcA
}

// TestConcurrentUse builds, encodes, decodes and hashes from many
// goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	v := ConcA{S: []ConcB{{N: 1}, {N: 2, Back: &ConcA{}}}, M: map[string]*ConcB{"x": {N: 3}}}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Go(func() {
			c, err := codec.For[ConcA]()
			if err != nil {
				errs <- err
				return
			}
			if err := codec.Check(reflect.TypeFor[ConcB]()); err != nil {
				errs <- err
				return
			}
			h, err := codec.KeyHasher[CompositeKey]()
			if err != nil {
				errs <- err
				return
			}
			var buf []byte
			for i := range 200 {
				buf = c.Append(buf[:0], v)
				got, _, err := c.Decode(buf)
				if err != nil || !reflect.DeepEqual(got, v) {
					errs <- fmt.Errorf("round trip: %#v, %v", got, err)
					return
				}
				h(CompositeKey{int32(i), "k"})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent use: %v", err)
	}
}
