#pragma once
// Backtracking shared by the coarse corrections: alpha in {1, 1/2, ..., 1/32}, the first whose exact change
// of G is <= 0; none: the correction is skipped, so it never increases G. Disabled (tests, benchmarks): alpha
// = 1.
namespace vbd::coarse {

struct LineSearchResult {
    bool accepted = false;
    double alpha = 0;
};

template <typename DeltaG>
LineSearchResult backtrack(DeltaG&& deltaG, bool enabled, int tries = 6) {
    if (!enabled) return {true, 1.0};
    double alpha = 1;
    for (int k = 0; k < tries; ++k, alpha *= 0.5)
        if (deltaG(alpha) <= 0) return {true, alpha};
    return {false, 0.0};
}

}  // namespace vbd::coarse
