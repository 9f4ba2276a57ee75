#include "coloring/coloring.h"

#include <algorithm>
#include <numeric>

namespace vbd {

Graph graphFromElements(int numVertices, const std::vector<std::vector<int>>& elements) {
    std::vector<std::vector<int>> adj(size_t(numVertices));
    for (const auto& e : elements)
        for (int a : e)
            for (int b : e)
                if (a != b) adj[size_t(a)].push_back(b);
    Graph g;
    g.offsets.assign(size_t(numVertices) + 1, 0);
    for (int v = 0; v < numVertices; ++v) {
        auto& r = adj[size_t(v)];
        std::sort(r.begin(), r.end());
        r.erase(std::unique(r.begin(), r.end()), r.end());
        g.offsets[size_t(v) + 1] = g.offsets[size_t(v)] + int(r.size());
        g.items.insert(g.items.end(), r.begin(), r.end());
    }
    return g;
}

namespace {

int smallestFreeColor(const Graph& g, int v, const std::vector<int>& color, std::vector<int>& mark, int stamp) {
    for (int k = g.begin(v); k < g.end(v); ++k) {
        int c = color[size_t(g.items[size_t(k)])];
        if (c >= 0) {
            if (size_t(c) >= mark.size()) mark.resize(size_t(c) + 1, -1);
            mark[size_t(c)] = stamp;
        }
    }
    int c = 0;
    while (size_t(c) < mark.size() && mark[size_t(c)] == stamp) ++c;
    return c;
}

}  // namespace

std::vector<int> colorGraph(const Graph& g, ColoringMethod method) {
    const int n = g.rows();
    std::vector<int> color(size_t(n), -1), mark;
    std::vector<int> order(size_t(n));
    if (method == ColoringMethod::GreedyDegree) {
        // Largest degree first (Welsh-Powell), ties by index.
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return g.end(a) - g.begin(a) > g.end(b) - g.begin(b);
        });
    } else {
        // Maximum cardinality search: repeatedly take the unvisited vertex with most visited
        // neighbours (ties by index); O(V + E) with bucket lists.
        std::vector<int> weight(size_t(n), 0);
        std::vector<char> done(size_t(n), 0);
        std::vector<std::vector<int>> buckets(1);
        for (int v = n - 1; v >= 0; --v) buckets[0].push_back(v);
        int top = 0;
        for (int it = 0; it < n; ++it) {
            int v = -1;
            while (v < 0) {
                while (top > 0 && buckets[size_t(top)].empty()) --top;
                auto& b = buckets[size_t(top)];
                int cand = b.back();
                b.pop_back();
                if (!done[size_t(cand)] && weight[size_t(cand)] == top) v = cand;
            }
            done[size_t(v)] = 1;
            order[size_t(it)] = v;
            for (int k = g.begin(v); k < g.end(v); ++k) {
                int u = g.items[size_t(k)];
                if (done[size_t(u)]) continue;
                int w = ++weight[size_t(u)];
                if (size_t(w) >= buckets.size()) buckets.resize(size_t(w) + 1);
                buckets[size_t(w)].push_back(u);
                top = std::max(top, w);
            }
        }
    }
    int stamp = 0;
    for (int v : order) color[size_t(v)] = smallestFreeColor(g, v, color, mark, stamp++);
    return color;
}

double balanceColors(const Graph& g, std::vector<int>& color, double ratio) {
    const int n = g.rows();
    int nc = 0;
    for (int c : color) nc = std::max(nc, c + 1);
    if (nc <= 1) return 1.0;
    std::vector<int> size(size_t(nc), 0);
    for (int c : color) size[size_t(c)]++;
    auto currentRatio = [&]() {
        auto [mn, mx] = std::minmax_element(size.begin(), size.end());
        return *mn > 0 ? double(*mx) / double(*mn) : 1e30;
    };
    std::vector<char> forbidden(size_t(nc));
    for (int pass = 0; pass < 8 && currentRatio() > ratio; ++pass) {
        bool moved = false;
        for (int v = 0; v < n; ++v) {
            const int c = color[size_t(v)];
            std::fill(forbidden.begin(), forbidden.end(), 0);
            for (int k = g.begin(v); k < g.end(v); ++k) forbidden[size_t(color[size_t(g.items[size_t(k)])])] = 1;
            int best = c;
            for (int d = 0; d < nc; ++d)
                if (!forbidden[size_t(d)] && size[size_t(d)] + 1 < size[size_t(best)]) best = d;
            if (best != c) {
                size[size_t(c)]--;
                size[size_t(best)]++;
                color[size_t(v)] = best;
                moved = true;
            }
        }
        if (!moved) break;
    }
    return currentRatio();
}

bool validateColoring(const Graph& g, const std::vector<int>& color, std::string* why) {
    for (int v = 0; v < g.rows(); ++v) {
        if (color[size_t(v)] < 0) {
            if (why) *why = "vertex " + std::to_string(v) + " has no color";
            return false;
        }
        for (int k = g.begin(v); k < g.end(v); ++k) {
            int u = g.items[size_t(k)];
            if (color[size_t(u)] == color[size_t(v)]) {
                if (why)
                    *why = "vertices " + std::to_string(v) + " and " + std::to_string(u) + " share color " +
                           std::to_string(color[size_t(v)]);
                return false;
            }
        }
    }
    return true;
}

std::vector<std::vector<int>> colorGroups(const std::vector<int>& color) {
    int nc = 0;
    for (int c : color) nc = std::max(nc, c + 1);
    std::vector<std::vector<int>> groups(size_t(nc));
    for (size_t v = 0; v < color.size(); ++v) groups[size_t(color[v])].push_back(int(v));
    return groups;
}

}  // namespace vbd
