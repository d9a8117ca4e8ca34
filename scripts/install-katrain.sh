#!/bin/sh
# Installs KaTrain (PyPI `katrain`, pinned) into a virtual environment of its own, for
# tests/katrain_client.rs, which drives `akushu analysis` through KaTrain's engine client
# (scripts/katrain_client.py). The environment is $AKUSHU_KATRAIN_VENV, by default
# ~/.cache/akushu/katrain-venv; nothing happens when it already has katrain. Prints the
# environment's python on its last line.
set -eu
venv="${AKUSHU_KATRAIN_VENV:-$HOME/.cache/akushu/katrain-venv}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import katrain' >/dev/null 2>&1; then
    echo "katrain already installed in $venv"
    echo "$venv/bin/python"
    exit 0
fi
mkdir -p "$(dirname "$venv")"
if ! python3 -m venv "$venv" 2>/dev/null; then
    # Debian keeps venv's pip bootstrap in a package of its own.
    . "$(dirname "$0")/lib-install.sh"
    install_package python3-venv python "install python3's venv module"
    rm -rf "$venv"
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet 'katrain==1.20.0'
"$venv/bin/python" -c 'import katrain; print("katrain installed")'
echo "$venv/bin/python"
