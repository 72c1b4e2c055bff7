package cuzk_test

import (
	"testing"

	cuzk "cuzk.dev/go"
)

func TestSealCommitPhase2ProofVerifies(t *testing.T) {
	s := sealedSector(t)
	proofBytes := sealProofOf(t, s)
	if len(proofBytes) != 192 {
		t.Fatalf("a 2 KiB PoRep proof is one partition of 192 bytes, got %d bytes", len(proofBytes))
	}
	expectVerifies(t, "VerifySeal", true)(cuzk.VerifySeal(s.sealVerifyInfo(proofBytes)))

	otherSeed := s.sealVerifyInfo(proofBytes)
	otherSeed.InteractiveRandomness = randomBytes(9, 32)
	expectVerifies(t, "VerifySeal with another seed", false)(cuzk.VerifySeal(otherSeed))
}

func TestSealCommitPhase2CircuitProofsVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("another half-minute C2; -short keeps the one of TestSealCommitPhase2ProofVerifies")
	}
	s := sealedSector(t)
	proofBytes, err := cuzk.SealCommitPhase2CircuitProofs(s.commit1, sectorNum)
	if err != nil {
		t.Fatal(err)
	}
	// An interactive PoRep's circuit proofs are its proof.
	expectVerifies(t, "VerifySeal", true)(cuzk.VerifySeal(s.sealVerifyInfo(proofBytes)))
}
