#!/bin/sh
# Installs GNU Go 3.8, the arena's reference opponent (`gtp:gnugo --mode gtp --level 10
# --chinese-rules --capture-all-dead`). Debian/Ubuntu put the binary in /usr/games, which the arena also
# searches. Run as root (or with sudo).
set -eu
if command -v gnugo >/dev/null 2>&1 || [ -x /usr/games/gnugo ]; then
    echo "GNU Go already installed: $(command -v gnugo || echo /usr/games/gnugo)"
    exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update
    $SUDO apt-get install -y gnugo
elif command -v brew >/dev/null 2>&1; then
    brew install gnu-go
else
    echo "no apt-get or brew: install GNU Go 3.8 from https://www.gnu.org/software/gnugo/" >&2
    exit 1
fi
(command -v gnugo || echo /usr/games/gnugo) | xargs -I{} sh -c '{} --version | head -1'
