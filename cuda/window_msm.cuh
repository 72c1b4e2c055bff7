// Pippenger over dense scalars and points already on the device, one window
// at a time, with windows wider than sppark's msm_t takes (it stops at 18
// bits: 15 windows of a 255-bit scalar, where 22 bits need 12, and each
// window costs one point addition per term). For each window the scalars'
// signed digits are sorted by bucket (CUB's radix sort); each thread sums an
// equal share of the sorted terms, so that no thread waits on a long bucket,
// and the buckets cut between shares are finished by merging their parts a
// few at a time per thread, level by level; the buckets are then reduced to
// the window's sum in segments, and the segments' sums in blocks. Terms are
// taken in chunks that fit the room the caller gives, the buckets carried
// over from one chunk to the next. One thread per point: G1 only.
#ifndef CUZK_WINDOW_MSM_CUH
#define CUZK_WINDOW_MSM_CUH

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>
#include <cuda.h>
#include <cub/device/device_radix_sort.cuh>
#include <util/rusterror.h>
#include "device_array.cuh"

namespace window_msm {

// A window of c bits has 2^(c-1) buckets: digit magnitude m goes to bucket
// m - 1. A zero digit gets key 2^(c-1), so its terms sort last.
static constexpr uint32_t MIN_BITS = 10, MAX_BITS = 26;

// The fewest terms a chunk takes, however little the room.
static constexpr size_t MIN_CHUNK = (size_t)1 << 16;

// Slots one thread of merge_parts takes.
static constexpr uint32_t GROUP = 32;

// Buckets one thread of reduce_segments reduces, at most and at least: as
// few as keep about SEGMENTS threads busy (each thread's chain of additions
// is long, and few threads leave the device idle).
static constexpr uint32_t MAX_SEGMENT = 64, MIN_SEGMENT = 4, SEGMENTS = 1u << 15;

// Points one thread of sum_blocks adds before its block's tree.
static constexpr uint32_t SUM_SPAN = 8;

// Threads of sum_runs per block (its launch bounds: enough registers for a
// bucket and a point per thread), and of the small kernels.
static constexpr int RUN_THREADS = 384;
static constexpr int THREADS = 128;

// Key flags of a partial run sum: the part holds the run's first term
// (START) or its last (END); a slot without a part holds NO_PART.
static constexpr uint32_t START = 1u << 31, END = 1u << 30, KEY_BITS = END - 1;
static constexpr uint32_t NO_PART = KEY_BITS;

// Windows of c bits a 255-bit scalar takes: the top bit of the top window
// must be zero for its signed digit to need no carry out.
static inline uint32_t windows_of(uint32_t c) { return (256 + c - 1) / c; }

// `width` (<= 27) bits of an 8-word little-endian number from bit `at`.
__device__ __forceinline__ uint32_t bits_at(const uint32_t w[8], uint32_t at, uint32_t width)
{
    uint32_t i = at / 32;
    if (i >= 8)
        return 0;
    uint64_t v = w[i];
    if (i + 1 < 8)
        v |= (uint64_t)w[i + 1] << 32;
    return (uint32_t)(v >> (at % 32)) & ((1u << width) - 1);
}

// Each scalar's digit in window `win` of c bits: its bucket as the key, its
// index (plus `sign << 31` for a negative digit) as the term. Scalars are in
// Montgomery form. Booth's recoding gives a digit in -2^(c-1)..2^(c-1) from
// the window's bits and the one below it, so windows need no carry chain.
template<class scalar_t>
__global__ void window_digits(const scalar_t* scalars, uint32_t n, uint32_t c, uint32_t win,
                              uint32_t* keys, uint32_t* terms)
{
    const uint32_t zero_key = 1u << (c - 1);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        scalar_t s = scalars[i];
        s.from();
        uint32_t w[8];
        #pragma unroll
        for (int k = 0; k < 8; k++)
            w[k] = s[k];
        uint32_t bits = win == 0 ? bits_at(w, 0, c) << 1 : bits_at(w, win * c - 1, c + 1);
        uint32_t value = (bits + 1) >> 1;   // the window plus the bit below
        uint32_t negative = bits >> c;      // the window's top bit: value - 2^c
        uint32_t magnitude = negative ? (1u << c) - value : value;
        keys[i] = magnitude ? magnitude - 1 : zero_key;
        terms[i] = i | (negative << 31);
    }
}

// Thread t sums the sorted terms [t * share, (t + 1) * share) run by run (a
// run: the terms of one bucket). A run wholly inside the share is its
// bucket's sum: stored in `buckets`. A run cut at either end of the share
// is stored as a part, in slot 2t (the share's first run) or 2t + 1 (its
// last), its key flagged START and/or END as it holds those terms. Every
// term is one addition or one store, so the threads of a warp stay together.
template<class bucket_t, class affine_h>
__launch_bounds__(RUN_THREADS) __global__
void sum_runs(const uint32_t* keys, const uint32_t* terms, uint32_t n, uint32_t share,
              uint32_t zero_key, const affine_h* points, typename bucket_t::mem_t* buckets,
              typename bucket_t::mem_t* parts, uint32_t* part_keys)
{
    using affine_t = typename bucket_t::affine_t;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t lo = (size_t)t * share;
    uint32_t head = NO_PART, tail = NO_PART;
    if (lo < n && keys[lo] != zero_key) {
        const uint32_t hi = (uint32_t)(lo + share < n ? lo + share : n);
        const bool cut_before = lo > 0 && keys[lo - 1] == keys[lo];
        bool first = true;
        // Stores the run of `key` summed in `acc`; `ends`: its last term is in the share.
        auto store = [&](uint32_t key, const bucket_t& acc, bool ends) {
            const bool starts = !(first && cut_before);
            if (starts && ends) {
                buckets[key] = acc;
            } else if (first) {
                parts[2 * t] = acc;
                head = key | (starts ? START : 0) | (ends ? END : 0);
            } else {
                parts[2 * t + 1] = acc;
                tail = key | START;
            }
            first = false;
        };
        uint32_t key = keys[lo], term = terms[lo];
        bucket_t acc;
        acc = affine_t(points[term & 0x7fffffff]);
        acc.cneg(term >> 31);
        uint32_t i = (uint32_t)lo + 1;
        for (; i < hi; i++) {
            const uint32_t k = keys[i];
            if (k == zero_key)
                break;
            term = terms[i];
            const affine_t p = points[term & 0x7fffffff];
            if (k == key) {
                acc.add(p, term >> 31);
            } else {
                store(key, acc, true);
                key = k;
                acc = p;
                acc.cneg(term >> 31);
            }
        }
        store(key, acc, i < hi || hi == n || keys[hi] != key);
    }
    part_keys[2 * t] = head;
    part_keys[2 * t + 1] = tail;
}

// One level of the parts' reduction: thread g takes slots [g * GROUP,
// (g + 1) * GROUP) and does with parts what sum_runs does with terms: a run
// whose START and END parts both lie there is its bucket's sum, stored in
// `buckets`; a run cut at either end leaves a part in `out` slot 2g (the
// group's first run, flagged END if it ends there) or 2g + 1 (its last,
// flagged START). A level divides the slots by GROUP / 2, so a run over
// many shares (a skewed window: all scalars equal, or the top window's
// few buckets) costs a few short chains of additions, not one long one.
template<class bucket_t>
__launch_bounds__(THREADS) __global__
void merge_parts(const typename bucket_t::mem_t* parts, const uint32_t* part_keys, uint32_t slots,
                 typename bucket_t::mem_t* buckets, typename bucket_t::mem_t* out, uint32_t* out_keys)
{
    const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t lo = g * GROUP;
    if (lo >= slots)
        return;
    const uint32_t hi = min(lo + GROUP, slots);
    uint32_t head = NO_PART, tail = NO_PART;
    uint32_t key = NO_PART, started = 0;  // the run summed in acc, and its START flag
    bucket_t acc;
    for (uint32_t s = lo; s < hi; s++) {
        const uint32_t k = part_keys[s];
        if (k == NO_PART)
            continue;
        bucket_t part = parts[s];
        if (key == NO_PART) {
            acc = part;
            key = k & KEY_BITS;
            started = k & START;
        } else {
            acc.add(part);
        }
        if (k & END) {
            if (started) {
                buckets[key] = acc;
            } else {
                out[2 * g] = acc;
                head = key | END;
            }
            key = NO_PART;
        }
    }
    if (key != NO_PART) {
        if (started) {
            out[2 * g + 1] = acc;
            tail = key | START;
        } else {
            out[2 * g] = acc;
            head = key;
        }
    }
    out_keys[2 * g] = head;
    out_keys[2 * g + 1] = tail;
}

// into[i] += from[i]: a chunk's buckets added to the window's.
template<class bucket_t>
__global__ void add_buckets(typename bucket_t::mem_t* into, const typename bucket_t::mem_t* from, uint32_t n)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        bucket_t sum = into[i], other = from[i];
        sum.add(other);
        into[i] = sum;
    }
}

// The segment for `nbuckets` buckets (powers of two both).
static inline uint32_t segment_of(uint32_t nbuckets)
{
    return std::min(MAX_SEGMENT, std::max(MIN_SEGMENT, nbuckets / SEGMENTS));
}

// out[k] = sum over segment k's buckets i of (i + 1) * buckets[i]: a
// running sum within the segment, then the segment's plain sum times the
// buckets below it (double and add).
template<class bucket_t>
__launch_bounds__(THREADS) __global__
void reduce_segments(const typename bucket_t::mem_t* buckets, uint32_t nbuckets, uint32_t segment,
                     typename bucket_t::mem_t* out)
{
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t below = k * segment;
    if (below >= nbuckets)
        return;
    bucket_t run, sum;
    run.inf();
    sum.inf();
    for (uint32_t u = segment; u--;) {
        bucket_t b = buckets[below + u];
        run.add(b);
        sum.add(run);
    }
    bucket_t shifted;
    shifted.inf();
    for (int bit = 31; bit >= 0; bit--) {
        bucket_t twice = shifted;
        shifted.add(twice);
        if ((below >> bit) & 1)
            shifted.add(run);
    }
    sum.add(shifted);
    out[k] = sum;
}

// out[b] = the sum of points [b * THREADS * SUM_SPAN, (b + 1) * THREADS *
// SUM_SPAN) of the n in `in`, by block b: a span per thread, then a tree.
template<class bucket_t>
__launch_bounds__(THREADS) __global__
void sum_blocks(const typename bucket_t::mem_t* in, uint32_t n, typename bucket_t::mem_t* out)
{
    using bucket_h = typename bucket_t::mem_t;
    // Raw storage: the point type has constructors, which __shared__ refuses.
    __shared__ uint4 raw[THREADS * sizeof(bucket_h) / sizeof(uint4)];
    bucket_h* part = reinterpret_cast<bucket_h*>(raw);
    bucket_t acc;
    acc.inf();
    const uint32_t from = blockIdx.x * THREADS * SUM_SPAN, to = min(n, from + THREADS * SUM_SPAN);
    for (uint32_t i = from + threadIdx.x; i < to; i += THREADS) {
        bucket_t p = in[i];
        acc.add(p);
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (uint32_t half = blockDim.x / 2; half; half /= 2) {
        if (threadIdx.x < half) {
            bucket_t a = part[threadIdx.x], b = part[threadIdx.x + half];
            a.add(b);
            part[threadIdx.x] = a;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

// Slots merge_parts leaves of `slots`: two per group.
static inline uint32_t merged_slots(uint32_t slots) { return 2 * ((slots + GROUP - 1) / GROUP); }

// The device memory of one chunk of `n` terms: keys and terms twice (the
// sort's double buffer), the sort's own temporaries, the run parts and
// their first merge (later merges reuse the two).
struct chunk_plan_t {
    size_t terms, sort_bytes, threads, bytes;
};

template<class bucket_h>
static chunk_plan_t chunk_plan(size_t n, uint32_t c, uint32_t threads)
{
    chunk_plan_t p{n, 0, threads, 0};
    cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr), terms(nullptr, nullptr);
    CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, p.sort_bytes, keys, terms, (int)n, 0, (int)c));
    const size_t slots = 2 * (size_t)threads + merged_slots(2 * threads);
    p.bytes = 4 * n * sizeof(uint32_t) + p.sort_bytes + slots * (sizeof(bucket_h) + sizeof(uint32_t));
    return p;
}

// The sums of windows first..first + count - 1 (c bits each) of the MSM
// sum(scalars[i] * points[i]), i < n, both on the current device, as
// projective points in `out`: the MSM is the sum of 2^(c*j) times window j.
// At most `room` bytes of device memory are taken, and chunks of at most
// `max_chunk` terms (0: as many as the room allows).
template<class bucket_t, class point_t, class affine_h, class scalar_t>
static RustError window_sums(const gpu_t& gpu, point_t out[], const affine_h* points,
                             const scalar_t* d_scalars, size_t n, uint32_t c,
                             uint32_t first, uint32_t count, size_t room, size_t max_chunk)
{
    static_assert(bucket_t::degree == 1, "one thread per point: a G1 bucket");
    using bucket_h = typename bucket_t::mem_t;
    if (c < MIN_BITS || c > MAX_BITS)
        return RustError{cudaErrorInvalidValue, "windowed MSM: windows of 10 to 26 bits"};
    if (count == 0 || first + count > windows_of(c))
        return RustError{cudaErrorInvalidValue, "windowed MSM: no such window"};
    if (n >= ((size_t)1 << 31))
        return RustError{cudaErrorInvalidValue, "windowed MSM: 2^31 terms or more"};
    const uint32_t nbuckets = 1u << (c - 1), segment = segment_of(nbuckets), nsegments = nbuckets / segment;
    const uint32_t sum_span = THREADS * SUM_SPAN, nblock_sums = (nsegments + sum_span - 1) / sum_span;
    if (n == 0) {
        for (uint32_t j = 0; j < count; j++)
            out[j].inf();
        return RustError{cudaSuccess};
    }

    int per_sm = 0;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_runs<bucket_t, affine_h>, RUN_THREADS, 0));
    const uint32_t run_blocks = gpu.sm_count() * std::max(per_sm, 1);
    // Buckets (twice when chunked: each later chunk's are gathered apart),
    // segment sums and window sums, then the chunks' memory.
    auto fixed_for = [&](size_t terms) {
        return (size_t)((terms < n ? 2 : 1) * nbuckets + nsegments + nblock_sums + count) * sizeof(bucket_h);
    };
    chunk_plan_t plan = chunk_plan<bucket_h>(max_chunk != 0 && max_chunk < n ? max_chunk : n, c,
                                             run_blocks * RUN_THREADS);
    while (fixed_for(plan.terms) + plan.bytes > room && plan.terms > MIN_CHUNK)
        plan = chunk_plan<bucket_h>((plan.terms + 1) / 2, c, plan.threads);
    const size_t fixed = fixed_for(plan.terms);
    if (fixed + plan.bytes > room)
        return RustError{cudaErrorMemoryAllocation,
                         "windowed MSM: " + std::to_string((fixed + plan.bytes) >> 20)
                         + " MiB of device memory needed, " + std::to_string(room >> 20) + " MiB free"};
    const bool chunked = plan.terms < n;

    device_array_t<bucket_h> buckets(nbuckets), chunk_buckets(chunked ? nbuckets : 0);
    device_array_t<bucket_h> segments(nsegments), block_sums(nblock_sums), sums(count);
    device_array_t<uint32_t> key_a(plan.terms), key_b(plan.terms), term_a(plan.terms), term_b(plan.terms);
    device_array_t<uint8_t> sort_temp(plan.sort_bytes);
    const uint32_t slots = 2 * (uint32_t)plan.threads;
    device_array_t<bucket_h> parts(slots), merged(merged_slots(slots));
    device_array_t<uint32_t> part_keys(slots), merged_keys(merged_slots(slots));
    cub::DoubleBuffer<uint32_t> keys(key_a.ptr, key_b.ptr), terms(term_a.ptr, term_b.ptr);
    const cudaStream_t stream = gpu[2];
    const int blocks = gpu.sm_count() * 4;

    for (uint32_t j = 0; j < count; j++) {
        CUDA_OK(cudaMemsetAsync(buckets.ptr, 0, nbuckets * sizeof(bucket_h), stream));  // all zero: infinity
        for (size_t from = 0; from < n; from += plan.terms) {
            const uint32_t len = (uint32_t)std::min(plan.terms, n - from);
            bucket_h* into = from == 0 ? buckets.ptr : chunk_buckets.ptr;
            if (from != 0)
                CUDA_OK(cudaMemsetAsync(into, 0, nbuckets * sizeof(bucket_h), stream));
            window_digits<<<blocks, 256, 0, stream>>>(d_scalars + from, len, c, first + j,
                                                     keys.Current(), terms.Current());
            CUDA_OK(cudaGetLastError());
            size_t sort_bytes = plan.sort_bytes;
            CUDA_OK(cub::DeviceRadixSort::SortPairs(sort_temp.ptr, sort_bytes, keys, terms, (int)len, 0, (int)c, stream));
            const uint32_t share = (uint32_t)((len + plan.threads - 1) / plan.threads);
            sum_runs<bucket_t><<<run_blocks, RUN_THREADS, 0, stream>>>(
                keys.Current(), terms.Current(), len, share, nbuckets, points + from, into, parts.ptr, part_keys.ptr);
            CUDA_OK(cudaGetLastError());
            // Merge the parts level by level, from one buffer to the other,
            // until one group holds them all: its runs all end there.
            bucket_h* level[2] = {parts.ptr, merged.ptr};
            uint32_t* level_keys[2] = {part_keys.ptr, merged_keys.ptr};
            for (uint32_t left = slots, at = 0;; left = merged_slots(left), at ^= 1) {
                const uint32_t groups = (left + GROUP - 1) / GROUP;
                merge_parts<bucket_t><<<(groups + THREADS - 1) / THREADS, THREADS, 0, stream>>>(
                    level[at], level_keys[at], left, into, level[at ^ 1], level_keys[at ^ 1]);
                CUDA_OK(cudaGetLastError());
                if (groups == 1)
                    break;
            }
            if (from != 0) {
                add_buckets<bucket_t><<<blocks, THREADS, 0, stream>>>(buckets.ptr, into, nbuckets);
                CUDA_OK(cudaGetLastError());
            }
        }
        reduce_segments<bucket_t><<<(nsegments + THREADS - 1) / THREADS, THREADS, 0, stream>>>(buckets.ptr, nbuckets, segment, segments.ptr);
        CUDA_OK(cudaGetLastError());
        sum_blocks<bucket_t><<<nblock_sums, THREADS, 0, stream>>>(segments.ptr, nsegments, block_sums.ptr);
        CUDA_OK(cudaGetLastError());
        sum_blocks<bucket_t><<<1, THREADS, 0, stream>>>(block_sums.ptr, nblock_sums, sums.ptr + j);
        CUDA_OK(cudaGetLastError());
    }
    // On the host a bucket's type is its memory layout.
    std::vector<bucket_t> host(count);
    static_assert(sizeof(bucket_t) == sizeof(bucket_h), "a bucket is copied as it lies");
    CUDA_OK(cudaMemcpyAsync(host.data(), sums.ptr, count * sizeof(bucket_h), cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    for (uint32_t j = 0; j < count; j++)
        out[j] = point_t(host[j]);
    return RustError{cudaSuccess};
}

} // namespace window_msm

#endif
