package cuzk

// Takers of the response types that several calls share. Each copies the
// value out and frees the response; the destructors of one C type are
// interchangeable (the ABI promises it), so each taker uses one of them.

/*
#include "filcrypto.h"
*/
import "C"

// postProof is a PoSt proof as C carries it: its RegisteredPoStProof number
// and its bytes.
type postProof struct {
	registeredProof int32
	bytes           []byte
}

func takeBool(r *C.Result_bool_t) (bool, error) {
	defer C.destroy_verify_seal_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return false, err
	}
	return bool(r.value), nil
}

func takeBytes(r *C.Result_slice_boxed_uint8_t) ([]byte, error) {
	defer C.destroy_seal_commit_phase2_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return nil, err
	}
	return goBytes(&r.value), nil
}

func takeString(r *C.Result_slice_boxed_uint8_t) (string, error) {
	b, err := takeBytes(r)
	return string(b), err
}

func takeByteLists(r *C.Result_slice_boxed_slice_boxed_uint8_t) ([][]byte, error) {
	defer C.destroy_gpu_device_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return nil, err
	}
	items := cItems(r.value.ptr, r.value.len)
	out := make([][]byte, len(items))
	for i := range items {
		out[i] = goBytes(&items[i])
	}
	return out, nil
}

func takePoStProofs(r *C.Result_slice_boxed_PoStProof_t) ([]postProof, error) {
	defer C.destroy_generate_winning_post_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return nil, err
	}
	return goPoStProofs(&r.value), nil
}

func goPoStProofs(list *C.slice_boxed_PoStProof_t) []postProof {
	items := cItems(list.ptr, list.len)
	out := make([]postProof, len(items))
	for i := range items {
		out[i] = goPoStProof(&items[i])
	}
	return out
}

func goPoStProof(p *C.PoStProof_t) postProof {
	return postProof{registeredProof: int32(p.registered_proof), bytes: goBytes(&p.proof)}
}
