#!/bin/bash
# The Khumbu descent (khumbu-2m-p0's settings, 1080p) without the conservative shell and with
# it at the raises given (--resolve-shell K); then the frame per node in two low views, each
# way. Usage: sh .dev/shell.sh descent 0 K... | sh .dev/shell.sh nodes 0 K... (0 = off)
set -u
. .dev/env.sh
what=$1; shift
K="--no-prefetch --score-pixels 1500 --frames 30 --hold-max-s 8 --only khumbu-2m-p0 --flights descent"
for k in "$@"; do
  t0=$(date +%s)
  if [ "$what" = descent ]; then
    timeout 250 "$WC" -- "$P" bench $K --resolve-shell $k --out "$OUT/d$k" > "$OUT/d$k.log" 2>&1
    echo "shell $k rc $? $(( $(date +%s) - t0 )) s"
    grep -E "^\| descent" "$OUT"/d$k/*.md
  else
    timeout 250 "$WC" -- "$P" bench --no-prefetch --score-pixels 1500 --no-flights --frames 300 \
      --per-node --resolve-shell $k --only khumbu-2m-p0,gibraltar-100m-p30,alps-1km-p0 \
      --out "$OUT/n$k" > "$OUT/n$k.log" 2>&1
    echo "shell $k rc $? $(( $(date +%s) - t0 )) s"
    grep -E "^\| (khumbu|gibraltar|alps)|publish\.resolve|raster\.compute" "$OUT"/n$k/*.md | head -30
    grep -E "clock|MHz" "$OUT/n$k.log" | tail -3
  fi
done
