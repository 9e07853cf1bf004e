package codec_test

import "time"

// Types shared by the tests.

type Celsius float64

type Flag uint8

type Inner struct {
	A int32
	b string
	C []float64
}

type Outer struct {
	Name   string
	in     Inner
	P      *Inner
	NilP   *Inner
	Tags   map[string]int
	Arr    [3]uint16
	Bytes  []byte
	Nested [][]string
	Temp   Celsius
	Flags  []Flag
	When   time.Time
	u8     uint8
	i8     int8
	c64    complex64
	c128   complex128
}

// Node is a recursive type through a pointer.
type Node struct {
	Val  int
	Next *Node
}

// Tree is a recursive type through a slice.
type Tree struct {
	Label string
	Kids  []Tree
}

// Graph is recursive through a map.
type Graph map[string]Graph

type WithBlank struct {
	A int
	_ int32
	B string
}

type WithEmpty struct {
	A int
	E struct{}
	Z [0]int
	B int
}

// Rec4 is the 4-field record of the benchmarks.
type Rec4 struct {
	ID    int64
	Name  string
	Score float64
	OK    bool
}

// FuzzRec has a field of most kinds, for FuzzDecode.
type FuzzRec struct {
	A   bool
	B   int8
	C   int16
	D   int32
	E   int64
	F   uint
	G   uint32
	H   float32
	I   float64
	J   complex64
	S   string
	Bs  []byte
	Ns  []Celsius
	Arr [3]uint16
	P   *FuzzRec
	L   []FuzzRec
	M   map[string]int32
	T   time.Time
	F8  []Flag
}

// FlatRec is FuzzRec without maps and time.Time, so that its encoding is a
// function of its value: decode then encode must reproduce the bytes.
type FlatRec struct {
	A   bool
	B   int8
	D   int32
	E   int64
	G   uint16
	H   float32
	S   string
	Bs  []byte
	Arr [2]Celsius
	P   *FlatRec
	L   []FlatRec
}
