#version 460
// raster.compute: the compute rasteriser. One thread per drawn leaf: small triangles (the CBT
// keeps edges ≤ 24–48 px) are rasterised here straight into the 64-bit visibility buffer with
// atomicMin — the same buffer and key raster.hardware writes — since fixed-function raster is
// the scarce resource on a big GPU (H200: ~0.36 Gtri/s at 4 px², while compute atomics run at
// 40–140 G/s). Triangles crossing the near plane or with a large footprint are handed over:
// to the hardware raster (raster.hardware, an indirect draw; push mode 0) or to the tiled
// compute path (raster.compute.big, one workgroup per screen tile; push mode 1).
// Coverage, depth and key: common/raster.glsl.
#include "common/raster_small.glsl"
