#include "coloring/coloring.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace vbd {

Graph graphFromElements(int numVertices, const std::vector<std::vector<int>>& elements) {
    std::vector<std::vector<int>> adj(static_cast<size_t>(numVertices));
    for (const auto& e : elements)
        for (int a : e)
            if (a < 0 || a >= numVertices)
                throw std::invalid_argument("graphFromElements: vertex " + std::to_string(a) +
                                            " out of range");
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

Graph vertexGraphFromTets(int numVertices, const std::vector<std::array<int, 4>>& tets) {
    for (const auto& t : tets)
        for (int a : t)
            if (a < 0 || a >= numVertices)
                throw std::invalid_argument("vertexGraphFromTets: vertex " + std::to_string(a) +
                                            " out of range");
    std::vector<std::pair<int, int>> e;
    e.reserve(tets.size() * 12);
    for (const auto& t : tets)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
                if (a != b && t[size_t(a)] != t[size_t(b)]) e.emplace_back(t[size_t(a)], t[size_t(b)]);
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    Graph g;
    g.offsets.assign(size_t(numVertices) + 1, 0);
    for (const auto& [a, b] : e) g.offsets[size_t(a) + 1]++;
    for (int v = 0; v < numVertices; ++v) g.offsets[size_t(v) + 1] += g.offsets[size_t(v)];
    g.items.reserve(e.size());
    for (const auto& p : e) g.items.push_back(p.second);
    return g;
}

namespace {

int smallestFreeColor(const Graph& g, int v, const std::vector<int>& color, std::vector<int>& mark,
                      int stamp) {
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

// Second balancing phase, for colorings where no single vertex of a large color may enter a smaller
// one (in a 4-colorable grid colored with 5 colors, every vertex of the largest color can touch all
// four others). Kempe interchanges: in the subgraph induced by colors a and b, swapping a and b inside
// one connected component keeps the coloring valid (its a-b edges stay bichromatic, and its vertices
// have no other a or b neighbours). A component with d more a's than b's moves d vertices from a to
// b. Components are taken (largest d first) while the total t stays <= (size[a] - size[b]) / 2; then
// size[a]^2 + size[b]^2 drops by 2 t (size[a] - size[b] - t) > 0, so the loop terminates.
// Components of the subgraph induced by colors a and b, seeded in vertex order: comp[v] = component id (or -1
// outside the subgraph); returns (surplus of a over b, id) per component.
std::vector<std::pair<int, int>> kempeComponents(const Graph& g, const std::vector<int>& color, int a, int b,
                                                 std::vector<int>& comp) {
    std::vector<std::pair<int, int>> surplus;
    std::vector<int> queue;
    std::fill(comp.begin(), comp.end(), -1);
    auto inPair = [&](int v) { return color[size_t(v)] == a || color[size_t(v)] == b; };
    for (int s = 0; s < g.rows(); ++s) {
        if (comp[size_t(s)] >= 0 || !inPair(s)) continue;
        const int id = int(surplus.size());
        int d = 0;
        queue.assign(1, s);
        comp[size_t(s)] = id;
        for (size_t h = 0; h < queue.size(); ++h) {
            const int v = queue[h];
            d += color[size_t(v)] == a ? 1 : -1;
            for (int k = g.begin(v); k < g.end(v); ++k) {
                const int u = g.items[size_t(k)];
                if (comp[size_t(u)] < 0 && inPair(u)) {
                    comp[size_t(u)] = id;
                    queue.push_back(u);
                }
            }
        }
        surplus.emplace_back(d, id);
    }
    return surplus;
}

// Moves vertices from color a to b by swapping whole a-b components (largest surplus first) within the budget
// (size[a] - size[b]) / 2. Returns the number moved.
int kempeSwap(const Graph& g, std::vector<int>& color, std::vector<int>& size, int a, int b,
              std::vector<int>& comp) {
    std::vector<std::pair<int, int>> surplus = kempeComponents(g, color, a, b, comp);
    std::stable_sort(surplus.begin(), surplus.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    const int budget = (size[size_t(a)] - size[size_t(b)]) / 2;
    int total = 0;
    std::vector<char> flip(surplus.size(), 0);
    for (const auto& [d, id] : surplus)
        if (d > 0 && total + d <= budget) {
            flip[size_t(id)] = 1;
            total += d;
        }
    if (total == 0) return 0;
    for (int v = 0; v < g.rows(); ++v)
        if (comp[size_t(v)] >= 0 && flip[size_t(comp[size_t(v)])])
            color[size_t(v)] = color[size_t(v)] == a ? b : a;
    size[size_t(a)] -= total;
    size[size_t(b)] += total;
    return total;
}

double balanceByKempe(const Graph& g, std::vector<int>& color, std::vector<int>& size, double ratio) {
    const int nc = int(size.size());
    auto currentRatio = [&]() {
        auto [mn, mx] = std::minmax_element(size.begin(), size.end());
        return double(*mx) / double(*mn);
    };
    std::vector<int> comp(static_cast<size_t>(g.rows()), -1);
    double r = currentRatio();
    for (int iter = 0; iter < 1024 && r > ratio; ++iter) {
        // Color pairs by decreasing size gap (ties: lower indices first).
        std::vector<std::pair<int, int>> pairs;
        for (int a = 0; a < nc; ++a)
            for (int b = 0; b < nc; ++b)
                if (size[size_t(a)] >= size[size_t(b)] + 2) pairs.emplace_back(a, b);
        std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
            return size[size_t(x.first)] - size[size_t(x.second)] >
                   size[size_t(y.first)] - size[size_t(y.second)];
        });
        bool swapped = false;
        for (const auto& [a, b] : pairs)
            if (kempeSwap(g, color, size, a, b, comp) > 0) {
                swapped = true;
                break;
            }
        if (!swapped) break;
        r = currentRatio();
    }
    return r;
}

// Smallest-last (Matula-Beck): peel off a vertex of least remaining degree until none is left and color in
// the reverse peeling order. When v is colored, only the neighbours peeled after it are colored, at most the
// graph's degeneracy k of them: at most k + 1 colors.
std::vector<int> smallestLastOrder(const Graph& g) {
    const int n = g.rows();
    std::vector<int> order(static_cast<size_t>(n)), deg(static_cast<size_t>(n));
    std::vector<char> gone(static_cast<size_t>(n), 0);
    int maxDeg = 0;
    for (int v = 0; v < n; ++v) maxDeg = std::max(maxDeg, deg[size_t(v)] = g.end(v) - g.begin(v));
    std::vector<std::vector<int>> buckets(size_t(maxDeg) + 1);
    for (int v = n - 1; v >= 0; --v) buckets[size_t(deg[size_t(v)])].push_back(v);
    int low = 0;
    for (int it = n - 1; it >= 0; --it) {
        int v = -1;
        while (v < 0) {
            while (buckets[size_t(low)].empty()) ++low;
            const int cand = buckets[size_t(low)].back();
            buckets[size_t(low)].pop_back();
            if (!gone[size_t(cand)] && deg[size_t(cand)] == low) v = cand;
        }
        gone[size_t(v)] = 1;
        order[size_t(it)] = v;
        for (int k = g.begin(v); k < g.end(v); ++k) {
            const int u = g.items[size_t(k)];
            if (gone[size_t(u)]) continue;
            const int d = --deg[size_t(u)];
            buckets[size_t(d)].push_back(u);
            low = std::min(low, d);
        }
    }
    return order;
}

// Maximum cardinality search: repeatedly take the unvisited vertex with most visited neighbours; O(V + E)
// with bucket lists. Ties go to the vertex raised last (LIFO buckets; vertex 0 first). Entries are removed
// lazily: a vertex raised from w to w + 1 leaves a stale entry in bucket w, skipped because its weight no
// longer matches. Every unvisited vertex has a live entry in bucket weight[v] <= top, so the search never
// pops an empty bucket 0.
std::vector<int> maximumCardinalityOrder(const Graph& g) {
    const int n = g.rows();
    std::vector<int> order(static_cast<size_t>(n)), weight(static_cast<size_t>(n), 0);
    std::vector<char> done(static_cast<size_t>(n), 0);
    std::vector<std::vector<int>> buckets(1);
    for (int v = n - 1; v >= 0; --v) buckets[0].push_back(v);
    int top = 0;
    for (int it = 0; it < n; ++it) {
        int v = -1;
        while (v < 0) {
            while (top > 0 && buckets[size_t(top)].empty()) --top;
            auto& b = buckets[size_t(top)];
            const int cand = b.back();
            b.pop_back();
            if (!done[size_t(cand)] && weight[size_t(cand)] == top) v = cand;
        }
        done[size_t(v)] = 1;
        order[size_t(it)] = v;
        for (int k = g.begin(v); k < g.end(v); ++k) {
            const int u = g.items[size_t(k)];
            if (done[size_t(u)]) continue;
            const int w = ++weight[size_t(u)];
            if (size_t(w) >= buckets.size()) buckets.resize(size_t(w) + 1);
            buckets[size_t(w)].push_back(u);
            top = std::max(top, w);
        }
    }
    return order;
}

}  // namespace

std::vector<int> colorGraph(const Graph& g, ColoringMethod method) {
    const int n = g.rows();
    std::vector<int> order;
    if (method == ColoringMethod::SmallestLast) {
        order = smallestLastOrder(g);
    } else if (method == ColoringMethod::GreedyDegree) {
        // Largest degree first (Welsh-Powell), ties by index: a counting sort on the degree, the order of a
        // stable sort by decreasing degree in O(n) (the rigid solver recolors its bodies every step).
        int maxDegree = 0;
        for (int v = 0; v < n; ++v) maxDegree = std::max(maxDegree, int(g.end(v) - g.begin(v)));
        std::vector<int> start(size_t(maxDegree) + 2, 0);
        for (int v = 0; v < n; ++v) ++start[size_t(maxDegree - int(g.end(v) - g.begin(v))) + 1];
        for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
        order.resize(static_cast<size_t>(n));
        for (int v = 0; v < n; ++v)
            order[size_t(start[size_t(maxDegree - int(g.end(v) - g.begin(v)))]++)] = v;
    } else {
        order = maximumCardinalityOrder(g);
    }
    std::vector<int> color(static_cast<size_t>(n), -1), mark;
    int stamp = 0;
    for (int v : order) color[size_t(v)] = smallestFreeColor(g, v, color, mark, stamp++);
    return color;
}

double balanceColors(const Graph& g, std::vector<int>& color, double ratio) {
    const int n = g.rows();
    if (int(color.size()) != n) throw std::invalid_argument("balanceColors: color has the wrong size");
    for (int c : color)
        if (c < 0) throw std::invalid_argument("balanceColors: uncolored vertex");
    // Renumber away empty colors (their size would make the ratio infinite), keeping the order.
    int nc = 0;
    for (int c : color) nc = std::max(nc, c + 1);
    std::vector<int> size(static_cast<size_t>(nc), 0), renum(size_t(nc), -1);
    for (int c : color) size[size_t(c)]++;
    int kept = 0;
    for (int c = 0; c < nc; ++c)
        if (size[size_t(c)] > 0) renum[size_t(c)] = kept++;
    for (int& c : color) c = renum[size_t(c)];
    nc = kept;
    if (nc <= 1) return 1.0;
    size.assign(size_t(nc), 0);
    for (int c : color) size[size_t(c)]++;
    auto currentRatio = [&]() {
        auto [mn, mx] = std::minmax_element(size.begin(), size.end());
        return double(*mx) / double(*mn);
    };
    // Each move takes a vertex from color c to an admissible color d with size[d] + 1 < size[c], which
    // strictly lowers sum(size^2): the loop terminates. Of the admissible colors the smallest is taken
    // (ties: lowest index), so the smallest color grows first and the ratio falls fastest.
    std::vector<int> forbidden(static_cast<size_t>(nc), -1);
    double r = currentRatio();
    for (int pass = 0; pass < 32 && r > ratio; ++pass) {
        bool moved = false;
        for (int v = 0; v < n && r > ratio; ++v) {
            const int c = color[size_t(v)];
            for (int k = g.begin(v); k < g.end(v); ++k)
                forbidden[size_t(color[size_t(g.items[size_t(k)])])] = v;
            int best = c;
            for (int d = 0; d < nc; ++d)
                if (forbidden[size_t(d)] != v && size[size_t(d)] + 1 < size[size_t(best)]) best = d;
            if (best != c) {
                size[size_t(c)]--;
                size[size_t(best)]++;
                color[size_t(v)] = best;
                moved = true;
                r = currentRatio();
            }
        }
        if (!moved) break;
    }
    if (r > ratio) r = balanceByKempe(g, color, size, ratio);
    return r;
}

bool validateColoring(const Graph& g, const std::vector<int>& color, std::string* why) {
    if (int(color.size()) != g.rows()) {
        if (why)
            *why = "coloring has " + std::to_string(color.size()) + " entries for " +
                   std::to_string(g.rows()) + " vertices";
        return false;
    }
    for (int v = 0; v < g.rows(); ++v) {
        if (color[size_t(v)] < 0) {
            if (why) *why = "vertex " + std::to_string(v) + " has no color";
            return false;
        }
        for (int k = g.begin(v); k < g.end(v); ++k) {
            int u = g.items[size_t(k)];
            if (u < 0 || u >= g.rows()) {
                if (why)
                    *why = "vertex " + std::to_string(v) + " has neighbour " + std::to_string(u) +
                           " out of range";
                return false;
            }
            if (color[size_t(u)] == color[size_t(v)]) {
                if (why)
                    *why = "edge (" + std::to_string(std::min(u, v)) + ", " + std::to_string(std::max(u, v)) +
                           "): both vertices have color " + std::to_string(color[size_t(v)]);
                return false;
            }
        }
    }
    return true;
}

ColoringStats coloringStats(const std::vector<int>& color) {
    ColoringStats s;
    for (int c : color) s.numColors = std::max(s.numColors, c + 1);
    if (s.numColors == 0) return s;
    std::vector<int> size(size_t(s.numColors), 0);
    for (int c : color)
        if (c >= 0) size[size_t(c)]++;
    auto [mn, mx] = std::minmax_element(size.begin(), size.end());
    s.minSize = *mn;
    s.maxSize = *mx;
    s.ratio = *mn > 0 ? double(*mx) / double(*mn) : std::numeric_limits<double>::infinity();
    return s;
}

std::vector<std::vector<int>> colorGroups(const std::vector<int>& color) {
    int nc = 0;
    for (int c : color) nc = std::max(nc, c + 1);
    std::vector<std::vector<int>> groups(static_cast<size_t>(nc));
    for (size_t v = 0; v < color.size(); ++v)
        if (color[v] >= 0) groups[size_t(color[v])].push_back(int(v));
    return groups;
}

}  // namespace vbd
