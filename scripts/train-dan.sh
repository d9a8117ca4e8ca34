#!/bin/sh
# Fine-tunes `models/cnn-human-5x32-gpu2` on the paper-like training split (games with a
# player of 1 dan or more), two passes, as `models/cnn-human-5x32-dan` and `-dan2` were
# trained on the 2-core CPU (about 15 minutes each), then `models/cnn-human-6x64` two
# passes as `models/cnn-human-6x64-dan` and `-dan2` (17-19 minutes each with the board
# convolution), and evaluates all four on the paper-like test split. Output directories
# must not exist yet: shipped weights are never replaced.
#
#   scripts/train-dan.sh [SHARED_DATA_DIR]      # default ../shared/data
set -eu
cd "$(dirname "$0")/.."
A=${AKUSHU:-./target/release/akushu}
SHARED=${1:-../shared/data}
. scripts/datasets.sh
NET="--data data/paper --model cnn --epochs 1 --batch-size 256 \
     --lr-schedule cosine --validate-every 1000 --max-validation 20000 --patience 1000 --quiet"
$A train $NET --blocks 5 --channels 32 --init-from models/cnn-human-5x32-gpu2 --lr 3e-4 --warmup-steps 100 --seed 48 \
    --out models/cnn-human-5x32-dan
$A train $NET --blocks 5 --channels 32 --init-from models/cnn-human-5x32-dan --lr 1.5e-4 --warmup-steps 50 --seed 49 \
    --out models/cnn-human-5x32-dan2
$A train $NET --blocks 6 --channels 64 --init-from models/cnn-human-6x64 --lr 3e-4 \
    --warmup-steps 100 --seed 50 --out models/cnn-human-6x64-dan
$A train $NET --blocks 6 --channels 64 --init-from models/cnn-human-6x64-dan --lr 1.5e-4 \
    --warmup-steps 50 --seed 51 --out models/cnn-human-6x64-dan2
for M in models/cnn-human-5x32-dan models/cnn-human-5x32-dan2 models/cnn-human-6x64-dan \
    models/cnn-human-6x64-dan2; do
    $A eval --data data/paper --split test --exclude-seen --model $M --model nnq:$M --csv $M/eval_test.csv \
        --summary $M/eval_test_summary.csv --png $M/eval_test.png
done
