#!/bin/sh
# Installs Node.js and npm, which tests/gtp_sabaki.rs needs to drive `akushu gtp` through
# @sabaki/gtp (Sabaki's GTP library, pinned in tests/sabaki/package-lock.json). Run as root
# (or with sudo).
set -eu
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    echo "Node.js already installed: $(node --version), npm $(npm --version)"
    exit 0
fi
. "$(dirname "$0")/lib-install.sh"
install_package "nodejs npm" node "install Node.js and npm from https://nodejs.org/"
node --version
