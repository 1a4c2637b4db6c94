/* HTTPS health and metrics endpoints (libmicrohttpd + GnuTLS): /healthz, /livez, /readyz, /metrics,
 * served as kube-scheduler's secure port (k8s.io/apiserver SecureServing + delegated auth).
 *
 * USAGE (scheduler / cmd):
 *   struct sched_health_options ho = {
 *       .bind_address = "0.0.0.0", .port = 10259,        // --bind-address, --secure-port
 *       .cert_file = NULL, .key_file = NULL,             // --tls-*: NULL = self-signed in memory
 *       .auth = auth,                                    // sched_auth_new (delegated auth)
 *       .metrics = metrics, .leader = leader,            // leader NULL with --leader-elect=false
 *       .ctx = s, .loop_alive = sched_loop_alive, .synced = sched_caches_synced,
 *   };
 *   struct sched_health *h = NULL;
 *   if (ho.port != 0 && !(h = sched_health_start(&ho, &e))) fail(e);   // --secure-port 0: none
 *   ...
 *   sched_health_stop(h);               // NULL is a no-op
 *
 * Endpoints (as kube-scheduler, k8s.io/apiserver/pkg/server/healthz):
 *   /healthz, /livez  checks "ping", "scheduling-loop" (loop_alive) and "leaderElection"
 *                     (sched_leader_healthy: a leader whose renewal is stuck);
 *   /readyz           the same plus "sched-handler-sync" (synced);
 *   /healthz/NAME, /livez/NAME, /readyz/NAME run one check. 200 "ok" when every check passes,
 *   else 500 listing "[+]name ok" / "[-]name failed: reason withheld" lines and
 *   "<endpoint> check failed"; "?verbose" lists the checks on success too. "?exclude=NAME" skips
 *   a check.
 *   /metrics          sched_metrics_render, Content-Type text/plain; version=0.0.4.
 *   /debug/explain?pod=NS/NAME[&output=json|table][&node=N]   sched_explain (options.explain;
 *                     404 without): 200 with the explanation, 400 bad query, 404 no such pod or
 *                     node, 503 while stopping. Authorized like /metrics (a SubjectAccessReview of
 *                     the path, verb get); run on the auth thread, never on the polling thread.
 * Only GET and HEAD are served (405 otherwise).
 *
 * Every request is authenticated and authorized first, as upstream's handler chain
 * (WithAuthentication, then WithAuthorization): see sched_auth below. A bad bearer token is 401
 * on every path; no token is system:anonymous, which the default always-allow paths
 * (/healthz, /readyz, /livez) let through and the SubjectAccessReview decides elsewhere.
 *
 * Connections: TLS 1.2+ only; a connection idle for SCHED_HEALTH_IDLE_TIMEOUT_S is closed; at
 * most SCHED_HEALTH_MAX_CONNECTIONS in all (fewer when RLIMIT_NOFILE is low) and a quarter of
 * that per client IP, so one client cannot take every slot.
 *
 * THREADS: the server runs its own polling thread (epoll) and one auth thread that makes the
 * TokenReview / SubjectAccessReview calls (one at a time) while the connection waits suspended,
 * so a slow apiserver never delays a request that needs no review (a probe). The check callbacks are called from the polling thread
 * and must be cheap and thread-safe (read atomics, take a lock briefly). The options' pointers
 * must outlive the server. */
#ifndef CSCHED_HEALTH_H
#define CSCHED_HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

struct sched_metrics;
struct sched_leader;
struct scheduler;

#include <stdint.h>

struct api_client;

/* upstream SecureServingOptions: BindAddress 0.0.0.0; kube-scheduler's DefaultKubeSchedulerPort */
#define SCHED_HEALTH_DEFAULT_BIND_ADDRESS "0.0.0.0"
#define SCHED_HEALTH_DEFAULT_PORT 10259
#define SCHED_HEALTH_MAX_CONNECTIONS 1024
#define SCHED_HEALTH_IDLE_TIMEOUT_S 32 /* Go's TLS handshake bound in upstream: ReadHeaderTimeout 32s */
/* port value that binds a free ephemeral port (tests); read it back with sched_health_port. */
#define SCHED_HEALTH_PORT_EPHEMERAL (-1)
#define SCHED_HEALTH_EXPLAIN_PATH "/debug/explain"

struct sched_health_options {
	const char *bind_address; /* IPv4 or IPv6 literal; NULL = SCHED_HEALTH_DEFAULT_BIND_ADDRESS */
	int port;                 /* 1..65535 or SCHED_HEALTH_PORT_EPHEMERAL; 0 is rejected (= off) */
	struct sched_metrics *metrics; /* NULL: /metrics answers 404 */
	struct sched_leader *leader;   /* NULL: no leaderElection check */
	void *ctx;
	bool (*loop_alive)(void *ctx); /* NULL: check always passes */
	bool (*synced)(void *ctx);     /* NULL: check always passes */
	const char *cert_file, *key_file; /* PEM (cert chain, key); both NULL: self-signed in memory */
	struct sched_auth *auth;          /* NULL: sched_auth_new(NULL): all anonymous, default paths */
	/* Serves SCHED_HEALTH_EXPLAIN_PATH (sched_explain) when set; NULL: 404. */
	struct scheduler *explain;
};

struct sched_health;

/* Binds and starts serving. NULL on error (bad address or port, bind failure: e names them). */
struct sched_health *sched_health_start(const struct sched_health_options *o, struct err *e);
/* The bound port (useful with SCHED_HEALTH_PORT_EPHEMERAL). */
int sched_health_port(const struct sched_health *h);
/* Stops the server thread, closes the socket, frees h. NULL is a no-op. */
void sched_health_stop(struct sched_health *h);

/* ---------- Delegated authentication and authorization ----------
 *
 * k8s.io/apiserver's DelegatingAuthenticationOptions / DelegatingAuthorizationOptions as
 * kube-scheduler configures them:
 *   authentication  "Authorization: Bearer T" -> TokenReview (authentication.k8s.io/v1), the
 *                   answer cached token_ttl (authenticated or not; errors are not cached). Not
 *                   authenticated or an error: 401. No bearer token: system:anonymous (groups
 *                   system:unauthenticated). Without an authn client every request is anonymous.
 *   authorization   group system:masters: allowed; a path in always_allow_paths ("/x" exact; "/x/" then a star
 *                   as a prefix): allowed; else a SubjectAccessReview (authorization.k8s.io/v1)
 *                   with nonResourceAttributes {path, verb}: allowed answers cached allow_ttl,
 *                   others deny_ttl; not allowed: 403 with upstream's Status; an error: 500.
 *                   Without an authz client: 403.
 * Caches hold at most SCHED_AUTH_CACHE_MAX entries each (SHA-256 keys, never the token). */
#define SCHED_AUTH_DEFAULT_TTL_NS (10 * 1000000000LL) /* every upstream cache TTL: 10s */
#define SCHED_AUTH_DEFAULT_ALWAYS_ALLOW_PATHS "/healthz,/readyz,/livez"
#define SCHED_AUTH_CACHE_MAX 4096

/* POSTs body (JSON) to path on the apiserver; *resp the response body (malloc'd) on 2xx.
 * A test seam: the default uses the options' api_clients. */
typedef int (*sched_auth_post_fn)(void *ctx, bool authz, const char *path, const char *body, char **resp,
				  struct err *e);

struct sched_auth_options {
	struct api_client *authn; /* TokenReview; NULL: tokens are not looked at (all anonymous) */
	struct api_client *authz; /* SubjectAccessReview; NULL: only always-allowed requests pass */
	int64_t token_ttl_ns, allow_ttl_ns, deny_ttl_ns; /* 0: SCHED_AUTH_DEFAULT_TTL_NS */
	const char *always_allow_paths; /* comma-separated; NULL: the default; "" none */
	sched_auth_post_fn post;        /* NULL: api_request over authn/authz */
	void *post_ctx;
};

enum sched_auth_verdict {
	SCHED_AUTH_ALLOW,
	SCHED_AUTH_UNAUTHORIZED, /* 401 */
	SCHED_AUTH_FORBIDDEN,    /* 403 */
	SCHED_AUTH_ERROR,        /* 500 */
	SCHED_AUTH_PENDING,      /* only with may_block false: a review is needed */
};

struct sched_auth_decision {
	enum sched_auth_verdict verdict;
	unsigned status;      /* HTTP status: 200, 401, 403, 500 */
	const char *content_type;
	char *body;           /* malloc'd response body for the refusals; NULL for ALLOW and PENDING */
	size_t len;
};

struct sched_auth;
struct sched_auth *sched_auth_new(const struct sched_auth_options *o, struct err *e);
void sched_auth_free(struct sched_auth *a); /* NULL is a no-op */
/* Decides one request. authorization: the Authorization header or NULL; path: the URL path;
 * verb: "get" for GET and HEAD. may_block false: caches only (SCHED_AUTH_PENDING if a review is
 * needed). Thread-safe. Release d with
 * sched_auth_decision_release. */
void sched_auth_decide(struct sched_auth *a, const char *authorization, const char *path, const char *verb,
		       bool may_block, struct sched_auth_decision *d);
void sched_auth_decision_release(struct sched_auth_decision *d);
/* Reviews made (TokenReview, SubjectAccessReview) since sched_auth_new: tests of the caches. */
void sched_auth_review_counts(const struct sched_auth *a, unsigned long *token_reviews,
			      unsigned long *access_reviews);

#endif
