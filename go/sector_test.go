package cuzk_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
)

// One 2 KiB sector, sealed and then updated (SnapDeals) through the package's
// own sealing calls, shared by every test of the binary.
const (
	sealProof   = abi.RegisteredSealProof_StackedDrg2KiBV1_1
	updateProof = abi.RegisteredUpdateProof_StackedDrg2KiBV1
	winningPoSt = abi.RegisteredPoStProof_StackedDrgWinning2KiBV1
	windowPoSt  = abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1
	minerID     = abi.ActorID(1000)
	sectorNum   = abi.SectorNumber(7)
	pieceBytes  = abi.UnpaddedPieceSize(2032) // one piece fills a 2 KiB sector
)

type sector struct {
	dir                    string
	ticket, seed           []byte
	sealedCID, unsealedCID cid.Cid
	pieces                 []abi.PieceInfo
	commit1                []byte // SealCommitPhase1's output, C2's input
	// The SnapDeals update: a new replica of other data on the same sector key.
	updatedSealedCID, updatedUnsealedCID cid.Cid
}

// workDir holds the shared sector; removed when the tests end.
var workDir string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// The library reads its parameter cache from the environment once, on the
	// first call: cuzk's local cache, as its own tests use, unless one is set.
	if os.Getenv("FIL_PROOFS_PARAMETER_CACHE") == "" {
		os.Setenv("FIL_PROOFS_PARAMETER_CACHE", paramsDir())
	}
	dir, err := os.MkdirTemp("", "cuzk-go-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	workDir = dir
	return m.Run()
}

func paramsDir() string {
	if dir := os.Getenv("CUZK_PARAMS_DIR"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "cuzk", "params")
}

func (s *sector) path(name string) string {
	return filepath.Join(s.dir, name)
}

// randomBytes are seeded, so that every run seals the same sector; the top
// bits of 32-byte values are cleared as the chain does, to keep them field
// elements.
func randomBytes(seed uint64, n int) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(seed)}).Read(b)
	if n == 32 {
		b[31] &= 0x3f
	}
	return b
}
