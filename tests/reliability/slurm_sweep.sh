#!/usr/bin/env bash
# `fone sweep --slurm` for real: a private single-node Slurm (scripts/slurm-local.sh: Debian's slurm-wlm and
# munge) runs the generated job-array script.
#   1. a 2-cell sweep: sbatch --wait; both runs finished in the shared store, one log per array task
#   2. resume on requeue: a longer cell is requeued (scontrol requeue) once it has a checkpoint; Slurm stops
#      it (SIGTERM: fone checkpoints), starts the task again, the script resumes the run, and it finishes on
#      the same weights as the same run trained without interruption
#   3. without Slurm, the array task body itself: SLURM_ARRAY_TASK_ID set by hand, run twice (start, then
#      "finished; nothing to do"), a task number out of range is exit 2
# Parts 1-2 need root and slurm-wlm (installed when missing); without them they are skipped and part 3 still
# runs (exit 0). Exit 77 only when even part 3 cannot run.
#   tests/reliability/slurm_sweep.sh FONE WORKDIR
set -euo pipefail
fone="${1:?usage: $0 FONE WORKDIR}"
work="${2:?usage: $0 FONE WORKDIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[[ -x "$fone" ]] || { echo "slurm_sweep: no fone at $fone"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
store="$work/store"
log() { echo "slurm_sweep: $*"; }
tiny=(--task dec-add --train-size 200 --test-size 20 --val-size 0 --epochs 1 --batch 32 --hidden 16 --layers 1
      --heads 2 --kv-heads 1 --intermediate 32 --head-dim 8)
# About 10 s of training on one thread, a checkpoint every 10 steps.
longer=(--task dec-add --train-size 3200 --test-size 50 --val-size 0 --epochs 3 --batch 32 --hidden 64 --layers 2
        --heads 2 --kv-heads 1 --intermediate 128 --head-dim 32 --checkpoint-every 10)

finished() { grep -Eq '"status": *"finished"' "$1/status.json"; }
digest() { grep -o '"weights_digest": *"[^"]*"' "$1/summary.json" | sed 's/.*: *"//; s/"$//'; }

# ---- 3. the task body by hand ------------------------------------------------------------------------------
"$fone" sweep --name byhand --seeds 1,2 --runs-dir "$store" --slurm "$work/byhand.sh" -- "${tiny[@]}" >"$work/byhand.json"
grep -q '"event":"slurm_script"' "$work/byhand.json"
grep -q '^#SBATCH --array=0-1$' "$work/byhand.sh"
# A cell of several tasks (one run on 2 processes): #SBATCH --ntasks and srun in the script.
"$fone" sweep --name dp --seeds 4 --runs-dir "$store" --slurm "$work/dp.sh" --slurm-ntasks 2 -- "${tiny[@]}" >/dev/null
grep -q '^#SBATCH --ntasks=2$' "$work/dp.sh"
grep -q '^launch=(srun --kill-on-bad-exit=1' "$work/dp.sh"
SLURM_ARRAY_TASK_ID=1 SLURM_CPUS_PER_TASK=1 bash "$work/byhand.sh" >"$work/byhand-1.out" 2>"$work/byhand-1.err"
finished "$store/byhand-s2"
# No oversubscription: a task trains on the CPUs Slurm gave it (--cpus-per-task), not on every core of the node.
grep -Eq '"threads": *1([^0-9]|$)' "$store/byhand-s2/config.json"
SLURM_ARRAY_TASK_ID=1 bash "$work/byhand.sh" >"$work/byhand-1b.out" 2>&1
grep -q "has finished; nothing to do" "$work/byhand-1b.out"
status=0
SLURM_ARRAY_TASK_ID=7 bash "$work/byhand.sh" >/dev/null 2>&1 || status=$?
[[ $status -eq 2 ]] || { log "task 7 of 2 cells exited $status, not 2"; exit 1; }
# A task whose run exists but was stopped resumes it: stop cell 0 by hand (SIGTERM after its first checkpoint).
"$fone" sweep --name byhand2 --seeds 5 --runs-dir "$store" --slurm "$work/byhand2.sh" -- "${longer[@]}" >/dev/null
SLURM_ARRAY_TASK_ID=0 bash "$work/byhand2.sh" >"$work/byhand2.out" 2>&1 &
pid=$!
for _ in $(seq 600); do [[ -f "$store/byhand2-s5/checkpoint-last.safetensors" ]] && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid" || true
grep -Eq '"status": *"stopped"' "$store/byhand2-s5/status.json"
SLURM_ARRAY_TASK_ID=0 bash "$work/byhand2.sh" >"$work/byhand2b.out" 2>&1
finished "$store/byhand2-s5"
grep -q '"resumed":true' "$work/byhand2b.out"
log "task body by hand: start, nothing-to-do, out-of-range exit 2, stopped run resumed: ok"

# ---- 1-2. a real Slurm ---------------------------------------------------------------------------------------
slurm="$work/slurm"
cleanup() { "$repo/scripts/slurm-local.sh" stop "$slurm" >/dev/null 2>&1 || true; }
trap cleanup EXIT
start_status=0
timeout 300 "$repo/scripts/slurm-local.sh" start "$slurm" >"$work/slurm-start.log" 2>&1 || start_status=$?
if [[ $start_status -ne 0 ]]; then
    log "no Slurm here ($(tail -n 1 "$work/slurm-start.log")): the real-Slurm parts are skipped"
    exit 0
fi
export SLURM_CONF="$slurm/slurm.conf"
log "$(tail -n 1 "$work/slurm-start.log")"

"$fone" sweep --name real --seeds 1,2 --runs-dir "$store" --slurm "$work/real.sh" -- "${tiny[@]}" >/dev/null
timeout 300 sbatch --wait "$work/real.sh" >"$work/real.sbatch" 2>&1 || { cat "$work/real.sbatch"; exit 1; }
finished "$store/real-s1"
finished "$store/real-s2"
ls "$store/.real.logs/"slurm-*_0.out "$store/.real.logs/"slurm-*_1.out >/dev/null
"$fone" runs list --runs-dir "$store" --status finished | grep -q real-s2
log "2-cell job array under Slurm: both runs finished"

# A 2-task cell: srun starts 2 ranks (SLURM_PROCID/SLURM_NTASKS, the rendezvous on the job's first node); the
# run ends on the weights of the same run on `fone train --nproc 2` (2 gradient shares, 1 thread each).
# A build without Gloo (PyPI's CUDA LibTorch 2.x) trains several processes on GPUs only: skipped there.
if ! "$fone" train "${tiny[@]}" --seed 4 --nproc 2 --threads 2 --name dp-reference --runs-dir "$work/ref" \
    >/dev/null 2>"$work/dp-reference.err"; then
    grep -q "needs Gloo" "$work/dp-reference.err" || { cat "$work/dp-reference.err"; exit 1; }
    log "this build has no Gloo: the 2-task cell is skipped ($(head -n 1 "$work/dp-reference.err"))"
else
    timeout 300 sbatch --wait "$work/dp.sh" >"$work/dp.sbatch" 2>&1 || { cat "$work/dp.sbatch" "$store/.dp.logs/"*; exit 1; }
    finished "$store/dp-s4" || { cat "$store/.dp.logs/"*; exit 1; }
    grep -Eq '"gradient_shards": *2' "$store/dp-s4/data-parallel.json"
    ref="$(digest "$work/ref/dp-reference")"; got="$(digest "$store/dp-s4")"
    [[ -n "$ref" && "$ref" == "$got" ]] || { log "2-task cell: weights $got, --nproc 2: $ref"; exit 1; }
    log "2-task cell under Slurm (srun, 2 ranks): finished on the weights of --nproc 2 ($got)"
fi

# Requeue: the same longer cell as a reference trained straight through, then under Slurm with a requeue.
"$fone" train "${longer[@]}" --seed 3 --threads 1 --name reference --runs-dir "$work/ref" >/dev/null
"$fone" sweep --name rq --seeds 3 --runs-dir "$store" --slurm "$work/rq.sh" -- "${longer[@]}" >/dev/null
job="$(sbatch --parsable "$work/rq.sh")"
for _ in $(seq 1200); do [[ -f "$store/rq-s3/checkpoint-last.safetensors" ]] && break; sleep 0.1; done
[[ -f "$store/rq-s3/checkpoint-last.safetensors" ]] || { log "no checkpoint within 120 s"; exit 1; }
scontrol requeue "${job}_0"
for _ in $(seq 1800); do
    if [[ -f "$store/rq-s3/status.json" ]] && finished "$store/rq-s3"; then break; fi
    sleep 0.1
done
finished "$store/rq-s3"
grep -q '"event":"resume"' "$store/rq-s3/metrics.jsonl"
grep -q "attempt 1" "$store/.rq.logs/"slurm-*_0.out
ref="$(digest "$work/ref/reference")"; got="$(digest "$store/rq-s3")"
[[ -n "$ref" && "$ref" == "$got" ]] || { log "weights differ after the requeue: $got vs $ref"; exit 1; }
log "requeued array task resumed from its checkpoint and finished on the uninterrupted run's weights ($got)"
