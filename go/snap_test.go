package cuzk_test

import (
	"testing"

	cuzk "cuzk.dev/go"
)

func TestUpdateProofFromVanillaProofsVerifies(t *testing.T) {
	s := sealedSector(t)
	vanilla, err := updateVanillaProofs(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(vanilla) != 1 {
		t.Fatalf("a 2 KiB update has one partition, got %d vanilla proofs", len(vanilla))
	}
	expectVerifies(t, "VerifyVanillaProofs", true)(cuzk.SectorUpdate.VerifyVanillaProofs(updateProof, s.sealedCID,
		s.updatedSealedCID, s.updatedUnsealedCID, vanilla))

	proofBytes := updateProofOf(t, s)
	if len(proofBytes) != 192 {
		t.Fatalf("want a 192-byte update proof, got %d bytes", len(proofBytes))
	}
	expectVerifies(t, "VerifyUpdateProof", true)(cuzk.SectorUpdate.VerifyUpdateProof(s.updateInfo(proofBytes)))

	otherData := s.updateInfo(proofBytes)
	otherData.NewUnsealedSectorCID = s.unsealedCID
	expectVerifies(t, "VerifyUpdateProof with other data", false)(cuzk.SectorUpdate.VerifyUpdateProof(otherData))
}

func TestUpdateProofFromFilesVerifies(t *testing.T) {
	if testing.Short() {
		t.Skip("another half-minute update SNARK; -short keeps the one from vanilla proofs")
	}
	s := sealedSector(t)
	proofBytes, err := cuzk.SectorUpdate.GenerateUpdateProof(updateProof, s.sealedCID, s.updatedSealedCID,
		s.updatedUnsealedCID, s.path("update"), s.path("update-cache"), s.path("sealed"), s.path("cache"))
	if err != nil {
		t.Fatal(err)
	}
	expectVerifies(t, "VerifyUpdateProof", true)(cuzk.SectorUpdate.VerifyUpdateProof(s.updateInfo(proofBytes)))
}
