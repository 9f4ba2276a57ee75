// The hover readout's tooltip fits the text of the frame it is drawn in (gui/tooltip.h). Dear ImGui runs here
// without a renderer: a context, its default font atlas and frames ended with ImGui::Render().
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <string>

#include "gui/tooltip.h"

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

}  // namespace
