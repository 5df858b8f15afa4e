#!/usr/bin/env bash
# Records the branch traces of the phase-classifier study (docs/RESULTS.md, "Phase classifier";
# the studies in docs/notes/phase-classifier.md): seven real programs on
# deterministic inputs, as lackey --trace-mem logs read with `--kind branch`.
# Usage: scripts/record-phase-traces.sh [OUTDIR]   (default /work/phase-traces; ~10 min, ~250 MB)
# Needs valgrind, gcc, zlib1g-dev and libbz2-dev. The traces are not in git (12-60 MB each):
# addresses depend on the binaries and the loader, so a re-recording elsewhere differs in detail.
# `hwprof trace record` runs valgrind without --trace-children: one process per trace, so a
# compressor followed by its decompressor is one small C driver over the library, not `sh -c 'a; b'`.
set -euo pipefail
out=$(realpath -m "${1:-/work/phase-traces}")
in=$(realpath -m "${INPUTS:-/work/phase-inputs}")
hw=$(realpath "${HW:-./target/release/hwprof}")
cc1=$(gcc -print-prog-name=cc1)
mkdir -p "$out" "$in"
cd "$in"
# Inputs.
# mixed80k.bin: 40 000 bytes of GPL-3 (all of it, 35 149) then the first 40 000 bytes of libc.
{ head -c 40000 /usr/share/common-licenses/GPL-3; head -c 40000 /usr/lib/x86_64-linux-gnu/libc.so.6; } >mixed80k.bin
# nums8k.txt: 1..8000 shuffled with a fixed random source.
seq 1 8000 | shuf --random-source=<(yes) >nums8k.txt
# mixed122k.bin: four license texts (89 763 bytes of prose) then the first 32 768 bytes of libz.
{ cat /usr/share/common-licenses/{GPL-3,LGPL-2.1,Apache-2.0,MPL-2.0}; head -c 32768 /usr/lib/x86_64-linux-gnu/libz.so.1; } >mixed122k.bin
# zpipe.i: zlib's example zpipe.c preprocessed (the compile below is cc1 alone, one process).
gcc -E -P /usr/share/doc/zlib1g-dev/examples/zpipe.c -o zpipe.i
# The two round-trip drivers and zlib's own test program (example.c, what zlib's `make test` runs).
cat >zroundtrip.c <<'EOF'
/* Compressor then its decompressor in one process: zlib compress2 (level from argv[2], default 6)
   of a file, then uncompress, then a byte comparison. Exit 0 iff the round trip is exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: zroundtrip FILE [LEVEL]\n"); return 2; }
    int level = argc > 2 ? atoi(argv[2]) : 6;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *in = malloc(n), *out = malloc(n);
    if (fread(in, 1, n, f) != (size_t)n) return 2;
    fclose(f);
    uLongf clen = compressBound(n); unsigned char *c = malloc(clen);
    if (compress2(c, &clen, in, n, level) != Z_OK) return 3;
    uLongf dlen = n;
    if (uncompress(out, &dlen, c, clen) != Z_OK || dlen != (uLongf)n || memcmp(in, out, n)) return 4;
    printf("%ld -> %lu -> %lu bytes\n", n, (unsigned long)clen, (unsigned long)dlen);
    return 0;
}
EOF
cat >bz2roundtrip.c <<'EOF'
/* Compressor then its decompressor in one process: libbz2 BZ2_bzBuffToBuffCompress (block size
   100k x argv[2], default 9) of a file, then BZ2_bzBuffToBuffDecompress, then a byte comparison. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bzlib.h>
int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: bz2roundtrip FILE [BLOCK100K]\n"); return 2; }
    int block = argc > 2 ? atoi(argv[2]) : 9;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    char *in = malloc(n), *out = malloc(n);
    if (fread(in, 1, n, f) != (size_t)n) return 2;
    fclose(f);
    unsigned int clen = n + n / 100 + 600, dlen = n; char *c = malloc(clen);
    if (BZ2_bzBuffToBuffCompress(c, &clen, in, n, block, 0, 30) != BZ_OK) return 3;
    if (BZ2_bzBuffToBuffDecompress(out, &dlen, c, clen, 0, 0) != BZ_OK || dlen != (unsigned)n || memcmp(in, out, n)) return 4;
    printf("%ld -> %u -> %u bytes\n", n, clen, dlen);
    return 0;
}
EOF
gcc -O2 -o zroundtrip zroundtrip.c -lz
gcc -O2 -o bz2roundtrip bz2roundtrip.c -lbz2
gcc -O2 -o zexample /usr/share/doc/zlib1g-dev/examples/example.c -lz
# The program's output goes to /dev/null, the recorder's summary to NAME.log; an existing trace is kept.
rec() { local name=$1; shift; [ -s "$out/$name.lackey.gz" ] && return; nice "$hw" trace record --kind branch -o "$out/$name.lackey.gz" -- "$@" >/dev/null 2>"$out/$name.log" </dev/null; }
# The first three (2026-11-25).
rec gzip gzip -6 -c mixed80k.bin
rec sort sort -n nums8k.txt -o sorted.txt
rec xz xz -1 -c mixed80k.bin
# Four more (2026-11-26): compressor then decompressor (zlib, bzip2), zlib's test program, a compile.
rec zlib_roundtrip ./zroundtrip mixed122k.bin 6
rec bz2_roundtrip ./bz2roundtrip mixed122k.bin 9
mkdir -p run && (cd run && rec zlib_example "$in/zexample")   # writes foo.gz in its cwd
rec cc1_zpipe "$cc1" -fpreprocessed -quiet -O1 zpipe.i -o run/zpipe.s
for f in "$out"/*.lackey.gz; do echo "$f: $(du -h "$f" | cut -f1) $(cat "${f%.lackey.gz}.log" 2>/dev/null)"; done
