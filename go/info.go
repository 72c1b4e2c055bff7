package cuzk

import "github.com/filecoin-project/go-state-types/abi"

// GetGPUDevices names the GPUs cuzk proves on: none without a usable one (or
// in a build without the cuda feature).
func GetGPUDevices() ([]string, error) {
	return getGPUDevices()
}

// GetSealVersion names the version of the PoRep circuit of proofType.
func GetSealVersion(proofType abi.RegisteredSealProof) (string, error) {
	sp, err := sealProofNumber(proofType)
	if err != nil {
		return "", err
	}
	return getSealVersion(sp)
}

// GetPoStVersion names the version of the PoSt circuit of proofType.
func GetPoStVersion(proofType abi.RegisteredPoStProof) (string, error) {
	registeredProof, err := postProofNumber(proofType)
	if err != nil {
		return "", err
	}
	return getPoStVersion(registeredProof)
}

// GetNumPartitionForFallbackPost returns how many partitions a Window PoSt
// of numSectors sectors has.
func GetNumPartitionForFallbackPost(proofType abi.RegisteredPoStProof, numSectors uint) (uint, error) {
	registeredProof, err := postProofNumber(proofType)
	if err != nil {
		return 0, err
	}
	return getNumPartitionForFallbackPost(registeredProof, numSectors)
}
