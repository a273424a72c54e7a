#!/bin/sh
# The look's contact sheet (docs/look.md): orbit, the 400 km limb, 10 km, 2 km over the sea,
# 2 m in the mountains, sunset — rendered by `planetfall render` and laid out 3 × 2.
# Usage: tools/scripts/contact_sheet.sh OUT.png [WIDTH HEIGHT]   (PLANETFALL_ETOPO as for render)
set -e
out=$1; w=${2:-480}; h=${3:-270}
dir=$(mktemp -d)
B=${PLANETFALL:-target/release/planetfall}
r() { n=$1; shift; "$B" render --width "$w" --height "$h" "$@" --out "$dir/$n.png"; }
r 1 --bookmark orbit
r 2 --lat 30 --lon -40 --alt 400000 --heading 270 --pitch -15 --sun-az 180 --sun-el 40
r 3 --lat 36.1 --lon -112.1 --alt 10000 --pitch -60
r 4 --lat 30 --lon -40 --alt 2000 --heading 270 --pitch -5 --sun-az 270 --sun-el 20
r 5 --lat 27.90 --lon 86.83 --agl 2 --heading 10 --pitch 5
r 6 --lat 30 --lon -40 --alt 10 --heading 270 --pitch 3 --sun-az 270 --sun-el 1
python3 "$(dirname "$0")/compose_png.py" "$out" 3 "$dir"/1.png "$dir"/2.png "$dir"/3.png \
    "$dir"/4.png "$dir"/5.png "$dir"/6.png
