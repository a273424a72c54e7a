#!/bin/bash
# The pop metric's floor at 1080p: lateral-300 at khumbu-2m-p0's settings, with the CPU
# reference's pictures of frames 30, 60 and 90 and their predecessors (`--pop-reference`): the
# pop the metric reads between two reference pictures of a surface that does not move. Extra
# bench options go after the script's name (e.g. --pop-reference 20,40 --flights descent).
set -u
. .dev/env.sh
K="--frames 30 --hold-max-s 8 --lateral-speeds 300 --only khumbu-2m-p0"
timeout ${T:-560} "$P" bench --no-prefetch --score-pixels 1500 $K --flights lateral \
    --pop-reference 30,60,90 --out "$OUT/floor" "$@" > "$OUT/floor.log" 2>&1
echo "rc $?"
grep -E "frame [0-9]+: pop|flight lateral" "$OUT/floor.log"
grep -E "^\| (descent|lateral|turn)" "$OUT"/floor/*.md
