#include "gpu/body_instances.h"

#include <stdexcept>

namespace vbd {

BodyInstanceTable bodyInstanceTable(const std::vector<RigidBodyView>& bodies,
                                    const std::vector<std::array<float, 3>>& colors) {
    if (colors.size() < bodies.size()) throw std::invalid_argument("bodyInstanceTable: a colour per body");
    BodyInstanceTable t;
    t.items.reserve(bodies.size());
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < bodies.size(); ++i) {
            const RigidBodyView& b = bodies[i];
            const bool box = b.shape == ShapeType::Box;
            if (box != (pass == 0)) continue;
            BodyInstanceShape s;
            s.body = int(i);
            s.box = box ? 1 : 0;
            s.half = b.size * 0.5f;  // RigidBodyView::size = 2 * half: exact both ways
            s.radius = b.radius;
            s.halfHeight = b.shape == ShapeType::Capsule ? b.halfHeight : 0.0f;
            for (int c = 0; c < 3; ++c) s.color[c] = colors[i][size_t(c)];
            t.items.push_back(s);
        }
    for (const BodyInstanceShape& s : t.items) t.boxes += s.box;
    return t;
}

void fillBodyInstances(const std::vector<RigidBodyView>& bodies, const BodyInstanceTable& table,
                       BodyInstanceRecord* out) {
    for (size_t k = 0; k < table.items.size(); ++k) {
        const BodyInstanceShape& s = table.items[k];
        if (s.body < 0 || size_t(s.body) >= bodies.size())
            throw std::out_of_range("fillBodyInstances: the table names a body the World does not have");
        out[k] = bodyInstanceRecord(bodies[size_t(s.body)].position, bodies[size_t(s.body)].rotation, s);
    }
}

}  // namespace vbd
