/* string.format(list): cel-go's formatter (ext/formatting_v2.go, parseFormatStringV2 and
 * stringFormatterV2), the one cel-spec's string_ext conformance tests specify: %s %d %f %e
 * %b %x %X %o with an optional precision (%.3f), %% for a percent sign, and cel-go's messages
 * ("could not parse formatting clause: unrecognized formatting clause \"a\"", "index 2 out of
 * range", "error during formatting: decimal clause can only be used on ints, uints, and
 * doubles, was given string").
 *
 * Difference: Kubernetes' base environment enables strings version 2, whose format is cel-go's
 * older formatter (ext/formatting.go: locale-aware %f and %e, quoted strings inside lists);
 * csched implements the current one, which cel-spec specifies; format does not appear in
 * device selectors, which must evaluate to a bool. Precision is limited to 100 digits
 * (cel-go's StringsMaxPrecision default from version 5) so that "%.999999999f" cannot make one
 * call allocate gigabytes. */
#include <inttypes.h>
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
		/* sort.SliceStable by key: stable merge of equal keys is not needed (keys are distinct
		 * values, but 1 and "1" format alike: keep insertion order for those with a stable
		 * insertion sort) */
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
			fputs_(b, ": ");
			fput(b, e[i].v, e[i].vn);
		}
		fputs_(b, "}");
		break;
	}
	default:
		*err = type_error(b->ev, err_string_clause, v);
		return *err ? -1 : CEL_NOMEM;
	}
	return b->oom ? CEL_NOMEM : 0;
}

/* One clause applied to v: 0, -1 with *err, or CEL_NOMEM. */
static int clause(struct fbuf *b, char c, int prec, cel_value v, const char **err)
{
	char tmp[160];
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
		/* Go's %.Nf / %1.Ne: exact decimal expansion, as C's printf */
		int need = snprintf(tmp, sizeof(tmp), c == 'f' ? "%.*f" : "%.*e", prec, d);
		if (need < (int)sizeof(tmp)) {
			fput(b, tmp, (size_t)need);
		} else {
			char *big = cel_alloc(b->ev, (size_t)need + 1);
			if (!big)
				return CEL_NOMEM;
			snprintf(big, (size_t)need + 1, c == 'f' ? "%.*f" : "%.*e", prec, d);
			fput(b, big, (size_t)need);
		}
		break;
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

int cel_lib_format_string(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
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
		/* parseFormattingClauseV2 on f[i+1..] */
		size_t k = i + 1;
		int prec = 6;
		if (f[k] == '.') {
			k++;
			size_t ds = k;
			while (k < len && f[k] >= '0' && f[k] <= '9')
				k++;
			if (k >= len)
				return cel_error(ev, out, "could not parse formatting clause: error while parsing precision: "
							  "could not find end of precision specifier");
			const char *q = cel_lib_go_quote(ev, f + ds, k - ds);
			if (!q)
				return CEL_NOMEM;
			if (k == ds)
				return cel_error(ev, out, "could not parse formatting clause: error while parsing precision: "
							  "error while converting precision to integer: strconv.Atoi: parsing %s: "
							  "invalid syntax", q);
			if (k - ds > 18)
				return cel_error(ev, out, "could not parse formatting clause: error while parsing precision: "
							  "error while converting precision to integer: strconv.Atoi: parsing %s: "
							  "value out of range", q);
			long long p = strtoll(f + ds, NULL, 10);
			if (p > FORMAT_MAX_PRECISION)
				return cel_error(ev, out, "could not parse formatting clause: error while parsing precision: "
							  "precision %lld exceeds maximum allowed precision %d", p,
						 FORMAT_MAX_PRECISION);
			prec = (int)p;
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
