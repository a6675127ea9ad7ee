#!/usr/bin/env bash
# Time to 99% with the DEFAULT options: `fone train --task dec-add --train-size N --target-acc 0.99 --seed S`
# from 51,200 and from 6,400 training examples, seeds 1, 2, 3. With the default typed sampling the run stops
# once the paper's uniform test split (2,000 sums) AND every shape of the typed suite are at 99%
# (docs/training.md). Prints one row per run: wall seconds of the whole command, CPU seconds of the process,
# the load average while it ran (the machine may be shared: CPU seconds are the steadier figure), the
# training seconds the run records, its status, the test exact match and the lowest typed shape at the
# stop, and every shape's exact match.
#   bench/time_to_99.sh [BUILD_DIR] [OUT_DIR] [-- extra fone train options]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
OUT="${2:-$BUILD/time-to-99}"
shift $(( $# > 2 ? 2 : $# ))
[[ "${1:-}" == "--" ]] && shift
rm -rf "$OUT"
mkdir -p "$OUT"
exec python3 - "$BUILD/bin/fone" "$OUT" "$@" <<'PY'
import json, os, resource, subprocess, sys, time
fone, out, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
print(f"{'train':>6} {'seed':>4} {'wall_s':>7} {'cpu_s':>7} {'load':>5} {'train_s':>7} {'target':>9} "
      f"{'test':>7} {'lowest':>7}  typed shapes", flush=True)
for size, seeds in ((51200, (1, 2, 3)), (6400, (1, 2, 3))):
    for seed in seeds:
        name = f"n{size}-s{seed}"
        r0, t0, l0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time(), os.getloadavg()[0]
        with open(os.path.join(out, name + ".jsonl"), "w") as log:
            subprocess.run([fone, "train", "--task", "dec-add", "--train-size", str(size), "--test-size", "2000",
                            "--target-acc", "0.99", "--seed", str(seed), "--runs-dir", out, "--name", name] + extra,
                           stdout=log)
        r1, wall, l1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time() - t0, os.getloadavg()[0]
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        events = [json.loads(line) for line in open(os.path.join(out, name + ".jsonl"))]
        evals = [e for e in events if e.get("event") == "eval"]
        summary = json.load(open(os.path.join(out, name, "summary.json")))
        last = evals[-1] if evals else {}
        typed = last.get("typed", {})
        lowest = min(typed.values()) if typed else float("nan")
        shapes = " ".join(f"{k}={100 * v:.1f}" for k, v in typed.items())
        print(f"{size:>6} {seed:>4} {wall:7.1f} {cpu:7.1f} {(l0 + l1) / 2:5.1f} {summary['train_seconds']:7.1f} "
              f"{'reached' if summary.get('time_to_target_seconds') is not None else summary['status']:>9} {100 * last.get('exact_match', 0):6.2f}% {100 * lowest:6.2f}%  {shapes}",
              flush=True)
PY
