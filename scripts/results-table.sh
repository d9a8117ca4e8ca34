#!/usr/bin/env bash
# Prints a Markdown table of black's win rate (Wilson 95%) for every arm folder of a match
# experiment, computed by akushu itself from the games played so far (`akushu match merge`
# rewrites the summary of a partial run). Usage: scripts/results-table.sh report/runs/tree_pruning
# With --player-a (matches with alternating colours, e.g. against GNU Go): player A's win rate
# over all games and by colour instead of black's.
set -euo pipefail
dir=${1:?usage: results-table.sh RUNS_DIR [--player-a]}
mode=${2:-}
bin=${AKUSHU:-./target/release/akushu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$mode" = "--player-a" ]; then
  echo "| arm | A spec | games | A wins (Wilson 95%) | A as black | A as white | errors | s/move A | s/move B |"
  echo "|---|---|---|---|---|---|---|---|---|"
else
  echo "| arm | black spec | games | black wins (Wilson 95%) | s/move black | s/move white |"
  echo "|---|---|---|---|---|---|"
fi
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
  if [ "$mode" = "--player-a" ]; then
    # columns of the A row: player, spec, all games, without errors, as black, as white, errors
    row=$(grep -m1 '^| A |' "$s")
    all=$(echo "$row" | awk -F'|' '{print $4}' | xargs)
    asb=$(echo "$row" | awk -F'|' '{print $6}' | xargs)
    asw=$(echo "$row" | awk -F'|' '{print $7}' | xargs)
    err=$(echo "$row" | awk -F'|' '{print $8}' | xargs)
    echo "| $name | $spec | $games | $all | $asb | $asw | $err | $sa | $sb |"
  else
    echo "| $name | $spec | $games | $wins | $sa | $sb |"
  fi
done
