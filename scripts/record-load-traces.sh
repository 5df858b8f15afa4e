#!/usr/bin/env bash
# Records the load traces (pc, address) of five real Debian programs on real inputs, for the
# 1M-interval accuracy study (docs/RESULTS.md, "`best-1m` and `best-10k` against the peers";
# the study itself: docs/notes/accuracy-1m.md).
# Usage: scripts/record-load-traces.sh [OUTDIR]   (default /work/acc-traces; ~15 min, ~100 MB)
# The traces are not in git: addresses depend on the binaries and the loader, so a re-recording
# on another machine differs in detail but not in kind.
set -euo pipefail
out=${1:-/work/acc-traces}
hw=${HW:-./target/release/hwprof}
mkdir -p "$out"
# Inputs: the Debian license texts (real prose), as one tar and as a word list.
tar cf "$out/licenses.tar" -C / usr/share/common-licenses 2>/dev/null
tr -cs 'A-Za-z' '\n' <"$out/licenses.tar" >"$out/words.txt"
# The first 5 MB of the copyright files of the installed Debian packages, xz-compressed (decompressed under lackey:
# compression at -6 first zeroes ~90 MB of match-finder tables, billions of lackey lines).
{ cat /usr/share/doc/*/copyright 2>/dev/null || true; } | head -c 5000000 | xz -6 >"$out/copyrights.xz"
cat >"$out/wordcount.py" <<'PY'
import collections, json, re, sys
words = re.findall(r"[A-Za-z]+", open(sys.argv[1], encoding="latin-1").read())
c = collections.Counter(w.lower() for w in words)
json.dump(c.most_common(200), sys.stdout)
PY
cat >"$out/words.sql" <<SQL
CREATE TABLE w(word TEXT);
.import $out/words.txt w
CREATE INDEX wi ON w(word);
SELECT word, count(*) AS n FROM w GROUP BY word ORDER BY n DESC LIMIT 20;
SELECT count(DISTINCT lower(word)) FROM w;
SQL
# The program's output goes to /dev/null, the recorder's summary to NAME.log. Programs by absolute
# path: valgrind does not follow a wrapper's exec (a pyenv shim would be traced instead of Python).
rec() { local name=$1; shift; [ -s "$out/$name.load.bin.gz" ] && return; nice "$hw" trace record --kind load -o "$out/$name.load.bin.gz" -- "$@" >/dev/null 2>"$out/$name.log" </dev/null; }
rec gzip9_licenses    gzip -9 -c "$out/licenses.tar"
rec sort_words        sort "$out/words.txt"
rec sqlite3_words     sqlite3 :memory: ".read $out/words.sql"
rec python3_wordcount /usr/bin/python3.11 "$out/wordcount.py" "$out/licenses.tar"
rec xzd_copyrights    xz -d -c "$out/copyrights.xz"
for f in "$out"/*.load.bin.gz; do echo "$f: $("$hw" -q trace stats "$f" | head -2 | tr '\n' ' ')"; done
