/* The standard library's functions (cel-spec langdef "Functions"; cel-go common/stdlib): size,
 * string predicates, type conversions. Operators (arithmetic, comparison, logic, in, index)
 * are evaluated by eval.c directly; timestamps and durations are in time.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "eval_internal.h"
#include "time_internal.h"

int cel_time_register(struct cel_env *env, struct err *e); /* time.c */

/* ---- size ---- */

static int fn_size(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	switch (a[0].kind) {
	case CEL_STRING: *out = cel_int((int64_t)cel_utf8_count(a[0].s, a[0].n)); return 0;
	case CEL_BYTES: *out = cel_int(a[0].n); return 0;
	case CEL_LIST: *out = cel_int(a[0].list->n); return 0;
	case CEL_MAP: *out = cel_int(a[0].map->n); return 0;
	}
	return cel_error_no_overload(ev, out, "size", a, 1);
}

/* ---- string predicates (cel-go: cost ceil(0.1 * size)) ---- */

static bool has_prefix(cel_value s, cel_value p) { return p.n <= s.n && memcmp(s.s, p.s, p.n) == 0; }

static int fn_starts(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(has_prefix(a[0], a[1]));
	return 0;
}

static int fn_ends(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(a[1].n <= a[0].n && memcmp(a[0].s + a[0].n - a[1].n, a[1].s, a[1].n) == 0);
	return 0;
}

static int fn_contains(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(a[1].n == 0 || (a[1].n <= a[0].n && memmem(a[0].s, a[0].n, a[1].s, a[1].n) != NULL));
	return 0;
}

/* cel-go runtimecost.go costCall: startsWith/endsWith ceil(0.1 * size(arg)); contains
 * ceil(0.1 * size(receiver)) * ceil(0.1 * size(arg)). (cel-go counts string sizes in code
 * points; ASCII-dominated selectors make bytes the same.) */
static uint64_t ceil10(uint32_t n) { return (n + 9) / 10; }

static uint64_t cost_prefix(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return ceil10((uint32_t)cel_utf8_count(a[1].s, a[1].n));
}

static uint64_t cost_contains(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return ceil10((uint32_t)cel_utf8_count(a[0].s, a[0].n)) * ceil10((uint32_t)cel_utf8_count(a[1].s, a[1].n));
}

/* cel-go costCall: string(bytes) and bytes(string) traverse: ceil(0.1 * size); other
 * conversions 1. */
static uint64_t cost_convert(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n;
	if ((a[0].kind == CEL_STRING || a[0].kind == CEL_BYTES) && r->kind != a[0].kind)
		return ceil10(a[0].kind == CEL_STRING ? (uint32_t)cel_utf8_count(a[0].s, a[0].n) : a[0].n);
	return 1;
}

/* ---- conversions (cel-go common/types ConvertToType) ---- */

static int fn_int(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	cel_value v = a[0];
	switch (v.kind) {
	case CEL_INT: *out = v; return 0;
	case CEL_UINT:
		if (v.u > INT64_MAX) /* cel-go uint64ToInt64Checked */
			return cel_error(ev, out, "integer overflow");
		*out = cel_int((int64_t)v.u);
		return 0;
	case CEL_DOUBLE:
		/* cel-go doubleToInt64Checked: outside (-2^63, 2^63), infinities and NaN overflow */
		if (!(v.d > -9223372036854775808.0 && v.d < 9223372036854775808.0))
			return cel_error(ev, out, "integer overflow");
		*out = cel_int((int64_t)v.d);
		return 0;
	case CEL_TIMESTAMP: *out = cel_int(v.i); return 0;
	case CEL_DURATION: *out = cel_int(v.i); return 0;
	case CEL_STRING: {
		char buf[64];
		if (v.n == 0 || v.n >= sizeof(buf))
			return cel_error(ev, out, "type conversion error from 'string' to 'int'");
		memcpy(buf, v.s, v.n);
		buf[v.n] = '\0';
		char *end;
		errno = 0;
		long long r = strtoll(buf, &end, 10);
		/* strconv.ParseInt(s, 10, 64): an optional sign, then digits only */
		const char *d = buf + (buf[0] == '+' || buf[0] == '-');
		if (*end || errno || *d < '0' || *d > '9')
			return cel_error(ev, out, "type conversion error from 'string' to 'int'");
		*out = cel_int(r);
		return 0;
	}
	}
	return cel_error_no_overload(ev, out, "int", a, 1);
}

static int fn_uint(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	cel_value v = a[0];
	switch (v.kind) {
	case CEL_UINT: *out = v; return 0;
	case CEL_INT:
		if (v.i < 0) /* cel-go int64ToUint64Checked */
			return cel_error(ev, out, "unsigned integer overflow");
		*out = cel_uint((uint64_t)v.i);
		return 0;
	case CEL_DOUBLE:
		/* cel-go doubleToUint64Checked: v < 0, v >= 2^64, infinities and NaN overflow */
		if (!(v.d >= 0 && v.d < 18446744073709551616.0))
			return cel_error(ev, out, "unsigned integer overflow");
		*out = cel_uint((uint64_t)v.d);
		return 0;
	case CEL_STRING: {
		char buf[64];
		if (v.n == 0 || v.n >= sizeof(buf))
			return cel_error(ev, out, "type conversion error from 'string' to 'uint'");
		memcpy(buf, v.s, v.n);
		buf[v.n] = '\0';
		char *end;
		errno = 0;
		if (buf[0] < '0' || buf[0] > '9')
			return cel_error(ev, out, "type conversion error from 'string' to 'uint'");
		unsigned long long r = strtoull(buf, &end, 10);
		if (*end || errno)
			return cel_error(ev, out, "type conversion error from 'string' to 'uint'");
		*out = cel_uint(r);
		return 0;
	}
	}
	return cel_error_no_overload(ev, out, "uint", a, 1);
}

/* Go's strconv.ParseFloat accepts what strtod does minus hex floats, plus "Inf"/"infinity"
 * spellings, which strtod also takes; it rejects leading or trailing spaces. */
static int fn_double(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	cel_value v = a[0];
	switch (v.kind) {
	case CEL_DOUBLE: *out = v; return 0;
	case CEL_INT: *out = cel_double((double)v.i); return 0;
	case CEL_UINT: *out = cel_double((double)v.u); return 0;
	case CEL_STRING: {
		char buf[128];
		if (v.n == 0 || v.n >= sizeof(buf))
			return cel_error(ev, out, "type conversion error from 'string' to 'double'");
		memcpy(buf, v.s, v.n);
		buf[v.n] = '\0';
		/* strconv.ParseFloat: no white space, hex only with a 'p' exponent, no "nan(...)" */
		bool hex = strchr(buf, 'x') || strchr(buf, 'X');
		bool pexp = strchr(buf, 'p') || strchr(buf, 'P');
		if (isspace((unsigned char)buf[0]) || hex != pexp || strchr(buf, '('))
			return cel_error(ev, out, "type conversion error from 'string' to 'double'");
		char *end;
		double d = strtod(buf, &end);
		if (*end)
			return cel_error(ev, out, "type conversion error from 'string' to 'double'");
		*out = cel_double(d);
		return 0;
	}
	}
	return cel_error_no_overload(ev, out, "double", a, 1);
}

/* Formats a double as Go's fmt %g (strconv.FormatFloat(d, 'g', -1, 64)) does, which is
 * cel-go's string(double): the shortest digits that round-trip, in exponent form when the
 * decimal exponent is < -4 or >= 6 (strconv: "if precision was the shortest possible, use
 * precision 6 for this decision"), the exponent with at least two digits ("1e+06"). */
size_t cel_format_double(double d, char *buf, size_t cap)
{
	if (isnan(d))
		return (size_t)snprintf(buf, cap, "NaN");
	if (isinf(d))
		return (size_t)snprintf(buf, cap, d > 0 ? "+Inf" : "-Inf");
	char tmp[40];
	int prec;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	/* tmp: d.ddde[+-]XX with prec significant digits */
	char digits[32];
	int nd = 0;
	const char *p = tmp;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	int exp = atoi(p + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	char o[64];
	size_t len = 0;
	if (neg)
		o[len++] = '-';
	if (exp < -4 || exp >= 6) {
		o[len++] = digits[0];
		if (nd > 1) {
			o[len++] = '.';
			for (int i = 1; i < nd; i++)
				o[len++] = digits[i];
		}
		len += (size_t)snprintf(o + len, sizeof(o) - len, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	} else if (exp < 0) {
		o[len++] = '0';
		o[len++] = '.';
		for (int i = 0; i < -exp - 1; i++)
			o[len++] = '0';
		for (int i = 0; i < nd; i++)
			o[len++] = digits[i];
	} else {
		for (int i = 0; i <= exp; i++)
			o[len++] = i < nd ? digits[i] : '0';
		if (nd > exp + 1) {
			o[len++] = '.';
			for (int i = exp + 1; i < nd; i++)
				o[len++] = digits[i];
		}
	}
	o[len] = '\0';
	return (size_t)snprintf(buf, cap, "%s", o);
}




static int fn_string(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	cel_value v = a[0];
	char buf[64];
	size_t len;
	switch (v.kind) {
	case CEL_STRING: *out = v; return 0;
	case CEL_BOOL: *out = v.b ? cel_string("true", 4) : cel_string("false", 5); return 0;
	case CEL_INT: len = (size_t)snprintf(buf, sizeof(buf), "%" PRId64, v.i); break;
	case CEL_UINT: len = (size_t)snprintf(buf, sizeof(buf), "%" PRIu64, v.u); break;
	case CEL_DOUBLE: len = cel_format_double(v.d, buf, sizeof(buf)); break;
	case CEL_BYTES:
		if (!cel_utf8_valid(v.s, v.n))
			return cel_error(ev, out, "invalid UTF-8 in bytes, cannot convert to string");
		*out = cel_string(v.s, v.n);
		return 0;
	case CEL_TIMESTAMP: len = cel_format_timestamp(v.i, v.n, buf, sizeof(buf)); break;
	case CEL_DURATION: len = cel_format_duration(v.i, buf, sizeof(buf)); break;
	case CEL_TYPE: *out = cel_string(v.type->name, strlen(v.type->name)); return 0;
	default: return cel_error_no_overload(ev, out, "string", a, 1);
	}
	return cel_new_string(ev, buf, len, out);
}

static int fn_bytes(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	if (a[0].kind == CEL_BYTES) {
		*out = a[0];
		return 0;
	}
	if (a[0].kind == CEL_STRING) {
		*out = cel_bytes(a[0].s, a[0].n);
		return 0;
	}
	return cel_error_no_overload(ev, out, "bytes", a, 1);
}

static int fn_bool(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	if (a[0].kind == CEL_BOOL) {
		*out = a[0];
		return 0;
	}
	if (a[0].kind == CEL_STRING) {
		/* Go strconv.ParseBool */
		static const char *const t[] = { "1", "t", "T", "TRUE", "true", "True" };
		static const char *const f[] = { "0", "f", "F", "FALSE", "false", "False" };
		for (size_t i = 0; i < 6; i++) {
			if (strlen(t[i]) == a[0].n && memcmp(t[i], a[0].s, a[0].n) == 0) {
				*out = cel_bool(true);
				return 0;
			}
			if (strlen(f[i]) == a[0].n && memcmp(f[i], a[0].s, a[0].n) == 0) {
				*out = cel_bool(false);
				return 0;
			}
		}
		return cel_error(ev, out, "type conversion error from 'string' to 'bool'");
	}
	return cel_error_no_overload(ev, out, "bool", a, 1);
}

static int fn_dyn(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = a[0];
	return 0;
}

static int fn_type(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = (cel_value){ .kind = CEL_TYPE };
	out->type = a[0].kind == CEL_OBJECT ? &a[0].obj->type->type : cel_type_of_kind(a[0].kind);
	return 0;
}

/* ---- optionals (cel-go cel/library.go optionalLib) ---- */

static int fn_opt_of(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return cel_new_optional(ev, &a[0], out);
}

static bool is_zero(cel_value v)
{
	switch (v.kind) {
	case CEL_NULL: return true;
	case CEL_BOOL: return !v.b;
	case CEL_INT: return v.i == 0;
	case CEL_UINT: return v.u == 0;
	case CEL_DOUBLE: return v.d == 0;
	case CEL_STRING: case CEL_BYTES: return v.n == 0;
	case CEL_LIST: return v.list->n == 0;
	case CEL_MAP: return v.map->n == 0;
	case CEL_DURATION: return v.i == 0;
	case CEL_TIMESTAMP: return v.i == 0 && v.n == 0;
	case CEL_OPTIONAL: return v.opt == NULL;
	}
	return false;
}

static int fn_opt_of_nonzero(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return cel_new_optional(ev, is_zero(a[0]) ? NULL : &a[0], out);
}

static int fn_opt_none(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)a, (void)n;
	return cel_new_optional(ev, NULL, out);
}

static int fn_opt_has(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(a[0].opt != NULL);
	return 0;
}

static int fn_opt_value(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	if (!a[0].opt)
		return cel_error(ev, out, "optional.none() dereference");
	*out = *a[0].opt;
	return 0;
}

static int fn_opt_or_value(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = a[0].opt ? *a[0].opt : a[1];
	return 0;
}

static int fn_opt_or(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = a[0].opt ? a[0] : a[1];
	return 0;
}

#define ANY { CEL_ANY, NULL }
#define K(k) { k, NULL }
#define G CEL_OV_GLOBAL
#define R CEL_OV_RECEIVER

static const struct cel_overload std_overloads[] = {
	{ "size_string", "size", G | R, 1, { K(CEL_STRING) }, fn_size, NULL, NULL, NULL },
	{ "size_bytes", "size", G | R, 1, { K(CEL_BYTES) }, fn_size, NULL, NULL, NULL },
	{ "size_list", "size", G | R, 1, { K(CEL_LIST) }, fn_size, NULL, NULL, NULL },
	{ "size_map", "size", G | R, 1, { K(CEL_MAP) }, fn_size, NULL, NULL, NULL },
	{ "starts_with_string", "startsWith", R, 2, { K(CEL_STRING), K(CEL_STRING) }, fn_starts, NULL, NULL, cost_prefix },
	{ "ends_with_string", "endsWith", R, 2, { K(CEL_STRING), K(CEL_STRING) }, fn_ends, NULL, NULL, cost_prefix },
	{ "contains_string", "contains", R, 2, { K(CEL_STRING), K(CEL_STRING) }, fn_contains, NULL, NULL, cost_contains },
	{ "int", "int", G, 1, { ANY }, fn_int, NULL, NULL, NULL },
	{ "uint", "uint", G, 1, { ANY }, fn_uint, NULL, NULL, NULL },
	{ "double", "double", G, 1, { ANY }, fn_double, NULL, NULL, NULL },
	{ "string", "string", G, 1, { ANY }, fn_string, NULL, NULL, cost_convert },
	{ "bytes", "bytes", G, 1, { ANY }, fn_bytes, NULL, NULL, cost_convert },
	{ "bool", "bool", G, 1, { ANY }, fn_bool, NULL, NULL, NULL },
	{ "dyn", "dyn", G, 1, { ANY }, fn_dyn, NULL, NULL, NULL },
	{ "type", "type", G, 1, { ANY }, fn_type, NULL, NULL, NULL },
	{ "optional_of", "optional.of", G, 1, { ANY }, fn_opt_of, NULL, NULL, NULL },
	{ "optional_ofNonZeroValue", "optional.ofNonZeroValue", G, 1, { ANY }, fn_opt_of_nonzero, NULL, NULL, NULL },
	{ "optional_none", "optional.none", G, 0, { ANY }, fn_opt_none, NULL, NULL, NULL },
	{ "optional_hasValue", "hasValue", R, 1, { K(CEL_OPTIONAL) }, fn_opt_has, NULL, NULL, NULL },
	{ "optional_value", "value", R, 1, { K(CEL_OPTIONAL) }, fn_opt_value, NULL, NULL, NULL },
	{ "optional_orValue_value", "orValue", R, 2, { K(CEL_OPTIONAL), ANY }, fn_opt_or_value, NULL, NULL, NULL },
	{ "optional_or_optional", "or", R, 2, { K(CEL_OPTIONAL), K(CEL_OPTIONAL) }, fn_opt_or, NULL, NULL, NULL },
};

int cel_std_register(struct cel_env *env, struct err *e)
{
	int rc = cel_env_add_overloads(env, std_overloads, sizeof(std_overloads) / sizeof(std_overloads[0]), e);
	if (rc == 0)
		rc = cel_time_register(env, e);
	return rc;
}
