#!/usr/bin/env bash
# Throughput of N `fone train` runs at once against one run alone. Each case starts its runs together, lets
# them train for SECONDS, stops them (SIGTERM: they checkpoint and end "stopped") and reports the training
# examples/s of each (examples trained by its last progress event / its elapsed seconds) and their sum. The
# cases: one run on every core; N runs each on every core (what the workbench's queue did before it shared the
# cores out); N runs with the cores shared out (threads_per_run: cores / N, at least 1).
#   bench/concurrent_runs.sh [BUILD_DIR] [OUT_DIR]     (FONE_CONCURRENT_SECONDS: per case, default 40)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$BUILD/concurrent-runs}"
SECONDS_PER_CASE="${FONE_CONCURRENT_SECONDS:-40}"
CORES="$(nproc)"
rm -rf "$OUT"
mkdir -p "$OUT"
echo "$CORES cores; load: $(cut -d' ' -f1-3 /proc/loadavg); 6-digit decimal addition, 51,200 examples," \
  "default model, ${SECONDS_PER_CASE} s per case"
printf '%-5s %-8s %-30s %10s\n' runs threads "examples/s of each run" "sum"
case_() {  # runs threads
  local n=$1 t=$2 dir="$OUT/n$1-t$2" pids=()
  mkdir -p "$dir"
  for i in $(seq "$n"); do
    "$BUILD/bin/fone" train --task dec-add --train-size 51200 --val-size 0 --test-size 200 --epochs 50 \
      --threads "$t" --seed "$i" --runs-dir "$dir" --name "r$i" >"$dir/r$i.jsonl" &
    pids+=($!)
  done
  sleep "$SECONDS_PER_CASE"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" || true
  python3 - "$dir" "$n" "$t" <<'PY'
import glob, json, sys
rates = []
for f in sorted(glob.glob(sys.argv[1] + "/r*.jsonl")):
    ev = [json.loads(l) for l in open(f) if l.startswith("{")]
    batch = next((e["config"]["batch"] for e in ev if e.get("event") == "start"), 0)
    p = [e for e in ev if e.get("event") == "progress"]
    rates.append(p[-1]["step"] * batch / p[-1]["elapsed_seconds"] if p else 0.0)
each = " ".join(f"{r:,.0f}" for r in rates)
print(f"{sys.argv[2]:<5} {sys.argv[3]:<8} {each:<30} {sum(rates):10,.0f}")
PY
}
case_ 1 "$CORES"
for n in 2 4; do
  case_ "$n" "$CORES"                               # every run on every core
  case_ "$n" $(( CORES / n > 0 ? CORES / n : 1 ))   # the cores shared out
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
