#!/usr/bin/env python3
"""One setting at a time, from Google Benchmark CSV files (aggregates, *_median rows).

For every benchmark family and every argument, pairs the runs that differ in that argument alone and prints
the ratio of their median times: what each switch of tests/gpu/device_check.sh's runs (staged copies,
incidence records, lanes, device contacts, device broad phase, sweep block, ...) changes with everything else
held. A ratio below 1 means the second value is faster. Usage: compare_args.py FILE.csv [FILE.csv ...]
"""
import csv
import itertools
import statistics
import sys
from collections import defaultdict


def median_rows(paths):
    """(name without _median, row) of every *_median row with a real time in the CSV files (also targets.py)."""
    for path in paths:
        try:
            with open(path) as f:
                lines = f.read().splitlines(True)
        except OSError:
            continue
        # Google Benchmark prints context lines before the CSV header on stderr only; be lenient anyway.
        start = next((i for i, l in enumerate(lines) if l.startswith('name,')), None)
        if start is None:
            continue
        for row in csv.DictReader(lines[start:]):
            name = row.get('name', '')
            if name.endswith('_median') and row.get('real_time'):
                yield name[: -len('_median')], row


def runs(paths):
    """(family, args as a tuple of (key, value)) -> median real time, from the *_median rows."""
    out = {}
    for name, row in median_rows(paths):
        parts = name.split('/')
        family, args = parts[0], []
        for i, p in enumerate(parts[1:]):
            if p.startswith(('iterations', 'min_time', 'repeats', 'real_time', 'manual_time')):
                continue
            if ':' in p:
                k, v = p.split(':', 1)
                args.append((k, v))
            else:  # an unnamed argument (BM_VertexRecordsHost/0): keyed by its place, not dropped
                args.append((f'arg{i}', p))
        try:
            out[(family, tuple(args))] = float(row['real_time'])
        except ValueError:
            pass
    return out


def main(paths):
    data = runs(paths)
    families = defaultdict(dict)
    for (family, args), t in data.items():
        families[family][args] = t
    for family in sorted(families):
        configs = families[family]
        keys = sorted({k for args in configs for k, _ in args})
        for key in keys:
            by_rest = defaultdict(dict)  # the other arguments -> {value of key: time}
            for args, t in configs.items():
                d = dict(args)
                if key not in d:
                    continue
                rest = tuple((k, v) for k, v in args if k != key)
                by_rest[rest][d[key]] = t
            values = sorted({v for m in by_rest.values() for v in m}, key=lambda v: (len(v), v))
            for a, b in itertools.combinations(values, 2):
                ratios = [m[b] / m[a] for m in by_rest.values() if a in m and b in m and m[a] > 0]
                if not ratios:
                    continue
                print(f"{family} {key}: {b} against {a}: median ratio {statistics.median(ratios):.3f} "
                      f"(range {min(ratios):.3f}-{max(ratios):.3f}, {len(ratios)} pairs)")


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
