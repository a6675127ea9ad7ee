#!/bin/sh
# A fake `fone` for tests/test_welcome.cpp: speaks the events of `fone train` without training.
case "$1" in
  --version) echo 'fone 0 (CPU only)'; exit 0;;
  train) ;;
  *) echo "fone $1: error: this fake only trains" >&2; exit 2;;
esac
method=""; name=""; runs="/nonexistent"
while [ $# -gt 0 ]; do
  case "$1" in --method) method=$2; shift;; --name) name=$2; shift;; --runs-dir) runs=$2; shift;; esac
  shift
done
# The run's folder in the store it was given, as `fone train` makes it (a config, no checkpoint).
mkdir -p "$runs/$name" 2>/dev/null && echo "{\"task\":\"dec-add\",\"method\":\"$method\"}" > "$runs/$name/config.json"
echo "{\"event\":\"start\",\"run\":\"$name\",\"dir\":\"$runs/$name\"}"
if [ "$method" = fone ]; then
  t=0
  for a in 0.2 0.7 0.995; do
    sleep 0.2; t=$((t+1))
    echo "{\"event\":\"eval\",\"split\":\"test\",\"exact_match\":$a,\"elapsed_seconds\":0.$((t*2))}"
  done
  echo '{"event":"end","status":"finished","message":"reached the target","elapsed_seconds":0.6,"best_exact_match":0.995}'
  exit 0
fi
trap 'echo "{\"event\":\"end\",\"status\":\"stopped\",\"message\":\"stopped\",\"elapsed_seconds\":1.4,\"best_exact_match\":0.01}"; exit 0' TERM
i=0
while true; do
  sleep 0.1; i=$((i+1))
  echo "{\"event\":\"eval\",\"split\":\"test\",\"exact_match\":0.01,\"elapsed_seconds\":0.$i}"
done
