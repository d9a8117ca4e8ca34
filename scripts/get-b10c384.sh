#!/bin/sh
# Gets KataGo's b10c384 network (`b10c384h6nbttflrs.bin.gz`, 38,245,488 bytes) out of
# KaTrain's PyPI wheel, the one registry that carries a network stronger than the g170 b6c96
# test network: downloads `katrain==1.20.0` (no dependencies, about 106 MB), takes that one
# member, checks its size and SHA-256, and writes it to PREFIX (default
# ~/.cache/akushu/katago/b10c384.bin.gz) atomically. The Eigen build of
# scripts/build-katago.sh reads it:
#
#   sh scripts/get-b10c384.sh [PREFIX]
#   K=~/.cache/akushu/katago
#   akushu dataset label DATA --teacher "$K/bin/katago analysis -model $K/b10c384.bin.gz -config $K/analysis.cfg" --out LABELS
#
# Nothing is done when the file is there with the right checksum. Never commit the network.
set -eu
PREFIX=${1:-$HOME/.cache/akushu/katago}
NAME=b10c384.bin.gz
MEMBER=katrain/models/b10c384h6nbttflrs.bin.gz
SIZE=38245488
SHA256=0ba27eced5180b3e3d0b898b280c541112989765e789d1eb6cd0d31b2b2c1229
sha() { python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"; }
if [ -f "$PREFIX/$NAME" ] && [ "$(sha "$PREFIX/$NAME")" = "$SHA256" ]; then
    echo "network: $PREFIX/$NAME (already there, checksum matches)"
    exit 0
fi
mkdir -p "$PREFIX"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 -m pip download --no-deps --quiet --dest "$TMP" 'katrain==1.20.0'
WHEEL=$(ls "$TMP"/katrain-1.20.0-*.whl)
python3 - "$WHEEL" "$MEMBER" "$TMP/$NAME" <<'PY'
import sys, zipfile
wheel, member, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, open(out, "wb") as f:
    f.write(z.read(member))
PY
GOT_SIZE=$(wc -c < "$TMP/$NAME" | tr -d ' ')
GOT_SHA=$(sha "$TMP/$NAME")
if [ "$GOT_SIZE" != "$SIZE" ] || [ "$GOT_SHA" != "$SHA256" ]; then
    echo "$MEMBER in $WHEEL: $GOT_SIZE bytes, sha256 $GOT_SHA; expected $SIZE bytes, $SHA256" >&2
    exit 1
fi
mv "$TMP/$NAME" "$PREFIX/$NAME.tmp-$$"
mv "$PREFIX/$NAME.tmp-$$" "$PREFIX/$NAME"
echo "network: $PREFIX/$NAME ($SIZE bytes, sha256 $SHA256)"
