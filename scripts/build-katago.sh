#!/bin/sh
# Builds KataGo's CPU (Eigen) engine from a checkout of its source, for use as akushu's teacher
# (`akushu dataset label --teacher ...`) and as an outside opponent. KataGo is not on any package
# registry and is never committed here: point this script at your own checkout.
#
#   scripts/build-katago.sh KATAGO_CHECKOUT [PREFIX]
#
# KATAGO_CHECKOUT is a checkout of github.com/lightvector/KataGo (its `cpp/` folder is built).
# PREFIX (default ~/.cache/akushu/katago) receives `bin/katago`, `b6c96.bin.gz` (the checkout's
# g170 b6c96 test network, where present) and `analysis.cfg`, a config for
# the JSON analysis engine tuned for labelling on a CPU: many positions in flight, one search
# thread each, no logging to files. Needs cmake, a C++ compiler, Eigen 3 and zlib/libzip
# (installed through apt-get or brew when missing). About 10 minutes on 2 cores.
#
# Set KATAGO_AVX2=0 on a CPU without AVX2 and FMA. Set KATAGO_JOBS to change `make -j`.
#
#   scripts/build-katago.sh --config-only [PREFIX]
#
# writes only PREFIX/analysis.cfg, for a KataGo built by hand (or from a package): then
# `katago analysis -model NETWORK -config PREFIX/analysis.cfg` is the teacher command.
set -eu
# Writes DIR/analysis.cfg (DIR = $1).
write_config() {
# The analysis config: labelling sends many positions at once, so KataGo batches them across
# analysis threads; one search thread each keeps a position's visits deterministic in count.
cat > "$1/analysis.cfg" <<CFG
# Written by akushu's scripts/build-katago.sh for labelling on a CPU.
logDir = $1/logs
logToStderr = false
logAllRequests = false
logAllResponses = false
logSearchInfo = false
reportAnalysisWinratesAs = SIDETOMOVE
analysisPVLen = 8
maxVisits = 1
numAnalysisThreads = 8
numSearchThreadsPerAnalysisThread = 1
nnMaxBatchSize = 16
nnCacheSizePowerOfTwo = 18
nnMutexPoolSizePowerOfTwo = 14
numNNServerThreadsPerModel = 1
numEigenThreadsPerModel = 1
CFG
}
if [ "${1:-}" = "--config-only" ]; then
    PREFIX=${2:-$HOME/.cache/akushu/katago}
    mkdir -p "$PREFIX"
    write_config "$PREFIX"
    echo "config: $PREFIX/analysis.cfg"
    exit 0
fi
if [ $# -lt 1 ]; then
    echo "usage: $0 KATAGO_CHECKOUT [PREFIX] | $0 --config-only [PREFIX]" >&2
    exit 2
fi
SRC=$(cd "$1" && pwd)
PREFIX=${2:-$HOME/.cache/akushu/katago}
if [ ! -f "$SRC/cpp/CMakeLists.txt" ]; then
    echo "$SRC is not a KataGo checkout: no cpp/CMakeLists.txt" >&2
    exit 2
fi
HERE=$(dirname "$0")
. "$HERE/lib-install.sh"
if ! command -v cmake >/dev/null 2>&1 || [ ! -d /usr/include/eigen3 ] && [ ! -d /usr/local/include/eigen3 ] && [ ! -d /opt/homebrew/include/eigen3 ]; then
    install_package "cmake g++ libeigen3-dev zlib1g-dev libzip-dev" "cmake eigen libzip" \
        "install cmake, Eigen 3, zlib and libzip"
fi
BUILD="$SRC/cpp/build-eigen"
mkdir -p "$BUILD" "$PREFIX/bin"
cd "$BUILD"
cmake .. -DUSE_BACKEND=EIGEN -DUSE_AVX2="${KATAGO_AVX2:-1}" -DCMAKE_BUILD_TYPE=Release >/dev/null
make -j"${KATAGO_JOBS:-2}" katago
cp katago "$PREFIX/bin/katago"
write_config "$PREFIX"
# KataGo's test network, g170 b6c96 (3.8 MB), where the checkout has it: the teacher of the
# figures in docs/teacher.md.
NET="$SRC/cpp/tests/models/g170-b6c96-s175395328-d26788732.bin.gz"
if [ -s "$NET" ]; then
    cp "$NET" "$PREFIX/b6c96.bin.gz"
    echo "network: $PREFIX/b6c96.bin.gz"
fi
"$PREFIX/bin/katago" version | head -1
echo "KataGo: $PREFIX/bin/katago  config: $PREFIX/analysis.cfg"
