// H from evaluations of A, B and C held in host memory (h_poly.cuh).
#include "h_poly.cuh"

// The 2^lg_n coefficients of H, left in device memory at *d_h (free it with
// cuzk_gpu_free). a, b and c hold `len` evaluations each (len <= 2^lg_n);
// `z_inv` is 1 / (g^n - 1) in Montgomery form. With `scratch` null both coset
// vectors live on the device; else `scratch` (2^lg_n host scalars) holds one.
// *copy_ms receives the stream's time in the host<->device copies among the
// step's work.
extern "C" RustError cuzk_gpu_h_on_device(int device, const fr_t* a, const fr_t* b,
                                          const fr_t* c, size_t len, uint32_t lg_n,
                                          const fr_t* z_inv, fr_t* scratch, fr_t** d_h,
                                          float* copy_ms)
{
    *d_h = nullptr;
    *copy_ms = 0;
    return guarded("H polynomial (NTT)", [&] {
        const gpu_t& gpu = select_gpu(device);
        host_abc_t abc{{a, b, c}, len, {}};
        interval_timer_t trips;
        *d_h = h_polynomial(gpu, abc, trips, lg_n, z_inv, scratch);
        *copy_ms = abc.copies.total_ms() + trips.total_ms();
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

// n scalars from the host into new device memory *d_out (free it with
// cuzk_gpu_free).
extern "C" RustError cuzk_gpu_scalars_new(int device, const fr_t* host, size_t n, fr_t** d_out)
{
    *d_out = nullptr;
    return guarded("copying scalars to the device", [&] {
        const gpu_t& gpu = select_gpu(device);
        device_array_t<fr_t> d;
        d.upload(gpu, host, n);
        gpu.sync();
        *d_out = std::exchange(d.ptr, nullptr);
    });
}

extern "C" void cuzk_gpu_free(int device, void* d_ptr)
{
    (void)guarded("freeing device memory", [&] {
        select_gpu(device);
        device_release(d_ptr);
    });
}
