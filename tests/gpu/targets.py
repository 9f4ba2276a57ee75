#!/usr/bin/env python3
"""Issue 16's three targets against what one run of tests/gpu/device_check.sh measured.

Reads the benchmark CSV files (Google Benchmark aggregates, *_median rows) and the summary's CSV rows
(check,name,value,unit,status) and prints, per target, the best run of each kind, with its name, so that the
closing note can quote them:
  - the paper's frame (703k tets, 120 iterations, h = 1/120 s) on the device, float and double state:
    <= 15 ms (the aim 7 ms); the step alone (BM_GpuSoftStepRecords / BM_GpuSoftStepL2 / BM_GpuSoftStepOccupancy
    at 120 iterations) and the World's frame (BM_GpuSoftWorldFrame, lazy);
  - the 10,000-box pile at 10 iterations: <= 5 ms (BM_GpuRigidPile);
  - the app's frame on the interop path outside the solver and the renderer: < 0.5 ms (the window's
    window_sim_host_ms_* rows, BM_SimFrameDevice, BM_SimFramePileDevice/cuda:1).
Usage: targets.py SUMMARY.csv BENCH.csv [BENCH.csv ...]
"""
import csv
import sys

from compare_args import median_rows


def medians(paths):
    """benchmark name (without _median) -> median real time in ms."""
    out = {}
    for name, row in median_rows(paths):
        if row.get('error_occurred') == 'true':
            continue
        try:
            t = float(row['real_time'])
        except ValueError:
            continue
        scale = {'ns': 1e-6, 'us': 1e-3, 'ms': 1.0, 's': 1e3}.get(row.get('time_unit', 'ms'), 1.0)
        out[name] = t * scale
    return out


def summary_rows(path):
    rows = {}
    try:
        with open(path) as f:
            for r in csv.reader(f):
                if len(r) >= 3:
                    rows[r[1]] = r[2]
    except OSError:
        pass
    return rows


def best(times, keep):
    got = [(t, n) for n, t in times.items() if keep(n)]
    return min(got) if got else None


def line(what, goal, found):
    if found is None:
        return f"  {what}: not measured (goal {goal} ms)"
    t, name = found
    verdict = 'met' if t <= goal else f'not met ({t / goal:.2f}x the goal)'
    return f"  {what}: {t:.3f} ms, {verdict}; goal {goal} ms -- {name}"


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    rows = summary_rows(argv[1])
    times = medians(argv[2:])
    paper = lambda n: ('iters:120' in n or n.startswith(('BM_GpuSoftStepL2', 'BM_GpuSoftStepOccupancy'))) \
        and n.startswith('BM_GpuSoftStep')
    print("issue 16 targets (best run of each kind; docs/gpu.md for what each run varies):")
    for d in (0, 1):
        prec = 'double' if d else 'float'
        print(line(f"paper's step, {prec}", 15.0,
                   best(times, lambda n: paper(n) and f'double:{d}/' in n and 'absolute:1' not in n)))
        print(line(f"paper's World frame (lazy), {prec}", 15.0,
                   best(times, lambda n: n.startswith('BM_GpuSoftWorldFrame') and f'double:{d}/' in n
                        and 'lazy:1' in n and 'ray:1' not in n)))
    print(line("10,000-box pile step", 5.0, best(times, lambda n: n.startswith('BM_GpuRigidPile/'))))
    for key in ('window_sim_host_ms_cuda', 'window_sim_host_ms_703k'):
        try:
            print(line(f"window, {key}", 0.5, (float(rows[key]), key)))
        except (KeyError, ValueError):
            print(f"  window, {key}: not measured (goal 0.5 ms)")
    print(line("simulation thread's frame (22k / 149k vertices)", 0.5,
               best(times, lambda n: n.startswith('BM_SimFrameDevice/'))))
    print(line("simulation thread's frame, the pile on CUDA", 0.5,
               best(times, lambda n: n.startswith('BM_SimFramePileDevice/cuda:1'))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
