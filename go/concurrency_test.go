package cuzk_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	cuzk "cuzk.dev/go"
)

// 32 goroutines call at once on the shared sector: a quarter each proves and
// verifies a Winning PoSt, proves and verifies a Window PoSt, verifies the
// PoRep proof, verifies the update proof. Every call must succeed.
func TestConcurrentProvingAndVerifying(t *testing.T) {
	s := sealedSector(t)
	sealBytes, updateBytes := sealProofOf(t, s), updateProofOf(t, s)
	winningVanilla, windowVanilla := vanillaProofOf(t, s, winningPoSt), vanillaProofOf(t, s, windowPoSt)
	jobs := []func() error{
		func() error { return proveAndVerifyPoSt(s, winningPoSt, winningVanilla) },
		func() error { return proveAndVerifyPoSt(s, windowPoSt, windowVanilla) },
		func() error { return verified(cuzk.VerifySeal(s.sealVerifyInfo(sealBytes))) },
		func() error { return verified(cuzk.SectorUpdate.VerifyUpdateProof(s.updateInfo(updateBytes))) },
	}

	start := make(chan struct{})
	errs := make([]error, 32)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = jobs[i%len(jobs)]()
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
}

func proveAndVerifyPoSt(s *sector, postType abi.RegisteredPoStProof, vanilla []byte) error {
	proofs, err := postProver(postType)(postType, minerID, postRandomness, [][]byte{vanilla})
	if err != nil {
		return fmt.Errorf("proving: %w", err)
	}
	return verified(s.verifyPoSt(postType, proofs, postRandomness))
}

// verified turns a verifier's answer into an error unless it is a yes.
func verified(ok bool, err error) error {
	if err != nil {
		return fmt.Errorf("verifying: %w", err)
	}
	if !ok {
		return errors.New("the proof does not verify")
	}
	return nil
}
