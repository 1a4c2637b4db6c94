/* cel-go's strings extension (ext/strings.go) at the version the environment asks for
 * (cel_env_options.strings_version; Kubernetes' base environment enables version 2), with
 * cel-go's version gates (CompileOptions, ProgramOptions):
 *   0: charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim,
 *      join (converting the list to []string: "unsupported type conversion from 'int' to
 *      string");
 *   1: format (cel-go's first formatter, cel/lib_format.c) and strings.quote;
 *   2: join checks its elements itself ("join: invalid input: 1");
 *   3: (string).reverse() (before it, `'abc'.reverse()` finds only lists' reverse: found no
 *      matching overload for 'reverse' applied to 'string.()');
 *   4: format's current formatter;
 *   5: format's precision limit (100) and cel-go's own cost trackers for these functions,
 *      which take precedence over Kubernetes' CostEstimator (cel-go interpreter/runtimecost.go
 *      costCall asks the overload trackers first).
 *
 * Indexes count code points, as cel-go's []rune(str) does; CEL strings are valid UTF-8.
 * Costs before version 5 are Kubernetes' CostEstimator's (apiserver library/cost.go):
 * ceil(0.1 * size) for lowerAscii, upperAscii, substring and trim, ceil(0.2 * size) for
 * replace and split, ceil(0.2 * size(result)) for join, one traversal (0.1 per byte, rounded
 * down) for indexOf and lastIndexOf, 1 for the others. */
#include <math.h>
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"
#include "lib_internal.h"
#include "time_internal.h"



/* The code points of s (an arena array) and their count. */
static int32_t *runes(struct cel_eval *ev, cel_value s, size_t *n)
{
	int32_t *r = cel_alloc(ev, (s.n + 1) * sizeof(int32_t));
	if (!r)
		return NULL;
	size_t i = 0, k = 0;
	while (i < s.n) {
		int32_t c = cel_utf8_next(s.s, s.n, &i);
		r[k++] = c < 0 ? 0xfffd : c;
	}
	*n = k;
	return r;
}

/* Byte offset of code point number cp in s (s.n when cp is the count). */
static size_t byte_at(cel_value s, size_t cp)
{
	size_t i = 0;
	while (cp > 0 && i < s.n) {
		if (cel_utf8_next(s.s, s.n, &i) < 0)
			i++;
		cp--;
	}
	return i;
}

static int fn_char_at(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	size_t len = cel_utf8_count(a[0].s, a[0].n);
	int64_t i = a[1].i;
	if (i < 0 || (uint64_t)i > len)
		return cel_error(ev, out, "index out of range: %lld", (long long)i);
	size_t b = byte_at(a[0], (size_t)i), e = b;
	if ((size_t)i < len && cel_utf8_next(a[0].s, a[0].n, &e) < 0)
		e = b + 1;
	*out = cel_string(a[0].s + b, e - b);
	return 0;
}

static bool match_at(const int32_t *r, const int32_t *sub, size_t m)
{
	for (size_t j = 0; j < m; j++)
		if (r[j] != sub[j])
			return false;
	return true;
}

/* indexOf / lastIndexOf with a non-empty substring and an offset at or past the end: cel-go
 * returns -1 (ext/strings.go indexOfOffset: "If the offset exceeds the length, return -1 rather
 * than error"; lastIndexOfOffset alike); cel-spec's string_ext tests (indexof_out_of_range,
 * lastindexof_out_of_range) want the error, which cel_env_options.spec_semantics gives. */
static int past_end(struct cel_eval *ev, int64_t off, cel_value *out)
{
	if (cel_eval_spec_semantics(ev))
		return cel_error(ev, out, "index out of range: %lld", (long long)off);
	*out = cel_int(-1);
	return 0;
}

static int fn_index_of(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	int64_t off = n > 2 ? a[2].i : 0;
	if (off < 0)
		return cel_error(ev, out, "index out of range: %lld", (long long)off);
	size_t nr, ns;
	int32_t *r = runes(ev, a[0], &nr), *sub = r ? runes(ev, a[1], &ns) : NULL;
	if (!sub)
		return CEL_NOMEM;
	if (ns == 0) {
		*out = cel_int((uint64_t)off > nr ? (int64_t)nr : off);
		return 0;
	}
	if ((uint64_t)off >= nr)
		return past_end(ev, off, out);
	for (int64_t i = off; i < (int64_t)nr - ((int64_t)ns - 1); i++)
		if (match_at(r + i, sub, ns)) {
			*out = cel_int(i);
			return 0;
		}
	*out = cel_int(-1);
	return 0;
}

static int fn_last_index_of(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	size_t nr, ns;
	int32_t *r = runes(ev, a[0], &nr), *sub = r ? runes(ev, a[1], &ns) : NULL;
	if (!sub)
		return CEL_NOMEM;
	int64_t off;
	if (n > 2) {
		off = a[2].i;
		if (off < 0)
			return cel_error(ev, out, "index out of range: %lld", (long long)off);
	} else {
		if (ns == 0) {
			*out = cel_int((int64_t)nr);
			return 0;
		}
		if (a[0].n < a[1].n) { /* cel-go compares byte lengths here */
			*out = cel_int(-1);
			return 0;
		}
		off = (int64_t)nr - 1;
	}
	if (ns == 0) {
		*out = cel_int((uint64_t)off > nr ? (int64_t)nr : off);
		return 0;
	}
	if ((uint64_t)off >= nr)
		return past_end(ev, off, out);
	if (off > (int64_t)nr - (int64_t)ns)
		off = (int64_t)nr - (int64_t)ns;
	for (int64_t i = off; i >= 0; i--)
		if (match_at(r + i, sub, ns)) {
			*out = cel_int(i);
			return 0;
		}
	*out = cel_int(-1);
	return 0;
}

static int ascii_case(struct cel_eval *ev, cel_value s, bool upper, cel_value *out)
{
	int rc = cel_new_string(ev, s.s, s.n, out);
	if (rc != 0)
		return rc;
	char *p = (char *)out->s;
	for (size_t i = 0; i < s.n; i++) {
		if (upper && p[i] >= 'a' && p[i] <= 'z')
			p[i] = (char)(p[i] - 'a' + 'A');
		else if (!upper && p[i] >= 'A' && p[i] <= 'Z')
			p[i] = (char)(p[i] - 'A' + 'a');
	}
	return 0;
}

static int fn_lower(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return ascii_case(ev, a[0], false, out);
}

static int fn_upper(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return ascii_case(ev, a[0], true, out);
}

/* The byte length of the code point at s[i] (1 for an invalid byte). */
static size_t cp_len(const char *s, size_t n, size_t i)
{
	size_t j = i;
	if (cel_utf8_next(s, n, &j) < 0)
		return 1;
	return j - i;
}

/* strings.Replace(s, old, new, limit) (limit < 0: all). */
static int fn_replace(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	cel_value s = a[0], old = a[1], rep = a[2];
	int64_t limit = n > 3 ? a[3].i : -1;
	/* count the matches */
	size_t m = 0;
	if (old.n == 0) {
		m = cel_utf8_count(s.s, s.n) + 1;
	} else {
		for (size_t i = 0; i + old.n <= s.n;) {
			if (memcmp(s.s + i, old.s, old.n) == 0) {
				m++;
				i += old.n;
			} else {
				i++;
			}
		}
	}
	if (limit >= 0 && (uint64_t)limit < m)
		m = (size_t)limit;
	if (m == 0) {
		*out = s;
		return 0;
	}
	size_t cap = s.n + m * rep.n;
	char *buf = cel_alloc(ev, cap + 1), *w = buf;
	if (!buf)
		return CEL_NOMEM;
	size_t start = 0;
	for (size_t k = 0; k < m; k++) {
		size_t j = start;
		if (old.n == 0) {
			if (k > 0)
				j += cp_len(s.s, s.n, start);
		} else {
			while (memcmp(s.s + j, old.s, old.n) != 0)
				j++;
		}
		memcpy(w, s.s + start, j - start);
		w += j - start;
		memcpy(w, rep.s, rep.n);
		w += rep.n;
		start = j + old.n;
	}
	memcpy(w, s.s + start, s.n - start);
	w += s.n - start;
	*out = cel_string(buf, (size_t)(w - buf));
	return 0;
}

/* strings.SplitN(s, sep, limit) (limit < 0: all; 0: empty list). */
static int fn_split(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	cel_value s = a[0], sep = a[1];
	int64_t limit = n > 2 ? a[2].i : -1;
	size_t parts;
	if (limit == 0)
		parts = 0;
	else if (sep.n == 0) {
		parts = cel_utf8_count(s.s, s.n);
		if (limit > 0 && (uint64_t)limit < parts)
			parts = (size_t)limit;
	} else {
		parts = 1;
		for (size_t i = 0; i + sep.n <= s.n && (limit < 0 || (int64_t)parts < limit);) {
			if (memcmp(s.s + i, sep.s, sep.n) == 0) {
				parts++;
				i += sep.n;
			} else {
				i++;
			}
		}
	}
	struct cel_list *l = cel_new_list(ev, parts);
	if (!l)
		return CEL_NOMEM;
	size_t start = 0;
	for (size_t k = 0; k < parts; k++) {
		size_t end;
		if (k == parts - 1) {
			end = s.n;
		} else if (sep.n == 0) {
			end = start + cp_len(s.s, s.n, start);
		} else {
			end = start;
			while (memcmp(s.s + end, sep.s, sep.n) != 0)
				end++;
		}
		l->items[k] = cel_string(s.s + start, end - start);
		start = end + sep.n;
	}
	*out = (cel_value){ .kind = CEL_LIST };
	out->list = l;
	return 0;
}

static int fn_substring(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	size_t len = cel_utf8_count(a[0].s, a[0].n);
	int64_t start = a[1].i, end = n > 2 ? a[2].i : (int64_t)len;
	if (n > 2 && start > end)
		return cel_error(ev, out, "invalid substring range. start: %lld, end: %lld", (long long)start,
				 (long long)end);
	if (start < 0 || (uint64_t)start > len)
		return cel_error(ev, out, "index out of range: %lld", (long long)start);
	if (end < 0 || (uint64_t)end > len)
		return cel_error(ev, out, "index out of range: %lld", (long long)end);
	size_t b = byte_at(a[0], (size_t)start), e = byte_at(a[0], (size_t)end);
	*out = cel_string(a[0].s + b, e - b);
	return 0;
}

/* unicode.IsSpace */
static bool is_space(int32_t c)
{
	switch (c) {
	case '\t': case '\n': case '\v': case '\f': case '\r': case ' ': case 0x85: case 0xA0: case 0x1680:
	case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
		return true;
	}
	return c >= 0x2000 && c <= 0x200A;
}

static int fn_trim(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	cel_value s = a[0];
	size_t b = 0, e = s.n;
	while (b < e) {
		size_t j = b;
		int32_t c = cel_utf8_next(s.s, s.n, &j);
		if (c < 0 || !is_space(c))
			break;
		b = j;
	}
	while (e > b) {
		size_t k = e - 1;
		while (k > b && ((unsigned char)s.s[k] & 0xC0) == 0x80)
			k--;
		size_t j = k;
		int32_t c = cel_utf8_next(s.s, s.n, &j);
		if (c < 0 || j != e || !is_space(c))
			break;
		e = k;
	}
	*out = cel_string(s.s + b, e - b);
	return 0;
}

/* cel-go's runtime type guard on the declared list(string) parameter looks at the first
 * element only (a dyn list [1, 'a'] is "no such overload", ['a', 1] reaches the function). */
static bool join_guard(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	const struct cel_list *l = a[0].list;
	if (l->n == 0 || l->items[0].kind == CEL_STRING)
		return true;
	cel_error(ev, out, "no such overload: join(list%s)", n > 1 ? ", string" : "");
	return false;
}

static int fn_join(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	const struct cel_list *l = a[0].list;
	if (!join_guard(ev, a, n, out))
		return 0;
	cel_value sep = n > 1 ? a[1] : cel_string("", 0);
	size_t total = 0;
	for (uint32_t i = 0; i < l->n; i++) {
		if (l->items[i].kind != CEL_STRING) {
			/* fmt's %v of the element: a double as Go prints a float64 ("1", not "1.0") */
			char buf[256];
			if (l->items[i].kind == CEL_DOUBLE)
				cel_format_double(l->items[i].d, buf, sizeof(buf));
			else
				cel_value_format(l->items[i], buf, sizeof(buf));
			return cel_error(ev, out, "join: invalid input: %s", buf);
		}
		total += l->items[i].n + (i ? sep.n : 0);
	}
	char *buf = cel_alloc(ev, total + 1), *w = buf;
	if (!buf)
		return CEL_NOMEM;
	for (uint32_t i = 0; i < l->n; i++) {
		if (i) {
			memcpy(w, sep.s, sep.n);
			w += sep.n;
		}
		memcpy(w, l->items[i].s, l->items[i].n);
		w += l->items[i].n;
	}
	*out = cel_string(buf, total);
	return 0;
}

static int fn_quote(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	cel_value s = a[0];
	char *buf = cel_alloc(ev, s.n * 3 + 3), *w = buf;
	if (!buf)
		return CEL_NOMEM;
	*w++ = '"';
	for (size_t i = 0; i < s.n;) {
		size_t j = i;
		int32_t c = cel_utf8_next(s.s, s.n, &j);
		if (c < 0) { /* sanitize: an invalid byte becomes U+FFFD */
			w += cel_utf8_put(w, 0xfffd);
			i++;
			continue;
		}
		const char *esc = NULL;
		switch (c) {
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		case '\\': esc = "\\\\"; break;
		case '"': esc = "\\\""; break;
		}
		if (esc) {
			memcpy(w, esc, 2);
			w += 2;
		} else {
			memcpy(w, s.s + i, j - i);
			w += j - i;
		}
		i = j;
	}
	*w++ = '"';
	*out = cel_string(buf, (size_t)(w - buf));
	return 0;
}

/* reverse(str): the code points in reverse order (version 3). */
static int fn_reverse(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	cel_value s = a[0];
	char *buf = cel_alloc(ev, (size_t)s.n * 3 + 1); /* an invalid byte becomes U+FFFD (3 bytes) */
	if (!buf)
		return CEL_NOMEM;
	size_t nr;
	int32_t *r = runes(ev, s, &nr);
	if (!r)
		return CEL_NOMEM;
	char *w = buf;
	for (size_t i = nr; i > 0; i--)
		w += cel_utf8_put(w, r[i - 1]);
	*out = cel_string(buf, (size_t)(w - buf));
	return 0;
}

/* join before version 2: list.ConvertToNative([]string), whose error is the first non-string
 * element's conversion error, as cel-go v0.29.2 words each (common/types: Double, Bytes,
 * Duration, Timestamp, Null, list and map ConvertToNative; Int and Uint "unsupported"). */
static int fn_join_v0(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	const struct cel_list *l = a[0].list;
	if (!join_guard(ev, a, n, out))
		return 0;
	for (uint32_t i = 0; i < l->n; i++) {
		const char *m = NULL;
		switch (l->items[i].kind) {
		case CEL_STRING: continue;
		case CEL_INT: m = "unsupported type conversion from 'int' to string"; break;
		case CEL_UINT: m = "unsupported type conversion from 'uint' to string"; break;
		case CEL_DOUBLE: m = "type conversion error from Double to 'string'"; break;
		case CEL_BOOL: m = "type conversion error from bool to 'string'"; break;
		case CEL_BYTES: m = "type conversion error from Bytes to 'string'"; break;
		case CEL_NULL: m = "type conversion error from 'null_type' to 'string'"; break;
		case CEL_LIST: m = "type conversion error from list to 'string'"; break;
		case CEL_MAP: m = "type conversion error from map to 'string'"; break;
		case CEL_DURATION: m = "type conversion error from 'Duration' to 'string'"; break;
		case CEL_TIMESTAMP: m = "type conversion error from 'Timestamp' to 'string'"; break;
		case CEL_TYPE: m = "type conversion not supported for 'type'"; break;
		default:
			return cel_error(ev, out, "type conversion error from '%s' to 'string'",
					 cel_value_type_name(l->items[i]));
		}
		return cel_error(ev, out, "%s", m);
	}
	return fn_join(ev, a, n, out);
}

/* ---- Kubernetes' CostEstimator ---- */

static uint64_t cost_tenth(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)ceil((double)cel_utf8_count(a[0].s, a[0].n) * 0.1);
}

static uint64_t cost_fifth(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)ceil((double)cel_utf8_count(a[0].s, a[0].n) * 2 * 0.1);
}

static uint64_t cost_join(const cel_value *a, size_t n, const cel_value *r)
{
	(void)a, (void)n;
	uint64_t size = r->kind == CEL_STRING ? cel_utf8_count(r->s, r->n) : 1;
	return (uint64_t)ceil((double)size * 2 * 0.1);
}

/* cel-go's default for strings_quote and string_format: ceil(0.1 * size(receiver)) */
static uint64_t cost_receiver(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)ceil((double)cel_utf8_count(a[0].s, a[0].n) * 0.1);
}

static uint64_t cost_traversal(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)((double)a[0].n * 0.1);
}

#define S { CEL_STRING, NULL }
#define I { CEL_INT, NULL }
#define L { CEL_LIST, NULL }
#define R CEL_OV_RECEIVER

/* ---- cel-go's cost trackers (ext/strings.go, from version 5) ---- */

/* actualSize of a string: its code points; of a list: its elements */
static uint64_t size_of(const cel_value *v)
{
	if (v->kind == CEL_STRING)
		return cel_utf8_count(v->s, v->n);
	if (v->kind == CEL_LIST)
		return v->list->n;
	return 1;
}

static uint64_t ceil_tenth(uint64_t n) { return (uint64_t)ceil((double)n * 0.1); }

/* trackStringCharAtCost: callCost + ceil(0.1 * size) + 1 */
static uint64_t track_char_at(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return 1 + ceil_tenth(size_of(&a[0])) + 1;
}

/* trackStringTransformCost: callCost + ceil(0.1 * size) + size(result) */
static uint64_t track_transform(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n;
	return 1 + ceil_tenth(size_of(&a[0])) + size_of(r);
}

/* trackStringSearchCost: ceil(0.1 * size * size(substr)) + callCost */
static uint64_t track_search(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return ceil_tenth(size_of(&a[0]) * size_of(&a[1])) + 1;
}

/* trackStringReplaceCost: callCost + ceil(0.1 * max(size,1) * max(size(old),1)) + size(result) */
static uint64_t track_replace(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n;
	uint64_t t = size_of(&a[0]), o = size_of(&a[1]);
	return 1 + ceil_tenth((t ? t : 1) * (o ? o : 1)) + size_of(r);
}

/* trackStringSplitCost: callCost + ceil(0.1 * (size + 1)) + size(result) + ListCreateBaseCost */
static uint64_t track_split(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n;
	return 1 + ceil_tenth(size_of(&a[0]) + 1) + size_of(r) + 10;
}

/* trackStringJoinCost: callCost + ceil(0.1 * (size(list) + 1)) + size(result) */
static uint64_t track_join(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n;
	return 1 + ceil_tenth(size_of(&a[0]) + 1) + size_of(r);
}

#define S { CEL_STRING, NULL }
#define I { CEL_INT, NULL }
#define L { CEL_LIST, NULL }
#define R CEL_OV_RECEIVER

/* Version 0's functions, their costs Kubernetes' CostEstimator's (versions before 5) or
 * cel-go's trackers (from 5); join is version 2's (below, version 0's join). */
static const struct cel_overload base_overloads[2][16] = { {
	{ "string_char_at_int", "charAt", R, 2, { S, I }, fn_char_at, NULL, NULL, NULL },
	{ "string_index_of_string", "indexOf", R, 2, { S, S }, fn_index_of, NULL, NULL, cost_traversal },
	{ "string_index_of_string_int", "indexOf", R, 3, { S, S, I }, fn_index_of, NULL, NULL, cost_traversal },
	{ "string_last_index_of_string", "lastIndexOf", R, 2, { S, S }, fn_last_index_of, NULL, NULL, cost_traversal },
	{ "string_last_index_of_string_int", "lastIndexOf", R, 3, { S, S, I }, fn_last_index_of, NULL, NULL,
	  cost_traversal },
	{ "string_lower_ascii", "lowerAscii", R, 1, { S }, fn_lower, NULL, NULL, cost_tenth },
	{ "string_upper_ascii", "upperAscii", R, 1, { S }, fn_upper, NULL, NULL, cost_tenth },
	{ "string_replace_string_string", "replace", R, 3, { S, S, S }, fn_replace, NULL, NULL, cost_fifth },
	{ "string_replace_string_string_int", "replace", R, 4, { S, S, S, I }, fn_replace, NULL, NULL, cost_fifth },
	{ "string_split_string", "split", R, 2, { S, S }, fn_split, NULL, NULL, cost_fifth },
	{ "string_split_string_int", "split", R, 3, { S, S, I }, fn_split, NULL, NULL, cost_fifth },
	{ "string_substring_int", "substring", R, 2, { S, I }, fn_substring, NULL, NULL, cost_tenth },
	{ "string_substring_int_int", "substring", R, 3, { S, I, I }, fn_substring, NULL, NULL, cost_tenth },
	{ "string_trim", "trim", R, 1, { S }, fn_trim, NULL, NULL, cost_tenth },
	{ "list_join", "join", R, 1, { L }, fn_join, NULL, NULL, cost_join },
	{ "list_join_string", "join", R, 2, { L, S }, fn_join, NULL, NULL, cost_join },
}, {
	{ "string_char_at_int", "charAt", R, 2, { S, I }, fn_char_at, NULL, NULL, track_char_at },
	{ "string_index_of_string", "indexOf", R, 2, { S, S }, fn_index_of, NULL, NULL, track_search },
	{ "string_index_of_string_int", "indexOf", R, 3, { S, S, I }, fn_index_of, NULL, NULL, track_search },
	{ "string_last_index_of_string", "lastIndexOf", R, 2, { S, S }, fn_last_index_of, NULL, NULL, track_search },
	{ "string_last_index_of_string_int", "lastIndexOf", R, 3, { S, S, I }, fn_last_index_of, NULL, NULL,
	  track_search },
	{ "string_lower_ascii", "lowerAscii", R, 1, { S }, fn_lower, NULL, NULL, track_transform },
	{ "string_upper_ascii", "upperAscii", R, 1, { S }, fn_upper, NULL, NULL, track_transform },
	{ "string_replace_string_string", "replace", R, 3, { S, S, S }, fn_replace, NULL, NULL, track_replace },
	{ "string_replace_string_string_int", "replace", R, 4, { S, S, S, I }, fn_replace, NULL, NULL, track_replace },
	{ "string_split_string", "split", R, 2, { S, S }, fn_split, NULL, NULL, track_split },
	{ "string_split_string_int", "split", R, 3, { S, S, I }, fn_split, NULL, NULL, track_split },
	{ "string_substring_int", "substring", R, 2, { S, I }, fn_substring, NULL, NULL, track_transform },
	{ "string_substring_int_int", "substring", R, 3, { S, I, I }, fn_substring, NULL, NULL, track_transform },
	{ "string_trim", "trim", R, 1, { S }, fn_trim, NULL, NULL, track_transform },
	{ "list_join", "join", R, 1, { L }, fn_join, NULL, NULL, track_join },
	{ "list_join_string", "join", R, 2, { L, S }, fn_join, NULL, NULL, track_join },
} };

/* join before version 2 (Kubernetes' CostEstimator: no version below 5 has trackers) */
static const struct cel_overload join_v0_overloads[] = {
	{ "list_join", "join", R, 1, { L }, fn_join_v0, NULL, NULL, cost_join },
	{ "list_join_string", "join", R, 2, { L, S }, fn_join_v0, NULL, NULL, cost_join },
};

/* format by version: [0] first formatter (1..3), [1] current without a limit (4), [2]
 * current with precision <= 100 (5..); strings.quote from version 1. Their cost is cel-go's
 * default, ceil(0.1 * size(receiver)), at every version (no tracker for them). */
static const struct cel_overload format_overloads[3][2] = {
	{ { "string_format", "format", R, 2, { S, L }, cel_lib_format_string_v1, NULL, NULL, cost_receiver },
	  { "strings_quote", "strings.quote", CEL_OV_GLOBAL, 1, { S }, fn_quote, NULL, NULL, cost_receiver } },
	{ { "string_format", "format", R, 2, { S, L }, cel_lib_format_string_v4, NULL, NULL, cost_receiver },
	  { "strings_quote", "strings.quote", CEL_OV_GLOBAL, 1, { S }, fn_quote, NULL, NULL, cost_receiver } },
	{ { "string_format", "format", R, 2, { S, L }, cel_lib_format_string, NULL, NULL, cost_receiver },
	  { "strings_quote", "strings.quote", CEL_OV_GLOBAL, 1, { S }, fn_quote, NULL, NULL, cost_receiver } },
};

/* reverse from version 3: before 5 cel-go has no tracker for it and Kubernetes'
 * CostEstimator none for string_reverse, so cel-go's default call cost 1 */
static const struct cel_overload reverse_overloads[2][1] = {
	{ { "string_reverse", "reverse", R, 1, { S }, fn_reverse, NULL, NULL, NULL } },
	{ { "string_reverse", "reverse", R, 1, { S }, fn_reverse, NULL, NULL, track_transform } },
};

int cel_lib_strings_register(struct cel_env *env, struct err *e)
{
	uint32_t v = cel_env_strings_version(env);
	bool trackers = v >= 5;
	const struct cel_overload *base = base_overloads[trackers];
	/* version 0 and 1: the first 14 (all but join), then the converting join */
	int rc = cel_env_add_overloads(env, base, v >= 2 ? 16 : 14, e);
	if (rc == 0 && v < 2)
		rc = cel_env_add_overloads(env, join_v0_overloads, ARRAY_SIZE(join_v0_overloads), e);
	if (rc == 0 && v >= 1)
		rc = cel_env_add_overloads(env, format_overloads[v >= 5 ? 2 : v >= 4 ? 1 : 0], 2, e);
	if (rc == 0 && v >= 3)
		rc = cel_env_add_overloads(env, reverse_overloads[trackers], 1, e);
	return rc;
}
