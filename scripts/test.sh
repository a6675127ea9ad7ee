#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds, and runs the whole test suite through CTest.
# Exit status is the suite's. Extra arguments go to ctest (e.g. scripts/test.sh -L unit).
set -euo pipefail
source "$(dirname "$0")/common.sh"

fone_install_deps
fone_build
fone_log "running the test suite"
cd "$FONE_BUILD_DIR"
ctest --output-on-failure -j "$FONE_JOBS" "$@"
