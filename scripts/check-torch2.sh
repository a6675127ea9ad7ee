#!/usr/bin/env bash
# Builds FoNE Workbench against LibTorch 2.x with CUDA — the one inside PyPI's `torch` wheel — and runs the
# CPU tests (ctest -L 'unit|cli|train') in a build tree of its own. No GPU is needed: the CUDA code paths
# are compiled and linked, and where no GPU is visible `fone --version` says "CPU only" and the tests run
# on the CPU. Exit status: the tests'. See docs/building-torch2.md.
#
# A second run reuses the virtual environment and the build tree (an incremental build).
#
#   FONE_TORCH2_VENV    virtual environment         (default: .venv-torch2)
#   FONE_TORCH2_BUILD   build tree                  (default: build-torch2)
#   FONE_TORCH2_SPEC    what pip installs           (default: torch, the newest; e.g. torch==2.8.0)
#   FONE_TORCH2_PYTHON  the Python for the venv     (default: python3)
#   FONE_JOBS           build and test jobs         (default: 2)
#   FONE_NICE           niceness of build and tests (default: 10)
#   FONE_TORCH2_LABELS  the CTest labels to run     (default: unit|cli|train; scripts/check-cuda.sh: gpu)
#   CUDA_HOME           CUDA toolkit                (default: the one whose nvcc is on PATH, else /usr/local/cuda)
# Extra arguments go to ctest (e.g. scripts/check-torch2.sh -R test_engine).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${FONE_TORCH2_VENV:-$ROOT/.venv-torch2}"
BUILD="${FONE_TORCH2_BUILD:-$ROOT/build-torch2}"
SPEC="${FONE_TORCH2_SPEC:-torch}"
PYTHON="${FONE_TORCH2_PYTHON:-python3}"
JOBS="${FONE_JOBS:-2}"
NICE="${FONE_NICE:-10}"
LABELS="${FONE_TORCH2_LABELS:-unit|cli|train}"
START=$SECONDS

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[1;31mcheck-torch2: %s\033[0m\n' "$*" >&2; exit 2; }

# ---- tools -----------------------------------------------------------------------------------------------
for t in "$PYTHON" cmake ninja c++; do
  command -v "$t" >/dev/null || die "'$t' not found (Debian: apt-get install build-essential cmake ninja-build python3-venv)"
done
for p in qt6-base-dev nlohmann-json3-dev libcli11-dev; do
  if command -v dpkg-query >/dev/null && ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    die "Debian package $p is missing (apt-get install qt6-base-dev nlohmann-json3-dev libcli11-dev)"
  fi
done

# The wheel's TorchConfig (Caffe2/public/cuda.cmake) insists on a CUDA toolkit: it enables the CUDA language
# and checks that nvcc and cuda.h agree. Only the toolkit's own consistency matters; its minor version may
# differ from the CUDA the wheel was built with (the wheel brings its runtime libraries in site-packages/nvidia).
source "$ROOT/scripts/torch2-env.sh"
torch2_find_nvcc
if [ -n "$NVCC" ]; then
  log "CUDA toolkit $CUDA_TK_VERSION at $CUDA_ROOT"
else
  log "no CUDA toolkit found (nvcc): fine for a CPU-only torch, not for a CUDA one"
fi

# ---- disk space ------------------------------------------------------------------------------------------
# The default CUDA wheel is ~0.55 GB plus ~3 GB of nvidia-* wheels, ~5.5 GB installed; pip unpacks in TMPDIR.
# The build tree takes ~1 GB (the precompiled LibTorch header is most of it).
have_torch() {
  [ -x "$VENV/bin/python" ] || return 1
  "$VENV/bin/python" - "$SPEC" <<'EOF' 2>/dev/null
import sys, importlib.metadata as md
from pip._vendor.packaging.requirements import Requirement
r = Requirement(sys.argv[1])
sys.exit(0 if r.specifier.contains(md.version(r.name), prereleases=True) else 1)
EOF
}
mount_of() {  # the mount point of the nearest existing ancestor of $1
  local d="$1"
  while [ ! -e "$d" ]; do d="$(dirname "$d")"; done
  df -P "$d" | awk 'NR == 2 { print $6 }'
}
declare -A need_mb=()
add_need() { local m; m="$(mount_of "$1")"; need_mb[$m]=$(( ${need_mb[$m]:-0} + $2 )); }
if have_torch; then
  TORCH_READY=1
else
  TORCH_READY=0
  add_need "$VENV" 7000
  add_need "${TMPDIR:-/tmp}" 4000
fi
add_need "$BUILD" 2000
for m in "${!need_mb[@]}"; do
  avail=$(( $(df -Pk "$m" | awk 'NR == 2 { print $4 }') / 1024 ))
  if [ "$avail" -lt "${need_mb[$m]}" ]; then
    die "not enough free disk space on $m: ${avail} MB free, about ${need_mb[$m]} MB needed (the CUDA torch wheel and its nvidia-* packages are ~5.5 GB installed). Free some space, or point FONE_TORCH2_VENV / FONE_TORCH2_BUILD / TMPDIR elsewhere."
  fi
  log "disk: ${avail} MB free on $m, about ${need_mb[$m]} MB needed"
done

# ---- torch wheel ---------------------------------------------------------------------------------------
# Wheels before 2.7 use the pre-C++11 ABI (see "configure" below): refuse a pin to one before downloading it.
if [[ "$SPEC" =~ ^torch[[:space:]]*==[[:space:]]*(1\.|2\.[0-6]($|\.|[^0-9])) ]]; then
  die "FONE_TORCH2_SPEC='$SPEC': PyPI's torch wheels before 2.7 use the pre-C++11 ABI, which Debian's Qt 6 (the tests) cannot link with. Pin torch>=2.7."
fi
if [ ! -x "$VENV/bin/python" ]; then
  log "creating the virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
if [ "$TORCH_READY" = 1 ]; then
  log "reusing $("$PY" -c 'import importlib.metadata as m; print("torch", m.version("torch"))') in $VENV"
else
  log "pip install '$SPEC' into $VENV (the CUDA wheel and its nvidia-* packages: a few GB)"
  "$PY" -m pip install --progress-bar off "$SPEC"
fi

torch2_inspect "$PY" || die "cannot import torch from $VENV (remove the folder to start afresh)"
log "torch $TORCH_VERSION (CUDA $TORCH_CUDA, _GLIBCXX_USE_CXX11_ABI=$TORCH_ABI), CMake config under $PREFIX"
case "$TORCH_VERSION" in
  2.*) ;;
  *) die "FONE_TORCH2_SPEC='$SPEC' installed torch $TORCH_VERSION; this check is for LibTorch 2.x" ;;
esac
if [ "$TORCH_CUDA" != None ] && [ -z "$NVCC" ]; then
  die "torch $TORCH_VERSION is built with CUDA $TORCH_CUDA, and its TorchConfig needs a CUDA toolkit (nvcc, >= 12.6) to configure against. Put its bin/ on PATH or set CUDA_HOME."
fi

# ---- configure -------------------------------------------------------------------------------------------
# The C++11 ABI: PyPI wheels before 2.7 were built with the old std::string ABI (_GLIBCXX_USE_CXX11_ABI=0,
# which their TorchConfig puts in TORCH_CXX_FLAGS). Our own code could follow it, but Debian's Qt 6 is built
# with the new ABI and exports functions that return std::string (QByteArray::toStdString): the QtTest
# executables do not link with -D_GLIBCXX_USE_CXX11_ABI=0 (tried). Wheels from 2.7 on use the new ABI, like
# Debian and the project's default flags, and TORCH_CXX_FLAGS then asks for nothing.
if [ "$TORCH_ABI" = 0 ]; then
  die "torch $TORCH_VERSION is built with the pre-C++11 ABI (_GLIBCXX_USE_CXX11_ABI=0), which cannot be mixed with Debian's Qt 6 (the tests do not link). Use torch>=2.7 (FONE_TORCH2_SPEC='torch>=2.7'), or the cxx11-ABI LibTorch zip by hand (docs/building-torch2.md)."
fi

# ccache: a cache of its own, next to the venv, so the LibTorch 2.x objects do not evict the main build's.
export CCACHE_DIR="${FONE_TORCH2_CCACHE_DIR:-$VENV/ccache}"
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"

log "configuring $BUILD"
T0=$SECONDS
# The wheel's quirks (Torch_DIR, CUDA toolkit pins, rpath-link): scripts/torch2-env.sh.
torch2_cmake_args
cmake -S "$ROOT" -B "$BUILD" -G Ninja "${TORCH2_CMAKE_ARGS[@]}" \
  -DFONE_BUILD_GUI=OFF -DFONE_BUILD_BENCH=OFF -DFONE_BUILD_TESTS=ON -DFONE_BUILD_CLI=ON -DFONE_WITH_TORCH=ON \
  || die "configure failed in $BUILD (see the CMake output above and docs/building-torch2.md)"
CONFIGURE_S=$(( SECONDS - T0 ))
sed -n 's/^Torch_DIR:[A-Z]*=//p' "$BUILD/CMakeCache.txt" | grep -qxF "$PREFIX/Torch" \
  || die "configure did not pick the wheel's TorchConfig (see Torch_DIR in $BUILD/CMakeCache.txt)"

# ---- build -----------------------------------------------------------------------------------------------
log "building with $JOBS jobs (nice -n $NICE)"
T0=$SECONDS
nice -n "$NICE" cmake --build "$BUILD" -j "$JOBS" || die "the build failed in $BUILD (see above)"
BUILD_S=$(( SECONDS - T0 ))

# ---- run-time libraries ----------------------------------------------------------------------------------
# CMake's build RPATH normally points at site-packages/torch/lib, and the wheel's libtorch_cuda.so finds
# site-packages/nvidia/*/lib through its own RPATH. If something is still not found, fall back to
# LD_LIBRARY_PATH with the wheel's directories.
missing="$(ldd "$BUILD/bin/fone" | awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')"
if [ -n "$missing" ]; then
  export LD_LIBRARY_PATH="$(torch2_runtime_path)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  log "not found at run time: $missing-> LD_LIBRARY_PATH set to the wheel's library directories"
  missing="$(ldd "$BUILD/bin/fone" | awk '/not found/ { print $1 }' | sort -u | tr '\n' ' ')"
  [ -z "$missing" ] || die "still not found at run time: $missing"
fi
FONE_VERSION_LINE="$("$BUILD/bin/fone" --version 2>&1 | tail -n 1 || true)"

# ---- tests -----------------------------------------------------------------------------------------------
log "running ctest -L '$LABELS'"
T0=$SECONDS
set +e
nice -n "$NICE" ctest --test-dir "$BUILD" -L "$LABELS" --output-on-failure -j "$JOBS" "$@" 2>&1 \
  | tee "$BUILD/check-torch2-ctest.log"
TEST_RC=${PIPESTATUS[0]}
set -e
TEST_S=$(( SECONDS - T0 ))
SUMMARY="$(grep -E 'tests passed|No tests were found' "$BUILD/check-torch2-ctest.log" | tail -n 1)"

# ---- report ----------------------------------------------------------------------------------------------
du_of() { du -sh "$1" 2>/dev/null | cut -f1; }
cat <<EOF

==== check-torch2 summary ====
torch (pip)      : $TORCH_VERSION  (CUDA $TORCH_CUDA, _GLIBCXX_USE_CXX11_ABI=$TORCH_ABI)  spec '$SPEC'
CUDA toolkit     : $CUDA_TK_VERSION at $CUDA_ROOT
fone --version   : $FONE_VERSION_LINE
configure / build: ${CONFIGURE_S}s / ${BUILD_S}s (-j$JOBS)
tests            : ${SUMMARY:-no summary line (see $BUILD/check-torch2-ctest.log)}  [${TEST_S}s, exit $TEST_RC]
disk             : venv $(du_of "$VENV") ($VENV), build tree $(du_of "$BUILD") ($BUILD)
total            : $(( SECONDS - START ))s
EOF
exit "$TEST_RC"
