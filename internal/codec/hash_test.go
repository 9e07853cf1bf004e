package codec_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// The golden values below were computed with an independent MurmurHash3
// implementation (and match the published vectors for "hello" and "The
// quick brown fox..."). If one of these tests fails, the key-group
// assignment of existing checkpoints has changed: do not update the values
// without a savepoint migration.

func TestHashBytesGolden(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint32
	}{
		{"", 0},
		{"a", 0x3c2569b2},
		{"ab", 0x9bbfd75f},
		{"abc", 0xb3dd93fa},
		{"abcd", 0x43ed676a},
		{"hello", 0x248bfa47},
		{"héllo", 0xbc9fa068},
		{"Hello, world!", 0xc0363e43},
		{"The quick brown fox jumps over the lazy dog", 0x2e4ff723},
	} {
		if got := codec.HashBytes([]byte(tt.in)); got != tt.want {
			t.Errorf("HashBytes(%q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

type UserID string

type CompositeKey struct {
	A int32
	B string
}

type FloatKey struct {
	A int32
	B string
	F float64
}

func mustHasher[K comparable](t testing.TB) func(K) uint32 {
	t.Helper()
	h, err := codec.KeyHasher[K]()
	if err != nil {
		t.Fatalf("KeyHasher[%T]: %v", *new(K), err)
	}
	return h
}

func TestKeyHasherGolden(t *testing.T) {
	str, uid := mustHasher[string](t), mustHasher[UserID](t)
	i64, i8, u64, f64 := mustHasher[int64](t), mustHasher[int8](t), mustHasher[uint64](t), mustHasher[float64](t)
	comp, fk := mustHasher[CompositeKey](t), mustHasher[FloatKey](t)
	for _, tt := range []struct {
		name string
		got  uint32
		want uint32
	}{
		{"string hello", str("hello"), 0x248bfa47},
		{"string user-42", str("user-42"), 0xb972dad0},
		{"named string", uid("user-42"), 0xb972dad0},
		{"int64 0", i64(0), 0},
		{"int64 1", i64(1), 0x34c2cb2c},
		{"int64 -1", i64(-1), 0x4b825f21},
		{"int8 -1 (sign-extended)", i8(-1), 0x4b825f21},
		{"int64 42", i64(42), 0x8e4259cc},
		{"uint64 1<<40", u64(1 << 40), 0xd2f232f6},
		{"float64 1.5", f64(1.5), 0x4e75b6f0},
		{"struct", comp(CompositeKey{7, "x"}), 0x8ce07bee},
		{"struct with float", fk(FloatKey{7, "x", 0}), 0xa617046c},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %#x, want %#x", tt.name, tt.got, tt.want)
		}
	}
}

// TestKeyHasherEqualKeys checks that keys that are == hash alike, which for
// floats means -0 and +0.
func TestKeyHasherEqualKeys(t *testing.T) {
	negZero := math.Copysign(0, -1)
	if h := mustHasher[float64](t); h(negZero) != h(0) {
		t.Error("float64 -0 and +0 hash differently")
	}
	if h := mustHasher[float32](t); h(float32(negZero)) != h(0) {
		t.Error("float32 -0 and +0 hash differently")
	}
	if h := mustHasher[FloatKey](t); h(FloatKey{F: negZero}) != h(FloatKey{}) {
		t.Error("struct with -0 and +0 hash differently")
	}
	if h := mustHasher[[2]complex64](t); h([2]complex64{complex(float32(negZero), 1)}) != h([2]complex64{complex(0, 1)}) {
		t.Error("complex -0 and +0 hash differently")
	}
	if h := mustHasher[float64](t); h(math.NaN()) != h(math.Float64frombits(0x7ff8000000000abc)) {
		t.Error("NaNs hash differently")
	}
	k := FloatKey{F: negZero}
	mustHasher[FloatKey](t)(k)
	if !math.Signbit(k.F) {
		t.Error("hashing changed the caller's key")
	}
}

// TestKeyHasherDistribution: 10k distinct keys over 128 key groups, each
// within 50% of the mean.
func TestKeyHasherDistribution(t *testing.T) {
	const keys, buckets = 10000, 128
	check := func(name string, hash func(i int) uint32) {
		var counts [buckets]int
		for i := range keys {
			counts[hash(i)%buckets]++
		}
		mean := float64(keys) / buckets
		for b, c := range counts {
			if math.Abs(float64(c)-mean) > mean/2 {
				t.Errorf("%s: bucket %d has %d keys, mean %.1f", name, b, c, mean)
			}
		}
	}
	str, i64, comp := mustHasher[string](t), mustHasher[int64](t), mustHasher[CompositeKey](t)
	check("string", func(i int) uint32 { return str(fmt.Sprintf("key-%d", i)) })
	check("int64", func(i int) uint32 { return i64(int64(i)) })
	check("int64 multiples of 128", func(i int) uint32 { return i64(int64(i) * 128) })
	check("struct", func(i int) uint32 { return comp(CompositeKey{int32(i % 7), fmt.Sprint(i / 7)}) })
}

type PtrKey struct {
	ID    int
	Owner *string
}

type AnyKey struct{ V [2]any }

type TimeKey struct{ At time.Time }

type BlankKey struct {
	A int
	_ *int
}

func TestKeyHasherBadKeys(t *testing.T) {
	bad := []struct {
		err  error
		want string
	}{
		{err: errOf(codec.KeyHasher[*int]()), want: "pointer's identity is an address"},
		{err: errOf(codec.KeyHasher[any]()), want: "interface"},
		{err: errOf(codec.KeyHasher[chan int]()), want: "channel"},
		{err: errOf(codec.KeyHasher[PtrKey]()), want: "field PtrKey.Owner: *string: a pointer's identity"},
		{err: errOf(codec.KeyHasher[AnyKey]()), want: "field AnyKey.V[]: interface {}"},
		{err: errOf(codec.KeyHasher[TimeKey]()), want: "field TimeKey.At.loc: *time.Location"},
		{err: errOf(codec.KeyHasher[uintptr]()), want: "uintptr"},
		{err: codec.CheckKey(reflect.TypeFor[[]int]()), want: "not comparable"},
		{err: codec.CheckKey(nil), want: "no type"},
	}
	for _, tt := range bad {
		if !errors.Is(tt.err, codec.ErrBadKey) || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("err = %v, want ErrBadKey containing %q", tt.err, tt.want)
		}
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[float64](), reflect.TypeFor[[3]string](), reflect.TypeFor[BlankKey](),
		reflect.TypeFor[complex128](), reflect.TypeFor[bool](),
	} {
		if err := codec.CheckKey(typ); err != nil {
			t.Errorf("CheckKey(%v): %v", typ, err)
		}
	}
}

func errOf[T any](_ T, err error) error { return err }

func TestKeyHasherAllocs(t *testing.T) {
	skipUnderRace(t)
	str, i64, comp := mustHasher[string](t), mustHasher[int64](t), mustHasher[FloatKey](t)
	s, k := "some-key", FloatKey{1, "abc", 2}
	var sink uint32
	for name, f := range map[string]func(){
		"string": func() { sink += str(s) },
		"int64":  func() { sink += i64(12345) },
		"struct": func() { sink += comp(k) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s key hash: %.1f allocs, want 0", name, n)
		}
	}
	_ = sink
}
