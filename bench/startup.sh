#!/usr/bin/env bash
# Start-up time of `fone`'s commands that need no LibTorch (--help, encode, decode, parse), against the same
# commands with LibTorch loaded at start as a `fone` linked with it did before (LD_PRELOAD of libtorch.so:
# the same binary, the same work, plus LibTorch's loading and static initialisers). A/B interleaved, median of
# N runs each.      bench/startup.sh [BUILD_DIR] [N]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
N="${2:-15}"
FONE="$BUILD/bin/fone"
TORCH="$(ldd "$BUILD/lib/libfone_torch_commands.so" | awk '/libtorch\.so/ {print $3}')"
echo "$(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg); median of $N runs; LibTorch: $TORCH"
python3 - "$FONE" "$TORCH" "$N" <<'PY'
import os, statistics, subprocess, sys, time
fone, torch, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
import json
emb = json.loads(subprocess.run([fone, "encode", "-m", "1", "-n", "1", "1.5"], capture_output=True).stdout)["embedding"]
cases = [["--help"], ["encode", "1.5"], ["decode", "-m", "1", "-n", "1", json.dumps(emb)],
         ["parse", "12 pens cost 3.5 dollars"], ["--version"]]
def once(args, env):
    t = time.perf_counter()
    subprocess.run([fone] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
plain = dict(os.environ); plain.pop("LD_PRELOAD", None)
preload = dict(plain, LD_PRELOAD=torch)
print(f"{'command':<28} {'without LibTorch':>17} {'LibTorch loaded':>16} {'ratio':>6}")
for args in cases:
    a, b = [], []
    for _ in range(n):
        a.append(once(args, plain)); b.append(once(args, preload))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{'fone ' + ' '.join(args)[:22]:<28} {ma * 1000:14.0f} ms {mb * 1000:13.0f} ms {mb / ma:6.1f}")
PY
