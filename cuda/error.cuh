// One error type crosses the boundary: sppark's RustError {code, message}. The
// message is strdup'ed here and freed by Rust (sppark::Error's Drop).
#ifndef CUZK_ERROR_CUH
#define CUZK_ERROR_CUH

#include <new>
#include <string>
#include <util/exception.cuh>
#include <util/rusterror.h>

// Runs `body`, turning every C++ exception into an error value: nothing may
// unwind into Rust, and a CUDA failure must never abort the host process.
// The thread's last CUDA error is cleared first: a failed allocation earlier
// on this thread (ours or anyone's) would otherwise fail the next kernel
// launch check (cudaGetLastError) of an unrelated call.
template<class F>
static RustError guarded(const char* what, F&& body)
{
    (void)cudaGetLastError();
    try {
        body();
        return RustError{cudaSuccess};
    } catch (const cuda_error& e) {
        return RustError{e.code(), std::string(what) + ": " + e.what()};
    } catch (const std::bad_alloc&) {
        return RustError{cudaErrorMemoryAllocation, std::string(what) + ": host out of memory"};
    } catch (const std::exception& e) {
        return RustError{cudaErrorUnknown, std::string(what) + ": " + e.what()};
    } catch (...) {
        return RustError{cudaErrorUnknown, std::string(what) + ": unknown C++ exception"};
    }
}

#endif
