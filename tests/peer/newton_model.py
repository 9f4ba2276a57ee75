"""Builds a Newton model from a `vbdlab export` file (the model our solver builds), so that Newton's SolverVBD
runs the identical particles, tets, cloth triangles and hinges, masses and fixed vertices.

Mapping (our engine -> Newton 1.8.0, read from newton/_src/solvers/vbd/particle_vbd_kernels.py):

* Tets. Newton's kernel takes the Lame pair (k_mu, k_lambda) and shifts lambda_NH = k_lambda + k_mu inside
  (Smith et al. 2018, eq. 13), as our engine/energy/material.h does at build time. We store mu and lambda_nh,
  so k_mu = mu, k_lambda = lambda_nh - mu. Newton recomputes the rest volume as 1 / (6 det DmInv); we pass our
  DmInv, so it equals our volume up to float rounding. Same vertex weights m_a (rows of DmInv).
* Tet damping. Newton: f_a = -V k_damp sum_ij Cdot_ij dC_ij/dx_a with Cdot = (C - C_prev)/h, i.e. the
  gradient of Phi_N = (h V k_damp / 2) |Cdot|^2 = 2 h V k_damp |Edot|^2 with Edot = (C - C_prev)/(2h).
  Ours (energy/damping.h): Phi = h V k_d (mu |Edot|^2 + lambda_L/2 tr(Edot)^2). Matching the deviatoric
  (mu) term: k_damp = k_d mu / 2 [Pa s]. Newton has no bulk-viscosity term (lambda_L tr(Edot)^2): the two
  agree exactly for nu = 0 (lambda_L = 0) and ours damps volume change more otherwise.
* Membranes. Newton: energy area * psi(mu, lambda) with the same stable Neo-Hookean membrane and the same
  max(0, s) clamp; no thickness. Ours: volume * psi with volume = area * thickness, so tri_ke = mu * thickness,
  tri_ka = (lambda_nh - mu) * thickness (Lame shift as for tets). Damping as for tets on the 2x2 C:
  tri_kd = k_d mu thickness / 2. Rest frame: our 2x2 DmInv, same row-major layout (f0 = e1 d00 + e2 d10).
* Bending. Newton: E = 1/2 (edge_ke L0) (theta - theta0)^2, damping force -edge_kd L0 thetadot dtheta/dx.
  Ours: E = 1/2 kL (theta - theta0)^2, damping -k_d kL thetadot dtheta/dx. So edge_ke = kL / L0 and
  edge_kd = k_d kL / L0. Our hinge (x0, x1, x2, x3) has edge x0-x1 and wings x2 (triangle x0 x1 x2) and
  x3 (triangle x1 x0 x3); Newton's add_edge(i, j, k, l) has edge k-l and triangles (i, k, l), (j, l, k):
  i, j, k, l = x2, x3, x0, x1 (same orientation).
* Ground contact. Both: quadratic penalty k/2 d^2 on the penetration d of a vertex, gap-rate damping only
  while approaching, IPC friction with the same C1 mollifier (Newton's _regularized_coulomb_scale is our
  f1(y)/y). Newton's damping force is -(kd/h) n n^T dx = -kd gdot n, ours -c k gdot n, so
  soft_contact_kd = c k. Newton mixes friction as sqrt(mu_particle mu_shape): both set to ours. Newton
  treats a particle as a sphere of particle_radius; we give it PARTICLE_RADIUS (10 micrometres), so its
  contact plane sits that much higher than ours.
* Fixed vertices: mass 0 (Newton's inverse mass 0 keeps them at their position).
"""

import numpy as np
import warp as wp

import newton

PARTICLE_RADIUS = 1.0e-5
# Detection distance for particle-shape contacts: larger than a step's travel (a body falling 1 m reaches
# 4.4 m/s, 7 cm per 1/60 s step) so that a contact is found before it is penetrated.
SOFT_CONTACT_GAP = 0.1


def tet_materials(model_json, damping):
    t = model_json["tets"]
    mu = np.asarray(t["mu"], dtype=np.float64)
    lam_nh = np.asarray(t["lambda_nh"], dtype=np.float64)
    kd = np.asarray(t["kd"], dtype=np.float64)
    k_damp = kd * mu / 2.0 if damping == "internal" else np.zeros_like(kd)
    return mu, lam_nh - mu, k_damp


def check_supported(m):
    s = m["solver"]
    if s["damping"] == "naive":
        raise ValueError("Newton has no naive (Rayleigh) damping; run with solver.damping internal or none")
    if any(m["particles"]["kinematic"]):
        raise ValueError("moving fixed vertices are not mapped to Newton")
    for c in m["colliders"]:
        if c["type"] != "plane":
            raise ValueError("only the ground plane collider is mapped to Newton")


def build_soft(m, our_colors=False):
    """Returns (a finalized newton.Model of the exported particle model, whether it has a ground plane).
    our_colors: sweep in our color groups (the export's color_groups; fixed vertices, which Newton skips, join
    the first group) instead of Newton's own coloring, so both sweep the vertices in the same order."""
    check_supported(m)
    g = m["gravity"]
    builder = newton.ModelBuilder(up_axis=newton.Axis.Y, gravity=tuple(float(c) for c in g))
    p = m["particles"]
    x = np.asarray(p["x"], dtype=np.float32)
    v = np.asarray(p["v"], dtype=np.float32)
    mass = np.asarray(p["mass"], dtype=np.float64)
    fixed = np.asarray(p["fixed"], dtype=bool)
    mass = np.where(fixed, 0.0, mass)
    n = len(x)
    builder.add_particles(
        pos=[tuple(map(float, q)) for q in x],
        vel=[tuple(map(float, q)) for q in v],
        mass=mass.tolist(),
        radius=[PARTICLE_RADIUS] * n,
    )
    damping = m["solver"]["damping"]
    # Tets: our indices, DmInv and materials appended directly (add_tetrahedron would recompute DmInv from
    # the rest positions one tet at a time in Python: the same numbers, minutes for 500k tets).
    tets = m["tets"]
    if tets["indices"]:
        idx = np.asarray(tets["indices"], dtype=np.int32)
        dm = np.asarray(tets["DmInv"], dtype=np.float32).reshape(-1, 3, 3)
        k_mu, k_lambda, k_damp = tet_materials(m, damping)
        builder.tet_indices.extend(map(tuple, idx.tolist()))
        builder.tet_poses.extend(dm.tolist())
        builder.tet_activations.extend([0.0] * len(idx))
        builder.tet_materials.extend(zip(k_mu.tolist(), k_lambda.tolist(), k_damp.tolist()))
    tris = m["triangles"]
    if tris["indices"]:
        idx = np.asarray(tris["indices"], dtype=np.int32)
        area = np.asarray(tris["area"], dtype=np.float64)
        th = np.asarray(tris["volume"], dtype=np.float64) / area
        mu = np.asarray(tris["mu"], dtype=np.float64)
        lam = np.asarray(tris["lambda_nh"], dtype=np.float64) - mu
        kd = np.asarray(tris["kd"], dtype=np.float64)
        ke = mu * th
        ka = lam * th
        kdn = kd * mu * th / 2.0 if damping == "internal" else np.zeros_like(kd)
        dm = np.asarray(tris["DmInv"], dtype=np.float32).reshape(-1, 2, 2)
        builder.tri_indices.extend(map(tuple, idx.tolist()))
        builder.tri_poses.extend(dm.tolist())
        builder.tri_activations.extend([0.0] * len(idx))
        builder.tri_materials.extend(zip(ke.tolist(), ka.tolist(), kdn.tolist(), [0.0] * len(idx), [0.0] * len(idx)))
        builder.tri_areas.extend(area.tolist())
        builder.tri_color.extend([builder._DEFAULT_TRI_COLOR] * len(idx))
        builder.tri_opacity.extend([1.0] * len(idx))
    hinges = m["hinges"]
    if hinges["indices"]:
        h = np.asarray(hinges["indices"], dtype=np.int64)
        L0 = np.linalg.norm(x[h[:, 1]].astype(np.float64) - x[h[:, 0]].astype(np.float64), axis=1)
        kL = np.asarray(hinges["kL"], dtype=np.float64)
        kd = np.asarray(hinges["kd"], dtype=np.float64)
        ke = kL / L0
        kdn = kd * kL / L0 if damping == "internal" else np.zeros_like(kd)
        builder.add_edges(h[:, 2], h[:, 3], h[:, 0], h[:, 1], edge_ke=ke.tolist(), edge_kd=kdn.tolist())
    ground = None
    for c in m["colliders"]:
        if c["type"] == "plane":
            ground = c
    if ground is not None:
        cfg = newton.ModelBuilder.ShapeConfig()
        cfg.mu = float(ground["friction"])
        cfg.margin = 0.0
        builder.add_ground_plane(height=float(ground["center"][1]), cfg=cfg)
    # Same coloring method as ours (maximum cardinality search, balanced to a max/min ratio of 1.1); the bending
    # stencil's wing tips are coupled, as in ours.
    builder.color(include_bending=bool(hinges["indices"]))
    if our_colors:
        groups = [np.asarray(g, dtype=int) for g in m["color_groups"]]
        fixed_ids = np.nonzero(fixed)[0]
        if len(fixed_ids):
            groups[0] = np.concatenate([groups[0], fixed_ids])
        builder.set_coloring(groups)
    model = builder.finalize(device="cpu")
    if ground is not None:
        model.soft_contact_ke = float(ground["stiffness"])
        model.soft_contact_kd = float(m["solver"]["contact_damping"]) * float(ground["stiffness"])
        model.soft_contact_mu = float(ground["friction"])
    return model, ground is not None


def contact_coloring(m, reach=0.05):
    """Greedy coloring of the bodies' initial contact graph: two bodies whose bounding boxes, grown by `reach`,
    overlap get different colors. Newton's ModelBuilder.color() colors rigid bodies by joints only, so bodies
    that only touch share a color and are solved in parallel (a Jacobi sweep over them); with this coloring
    its per-color loop is a Gauss-Seidel sweep over touching bodies, as ours is."""
    lo, hi = [], []
    for b in m["rigid_bodies"]:
        if b["fixed"]:
            continue
        c = np.asarray(b["position"], dtype=np.float64)
        if b["shape"] == "box":
            # Bounding box of the rotated box: |R| half extents.
            x, y, z, w = b["rotation"]
            R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                          [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                          [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
            he = np.abs(R) @ (np.asarray(b["size"], dtype=np.float64) / 2)
        else:
            he = np.full(3, float(b["radius"]))
        lo.append(c - he - reach)
        hi.append(c + he + reach)
    lo, hi = np.asarray(lo), np.asarray(hi)
    n = len(lo)
    color = np.full(n, -1)
    for i in range(n):
        touch = np.all((lo <= hi[i]) & (hi >= lo[i]), axis=1)
        touch[i] = False
        used = set(color[touch & (color >= 0)].tolist())
        c = 0
        while c in used:
            c += 1
        color[i] = c
    return [np.nonzero(color == c)[0].astype(int) for c in range(color.max() + 1)] if n else []


def build_rigid(m, shape_ke=None, shape_kd=0.0, margin=0.0, gap=None, color_contacts=False):
    """A finalized newton.Model of the exported rigid bodies on the ground (boxes and spheres).
    color_contacts: color bodies by their initial contact graph (contact_coloring) instead of by joints."""
    g = m["gravity"]
    builder = newton.ModelBuilder(up_axis=newton.Axis.Y, gravity=tuple(float(c) for c in g))
    if gap is not None:
        builder.rigid_gap = gap
    gcfg = newton.ModelBuilder.ShapeConfig()
    gcfg.mu = float(m["ground"]["friction"])
    if shape_ke is not None:
        gcfg.ke = shape_ke
    gcfg.kd = shape_kd
    gcfg.margin = margin
    if m["ground"]["enabled"]:
        builder.add_ground_plane(height=float(m["ground"]["height"]), cfg=gcfg)
    for b in m["rigid_bodies"]:
        cfg = newton.ModelBuilder.ShapeConfig()
        cfg.density = float(b["density"])
        cfg.mu = float(b["friction"])
        if shape_ke is not None:
            cfg.ke = shape_ke
        cfg.kd = shape_kd
        cfg.margin = margin
        q = b["rotation"]
        xf = wp.transform(wp.vec3(*b["position"]), wp.quat(q[0], q[1], q[2], q[3]))
        body = -1 if b["fixed"] else builder.add_body(xform=xf)
        shape_xf = xf if body == -1 else None
        if b["shape"] == "box":
            s = b["size"]
            builder.add_shape_box(body, xform=shape_xf, hx=s[0] / 2, hy=s[1] / 2, hz=s[2] / 2, cfg=cfg)
        elif b["shape"] == "sphere":
            builder.add_shape_sphere(body, xform=shape_xf, radius=b["radius"], cfg=cfg)
        else:
            raise ValueError("only boxes and spheres are mapped to Newton")
        if body >= 0:
            builder.body_qd[body] = wp.spatial_vector(*b["velocity"], *b["angular_velocity"])
    builder.color()
    if color_contacts:
        builder.body_color_groups = contact_coloring(m)
    return builder.finalize(device="cpu")
