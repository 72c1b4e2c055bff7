package cuzk

import (
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
)

// PrivateSectorInfo is a sealed sector as its prover knows it: where its
// replica and cache are, and which PoSt it takes part in.
type PrivateSectorInfo struct {
	proof.SectorInfo
	CacheDirPath     string
	PoStProofType    abi.RegisteredPoStProof
	SealedSectorPath string
}

// FallbackChallenges are the challenged leaves of each sector of a PoSt.
type FallbackChallenges struct {
	Sectors    []abi.SectorNumber
	Challenges map[abi.SectorNumber][]uint64
}

// PartitionProof is the SNARK of one Window PoSt partition.
type PartitionProof proof.PoStProof

func fromPostProof(p postProof) proof.PoStProof {
	return proof.PoStProof{PoStProof: abi.RegisteredPoStProof(p.registeredProof), ProofBytes: p.bytes}
}

func fromPostProofs(raw []postProof) []proof.PoStProof {
	out := make([]proof.PoStProof, len(raw))
	for i, p := range raw {
		out[i] = fromPostProof(p)
	}
	return out
}

// postInputs converts what every PoSt call takes besides its proofs.
func postInputs(proofType abi.RegisteredPoStProof, minerID abi.ActorID, randomness abi.PoStRandomness) (registeredProof int32, prover, random *[32]byte, err error) {
	if registeredProof, err = postProofNumber(proofType); err != nil {
		return 0, nil, nil, err
	}
	if prover, err = proverID(minerID); err != nil {
		return 0, nil, nil, err
	}
	random, err = bytes32("randomness", randomness)
	return registeredProof, prover, random, err
}
