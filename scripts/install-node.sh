#!/bin/sh
# Installs Node.js and npm, which tests/gtp_sabaki.rs needs to drive `akushu gtp` through
# @sabaki/gtp (Sabaki's GTP library, pinned in tests/sabaki/package-lock.json). Run as root
# (or with sudo).
set -eu
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    echo "Node.js already installed: $(node --version), npm $(npm --version)"
    exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update
    $SUDO apt-get install -y nodejs npm
elif command -v brew >/dev/null 2>&1; then
    brew install node
else
    echo "no apt-get or brew: install Node.js and npm from https://nodejs.org/" >&2
    exit 1
fi
node --version
