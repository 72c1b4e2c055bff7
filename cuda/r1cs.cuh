// A circuit's recorded R1CS on a device (src/circuit/matrices.rs): the A, B
// and C matrices in compressed sparse rows, kept in device memory, and each
// matrix times a witness z = inputs ++ aux evaluated there. Coefficient code
// 0 is 1 and code 1 is -1: those terms add or subtract without a multiplication.
#ifndef CUZK_R1CS_CUH
#define CUZK_R1CS_CUH

#include <algorithm>
#include <ff/bls12-381.hpp>

#include "device_array.cuh"
#include "error.cuh"

// Mirrors circuit::Term.
struct term_t {
    uint32_t column;
    uint32_t coeff;
};

// out[i] = <row_i, z> for every row; one thread per row, grid-stride.
static __global__ void csr_evaluate(fr_t* out, const uint32_t* row_starts, const term_t* terms,
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

// out[j] = z[columns[j]] for j < n: the scalars a density selects.
static __global__ void gather(fr_t* out, const fr_t* z, const uint32_t* columns, size_t n)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n;
         j += (size_t)gridDim.x * blockDim.x)
        out[j] = z[columns[j]];
}

// z[i] rebuilt from its class (src/circuit/packed_witness.rs): bit i % 32 of
// word i / 32 of `others` or `ones` says it is neither zero nor one, or
// one; an other's value is `values`' next, counted from `others_before`.
static __global__ void unpack_witness(fr_t* z, size_t n, const uint32_t* ones, const uint32_t* others,
                                      const uint32_t* others_before, const fr_t* values, fr_t one)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t w = i / 32;
        const uint32_t bit = 1u << (i % 32), other = others[w];
        fr_t v;
        if (other & bit)
            v = values[others_before[w] + __popc(other & (bit - 1))];
        else if (ones[w] & bit)
            v = one;
        else
            v.zero();
        z[i] = v;
    }
}

// The matrices of one circuit on one device, and the columns of z whose
// values are the A and B MSM scalars (the queries' densities). The caller
// (Rust) has checked them: row starts ascend to the term count, columns <
// num_z, codes < the coefficient count, so no kernel reads out of bounds.
class device_r1cs_t {
    device_array_t<uint32_t> row_starts[3];
    device_array_t<term_t> terms[3];
    device_array_t<fr_t> coeffs;
    device_array_t<uint32_t> selections[2];

public:
    const gpu_t& gpu;
    const size_t rows, num_z;
    size_t selected[2];

    device_r1cs_t(int device, const uint32_t* const host_starts[3], const term_t* const host_terms[3],
                  const size_t nterms[3], size_t rows, const fr_t* host_coeffs, size_t ncoeffs,
                  size_t num_z, const uint32_t* const host_selections[2], const size_t nselected[2])
    : gpu(select_gpu(device)), rows(rows), num_z(num_z), selected{nselected[0], nselected[1]}
    {
        for (int m = 0; m < 3; m++) {
            row_starts[m].upload(gpu, host_starts[m], rows + 1);
            terms[m].upload(gpu, host_terms[m], nterms[m]);
        }
        coeffs.upload(gpu, host_coeffs, ncoeffs);
        for (int q = 0; q < 2; q++)
            selections[q].upload(gpu, host_selections[q], selected[q]);
        gpu.sync();
    }

    // Enqueues out[0..selected[q]) = the scalars of selection q (0: A, 1: B)
    // from d_z.
    void select(int q, fr_t* out, const fr_t* d_z) const
    {
        if (selected[q] == 0)
            return;
        const int blocks = gpu.sm_count() * 4, threads = 256;
        gather<<<blocks, threads, 0, gpu>>>(out, d_z, selections[q].ptr, selected[q]);
        CUDA_OK(cudaGetLastError());
    }

    // The arrays are freed by their destructors, after this body, on the
    // matrices' device.
    ~device_r1cs_t() { gpu.select(); }

    // The witness (inputs, aux) copied into d_z (num_z scalars on the
    // device) on a stream of its own, done when this returns: it needs no
    // kernel, so it runs while another proof's step has the device.
    void upload_witness(fr_t* d_z, const fr_t* inputs, size_t num_inputs, const fr_t* aux,
                        size_t num_aux) const
    {
        if (num_inputs + num_aux != num_z)
            throw cuda_error(cudaErrorInvalidValue, "the witness does not fit the matrices");
        gpu.select();
        stream_t copies(gpu.id());
        htod_staged(gpu.id(), copies, d_z, inputs, num_inputs * sizeof(fr_t));
        htod_staged(gpu.id(), copies, d_z + num_inputs, aux, num_aux * sizeof(fr_t));
        copies.sync();
    }

    // The witness packed by class (words: ones, others, others before each
    // word; nwords of each) rebuilt in d_z: the packed bytes copied, a few
    // percent of z's, and unpacked there. The caller holds the device and
    // has checked the packing: every word's others are among the values.
    void upload_packed(fr_t* d_z, const uint32_t* const words[3], size_t nwords, const fr_t* values,
                       size_t nvalues, const fr_t& one) const
    {
        if (nwords != (num_z + 31) / 32)
            throw cuda_error(cudaErrorInvalidValue, "the packed witness does not fit the matrices");
        gpu.select();
        device_array_t<uint32_t> masks(3 * nwords);
        device_array_t<fr_t> others(std::max<size_t>(nvalues, 1));
        for (int k = 0; k < 3; k++)
            htod_staged(gpu, masks.ptr + k * nwords, words[k], nwords * sizeof(uint32_t));
        htod_staged(gpu, others.ptr, values, nvalues * sizeof(fr_t));
        unpack_witness<<<gpu.sm_count() * 4, 256, 0, gpu>>>(d_z, num_z, masks.ptr, masks.ptr + nwords,
                                                          masks.ptr + 2 * nwords, others.ptr, one);
        CUDA_OK(cudaGetLastError());
        gpu.sync();
    }

    // Enqueues out[0..rows) = matrix m (0: A, 1: B, 2: C) times d_z.
    void evaluate(int m, fr_t* out, const fr_t* d_z) const
    {
        const int blocks = gpu.sm_count() * 8, threads = 128;
        csr_evaluate<<<blocks, threads, 0, gpu>>>(out, row_starts[m].ptr, terms[m].ptr, coeffs.ptr,
                                                  d_z, rows);
        CUDA_OK(cudaGetLastError());
    }
};

#endif
