package cuzk_test

import (
	"fmt"
	"os"

	"github.com/filecoin-project/go-state-types/abi"

	cuzk "cuzk.dev/go"
)

// sealAndUpdate writes a piece into a staged sector, seals it (PC1, PC2, C1)
// and encodes other data into a SnapDeals replica of it, in dir.
func sealAndUpdate(dir string) (*sector, error) {
	s := &sector{dir: dir, ticket: randomBytes(1, 32), seed: randomBytes(2, 32)}
	for _, sub := range []string{"cache", "update-cache"} {
		if err := os.MkdirAll(s.path(sub), 0o755); err != nil {
			return nil, err
		}
	}
	var err error
	if s.pieces, err = stagePiece(s.path("piece"), s.path("staged"), randomBytes(3, int(pieceBytes))); err != nil {
		return nil, fmt.Errorf("staging the sector's piece: %w", err)
	}
	if s.unsealedCID, err = cuzk.GenerateUnsealedCID(sealProof, s.pieces); err != nil {
		return nil, fmt.Errorf("GenerateUnsealedCID: %w", err)
	}
	if err := os.WriteFile(s.path("sealed"), nil, 0o644); err != nil {
		return nil, err
	}
	pc1, err := cuzk.SealPreCommitPhase1(sealProof, s.path("cache"), s.path("staged"), s.path("sealed"),
		sectorNum, minerID, s.ticket, s.pieces)
	if err != nil {
		return nil, fmt.Errorf("SealPreCommitPhase1: %w", err)
	}
	sealedCID, unsealedCID, err := cuzk.SealPreCommitPhase2(pc1, s.path("cache"), s.path("sealed"))
	if err != nil {
		return nil, fmt.Errorf("SealPreCommitPhase2: %w", err)
	}
	if !unsealedCID.Equals(s.unsealedCID) {
		return nil, fmt.Errorf("PC2's unsealed CID %s is not GenerateUnsealedCID's %s", unsealedCID, s.unsealedCID)
	}
	s.sealedCID = sealedCID
	s.commit1, err = cuzk.SealCommitPhase1(sealProof, s.sealedCID, s.unsealedCID, s.path("cache"), s.path("sealed"),
		sectorNum, minerID, s.ticket, s.seed, s.pieces)
	if err != nil {
		return nil, fmt.Errorf("SealCommitPhase1: %w", err)
	}
	return s, update(s)
}

// update encodes new data into s.path("update"), with s's replica as the sector key.
func update(s *sector) error {
	pieces, err := stagePiece(s.path("update-piece"), s.path("update-staged"), randomBytes(4, int(pieceBytes)))
	if err != nil {
		return fmt.Errorf("staging the update's piece: %w", err)
	}
	sectorSize, _ := sealProof.SectorSize()
	if err := os.WriteFile(s.path("update"), make([]byte, sectorSize), 0o644); err != nil {
		return err
	}
	s.updatedSealedCID, s.updatedUnsealedCID, err = cuzk.SectorUpdate.EncodeInto(updateProof, s.path("update"),
		s.path("update-cache"), s.path("sealed"), s.path("cache"), s.path("update-staged"), pieces)
	if err != nil {
		return fmt.Errorf("SectorUpdate.EncodeInto: %w", err)
	}
	return nil
}

// stagePiece writes data as a piece file and, through WriteWithAlignment,
// into a new staged sector; the piece CID from a file must agree.
func stagePiece(piecePath, stagedPath string, data []byte) ([]abi.PieceInfo, error) {
	if err := os.WriteFile(piecePath, data, 0o644); err != nil {
		return nil, err
	}
	piece, err := os.Open(piecePath)
	if err != nil {
		return nil, err
	}
	defer piece.Close()
	staged, err := os.Create(stagedPath)
	if err != nil {
		return nil, err
	}
	defer staged.Close()
	left, total, pieceCID, err := cuzk.WriteWithAlignment(sealProof, piece, pieceBytes, staged, nil)
	if err != nil {
		return nil, fmt.Errorf("WriteWithAlignment: %w", err)
	}
	if left != 0 || total != pieceBytes {
		return nil, fmt.Errorf("WriteWithAlignment wrote %d after %d bytes of alignment, not %d after none", total, left, pieceBytes)
	}
	if _, err := piece.Seek(0, 0); err != nil {
		return nil, err
	}
	fromFile, err := cuzk.GeneratePieceCIDFromFile(sealProof, piece, pieceBytes)
	if err != nil {
		return nil, fmt.Errorf("GeneratePieceCIDFromFile: %w", err)
	}
	if !fromFile.Equals(pieceCID) {
		return nil, fmt.Errorf("GeneratePieceCIDFromFile gave %s, WriteWithAlignment %s", fromFile, pieceCID)
	}
	return []abi.PieceInfo{{Size: pieceBytes.Padded(), PieceCID: pieceCID}}, nil
}
