// The devices sppark can use (compute capability >= 7.0 with cooperative
// launch), in CUDA_VISIBLE_DEVICES order, and their free memory (free on the
// device or idle in its memory pool).
#include <cstdio>
#include <cstring>
#include <util/gpu_t.cuh>

#include "device_array.cuh"
#include "error.cuh"

struct cuzk_gpu_info_t {
    char name[256];
    int cuda_ordinal;
    int major, minor;
    int sm_count;
    size_t total_bytes;
    size_t free_bytes;
};

extern "C" RustError cuzk_gpu_count(size_t* count)
{
    *count = 0;
    return guarded("enumerating CUDA devices", [&] { *count = ngpus(); });
}

extern "C" RustError cuzk_gpu_info(int device, cuzk_gpu_info_t* info)
{
    return guarded("querying a CUDA device", [&] {
        const gpu_t& gpu = select_gpu(device);
        const cudaDeviceProp& p = gpu.props();
        memset(info, 0, sizeof(*info));
        snprintf(info->name, sizeof(info->name), "%s", p.name);
        info->cuda_ordinal = gpu.cid();
        info->major = p.major;
        info->minor = p.minor;
        info->sm_count = p.multiProcessorCount;
        trim_pool();
        CUDA_OK(cudaMemGetInfo(&info->free_bytes, &info->total_bytes));
        info->free_bytes += pool_idle_bytes();
    });
}
