#!/usr/bin/env bash
# Prints the speed figures: BLAS matmul GFLOP/s, FoNE encode/decode throughput, text tokenizer speed,
# training throughput, the analyses (spectrum, PCA, probe, unit circles), `fone`'s start-up without LibTorch
# (bench/startup.sh). N runs at once against one: bench/concurrent_runs.sh (minutes; not run here).
#   scripts/bench.sh [BUILD_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
cmake --build "$BUILD" --target benches  # not part of `all`
for b in bench_matmul bench_fone bench_text bench_train bench_analysis bench_workbench bench_store; do
  if [ -x "$BUILD/bin/$b" ]; then
    printf '\n== %s\n' "$b"
    "$BUILD/bin/$b"
  fi
done
if [ -x "$BUILD/bin/fone" ] && [ -e "$BUILD/lib/libfone_torch_commands.so" ]; then
  printf '\n== startup\n'
  "$ROOT/bench/startup.sh" "$BUILD"
fi
