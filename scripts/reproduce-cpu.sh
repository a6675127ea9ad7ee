#!/usr/bin/env bash
# The paper's experiments at this machine's scale (docs/reproduction.md): `fone reproduce EXPERIMENT
# --preset cpu` for each experiment in turn, one thread each, so that it can run in the background beside
# other work. Results go to results/EXPERIMENT-cpu/ (CSV, markdown, JSON, PNG); the runs to the store
# given by --runs-dir (default build/repro-runs). Finished runs are reused and interrupted ones resumed,
# so running it again continues where it stopped.
#   scripts/reproduce-cpu.sh [--runs-dir DIR] [--threads N] [EXPERIMENT...]
# FONE=path/to/fone picks the binary (default build/bin/fone).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=build/repro-runs
threads=1
experiments=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs-dir) runs="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) experiments+=("$1"); shift ;;
    esac
done
[[ ${#experiments[@]} -gt 0 ]] || experiments=(data-size efficiency ablations ntl model-size modular)
for e in "${experiments[@]}"; do
    start=$(date +%s)
    echo "== $e ($(date -u +%FT%TZ))"
    "${FONE:-build/bin/fone}" reproduce "$e" --preset cpu --threads "$threads" --runs-dir "$runs" --out "results/$e-cpu"
    echo "== $e took $(( $(date +%s) - start )) s"
done
