#!/usr/bin/env bash
# `fone train` on a machine that is also doing something else (issue 29): wall and CPU seconds per epoch at
# 0, 1 and 2 busy background processes (`yes >/dev/null` burners this script starts and kills), for every
# thread setting: 1, 2 (every core here), auto (the default: --threads 0) and "2 spin" (2 threads with
# libgomp's spinning wait, GOMP_SPINCOUNT=300000: what the default was before issue 29); the default model
# (dec-add, 51,200 examples) and size level 4; then the same under a cgroup quota of one CPU when this
# machine lets us make one; then the time to 99% at 51,200 idle and beside two burners ("2 spin" idle only:
# beside two burners it did not finish in 400 s, issue 29).
#
# Per epoch: each case trains until its first evaluation (STEPS steps of batch 256) and reports that
# evaluation's epoch_seconds and epoch_cpu_seconds ("2 spin": at most 20 steps): the training steps' wall and CPU time (evaluation not
# included) scaled to the whole epoch of 200 steps. "0 busy" is this script's own zero: other processes on
# the machine still run (uptime is printed before and after each part).
#
#   bench/busy_threads.sh [BUILD_DIR] [OUT_DIR]
# Environment: FONE_BUSY_STEPS (default model, 100), FONE_BUSY_L4_STEPS (level 4, 20), FONE_BUSY_LOADS
# ("0 1 2"), FONE_BUSY_TIMEOUT (seconds per case, 150), FONE_BUSY_PARTS ("epoch quota ttt").
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$BUILD/busy-threads}"
FONE="$BUILD/bin/fone"
STEPS="${FONE_BUSY_STEPS:-100}"
L4_STEPS="${FONE_BUSY_L4_STEPS:-20}"
LOADS="${FONE_BUSY_LOADS:-0 1 2}"
TIMEOUT="${FONE_BUSY_TIMEOUT:-150}"
PARTS="${FONE_BUSY_PARTS:-epoch quota ttt}"
CORES="$(nproc)"
rm -rf "$OUT"
mkdir -p "$OUT"

BURNERS=()
start_burners() {  # n
  for _ in $(seq "$1"); do
    (exec yes >/dev/null) &
    BURNERS+=($!)
  done
  sleep 1  # let them take their CPUs before the run looks at the machine
}
stop_burners() {
  if ((${#BURNERS[@]})); then
    kill "${BURNERS[@]}" 2>/dev/null || true
    wait "${BURNERS[@]}" 2>/dev/null || true
  fi
  BURNERS=()
}
CGROUP=""
cleanup() {
  stop_burners
  [[ -n "$CGROUP" ]] && rmdir "$CGROUP" 2>/dev/null || true
}
trap cleanup EXIT

say_load() { echo "[$1: $(uptime | sed 's/.*load average/load average/')]"; }

# threads setting -> the arguments and environment of `fone train`
thread_args() {
  case "$1" in
    auto) echo "" ;;
    "2 spin") echo "--threads 2" ;;
    *) echo "--threads $1" ;;
  esac
}

# One case: trains until the first evaluation (or TIMEOUT), prints a table row.
#   case_ MODEL LOAD SETTING [PREFIX...]   (PREFIX: a command to run fone under, e.g. the cgroup's)
case_() {
  local model=$1 load=$2 setting=$3
  shift 3
  local name steps model_args file
  name="$(echo "$model-$load-$setting" | tr ' ' '_')"
  file="$OUT/$name.jsonl"
  if [[ $model == "level 4" ]]; then
    steps=$L4_STEPS
    model_args=(--size-level 4)
  else
    steps=$STEPS
    model_args=()
  fi
  local spin=()
  if [[ $setting == "2 spin" ]]; then  # up to 30 times slower beside burners: fewer steps
    spin=(GOMP_SPINCOUNT=300000)
    steps=$((steps < 20 ? steps : 20))
  fi
  # shellcheck disable=SC2046
  env "${spin[@]}" "$@" "$FONE" train --task dec-add --train-size 51200 --val-size 0 --test-size 200 --epochs 1 \
    --eval-every "$steps" "${model_args[@]}" $(thread_args "$setting") --runs-dir "$OUT/runs" --name "$name" \
    >"$file" 2>"$OUT/$name.err" &
  local pid=$! waited=0
  while ! grep -q '"event":"eval"' "$file" 2>/dev/null && kill -0 "$pid" 2>/dev/null && ((waited < TIMEOUT * 10)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  python3 - "$file" "$model" "$load" "$setting" "$steps" "$TIMEOUT" >>"$OUT/rows.tsv" <<'PY'
import json, sys
f, model, load, setting, steps, timeout = sys.argv[1:]
ev = [json.loads(l) for l in open(f) if l.startswith("{")]
start = next((e for e in ev if e.get("event") == "start"), {})
evals = [e for e in ev if e.get("event") == "eval"]
changes = [e for e in ev if e.get("event") == "threads"]
if evals:
    wall, cpu = evals[0]["epoch_seconds"], evals[0]["epoch_cpu_seconds"]
else:
    wall, cpu = float("nan"), float("nan")
threads = str(start.get("threads", "?"))
if changes:
    threads += "".join(f"->{c['threads']}" for c in changes)
print("\t".join([model, load, setting, f"{wall:.2f}", f"{cpu:.2f}", threads,
                 start.get("threads_reason", "")[:90]]))
PY
  tail -1 "$OUT/rows.tsv" | awk -F'\t' '{printf "%-8s %-5s %-7s %10s %10s  %-10s %s\n", $1, $2, $3, $4, $5, $6, $7}'
}

header() {
  printf '%-8s %-5s %-7s %10s %10s  %-10s %s\n' model busy threads "wall s/ep" "CPU s/ep" "threads" \
    "why (the start event's threads_reason)"
}

echo "busy_threads: $CORES cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(date -u +%FT%TZ)"
echo "per epoch = the first $STEPS steps (level 4: $L4_STEPS) of batch 256, scaled to the epoch's 200 steps"
: >"$OUT/rows.tsv"

if [[ " $PARTS " == *" epoch "* ]]; then
  say_load "before"
  header
  for load in $LOADS; do
    start_burners "$load"
    for setting in 1 2 auto "2 spin"; do
      case_ default "$load" "$setting"
    done
    for setting in 1 2 auto; do
      case_ "level 4" "$load" "$setting"
    done
    stop_burners
  done
  say_load "after"
  python3 - "$OUT/rows.tsv" <<'PY'
import csv, math, sys
rows = [r for r in csv.reader(open(sys.argv[1]), delimiter="\t")]
print("\nauto against the best fixed count (1 or 2) at each load, and its CPU against auto's idle CPU:")
print(f"{'model':8} {'busy':5} {'auto wall':>10} {'best fixed':>11} {'ratio':>6} {'auto CPU':>9} {'idle CPU':>9} {'ratio':>6}")
for model in ("default", "level 4"):
    idle = [float(r[4]) for r in rows if r[0] == model and r[1] == "0" and r[2] == "auto"]
    for load in sorted({r[1] for r in rows if r[0] == model}):
        at = {r[2]: (float(r[3]), float(r[4])) for r in rows if r[0] == model and r[1] == load}
        if "auto" not in at:
            continue
        fixed = [at[k][0] for k in ("1", "2") if k in at and not math.isnan(at[k][0])]
        best = min(fixed) if fixed else float("nan")
        a_wall, a_cpu = at["auto"]
        i_cpu = idle[0] if idle else float("nan")
        print(f"{model:8} {load:5} {a_wall:10.2f} {best:11.2f} {a_wall / best:6.2f} {a_cpu:9.2f} {i_cpu:9.2f} "
              f"{a_cpu / i_cpu:6.2f}")
PY
fi

if [[ " $PARTS " == *" quota "* ]]; then
  echo
  echo "Under a cgroup CPU quota of one CPU (no burners):"
  CG_PREFIX=()
  if [[ -w /sys/fs/cgroup/cpu ]] && mkdir "/sys/fs/cgroup/cpu/fone-busy-$$" 2>/dev/null; then
    CGROUP="/sys/fs/cgroup/cpu/fone-busy-$$"
    echo 100000 >"$CGROUP/cpu.cfs_period_us"
    echo 100000 >"$CGROUP/cpu.cfs_quota_us"
  elif [[ -f /sys/fs/cgroup/cgroup.controllers ]] && mkdir "/sys/fs/cgroup/fone-busy-$$" 2>/dev/null; then
    CGROUP="/sys/fs/cgroup/fone-busy-$$"
    echo "100000 100000" >"$CGROUP/cpu.max" 2>/dev/null || { rmdir "$CGROUP"; CGROUP=""; }
  fi
  if [[ -z "$CGROUP" ]]; then
    echo "  cannot make a cgroup here (not root, or no writable cpu controller): skipped"
  else
    CG_PREFIX=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROUP")
    say_load "before"
    header
    for setting in 1 2 auto; do
      case_ default "quota" "$setting" "${CG_PREFIX[@]}"
    done
    say_load "after"
    rmdir "$CGROUP" 2>/dev/null || true
    CGROUP=""
  fi
fi

# Time to 99% at 51,200 (the issue's command), idle and beside two burners: the end event's
# time_to_target_seconds, and the process's wall and CPU (user + system) seconds from start to end.
ttt() {  # label load setting
  local label=$1 load=$2 setting=$3 file="$OUT/ttt-$1.jsonl" spin=() times="$OUT/ttt-$1.time"
  [[ $setting == "2 spin" ]] && spin=(GOMP_SPINCOUNT=300000)
  start_burners "$load"
  local TIMEFORMAT='%R %U %S'
  # shellcheck disable=SC2046
  { time timeout -s TERM "$((4 * TIMEOUT))" env "${spin[@]}" "$FONE" train --task dec-add --train-size 51200 \
      --target-acc 0.99 $(thread_args "$setting") --runs-dir "$OUT/runs" --name "ttt-$label" \
      >"$file" 2>"$OUT/ttt-$label.err" || true; } 2>"$times"
  stop_burners
  python3 - "$file" "$label" "$load" "$setting" "$times" <<'PY'
import json, sys
f, label, load, setting, times = sys.argv[1:]
wall, user, system = (float(x) for x in open(times).read().split()[-3:])
ev = [json.loads(l) for l in open(f) if l.startswith("{")]
start = next((e for e in ev if e.get("event") == "start"), {})
end = next((e for e in ev if e.get("event") == "end"), {})
evals = [e for e in ev if e.get("event") == "eval"]
ttt = end.get("time_to_target_seconds")
changes = [e for e in ev if e.get("event") == "threads"]
threads = str(start.get("threads", "?")) + "".join(f"->{c['threads']}" for c in changes)
epoch = evals[-1]["epoch"] if evals else 0
print(f"{label:14} {load:5} {setting:7} {('%.1f' % ttt) if ttt else 'not reached':>12} {wall:7.1f} "
      f"{user + system:7.1f} {epoch:6.2f} {threads}")
PY
}

if [[ " $PARTS " == *" ttt "* ]]; then
  echo
  echo "Time to 99% at 51,200 (fone train --task dec-add --train-size 51200 --target-acc 0.99; cap $((4 * TIMEOUT)) s):"
  say_load "before"
  printf '%-14s %-5s %-7s %12s %7s %7s %6s %s\n' case busy threads "to 99% s" "wall s" "CPU s" epoch threads
  ttt idle-auto 0 auto
  ttt idle-2 0 2
  ttt idle-2spin 0 "2 spin"
  ttt busy2-auto 2 auto
  ttt busy2-1 2 1
  say_load "after"
fi
