#!/bin/sh
# Builds the two datasets the CNN trainings use, where they are missing (deterministic,
# about a minute): `data/paper` (the paper-like set: a player of 1 dan or more) and
# `data/human-id` (every human game, split by game id, the paper-like test games held out),
# both as the shipped models' data was built (`--keep-duplicates`, the old split rules).
# Sourced by the training scripts with A (the akushu binary) and SHARED (the folder with
# ogs9x9.tar.xz and its index) set; also runnable alone:
#
#   A=./target/release/akushu SHARED=../shared/data sh scripts/datasets.sh
set -eu
F="--min-moves 20 --no-handicap --result-known --exclude-bots"
if [ ! -f data/paper/manifest.json ]; then
    $A dataset build --sgf $SHARED/ogs9x9.tar.xz --index $SHARED/ogs9x9_index.csv.xz $F \
        --min-rank 1d --rank-scope either --split-by shuffle --keep-duplicates \
        --out data/paper --quiet
fi
if [ ! -f data/human-id/manifest.json ]; then
    $A dataset build --sgf $SHARED/ogs9x9.tar.xz --index $SHARED/ogs9x9_index.csv.xz $F \
        --split-by id --hold-out data/paper --keep-duplicates --out data/human-id --quiet
fi
