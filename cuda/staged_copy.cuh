// Host-to-device copies from pageable memory at several times the driver's
// rate. The driver copies pageable memory through a small pinned buffer on
// one thread: 8-9 GB/s on the H200's host, against 55 GB/s from pinned
// memory. Pinning the source in place (cudaHostRegister) did less under a C2
// stream than on an idle host (1.4x against 1.6x; pinning takes the
// memory-map lock that synthesis's page faults contend for). Here host
// threads copy the source into one half of a pinned staging area while the
// other half is on its way to the device (docs/BENCHMARKS.md, "H copies").
#ifndef CUZK_STAGED_COPY_CUH
#define CUZK_STAGED_COPY_CUH

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <cuda_runtime.h>
#include <util/exception.cuh>
#include <util/gpu_t.cuh>
#include <util/thread_pool_t.hpp>

static const size_t STAGE_CHUNK = (size_t)32 << 20;
// Threads filling a half: 8 reach ~33 GB/s on the H200's host, 4 ~23.
static const unsigned STAGE_THREADS = 8;

static thread_pool_t& stage_pool()
{
    static thread_pool_t pool(STAGE_THREADS);
    return pool;
}

// Two pinned halves of STAGE_CHUNK bytes for one device, kept for the
// process's life (freeing pinned memory at exit races the CUDA runtime's
// own teardown), and an event per half marking its last copy.
class staging_t {
    char* half[2] = {nullptr, nullptr};
    cudaEvent_t drained[2] = {nullptr, nullptr};

public:
    std::mutex busy;
    bool usable = false;

    // On the device whose stream will copy (events belong to one device).
    staging_t()
    {
        usable = cudaHostAlloc((void**)&half[0], 2 * STAGE_CHUNK, cudaHostAllocPortable) == cudaSuccess
              && cudaEventCreateWithFlags(&drained[0], cudaEventDisableTiming) == cudaSuccess
              && cudaEventCreateWithFlags(&drained[1], cudaEventDisableTiming) == cudaSuccess;
        (void)cudaGetLastError();
        if (usable)
            half[1] = half[0] + STAGE_CHUNK;
    }

    // Enqueues the copy of `bytes` from `src` to `dst` on `stream`; returns
    // once every byte is staged (the source may then change).
    void copy(cudaStream_t stream, char* dst, const char* src, size_t bytes)
    {
        const size_t per = (STAGE_CHUNK + STAGE_THREADS - 1) / STAGE_THREADS;
        size_t k = 0;
        for (size_t off = 0; off < bytes; off += STAGE_CHUNK, k ^= 1) {
            const size_t len = std::min(STAGE_CHUNK, bytes - off);
            CUDA_OK(cudaEventSynchronize(drained[k]));
            char* to = half[k];
            stage_pool().par_map(STAGE_THREADS, [&](size_t i) {
                if (i * per < len)
                    memcpy(to + i * per, src + off + i * per, std::min(per, len - i * per));
            });
            CUDA_OK(cudaMemcpyAsync(dst + off, to, len, cudaMemcpyHostToDevice, stream));
            CUDA_OK(cudaEventRecord(drained[k], stream));
        }
    }
};

// The device's staging area, made at first use (the device current).
static staging_t& staging_for(int device)
{
    static std::mutex made;
    static std::map<int, staging_t*> areas;
    std::lock_guard<std::mutex> lock(made);
    staging_t*& area = areas[device];
    if (!area)
        area = new staging_t();
    return *area;
}

// Copies `bytes` from pageable `src` to device memory `dst` on `gpu`'s
// stream, staged; without a staging area (no pinned memory to be had),
// as the driver copies pageable memory.
static void htod_staged(const gpu_t& gpu, void* dst, const void* src, size_t bytes)
{
    staging_t& area = staging_for(gpu.id());
    if (!area.usable) {
        CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, gpu));
        return;
    }
    std::lock_guard<std::mutex> lock(area.busy);
    area.copy(gpu, (char*)dst, (const char*)src, bytes);
}

#endif
