/* Kubernetes' semver library (k8s.io/apiserver pkg/cel/library/semverlib.go) at version 1, as
 * the base environment enables it: semver(), isSemver() with the optional normalize argument,
 * major, minor, patch, compareTo, isGreaterThan, isLessThan; parsing and ordering as
 * github.com/blang/semver/v4 (Parse, Version.Compare: build metadata is ignored). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"
#include "lib_internal.h"

struct pr {
	bool num;
	uint64_t n;
	const char *s;
	size_t len;
};

struct semver {
	struct cel_object hdr;
	uint64_t major, minor, patch;
	uint32_t npre;
	struct pr pre[];
};

static bool sv_equal(const struct cel_object *a, const struct cel_object *b);
static int sv_compare(const struct cel_object *a, const struct cel_object *b);
static size_t sv_format(const struct cel_object *o, char *buf, size_t cap);

/* No ordering vtable: apiserver's Semver has no < (compareTo and friends are functions). */
static const struct cel_object_type semver_type = {
	{ "kubernetes.Semver", CEL_OBJECT }, sv_equal, NULL, sv_format,
};

static bool only(const char *s, size_t n, bool alpha)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= '0' && c <= '9') ||
			  (alpha && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'));
		if (!ok)
			return false;
	}
	return true;
}

static bool leading_zero(const char *s, size_t n) { return n > 1 && s[0] == '0'; }

static const char *memchr_c(const char *s, size_t n, char c) { return memchr(s, c, n); }

/* A formatted error message in the arena (NULL: out of memory). */
static const char *msgf(struct cel_eval *ev, const char *fmt, const char *what, const char *s, size_t n)
{
	const char *q = cel_lib_go_quote(ev, s, n);
	if (!q)
		return NULL;
	size_t len = strlen(fmt) + strlen(what) + strlen(q) + 1;
	char *m = cel_alloc(ev, len);
	if (m)
		snprintf(m, len, fmt, what, q);
	return m;
}

/* One numeric part (major, minor, patch). 0, or -1 with *msg (NULL: out of memory). */
static int num_part(struct cel_eval *ev, const char *what, const char *What, const char *s, size_t n, uint64_t *v,
		    const char **msg)
{
	if (!only(s, n, false)) {
		*msg = msgf(ev, "Invalid character(s) found in %s number %s", what, s, n);
		return -1;
	}
	if (leading_zero(s, n)) {
		*msg = msgf(ev, "%s number must not contain leading zeroes %s", What, s, n);
		return -1;
	}
	return cel_lib_go_parse_uint(ev, s, n, v, msg);
}

/* semver.Parse. 0 and *out, or -1 with *msg (NULL: out of memory). */
static int sv_parse(struct cel_eval *ev, const char *s, size_t n, struct semver **out, const char **msg)
{
	*msg = NULL;
	if (n == 0) {
		*msg = "Version string empty";
		return -1;
	}
	const char *d1 = memchr_c(s, n, '.');
	const char *d2 = d1 ? memchr_c(d1 + 1, n - (size_t)(d1 + 1 - s), '.') : NULL;
	if (!d2) {
		*msg = "No Major.Minor.Patch elements found";
		return -1;
	}
	uint64_t major, minor, patch;
	if (num_part(ev, "major", "Major", s, (size_t)(d1 - s), &major, msg) != 0 ||
	    num_part(ev, "minor", "Minor", d1 + 1, (size_t)(d2 - d1 - 1), &minor, msg) != 0)
		return -1;
	const char *p = d2 + 1, *end = s + n;
	const char *build = memchr_c(p, (size_t)(end - p), '+');
	const char *pend = build ? build : end;
	const char *pre = memchr_c(p, (size_t)(pend - p), '-');
	const char *patch_end = pre ? pre : pend;
	if (num_part(ev, "patch", "Patch", p, (size_t)(patch_end - p), &patch, msg) != 0)
		return -1;
	uint32_t npre = 0;
	if (pre) {
		npre = 1;
		for (const char *c = pre + 1; c < pend; c++)
			npre += *c == '.';
	}
	struct semver *v = cel_alloc(ev, sizeof(*v) + npre * sizeof(struct pr));
	if (!v)
		return -1;
	v->hdr.type = &semver_type;
	v->major = major, v->minor = minor, v->patch = patch, v->npre = npre;
	const char *c = pre ? pre + 1 : NULL;
	for (uint32_t i = 0; i < npre; i++) {
		const char *e = memchr_c(c, (size_t)(pend - c), '.');
		if (!e)
			e = pend;
		size_t len = (size_t)(e - c);
		struct pr *r = &v->pre[i];
		if (len == 0) {
			*msg = "Prerelease is empty";
			return -1;
		}
		if (only(c, len, false)) {
			if (leading_zero(c, len)) {
				*msg = msgf(ev, "%sNumeric PreRelease version must not contain leading zeroes %s", "", c, len);
				return -1;
			}
			r->num = true;
			if (cel_lib_go_parse_uint(ev, c, len, &r->n, msg) != 0)
				return -1;
		} else if (only(c, len, true)) {
			r->s = c;
			r->len = len;
		} else {
			*msg = msgf(ev, "%sInvalid character(s) found in prerelease %s", "", c, len);
			return -1;
		}
		c = e + 1;
	}
	if (build) {
		const char *b = build + 1;
		for (;;) {
			const char *e = memchr_c(b, (size_t)(end - b), '.');
			if (!e)
				e = end;
			if (e == b) {
				*msg = "Build meta data is empty";
				return -1;
			}
			if (!only(b, (size_t)(e - b), true)) {
				*msg = msgf(ev, "%sInvalid character(s) found in build meta data %s", "", b, (size_t)(e - b));
				return -1;
			}
			if (e == end)
				break;
			b = e + 1;
		}
	}
	*out = v;
	return 0;
}

/* normalizeAndParse: a leading "v" dropped, leading zeroes of the (up to three) dot-separated
 * parts dropped, missing minor / patch added as 0. */
static int sv_normalize_parse(struct cel_eval *ev, const char *s, size_t n, struct semver **out, const char **msg)
{
	if (n > 0 && s[0] == 'v')
		s++, n--;
	const char *parts[3];
	size_t lens[3];
	size_t np = 0, start = 0;
	for (size_t i = 0; np < 2 && i < n; i++)
		if (s[i] == '.') {
			parts[np] = s + start;
			lens[np++] = i - start;
			start = i + 1;
		}
	parts[np] = s + start;
	lens[np++] = n - start;
	for (size_t i = 0; i < np; i++) {
		if (lens[i] > 1) {
			while (lens[i] > 0 && parts[i][0] == '0')
				parts[i]++, lens[i]--;
			if (lens[i] == 0 || !(parts[i][0] >= '0' && parts[i][0] <= '9')) {
				/* p = "0" + p */
				char *np0 = cel_alloc(ev, lens[i] + 1);
				if (!np0) {
					*msg = NULL;
					return -1;
				}
				np0[0] = '0';
				memcpy(np0 + 1, parts[i], lens[i]);
				parts[i] = np0;
				lens[i]++;
			}
		}
	}
	if (np < 3) {
		if (memchr(parts[np - 1], '+', lens[np - 1]) || memchr(parts[np - 1], '-', lens[np - 1])) {
			*msg = "short version cannot contain PreRelease/Build meta data";
			return -1;
		}
		for (; np < 3; np++)
			parts[np] = "0", lens[np] = 1;
	}
	size_t total = lens[0] + lens[1] + lens[2] + 2;
	char *j = cel_alloc(ev, total + 1);
	if (!j) {
		*msg = NULL;
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < 3; i++) {
		if (i)
			j[k++] = '.';
		memcpy(j + k, parts[i], lens[i]);
		k += lens[i];
	}
	return sv_parse(ev, j, k, out, msg);
}

static int parse_arg(struct cel_eval *ev, const cel_value *a, size_t n, struct semver **v, const char **msg)
{
	if (n > 1 && a[1].b)
		return sv_normalize_parse(ev, a[0].s, a[0].n, v, msg);
	return sv_parse(ev, a[0].s, a[0].n, v, msg);
}

/* ---- caller-owned values (cel.h) ---- */

int cel_semver_new(const char *s, size_t len, bool normalize, cel_value *out, struct err *e)
{
	struct cel_eval *ev = cel_eval_new(); /* scratch for parsing and messages */
	if (!ev)
		return err_set(e, ERR_NOMEM, "cel_semver_new: out of memory");
	struct semver *v = NULL;
	const char *msg = NULL;
	int rc = normalize ? sv_normalize_parse(ev, s, len, &v, &msg) : sv_parse(ev, s, len, &v, &msg);
	if (rc != 0) {
		rc = msg ? err_set(e, ERR_INVALID, "cel_semver_new: semver \"%.*s\": %s", (int)(len > 200 ? 200 : len), s, msg)
			 : err_set(e, ERR_NOMEM, "cel_semver_new: out of memory");
		goto out;
	}
	/* one block: the struct, its prerelease identifiers, their text */
	size_t text = 0;
	for (uint32_t i = 0; i < v->npre; i++)
		text += v->pre[i].num ? 0 : v->pre[i].len;
	size_t head = sizeof(*v) + v->npre * sizeof(struct pr);
	struct semver *c = malloc(head + text + 1);
	if (!c) {
		rc = err_set(e, ERR_NOMEM, "cel_semver_new: out of memory");
		goto out;
	}
	memcpy(c, v, head);
	char *t = (char *)c + head;
	for (uint32_t i = 0; i < c->npre; i++) {
		if (c->pre[i].num)
			continue;
		memcpy(t, v->pre[i].s, v->pre[i].len);
		c->pre[i].s = t;
		t += v->pre[i].len;
	}
	*out = cel_object_value(&c->hdr);
out:
	cel_eval_free(ev);
	return rc;
}

static int fn_semver(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	struct semver *v;
	const char *msg;
	if (parse_arg(ev, a, n, &v, &msg) != 0)
		return msg ? cel_error(ev, out, "%s", msg) : CEL_NOMEM;
	*out = cel_object_value(&v->hdr);
	return 0;
}

static int fn_is_semver(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	struct semver *v;
	const char *msg;
	if (parse_arg(ev, a, n, &v, &msg) != 0 && !msg)
		return CEL_NOMEM;
	*out = cel_bool(msg == NULL);
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b) { return a == b ? 0 : a > b ? 1 : -1; }

static int sv_compare(const struct cel_object *ao, const struct cel_object *bo)
{
	const struct semver *a = (const struct semver *)ao, *b = (const struct semver *)bo;
	int c;
	if ((c = cmp_u64(a->major, b->major)) || (c = cmp_u64(a->minor, b->minor)) ||
	    (c = cmp_u64(a->patch, b->patch)))
		return c;
	if (a->npre == 0 || b->npre == 0)
		return a->npre == b->npre ? 0 : a->npre == 0 ? 1 : -1;
	uint32_t i;
	for (i = 0; i < a->npre && i < b->npre; i++) {
		const struct pr *x = &a->pre[i], *y = &b->pre[i];
		if (x->num != y->num)
			return x->num ? -1 : 1;
		if (x->num)
			c = cmp_u64(x->n, y->n);
		else {
			size_t m = x->len < y->len ? x->len : y->len;
			c = memcmp(x->s, y->s, m);
			c = c ? (c > 0 ? 1 : -1) : cmp_u64(x->len, y->len);
		}
		if (c)
			return c;
	}
	if (i == a->npre && i == b->npre)
		return 0;
	return i == a->npre ? -1 : 1;
}

static bool sv_equal(const struct cel_object *a, const struct cel_object *b) { return sv_compare(a, b) == 0; }

static size_t sv_format(const struct cel_object *o, char *buf, size_t cap)
{
	const struct semver *v = (const struct semver *)o;
	size_t len = (size_t)snprintf(buf, cap, "semver(\"%llu.%llu.%llu", (unsigned long long)v->major,
				      (unsigned long long)v->minor, (unsigned long long)v->patch);
	for (uint32_t i = 0; i < v->npre; i++) {
		char *p = len < cap ? buf + len : NULL;
		size_t room = len < cap ? cap - len : 0;
		const char *sep = i ? "." : "-";
		if (v->pre[i].num)
			len += (size_t)snprintf(p, room, "%s%llu", sep, (unsigned long long)v->pre[i].n);
		else
			len += (size_t)snprintf(p, room, "%s%.*s", sep, (int)v->pre[i].len, v->pre[i].s);
	}
	len += (size_t)snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "\")");
	return len;
}

static int fn_compare_to(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(sv_compare(a[0].obj, a[1].obj));
	return 0;
}

static int fn_greater(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(sv_compare(a[0].obj, a[1].obj) == 1);
	return 0;
}

static int fn_less(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_bool(sv_compare(a[0].obj, a[1].obj) == -1);
	return 0;
}

/* types.Int(v.Major): Go converts the uint64 to int64 (wrapping). */
static int fn_major(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int((int64_t)((const struct semver *)a[0].obj)->major);
	return 0;
}

static int fn_minor(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int((int64_t)((const struct semver *)a[0].obj)->minor);
	return 0;
}

static int fn_patch(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int((int64_t)((const struct semver *)a[0].obj)->patch);
	return 0;
}

/* cost.go: semver() and isSemver() ceil(0.1 * size); the others 1 */
static uint64_t cost_parse(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)ceil((double)cel_utf8_count(a[0].s, a[0].n) * 0.1);
}

#define V { CEL_OBJECT, &semver_type }
#define S { CEL_STRING, NULL }
#define B { CEL_BOOL, NULL }

static const struct cel_overload semver_overloads[] = {
	{ "string_to_semver", "semver", CEL_OV_GLOBAL, 1, { S }, fn_semver, NULL, NULL, cost_parse },
	{ "string_bool_to_semver", "semver", CEL_OV_GLOBAL, 2, { S, B }, fn_semver, NULL, NULL, cost_parse },
	{ "is_semver_string", "isSemver", CEL_OV_GLOBAL, 1, { S }, fn_is_semver, NULL, NULL, cost_parse },
	{ "is_semver_string_bool", "isSemver", CEL_OV_GLOBAL, 2, { S, B }, fn_is_semver, NULL, NULL, cost_parse },
	{ "semver_is_greater_than", "isGreaterThan", CEL_OV_RECEIVER, 2, { V, V }, fn_greater, NULL, NULL, NULL },
	{ "semver_is_less_than", "isLessThan", CEL_OV_RECEIVER, 2, { V, V }, fn_less, NULL, NULL, NULL },
	{ "semver_compare_to", "compareTo", CEL_OV_RECEIVER, 2, { V, V }, fn_compare_to, NULL, NULL, NULL },
	{ "semver_major", "major", CEL_OV_RECEIVER, 1, { V }, fn_major, NULL, NULL, NULL },
	{ "semver_minor", "minor", CEL_OV_RECEIVER, 1, { V }, fn_minor, NULL, NULL, NULL },
	{ "semver_patch", "patch", CEL_OV_RECEIVER, 1, { V }, fn_patch, NULL, NULL, NULL },
};

int cel_lib_semver_register(struct cel_env *env, struct err *e)
{
	int rc = cel_env_add_type(env, &semver_type, e);
	if (rc != 0)
		return rc;
	return cel_env_add_overloads(env, semver_overloads, ARRAY_SIZE(semver_overloads), e);
}
