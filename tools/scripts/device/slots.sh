#!/bin/bash
# The descent flight (khumbu-2m-p0's settings, 1080p) with a larger tile table: pass the slot
# counts to try (default 1984, the H200's 2,048 image array layers less the 64 reserved pages).
set -u
. .dev/env.sh
K="--frames 30 --hold-max-s 8 --lateral-speeds 300 --only khumbu-2m-p0"
for n in ${@:-1984}; do
    timeout ${T:-200} "$WC" -- "$P" bench --no-prefetch --score-pixels 1500 $K --flights descent --tile-slots "$n" \
        --pop-maps "$OUT/maps$n" --out "$OUT/d$n" > "$OUT/d$n.log" 2>&1
    echo "tile-slots $n: rc $?"
    grep -E "^\| descent" "$OUT/d$n"/*.md
    rm -f "$OUT/d$n"/*.png
    python3 .dev/keep_worst_maps.py "$OUT/d$n"/*.json "$OUT/maps$n" 2
done
