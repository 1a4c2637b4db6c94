/* string.format(list), in the two formatters of cel-go's strings extension, chosen by the
 * extension's version (ext/strings.go CompileOptions):
 *
 * - versions 1 to 3, Kubernetes' version 2 among them: cel-go's first formatter
 *   (ext/formatting.go, parseFormatString and stringFormatter) with the en_US locale:
 *   %f and %e through golang.org/x/text/message (digit grouping, "1.052033×10⁰³", "∞"),
 *   strings, bytes, timestamps and durations quoted inside lists and maps ("[\"abc\",
 *   3.140000]", "{\"k\":1}"), %d only for integers, %f and %e only for doubles;
 * - from version 4: cel-go's current formatter (ext/formatting_v2.go, parseFormatStringV2
 *   and stringFormatterV2), the one cel-spec's string_ext conformance tests specify;
 *   from version 5 its precision is limited to 100 (StringsMaxPrecision's default:
 *   "precision 101 exceeds maximum allowed precision 100").
 *
 * Both parse clauses alike: %s %d %f %e %b %x %X %o with an optional precision (%.3f), %% for
 * a percent sign, and cel-go's messages ("could not parse formatting clause: unrecognized
 * formatting clause \"a\"", "index 2 out of range", "error during formatting: ..."). Where a
 * formatter has no precision limit, what a huge precision would allocate is bounded by the
 * evaluation's memory limit (the first formatter bounds itself: x/text keeps at most 65,535
 * columns and 32,767 fraction digits). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "lib_internal.h"
#include "time_internal.h"

#define FORMAT_MAX_PRECISION 100

/* A growing output buffer in the evaluation's arena. */
struct fbuf {
	struct cel_eval *ev;
	char *p;
	size_t len, cap;
	bool oom;
};

static bool fput(struct fbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 64;
		while (c < b->len + n + 1)
			c *= 2;
		char *np = cel_alloc(b->ev, c);
		if (!np) {
			b->oom = true;
			return false;
		}
		if (b->len)
			memcpy(np, b->p, b->len);
		b->p = np;
		b->cap = c;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
	return true;
}

static bool fputs_(struct fbuf *b, const char *s) { return fput(b, s, strlen(s)); }

/* strconv.FormatFloat(d, 'f', -1, 64): the shortest digits that round-trip, positional. */
static bool put_float_f(struct fbuf *b, double d)
{
	char e[40];
	int prec;
	for (prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec, d);
		if (strtod(e, NULL) == d)
			break;
	}
	snprintf(e, sizeof(e), "%.*e", prec, d);
	/* e: [-]D[.DDD]e[+-]XX */
	char digits[32];
	size_t nd = 0;
	const char *p = e;
	bool neg = *p == '-';
	if (neg)
		p++;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	int exp = atoi(p + 1);
	char out[400];
	size_t k = 0;
	if (neg)
		out[k++] = '-';
	/* the value is 0.digits * 10^(exp+1) */
	int point = exp + 1;
	if (point <= 0) {
		out[k++] = '0';
		out[k++] = '.';
		for (int z = 0; z < -point; z++)
			out[k++] = '0';
		for (size_t z = 0; z < nd; z++)
			out[k++] = digits[z];
	} else {
		for (int z = 0; z < point; z++)
			out[k++] = (size_t)z < nd ? digits[z] : '0';
		if ((size_t)point < nd) {
			out[k++] = '.';
			for (size_t z = (size_t)point; z < nd; z++)
				out[k++] = digits[z];
		}
	}
	return fput(b, out, k);
}

static bool put_special(struct fbuf *b, double d)
{
	if (isnan(d))
		return fputs_(b, "NaN");
	if (isinf(d))
		return fputs_(b, d < 0 ? "-Infinity" : "Infinity");
	return false;
}

/* strconv.FormatInt/FormatUint in base 2 or 8 or 16 (lower or upper). */
static bool put_base(struct fbuf *b, bool neg, uint64_t u, unsigned base, bool upper)
{
	char tmp[72];
	size_t k = sizeof(tmp);
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	do {
		tmp[--k] = dig[u % base];
		u /= base;
	} while (u);
	if (neg)
		tmp[--k] = '-';
	return fput(b, tmp + k, sizeof(tmp) - k);
}

static bool put_int(struct fbuf *b, cel_value v, unsigned base, bool upper)
{
	if (v.kind == CEL_INT)
		return put_base(b, v.i < 0, v.i < 0 ? (uint64_t)0 - (uint64_t)v.i : (uint64_t)v.i, base, upper);
	return put_base(b, false, v.u, base, upper);
}

/* formatError for the clause kinds; NULL message: out of memory. */
static const char *type_error(struct cel_eval *ev, const char *what, cel_value v)
{
	const char *t = cel_value_type_name(v);
	size_t n = strlen(what) + strlen(t) + 32;
	char *m = cel_alloc(ev, n);
	if (m)
		snprintf(m, n, "%s, was given %s", what, t);
	return m;
}

static const char err_string_clause[] = "string clause can only be used on strings, bools, bytes, ints, doubles, maps, "
					 "lists, types, durations, and timestamps";

/* appendingFormatterV2.format: 0, -1 with *err (a message), or CEL_NOMEM. */
static int format_value(struct fbuf *b, cel_value v, const char **err);

static int format_string_v2(struct cel_eval *ev, cel_value v, char **s, size_t *n, const char **err)
{
	struct fbuf t = { .ev = ev };
	int rc = format_value(&t, v, err);
	if (rc)
		return rc;
	if (t.oom || !fput(&t, "", 0))
		return CEL_NOMEM;
	*s = t.p;
	*n = t.len;
	return 0;
}

struct ent {
	char *k, *v;
	size_t kn, vn;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	size_t m = x->kn < y->kn ? x->kn : y->kn;
	int c = memcmp(x->k, y->k, m);
	if (c)
		return c;
	return x->kn < y->kn ? -1 : x->kn > y->kn;
}

/* A map's formatted entries, sorted by key as sort.SliceStable does (an insertion sort: stable,
 * so keys that format alike, 1 and "1", keep their order), then written as {k<sep>v, ...}. Both
 * formatters use it; they differ in the separator (": " in the current one, ":" in the first). */
static void put_sorted_map(struct fbuf *b, struct ent *e, size_t n, const char *sep)
{
	for (size_t i = 1; i < n; i++) {
		struct ent x = e[i];
		size_t j = i;
		while (j > 0 && cmp_ent(&e[j - 1], &x) > 0) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = x;
	}
	fputs_(b, "{");
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs_(b, ", ");
		fput(b, e[i].k, e[i].kn);
		fputs_(b, sep);
		fput(b, e[i].v, e[i].vn);
	}
	fputs_(b, "}");
}

static int format_value(struct fbuf *b, cel_value v, const char **err)
{
	char tmp[96];
	switch (v.kind) {
	case CEL_BOOL:
		fputs_(b, v.b ? "true" : "false");
		break;
	case CEL_INT:
	case CEL_UINT:
		put_int(b, v, 10, false);
		break;
	case CEL_DOUBLE:
		if (!put_special(b, v.d))
			put_float_f(b, v.d);
		break;
	case CEL_BYTES:
	case CEL_STRING:
		fput(b, v.s, v.n);
		break;
	case CEL_DURATION: {
		/* Duration.Seconds(): float64(sec) + float64(nsec)/1e9 */
		int64_t sec = v.i / 1000000000, nsec = v.i % 1000000000;
		put_float_f(b, (double)sec + (double)nsec / 1e9);
		fputs_(b, "s");
		break;
	}
	case CEL_TIMESTAMP: {
		size_t n = cel_format_timestamp(v.i, v.n, tmp, sizeof(tmp));
		fput(b, tmp, n < sizeof(tmp) ? n : sizeof(tmp) - 1);
		break;
	}
	case CEL_NULL:
		fputs_(b, "null");
		break;
	case CEL_TYPE:
		fputs_(b, cel_type_name(v.type));
		break;
	case CEL_LIST:
		fputs_(b, "[");
		for (uint32_t i = 0; i < v.list->n; i++) {
			if (i)
				fputs_(b, ", ");
			int rc = format_value(b, v.list->items[i], err);
			if (rc)
				return rc;
		}
		fputs_(b, "]");
		break;
	case CEL_MAP: {
		size_t n = v.map->n;
		struct ent *e = n ? cel_alloc(b->ev, n * sizeof(*e)) : NULL;
		if (n && !e)
			return CEL_NOMEM;
		for (size_t i = 0; i < n; i++) {
			int rc = format_string_v2(b->ev, v.map->keys[i], &e[i].k, &e[i].kn, err);
			if (!rc)
				rc = format_string_v2(b->ev, v.map->vals[i], &e[i].v, &e[i].vn, err);
			if (rc)
				return rc;
		}
		put_sorted_map(b, e, n, ": ");
		break;
	}
	default:
		*err = type_error(b->ev, err_string_clause, v);
		return *err ? -1 : CEL_NOMEM;
	}
	return b->oom ? CEL_NOMEM : 0;
}

/* Go's %.Nf / %.Ne of a finite d (exact decimal expansion, as C's printf). No precision limit
 * in cel-go before strings version 5: the room it needs is asked of the arena first, so that
 * the evaluation's memory limit stops "%.999999999f" before anything is formatted. */
static int put_float_prec(struct fbuf *b, char c, long long prec, double d)
{
	/* %f: sign, 309 integer digits, point; %e: sign, digit, point, e-308 */
	const size_t extra = 400;
	if (prec < 0 || (unsigned long long)prec > (unsigned long long)INT_MAX - extra) {
		/* more than snprintf can write (Go would allocate gigabytes): asking the arena for
		 * everything fails by the memory limit (or as out of memory), allocating nothing */
		(void)cel_alloc(b->ev, SIZE_MAX);
		return CEL_NOMEM;
	}
	size_t cap = (size_t)prec + extra;
	char *tmp = cel_alloc(b->ev, cap);
	if (!tmp)
		return CEL_NOMEM;
	int need = snprintf(tmp, cap, c == 'f' ? "%.*f" : "%.*e", (int)prec, d);
	if (need < 0 || (size_t)need >= cap)
		return CEL_NOMEM;
	fput(b, tmp, (size_t)need);
	return b->oom ? CEL_NOMEM : 0;
}

/* One clause of the current formatter applied to v: 0, -1 with *err, or CEL_NOMEM. */
static int clause_v2(struct fbuf *b, char c, long long prec, cel_value v, const char **err)
{
	switch (c) {
	case 's':
		return format_value(b, v, err);
	case 'd':
		if (v.kind == CEL_INT || v.kind == CEL_UINT)
			put_int(b, v, 10, false);
		else if (v.kind == CEL_DOUBLE) {
			if (!put_special(b, v.d))
				put_float_f(b, v.d);
		} else {
			*err = type_error(b->ev, "decimal clause can only be used on ints, uints, and doubles", v);
			return *err ? -1 : CEL_NOMEM;
		}
		break;
	case 'f':
	case 'e': {
		double d;
		if (v.kind == CEL_INT)
			d = (double)v.i;
		else if (v.kind == CEL_UINT)
			d = (double)v.u;
		else if (v.kind == CEL_DOUBLE)
			d = v.d;
		else {
			*err = type_error(b->ev,
					  c == 'f' ? "fixed-point clause can only be used on ints, uints, and doubles"
						   : "scientific clause can only be used on ints, uints, and doubles",
					  v);
			return *err ? -1 : CEL_NOMEM;
		}
		if (v.kind == CEL_DOUBLE && put_special(b, d))
			break;
		return put_float_prec(b, c, prec, d);
	}
	case 'b':
		if (v.kind == CEL_BOOL)
			fputs_(b, v.b ? "1" : "0");
		else if (v.kind == CEL_INT || v.kind == CEL_UINT)
			put_int(b, v, 2, false);
		else {
			*err = type_error(b->ev, "only ints, uints, and bools can be formatted as binary", v);
			return *err ? -1 : CEL_NOMEM;
		}
		break;
	case 'x':
	case 'X':
		if (v.kind == CEL_INT || v.kind == CEL_UINT)
			put_int(b, v, 16, c == 'X');
		else if (v.kind == CEL_STRING || v.kind == CEL_BYTES) {
			const char *dig = c == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
			for (uint32_t i = 0; i < v.n; i++) {
				unsigned char x = (unsigned char)v.s[i];
				char h[2] = { dig[x >> 4], dig[x & 15] };
				fput(b, h, 2);
			}
		} else {
			*err = type_error(b->ev, "only ints, uints, bytes, and strings can be formatted as hex", v);
			return *err ? -1 : CEL_NOMEM;
		}
		break;
	case 'o':
		if (v.kind == CEL_INT || v.kind == CEL_UINT)
			put_int(b, v, 8, false);
		else {
			*err = type_error(b->ev, "octal clause can only be used on ints and uints", v);
			return *err ? -1 : CEL_NOMEM;
		}
		break;
	}
	return b->oom ? CEL_NOMEM : 0;
}


/* ---- cel-go's first formatter (ext/formatting.go), strings versions 1 to 3 ---------------- */

/* Go's parsenum (fmt, and x/text/message's copy of it) on the decimal digits of n: false when
 * the number is "crazy long" (more digits after the value passed 1e6), in which case x/text
 * prints "%!(NOVERB)" for the whole clause. */
static bool go_parsenum_ok(long long n)
{
	char d[24];
	int len = snprintf(d, sizeof(d), "%lld", n);
	long long num = 0;
	for (int i = 0; i < len; i++) {
		if (num > 1000000)
			return false;
		num = num * 10 + (d[i] - '0');
	}
	return true;
}

/* The significant decimal digits of |d| (no leading or trailing zeros; none for zero) and the
 * position of the point: |d| = 0.DIGITS * 10^point, as x/text's number.Decimal holds them.
 * frac >= 0: rounded to frac fraction digits (strconv.AppendFloat 'f', frac); frac < 0: the
 * shortest digits that round-trip ('g', -1). Arena memory; NULL on out of memory. */
static const char *float_digits(struct cel_eval *ev, double d, int frac, size_t *nd, int *point)
{
	d = fabs(d);
	size_t cap = (size_t)(frac < 0 ? 0 : frac) + 400;
	char *f = cel_alloc(ev, cap);
	if (!f)
		return NULL;
	size_t k = 0;
	if (frac < 0) {
		int prec;
		for (prec = 0; prec < 17; prec++) {
			snprintf(f, cap, "%.*e", prec, d);
			if (strtod(f, NULL) == d)
				break;
		}
		snprintf(f, cap, "%.*e", prec, d);
		char *e = strchr(f, 'e');
		*point = atoi(e + 1) + 1;
		for (char *q = f; q < e; q++)
			if (*q != '.')
				f[k++] = *q;
	} else {
		int n = snprintf(f, cap, "%.*f", frac, d);
		if (n < 0 || (size_t)n >= cap)
			return NULL;
		const char *dot = strchr(f, '.');
		*point = dot ? (int)(dot - f) : n;
		for (int i = 0; i < n; i++)
			if (f[i] != '.')
				f[k++] = f[i];
	}
	const char *dig = f;
	while (k > 0 && *dig == '0') {
		dig++;
		k--;
		(*point)--;
	}
	while (k > 0 && dig[k - 1] == '0')
		k--;
	if (k == 0)
		*point = 0;
	*nd = k;
	return dig;
}

/* message.NewPrinter(en_US).Sprintf("%.<prec>f", d) for a finite d: x/text's decimal
 * pattern "#,##0.###" with MinFractionDigits = uint8(prec) and MaxFractionDigits =
 * int16(prec) (x/text's field widths: "%.256f" of 1.5 is "1.5", "%.65536f" rounds to an
 * integer), digits grouped by three, a minus sign for d < 0 (none for -0). */
static int put_x_fixed(struct fbuf *b, double d, long long prec)
{
	int min_frac = (int)(prec & 0xff), max_frac = (int16_t)(uint16_t)(prec & 0xffff);
	size_t nd;
	int point;
	const char *dig = float_digits(b->ev, d, max_frac, &nd, &point);
	if (!dig)
		return CEL_NOMEM;
	if (d < 0)
		fputs_(b, "-");
	if (point <= 0) {
		fputs_(b, "0");
	} else {
		for (int i = 0; i < point; i++) {
			if (i > 0 && (point - i) % 3 == 0)
				fputs_(b, ",");
			char c = (size_t)i < nd ? dig[i] : '0';
			fput(b, &c, 1);
		}
	}
	int have = (int)nd - point; /* fraction digits the value has */
	int len = have > min_frac ? have : min_frac;
	if (len > 0) {
		fputs_(b, ".");
		for (int j = 0; j < len; j++) {
			int i = point + j;
			char c = i >= 0 && (size_t)i < nd ? dig[i] : '0';
			fput(b, &c, 1);
		}
	}
	return b->oom ? CEL_NOMEM : 0;
}

/* The superscript digits and minus sign of x/text's en_US exponent. */
static const char *const superscript[10] = { "\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
					      "\u2075", "\u2076", "\u2077", "\u2078", "\u2079" };

/* message.NewPrinter(en_US).Sprintf("%<width>e", d): cel-go writes the clause's precision
 * where fmt takes the width ("%%%de"), so the mantissa always has six fraction digits and the
 * precision pads the result with spaces to that many characters (x/text keeps the width as a
 * uint16; "%.0e" is "%0e", the zero flag without a width). en_US writes "1.052033×10⁰³". */
static int put_x_scientific(struct fbuf *b, double d, long long width)
{
	struct fbuf t = { .ev = b->ev };
	char m[40];
	if (isnan(d)) {
		fputs_(&t, "NaN");
	} else if (isinf(d)) {
		fputs_(&t, d < 0 ? "-\u221e" : "\u221e");
	} else {
		snprintf(m, sizeof(m), "%.6e", fabs(d)); /* D.DDDDDDe[+-]XX: 7 digits, round half even */
		char *e = strchr(m, 'e');
		int exp = atoi(e + 1);
		if (d < 0)
			fputs_(&t, "-");
		fput(&t, m, (size_t)(e - m));
		fputs_(&t, "\u00d710");
		if (exp < 0)
			fputs_(&t, "\u207b");
		char ed[8];
		int en = snprintf(ed, sizeof(ed), "%02d", exp < 0 ? -exp : exp);
		for (int i = 0; i < en; i++)
			fputs_(&t, superscript[ed[i] - '0']);
	}
	if (t.oom || !fput(&t, "", 0))
		return CEL_NOMEM;
	size_t w = (size_t)(width & 0xffff), runes = cel_utf8_count(t.p, t.len);
	for (; width > 0 && runes < w; runes++)
		fputs_(b, " ");
	fput(b, t.p, t.len);
	return b->oom ? CEL_NOMEM : 0;
}

/* ConvertToType(StringType) of a scalar, as FormatString uses it (cel-go's string()). */
static int v1_string_of(struct fbuf *b, cel_value v, const char **err)
{
	char tmp[96];
	size_t n;
	switch (v.kind) {
	case CEL_STRING:
		fput(b, v.s, v.n);
		break;
	case CEL_BOOL:
		fputs_(b, v.b ? "true" : "false");
		break;
	case CEL_INT:
	case CEL_UINT:
		put_int(b, v, 10, false);
		break;
	case CEL_DOUBLE:
		n = cel_format_double(v.d, tmp, sizeof(tmp));
		fput(b, tmp, n < sizeof(tmp) ? n : sizeof(tmp) - 1);
		break;
	case CEL_BYTES:
		if (!cel_utf8_valid(v.s, v.n)) {
			*err = "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string";
			return -1;
		}
		fput(b, v.s, v.n);
		break;
	case CEL_TIMESTAMP:
		n = cel_format_timestamp(v.i, v.n, tmp, sizeof(tmp));
		fput(b, tmp, n < sizeof(tmp) ? n : sizeof(tmp) - 1);
		break;
	case CEL_DURATION:
		n = cel_format_duration(v.i, tmp, sizeof(tmp));
		fput(b, tmp, n < sizeof(tmp) ? n : sizeof(tmp) - 1);
		break;
	case CEL_TYPE:
		fputs_(b, cel_type_name(v.type));
		break;
	case CEL_NULL:
		fputs_(b, "null");
		break;
	default:
		*err = type_error(b->ev, err_string_clause, v);
		return *err ? -1 : CEL_NOMEM;
	}
	return b->oom ? CEL_NOMEM : 0;
}

static int v1_format_string(struct fbuf *b, cel_value v, const char **err);

/* A sub-result formatted into its own buffer and, for quoteForCEL, Go-quoted ("%q"). */
static int v1_quoted(struct fbuf *b, cel_value v, const char *prefix, const char *suffix, const char **err)
{
	struct fbuf t = { .ev = b->ev };
	int rc = v1_string_of(&t, v, err);
	if (rc)
		return rc;
	if (t.oom || !fput(&t, "", 0))
		return CEL_NOMEM;
	const char *q = cel_lib_go_quote(b->ev, t.p, t.len);
	if (!q)
		return CEL_NOMEM;
	fputs_(b, prefix);
	fputs_(b, q);
	fputs_(b, suffix);
	return b->oom ? CEL_NOMEM : 0;
}

/* clauseForType(v) then quoteForCEL: a list element or map value. */
static int v1_format_member(struct fbuf *b, cel_value v, const char **err)
{
	switch (v.kind) {
	case CEL_INT:
	case CEL_UINT:
		put_int(b, v, 10, false);
		break;
	case CEL_STRING:
		return v1_quoted(b, v, "", "", err);
	case CEL_BYTES:
		return v1_quoted(b, v, "b", "", err);
	case CEL_TIMESTAMP:
		return v1_quoted(b, v, "timestamp(", ")", err);
	case CEL_DURATION:
		return v1_quoted(b, v, "duration(", ")", err);
	case CEL_BOOL:
	case CEL_NULL:
	case CEL_TYPE:
	case CEL_LIST:
	case CEL_MAP:
		return v1_format_string(b, v, err);
	case CEL_DOUBLE:
		/* fmt.Sprintf("%.6f"): Go spells the specials NaN, +Inf, -Inf; quoted */
		if (isnan(v.d))
			fputs_(b, "\"NaN\"");
		else if (isinf(v.d))
			fputs_(b, v.d < 0 ? "\"-Inf\"" : "\"+Inf\"");
		else
			return put_float_prec(b, 'f', 6, v.d);
		break;
	default: {
		const char *t = cel_value_type_name(v);
		size_t n = strlen(t) + 40;
		char *m = cel_alloc(b->ev, n);
		if (!m)
			return CEL_NOMEM;
		snprintf(m, n, "no formatting function for %s", t);
		*err = m;
		return -1;
	}
	}
	return b->oom ? CEL_NOMEM : 0;
}

/* One piece formatted into its own arena string. */
static int v1_piece(struct cel_eval *ev, int (*fn)(struct fbuf *, cel_value, const char **), cel_value v,
		    char **s, size_t *n, const char **err)
{
	struct fbuf t = { .ev = ev };
	int rc = fn(&t, v, err);
	if (rc)
		return rc;
	if (t.oom || !fput(&t, "", 0))
		return CEL_NOMEM;
	*s = t.p;
	*n = t.len;
	return 0;
}

/* formatMap's key: strings and bools as FormatString (a string quoted), ints and uints as
 * decimals, others rejected. */
static int v1_format_key(struct fbuf *b, cel_value k, const char **err)
{
	switch (k.kind) {
	case CEL_STRING:
		return v1_quoted(b, k, "", "", err);
	case CEL_BOOL:
		return v1_string_of(b, k, err);
	case CEL_INT:
	case CEL_UINT:
		put_int(b, k, 10, false);
		return b->oom ? CEL_NOMEM : 0;
	default: {
		const char *t = cel_value_type_name(k);
		size_t n = strlen(t) + 48;
		char *m = cel_alloc(b->ev, n);
		if (!m)
			return CEL_NOMEM;
		snprintf(m, n, "no formatting function for map key of type %s", t);
		*err = m;
		return -1;
	}
	}
}

/* FormatString: lists as "[a, b]", maps as "{k:v, k:v}" sorted by the formatted key,
 * scalars as string() converts them. */
static int v1_format_string(struct fbuf *b, cel_value v, const char **err)
{
	if (v.kind == CEL_LIST) {
		fputs_(b, "[");
		for (uint32_t i = 0; i < v.list->n; i++) {
			if (i)
				fputs_(b, ", ");
			int rc = v1_format_member(b, v.list->items[i], err);
			if (rc)
				return rc;
		}
		fputs_(b, "]");
		return b->oom ? CEL_NOMEM : 0;
	}
	if (v.kind != CEL_MAP)
		return v1_string_of(b, v, err);
	size_t n = v.map->n;
	struct ent *e = n ? cel_alloc(b->ev, n * sizeof(*e)) : NULL;
	if (n && !e)
		return CEL_NOMEM;
	for (size_t i = 0; i < n; i++) {
		int rc = v1_piece(b->ev, v1_format_key, v.map->keys[i], &e[i].k, &e[i].kn, err);
		if (!rc)
			rc = v1_piece(b->ev, v1_format_member, v.map->vals[i], &e[i].v, &e[i].vn, err);
		if (rc)
			return rc;
	}
	put_sorted_map(b, e, n, ":");
	return b->oom ? CEL_NOMEM : 0;
}

/* A double for %f / %e: doubles, and the strings "NaN", "Infinity" and "-Infinity" (which
 * stringFormatter converts); false otherwise. */
static bool v1_double_arg(cel_value v, double *d)
{
	if (v.kind == CEL_DOUBLE) {
		*d = v.d;
		return true;
	}
	if (v.kind != CEL_STRING)
		return false;
	if (v.n == 3 && !memcmp(v.s, "NaN", 3))
		*d = NAN;
	else if (v.n == 8 && !memcmp(v.s, "Infinity", 8))
		*d = INFINITY;
	else if (v.n == 9 && !memcmp(v.s, "-Infinity", 9))
		*d = -INFINITY;
	else
		return false;
	return true;
}

/* One clause of the first formatter (stringFormatter) applied to v. */
static int clause_v1(struct fbuf *b, char c, long long prec, cel_value v, const char **err)
{
	double d;
	switch (c) {
	case 's':
		return v1_format_string(b, v, err);
	case 'd':
	case 'o':
		if (v.kind != CEL_INT && v.kind != CEL_UINT) {
			*err = type_error(b->ev, c == 'd' ? "decimal clause can only be used on integers"
							  : "octal clause can only be used on integers", v);
			return *err ? -1 : CEL_NOMEM;
		}
		put_int(b, v, c == 'd' ? 10 : 8, false);
		break;
	case 'f':
	case 'e':
		if (!v1_double_arg(v, &d)) {
			*err = type_error(b->ev, c == 'f' ? "fixed-point clause can only be used on doubles"
							  : "scientific clause can only be used on doubles", v);
			return *err ? -1 : CEL_NOMEM;
		}
		/* x/text parses the precision cel-go printed into "%.<p>f" / "%<p>e" */
		if (!go_parsenum_ok(prec)) {
			fputs_(b, "%!(NOVERB)");
			break;
		}
		if (c == 'e')
			return put_x_scientific(b, d, prec);
		if (isnan(d))
			fputs_(b, "NaN");
		else if (isinf(d))
			fputs_(b, d < 0 ? "-\u221e" : "\u221e");
		else
			return put_x_fixed(b, d, prec);
		break;
	case 'b':
		if (v.kind == CEL_BOOL)
			fputs_(b, v.b ? "1" : "0");
		else if (v.kind == CEL_INT || v.kind == CEL_UINT)
			put_int(b, v, 2, false);
		else {
			*err = type_error(b->ev, "only integers and bools can be formatted as binary", v);
			return *err ? -1 : CEL_NOMEM;
		}
		break;
	case 'x':
	case 'X':
		if (v.kind != CEL_INT && v.kind != CEL_UINT && v.kind != CEL_STRING && v.kind != CEL_BYTES) {
			*err = type_error(b->ev, "only integers, byte buffers, and strings can be formatted as hex", v);
			return *err ? -1 : CEL_NOMEM;
		}
		return clause_v2(b, c, prec, v, err); /* the same %x / %X */
	}
	return b->oom ? CEL_NOMEM : 0;
}

/* ---- the clause parser both formatters share -------------------------------------------- */

typedef int (*format_clause_fn)(struct fbuf *b, char c, long long prec, cel_value v, const char **err);

/* parseFormatString / parseFormatStringV2 with the clause functions of one formatter;
 * max_precision 0: no limit. */
static int format_run(struct cel_eval *ev, const cel_value *a, cel_value *out, long long max_precision,
		      format_clause_fn clause)
{
	const char *f = a[0].s;
	size_t len = a[0].n, i = 0, argi = 0;
	const struct cel_list *args = a[1].list;
	struct fbuf b = { .ev = ev };
	fput(&b, "", 0);
	while (i < len) {
		if (f[i] != '%') {
			size_t j = i;
			while (j < len && f[j] != '%')
				j++;
			fput(&b, f + i, j - i);
			i = j;
			continue;
		}
		if (i + 1 < len && f[i + 1] == '%') {
			fput(&b, "%", 1);
			i += 2;
			continue;
		}
		if (argi >= args->n)
			return cel_error(ev, out, "index %zu out of range", argi);
		if (i + 1 >= len)
			return cel_error(ev, out, "unexpected end of string");
		/* parsePrecision on f[i+1..] */
		size_t k = i + 1;
		long long prec = 6;
		if (f[k] == '.') {
			k++;
			size_t ds = k;
			while (k < len && f[k] >= '0' && f[k] <= '9')
				k++;
			if (k >= len)
				return cel_error(ev, out, "could not parse formatting clause: error while parsing precision: "
							  "could not find end of precision specifier");
			/* strconv.Atoi: int64 */
			unsigned long long p = 0;
			bool range = false;
			for (size_t j = ds; j < k; j++) {
				unsigned dg = (unsigned)(f[j] - '0');
				if (p > ((unsigned long long)LLONG_MAX - dg) / 10)
					range = true;
				else
					p = p * 10 + dg;
			}
			if (k == ds || range) {
				const char *q = cel_lib_go_quote(ev, f + ds, k - ds);
				if (!q)
					return CEL_NOMEM;
				return cel_error(ev, out, "could not parse formatting clause: error while parsing precision: "
							  "error while converting precision to integer: strconv.Atoi: parsing %s: "
							  "%s", q, k == ds ? "invalid syntax" : "value out of range");
			}
			if (max_precision > 0 && (long long)p > max_precision)
				return cel_error(ev, out, "could not parse formatting clause: error while parsing precision: "
							  "precision %llu exceeds maximum allowed precision %lld", p,
						 max_precision);
			prec = (long long)p;
		}
		char c = f[k];
		if (!strchr("sdfebxXo", c) || c == 0) {
			/* Go prints rune(formatStr[i]): the byte as a code point */
			char r[8];
			size_t rn = cel_utf8_put(r, (unsigned char)c);
			return cel_error(ev, out, "could not parse formatting clause: unrecognized formatting clause \"%.*s\"",
					 (int)rn, r);
		}
		const char *err = NULL;
		int rc = clause(&b, c, prec, args->items[argi], &err);
		if (rc == CEL_NOMEM)
			return CEL_NOMEM;
		if (rc)
			return cel_error(ev, out, "error during formatting: %s", err);
		i = k + 1;
		argi++;
	}
	if (b.oom)
		return CEL_NOMEM;
	*out = cel_string(b.p, b.len);
	return 0;
}

int cel_lib_format_string(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return format_run(ev, a, out, FORMAT_MAX_PRECISION, clause_v2);
}

int cel_lib_format_string_v4(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return format_run(ev, a, out, 0, clause_v2);
}

int cel_lib_format_string_v1(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return format_run(ev, a, out, 0, clause_v1);
}
