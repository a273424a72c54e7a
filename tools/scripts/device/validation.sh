#!/bin/bash
# The whole frame under the Khronos validation layer with synchronization validation on the
# lent GPU (the layer comes from .gl/'s vulkan-validationlayers): a few views of every kind
# (orbit, 400 km, grazing 100 m and 2 m, the salt flat), then the flights, whose frames make
# tiles on the GPU and land them through the dedicated transfer queue (queue ownership
# hand-offs). The bench fails, after writing its report, on any message; the messages are in
# the log. Frames are few: the layer is slow. Extra bench options go after the script's name.
set -u
. .dev/env.sh
V=${V:-africa-orbit-p90,alps-400km-p30,gibraltar-100m-p30,khumbu-2m-p0,uyuni-2m-p0}
timeout ${TV:-540} "$P" bench --validation --no-prefetch --score-pixels 50 --frames 5 --warmup 2 \
    --only "$V" --flights descent,lateral --descent-frames 20 --lateral-speeds 300 --hold-max-s 8 \
    --out "$OUT/validation" "$@" > "$OUT/validation.log" 2>&1
echo "rc $?"
grep -E "^- validation|validation reported" "$OUT"/validation/*.md "$OUT/validation.log" | head
grep -c -E "VUID|SYNC-HAZARD|Validation (Error|Warning)" "$OUT/validation.log"
grep -m 5 -E "VUID|SYNC-HAZARD" "$OUT/validation.log" | cut -c1-400
