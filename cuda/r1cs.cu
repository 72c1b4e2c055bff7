// A circuit's recorded R1CS on a device (src/circuit/matrices.rs): the A, B
// and C matrices in compressed sparse rows, kept in device memory, and a, b,
// c evaluated there from a witness z = inputs ++ aux. Coefficient code 0 is
// 1 and code 1 is -1: those terms add or subtract without a multiplication.
#include <ff/bls12-381.hpp>

#include "error.cuh"
#include "staged_copy.cuh"

// Mirrors circuit::Term.
struct term_t {
    uint32_t column;
    uint32_t coeff;
};

// out[i] = <row_i, z> for every row; one thread per row, grid-stride.
__global__ void csr_evaluate(fr_t* out, const uint32_t* row_starts, const term_t* terms,
                             const fr_t* coeffs, const fr_t* z, size_t rows)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows;
         i += (size_t)gridDim.x * blockDim.x) {
        fr_t acc;
        acc.zero();
        for (uint32_t k = row_starts[i], end = row_starts[i + 1]; k < end; k++) {
            const term_t t = terms[k];
            const fr_t v = z[t.column];
            if (t.coeff == 0)
                acc += v;
            else if (t.coeff == 1)
                acc -= v;
            else if (!v.is_zero())
                acc += v * coeffs[t.coeff];
        }
        out[i] = acc;
    }
}

template<class T> struct device_array_t {
    T* ptr = nullptr;
    device_array_t() = default;
    device_array_t(const device_array_t&) = delete;
    device_array_t& operator=(const device_array_t&) = delete;
    ~device_array_t() { if (ptr) (void)cudaFree(ptr); }
    void upload(const gpu_t& gpu, const T* host, size_t n)
    {
        CUDA_OK(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(T)));
        htod_staged(gpu, ptr, host, n * sizeof(T));
    }
};

// The matrices of one circuit on one device. The caller (Rust) has checked
// them: row starts ascend to the term count, columns < num_z, codes < the
// coefficient count, so no kernel reads out of bounds.
class device_r1cs_t {
    const gpu_t& gpu;
    device_array_t<uint32_t> row_starts[3];
    device_array_t<term_t> terms[3];
    device_array_t<fr_t> coeffs;

public:
    const size_t rows, num_z;

    device_r1cs_t(int device, const uint32_t* const host_starts[3], const term_t* const host_terms[3],
                  const size_t nterms[3], size_t rows, const fr_t* host_coeffs, size_t ncoeffs,
                  size_t num_z)
    : gpu(select_gpu(device)), rows(rows), num_z(num_z)
    {
        for (int m = 0; m < 3; m++) {
            row_starts[m].upload(gpu, host_starts[m], rows + 1);
            terms[m].upload(gpu, host_terms[m], nterms[m]);
        }
        coeffs.upload(gpu, host_coeffs, ncoeffs);
        gpu.sync();
    }

    // The arrays are freed by their destructors, after this body, on the
    // matrices' device.
    ~device_r1cs_t() { gpu.select(); }

    // a, b, c of the witness (inputs, aux) into host memory; *kernel_ms is
    // the three evaluations' time on the device, copies excluded.
    void evaluate(const fr_t* inputs, size_t num_inputs, const fr_t* aux, size_t num_aux,
                  fr_t* const out[3], float* kernel_ms) const
    {
        if (num_inputs + num_aux != num_z)
            throw cuda_error(cudaErrorInvalidValue, "the witness does not fit the matrices");
        gpu.select();
        device_array_t<fr_t> z, abc;
        CUDA_OK(cudaMalloc(&z.ptr, std::max<size_t>(num_z, 1) * sizeof(fr_t)));
        CUDA_OK(cudaMalloc(&abc.ptr, std::max<size_t>(3 * rows, 1) * sizeof(fr_t)));
        htod_staged(gpu, z.ptr, inputs, num_inputs * sizeof(fr_t));
        htod_staged(gpu, z.ptr + num_inputs, aux, num_aux * sizeof(fr_t));
        cudaEvent_t start, stop;
        CUDA_OK(cudaEventCreate(&start));
        CUDA_OK(cudaEventCreate(&stop));
        CUDA_OK(cudaEventRecord(start, gpu));
        const int blocks = gpu.sm_count() * 8, threads = 128;
        for (int m = 0; m < 3; m++)
            csr_evaluate<<<blocks, threads, 0, gpu>>>(abc.ptr + m * rows, row_starts[m].ptr, terms[m].ptr,
                                                       coeffs.ptr, z.ptr, rows);
        cudaError_t launched = cudaGetLastError();
        (void)cudaEventRecord(stop, gpu);
        gpu.sync();
        (void)cudaEventElapsedTime(kernel_ms, start, stop);
        (void)cudaEventDestroy(start);
        (void)cudaEventDestroy(stop);
        CUDA_OK(launched);
        for (int m = 0; m < 3; m++)
            gpu.DtoH(out[m], abc.ptr + m * rows, rows);
        gpu.sync();
    }
};

extern "C" RustError cuzk_gpu_r1cs_new(int device, const uint32_t* const row_starts[3],
                                       const term_t* const terms[3], const size_t nterms[3],
                                       size_t rows, const fr_t* coeffs, size_t ncoeffs,
                                       size_t num_z, device_r1cs_t** out)
{
    *out = nullptr;
    return guarded("uploading a circuit's matrices", [&] {
        *out = new device_r1cs_t(device, row_starts, terms, nterms, rows, coeffs, ncoeffs, num_z);
    });
}

extern "C" RustError cuzk_gpu_r1cs_evaluate(const device_r1cs_t* r1cs, const fr_t* inputs,
                                            size_t num_inputs, const fr_t* aux, size_t num_aux,
                                            fr_t* const out[3], float* kernel_ms)
{
    *kernel_ms = 0;
    return guarded("evaluating a, b, c on the device", [&] {
        r1cs->evaluate(inputs, num_inputs, aux, num_aux, out, kernel_ms);
    });
}

extern "C" void cuzk_gpu_r1cs_free(device_r1cs_t* r1cs)
{
    (void)guarded("freeing a circuit's matrices", [&] { delete r1cs; });
}
