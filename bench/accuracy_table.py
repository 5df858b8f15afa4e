#!/usr/bin/env python3
"""Per trace, a markdown table of net error, split, precision and recall at 1M/0.1 % and 10K/1 %:
the given configurations (`hwprof model`) beside the paper preset and its peers at the paper preset's
memory (`hwprof sweep --grid bench/peers-paper-budget.toml`; DataSketches rows only when a Python with
`datasketches` is found). Usage: bench/accuracy_table.py [--no-peers] [--grid G.toml] --configs A.toml,B.toml TRACE...
(--grid: the peers' grid instead, e.g. bench/peers-equal-bits.toml for peers at the shipped configurations' bits)
Runs ./target/release/hwprof (build it first) one job at a time, niced."""
import csv, json, os, subprocess, sys, tempfile

HW = "./target/release/hwprof"
args = sys.argv[1:]
configs = []
peers = True
if args[:1] == ["--no-peers"]:
    peers, args = False, args[1:]
grid = "bench/peers-paper-budget.toml"
if args[:1] == ["--grid"]:
    grid, args = args[1], args[2:]
if args[:1] == ["--configs"]:
    configs, args = args[1].split(","), args[2:]
kind = lambda t: ["--kind", "load"] if ".lackey" in t else []
out = tempfile.mkdtemp(prefix="acc-table-")
print("| trace | L / T | scheme | configuration | memory bits | net error | NP / NN / FP / FN (%) | precision / recall |")
print("|---|---|---|---|---:|---:|---|---|")
for t in args:
    name = os.path.basename(t).split(".")[0]
    rows = []
    for c in configs:
        r = subprocess.run(["nice", HW, "-q", "model", "--config", c, "--trace", t, *kind(t), "--json"],
                           capture_output=True, text=True, check=True)
        d = json.loads(r.stdout)
        cfg = d["configuration"]
        s = d["split"]
        rows.append((cfg["interval"], os.path.basename(c), d["config"], cfg["memory_bits"], d["net_error"],
                     (s["np"], s["nn"], s["fp"], s["fn"]), d["precision"], d["recall"]))
    sw = f"{out}/{name}"
    subprocess.run(["true"] if not peers else ["nice", HW, "-q", "sweep", "--trace", t, *kind(t), "--grid", grid,
                    "--out", sw, "--no-plots", "--threads", "1"], capture_output=True, text=True, check=True)
    for x in csv.DictReader(open(f"{sw}/sweep.csv")) if peers else []:
        scheme = "paper preset" if x["scheme"] == "multi-hash" else x["scheme"]
        rows.append((int(x["interval"]), scheme, x["config"], int(x["memory_bits"]), float(x["net_error"]),
                     tuple(float(x[k]) for k in ("np", "nn", "fp", "fn")), float(x["precision"]), float(x["recall"])))
    for L in (1000000, 10000):
        for (l, scheme, conf, bits, e, sp, p, rc) in rows:
            if l != L:
                continue
            lt = "1M / 0.1 %" if L == 1000000 else "10K / 1 %"
            split = " / ".join(f"{100*v:.3f}" for v in sp)
            print(f"| {name} | {lt} | {scheme} | {conf} | {bits} | **{100*e:.3f} %** | {split} | {p:.4f} / {rc:.4f} |", flush=True)
