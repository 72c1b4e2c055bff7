// Device memory owned by a C++ object, so that a throw never leaks it.
#ifndef CUZK_DEVICE_ARRAY_CUH
#define CUZK_DEVICE_ARRAY_CUH

#include <algorithm>
#include <cuda_runtime.h>
#include <util/exception.cuh>

#include "staged_copy.cuh"

// Device memory of n elements of T, released on every path, a throw included.
template<class T> struct device_array_t {
    T* ptr = nullptr;
    device_array_t() = default;
    explicit device_array_t(size_t n) { CUDA_OK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T))); }
    device_array_t(const device_array_t&) = delete;
    device_array_t& operator=(const device_array_t&) = delete;
    ~device_array_t() { if (ptr) (void)cudaFree(ptr); }
    void upload(const gpu_t& gpu, const T* host, size_t n)
    {
        CUDA_OK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T)));
        htod_staged(gpu, ptr, host, n * sizeof(T));
    }
};

#endif
