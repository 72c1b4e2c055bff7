// Device memory owned by a C++ object, so that a throw never leaks it.
#ifndef CUZK_DEVICE_ARRAY_CUH
#define CUZK_DEVICE_ARRAY_CUH

#include <algorithm>
#include <exception>
#include <cuda_runtime.h>
#include <util/exception.cuh>

#include "staged_copy.cuh"

// Whether the current device has a stream-ordered memory pool (any device of
// the architectures cuzk ships for, unless virtualization hides it).
static bool device_has_pool()
{
    int device = 0, pools = 0;
    CUDA_OK(cudaGetDevice(&device));
    return cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess
        && pools != 0;
}

// `bytes` of memory on the current device, from its stream-ordered pool where
// it has one: cudaMalloc and cudaFree synchronize the whole device, so one
// prover's allocation or release would wait for the kernels of another
// sharing the device (and stall everything on it, a witness upload included).
// The pool serves it on this thread's default stream, which never holds
// work: the memory is usable on any stream at once.
static void* device_alloc(size_t bytes)
{
    void* ptr = nullptr;
    if (device_has_pool())
        CUDA_OK(cudaMallocAsync(&ptr, bytes, cudaStreamPerThread));
    else
        CUDA_OK(cudaMalloc(&ptr, bytes));
    return ptr;
}

// Releases `ptr` (from device_alloc on the current device). The caller has
// waited for the work that used it, or, while an exception unwinds (work may
// still be queued), the whole device is waited for first.
static void device_release(void* ptr)
{
    if (std::uncaught_exceptions() > 0)
        (void)cudaDeviceSynchronize();
    if (device_has_pool())
        (void)cudaFreeAsync(ptr, cudaStreamPerThread);
    else
        (void)cudaFree(ptr);
}

// The current device's default pool, where it has one.
static bool current_pool(cudaMemPool_t* pool)
{
    int device = 0;
    return device_has_pool() && cudaGetDevice(&device) == cudaSuccess
        && cudaDeviceGetDefaultMemPool(pool, device) == cudaSuccess;
}

// Gives the current device's pool memory that no allocation holds back to
// the device, so that cudaMemGetInfo counts it free: the pool keeps what
// is released until a synchronization, and a step planned on the smaller
// figure would take a slower plan or find no room at all.
static void trim_pool()
{
    cudaMemPool_t pool;
    if (current_pool(&pool))
        (void)cudaMemPoolTrimTo(pool, 0);
}

// Memory the current device's pool holds that no allocation uses: what a
// trim leaves (in chunks that also hold live allocations) device_alloc is
// still served from, though cudaMemGetInfo counts it as used.
static size_t pool_idle_bytes()
{
    cudaMemPool_t pool;
    unsigned long long reserved = 0, used = 0; // cuuint64_t, of the driver API
    if (!current_pool(&pool)
        || cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess
        || cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess)
        return 0;
    return reserved > used ? size_t(reserved - used) : 0;
}

// Device memory of n elements of T on the current device, released on every
// path, a throw included.
template<class T> struct device_array_t {
    T* ptr = nullptr;
    device_array_t() = default;
    explicit device_array_t(size_t n) { ptr = (T*)device_alloc(std::max<size_t>(n, 1) * sizeof(T)); }
    device_array_t(const device_array_t&) = delete;
    device_array_t& operator=(const device_array_t&) = delete;
    ~device_array_t() { if (ptr) device_release(ptr); }
    void upload(const gpu_t& gpu, const T* host, size_t n)
    {
        ptr = (T*)device_alloc(std::max<size_t>(n, 1) * sizeof(T));
        htod_staged(gpu, ptr, host, n * sizeof(T));
    }
};

#endif
