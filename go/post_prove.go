package cuzk

import (
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
)

// GenerateWinningPoStWithVanilla proves a Winning PoSt from the vanilla
// proofs of its challenged sectors.
func GenerateWinningPoStWithVanilla(
	proofType abi.RegisteredPoStProof,
	minerID abi.ActorID,
	randomness abi.PoStRandomness,
	proofs [][]byte,
) ([]proof.PoStProof, error) {
	return proveWithVanilla(generateWinningPoStWithVanilla, proofType, minerID, randomness, proofs)
}

// GenerateWindowPoStWithVanilla proves every partition of a Window PoSt from
// the vanilla proofs of its sectors; faulty sectors make it an error that
// names them.
func GenerateWindowPoStWithVanilla(
	proofType abi.RegisteredPoStProof,
	minerID abi.ActorID,
	randomness abi.PoStRandomness,
	proofs [][]byte,
) ([]proof.PoStProof, error) {
	return proveWithVanilla(generateWindowPoStWithVanilla, proofType, minerID, randomness, proofs)
}

type postProver func(registeredProof int32, randomness, proverID *[32]byte, vanillaProofs [][]byte) ([]postProof, error)

func proveWithVanilla(prove postProver, proofType abi.RegisteredPoStProof, minerID abi.ActorID, randomness abi.PoStRandomness, proofs [][]byte) ([]proof.PoStProof, error) {
	registeredProof, prover, random, err := postInputs(proofType, minerID, randomness)
	if err != nil {
		return nil, err
	}
	raw, err := prove(registeredProof, random, prover, proofs)
	if err != nil {
		return nil, err
	}
	return fromPostProofs(raw), nil
}

// GenerateSinglePartitionWindowPoStWithVanilla proves partition
// partitionIndex of a Window PoSt from the vanilla proofs of its sectors.
func GenerateSinglePartitionWindowPoStWithVanilla(
	proofType abi.RegisteredPoStProof,
	minerID abi.ActorID,
	randomness abi.PoStRandomness,
	proofs [][]byte,
	partitionIndex uint,
) (*PartitionProof, error) {
	registeredProof, prover, random, err := postInputs(proofType, minerID, randomness)
	if err != nil {
		return nil, err
	}
	raw, err := generateSingleWindowPoStWithVanilla(registeredProof, random, prover, proofs, partitionIndex)
	if err != nil {
		return nil, err
	}
	part := PartitionProof(fromPostProof(raw))
	return &part, nil
}

// MergeWindowPoStPartitionProofs joins partition proofs, in partition order,
// into the proof of a whole Window PoSt.
func MergeWindowPoStPartitionProofs(proofType abi.RegisteredPoStProof, partitionProofs []PartitionProof) (*proof.PoStProof, error) {
	registeredProof, err := postProofNumber(proofType)
	if err != nil {
		return nil, err
	}
	parts := make([][]byte, len(partitionProofs))
	for i, p := range partitionProofs {
		parts[i] = p.ProofBytes
	}
	raw, err := mergeWindowPoStPartitionProofs(registeredProof, parts)
	if err != nil {
		return nil, err
	}
	merged := fromPostProof(raw)
	return &merged, nil
}
