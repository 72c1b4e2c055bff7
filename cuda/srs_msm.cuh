// A query of the proving key (H, L, A, B) uploaded to one device and kept
// there, or, when the device lacks room, streamed from pinned host memory at
// every call. The MSM is sppark's Pippenger (msm_t), over the scalars that
// are neither zero nor units where split_msm.cuh finds enough of those.
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
#include "device_array.cuh"
#define sort cuzk_sppark_sort
#include <msm/pippenger.cuh>
#undef sort
#include "error.cuh"
#include "split_msm.cuh"
#include "window_msm.cuh"

template<class bucket_t, class point_t, class affine_t, class scalar_t>
class srs_query_t {
    using msm = msm_t<bucket_t, point_t, affine_t, scalar_t>;
    using affine_h = typename affine_t::mem_t;
    using bucket_h = typename bucket_t::mem_t;
#ifndef __CUDA_ARCH__
    // (On the device a G2 coordinate may be split over two threads.)
    static_assert(sizeof(affine_h) == sizeof(affine_t), "points are copied as they lie in host memory");
#endif

    const gpu_t& gpu;
    // Buckets only: the points are passed to each call (msm_t keeps the last
    // device pointer it was given, so it is always given one).
    msm engine;
    device_array_t<affine_h> d_points;  // when resident
    const affine_t* host_points;        // when streamed
    size_t npoints;
    bool registered;

    // Device points as msm_t's invoke takes them: typed as the host's, or its
    // overload resolution recurses.
    static dev_ptr_t<affine_t> on_device(affine_h* points)
    {   return dev_ptr_t<affine_t>{reinterpret_cast<affine_t*>(points)};   }

    // Pippenger over points from..from + n, resident or streamed.
    template<class scalar_ptr_t>
    RustError pippenger(point_t& out, size_t from, scalar_ptr_t scalars, size_t n)
    {
        if (host_points)
            return engine.invoke(out, host_points + from, n, scalars, true);
        return engine.invoke(out, on_device(d_points.ptr + from), n, scalars, true);
    }

    // Device bytes of one term gathered for the Pippenger over the rest
    // (point, scalar, and sppark's digits and temporaries for it), and the
    // fewest terms a chunk of that Pippenger takes whatever the room.
    static constexpr size_t gathered_term_bytes = sizeof(affine_h) + sizeof(scalar_t) + 128;
    static constexpr size_t min_chunk = (size_t)1 << 20;

    // Launch shape of the element-wise kernels below.
    int blocks() const { return gpu.sm_count() * 4; }
    static constexpr int threads = 256;

    // The units' points (indices into `points`, n of them) summed with
    // sppark's batch addition (one partial sum per warp, added up here).
    void add_units(point_t& out, const affine_h* points, size_t n, const uint32_t* d_units,
                   const uint32_t* d_count)
    {
        std::vector<bucket_t> partial(gpu.sm_count() * BATCH_ADD_BLOCK_SIZE / WARP_SZ);
        device_array_t<bucket_h> d_partial(partial.size());
        batch_addition<bucket_t><<<gpu.sm_count(), BATCH_ADD_BLOCK_SIZE, 0, gpu[2]>>>(
            d_partial.ptr, points, n, d_units, *d_count);
        CUDA_OK(cudaGetLastError());
        gpu[2].DtoH(partial, d_partial.ptr);
        gpu[2].sync();
        point_t sum = sum_up(partial);
        out.add(sum);
    }

    // Pippenger over the terms (indices into `points` and `d_scalars`) at
    // `d_others`, in chunks that fit in `room` bytes with the gathered copies
    // and sppark's digits.
    RustError add_others(point_t& out, const affine_h* points_from, const scalar_t* d_scalars,
                         const uint32_t* d_others, size_t m, size_t room)
    {
        size_t chunk = std::min(m, std::max(room / gathered_term_bytes, min_chunk));
        device_array_t<affine_h> points(chunk);
        device_array_t<scalar_t> scalars(chunk);
        for (size_t k = 0; k < m; k += chunk) {
            uint32_t len = (uint32_t)std::min(chunk, m - k);
            gather_msm_terms<<<blocks(), threads, 0, gpu[2]>>>(d_others + k, len,
                points_from, (const scalar_words_t*)d_scalars, points.ptr,
                (scalar_words_t*)scalars.ptr);
            CUDA_OK(cudaGetLastError());
            gpu[2].sync();
            point_t part;
            RustError err = engine.invoke(part, on_device(points.ptr), len,
                                          dev_ptr_t<scalar_t>{scalars.ptr}, true);
            if (err.code != cudaSuccess)
                return err;
            out.add(part);
        }
        return RustError{cudaSuccess};
    }

public:
    typedef affine_t affine;
    typedef point_t point;

    // `points` must outlive this object when `resident` is false.
    srs_query_t(int device, const affine_t* points, size_t n, bool resident)
        : gpu(select_gpu(device)), engine(nullptr, n, sizeof(affine_t), device),
          host_points(resident ? nullptr : points), npoints(n), registered(false)
    {
        if (resident) {
            gpu.select();
            d_points.upload(gpu, (const affine_h*)points, n);
            gpu.sync();
            return;
        }
        // Pinned pages double the host-to-device rate of a streamed query;
        // a failure to pin only costs speed.
        if (n != 0)
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
    // Montgomery form, as blstrs keeps them. Resident points take the
    // scalars to the device and go the way of `mult_device`.
    RustError mult(point_t& out, const scalar_t* scalars, size_t n, size_t room,
                   split_mode_t mode, msm_split_t& did)
    {
        did = msm_split_t{0, 0, n, 0};
        if (n > npoints)
            return RustError{cudaErrorInvalidValue, "MSM: more scalars than points"};
        if (n == 0) {
            out.inf();
            return RustError{cudaSuccess};
        }
        if (host_points || mode == SPLIT_NEVER)
            return pippenger(out, 0, scalars, n);
        gpu.select();
        device_array_t<scalar_t> d_scalars(n);
        gpu[2].HtoD(d_scalars.ptr, scalars, n);
        gpu[2].sync();
        return mult_device(out, 0, d_scalars.ptr, n, room > n * sizeof(scalar_t) ? room - n * sizeof(scalar_t) : 0, mode, did);
    }

    // sum(d_scalars[i] * points[from + i]) for i < n, the scalars already in
    // device memory. Unless `mode` says otherwise, the scalars are counted by
    // kind first, and where enough of them are zero or units, the units'
    // points are summed and Pippenger runs over the rest alone; `room`
    // bounds the device memory that takes.
    RustError mult_device(point_t& out, size_t from, const scalar_t* d_scalars, size_t n,
                          size_t room, split_mode_t mode, msm_split_t& did)
    {
        did = msm_split_t{0, 0, n, 0};
        if (from > npoints || n > npoints - from)
            return RustError{cudaErrorInvalidValue, "MSM: more scalars than points"};
        if (n == 0) {
            out.inf();
            return RustError{cudaSuccess};
        }
        if (host_points || mode == SPLIT_NEVER)
            return pippenger(out, from, dev_ptr_t<scalar_t>{const_cast<scalar_t*>(d_scalars)}, n);
        if (n >= ((size_t)1 << 31))
            return RustError{cudaErrorInvalidValue, "MSM: 2^31 points or more do not split"};
        gpu.select();
        device_array_t<uint32_t> d_counts(4);  // units, others, then the cursors
        CUDA_OK(cudaMemsetAsync(d_counts.ptr, 0, 4 * sizeof(uint32_t), gpu[2]));
        const unit_words_t units = unit_words<scalar_t>();
        const scalar_words_t* words = (const scalar_words_t*)d_scalars;
        count_scalar_kinds<<<blocks(), threads, 0, gpu[2]>>>(words, (uint32_t)n, units, d_counts.ptr);
        CUDA_OK(cudaGetLastError());
        std::vector<uint32_t> counts(2);
        gpu[2].DtoH(counts, d_counts.ptr);
        gpu[2].sync();
        did = msm_split_t{n - counts[0] - counts[1], counts[0], counts[1], 0};
        // Worth it when an eighth or more of the Pippenger goes away, and
        // when the lists and a first chunk of gathered terms fit in `room`.
        size_t need = (did.unit + did.other) * sizeof(uint32_t)
                    + std::min(did.other, min_chunk) * gathered_term_bytes;
        bool split = mode == SPLIT_ALWAYS || ((did.zero + did.unit) * 8 >= n && need <= room);
        if (!split)
            return pippenger(out, from, dev_ptr_t<scalar_t>{const_cast<scalar_t*>(d_scalars)}, n);
        did.split = 1;
        device_array_t<uint32_t> d_units(did.unit), d_others(did.other);
        split_scalar_kinds<<<blocks(), threads, 0, gpu[2]>>>(words, (uint32_t)n, units, d_units.ptr,
                                                              d_others.ptr, d_counts.ptr + 2);
        CUDA_OK(cudaGetLastError());
        gpu[2].sync();
        out.inf();
        const affine_h* points = d_points.ptr + from;
        if (did.unit != 0)
            add_units(out, points, npoints - from, d_units.ptr, d_counts.ptr + 2);
        if (did.other != 0)
            return add_others(out, points, d_scalars, d_others.ptr, did.other, room);
        return RustError{cudaSuccess};
    }

    // The sums of windows first..first + count - 1 of c bits of the MSM over
    // d_scalars[i] and points[from + i], i < n (see window_msm.cuh), in at
    // most `room` bytes of device memory and chunks of at most `max_chunk`
    // terms (0: no cap). Resident points only.
    RustError window_sums(point_t out[], size_t from, const scalar_t* d_scalars, size_t n,
                          uint32_t c, uint32_t first, uint32_t count, size_t room, size_t max_chunk)
    {
        if (host_points)
            return RustError{cudaErrorInvalidValue, "windowed MSM: the points are not on the device"};
        if (from > npoints || n > npoints - from)
            return RustError{cudaErrorInvalidValue, "MSM: more scalars than points"};
        gpu.select();
        return window_msm::window_sums<bucket_t>(gpu, out, d_points.ptr + from, d_scalars, n, c,
                                                 first, count, room, max_chunk);
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
                                            size_t n, size_t room, int mode,    \
                                            msm_split_t* did, void* out)        \
{                                                                               \
    RustError err{cudaSuccess};                                                 \
    RustError caught = guarded("MSM", [&] {                                     \
        err = query->mult(*(query_t::point*)out, scalars, n, room,              \
                          (split_mode_t)mode, *did);                            \
    });                                                                         \
    return caught.code != cudaSuccess ? caught : err;                           \
}                                                                               \
extern "C" RustError cuzk_gpu_##group##_msm_device(query_t* query, size_t from, \
                                                   const fr_t* d_scalars,       \
                                                   size_t n, size_t room,       \
                                                   int mode, msm_split_t* did,  \
                                                   void* out)                   \
{                                                                               \
    RustError err{cudaSuccess};                                                 \
    RustError caught = guarded("MSM", [&] {                                     \
        err = query->mult_device(*(query_t::point*)out, from, d_scalars, n,     \
                                 room, (split_mode_t)mode, *did);               \
    });                                                                         \
    return caught.code != cudaSuccess ? caught : err;                           \
}                                                                               \
extern "C" void cuzk_gpu_##group##_query_free(query_t* query)                   \
{                                                                               \
    (void)guarded("freeing an SRS query", [&] { delete query; });               \
}

#endif
