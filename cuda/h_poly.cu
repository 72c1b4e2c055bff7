// H(x) = (A(x) B(x) - C(x)) / Z(x) from the evaluations of A, B and C on the
// subgroup, with sppark's NTT: interpolate, evaluate on the coset gH (where Z is
// the constant g^n - 1), combine there, interpolate back from the coset.
#include <utility>
#include <vector>
#include <ff/bls12-381.hpp>
#include <ntt/ntt.cuh>

#include "error.cuh"
#include "staged_copy.cuh"

// fr_t differs in type between host and device code but not in bytes; scalars
// cross the launch as plain words.
struct fr_words_t { uint32_t w[8]; };

__global__ void mul_assign(fr_t* a, const fr_t* b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = a[i] * b[i];
}

// out = (x - y) * z_inv; out may alias x or y.
__global__ void sub_scale(fr_t* out, const fr_t* x, const fr_t* y, fr_words_t z_inv_words, size_t n)
{
    const fr_t z_inv = *reinterpret_cast<const fr_t*>(&z_inv_words);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (x[i] - y[i]) * z_inv;
}

// The time the host<->device copies of one H step take on its stream, by CUDA
// events recorded before and after each copy (the stream runs its work in
// order): from the stream's reaching the copy (a staged copy's filling may
// overlap the NTT before it) to the copy's end, so that the copies can be
// told apart from the NTTs.
class copy_timer_t {
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
    copy_timer_t() = default;
    copy_timer_t(const copy_timer_t&) = delete;
    copy_timer_t& operator=(const copy_timer_t&) = delete;
    ~copy_timer_t()
    {
        for (auto& m : marks) {
            (void)cudaEventDestroy(m.first);
            if (m.second) (void)cudaEventDestroy(m.second);
        }
    }

    // Runs `copy` (which enqueues on gpu's stream) between two events.
    template<class F> void time(const gpu_t& gpu, F&& copy)
    {
        marks.emplace_back(recorded(gpu), nullptr);
        copy();
        marks.back().second = recorded(gpu);
    }

    // Milliseconds of all copies; the stream must have been synchronized.
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

// Subgroup evaluations (len of them, zero-padded to 2^lg_n) to coset evaluations.
static void to_coset(const gpu_t& gpu, copy_timer_t& copies, fr_t* d, const fr_t* host,
                     size_t len, uint32_t lg_n)
{
    size_t n = (size_t)1 << lg_n;
    copies.time(gpu, [&] { htod_staged(gpu, d, host, len * sizeof(fr_t)); });
    if (len < n)
        gpu.bzero(d + len, n - len);
    NTT::Base_dev_ptr(gpu, d, lg_n, NTT::InputOutputOrder::NR,
                      NTT::Direction::inverse, NTT::Type::standard);
    NTT::Base_dev_ptr(gpu, d, lg_n, NTT::InputOutputOrder::RN,
                      NTT::Direction::forward, NTT::Type::coset);
}

// Device memory released on every path, including a throw.
struct device_buffer_t {
    fr_t* ptr = nullptr;
    ~device_buffer_t() { if (ptr) (void)cudaFree(ptr); }
};

// Scalars per transfer of the one-vector plan: 32 MiB of device memory.
static const size_t H_CHUNK = (size_t)1 << 20;

// Both coset vectors in device memory: 2 * 2^lg_n scalars.
static void h_two_vectors(const gpu_t& gpu, copy_timer_t& copies, fr_t* d_a, const fr_t* a,
                          const fr_t* b, const fr_t* c, size_t len, uint32_t lg_n, fr_words_t z)
{
    size_t n = (size_t)1 << lg_n;
    device_buffer_t d_b;
    CUDA_OK(cudaMalloc(&d_b.ptr, n * sizeof(fr_t)));
    const int blocks = gpu.sm_count() * 4, threads = 256;
    to_coset(gpu, copies, d_b.ptr, b, len, lg_n);
    to_coset(gpu, copies, d_a, a, len, lg_n);
    mul_assign<<<blocks, threads, 0, gpu>>>(d_a, d_b.ptr, n);
    CUDA_OK(cudaGetLastError());
    to_coset(gpu, copies, d_b.ptr, c, len, lg_n);
    sub_scale<<<blocks, threads, 0, gpu>>>(d_a, d_a, d_b.ptr, z, n);
    CUDA_OK(cudaGetLastError());
}

// One coset vector in device memory (2^lg_n scalars plus a chunk): the other
// operand waits in `scratch` (2^lg_n scalars of host memory) and comes back
// chunk by chunk, for devices without room for two.
static void h_one_vector(const gpu_t& gpu, copy_timer_t& copies, fr_t* d, const fr_t* a,
                         const fr_t* b, const fr_t* c, size_t len, uint32_t lg_n, fr_words_t z,
                         fr_t* scratch)
{
    size_t n = (size_t)1 << lg_n, chunk = std::min(n, H_CHUNK);
    device_buffer_t d_t;
    CUDA_OK(cudaMalloc(&d_t.ptr, chunk * sizeof(fr_t)));
    const int blocks = gpu.sm_count() * 4, threads = 256;
    to_coset(gpu, copies, d, b, len, lg_n);
    copies.time(gpu, [&] { gpu.DtoH(scratch, d, n); });
    to_coset(gpu, copies, d, a, len, lg_n);
    for (size_t off = 0; off < n; off += chunk) {
        copies.time(gpu, [&] { gpu.HtoD(d_t.ptr, scratch + off, chunk); });
        mul_assign<<<blocks, threads, 0, gpu>>>(d + off, d_t.ptr, chunk);
        CUDA_OK(cudaGetLastError());
    }
    copies.time(gpu, [&] { gpu.DtoH(scratch, d, n); });
    to_coset(gpu, copies, d, c, len, lg_n);
    for (size_t off = 0; off < n; off += chunk) {
        copies.time(gpu, [&] { gpu.HtoD(d_t.ptr, scratch + off, chunk); });
        sub_scale<<<blocks, threads, 0, gpu>>>(d + off, d_t.ptr, d + off, z, chunk);
        CUDA_OK(cudaGetLastError());
    }
}

// The 2^lg_n coefficients of H, left in device memory at *d_h (free it with
// cuzk_gpu_free). a, b and c hold `len` evaluations each (len <= 2^lg_n);
// `z_inv` is 1 / (g^n - 1) in Montgomery form. With `scratch` null both coset
// vectors live on the device; else `scratch` (2^lg_n host scalars) holds one
// (h_one_vector). *copy_ms receives the stream's time in the host<->device
// copies among the step's work (copy_timer_t). sppark's NTT has no 1-point
// transform: lg_n >= 1.
extern "C" RustError cuzk_gpu_h_on_device(int device, const fr_t* a, const fr_t* b,
                                          const fr_t* c, size_t len, uint32_t lg_n,
                                          const fr_t* z_inv, fr_t* scratch, fr_t** d_h,
                                          float* copy_ms)
{
    *d_h = nullptr;
    *copy_ms = 0;
    return guarded("H polynomial (NTT)", [&] {
        if (lg_n == 0 || len > ((size_t)1 << lg_n))
            throw cuda_error(cudaErrorInvalidValue, "H needs 2 <= 2^lg_n and len <= 2^lg_n");
        const gpu_t& gpu = select_gpu(device);
        size_t n = (size_t)1 << lg_n;
        fr_words_t z;
        memcpy(&z, z_inv, sizeof(z));
        device_buffer_t d_a;
        CUDA_OK(cudaMalloc(&d_a.ptr, n * sizeof(fr_t)));
        copy_timer_t copies;
        if (scratch)
            h_one_vector(gpu, copies, d_a.ptr, a, b, c, len, lg_n, z, scratch);
        else
            h_two_vectors(gpu, copies, d_a.ptr, a, b, c, len, lg_n, z);
        NTT::Base_dev_ptr(gpu, d_a.ptr, lg_n, NTT::InputOutputOrder::NN,
                          NTT::Direction::inverse, NTT::Type::coset);
        gpu.sync();
        *copy_ms = copies.total_ms();
        std::swap(*d_h, d_a.ptr);
    });
}

extern "C" RustError cuzk_gpu_h_to_host(int device, const fr_t* d_h, size_t n, fr_t* h)
{
    return guarded("copying H to the host", [&] {
        const gpu_t& gpu = select_gpu(device);
        gpu.DtoH(h, d_h, n);
        gpu.sync();
    });
}

extern "C" void cuzk_gpu_free(int device, void* d_ptr)
{
    (void)guarded("freeing device memory", [&] {
        select_gpu(device);
        CUDA_OK(cudaFree(d_ptr));
    });
}
