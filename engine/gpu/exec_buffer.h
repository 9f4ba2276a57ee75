#pragma once
// An array of an executor's memory (gpu/host_exec.h, gpu/cuda_exec.cuh) that keeps its capacity between
// steps: contacts and candidate pairs come and go, and a reallocation per step would cost a device
// synchronization (cudaFree) and page faults. Grows by half again when it grows.
#include <cstddef>

namespace vbd {

template <class Exec, typename U>
struct ExecBuffer {
    U* p = nullptr;
    size_t cap = 0;
    void ensure(Exec& ex, size_t n) {
        if (n <= cap) return;
        ex.drain();
        if (p) ex.release(p);
        cap = n + n / 2;
        p = ex.template alloc<U>(cap);
    }
    void free(Exec& ex) {
        if (p) ex.release(p);
        p = nullptr;
        cap = 0;
    }
    // n elements of src into the buffer (grown as needed); returns the buffer.
    U* put(Exec& ex, const U* src, size_t n) {
        ensure(ex, n);
        if (n) ex.upload(p, src, n);
        return p;
    }
};

}  // namespace vbd
