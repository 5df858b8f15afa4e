#!/usr/bin/env bash
# The test command of the README: installs what the tests need, then runs every test.
# Debian packages: iverilog (cross-simulation of exported Verilog), verilator and yosys (lint),
# valgrind (trace recording), gcc-riscv64-unknown-elf (programs of `hwprof soc` on PicoRV32).
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v iverilog >/dev/null || need+=(iverilog)
command -v verilator >/dev/null || need+=(verilator)
command -v yosys >/dev/null || need+=(yosys)
command -v nextpnr-ice40 >/dev/null && command -v icepack >/dev/null || need+=(nextpnr-ice40 fpga-icestorm)  # synthesis flow tests
command -v valgrind >/dev/null || need+=(valgrind)
command -v riscv64-unknown-elf-gcc >/dev/null || need+=(gcc-riscv64-unknown-elf)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
bash scripts/venv.sh  # .venv with PyPI datasketches (the peer of `hwprof sweep`) and pythondata-cpu-picorv32 (`hwprof soc`)
cargo test --release --workspace "$@"
