#include "experiments/png_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>

namespace vbd::experiments {

namespace {

struct Canvas {
    int w, h;
    std::vector<unsigned char> px;
    Canvas(int w_, int h_) : w(w_), h(h_), px(size_t(w_ * h_ * 3), 255) {}
    void set(int x, int y, const std::array<unsigned char, 3>& c) {
        if (x < 0 || y < 0 || x >= w || y >= h) return;
        for (int k = 0; k < 3; ++k) px[(size_t(y) * size_t(w) + size_t(x)) * 3 + size_t(k)] = c[size_t(k)];
    }
    void dot(int x, int y, int r, const std::array<unsigned char, 3>& c) {
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx)
                if (dx * dx + dy * dy <= r * r) set(x + dx, y + dy, c);
    }
    // Bresenham with a round brush; dashed lines skip every other 8-pixel run.
    void line(int x0, int y0, int x1, int y1, const std::array<unsigned char, 3>& c, int thick,
              bool dashed = false) {
        int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
        int err = dx + dy, step = 0;
        for (;;) {
            if (!dashed || (step / 8) % 2 == 0) dot(x0, y0, thick / 2, c);
            ++step;
            if (x0 == x1 && y0 == y1) break;
            const int e2 = 2 * err;
            if (e2 >= dy) {
                err += dy;
                x0 += sx;
            }
            if (e2 <= dx) {
                err += dx;
                y0 += sy;
            }
        }
    }
    void ring(int x, int y, int r, const std::array<unsigned char, 3>& c) {
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx) {
                const int d = dx * dx + dy * dy;
                if (d <= r * r && d >= (r - 2) * (r - 2)) set(x + dx, y + dy, c);
            }
    }
    // stb_easy_font emits axis-aligned quads (4 vertices of 16 bytes); fill them, scaled.
    void text(int x, int y, const std::string& s, const std::array<unsigned char, 3>& c, int scale = 1) {
        static char buf[60000];
        std::string t = s;
        const int quads = stb_easy_font_print(0, 0, &t[0], nullptr, buf, sizeof(buf));
        for (int q = 0; q < quads; ++q) {
            const float* v = reinterpret_cast<const float*>(buf + q * 64);
            const int qx0 = int(v[0] * scale), qy0 = int(v[1] * scale), qx1 = int(v[8] * scale),
                      qy1 = int(v[9] * scale);
            for (int yy = qy0; yy < qy1; ++yy)
                for (int xx = qx0; xx < qx1; ++xx) set(x + xx, y + yy, c);
        }
    }
    int textWidth(const std::string& s, int scale = 1) {
        std::string t = s;
        return stb_easy_font_width(&t[0]) * scale;
    }
};

}  // namespace

std::array<unsigned char, 3> paletteColor(int i) {
    static const std::array<unsigned char, 3> p[] = {
        {0, 0, 0},      {230, 25, 75},  {60, 140, 60},   {0, 90, 200},   {245, 130, 48}, {145, 30, 180},
        {70, 170, 200}, {170, 110, 40}, {128, 128, 128}, {240, 50, 230}, {100, 100, 0}};
    return p[size_t(i) % (sizeof(p) / sizeof(p[0]))];
}

bool writeLinePlot(const std::string& path, const PlotSpec& sp, const std::vector<PlotSeries>& series) {
    Canvas cv(sp.width, sp.height);
    const int left = 80, right = 330, top = 40, bottom = 60;
    const int pw = sp.width - left - right, ph = sp.height - top - bottom;
    auto tx = [&](double v) { return sp.logX ? std::log10(v) : v; };
    auto ty = [&](double v) { return sp.logY ? std::log10(v) : v; };
    const double x0 = tx(sp.xmin), x1 = tx(sp.xmax), y0 = ty(sp.ymin), y1 = ty(sp.ymax);
    auto px = [&](double v) { return left + int(std::lround((tx(v) - x0) / (x1 - x0) * pw)); };
    auto py = [&](double v) {
        const double t = std::min(std::max((ty(v) - y0) / (y1 - y0), -0.02), 1.02);
        return top + ph - int(std::lround(t * ph));
    };
    const std::array<unsigned char, 3> black{0, 0, 0}, grid{225, 225, 225};
    // Grid and ticks at decades (log) or 5 divisions (linear).
    auto ticks = [](double a, double b, bool lg) {
        std::vector<double> t;
        if (lg) {
            for (int e = int(std::floor(a)); e <= int(std::ceil(b)); ++e)
                if (e >= a - 1e-9 && e <= b + 1e-9) t.push_back(std::pow(10.0, e));
        } else {
            for (int k = 0; k <= 5; ++k) t.push_back(a + (b - a) * k / 5);
        }
        return t;
    };
    for (double v : ticks(x0, x1, sp.logX)) {
        const int X = px(v);
        cv.line(X, top, X, top + ph, grid, 1);
        char s[32];
        if (sp.logX)
            std::snprintf(s, sizeof(s), "1e%d", int(std::lround(std::log10(v))));
        else
            std::snprintf(s, sizeof(s), "%.3g", v);
        cv.text(X - cv.textWidth(s, 2) / 2, top + ph + 8, s, black, 2);
    }
    for (double v : ticks(y0, y1, sp.logY)) {
        const int Y = py(v);
        cv.line(left, Y, left + pw, Y, grid, 1);
        char s[32];
        if (sp.logY)
            std::snprintf(s, sizeof(s), "1e%d", int(std::lround(std::log10(v))));
        else
            std::snprintf(s, sizeof(s), "%.3g", v);
        cv.text(left - 8 - cv.textWidth(s, 2), Y - 7, s, black, 2);
    }
    cv.line(left, top, left, top + ph, black, 2);
    cv.line(left, top + ph, left + pw, top + ph, black, 2);
    cv.text(left, 10, sp.title, black, 2);
    cv.text(left + pw / 2 - cv.textWidth(sp.xlabel, 2) / 2, sp.height - 26, sp.xlabel, black, 2);
    cv.text(6, top - 18, sp.ylabel, black, 2);
    int ly = top + 4;
    for (const PlotSeries& s : series) {
        for (size_t i = 0; i + 1 < s.x.size(); ++i)
            cv.line(px(s.x[i]), py(s.y[i]), px(s.x[i + 1]), py(s.y[i + 1]), s.color, 3, s.dashed);
        for (size_t i = 0; i < s.x.size(); ++i) {
            if (i < s.censored.size() && s.censored[i])
                cv.ring(px(s.x[i]), py(s.y[i]), 6, s.color);
            else
                cv.dot(px(s.x[i]), py(s.y[i]), 4, s.color);
        }
        cv.line(left + pw + 12, ly + 7, left + pw + 40, ly + 7, s.color, 3, s.dashed);
        cv.text(left + pw + 46, ly, s.name, black, 2);
        ly += 22;
    }
    return stbi_write_png(path.c_str(), sp.width, sp.height, 3, cv.px.data(), sp.width * 3) != 0;
}

}  // namespace vbd::experiments
