#!/bin/sh
# The engine-judged bad-move curves of every shipped network, the paper's MLP, the rules, a
# random pruner and the teacher's own policy, on the per-move labels of the paper dataset's
# test split (docs/teacher.md, "Where the runs stand", gives the labelling command), into
# report/teacher/: truth.csv and truth.png for a good move = within 0.02 win rate of the
# teacher's best, truth-score.csv for within 1 point of score lead, truth-loops.csv for the
# self-play loops' candidates (score form), and eval.log (every figure printed). Games any network trained on are left out (--exclude-seen). Three shipped
# networks are not in the list: cnn-human-5x32-nohist, mlp-paper-human and mlp-planes-human
# trained on about 2,700 of these 3,003 test games (data/human is split by shuffle), so only
# a few hundred positions would be left for every network.
#
#   A=./target/release/akushu LABELS=data/labels/paper-test-b6c96-pm sh scripts/teacher-curves.sh
set -eu
A=${A:-./target/release/akushu}
LABELS=${LABELS:-data/labels/paper-test-b6c96-pm}
OUT=${OUT:-report/teacher}
mkdir -p "$OUT"
models="--model teacher --model models/cnn-distilled-b6c96 --model models/cnn-distilled-b6c96-prelim"
for m in default cnn-human-8x64 cnn-human-6x64 cnn-human-6x64-dan cnn-human-6x64-dan2 \
    cnn-human-5x32 cnn-human-5x32-gpu2 cnn-human-5x32-value \
    cnn-human-5x32-plus2 cnn-human-5x32-dan cnn-human-5x32-dan2 cnn-human-5x32-gpu cnn \
    cnn-small mlp-paper mlp-planes; do
    models="$models --model models/$m"
done
models="$models --model rules --model random"
# shellcheck disable=SC2086
"$A" eval --data "$LABELS" --split test --exclude-seen --truth teacher $models \
    --truth-csv "$OUT/truth.csv" --png "$OUT/truth.png" --force > "$OUT/eval.log"
# shellcheck disable=SC2086
"$A" eval --data "$LABELS" --split test --exclude-seen --truth teacher:score:1 $models \
    --truth-csv "$OUT/truth-score.csv" --force >> "$OUT/eval.log"
# The self-play loops' candidates, score form: truth-loops.csv. Only the loops whose
# candidates trained on none of these games but the 17 copies (value, value-lowlr,
# value-played): the others mixed in human data holding about 2,400-2,700 of them, and the
# gpu2 loops record no training data at all.
loops=""
for m in report/loops/value/gen-*/model report/loops/value-lowlr/gen-*/model \
    report/loops/value-played/gen-*/model; do
    [ -f "$m/model.bpk" ] && loops="$loops --model $m"
done
# shellcheck disable=SC2086
"$A" eval --data "$LABELS" --split test --exclude-seen --truth teacher:score:1 --model teacher \
    $loops --truth-csv "$OUT/truth-loops.csv" --force >> "$OUT/eval.log"
grep -v '^#' "$OUT/eval.log"
