// H(x) = (A(x) B(x) - C(x)) / Z(x) from the evaluations of A, B and C on the
// subgroup, with sppark's NTT: interpolate, evaluate on the coset gH (where Z is
// the constant g^n - 1), combine there, interpolate back from the coset. The
// evaluations come from a source that fills a device vector with one of them:
// copied from the host (h_poly.cu), or computed on the device from the
// circuit's matrices and a witness (r1cs.cu).
#ifndef CUZK_H_POLY_CUH
#define CUZK_H_POLY_CUH

#include <utility>
#include <vector>
#include <ff/bls12-381.hpp>
#include <ntt/ntt.cuh>

#include "error.cuh"
#include "r1cs.cuh"

// fr_t differs in type between host and device code but not in bytes; scalars
// cross the launch as plain words.
struct fr_words_t { uint32_t w[8]; };

static __global__ void mul_assign(fr_t* a, const fr_t* b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = a[i] * b[i];
}

// out = (x - y) * z_inv; out may alias x or y.
static __global__ void sub_scale(fr_t* out, const fr_t* x, const fr_t* y, fr_words_t z_inv_words,
                                 size_t n)
{
    const fr_t z_inv = *reinterpret_cast<const fr_t*>(&z_inv_words);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (x[i] - y[i]) * z_inv;
}

// The time some of a stream's work takes (the copies of an H step, its
// evaluations of A, B and C), by CUDA events recorded before and after each
// piece (the stream runs its work in order): from the stream's reaching the
// piece (a staged copy's filling may overlap the NTT before it) to the
// piece's end, so that it can be told apart from the NTTs.
class interval_timer_t {
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> marks;

    static cudaEvent_t recorded(const gpu_t& gpu)
    {
        cudaEvent_t e;
        CUDA_OK(cudaEventCreate(&e));
        cudaError_t err = cudaEventRecord(e, gpu);
        if (err != cudaSuccess) {
            (void)cudaEventDestroy(e);
            CUDA_OK(err);
        }
        return e;
    }

public:
    interval_timer_t() = default;
    interval_timer_t(const interval_timer_t&) = delete;
    interval_timer_t& operator=(const interval_timer_t&) = delete;
    ~interval_timer_t()
    {
        for (auto& m : marks) {
            (void)cudaEventDestroy(m.first);
            if (m.second) (void)cudaEventDestroy(m.second);
        }
    }

    // Runs `work` (which enqueues on gpu's stream) between two events.
    template<class F> void time(const gpu_t& gpu, F&& work)
    {
        marks.emplace_back(recorded(gpu), nullptr);
        work();
        marks.back().second = recorded(gpu);
    }

    // Milliseconds of all pieces; the stream must have been synchronized.
    float total_ms() const
    {
        float total = 0;
        for (auto& m : marks) {
            float ms;
            CUDA_OK(cudaEventElapsedTime(&ms, m.first, m.second));
            total += ms;
        }
        return total;
    }
};

// A and B and C copied from host memory, `len` evaluations each.
struct host_abc_t {
    const fr_t* abc[3];
    size_t len;
    interval_timer_t copies;

    void fill(const gpu_t& gpu, fr_t* d, int m)
    {
        copies.time(gpu, [&] { htod_staged(gpu, d, abc[m], len * sizeof(fr_t)); });
    }
};

// A, B and C evaluated on the device: the matrices times a witness already there.
struct witness_abc_t {
    const device_r1cs_t& r1cs;
    const fr_t* d_z;
    size_t len;
    interval_timer_t evaluations;

    void fill(const gpu_t& gpu, fr_t* d, int m)
    {
        evaluations.time(gpu, [&] { r1cs.evaluate(m, d, d_z); });
    }
};

// Evaluation m of `abc` on the subgroup (zero-padded to 2^lg_n) to the coset.
template<class Source>
static void to_coset(const gpu_t& gpu, Source& abc, fr_t* d, int m, uint32_t lg_n)
{
    size_t n = (size_t)1 << lg_n;
    abc.fill(gpu, d, m);
    if (abc.len < n)
        gpu.bzero(d + abc.len, n - abc.len);
    NTT::Base_dev_ptr(gpu, d, lg_n, NTT::InputOutputOrder::NR,
                      NTT::Direction::inverse, NTT::Type::standard);
    NTT::Base_dev_ptr(gpu, d, lg_n, NTT::InputOutputOrder::RN,
                      NTT::Direction::forward, NTT::Type::coset);
}

// Scalars per transfer of the one-vector plan: 32 MiB of device memory.
static const size_t H_CHUNK = (size_t)1 << 20;

enum { A = 0, B = 1, C = 2 };

// Both coset vectors in device memory: 2 * 2^lg_n scalars.
template<class Source>
static void h_two_vectors(const gpu_t& gpu, Source& abc, fr_t* d_a, uint32_t lg_n, fr_words_t z)
{
    size_t n = (size_t)1 << lg_n;
    device_array_t<fr_t> d_b(n);
    const int blocks = gpu.sm_count() * 4, threads = 256;
    to_coset(gpu, abc, d_b.ptr, B, lg_n);
    to_coset(gpu, abc, d_a, A, lg_n);
    mul_assign<<<blocks, threads, 0, gpu>>>(d_a, d_b.ptr, n);
    CUDA_OK(cudaGetLastError());
    to_coset(gpu, abc, d_b.ptr, C, lg_n);
    sub_scale<<<blocks, threads, 0, gpu>>>(d_a, d_a, d_b.ptr, z, n);
    CUDA_OK(cudaGetLastError());
}

// One coset vector in device memory (2^lg_n scalars plus a chunk): the other
// operand waits in `scratch` (2^lg_n scalars of host memory) and comes back
// chunk by chunk, for devices without room for two.
template<class Source>
static void h_one_vector(const gpu_t& gpu, Source& abc, interval_timer_t& copies, fr_t* d,
                         uint32_t lg_n, fr_words_t z, fr_t* scratch)
{
    size_t n = (size_t)1 << lg_n, chunk = std::min(n, H_CHUNK);
    device_array_t<fr_t> d_t(chunk);
    const int blocks = gpu.sm_count() * 4, threads = 256;
    to_coset(gpu, abc, d, B, lg_n);
    copies.time(gpu, [&] { gpu.DtoH(scratch, d, n); });
    to_coset(gpu, abc, d, A, lg_n);
    for (size_t off = 0; off < n; off += chunk) {
        copies.time(gpu, [&] { gpu.HtoD(d_t.ptr, scratch + off, chunk); });
        mul_assign<<<blocks, threads, 0, gpu>>>(d + off, d_t.ptr, chunk);
        CUDA_OK(cudaGetLastError());
    }
    copies.time(gpu, [&] { gpu.DtoH(scratch, d, n); });
    to_coset(gpu, abc, d, C, lg_n);
    for (size_t off = 0; off < n; off += chunk) {
        copies.time(gpu, [&] { gpu.HtoD(d_t.ptr, scratch + off, chunk); });
        sub_scale<<<blocks, threads, 0, gpu>>>(d + off, d_t.ptr, d + off, z, chunk);
        CUDA_OK(cudaGetLastError());
    }
}

// The 2^lg_n coefficients of H from `abc`, returned in device memory that the
// caller frees (cuzk_gpu_free). `z_inv` is 1 / (g^n - 1) in Montgomery form.
// With `scratch` null both coset vectors live on the device; else `scratch`
// (2^lg_n host scalars) holds one (h_one_vector), whose trips `copies` times.
// The stream is synchronized on return. sppark's NTT has no 1-point
// transform: lg_n >= 1.
template<class Source>
static fr_t* h_polynomial(const gpu_t& gpu, Source& abc, interval_timer_t& copies, uint32_t lg_n,
                          const fr_t* z_inv, fr_t* scratch)
{
    if (lg_n == 0 || abc.len > ((size_t)1 << lg_n))
        throw cuda_error(cudaErrorInvalidValue, "H needs 2 <= 2^lg_n and len <= 2^lg_n");
    fr_words_t z;
    memcpy(&z, z_inv, sizeof(z));
    device_array_t<fr_t> d_h((size_t)1 << lg_n);
    if (scratch)
        h_one_vector(gpu, abc, copies, d_h.ptr, lg_n, z, scratch);
    else
        h_two_vectors(gpu, abc, d_h.ptr, lg_n, z);
    NTT::Base_dev_ptr(gpu, d_h.ptr, lg_n, NTT::InputOutputOrder::NN,
                      NTT::Direction::inverse, NTT::Type::coset);
    gpu.sync();
    return std::exchange(d_h.ptr, nullptr);
}

#endif
