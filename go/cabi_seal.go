package cuzk

// Sealing and PoRep calls.

/*
#include "filcrypto.h"
*/
import "C"

// publicPiece is a piece as C's PublicPieceInfo carries it.
type publicPiece struct {
	unpaddedSize uint64
	commP        [32]byte
}

func piecesRef(pieces []publicPiece) C.slice_ref_PublicPieceInfo_t {
	infos := make([]C.PublicPieceInfo_t, len(pieces))
	for i, p := range pieces {
		infos[i] = C.PublicPieceInfo_t{num_bytes: C.uint64_t(p.unpaddedSize), comm_p: *array32(&p.commP)}
	}
	return C.slice_ref_PublicPieceInfo_t{ptr: firstOf(infos), len: C.size_t(len(infos))}
}

func writeWithAlignment(sealProof, pieceFd int32, pieceBytes uint64, stagedFd int32, existingPieceSizes []uint64) (commP [32]byte, leftAlignment, total uint64, err error) {
	r := C.write_with_alignment(C.RegisteredSealProof_t(sealProof), C.int32_t(pieceFd), C.uint64_t(pieceBytes),
		C.int32_t(stagedFd), uint64sRef(existingPieceSizes))
	defer C.destroy_write_with_alignment_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return commP, 0, 0, err
	}
	return goArray32(&r.value.comm_p), uint64(r.value.left_alignment_unpadded), uint64(r.value.total_write_unpadded), nil
}

func generatePieceCommitment(sealProof, pieceFd int32, pieceBytes uint64) ([32]byte, error) {
	r := C.generate_piece_commitment(C.RegisteredSealProof_t(sealProof), C.int32_t(pieceFd), C.uint64_t(pieceBytes))
	defer C.destroy_generate_piece_commitment_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return [32]byte{}, err
	}
	return goArray32(&r.value.comm_p), nil
}

func generateDataCommitment(sealProof int32, pieces []publicPiece) ([32]byte, error) {
	r := C.generate_data_commitment(C.RegisteredSealProof_t(sealProof), piecesRef(pieces))
	defer C.destroy_generate_data_commitment_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return [32]byte{}, err
	}
	return goArray32(&r.value), nil
}

func sealPreCommitPhase1(sealProof int32, cacheDir, stagedPath, sealedPath string, sectorID uint64, proverID, ticket *[32]byte, pieces []publicPiece) ([]byte, error) {
	return takeBytes(C.seal_pre_commit_phase1(C.RegisteredSealProof_t(sealProof), pathRef(cacheDir), pathRef(stagedPath),
		pathRef(sealedPath), C.uint64_t(sectorID), array32(proverID), array32(ticket), piecesRef(pieces)))
}

func sealPreCommitPhase2(phase1Output []byte, cacheDir, sealedPath string) (commR, commD [32]byte, err error) {
	r := C.seal_pre_commit_phase2(bytesRef(phase1Output), pathRef(cacheDir), pathRef(sealedPath))
	defer C.destroy_seal_pre_commit_phase2_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return commR, commD, err
	}
	return goArray32(&r.value.comm_r), goArray32(&r.value.comm_d), nil
}

func sealCommitPhase1(sealProof int32, commR, commD *[32]byte, cacheDir, sealedPath string, sectorID uint64, proverID, ticket, seed *[32]byte, pieces []publicPiece) ([]byte, error) {
	return takeBytes(C.seal_commit_phase1(C.RegisteredSealProof_t(sealProof), array32(commR), array32(commD), pathRef(cacheDir),
		pathRef(sealedPath), C.uint64_t(sectorID), array32(proverID), array32(ticket), array32(seed), piecesRef(pieces)))
}

func sealCommitPhase2(phase1Output []byte, sectorID uint64, proverID *[32]byte) ([]byte, error) {
	return takeBytes(C.seal_commit_phase2(bytesRef(phase1Output), C.uint64_t(sectorID), array32(proverID)))
}

func sealCommitPhase2CircuitProofs(phase1Output []byte, sectorID uint64) ([]byte, error) {
	return takeBytes(C.seal_commit_phase2_circuit_proofs(bytesRef(phase1Output), C.uint64_t(sectorID)))
}

func verifySeal(sealProof int32, commR, commD, proverID, ticket, seed *[32]byte, sectorID uint64, proof []byte) (bool, error) {
	return takeBool(C.verify_seal(C.RegisteredSealProof_t(sealProof), array32(commR), array32(commD), array32(proverID),
		array32(ticket), array32(seed), C.uint64_t(sectorID), bytesRef(proof)))
}
