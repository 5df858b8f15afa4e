#!/usr/bin/env python3
"""Apache DataSketches `frequent_items_sketch` as a peer of the hwprof profiler.

Reads a trace in hwprof's text form (`a b` in hex per line, `#` comments; `hwprof sweep` writes it,
or `hwprof trace convert IN OUT.txt`), cuts it into intervals of L events exactly as the profiler
does (a trailing partial interval is not reported), feeds each interval to a fresh sketch of
2^lg_max_map_size slots (3/4 of them usable counters), and prints one JSON line per interval:
{"interval": i, "entries": [[a, b, estimate], ...]} for every item whose estimate reaches T.
`--estimate upper` reports the sketch's estimate (count + offset, never below the true count);
`--estimate lower` its lower bound (the Misra-Gries count, never above the true count).
Scoring is done by hwprof (the paper's metric lives in one place: sim/src/eval/metric.rs).
"""
import argparse
import json
import sys

from datasketches import frequent_items_error_type, frequent_items_sketch


def report(sk, number, threshold, lower):
    items = sk.get_frequent_items(frequent_items_error_type.NO_FALSE_NEGATIVES, threshold - 1)
    entries = sorted(
        [item >> 64, item & 0xFFFFFFFFFFFFFFFF, lb if lower else est]
        for item, est, lb, _ub in items
        if (lb if lower else est) >= threshold
    )
    sys.stdout.write(json.dumps({"interval": number, "entries": entries}) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trace", required=True)
    p.add_argument("--interval", type=int, required=True)
    p.add_argument("--threshold", type=int, required=True)
    p.add_argument("--lg-max-map-size", type=int, required=True)
    p.add_argument("--estimate", choices=["upper", "lower"], default="upper")
    a = p.parse_args()
    if a.interval < 1 or a.threshold < 1 or not 3 <= a.lg_max_map_size <= 30:
        sys.exit("bad arguments: need interval >= 1, threshold >= 1, 3 <= lg-max-map-size <= 30")
    sk = frequent_items_sketch(a.lg_max_map_size)
    n = number = 0
    with open(a.trace) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                x, y = line.split()
                item = (int(x, 16) << 64) | int(y, 16)
            except ValueError:
                sys.exit(f"{a.trace}:{lineno}: expected `a b` in hex, got {line!r}")
            sk.update(item)
            n += 1
            if n == a.interval:
                report(sk, number, a.threshold, a.estimate == "lower")
                number += 1
                n = 0
                sk = frequent_items_sketch(a.lg_max_map_size)


if __name__ == "__main__":
    main()
