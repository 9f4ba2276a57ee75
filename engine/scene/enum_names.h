#pragma once
// One table of names per enum of the scene schema: scene parsing, --set, the writers and the GUI's combos all
// read these, so a name exists in exactly one place. Entries are in the enum's declaration order, so a GUI
// combo index is the entry index.
#include <cstddef>
#include <string>

#include "scene/scene_desc.h"

namespace vbd {

template <typename E>
struct EnumEntry {
    const char* name;
    E value;
};

template <typename E>
struct EnumNames;

template <>
struct EnumNames<DampingModel> {
    static constexpr EnumEntry<DampingModel> entries[] = {
        {"none", DampingModel::None}, {"naive", DampingModel::Naive}, {"internal", DampingModel::Internal}};
};
template <>
struct EnumNames<Precision> {
    static constexpr EnumEntry<Precision> entries[] = {{"float", Precision::Float},
                                                       {"double", Precision::Double}};
};
template <>
struct EnumNames<Backend> {
    static constexpr EnumEntry<Backend> entries[] = {
        {"cpu", Backend::Cpu}, {"cuda", Backend::Cuda}, {"auto", Backend::Auto}};
};
template <>
struct EnumNames<CoarseBasis> {
    static constexpr EnumEntry<CoarseBasis> entries[] = {{"element", CoarseBasis::Element},
                                                         {"stiff_rigid", CoarseBasis::StiffRigid},
                                                         {"patch_soft", CoarseBasis::PatchSoft},
                                                         {"aggregate", CoarseBasis::Aggregate}};
};
template <>
struct EnumNames<CoarseFilter> {
    static constexpr EnumEntry<CoarseFilter> entries[] = {{"none", CoarseFilter::None},
                                                          {"contrast", CoarseFilter::Contrast},
                                                          {"cross_color", CoarseFilter::CrossColor},
                                                          {"patch", CoarseFilter::Patch}};
};
template <>
struct EnumNames<CoarseMatrix> {
    static constexpr EnumEntry<CoarseMatrix> entries[] = {{"hessian", CoarseMatrix::Hessian},
                                                          {"rest", CoarseMatrix::Rest}};
};
template <>
struct EnumNames<ShapeType> {
    static constexpr EnumEntry<ShapeType> entries[] = {
        {"box", ShapeType::Box}, {"sphere", ShapeType::Sphere}, {"capsule", ShapeType::Capsule}};
};
template <>
struct EnumNames<JointType> {
    static constexpr EnumEntry<JointType> entries[] = {
        {"ball", JointType::Ball}, {"fixed", JointType::Fixed}, {"hinge", JointType::Hinge}};
};

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
