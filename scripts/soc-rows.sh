# Sourced by soc-bench.sh and soc-board.sh from the repository root, with the programs to run as
# arguments: sets `programs` (those, or every bundled program) and `HW` (the release CLI, built
# first), and defines `row_script`, which makes `$row` a Python filter from one JSON report on
# stdin to one Markdown row; its stdin is the Python that sets `cells` from the report `d`.
programs=("$@")
[ ${#programs[@]} -eq 0 ] && programs=(dhrystone sieve multest stats sort crc matmul hash)
HW=./target/release/hwprof
cargo build --release -q
row=$(mktemp); trap 'rm -f "$row"' EXIT
row_script() {
  {
    printf 'import json, sys\nd = json.load(sys.stdin)\n'
    cat
    printf 'print("| " + " | ".join(cells) + " |")\n'
  } > "$row"
}
