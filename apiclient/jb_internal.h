/* The JSON body builder of apiclient's writes (writes.c, writes_dra.c): a small layer over
 * yajl_gen that remembers the first failure, so a body is written as a straight sequence of calls
 * and checked once, and the path checks and the send shared by every write. */
#ifndef CSCHED_API_JB_INTERNAL_H
#define CSCHED_API_JB_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "api_internal.h"

/* A small builder over yajl_gen that remembers the first failure, so a body is written as a
 * straight sequence of calls and checked once. */
struct jb {
	yajl_gen g;
	yajl_gen_status st;
	const char *bad_key; /* the key whose value failed (not UTF-8) */
	const char *key;
};

static inline bool jb_init(struct jb *b)
{
	memset(b, 0, sizeof(*b));
	b->g = yajl_gen_alloc(NULL);
	if (!b->g)
		return false;
	yajl_gen_config(b->g, yajl_gen_validate_utf8, 1);
	return true;
}

static inline void jb_check(struct jb *b, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok && b->st == yajl_gen_status_ok) {
		b->st = st;
		b->bad_key = b->key;
	}
}

static inline void jb_key(struct jb *b, const char *k)
{
	b->key = k;
	jb_check(b, yajl_gen_string(b->g, (const unsigned char *)k, strlen(k)));
}

static inline void jb_strn(struct jb *b, const char *k, const char *v, size_t n)
{
	jb_key(b, k);
	jb_check(b, yajl_gen_string(b->g, (const unsigned char *)v, n));
}

static inline void jb_str(struct jb *b, const char *k, const char *v)
{
	jb_strn(b, k, v ? v : "", v ? strlen(v) : 0);
}

/* Only when v is set and not empty (omitempty). */
static inline void jb_opt(struct jb *b, const char *k, const char *v)
{
	if (v && *v)
		jb_str(b, k, v);
}

static inline void jb_int(struct jb *b, const char *k, long long v)
{
	jb_key(b, k);
	jb_check(b, yajl_gen_integer(b->g, v));
}

static inline void jb_null(struct jb *b, const char *k)
{
	jb_key(b, k);
	jb_check(b, yajl_gen_null(b->g));
}

static inline void jb_open(struct jb *b, const char *k)
{
	if (k)
		jb_key(b, k);
	jb_check(b, yajl_gen_map_open(b->g));
}

static inline void jb_close(struct jb *b)
{
	jb_check(b, yajl_gen_map_close(b->g));
}

static inline void jb_time(struct jb *b, const char *k, int64_t us)
{
	char t[40];
	api_format_time(us, t, sizeof(t));
	jb_str(b, k, t);
}

static inline int jb_finish(struct jb *b, const char *what, char **out, size_t *len, struct err *e)
{
	int rc;
	if (b->st == yajl_gen_invalid_string)
		rc = err_set(e, ERR_INVALID, "%s: %s: not valid UTF-8", what, b->bad_key ? b->bad_key : "value");
	else if (b->st != yajl_gen_status_ok)
		rc = err_set(e, ERR_INVALID, "%s: cannot build the JSON body (yajl status %d)", what, (int)b->st);
	else
		rc = api__gen_finish(b->g, what, out, len, e);
	yajl_gen_free(b->g);
	b->g = NULL;
	return rc;
}

/* Path segments come from object names (DNS labels/subdomains), but a name with '/', '?', '#'
 * or '%' would change the request: refuse it rather than address another object. */
static inline int check_segment(const char *what, const char *field, const char *s, struct err *e)
{
	if (!s || !*s)
		return err_set(e, ERR_INVALID, "%s: %s: required", what, field);
	if (strpbrk(s, "/?#% \t\r\n"))
		return err_set(e, ERR_INVALID, "%s: %s \"%s\": not a valid object name", what, field, s);
	return 0;
}

/* Finishes b and sends it with method (content type ctype, NULL for JSON) to the path printed
 * from fmt. An out-of-memory message names what and, when name is set, ns/name. */
__attribute__((format(printf, 9, 10))) static inline int jb_send(struct api_conn *conn, struct jb *b, struct err *e,
							   const char *what, const char *ns, const char *name,
							   const char *method, const char *ctype, const char *fmt, ...)
{
	char *body = NULL, *path = NULL;
	size_t len = 0;
	int rc = jb_finish(b, what, &body, &len, e);
	if (rc)
		return rc;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&path, fmt, ap);
	va_end(ap);
	if (n < 0) {
		path = NULL;
		rc = name ? err_set(e, ERR_NOMEM, "%s %s/%s: out of memory", what, ns, name)
			  : err_set(e, ERR_NOMEM, "%s: out of memory", what);
		goto out;
	}
	rc = api_request(conn, method, path, ctype, body, len, NULL, e);
out:
	free(body);
	free(path);
	return rc;
}


#endif
