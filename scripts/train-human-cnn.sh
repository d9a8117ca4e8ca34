#!/bin/sh
# Trains (or continues) the human-set CNN `models/cnn-human-5x32` from a fresh clone:
# builds the two datasets it needs from ../shared/data (deterministic, about a minute),
# then starts the run, or resumes it from the committed `checkpoint/` if there is one,
# and finally evaluates the best weights on the paper-like test split (held out of its
# training data). Extra arguments go to `akushu train` (e.g. `--stop-after-minutes 100`).
#
#   scripts/train-human-cnn.sh [--stop-after-minutes M]
set -eu
cd "$(dirname "$0")/.."
A=./target/release/akushu
OUT=models/cnn-human-5x32
SHARED=../shared/data
cargo build --release --bin akushu
. scripts/datasets.sh
if [ -f $OUT/checkpoint/state.json ]; then
    $A train --data data/human-id --out $OUT --resume --quiet "$@"
elif [ -f $OUT/model.bpk ]; then
    echo "$OUT is finished (no checkpoint): evaluating only"
else
    $A train --data data/human-id --model cnn --blocks 5 --channels 32 --epochs 1 \
        --lr 1.5e-3 --lr-schedule cosine --warmup-steps 500 --validate-every 2000 \
        --max-validation 20000 --out $OUT --quiet "$@"
fi
$A eval --data data/paper --split test --exclude-seen --model $OUT --model models/cnn --model rules \
    --model random --csv $OUT/eval_test.csv --summary $OUT/eval_test_summary.csv \
    --png $OUT/eval_test.png
