package codec_test

import (
	"runtime"
	"sync"
	"testing"
)

// stackRec has pointers of every kind a decoder writes into the value.
type stackRec struct {
	A int64
	S string
	B []byte
	T string
	P *int64
}

// atDepth calls f under n frames of 64 bytes and m of 16, so that f's
// callees hit a stack bound at a different point on every call.
func atDepth(n, m int, f func()) int {
	var pad [64]byte
	if n == 0 {
		return fineDepth(m, f)
	}
	return atDepth(n-1, m, f) + int(pad[n%len(pad)])
}

func fineDepth(m int, f func()) int {
	var pad [16]byte
	if m == 0 {
		f()
		return int(pad[0])
	}
	return fineDepth(m-1, f) + int(pad[m%len(pad)])
}

// TestValuesSurviveStackGrowth encodes and decodes while the goroutine
// stacks grow (deep calls) and shrink (a GC loop): a codec that handed its
// plan a pointer hidden from escape analysis wrote decoded fields to the
// old stack, and values came back zero (seen under -race).
func TestValuesSurviveStackGrowth(t *testing.T) {
	c := mustFor[stackRec](t)
	x := int64(7)
	in := stackRec{A: 1, S: "hello", B: []byte("abc"), P: &x}
	want := string(c.Append(nil, in))
	enc := []byte(want)
	stop := make(chan struct{})
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				atDepth((i*7+g)%200, i%5, func() {
					v, _, err := c.Decode(enc)
					if err != nil || v.A != 1 || v.S != "hello" || string(v.B) != "abc" || v.P == nil || *v.P != 7 {
						t.Errorf("decoded %+v, %v", v, err)
					}
				})
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-gcDone
}
