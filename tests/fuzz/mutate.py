#!/usr/bin/env python3
"""Mutation campaign against `vbdlab sim` (issue 12, item 1: no NaN ever written).

Takes the built-in scenes (assets/scenes/*.json) as seeds, applies 1-3 hostile mutations to each copy
(numbers replaced by values at the edges of float and double range, scaled by powers of ten, types
changed, keys deleted, regions duplicated so that their youngs_scale multiply, huge gravity, tiny dt,
mesh scale ...), runs `vbdlab sim` for a few frames and classifies the outcome:

  ok        exit 0, outputs finite
  refused   exit 2, a message naming the scene file, nothing written to the output folder
  stopped   exit 1 (the per-step finiteness guard or another runtime error), nothing NaN written
  NAN       an output file holds nan / inf / null  <- the target is 0
  CRASH     killed by a signal                     <- the target is 0
  HANG      ran past --timeout                      <- reported; a slow but valid scene can hit it
  CONTRACT  exit 2 but the output folder was written to, or a message without the file name

Usage: tests/fuzz/mutate.py --vbdlab build/bin/vbdlab --count 5000 --out /tmp/mut [--seed 1]
       [--jobs 2] [--frames 5] [--timeout 30] [--keep DIR]
Writes DIR/results.csv (case, seed scene, mutations, outcome, exit code, seconds, first stderr line) and
prints counts per outcome. --keep copies the scenes of the non-ok outcomes with the rarest messages there.
Deterministic for a given --seed (the mutations; the outcomes depend on the build).
"""
import argparse
import copy
import csv
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HOSTILE = [0, -0.0, -1, 1, 2, 0.5, 0.4999999999, -0.9999999999, 1e-320, 1e-300, 1e-45, 1e-39, 1e-30, 1e-12,
           1e-7, 1e7, 1e12, 1e20, 1e30, 1e37, 3.4e38, 3.5e38, 1e39, 1e100, 1e300, 1.7e308, -1e308, -1e39,
           2147483647, 2147483648, 4294967296, 9.3e18, 123456789, -123456789, 4096, 4097, 100000]


def leaves(node, path=()):
    """Every (path, value) of numbers, strings and booleans in a JSON tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from leaves(v, path + (i,))
    else:
        yield path, node


def containers(node, path=()):
    if isinstance(node, (dict, list)):
        yield path, node
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, v in items:
            yield from containers(v, path + (k,))


def get(root, path):
    for p in path:
        root = root[p]
    return root


def put(root, path, value):
    get(root, path[:-1])[path[-1]] = value


def m_hostile_number(s, rng):
    nums = [(p, v) for p, v in leaves(s) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not nums:
        return None
    p, _ = rng.choice(nums)
    v = rng.choice(HOSTILE)
    put(s, p, v)
    return f"{'.'.join(map(str, p))}={v!r}"


def m_scale_number(s, rng):
    nums = [(p, v) for p, v in leaves(s) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not nums:
        return None
    p, v = rng.choice(nums)
    k = rng.choice([-40, -30, -20, -10, -6, -3, -1, 1, 3, 6, 10, 20, 30, 38, 39, 40])
    nv = v * 10.0 ** k if v != 0 else 10.0 ** k
    if math.isinf(nv):
        nv = 1.7e308
    put(s, p, nv)
    return f"{'.'.join(map(str, p))}*=1e{k}"


def m_type_change(s, rng):
    ls = list(leaves(s))
    if not ls:
        return None
    p, v = rng.choice(ls)
    nv = rng.choice(["x", "", None, True, [], {}, [1, 2], "1e5", -1])
    put(s, p, nv)
    return f"{'.'.join(map(str, p))}:={json.dumps(nv)}"


def m_delete_key(s, rng):
    cs = [(p, c) for p, c in containers(s) if isinstance(c, dict) and c]
    if not cs:
        return None
    p, c = rng.choice(cs)
    k = rng.choice(list(c))
    del c[k]
    return f"del {'.'.join(map(str, p + (k,)))}"


def m_regions(s, rng):
    bodies = s.get("soft_bodies") or []
    if not bodies:
        return None
    i = rng.randrange(len(bodies))
    b = bodies[i]
    lo, hi = b.get("min", [-1e3] * 3), b.get("max", [1e3] * 3)
    n = rng.choice([2, 3, 8])
    scale = rng.choice([1e6, 1e10, 1e20, 1e-20, 1e38])
    b["regions"] = [{"min": lo, "max": hi, "youngs_scale": scale} for _ in range(n)]
    return f"soft_bodies.{i}.regions={n}x{scale:g}"


def m_step(s, rng):
    s["dt"] = rng.choice([1e-320, 1e-12, 1e-7, 1e-6, 1e-5, 10, 1e5, 1e30])
    if rng.random() < 0.3:
        s["substeps"] = rng.choice([1, 100, 10000])
    return f"dt={s['dt']} substeps={s.get('substeps')}"


def m_gravity(s, rng):
    g = rng.choice([123456789, 1e10, 1e20, 1e30, 3e38, 1e-30])
    s["gravity"] = [0, -g, 0] if rng.random() < 0.7 else [g, g, -g]
    return f"gravity={s['gravity']}"


def m_mesh_scale(s, rng):
    bodies = [b for b in s.get("soft_bodies") or [] if b.get("type") == "mesh"]
    if not bodies:
        return None
    b = rng.choice(bodies)
    b["scale"] = rng.choice([1e-30, 1e-12, 1e-6, 1e6, 1e12, 1e30, 1e37])
    return f"mesh scale={b['scale']}"


def m_duplicate(s, rng):
    cs = [(p, c) for p, c in containers(s) if isinstance(c, list) and c and isinstance(c[0], dict)]
    if not cs:
        return None
    p, c = rng.choice(cs)
    c.append(copy.deepcopy(rng.choice(c)))
    return f"dup {'.'.join(map(str, p))}"


MUTATIONS = [(m_hostile_number, 5), (m_scale_number, 4), (m_type_change, 1), (m_delete_key, 1),
             (m_regions, 1), (m_step, 1), (m_gravity, 1), (m_mesh_scale, 1), (m_duplicate, 1)]


def mutate(seed_scene, rng):
    s = copy.deepcopy(seed_scene)
    done = []
    fns, weights = zip(*MUTATIONS)
    for _ in range(rng.choice([1, 1, 2, 3])):
        for _attempt in range(10):
            d = rng.choices(fns, weights)[0](s, rng)
            if d:
                done.append(d)
                break
    return s, done


def has_nonfinite(path):
    try:
        with open(path, "rb") as f:
            t = f.read().lower()
    except OSError:
        return False
    return b"nan" in t or b"inf" in t or b"null" in t


def run_case(args, i, seed_name, scene, muts, work):
    d = os.path.join(work, f"case{i:05d}")
    os.makedirs(d, exist_ok=True)
    sp = os.path.join(d, "scene.json")
    with open(sp, "w") as f:
        json.dump(scene, f, allow_nan=True)
    out = os.path.join(d, "out")
    os.makedirs(out)
    with open(os.path.join(out, "keep.txt"), "w") as f:
        f.write("already here")
    t0 = time.time()
    try:
        p = subprocess.run([args.vbdlab, "sim", sp, "--frames", str(args.frames), "--out", out, "--threads", "1"],
                           capture_output=True, timeout=args.timeout)
        code, err = p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        code, err = None, (e.stderr or b"").decode(errors="replace")
    dt = time.time() - t0
    first = next((l for l in err.splitlines() if "error" in l or "warning" in l), err.strip()[:200])
    written = sorted(os.listdir(out))
    nan = any(has_nonfinite(os.path.join(out, n)) for n in ("metrics.csv", "convergence.csv", "final_state.json"))
    if code is None:
        outcome = "HANG"
    elif code < 0:
        outcome = "CRASH"
    elif nan:
        outcome = "NAN"
    elif code == 0:
        outcome = "ok"
    elif code == 2:
        outcome = "refused" if written == ["keep.txt"] and "scene.json" in first else "CONTRACT"
    else:
        outcome = "stopped"
    if outcome == "ok" or outcome == "refused":
        shutil.rmtree(os.path.join(d, "out"), ignore_errors=True)
    return [i, seed_name, " ; ".join(muts), outcome, code, f"{dt:.2f}", first.strip()[:300]], sp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vbdlab", default="build/bin/vbdlab")
    ap.add_argument("--scenes", default="assets/scenes")
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--frames", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--out", default=None)
    ap.add_argument("--keep", default=None, help="copy the scenes of non-ok outcomes here")
    args = ap.parse_args()
    args.vbdlab = os.path.abspath(args.vbdlab)
    rng = random.Random(args.seed)
    seeds = []
    for n in sorted(os.listdir(args.scenes)):
        if n.endswith(".json"):
            p = os.path.abspath(os.path.join(args.scenes, n))
            with open(p) as f:
                s = json.load(f)
            for b in s.get("soft_bodies", []):  # mesh paths are relative to the scene file
                if "path" in b:
                    b["path"] = os.path.normpath(os.path.join(os.path.dirname(p), b["path"]))
            seeds.append((n, s))
    work = args.out or tempfile.mkdtemp(prefix="vbd_mutate_")
    os.makedirs(work, exist_ok=True)
    cases = []
    for i in range(args.count):
        name, s = seeds[i % len(seeds)]
        m, muts = mutate(s, rng)
        cases.append((i, name, m, muts))
    counts, rows = {}, []
    with ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(run_case, args, i, n, m, mu, work) for i, n, m, mu in cases]
        for k, f in enumerate(futs):
            row, sp = f.result()
            rows.append((row, sp))
            counts[row[3]] = counts.get(row[3], 0) + 1
            if (k + 1) % 250 == 0:
                print(f"{k + 1}/{len(cases)} {counts}", file=sys.stderr, flush=True)
    with open(os.path.join(work, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "seed", "mutations", "outcome", "exit", "seconds", "message"])
        for row, _ in rows:
            w.writerow(row)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        for row, sp in rows:
            if row[3] not in ("ok", "refused"):
                shutil.copy(sp, os.path.join(args.keep, f"case{row[0]:05d}_{row[3]}.json"))
    print(json.dumps({"cases": len(rows), "counts": counts, "results": os.path.join(work, "results.csv")}))
    bad = sum(counts.get(k, 0) for k in ("NAN", "CRASH", "CONTRACT"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
