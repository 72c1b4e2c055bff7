package cuzk

import (
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
)

// GeneratePoStFallbackSectorChallenges returns the leaves a PoSt of
// proofType challenges in each of sectorIds.
func GeneratePoStFallbackSectorChallenges(
	proofType abi.RegisteredPoStProof,
	minerID abi.ActorID,
	randomness abi.PoStRandomness,
	sectorIds []abi.SectorNumber,
) (*FallbackChallenges, error) {
	registeredProof, prover, random, err := postInputs(proofType, minerID, randomness)
	if err != nil {
		return nil, err
	}
	ids := make([]uint64, len(sectorIds))
	for i, id := range sectorIds {
		ids[i] = uint64(id)
	}
	challengedIDs, challenges, err := generateFallbackSectorChallenges(registeredProof, random, prover, ids)
	if err != nil {
		return nil, err
	}
	out := &FallbackChallenges{
		Sectors:    make([]abi.SectorNumber, len(challengedIDs)),
		Challenges: make(map[abi.SectorNumber][]uint64, len(challengedIDs)),
	}
	for i, id := range challengedIDs {
		out.Sectors[i] = abi.SectorNumber(id)
		out.Challenges[abi.SectorNumber(id)] = challenges[i]
	}
	return out, nil
}

// GenerateSingleVanillaProof proves the challenged leaves of one replica.
func GenerateSingleVanillaProof(replica PrivateSectorInfo, challenges []uint64) ([]byte, error) {
	registeredProof, err := postProofNumber(replica.PoStProofType)
	if err != nil {
		return nil, err
	}
	r, err := commR(replica.SealedCID)
	if err != nil {
		return nil, fmt.Errorf("sector %d: %w", replica.SectorNumber, err)
	}
	return generateSingleVanillaProof(privateReplica{
		registeredProof: registeredProof,
		cacheDir:        replica.CacheDirPath,
		commR:           *r,
		sealedPath:      replica.SealedSectorPath,
		sectorID:        uint64(replica.SectorNumber),
	}, challenges)
}
