#!/bin/bash
# Two binaries, the same views, alternating (old, new, old, new): every node's median per view,
# the resolve's walks, the SM clock and accuracy. Put the baseline's stripped binary at
# .dev/planetfall-old (prepare.sh puts the current one at .dev/planetfall). V: the views;
# RUNS: the binaries in order (names under .dev/; `name@VAR=value@VAR2=value` runs it with those
# environment variables set, e.g. planetfall@PLANETFALL_RESOLVE_SKYLINE=off; the cull is off
# unless a run sets PLANETFALL_OCCLUSION=stamp or on); TB: seconds a run may take; extra bench
# options after the script's name (both binaries must know them). Call it without piping into
# `tail`: on a timeout the pipe's output is lost, and each run prints as it ends.
set -u
. .dev/env.sh
V=${V:-gibraltar-100m-p30,hawaii-1km-p30,grand-canyon-100m-p0,everest-1km-p60}
for R in ${RUNS:-planetfall-old planetfall planetfall-old planetfall}; do
  B=${R%%@*}
  E=; [ "$B" != "$R" ] && E=$(echo "${R#*@}" | tr '@' ' ')
  timeout ${TB:-110} env PLANETFALL_OCCLUSION=off $E "$WC" -- "$PWD/.dev/$B" bench --no-prefetch --score-pixels 300 --no-flights --frames 300 \
    --per-node --only $V --out "$OUT/b" "$@" > "$OUT/b.log" 2>&1
  echo "== $R rc $?"
  grep -E "^\| view \| frame \(frame mode" "$OUT"/b/*.md | head -1 | sed -E 's/ +\| +/|/g; s/per-node span \(sum\)/span/'
  grep -E "^\| [a-z0-9-]+ \| [0-9]\.[0-9]{4} \| [0-9]\.[0-9]{4} \(" "$OUT"/b/*.md | sed -E 's/ \([^)]*\)//g; s/ +\| +/|/g'
  grep -E "walks per terrain" "$OUT/b.log" | sed -E 's/publish.resolve surface walks per terrain pixel: //; s/a warp.s slowest pixel, mean over warps/warp/'
  grep -E "^ +[0-9.]+ s [a-z]" "$OUT/b.log" | sed -E 's/.*s ([a-z0-9-]+) .*(SM [^%]*%).*(see-through [0-9.]+ %).*(sil p95 [0-9.]+ px).*/\1 \2 \3 \4/'
  grep -E " drawn [0-9]+ occluded" "$OUT/b.log" | sed -E 's/.*s ([a-z0-9-]+) .* (drawn [0-9]+ occluded.*)/\1 \2/'
  rm -rf "$OUT/b" "$OUT/b.log"
done
