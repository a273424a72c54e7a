#!/bin/bash
# The descent, lateral-300 and turn flights at khumbu-2m-p0's settings, 1080p, with pop maps
# (the maps of each flight's three largest pops are kept: all of them are about 100 MB). Extra
# bench options (e.g. --resolve-march 16) go after the script's name.
set -u
. .dev/env.sh
K="--frames 30 --hold-max-s 8 --lateral-speeds 300 --only khumbu-2m-p0"
timeout 400 "$WC" -- "$P" bench --no-prefetch --score-pixels 1500 $K --flights descent,lateral,turn \
    --pop-maps "$OUT/maps" --out "$OUT/flights" "$@" > "$OUT/flights.log" 2>&1
echo "rc $?"
grep -E "^\| (descent|lateral|turn)" "$OUT"/flights/*.md
python3 .dev/keep_worst_maps.py "$OUT"/flights/*.json "$OUT/maps" 3
