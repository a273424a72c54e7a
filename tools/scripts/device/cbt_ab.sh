#!/bin/bash
# cbt_bench of two builds, alternating (new, old, new, old by default) under with-clocks: the
# first runs of a call on a machine just started are at an idle clock, so compare the last
# round. Put the baseline's stripped example at .dev/cbt_bench-old and the current one at
# .dev/cbt_bench (`cargo build --release -p engine --example cbt_bench`, then strip). RUNS: the
# binaries in order (names under .dev/); TB: seconds a run may take. Prints per run the quiet
# and turning totals per view, cbt.eval, flags and the clock summary; JSON under $OUT.
set -u
. .dev/env.sh
for B in ${RUNS:-cbt_bench cbt_bench-old cbt_bench cbt_bench-old}; do
  timeout ${TB:-120} "$WC" -- "$PWD/.dev/$B" "$OUT/$B.json" 1 > "$OUT/$B.log" 2>&1
  echo "== $B rc $?"
  grep -E "^[0-9]+×|^total|^cbt.eval|FLAGGED|clocks" "$OUT/$B.log"
done
