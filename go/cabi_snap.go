package cuzk

// SnapDeals calls: encoding, vanilla partition proofs, the update SNARK.

/*
#include "filcrypto.h"
*/
import "C"

// updateCommitments are the three commitments of every SnapDeals proof call.
type updateCommitments struct {
	commROld, commRNew, commDNew [32]byte
}

func emptySectorUpdateEncodeInto(updateProof int32, newReplicaPath, newCacheDir, sectorKeyPath, sectorKeyCacheDir, stagedDataPath string, pieces []publicPiece) (commRNew, commDNew [32]byte, err error) {
	r := C.empty_sector_update_encode_into(C.RegisteredUpdateProof_t(updateProof), pathRef(newReplicaPath), pathRef(newCacheDir),
		pathRef(sectorKeyPath), pathRef(sectorKeyCacheDir), pathRef(stagedDataPath), piecesRef(pieces))
	defer C.destroy_empty_sector_update_encode_into_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return commRNew, commDNew, err
	}
	return goArray32(&r.value.comm_r_new), goArray32(&r.value.comm_d_new), nil
}

func generateEmptySectorUpdatePartitionProofs(updateProof int32, c *updateCommitments, sectorKeyPath, sectorKeyCacheDir, replicaPath, replicaCacheDir string) ([][]byte, error) {
	return takeByteLists(C.generate_empty_sector_update_partition_proofs(C.RegisteredUpdateProof_t(updateProof),
		array32(&c.commROld), array32(&c.commRNew), array32(&c.commDNew),
		pathRef(sectorKeyPath), pathRef(sectorKeyCacheDir), pathRef(replicaPath), pathRef(replicaCacheDir)))
}

func verifyEmptySectorUpdatePartitionProofs(updateProof int32, partitionProofs [][]byte, c *updateCommitments) (bool, error) {
	proofs := boxedCopies(partitionProofs)
	defer freeBoxed(proofs)
	return takeBool(C.verify_empty_sector_update_partition_proofs(C.RegisteredUpdateProof_t(updateProof), boxedListRef(proofs),
		array32(&c.commROld), array32(&c.commRNew), array32(&c.commDNew)))
}

func generateEmptySectorUpdateProofWithVanilla(updateProof int32, vanillaProofs [][]byte, c *updateCommitments) ([]byte, error) {
	vanilla := boxedCopies(vanillaProofs)
	defer freeBoxed(vanilla)
	return takeBytes(C.generate_empty_sector_update_proof_with_vanilla(C.RegisteredUpdateProof_t(updateProof), boxedListRef(vanilla),
		array32(&c.commROld), array32(&c.commRNew), array32(&c.commDNew)))
}

func generateEmptySectorUpdateProof(updateProof int32, c *updateCommitments, sectorKeyPath, sectorKeyCacheDir, replicaPath, replicaCacheDir string) ([]byte, error) {
	return takeBytes(C.generate_empty_sector_update_proof(C.RegisteredUpdateProof_t(updateProof),
		array32(&c.commROld), array32(&c.commRNew), array32(&c.commDNew),
		pathRef(sectorKeyPath), pathRef(sectorKeyCacheDir), pathRef(replicaPath), pathRef(replicaCacheDir)))
}

func verifyEmptySectorUpdateProof(updateProof int32, proof []byte, c *updateCommitments) (bool, error) {
	return takeBool(C.verify_empty_sector_update_proof(C.RegisteredUpdateProof_t(updateProof), bytesRef(proof),
		array32(&c.commROld), array32(&c.commRNew), array32(&c.commDNew)))
}
