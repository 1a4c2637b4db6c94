/* scheduler/health_auth.c: the delegated authentication / authorization decision and its caches,
 * against fake TokenReview and SubjectAccessReview answers; scheduler/health_tls.c: the
 * self-signed certificate; scheduler/health.c: auth over HTTPS and connection exhaustion.
 * Expected values come from k8s.io/apiserver@v0.37.2 (cited per case). */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <sys/resource.h>
#include <time.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "https_get.h"
#include "scheduler/health.h"
#include "scheduler/health_internal.h"
#include "scheduler/metrics.h"

/* ---------- A fake apiserver ---------- */

struct fake {
	int64_t now;
	char last_tr[1024], last_sar[2048]; /* the last request bodies */
	bool tr_error, sar_error;
};

static int64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

/* TokenReview: "good" is alice (uid 42, group devs, an extra), "root" is in system:masters,
 * "nobody" is bob; "err-*" is not authenticated with status.error (what the apiserver answers for
 * a malformed token); anything else is not authenticated without an error. SubjectAccessReview: alice may get
 * /metrics, bob is denied with a reason, everybody else gets no opinion. */
static int fake_post(void *ctx, bool authz, const char *path, const char *body, char **resp, struct err *e)
{
	struct fake *f = ctx;
	if (!authz) {
		assert_string_equal(path, "/apis/authentication.k8s.io/v1/tokenreviews");
		snprintf(f->last_tr, sizeof f->last_tr, "%s", body);
		if (f->tr_error)
			return err_set(e, ERR_TRANSPORT, "connection refused");
		const char *user = NULL;
		if (strstr(body, "\"token\":\"good\""))
			user = "{\"username\":\"alice\",\"uid\":\"42\",\"groups\":[\"devs\",\"system:authenticated\"],"
			       "\"extra\":{\"scope\":[\"a\",\"b\"]}}";
		else if (strstr(body, "\"token\":\"root\""))
			user = "{\"username\":\"admin\",\"groups\":[\"system:masters\"]}";
		else if (strstr(body, "\"token\":\"nobody\""))
			user = "{\"username\":\"bob\",\"groups\":[\"system:authenticated\"]}";
		else if (strstr(body, "\"token\":\"slow\""))
			user = "{\"username\":\"slow\"}";
		char buf[512];
		if (user)
			snprintf(buf, sizeof buf,
				 "{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true,\"user\":%s}}", user);
		else if (strstr(body, "\"token\":\"err-"))
			snprintf(buf, sizeof buf, "{\"kind\":\"TokenReview\",\"status\":{\"user\":{},"
						  "\"error\":\"[invalid bearer token, square/go-jose: error in cryptographic primitive]\"}}");
		else
			snprintf(buf, sizeof buf, "{\"kind\":\"TokenReview\",\"status\":{\"user\":{}}}");
		*resp = strdup(buf);
		return 0;
	}
	assert_string_equal(path, "/apis/authorization.k8s.io/v1/subjectaccessreviews");
	snprintf(f->last_sar, sizeof f->last_sar, "%s", body);
	if (f->sar_error)
		return err_set(e, ERR_HTTP, "the server is currently unable to handle the request");
	if (strstr(body, "\"user\":\"slow\"")) { /* an apiserver that takes its time */
		struct timespec ts = {4, 0};
		nanosleep(&ts, NULL);
	}
	bool metrics = strstr(body, "\"path\":\"/metrics\"") != NULL;
	if (strstr(body, "\"user\":\"alice\"") && metrics)
		*resp = strdup("{\"status\":{\"allowed\":true,\"reason\":\"RBAC: allowed by ClusterRoleBinding\"}}");
	else if (strstr(body, "\"user\":\"bob\""))
		*resp = strdup("{\"status\":{\"allowed\":false,\"denied\":true,\"reason\":\"bob is blocked\"}}");
	else
		*resp = strdup("{\"status\":{\"allowed\":false}}");
	return 0;
}

static struct sched_auth *new_auth(struct fake *f, const struct sched_auth_options *extra)
{
	struct sched_auth_options o = {.post = fake_post, .post_ctx = f};
	if (extra) {
		o.token_ttl_ns = extra->token_ttl_ns;
		o.allow_ttl_ns = extra->allow_ttl_ns;
		o.deny_ttl_ns = extra->deny_ttl_ns;
		o.always_allow_paths = extra->always_allow_paths;
	}
	struct err e = {0};
	struct sched_auth *a = sched_auth_new(&o, &e);
	if (!a)
		fail_msg("sched_auth_new: %s", e.msg);
	sched_auth_set_clock(a, fake_now, f);
	return a;
}

/* upstream filters.Unauthorized: apierrors.NewUnauthorized("Unauthorized") through the JSON
 * serializer (metav1.Status field order, omitempty). */
#define UNAUTHORIZED                                                                                              \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\"," \
	"\"reason\":\"Unauthorized\",\"code\":401}\n"
/* upstream responsewriters.ForbiddenStatusError: NewForbidden(GroupResource{}, "", "User %q cannot
 * %s path %q[: reason]") -> message "forbidden: ...", details {} */
#define FORBIDDEN(user, path, reason)                                                                              \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"forbidden: User " \
	"\\\"" user "\\\" cannot get path \\\"" path "\\\"" reason "\",\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n"

static void decide(struct sched_auth *a, const char *hdr, const char *path, unsigned want_status, const char *want_body)
{
	struct sched_auth_decision d;
	sched_auth_decide(a, hdr, path, "get", true, &d);
	if (d.status != want_status)
		fail_msg("%s %s: status %u want %u (%s)", hdr ? hdr : "(none)", path, d.status, want_status,
			 d.body ? d.body : "");
	if (want_body) {
		assert_non_null(d.body);
		assert_string_equal(d.body, want_body);
		assert_int_equal(d.len, strlen(want_body));
	}
	sched_auth_decision_release(&d);
}

/* The decision table: authentication first on every path (upstream WithAuthentication wraps
 * WithAuthorization in kube-scheduler's buildHandlerChain), then always-allow groups, paths and
 * the SubjectAccessReview (union authorizer). */
static void test_auth_decisions(void **state)
{
	(void)state;
	struct fake f = {.now = 1};
	struct sched_auth *a = new_auth(&f, NULL);
	/* no token: system:anonymous; the default always-allow paths pass without any review */
	decide(a, NULL, "/livez", 200, NULL);
	decide(a, NULL, "/healthz", 200, NULL);
	decide(a, NULL, "/readyz", 200, NULL);
	unsigned long tr, sar;
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 0);
	assert_int_equal(sar, 0);
	/* /livez/NAME is not in the default list (exact match, upstream path authorizer) */
	decide(a, NULL, "/livez/ping", 403, FORBIDDEN("system:anonymous", "/livez/ping", ""));
	/* anonymous /metrics: a SubjectAccessReview for system:anonymous, no opinion -> 403 */
	decide(a, NULL, "/metrics", 403, FORBIDDEN("system:anonymous", "/metrics", ""));
	assert_string_equal(f.last_sar,
			    "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"spec\":{"
			    "\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":\"get\"},\"user\":\"system:anonymous\","
			    "\"groups\":[\"system:unauthenticated\"]}}");
	/* a token the TokenReview rejects: 401 even on an always-allowed path */
	decide(a, "Bearer bad", "/livez", 401, UNAUTHORIZED);
	assert_string_equal(f.last_tr, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\","
				       "\"spec\":{\"token\":\"bad\"}}");
	/* an authenticated user the SubjectAccessReview allows; uid, groups and extra are passed on */
	decide(a, "Bearer good", "/metrics", 200, NULL);
	assert_string_equal(f.last_sar,
			    "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":\"SubjectAccessReview\",\"spec\":{"
			    "\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":\"get\"},\"user\":\"alice\","
			    "\"uid\":\"42\",\"groups\":[\"devs\",\"system:authenticated\"],\"extra\":{\"scope\":[\"a\",\"b\"]}}}");
	/* the scheme is case-insensitive (bearertoken: strings.ToLower(parts[0]) == "bearer") */
	decide(a, "bearer good", "/metrics", 200, NULL);
	/* alice may not get /debug/pprof: no opinion -> 403 without a reason */
	decide(a, "Bearer good", "/debug/pprof", 403, FORBIDDEN("alice", "/debug/pprof", ""));
	/* denied with a reason: ": reason" appended */
	decide(a, "Bearer nobody", "/metrics", 403, FORBIDDEN("bob", "/metrics", ": bob is blocked"));
	/* system:masters: allowed without a SubjectAccessReview (AlwaysAllowGroups) */
	sched_auth_review_counts(a, &tr, &sar);
	decide(a, "Bearer root", "/anything", 200, NULL);
	unsigned long tr2, sar2;
	sched_auth_review_counts(a, &tr2, &sar2);
	assert_int_equal(sar2, sar);
	/* not a bearer token: anonymous (bearertoken returns no opinion) */
	decide(a, "Basic YWxpY2U6cHc=", "/livez", 200, NULL);
	decide(a, "Bearer", "/livez", 200, NULL);
	decide(a, "Bearer ", "/livez", 200, NULL);
	/* the sanitizer and JSON escaping of the path (responsewriters: & < > as entities, then
	 * encoding/json escapes & as \u0026) */
	decide(a, NULL, "/a<b>&", 403, FORBIDDEN("system:anonymous", "/a\\u0026lt;b\\u0026gt;\\u0026amp;", ""));
	sched_auth_free(a);
}

/* Review errors: TokenReview -> 401, not cached (cache.New(tokenAuth, false, ...): cacheErrs
 * false); SubjectAccessReview -> 500 responsewriters.InternalError, not cached. */
static void test_auth_review_errors(void **state)
{
	(void)state;
	struct fake f = {.now = 1, .tr_error = true};
	struct sched_auth *a = new_auth(&f, NULL);
	decide(a, "Bearer good", "/metrics", 401, UNAUTHORIZED);
	decide(a, "Bearer good", "/metrics", 401, UNAUTHORIZED);
	unsigned long tr, sar;
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 2);
	f.tr_error = false;
	decide(a, "Bearer good", "/metrics", 200, NULL);
	f.sar_error = true;
	decide(a, "Bearer good", "/other", 500,
	       "Internal Server Error: \"/other\": the server is currently unable to handle the request\n");
	decide(a, "Bearer good", "/other", 500, NULL);
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(sar, 3);
	sched_auth_free(a);
}

/* Caching: token answers for the token TTL (authenticated or not: CacheTTL for both), "allowed"
 * answers for the authorized TTL and the others for the unauthorized TTL; the defaults are 10s
 * (NewDelegatingAuthenticationOptions CacheTTL, NewDelegatingAuthorizationOptions
 * AllowCacheTTL / DenyCacheTTL). */
static void test_auth_cache_ttls(void **state)
{
	(void)state;
	const int64_t S = 1000000000LL;
	struct fake f = {.now = 1000 * S};
	struct sched_auth *a = new_auth(&f, NULL);
	unsigned long tr, sar;
	decide(a, "Bearer good", "/metrics", 200, NULL);
	decide(a, "Bearer bad", "/metrics", 401, NULL);
	decide(a, "Bearer nobody", "/metrics", 403, NULL);
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 3);
	assert_int_equal(sar, 2);
	f.now += 10 * S - 1; /* still within 10s: every answer from the caches */
	decide(a, "Bearer good", "/metrics", 200, NULL);
	decide(a, "Bearer bad", "/metrics", 401, NULL);
	decide(a, "Bearer nobody", "/metrics", 403, FORBIDDEN("bob", "/metrics", ": bob is blocked"));
	struct sched_auth_decision d;
	sched_auth_decide(a, "Bearer good", "/metrics", "get", false, &d); /* no review needed */
	assert_int_equal(d.verdict, SCHED_AUTH_ALLOW);
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 3);
	assert_int_equal(sar, 2);
	f.now += 1; /* 10s: expired */
	sched_auth_decide(a, "Bearer good", "/metrics", "get", false, &d);
	assert_int_equal(d.verdict, SCHED_AUTH_PENDING);
	decide(a, "Bearer good", "/metrics", 200, NULL);
	decide(a, "Bearer bad", "/metrics", 401, NULL);
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 5);
	assert_int_equal(sar, 3);
	/* not authenticated with status.error: an error for upstream's webhook authenticator, which
	 * the cache does not keep (cache.New(tokenAuth, false, ...)): 401 and a review every time */
	decide(a, "Bearer err-1", "/metrics", 401, UNAUTHORIZED);
	decide(a, "Bearer err-1", "/metrics", 401, UNAUTHORIZED);
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 7);
	sched_auth_free(a);

	/* distinct TTLs: allowed 30s, unauthorized 2s, tokens 60s */
	struct sched_auth_options o = {.token_ttl_ns = 60 * S, .allow_ttl_ns = 30 * S, .deny_ttl_ns = 2 * S};
	f.now = 1000 * S;
	a = new_auth(&f, &o);
	decide(a, "Bearer good", "/metrics", 200, NULL);
	decide(a, "Bearer nobody", "/metrics", 403, NULL);
	f.now += 2 * S;
	decide(a, "Bearer good", "/metrics", 200, NULL);   /* cached */
	decide(a, "Bearer nobody", "/metrics", 403, NULL); /* reviewed again */
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 2);
	assert_int_equal(sar, 3);
	f.now += 28 * S;
	decide(a, "Bearer good", "/metrics", 200, NULL); /* 30s: SAR again, token still cached */
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, 2);
	assert_int_equal(sar, 4);
	sched_auth_free(a);
}

/* A flood of distinct tokens cannot grow the cache past SCHED_AUTH_CACHE_MAX, and the oldest
 * entries are the ones replaced. */
static void test_auth_cache_bounded(void **state)
{
	(void)state;
	struct fake f = {.now = 1};
	struct sched_auth *a = new_auth(&f, NULL);
	decide(a, "Bearer good", "/metrics", 200, NULL);
	char hdr[64];
	for (int i = 0; i < SCHED_AUTH_CACHE_MAX + 10; i++) {
		f.now++;
		snprintf(hdr, sizeof hdr, "Bearer junk-%d", i);
		decide(a, hdr, "/metrics", 401, NULL);
	}
	unsigned long tr, sar;
	sched_auth_review_counts(a, &tr, &sar);
	assert_int_equal(tr, SCHED_AUTH_CACHE_MAX + 11);
	decide(a, "Bearer junk-4000", "/metrics", 401, NULL); /* recent: still cached */
	decide(a, "Bearer good", "/metrics", 200, NULL);      /* the oldest: evicted, reviewed again */
	unsigned long tr2;
	sched_auth_review_counts(a, &tr2, &sar);
	assert_int_equal(tr2, tr + 1);
	sched_auth_free(a);
}

/* --authorization-always-allow-paths: upstream path.NewAuthorizer (leading "/" ignored, trailing
 * "*" a prefix, "*" elsewhere an error). */
static void test_auth_always_allow_paths(void **state)
{
	(void)state;
	struct fake f = {.now = 1};
	struct sched_auth_options o = {.always_allow_paths = "/healthz,debug/*,/"};
	struct sched_auth *a = new_auth(&f, &o);
	decide(a, NULL, "/healthz", 200, NULL);
	decide(a, NULL, "/debug/pprof/heap", 200, NULL);
	decide(a, NULL, "/", 200, NULL);
	decide(a, NULL, "/livez", 403, NULL);
	decide(a, NULL, "/healthz/ping", 403, NULL);
	sched_auth_free(a);
	o.always_allow_paths = ""; /* none: /livez needs a review */
	a = new_auth(&f, &o);
	decide(a, NULL, "/livez", 403, NULL);
	sched_auth_free(a);
	struct err e = {0};
	struct sched_auth_options bad = {.always_allow_paths = "/healthz,/a*b"};
	assert_null(sched_auth_new(&bad, &e));
	assert_string_equal(e.msg, "--authorization-always-allow-paths: only trailing * allowed in \"a*b\"");
}

/* Without review clients (no kubeconfig upstream): tokens are not looked at, only always-allowed
 * paths pass ("If empty, all requests not skipped by authorization are forbidden."). */
static void test_auth_without_clients(void **state)
{
	(void)state;
	struct err e = {0};
	struct sched_auth *a = sched_auth_new(NULL, &e);
	assert_non_null(a);
	decide(a, "Bearer whatever", "/livez", 200, NULL);
	decide(a, "Bearer whatever", "/metrics", 403, FORBIDDEN("system:anonymous", "/metrics", ""));
	sched_auth_free(a);
}

/* upstream certutil.GenerateSelfSignedCertKeyWithFixtures as MaybeDefaultWithSelfSignedCerts calls
 * it for kube-scheduler ("localhost", alternateIPs [127.0.0.1] + a specific bind address): the
 * serving cert first, then its CA; CN "localhost@<unix>", issuer "localhost-ca@<unix>"; ServerAuth;
 * valid from an hour ago for 365 days; RSA 2048. */
static void test_self_signed_cert(void **state)
{
	(void)state;
	const char *ips[] = {"127.0.0.1", "10.1.2.3"}, *dns[] = {"localhost"};
	char *cert = NULL, *key = NULL;
	struct err e = {0};
	time_t now = time(NULL);
	if (sched_health_self_signed("localhost", ips, 2, dns, 1, &cert, &key, &e) != 0)
		fail_msg("%s", e.msg);
	gnutls_x509_crt_t crts[4];
	unsigned n = 4;
	gnutls_datum_t d = {(unsigned char *)cert, (unsigned)strlen(cert)};
	assert_true(gnutls_x509_crt_list_import(crts, &n, &d, GNUTLS_X509_FMT_PEM, 0) >= 0);
	assert_int_equal(n, 2);
	char buf[256];
	size_t len = sizeof buf;
	assert_int_equal(gnutls_x509_crt_get_dn_by_oid(crts[0], GNUTLS_OID_X520_COMMON_NAME, 0, 0, buf, &len), 0);
	char want[64];
	snprintf(want, sizeof want, "localhost@%lld", (long long)now);
	if (strcmp(buf, want) != 0) { /* a second may have passed */
		snprintf(want, sizeof want, "localhost@%lld", (long long)now + 1);
		assert_string_equal(buf, want);
	}
	len = sizeof buf;
	assert_int_equal(gnutls_x509_crt_get_dn_by_oid(crts[1], GNUTLS_OID_X520_COMMON_NAME, 0, 0, buf, &len), 0);
	assert_non_null(strstr(buf, "localhost-ca@"));
	/* the chain verifies against its CA, for the names and IPs upstream puts in */
	unsigned status = 1;
	assert_int_equal(gnutls_x509_crt_list_verify(crts, 1, &crts[1], 1, NULL, 0, 0, &status), 0);
	assert_int_equal(status, 0);
	assert_true(gnutls_x509_crt_check_hostname(crts[0], "localhost"));
	assert_true(gnutls_x509_crt_check_ip(crts[0], (const unsigned char *)"\x7f\0\0\1", 4, 0));
	assert_true(gnutls_x509_crt_check_ip(crts[0], (const unsigned char *)"\x0a\x01\x02\x03", 4, 0));
	assert_false(gnutls_x509_crt_check_hostname(crts[0], "example.com"));
	unsigned ca = 0;
	assert_true(gnutls_x509_crt_get_basic_constraints(crts[1], NULL, &ca, NULL) >= 0 && ca);
	len = sizeof buf;
	assert_int_equal(gnutls_x509_crt_get_key_purpose_oid(crts[0], 0, buf, &len, NULL), 0);
	assert_string_equal(buf, GNUTLS_KP_TLS_WWW_SERVER);
	time_t from = gnutls_x509_crt_get_activation_time(crts[0]), to = gnutls_x509_crt_get_expiration_time(crts[0]);
	assert_true(from >= now - 3600 && from <= now - 3600 + 2);
	assert_int_equal(to - from, 365L * 24 * 3600);
	unsigned bits = 0;
	assert_int_equal(gnutls_x509_crt_get_pk_algorithm(crts[0], &bits), GNUTLS_PK_RSA);
	assert_int_equal(bits, 2048);
	assert_non_null(strstr(key, "-----BEGIN RSA PRIVATE KEY-----"));
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(crts[i]);
	free(cert);
	free(key);
}

/* ---------- The server ---------- */

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct sched_health *start(struct sched_health_options *o)
{
	o->bind_address = "127.0.0.1";
	o->port = SCHED_HEALTH_PORT_EPHEMERAL;
	struct err e = {0};
	struct sched_health *h = sched_health_start(o, &e);
	if (!h)
		fail_msg("sched_health_start: %s", e.msg);
	return h;
}

static void get(int port, const char *src, const char *path, const char *auth, int want_status, const char *want_body)
{
	struct http_reply r;
	if (https_request(port, src, "GET", path, auth, &r) != 0)
		fail_msg("GET %s: %s", path, r.body);
	if (r.status != want_status)
		fail_msg("GET %s: status %d want %d: %s", path, r.status, want_status, r.body);
	if (want_body)
		assert_string_equal(r.body, want_body);
}

/* The issue's reproduction: 70 idle connections (connected, nothing sent) exhausted the old
 * 64-connection server and /livez failed. Now /livez answers beside them. */
static void test_health_idle_connections(void **state)
{
	(void)state;
	struct sched_health_options o = {0};
	struct sched_health *h = start(&o);
	int port = sched_health_port(h);
	int idle[70];
	for (int i = 0; i < 70; i++) {
		idle[i] = tcp_connect(port, NULL);
		assert_true(idle[i] >= 0);
	}
	struct timespec ts = {0, 200000000L}; /* let the server accept them all */
	nanosleep(&ts, NULL);
	/* at once: a full server answers only when the idle ones time out (32 s); the bound leaves
	 * room for TLS under valgrind (two handshakes take ~1 s there, ~10 ms natively) */
	int64_t t0 = mono_ms();
	get(port, NULL, "/livez", NULL, 200, "ok");
	get(port, NULL, "/readyz", NULL, 200, "ok");
	int64_t took = mono_ms() - t0;
	if (took > 5000)
		fail_msg("/livez and /readyz took %lld ms beside 70 idle connections", (long long)took);
	for (int i = 0; i < 70; i++)
		close(idle[i]);
	sched_health_stop(h);
}

/* One client address cannot take every slot: it gets at most a quarter of them (the rest of its
 * connections are closed at once) and a probe from another address is still answered. */
static void test_health_per_ip_limit(void **state)
{
	(void)state;
	struct rlimit rl;
	unsigned limit = SCHED_HEALTH_MAX_CONNECTIONS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 2 < limit)
		limit = (unsigned)(rl.rlim_cur / 2);
	unsigned per_ip = limit / 4, n = per_ip + 20;
	if (n + 64 > rl.rlim_cur)
		skip();
	struct sched_health_options o = {0};
	struct sched_health *h = start(&o);
	int port = sched_health_port(h);
	int *fds = calloc(n, sizeof *fds);
	unsigned opened = 0;
	for (unsigned i = 0; i < n; i++)
		if ((fds[i] = tcp_connect(port, "127.0.0.2")) >= 0)
			opened++;
	if (opened == 0) { /* no 127.0.0.2 on this host's loopback */
		free(fds);
		sched_health_stop(h);
		skip();
	}
	struct timespec ts = {0, 300000000L};
	nanosleep(&ts, NULL);
	int64_t t0 = mono_ms();
	get(port, "127.0.0.1", "/livez", NULL, 200, "ok");
	int64_t took = mono_ms() - t0;
	if (took > 5000) /* as above */
		fail_msg("/livez took %lld ms beside %u connections from one client", (long long)took, opened);
	/* the server closed the ones over the per-IP limit */
	unsigned closed = 0;
	for (unsigned i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		struct pollfd p = {.fd = fds[i], .events = POLLIN};
		char c;
		if (poll(&p, 1, 0) == 1 && read(fds[i], &c, 1) <= 0)
			closed++;
		close(fds[i]);
	}
	free(fds);
	assert_true(closed >= opened - per_ip);
	sched_health_stop(h);
}

static void *slow_get(void *arg)
{
	int port = *(int *)arg;
	get(port, NULL, "/metrics", "Bearer slow", 403, NULL);
	return NULL;
}

/* Auth over HTTPS, with the reviews made on the auth thread while the connection is suspended:
 * a review that takes 4 s does not delay /livez. */
static void test_health_auth_over_https(void **state)
{
	(void)state;
	struct fake f = {.now = 1};
	struct sched_auth_options ao = {.post = fake_post, .post_ctx = &f};
	struct err e = {0};
	struct sched_auth *a = sched_auth_new(&ao, &e);
	assert_non_null(a);
	struct sched_metrics *m = sched_metrics_new();
	struct sched_health_options o = {.auth = a, .metrics = m};
	struct sched_health *h = start(&o);
	int port = sched_health_port(h);
	get(port, NULL, "/livez", NULL, 200, "ok");
	get(port, NULL, "/metrics", NULL, 403, FORBIDDEN("system:anonymous", "/metrics", ""));
	get(port, NULL, "/livez", "Bearer bad", 401, UNAUTHORIZED);
	get(port, NULL, "/metrics", "Bearer nobody", 403, FORBIDDEN("bob", "/metrics", ": bob is blocked"));
	struct http_reply r;
	assert_int_equal(https_request(port, NULL, "GET", "/metrics", "Bearer good", &r), 0);
	assert_int_equal(r.status, 200);
	if (!strstr(r.body, "# TYPE "))
		fail_msg("/metrics: %s", r.body);
	/* refusals as upstream writes them: JSON Status, nosniff */
	assert_int_equal(https_request(port, NULL, "GET", "/metrics", NULL, &r), 0);
	assert_non_null(strstr(r.head, "Content-Type: application/json"));
	assert_non_null(strstr(r.head, "X-Content-Type-Options: nosniff"));

	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, slow_get, &port), 0);
	struct timespec ts = {0, 200000000L}; /* the slow review is under way */
	nanosleep(&ts, NULL);
	int64_t t0 = mono_ms();
	get(port, NULL, "/livez", NULL, 200, "ok");
	int64_t took = mono_ms() - t0;
	pthread_join(t, NULL);
	if (took > 3000) /* ~5 ms natively, under 1 s with valgrind */
		fail_msg("/livez took %lld ms beside a slow review", (long long)took);
	sched_health_stop(h);
	sched_auth_free(a);
	sched_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auth_decisions),
		cmocka_unit_test(test_auth_review_errors),
		cmocka_unit_test(test_auth_cache_ttls),
		cmocka_unit_test(test_auth_cache_bounded),
		cmocka_unit_test(test_auth_always_allow_paths),
		cmocka_unit_test(test_auth_without_clients),
		cmocka_unit_test(test_self_signed_cert),
		cmocka_unit_test(test_health_idle_connections),
		cmocka_unit_test(test_health_per_ip_limit),
		cmocka_unit_test(test_health_auth_over_https),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
