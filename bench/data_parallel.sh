#!/usr/bin/env bash
# One run on 1 or 2 processes (issue 32; docs/cluster.md, "One run on several processes"): for the default
# model and for size level 4, on 51,200 examples of decimal addition,
#   1 process x 1 thread, 1 process x 2 threads, 2 processes x 1 thread (--nproc 2 --threads 2):
# training examples per second (the progress events' rate, after the first 2 events) and, for 2 processes,
# the all-reduce's share of a step (the progress events' allreduce_seconds over step_seconds). Each case
# trains SECONDS (default 40) and is stopped with SIGTERM. With TARGET=1 it also trains each case of the
# default model to 99% exact match and reports the wall time (minutes each on 2 cores); TARGET=2 also size
# level 4 (about 25 minutes more on 2 idle cores). RATES=0 skips the timed cases (only the targets).
#   nice -n 10 bench/data_parallel.sh build/bin/fone 40
#   RATES=0 TARGET=2 bench/data_parallel.sh build/bin/fone
set -euo pipefail
fone="${1:-build/bin/fone}"
secs="${2:-40}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
common=(--task dec-add --train-size 51200 --snapshots none --runs-dir "$work/runs")

rate() {  # mean examples/s and all-reduce share of the progress events in a stdout file
    python3 - "$1" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
p = [e for e in ev if e.get("event") == "progress"][2:]
if not p:
    print("no progress events"); sys.exit()
rate = sum(e["examples_per_second"] for e in p) / len(p)
share = ""
if "allreduce_seconds" in p[0]:
    share = " all-reduce %.1f%% of a step" % (100 * sum(e["allreduce_seconds"] for e in p) /
                                              sum(e["step_seconds"] for e in p))
print("%.0f examples/s over %d progress events%s" % (rate, len(p), share))
PY
}

case_args() {  # name -> the options of the case
    case "$1" in
        1x1) echo "--threads 1" ;;
        1x2) echo "--threads 2" ;;
        2x1) echo "--nproc 2 --threads 2" ;;
    esac
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for model in default "--size-level 4"; do
    [[ "${RATES:-1}" == 0 ]] && break
    extra=()
    [[ "$model" != default ]] && extra=($model)
    for c in 1x1 1x2 2x1; do
        # shellcheck disable=SC2046
        timeout -s TERM "$secs" "$fone" train "${common[@]}" "${extra[@]}" $(case_args $c) --epochs 20 \
            --name "rate-${model// /}-$c" >"$work/out" 2>/dev/null || true
        echo "model $model, $c (processes x threads): $(rate "$work/out")"
    done
done
target_models=(default)
[[ "${TARGET:-0}" == 2 ]] && target_models=(default "--size-level 4")
[[ "${TARGET:-0}" == 0 ]] && target_models=()
for model in "${target_models[@]}"; do
    extra=()
    [[ "$model" != default ]] && extra=($model)
    for c in 1x1 1x2 2x1; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2046
        "$fone" train "${common[@]}" "${extra[@]}" --target-acc 0.99 $(case_args $c) \
            --name "target-${model// /}-$c" >"$work/out" 2>/dev/null || true
        end=$(date +%s.%N)
        python3 - "$work/out" "$start" "$end" "$c" "$model" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
ends = [e for e in ev if e.get("event") == "end"]
if not ends:
    print("model %s, %s: no end event" % (sys.argv[5], sys.argv[4])); sys.exit()
end = ends[-1]
print("model %s, %s: wall %.0f s, time to target %s s, step %s, best %s, %s" % (
      sys.argv[5], sys.argv[4], float(sys.argv[3]) - float(sys.argv[2]), end.get("time_to_target_seconds"),
      end.get("step"), end.get("best_exact_match"), end.get("message")))
PY
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
