// A circuit's matrices on a device (r1cs.cuh): uploaded once, then a, b and c
// of a witness evaluated there, into host memory or straight into H.
#include "h_poly.cuh"

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

// a, b, c of the witness (inputs, aux) into host memory (out[m] has room for
// the rows); *kernel_ms is the evaluations' time on the device, copies excluded.
extern "C" RustError cuzk_gpu_r1cs_evaluate(const device_r1cs_t* r1cs, const fr_t* inputs,
                                            size_t num_inputs, const fr_t* aux, size_t num_aux,
                                            fr_t* const out[3], float* kernel_ms)
{
    *kernel_ms = 0;
    return guarded("evaluating a, b, c on the device", [&] {
        const gpu_t& gpu = r1cs->gpu;
        gpu.select();
        device_array_t<fr_t> z(r1cs->num_z), abc(3 * r1cs->rows);
        r1cs->upload_witness(z.ptr, inputs, num_inputs, aux, num_aux);
        interval_timer_t kernels;
        for (int m = 0; m < 3; m++)
            kernels.time(gpu, [&] { r1cs->evaluate(m, abc.ptr + m * r1cs->rows, z.ptr); });
        for (int m = 0; m < 3; m++)
            gpu.DtoH(out[m], abc.ptr + m * r1cs->rows, r1cs->rows);
        gpu.sync();
        *kernel_ms = kernels.total_ms();
    });
}

// H of the witness (inputs, aux), a, b and c evaluated on the device from the
// matrices and never copied; as cuzk_gpu_h_on_device otherwise. *copy_ms is
// the witness's upload (and the one-vector plan's trips), *abc_ms the
// evaluations' time.
extern "C" RustError cuzk_gpu_h_of_witness(const device_r1cs_t* r1cs, const fr_t* inputs,
                                           size_t num_inputs, const fr_t* aux, size_t num_aux,
                                           uint32_t lg_n, const fr_t* z_inv, fr_t* scratch,
                                           fr_t** d_h, float* copy_ms, float* abc_ms)
{
    *d_h = nullptr;
    *copy_ms = *abc_ms = 0;
    return guarded("H polynomial of a witness (NTT)", [&] {
        const gpu_t& gpu = r1cs->gpu;
        gpu.select();
        device_array_t<fr_t> z(r1cs->num_z);
        interval_timer_t copies;
        copies.time(gpu, [&] { r1cs->upload_witness(z.ptr, inputs, num_inputs, aux, num_aux); });
        witness_abc_t abc{*r1cs, z.ptr, r1cs->rows, {}};
        *d_h = h_polynomial(gpu, abc, copies, lg_n, z_inv, scratch);
        *copy_ms = copies.total_ms();
        *abc_ms = abc.evaluations.total_ms();
    });
}

extern "C" void cuzk_gpu_r1cs_free(device_r1cs_t* r1cs)
{
    (void)guarded("freeing a circuit's matrices", [&] { delete r1cs; });
}
