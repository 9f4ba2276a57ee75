#pragma once
// An array of an executor's memory (gpu/host_exec.h, gpu/cuda_exec.cuh) that keeps its capacity between
// steps: contacts and candidate pairs come and go, and a reallocation per step would cost a device
// synchronization (cudaFree) and page faults. Grows by half again when it grows.
#include <cstddef>
#include <cstring>
#include <vector>

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

namespace vbd {

// An ExecBuffer for an input that rarely changes between steps (a body's shape, mass, inertia, friction):
// put() uploads only when the n elements differ from those it uploaded last, which it keeps a host copy of
// (comparing 10,000 bodies' 24-byte shapes on the host is a sequential read of 240 KB; the upload it saves
// crosses the bus).
template <class Exec, typename U>
struct KeptBuffer {
    ExecBuffer<Exec, U> buf;
    std::vector<U> host;  // what buf holds, when valid
    bool valid = false;
    U* p() const { return buf.p; }
    U* put(Exec& ex, const U* src, size_t n) {
        if (valid && host.size() == n &&
            (n == 0 || std::memcmp(static_cast<const void*>(host.data()), static_cast<const void*>(src),
                                   n * sizeof(U)) == 0))
            return buf.p;
        valid = false;  // until the upload has been issued
        buf.put(ex, src, n);
        host.assign(src, src + n);
        valid = true;
        return buf.p;
    }
    void free(Exec& ex) {
        buf.free(ex);
        host.clear();
        valid = false;
    }
};

}  // namespace vbd
