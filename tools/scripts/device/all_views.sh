#!/bin/bash
# Every view in one bench call, 20,000 scored pixels a view: the views whose times moved most
# with the raster box and the outlines first, then the rest (the low ones take 20–45 s each to
# settle; the last four may not fit a call: T sets the bench's limit, default 480 s).
set -u
. .dev/env.sh
V=pacific-400km-p90,alps-400km-p30,gibraltar-10km-p60,everest-1km-p60,africa-orbit-p90,americas-orbit-p60,africa-orbit-p0,himalaya-orbit-p30,himalaya-400km-p0,hawaii-400km-p60,everest-10km-p0,grand-canyon-10km-p30,alps-10km-p90,alps-1km-p0,khumbu-2m-p0,hawaii-1km-p30,gibraltar-100m-p30,grand-canyon-1km-p90,grand-canyon-100m-p0,pacific-100m-p60,everest-100m-p90,hawaii-2m-p30,alps-2m-p60,gibraltar-2m-p90,uyuni-2m-p0
timeout ${T:-480} "$WC" -- "$P" bench --no-prefetch --score-pixels 20000 --no-flights --frames 200 --occlusion off \
    --only $V --out "$OUT/all" > "$OUT/all.log" 2>&1
echo "rc $?"
rm -f "$OUT"/all/*.png
grep -E "^ +[0-9.]+ s [a-z]" "$OUT/all.log" | sed -E 's/ +setup.*GPU +/ GPU /; s/SM [0-9]+ \([0-9–]+\) MHz, [0-9]+ % < 90 % of 1980//'
tail -1 "$OUT/all.log"
