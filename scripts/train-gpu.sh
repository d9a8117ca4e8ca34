#!/bin/sh
# Continues `models/cnn-human-5x32` on a GPU in two legs, as `models/cnn-human-5x32-gpu` and
# `models/cnn-human-5x32-gpu2` were trained (one NVIDIA H100, burn's Vulkan backend), then
# evaluates both on the paper-like test split. Needs a GPU build (`cargo build --release
# --features gpu`), a Vulkan loader (Debian: libvulkan1) and the GPU's Vulkan driver.
# Output directories must not exist yet: shipped weights are never replaced.
#
#   scripts/train-gpu.sh [SHARED_DATA_DIR]      # default ../shared/data
set -eu
cd "$(dirname "$0")/.."
A=${AKUSHU:-./target/release/akushu}
SHARED=${1:-../shared/data}
. scripts/datasets.sh
NET="--data data/human-id --device gpu --model cnn --blocks 5 --channels 32 --epochs 1 \
     --batch-size 1024 --lr-schedule cosine --max-validation 20000 --quiet"
# Leg 1: 2,467,216 sampled positions (what 80% of the time left filled at the measured
# 6,719 examples/s), learning rate 1e-3 (5e-4 x sqrt(1024/256)).
$A train $NET --init-from models/cnn-human-5x32 --lr 1e-3 --warmup-steps 50 \
    --max-train 2467216 --validate-every 402 --seed 44 --out models/cnn-human-5x32-gpu
# Leg 2: another seeded sample of 1,469,820 positions at half the learning rate.
$A train $NET --init-from models/cnn-human-5x32-gpu --lr 5e-4 --warmup-steps 20 \
    --max-train 1469820 --validate-every 359 --seed 45 --out models/cnn-human-5x32-gpu2
for M in models/cnn-human-5x32-gpu models/cnn-human-5x32-gpu2; do
    $A eval --data data/paper --split test --exclude-seen --model $M --csv $M/eval_test.csv \
        --summary $M/eval_test_summary.csv --png $M/eval_test.png
done
