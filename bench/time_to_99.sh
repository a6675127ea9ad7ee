#!/usr/bin/env bash
# Time to 99% exact match on 2,000 held-out 6-digit decimal additions with the DEFAULT options:
# the wall time of the whole `fone train` command, from 51,200 and from 6,400 training examples.
#   bench/time_to_99.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$BUILD/time-to-99}"
rm -rf "$OUT"
mkdir -p "$OUT"
printf '%-10s %-6s %10s %9s %12s %s\n' train seed wall_s status exact_match run
run() {  # train_size seed [extra options]
  local size=$1 seed=$2 name="n$1-s$2"
  shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$BUILD/bin/fone" train --task dec-add --train-size "$size" --test-size 2000 --target-acc 0.99 --seed "$seed" \
    --runs-dir "$OUT" --name "$name" "$@" > "$OUT/$name.jsonl" || true
  t1=$(date +%s.%N)
  python3 - "$OUT/$name.jsonl" "$size" "$seed" "$t0" "$t1" "$OUT/$name" <<'PY'
import json, sys
end = [json.loads(l) for l in open(sys.argv[1])][-1]
wall = float(sys.argv[5]) - float(sys.argv[4])
print(f"{sys.argv[2]:<10} {sys.argv[3]:<6} {wall:10.1f} {end['status']:>9} "
      f"{100 * end['best_exact_match']:11.2f}% {sys.argv[6]}")
PY
}
for seed in 42 1 2 3; do run 51200 "$seed"; done
for seed in 1 2 3; do run 6400 "$seed"; done
