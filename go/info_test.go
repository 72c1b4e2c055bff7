package cuzk_test

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	cuzk "cuzk.dev/go"
)

func TestGetGPUDevices(t *testing.T) {
	devices, err := cuzk.GetGPUDevices()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GPUs: %q", devices)
}

// The versions name the registered proofs: go-state-types' numbering reaches
// the library unchanged, up to the last variant of each enum.
func TestVersionsNameTheRegisteredProofs(t *testing.T) {
	seal := map[abi.RegisteredSealProof]string{
		abi.RegisteredSealProof_StackedDrg2KiBV1:                        "StackedDrg2KiBV1",
		abi.RegisteredSealProof_StackedDrg32GiBV1_1:                     "StackedDrg32GiBV1_1",
		abi.RegisteredSealProof_StackedDrg64GiBV1_1_Feat_SyntheticPoRep: "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
		abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep:        "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
	}
	for p, want := range seal {
		if got, err := cuzk.GetSealVersion(p); err != nil || got != want {
			t.Errorf("GetSealVersion(%d) = %q, %v; want %q", p, got, err, want)
		}
	}
	post := map[abi.RegisteredPoStProof]string{
		abi.RegisteredPoStProof_StackedDrgWinning2KiBV1:   "StackedDrgWinning2KiBV1",
		abi.RegisteredPoStProof_StackedDrgWindow32GiBV1:   "StackedDrgWindow32GiBV1",
		abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1: "StackedDrgWindow64GiBV1_2", // the library maps V1_1 to V1_2
	}
	for p, want := range post {
		if got, err := cuzk.GetPoStVersion(p); err != nil || got != want {
			t.Errorf("GetPoStVersion(%d) = %q, %v; want %q", p, got, err, want)
		}
	}
}
