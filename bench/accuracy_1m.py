#!/usr/bin/env python3
"""Net error of profiler configurations (a base TOML plus --set overrides) on load traces, ranked by
the worst trace. Usage: bench/accuracy_1m.py BASE.toml TRACE... [-- VARIANT ...] where each VARIANT is
`name:key=value,key=value`. Prints one line per variant (memory bits, worst, per trace) and a JSON
line per run on stderr. Runs `./target/release/hwprof model` (build it first)."""
import json, subprocess, sys

args = sys.argv[1:]
variants = ["base:"]
if "--" in args:
    i = args.index("--")
    args, variants = args[:i], args[i + 1:]
base, traces = args[0], args[1:]
for v in variants:
    name, _, sets = v.partition(":")
    setargs = [x for kv in sets.split(",") if kv for x in ("--set", kv)]
    bits = json.loads(subprocess.run(["./target/release/hwprof", "config", "show", base, "--json", *setargs],
                                     check=True, capture_output=True, text=True).stdout)["memory_bits"]
    errs = {}
    for t in traces:
        kind = ["--kind", "load"] if ".lackey" in t else []
        r = subprocess.run(["nice", "./target/release/hwprof", "-q", "model", "--config", base, "--trace", t,
                            *kind, "--json", *setargs], capture_output=True, text=True)
        if r.returncode != 0:
            errs[t] = float("nan"); print(r.stderr.strip(), file=sys.stderr); continue
        d = json.loads(r.stdout)
        errs[t] = d["net_error"]
        print(json.dumps({"variant": name, "trace": t, "net_error": d["net_error"],
                          "split": {k: d.get(k) for k in ("np", "nn", "fp", "fn")},
                          "precision": d.get("precision"), "recall": d.get("recall")}), file=sys.stderr)
    short = " ".join(f"{t.split('/')[-1].split('.')[0]}={100*e:.3f}%" for t, e in errs.items())
    print(f"{name:24s} bits={bits:7d} worst={100*max(errs.values()):.3f}%  {short}", flush=True)
