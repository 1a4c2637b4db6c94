/* Delegated authentication (TokenReview) and authorization (SubjectAccessReview) of the health
 * server's requests, with upstream's caches (contract in scheduler/health.h).
 *
 * DESIGN: the decision is upstream's handler chain reduced to what kube-scheduler configures:
 * bearertoken.Authenticator over a cached webhook token authenticator (cache.New(tokenAuth,
 * false, ttl, ttl): errors uncached), anonymous otherwise; then a union of the always-allow
 * groups, the path authorizer and the cached SubjectAccessReview webhook. Cache keys are SHA-256
 * digests (of the token, of the review's body), so no token is kept in memory. A cache is a
 * fixed array searched linearly (SCHED_AUTH_CACHE_MAX entries): when full, an expired or else the
 * oldest entry is replaced, so random tokens cannot grow memory. One mutex guards both caches; it
 * is never held across a review call. */
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_client.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "health_internal.h"

#define DIGEST 32

struct cache_ent {
	unsigned char key[DIGEST];
	int64_t expires, added; /* 0 expires: empty slot */
	bool ok;                /* authenticated / allowed */
	char *data;             /* token: the user JSON object; SAR: the reason ("" none) */
};

struct cache {
	struct cache_ent *e; /* SCHED_AUTH_CACHE_MAX */
};

struct sched_auth {
	struct sched_auth_options o;
	char **paths; /* always-allow paths */
	size_t npaths;
	pthread_mutex_t mu;
	struct cache tokens, sars;
	struct api_conn *authn_conn, *authz_conn; /* lazily, under review_mu */
	pthread_mutex_t review_mu;                /* api_conn is single-threaded */
	int64_t (*now)(void *ctx);
	void *now_ctx;
	atomic_ulong n_token_reviews, n_access_reviews;
};

static int64_t mono_ns(void *ctx)
{
	(void)ctx;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sched_auth_set_clock(struct sched_auth *a, int64_t (*now)(void *ctx), void *ctx)
{
	a->now = now;
	a->now_ctx = ctx;
}

void sched_auth_review_counts(const struct sched_auth *a, unsigned long *token_reviews,
			      unsigned long *access_reviews)
{
	*token_reviews = atomic_load(&a->n_token_reviews);
	*access_reviews = atomic_load(&a->n_access_reviews);
}

/* ---------- Caches ---------- */

static void digest(const char *prefix, const char *s, unsigned char out[DIGEST])
{
	gnutls_hash_hd_t h;
	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0) {
		memset(out, 0, DIGEST); /* cannot happen with a working GnuTLS; all-zero key still works */
		return;
	}
	gnutls_hash(h, prefix, strlen(prefix) + 1);
	gnutls_hash(h, s, strlen(s));
	gnutls_hash_deinit(h, out);
}

/* A hit's copy of data (malloc'd) in *data; false on a miss. Caller holds mu. */
static bool cache_get(struct cache *c, const unsigned char key[DIGEST], int64_t now, bool *ok, char **data)
{
	for (size_t i = 0; i < SCHED_AUTH_CACHE_MAX; i++) {
		struct cache_ent *x = &c->e[i];
		if (x->expires == 0 || memcmp(x->key, key, DIGEST) != 0)
			continue;
		if (now >= x->expires)
			return false;
		*ok = x->ok;
		*data = strdup(x->data ? x->data : "");
		return *data != NULL;
	}
	return false;
}

static void cache_put(struct cache *c, const unsigned char key[DIGEST], int64_t now, int64_t ttl, bool ok,
		      const char *data)
{
	char *copy = strdup(data ? data : "");
	if (!copy)
		return;
	struct cache_ent *slot = NULL, *oldest = NULL;
	for (size_t i = 0; i < SCHED_AUTH_CACHE_MAX; i++) {
		struct cache_ent *x = &c->e[i];
		if (x->expires != 0 && memcmp(x->key, key, DIGEST) == 0) {
			slot = x;
			break;
		}
		if (!slot && (x->expires == 0 || now >= x->expires))
			slot = x;
		if (!oldest || x->added < oldest->added)
			oldest = x;
	}
	if (!slot)
		slot = oldest;
	free(slot->data);
	memcpy(slot->key, key, DIGEST);
	slot->expires = now + ttl;
	slot->added = now;
	slot->ok = ok;
	slot->data = copy;
}

static void cache_free(struct cache *c)
{
	if (!c->e)
		return;
	for (size_t i = 0; i < SCHED_AUTH_CACHE_MAX; i++)
		free(c->e[i].data);
	free(c->e);
}

/* ---------- Lifecycle ---------- */

/* upstream path.NewAuthorizer: each path without its leading "/"; "*" only as the last character
 * (a prefix). */
static int split_paths(struct sched_auth *a, const char *list, struct err *e)
{
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *q = p;
		if (n && *q == '/')
			q++;
		size_t m = n - (size_t)(q - p);
		if (m > 1 && memchr(q, '*', m - 1))
			return err_set(e, ERR_INVALID, "only trailing * allowed in \"%.*s\"", (int)m, q);
		if (n) {
			char **np = realloc(a->paths, (a->npaths + 1) * sizeof *np);
			if (!np)
				return err_set(e, ERR_NOMEM, "out of memory");
			a->paths = np;
			if (!(a->paths[a->npaths] = strndup(q, m)))
				return err_set(e, ERR_NOMEM, "out of memory");
			a->npaths++;
		}
		p += n + (end ? 1 : 0);
	}
	return 0;
}

struct sched_auth *sched_auth_new(const struct sched_auth_options *o, struct err *e)
{
	struct sched_auth *a = calloc(1, sizeof *a);
	if (!a) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (o)
		a->o = *o;
	if (a->o.token_ttl_ns <= 0)
		a->o.token_ttl_ns = SCHED_AUTH_DEFAULT_TTL_NS;
	if (a->o.allow_ttl_ns <= 0)
		a->o.allow_ttl_ns = SCHED_AUTH_DEFAULT_TTL_NS;
	if (a->o.deny_ttl_ns <= 0)
		a->o.deny_ttl_ns = SCHED_AUTH_DEFAULT_TTL_NS;
	a->now = mono_ns;
	pthread_mutex_init(&a->mu, NULL);
	pthread_mutex_init(&a->review_mu, NULL);
	a->tokens.e = calloc(SCHED_AUTH_CACHE_MAX, sizeof(struct cache_ent));
	a->sars.e = calloc(SCHED_AUTH_CACHE_MAX, sizeof(struct cache_ent));
	if (!a->tokens.e || !a->sars.e) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto fail;
	}
	const char *paths = a->o.always_allow_paths ? a->o.always_allow_paths : SCHED_AUTH_DEFAULT_ALWAYS_ALLOW_PATHS;
	if (split_paths(a, paths, e) < 0) {
		err_prefix(e, "--authorization-always-allow-paths");
		goto fail;
	}
	a->o.always_allow_paths = NULL; /* not kept */
	return a;
fail:
	sched_auth_free(a);
	return NULL;
}

void sched_auth_free(struct sched_auth *a)
{
	if (!a)
		return;
	cache_free(&a->tokens);
	cache_free(&a->sars);
	for (size_t i = 0; i < a->npaths; i++)
		free(a->paths[i]);
	free(a->paths);
	api_conn_free(a->authn_conn);
	api_conn_free(a->authz_conn);
	pthread_mutex_destroy(&a->mu);
	pthread_mutex_destroy(&a->review_mu);
	free(a);
}

/* ---------- JSON ---------- */

/* The string of v, or dflt when v is not a string. */
static const char *str_or(yajl_val v, const char *dflt)
{
	return v && v->type == yajl_t_string && v->u.string ? v->u.string : dflt;
}

/* Go's encoding/json string escaping (HTML-safe: <, >, & as \u00XX). */
static void json_str(struct strbuf *sb, const char *s)
{
	strbuf_puts(sb, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(sb, "\\%c", *p);
		else if (*p == '\n')
			strbuf_puts(sb, "\\n");
		else if (*p == '\r')
			strbuf_puts(sb, "\\r");
		else if (*p == '\t')
			strbuf_puts(sb, "\\t");
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			strbuf_addf(sb, "\\u%04x", *p);
		else
			strbuf_add(sb, p, 1);
	}
	strbuf_puts(sb, "\"");
}

/* Writes a JSON value of strings, arrays and objects (a TokenReview's user: username, uid,
 * groups, extra); other kinds are dropped as null. */
static void json_val(struct strbuf *sb, yajl_val v)
{
	if (YAJL_IS_STRING(v)) {
		json_str(sb, str_or(v, ""));
	} else if (YAJL_IS_ARRAY(v)) {
		strbuf_puts(sb, "[");
		for (size_t i = 0; i < v->u.array.len; i++) {
			if (i)
				strbuf_puts(sb, ",");
			json_val(sb, v->u.array.values[i]);
		}
		strbuf_puts(sb, "]");
	} else if (YAJL_IS_OBJECT(v)) {
		strbuf_puts(sb, "{");
		for (size_t i = 0; i < v->u.object.len; i++) {
			if (i)
				strbuf_puts(sb, ",");
			json_str(sb, v->u.object.keys[i]);
			strbuf_puts(sb, ":");
			json_val(sb, v->u.object.values[i]);
		}
		strbuf_puts(sb, "}");
	} else {
		strbuf_puts(sb, "null");
	}
}

static yajl_val field(yajl_val obj, const char *a, const char *b)
{
	const char *path[] = {a, b, NULL};
	return yajl_tree_get(obj, path, yajl_t_any);
}

/* ---------- Reviews ---------- */

static int default_post(struct sched_auth *a, bool authz, const char *path, const char *body, char **resp,
			struct err *e)
{
	struct api_client *cl = authz ? a->o.authz : a->o.authn;
	struct api_conn **conn = authz ? &a->authz_conn : &a->authn_conn;
	pthread_mutex_lock(&a->review_mu);
	int rc = 0;
	if (!*conn && !(*conn = api_conn_new(cl, e)))
		rc = -1;
	struct api_response r = {0};
	if (rc == 0 && (rc = api_request(*conn, "POST", path, NULL, body, strlen(body), &r, e)) == 0) {
		*resp = r.body;
		r.body = NULL;
	}
	api_response_release(&r);
	pthread_mutex_unlock(&a->review_mu);
	return rc;
}

static int post(struct sched_auth *a, bool authz, const char *path, const char *body, char **resp, struct err *e)
{
	*resp = NULL;
	if (authz)
		atomic_fetch_add(&a->n_access_reviews, 1);
	else
		atomic_fetch_add(&a->n_token_reviews, 1);
	if (a->o.post)
		return a->o.post(a->o.post_ctx, authz, path, body, resp, e);
	return default_post(a, authz, path, body, resp, e);
}

enum outcome { OUT_OK, OUT_NO, OUT_ERROR, OUT_PENDING };

/* TokenReview: OUT_OK with *user (the user JSON object, malloc'd), OUT_NO, OUT_ERROR. */
static enum outcome review_token(struct sched_auth *a, const char *token, bool may_block, char **user)
{
	unsigned char key[DIGEST];
	digest("token", token, key);
	bool ok;
	pthread_mutex_lock(&a->mu);
	bool hit = cache_get(&a->tokens, key, a->now(a->now_ctx), &ok, user);
	pthread_mutex_unlock(&a->mu);
	if (hit) {
		if (ok)
			return OUT_OK;
		free(*user);
		*user = NULL;
		return OUT_NO;
	}
	if (!may_block)
		return OUT_PENDING;
	struct strbuf body = STRBUF_INIT;
	strbuf_puts(&body, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":");
	json_str(&body, token);
	strbuf_puts(&body, "}}");
	if (body.oom) {
		strbuf_release(&body);
		return OUT_ERROR;
	}
	char *resp = NULL;
	struct err e = {0};
	int rc = post(a, false, "/apis/authentication.k8s.io/v1/tokenreviews", body.data, &resp, &e);
	strbuf_release(&body);
	if (rc != 0) {
		LOG_ERROR("Failed to make webhook authenticator request: %s", e.msg);
		free(resp);
		return OUT_ERROR;
	}
	char errbuf[128];
	yajl_val doc = yajl_tree_parse(resp, errbuf, sizeof errbuf);
	free(resp);
	if (!doc) {
		LOG_ERROR("Failed to make webhook authenticator request: %s", errbuf);
		return OUT_ERROR;
	}
	yajl_val st = field(doc, "status", NULL);
	yajl_val authd = st ? field(st, "authenticated", NULL) : NULL;
	yajl_val u = st ? field(st, "user", NULL) : NULL;
	ok = authd && YAJL_IS_TRUE(authd) && u && YAJL_IS_OBJECT(u);
	const char *why = st ? str_or(field(st, "error", NULL), "") : "";
	if (!ok && *why) {
		/* upstream webhook: not authenticated with status.error is an error, which the token
		 * cache does not keep (cacheErrs false): 401 now, a new review next time */
		LOG_V(4, "Unable to authenticate the request: %s", why);
		yajl_tree_free(doc);
		return OUT_NO;
	}
	struct strbuf ub = STRBUF_INIT;
	if (ok)
		json_val(&ub, u);
	yajl_tree_free(doc);
	if (ub.oom) {
		strbuf_release(&ub);
		return OUT_ERROR;
	}
	pthread_mutex_lock(&a->mu);
	cache_put(&a->tokens, key, a->now(a->now_ctx), a->o.token_ttl_ns, ok, ub.data);
	pthread_mutex_unlock(&a->mu);
	if (!ok) {
		strbuf_release(&ub);
		return OUT_NO;
	}
	*user = strbuf_detach(&ub, NULL);
	return OUT_OK;
}

/* The SubjectAccessReview request for user (JSON object from a TokenReview) on path/verb. */
static char *sar_body(yajl_val u, const char *path, const char *verb)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_puts(&b, "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"spec\":{"
			"\"nonResourceAttributes\":{\"path\":");
	json_str(&b, path);
	strbuf_puts(&b, ",\"verb\":");
	json_str(&b, verb);
	strbuf_puts(&b, "},\"user\":");
	yajl_val name = field(u, "username", NULL), uid = field(u, "uid", NULL);
	json_str(&b, str_or(name, ""));
	if (*str_or(uid, "")) {
		strbuf_puts(&b, ",\"uid\":");
		json_str(&b, str_or(uid, ""));
	}
	yajl_val groups = field(u, "groups", NULL), extra = field(u, "extra", NULL);
	if (YAJL_IS_ARRAY(groups) && groups->u.array.len) {
		strbuf_puts(&b, ",\"groups\":");
		json_val(&b, groups);
	}
	if (YAJL_IS_OBJECT(extra) && extra->u.object.len) {
		strbuf_puts(&b, ",\"extra\":");
		json_val(&b, extra);
	}
	strbuf_puts(&b, "}}");
	if (b.oom) {
		strbuf_release(&b);
		return NULL;
	}
	return strbuf_detach(&b, NULL);
}

/* SubjectAccessReview: OUT_OK, OUT_NO with *reason (malloc'd, "" none), OUT_ERROR, OUT_PENDING. */
static enum outcome review_access(struct sched_auth *a, const char *body, bool may_block, char **reason)
{
	unsigned char key[DIGEST];
	digest("sar", body, key);
	bool ok;
	pthread_mutex_lock(&a->mu);
	bool hit = cache_get(&a->sars, key, a->now(a->now_ctx), &ok, reason);
	pthread_mutex_unlock(&a->mu);
	if (hit)
		return ok ? OUT_OK : OUT_NO;
	if (!may_block)
		return OUT_PENDING;
	char *resp = NULL;
	struct err e = {0};
	if (post(a, true, "/apis/authorization.k8s.io/v1/subjectaccessreviews", body, &resp, &e) != 0) {
		free(resp);
		if (!(*reason = strdup(e.msg)))
			return OUT_ERROR;
		return OUT_ERROR;
	}
	char errbuf[128];
	yajl_val doc = yajl_tree_parse(resp, errbuf, sizeof errbuf);
	free(resp);
	if (!doc) {
		*reason = strdup(errbuf);
		return OUT_ERROR;
	}
	yajl_val allowed = field(doc, "status", "allowed"), why = field(doc, "status", "reason");
	ok = allowed && YAJL_IS_TRUE(allowed);
	*reason = strdup(str_or(why, ""));
	yajl_tree_free(doc);
	if (!*reason)
		return OUT_ERROR;
	pthread_mutex_lock(&a->mu);
	cache_put(&a->sars, key, a->now(a->now_ctx), ok ? a->o.allow_ttl_ns : a->o.deny_ttl_ns, ok, *reason);
	pthread_mutex_unlock(&a->mu);
	return ok ? OUT_OK : OUT_NO;
}

/* ---------- Responses (k8s.io/apiserver responsewriters) ---------- */

static void refuse_unauthorized(struct sched_auth_decision *d)
{
	/* filters.Unauthorized: apierrors.NewUnauthorized("Unauthorized"), JSON-encoded */
	static const char body[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
				   "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n";
	d->verdict = SCHED_AUTH_UNAUTHORIZED;
	d->status = 401;
	d->content_type = "application/json";
	d->body = strdup(body);
	d->len = d->body ? strlen(body) : 0;
}

/* responsewriters sanitizer: & < > as HTML entities. */
static void sanitized(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			strbuf_puts(sb, "&amp;");
		else if (*s == '<')
			strbuf_puts(sb, "&lt;");
		else if (*s == '>')
			strbuf_puts(sb, "&gt;");
		else
			strbuf_add(sb, s, 1);
	}
}

/* Go's %q of a valid UTF-8 string without control characters: "..." with \" and \\. */
static void go_quote(struct strbuf *sb, const char *s)
{
	strbuf_puts(sb, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_add(sb, "\\", 1);
		if ((unsigned char)*s < 0x20)
			strbuf_addf(sb, "\\x%02x", (unsigned char)*s);
		else
			strbuf_add(sb, s, 1);
	}
	strbuf_puts(sb, "\"");
}

static void refuse_forbidden(struct sched_auth_decision *d, const char *user, const char *verb, const char *path,
			     const char *reason)
{
	/* ForbiddenStatusError: NewForbidden(GroupResource{}, "", "User %q cannot %s path %q[: reason]") */
	struct strbuf m = STRBUF_INIT, q = STRBUF_INIT, b = STRBUF_INIT;
	strbuf_puts(&q, "User ");
	go_quote(&q, user);
	strbuf_addf(&q, " cannot %s path ", verb);
	go_quote(&q, path);
	strbuf_puts(&m, "forbidden: ");
	sanitized(&m, q.data ? q.data : "");
	if (reason && *reason)
		strbuf_addf(&m, ": %s", reason);
	strbuf_puts(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":");
	json_str(&b, m.data ? m.data : "");
	strbuf_puts(&b, ",\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
	d->verdict = SCHED_AUTH_FORBIDDEN;
	d->status = 403;
	d->content_type = "application/json";
	d->body = b.oom ? NULL : strbuf_detach(&b, &d->len);
	strbuf_release(&b);
	strbuf_release(&m);
	strbuf_release(&q);
}

static void refuse_error(struct sched_auth_decision *d, const char *path, const char *why)
{
	/* responsewriters.InternalError: http.Error(w, sanitize("Internal Server Error: %q: %v")) */
	struct strbuf b = STRBUF_INIT, q = STRBUF_INIT;
	strbuf_puts(&q, "Internal Server Error: ");
	go_quote(&q, path);
	strbuf_addf(&q, ": %s", why);
	sanitized(&b, q.data ? q.data : "");
	strbuf_puts(&b, "\n");
	d->verdict = SCHED_AUTH_ERROR;
	d->status = 500;
	d->content_type = "text/plain; charset=utf-8";
	d->body = b.oom ? NULL : strbuf_detach(&b, &d->len);
	strbuf_release(&b);
	strbuf_release(&q);
}

/* ---------- The decision ---------- */

/* upstream bearertoken.AuthenticateRequest: "Bearer <token>[ ...]", case-insensitive scheme,
 * after TrimSpace; anything else is no token. *token points into a copy in buf. */
static const char *bearer_token(const char *header, char *buf, size_t size)
{
	if (!header)
		return NULL;
	while (*header == ' ' || *header == '\t' || *header == '\r' || *header == '\n')
		header++;
	if (strncasecmp(header, "bearer ", 7) != 0)
		return NULL;
	const char *t = header + 7;
	size_t n = strcspn(t, " ");
	while (n && (t[n - 1] == '\t' || t[n - 1] == '\r' || t[n - 1] == '\n'))
		n--;
	if (n == 0 || n >= size)
		return n == 0 ? NULL : "";
	memcpy(buf, t, n);
	buf[n] = '\0';
	return buf;
}

static bool path_allowed(const struct sched_auth *a, const char *path)
{
	if (*path == '/')
		path++;
	for (size_t i = 0; i < a->npaths; i++) {
		const char *p = a->paths[i];
		size_t n = strlen(p);
		if (n && p[n - 1] == '*' ? strncmp(path, p, n - 1) == 0 : strcmp(path, p) == 0)
			return true;
	}
	return false;
}

static bool in_group(yajl_val u, const char *group)
{
	yajl_val g = field(u, "groups", NULL);
	if (!YAJL_IS_ARRAY(g))
		return false;
	for (size_t i = 0; i < g->u.array.len; i++)
		if (strcmp(str_or(g->u.array.values[i], ""), group) == 0)
			return true;
	return false;
}

static const char anonymous_user[] = "{\"username\":\"system:anonymous\",\"groups\":[\"system:unauthenticated\"]}";

static void authorize(struct sched_auth *a, yajl_val u, const char *path, const char *verb, bool may_block,
		      struct sched_auth_decision *d)
{
	yajl_val name = field(u, "username", NULL);
	const char *user = str_or(name, "");
	if (in_group(u, "system:masters") || path_allowed(a, path)) {
		d->verdict = SCHED_AUTH_ALLOW;
		d->status = 200;
		return;
	}
	if (!a->o.authz && !a->o.post) {
		refuse_forbidden(d, user, verb, path, "");
		return;
	}
	char *body = sar_body(u, path, verb), *reason = NULL;
	if (!body) {
		refuse_error(d, path, "out of memory");
		return;
	}
	enum outcome out = review_access(a, body, may_block, &reason);
	free(body);
	if (out == OUT_OK) {
		d->verdict = SCHED_AUTH_ALLOW;
		d->status = 200;
	} else if (out == OUT_PENDING) {
		d->verdict = SCHED_AUTH_PENDING;
	} else if (out == OUT_NO) {
		refuse_forbidden(d, user, verb, path, reason);
	} else {
		LOG_ERROR("Failed to make webhook authorizer request: %s", reason ? reason : "out of memory");
		refuse_error(d, path, reason ? reason : "out of memory");
	}
	free(reason);
}

void sched_auth_decide(struct sched_auth *a, const char *authorization, const char *path, const char *verb,
		       bool may_block, struct sched_auth_decision *d)
{
	memset(d, 0, sizeof *d);
	char buf[8192];
	const char *token = (a->o.authn || a->o.post) ? bearer_token(authorization, buf, sizeof buf) : NULL;
	char *user = NULL;
	if (token) {
		enum outcome out = *token ? review_token(a, token, may_block, &user) : OUT_NO;
		if (out == OUT_PENDING) {
			d->verdict = SCHED_AUTH_PENDING;
			return;
		}
		if (out != OUT_OK) {
			refuse_unauthorized(d);
			return;
		}
	}
	yajl_val u = yajl_tree_parse(user ? user : anonymous_user, NULL, 0);
	free(user);
	if (!u) {
		refuse_error(d, path, "out of memory");
		return;
	}
	authorize(a, u, path, verb, may_block, d);
	yajl_tree_free(u);
}

void sched_auth_decision_release(struct sched_auth_decision *d)
{
	free(d->body);
	d->body = NULL;
}
