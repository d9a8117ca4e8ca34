#!/bin/sh
# Grows `models/cnn-human-5x32-gpu2` into two wider networks and trains them on a GPU, as
# `models/cnn-human-6x64` and `models/cnn-human-8x64` were trained (one NVIDIA H100, burn's
# Vulkan backend, both runs side by side), then evaluates them on the paper-like test split.
# `--init-from` a smaller CNN grows it into the run's shape with the same logits
# (src/net/training/grow.rs), so the runs start from the 5x32 network's accuracy, not from noise.
# Needs a GPU build (`cargo build --release --features gpu`), a Vulkan loader (Debian:
# libvulkan1) and the GPU's Vulkan driver. Output directories must not exist yet: shipped
# weights are never replaced.
#
#   scripts/train-gpu-64.sh [SHARED_DATA_DIR] [DEVICE]   # defaults: ../shared/data, gpu
#
# The shipped runs paused on the GPU after 9.2 minutes (`--stop-after-minutes`, at steps
# 1,152 and 864) and were finished on the 2-core CPU with `akushu train --out DIR --resume`;
# a resumed run continues mid-epoch exactly as an uninterrupted one would.
set -eu
cd "$(dirname "$0")/.."
A=${AKUSHU:-./target/release/akushu}
SHARED=${1:-../shared/data}
DEVICE=${2:-gpu}
. scripts/datasets.sh
# name blocks seed positions: one epoch over a seeded sample of the human training split,
# batch 1,024, peak learning rate 1e-3 after 50 warm-up steps, cosine to 2%.
grow() {
    $A train --data data/human-id --device $DEVICE --model cnn --blocks $2 --channels 64 \
        --init-from models/cnn-human-5x32-gpu2 --epochs 1 --batch-size 1024 --lr 1e-3 \
        --lr-schedule cosine --warmup-steps 50 --max-train $4 --seed $3 \
        --validate-every $(( $4 / 1024 / 5 + 1 )) --max-validation 20000 --patience 1000 \
        --out models/$1 --quiet
}
grow cnn-human-6x64 6 46 1473120 &
grow cnn-human-8x64 8 47 1104840 &
wait
for M in models/cnn-human-6x64 models/cnn-human-8x64; do
    $A eval --data data/paper --split test --exclude-seen --model $M --model nnq:$M --csv $M/eval_test.csv \
        --summary $M/eval_test_summary.csv --png $M/eval_test.png
done
