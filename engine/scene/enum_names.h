#pragma once
// One table of names per enum of the scene schema: scene parsing, --set, the writers and the GUI's combos all
// read these, so a name exists in exactly one place. Entries are in the enum's declaration order, so a GUI
// combo index is the entry index.
#include "math/enum_table.h"
#include "scene/scene_desc.h"

namespace vbd {

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

}  // namespace vbd
