package cuzk

// The mechanical layer: the cabi_*.go files alone speak C. Each wrapper casts
// its Go arguments, calls libfilcrypto, copies what it returns into Go memory
// and frees the response with its destructor; a status_code other than 0
// becomes an error carrying the library's message.
//
// Memory lent to C for a call is Go memory holding no Go pointers (bytes,
// integers, C structs whose pointers lead to Rust-owned buffers), as cgo
// requires; buffers that C expects inside structs or lists are Rust-owned
// copies (alloc_boxed_slice), freed after the call.

/*
#cgo pkg-config: ${SRCDIR}/../target/filcrypto/filcrypto.pc
#include "filcrypto.h"
*/
import "C"

import (
	"bytes"
	"errors"
	"unsafe"
)

// firstOf points at the first item, or at a fresh zero item for an empty
// list: the C side wants a non-NULL pointer even when the length is 0.
func firstOf[T any](items []T) *T {
	if len(items) == 0 {
		return new(T)
	}
	return &items[0]
}

func bytesRef(b []byte) C.slice_ref_uint8_t {
	return C.slice_ref_uint8_t{ptr: (*C.uint8_t)(firstOf(b)), len: C.size_t(len(b))}
}

func pathRef(path string) C.slice_ref_uint8_t {
	return bytesRef([]byte(path))
}

func uint64sRef(values []uint64) C.slice_ref_uint64_t {
	return C.slice_ref_uint64_t{ptr: (*C.uint64_t)(firstOf(values)), len: C.size_t(len(values))}
}

func array32(b *[32]byte) *C.uint8_32_array_t {
	return (*C.uint8_32_array_t)(unsafe.Pointer(b))
}

// emptyBoxData is the data pointer of the empty buffers handed to C. Rust's
// own (alloc_boxed_slice(0)) is dangling, e.g. 0x1, a value Go must never hold
// in a pointer-typed variable: the runtime takes it for a corrupt pointer when
// it moves a stack. Rust never frees a buffer of zero bytes, so any non-NULL
// address serves.
var emptyBoxData = (*C.uint8_t)(C.malloc(1))

// boxedCopy copies b into a Rust-owned buffer, as C wants the buffers it finds
// inside structs and lists; free it with destroy_boxed_slice.
func boxedCopy(b []byte) C.slice_boxed_uint8_t {
	if len(b) == 0 {
		return C.slice_boxed_uint8_t{ptr: emptyBoxData}
	}
	boxed := C.alloc_boxed_slice(C.size_t(len(b)))
	copy(unsafe.Slice((*byte)(boxed.ptr), boxed.len), b)
	return boxed
}

// boxedCopies is boxedCopy of each buffer; free them with freeBoxed.
func boxedCopies(buffers [][]byte) []C.slice_boxed_uint8_t {
	boxed := make([]C.slice_boxed_uint8_t, len(buffers))
	for i, b := range buffers {
		boxed[i] = boxedCopy(b)
	}
	return boxed
}

func freeBoxed(boxed []C.slice_boxed_uint8_t) {
	for i := range boxed {
		C.destroy_boxed_slice(boxed[i])
	}
}

func boxedListRef(boxed []C.slice_boxed_uint8_t) C.slice_ref_slice_boxed_uint8_t {
	return C.slice_ref_slice_boxed_uint8_t{ptr: firstOf(boxed), len: C.size_t(len(boxed))}
}

// The readers below take what C returns through pointers into C memory and
// look at a data pointer only when there is data: an empty buffer's pointer
// is dangling (see emptyBoxData) and must not become a Go value.

func goBytes(b *C.slice_boxed_uint8_t) []byte {
	if b.len == 0 {
		return []byte{}
	}
	return bytes.Clone(unsafe.Slice((*byte)(b.ptr), b.len))
}

func goUint64s(v *C.slice_boxed_uint64_t) []uint64 {
	if v.len == 0 {
		return []uint64{}
	}
	return append([]uint64{}, unsafe.Slice((*uint64)(v.ptr), v.len)...)
}

// cItems is the list at ptr, read in place; nil for none.
func cItems[T any](ptr *T, n C.size_t) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice(ptr, n)
}

func goArray32(a *C.uint8_32_array_t) [32]byte {
	return *(*[32]byte)(unsafe.Pointer(a))
}

// statusError is nil for a response that succeeded, else its message.
func statusError(status C.FCPResponseStatus_t, message *C.slice_boxed_uint8_t) error {
	if status == C.F_C_P_RESPONSE_STATUS_NO_ERROR {
		return nil
	}
	return errors.New(string(goBytes(message)))
}
