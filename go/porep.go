package cuzk

import (
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
)

// SealCommitPhase2 proves the sector from the phase 1 output (cuzk's
// Groth16 prover); the proof is verified before it is returned.
func SealCommitPhase2(phase1Output []byte, sectorNum abi.SectorNumber, minerID abi.ActorID) ([]byte, error) {
	prover, err := proverID(minerID)
	if err != nil {
		return nil, err
	}
	return sealCommitPhase2(phase1Output, uint64(sectorNum), prover)
}

// SealCommitPhase2CircuitProofs returns the per-partition circuit proofs
// rather than a non-interactive PoRep's aggregate, for later aggregation.
func SealCommitPhase2CircuitProofs(phase1Output []byte, sectorNum abi.SectorNumber) ([]byte, error) {
	return sealCommitPhase2CircuitProofs(phase1Output, uint64(sectorNum))
}

// VerifySeal reports whether info.Proof proves the sealing of the sector
// (ticket: Randomness, seed: InteractiveRandomness).
func VerifySeal(info proof.SealVerifyInfo) (bool, error) {
	s, err := newSealedSector(info.SealProof, info.SealedCID, info.UnsealedCID, info.Miner,
		info.Randomness, info.InteractiveRandomness)
	if err != nil {
		return false, err
	}
	return verifySeal(s.proofType, s.commR, s.commD, s.prover, s.ticket, s.seed, uint64(info.Number), info.Proof)
}
