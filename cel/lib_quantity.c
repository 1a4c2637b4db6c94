/* Kubernetes' quantity library (k8s.io/apiserver pkg/cel/library/quantity.go): quantity(),
 * isQuantity, sign, compareTo, isGreaterThan, isLessThan, add, sub, asInteger, isInteger,
 * asApproximateFloat, over apimachinery's resource.Quantity semantics.
 *
 * A resource.Quantity is one of two representations, and the library's results depend on which
 * one a value has: an int64Amount (value * 10^scale, scale >= -9 after parsing) or an inf.Dec
 * (an arbitrary-precision unscaled integer * 10^-scale). asInteger / isInteger succeed only for
 * an int64Amount with scale >= 0 whose value fits (so quantity("1.000").isInteger() is false and
 * quantity("1Ei").isInteger() is false, as upstream), and asApproximateFloat multiplies the
 * representation's unscaled part by a power of ten. So this file keeps the same two
 * representations, chosen by the same rules (ParseQuantity's fast path, int64Amount.Add's
 * overflow fall-back to inf.Dec), and compares values exactly whatever their representation.
 *
 * Difference: inf.Dec grows without bound (quantity("12345678901234567890e2000000000") makes Go
 * allocate 10^2000000000); here an inf.Dec is limited to QBIG_CAP 32-bit limbs (about 2,400
 * decimal digits) and a value that would exceed it is the error "quantity exceeds the
 * supported precision". Values of any realistic size, including the library tests' 37-digit
 * giga quantities, are exact. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"

#define QBIG_CAP 256  /* limbs a quantity may hold */
#define QBIG_TMP 600  /* limbs of a temporary (an aligned comparison of two capped values) */

static const char err_format[] =
	"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
static const char err_numeric[] = "unable to parse numeric part of quantity";
static const char err_suffix[] = "unable to parse quantity's suffix";
static const char err_precision[] = "quantity exceeds the supported precision";

/* ---- unsigned big integers (little-endian 32-bit limbs, no leading zero limbs) ---- */

struct big {
	uint32_t n;
	uint32_t l[QBIG_TMP];
};

static void big_set_u64(struct big *b, uint64_t v)
{
	b->n = 0;
	while (v) {
		b->l[b->n++] = (uint32_t)v;
		v >>= 32;
	}
}

static bool big_mul_add_small(struct big *b, uint32_t m, uint32_t add, uint32_t cap)
{
	uint64_t carry = add;
	for (uint32_t i = 0; i < b->n; i++) {
		uint64_t t = (uint64_t)b->l[i] * m + carry;
		b->l[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry) {
		if (b->n >= cap)
			return false;
		b->l[b->n++] = (uint32_t)carry;
	}
	return true;
}

static bool big_mul_pow10(struct big *b, uint64_t k, uint32_t cap)
{
	if (b->n == 0)
		return true;
	while (k >= 9) {
		if (!big_mul_add_small(b, 1000000000u, 0, cap))
			return false;
		k -= 9;
	}
	static const uint32_t p10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };
	return k == 0 || big_mul_add_small(b, p10[k], 0, cap);
}

static bool big_shl(struct big *b, unsigned k, uint32_t cap)
{
	while (k > 0) {
		unsigned s = k > 31 ? 31 : k;
		if (!big_mul_add_small(b, 1u << s, 0, cap))
			return false;
		k -= s;
	}
	return true;
}

/* b /= d, returns the remainder. */
static uint32_t big_div_small(struct big *b, uint32_t d)
{
	uint64_t r = 0;
	for (uint32_t i = b->n; i-- > 0;) {
		uint64_t t = (r << 32) | b->l[i];
		b->l[i] = (uint32_t)(t / d);
		r = t % d;
	}
	while (b->n && b->l[b->n - 1] == 0)
		b->n--;
	return (uint32_t)r;
}

static int big_cmp(const struct big *a, const struct big *b)
{
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (uint32_t i = a->n; i-- > 0;)
		if (a->l[i] != b->l[i])
			return a->l[i] < b->l[i] ? -1 : 1;
	return 0;
}

static bool big_add(struct big *a, const struct big *b, uint32_t cap)
{
	uint64_t carry = 0;
	uint32_t n = a->n > b->n ? a->n : b->n;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t t = carry + (i < a->n ? a->l[i] : 0) + (i < b->n ? b->l[i] : 0);
		a->l[i] = (uint32_t)t;
		carry = t >> 32;
	}
	a->n = n;
	if (carry) {
		if (n >= cap)
			return false;
		a->l[a->n++] = 1;
	}
	return true;
}

/* a -= b, a >= b. */
static void big_sub(struct big *a, const struct big *b)
{
	int64_t borrow = 0;
	for (uint32_t i = 0; i < a->n; i++) {
		int64_t t = (int64_t)a->l[i] - (i < b->n ? b->l[i] : 0) - borrow;
		borrow = t < 0;
		a->l[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
	}
	while (a->n && a->l[a->n - 1] == 0)
		a->n--;
}

static unsigned big_bits(const struct big *b)
{
	if (b->n == 0)
		return 0;
	return (b->n - 1) * 32 + (32 - (unsigned)__builtin_clz(b->l[b->n - 1]));
}

/* The top 64 bits of b (b >> shift) with a sticky low bit for the bits shifted out. */
static uint64_t big_top64(const struct big *b, unsigned *shift)
{
	unsigned bits = big_bits(b);
	unsigned sh = bits > 64 ? bits - 64 : 0;
	uint32_t i = sh / 32, off = sh % 32;
	uint64_t v = 0;
	for (uint32_t k = 0; k < 3 && i + k < b->n; k++) {
		int s = (int)(k * 32) - (int)off;
		uint64_t limb = b->l[i + k];
		v |= s >= 0 ? (s < 64 ? limb << s : 0) : limb >> -s;
	}
	bool sticky = off && (b->l[i] & ((1u << off) - 1));
	for (uint32_t k = 0; k < i && !sticky; k++)
		sticky = b->l[k] != 0;
	*shift = sh;
	return v | (sticky ? 1 : 0);
}

/* Correctly rounded (nearest even) as big.Float's Float64. */
static double big_to_double(const struct big *b)
{
	unsigned shift;
	uint64_t v = big_top64(b, &shift);
	if (shift == 0)
		return (double)v;
	/* v has 64 significant bits and a sticky bit 0: rounding it to 53 bits in one conversion
	 * rounds as the full value would. */
	return ldexp((double)v, (int)shift);
}

/* log10 of b (b > 0), accurate to ~1e-12 relative: only used to order far-apart magnitudes. */
static double big_log10(const struct big *b)
{
	unsigned shift;
	uint64_t v = big_top64(b, &shift);
	return log10((double)v) + shift * 0.30102999566398119521;
}

/* ---- the quantity value ---- */

/* A working value (stack): int64Amount {ival, iscale} or inf.Dec {neg, mag, dscale}. */
struct qv {
	bool dec;
	int64_t ival;
	int64_t iscale;
	bool neg;
	int64_t dscale; /* value = mag * 10^-dscale */
	struct big mag;
};

struct qty {
	struct cel_object hdr;
	bool dec;
	bool neg;
	int64_t ival;
	int64_t iscale;
	int64_t dscale;
	uint32_t n;
	uint32_t limbs[];
};

static bool q_equal(const struct cel_object *a, const struct cel_object *b);
static int q_compare(const struct cel_object *a, const struct cel_object *b);
static size_t q_format(const struct cel_object *o, char *buf, size_t cap);

/* No ordering vtable: apiserver's Quantity has no < (compareTo and friends are functions). */
static const struct cel_object_type quantity_type = {
	{ "kubernetes.Quantity", CEL_OBJECT }, q_equal, NULL, q_format,
};

static void qv_load(struct qv *v, const struct cel_object *o)
{
	const struct qty *q = (const struct qty *)o;
	v->dec = q->dec;
	v->ival = q->ival;
	v->iscale = q->iscale;
	v->neg = q->neg;
	v->dscale = q->dscale;
	v->mag.n = q->n;
	memcpy(v->mag.l, q->limbs, q->n * sizeof(uint32_t));
}

static int qv_store(struct cel_eval *ev, const struct qv *v, cel_value *out)
{
	uint32_t n = v->dec ? v->mag.n : 0;
	struct qty *q = cel_alloc(ev, sizeof(*q) + n * sizeof(uint32_t));
	if (!q)
		return CEL_NOMEM;
	q->hdr.type = &quantity_type;
	q->dec = v->dec;
	q->ival = v->ival;
	q->iscale = v->iscale;
	q->neg = v->dec && v->neg && v->mag.n > 0;
	q->dscale = v->dscale;
	q->n = n;
	memcpy(q->limbs, v->mag.l, n * sizeof(uint32_t));
	*out = cel_object_value(&q->hdr);
	return 0;
}

/* The value as sign, magnitude and exponent: (-1)^neg * mag * 10^exp. */
static void qv_exact(const struct qv *v, bool *neg, struct big *mag, int64_t *exp)
{
	if (v->dec) {
		*neg = v->neg && v->mag.n > 0;
		mag->n = v->mag.n;
		memcpy(mag->l, v->mag.l, v->mag.n * sizeof(uint32_t));
		*exp = -v->dscale;
	} else {
		*neg = v->ival < 0;
		big_set_u64(mag, v->ival < 0 ? (uint64_t)0 - (uint64_t)v->ival : (uint64_t)v->ival);
		*exp = v->iscale;
	}
}

static int qv_sign(const struct qv *v)
{
	if (v->dec)
		return v->mag.n == 0 ? 0 : v->neg ? -1 : 1;
	return v->ival < 0 ? -1 : v->ival > 0;
}

/* Exact comparison, whatever the representations (resource.Quantity.Cmp). */
static int qv_cmp(const struct qv *a, const struct qv *b)
{
	int sa = qv_sign(a), sb = qv_sign(b);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	struct big bx, by, *x = &bx, *y = &by;
	bool na, nb;
	int64_t ea, eb;
	qv_exact(a, &na, x, &ea);
	qv_exact(b, &nb, y, &eb);
	double la = big_log10(x) + (double)ea, lb = big_log10(y) + (double)eb;
	int mc;
	if (la > lb + 2)
		mc = 1;
	else if (lb > la + 2)
		mc = -1;
	else {
		/* Close magnitudes: the exponents differ by at most the digit counts (<= ~2,500), so
		 * aligning fits a temporary. */
		if (ea > eb)
			big_mul_pow10(x, (uint64_t)(ea - eb), QBIG_TMP);
		else if (eb > ea)
			big_mul_pow10(y, (uint64_t)(eb - ea), QBIG_TMP);
		mc = big_cmp(x, y);
	}
	return sa < 0 ? -mc : mc;
}

/* ---- Go helpers (apimachinery math.go) ---- */

static bool int64_multiply(int64_t a, int64_t b, int64_t *c)
{
	if (a == 0 || b == 0 || a == 1 || b == 1) {
		*c = a * b;
		return true;
	}
	if (a == INT64_MIN || b == INT64_MIN)
		return false;
	return !__builtin_mul_overflow(a, b, c);
}

static bool positive_scale_int64(int64_t base, int64_t scale, int64_t *out)
{
	int64_t v = base;
	if (v == 0) {
		*out = 0;
		return true;
	}
	for (int64_t i = 0; i < scale; i++)
		if (!int64_multiply(v, 10, &v))
			return false;
	*out = v;
	return true;
}

/* int64Amount.Add: false when the result needs an inf.Dec. */
static bool int_add(struct qv *a, int64_t bval, int64_t bscale)
{
	int64_t c;
	if (bval == 0)
		return true;
	if (a->ival == 0) {
		a->ival = bval;
		a->iscale = bscale;
		return true;
	}
	if (a->iscale == bscale) {
		if (__builtin_add_overflow(a->ival, bval, &c))
			return false;
		a->ival = c;
	} else if (a->iscale > bscale) {
		if (!positive_scale_int64(a->ival, a->iscale - bscale, &c) || __builtin_add_overflow(c, bval, &c))
			return false;
		a->iscale = bscale;
		a->ival = c;
	} else {
		if (!positive_scale_int64(bval, bscale - a->iscale, &c) || __builtin_add_overflow(a->ival, c, &c))
			return false;
		a->ival = c;
	}
	return true;
}

static void to_dec(struct qv *v)
{
	if (v->dec)
		return;
	v->dec = true;
	v->neg = v->ival < 0;
	big_set_u64(&v->mag, v->ival < 0 ? (uint64_t)0 - (uint64_t)v->ival : (uint64_t)v->ival);
	v->dscale = -v->iscale;
	v->ival = 0;
	v->iscale = 0;
}

/* inf.Dec Add (negate_b: Sub): exact, at the larger scale. false when over QBIG_CAP. */
static bool dec_add(struct qv *a, const struct qv *b_in, bool negate_b)
{
	struct qv *b = &(struct qv){ 0 };
	*b = *b_in;
	to_dec(a);
	to_dec(b);
	if (negate_b)
		b->neg = !b->neg;
	if (a->dscale < b->dscale) {
		if (!big_mul_pow10(&a->mag, (uint64_t)(b->dscale - a->dscale), QBIG_CAP))
			return false;
		a->dscale = b->dscale;
	} else if (b->dscale < a->dscale) {
		if (!big_mul_pow10(&b->mag, (uint64_t)(a->dscale - b->dscale), QBIG_CAP))
			return false;
	}
	if (a->neg == b->neg)
		return big_add(&a->mag, &b->mag, QBIG_CAP);
	if (big_cmp(&a->mag, &b->mag) >= 0) {
		big_sub(&a->mag, &b->mag);
	} else {
		struct big *t = &(struct big){ 0 };
		*t = b->mag;
		big_sub(t, &a->mag);
		a->mag = *t;
		a->neg = b->neg;
	}
	if (a->mag.n == 0)
		a->neg = false;
	return true;
}

/* ---- parsing (resource.ParseQuantity) ---- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* strconv.ParseInt(s, 10, 64). */
static bool go_parse_int64(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (i == n)
		return false;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		if (v > (lim - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

enum qfmt { Q_DECIMAL_EXPONENT, Q_DECIMAL_SI, Q_BINARY_SI };

static bool interpret_suffix(const char *s, size_t n, int *base, int32_t *exp, enum qfmt *fmt)
{
	static const struct { const char *s; int32_t e; } dec[] = {
		{ "n", -9 }, { "u", -6 }, { "m", -3 }, { "", 0 }, { "k", 3 }, { "M", 6 },
		{ "G", 9 }, { "T", 12 }, { "P", 15 }, { "E", 18 },
	};
	static const struct { const char *s; int32_t e; } bin[] = {
		{ "Ki", 10 }, { "Mi", 20 }, { "Gi", 30 }, { "Ti", 40 }, { "Pi", 50 }, { "Ei", 60 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(dec); i++)
		if (strlen(dec[i].s) == n && memcmp(dec[i].s, s, n) == 0) {
			*base = 10, *exp = dec[i].e, *fmt = Q_DECIMAL_SI;
			return true;
		}
	for (size_t i = 0; i < ARRAY_SIZE(bin); i++)
		if (strlen(bin[i].s) == n && memcmp(bin[i].s, s, n) == 0) {
			*base = 2, *exp = bin[i].e, *fmt = Q_BINARY_SI;
			return true;
		}
	if (n > 1 && (s[0] == 'E' || s[0] == 'e')) {
		int64_t p;
		if (!go_parse_int64(s + 1, n - 1, &p))
			return false;
		*base = 10, *exp = (int32_t)(uint32_t)(uint64_t)p, *fmt = Q_DECIMAL_EXPONENT; /* Go's int32(parsed) */
		return true;
	}
	return false;
}

/* Parses s into v; NULL, or the error message. */
static const char *quantity_parse(const char *s, size_t end, struct qv *v)
{
	memset(v, 0, offsetof(struct qv, mag));
	v->mag.n = 0;
	if (end == 0)
		return err_format;
	if (end == 1 && s[0] == '0')
		return NULL;

	/* parseQuantityString */
	bool positive = true;
	size_t pos = 0, num_start, num_len, denom_start = 0, denom_len = 0, value_len, suf_start;
	if (s[0] == '-' || s[0] == '+') {
		positive = s[0] != '-';
		pos++;
	}
	while (pos < end && s[pos] == '0')
		pos++;
	if (pos >= end) {
		return NULL; /* all zeros: num "0", no suffix: zero */
	}
	num_start = pos;
	while (pos < end && is_digit(s[pos]))
		pos++;
	num_len = pos - num_start;
	bool num_zero = num_len == 0; /* stripped all: num is "0" */
	if (pos >= end) {
		value_len = end;
		suf_start = end;
		goto parsed;
	}
	if (s[pos] == '.') {
		pos++;
		denom_start = pos;
		while (pos < end && is_digit(s[pos]))
			pos++;
		denom_len = pos - denom_start;
		if (pos >= end) {
			value_len = end;
			suf_start = end;
			goto parsed;
		}
	}
	value_len = pos;
	suf_start = pos;
	while (pos < end && strchr("eEinumkKMGTP", s[pos]))
		pos++;
	if (pos < end && (s[pos] == '-' || s[pos] == '+'))
		pos++;
	while (pos < end && is_digit(s[pos]))
		pos++;
	if (pos < end)
		return err_format;
parsed:;
	int base;
	int32_t exponent;
	enum qfmt fmt;
	if (!interpret_suffix(s + suf_start, end - suf_start, &base, &exponent, &fmt))
		return err_suffix;

	size_t nlen = num_zero ? 1 : num_len;
	int64_t precision, scale = 0, mantissa = 1;
	if (fmt == Q_BINARY_SI) {
		if (exponent >= 0 && denom_len == 0) {
			mantissa = (int64_t)1 << exponent;
			precision = 15 - (int64_t)nlen - (int32_t)((float)exponent * 3 / 10) - 1;
		} else {
			precision = -1;
		}
	} else {
		scale = exponent;
		precision = 18 - (int64_t)(nlen + denom_len);
	}
	if (precision >= 0) {
		scale -= (int64_t)denom_len;
		if (scale >= -9) {
			/* shifted = num + denom: at most 18 digits here */
			int64_t value = 0;
			if (!num_zero)
				for (size_t i = 0; i < num_len; i++)
					value = value * 10 + (s[num_start + i] - '0');
			for (size_t i = 0; i < denom_len; i++)
				value = value * 10 + (s[denom_start + i] - '0');
			int64_t r;
			if (int64_multiply(value, mantissa, &r)) {
				v->ival = positive ? r : -r;
				v->iscale = scale;
				return NULL;
			}
		}
	}

	/* inf.Dec: amount.SetString(value) */
	size_t i = 0;
	bool neg = false, digits = false, dot = false;
	int64_t frac = 0;
	if (i < value_len && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	struct big *m = &v->mag;
	for (; i < value_len; i++) {
		if (s[i] == '.') {
			if (dot)
				return err_numeric;
			dot = true;
			continue;
		}
		if (!is_digit(s[i]))
			return err_numeric;
		digits = true;
		if (dot)
			frac++;
		if (!big_mul_add_small(m, 10, (uint32_t)(s[i] - '0'), QBIG_CAP))
			return err_precision;
	}
	if (!digits)
		return err_numeric;
	v->dec = true;
	int64_t dscale = frac;
	if (base == 10)
		dscale -= exponent;
	else if (!big_shl(m, (unsigned)exponent, QBIG_CAP))
		return err_precision;
	if (m->n > 0) {
		/* Round to nano units, up (away from zero): any request gets at least 1n. */
		if (dscale > 9) {
			uint64_t k = (uint64_t)(dscale - 9);
			bool rem = false;
			if (k > (uint64_t)big_bits(m) / 3 + 2) {
				rem = true;
				m->n = 0;
			} else {
				while (k > 0) {
					unsigned c = k > 9 ? 9 : (unsigned)k;
					static const uint32_t p10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
									  10000000, 100000000, 1000000000 };
					if (big_div_small(m, p10[c]))
						rem = true;
					k -= c;
				}
			}
			if (rem && !big_mul_add_small(m, 1, 1, QBIG_CAP))
				return err_precision;
		} else if (dscale < 9) {
			if (!big_mul_pow10(m, (uint64_t)(9 - dscale), QBIG_CAP))
				return err_precision;
		}
		dscale = 9;
	}
	v->dscale = dscale;
	if (fmt == Q_BINARY_SI) {
		/* capped at max int64 */
		struct qv *max = &(struct qv){ .ival = INT64_MAX };
		struct qv *abs = &(struct qv){ 0 };
		*abs = *v;
		abs->neg = false;
		if (qv_cmp(abs, max) > 0) {
			big_set_u64(m, INT64_MAX);
			v->dscale = 0;
		}
	}
	v->neg = neg && m->n > 0;
	return NULL;
}

/* ---- the object type ---- */

static bool q_equal(const struct cel_object *a, const struct cel_object *b)
{
	return q_compare(a, b) == 0;
}

static int q_compare(const struct cel_object *a, const struct cel_object *b)
{
	const struct qty *p = (const struct qty *)a, *q = (const struct qty *)b;
	if (!p->dec && !q->dec) {
		/* the common case (selectors compare parsed quantities): two int64Amounts, compared
		 * at the smaller scale when both fit there */
		int64_t x = p->ival, y = q->ival;
		if (p->iscale == q->iscale ||
		    (p->iscale > q->iscale ? positive_scale_int64(p->ival, p->iscale - q->iscale, &x)
					   : positive_scale_int64(q->ival, q->iscale - p->iscale, &y)))
			return x < y ? -1 : x > y;
	}
	struct qv x, y; /* big: filled only as far as used */
	qv_load(&x, a);
	qv_load(&y, b);
	return qv_cmp(&x, &y);
}

/* The exact value as digits and a power of ten ("5002e1", "-15e-1"), not Quantity.String()'s
 * canonical suffix form. */
static size_t q_format(const struct cel_object *o, char *buf, size_t cap)
{
	struct qv *v = &(struct qv){ 0 };
	qv_load(v, o);
	bool neg;
	int64_t exp;
	struct big *m = &(struct big){ 0 };
	qv_exact(v, &neg, m, &exp);
	char digits[QBIG_CAP * 10 + 16];
	size_t nd = 0;
	while (m->n > 0) {
		uint32_t r = big_div_small(m, 1000000000u);
		for (int k = 0; k < 9 && (m->n > 0 || r > 0); k++) {
			digits[nd++] = (char)('0' + r % 10);
			r /= 10;
		}
	}
	if (nd == 0) {
		digits[nd++] = '0';
		exp = 0;
	}
	size_t len = (size_t)snprintf(buf, cap, "quantity(%s", neg ? "-" : "");
	for (size_t k = nd; k-- > 0;) {
		if (len + 1 < cap)
			buf[len] = digits[k];
		len++;
	}
	if (len < cap)
		buf[len] = 0;
	else if (cap)
		buf[cap - 1] = 0;
	if (exp)
		len += (size_t)snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "e%" PRId64 ")", exp);
	else
		len += (size_t)snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, ")");
	return len;
}

/* ---- caller-owned values (cel.h) ---- */

int cel_quantity_new(const char *s, size_t len, cel_value *out, struct err *e)
{
	struct qv v;
	const char *msg = quantity_parse(s, len, &v);
	if (msg)
		return err_set(e, ERR_INVALID, "cel_quantity_new: quantity \"%.*s\": %s", (int)(len > 200 ? 200 : len), s,
			       msg);
	uint32_t n = v.dec ? v.mag.n : 0;
	struct qty *q = calloc(1, sizeof(*q) + n * sizeof(uint32_t));
	if (!q)
		return err_set(e, ERR_NOMEM, "cel_quantity_new: out of memory");
	q->hdr.type = &quantity_type;
	q->dec = v.dec;
	q->ival = v.ival;
	q->iscale = v.iscale;
	q->neg = v.dec && v.neg && v.mag.n > 0;
	q->dscale = v.dscale;
	q->n = n;
	memcpy(q->limbs, v.mag.l, n * sizeof(uint32_t));
	*out = cel_object_value(&q->hdr);
	return 0;
}

/* ---- functions ---- */

static int fn_quantity(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct qv vv, *v = &vv; /* quantity_parse initializes what it uses */
	const char *msg = quantity_parse(a[0].s, a[0].n, v);
	if (msg)
		return cel_error(ev, out, "%s", msg);
	return qv_store(ev, v, out);
}

static int fn_is_quantity(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	struct qv v;
	*out = cel_bool(quantity_parse(a[0].s, a[0].n, &v) == NULL);
	return 0;
}

static int fn_sign(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	const struct qty *q = (const struct qty *)a[0].obj;
	if (q->dec)
		*out = cel_int(q->n == 0 ? 0 : q->neg ? -1 : 1);
	else
		*out = cel_int(q->ival < 0 ? -1 : q->ival > 0);
	return 0;
}

static int fn_compare_to(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(q_compare(a[0].obj, a[1].obj));
	return 0;
}

static int fn_greater(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(q_compare(a[0].obj, a[1].obj) == 1);
	return 0;
}

static int fn_less(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(q_compare(a[0].obj, a[1].obj) == -1);
	return 0;
}

/* math.Pow10 as Go computes it (two table entries for |n| >= 32). */
static double go_pow10(int64_t n)
{
	static const double tab[32] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
					1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
					1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31 };
	static const double pos32[10] = { 1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288 };
	static const double neg32[11] = { 1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256,
					  1e-288, 1e-320 };
	if (n >= 0 && n <= 308)
		return pos32[n / 32] * tab[n % 32];
	if (n < 0 && n >= -323)
		return neg32[-n / 32] / tab[-n % 32];
	return n > 0 ? INFINITY : 0;
}

static int fn_as_float(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	const struct qty *q = (const struct qty *)a[0].obj;
	double base;
	int64_t exp;
	if (q->dec) {
		struct big *m = &(struct big){ 0 };
		m->n = q->n;
		memcpy(m->l, q->limbs, q->n * sizeof(uint32_t));
		base = big_to_double(m);
		if (q->neg)
			base = -base;
		exp = -q->dscale;
	} else {
		base = (double)q->ival;
		exp = q->iscale;
	}
	*out = cel_double(exp == 0 ? base : base * go_pow10(exp));
	return 0;
}

static bool as_int64(const struct qty *q, int64_t *v)
{
	if (q->dec)
		return false;
	if (q->iscale == 0) {
		*v = q->ival;
		return true;
	}
	if (q->iscale < 0)
		return false;
	return positive_scale_int64(q->ival, q->iscale, v);
}

static int fn_as_integer(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	int64_t v;
	if (!as_int64((const struct qty *)a[0].obj, &v))
		return cel_error(ev, out, "cannot convert value to integer");
	*out = cel_int(v);
	return 0;
}

static int fn_is_integer(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	int64_t v;
	*out = cel_bool(as_int64((const struct qty *)a[0].obj, &v));
	return 0;
}

/* Quantity.Add / Quantity.Sub on a copy of the receiver; an int argument is
 * resource.NewQuantity(i, DecimalExponent): an int64Amount at scale 0. */
static int arith(struct cel_eval *ev, const cel_value *a, bool sub, cel_value *out)
{
	struct qv xx, yy, *x = &xx, *y = &yy;
	qv_load(x, a[0].obj);
	if (a[1].kind == CEL_INT) {
		y->dec = false;
		y->ival = a[1].i;
		y->iscale = 0;
		y->neg = false;
		y->dscale = 0;
		y->mag.n = 0;
	} else {
		qv_load(y, a[1].obj);
	}
	if (!x->dec && !y->dec) {
		int64_t bval = sub ? (int64_t)(0 - (uint64_t)y->ival) : y->ival; /* Go's -b.value wraps */
		if (int_add(x, bval, y->iscale)) /* leaves x unchanged when it fails */
			return qv_store(ev, x, out);
	}
	if (!dec_add(x, y, sub))
		return cel_error(ev, out, "%s", err_precision);
	return qv_store(ev, x, out);
}

static int fn_add(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return arith(ev, a, false, out);
}

static int fn_sub(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return arith(ev, a, true, out);
}

/* cost.go: quantity() and isQuantity() ceil(0.1 * size); the others 1 */
static uint64_t cost_parse(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)ceil((double)cel_utf8_count(a[0].s, a[0].n) * 0.1);
}

#define Q { CEL_OBJECT, &quantity_type }
#define S { CEL_STRING, NULL }
#define I { CEL_INT, NULL }

static const struct cel_overload quantity_overloads[] = {
	{ "string_to_quantity", "quantity", CEL_OV_GLOBAL, 1, { S }, fn_quantity, NULL, NULL, cost_parse },
	{ "is_quantity_string", "isQuantity", CEL_OV_GLOBAL, 1, { S }, fn_is_quantity, NULL, NULL, cost_parse },
	{ "quantity_sign", "sign", CEL_OV_GLOBAL, 1, { Q }, fn_sign, NULL, NULL, NULL },
	{ "quantity_is_greater_than", "isGreaterThan", CEL_OV_RECEIVER, 2, { Q, Q }, fn_greater, NULL, NULL, NULL },
	{ "quantity_is_less_than", "isLessThan", CEL_OV_RECEIVER, 2, { Q, Q }, fn_less, NULL, NULL, NULL },
	{ "quantity_compare_to", "compareTo", CEL_OV_RECEIVER, 2, { Q, Q }, fn_compare_to, NULL, NULL, NULL },
	{ "quantity_get_float", "asApproximateFloat", CEL_OV_RECEIVER, 1, { Q }, fn_as_float, NULL, NULL, NULL },
	{ "quantity_get_int", "asInteger", CEL_OV_RECEIVER, 1, { Q }, fn_as_integer, NULL, NULL, NULL },
	{ "quantity_is_integer", "isInteger", CEL_OV_RECEIVER, 1, { Q }, fn_is_integer, NULL, NULL, NULL },
	{ "quantity_add", "add", CEL_OV_RECEIVER, 2, { Q, Q }, fn_add, NULL, NULL, NULL },
	{ "quantity_add_int", "add", CEL_OV_RECEIVER, 2, { Q, I }, fn_add, NULL, NULL, NULL },
	{ "quantity_sub", "sub", CEL_OV_RECEIVER, 2, { Q, Q }, fn_sub, NULL, NULL, NULL },
	{ "quantity_sub_int", "sub", CEL_OV_RECEIVER, 2, { Q, I }, fn_sub, NULL, NULL, NULL },
};

int cel_lib_quantity_register(struct cel_env *env, struct err *e)
{
	int rc = cel_env_add_type(env, &quantity_type, e);
	if (rc != 0)
		return rc;
	return cel_env_add_overloads(env, quantity_overloads, ARRAY_SIZE(quantity_overloads), e);
}
