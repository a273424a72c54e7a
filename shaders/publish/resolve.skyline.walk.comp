#version 460
// publish.resolve.skyline.walk: publish.resolve.skyline with the outlines (the pixels behind a
// nearer chord handed over too), walking up each crest it meets (common/resolve_skyline.glsl).
#define RESOLVE_SKYLINE_PASS
#define RESOLVE_SKYLINE_WALK
#include "common/resolve.glsl"
