# Configuring the project against the LibTorch 2.x inside a Python's `torch` (PyPI's wheel): sourced, not
# run, by scripts/check-torch2.sh (a virtual environment here), scripts/device-kit.sh (the offline GPU node's
# torch version, here) and scripts/device-check.sh (the node's own torch, there). One owner of the wheel's
# quirks (docs/building-torch2.md).
#
#   torch2_find_nvcc                  sets NVCC, CUDA_ROOT, CUDA_TK_VERSION (CUDA_HOME, PATH, /usr/local/cuda)
#   torch2_inspect PYTHON             sets TORCH_VERSION TORCH_CUDA TORCH_ABI PREFIX TORCH_LIB SITE NV_LIB_DIRS
#                                     WHEEL_CUDART WHEEL_NVRTC from PYTHON's torch (returns 1 without one)
#   torch2_cmake_args                 fills the array TORCH2_CMAKE_ARGS for `cmake -S . -B BUILD`
#   torch2_runtime_path               LD_LIBRARY_PATH entries for a program linked against it

torch2_find_nvcc() {
  NVCC="" CUDA_ROOT="" CUDA_TK_VERSION="none"
  if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then
    NVCC="$CUDA_HOME/bin/nvcc"
  elif command -v nvcc >/dev/null; then
    NVCC="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    NVCC=/usr/local/cuda/bin/nvcc
  fi
  [ -n "$NVCC" ] || return 0
  NVCC="$(readlink -f "$NVCC")"
  CUDA_ROOT="$(dirname "$(dirname "$NVCC")")"
  CUDA_TK_VERSION="$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')"
}

torch2_inspect() {
  local python="$1" line
  # `import torch` warns when NumPy is absent; -W ignore keeps that out of the output.
  line="$("$python" -W ignore -c \
    'import torch, torch.utils; print(torch.__version__, torch.version.cuda, int(torch.compiled_with_cxx11_abi()), torch.utils.cmake_prefix_path)' \
    2>/dev/null)" || return 1
  read -r TORCH_VERSION TORCH_CUDA TORCH_ABI PREFIX <<<"$line"
  TORCH_LIB="$(dirname "$(dirname "$PREFIX")")/lib"
  SITE="$(dirname "$(dirname "$TORCH_LIB")")"
  # The CUDA libraries the wheel brings (site-packages/nvidia/*/lib): cu13 wheels keep them in
  # nvidia/cu13/lib, cu12 wheels in nvidia/cuda_runtime/lib, nvidia/cuda_nvrtc/lib, ...
  NV_LIB_DIRS="$(find "$SITE/nvidia" -mindepth 2 -maxdepth 2 -type d -name lib 2>/dev/null | sort | tr '\n' ':')"
  WHEEL_CUDART="$(_torch2_wheel_lib 'libcudart.so.[0-9]*')"
  WHEEL_NVRTC="$(_torch2_wheel_lib 'libnvrtc.so.[0-9]*')"
}

_torch2_wheel_lib() {
  find "$SITE/nvidia" -mindepth 3 -maxdepth 3 -path '*/lib/*' -name "$1" 2>/dev/null | sort | head -n 1
}

# Which CUDA libraries our targets link. TorchConfig finds libcudart and libnvrtc in the toolkit and adds
# them to TORCH_LIBRARIES; the binaries would then get the toolkit's lib/ in their RPATH and load its
# libcudart under a LibTorch built against the wheel's, and its libnccl.so.2 is what the linker then resolves
# libtorch_cuda.so's NEEDED libnccl.so.2 against ("undefined reference to ncclCommGrow ..."). So: link the
# wheel's own libcudart/libnvrtc, and let the linker resolve the wheel's libraries' dependencies in the wheel
# (-rpath-link). At run time libtorch_cuda.so finds them through its own RPATH ($ORIGIN/../../nvidia/...).
#
# Torch_DIR is given as well as the prefix so that Debian's LibTorch 1.13 (/usr/lib/*/cmake/Torch), or an
# earlier venv, never wins; CMAKE_LIBRARY_PATH likewise for TorchConfig's find_library(c10 ...), which would
# otherwise take Debian's /usr/lib/x86_64-linux-gnu/libc10.so (its PATHS hint is searched after the system);
# -U forgets what an earlier configure of the tree found for those.
# CUDA_TOOLKIT_ROOT_DIR / CUDAToolkit_ROOT / CMAKE_CUDA_COMPILER pin the toolkit for the wheel's cuda.cmake
# (FindCUDA and FindCUDAToolkit must see the same one). The project compiles no CUDA code: the CUDA language
# is enabled by TorchConfig only, which then sets CMAKE_CUDA_STANDARD to the C++ standard (20) unless it is
# set; CMake 3.25 (Debian 12) knows no C++20 flag for nvcc and fails in TorchConfig's GPU-detection try_run
# ("requires the language dialect CUDA20"), so CUDA is pinned to C++17. C++ stays 20.
# USE_SYSTEM_NVTX: the TorchConfig of torch 2.7.1 (and others of that time) looks for the NVTX3 headers in
# its own source tree, which a wheel lacks, then falls back to CUDA::nvToolsExt, a library CUDA 13 no longer
# has; ON makes it take the toolkit's include/nvtx3. Newer TorchConfigs ignore it.
torch2_cmake_args() {
  TORCH2_CMAKE_ARGS=(
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_STANDARD=20
    "-DCMAKE_PREFIX_PATH=$PREFIX${FONE_EXTRA_PREFIX:+;$FONE_EXTRA_PREFIX}"
    "-DTorch_DIR:PATH=$PREFIX/Torch"
    "-DCMAKE_LIBRARY_PATH=$TORCH_LIB"
    -U c10_LIBRARY -U C10_CUDA_LIBRARY -U TORCH_LIBRARY -U kineto_LIBRARY
    -DCMAKE_CUDA_STANDARD=17
    -DUSE_SYSTEM_NVTX=ON
  )
  [ -n "${NV_LIB_DIRS:-}" ] && TORCH2_CMAKE_ARGS+=("-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$TORCH_LIB:${NV_LIB_DIRS%:}"
    "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,-rpath-link,$TORCH_LIB:${NV_LIB_DIRS%:}"
    "-DCMAKE_MODULE_LINKER_FLAGS=-Wl,-rpath-link,$TORCH_LIB:${NV_LIB_DIRS%:}")
  [ -n "${NVCC:-}" ] && TORCH2_CMAKE_ARGS+=("-DCUDA_TOOLKIT_ROOT_DIR=$CUDA_ROOT" "-DCUDAToolkit_ROOT=$CUDA_ROOT"
    "-DCMAKE_CUDA_COMPILER=$NVCC")
  [ -n "${WHEEL_CUDART:-}" ] && TORCH2_CMAKE_ARGS+=("-DCUDA_cudart_LIBRARY:FILEPATH=$WHEEL_CUDART")
  [ -n "${WHEEL_NVRTC:-}" ] && TORCH2_CMAKE_ARGS+=("-DCUDA_nvrtc_LIBRARY:FILEPATH=$WHEEL_NVRTC"
    "-DCUDA_NVRTC_LIB:FILEPATH=$WHEEL_NVRTC")
  return 0
}

torch2_runtime_path() {
  printf '%s' "$TORCH_LIB:${NV_LIB_DIRS%:}"
}
