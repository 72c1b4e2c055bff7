// MSMs over the queries of the proving key: H, L, A and B in G1, and B in G2.
// B in G2 runs on the GPU too (supraseal runs it on the CPU), so that no proof
// step waits on host cores. One translation unit: sppark's kernels that do not
// depend on the group (the digit sort) must be defined once for nvlink.
#include <ff/bls12-381-fp2.hpp>
#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

#define SPPARK_DONT_INSTANTIATE_TEMPLATES
#include "srs_msm.cuh"

typedef jacobian_t<fp_t> g1_point_t;
typedef xyzz_t<fp_t> g1_bucket_t;
typedef srs_query_t<g1_bucket_t, g1_point_t, g1_bucket_t::affine_t, fr_t> g1_query_t;

typedef jacobian_t<fp2_t> g2_point_t;
typedef xyzz_t<fp2_t> g2_bucket_t;
typedef srs_query_t<g2_bucket_t, g2_point_t, g2_bucket_t::affine_t, fr_t> g2_query_t;

CUZK_SRS_QUERY_FFI(g1, g1_query_t)
CUZK_SRS_QUERY_FFI(g2, g2_query_t)

// Window sums of a G1 MSM over scalars on the device (window_msm.cuh):
// `out` takes `count` points.
extern "C" RustError cuzk_gpu_g1_msm_windows(g1_query_t* query, size_t from, const fr_t* d_scalars,
                                            size_t n, uint32_t c, uint32_t first, uint32_t count,
                                            size_t room, size_t max_chunk, void* out)
{
    RustError err{cudaSuccess};
    RustError caught = guarded("windowed MSM", [&] {
        err = query->window_sums((g1_query_t::point*)out, from, d_scalars, n, c, first, count, room,
                                 max_chunk);
    });
    return caught.code != cudaSuccess ? caught : err;
}
