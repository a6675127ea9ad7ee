#!/usr/bin/env bash
# Prints the speed figures: BLAS matmul GFLOP/s, FoNE encode/decode throughput, text tokenizer speed,
# training throughput, the analyses (spectrum, PCA, probe, unit circles).
#   scripts/bench.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
for b in bench_matmul bench_fone bench_text bench_train bench_analysis bench_workbench bench_store; do
  if [ -x "$BUILD/bin/$b" ]; then
    printf '\n== %s\n' "$b"
    "$BUILD/bin/$b"
  fi
done
