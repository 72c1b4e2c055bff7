/* Links statically against libfilcrypto.a through filcrypto.pc alone (what
 * filecoin-ffi's cgo does) and makes a few calls: an allocation round trip,
 * the GPU list, and a call with bad input that must be an error. */
#include <stdio.h>
#include <string.h>
#include "filcrypto.h"

int main(void) {
    slice_boxed_uint8_t b = alloc_boxed_slice(16);
    if (b.ptr == NULL || b.len != 16) return 1;
    destroy_boxed_slice(b);

    Result_slice_boxed_slice_boxed_uint8_t *gpus = get_gpu_devices();
    if (gpus == NULL || gpus->status_code != 0) return 2;
    printf("gpus: %zu\n", gpus->value.len);
    destroy_gpu_device_response(gpus);

    uint8_32_array_t zero;
    memset(&zero, 0, sizeof zero);
    slice_ref_uint8_t none = {NULL, 0};
    Result_bool_t *v = verify_seal(99, &zero, &zero, &zero, &zero, &zero, 1, none);
    if (v == NULL || v->status_code == 0) return 3;
    printf("bad input: %.*s\n", (int)v->error_msg.len, (const char *)v->error_msg.ptr);
    destroy_verify_seal_response(v);
    return 0;
}
