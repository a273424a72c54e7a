#!/bin/bash
# raster.compute's largest box per thread: frame medians at each value given.
set -u
. .dev/env.sh
V=${V:-pacific-400km-p90,alps-400km-p30,gibraltar-10km-p60,everest-1km-p60,hawaii-1km-p30,khumbu-2m-p0}
for m in "$@"; do
    timeout ${T:-175} "$WC" -- "$P" bench --no-prefetch --score-pixels 300 --no-flights --frames 200 \
        --occlusion off --raster-max-box "$m" --only "$V" --out "$OUT/b$m" > "$OUT/b$m.log" 2>&1
    echo "max box $m: rc $?"
    rm -f "$OUT/b$m"/*.png
    grep -hE "^\| [a-z]+-[0-9a-z]+-p[0-9]+ \| [0-9]+ \|" "$OUT/b$m"/*.md | cut -d'|' -f2,8,11 | head -8
done
