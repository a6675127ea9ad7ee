#!/usr/bin/env bash
# The screens of docs/img/screens/: the window with each view in front at 1280x720 and 1920x1080, presenter
# mode's four steps at both sizes, and the welcome view and presenter mode at 2x (2800x1800 pixels for a
# 1400x900 window), all offscreen.
#   docs/img/screens/shoot.sh STORE [WORKBENCH] [SIZES]    SIZES: "1280x720 1920x1080" by default    STORE: a run store (these come from a 6-run sweep:
#       fone sweep --name demo --train-sizes 800:3200 --methods fone,digit --seeds 1 -- --task dec-add
#       --test-size 200 --val-size 0 --epochs 4 --batch 64 --eval-every 10 --hidden 64 --layers 2 --heads 2
#       --kv-heads 1 --head-dim 32 --intermediate 256 --threads 1)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
store="${1:?usage: shoot.sh STORE [WORKBENCH]}"
workbench="${2:-$here/../../../build/bin/fone-workbench}"
sizes="${3:-1280x720 1920x1080}"
shot() {  # FILE ARGS...
    local file="$1"; shift
    QT_QPA_PLATFORM=offscreen "$workbench" --runs-dir "$store" --screenshot "$here/$file" "$@" 2>/dev/null \
        || { echo "shoot.sh: $file failed" >&2; return 1; }
}
export -f shot; export here store workbench
{
    for size in $sizes; do
        for view in runs launch welcome circles hidden spectrum pca helix errors playground knockout timeline replay sweep curves data-size model-size compare compare-settings; do
            echo "window-$view-$size.png --raise $view --size $size"
        done
        for step in 1 2 3 4; do echo "presenter-$step-$size.png --presenter --set step=$step --size $size"; done
    done
} | xargs -P 2 -L 1 bash -c 'shot "$@"' _
QT_SCALE_FACTOR=2 shot window-welcome-2800x1800-2x.png --raise welcome --size 1400x900
QT_SCALE_FACTOR=2 shot presenter-2-2800x1800-2x.png --presenter --set step=2 --size 1400x900
# The token-loss view needs two text runs on one corpus: TEXT_STORE=DIR holds fone-s1 and subword-s1 as
# trained in docs/text.md ("See the difference, token by token").
if [ -n "${TEXT_STORE:-}" ]; then
    store="$TEXT_STORE" shot view-token-loss-1280x720.png --view token-loss --set run=fone-s1 \
        --set against=subword-s1 --set doc=0 --size 1280x720
fi
