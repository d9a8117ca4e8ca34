#!/usr/bin/env bash
# Installs the external programs akushu's tests and experiments use: GNU Go (the reference
# opponent; Debian puts it in /usr/games). Safe to run twice. Needs root or sudo.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if ! command -v gnugo >/dev/null 2>&1 && [ ! -x /usr/games/gnugo ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq gnugo >/dev/null
fi
GNUGO=$(command -v gnugo || echo /usr/games/gnugo)
echo "gnugo: $GNUGO ($("$GNUGO" --version | head -1))"
