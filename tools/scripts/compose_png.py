"""Lays PNG images (8-bit RGB/RGBA, one size) side by side on a grid: compose_png.py OUT COLUMNS IN...

Pure Python (zlib only), so the contact sheet needs nothing beyond Debian's python3."""
import zlib, struct, sys
def read_png(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, w = 8, b'', None
    while pos < len(data):
        n, = struct.unpack('>I', data[pos:pos+4]); t = data[pos+4:pos+8]; c = data[pos+8:pos+8+n]; pos += 12 + n
        if t == b'IHDR':
            w, h, depth, ctype, _, _, inter = struct.unpack('>IIBBBBB', c)
            assert depth == 8 and inter == 0 and ctype in (2, 6), (depth, ctype, inter)
            bpp = 3 if ctype == 2 else 4
        elif t == b'IDAT': idat += c
    raw = zlib.decompress(idat); stride = w * bpp; rows = []; prev = bytearray(stride); i = 0
    for y in range(h):
        f = raw[i]; line = bytearray(raw[i+1:i+1+stride]); i += 1 + stride
        for x in range(stride):
            a = line[x-bpp] if x >= bpp else 0; b = prev[x]; cc = prev[x-bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - cc; pa, pb, pc = abs(p-a), abs(p-b), abs(p-cc)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line[k] for k in range(stride) if bpp == 3 or k % 4 != 3)); prev = line
    return w, h, rows
def write_png(path, w, h, rows):
    raw = b''.join(b'\x00' + r for r in rows)
    def chunk(t, c): return struct.pack('>I', len(c)) + t + c + struct.pack('>I', zlib.crc32(t + c) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
out, cols, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
imgs = [read_png(f) for f in files]; w, h = imgs[0][0], imgs[0][1]; gap = 4
nrows = (len(imgs) + cols - 1) // cols
W, H = cols * w + (cols + 1) * gap, nrows * h + (nrows + 1) * gap
canvas = [bytearray(b'\x20' * (3 * W)) for _ in range(H)]
for k, (iw, ih, rows) in enumerate(imgs):
    assert (iw, ih) == (w, h)
    ox, oy = gap + (k % cols) * (w + gap), gap + (k // cols) * (h + gap)
    for y in range(h): canvas[oy + y][3*ox:3*(ox+w)] = rows[y]
write_png(out, W, H, [bytes(r) for r in canvas])
print(out, W, H)
