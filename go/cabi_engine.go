package cuzk

// The engine's asynchronous calls (cuzk_*, cuzk's extension of filcrypto.h).
// Their failure message is kept per OS thread by libcuzk, so each call and
// the read of its message happen on one locked thread.

/*
#include <stdint.h>
#include "filcrypto.h"
*/
import "C"

import "runtime"

// engineCall runs call and turns a code other than CUZK_OK into an
// *EngineError carrying the library's message.
func engineCall(call func() C.cuzk_result_t) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	code := call()
	if code == C.CUZK_OK {
		return nil
	}
	n := C.cuzk_last_error(nil, 0)
	msg := make([]byte, n+1)
	C.cuzk_last_error((*C.uint8_t)(&msg[0]), C.size_t(len(msg)))
	return &EngineError{Code: EngineCode(code), Message: string(msg[:n])}
}

// takeEngineBytes copies bytes a cuzk_* call returned and frees them.
func takeEngineBytes(b *C.slice_boxed_uint8_t) []byte {
	defer C.cuzk_bytes_free(*b)
	return goBytes(b)
}

func submitPoRepC2(c1 []byte, sectorID uint64, proverID *[32]byte, priority int32) (job uint64, err error) {
	err = engineCall(func() C.cuzk_result_t {
		return C.cuzk_submit_porep_c2(bytesRef(c1), C.uint64_t(sectorID), array32(proverID), C.cuzk_priority_t(priority), (*C.uint64_t)(&job))
	})
	return job, err
}

// submitPoSt submits a Winning (winning) or Window PoSt from vanilla proofs.
func submitPoSt(winning bool, registeredProof int32, randomness, proverID *[32]byte, vanillaProofs [][]byte, priority int32) (job uint64, err error) {
	vanilla := boxedCopies(vanillaProofs)
	defer freeBoxed(vanilla)
	rp, list, prio, out := C.RegisteredPoStProof_t(registeredProof), boxedListRef(vanilla), C.cuzk_priority_t(priority), (*C.uint64_t)(&job)
	err = engineCall(func() C.cuzk_result_t {
		if winning {
			return C.cuzk_submit_winning_post(rp, array32(randomness), array32(proverID), list, prio, out)
		}
		return C.cuzk_submit_window_post(rp, array32(randomness), array32(proverID), list, prio, out)
	})
	return job, err
}

func submitSnapDeals(updateProof int32, vanillaProofs [][]byte, c *updateCommitments, priority int32) (job uint64, err error) {
	vanilla := boxedCopies(vanillaProofs)
	defer freeBoxed(vanilla)
	err = engineCall(func() C.cuzk_result_t {
		return C.cuzk_submit_snap_deals(C.RegisteredUpdateProof_t(updateProof), boxedListRef(vanilla),
			array32(&c.commROld), array32(&c.commRNew), array32(&c.commDNew), C.cuzk_priority_t(priority), (*C.uint64_t)(&job))
	})
	return job, err
}

func preloadParams(kind, registeredProof int32) error {
	return engineCall(func() C.cuzk_result_t {
		return C.cuzk_preload_params(C.cuzk_proof_kind_t(kind), C.int32_t(registeredProof))
	})
}

func evictParams(kind, registeredProof int32) error {
	return engineCall(func() C.cuzk_result_t {
		return C.cuzk_evict_params(C.cuzk_proof_kind_t(kind), C.int32_t(registeredProof))
	})
}

func waitJob(job uint64, timeoutMs uint64) ([]byte, error) {
	var out C.slice_boxed_uint8_t
	if err := engineCall(func() C.cuzk_result_t { return C.cuzk_wait(C.uint64_t(job), C.uint64_t(timeoutMs), &out) }); err != nil {
		return nil, err
	}
	return takeEngineBytes(&out), nil
}

func pollJob(job uint64) (state int32, err error) {
	err = engineCall(func() C.cuzk_result_t { return C.cuzk_poll(C.uint64_t(job), (*C.cuzk_job_state_t)(&state)) })
	return state, err
}

func cancelJob(job uint64) error {
	return engineCall(func() C.cuzk_result_t { return C.cuzk_cancel(C.uint64_t(job)) })
}

func releaseJob(job uint64) error {
	return engineCall(func() C.cuzk_result_t { return C.cuzk_release(C.uint64_t(job)) })
}

func engineStatusJSON() ([]byte, error) {
	var out C.slice_boxed_uint8_t
	if err := engineCall(func() C.cuzk_result_t { return C.cuzk_status_json(&out) }); err != nil {
		return nil, err
	}
	return takeEngineBytes(&out), nil
}

func engineConfigJSON() ([]byte, error) {
	var out C.slice_boxed_uint8_t
	if err := engineCall(func() C.cuzk_result_t { return C.cuzk_config_json(&out) }); err != nil {
		return nil, err
	}
	return takeEngineBytes(&out), nil
}

func engineConfigSet(json []byte) error {
	return engineCall(func() C.cuzk_result_t { return C.cuzk_config_set(bytesRef(json)) })
}
