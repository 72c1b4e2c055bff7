package cuzk

// PoSt calls: challenges, vanilla proofs, Winning and Window SNARKs, verifiers.

/*
#include "filcrypto.h"
*/
import "C"

// privateReplica is what C's PrivateReplicaInfo says of a replica a PoSt reads.
type privateReplica struct {
	registeredProof int32
	cacheDir        string
	commR           [32]byte
	sealedPath      string
	sectorID        uint64
}

// publicReplica is what C's PublicReplicaInfo says of a challenged sector.
type publicReplica struct {
	registeredProof int32
	commR           [32]byte
	sectorID        uint64
}

func generateFallbackSectorChallenges(registeredProof int32, randomness, proverID *[32]byte, sectorIDs []uint64) (ids []uint64, challenges [][]uint64, err error) {
	r := C.generate_fallback_sector_challenges(C.RegisteredPoStProof_t(registeredProof), array32(randomness),
		uint64sRef(sectorIDs), array32(proverID))
	defer C.destroy_generate_fallback_sector_challenges_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return nil, nil, err
	}
	lists := cItems(r.value.challenges.ptr, r.value.challenges.len)
	challenges = make([][]uint64, len(lists))
	for i := range lists {
		challenges[i] = goUint64s(&lists[i])
	}
	return goUint64s(&r.value.ids), challenges, nil
}

// generateSingleVanillaProof hands the two path buffers over: C frees them.
func generateSingleVanillaProof(replica privateReplica, challenges []uint64) ([]byte, error) {
	info := C.PrivateReplicaInfo_t{
		registered_proof: C.RegisteredPoStProof_t(replica.registeredProof),
		cache_dir_path:   boxedCopy([]byte(replica.cacheDir)),
		comm_r:           *array32(&replica.commR),
		replica_path:     boxedCopy([]byte(replica.sealedPath)),
		sector_id:        C.uint64_t(replica.sectorID),
	}
	return takeBytes(C.generate_single_vanilla_proof(info, uint64sRef(challenges)))
}

func generateWinningPoStWithVanilla(registeredProof int32, randomness, proverID *[32]byte, vanillaProofs [][]byte) ([]postProof, error) {
	vanilla := boxedCopies(vanillaProofs)
	defer freeBoxed(vanilla)
	return takePoStProofs(C.generate_winning_post_with_vanilla(C.RegisteredPoStProof_t(registeredProof), array32(randomness),
		array32(proverID), boxedListRef(vanilla)))
}

// generateWindowPoStWithVanilla leaves out the faulty sectors, as
// filecoin-ffi's Go API does: the error message names them.
func generateWindowPoStWithVanilla(registeredProof int32, randomness, proverID *[32]byte, vanillaProofs [][]byte) ([]postProof, error) {
	vanilla := boxedCopies(vanillaProofs)
	defer freeBoxed(vanilla)
	r := C.generate_window_post_with_vanilla(C.RegisteredPoStProof_t(registeredProof), array32(randomness),
		array32(proverID), boxedListRef(vanilla))
	defer C.destroy_generate_window_post_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return nil, err
	}
	return goPoStProofs(&r.value.proofs), nil
}

func generateSingleWindowPoStWithVanilla(registeredProof int32, randomness, proverID *[32]byte, vanillaProofs [][]byte, partitionIndex uint) (postProof, error) {
	vanilla := boxedCopies(vanillaProofs)
	defer freeBoxed(vanilla)
	r := C.generate_single_window_post_with_vanilla(C.RegisteredPoStProof_t(registeredProof), array32(randomness),
		array32(proverID), boxedListRef(vanilla), C.size_t(partitionIndex))
	defer C.destroy_generate_single_window_post_with_vanilla_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return postProof{}, err
	}
	p := &r.value.partition_proof
	return postProof{registeredProof: int32(p.registered_proof), bytes: goBytes(&p.proof)}, nil
}

func mergeWindowPoStPartitionProofs(registeredProof int32, partitionProofs [][]byte) (postProof, error) {
	parts := boxedCopies(partitionProofs)
	defer freeBoxed(parts)
	r := C.merge_window_post_partition_proofs(C.RegisteredPoStProof_t(registeredProof), boxedListRef(parts))
	defer C.destroy_merge_window_post_partition_proofs_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return postProof{}, err
	}
	return goPoStProof(&r.value), nil
}

func verifyWinningPoSt(randomness *[32]byte, replicas []publicReplica, proofs []postProof, proverID *[32]byte) (bool, error) {
	list := postProofsIn(proofs)
	defer freePoStProofs(list)
	return takeBool(C.verify_winning_post(array32(randomness), replicasRef(replicas), postProofsRef(list), array32(proverID)))
}

func verifyWindowPoSt(randomness *[32]byte, replicas []publicReplica, proofs []postProof, proverID *[32]byte) (bool, error) {
	list := postProofsIn(proofs)
	defer freePoStProofs(list)
	return takeBool(C.verify_window_post(array32(randomness), replicasRef(replicas), postProofsRef(list), array32(proverID)))
}

func replicasRef(replicas []publicReplica) C.slice_ref_PublicReplicaInfo_t {
	infos := make([]C.PublicReplicaInfo_t, len(replicas))
	for i, r := range replicas {
		infos[i] = C.PublicReplicaInfo_t{registered_proof: C.RegisteredPoStProof_t(r.registeredProof),
			comm_r: *array32(&r.commR), sector_id: C.uint64_t(r.sectorID)}
	}
	return C.slice_ref_PublicReplicaInfo_t{ptr: firstOf(infos), len: C.size_t(len(infos))}
}

// postProofsIn copies the proofs for C, their bytes into Rust-owned buffers;
// free them with freePoStProofs.
func postProofsIn(proofs []postProof) []C.PoStProof_t {
	list := make([]C.PoStProof_t, len(proofs))
	for i, p := range proofs {
		list[i] = C.PoStProof_t{registered_proof: C.RegisteredPoStProof_t(p.registeredProof), proof: boxedCopy(p.bytes)}
	}
	return list
}

func freePoStProofs(list []C.PoStProof_t) {
	for _, p := range list {
		C.destroy_boxed_slice(p.proof)
	}
}

func postProofsRef(list []C.PoStProof_t) C.slice_ref_PoStProof_t {
	return C.slice_ref_PoStProof_t{ptr: firstOf(list), len: C.size_t(len(list))}
}
