// The CUDA executor's staged transfers (gpu/staged_copies.h) over fake stream operations: the "DMA" of each
// copy is queued and done only when the stream is waited for, as a real asynchronous copy may be. That makes
// every way the staging could break the direct copy's contract visible on the CPU: an upload whose source
// changes right after upload() returns, a region of the area overwritten before its DMA ran or before a
// download was copied out, a download read before sync, a graph capture holding the area's addresses.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "gpu/staged_copies.h"

using namespace vbd;

namespace {

struct FakeStream {
    std::vector<std::function<void()>> queued;  // the stream's copies, run in order at wait()
    int waits = 0, allocs = 0, frees = 0, direct = 0;
    bool capturing = false;
    bool fail = false;                      // wait() throws, its copies not run (a device error)
    std::vector<std::vector<char>> blocks;  // the "pinned" allocations (kept: a freed one is poisoned)
};

struct FakeOps {
    FakeStream* s;
    void* allocPinned(size_t bytes) {
        ++s->allocs;
        s->blocks.emplace_back(bytes, char(0x5a));
        return s->blocks.back().data();
    }
    void freePinned(void* p) {
        ++s->frees;
        for (auto& b : s->blocks)
            if (b.data() == p) std::memset(b.data(), 0x7f, b.size());  // a use after free reads garbage
    }
    void toDevice(void* dst, const void* src, size_t bytes) { queue(dst, src, bytes); }
    void toHost(void* dst, const void* src, size_t bytes) { queue(dst, src, bytes); }
    void wait() {
        ++s->waits;
        if (s->fail) {
            s->queued.clear();
            throw std::runtime_error("stream failed");
        }
        for (auto& f : s->queued) f();
        s->queued.clear();
    }
    bool capturing() const { return s->capturing; }
    void queue(void* dst, const void* src, size_t bytes) {
        const bool staged = std::any_of(s->blocks.begin(), s->blocks.end(), [&](const std::vector<char>& b) {
            const char* p = static_cast<const char*>(src);
            const char* q = static_cast<const char*>(dst);
            return (p >= b.data() && p < b.data() + b.size()) || (q >= b.data() && q < b.data() + b.size());
        });
        if (!staged) ++s->direct;
        s->queued.push_back([=] { std::memcpy(dst, src, bytes); });
    }
};

std::vector<std::uint32_t> pattern(size_t words, std::uint32_t seed) {
    std::vector<std::uint32_t> v(words);
    for (size_t i = 0; i < words; ++i) v[i] = seed * 2654435761u + std::uint32_t(i);
    return v;
}

}  // namespace

// Several uploads whose sources are overwritten as soon as upload() returns, more than the 8 MiB first area
// holds (the area is waited for and reused, then one request larger than it replaces it): every device array
// holds what its source held at the call.
TEST(StagedCopies, UploadsKeepTheSourceAtTheCall) {
    FakeStream st;
    StagedCopies<FakeOps> c(FakeOps{&st}, true);
    const size_t words[] = {300000, 700000, 900000, 200000, 5000000};  // 1.2, 2.8, 3.6, 0.8, 20 MB
    std::vector<std::vector<std::uint32_t>> device, expect;
    for (size_t k = 0; k < 5; ++k) device.emplace_back(words[k], 0u);
    for (size_t k = 0; k < 5; ++k) {
        std::vector<std::uint32_t> src = pattern(words[k], std::uint32_t(k + 1));
        expect.push_back(src);
        c.upload(device[k].data(), src.data(), src.size() * 4);
        std::fill(src.begin(), src.end(), 0xdeadbeefu);  // the caller reuses its buffer at once
    }
    FakeOps{&st}.wait();
    c.idle();
    for (size_t k = 0; k < 5; ++k) EXPECT_EQ(device[k], expect[k]) << "upload " << k;
    EXPECT_EQ(st.direct, 0);
    EXPECT_GE(st.waits, 2);   // the first area filled (8.4 MB of requests), then the 20 MB one
    EXPECT_EQ(st.allocs, 2);  // 8 MiB, then max(20 MB, 16 MiB)
    EXPECT_GE(c.capacity(), words[4] * 4);
}

// Downloads land only at idle (after the stream's wait), even when uploads take regions after them: the
// regions are never handed out twice before the stream is idle.
TEST(StagedCopies, DownloadsLandAtIdleAndAreNotOverwritten) {
    FakeStream st;
    StagedCopies<FakeOps> c(FakeOps{&st}, true);
    const std::vector<std::uint32_t> devA = pattern(100000, 7), devB = pattern(250000, 9);
    std::vector<std::uint32_t> hostA(devA.size(), 0u), hostB(devB.size(), 0u), devC(300000, 0u);
    c.download(hostA.data(), devA.data(), devA.size() * 4);
    std::vector<std::uint32_t> up = pattern(devC.size(), 11);
    c.upload(devC.data(), up.data(), up.size() * 4);
    c.download(hostB.data(), devB.data(), devB.size() * 4);
    EXPECT_EQ(c.pendingDownloads(), 2u);
    EXPECT_EQ(hostA[5], 0u);  // not yet: the executor's sync waits and then calls idle
    FakeOps{&st}.wait();
    c.idle();
    EXPECT_EQ(hostA, devA);
    EXPECT_EQ(hostB, devB);
    EXPECT_EQ(devC, pattern(devC.size(), 11));
    EXPECT_EQ(c.pendingDownloads(), 0u);
}

// A download pending when the area fills is copied out before its region is handed out again.
TEST(StagedCopies, AFullAreaFinishesThePendingDownloadsFirst) {
    FakeStream st;
    StagedCopies<FakeOps> c(FakeOps{&st}, true);
    const std::vector<std::uint32_t> dev = pattern(1500000, 3);  // 6 MB
    std::vector<std::uint32_t> host(dev.size(), 0u), devUp(1500000, 0u);
    c.download(host.data(), dev.data(), dev.size() * 4);
    const std::vector<std::uint32_t> up = pattern(devUp.size(), 5);
    c.upload(devUp.data(), up.data(), up.size() * 4);  // 6 + 6 MB > 8 MiB: waits, copies out, reuses
    EXPECT_EQ(host, dev);                              // landed at the wait the full area forced
    FakeOps{&st}.wait();
    c.idle();
    EXPECT_EQ(devUp, up);
    EXPECT_EQ(st.allocs, 1);
}

// Small copies, copies during a graph capture and a disabled stager go direct (no region of the area).
TEST(StagedCopies, SmallCapturedAndDisabledCopiesGoDirect) {
    FakeStream st;
    StagedCopies<FakeOps> c(FakeOps{&st}, true);
    std::vector<char> a(kStagedBytes - 1, 'a'), b(kStagedBytes - 1, 0);
    c.upload(b.data(), a.data(), a.size());
    EXPECT_EQ(st.direct, 1);
    st.capturing = true;
    std::vector<char> big(kStagedBytes * 4, 'c'), bigDev(big.size(), 0);
    c.upload(bigDev.data(), big.data(), big.size());
    EXPECT_EQ(st.direct, 2);
    st.capturing = false;
    c.upload(bigDev.data(), big.data(), big.size());
    EXPECT_EQ(st.direct, 2);  // staged
    EXPECT_EQ(st.allocs, 1);

    FakeStream off;
    StagedCopies<FakeOps> d(FakeOps{&off}, false);
    d.upload(bigDev.data(), big.data(), big.size());
    d.download(bigDev.data(), big.data(), big.size());
    EXPECT_EQ(off.direct, 2);
    EXPECT_EQ(off.allocs, 0);
}

// A failed wait (a device error) while downloads are pending: they are dropped, not copied out later into
// destinations that may be gone by then (the executor's sync and drain call discard() when the stream's wait
// fails; take() does when its own wait for a full area throws), and the area is handed out from the front.
TEST(StagedCopies, AFailedWaitDropsThePendingDownloads) {
    FakeStream st;
    StagedCopies<FakeOps> c(FakeOps{&st}, true);
    std::vector<std::uint32_t> device = pattern(300000, 7);  // 1.2 MB
    auto* gone = new std::vector<std::uint32_t>(device.size(), 0u);
    c.download(gone->data(), device.data(), device.size() * 4);
    EXPECT_EQ(c.pendingDownloads(), 1u);
    st.fail = true;
    // A request larger than what is left of the 8 MiB area waits for the stream first: the wait throws.
    std::vector<std::uint32_t> big(2000000, 1u);  // 8 MB
    EXPECT_THROW(c.upload(device.data(), big.data(), big.size() * 4), std::runtime_error);
    EXPECT_EQ(c.pendingDownloads(), 0u);
    delete gone;  // the destination is gone (the error unwound its owner)
    st.fail = false;
    c.idle();  // copies nothing into the freed destination (ASan: a heap-use-after-free otherwise)
    // The sync's path: a pending download, the stream's wait fails, the executor discards.
    std::vector<std::uint32_t> dst(device.size(), 0u);
    c.download(dst.data(), device.data(), device.size() * 4);
    EXPECT_EQ(c.pendingDownloads(), 1u);
    c.discard();
    EXPECT_EQ(c.pendingDownloads(), 0u);
    c.idle();
    EXPECT_EQ(dst[0], 0u);  // never copied out
}
