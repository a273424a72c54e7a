// f64 tan, atan2, asin: the GPU mirror of engine/src/earth/fmath.rs, operation for operation
// (GLSL has no double-precision trigonometry). Every double is `precise`, so no compiler
// contracts a*b + c into an fma and the results are the CPU's IEEE results bit for bit.
// The constants are checked against the Rust ones by `fmath::tests`.
#ifndef F64MATH_GLSL
#define F64MATH_GLSL

const double F64_SIN[9] = double[](-0.16666666666666666lf, 0.008333333333333333lf, -0.0001984126984126984lf, 2.7557319223985893e-6lf, -2.505210838544172e-8lf, 1.6059043836821613e-10lf, -7.647163731819816e-13lf, 2.8114572543455206e-15lf, -8.22063524662433e-18lf);
const double F64_COS[9] = double[](0.041666666666666664lf, -0.001388888888888889lf, 2.48015873015873e-5lf, -2.755731922398589e-7lf, 2.08767569878681e-9lf, -1.1470745597729725e-11lf, 4.779477332387385e-14lf, -1.5619206968586225e-16lf, 4.110317623312165e-19lf);
const double F64_ATAN[16] = double[](-0.3333333333333333lf, 0.2lf, -0.14285714285714285lf, 0.1111111111111111lf, -0.09090909090909091lf, 0.07692307692307693lf, -0.06666666666666667lf, 0.058823529411764705lf, -0.05263157894736842lf, 0.047619047619047616lf, -0.043478260869565216lf, 0.04lf, -0.037037037037037035lf, 0.034482758620689655lf, -0.03225806451612903lf, 0.030303030303030304lf);
const double F64_TAN_PI_12 = 0.2679491924311227lf;
const double F64_SQRT_3 = 1.7320508075688772lf;
const double F64_PI_6 = 0.5235987755982989lf;
const double F64_PI_6_LO = -5.360408832255455e-17lf;
const double F64_PI_2 = 1.5707963267948966lf;
const double F64_PI_2_LO = 6.123233995736766e-17lf;
const double F64_PI = 3.141592653589793lf;
const double F64_PI_LO = 1.2246467991473532e-16lf;
const double F64_DEG_PER_RAD = 57.29577951308232lf;

double f64_sin_poly(double z) {
    precise double p = F64_SIN[8];
    for (int k = 7; k >= 0; k--) {
        p = p * z + F64_SIN[k];
    }
    return p;
}

double f64_cos_poly(double z) {
    precise double p = F64_COS[8];
    for (int k = 7; k >= 0; k--) {
        p = p * z + F64_COS[k];
    }
    return p;
}

double f64_atan_poly(double z) {
    precise double p = F64_ATAN[15];
    for (int k = 14; k >= 0; k--) {
        p = p * z + F64_ATAN[k];
    }
    return p;
}

// tan(x) for |x| <= π/4 (and a little beyond), as sin/cos.
double f64_tan(double x) {
    precise double z = x * x;
    precise double hs = f64_sin_poly(z);
    precise double hc = f64_cos_poly(z);
    precise double s = x + x * z * hs;
    precise double c = 1.0lf - (0.5lf * z - z * z * hc);
    precise double t = s / c;
    return t;
}

// atan(t) for 0 <= t <= 1.
double f64_atan01(double t) {
    bool shift = t > F64_TAN_PI_12;
    precise double s = t;
    if (shift) {
        s = (t * F64_SQRT_3 - 1.0lf) / (t + F64_SQRT_3);
    }
    precise double z = s * s;
    precise double h = f64_atan_poly(z);
    precise double p = s + s * z * h;
    if (shift) {
        p = F64_PI_6 + (F64_PI_6_LO + p);
    }
    return p;
}

double f64_atan2(double y, double x) {
    precise double ax = abs(x);
    precise double ay = abs(y);
    if (ax == 0.0lf && ay == 0.0lf) {
        return 0.0lf;
    }
    bool swap = ay > ax;
    precise double q = swap ? ax / ay : ay / ax;
    precise double r = f64_atan01(q);
    if (swap) {
        r = (F64_PI_2 - r) + F64_PI_2_LO;
    }
    if (x < 0.0lf) {
        r = (F64_PI - r) + F64_PI_LO;
    }
    if (y < 0.0lf) {
        r = -r;
    }
    return r;
}

double f64_asin(double z) {
    precise double c2 = (1.0lf - z) * (1.0lf + z);
    precise double c = sqrt(c2);
    return f64_atan2(z, c);
}

// Rust's f64::round: halves away from zero (GLSL's round() may go either way). x − trunc(x)
// is exact, so the comparison with 0.5 is.
double f64_round(double x) {
    precise double t = trunc(x);
    precise double f = abs(x - t);
    if (f >= 0.5lf) {
        t = t + sign(x);
    }
    return t;
}

#endif
