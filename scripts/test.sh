#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds, and runs the whole test suite through CTest.
# Exit status is the suite's. Extra arguments go to ctest (e.g. scripts/test.sh -L unit).
#   FONE_TEST_JOBS   tests at once (default: the cores + 2: many tests spend their time waiting on the `fone`
#                    processes they start, and on a fresh 2-core machine two at a time left a core idle; issue 39)
set -euo pipefail
source "$(dirname "$0")/common.sh"

fone_install_deps
fone_build
fone_log "running the test suite"
cd "$FONE_BUILD_DIR"
ctest --output-on-failure -j "${FONE_TEST_JOBS:-$(( $(nproc) + 2 ))}" "$@"
