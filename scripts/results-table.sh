#!/usr/bin/env bash
# Prints a Markdown table of black's win rate (Wilson 95%) for every arm folder of a match
# experiment, computed by akushu itself from the games played so far (`akushu match merge`
# rewrites the summary of a partial run). Usage: scripts/results-table.sh report/runs/tree_pruning
set -euo pipefail
dir=${1:?usage: results-table.sh RUNS_DIR}
bin=${AKUSHU:-./target/release/akushu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| arm | black spec | games | black wins (Wilson 95%) | s/move black | s/move white |"
echo "|---|---|---|---|---|---|"
for arm in "$dir"/*/; do
  arm=${arm%/}
  name=$(basename "$arm")
  [ -f "$arm/games.csv" ] || continue
  "$bin" match merge --out "$tmp/$name" "$arm" >/dev/null 2>&1 || { echo "| $name | (merge failed) | | | | |"; continue; }
  s="$tmp/$name/summary.md"
  games=$(grep -m1 '^games:' "$s" | awk '{print $2}')
  wins=$(grep -m1 '^black wins:' "$s" | sed 's/^black wins: //')
  spec=$(grep -m1 '^| A |' "$s" | awk -F'|' '{print $3}' | xargs)
  sa=$(grep -m1 '^| A |' "$s" | awk -F'|' '{print $(NF-2)}' | xargs)
  sb=$(grep -m1 '^| B |' "$s" | awk -F'|' '{print $(NF-2)}' | xargs)
  echo "| $name | $spec | $games | $wins | $sa | $sb |"
done
