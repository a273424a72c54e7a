#version 460
// publish.resolve.shell: the pixels whose ray enters a prism of the conservative shell in front
// of its chord, handed over by publish.resolve, searched from the prism's face for their first
// crossing and published as publish.resolve.search would (common/resolve.glsl).
#define RESOLVE_SEARCHES
#define RESOLVE_SHELL_PASS
#include "common/resolve.glsl"
