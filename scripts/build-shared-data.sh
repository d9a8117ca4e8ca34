#!/bin/sh
# Builds the shared 9x9 game records (`../shared/data/`: ogs9x9.tar.xz, ogs9x9_index.csv.xz,
# engine9x9.tar.xz) from checkouts of the public repositories they were collected from:
#
#   git clone https://github.com/Gregory-Eales/teeny-go     # full clone: history is read
#   git clone https://github.com/<a GNU Go mirror>  gnugo   # needs regression/games
#   git clone https://github.com/<a Fuego mirror>   fuego   # needs regression/sgf
#   sh scripts/build-shared-data.sh --teeny-go teeny-go --gnugo gnugo --fuego fuego \
#       --out ../shared/data
#
# Why a script: a plain clone of akushu has no game records, and the records may not be
# redistributed with it; this rebuilds them from their sources. Only 9x9 games; the output
# is deterministic (members sorted, mode 644, owner 0/0, mtime 0, xz preset 9), so two runs
# give identical bytes. About five minutes and 1.5 GB of memory for the full sources.
#
# What it takes from where, which games it drops (error stubs, duplicates by game id, other
# board sizes, engine files that are problems rather than games) and how each index column
# is derived, including the kyu-rank correction (`Nk` in one scrape means `(30-N)k`) and
# what is approximate (`bot_suspect`), is in the header of scripts/build_shared_data.py.
# docs/data.md compares a build from public mirrors with the shared copy.
#
# Needs python3 (standard library) and git (teeny-go's dan games and CGOS samples were
# deleted from its tree and are read from its history).
set -eu
here=$(dirname "$0")
usage() {
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
    echo
    echo "Options: --teeny-go DIR --gnugo DIR --fuego DIR --out DIR (all required), --help"
}
case " $* " in
*" --help "* | *" -h "*)
    usage
    exit 0
    ;;
esac
command -v python3 >/dev/null 2>&1 || {
    echo "build-shared-data: python3 not found (needed to read the SGF files)" >&2
    exit 2
}
exec python3 "$here/build_shared_data.py" "$@"
