#!/bin/sh
# What the self-play loop asks of a lent GPU machine (16 cores, an H100 or H200), as two
# prepared runs (each fits one device call):
#
#   sh scripts/gpu-loop-check.sh bench BINARY   # burn vs PyTorch training speed, self-play speed
#   sh scripts/gpu-loop-check.sh loop BINARY [SECONDS]   # experiments/loops/gpu2-sims1600.toml
#
# bench: training examples/s of the loop's network shape (CNN 5 x 32) with burn's Vulkan
#   backend (`akushu bench train --device gpu`), with burn on the machine's CPU cores, and
#   with PyTorch on CUDA (`scripts/torch_train_bench.py`), the same batch sizes, side by
#   side; then `akushu bench selfplay` at 1, 2 and 16 jobs.
# loop: the 1,600-simulation loop, one self-play game per core, training where its config
#   says (`train.device`; the CPU cores: the first lent machine had no Vulkan loader); its
#   folder comes back as one archive (records and datasets left out: the games' seeds and
#   SGF rebuild them). The loop stops after SECONDS (default 540) and is packed whatever it
#   reached: every finished generation is whole, and a rerun resumes the rest.
# BINARY is a `--features gpu` build. Stripped it is about 82 MB, more than a device call
# carries (64 MiB): carry it xz-compressed (13 MB) and unpack it there first
# (`xz -dc carry/akushu-gpu.xz > /tmp/akushu`). Results go to $OUT (the device tool's
# folder) or ./gpu-out.
set -u
cd "$(dirname "$0")/.."
MODE=$1
A=$2
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
case $MODE in
bench)
    {
        date -u
        nvidia-smi -L 2>&1
        nproc
        python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))' 2>&1
    } > "$OUT/machine.txt"
    timeout 200 "$A" bench train --model cnn --blocks 5 --channels 32 --batch-size 256,1024 \
        --steps 40 --threads 0 --device gpu > "$OUT/burn_train.txt" 2>&1
    # The same on the machine's CPU cores (what trains where Vulkan is missing).
    timeout 90 "$A" bench train --model cnn --blocks 5 --channels 32 --batch-size 256,1024 \
        --steps 20 --threads 0 --device cpu > "$OUT/burn_train_cpu.txt" 2>&1
    for B in 256 1024; do
        timeout 90 python3 scripts/torch_train_bench.py --blocks 5 --channels 32 \
            --batch-size $B --steps 200 >> "$OUT/torch_train.txt" 2>&1
        timeout 90 python3 scripts/torch_train_bench.py --blocks 5 --channels 32 \
            --batch-size $B --steps 200 --from-host --no-tf32 >> "$OUT/torch_train.txt" 2>&1
    done
    timeout 200 "$A" bench selfplay --engine strong3:sims=400 --games 32 --jobs 1,2,16 \
        > "$OUT/bench_selfplay.txt" 2>&1
    ;;
loop)
    timeout "${3:-540}" "$A" loop experiments/loops/gpu2-sims1600.toml --out runs/loop-gpu2-sims1600 \
        --quiet > "$OUT/loop.txt" 2>&1
    echo "loop exit $?" >> "$OUT/loop.txt"
    tar -czf "$OUT/loop-gpu2-sims1600.tar.gz" --exclude=records --exclude=data \
        --exclude=checkpoint -C runs loop-gpu2-sims1600
    ;;
*)
    echo "usage: sh scripts/gpu-loop-check.sh bench|loop BINARY" >&2
    exit 2
    ;;
esac
