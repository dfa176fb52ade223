/* test-rt-fp.c - unit tests for runtime/stp_fp.c: every operation is
 * checked against the host's own IEEE 754 doubles (SSE2, round to
 * nearest even) over special values and random bit patterns, and the
 * decimal conversions against glibc's printf and strtod.
 */
#include "stp_fp.c"

#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static double dbl(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static const double specials[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 0.1, -0.1, 1e300, -1e300,
	1e-300, 4.9e-324, -4.9e-324, 2.2250738585072014e-308,
	2.2250738585072009e-308, 1.7976931348623157e308, INFINITY,
	-INFINITY, NAN, 9007199254740993.0, 9007199254740992.0, 1e18,
	123456.789, 3.14, 2.5, -2.5, 0.49999999999999994,
};

/* A random double: any bit pattern, or one of a modest exponent so
 * that sums and differences of neighbours are common. */
static uint64_t rnd_fp(void)
{
	uint64_t r = rnd();
	unsigned int n = sizeof(specials) / sizeof(specials[0]);

	switch (r % 4) {
	case 0:
		return bits(specials[(r >> 8) % n]);
	case 1:
		return rnd();
	default:
		return (rnd() & 0x800fffffffffffffULL) |
			((uint64_t)(1023 - 30 + (r >> 8) % 60) << 52);
	}
}

/* Equal bits, or both NaN (the payload of a NaN result is not checked). */
static bool same(uint64_t got, double want)
{
	if (isnan(want))
		return isnan(dbl(got));
	return got == bits(want);
}

static void test_arith(void)
{
	int i, bad[6] = { 0 };
	const char *names[6] = { "add", "sub", "mul", "div", "sqrt", "rem" };

	for (i = 0; i < 2000000; i++) {
		uint64_t a = rnd_fp(), b = rnd_fp();
		volatile double x = dbl(a), y = dbl(b);
		uint64_t got[6] = {
			_stp_fp_add(a, b), _stp_fp_sub(a, b),
			_stp_fp_mul(a, b), _stp_fp_div(a, b),
			_stp_fp_sqrt(a), _stp_fp_rem(a, b),
		};
		double want[6] = { x + y, x - y, x * y, x / y, sqrt(x),
				   remainder(x, y) };
		int k;

		/* A zero remainder has the sign of x (IEEE 754 5.3.1),
		 * which the host's remainder() does not always give. */
		if (want[5] == 0 && !isnan(x))
			want[5] = signbit(x) ? -0.0 : 0.0;
		for (k = 0; k < 6; k++)
			if (!same(got[k], want[k]) && bad[k]++ < 3)
				tap_diag("%s(%a, %a): got %a, want %a",
					 names[k], x, y, dbl(got[k]), want[k]);
	}
	for (i = 0; i < 6; i++)
		tap_ok(!bad[i], "%s: 2000000 random operands as the FPU "
		       "(%d differ)", names[i], bad[i]);
}

static void test_compare(void)
{
	int i, bad = 0;

	for (i = 0; i < 1000000; i++) {
		uint64_t a = rnd_fp(), b = i & 1 ? rnd_fp() : a ^ (rnd() & 3);
		double x = dbl(a), y = dbl(b);
		int c = stp_fp_cmp(a, b);

		if ((c == -1) != (x < y) || (c == 0) != (x == y) ||
		    (c == 2) != (isnan(x) || isnan(y))) {
			if (bad++ < 3)
				tap_diag("cmp(%a, %a) = %d", x, y, c);
		}
	}
	tap_ok(!bad, "compare: 1000000 pairs as the FPU (%d differ)", bad);
}

static void test_convert(void)
{
	int i, bad = 0, badmode = 0, bad32 = 0, err;

	for (i = 0; i < 1000000; i++) {
		int64_t v = (int64_t)(rnd() >> (rnd() % 64));
		uint64_t a = i & 1 ? bits((double)v) : rnd_fp();
		double x = dbl(a);
		uint32_t f = (uint32_t)rnd();
		float fl;

		if (i & 2)
			v = -v;
		if (_stp_fp_from_long(v) != bits((double)v) && bad++ < 3)
			tap_diag("from_long(%lld)", (long long)v);
		if (!isnan(x) && fabs(x) < 9.2e18) {
			int64_t want[5] = { llrint(x), (int64_t)x,
					    (int64_t)floor(x),
					    (int64_t)ceil(x),
					    (int64_t)round(x) };
			int m;

			for (m = 0; m < 5; m++)
				if (_stp_fp_to_long(a, m, &err) != want[m] &&
				    badmode++ < 3)
					tap_diag("to_long(%a, %d)", x, m);
		}
		memcpy(&fl, &f, sizeof(fl));
		if (!same(_stp_fp_from_fp32(f), (double)fl) && bad32++ < 3)
			tap_diag("from_fp32(%#x)", f);
	}
	tap_ok(!bad, "long_to_fp: 1000000 numbers (%d differ)", bad);
	tap_ok(!badmode, "fp_to_long: modes 0-4 as llrint, trunc, floor, "
	       "ceil, round (%d differ)", badmode);
	tap_ok(!bad32, "fp32_to_fp64: 1000000 patterns (%d differ)", bad32);
	tap_int_eq(_stp_fp_to_long(bits(2.5), 6, &err), 3, "odd: 2.5 is 3");
	tap_int_eq(_stp_fp_to_long(bits(-3.0), 6, &err), -3, "odd: -3 is -3");
	tap_int_eq(_stp_fp_to_long(bits(NAN), 0, &err), INT64_MIN,
		   "a NaN is INT64_MIN");
	tap_int_eq(_stp_fp_to_long(bits(1e19), 0, &err), INT64_MIN,
		   "1e19 is INT64_MIN");
	tap_int_eq(_stp_fp_to_long(bits(-9223372036854775808.0), 0, &err),
		   INT64_MIN, "-2^63 is INT64_MIN");
	_stp_fp_to_long(0, 5, &err);
	tap_ok(err, "rounding mode 5 is an error");
}

/* glibc's %.*f, unless the exact value is a tie at that precision
 * (we round ties away from zero, glibc to even): then NULL. */
static const char *printf_ref(double x, int prec, char *buf, size_t n)
{
	static char full[2000];
	const char *p;

	snprintf(full, sizeof(full), "%.*f", prec + 1100, x);
	p = strchr(full, '.') + 1 + prec;
	if (*p == '5' && strspn(p + 1, "0") == strlen(p + 1))
		return NULL;
	snprintf(buf, n, "%.*f", prec, x);
	return buf;
}

static void test_to_string(void)
{
	static const struct {
		double x;
		int prec;
		const char *want;
	} t[] = {
		{ 3.14, 5, "3.14000" }, { 2, 5, "2.00000" },
		{ 0.5, 0, "1" }, { 2.5, 0, "3" }, { -2.5, 0, "-3" },
		{ 0.125, 2, "0.13" }, { 9.9999, 2, "10.00" },
		{ -0.0, 2, "-0.00" }, { 1e18, 2, "100000000000000000.00e1" },
		{ 1.5e20, 1, "150000000000000000.0e3" },
		{ 123456789012345678901234.0, 0, "123456789012345686e6" },
		{ INFINITY, 3, "Infinity" }, { -INFINITY, 3, "-Infinity" },
		{ NAN, 3, "NaN" }, { 4.9e-324, 3, "0.000" }, { 1, -4, "1" },
	};
	char got[600], ref[600];
	unsigned int i;
	int bad = 0;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		_stp_fp_to_string(got, sizeof(got), bits(t[i].x), t[i].prec);
		tap_str_eq(got, t[i].want, "fp_to_string(%g, %d)", t[i].x,
			   t[i].prec);
	}
	for (i = 0; i < 200000; i++) {
		uint64_t a = rnd_fp();
		double x = dbl(a);
		int prec = rnd() % 25;
		const char *want;

		if (isnan(x) || isinf(x) || fabs(x) >= 1e18)
			continue;
		want = printf_ref(x, prec, ref, sizeof(ref));
		_stp_fp_to_string(got, sizeof(got), a, prec);
		if (want && strcmp(got, want) && bad++ < 3)
			tap_diag("%a %d: got %s, want %s", x, prec, got, want);
	}
	tap_ok(!bad, "fp_to_string: 200000 numbers as printf %%.*f, but for "
	       "ties (%d differ)", bad);
	_stp_fp_to_string(got, sizeof(got), bits(4.9e-324), 500);
	tap_ok(strlen(got) == 502 && !strncmp(got + 325, "49406564", 8),
	       "the smallest subnormal to 500 places");
}

static void test_from_string(void)
{
	static const char *const badv[] = { "", "-", ".", "1x", "e5", "1e",
					    "1e+", "--1", "1.2.3", " 1" };
	int i, bad = 0, far = 0, err;
	char s[64];

	tap_ok(_stp_fp_from_string("3.14", &err) == bits(3.14) && !err,
	       "3.14");
	tap_ok(_stp_fp_from_string("-2.5e-3", &err) == bits(-2.5e-3),
	       "-2.5e-3");
	tap_ok(_stp_fp_from_string("+7", &err) == bits(7.0), "+7");
	tap_ok(_stp_fp_from_string("-0", &err) == bits(-0.0), "-0");
	tap_ok(_stp_fp_from_string("1e400", &err) == bits(INFINITY),
	       "1e400 is inf");
	tap_ok(_stp_fp_from_string(".5", &err) == bits(0.5), ".5");
	tap_ok(_stp_fp_from_string("5.", &err) == bits(5.0), "5.");
	for (i = 0; i < (int)(sizeof(badv) / sizeof(badv[0])); i++) {
		_stp_fp_from_string(badv[i], &err);
		tap_ok(err, "\"%s\" is an invalid number", badv[i]);
	}
	for (i = 0; i < 300000; i++) {
		uint64_t m = rnd() % 1000000000000000ULL;
		int e = (int)(rnd() % 45) - 22, wide = (int)(rnd() % 600) - 300;
		uint64_t got;
		double want;

		snprintf(s, sizeof(s), "%llue%d", (unsigned long long)m, e);
		got = _stp_fp_from_string(s, &err);
		if (got != bits(strtod(s, NULL)) && bad++ < 3)
			tap_diag("%s: got %a", s, dbl(got));
		snprintf(s, sizeof(s), "%llu.%llue%d",
			 (unsigned long long)(rnd() % 100),
			 (unsigned long long)rnd(), wide);
		got = _stp_fp_from_string(s, &err);
		want = strtod(s, NULL);
		if (want != 0 && isfinite(want) && fabs(want) > 1e-300 &&
		    llabs((long long)(got - bits(want))) > 1 && far++ < 3)
			tap_diag("%s: got %a, want %a", s, dbl(got), want);
	}
	tap_ok(!bad, "string_to_fp: 15 digits, exponents within 22, exact "
	       "(%d differ)", bad);
	tap_ok(!far, "string_to_fp: 21 digits (19 kept), exponents within 300, "
	       "within one unit in the last place (%d differ)", far);
}

int main(void)
{
	test_arith();
	test_compare();
	test_convert();
	test_to_string();
	test_from_string();
	return tap_done();
}
