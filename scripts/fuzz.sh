#!/usr/bin/env bash
# Builds the libFuzzer target fuzz_numbers (tests/fuzz/) in its own clang tree and runs it for a while.
#   scripts/fuzz.sh [--seconds N] [--build-dir DIR]      (defaults: 60, build-fuzz)
# Exit 0: no crash; 77: clang or its fuzzer runtime is missing (CTest reports it as skipped); anything
# else: the fuzzer found a crash, a hang or an invariant violation (the input is kept in DIR/crashes/).
set -euo pipefail

seconds=60
build_dir=build-fuzz
usage() { echo "usage: $0 [--seconds N] [--build-dir DIR]" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
        --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage; exit 2 ;;
    esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz.sh: --seconds must be a positive integer, not '$seconds'" >&2
    exit 2
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
skip() { echo "fuzz_numbers: skipped: $*"; exit 77; }

cxx=""
for candidate in clang++-14 clang++; do
    if command -v "$candidate" >/dev/null 2>&1; then cxx="$(command -v "$candidate")"; break; fi
done
[[ -n "$cxx" ]] || skip "no clang++-14 or clang++ on PATH (libFuzzer needs clang)"
for tool in cmake ninja; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
done

# Link a trivial fuzz target: this fails when the compiler-rt fuzzer or sanitizer runtimes are absent.
probe_dir="$(mktemp -d)"
trap 'rm -rf "$probe_dir"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
    >"$probe_dir/probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe_dir/probe.cpp" -o "$probe_dir/probe" \
    >"$probe_dir/probe.log" 2>&1; then
    why="$(head -c 300 "$probe_dir/probe.log")"
    skip "$cxx cannot link -fsanitize=fuzzer,address,undefined (libFuzzer runtime missing?): $why"
fi

mkdir -p "$build_dir"
build_dir="$(cd "$build_dir" && pwd)"
cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DFONE_BUILD_FUZZERS=ON \
    -DFONE_WITH_TORCH=OFF -DFONE_BUILD_TESTS=OFF -DFONE_BUILD_BENCH=OFF -DFONE_BUILD_CLI=OFF \
    -DFONE_BUILD_GUI=OFF >"$build_dir/configure.log" 2>&1 || {
    cat "$build_dir/configure.log" >&2
    exit 1
}
cmake --build "$build_dir" --target fuzz_numbers

# Seeds: the shapes the parser decides about (grouping, signs, exponents, dots, out of range).
corpus="$build_dir/corpus/fuzz_numbers"
mkdir -p "$corpus" "$build_dir/crashes"
seeds=("1,234,567.5" "\$99.99" "50%" "3.14e-2" "6E23 1e+5" $'\xe2\x88\x92''5' "x = -5" "COVID-19" "3-5"
       "1.2.3" "2024.01.05" "--5" "1e999999" "1,23" "007 -0 +5" ".5 and 5." "abc123def" "wait...5")
for k in "${!seeds[@]}"; do
    printf '%s' "${seeds[$k]}" >"$corpus/seed_$k"
done

log="$build_dir/fuzz_numbers.log"
status=0
"$build_dir/bin/fuzz_numbers" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=4096 \
    -artifact_prefix="$build_dir/crashes/" "$corpus" >"$log" 2>&1 || status=$?
if [[ $status -ne 0 ]]; then
    tail -n 60 "$log" >&2
    echo "fuzz_numbers: FAILED (exit $status); the input is in $build_dir/crashes/, full log in $log" >&2
    exit 1
fi

# libFuzzer ends with "Done <runs> runs in <seconds> second(s)".
done_line="$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)"
if [[ -z "$done_line" ]]; then
    tail -n 20 "$log" >&2
    echo "fuzz_numbers: no 'Done ... runs' line in $log" >&2
    exit 1
fi
runs="$(awk '{print $2}' <<<"$done_line")"
secs="$(awk '{print $5}' <<<"$done_line")"
rate=$((runs / (secs > 0 ? secs : 1)))
echo "fuzz_numbers: $secs s, $runs executions, $rate exec/s, no crash"
