"""Compares raw f32 depth images (`render --depth-out X.bin`, 1920x1080, row 0 at the top)
with a reference: the pixels farther than it by more than 0.5 % (they show what lies behind
the surface), nearer by as much, the worst, and the counts per band of 60 image rows."""
import array
import math
import sys

W = 1920


def load(path):
    a = array.array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


truth = load(sys.argv[1])
for path in sys.argv[2:]:
    a = load(path)
    far = near = 0
    worst = 0.0
    bands = {}
    for i, (t, x) in enumerate(zip(truth, a)):
        if not (t > 0 and x > 0 and math.isfinite(t) and math.isfinite(x)):
            continue
        r = x / t - 1.0
        if r > 0.005:
            far += 1
            worst = max(worst, r)
            band = i // W // 60
            bands[band] = bands.get(band, 0) + 1
        elif r < -0.005:
            near += 1
    print(f"{path}: farther than the reference by > 0.5 %: {far}, nearer: {near}, "
          f"worst +{worst * 100:.1f} %, per 60-row band: {dict(sorted(bands.items()))}")
