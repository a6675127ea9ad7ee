#!/usr/bin/env bash
# Builds libFuzzer targets (tests/fuzz/) in their own clang tree and runs each for a while.
#   scripts/fuzz.sh [--target NAME|all] [--seconds N] [--build-dir DIR] [--fone PATH]
#     NAME: fuzz_numbers (default), fuzz_config, fuzz_metrics, fuzz_experiment, fuzz_safetensors,
#     fuzz_model_files, fuzz_serve_requests, fuzz_fonerun, fuzz_corpus, fuzz_rank_environment,
#     fuzz_checkpoint; all: the eleven, N s each.
#     Defaults: 60 s, build-fuzz, fone: build/bin/fone (fuzz_checkpoint links that build's core libraries,
#     and its seed checkpoint is a tiny run trained by that fone).
# Prints one line per target: "<target>: <s> s, <n> executions, <r> exec/s, peak RSS <m> MB, no crash".
# Exit 0: no crash; 77: clang or its fuzzer runtime (or, for fuzz_checkpoint, a built fone) is missing
# (CTest reports it as skipped); anything else: a crash, a hang (5 s per input), memory over the limit or an
# invariant violation (the input is kept in DIR/crashes/).
set -euo pipefail

seconds=60
build_dir=build-fuzz
target=fuzz_numbers
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fone="$repo/build/bin/fone"
usage() { echo "usage: $0 [--target fuzz_numbers|fuzz_config|fuzz_metrics|fuzz_experiment|fuzz_safetensors|fuzz_model_files|fuzz_serve_requests|fuzz_fonerun|fuzz_corpus|fuzz_rank_environment|fuzz_checkpoint|all] [--seconds N] [--build-dir DIR] [--fone PATH]" >&2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
        --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
        --target) target="${2:?--target needs a value}"; shift 2 ;;
        --fone) fone="${2:?--fone needs a value}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage; exit 2 ;;
    esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "fuzz.sh: --seconds must be a positive integer, not '$seconds'" >&2
    exit 2
fi
case "$target" in
    fuzz_numbers|fuzz_config|fuzz_metrics|fuzz_experiment|fuzz_safetensors|fuzz_model_files|fuzz_serve_requests|fuzz_fonerun|fuzz_corpus|fuzz_rank_environment|fuzz_checkpoint) targets=("$target") ;;
    all) targets=(fuzz_numbers fuzz_config fuzz_metrics fuzz_experiment fuzz_safetensors fuzz_model_files fuzz_serve_requests fuzz_fonerun fuzz_corpus fuzz_rank_environment fuzz_checkpoint) ;;
    *) echo "fuzz.sh: unknown --target '$target'" >&2; usage; exit 2 ;;
esac

skip() { echo "$target: skipped: $*"; exit 77; }

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

# configure DIR TORCH(ON|OFF)
configure() {
    local dir="$1" torch="$2"
    mkdir -p "$dir"
    if [[ ! -f "$dir/build.ninja" ]]; then
        cmake -S "$repo" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
            -DFONE_BUILD_FUZZERS=ON -DFONE_WITH_TORCH="$torch" -DFONE_BUILD_TESTS=OFF -DFONE_BUILD_BENCH=OFF \
            -DFONE_BUILD_CLI=OFF -DFONE_BUILD_GUI=OFF \
            >"$dir/configure.log" 2>&1 || {
            cat "$dir/configure.log" >&2
            exit 1
        }
    fi
}

# seed FILE CONTENT
seed() { printf '%s' "$2" >"$1"; }

# A .fonerun as `fone runs pack` writes it (core/include/fone/store/run_pack.h), made with tar and sha256sum:
# the manifest first, then the members it lists; plain (tar) and compressed (tar.gz), and a hostile one.
fonerun_seed() {
    local out="$1" work="$2"; shift 2
    local members="" f size sum
    for f in "$@"; do
        size="$(stat -c %s "$work/$f")"
        sum="$(sha256sum "$work/$f" | cut -c1-64)"
        members="$members${members:+,}{\"name\":\"$f\",\"size\":$size,\"sha256\":\"$sum\"}"
    done
    printf '{"format":"fonerun-1","run":"seed","members":[%s]}' "$members" >"$work/fonerun.json"
    tar -C "$work" --format=pax --owner=0 --group=0 -cf "$out" fonerun.json "$@"
}

make_fonerun_seeds() {
    local corpus="$1" work
    work="$(mktemp -d)"
    mkdir -p "$work/snapshots"
    printf '{"task":"dec-add","method":"fone","train_size":64}' >"$work/config.json"
    printf '{"status":"finished","pid":1,"host":"h"}' >"$work/status.json"
    printf '{"event":"progress","step":1,"loss":2.5}\n{"event":"eval","step":2,"exact_match":0.5}\n' >"$work/metrics.jsonl"
    printf '{"notes":"n","tags":["baseline"]}' >"$work/notes.json"
    cp "$repo/tests/golden/safetensors/reference.safetensors" "$work/checkpoint-best.safetensors"
    cp "$repo/tests/golden/safetensors/reference.safetensors" "$work/snapshots/step-00000001.safetensors"
    fonerun_seed "$corpus/run.tar" "$work" config.json status.json metrics.jsonl notes.json checkpoint-best.safetensors
    fonerun_seed "$corpus/snapshots.tar" "$work" config.json snapshots/step-00000001.safetensors
    gzip -c "$corpus/run.tar" >"$corpus/run.tar.gz"
    ln -s /etc/passwd "$work/summary.json"
    fonerun_seed "$corpus/link.tar" "$work" config.json summary.json 2>/dev/null || true
    rm -rf "$work"
}

make_seeds() {
    local name="$1" corpus="$2" k
    case "$name" in
        fuzz_numbers)
            local seeds=("1,234,567.5" "\$99.99" "50%" "3.14e-2" "6E23 1e+5" $'\xe2\x88\x92''5' "x = -5" "COVID-19"
                         "3-5" "1.2.3" "2024.01.05" "--5" "1e999999" "1,23" "007 -0 +5" ".5 and 5." "abc123def"
                         "wait...5" "12+40 mod 97=52" "5--3=8" "1,2,3=1" $'7\xe2\x88\x923=4' "1e-2+1E+1=10.01"
                         "12 plus 5 =")
            for k in "${!seeds[@]}"; do seed "$corpus/seed_$k" "${seeds[$k]}"; done ;;
        fuzz_config)
            seed "$corpus/empty" '{}'
            seed "$corpus/small" '{"task":"dec-add","method":"fone","train_size":3200,"lr":0.003,"epochs":2}'
            seed "$corpus/paper" '{"preset":"paper","task":"int-add","size_level":4,"seed":1}'
            seed "$corpus/custom" '{"size_level":0,"model":{"hidden":64,"layers":2,"heads":2,"kv_heads":1,"head_dim":32,"intermediate":256}}'
            seed "$corpus/types" '{"epochs":"5","lr":null,"seed":18446744073709551615,"threads":4294967297}'
            seed "$corpus/periods" '{"period_multipliers":[2,5,10],"int_digits":7,"frac_digits":3,"period_base":10}'
            seed "$corpus/file" '{"task":"file","data":"x.txt","versions":{"fone":"0.1.0"}}'
            seed "$corpus/list" '[1,2,3]'
            seed "$corpus/run" '{"abacus_max_offset":20,"batch":256,"beta1":0.9,"beta2":0.999,"checkpoint_every":0,"classify_d":10,"clip":1.0,"data":"","device":"auto","epochs":5,"eval_every":50,"frac_digits":-1,"int_digits":-1,"long_digits":60,"lr":0.003,"method":"fone","modulus":97,"name":"r","ntl_lambda":0.3,"ntl_tokens":"digit","period_base":10,"period_multipliers":[],"preset":"","schedule":"cosine","seed":42,"size_level":0,"swap_operands":false,"target_acc":0.0,"task":"dec-add","test_size":2000,"threads":0,"train_size":51200,"val_size":1000,"warmup":0.1,"weight_decay":0.01,"model":{"vocab_size":20,"hidden":64,"layers":2,"heads":2,"kv_heads":1,"intermediate":256,"head_dim":32,"max_seq":64,"rope_theta":500000.0,"norm_eps":1e-05,"fone_input":"pad","head_norm":"layernorm","head_temperature":true,"head_temperature_init":1.0,"init_std":0.0}}' ;;
        fuzz_experiment)
            # The shipped experiments, and a small one of every kind of axis value.
            for k in "$repo"/experiments/*.json; do cp "$k" "$corpus/shipped_$(basename "$k")"; done
            seed "$corpus/small" '{"title":"T","description":"D","id":"{method}-{v}-s{seed}","labels":["method"],"settings":{"task":"dec-add","train_size":100,"test_size":10},"grid":[{"method":["fone","digit"],"v":[{"id":"a","labels":{"x":1}},{"id":"b","epochs":2}],"seed":[1,2]}],"presets":{"quick":{"settings":{"epochs":1}},"other":{"axes":{"seed":[3]}},"own":{"grid":{"seed":[4]},"notes":"n"}}}'
            seed "$corpus/bad" '{"title":"T","description":"D","id":"{x}","grid":{"x":[]},"presets":{}}' ;;
        fuzz_metrics)
            seed "$corpus/run" $'{"event":"progress","step":1,"total_steps":10,"epoch":0.1,"loss":2.3,"lr":0.001,"elapsed_seconds":0.5,"eta_seconds":4.5}\n{"event":"eval","split":"test","step":10,"epoch":1,"exact_match":0.5,"digit_accuracy":0.9,"elapsed_seconds":1.0}\n'
            seed "$corpus/resume" $'{"event":"progress","step":3}\n{"event":"resume","step":2}\n{"event":"progress","step":3}\n{"event":"eval","step":4,"exact_match":1'
            seed "$corpus/odd" $'\n  \n[1,2]\n{"event":5}\n{"event":"eval","split":7,"exact_match":"x"}\n"text"\n'
            seed "$corpus/blank" $'\r\n\t\n' ;;
        fuzz_model_files)
            # Mode byte, then the file: the tiny models' own files, and structures a byte fuzzer never
            # reaches from 4 KB (deep nesting, 100,000 entries, a 200 KB line, huge shapes).
            local golden="$repo/tests/golden/pretrained" deep entries
            deep="$(head -c 100000 /dev/zero | tr '\0' '[')"
            { printf '\x00'; cat "$golden/llama/config.json"; } >"$corpus/config_llama"
            { printf '\x00'; cat "$golden/gpt2-fp16/config.json"; } >"$corpus/config_gpt2"
            { printf '\x00{"model_type":"llama","hidden_size":4,"num_attention_heads":8,"num_hidden_layers":1,"intermediate_size":8,"vocab_size":10,"x":%s}' "$deep"; } >"$corpus/config_deep"
            { printf '\x01'; cat "$golden/gpt2-fp16/tokenizer.json"; } >"$corpus/tokenizer_gpt2"
            { printf '\x01'; cat "$golden/qwen2/tokenizer.json"; } >"$corpus/tokenizer_qwen2"
            { printf '\x01{"normalizer":%s}' "$deep"; } >"$corpus/tokenizer_deep"
            { printf '\x01{"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":[]},"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"(a|a)+b"},"behavior":"Isolated"},{"type":"ByteLevel","use_regex":false}]}}'; } >"$corpus/tokenizer_regex"
            { printf '\x02'; cat "$golden/llama-bf16-sharded/model.safetensors.index.json"; } >"$corpus/index"
            entries="$(seq 1 100000 | sed 's/.*/"w&":"model-00001-of-00004.safetensors"/' | paste -sd, -)"
            { printf '\x02{"weight_map":{%s}}' "$entries"; } >"$corpus/index_many"
            { printf '\x03%s' "$deep"; } >"$corpus/json_deep"
            { printf '\x03["'; head -c 200000 /dev/zero | tr '\0' 'a'; printf '"]'; } >"$corpus/json_long_line"
            { printf '\x03{"shape":[%s]}' "$(seq -s, 1000000000000 1 1000000000100)"; } >"$corpus/json_huge_shape" ;;
        fuzz_serve_requests)
            # Requests as the window sends them, fields of the wrong types, and structures: a line nested
            # 30,000 deep (under the line limit), one of 200 KB (over it), many requests in one input.
            local deep
            deep="$(head -c 30000 /dev/zero | tr '\0' '[')"
            seed "$corpus/patch" $'{"prompt":"1.5+2.25=","place":0,"digit":3,"id":1}\n{"prompt":"12+7=","place":-1,"angle":90.5,"layer":1,"position":2}\n'
            seed "$corpus/types" $'{"prompt":"1+2=","place":1099511627776,"digit":3}\n{"prompt":"1+2=","place":true,"digit":3}\n{"prompt":"1+2=","place":3.7,"digit":"3"}\n{"prompt":5}\n[1]\n'
            seed "$corpus/layers" $'{"prompt":"1+2=","digit":1,"layer":"head"}\n{"prompt":"1+2=","digit":1,"layer":"x"}\n{"prompt":"1+2=","digit":1,"layer":4097,"position":-2}\n'
            printf '%s\n' "$deep" >"$corpus/deep"
            { printf '{"prompt":"'; head -c 200000 /dev/zero | tr '\0' '1'; printf '+1=","digit":3}\n'; } >"$corpus/long_line"
            seq 1 2000 | sed 's/.*/{"prompt":"&+1=","digit":&,"place":0}/' >"$corpus/many" ;;
        fuzz_fonerun) make_fonerun_seeds "$corpus" ;;
        fuzz_corpus)
            # Mode byte (0 plain text, 1 JSONL, 2 a Factbook country), then the file: the committed sample,
            # and structures a byte fuzzer does not reach (20,000 levels, an unterminated 1 MB string, a
            # 1 MB line of numbers).
            local deep k=0
            deep="$(head -c 20000 /dev/zero | tr '\0' '[')"
            for f in "$repo"/tests/data/factbook-sample/*/*.json; do
                [[ -f "$f" ]] || continue
                { printf '\x02'; head -c 60000 "$f"; } >"$corpus/factbook_$k"; k=$((k + 1))
            done
            { printf '\x02{"A": %s"5 km"' "$deep"; head -c 20000 /dev/zero | tr '\0' ']'; printf '}'; } >"$corpus/factbook_deep"
            { printf '\x02{"A": "'; head -c 1000000 /dev/zero | tr '\0' 'x'; } >"$corpus/factbook_unterminated"
            seed "$corpus/text" $'\x00In 2024, 1,250 of 3,750 were 33.5%.\r\nDay 3: we sold 12 cups at $2.50 each.\n\n\xef\xbb\xbfBOM line 7\n'
            seed "$corpus/jsonl" $'\x01{"prompt": "What is 12+7?", "answer": "19"}\n{"text": "Day 3: 12 cups"}\n\n[1]\n'
            { printf '\x00'; for k in $(seq 1 40000); do printf '%d.%d, ' "$k" "$((k % 97))"; done; } >"$corpus/long_line" ;;
        fuzz_rank_environment)
            seed "$corpus/torchrun" $'RANK=1\nWORLD_SIZE=4\nLOCAL_RANK=1\nLOCAL_WORLD_SIZE=2\nMASTER_ADDR=n1\nMASTER_PORT=1234\nTORCHELASTIC_RUN_ID=none'
            seed "$corpus/slurm" $'SLURM_PROCID=5\nSLURM_NTASKS=8\nSLURM_LOCALID=1\nSLURM_NTASKS_PER_NODE=2(x3),1\nSLURM_JOB_NODELIST=gpu[07-08,12],cpu1\nSLURM_JOB_ID=4321\nSLURM_STEP_ID=0'
            seed "$corpus/nproc" $'RANK=0\nWORLD_SIZE=2\nFONE_LAUNCHER=nproc\nFONE_RUN_TOKEN=0123456789abcdef0123456789abcdef\nFONE_RENDEZVOUS_FILE=/tmp/x/store'
            seed "$corpus/bad" $'WORLD_SIZE=99999999999999999999\nRANK=-1\nMASTER_PORT=0\nFONE_RUN_TOKEN=a/b' ;;
        fuzz_safetensors)
            cp "$repo/tests/golden/safetensors/reference.safetensors" "$corpus/reference"
            printf '\x02\x00\x00\x00\x00\x00\x00\x00{}' >"$corpus/empty" ;;
    esac
}

run_one() {
    local name="$1" dir="$build_dir" extra=() env_seed=""
    configure "$dir" OFF
    if [[ "$name" == fuzz_checkpoint ]]; then
        [[ -x "$fone" ]] || skip "fuzz_checkpoint needs a regular build's fone (--fone PATH; not found: $fone)"
        local libs
        libs="$(cd "$(dirname "$fone")/../lib" 2>/dev/null && pwd || true)"
        [[ -f "$libs/libfone_train.a" ]] || skip "fuzz_checkpoint links the regular build's core libraries (libfone_train.a not in $libs)"
        cmake -S "$repo" -B "$dir" -DFONE_FUZZ_CORE_LIB_DIR="$libs" >>"$dir/configure.log" 2>&1 || {
            tail -n 20 "$dir/configure.log" >&2
            exit 1
        }
    fi
    cmake --build "$dir" --target "$name" >"$dir/$name.build.log" 2>&1 || {
        tail -n 40 "$dir/$name.build.log" >&2
        echo "$name: build failed (log: $dir/$name.build.log)" >&2
        exit 1
    }
    local corpus="$dir/corpus/$name"
    mkdir -p "$corpus" "$dir/crashes"
    make_seeds "$name" "$corpus"
    local max_len=4096 rss=2048
    if [[ "$name" == fuzz_metrics || "$name" == fuzz_experiment ]]; then max_len=16384; fi
    # A seed pack is about 12 KB as a plain tar.
    if [[ "$name" == fuzz_fonerun ]]; then max_len=65536; fi
    # The model files' seeds are structures of up to ~2 MB (100,000 index entries): inputs may be that long.
    if [[ "$name" == fuzz_model_files ]]; then max_len=2500000; fi
    # Corpora: a 1 MB line, 20,000 levels of nesting, the sample's country files.
    if [[ "$name" == fuzz_corpus ]]; then max_len=1100000; fi
    # A request line may be up to 64 KB, and longer ones must be consumed: inputs up to 256 KB.
    if [[ "$name" == fuzz_serve_requests ]]; then max_len=262144; fi
    if [[ "$name" == fuzz_checkpoint ]]; then
        # A tiny trained run's checkpoint: the seed of the flips and structured modes, and (raw mode) a file.
        local store="$dir/seed-store"
        if [[ ! -f "$store/seed/checkpoint-last.safetensors" ]]; then
            rm -rf "$store"
            "$fone" train --task dec-add --train-size 64 --test-size 16 --val-size 0 --epochs 1 --batch 32 \
                --hidden 16 --layers 1 --heads 2 --kv-heads 1 --intermediate 32 --head-dim 8 --threads 1 \
                --name seed --runs-dir "$store" >"$dir/seed-train.log" 2>&1 || {
                tail -n 20 "$dir/seed-train.log" >&2
                echo "fuzz_checkpoint: could not train the seed checkpoint with $fone" >&2
                exit 1
            }
        fi
        env_seed="$store/seed/checkpoint-last.safetensors"
        { printf '\x00'; cat "$env_seed"; } >"$corpus/raw_seed"
        printf '\x02\x10\x20\x41' >"$corpus/flip_seed"
        for k in 0 1 2 3 4 5 6; do printf "\\x03\\x0$k\\x0$k\\x05\\x01{\"task\":\"dec-add\"}" >"$corpus/structured_$k"; done
        max_len=$(( $(stat -c %s "$env_seed") + 4096 ))
        rss=3072
        extra=(-detect_leaks=0)
    fi
    local log="$dir/$name.log" status=0
    # fuzz_checkpoint: LibTorch 1.13 leaks a few KB on some of its error paths (LeakSanitizer at exit: ~10 KB
    # per leak, 19 in 13,000 inputs); that is not ours to fix, so the leak check is off for it (RSS is limited).
    local asan="${ASAN_OPTIONS:-}"
    [[ "$name" == fuzz_checkpoint ]] && asan="detect_leaks=0${asan:+:$asan}"
    ASAN_OPTIONS="$asan" FONE_FUZZ_CHECKPOINT="$env_seed" FONE_FUZZ_MODEL_DIR="$repo/tests/golden/pretrained/llama-bf16-sharded" "$dir/bin/$name" -max_total_time="$seconds" -timeout=5 \
        -rss_limit_mb="$rss" -max_len="$max_len" -print_final_stats=1 "${extra[@]}" \
        -artifact_prefix="$dir/crashes/$name-" "$corpus" >"$log" 2>&1 || status=$?
    if [[ $status -ne 0 ]]; then
        tail -n 60 "$log" >&2
        echo "$name: FAILED (exit $status); the input is in $dir/crashes/, full log in $log" >&2
        exit 1
    fi
    # libFuzzer ends with "Done <runs> runs in <seconds> second(s)"; its status lines carry "rss: <n>Mb".
    local done_line runs secs rate peak
    done_line="$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)"
    if [[ -z "$done_line" ]]; then
        tail -n 20 "$log" >&2
        echo "$name: no 'Done ... runs' line in $log" >&2
        exit 1
    fi
    runs="$(awk '{print $2}' <<<"$done_line")"
    secs="$(awk '{print $5}' <<<"$done_line")"
    rate=$((runs / (secs > 0 ? secs : 1)))
    peak="$(grep -oE 'rss: [0-9]+Mb' "$log" | awk '{gsub("Mb","",$2); if ($2 > m) m = $2} END {print m + 0}')"
    echo "$name: $secs s, $runs executions, $rate exec/s, peak RSS $peak MB, no crash"
}

for t in "${targets[@]}"; do
    run_one "$t"
done
