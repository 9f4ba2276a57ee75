#!/usr/bin/env python3
"""Two threads against one: per-step time of `vbdlab sim` on 1 and 2 threads, alternating, medians.

  scripts/thread_scaling.py [--bin build/bin/vbdlab[,OTHER]] [--reps 3] [--load F] [SCENE:ITERATIONS:FRAMES ...]

SCENE is a file of tests/peer/scenes (the peer harness's models). The time per step is the mean
`step_ms` of metrics.csv over frames 2..N (and, in the median_* columns, the median frame: a frame in which
the host took a core away from one of the two threads costs the 2-thread mean more than the 1-thread one) (World::step with the per-frame metrics, diagnostics off: the
peer harness's "ours" column); each configuration runs --reps times, alternating binaries and thread
counts, and the median is reported. Several binaries (comma-separated) compare builds in one run; the
machine is shared and noisy, so compare ratios measured together. --load F runs a second process beside every
run that is busy F x 16.7 ms of every 16.7 ms (F = 0.5: half a core at 60 Hz, like the app's render thread on
lavapipe), to see how a build copes when another thread takes a core's time.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT = ["hanging_bar:40:120", "hanging_bar:300:40", "cube_drop:10:120", "cloth_64:10:30", "beam_10k:10:20",
           "pyramid_10:10:150"]


HOG = """
import sys, time
busy, period = float(sys.argv[1]) / 60.0, 1.0 / 60.0
while True:
    t = time.perf_counter()
    while time.perf_counter() - t < busy:
        pass
    rest = period - (time.perf_counter() - t)
    if rest > 0:
        time.sleep(rest)
"""


def step_ms(binary, scene, iters, frames, threads, load=0.0):
    """(mean, median) of step_ms over frames 2..N of one run."""
    out = tempfile.mkdtemp(prefix="vbd_scaling_")
    hog = subprocess.Popen([sys.executable, "-c", HOG, str(load)]) if load > 0 else None
    if hog:
        time.sleep(0.2)
    try:
        subprocess.run([binary, "sim", os.path.join(ROOT, "tests", "peer", "scenes", scene + ".json"), "--frames",
                        str(frames), "--out", out, "--threads", str(threads), "--set", "solver.diagnostics=false",
                        "--set", f"solver.iterations={iters}"], check=True, capture_output=True)
        with open(os.path.join(out, "metrics.csv")) as f:
            rows = list(csv.DictReader(f))
        ms = [float(r["step_ms"]) for r in rows[1:]]
        return statistics.mean(ms), statistics.median(ms)
    finally:
        if hog:
            hog.kill()
            hog.wait()
        shutil.rmtree(out, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "vbdlab"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--load", type=float, default=0.0, help="fraction of a core a second process keeps busy")
    ap.add_argument("scenes", nargs="*", default=DEFAULT)
    a = ap.parse_args()
    bins = a.bin.split(",")
    print("scene,iterations,binary,ms_1_thread,ms_2_threads,ratio,median_ms_1_thread,median_ms_2_threads,median_ratio")
    for spec in a.scenes:
        scene, iters, frames = spec.split(":")
        t = {}
        for _ in range(a.reps):
            for b in bins:
                for threads in (1, 2):
                    t.setdefault((b, threads), []).append(step_ms(b, scene, iters, frames, threads, a.load))
        for b in bins:
            one = statistics.median(m for m, _ in t[(b, 1)])
            two = statistics.median(m for m, _ in t[(b, 2)])
            one_m = statistics.median(d for _, d in t[(b, 1)])
            two_m = statistics.median(d for _, d in t[(b, 2)])
            print(f"{scene},{iters},{b},{one:.3f},{two:.3f},{one / two:.2f},{one_m:.3f},{two_m:.3f},{one_m / two_m:.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
