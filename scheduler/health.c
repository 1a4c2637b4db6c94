/* HTTP health and metrics endpoints.
 *
 * DESIGN: libmicrohttpd runs one internal polling thread; every request is answered on its first
 * callback (GET/HEAD carry no body), so there is no per-connection state. The listening socket
 * is created here rather than by MHD so that a bind failure reports errno ("address already in
 * use") instead of a bare NULL; MHD owns the socket afterwards and closes it in
 * MHD_stop_daemon. Checks read the scheduler's state only through the callbacks in the options
 * (atomics or a brief lock on their side) and sched_leader_healthy; nothing here takes a lock.
 * The response format follows k8s.io/apiserver/pkg/server/healthz: "ok", or the "[+]/[-]" list
 * and "<endpoint> check failed" with status 500. */
#include "scheduler/health.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "scheduler/leader.h"
#include "scheduler/metrics.h"

struct sched_health {
	struct sched_health_options o; /* bind_address is not kept */
	struct MHD_Daemon *daemon;
	int port;
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

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_data_size, void **req_cls)
{
	struct sched_health *h = cls;
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return respond_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n");

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
	LOG_WARN("health server: %s", msg);
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
	if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 64) != 0) {
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
		err_set(e, ERR_INVALID, "--port: %d is not a port (1..65535; 0 disables the server)", o->port);
		goto fail;
	}
	const char *addr = o->bind_address && *o->bind_address ? o->bind_address : SCHED_HEALTH_DEFAULT_BIND_ADDRESS;
	if (!(h = calloc(1, sizeof *h))) {
		err_set(e, ERR_NOMEM, "health server: out of memory");
		goto fail;
	}
	h->o = *o;
	h->o.bind_address = NULL;
	if ((fd = listen_on(addr, o->port, &ipv6, &h->port, e)) < 0)
		goto fail;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | (ipv6 ? MHD_USE_IPv6 : 0);
	h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
	if (!h->daemon) {
		err_set(e, ERR_IO, "health server: cannot start the HTTP server on %s:%d", addr, h->port);
		goto fail;
	}
	LOG_INFO("serving /healthz, /livez, /readyz and /metrics on %s:%d", addr, h->port);
	return h;

fail:
	if (fd >= 0)
		close(fd);
	free(h);
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
	MHD_stop_daemon(h->daemon);
	free(h);
}
