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
// own teardown), and an event per half marking its last copy. Copies take
// the area one chunk at a time, so that two copies at once (a witness
// uploaded outside the device's lock beside a step's own copies)
// interleave instead of one waiting for the other's whole length.
class staging_t {
    char* half[2] = {nullptr, nullptr};
    cudaEvent_t drained[2] = {nullptr, nullptr};
    std::mutex busy;
    size_t next = 0;

public:
    bool usable = false;

    // On the device whose streams will copy (events belong to one device).
    staging_t()
    {
        usable = cudaHostAlloc((void**)&half[0], 2 * STAGE_CHUNK, cudaHostAllocPortable) == cudaSuccess
              && cudaEventCreateWithFlags(&drained[0], cudaEventDisableTiming) == cudaSuccess
              && cudaEventCreateWithFlags(&drained[1], cudaEventDisableTiming) == cudaSuccess;
        (void)cudaGetLastError();
        if (usable)
            half[1] = half[0] + STAGE_CHUNK;
    }

    // Stages `len` <= STAGE_CHUNK bytes of `src` in the next half (once its
    // last copy has left) and enqueues their copy to `dst` on `stream`.
    void copy_chunk(cudaStream_t stream, char* dst, const char* src, size_t len)
    {
        std::lock_guard<std::mutex> lock(busy);
        const size_t k = next;
        next ^= 1;
        CUDA_OK(cudaEventSynchronize(drained[k]));
        char* to = half[k];
        const size_t per = (STAGE_CHUNK + STAGE_THREADS - 1) / STAGE_THREADS;
        stage_pool().par_map(STAGE_THREADS, [&](size_t i) {
            if (i * per < len)
                memcpy(to + i * per, src + i * per, std::min(per, len - i * per));
        });
        CUDA_OK(cudaMemcpyAsync(dst, to, len, cudaMemcpyHostToDevice, stream));
        CUDA_OK(cudaEventRecord(drained[k], stream));
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

// Enqueues the copy of `bytes` from pageable `src` to device memory `dst`
// of `device` (the current one) on `stream`, staged; returns once every
// byte is staged (the source may then change). Without a staging area (no
// pinned memory to be had), as the driver copies pageable memory.
static void htod_staged(int device, cudaStream_t stream, void* dst, const void* src, size_t bytes)
{
    // Less than a chunk goes as the driver copies pageable memory, so that a
    // small copy (a Winning PoSt's) never waits behind another's chunks.
    staging_t& area = staging_for(device);
    if (!area.usable || bytes < STAGE_CHUNK) {
        CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
        return;
    }
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK)
        area.copy_chunk(stream, (char*)dst + off, (const char*)src + off, std::min(STAGE_CHUNK, bytes - off));
}

// As above, on `gpu`'s stream.
static void htod_staged(const gpu_t& gpu, void* dst, const void* src, size_t bytes)
{
    htod_staged(gpu.id(), gpu, dst, src, bytes);
}

#endif
