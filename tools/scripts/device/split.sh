#!/bin/bash
# The mesh's smallest residual split (--split-min-px) in the low views with the most leaves:
# leaves, frame and node times, accuracy, at each value given (default 0 1.5 3).
set -u
. .dev/env.sh
V=${V:-khumbu-2m-p0,hawaii-2m-p30,gibraltar-100m-p30,grand-canyon-100m-p0}
for m in ${@:-0 1.5 3}; do
    timeout ${T:-185} "$WC" -- "$P" bench --no-prefetch --score-pixels 1500 --no-flights --frames 100 --per-node \
        --occlusion off --split-min-px "$m" --only "$V" --out "$OUT/s$m" > "$OUT/s$m.log" 2>&1
    echo "split-min-px $m: rc $?"
    rm -f "$OUT/s$m"/*.png
    grep -hE "^\| [a-z]+-[0-9a-z]+-p[0-9]+ \|" "$OUT/s$m"/*.md | head -12
done
