/* stp_fp.c - IEEE 754 binary64 arithmetic on the bits of a long, in
 * integer instructions only (probe context may not touch the FPU), for
 * the fp_* functions of tapset/fp.stp.  Results are rounded to nearest,
 * ties to even, as the hardware does; a NaN operand gives that NaN
 * (quieted), an invalid operation the x86 default NaN.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/limits.h>
#define INT64_MIN	S64_MIN
#define INT64_MAX	S64_MAX
#else
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#endif

#define STP_FP_SIGN		((uint64_t)1 << 63)
#define STP_FP_QUIET		((uint64_t)1 << 51)
#define STP_FP_INF		((uint64_t)0x7ff << 52)
#define STP_FP_DEFAULT_NAN	(STP_FP_SIGN | STP_FP_INF | STP_FP_QUIET)
#define STP_FP_FRAC(x)		((x) & (((uint64_t)1 << 52) - 1))
#define STP_FP_EXP(x)		((int)(((x) >> 52) & 0x7ff))

enum { STP_FP_ZERO, STP_FP_FINITE, STP_FP_INFINITE, STP_FP_NAN };

/* A number unpacked: m (bit 63 set unless zero) times 2^(e - 63). */
struct stp_fp {
	int kind;
	bool neg;
	int e;
	uint64_t m;
};

static int stp_fp_clz(uint64_t x)
{
	return x ? __builtin_clzll(x) : 64;
}

static uint64_t stp_fp_shr_sticky(uint64_t m, int n)
{
	if (n <= 0)
		return m;
	if (n >= 64)
		return m != 0;
	return (m >> n) | ((m << (64 - n)) != 0);
}

static struct stp_fp stp_fp_unpack(uint64_t x)
{
	struct stp_fp f = { .neg = x >> 63 };
	int exp = STP_FP_EXP(x);
	uint64_t frac = STP_FP_FRAC(x);
	int n;

	if (exp == 0x7ff) {
		f.kind = frac ? STP_FP_NAN : STP_FP_INFINITE;
	} else if (exp == 0 && !frac) {
		f.kind = STP_FP_ZERO;
	} else if (exp == 0) {
		n = stp_fp_clz(frac);
		f.kind = STP_FP_FINITE;
		f.m = frac << n;
		f.e = -1011 - n;
	} else {
		f.kind = STP_FP_FINITE;
		f.m = (frac | ((uint64_t)1 << 52)) << 11;
		f.e = exp - 1023;
	}
	return f;
}

/* The double nearest to (-1)^neg * m * 2^(e - 63), m normalized; what
 * falls below the 53 bits kept is in m's low 11 bits (with a sticky
 * bit). */
static uint64_t stp_fp_pack(bool neg, int e, uint64_t m)
{
	uint64_t sign = neg ? STP_FP_SIGN : 0, mant, rest;
	int biased = e + 1023;

	if (!m)
		return sign;
	if (biased >= 0x7ff)
		return sign | STP_FP_INF;
	if (biased <= 0) {
		m = stp_fp_shr_sticky(m, 1 - biased);
		biased = 1;
	}
	mant = m >> 11;
	rest = m & 0x7ff;
	if (rest > 0x400 || (rest == 0x400 && (mant & 1)))
		mant++;
	/* A carry out of the 53 bits lands in the exponent, up to inf. */
	return sign | (((uint64_t)(biased - 1) << 52) + mant);
}

/* A normalizing pack for m that need not have bit 63 set. */
static uint64_t stp_fp_norm_pack(bool neg, int e, uint64_t m)
{
	int n = stp_fp_clz(m);

	if (n == 64)
		return neg ? STP_FP_SIGN : 0;
	return stp_fp_pack(neg, e - n, m << n);
}

static uint64_t stp_fp_nan2(uint64_t a, uint64_t b)
{
	if (stp_fp_unpack(a).kind == STP_FP_NAN)
		return a | STP_FP_QUIET;
	return b | STP_FP_QUIET;
}

static uint64_t _stp_fp_add(uint64_t a, uint64_t b)
{
	struct stp_fp x = stp_fp_unpack(a), y = stp_fp_unpack(b), t;
	uint64_t m;

	if (x.kind == STP_FP_NAN || y.kind == STP_FP_NAN)
		return stp_fp_nan2(a, b);
	if (x.kind == STP_FP_INFINITE && y.kind == STP_FP_INFINITE)
		return x.neg == y.neg ? a : STP_FP_DEFAULT_NAN;
	if (x.kind == STP_FP_INFINITE || y.kind == STP_FP_ZERO)
		return y.kind == STP_FP_ZERO && x.kind == STP_FP_ZERO ?
			(a & b & STP_FP_SIGN) : a;
	if (y.kind == STP_FP_INFINITE || x.kind == STP_FP_ZERO)
		return b;
	if (x.e < y.e || (x.e == y.e && x.m < y.m)) {
		t = x;
		x = y;
		y = t;
	}
	/* Two bits of headroom; the 11 low bits of both are zero. */
	x.m >>= 2;
	y.m = stp_fp_shr_sticky(y.m >> 2, x.e - y.e);
	m = x.neg == y.neg ? x.m + y.m : x.m - y.m;
	if (!m)
		return 0;
	return stp_fp_norm_pack(x.neg, x.e + 2, m);
}

static uint64_t _stp_fp_sub(uint64_t a, uint64_t b)
{
	if (stp_fp_unpack(b).kind == STP_FP_NAN)
		return stp_fp_nan2(a, b);
	return _stp_fp_add(a, b ^ STP_FP_SIGN);
}

static uint64_t _stp_fp_mul(uint64_t a, uint64_t b)
{
	struct stp_fp x = stp_fp_unpack(a), y = stp_fp_unpack(b);
	bool neg = x.neg != y.neg;
	unsigned __int128 p;
	uint64_t hi, lo;

	if (x.kind == STP_FP_NAN || y.kind == STP_FP_NAN)
		return stp_fp_nan2(a, b);
	if (x.kind == STP_FP_INFINITE || y.kind == STP_FP_INFINITE) {
		if (x.kind == STP_FP_ZERO || y.kind == STP_FP_ZERO)
			return STP_FP_DEFAULT_NAN;
		return (neg ? STP_FP_SIGN : 0) | STP_FP_INF;
	}
	if (x.kind == STP_FP_ZERO || y.kind == STP_FP_ZERO)
		return neg ? STP_FP_SIGN : 0;
	p = (unsigned __int128)x.m * y.m;
	hi = p >> 64;
	lo = (uint64_t)p;
	if (hi >> 63)
		return stp_fp_pack(neg, x.e + y.e + 1, hi | (lo != 0));
	return stp_fp_pack(neg, x.e + y.e,
			   (hi << 1) | (lo >> 63) | ((lo << 1) != 0));
}

/* The quotient of two normalized significands, 64 bits with a sticky
 * bit, normalized: a / b = q * 2^(*e - 63) with *e 0 or -1. */
static uint64_t stp_fp_divm(uint64_t a, uint64_t b, int *e)
{
	uint64_t r = a >> 1, d = b >> 1, q = 0;
	int i;

	*e = 0;
	if (r < d) {
		r <<= 1;
		*e = -1;
	}
	for (i = 0; i < 64; i++) {
		q <<= 1;
		if (r >= d) {
			r -= d;
			q |= 1;
		}
		r <<= 1;
	}
	return q | (r != 0);
}

static uint64_t _stp_fp_div(uint64_t a, uint64_t b)
{
	struct stp_fp x = stp_fp_unpack(a), y = stp_fp_unpack(b);
	bool neg = x.neg != y.neg;
	uint64_t sign = neg ? STP_FP_SIGN : 0, q;
	int e;

	if (x.kind == STP_FP_NAN || y.kind == STP_FP_NAN)
		return stp_fp_nan2(a, b);
	if (x.kind == y.kind &&
	    (x.kind == STP_FP_INFINITE || x.kind == STP_FP_ZERO))
		return STP_FP_DEFAULT_NAN;
	if (x.kind == STP_FP_INFINITE || y.kind == STP_FP_ZERO)
		return sign | STP_FP_INF;
	if (x.kind == STP_FP_ZERO || y.kind == STP_FP_INFINITE)
		return sign;
	q = stp_fp_divm(x.m, y.m, &e);
	return stp_fp_pack(neg, x.e - y.e + e, q);
}

static uint64_t _stp_fp_sqrt(uint64_t a)
{
	struct stp_fp x = stp_fp_unpack(a);
	unsigned __int128 n, res = 0, bit = (unsigned __int128)1 << 126;
	int k;

	if (x.kind == STP_FP_NAN)
		return a | STP_FP_QUIET;
	if (x.kind == STP_FP_ZERO)
		return a;
	if (x.neg)
		return STP_FP_DEFAULT_NAN;
	if (x.kind == STP_FP_INFINITE)
		return a;
	/* a = m * 2^k with k even; sqrt(m * 2^64) has 64 bits. */
	k = x.e - 63;
	if (k & 1) {
		x.m >>= 1;
		k++;
	}
	n = (unsigned __int128)x.m << 64;
	while (bit) {
		if (n >= res + bit) {
			n -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return stp_fp_pack(false, 63 + (k - 64) / 2, (uint64_t)res | (n != 0));
}

/* The IEEE remainder: a - n * b for the integer n nearest a / b (ties
 * to even); exact. */
static uint64_t _stp_fp_rem(uint64_t a, uint64_t b)
{
	struct stp_fp x = stp_fp_unpack(a), y = stp_fp_unpack(b);
	uint64_t r, d;
	bool odd = false, neg = x.neg;
	int steps;

	if (x.kind == STP_FP_NAN || y.kind == STP_FP_NAN)
		return stp_fp_nan2(a, b);
	if (x.kind == STP_FP_INFINITE || y.kind == STP_FP_ZERO)
		return STP_FP_DEFAULT_NAN;
	if (x.kind == STP_FP_ZERO || y.kind == STP_FP_INFINITE)
		return a;
	if (x.e < y.e - 1)
		return a;
	/* In units of 2^(y.e - 53): b is d, a is r * 2^steps. */
	d = y.m >> 10;
	r = x.m >> 11;
	for (steps = x.e - y.e + 1; steps > 0; steps--) {
		r <<= 1;
		odd = r >= d;
		if (odd)
			r -= d;
	}
	if (2 * r > d || (2 * r == d && odd)) {
		r = d - r;
		neg = !neg;
	}
	if (!r)
		return x.neg ? STP_FP_SIGN : 0;
	return stp_fp_norm_pack(neg, y.e - 53 + 63, r);
}

/* -1, 0 or 1, or 2 when unordered (a NaN); -0 equals +0. */
static int stp_fp_cmp(uint64_t a, uint64_t b)
{
	struct stp_fp x = stp_fp_unpack(a), y = stp_fp_unpack(b);
	uint64_t ma = a & ~STP_FP_SIGN, mb = b & ~STP_FP_SIGN;

	if (x.kind == STP_FP_NAN || y.kind == STP_FP_NAN)
		return 2;
	if (!ma && !mb)
		return 0;
	if (x.neg != y.neg)
		return x.neg ? -1 : 1;
	if (ma == mb)
		return 0;
	return (ma < mb) != x.neg ? -1 : 1;
}

static uint64_t _stp_fp_from_long(int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;

	return stp_fp_norm_pack(v < 0, 63, mag);
}

/* Rounding modes of fp_to_long, as numbered by SoftFloat. */
enum {
	STP_FP_NEAR_EVEN = 0, STP_FP_MIN_MAG = 1, STP_FP_MIN = 2,
	STP_FP_MAX = 3, STP_FP_NEAR_MAX_MAG = 4, STP_FP_ODD = 6,
};

/* The integer a rounds to in mode; INT64_MIN (x86's "integer
 * indefinite") for a NaN or a number out of range; -1 through
 * *err for an unknown mode. */
static int64_t _stp_fp_to_long(uint64_t a, int mode, int *err)
{
	struct stp_fp x = stp_fp_unpack(a);
	uint64_t i, f, half = (uint64_t)1 << 63;
	bool up;

	*err = 0;
	if (mode < 0 || mode > 6 || mode == 5) {
		*err = -1;
		return 0;
	}
	if (x.kind == STP_FP_ZERO)
		return 0;
	if (x.kind != STP_FP_FINITE || x.e >= 64)
		return INT64_MIN;
	if (x.e == 63) {
		i = x.m;
		f = 0;
	} else if (x.e >= 0) {
		i = x.m >> (63 - x.e);
		f = x.m << (x.e + 1);
	} else {
		i = 0;
		f = stp_fp_shr_sticky(x.m, -1 - x.e);
	}
	switch (mode) {
	case STP_FP_NEAR_EVEN:
		up = f > half || (f == half && (i & 1));
		break;
	case STP_FP_MIN_MAG:
		up = false;
		break;
	case STP_FP_MIN:
		up = x.neg && f;
		break;
	case STP_FP_MAX:
		up = !x.neg && f;
		break;
	case STP_FP_NEAR_MAX_MAG:
		up = f >= half;
		break;
	default:
		if (f)
			i |= 1;
		up = false;
		break;
	}
	if (up && ++i == 0)
		return INT64_MIN;
	if (i > (uint64_t)INT64_MAX + x.neg)
		return INT64_MIN;
	return x.neg ? (int64_t)(0 - i) : (int64_t)i;
}

static uint64_t _stp_fp_from_fp32(uint32_t v)
{
	bool neg = v >> 31;
	int exp = (v >> 23) & 0xff;
	uint64_t frac = v & 0x7fffff, sign = neg ? STP_FP_SIGN : 0;

	if (exp == 0xff)
		return sign | STP_FP_INF | (frac << 29) |
			(frac ? STP_FP_QUIET : 0);
	if (exp == 0)
		return stp_fp_norm_pack(neg, -126 - 23 + 63, frac);
	return stp_fp_pack(neg, exp - 127, (frac | (1 << 23)) << 40);
}

/* 10^k (k >= 0) to 64 bits, truncated with a sticky bit: m * 2^(*e -
 * 63).  Each product loses less than 2^-63 of its value, so that the
 * one rounding to 53 bits after it is almost always the right one. */
static uint64_t stp_fp_pow10(int k, int *e)
{
	uint64_t m = (uint64_t)1 << 63, b = (uint64_t)10 << 60, hi, lo;
	int be = 3, n;
	unsigned __int128 p;

	*e = 0;
	for (; k; k >>= 1) {
		if (k & 1) {
			p = (unsigned __int128)m * b;
			hi = p >> 64;
			lo = (uint64_t)p;
			n = !(hi >> 63);
			m = (hi << n) | (n ? lo >> 63 : 0) | ((lo << n) != 0);
			*e += be + 1 - n;
		}
		p = (unsigned __int128)b * b;
		hi = p >> 64;
		lo = (uint64_t)p;
		n = !(hi >> 63);
		b = (hi << n) | (n ? lo >> 63 : 0) | ((lo << n) != 0);
		be += be + 1 - n;
	}
	return m;
}

/* The decimal number s ([+-]digits[.digits][(e|E)[+-]digits]) as a
 * double, rounded once from 64 bits: the nearest double but for a
 * number within 2^-60 of its value from a tie; digits after the 19th
 * are dropped.  -1 through *err when s is not such a number. */
static uint64_t _stp_fp_from_string(const char *s, int *err)
{
	bool neg = false, digits = false, eneg = false;
	uint64_t m = 0, v, p;
	long e10 = 0, ex = 0;
	int n, pe, qe;

	*err = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++, digits = true) {
		if (m < 1000000000000000000ULL)
			m = m * 10 + (*s - '0');
		else
			e10++;
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits = true)
			if (m < 1000000000000000000ULL) {
				m = m * 10 + (*s - '0');
				e10--;
			}
	if (digits && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '-' || *s == '+')
			eneg = *s++ == '-';
		if (*s < '0' || *s > '9')
			digits = false;
		for (; *s >= '0' && *s <= '9'; s++)
			if (ex < 100000)
				ex = ex * 10 + (*s - '0');
		e10 += eneg ? -ex : ex;
	}
	if (!digits || *s) {
		*err = -1;
		return 0;
	}
	if (!m)
		return neg ? STP_FP_SIGN : 0;
	if (e10 > 400)
		return (neg ? STP_FP_SIGN : 0) | STP_FP_INF;
	if (e10 < -400)
		return neg ? STP_FP_SIGN : 0;
	/* m * 10^e10 with one rounding: m normalized, then a 64-bit
	 * product or quotient with 10^|e10|. */
	n = stp_fp_clz(m);
	m <<= n;
	p = stp_fp_pow10(e10 < 0 ? -e10 : e10, &pe);
	if (e10 >= 0) {
		unsigned __int128 pr = (unsigned __int128)m * p;
		uint64_t hi = pr >> 64, lo = (uint64_t)pr;
		int sh = !(hi >> 63);

		v = (hi << sh) | (sh ? lo >> 63 : 0) | ((lo << sh) != 0);
		return stp_fp_pack(neg, 63 - n + pe + 1 - sh, v);
	}
	v = stp_fp_divm(m, p, &qe);
	return stp_fp_pack(neg, 63 - n - pe + qe, v);
}

/* Big unsigned numbers for the exact decimal digits of a double. */
#define STP_FP_LIMBS	36		/* 1152 bits */

struct stp_fp_big {
	uint32_t w[STP_FP_LIMBS];	/* least significant first */
};

static bool stp_fp_big_zero(const struct stp_fp_big *b)
{
	int i;

	for (i = 0; i < STP_FP_LIMBS; i++)
		if (b->w[i])
			return false;
	return true;
}

/* b /= 10^9; the remainder. */
static uint32_t stp_fp_big_div1e9(struct stp_fp_big *b)
{
	uint64_t r = 0;
	int i;

	for (i = STP_FP_LIMBS - 1; i >= 0; i--) {
		r = (r << 32) | b->w[i];
		b->w[i] = (uint32_t)(r / 1000000000);
		r %= 1000000000;
	}
	return (uint32_t)r;
}

static void stp_fp_big_mul10(struct stp_fp_big *b)
{
	uint64_t c = 0;
	int i;

	for (i = 0; i < STP_FP_LIMBS; i++) {
		c += (uint64_t)b->w[i] * 10;
		b->w[i] = (uint32_t)c;
		c >>= 32;
	}
}

/* m << sh into b (sh + 64 bits fit). */
static void stp_fp_big_set(struct stp_fp_big *b, uint64_t m, int sh)
{
	int i = sh / 32, r = sh % 32;

	memset(b, 0, sizeof(*b));
	if (!r) {
		b->w[i] = (uint32_t)m;
		b->w[i + 1] = (uint32_t)(m >> 32);
	} else {
		b->w[i] = (uint32_t)(m << r);
		b->w[i + 1] = (uint32_t)(m >> (32 - r));
		b->w[i + 2] = (uint32_t)(m >> (64 - r));
	}
}

/* Take the bits of b at and above bit s (a digit, after a *10). */
static unsigned int stp_fp_big_take(struct stp_fp_big *b, int s)
{
	int i = s / 32, r = s % 32;
	uint64_t v = b->w[i] | ((uint64_t)b->w[i + 1] << 32);
	unsigned int d = (unsigned int)(v >> r) & 0xf;

	b->w[i] &= r ? ((uint32_t)1 << r) - 1 : 0;
	b->w[i + 1] = 0;
	return d;
}

/* At most this many digits are made: 309 of an integer part, one to
 * round and 500 after the point (more would not fit a string). */
#define STP_FP_MAX_DIGITS	810

/* a as text: [-]int[.frac] with prec digits after the point, rounded
 * half away from zero on the exact value; a number of 1e18 or more is
 * written as its first 18 integer digits, the point, and eN for the
 * N digits it moved; Infinity, -Infinity, NaN. */
static void _stp_fp_to_string(char *out, size_t size, uint64_t a, long prec)
{
	struct stp_fp x = stp_fp_unpack(a);
	static const int maxd = STP_FP_MAX_DIGITS;
	char dig[STP_FP_MAX_DIGITS + 2];
	struct stp_fp_big b;
	uint64_t m = 0;
	int k = 0, nint = 0, n, i, e10 = 0, pos;
	char tmp[16];

	if (!size)
		return;
	if (x.kind == STP_FP_NAN || x.kind == STP_FP_INFINITE) {
		snprintf(out, size, "%s", x.kind == STP_FP_NAN ? "NaN" :
			 x.neg ? "-Infinity" : "Infinity");
		return;
	}
	if (prec < 0)
		prec = 0;
	if (prec > maxd - 310)
		prec = maxd - 310;
	/* The value is m * 2^k, with -k at most 1074. */
	if (STP_FP_EXP(a)) {
		m = STP_FP_FRAC(a) | ((uint64_t)1 << 52);
		k = STP_FP_EXP(a) - 1075;
	} else {
		m = STP_FP_FRAC(a);
		k = -1074;
	}
	/* The integer part's digits, most significant first. */
	if (k >= 0)
		stp_fp_big_set(&b, m, k);
	else
		stp_fp_big_set(&b, -k < 64 ? m >> -k : 0, 0);
	do {
		unsigned int g = stp_fp_big_div1e9(&b);

		for (i = 0; i < 9 && (g || !stp_fp_big_zero(&b) || !i); i++) {
			tmp[i] = '0' + g % 10;
			g /= 10;
		}
		/* Groups below the top one keep their leading zeros. */
		if (!stp_fp_big_zero(&b))
			for (; i < 9; i++)
				tmp[i] = '0';
		memmove(dig + i, dig, nint);
		for (n = 0; n < i; n++)
			dig[n] = tmp[i - 1 - n];
		nint += i;
	} while (!stp_fp_big_zero(&b));
	if (nint > 18)
		e10 = nint - 18;
	/* The fraction's digits: prec + 1 after the point, one to round. */
	n = nint;
	if (k < 0 && -k < 64)
		stp_fp_big_set(&b, m & (((uint64_t)1 << -k) - 1), 0);
	else if (k < 0)
		stp_fp_big_set(&b, m, 0);
	while (n < nint - e10 + prec + 1) {
		if (k < 0) {
			stp_fp_big_mul10(&b);
			dig[n++] = '0' + stp_fp_big_take(&b, -k);
		} else {
			dig[n++] = '0';
		}
	}
	/* Round at the last digit kept, carrying up. */
	pos = nint - e10 + prec;
	if (dig[pos] >= '5') {
		for (i = pos - 1; i >= 0 && dig[i] == '9'; i--)
			dig[i] = '0';
		if (i >= 0) {
			dig[i]++;
		} else {
			memmove(dig + 1, dig, pos);
			dig[0] = '1';
			pos++;
			nint++;
		}
	}
	snprintf(out, size, "%s%.*s%s%.*s", x.neg ? "-" : "",
		 nint - e10, dig, prec ? "." : "", (int)prec,
		 dig + nint - e10);
	if (e10) {
		n = strlen(out);
		snprintf(out + n, size - n, "e%d", e10);
	}
}
