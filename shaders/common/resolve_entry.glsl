// The entry search the resolve's searches share (common/resolve_search.glsl): included by
// common/resolve.glsl after `ray_point`.
#ifndef RESOLVE_ENTRY_GLSL
#define RESOLVE_ENTRY_GLSL

// The ray's entry into the surface between a (over it) and b (under it): regula falsi
// (Illinois), up to `steps` steps, until |f| is within the tolerance; the point of smallest |f|
// met. With `bisect` (one piece of the first-crossing search) it bisects where a step did not
// halve the bracket (at a crest's or a step's edge f is nearly flat on one side and regula
// falsi creeps along it), and stops at the bracket's near end where the bracket closes first.
RayPoint entry_between(vec3 d, uint start, RayPoint a, RayPoint b, int steps, bool bisect) {
    float fa = a.f, fb = b.f;
    RayPoint best = -b.f < a.f ? b : a;
    int side = 0;
    float width = 2.0 * (b.t - a.t);   // the bracket's width before the last step
    for (int it = 0; it < steps; ++it) {
        float tc = (a.t * fb - b.t * fa) / (fb - fa);
        if (bisect && b.t - a.t > 0.5 * width) tc = 0.5 * (a.t + b.t);
        width = b.t - a.t;
        RayPoint c = ray_point(d, tc, start);
        if (abs(c.f) < abs(best.f)) best = c;
        float tol = 1e-3 * max(1.0, 1e-4 * tc);
        if (abs(c.f) < tol) return c;
        if (c.f > 0.0) {
            a = c; fa = c.f;
            if (side == 1) fb *= 0.5;
            side = 1;
        } else {
            b = c; fb = c.f;
            if (side == -1) fa *= 0.5;
            side = -1;
        }
        if (bisect && b.t - a.t < tol) return a;
    }
    return best;
}

#endif
