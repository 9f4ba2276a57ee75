// Memory bandwidth of this machine, the ceiling of a sweep that streams its data from DRAM: a STREAM-like
// read (sum of a 256 MB array of doubles) and triad (a = b + s c over three 128 MB arrays), 1 and 2 threads,
// counters in bytes per second of wall time. The soft sweep reads ~120 bytes per tet-vertex evaluation in
// double (a 72-byte block lane, 48 bytes of C_prev) and ~96 in float, so bytes/s / 120 bounds the evaluations
// per second of a model that does not fit in the caches (docs/performance.md).
// Run: build/bin/bench_memory --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <vector>

#include "backend/parallel.h"

using namespace vbd;

namespace {

constexpr size_t kReadDoubles = size_t(32) << 20;   // 256 MB
constexpr size_t kTriadDoubles = size_t(16) << 20;  // 3 x 128 MB

void BM_Read(benchmark::State& st) {
    ThreadLimit limit(int(st.range(0)));
    std::vector<double> a(kReadDoubles, 1.0);
    for (auto _ : st) {
        const double s = reduceSum<double>(
            a.size() / 1024,
            [&](size_t b) {
                // 8 independent sums, so the loop is bound by loads, not by the latency of one add chain
                double t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                for (size_t i = b * 1024; i < (b + 1) * 1024; i += 8)
                    for (size_t j = 0; j < 8; ++j) t[j] += a[i + j];
                return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
            },
            64);
        benchmark::DoNotOptimize(s);
    }
    st.counters["bytes"] =
        benchmark::Counter(double(a.size() * sizeof(double)), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Triad(benchmark::State& st) {
    ThreadLimit limit(int(st.range(0)));
    std::vector<double> a(kTriadDoubles, 0.0), b(kTriadDoubles, 1.0), c(kTriadDoubles, 2.0);
    for (auto _ : st) {
        parallelFor(
            a.size() / 4096,
            [&](size_t k) {
                for (size_t i = k * 4096; i < (k + 1) * 4096; ++i) a[i] = b[i] + 3.0 * c[i];
            },
            16);
        benchmark::ClobberMemory();
    }
    st.counters["bytes"] = benchmark::Counter(double(3 * a.size() * sizeof(double)),
                                              benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_Read)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Triad)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
