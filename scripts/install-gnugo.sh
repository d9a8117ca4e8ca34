#!/bin/sh
# Installs GNU Go 3.8, the arena's reference opponent (`gtp:gnugo --mode gtp --level 10
# --chinese-rules --capture-all-dead`). Debian/Ubuntu put the binary in /usr/games, which the arena also
# searches. Run as root (or with sudo).
set -eu
if command -v gnugo >/dev/null 2>&1 || [ -x /usr/games/gnugo ]; then
    echo "GNU Go already installed: $(command -v gnugo || echo /usr/games/gnugo)"
    exit 0
fi
. "$(dirname "$0")/lib-install.sh"
install_package gnugo gnu-go "install GNU Go 3.8 from https://www.gnu.org/software/gnugo/"
(command -v gnugo || echo /usr/games/gnugo) | xargs -I{} sh -c '{} --version | head -1'
