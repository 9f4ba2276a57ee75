#pragma once
// Bad input is refused with "file: key: what is wrong" (DESIGN principle 6). Everything that reads
// user data (scene files, meshes, --set overrides, CLI values) throws InputError; the CLI maps it to
// exit code 2 and writes nothing.
#include <stdexcept>
#include <string>

namespace vbd {

class InputError : public std::runtime_error {
  public:
    InputError(std::string file, std::string key, std::string what)
        : std::runtime_error(compose(file, key, what)),
          file_(std::move(file)),
          key_(std::move(key)),
          detail_(std::move(what)) {}
    const std::string& file() const { return file_; }
    const std::string& key() const { return key_; }
    const std::string& detail() const { return detail_; }  // what() without the file and key

  private:
    static std::string compose(const std::string& f, const std::string& k, const std::string& w) {
        // No file: a command-line value (`--frames: must be >= 0`), named by its key alone.
        std::string s = f;
        if (!k.empty()) s += (s.empty() ? "" : ": ") + k;
        return s.empty() ? w : s + ": " + w;
    }
    std::string file_, key_, detail_;
};

// e with `file` named where it names none (a refusal raised where only the description is known, e.g. the
// World's solver.backend check): the caller that read the file knows it.
inline InputError namingFile(const InputError& e, const std::string& file) {
    return e.file().empty() ? InputError(file, e.key(), e.detail()) : e;
}

// "line L, column C" (1-based) of byte offset `byte` in text: the key of an InputError for a parse error
// that reports only an offset (nlohmann::json's parse_error::byte).
inline std::string textPosition(const std::string& text, size_t byte) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

}  // namespace vbd
