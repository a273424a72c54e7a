#!/usr/bin/env python3
"""Keeps the pop maps of each flight's N largest pops (default 3) and deletes the rest: the
bench draws up to 24 a flight, about 4 MB each, more than a device call brings back.
Usage: keep_worst_maps.py BENCH_JSON MAPS_DIR [N]"""
import json, os, sys

report, maps = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 3
keep = set()
for f in json.load(open(report))["flights"]:
    frames = sorted(range(len(f["per_frame"])), key=lambda k: -f["per_frame"][k]["max_px"])
    # per_frame[k] compares frame k + 1 with frame k (the first frame has no predecessor).
    keep |= {"pop-%s-%03d.png" % (f["name"], k + 1) for k in frames[:n]}
for name in os.listdir(maps):
    if name not in keep:
        os.remove(os.path.join(maps, name))
print("kept", sorted(set(os.listdir(maps))))
