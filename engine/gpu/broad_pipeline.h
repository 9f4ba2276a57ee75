#pragma once
// The rigid broad phase on an executor (CudaExec, or HostExec in the tests): the CPU's broadPhase result
// (rigid/collision.h: every pair of overlapping boxes, sorted, unique) from the stages of gpu/broad_stages.h.
// The grid's cell size (twice the median extent: an nth_element over the boxes) is chosen on the CPU, as the
// CPU's search chooses it. Three waits for counts (entries and big boxes; pairs; unique pairs), then the
// pairs come down as 8-byte keys.
#include <cstdint>
#include <utility>
#include <vector>

#include "gpu/broad_phase_runner.h"
#include "gpu/broad_stages.h"
#include "gpu/exec_buffer.h"
#include "rigid/collision.h"

namespace vbd {

template <class Exec>
class BroadPipeline {
  public:
    // pairs <- broadPhase(boxes), the boxes uploaded from the host.
    void find(Exec& ex, const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs) {
        pairs.clear();
        const int n = int(boxes.size());
        if (n < 2) return;
        const BroadGrid g = broadGridFor(boxes, ext_);

        const Aabb* db = boxes_.put(ex, boxes.data(), boxes.size());
        cells_.ensure(ex, size_t(n) + 1);
        cellStart_.ensure(ex, size_t(n) + 1);
        big_.ensure(ex, size_t(n) + 1);
        bigStart_.ensure(ex, size_t(n) + 1);
        ex.forEach(n + 1, BroadCountStage{db, g, n, cells_.p, big_.p});
        ex.exclusiveScan(cells_.p, cellStart_.p, n + 1);
        ex.exclusiveScan(big_.p, bigStart_.p, n + 1);
        int totals[2] = {0, 0};
        ex.download(&totals[0], cellStart_.p + n, 1);
        ex.download(&totals[1], bigStart_.p + n, 1);
        ex.sync();
        const int entries = totals[0], nbig = totals[1];
        // A box touching more than kMaxBroadCells cells is tested against all others: one flag per (big box,
        // box) pair. Past 2^26 of them (thousands of big boxes) the CPU's search does it.
        if (static_cast<long long>(nbig) * n > (1LL << 26)) {
            broadPhase(boxes, pairs);
            return;
        }

        keys_.ensure(ex, size_t(entries));
        boxOf_.ensure(ex, size_t(entries));
        sortedKeys_.ensure(ex, size_t(entries));
        sortedBoxOf_.ensure(ex, size_t(entries));
        bigList_.ensure(ex, size_t(nbig));
        ex.forEach(
            n, BroadEntriesStage{db, g, cellStart_.p, big_.p, bigStart_.p, keys_.p, boxOf_.p, bigList_.p});
        ex.sortByKey(keys_.p, sortedKeys_.p, boxOf_.p, sortedBoxOf_.p, entries, 63);
        runCount_.ensure(ex, size_t(entries) + 1);
        runStart_.ensure(ex, size_t(entries) + 1);
        const BroadRunPairsStage run{sortedKeys_.p, sortedBoxOf_.p, entries, db, g,
                                     runCount_.p,   runStart_.p,    nullptr};
        ex.forEach(entries + 1, run);
        ex.exclusiveScan(runCount_.p, runStart_.p, entries + 1);
        const int bigPairsSpace = nbig * n;  // nbig is small: ramps and slabs, none in a pile
        bigFlag_.ensure(ex, size_t(bigPairsSpace) + 1);
        bigAt_.ensure(ex, size_t(bigPairsSpace) + 1);
        const BroadBigPairsStage bigPairs{bigList_.p, big_.p, nbig, n, db, bigFlag_.p, bigAt_.p, nullptr};
        ex.forEach(bigPairsSpace + 1, bigPairs);
        ex.exclusiveScan(bigFlag_.p, bigAt_.p, bigPairsSpace + 1);
        ex.download(&totals[0], runStart_.p + entries, 1);
        ex.download(&totals[1], bigAt_.p + bigPairsSpace, 1);
        ex.sync();
        const int runPairs = totals[0], all = totals[0] + totals[1];
        if (all == 0) return;

        pairKeys_.ensure(ex, size_t(all));
        BroadRunPairsStage writeRun = run;
        writeRun.out = pairKeys_.p;
        ex.forEach(entries, writeRun);
        BroadBigPairsStage writeBig = bigPairs;
        writeBig.out = pairKeys_.p + runPairs;
        ex.forEach(bigPairsSpace, writeBig);
        sortedPairs_.ensure(ex, size_t(all));
        int bits = 32;
        while (bits < 64 && (uint64_t(1) << (bits - 32)) < uint64_t(n)) ++bits;
        ex.sortKeys(pairKeys_.p, sortedPairs_.p, all, bits);
        flag_.ensure(ex, size_t(all) + 1);
        at_.ensure(ex, size_t(all) + 1);
        ex.forEach(all + 1, BroadUniqueFlagStage{sortedPairs_.p, all, flag_.p});
        ex.exclusiveScan(flag_.p, at_.p, all + 1);
        ex.forEach(all, BroadCompactStage{sortedPairs_.p, flag_.p, at_.p, pairKeys_.p});
        int unique = 0;
        ex.download(&unique, at_.p + all, 1);
        ex.sync();
        host_.resize(size_t(unique));
        ex.download(host_.data(), pairKeys_.p, host_.size());
        ex.sync();
        pairs.resize(host_.size());
        for (size_t k = 0; k < host_.size(); ++k)
            pairs[k] = {int(uint32_t(host_[k] >> 32)), int(uint32_t(host_[k] & 0xFFFFFFFFu))};
    }

    void release(Exec& ex) {
        boxes_.free(ex);
        cells_.free(ex);
        cellStart_.free(ex);
        big_.free(ex);
        bigStart_.free(ex);
        keys_.free(ex);
        boxOf_.free(ex);
        sortedKeys_.free(ex);
        sortedBoxOf_.free(ex);
        bigList_.free(ex);
        runCount_.free(ex);
        runStart_.free(ex);
        bigFlag_.free(ex);
        bigAt_.free(ex);
        pairKeys_.free(ex);
        sortedPairs_.free(ex);
        flag_.free(ex);
        at_.free(ex);
    }

  private:
    std::vector<float> ext_;      // the grid's median search
    std::vector<uint64_t> host_;  // the pairs as they come down
    ExecBuffer<Exec, Aabb> boxes_;
    ExecBuffer<Exec, int> cells_, cellStart_, big_, bigStart_, boxOf_, sortedBoxOf_, bigList_, runCount_,
        runStart_, bigFlag_, bigAt_, flag_, at_;
    ExecBuffer<Exec, uint64_t> keys_, sortedKeys_, pairKeys_, sortedPairs_;
};

// BroadPipeline with its own executor.
template <class Exec>
class BroadPhaseOn final : public BroadPhaseRunner {
  public:
    ~BroadPhaseOn() override {
        ex_.drain();
        pipeline_.release(ex_);
    }
    void find(const std::vector<Aabb>& boxes, std::vector<std::pair<int, int>>& pairs) override {
        pipeline_.find(ex_, boxes, pairs);
    }

  private:
    Exec ex_;
    BroadPipeline<Exec> pipeline_;
};

}  // namespace vbd
