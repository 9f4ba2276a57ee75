"""Markdown tables of a tests/peer run: python table.py DIR > DIR/table.md (run.sh does this at the end)."""

import csv
import json
import os
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def md(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(out)


def main(d):
    v = json.load(open(os.path.join(d, "versions.json")))
    print(f"Newton {v['newton']}, warp-lang {v['warp']}, Python {v['python']}; {v['cpu']}, {v['cores']} cores; "
          f"vbdlab {v['vbdlab']}; {v['reps']} alternating repetitions (medians){'; --quick' if v['quick'] else ''}"
          + (f"; load average {v['loadavg_start'][0]:.1f} at the start, {v['loadavg_end'][0]:.1f} at the end"
             if "loadavg_end" in v else "") + ".\n")
    p = rows(os.path.join(d, "peers.csv"))
    body = []
    for r in p:
        def g(k):
            return r.get(k) or "-"
        body.append([r["scene"], r["iterations"], r["vertices"], r["tets"], r["ours_threads"], r["ours_ms_per_step"],
                     r["newton_ms_per_step"], r["ratio"] + "x", r["max_position_diff"], r["rms_position_diff"],
                     g("inertial_max_position_diff"), g("same_order_max_position_diff")])
    print(md(["scene", "iterations", "vertices", "tets", "ours threads", "ours ms/step", "Newton ms/step",
              "Newton/ours", "max ‖Δx‖ (m)", "rms ‖Δx‖ (m)", "max ‖Δx‖, ours with the x = y guess",
              "max ‖Δx‖, and the same color order"], body))
    print()
    ph = rows(os.path.join(d, "physics.csv"))
    print(md(["scene", "iterations", "program", "t (s)", "lowest y (m)", "com y (m)", "com x (m)", "kinetic (J)",
              "max speed (m/s)", "max displacement (m)"],
             [[r["scene"], r["iterations"], r["program"], r["time_s"], r["lowest_y"], r["com_y"], r["com_x"],
               r["kinetic_energy"], r["max_speed"], r["max_displacement"]] for r in ph]))
    print()
    refs = [r for r in p if r.get("ref_max_diff_ours") and r["ours_threads"] == "1"]
    if refs:
        print(md(["scene", "iterations", "ours (adaptive guess)", "ours (x = y guess)", "Newton"],
                 [[r["scene"], r["iterations"], r["ref_max_diff_ours"], r["ref_max_diff_ours_inertial"],
                   r["ref_max_diff_newton"]] for r in refs]))
        print("\n(max ‖x − x_reference‖ in m at the last frame; reference: ours in double precision with many "
              "more iterations)\n")
    s = rows(os.path.join(d, "newton_setup.csv"))
    print(md(["scene", "iterations", "export (s)", "JSON load (s)", "Newton model build (s)",
              "SolverVBD() (s)", "Newton first frame (ms, JIT or cache load)"],
             [[r["scene"], r["iterations"], r["export_s"], r["json_load_s"], r["newton_model_build_s"],
               r["newton_solver_build_s"], r["newton_first_frame_ms"]] for r in s]))


if __name__ == "__main__":
    main(sys.argv[1])
