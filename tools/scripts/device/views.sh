#!/bin/bash
# Every view of captures/views.txt, 1080p, 300 timed frames (about 190 s on the H200; give
# the call the time). Extra bench options go after the script's name.
set -u
. .dev/env.sh
timeout 560 "$WC" -- "$P" bench --no-flights --frames 300 --occlusion off --out "$OUT/views" "$@" \
    > "$OUT/views.log" 2>&1
echo "rc $?"
rm -f "$OUT"/views/*.png
grep -E "^\| [a-z]+-[0-9a-z]+-p[0-9]+ \|" "$OUT"/views/*.md | head -24
