// Package cuzk is filecoin-ffi's proving API on cuzk: the same functions,
// signatures and types (go-state-types' abi and proof, go-cid), so that a
// caller of github.com/filecoin-project/filecoin-ffi switches by changing the
// import. Proofs are made by libcuzk through its filcrypto C ABI, linked from
// the repository's target/filcrypto (see README.md).
//
// The cabi_*.go files are the mechanical cgo layer; the other files convert
// between go-state-types and that layer, one area each.
package cuzk
