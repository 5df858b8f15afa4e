#!/usr/bin/env python3
"""Bad-input fuzzing of the hwprof command line: mutated configurations, traces and argument lists.

Every run must end with exit code 0 or 2 (1 only for an external tool's failure), never a panic (exit
101 or "panicked" on stderr), a signal or a hang. Prints the count of runs by outcome and the first
reproducer of every outcome other than 0 and 2; exits 1 if there was a panic, a signal or a hang.

    python3 scripts/fuzz-cli.py [--runs N] [--seed S] [--bin target/release/hwprof]
"""
import argparse, collections, gzip, os, random, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG_KEYS = ["interval", "threshold", "tables", "entries", "counter_bits", "conservative_update",
               "reset_on_promote", "retaining", "hash", "seed", "a_bits", "b_bits", "bogus"]
ACC_KEYS = ["entries", "organisation", "ways", "stash", "count_bits", "bogus"]
VALUES = ["0", "1", "2", "3", "-1", "7", "16", "64", "512", "1000", "65536", "1099511627777",
          "18446744073709551615", "99999999999999999999", "1.5", '"1%"', '"0.1%"', '"150%"', '"x%"', '"%"',
          "true", "false", '"h3"', '"tabulation"', '"set_associative"', '"fully_associative"', '"bogus"',
          "[1, 2]", "{}", '""', "nan", "inf"]


def config(rng):
    if rng.random() < 0.5:  # a valid configuration, so that the trace and the argument list are what is tested
        return b"interval = 64\nthreshold = 4\ntables = 2\nentries = 16\n[accumulator]\nentries = 4\n"
    lines = ["interval = %s" % rng.choice(["64", "100", "1000", "0", "-5", '"x"'] + VALUES[:4]),
             "threshold = %s" % rng.choice(["4", '"5%"', "0", "100000", '"1%"'] + VALUES),
             "tables = %s" % rng.choice(["1", "2", "4", "0", "17"] + VALUES[:6]),
             "entries = %s" % rng.choice(["16", "64", "500", "0", "1048577"] + VALUES[:8])]
    for _ in range(rng.randint(0, 4)):
        lines.append("%s = %s" % (rng.choice(CONFIG_KEYS), rng.choice(VALUES)))
    if rng.random() < 0.6:
        lines.append("[accumulator]")
        for _ in range(rng.randint(0, 3)):
            lines.append("%s = %s" % (rng.choice(ACC_KEYS), rng.choice(VALUES)))
    rng.shuffle(lines[:4])
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.15:
        i = rng.randrange(len(text))
        text = text[:i] + rng.choice(["", "=", "[", "\x00", "\"", "\n\n[x]\n", "é"]) + text[i + 1:]
    if rng.random() < 0.05:
        text = text[: rng.randrange(len(text))]
    return text.encode()


def trace(rng, good):
    kind = rng.choice(["text", "edge", "load", "binary", "gz", "random", "cut"])
    if kind == "text":
        body = "".join("%x %x\n" % (rng.randrange(50), rng.randrange(9)) for _ in range(rng.randint(0, 400)))
        data = ("# hwprof trace: kind %s\n" % rng.choice(["edge", "load", "bogus", ""]) + body).encode()
    elif kind == "edge":
        data = "".join("SB %x\n" % rng.randrange(1 << 20) for _ in range(rng.randint(0, 400))).encode()
    elif kind == "load":
        data = "".join("I  %x,%d\n L %x,4\n" % (rng.randrange(1 << 20), rng.randint(1, 9), rng.randrange(1 << 30))
                       for _ in range(rng.randint(0, 300))).encode()
    elif kind == "random":
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 600)))
        if rng.random() < 0.5:
            data = rng.choice([b"HWPTRC1\n", b"HWPTRC2\n", b"\x1f\x8b"]) + data
    else:
        data = good
    if kind in ("gz",):
        data = gzip.compress(data)
    # Mutations: flip bytes, cut, insert junk lines.
    data = bytearray(data)
    for _ in range(rng.choice([0, 0, 1, 3])):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    if kind == "cut" or rng.random() < 0.1:
        data = data[: rng.randrange(len(data) + 1)]
    if rng.random() < 0.1:
        i = rng.randrange(len(data) + 1)
        data[i:i] = rng.choice([b"\nzzz\n", b"\nSB\n", b"\n1 2 3\n", b"\nI 1\n", b"\x00\xff"])
    return bytes(data)


def argv(rng, cfg, tr, out):
    kinds = ["edge", "load", "branch", "bogus"]
    cmds = [
        ["model", "--config", cfg, "--trace", tr],
        ["trace", "stats", tr],
        ["trace", "convert", tr, out],
        ["buffer", "--config", os.path.join(ROOT, "configs/buffer-address-64.toml"), "--trace", tr],
        ["config", "show", cfg],
        ["cosim", "--config", cfg, "--stream", rng.choice(["mixed", "one-tuple", "bogus"]), "--events",
         rng.choice(["0", "1", "65", "200", "-3", "x"])],
        ["verilog", "--config", cfg, "--out", out + ".d"],
        ["sweep", "--trace", tr, "--preset", rng.choice(["paper", "bogus"]), "--out", out + ".s", "--no-plots",
         "--threads", rng.choice(["0", "1"])],
    ]
    a = list(rng.choice(cmds))
    if rng.random() < 0.5:
        a += ["--kind", rng.choice(kinds)]
    if rng.random() < 0.3:
        a += ["--set", rng.choice(["interval=100", "tables=0", "entries", "=3", "accumulator.entries=2",
                                   "hash=bogus", "a.b.c=1", "interval=[", "threshold=\"3%\""])]
    if rng.random() < 0.2:
        a += [rng.choice(["--json", "--quiet", "--bogus", "--events", "--trace", "-", ""])]
    if rng.random() < 0.05:
        a = a[: rng.randrange(len(a))]
    return a


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=1500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bin", default=os.path.join(ROOT, "target/release/hwprof"))
    args = p.parse_args()
    rng = random.Random(args.seed)
    good = "".join("%x %x\n" % (i % 11, i % 3) for i in range(300)).encode()
    counts = collections.Counter()
    first = {}
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.runs):
            cfg, tr, out = (os.path.join(d, n) for n in ("c.toml", "t.trace", "o.hwpt"))
            with open(cfg, "wb") as f:
                f.write(config(rng))
            with open(tr, "wb") as f:
                f.write(trace(rng, good))
            a = argv(rng, cfg, tr, out)
            try:
                r = subprocess.run([args.bin] + a, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
                err = r.stderr.decode(errors="replace")
                if r.returncode == 101 or "panicked" in err:
                    outcome = "panic"
                elif r.returncode < 0:
                    outcome = "signal %d" % -r.returncode
                elif r.returncode == 2 and not err.strip():
                    outcome = "exit 2 without a message"
                else:
                    outcome = "exit %d" % r.returncode
            except subprocess.TimeoutExpired:
                outcome, err = "hang (60 s)", ""
            counts[outcome] += 1
            if outcome not in first and outcome not in ("exit 0", "exit 2"):
                first[outcome] = (a, open(cfg).read() if os.path.exists(cfg) else "", err[-400:])
    for k, v in sorted(counts.items()):
        print("%-28s %d" % (k, v))
    for k, (a, c, e) in first.items():
        print("\n== first %s: hwprof %s\n-- config:\n%s-- stderr:\n%s" % (k, " ".join(a), c, e))
    bad = sum(v for k, v in counts.items() if k.startswith(("panic", "signal", "hang", "exit 2 without")))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
