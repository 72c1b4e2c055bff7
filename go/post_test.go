package cuzk_test

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	cuzk "cuzk.dev/go"
)

func TestWinningPoStProofVerifies(t *testing.T) {
	expectPoStProofVerifies(t, winningPoSt)
}

func TestWindowPoStProofVerifies(t *testing.T) {
	expectPoStProofVerifies(t, windowPoSt)
}

// expectPoStProofVerifies checks the shared sector's PoSt of postType: one
// 192-byte proof of that type, which verifies at its randomness and not at
// another.
func expectPoStProofVerifies(t *testing.T, postType abi.RegisteredPoStProof) {
	s := sealedSector(t)
	proofs := postProofOf(t, s, postType)
	if len(proofs) != 1 || proofs[0].PoStProof != postType || len(proofs[0].ProofBytes) != 192 {
		t.Fatalf("want one 192-byte proof of type %d, got %+v", postType, proofs)
	}
	expectVerifies(t, "at its randomness", true)(s.verifyPoSt(postType, proofs, postRandomness))
	expectVerifies(t, "at other randomness", false)(s.verifyPoSt(postType, proofs, randomBytes(6, 32)))
}

func TestWindowPoStPartitionsMergeIntoAProof(t *testing.T) {
	s := sealedSector(t)
	partitions, err := cuzk.GetNumPartitionForFallbackPost(windowPoSt, 1)
	if err != nil || partitions != 1 {
		t.Fatalf("GetNumPartitionForFallbackPost: %d, %v; want 1 partition", partitions, err)
	}
	vanilla := vanillaProofOf(t, s, windowPoSt)
	part, err := cuzk.GenerateSinglePartitionWindowPoStWithVanilla(windowPoSt, minerID, postRandomness, [][]byte{vanilla}, 0)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := cuzk.MergeWindowPoStPartitionProofs(windowPoSt, []cuzk.PartitionProof{*part})
	if err != nil {
		t.Fatal(err)
	}
	if merged.PoStProof != windowPoSt || len(merged.ProofBytes) != 192 {
		t.Fatalf("want a 192-byte proof of type %d, got %+v", windowPoSt, merged)
	}
	expectVerifies(t, "VerifyWindowPoSt", true)(cuzk.VerifyWindowPoSt(s.windowVerifyInfo([]proof.PoStProof{*merged})))
}
