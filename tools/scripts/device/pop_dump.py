#!/usr/bin/env python3
"""Reads a `bench --pop-maps DIR --pop-dump` record (pop-<flight>-<frame>.dump, layout in
tools/src/bench/flights.rs `PopDump::bytes`) and prints where the frame's largest pops come from:
for each point over 1 px, the previous frame's hit (distance, level, slot, corrected, surface
walks) and the current frame's at the point's reprojection, the radial height change between
them, and for the few worst places the rays (planet-centred, f64) and the depth columns around
them — enough to sample the CPU surface along a ray with `planetfall height --level L`.
Needs numpy (the H200 image has it). Usage: pop_dump.py DUMP [N_PLACES]"""
import sys
import numpy as np

R = 6371000.0
path = sys.argv[1]
places = int(sys.argv[2]) if len(sys.argv) > 2 else 6
raw = open(path, 'rb').read()
hdr = np.frombuffer(raw[:240], dtype=np.float64).reshape(2, 15)
cams = [dict(eye=c[0:3], fwd=c[3:6], right=c[6:9], up=c[9:12], vfov=c[12], w=int(c[13]), h=int(c[14])) for c in hdr]
w, h = cams[0]['w'], cams[0]['h']
n = w * h
off = 240
# AovPixel: dir[3], dist, level, water, slot, corrected, normal[3], walks
A = np.frombuffer(raw[off:off + n * 48], dtype=np.float32).reshape(h, w, 12)
B = np.frombuffer(raw[off + n * 48:off + 2 * n * 48], dtype=np.float32).reshape(h, w, 12)
M = np.frombuffer(raw[off + 2 * n * 48:off + 2 * n * 48 + n * 4], dtype=np.float32).reshape(h, w)
DIST, LEVEL, SLOT, CORR, WALKS = 3, 4, 6, 7, 11


def rays(c, xs, ys):
    t = np.tan(0.5 * c['vfov'])
    asp = c['w'] / c['h']
    nx = xs / c['w'] * 2 - 1
    ny = ys / c['h'] * 2 - 1
    r = c['fwd'][None] + c['right'][None] * (nx * t * asp)[:, None] - c['up'][None] * (ny * t)[:, None]
    return r / np.linalg.norm(r, axis=1)[:, None]


def project(c, v):
    t = np.tan(0.5 * c['vfov'])
    asp = c['w'] / c['h']
    z = v @ c['fwd']
    return ((v @ c['right']) / z / (t * asp) + 1) / 2 * c['w'], (-(v @ c['up']) / z / t + 1) / 2 * c['h']


p0, p1 = cams
print(path, f'{w}x{h}', 'eye moved %.3f m' % np.linalg.norm(p1['eye'] - p0['eye']))
ys, xs = np.nonzero(M > 1.0)
order = np.argsort(-M[ys, xs])
ys, xs = ys[order], xs[order]
print('points over 1 px', len(xs), 'max %.2f' % M.max())
if len(xs) == 0:
    sys.exit()
r0 = rays(p0, xs + 0.5, ys + 0.5)
P = p0['eye'][None] + r0 * A[ys, xs, DIST][:, None].astype(np.float64)
qx, qy = project(p1, P - p1['eye'][None])
qi = np.clip(np.floor(qx).astype(int), 0, w - 1)
qj = np.clip(np.floor(qy).astype(int), 0, h - 1)
e = np.linalg.norm(P - p1['eye'][None], axis=1)
r1 = rays(p1, qi + 0.5, qj + 0.5)
Q = p1['eye'][None] + r1 * B[qj, qi, DIST][:, None].astype(np.float64)
dh = np.linalg.norm(Q, axis=1) - np.linalg.norm(P, axis=1)
print('same slot %.3f, same level %.3f, corrected before %.2f now %.2f' % (
    (A[ys, xs, SLOT] == B[qj, qi, SLOT]).mean(), (A[ys, xs, LEVEL] == B[qj, qi, LEVEL]).mean(),
    A[ys, xs, CORR].mean(), B[qj, qi, CORR].mean()))
ca, cb = A[ys, xs, CORR] > 0.5, B[qj, qi, CORR] > 0.5
print('corrected (before, now): both %.3f, before only %.3f, now only %.3f, neither %.3f' % (
    (ca & cb).mean(), (ca & ~cb).mean(), (~ca & cb).mean(), (~ca & ~cb).mean()))
T = M >= 0
print('all compared points: corrected %.3f; walks mean %.2f; over-1px points walks mean %.2f, at 7+ %.3f' % (
    (A[..., CORR][T] > 0.5).mean(), A[..., WALKS][T].mean(), A[ys, xs, WALKS].mean(), (A[ys, xs, WALKS] >= 7).mean()))
for lo, hi in ((0, 3), (3, 5), (5, 10), (10, 1e9)):
    sel = (A[ys, xs, DIST] >= lo) & (A[ys, xs, DIST] < hi)
    allsel = T & (A[..., DIST] >= lo) & (A[..., DIST] < hi)
    print(f'  distance {lo}-{hi} m: {sel.sum()} over 1 px of {allsel.sum()} compared; '
          f'corrected before {ca[sel].mean() if sel.any() else 0:.3f} now {cb[sel].mean() if sel.any() else 0:.3f}')
print('height change (m) at 1/10/50/90/99 %:', np.round(np.quantile(dh, [0.01, 0.1, 0.5, 0.9, 0.99]), 3))
print('previous distance (m) at 1/10/50/90/99 %:', np.round(np.quantile(A[ys, xs, DIST], [0.01, 0.1, 0.5, 0.9, 0.99]), 2))
seen = []
for k in range(len(xs)):
    if any(abs(xs[k] - a) < 20 and abs(ys[k] - b) < 20 for a, b in seen):
        continue
    seen.append((xs[k], ys[k]))
    a, b = A[ys[k], xs[k]], B[qj[k], qi[k]]
    print(f'\npop {M[ys[k], xs[k]]:.1f} px at ({xs[k]}, {ys[k]}) -> ({qx[k]:.1f}, {qy[k]:.1f}); '
          f'before: {a[DIST]:.3f} m L{a[LEVEL]:.0f} slot {a[SLOT]:.0f} walks {a[WALKS]:.0f}; '
          f'now: {b[DIST]:.3f} m (expected {e[k]:.3f}) L{b[LEVEL]:.0f} slot {b[SLOT]:.0f} walks {b[WALKS]:.0f}; '
          f'height change {dh[k]:+.3f} m')
    print('  previous eye, ray:', list(p0['eye']), list(r0[k]))
    print('  current eye, ray: ', list(p1['eye']), list(r1[k]))
    for name, F, x, y in (('previous', A, xs[k], ys[k]), ('current', B, qi[k], qj[k])):
        col = [(j, round(float(F[j, x, DIST]), 3), int(F[j, x, WALKS])) for j in range(max(0, y - 5), min(h, y + 6))]
        print(f'  {name} column (row, m, walks):', col)
    if len(seen) >= places:
        break
