/* HTTPS health and metrics endpoints, behind delegated authentication and authorization.
 *
 * DESIGN: libmicrohttpd (with GnuTLS) runs one internal polling thread (epoll). A request is
 * answered on its first callback when its auth decision needs no review (no token, or the
 * caches answer); otherwise the connection is suspended and queued to the auth thread, which
 * makes the TokenReview / SubjectAccessReview calls and resumes it, and the request is answered
 * on the callback after the resume. So a slow apiserver delays only the requests that wait for
 * it, never /livez of a kubelet (which sends no token). /debug/explain always takes that path:
 * once allowed, the auth thread also runs the explain (sched_explain: a dry scheduling cycle,
 * milliseconds to seconds on a large cluster) and stores the answer in the job, so the polling
 * thread never computes one. Exhaustion: MHD closes connections idle
 * for SCHED_HEALTH_IDLE_TIMEOUT_S (a TLS handshake or request never sent counts), caps the total
 * and the connections per client IP (a quarter of the total), so one client cannot hold every
 * slot. The listening socket
 * is created here rather than by MHD so that a bind failure reports errno ("address already in
 * use") instead of a bare NULL; MHD owns the socket afterwards and closes it in
 * MHD_stop_daemon. Checks read the scheduler's state only through the callbacks in the options
 * (atomics or a brief lock on their side) and sched_leader_healthy; nothing here takes a lock.
 * The response format follows k8s.io/apiserver/pkg/server/healthz: "ok", or the "[+]/[-]" list
 * and "<endpoint> check failed" with status 500. */
#include "scheduler/health.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "health_internal.h"
#include "scheduler/explain.h"
#include "scheduler/leader.h"
#include "scheduler/metrics.h"

/* A request waiting for a review, or for an explain: queued to the auth thread, freed when MHD
 * completes it. */
struct job {
	struct job *next;
	struct MHD_Connection *conn;
	char *authorization, *path;
	bool done; /* d is set (written by the auth thread before MHD_resume_connection) */
	struct sched_auth_decision d;
	/* /debug/explain: the query, copied on the polling thread; the answer, made on the auth
	 * thread after an ALLOW (status 0: none made) */
	bool explain;
	char *pod, *node, *output;
	unsigned status;
	const char *content_type;
	char *body;
	size_t len;
};

struct sched_health {
	struct sched_health_options o; /* bind_address, cert_file, key_file are not kept */
	struct sched_auth *own_auth;   /* made when o.auth is NULL */
	struct MHD_Daemon *daemon;
	char *cert_pem, *key_pem;
	int port;
	/* the auth thread's queue */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *head, **tail;
	bool stopping, thread_started;
	pthread_t thread;
};

/* ---------- Checks ---------- */

struct check {
	const char *name;
	bool readyz_only;
	bool (*run)(const struct sched_health *h);
};

static bool check_ping(const struct sched_health *h)
{
	(void)h;
	return true;
}

static bool check_loop(const struct sched_health *h)
{
	return !h->o.loop_alive || h->o.loop_alive(h->o.ctx);
}

static bool check_leader(const struct sched_health *h)
{
	return sched_leader_healthy(h->o.leader);
}

static bool check_synced(const struct sched_health *h)
{
	return !h->o.synced || h->o.synced(h->o.ctx);
}

static const struct check checks[] = {
	{"ping", false, check_ping},
	{"leaderElection", false, check_leader},
	{"scheduling-loop", false, check_loop},
	{"sched-handler-sync", true, check_synced},
};
#define NCHECKS (sizeof checks / sizeof checks[0])

static bool check_installed(const struct sched_health *h, const struct check *c, bool readyz)
{
	if (c->readyz_only && !readyz)
		return false;
	if (c->run == check_leader && !h->o.leader)
		return false;
	return true;
}

/* ---------- Responses ---------- */

static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *content_type, char *body,
			       size_t len, bool take)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
								 take ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_MUST_COPY);
	if (!r) {
		if (take)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Cache-Control", "no-cache, private"); /* upstream WithCacheControl */
	enum MHD_Result ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result respond_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	return respond(conn, status, "text/plain; charset=utf-8", (char *)text, strlen(text), false);
}

/* The query: "verbose" (with or without a value) and any number of "exclude=NAME". */
struct query {
	bool verbose;
	const char *names[NCHECKS + 4];
	size_t n;
};

static enum MHD_Result collect_query(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct query *x = cls;
	(void)kind;
	if (strcmp(key, "verbose") == 0)
		x->verbose = true;
	else if (strcmp(key, "exclude") == 0 && value && x->n < sizeof x->names / sizeof x->names[0])
		x->names[x->n++] = value;
	return MHD_YES;
}

static bool excluded(const struct query *x, const char *name)
{
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->names[i], name) == 0)
			return true;
	return false;
}

/* /healthz, /livez, /readyz: every installed, non-excluded check. */
static enum MHD_Result serve_checks(struct sched_health *h, struct MHD_Connection *conn, const char *endpoint,
				    bool readyz)
{
	struct query x = {.n = 0};
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_query, &x);
	char body[1024];
	size_t len = 0;
	bool ok = true;
	for (size_t i = 0; i < NCHECKS; i++) {
		const struct check *c = &checks[i];
		if (!check_installed(h, c, readyz))
			continue;
		if (excluded(&x, c->name)) {
			len += (size_t)snprintf(body + len, sizeof body - len, "[+]%s excluded: ok\n", c->name);
			continue;
		}
		bool pass = c->run(h);
		if (!pass) {
			ok = false;
			LOG_V(1, "%s check %s failed", endpoint, c->name);
		}
		len += (size_t)snprintf(body + len, sizeof body - len, pass ? "[+]%s ok\n" : "[-]%s failed: reason withheld\n",
					c->name);
	}
	if (ok && !x.verbose)
		return respond_text(conn, MHD_HTTP_OK, "ok");
	snprintf(body + len, sizeof body - len, "%s check %s\n", endpoint, ok ? "passed" : "failed");
	return respond_text(conn, ok ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR, body);
}

/* /livez/NAME and friends: one check. */
static enum MHD_Result serve_one(struct sched_health *h, struct MHD_Connection *conn, const char *name, bool readyz)
{
	for (size_t i = 0; i < NCHECKS; i++) {
		const struct check *c = &checks[i];
		if (!check_installed(h, c, readyz) || strcmp(c->name, name) != 0)
			continue;
		if (c->run(h))
			return respond_text(conn, MHD_HTTP_OK, "ok");
		char msg[128];
		snprintf(msg, sizeof msg, "internal server error: %s check failed\n", name);
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, msg);
	}
	return respond_text(conn, MHD_HTTP_NOT_FOUND, "404 page not found\n");
}

static enum MHD_Result serve_metrics(struct sched_health *h, struct MHD_Connection *conn)
{
	char *text = NULL;
	size_t len = 0;
	struct err e = {0};
	if (!h->o.metrics)
		return respond_text(conn, MHD_HTTP_NOT_FOUND, "404 page not found\n");
	if (sched_metrics_render(h->o.metrics, &text, &len, &e) != 0) {
		LOG_ERROR("/metrics: %s", e.msg);
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "error rendering metrics\n");
	}
	return respond(conn, MHD_HTTP_OK, SCHED_METRICS_CONTENT_TYPE, text, len, true);
}

/* ---------- /debug/explain ---------- */

/* The explain of a job's query into its answer (the auth thread: an explain may take a while on a
 * large cluster and must not hold up the polling thread, which answers the probes). */
static void run_explain(struct sched_health *h, struct job *j, bool stopping)
{
	struct err e = { 0 };
	j->content_type = "text/plain; charset=utf-8";
	if (stopping) {
		j->status = MHD_HTTP_SERVICE_UNAVAILABLE;
		j->body = strdup("the scheduler is shutting down\n");
		goto out;
	}
	const char *slash = j->pod ? strchr(j->pod, '/') : NULL;
	bool json = j->output && strcmp(j->output, "json") == 0;
	if (!slash || slash == j->pod || !slash[1] || strchr(slash + 1, '/')) {
		j->status = MHD_HTTP_BAD_REQUEST;
		j->body = strdup("explain: the pod query parameter must be NAMESPACE/NAME\n");
		goto out;
	}
	if (j->output && j->output[0] && !json && strcmp(j->output, "table") != 0) {
		j->status = MHD_HTTP_BAD_REQUEST;
		j->body = strdup("explain: output must be table or json\n");
		goto out;
	}
	char *ns = strndup(j->pod, (size_t)(slash - j->pod));
	if (!ns) {
		j->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		goto out;
	}
	struct sched_explain_request rq = { ns, slash + 1, j->node, json ? SCHED_EXPLAIN_JSON : SCHED_EXPLAIN_TABLE };
	int rc = sched_explain(h->o.explain, &rq, &j->body, &j->len, &e);
	free(ns);
	if (rc == 0) {
		j->status = MHD_HTTP_OK;
		j->content_type = json ? "application/json" : "text/plain; charset=utf-8";
		return;
	}
	j->status = rc == ERR_NOT_FOUND ? MHD_HTTP_NOT_FOUND
		    : rc == ERR_INVALID ? MHD_HTTP_BAD_REQUEST
					: MHD_HTTP_INTERNAL_SERVER_ERROR;
	size_t n = strlen(e.msg) + 2;
	if ((j->body = malloc(n)))
		snprintf(j->body, n, "%s\n", e.msg);
out:
	j->len = j->body ? strlen(j->body) : 0;
}

static enum MHD_Result serve_explain(struct MHD_Connection *conn, struct job *j)
{
	if (!j->status || !j->body)
		return respond_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "explain: out of memory\n");
	char *body = j->body;
	j->body = NULL;
	return respond(conn, j->status, j->content_type, body, j->len, true);
}

/* ---------- Auth ---------- */

static void *auth_thread(void *arg)
{
	struct sched_health *h = arg;
	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (!h->head && !h->stopping)
			pthread_cond_wait(&h->cv, &h->mu);
		struct job *j = h->head;
		if (!j)
			break;
		h->head = j->next;
		if (!h->head)
			h->tail = &h->head;
		bool stopping = h->stopping;
		pthread_mutex_unlock(&h->mu);
		if (stopping) /* answer at once: the server is going away */
			sched_auth_decide(h->o.auth, j->authorization, j->path, "get", false, &j->d);
		else
			sched_auth_decide(h->o.auth, j->authorization, j->path, "get", true, &j->d);
		if (j->explain && j->d.verdict == SCHED_AUTH_ALLOW)
			run_explain(h, j, stopping);
		j->done = true;
		MHD_resume_connection(j->conn);
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static void job_free(struct job *j)
{
	if (!j)
		return;
	free(j->pod);
	free(j->node);
	free(j->output);
	free(j->body);
	sched_auth_decision_release(&j->d);
	free(j->authorization);
	free(j->path);
	free(j);
}

static void request_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
			      enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	job_free(*req_cls);
	*req_cls = NULL;
}

static bool dup_arg(struct MHD_Connection *conn, const char *key, char **out)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
	return !v || (*out = strdup(v));
}

/* Suspends conn and queues its review (and its explain); MHD_NO if that cannot be done. */
static enum MHD_Result queue_review(struct sched_health *h, struct MHD_Connection *conn, const char *authorization,
				    const char *url, bool explain, void **req_cls)
{
	struct job *j = calloc(1, sizeof *j);
	if (!j || !(j->path = strdup(url)) || (authorization && !(j->authorization = strdup(authorization))) ||
	    (explain && (!dup_arg(conn, "pod", &j->pod) || !dup_arg(conn, "node", &j->node) ||
			 !dup_arg(conn, "output", &j->output)))) {
		job_free(j);
		return MHD_NO;
	}
	j->explain = explain;
	j->conn = conn;
	pthread_mutex_lock(&h->mu);
	if (h->stopping) { /* the auth thread may be gone: nothing would resume it */
		pthread_mutex_unlock(&h->mu);
		job_free(j);
		return MHD_NO;
	}
	*req_cls = j;
	MHD_suspend_connection(conn); /* before the auth thread can resume it */
	*h->tail = j;
	h->tail = &j->next;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return MHD_YES;
}

static enum MHD_Result respond_refusal(struct MHD_Connection *conn, struct sched_auth_decision *d)
{
	if (!d->body)
		return MHD_NO;
	char *body = d->body;
	d->body = NULL;
	return respond(conn, d->status, d->content_type, body, d->len, true);
}

static enum MHD_Result serve(struct sched_health *h, struct MHD_Connection *conn, const char *url);

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size, void **req_cls)
{
	struct sched_health *h = cls;
	(void)version;
	(void)upload_data;
	struct job *j = *req_cls;
	if (j) { /* resumed after its review (and explain) */
		if (!j->done)
			return MHD_YES;
		if (j->d.verdict != SCHED_AUTH_ALLOW)
			return respond_refusal(conn, &j->d);
		return j->explain ? serve_explain(conn, j) : serve(h, conn, url);
	}
	if (*upload_data_size) { /* a body (not GET/HEAD): ignore it, answer once it is read */
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* upstream authenticates and authorizes before routing, whatever the method */
	const char *authorization = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	struct sched_auth_decision d;
	const char *verb = strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0 ? "get"
															 : "create";
	sched_auth_decide(h->o.auth, authorization, url, verb, false, &d);
	/* an allowed explain runs on the auth thread too, off this polling thread */
	bool explain = h->o.explain && strcmp(url, SCHED_HEALTH_EXPLAIN_PATH) == 0 && strcmp(verb, "get") == 0;
	if ((d.verdict == SCHED_AUTH_PENDING || (explain && d.verdict == SCHED_AUTH_ALLOW)) && strcmp(verb, "get") == 0) {
		sched_auth_decision_release(&d);
		return queue_review(h, conn, authorization, url, explain, req_cls);
	}
	if (d.verdict != SCHED_AUTH_ALLOW && d.verdict != SCHED_AUTH_PENDING) {
		enum MHD_Result r = respond_refusal(conn, &d);
		sched_auth_decision_release(&d);
		return r;
	}
	sched_auth_decision_release(&d);
	if (strcmp(verb, "get") != 0)
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");
	return serve(h, conn, url);
}

static enum MHD_Result serve(struct sched_health *h, struct MHD_Connection *conn, const char *url)
{
	static const struct {
		const char *prefix;
		bool readyz;
	} endpoints[] = {{"/healthz", false}, {"/livez", false}, {"/readyz", true}};
	for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++) {
		size_t n = strlen(endpoints[i].prefix);
		if (strncmp(url, endpoints[i].prefix, n) != 0)
			continue;
		if (url[n] == '\0')
			return serve_checks(h, conn, endpoints[i].prefix + 1, endpoints[i].readyz);
		if (url[n] == '/' && url[n + 1])
			return serve_one(h, conn, url + n + 1, endpoints[i].readyz);
	}
	if (strcmp(url, "/metrics") == 0)
		return serve_metrics(h, conn);
	return respond_text(conn, MHD_HTTP_NOT_FOUND, "404 page not found\n");
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	(void)cls;
	vsnprintf(msg, sizeof msg, fmt, ap);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	LOG_V(2, "health server: %s", msg); /* client-driven (one per bad connection): not a warning */
}

/* ---------- Lifecycle ---------- */

/* Creates, binds and listens; returns the socket or -1 with e set. */
static int listen_on(const char *addr, int port, bool *ipv6, int *bound_port, struct err *e)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof ss);
	uint16_t p = (uint16_t)(port == SCHED_HEALTH_PORT_EPHEMERAL ? 0 : port);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(p);
		sl = sizeof *a4;
		*ipv6 = false;
	} else if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(p);
		sl = sizeof *a6;
		*ipv6 = true;
	} else {
		err_set(e, ERR_INVALID, "--bind-address: \"%s\" is not an IPv4 or IPv6 address", addr);
		return -1;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err_set(e, ERR_IO, "health server: socket: %s", strerror(errno));
		return -1;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, SOMAXCONN) != 0) {
		err_set(e, ERR_IO, "health server: listen on %s:%d: %s", addr, (int)p, strerror(errno));
		close(fd);
		return -1;
	}
	sl = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		err_set(e, ERR_IO, "health server: getsockname: %s", strerror(errno));
		close(fd);
		return -1;
	}
	*bound_port = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
	return fd;
}

/* Reads a whole PEM file (cert or key) into a malloc'd string. */
static char *read_pem(const char *flag, const char *path, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	if (fd < 0 || fstat(fd, &st) != 0) {
		err_set(e, ERR_IO, "%s: open %s: %s", flag, path, strerror(errno));
		goto out;
	}
	if (st.st_size <= 0 || st.st_size > (1 << 20)) {
		err_set(e, ERR_INVALID, "%s: %s: not a PEM file of at most 1 MiB", flag, path);
		goto out;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n <= 0) {
			err_set(e, ERR_IO, "%s: read %s: %s", flag, path, n < 0 ? strerror(errno) : "short read");
			free(buf);
			buf = NULL;
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
out:
	if (fd >= 0)
		close(fd);
	return buf;
}

/* The serving certificate: the files, or upstream's in-memory self-signed one
 * (MaybeDefaultWithSelfSignedCerts("localhost", nil, [127.0.0.1]) plus the bind address, or
 * "localhost" again when it is unspecified). */
static int load_cert(struct sched_health *h, const struct sched_health_options *o, const char *addr,
		     struct err *e)
{
	bool have_cert = o->cert_file && *o->cert_file, have_key = o->key_file && *o->key_file;
	if (have_cert != have_key)
		return err_set(e, ERR_INVALID, "--tls-cert-file and --tls-private-key-file must be given together");
	if (have_cert) {
		if (!(h->cert_pem = read_pem("--tls-cert-file", o->cert_file, e)) ||
		    !(h->key_pem = read_pem("--tls-private-key-file", o->key_file, e)))
			return e ? e->code : ERR_IO;
		return 0;
	}
	const char *ips[2] = {"127.0.0.1", NULL}, *dns[1] = {"localhost"};
	bool unspecified = strcmp(addr, "0.0.0.0") == 0 || strcmp(addr, "::") == 0;
	if (!unspecified)
		ips[1] = addr;
	if (sched_health_self_signed("localhost", ips, unspecified ? 1 : 2, dns, unspecified ? 1 : 0, &h->cert_pem,
				     &h->key_pem, e) < 0)
		return e ? e->code : ERR_IO;
	LOG_INFO("Generated self-signed cert in-memory");
	return 0;
}

/* The connection cap: SCHED_HEALTH_MAX_CONNECTIONS, or half the descriptors RLIMIT_NOFILE
 * allows (the rest are the scheduler's). */
static unsigned connection_limit(void)
{
	struct rlimit rl;
	unsigned limit = SCHED_HEALTH_MAX_CONNECTIONS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 2 < limit)
		limit = (unsigned)(rl.rlim_cur / 2);
	return limit < 8 ? 8 : limit;
}

struct sched_health *sched_health_start(const struct sched_health_options *o, struct err *e)
{
	struct sched_health *h = NULL;
	int fd = -1;
	bool ipv6 = false;
	if (!o) {
		err_set(e, ERR_INVALID, "sched_health_start: no options");
		goto fail;
	}
	if (o->port != SCHED_HEALTH_PORT_EPHEMERAL && (o->port < 1 || o->port > 65535)) {
		err_set(e, ERR_INVALID, "--secure-port %d must be between 0 and 65535, inclusive. 0 for turning off secure port",
			o->port);
		goto fail;
	}
	const char *addr = o->bind_address && *o->bind_address ? o->bind_address : SCHED_HEALTH_DEFAULT_BIND_ADDRESS;
	if (!(h = calloc(1, sizeof *h))) {
		err_set(e, ERR_NOMEM, "health server: out of memory");
		goto fail;
	}
	h->o = *o;
	h->o.bind_address = h->o.cert_file = h->o.key_file = NULL;
	h->tail = &h->head;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	if (!h->o.auth && !(h->o.auth = h->own_auth = sched_auth_new(NULL, e)))
		goto fail;
	if ((fd = listen_on(addr, o->port, &ipv6, &h->port, e)) < 0)
		goto fail;
	if (load_cert(h, o, addr, e) < 0)
		goto fail;
	if (pthread_create(&h->thread, NULL, auth_thread, h) != 0) {
		err_set(e, ERR_IO, "health server: cannot start the auth thread");
		goto fail;
	}
	h->thread_started = true;
	unsigned limit = connection_limit();
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_USE_TLS | MHD_ALLOW_SUSPEND_RESUME |
			 (ipv6 ? MHD_USE_IPv6 : 0);
	h->daemon = MHD_start_daemon(
		flags, 0, NULL, NULL, handle, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_HTTPS_MEM_CERT, h->cert_pem, MHD_OPTION_HTTPS_MEM_KEY, h->key_pem,
		/* Go's default server minimum (crypto/tls): TLS 1.2 */
		MHD_OPTION_HTTPS_PRIORITIES, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
		MHD_OPTION_NOTIFY_COMPLETED, request_completed, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)SCHED_HEALTH_IDLE_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT, limit,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, limit / 4, MHD_OPTION_END);
	if (!h->daemon) {
		err_set(e, ERR_IO, "health server: cannot start the HTTPS server on %s:%d", addr, h->port);
		fd = -1; /* MHD closed it */
		goto fail;
	}
	LOG_INFO("Serving securely on %s:%d", addr, h->port);
	return h;

fail:
	if (fd >= 0)
		close(fd);
	sched_health_stop(h);
	return NULL;
}

int sched_health_port(const struct sched_health *h)
{
	return h ? h->port : 0;
}

void sched_health_stop(struct sched_health *h)
{
	if (!h)
		return;
	if (h->thread_started) {
		/* the auth thread answers what is queued from the caches and resumes it */
		pthread_mutex_lock(&h->mu);
		h->stopping = true;
		pthread_cond_signal(&h->cv);
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->thread, NULL);
	}
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	sched_auth_free(h->own_auth);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h->cert_pem);
	free(h->key_pem);
	free(h);
}
