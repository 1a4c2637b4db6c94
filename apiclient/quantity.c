/* resource.Quantity parsing, bit-for-bit as k8s.io/apimachinery v0.37 (pkg/api/resource).
 *
 * Upstream keeps a parsed quantity in one of two forms, and Value()/MilliValue() round and
 * overflow differently in each, so this file reproduces both rather than computing the
 * mathematically ideal result:
 *
 *  - the fast form, int64Amount{value, scale}: decimal numbers of at most 18 significant digits
 *    whose scale (exponent minus fraction digits) is >= -9, and binary-suffixed integers whose
 *    product with 2^exp fits. ScaledValue rounds away from zero when dropping digits and, when
 *    multiplying, wraps (x10/x100/x1000/x1e6/x1e9) or yields 0 (other powers) on overflow.
 *  - the slow form, an inf.Dec: every other input. The amount is rounded away from zero to nano
 *    units (N = ceil(|x| * 1e9)), binary-suffixed amounts are capped at 2^63-1, and
 *    ScaledValue divides N by 1e9 or 1e6: truncating then adding 1 for an inexact quotient
 *    (so -0.5n reads as +1 after rounding, as upstream), taking the low 64 bits of quotients
 *    beyond int64.
 *
 * The slow form's N can be far larger than 128 bits ("1e400"), so it is held as a decimal digit
 * string S followed by z zeros; only its low 64 bits and comparisons are ever needed.
 *
 * Also as upstream: "+", "-", "." and "1." parse (as 0 and 1), the exponent of "e<int>" is read as
 * int64 then truncated to int32, and a suffix must follow the number without a space.
 * tests/fuzz/quantity_oracle holds the Go program this file was checked against. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"
#include "common/err.h"
#include "common/macros.h"

#define MAX_INT64 INT64_MAX
#define MOST_NEGATIVE INT64_MIN

enum qformat { Q_DECIMAL_SI, Q_BINARY_SI, Q_DECIMAL_EXPONENT };

/* A decimal integer S * 10^z held as digits (no leading zeros; empty = 0). */
struct bigdec {
	char *s;
	size_t n;
	int64_t z;
};

/* ---------- errors ---------- */

static int qerr(struct err *e, const char *s, size_t len, const char *why)
{
	/* Quantities come from the network: show at most 64 bytes of them. */
	int shown = len > 64 ? 64 : (int)len;
	return err_set(e, ERR_INVALID, "invalid quantity \"%.*s%s\": %s", shown, s, len > 64 ? "..." : "",
		       why);
}

/* ---------- upstream's int64 helpers (math.go) ---------- */

static int64_t wrap_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* int64Multiply / int64MultiplyScale*: the wrapped product, and whether it did not overflow. */
static int64_t mul_checked(int64_t a, int64_t b, bool *ok)
{
	if (a == 0 || b == 0 || a == 1 || b == 1) {
		*ok = true;
		return wrap_mul(a, b);
	}
	if (a == MOST_NEGATIVE || b == MOST_NEGATIVE) {
		*ok = false;
		return 0;
	}
	int64_t c = wrap_mul(a, b);
	*ok = c / b == a;
	return c;
}

/* positiveScaleInt64, with ScaledValue's disregard of the ok flag. scale < 0 returns base (the
 * Go loop runs no iteration). */
static int64_t positive_scale(int64_t base, int32_t scale)
{
	bool ok;
	if (base == 0) /* 0 * 10^scale; the loop below would run scale (up to 2^31) times */
		return 0;
	switch (scale) {
	case 0:
		return base;
	case 1:
		return mul_checked(base, 10, &ok);
	case 2:
		return mul_checked(base, 100, &ok);
	case 3:
		return mul_checked(base, 1000, &ok);
	case 6:
		return mul_checked(base, 1000000, &ok);
	case 9:
		return mul_checked(base, 1000000000, &ok);
	default:
		for (int32_t i = 0; i < scale; i++) {
			base = mul_checked(base, 10, &ok);
			if (!ok)
				return 0;
		}
		return base;
	}
}

/* negativeScaleInt64: divides by 10^scale, rounding away from zero. */
static int64_t negative_scale(int64_t base, int32_t scale)
{
	int64_t value = base;
	bool fraction = false;
	for (int32_t i = 0; i < scale; i++) {
		if (!fraction && value % 10 != 0)
			fraction = true;
		value /= 10;
		if (value == 0)
			return fraction ? (base > 0 ? 1 : -1) : 0;
	}
	if (fraction)
		value += base > 0 ? 1 : -1;
	return value;
}

static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

/* int64Amount.AsScaledInt64(scale) as ScaledValue uses it. */
static int64_t amount_scaled(int64_t value, int32_t scale, int32_t to)
{
	if (scale < to)
		return negative_scale(value, wrap32((int64_t)to - scale));
	return positive_scale(value, wrap32((int64_t)scale - to));
}

/* ---------- big decimals for the inf.Dec path ---------- */

static bool big_reserve(struct bigdec *b, size_t n)
{
	char *p = realloc(b->s, n ? n : 1);
	if (!p)
		return false;
	b->s = p;
	return true;
}

static void big_strip(struct bigdec *b)
{
	size_t i = 0;
	while (i < b->n && b->s[i] == '0')
		i++;
	memmove(b->s, b->s + i, b->n - i);
	b->n -= i;
	if (!b->n)
		b->z = 0;
}

/* b *= m (m < 2^32), digit by digit. */
static bool big_mul_small(struct bigdec *b, uint32_t m)
{
	uint64_t carry = 0;
	for (size_t i = b->n; i-- > 0;) {
		uint64_t d = (uint64_t)(b->s[i] - '0') * m + carry;
		b->s[i] = (char)('0' + d % 10);
		carry = d / 10;
	}
	char head[24];
	size_t nh = 0;
	while (carry) {
		head[nh++] = (char)('0' + carry % 10);
		carry /= 10;
	}
	if (!nh)
		return true;
	if (!big_reserve(b, b->n + nh))
		return false;
	memmove(b->s + nh, b->s, b->n);
	for (size_t i = 0; i < nh; i++)
		b->s[i] = head[nh - 1 - i];
	b->n += nh;
	return true;
}

/* b = ceil-or-floor(b / 10^k): *inexact tells whether a non-zero digit was dropped. */
static void big_div_pow10(struct bigdec *b, int64_t k, bool *inexact)
{
	*inexact = false;
	if (k <= b->z) {
		b->z -= k;
		return;
	}
	k -= b->z;
	b->z = 0;
	size_t drop = (uint64_t)k >= b->n ? b->n : (size_t)k;
	for (size_t i = b->n - drop; i < b->n; i++)
		if (b->s[i] != '0')
			*inexact = true;
	b->n -= drop;
}

/* b += 1; only called right after big_div_pow10 dropped digits, so b->z == 0. */
static bool big_increment(struct bigdec *b)
{
	size_t i = b->n;
	while (i > 0 && b->s[i - 1] == '9')
		b->s[--i] = '0';
	if (i > 0) {
		b->s[i - 1]++;
		return true;
	}
	if (!big_reserve(b, b->n + 1))
		return false;
	memmove(b->s + 1, b->s, b->n);
	b->s[0] = '1';
	b->n++;
	return true;
}

static uint64_t pow10_mod64(int64_t k)
{
	if (k >= 64)
		return 0; /* 10^64 = 2^64 * 5^64 */
	uint64_t r = 1;
	while (k-- > 0)
		r *= 10;
	return r;
}

static uint64_t big_low64(const struct bigdec *b)
{
	uint64_t r = 0;
	for (size_t i = 0; i < b->n; i++)
		r = r * 10 + (uint64_t)(b->s[i] - '0');
	return r * pow10_mod64(b->z);
}

/* Compares b with the decimal string ref (no leading zeros). */
static int big_cmp(const struct bigdec *b, const char *ref)
{
	size_t rn = strlen(ref);
	if (!b->n)
		return rn ? -1 : 0;
	if ((uint64_t)b->z > rn || b->n + (size_t)b->z > rn)
		return 1;
	if (b->n + (size_t)b->z < rn)
		return -1;
	int c = memcmp(b->s, ref, b->n);
	if (c)
		return c < 0 ? -1 : 1;
	for (size_t i = b->n; i < rn; i++)
		if (ref[i] != '0')
			return -1;
	return 0;
}

/* scaledValue(±N, 9, 9 - dif): N in nano units, dif = 9 (Value) or 6 (MilliValue). */
static int64_t nano_scaled(const struct bigdec *n, bool negative, int dif, bool *nomem)
{
	int64_t div = dif == 9 ? 1000000000 : 1000000;
	/* unscaled.Cmp(maxInt64) < 0: every negative, and positives below 2^63-1. */
	if (negative || big_cmp(n, "9223372036854775807") < 0) {
		uint64_t low = big_low64(n);
		int64_t u = negative ? (int64_t)(0 - low) : (int64_t)low;
		int64_t q = u / div;
		return u % div ? q + 1 : q;
	}
	struct bigdec q = { .n = n->n, .z = n->z };
	q.s = malloc(n->n ? n->n : 1);
	if (!q.s) {
		*nomem = true;
		return 0;
	}
	memcpy(q.s, n->s, n->n);
	bool inexact;
	big_div_pow10(&q, dif, &inexact);
	uint64_t low = big_low64(&q);
	free(q.s);
	return (int64_t)(low + (inexact ? 1 : 0));
}

/* ---------- the scanner (parseQuantityString) ---------- */

struct scanned {
	bool positive;
	const char *value; /* str[0:value_len]: what inf.Dec.SetString would read */
	size_t value_len;
	const char *num; /* leading zeros stripped; "0" when none left */
	size_t num_len;
	const char *denom;
	size_t denom_len;
	const char *suffix;
	size_t suffix_len;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Returns false for upstream's ErrFormatWrong. */
static bool scan(const char *str, size_t end, struct scanned *o)
{
	size_t pos = 0;
	memset(o, 0, sizeof(*o));
	o->positive = true;
	o->denom = o->suffix = "";
	if (pos < end && (str[0] == '-' || str[0] == '+')) {
		o->positive = str[0] != '-';
		pos++;
	}
	while (pos < end && str[pos] == '0')
		pos++;
	if (pos >= end) {
		o->num = o->value = "0";
		o->num_len = o->value_len = 1;
		return true;
	}
	size_t i = pos;
	while (i < end && is_digit(str[i]))
		i++;
	o->num = str + pos;
	o->num_len = i - pos;
	if (i >= end) {
		o->value = str;
		o->value_len = end;
		return true;
	}
	pos = i;
	if (!o->num_len) {
		o->num = "0";
		o->num_len = 1;
	}
	if (str[pos] == '.') {
		pos++;
		i = pos;
		while (i < end && is_digit(str[i]))
			i++;
		o->denom = str + pos;
		o->denom_len = i - pos;
		if (i >= end) {
			o->value = str;
			o->value_len = end;
			return true;
		}
		pos = i;
	}
	o->value = str;
	o->value_len = pos;

	size_t suffix_start = pos;
	while (pos < end && strchr("eEinumkKMGTP", str[pos]) && str[pos])
		pos++;
	if (pos < end && (str[pos] == '-' || str[pos] == '+'))
		pos++;
	while (pos < end && is_digit(str[pos]))
		pos++;
	if (pos < end)
		return false;
	o->suffix = str + suffix_start;
	o->suffix_len = end - suffix_start;
	return true;
}

/* quantitySuffixer.interpret. */
static bool interpret(const char *s, size_t n, int *base, int32_t *exponent, enum qformat *fmt)
{
	static const struct {
		const char *s;
		int base;
		int32_t exp;
	} table[] = {
		{ "", 10, 0 },   { "n", 10, -9 }, { "u", 10, -6 },  { "m", 10, -3 },  { "k", 10, 3 },
		{ "M", 10, 6 },  { "G", 10, 9 },  { "T", 10, 12 },  { "P", 10, 15 },  { "E", 10, 18 },
		{ "Ki", 2, 10 }, { "Mi", 2, 20 }, { "Gi", 2, 30 },  { "Ti", 2, 40 },  { "Pi", 2, 50 },
		{ "Ei", 2, 60 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		if (strlen(table[i].s) == n && !memcmp(table[i].s, s, n)) {
			*base = table[i].base;
			*exponent = table[i].exp;
			*fmt = table[i].base == 2 ? Q_BINARY_SI : Q_DECIMAL_SI;
			return true;
		}
	}
	if (n < 2 || (s[0] != 'e' && s[0] != 'E'))
		return false;
	/* strconv.ParseInt(s[1:], 10, 64): optional sign, then only digits, no overflow. */
	size_t i = 1;
	bool neg = false;
	if (s[i] == '+' || s[i] == '-')
		neg = s[i++] == '-';
	if (i >= n)
		return false;
	uint64_t mag = 0;
	for (; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (mag > (UINT64_MAX - d) / 10)
			return false;
		mag = mag * 10 + d;
	}
	if (mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		return false;
	*base = 10;
	*exponent = wrap32(neg ? (int64_t)(0 - mag) : (int64_t)mag); /* int32(parsed) */
	*fmt = Q_DECIMAL_EXPONENT;
	return true;
}

/* ---------- ParseQuantity ---------- */

/* The fast path; returns true when it applies, with the int64Amount in *v, *scale. */
static bool fast_path(const struct scanned *q, int32_t exponent, enum qformat fmt, int64_t *v, int32_t *scale)
{
	int64_t precision;
	int64_t mantissa = 1;
	int32_t sc = 0;
	if (fmt == Q_BINARY_SI) {
		if (exponent < 0 || q->denom_len)
			return false;
		mantissa = (int64_t)1 << exponent;
		/* int32(float32(exponent)*3/10) is exact for 10..60 */
		precision = 15 - (int64_t)q->num_len - (int64_t)exponent * 3 / 10 - 1;
	} else {
		sc = exponent;
		precision = 18 - (int64_t)(q->num_len + q->denom_len);
	}
	if (precision < 0)
		return false;
	sc = wrap32((int64_t)sc - (int64_t)q->denom_len);
	if (sc < -9)
		return false;
	/* At most 18 digits: ParseInt cannot fail. */
	int64_t shifted = 0;
	for (size_t i = 0; i < q->num_len; i++)
		shifted = shifted * 10 + (q->num[i] - '0');
	for (size_t i = 0; i < q->denom_len; i++)
		shifted = shifted * 10 + (q->denom[i] - '0');
	bool ok;
	int64_t result = mul_checked(shifted, mantissa, &ok);
	if (!ok)
		return false;
	*v = q->positive ? result : -result;
	*scale = sc;
	return true;
}

int api_quantity_parse(const char *s, int64_t *value, int64_t *milli, struct err *e)
{
	struct bigdec n = { 0 };
	int rc = 0;
	size_t len = s ? strlen(s) : 0;
	struct scanned q;
	int base;
	int32_t exponent;
	enum qformat fmt;

	if (!len) {
		rc = qerr(e, "", 0, "empty");
		goto out;
	}
	if (!scan(s, len, &q)) {
		rc = qerr(e, s, len, "must be [+-]digits[.digits][suffix]");
		goto out;
	}
	if (!interpret(q.suffix, q.suffix_len, &base, &exponent, &fmt)) {
		rc = qerr(e, s, len, "unknown suffix");
		goto out;
	}

	int64_t fv;
	int32_t fscale;
	if (fast_path(&q, exponent, fmt, &fv, &fscale)) {
		*value = amount_scaled(fv, fscale, 0);
		*milli = amount_scaled(fv, fscale, -3);
		goto out;
	}

	/* inf.Dec.SetString(value): every digit of value, scale = digits after the point. */
	bool has_digit = false;
	if (!big_reserve(&n, q.value_len)) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < q.value_len; i++) {
		if (is_digit(q.value[i])) {
			n.s[n.n++] = q.value[i];
			has_digit = true;
		}
	}
	if (!has_digit) {
		rc = qerr(e, s, len, "unable to parse numeric part");
		goto out;
	}
	bool negative = q.value[0] == '-';
	big_strip(&n);
	if (!n.n) {
		*value = *milli = 0;
		goto out;
	}
	int64_t scale = (int64_t)q.denom_len;
	if (base == 10) {
		scale -= exponent;
	} else {
		for (int32_t left = exponent; left > 0; left -= 30) {
			if (!big_mul_small(&n, (uint32_t)1 << (left > 30 ? 30 : left))) {
				rc = err_set(e, ERR_NOMEM, "out of memory");
				goto out;
			}
		}
	}
	/* Round to nano units, away from zero: N = ceil(|x| * 10^9). */
	if (scale <= 9) {
		n.z += 9 - scale;
	} else {
		bool inexact;
		big_div_pow10(&n, scale - 9, &inexact);
		big_strip(&n);
		if (inexact && !big_increment(&n)) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	if (fmt == Q_BINARY_SI && big_cmp(&n, "9223372036854775807000000000") > 0) {
		/* Capped at maxAllowed = 2^63-1 with scale 0. */
		int64_t m = negative ? -MAX_INT64 : MAX_INT64;
		*value = m;
		*milli = wrap_mul(m, 1000);
		goto out;
	}
	bool nomem = false;
	*value = nano_scaled(&n, negative, 9, &nomem);
	*milli = nano_scaled(&n, negative, 6, &nomem);
	if (nomem)
		rc = err_set(e, ERR_NOMEM, "out of memory");
out:
	free(n.s);
	return rc;
}
