# Shared by scripts/run.sh and scripts/test.sh: install what is missing, configure and build.
# Sourced, not run. Honours FONE_BUILD_DIR (default: build) and FONE_JOBS (default: all cores).

FONE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FONE_BUILD_DIR="${FONE_BUILD_DIR:-$FONE_ROOT/build}"
FONE_JOBS="${FONE_JOBS:-$(nproc)}"

# Debian 12 packages the project needs. libopenblas0-openmp matters: Debian's LibTorch calls whatever
# libblas.so.3 is, and the reference BLAS is about 13x slower.
FONE_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libtorch-dev libopenblas0-openmp
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6
  libeigen3-dev nlohmann-json3-dev libcli11-dev libsentencepiece-dev libicu-dev
  libgif-dev libgloo-dev libarchive-dev libssl-dev
  clang-14 libclang-rt-14-dev
  xvfb xauth
)

fone_log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

fone_install_deps() {
  local missing=()
  for p in "${FONE_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    fone_log "all ${#FONE_PACKAGES[@]} system packages present"
    return 0
  fi
  fone_log "installing ${#missing[@]} missing packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

fone_build() {
  # ccache also caches sources that use precompiled headers with these settings.
  export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
  export CCACHE_BASEDIR="$FONE_ROOT"  # hits across clones in other folders
  fone_log "configuring in $FONE_BUILD_DIR"
  cmake -S "$FONE_ROOT" -B "$FONE_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  fone_log "building with $FONE_JOBS jobs"
  cmake --build "$FONE_BUILD_DIR" -j "$FONE_JOBS"
}
