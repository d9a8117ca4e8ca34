#!/bin/sh
# One call on a lent GPU machine (16 cores, an H100 or H200): what the self-play loop's
# issue asks of a GPU, in one prepared run.
#   1. training throughput of the loop's network shape (CNN 5 x 32) with burn's Vulkan
#      backend (`akushu bench train --device gpu`) and with PyTorch on CUDA
#      (`scripts/torch_train_bench.py`), side by side, same batch sizes;
#   2. the loop's last promoted network against `-gpu2` in `strong3` (both sides one thread,
#      the same clock per move, colours alternating), one game per core.
# Results go to $OUT (the device tool's folder) or ./gpu-out.
#
#   sh scripts/gpu-loop-check.sh BINARY NEW_NET [GAMES] [SECONDS_PER_MOVE]
set -u
cd "$(dirname "$0")/.."
A=$1
NEW=$2
GAMES=${3:-400}
TPM=${4:-0.1}
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
{
    date -u
    nvidia-smi -L 2>&1
    nproc
    python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))' 2>&1
} > "$OUT/machine.txt"

# 1. burn (Vulkan) and PyTorch (CUDA), the same shape and batch sizes.
timeout 150 "$A" bench train --model cnn --blocks 5 --channels 32 --batch-size 256,1024 \
    --steps 40 --threads 0 --device gpu > "$OUT/burn_train.txt" 2>&1
for B in 256 1024; do
    timeout 60 python3 scripts/torch_train_bench.py --blocks 5 --channels 32 --batch-size $B \
        --steps 200 >> "$OUT/torch_train.txt" 2>&1
    timeout 60 python3 scripts/torch_train_bench.py --blocks 5 --channels 32 --batch-size $B \
        --steps 200 --from-host --no-tf32 >> "$OUT/torch_train.txt" 2>&1
done

# 2. The match: one game per core, the clock stops both sides.
SPEC_NEW="strong3:sims=1000000,prune=nn:$NEW:65@1,policy=nn:$NEW"
SPEC_OLD="strong3:sims=1000000"
"$A" match --black "$SPEC_NEW" --white "$SPEC_OLD" --alternate --games "$GAMES" \
    --time-per-move "$TPM" --jobs "$(nproc)" --seed 2911 --out "$OUT/final-match" --quiet \
    > "$OUT/final_match.txt" 2>&1
# Few files come back from the machine: the folder travels as one archive.
tar -czf "$OUT/final-match.tar.gz" -C "$OUT" final-match && rm -rf "$OUT/final-match"
