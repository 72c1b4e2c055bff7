package cuzk_test

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"

	cuzk "cuzk.dev/go"
)

// Bad input of every kind (unknown or wrong proof types, empty lists and
// buffers, garbage bytes, undefined CIDs, oversized randomness, missing
// files) is an error that says why, never a panic.
func TestBadInputIsAnError(t *testing.T) {
	s := sealedSector(t)
	winning, window := postProofOf(t, s, winningPoSt), postProofOf(t, s, windowPoSt)
	vanilla := vanillaProofOf(t, s, windowPoSt)
	garbage := randomBytes(8, 1000)
	unknownSeal, unknownPoSt := abi.RegisteredSealProof(99), abi.RegisteredPoStProof(1<<40)
	zeroProof := make([]byte, 192)
	sealInfo, update := s.sealVerifyInfo(zeroProof), s.updateInfo(zeroProof)
	winningInfo, windowInfo := s.winningVerifyInfo(winning), s.windowVerifyInfo(window)
	missing, cache, sealed := s.path("missing"), s.path("cache"), s.path("sealed")
	oldR, newR, newD := s.sealedCID, s.updatedSealedCID, s.updatedUnsealedCID
	garbageWinning := []proof.PoStProof{{PoStProof: winningPoSt, ProofBytes: garbage}}
	unknownSealSector := []proof.SectorInfo{{SealProof: unknownSeal, SectorNumber: sectorNum, SealedCID: oldR}}

	cases := []struct {
		name string
		err  error
	}{
		{"SealCommitPhase2 of no bytes", second(cuzk.SealCommitPhase2(nil, sectorNum, minerID))},
		{"SealCommitPhase2 of garbage", second(cuzk.SealCommitPhase2(garbage, sectorNum, minerID))},
		{"SealCommitPhase2CircuitProofs of garbage", second(cuzk.SealCommitPhase2CircuitProofs(garbage, sectorNum))},
		{"SealPreCommitPhase1 of an unknown type", second(cuzk.SealPreCommitPhase1(unknownSeal, cache, s.path("staged"), sealed, sectorNum, minerID, s.ticket, nil))},
		{"SealPreCommitPhase2 of garbage", third(cuzk.SealPreCommitPhase2(garbage, cache, sealed))},
		{"SealCommitPhase1 of an undefined CID", second(cuzk.SealCommitPhase1(sealProof, cid.Undef, s.unsealedCID, cache, sealed, sectorNum, minerID, s.ticket, s.seed, nil))},
		{"WriteWithAlignment without files", fourth(cuzk.WriteWithAlignment(sealProof, nil, pieceBytes, nil, nil))},
		{"VerifySeal of an unknown type", second(cuzk.VerifySeal(changed(sealInfo, func(i *proof.SealVerifyInfo) { i.SealProof = unknownSeal })))},
		{"VerifySeal of no proof", second(cuzk.VerifySeal(changed(sealInfo, func(i *proof.SealVerifyInfo) { i.Proof = nil })))},
		{"VerifySeal of garbage", second(cuzk.VerifySeal(changed(sealInfo, func(i *proof.SealVerifyInfo) { i.Proof = garbage })))},
		{"VerifySeal of zeros", second(cuzk.VerifySeal(sealInfo))},
		{"VerifySeal of an undefined CID", second(cuzk.VerifySeal(changed(sealInfo, func(i *proof.SealVerifyInfo) { i.SealedCID = cid.Undef })))},
		{"VerifySeal of a 33-byte ticket", second(cuzk.VerifySeal(changed(sealInfo, func(i *proof.SealVerifyInfo) { i.Randomness = make([]byte, 33) })))},

		{"challenges of an unknown type", second(cuzk.GeneratePoStFallbackSectorChallenges(unknownPoSt, minerID, postRandomness, []abi.SectorNumber{sectorNum}))},
		{"challenges of no sectors", second(cuzk.GeneratePoStFallbackSectorChallenges(windowPoSt, minerID, postRandomness, nil))},
		{"vanilla proof of missing files", second(cuzk.GenerateSingleVanillaProof(cuzk.PrivateSectorInfo{SectorInfo: s.publicInfo(), PoStProofType: windowPoSt, CacheDirPath: missing, SealedSectorPath: missing}, []uint64{1}))},
		{"vanilla proof of empty paths", second(cuzk.GenerateSingleVanillaProof(cuzk.PrivateSectorInfo{SectorInfo: s.publicInfo(), PoStProofType: windowPoSt}, nil))},
		{"Winning PoSt of a Window type", second(cuzk.GenerateWinningPoStWithVanilla(windowPoSt, minerID, postRandomness, [][]byte{vanilla}))},
		{"Winning PoSt of no vanilla proofs", second(cuzk.GenerateWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, nil))},
		{"Winning PoSt of an empty vanilla proof", second(cuzk.GenerateWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{{}}))},
		{"Winning PoSt of garbage", second(cuzk.GenerateWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{garbage}))},
		{"Winning PoSt of 33-byte randomness", second(cuzk.GenerateWinningPoStWithVanilla(winningPoSt, minerID, make([]byte, 33), [][]byte{vanilla}))},
		{"Window PoSt of a Winning type", second(cuzk.GenerateWindowPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{vanilla}))},
		{"Window PoSt of no vanilla proofs", second(cuzk.GenerateWindowPoStWithVanilla(windowPoSt, minerID, postRandomness, nil))},
		{"Window PoSt of garbage", second(cuzk.GenerateWindowPoStWithVanilla(windowPoSt, minerID, postRandomness, [][]byte{garbage}))},
		{"partition of no vanilla proofs", second(cuzk.GenerateSinglePartitionWindowPoStWithVanilla(windowPoSt, minerID, postRandomness, nil, 0))},
		{"merge of no partitions", second(cuzk.MergeWindowPoStPartitionProofs(windowPoSt, nil))},
		{"merge of an unknown type", second(cuzk.MergeWindowPoStPartitionProofs(unknownPoSt, []cuzk.PartitionProof{{ProofBytes: window[0].ProofBytes}}))},
		{"VerifyWinningPoSt of no proofs", second(cuzk.VerifyWinningPoSt(changed(winningInfo, func(i *proof.WinningPoStVerifyInfo) { i.Proofs = nil })))},
		{"VerifyWinningPoSt of no sectors", second(cuzk.VerifyWinningPoSt(changed(winningInfo, func(i *proof.WinningPoStVerifyInfo) { i.ChallengedSectors = nil })))},
		{"VerifyWinningPoSt of an empty proof", second(cuzk.VerifyWinningPoSt(changed(winningInfo, func(i *proof.WinningPoStVerifyInfo) { i.Proofs = []proof.PoStProof{{PoStProof: winningPoSt}} })))},
		{"VerifyWinningPoSt of garbage", second(cuzk.VerifyWinningPoSt(changed(winningInfo, func(i *proof.WinningPoStVerifyInfo) { i.Proofs = garbageWinning })))},
		{"VerifyWinningPoSt of an unknown seal type", second(cuzk.VerifyWinningPoSt(changed(winningInfo, func(i *proof.WinningPoStVerifyInfo) { i.ChallengedSectors = unknownSealSector })))},
		{"VerifyWindowPoSt of no proofs", second(cuzk.VerifyWindowPoSt(changed(windowInfo, func(i *proof.WindowPoStVerifyInfo) { i.Proofs = nil })))},
		{"VerifyWindowPoSt of no sectors", second(cuzk.VerifyWindowPoSt(changed(windowInfo, func(i *proof.WindowPoStVerifyInfo) { i.ChallengedSectors = nil })))},
		{"VerifyWindowPoSt of Winning proofs", second(cuzk.VerifyWindowPoSt(changed(windowInfo, func(i *proof.WindowPoStVerifyInfo) { i.Proofs = winning })))},
		{"VerifyWindowPoSt of an unknown type", second(cuzk.VerifyWindowPoSt(changed(windowInfo, func(i *proof.WindowPoStVerifyInfo) { i.Proofs = []proof.PoStProof{{PoStProof: unknownPoSt}} })))},

		{"update vanilla proofs of empty paths", second(cuzk.SectorUpdate.GenerateUpdateVanillaProofs(updateProof, oldR, newR, newD, "", "", "", ""))},
		{"update vanilla proofs of an undefined CID", second(cuzk.SectorUpdate.GenerateUpdateVanillaProofs(updateProof, cid.Undef, newR, newD, s.path("update"), s.path("update-cache"), sealed, cache))},
		{"VerifyVanillaProofs of none", second(cuzk.SectorUpdate.VerifyVanillaProofs(updateProof, oldR, newR, newD, nil))},
		{"VerifyVanillaProofs of garbage", second(cuzk.SectorUpdate.VerifyVanillaProofs(updateProof, oldR, newR, newD, [][]byte{garbage}))},
		{"update proof of no vanilla proofs", second(cuzk.SectorUpdate.GenerateUpdateProofWithVanilla(updateProof, oldR, newR, newD, nil))},
		{"update proof of garbage", second(cuzk.SectorUpdate.GenerateUpdateProofWithVanilla(updateProof, oldR, newR, newD, [][]byte{garbage}))},
		{"update proof of an unknown type", second(cuzk.SectorUpdate.GenerateUpdateProofWithVanilla(99, oldR, newR, newD, [][]byte{garbage}))},
		{"update proof of missing files", second(cuzk.SectorUpdate.GenerateUpdateProof(updateProof, oldR, newR, newD, missing, missing, missing, missing))},
		{"VerifyUpdateProof of no proof", second(cuzk.SectorUpdate.VerifyUpdateProof(changed(update, func(i *proof.ReplicaUpdateInfo) { i.Proof = nil })))},
		{"VerifyUpdateProof of garbage", second(cuzk.SectorUpdate.VerifyUpdateProof(changed(update, func(i *proof.ReplicaUpdateInfo) { i.Proof = garbage })))},
		{"VerifyUpdateProof of zeros", second(cuzk.SectorUpdate.VerifyUpdateProof(update))},

		{"partition count of a Winning type", second(cuzk.GetNumPartitionForFallbackPost(winningPoSt, 1))},
		{"seal version of -1", second(cuzk.GetSealVersion(-1))},
	}
	for _, c := range cases {
		if c.err == nil || c.err.Error() == "" {
			t.Errorf("%s: want an error that says why, got %v", c.name, c.err)
		}
	}
}

// changed is info with change applied.
func changed[T any](info T, change func(*T)) T {
	change(&info)
	return info
}

func second[T any](_ T, err error) error                 { return err }
func third[T, U any](_ T, _ U, err error) error          { return err }
func fourth[T, U, V any](_ T, _ U, _ V, err error) error { return err }
