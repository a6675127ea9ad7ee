#!/usr/bin/env bash
# Installs what is missing (Debian 12), builds, and starts the main job: the workbench window when a
# display is present and the workbench is built; otherwise a headless demo through `fone` that prints
# what it did and where its outputs are.
set -euo pipefail
source "$(dirname "$0")/common.sh"

fone_install_deps
fone_build

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$FONE_BUILD_DIR/bin/fone-workbench" ]; then
  fone_log "starting the workbench"
  exec "$FONE_BUILD_DIR/bin/fone-workbench" "$@"
fi
exec "$FONE_ROOT/scripts/demo.sh" "$FONE_BUILD_DIR"
