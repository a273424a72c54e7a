#version 460
// publish.resolve.handover: publish.resolve that hands the rays entering a prism in front of
// their chord (the conservative shell on) to publish.resolve.shell (common/resolve.glsl). Only
// where the shell's hand-over is on: its code costs the plain resolve registers and time even
// when it hands nothing over.
#define RESOLVE_SHELL_HANDOVER
#include "common/resolve.glsl"
