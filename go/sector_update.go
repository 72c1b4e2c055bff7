package cuzk

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"
)

// FunctionsSectorUpdate holds the SnapDeals calls, reached as SectorUpdate.X
// as in filecoin-ffi.
type FunctionsSectorUpdate struct{}

var SectorUpdate = FunctionsSectorUpdate{}

// EncodeInto encodes the staged data into a new replica of the sector whose
// replica (the sector key) is sectorKeyPath, and returns the new replica's
// sealed and unsealed CIDs.
func (FunctionsSectorUpdate) EncodeInto(
	proofType abi.RegisteredUpdateProof,
	newReplicaPath string,
	newReplicaCachePath string,
	sectorKeyPath string,
	sectorKeyCachePath string,
	stagedDataPath string,
	pieces []abi.PieceInfo,
) (sealedCID cid.Cid, unsealedCID cid.Cid, err error) {
	updateProof, err := updateProofNumber(proofType)
	if err != nil {
		return cid.Undef, cid.Undef, err
	}
	in, err := publicPieces(pieces)
	if err != nil {
		return cid.Undef, cid.Undef, err
	}
	return replicaCIDs(emptySectorUpdateEncodeInto(updateProof, newReplicaPath, newReplicaCachePath,
		sectorKeyPath, sectorKeyCachePath, stagedDataPath, in))
}

// GenerateUpdateVanillaProofs returns the vanilla proof of each partition of
// the update.
func (FunctionsSectorUpdate) GenerateUpdateVanillaProofs(
	proofType abi.RegisteredUpdateProof,
	oldSealedCID cid.Cid,
	newSealedCID cid.Cid,
	unsealedCID cid.Cid,
	newReplicaPath string,
	newReplicaCachePath string,
	sectorKeyPath string,
	sectorKeyCachePath string,
) ([][]byte, error) {
	return withUpdateInputs(proofType, oldSealedCID, newSealedCID, unsealedCID, func(updateProof int32, c *updateCommitments) ([][]byte, error) {
		return generateEmptySectorUpdatePartitionProofs(updateProof, c, sectorKeyPath, sectorKeyCachePath, newReplicaPath, newReplicaCachePath)
	})
}

// VerifyVanillaProofs reports whether the partition proofs prove the update.
func (FunctionsSectorUpdate) VerifyVanillaProofs(
	proofType abi.RegisteredUpdateProof,
	oldSealedCID cid.Cid,
	newSealedCID cid.Cid,
	unsealedCID cid.Cid,
	vanillaProofs [][]byte,
) (bool, error) {
	return withUpdateInputs(proofType, oldSealedCID, newSealedCID, unsealedCID, func(updateProof int32, c *updateCommitments) (bool, error) {
		return verifyEmptySectorUpdatePartitionProofs(updateProof, vanillaProofs, c)
	})
}

// GenerateUpdateProofWithVanilla proves the update from its partition proofs
// (cuzk's Groth16 prover); the proof is verified before it is returned.
func (FunctionsSectorUpdate) GenerateUpdateProofWithVanilla(
	proofType abi.RegisteredUpdateProof,
	oldSealedCID cid.Cid,
	newSealedCID cid.Cid,
	unsealedCID cid.Cid,
	vanillaProofs [][]byte,
) ([]byte, error) {
	return withUpdateInputs(proofType, oldSealedCID, newSealedCID, unsealedCID, func(updateProof int32, c *updateCommitments) ([]byte, error) {
		return generateEmptySectorUpdateProofWithVanilla(updateProof, vanillaProofs, c)
	})
}

// GenerateUpdateProof proves the update from the sector files in one step.
func (FunctionsSectorUpdate) GenerateUpdateProof(
	proofType abi.RegisteredUpdateProof,
	oldSealedCID cid.Cid,
	newSealedCID cid.Cid,
	unsealedCID cid.Cid,
	newReplicaPath string,
	newReplicaCachePath string,
	sectorKeyPath string,
	sectorKeyCachePath string,
) ([]byte, error) {
	return withUpdateInputs(proofType, oldSealedCID, newSealedCID, unsealedCID, func(updateProof int32, c *updateCommitments) ([]byte, error) {
		return generateEmptySectorUpdateProof(updateProof, c, sectorKeyPath, sectorKeyCachePath, newReplicaPath, newReplicaCachePath)
	})
}

// VerifyUpdateProof reports whether info.Proof proves the update.
func (FunctionsSectorUpdate) VerifyUpdateProof(info proof.ReplicaUpdateInfo) (bool, error) {
	return withUpdateInputs(info.UpdateProofType, info.OldSealedSectorCID, info.NewSealedSectorCID, info.NewUnsealedSectorCID,
		func(updateProof int32, c *updateCommitments) (bool, error) {
			return verifyEmptySectorUpdateProof(updateProof, info.Proof, c)
		})
}

// withUpdateInputs converts what every SnapDeals proof call takes, then
// makes the call.
func withUpdateInputs[T any](
	proofType abi.RegisteredUpdateProof,
	oldSealedCID, newSealedCID, unsealedCID cid.Cid,
	call func(updateProof int32, c *updateCommitments) (T, error),
) (T, error) {
	var none T
	updateProof, err := updateProofNumber(proofType)
	if err != nil {
		return none, err
	}
	old, err := commR(oldSealedCID)
	if err != nil {
		return none, fmt.Errorf("old %w", err)
	}
	updated, err := commR(newSealedCID)
	if err != nil {
		return none, fmt.Errorf("new %w", err)
	}
	data, err := commD(unsealedCID)
	if err != nil {
		return none, fmt.Errorf("new %w", err)
	}
	return call(updateProof, &updateCommitments{commROld: *old, commRNew: *updated, commDNew: *data})
}
