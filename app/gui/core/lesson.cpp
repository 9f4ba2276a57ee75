#include "gui/core/lesson.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "math/error.h"
#include "math/input_file.h"

namespace vbdgui {

namespace fs = std::filesystem;

namespace {

// Never a FIFO or a device (math/input_file.h): a lesson's actions.json made a FIFO hung the app.
std::string readText(const std::string& path) { return vbd::readInputFile(path, "", vbd::kMaxJsonFileBytes); }

std::string trim(const std::string& s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    const size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

bool isLessonFolder(const fs::path& p) {
    const std::string n = p.filename().string();
    return n.size() > 3 && std::isdigit(static_cast<unsigned char>(n[0])) &&
           std::isdigit(static_cast<unsigned char>(n[1])) && n[2] == '-' && fs::exists(p / "lesson.md");
}

// Appends a line of a step's body: "> " lines are what to look at, the rest is the text.
void addBodyLine(LessonStep& st, const std::string& line) {
    const std::string t = trim(line);
    if (t.rfind(">", 0) == 0) {
        st.look += (st.look.empty() ? "" : " ") + trim(t.substr(1));
        return;
    }
    if (t.empty()) {
        if (!st.text.empty() && st.text.back() != '\n') st.text += "\n";
        return;
    }
    if (!st.text.empty() && st.text.back() != '\n') st.text += " ";
    st.text += t;
}

}  // namespace

std::vector<std::string> listLessons(const std::string& root) {
    std::vector<std::string> out;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return out;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && isLessonFolder(e.path())) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string lessonsRoot() {
    if (fs::is_directory("assets/lessons")) return "assets/lessons";
    return (fs::path(VBD_SOURCE_DIR) / "assets" / "lessons").string();
}

std::string findLesson(const std::string& name) {
    if (name.empty()) return "";
    if (fs::is_directory(name) && fs::exists(fs::path(name) / "lesson.md")) return name;
    for (const std::string& dir : listLessons(lessonsRoot())) {
        const std::string n = fs::path(dir).filename().string();
        const std::string number = n.substr(0, 2), word = n.substr(3);
        const bool digits = std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(c); });
        if (n == name || word == name || (digits && std::atoi(number.c_str()) == std::atoi(name.c_str())))
            return dir;
    }
    return "";
}

void parseLessonText(const std::string& text, const std::string& file, Lesson& out) {
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    out.steps.clear();
    while (std::getline(in, line)) {
        ++lineNo;
        const std::string t = trim(line);
        if (t.rfind("## ", 0) == 0) {
            LessonStep st;
            st.title = trim(t.substr(3));
            out.steps.push_back(st);
        } else if (t.rfind("# ", 0) == 0) {
            if (!out.title.empty() || !out.steps.empty())
                throw vbd::InputError(file, "line " + std::to_string(lineNo),
                                      "one \"# Title\" line, before the first \"## Step\"");
            out.title = trim(t.substr(2));
        } else if (!out.steps.empty()) {
            addBodyLine(out.steps.back(), line);
        } else if (!t.empty() && out.title.empty()) {
            throw vbd::InputError(file, "line " + std::to_string(lineNo), "must start with \"# Title\"");
        }
    }
    if (out.title.empty()) throw vbd::InputError(file, "", "no \"# Title\" line");
    if (out.steps.empty()) throw vbd::InputError(file, "", "no steps (\"## Step title\" sections)");
    for (size_t i = 0; i < out.steps.size(); ++i) {
        LessonStep& st = out.steps[i];
        while (!st.text.empty() && st.text.back() == '\n') st.text.pop_back();
        if (st.title.empty() || st.text.empty())
            throw vbd::InputError(file, "step " + std::to_string(i + 1), "needs a title and text");
    }
}

Lesson loadLesson(const std::string& nameOrDir, const ActionContext& ctx) {
    const std::string dir = findLesson(nameOrDir);
    if (dir.empty()) {
        std::string all;
        for (const std::string& d : listLessons(lessonsRoot()))
            all += (all.empty() ? "" : ", ") + fs::path(d).filename().string();
        throw vbd::InputError("--lesson", "", "no lesson '" + nameOrDir + "' (lessons: " + all + ")");
    }
    Lesson L;
    L.dir = dir;
    L.name = fs::path(dir).lexically_normal().filename().string();
    if (L.name.empty()) L.name = fs::path(dir).lexically_normal().parent_path().filename().string();
    const std::string md = (fs::path(dir) / "lesson.md").string();
    parseLessonText(readText(md), md, L);
    const std::string actions = (fs::path(dir) / "actions.json").string();
    const std::string text = readText(actions);
    try {
        L.script = parseActions(text, actions, ctx);
    } catch (const vbd::InputError& e) {
        // Name the lesson and the step (steps[K] in the key is 0-based; people count from 1).
        std::smatch m;
        const std::string key = e.key();
        std::string where = "lesson " + L.name;
        if (std::regex_search(key, m, std::regex("^steps\\[([0-9]+)\\]"))) {
            const size_t k = size_t(std::stoul(m[1]));
            where += ", step " + std::to_string(k + 1);
            if (k < L.steps.size()) where += " \"" + L.steps[k].title + "\"";
        }
        throw vbd::InputError(e.file(), key, e.detail() + " (" + where + ")");
    }
    if (L.script.steps.size() != L.steps.size() || text.find("\"steps\"") == std::string::npos)
        throw vbd::InputError(actions, "steps",
                              "must be {\"steps\": [...]} with one group per step of lesson.md (" +
                                  std::to_string(L.steps.size()) + " steps there, " +
                                  std::to_string(L.script.steps.size()) + " here)");
    return L;
}

std::string plainText(const std::string& markdown) {
    std::string s;
    for (size_t i = 0; i < markdown.size(); ++i) {
        if (markdown.compare(i, 2, "**") == 0) {
            ++i;
            continue;
        }
        s += markdown[i];
    }
    return s;
}

std::vector<std::string> quotedNumbers(const std::string& markdown) {
    std::vector<std::string> out;
    size_t at = 0;
    for (;;) {
        const size_t a = markdown.find("**", at);
        if (a == std::string::npos) break;
        const size_t b = markdown.find("**", a + 2);
        if (b == std::string::npos) break;
        const std::string span = markdown.substr(a + 2, b - a - 2);
        double v = 0;
        if (firstNumber(span, v)) out.push_back(span);
        at = b + 2;
    }
    return out;
}

bool firstNumber(const std::string& s, double& value) {
    static const std::regex number("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
    std::smatch m;
    if (!std::regex_search(s, m, number)) return false;
    value = std::strtod(m.str().c_str(), nullptr);
    return true;
}

std::string stepScreenshotName(const Lesson& lesson, int step) {
    return lesson.name + "-step" + std::to_string(step + 1) + ".png";
}

}  // namespace vbdgui
