package codec_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/weir-engine/weir/internal/codec"
)

type WithChan struct {
	ID  int
	Bar chan int
}

type Deep struct {
	Items []struct {
		M map[string]struct{ F func() }
	}
}

type WithAny struct{ V any }

type WithPtrToBad struct {
	Next *WithPtrToBad
	Bad  *struct{ U uintptr }
}

func TestNoCodec(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string // a substring of the error
	}{
		{reflect.TypeFor[chan int](), "no codec for type chan int: channels cannot be encoded"},
		{reflect.TypeFor[WithChan](), "field WithChan.Bar: chan int: channels cannot be encoded"},
		{reflect.TypeFor[Deep](), "field Deep.Items[].M[value].F: func(): functions cannot be encoded"},
		{reflect.TypeFor[WithAny](), "field WithAny.V: interface {}: an interface type needs a codec registered"},
		{reflect.TypeFor[WithPtrToBad](), "field WithPtrToBad.Bad.U: uintptr"},
		{reflect.TypeFor[unsafe.Pointer](), "unsafe.Pointer"},
		{reflect.TypeFor[[]any](), "element value[]: interface {}"},
		{reflect.TypeFor[map[chan int]int](), "element value[key]: chan int"},
		{reflect.TypeFor[error](), "interface"},
		{nil, "no type"},
	}
	for _, tt := range tests {
		err := codec.Check(tt.typ)
		if !errors.Is(err, codec.ErrNoCodec) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%v) = %v, want ErrNoCodec containing %q", tt.typ, err, tt.want)
		}
	}
	// For gives the same error; asking again gives the cached one.
	for range 2 {
		if _, err := codec.For[WithChan](); !errors.Is(err, codec.ErrNoCodec) || !strings.Contains(err.Error(), "WithChan.Bar") {
			t.Errorf("For[WithChan]: %v", err)
		}
	}
	// A type that is fine once checked stays fine.
	if err := codec.Check(reflect.TypeFor[Outer]()); err != nil {
		t.Errorf("Check(Outer): %v", err)
	}
}
