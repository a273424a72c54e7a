#!/bin/bash
# The resolve's march (docs/bench.md "Detail under the chord"): descent frame 102 of the
# Khumbu descent rendered with each --resolve-march in $MARCH (default "0 8 16 32 64"), each
# compared with an exhaustive reference (66048: bit 16 set, 512 samples under every leaf):
# pixels farther than the reference by more than 0.5 %.
set -u
. .dev/env.sh
pose="--lat 27.90 --lon 86.83 --alt 5732.85 --heading 10 --pitch -21.428571 --fov 60"
mkdir -p /tmp/d
for m in 66048 ${MARCH:-0 8 16 32 64}; do
    timeout 60 "$P" render $pose --width 1920 --height 1080 --resolve-march "$m" \
        --depth-out "/tmp/d/m$m.bin" --out "/tmp/d/m$m.png" > "/tmp/d/m$m.log" 2>&1
    echo "march $m rc $? $(grep 'publish.resolve' "/tmp/d/m$m.log")"
done
python3 .dev/depth_cmp.py /tmp/d/m66048.bin $(for m in ${MARCH:-0 8 16 32 64}; do echo "/tmp/d/m$m.bin"; done)
