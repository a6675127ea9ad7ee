#!/usr/bin/env bash
# Builds `fone` and the GPU tests from source on an offline GPU node, against the node's own torch and the
# kit's other dependencies (scripts/device-kit.sh): device-check.sh runs it when the carried `fone` cannot
# start there (another torch, another C++ runtime) or when FONE_DEVICE_FORCE_BUILD=1. Nothing is fetched.
#
#   scripts/device-build.sh PYTHON KIT BUILD [JOBS]
#     PYTHON  the Python whose torch to build against (the node's python3)
#     KIT     the unpacked kit (its deps/usr and lib/)
#     BUILD   the build tree
# Prints the build's bin/ folder on its last line; exit status non-zero when configure or build failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="$1" KIT="$2" BUILD="$3" JOBS="${4:-$(nproc)}"
log() { printf '==> %s\n' "$*" >&2; }

source "$ROOT/scripts/torch2-env.sh"
torch2_find_nvcc
torch2_inspect "$PYTHON" || { echo "device-build: cannot import torch with $PYTHON" >&2; exit 2; }
log "torch $TORCH_VERSION (CUDA $TORCH_CUDA) at $PREFIX; CUDA toolkit $CUDA_TK_VERSION"

DEPS="$KIT/deps/usr"
# The kit's ICU and SentencePiece libraries: for the linker (NEEDED of NEEDED) and for the programs.
export LD_LIBRARY_PATH="$KIT/lib:$(torch2_runtime_path)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
FONE_EXTRA_PREFIX="$DEPS" torch2_cmake_args
launcher=() generator=(-G Ninja)
command -v ccache >/dev/null || launcher=(-DFONE_USE_CCACHE=OFF)
command -v ninja >/dev/null || generator=(-G "Unix Makefiles")
cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" "${TORCH2_CMAKE_ARGS[@]}" "${launcher[@]}" \
  -DEigen3_DIR="$DEPS/share/eigen3/cmake" -Dnlohmann_json_DIR="$DEPS/share/cmake/nlohmann_json" \
  -DCLI11_DIR="$DEPS/share/cmake/CLI11" -DICU_ROOT="$DEPS" \
  -DFONE_BUILD_GUI=OFF -DFONE_BUILD_TESTS=OFF -DFONE_BUILD_GPU_TESTS=ON -DFONE_BUILD_BENCH=OFF \
  -DFONE_BUILD_CLI=ON -DFONE_WITH_TORCH=ON >&2
cmake --build "$BUILD" -j "$JOBS" --target fone fone_torch_commands fone_spm test_cuda >&2
echo "$BUILD/bin"
