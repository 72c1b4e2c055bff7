package cuzk

import (
	"errors"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
)

// VerifyWinningPoSt reports whether info.Proofs prove the Winning PoSt of
// info.ChallengedSectors.
func VerifyWinningPoSt(info proof.WinningPoStVerifyInfo) (bool, error) {
	replicas, err := publicReplicas(info.ChallengedSectors, func(s proof.SectorInfo) (abi.RegisteredPoStProof, error) {
		return s.SealProof.RegisteredWinningPoStProof()
	})
	if err != nil {
		return false, err
	}
	return verifyPoSt(verifyWinningPoSt, info.Randomness, replicas, info.Proofs, info.Prover)
}

// VerifyWindowPoSt reports whether info.Proofs prove the Window PoSt of
// info.ChallengedSectors; the sectors take the type of the first proof.
func VerifyWindowPoSt(info proof.WindowPoStVerifyInfo) (bool, error) {
	if len(info.Proofs) == 0 {
		return false, errors.New("nothing to verify")
	}
	replicas, err := publicReplicas(info.ChallengedSectors, func(proof.SectorInfo) (abi.RegisteredPoStProof, error) {
		return info.Proofs[0].PoStProof, nil
	})
	if err != nil {
		return false, err
	}
	return verifyPoSt(verifyWindowPoSt, info.Randomness, replicas, info.Proofs, info.Prover)
}

type postVerifier func(randomness *[32]byte, replicas []publicReplica, proofs []postProof, proverID *[32]byte) (bool, error)

func verifyPoSt(verify postVerifier, randomness abi.PoStRandomness, replicas []publicReplica, proofs []proof.PoStProof, prover abi.ActorID) (bool, error) {
	random, err := bytes32("randomness", randomness)
	if err != nil {
		return false, err
	}
	proverBytes, err := proverID(prover)
	if err != nil {
		return false, err
	}
	raw := make([]postProof, len(proofs))
	for i, p := range proofs {
		registeredProof, err := postProofNumber(p.PoStProof)
		if err != nil {
			return false, fmt.Errorf("proof %d: %w", i, err)
		}
		raw[i] = postProof{registeredProof: registeredProof, bytes: p.ProofBytes}
	}
	return verify(random, replicas, raw, proverBytes)
}

func publicReplicas(sectors []proof.SectorInfo, postProofOf func(proof.SectorInfo) (abi.RegisteredPoStProof, error)) ([]publicReplica, error) {
	out := make([]publicReplica, len(sectors))
	for i, s := range sectors {
		postType, err := postProofOf(s)
		if err != nil {
			return nil, fmt.Errorf("sector %d: %w", s.SectorNumber, err)
		}
		registeredProof, err := postProofNumber(postType)
		if err != nil {
			return nil, fmt.Errorf("sector %d: %w", s.SectorNumber, err)
		}
		r, err := commR(s.SealedCID)
		if err != nil {
			return nil, fmt.Errorf("sector %d: %w", s.SectorNumber, err)
		}
		out[i] = publicReplica{registeredProof: registeredProof, commR: *r, sectorID: uint64(s.SectorNumber)}
	}
	return out, nil
}
