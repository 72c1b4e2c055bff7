package cuzk_test

import (
	"os"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"

	cuzk "cuzk.dev/go"
)

// The types of filecoin-ffi v1.36.1's functions that the package stands in
// for: a caller that switches its import must compile unchanged.
var (
	_ func([]byte, abi.SectorNumber, abi.ActorID) ([]byte, error)                                                          = cuzk.SealCommitPhase2
	_ func([]byte, abi.SectorNumber) ([]byte, error)                                                                       = cuzk.SealCommitPhase2CircuitProofs
	_ func(proof.SealVerifyInfo) (bool, error)                                                                             = cuzk.VerifySeal
	_ func(abi.RegisteredPoStProof, abi.ActorID, abi.PoStRandomness, [][]byte) ([]proof.PoStProof, error)                  = cuzk.GenerateWinningPoStWithVanilla
	_ func(abi.RegisteredPoStProof, abi.ActorID, abi.PoStRandomness, [][]byte) ([]proof.PoStProof, error)                  = cuzk.GenerateWindowPoStWithVanilla
	_ func(abi.RegisteredPoStProof, abi.ActorID, abi.PoStRandomness, [][]byte, uint) (*cuzk.PartitionProof, error)         = cuzk.GenerateSinglePartitionWindowPoStWithVanilla
	_ func(abi.RegisteredPoStProof, []cuzk.PartitionProof) (*proof.PoStProof, error)                                       = cuzk.MergeWindowPoStPartitionProofs
	_ func(proof.WinningPoStVerifyInfo) (bool, error)                                                                      = cuzk.VerifyWinningPoSt
	_ func(proof.WindowPoStVerifyInfo) (bool, error)                                                                       = cuzk.VerifyWindowPoSt
	_ func(abi.RegisteredPoStProof, abi.ActorID, abi.PoStRandomness, []abi.SectorNumber) (*cuzk.FallbackChallenges, error) = cuzk.GeneratePoStFallbackSectorChallenges
	_ func(cuzk.PrivateSectorInfo, []uint64) ([]byte, error)                                                               = cuzk.GenerateSingleVanillaProof
	_ func() ([]string, error)                                                                                             = cuzk.GetGPUDevices
	_ func(abi.RegisteredSealProof) (string, error)                                                                        = cuzk.GetSealVersion
	_ func(abi.RegisteredPoStProof) (string, error)                                                                        = cuzk.GetPoStVersion
	_ func(abi.RegisteredPoStProof, uint) (uint, error)                                                                    = cuzk.GetNumPartitionForFallbackPost

	_ func(abi.RegisteredSealProof, *os.File, abi.UnpaddedPieceSize, *os.File, []abi.UnpaddedPieceSize) (abi.UnpaddedPieceSize, abi.UnpaddedPieceSize, cid.Cid, error)                   = cuzk.WriteWithAlignment
	_ func(abi.RegisteredSealProof, *os.File, abi.UnpaddedPieceSize) (cid.Cid, error)                                                                                                    = cuzk.GeneratePieceCIDFromFile
	_ func(abi.RegisteredSealProof, []abi.PieceInfo) (cid.Cid, error)                                                                                                                    = cuzk.GenerateUnsealedCID
	_ func(abi.RegisteredSealProof, string, string, string, abi.SectorNumber, abi.ActorID, abi.SealRandomness, []abi.PieceInfo) ([]byte, error)                                          = cuzk.SealPreCommitPhase1
	_ func([]byte, string, string) (cid.Cid, cid.Cid, error)                                                                                                                             = cuzk.SealPreCommitPhase2
	_ func(abi.RegisteredSealProof, cid.Cid, cid.Cid, string, string, abi.SectorNumber, abi.ActorID, abi.SealRandomness, abi.InteractiveSealRandomness, []abi.PieceInfo) ([]byte, error) = cuzk.SealCommitPhase1

	_ func(abi.RegisteredUpdateProof, string, string, string, string, string, []abi.PieceInfo) (cid.Cid, cid.Cid, error) = cuzk.SectorUpdate.EncodeInto
	_ func(abi.RegisteredUpdateProof, cid.Cid, cid.Cid, cid.Cid, string, string, string, string) ([][]byte, error)       = cuzk.SectorUpdate.GenerateUpdateVanillaProofs
	_ func(abi.RegisteredUpdateProof, cid.Cid, cid.Cid, cid.Cid, [][]byte) (bool, error)                                 = cuzk.SectorUpdate.VerifyVanillaProofs
	_ func(abi.RegisteredUpdateProof, cid.Cid, cid.Cid, cid.Cid, [][]byte) ([]byte, error)                               = cuzk.SectorUpdate.GenerateUpdateProofWithVanilla
	_ func(abi.RegisteredUpdateProof, cid.Cid, cid.Cid, cid.Cid, string, string, string, string) ([]byte, error)         = cuzk.SectorUpdate.GenerateUpdateProof
	_ func(proof.ReplicaUpdateInfo) (bool, error)                                                                        = cuzk.SectorUpdate.VerifyUpdateProof

	_ = cuzk.PrivateSectorInfo{SectorInfo: proof.SectorInfo{}, CacheDirPath: "", PoStProofType: 0, SealedSectorPath: ""}
	_ = cuzk.FallbackChallenges{Sectors: []abi.SectorNumber{}, Challenges: map[abi.SectorNumber][]uint64{}}
	_ = cuzk.PartitionProof{PoStProof: 0, ProofBytes: nil}
)
