package cuzk_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	cuzk "cuzk.dev/go"
)

// The proofs of the shared sector, each made once per test binary (a 2 KiB
// C2 or update SNARK takes half a minute on two cores) by the first test that
// needs it.

// once holds a value made on first use.
type once[T any] struct {
	sync.Once
	value T
	err   error
}

func (o *once[T]) get(t testing.TB, make func() (T, error)) T {
	t.Helper()
	o.Do(func() { o.value, o.err = make() })
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.value
}

var (
	sharedSector   once[*sector]
	sharedSeal     once[[]byte]
	sharedPoSt     = map[abi.RegisteredPoStProof]*once[[]proof.PoStProof]{winningPoSt: {}, windowPoSt: {}}
	sharedUpdate   once[[]byte]
	postRandomness = randomBytes(5, 32)
)

// sealedSector seals the shared sector on first use.
func sealedSector(t testing.TB) *sector {
	t.Helper()
	return sharedSector.get(t, func() (*sector, error) { return sealAndUpdate(workDir) })
}

func sealProofOf(t testing.TB, s *sector) []byte {
	t.Helper()
	return sharedSeal.get(t, func() ([]byte, error) { return cuzk.SealCommitPhase2(s.commit1, sectorNum, minerID) })
}

// postProofOf is the sector's PoSt of postType at postRandomness.
func postProofOf(t testing.TB, s *sector, postType abi.RegisteredPoStProof) []proof.PoStProof {
	t.Helper()
	return sharedPoSt[postType].get(t, func() ([]proof.PoStProof, error) {
		vanilla, err := vanillaProof(s, postType)
		if err != nil {
			return nil, err
		}
		return postProver(postType)(postType, minerID, postRandomness, [][]byte{vanilla})
	})
}

// postProver is the package's prover of PoSts of postType.
func postProver(postType abi.RegisteredPoStProof) func(abi.RegisteredPoStProof, abi.ActorID, abi.PoStRandomness, [][]byte) ([]proof.PoStProof, error) {
	if postType == winningPoSt {
		return cuzk.GenerateWinningPoStWithVanilla
	}
	return cuzk.GenerateWindowPoStWithVanilla
}

// verifyPoSt verifies proofs of the sector's PoSt of postType at randomness.
func (s *sector) verifyPoSt(postType abi.RegisteredPoStProof, proofs []proof.PoStProof, randomness []byte) (bool, error) {
	if postType == winningPoSt {
		info := s.winningVerifyInfo(proofs)
		info.Randomness = randomness
		return cuzk.VerifyWinningPoSt(info)
	}
	info := s.windowVerifyInfo(proofs)
	info.Randomness = randomness
	return cuzk.VerifyWindowPoSt(info)
}

func updateProofOf(t testing.TB, s *sector) []byte {
	t.Helper()
	return sharedUpdate.get(t, func() ([]byte, error) {
		vanilla, err := updateVanillaProofs(s)
		if err != nil {
			return nil, err
		}
		return cuzk.SectorUpdate.GenerateUpdateProofWithVanilla(updateProof, s.sealedCID, s.updatedSealedCID,
			s.updatedUnsealedCID, vanilla)
	})
}

func vanillaProofOf(t testing.TB, s *sector, postType abi.RegisteredPoStProof) []byte {
	t.Helper()
	vanilla, err := vanillaProof(s, postType)
	if err != nil {
		t.Fatal(err)
	}
	return vanilla
}

// vanillaProof is the sector's vanilla proof for a PoSt of postType at postRandomness.
func vanillaProof(s *sector, postType abi.RegisteredPoStProof) ([]byte, error) {
	challenges, err := cuzk.GeneratePoStFallbackSectorChallenges(postType, minerID, postRandomness, []abi.SectorNumber{sectorNum})
	if err != nil {
		return nil, fmt.Errorf("GeneratePoStFallbackSectorChallenges: %w", err)
	}
	vanilla, err := cuzk.GenerateSingleVanillaProof(s.privateInfo(postType), challenges.Challenges[sectorNum])
	if err != nil {
		return nil, fmt.Errorf("GenerateSingleVanillaProof: %w", err)
	}
	return vanilla, nil
}

func updateVanillaProofs(s *sector) ([][]byte, error) {
	vanilla, err := cuzk.SectorUpdate.GenerateUpdateVanillaProofs(updateProof, s.sealedCID, s.updatedSealedCID,
		s.updatedUnsealedCID, s.path("update"), s.path("update-cache"), s.path("sealed"), s.path("cache"))
	if err != nil {
		return nil, fmt.Errorf("GenerateUpdateVanillaProofs: %w", err)
	}
	return vanilla, nil
}

func (s *sector) privateInfo(postType abi.RegisteredPoStProof) cuzk.PrivateSectorInfo {
	return cuzk.PrivateSectorInfo{
		SectorInfo:       s.publicInfo(),
		CacheDirPath:     s.path("cache"),
		PoStProofType:    postType,
		SealedSectorPath: s.path("sealed"),
	}
}

func (s *sector) publicInfo() proof.SectorInfo {
	return proof.SectorInfo{SealProof: sealProof, SectorNumber: sectorNum, SealedCID: s.sealedCID}
}

func (s *sector) sealVerifyInfo(proofBytes []byte) proof.SealVerifyInfo {
	return proof.SealVerifyInfo{
		SealProof:             sealProof,
		SectorID:              abi.SectorID{Miner: minerID, Number: sectorNum},
		Randomness:            s.ticket,
		InteractiveRandomness: s.seed,
		Proof:                 proofBytes,
		SealedCID:             s.sealedCID,
		UnsealedCID:           s.unsealedCID,
	}
}

func (s *sector) winningVerifyInfo(proofs []proof.PoStProof) proof.WinningPoStVerifyInfo {
	return proof.WinningPoStVerifyInfo{Randomness: postRandomness, Proofs: proofs,
		ChallengedSectors: []proof.SectorInfo{s.publicInfo()}, Prover: minerID}
}

func (s *sector) windowVerifyInfo(proofs []proof.PoStProof) proof.WindowPoStVerifyInfo {
	return proof.WindowPoStVerifyInfo{Randomness: postRandomness, Proofs: proofs,
		ChallengedSectors: []proof.SectorInfo{s.publicInfo()}, Prover: minerID}
}

func (s *sector) updateInfo(proofBytes []byte) proof.ReplicaUpdateInfo {
	return proof.ReplicaUpdateInfo{UpdateProofType: updateProof, OldSealedSectorCID: s.sealedCID,
		NewSealedSectorCID: s.updatedSealedCID, NewUnsealedSectorCID: s.updatedUnsealedCID, Proof: proofBytes}
}

// expectVerifies checks a verifier's answer: want, and no error.
func expectVerifies(t testing.TB, what string, want bool) func(bool, error) {
	t.Helper()
	return func(ok bool, err error) {
		t.Helper()
		if err != nil || ok != want {
			t.Fatalf("%s: got %v, %v; want %v, no error", what, ok, err, want)
		}
	}
}
