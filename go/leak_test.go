package cuzk_test

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/filecoin-project/go-state-types/proof"

	cuzk "cuzk.dev/go"
)

// Repeated calls keep the resident set bounded. Each round takes responses
// (a 100 KiB C1 output, error messages) that their destructors must free, and
// hands C 6 MiB of copies: of 1 MiB buffers inside lists and structs, which
// the package frees after the call, and of 1 MiB paths, which C takes by value
// and frees. Whatever is not freed would grow the resident set by far more
// than the bound over the rounds (the C1 output alone by 50 MiB).
func TestRepeatedCallsKeepMemoryBounded(t *testing.T) {
	const warmUp, rounds, bound = 20, 500, 24 << 20
	s := sealedSector(t)
	sealBytes := sealProofOf(t, s)
	big := randomBytes(10, 1<<20)
	bigProof := []proof.PoStProof{{PoStProof: windowPoSt, ProofBytes: big}}
	bigPaths := s.privateInfo(windowPoSt)
	bigPaths.CacheDirPath, bigPaths.SealedSectorPath = string(big), string(big)

	round := func() error {
		if _, err := cuzk.GetGPUDevices(); err != nil {
			return err
		}
		if err := verified(cuzk.VerifySeal(s.sealVerifyInfo(sealBytes))); err != nil {
			return err
		}
		if _, err := cuzk.SealCommitPhase1(sealProof, s.sealedCID, s.unsealedCID, s.path("cache"), s.path("sealed"),
			sectorNum, minerID, s.ticket, s.seed, s.pieces); err != nil {
			return err
		}
		failures := []error{
			second(cuzk.GenerateWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{big, big})),
			second(cuzk.VerifyWindowPoSt(s.windowVerifyInfo(bigProof))),
			second(cuzk.SectorUpdate.VerifyVanillaProofs(updateProof, s.sealedCID, s.updatedSealedCID, s.updatedUnsealedCID, [][]byte{big})),
			second(cuzk.GenerateSingleVanillaProof(bigPaths, []uint64{0})),
			second(cuzk.SealCommitPhase2(big, sectorNum, minerID)),
		}
		for i, err := range failures {
			if err == nil {
				return fmt.Errorf("bad call %d succeeded", i)
			}
		}
		return nil
	}

	for range warmUp {
		if err := round(); err != nil {
			t.Fatal(err)
		}
	}
	before := residentBytes(t)
	for range rounds {
		if err := round(); err != nil {
			t.Fatal(err)
		}
	}
	after := residentBytes(t)
	t.Logf("resident set %d MiB before %d rounds, %d MiB after", before>>20, rounds, after>>20)
	if after > before+bound {
		t.Fatalf("resident set grew by %d MiB over %d rounds, more than %d MiB", (after-before)>>20, rounds, bound>>20)
	}
}

// residentBytes is the process's resident set once Go has returned what it
// can to the system.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for lines := bufio.NewScanner(f); lines.Scan(); {
		var kib int64
		if _, err := fmt.Sscanf(lines.Text(), "VmRSS: %d kB", &kib); err == nil {
			return kib << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
