#!/bin/bash
# The Khumbu descent (khumbu-2m-p0's settings, 1080p) with each binary in turn (as ab.sh:
# .dev/planetfall-old, then .dev/planetfall): the pop table of each. About 70 s a binary on an
# H100.
set -u
. .dev/env.sh
for B in ${RUNS:-planetfall-old planetfall}; do
  t0=$(date +%s)
  timeout ${TB:-230} "$PWD/.dev/$B" bench --no-prefetch --score-pixels 300 --frames 30 --hold-max-s 8 \
    --only khumbu-2m-p0 --flights descent --out "$OUT/d$B" "$@" > "$OUT/d$B.log" 2>&1
  echo "== $B rc $? $(( $(date +%s) - t0 )) s"
  grep -E "^\| (flight|descent)" "$OUT"/d$B/*.md | head -2
  rm -rf "$OUT/d$B" "$OUT/d$B.log"
done
