#!/usr/bin/env bash
# Builds the Debian package (CPack) from the build tree: build/fone-workbench_<version>_<arch>.deb.
#   scripts/package.sh                   install what is missing, build, package
#   scripts/package.sh --install-check   ... then install the .deb with apt and check that the installed
#                                        programs start: fone --version, fone encode, a tiny training run,
#                                        and the workbench rendered offscreen (--screenshot)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

check=0
[ "${1:-}" = "--install-check" ] && check=1

fone_install_deps
fone_build
fone_log "packaging"
(cd "$FONE_BUILD_DIR" && cpack -G DEB >/dev/null)
deb="$(ls -t "$FONE_BUILD_DIR"/fone-workbench_*.deb | head -1)"
fone_log "built $deb"
dpkg-deb -f "$deb" Package Version Depends Recommends

[ $check -eq 1 ] || exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
fone_log "installing $deb with apt"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --reinstall "$deb" >/dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"  # away from the build tree: the installed files must be enough
fone_log "checking the installed programs"
/usr/bin/fone --version
/usr/bin/fone encode 4.17 >/dev/null
/usr/bin/fone tokenize "Ana buys 12 pens at \$3.45 each." >/dev/null
/usr/bin/fone train --task dec-add --train-size 200 --test-size 20 --epochs 1 --threads 1 \
  --runs-dir "$tmp/runs" --name installed >/dev/null
test -f "$tmp/runs/installed/summary.json"
# The bundled demo model answers, from its installed copy.
# (Outputs are captured before grep: `grep -q` closes the pipe at its first match, and under pipefail the
# SIGPIPE of a writer with more to say would fail the check.)
answer="$(/usr/bin/fone predict --run /usr/share/fone-workbench/demo-model --runs-dir "$tmp/runs" "123.456+654.321=")"
grep -q '"value":"777.777"' <<<"$answer"
fone_log "the installed demo model answers 123.456+654.321 = 777.777"
# The experiments of `fone reproduce`, from their installed copy.
test "$(/usr/bin/fone reproduce --list | grep -c '"experiment"')" -ge 6
plan="$(/usr/bin/fone reproduce efficiency --dry-run)"
grep -q '"run":"repro-efficiency-quick-dec-add-fone"' <<<"$plan"
test -f /usr/share/applications/fone-workbench.desktop
test -f /usr/share/metainfo/io.github.fone_workbench.metainfo.xml
test -f /usr/share/mime/packages/fone-workbench.xml
grep -q 'MimeType=application/x-fonerun;' /usr/share/applications/fone-workbench.desktop
# A run shared as one file and opened again from the installed fone (libarchive, libcrypto).
/usr/bin/fone runs --runs-dir "$tmp/runs" pack installed -o "$tmp/installed.fonerun" >/dev/null
/usr/bin/fone runs --runs-dir "$tmp/received" unpack "$tmp/installed.fonerun" >/dev/null
test -f "$tmp/received/installed/checkpoint-best.safetensors" || test -f "$tmp/received/installed/checkpoint-last.safetensors"
fone_log "a run packed and unpacked with the installed fone"
if [ -x /usr/bin/fone-workbench ]; then
  QT_QPA_PLATFORM=offscreen /usr/bin/fone-workbench --runs-dir "$tmp/runs" --screenshot "$tmp/window.png"
  test -s "$tmp/window.png"
  fone_log "fone-workbench started offscreen and wrote a screenshot"
fi
fone_log "the installed package works"
