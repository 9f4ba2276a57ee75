#pragma once
// Name tables for enums: a specialization EnumNames<E> lists {name, value} once, and the lookups below
// (name of a value, value of a name, the accepted names for messages) all read it. The scene schema's
// tables are in scene/enum_names.h, the lab's beside its enums.
#include <cstddef>
#include <string>

namespace vbd {

template <typename E>
struct EnumEntry {
    const char* name;
    E value;
};

template <typename E>
struct EnumNames;

template <typename E>
constexpr size_t enumCount() {
    return sizeof(EnumNames<E>::entries) / sizeof(EnumNames<E>::entries[0]);
}

// The entry index of a value (its combo index), or -1.
template <typename E>
constexpr int enumIndex(E v) {
    for (size_t i = 0; i < enumCount<E>(); ++i)
        if (EnumNames<E>::entries[i].value == v) return int(i);
    return -1;
}

template <typename E>
constexpr const char* enumName(E v) {
    const int i = enumIndex(v);
    return i < 0 ? "?" : EnumNames<E>::entries[i].name;
}

template <typename E>
bool enumFromName(const std::string& name, E& out) {
    for (const auto& e : EnumNames<E>::entries)
        if (name == e.name) {
            out = e.value;
            return true;
        }
    return false;
}

// "a, b, c": the accepted names, for error messages and help texts.
template <typename E>
std::string enumChoices() {
    std::string s;
    for (const auto& e : EnumNames<E>::entries) s += std::string(s.empty() ? "" : ", ") + e.name;
    return s;
}

}  // namespace vbd
