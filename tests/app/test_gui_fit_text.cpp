// The hover readout's tooltip fits the text of the frame it is drawn in (gui/fit_text.h). Dear ImGui runs
// here without a renderer: a context, its default font atlas and frames ended with ImGui::Render().
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "gui/fit_text.h"

namespace {

class Gui : public ::testing::Test {
  protected:
    void SetUp() override {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(1280, 720);
        io.DeltaTime = 1.0f / 60;
        io.IniFilename = nullptr;
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
        io.MousePos = ImVec2(400, 300);
    }
    void TearDown() override { ImGui::DestroyContext(); }

    // One frame showing `text`; returns the tooltip window's width, and the width its text needs.
    float frame(const std::string& text, float* needed) {
        ImGui::NewFrame();
        vbdgui::fittedTooltip(text);
        ImGuiWindow* w = ImGui::FindWindowByName("##Tooltip_00");
        const float width = w ? w->Size.x : 0;
        *needed = ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().WindowPadding.x;
        ImGui::Render();
        return width;
    }
};

TEST_F(Gui, ATooltipWhoseTextGrowsFitsItInTheSameFrame) {
    float needed = 0;
    frame("vertex 12\nresidual |grad_i G| = 1.2", &needed);
    frame("vertex 12\nresidual |grad_i G| = 1.2", &needed);
    // The value gains digits and the vertex number grows (the readout after a step): ImGui's own sizing
    // would draw this frame at the previous frame's width, 6 characters narrower.
    const float width = frame("vertex 123456\nresidual |grad_i G| = 1.23456e-07", &needed);
    EXPECT_GE(width, needed - 0.5f);
    // Shrinking too: the tooltip does not keep the wider frame's width.
    const float narrow = frame("vertex 1\nx = 0", &needed);
    EXPECT_GE(narrow, needed - 0.5f);
    EXPECT_LT(narrow, width - 50);
}

TEST_F(Gui, AnEmptyTextShowsNoTooltip) {
    float needed = 0;
    EXPECT_EQ(frame("", &needed), 0.0f);
}

std::vector<std::string> linesOf(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

float widthOf(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }

TEST_F(Gui, CaptionLinesFitTheirRoom) {
    ImGui::NewFrame();
    const std::string caption = "left\nsoft_bodies.0.material.youngs = 200000.0\nsolver.iterations = 12";
    // Wide enough: unchanged.
    EXPECT_EQ(vbdgui::fitLines(caption, 1000), caption);
    // Room for the key but not the line: the long setting breaks after " = ", its value indented; the short
    // one stays whole.
    const float room = 230;
    ASSERT_GT(widthOf("soft_bodies.0.material.youngs = 200000.0"), room);
    const auto lines = linesOf(vbdgui::fitLines(caption, room));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0], "left");
    EXPECT_EQ(lines[1], "soft_bodies.0.material.youngs =");
    EXPECT_EQ(lines[2], "  200000.0");
    EXPECT_EQ(lines[3], "solver.iterations = 12");
    // Narrower than the key itself: every line is cut to the room and says so.
    for (float narrow : {180.0f, 60.0f}) {
        for (const std::string& l : linesOf(vbdgui::fitLines(caption, narrow))) {
            EXPECT_LE(widthOf(l), narrow) << l;
        }
        // Half of a 400-pixel view (the default window's side by side) and less: the key keeps the end that
        // names the setting, the value its start.
        const auto cut = linesOf(vbdgui::fitLines(caption, narrow));
        ASSERT_EQ(cut.size(), narrow > 160 ? 4u : 5u);  // at 60 pixels the short setting breaks too
        EXPECT_EQ(cut[1].substr(0, 3), "...");
        EXPECT_EQ(cut[1].substr(cut[1].size() - 3), "s =");
        EXPECT_EQ(cut[2].substr(0, 3), "  2");
    }
    ImGui::Render();
}

TEST_F(Gui, AStatusLineIsCutAtItsEnd) {
    ImGui::NewFrame();
    const std::string line = "frame 12  t = 0.200 s  |  729 vertices  |  step 2.1 ms  |  60 FPS";
    EXPECT_EQ(vbdgui::cutLine(line, 2000), line);
    const std::string cut = vbdgui::cutLine(line, 200);
    EXPECT_LE(widthOf(cut), 200);
    EXPECT_EQ(cut.substr(0, 10), "frame 12  ");  // one line, its start kept (no break at " = ")
    EXPECT_EQ(cut.find('\n'), std::string::npos);
    EXPECT_EQ(cut.substr(cut.size() - 3), "...");
    // Never inside a UTF-8 character: every cut of "Wärmeleitung" keeps "ä" (0xC3 0xA4) whole or drops it.
    const std::string word = "W\xC3\xA4rmeleitung \xC3\xA4\xC3\xA4\xC3\xA4";
    for (float w = 10; w < 160; w += 3) {
        for (const std::string& c : {vbdgui::cutLine(word, w), vbdgui::fitLines("k = " + word, w)}) {
            for (size_t i = 0; i < c.size(); ++i) {
                const auto b = static_cast<unsigned char>(c[i]);
                if (b == 0xC3) {
                    ASSERT_LT(i + 1, c.size()) << w;
                    EXPECT_EQ(static_cast<unsigned char>(c[i + 1]), 0xA4) << w << " " << c;
                }
                if (b == 0xA4) {
                    ASSERT_GT(i, 0u) << w << " " << c;
                    EXPECT_EQ(static_cast<unsigned char>(c[i - 1]), 0xC3) << w << " " << c;
                }
            }
        }
    }
    ImGui::Render();
}

TEST_F(Gui, PartsArePackedByTheirWidestFormsSoThatLinesKeepTheirPlace) {
    ImGui::NewFrame();
    const std::string sep = "  |  ";
    const vbdgui::LinePart clock{"frame 7  t = 0.058 s", "frame 000000  t = 0000.000 s"};
    const vbdgui::LinePart counts{"729 vertices", "000000 vertices"};
    const vbdgui::LinePart speed{"step 2.1 ms  |  60 FPS", "step 0000.0 ms  |  000 FPS"};
    const float all = widthOf(clock.widest + sep + counts.widest + sep + speed.widest);
    const float two = widthOf(clock.widest + sep + counts.widest);
    // Room for all three at their widest: one line, this frame's text.
    EXPECT_EQ(vbdgui::packParts({clock, counts, speed}, sep, all),
              clock.text + sep + counts.text + sep + speed.text);
    // One pixel less: the speed breaks to its own line although this frame's text would fit on one (the
    // break does not wait for the digits that would push the line over).
    ASSERT_LT(widthOf(clock.text + sep + counts.text + sep + speed.text), all - 1);
    EXPECT_EQ(vbdgui::packParts({clock, counts, speed}, sep, all - 1),
              clock.text + sep + counts.text + "\n" + speed.text);
    // No room for the counts after the clock: they start the next line, with the speed after them.
    EXPECT_EQ(vbdgui::packParts({clock, counts, speed}, sep, two - 1),
              clock.text + "\n" + counts.text + sep + speed.text);
    // No room for two parts a line: one part a line.
    const float pair = std::min(two, widthOf(counts.widest + sep + speed.widest));
    const auto lines = linesOf(vbdgui::packParts({clock, counts, speed}, sep, pair - 1));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], clock.text);
    EXPECT_EQ(lines[1], counts.text);
    EXPECT_EQ(lines[2], speed.text);
    // A part wider than the room has a line of its own, cut to the room.
    for (const std::string& l : linesOf(vbdgui::packParts({clock, counts, speed}, sep, 60))) {
        EXPECT_LE(widthOf(l), 60) << l;
    }
    EXPECT_EQ(linesOf(vbdgui::packParts({clock, counts, speed}, sep, 60)).size(), 3u);
    ImGui::Render();
}

// The lessons' text broke inside numbers ("rho(BCD) = 0." / "3834"): Dear ImGui's wrapping breaks after '.'.
TEST_F(Gui, TextIsWrappedAtSpacesOnly) {
    ImGui::NewFrame();
    const std::string text = "Block descent converges at rho(BCD) = 0.3834 per sweep; CG's factor is 0.9387.";
    bool imguiBreaksAfterADot = false;
    for (float w = 70; w < 600; w += 7) {  // 70: room for the longest word
        const char* b = text.c_str();
        const char* const end = b + text.size();
        while (b < end) {
            const char* e = ImGui::GetFont()->CalcWordWrapPositionA(1.0f, b, end, w);
            e = e == b ? b + 1 : e;
            // A line ending in "0." with the number's digits on the next.
            imguiBreaksAfterADot |= e - b >= 2 && e[-1] == '.' && e[-2] == '0' && e < end && std::isdigit(*e);
            for (b = e; b < end && *b == ' ';) ++b;
        }
        const auto lines = linesOf(vbdgui::wrapWords(text, w));
        std::string joined;
        for (const std::string& l : lines) {
            EXPECT_LE(widthOf(l), w) << l;
            EXPECT_NE(l.back(), ' ') << l;
            joined += (joined.empty() ? "" : " ") + l;
        }
        EXPECT_EQ(joined, text) << w;  // every break is at a space, and nothing is lost
        for (const std::string& l : lines) EXPECT_NE(l.substr(l.size() - 2), "0.") << w;
    }
    EXPECT_TRUE(imguiBreaksAfterADot);  // what ImGui::TextWrapped did in this range
    // Its own line breaks and a line's leading spaces are kept; a word wider than the room (a path) is broken
    // where the room ends.
    EXPECT_EQ(vbdgui::wrapWords("a b\n  c", 1000), "a b\n  c");
    const std::string path = "/very/long/path/to/a/scene/file/that/does/not/fit.json";
    const auto cut = linesOf(vbdgui::wrapWords("scene error: " + path, 120));
    std::string rejoined;
    for (const std::string& l : cut) {
        EXPECT_LE(widthOf(l), 120) << l;
        rejoined += l;
    }
    EXPECT_EQ(rejoined, "scene error:" + path);
    ImGui::Render();
}

}  // namespace
