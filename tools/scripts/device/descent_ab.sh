#!/bin/bash
# The Khumbu descent (khumbu-2m-p0's settings, 1080p) with each binary in turn (as ab.sh:
# .dev/planetfall-old, then .dev/planetfall; `name@VAR=value@…` runs it with those environment
# variables set): the pop table of each. FL: the flights (default descent; lateral flies at
# 300 m/s). About 70 s a binary and flight on an H100.
set -u
. .dev/env.sh
for R in ${RUNS:-planetfall-old planetfall}; do
  B=${R%%@*}
  E=; [ "$B" != "$R" ] && E=$(echo "${R#*@}" | tr '@' ' ')
  t0=$(date +%s)
  timeout ${TB:-230} env $E "$PWD/.dev/$B" bench --no-prefetch --score-pixels 300 --frames 30 --hold-max-s 8 \
    --only khumbu-2m-p0 --flights ${FL:-descent} --lateral-speeds 300 --out "$OUT/d" "$@" > "$OUT/d.log" 2>&1
  echo "== $R rc $? $(( $(date +%s) - t0 )) s"
  grep -E "^\| (flight|descent|lateral)" "$OUT"/d/*.md | head -3
  rm -rf "$OUT/d" "$OUT/d.log"
done
