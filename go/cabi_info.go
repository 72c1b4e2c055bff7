package cuzk

// Information calls: devices, versions, partition counts.

/*
#include "filcrypto.h"
*/
import "C"

func getGPUDevices() ([]string, error) {
	names, err := takeByteLists(C.get_gpu_devices())
	if err != nil {
		return nil, err
	}
	devices := make([]string, len(names))
	for i, name := range names {
		devices[i] = string(name)
	}
	return devices, nil
}

func getSealVersion(sealProof int32) (string, error) {
	return takeString(C.get_seal_version(C.RegisteredSealProof_t(sealProof)))
}

func getPoStVersion(registeredProof int32) (string, error) {
	return takeString(C.get_post_version(C.RegisteredPoStProof_t(registeredProof)))
}

func getNumPartitionForFallbackPost(registeredProof int32, numSectors uint) (uint, error) {
	r := C.get_num_partition_for_fallback_post(C.RegisteredPoStProof_t(registeredProof), C.size_t(numSectors))
	defer C.destroy_get_num_partition_for_fallback_post_response(r)
	if err := statusError(r.status_code, &r.error_msg); err != nil {
		return 0, err
	}
	return uint(r.value), nil
}
