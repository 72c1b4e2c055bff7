package cuzk

import (
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
)

// SealPreCommitPhase1 encodes the staged sector into sealedSectorPath
// (labels in cacheDirPath) and returns the phase 1 output for phase 2.
func SealPreCommitPhase1(
	proofType abi.RegisteredSealProof,
	cacheDirPath string,
	stagedSectorPath string,
	sealedSectorPath string,
	sectorNum abi.SectorNumber,
	minerID abi.ActorID,
	ticket abi.SealRandomness,
	pieces []abi.PieceInfo,
) (phase1Output []byte, err error) {
	sp, err := sealProofNumber(proofType)
	if err != nil {
		return nil, err
	}
	prover, err := proverID(minerID)
	if err != nil {
		return nil, err
	}
	ticketBytes, err := bytes32("ticket", ticket)
	if err != nil {
		return nil, err
	}
	in, err := publicPieces(pieces)
	if err != nil {
		return nil, err
	}
	return sealPreCommitPhase1(sp, cacheDirPath, stagedSectorPath, sealedSectorPath, uint64(sectorNum), prover, ticketBytes, in)
}

// SealPreCommitPhase2 builds the trees of the sealed sector and returns its
// sealed (CommR) and unsealed (CommD) CIDs.
func SealPreCommitPhase2(phase1Output []byte, cacheDirPath string, sealedSectorPath string) (sealedCID cid.Cid, unsealedCID cid.Cid, err error) {
	return replicaCIDs(sealPreCommitPhase2(phase1Output, cacheDirPath, sealedSectorPath))
}

// SealCommitPhase1 returns the vanilla proofs of the seed's challenges, the
// input of SealCommitPhase2.
func SealCommitPhase1(
	proofType abi.RegisteredSealProof,
	sealedCID cid.Cid,
	unsealedCID cid.Cid,
	cacheDirPath string,
	sealedSectorPath string,
	sectorNum abi.SectorNumber,
	minerID abi.ActorID,
	ticket abi.SealRandomness,
	seed abi.InteractiveSealRandomness,
	pieces []abi.PieceInfo,
) (phase1Output []byte, err error) {
	s, err := newSealedSector(proofType, sealedCID, unsealedCID, minerID, ticket, seed)
	if err != nil {
		return nil, err
	}
	in, err := publicPieces(pieces)
	if err != nil {
		return nil, err
	}
	return sealCommitPhase1(s.proofType, s.commR, s.commD, cacheDirPath, sealedSectorPath, uint64(sectorNum),
		s.prover, s.ticket, s.seed, in)
}

// sealedSector is what C1 and the seal verifier both take of a sector, as C
// reads it.
type sealedSector struct {
	proofType                          int32
	commR, commD, prover, ticket, seed *[32]byte
}

func newSealedSector(
	proofType abi.RegisteredSealProof,
	sealedCID, unsealedCID cid.Cid,
	minerID abi.ActorID,
	ticket, seed []byte,
) (s sealedSector, err error) {
	if s.proofType, err = sealProofNumber(proofType); err != nil {
		return s, err
	}
	if s.commR, err = commR(sealedCID); err != nil {
		return s, err
	}
	if s.commD, err = commD(unsealedCID); err != nil {
		return s, err
	}
	if s.prover, err = proverID(minerID); err != nil {
		return s, err
	}
	if s.ticket, err = bytes32("ticket", ticket); err != nil {
		return s, err
	}
	s.seed, err = bytes32("seed", seed)
	return s, err
}
