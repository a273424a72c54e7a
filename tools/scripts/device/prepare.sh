#!/bin/sh
# Gathers what a run on a lent GPU machine needs into .dev/ at the repository root (ignored by
# git): the stripped release binary, ETOPO5, this machine's GSHHG water mask (the device image
# has no `gmt`), the SM-clock sampler and these scripts. Run here, from the repository root,
# after `../shared/gpu/prep` has filled .gl/; then carry .gl and .dev and run, on the device,
# `sh .dev/flights.sh` (or views.sh, march.sh) with $OUT set by the device tool.
set -eu
cargo build --release -p tools
mkdir -p .dev
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo '/.dev/' >> .git/info/exclude
cp target/release/planetfall .dev/planetfall && strip .dev/planetfall
gzip -c "${PLANETFALL_ETOPO:-/usr/share/ferret-vis/data/etopo5.cdf}" > .dev/etopo5.cdf.gz
cp ../shared/gpu/with-clocks .dev/
mask=$(ls "${PLANETFALL_DATA:-$HOME/.cache/planetfall}"/water/gshhg-f-*m-v1.bb 2>/dev/null | head -1 || true)
if [ -z "$mask" ]; then
    echo "no water mask yet: run 'planetfall height --lat 0 --lon 0' once (it builds one, about a minute)" >&2
    exit 1
fi
gzip -c "$mask" > .dev/water.bb.gz
cp tools/scripts/device/*.sh tools/scripts/device/*.py .dev/
ls -la .dev
