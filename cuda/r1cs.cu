// A circuit's matrices on a device (r1cs.cuh): uploaded once, then a, b and c
// of a witness evaluated there, into host memory or straight into H.
#include "h_poly.cuh"

extern "C" RustError cuzk_gpu_r1cs_new(int device, const uint32_t* const row_starts[3],
                                       const term_t* const terms[3], const size_t nterms[3],
                                       size_t rows, const fr_t* coeffs, size_t ncoeffs,
                                       size_t num_z, const uint32_t* const selections[2],
                                       const size_t nselected[2], device_r1cs_t** out)
{
    *out = nullptr;
    return guarded("uploading a circuit's matrices", [&] {
        *out = new device_r1cs_t(device, row_starts, terms, nterms, rows, coeffs, ncoeffs, num_z,
                                 selections, nselected);
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

// Device memory for a witness of the matrices' shape, at *d_z (num_z
// scalars; free it with cuzk_gpu_free). Taken under the device's lock like
// every step's memory; filled by cuzk_gpu_r1cs_upload_witness outside it.
extern "C" RustError cuzk_gpu_r1cs_witness_new(const device_r1cs_t* r1cs, fr_t** d_z)
{
    *d_z = nullptr;
    return guarded("allocating a witness on the device", [&] {
        r1cs->gpu.select();
        device_array_t<fr_t> z(r1cs->num_z);
        *d_z = std::exchange(z.ptr, nullptr);
    });
}

// The witness (inputs, aux) copied into d_z, on a stream of its own: the
// caller need not hold the device, whose steps go on meanwhile.
extern "C" RustError cuzk_gpu_r1cs_upload_witness(const device_r1cs_t* r1cs, const fr_t* inputs,
                                                  size_t num_inputs, const fr_t* aux,
                                                  size_t num_aux, fr_t* d_z)
{
    return guarded("uploading a witness", [&] {
        r1cs->upload_witness(d_z, inputs, num_inputs, aux, num_aux);
    });
}

// The witness packed by class (words[0..3): ones, others, others before
// each word; nwords of each; values: the others') rebuilt in d_z; `one` is
// the field's one. The caller holds the device.
extern "C" RustError cuzk_gpu_r1cs_upload_packed_witness(const device_r1cs_t* r1cs,
                                                         const uint32_t* const words[3], size_t nwords,
                                                         const fr_t* values, size_t nvalues,
                                                         const fr_t* one, fr_t* d_z)
{
    return guarded("uploading a packed witness", [&] {
        r1cs->upload_packed(d_z, words, nwords, values, nvalues, *one);
    });
}

// H of the witness d_z (uploaded by cuzk_gpu_r1cs_upload_witness), a, b and
// c evaluated on the device from the matrices and never copied; as
// cuzk_gpu_h_on_device otherwise. *copy_ms is the one-vector plan's trips,
// *abc_ms the evaluations' time.
extern "C" RustError cuzk_gpu_h_of_witness(const device_r1cs_t* r1cs, const fr_t* d_z,
                                           uint32_t lg_n, const fr_t* z_inv, fr_t* scratch,
                                           fr_t** d_h, float* copy_ms, float* abc_ms)
{
    *d_h = nullptr;
    *copy_ms = *abc_ms = 0;
    return guarded("H polynomial of a witness (NTT)", [&] {
        const gpu_t& gpu = r1cs->gpu;
        gpu.select();
        interval_timer_t trips;
        witness_abc_t abc{*r1cs, d_z, r1cs->rows, {}};
        *d_h = h_polynomial(gpu, abc, trips, lg_n, z_inv, scratch);
        *copy_ms = trips.total_ms();
        *abc_ms = abc.evaluations.total_ms();
    });
}

// The scalars of selection q (0: A, 1: B) from the witness d_z on the device,
// into new device memory *d_out (free it with cuzk_gpu_free) of *len scalars.
extern "C" RustError cuzk_gpu_r1cs_select(const device_r1cs_t* r1cs, int q, const fr_t* d_z,
                                          fr_t** d_out, size_t* len)
{
    *d_out = nullptr;
    *len = 0;
    return guarded("selecting MSM scalars on the device", [&] {
        if (q != 0 && q != 1)
            throw cuda_error(cudaErrorInvalidValue, "no such selection");
        const gpu_t& gpu = r1cs->gpu;
        gpu.select();
        device_array_t<fr_t> out(r1cs->selected[q]);
        r1cs->select(q, out.ptr, d_z);
        gpu.sync();
        *len = r1cs->selected[q];
        *d_out = std::exchange(out.ptr, nullptr);
    });
}

extern "C" void cuzk_gpu_r1cs_free(device_r1cs_t* r1cs)
{
    (void)guarded("freeing a circuit's matrices", [&] { delete r1cs; });
}
