package cuzk

import (
	"os"
	"runtime"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
)

// WriteWithAlignment appends pieceBytes of pieceFile to the staged sector
// after the pieces of existingPieceSizes, with the padding that alignment
// needs, and returns that padding, the bytes written and the piece's CID.
func WriteWithAlignment(
	proofType abi.RegisteredSealProof,
	pieceFile *os.File,
	pieceBytes abi.UnpaddedPieceSize,
	stagedSectorFile *os.File,
	existingPieceSizes []abi.UnpaddedPieceSize,
) (leftAlignment, total abi.UnpaddedPieceSize, pieceCID cid.Cid, retErr error) {
	sp, err := sealProofNumber(proofType)
	if err != nil {
		return 0, 0, cid.Undef, err
	}
	existing := make([]uint64, len(existingPieceSizes))
	for i, size := range existingPieceSizes {
		existing[i] = uint64(size)
	}
	commP, left, written, err := writeWithAlignment(sp, int32(pieceFile.Fd()), uint64(pieceBytes), int32(stagedSectorFile.Fd()), existing)
	// The descriptors must stay open until C is done with them.
	runtime.KeepAlive(pieceFile)
	runtime.KeepAlive(stagedSectorFile)
	if err != nil {
		return 0, 0, cid.Undef, err
	}
	pieceCID, err = commcid.PieceCommitmentV1ToCID(commP[:])
	return abi.UnpaddedPieceSize(left), abi.UnpaddedPieceSize(written), pieceCID, err
}

// GeneratePieceCIDFromFile returns the CID of the piece of pieceSize bytes
// read from pieceFile.
func GeneratePieceCIDFromFile(proofType abi.RegisteredSealProof, pieceFile *os.File, pieceSize abi.UnpaddedPieceSize) (cid.Cid, error) {
	sp, err := sealProofNumber(proofType)
	if err != nil {
		return cid.Undef, err
	}
	commP, err := generatePieceCommitment(sp, int32(pieceFile.Fd()), uint64(pieceSize))
	runtime.KeepAlive(pieceFile)
	if err != nil {
		return cid.Undef, err
	}
	return commcid.PieceCommitmentV1ToCID(commP[:])
}

// GenerateUnsealedCID returns the CommD of a sector holding pieces.
func GenerateUnsealedCID(proofType abi.RegisteredSealProof, pieces []abi.PieceInfo) (cid.Cid, error) {
	sp, err := sealProofNumber(proofType)
	if err != nil {
		return cid.Undef, err
	}
	in, err := publicPieces(pieces)
	if err != nil {
		return cid.Undef, err
	}
	commD, err := generateDataCommitment(sp, in)
	if err != nil {
		return cid.Undef, err
	}
	return commcid.DataCommitmentV1ToCID(commD[:])
}
