#!/bin/sh
# GNU units' definitions file as a second real corpus of text with numbers (issue 41; docs/text.md, "The
# text question as a curve"): downloads Debian's package units 2.22-2 with apt-get (no install: the .deb
# only, checked against its SHA-256), unpacks /usr/share/units/definitions.units and makes it a corpus with
# `fone corpus text --paragraphs` (one paragraph a document, split by a hash of each): OUT/train.jsonl,
# OUT/val.jsonl, OUT/test.jsonl and OUT/report.json. The file is GPL-3+ (© Free Software Foundation).
#
#   scripts/get-units.sh [OUT]             OUT defaults to ./units; FONE=path/to/fone (default build/bin/fone)
#   fone train --task text --data OUT --method fone
set -eu
out=${1:-units}
fone=${FONE:-build/bin/fone}
deb=units_2.22-2_amd64.deb
sha256=6e7a5b80176819c8a13e6e539df03a9a3565300001d72048190c98e627208978
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download units=2.22-2 >/dev/null 2>&1) ||
  { echo "get-units.sh: apt-get download units=2.22-2 failed (run apt-get update first?)" >&2; exit 1; }
echo "$sha256  $tmp/$deb" | sha256sum -c --quiet -
dpkg-deb -x "$tmp/$deb" "$tmp/pkg"
mkdir -p "$out"
cp "$tmp/pkg/usr/share/units/definitions.units" "$out/definitions.units"
"$fone" corpus text --from "$out/definitions.units" --paragraphs --out "$out" >/dev/null
echo "$out: train.jsonl val.jsonl test.jsonl report.json (definitions.units of GNU units 2.22: GPL-3+)"
