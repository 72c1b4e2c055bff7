// A query of the proving key (H, L, A, B) uploaded to one device and kept
// there, or, when the device lacks room, streamed from pinned host memory at
// every call. The MSM itself is sppark's Pippenger (msm_t).
#ifndef CUZK_SRS_MSM_CUH
#define CUZK_SRS_MSM_CUH

// sppark's radix-sort kernel is a plain extern `sort`, as is supraseal's copy:
// renamed here so that cuzk links beside libsupraseal (the benchmark peer).
// Standard headers first, so that the rename reaches only sppark's code.
#include <algorithm>
#include <vector>
#include <cassert>
#include <cuda.h>
#include <cooperative_groups.h>
#define sort cuzk_sppark_sort
#include <msm/pippenger.cuh>
#undef sort
#include "error.cuh"

template<class bucket_t, class point_t, class affine_t, class scalar_t>
class srs_query_t {
    using msm = msm_t<bucket_t, point_t, affine_t, scalar_t>;
    msm engine;
    const affine_t* host_points;  // non-null when streamed
    size_t npoints;
    bool registered;

public:
    typedef affine_t affine;
    typedef point_t point;

    // `points` must outlive this object when `resident` is false.
    srs_query_t(int device, const affine_t* points, size_t n, bool resident)
        : engine(resident ? points : nullptr, n, sizeof(affine_t), device),
          host_points(resident ? nullptr : points), npoints(n), registered(false)
    {
        // Pinned pages double the host-to-device rate of a streamed query;
        // a failure to pin only costs speed.
        if (!resident && n != 0)
            registered = cudaHostRegister((void*)points, n * sizeof(affine_t),
                                          cudaHostRegisterDefault) == cudaSuccess;
        (void)cudaGetLastError();
    }
    ~srs_query_t()
    {
        if (registered)
            (void)cudaHostUnregister((void*)host_points);
    }

    size_t size() const { return npoints; }

    // sum(scalars[i] * points[i]) over the first `n` points; scalars are in
    // Montgomery form, as blstrs keeps them.
    RustError mult(point_t& out, const scalar_t* scalars, size_t n)
    {
        if (n > npoints)
            return RustError{cudaErrorInvalidValue, "MSM: more scalars than points"};
        if (n == 0) {
            out.inf();
            return RustError{cudaSuccess};
        }
        return host_points ? engine.invoke(out, host_points, n, scalars, true)
                           : engine.invoke(out, (const affine_t*)nullptr, n, scalars, true);
    }

    // As `mult`, with the scalars already in device memory.
    RustError mult_device(point_t& out, const scalar_t* d_scalars, size_t n)
    {
        if (n > npoints)
            return RustError{cudaErrorInvalidValue, "MSM: more scalars than points"};
        if (n == 0) {
            out.inf();
            return RustError{cudaSuccess};
        }
        dev_ptr_t<scalar_t> scalars{const_cast<scalar_t*>(d_scalars)};
        return host_points ? engine.invoke(out, host_points, n, scalars, true)
                           : engine.invoke(out, (const affine_t*)nullptr, n, scalars, true);
    }
};

// The extern "C" surface of one curve group: new / mult / free.
#define CUZK_SRS_QUERY_FFI(group, query_t)                                      \
extern "C" RustError cuzk_gpu_##group##_query_new(int device, const void* points,  \
                                                  size_t n, bool resident,      \
                                                  query_t** out)                \
{                                                                               \
    *out = nullptr;                                                             \
    return guarded("uploading an SRS query", [&] {                              \
        *out = new query_t(device, (const query_t::affine*)points, n, resident); \
    });                                                                         \
}                                                                               \
extern "C" RustError cuzk_gpu_##group##_msm(query_t* query, const fr_t* scalars, \
                                            size_t n, void* out)                \
{                                                                               \
    RustError err{cudaSuccess};                                                 \
    RustError caught = guarded("MSM", [&] {                                     \
        err = query->mult(*(query_t::point*)out, scalars, n);                  \
    });                                                                         \
    return caught.code != cudaSuccess ? caught : err;                           \
}                                                                               \
extern "C" RustError cuzk_gpu_##group##_msm_device(query_t* query,                \
                                                   const fr_t* d_scalars,       \
                                                   size_t n, void* out)         \
{                                                                               \
    RustError err{cudaSuccess};                                                 \
    RustError caught = guarded("MSM", [&] {                                     \
        err = query->mult_device(*(query_t::point*)out, d_scalars, n);          \
    });                                                                         \
    return caught.code != cudaSuccess ? caught : err;                           \
}                                                                               \
extern "C" void cuzk_gpu_##group##_query_free(query_t* query)                   \
{                                                                               \
    (void)guarded("freeing an SRS query", [&] { delete query; });               \
}

#endif
