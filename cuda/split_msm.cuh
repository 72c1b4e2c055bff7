// The scalars of an MSM sorted by kind on the device: zero (its point is
// skipped), one or minus one (a "unit": its point is added or subtracted) and
// the rest. Most of a Filecoin witness is bits, so an MSM over the aux part
// costs far less as a sum of the units' points plus a Pippenger over the
// rest alone. Order within a list does not matter: a sum is a sum.
#ifndef CUZK_SPLIT_MSM_CUH
#define CUZK_SPLIT_MSM_CUH

#include <cstdint>
#include <cstring>
#include <cuda.h>

#ifndef WARP_SZ
# define WARP_SZ 32
#endif

// What an MSM call did, for its caller (mirrored by gpu/sys.rs MsmSplit).
struct msm_split_t {
    size_t zero, unit, other;
    uint32_t split;   // 1: units summed, Pippenger over the rest; 0: over all
};

// Which path a call takes (gpu/sys.rs SplitMode).
enum split_mode_t : int { SPLIT_AUTO = 0, SPLIT_NEVER = 1, SPLIT_ALWAYS = 2 };

// A scalar's words: fr_t differs in type between host and device code, not
// in bytes.
struct scalar_words_t { uint32_t w[8]; };

// One and minus one in Montgomery form, made on the host (sppark's device
// is_one() does not compile with nvcc 13).
struct unit_words_t { scalar_words_t one, minus_one; };

template<class scalar_t>
static unit_words_t unit_words()
{
    static_assert(sizeof(scalar_t) == sizeof(scalar_words_t), "a scalar is eight words");
    scalar_t one = scalar_t::one(), minus_one = one;
    minus_one.cneg(true);
    unit_words_t u;
    memcpy(&u.one, &one, sizeof(one));
    memcpy(&u.minus_one, &minus_one, sizeof(minus_one));
    return u;
}

// 0: zero, 1: one, 2: minus one, 3: anything else.
__device__ __forceinline__ uint32_t scalar_kind(const scalar_words_t& s, const unit_words_t& u)
{
    uint32_t any = 0, not_one = 0, not_minus_one = 0;
    #pragma unroll
    for (int k = 0; k < 8; k++) {
        any |= s.w[k];
        not_one |= s.w[k] ^ u.one.w[k];
        not_minus_one |= s.w[k] ^ u.minus_one.w[k];
    }
    return any == 0 ? 0 : not_one == 0 ? 1 : not_minus_one == 0 ? 2 : 3;
}

// counts[0] += units, counts[1] += the rest. Launched with whole warps.
static __global__ void count_scalar_kinds(const scalar_words_t* scalars, uint32_t n,
                                          unit_words_t u, uint32_t* counts)
{
    uint32_t units = 0, others = 0;
    for (uint32_t i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t kind = scalar_kind(scalars[i], u);
        units += kind == 1 || kind == 2;
        others += kind == 3;
    }
    for (uint32_t off = WARP_SZ / 2; off; off >>= 1) {
        units += __shfl_down_sync(0xffffffff, units, off);
        others += __shfl_down_sync(0xffffffff, others, off);
    }
    if (threadIdx.x % WARP_SZ == 0) {
        atomicAdd(&counts[0], units);
        atomicAdd(&counts[1], others);
    }
}

// Appends the index of every unit to `units` (bit 31 set for minus one, as
// sppark's batch_addition reads a digit) and of every other scalar to
// `others`; cursors[0] and cursors[1] count them (zeroed before the launch).
static __global__ void split_scalar_kinds(const scalar_words_t* scalars, uint32_t n, unit_words_t u,
                                          uint32_t* units, uint32_t* others, uint32_t* cursors)
{
    const uint32_t lane = threadIdx.x % WARP_SZ, below = (1u << lane) - 1;
    const uint32_t stride = gridDim.x * blockDim.x;
    // Whole warps iterate together, so that every lane takes part in the votes.
    for (uint32_t base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < n; base += stride) {
        uint32_t i = base + lane;
        uint32_t kind = i < n ? scalar_kind(scalars[i], u) : 0;
        uint32_t unit = __ballot_sync(0xffffffff, kind == 1 || kind == 2);
        uint32_t other = __ballot_sync(0xffffffff, kind == 3);
        uint32_t at_unit = 0, at_other = 0;
        if (lane == 0) {
            if (unit)
                at_unit = atomicAdd(&cursors[0], __popc(unit));
            if (other)
                at_other = atomicAdd(&cursors[1], __popc(other));
        }
        at_unit = __shfl_sync(0xffffffff, at_unit, 0);
        at_other = __shfl_sync(0xffffffff, at_other, 0);
        if (kind == 1 || kind == 2)
            units[at_unit + __popc(unit & below)] = i | (kind == 2 ? 0x80000000u : 0);
        else if (kind == 3)
            others[at_other + __popc(other & below)] = i;
    }
}

// The points and scalars at `indices`, packed for a Pippenger over them.
template<class affine_h>
__global__ void gather_msm_terms(const uint32_t* indices, uint32_t m, const affine_h* points,
                                 const scalar_words_t* scalars, affine_h* out_points,
                                 scalar_words_t* out_scalars)
{
    for (uint32_t k = threadIdx.x + blockIdx.x * blockDim.x; k < m; k += gridDim.x * blockDim.x) {
        uint32_t i = indices[k];
        out_points[k] = points[i];
        out_scalars[k] = scalars[i];
    }
}

#endif
