#!/bin/bash
# Every view of captures/views.txt, 1080p, 300 timed frames, tiles made as the views settle
# (--no-prefetch: preparing the union of every view's tiles on the CPU first took 218 s of the
# call at 406b3bb), 1,500 reference pixels a view. The views below 10 km take 20–45 s each to
# settle (13 of them: 443 s at 9e73781), so all 24 need two calls: pass `--only V1,V2,…` (and
# any other bench option) after the script's name.
set -u
. .dev/env.sh
timeout 560 "$WC" -- "$P" bench --no-prefetch --score-pixels 1500 --no-flights --frames 300 --occlusion off --out "$OUT/views" "$@" \
    > "$OUT/views.log" 2>&1
echo "rc $?"
rm -f "$OUT"/views/*.png
grep -E "^\| [a-z]+-[0-9a-z]+-p[0-9]+ \|" "$OUT"/views/*.md | head -24
