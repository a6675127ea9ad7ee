#!/usr/bin/env bash
# Throughput of N `fone train` runs at once against one run alone: each case starts its runs together and
# reports the training examples/s of each (from its eval events) and their sum. The cases: every run on
# every core (what the workbench's queue did before it shared the cores out), and the cores shared out
# (threads_per_run: cores / N, at least 1).
#   bench/concurrent_runs.sh [BUILD_DIR] [OUT_DIR]        (FONE_CONCURRENT_SIZE: examples, default 25600)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$BUILD/concurrent-runs}"
SIZE="${FONE_CONCURRENT_SIZE:-25600}"
CORES="$(nproc)"
rm -rf "$OUT"
mkdir -p "$OUT"
echo "$CORES cores; load: $(cut -d' ' -f1-3 /proc/loadavg); 6-digit decimal addition, $SIZE examples, 2 epochs each"
printf '%-5s %-8s %-28s %12s %8s\n' runs threads "examples/s of each run" "sum" wall_s
case_() {  # runs threads
  local n=$1 t=$2 dir="$OUT/n$1-t$2" pids=() t0 t1
  mkdir -p "$dir"
  t0=$(date +%s.%N)
  for i in $(seq "$n"); do
    "$BUILD/bin/fone" train --task dec-add --train-size "$SIZE" --val-size 0 --test-size 200 --epochs 2 \
      --threads "$t" --seed "$i" --runs-dir "$dir" --name "r$i" >"$dir/r$i.jsonl" &
    pids+=($!)
  done
  wait "${pids[@]}"
  t1=$(date +%s.%N)
  python3 - "$dir" "$n" "$t" "$t0" "$t1" <<'PY'
import glob, json, sys
rates = []
for f in sorted(glob.glob(sys.argv[1] + "/r*.jsonl")):
    ev = [json.loads(l) for l in open(f) if l.startswith("{")]
    r = [e["examples_per_second"] for e in ev if e.get("event") == "eval" and "examples_per_second" in e]
    rates.append(sum(r) / len(r) if r else 0.0)
each = " ".join(f"{r:,.0f}" for r in rates)
print(f"{sys.argv[2]:<5} {sys.argv[3]:<8} {each:<28} {sum(rates):12,.0f} {float(sys.argv[5]) - float(sys.argv[4]):8.1f}")
PY
}
case_ 1 "$CORES"
for n in 2 4; do
  case_ "$n" "$CORES"                       # every run on every core
  case_ "$n" $(( CORES / n > 0 ? CORES / n : 1 ))  # the cores shared out
done
