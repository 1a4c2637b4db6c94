/* api_mux: connections that share a multiplexer make the requests of api_conn_new's connections,
 * with the same results (2xx, 404/409 as ERR_NOT_FOUND/ERR_CONFLICT with the Status message, 429
 * with Retry-After waited out and retried, the per-request timeout, a cut connection as a
 * transport error), from many threads at once, over at most max_conns connections. The server
 * here is a loopback HTTP/1.1 server (the fallback path: no TLS, hence no ALPN and no h2); the
 * HTTP/2 path against the real kube-apiserver is tests/integration/test_apiclient_mux.c. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "apiclient/api_client.h"
#include "common/clock.h"

/* ---------- a loopback HTTP/1.1 server, one thread per connection ---------- */

#define MAX_SERVER_CONNS 64

struct server {
	int fd, port;
	pthread_t accept_thread;
	pthread_mutex_t lock;
	int conn_fds[MAX_SERVER_CONNS];
	pthread_t conn_threads[MAX_SERVER_CONNS];
	int n_conns;   /* accepted so far */
	int open;      /* open now */
	int max_open;  /* most open at once */
	int requests;
	int retry_seen; /* /retry answered 429 once */
	bool stopping;
};

struct conn_arg {
	struct server *srv;
	int fd;
};

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void respond(int fd, int status, const char *extra, const char *body)
{
	char buf[1024];
	int n = snprintf(buf, sizeof buf,
			 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n%s\r\n%s", status,
			 strlen(body), extra, body);
	send_all(fd, buf, (size_t)n);
}

/* Reads one request (headers, then Content-Length bytes); its path into path. False at EOF. */
static bool read_request(int fd, char *path, size_t size)
{
	char buf[8192] = "";
	size_t len = 0;
	char *end = NULL;
	while (!(end = strstr(buf, "\r\n\r\n"))) {
		if (len + 1 >= sizeof buf)
			return false;
		ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
		if (r <= 0)
			return false;
		len += (size_t)r;
		buf[len] = '\0';
	}
	size_t head = (size_t)(end + 4 - buf);
	const char *cl = strcasestr(buf, "Content-Length:");
	size_t body = cl && cl < end ? (size_t)strtoul(cl + 15, NULL, 10) : 0;
	while (len < head + body) { /* the bodies here are small: drain them */
		char tmp[4096];
		ssize_t r = recv(fd, tmp, sizeof tmp, 0);
		if (r <= 0)
			return false;
		len += (size_t)r;
	}
	char *sp = strchr(buf, ' ');
	if (!sp)
		return false;
	snprintf(path, size, "%.*s", (int)strcspn(sp + 1, " "), sp + 1);
	return true;
}

static void *conn_main(void *arg)
{
	struct conn_arg *a = arg;
	struct server *srv = a->srv;
	int fd = a->fd;
	free(a);
	char path[512];
	while (read_request(fd, path, sizeof path)) {
		pthread_mutex_lock(&srv->lock);
		srv->requests++;
		bool retry_first = !strcmp(path, "/retry") && !srv->retry_seen;
		if (retry_first)
			srv->retry_seen = 1;
		pthread_mutex_unlock(&srv->lock);
		if (!strncmp(path, "/slow", 5)) {
			sleep_ns(100 * NSEC_PER_MSEC);
			respond(fd, 201, "", "{\"kind\":\"Status\",\"status\":\"Success\"}");
		} else if (!strcmp(path, "/conflict")) {
			respond(fd, 409, "",
				"{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"pod p is already assigned\","
				"\"reason\":\"Conflict\",\"code\":409}");
		} else if (!strcmp(path, "/missing")) {
			respond(fd, 404, "", "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"pods \\\"p\\\" not found\","
					     "\"reason\":\"NotFound\",\"code\":404}");
		} else if (!strcmp(path, "/retry")) {
			if (retry_first)
				respond(fd, 429, "Retry-After: 1\r\n", "{\"kind\":\"Status\",\"code\":429}");
			else
				respond(fd, 201, "", "{}");
		} else if (!strcmp(path, "/hang")) {
			/* never answers; the client's timeout ends the request and closes the connection */
			char c;
			while (recv(fd, &c, 1, 0) > 0)
				;
			break;
		} else if (!strcmp(path, "/stream")) {
			/* a watch: one event, then nothing until the client goes (no length: the body
			 * ends with the connection) */
			const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
					    "{\"type\":\"ADDED\"}\n";
			send_all(fd, head, sizeof head - 1);
			char c;
			while (recv(fd, &c, 1, 0) > 0)
				;
			break;
		} else if (!strcmp(path, "/cut")) {
			break; /* closes the connection without an answer */
		} else {
			respond(fd, 201, "", "{}");
		}
	}
	close(fd);
	pthread_mutex_lock(&srv->lock);
	srv->open--;
	pthread_mutex_unlock(&srv->lock);
	return NULL;
}

static void *accept_main(void *arg)
{
	struct server *srv = arg;
	for (;;) {
		int fd = accept(srv->fd, NULL, NULL);
		if (fd < 0)
			return NULL; /* the listening socket was shut down */
		pthread_mutex_lock(&srv->lock);
		if (srv->stopping || srv->n_conns >= MAX_SERVER_CONNS) {
			pthread_mutex_unlock(&srv->lock);
			close(fd);
			continue;
		}
		struct conn_arg *a = malloc(sizeof(*a));
		assert_non_null(a);
		a->srv = srv;
		a->fd = fd;
		int i = srv->n_conns++;
		srv->conn_fds[i] = fd;
		srv->open++;
		if (srv->open > srv->max_open)
			srv->max_open = srv->open;
		assert_int_equal(pthread_create(&srv->conn_threads[i], NULL, conn_main, a), 0);
		pthread_mutex_unlock(&srv->lock);
	}
}

/* On the heap: a test that fails leaves the server's threads running (cmocka jumps out of the
 * test), which must not write into the next test's stack. */
static struct server *server_start(void)
{
	struct server *srv = calloc(1, sizeof(*srv));
	assert_non_null(srv);
	pthread_mutex_init(&srv->lock, NULL);
	srv->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(srv->fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	assert_int_equal(bind(srv->fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(srv->fd, 64), 0);
	assert_int_equal(getsockname(srv->fd, (struct sockaddr *)&a, &len), 0);
	srv->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&srv->accept_thread, NULL, accept_main, srv), 0);
	return srv;
}

/* After every client connection is closed (the muxer freed). srv stays readable (the counts)
 * until the test frees it. */
static void server_stop(struct server *srv)
{
	pthread_mutex_lock(&srv->lock);
	srv->stopping = true;
	int n = srv->n_conns;
	pthread_mutex_unlock(&srv->lock);
	shutdown(srv->fd, SHUT_RDWR);
	pthread_join(srv->accept_thread, NULL);
	close(srv->fd);
	for (int i = 0; i < n; i++)
		pthread_join(srv->conn_threads[i], NULL);
	pthread_mutex_destroy(&srv->lock);
}

static struct api_client *client_for(int port, long timeout_ms)
{
	struct api_config ac = {0};
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	ac.server = strdup(url);
	ac.request_timeout_ms = timeout_ms;
	struct err e = {0};
	struct api_client *c = api_client_new(&ac, &e);
	api_config_release(&ac);
	assert_non_null(c);
	return c;
}

/* ---------- tests ---------- */

#define THREADS 8
#define PER_THREAD 5

struct worker {
	struct api_client *client;
	struct api_mux *mux;
	int ok, failed;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new_mux(w->client, w->mux, &e);
	if (!conn) {
		w->failed = PER_THREAD;
		return NULL;
	}
	for (int i = 0; i < PER_THREAD; i++) {
		struct api_response r = {0};
		const char body[] = "{\"target\":{\"kind\":\"Node\",\"name\":\"n\"}}";
		int rc = api_request(conn, "POST", "/slow/binding", NULL, body, sizeof body - 1, &r, &e);
		if (rc == 0 && r.status == 201 && strstr(r.body, "Success"))
			w->ok++;
		else
			w->failed++;
		api_response_release(&r);
	}
	api_conn_free(conn);
	return NULL;
}

/* Many threads, each blocked in its own requests, share at most max_conns connections; every
 * request gets its own answer. */
static void test_concurrent_requests_share_bounded_connections(void **state)
{
	(void)state;
	struct server *srv = server_start();
	struct api_client *c = client_for(srv->port, 10000);
	struct err e = {0};
	struct api_mux *mux = api_mux_new(2, &e);
	assert_non_null(mux);

	struct worker w[THREADS];
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){.client = c, .mux = mux};
		assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].ok, PER_THREAD);
		assert_int_equal(w[i].failed, 0);
	}
	struct api_mux_stats st;
	api_mux_stats(mux, &st);
	assert_int_equal(st.requests, THREADS * PER_THREAD);
	assert_true(st.connects >= 1 && st.connects <= 2);
	assert_int_equal(st.http2, 0); /* plain http: no ALPN, HTTP/1.1 */
	api_mux_free(mux);
	api_client_free(c);
	server_stop(srv);
	assert_true(srv->max_open <= 2);
	assert_int_equal(srv->requests, THREADS * PER_THREAD);
	free(srv);
}

/* 409 and 404 come back as api_conn_new's connections return them: the code and the Status
 * message. 429 with Retry-After is waited out and retried (client-go's rest client). */
static void test_http_results(void **state)
{
	(void)state;
	struct server *srv = server_start();
	struct api_client *c = client_for(srv->port, 10000);
	struct err e = {0};
	struct api_mux *mux = api_mux_new(2, &e);
	assert_non_null(mux);
	struct api_conn *conn = api_conn_new_mux(c, mux, &e);
	assert_non_null(conn);

	int rc = api_request(conn, "POST", "/conflict", NULL, "{}", 2, NULL, &e);
	assert_int_equal(rc, ERR_CONFLICT);
	assert_int_equal(e.http_status, 409);
	assert_non_null(strstr(e.msg, "pod p is already assigned"));

	err_clear(&e);
	rc = api_request(conn, "PATCH", "/missing", "application/merge-patch+json", "{}", 2, NULL, &e);
	assert_int_equal(rc, ERR_NOT_FOUND);
	assert_non_null(strstr(e.msg, "not found"));

	err_clear(&e);
	int64_t t0 = mono_ns();
	struct api_response r = {0};
	rc = api_request(conn, "POST", "/retry", NULL, "{}", 2, &r, &e);
	assert_int_equal(rc, 0);
	assert_int_equal(r.status, 201);
	assert_true(mono_ns() - t0 >= 900 * NSEC_PER_MSEC); /* Retry-After: 1 */
	api_response_release(&r);

	api_conn_free(conn);
	api_mux_free(mux);
	api_client_free(c);
	server_stop(srv);
	assert_int_equal(srv->requests, 4);
	free(srv);
}

struct hang_arg {
	struct api_client *client;
	struct api_mux *mux;
	int rc;
	int64_t took_ms;
	char msg[ERR_MSG_MAX];
};

static void *hang_main(void *arg)
{
	struct hang_arg *h = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new_mux(h->client, h->mux, &e);
	assert_non_null(conn);
	int64_t t0 = mono_ns();
	h->rc = api_request(conn, "POST", "/hang", NULL, "{}", 2, NULL, &e);
	h->took_ms = (mono_ns() - t0) / 1000000;
	snprintf(h->msg, sizeof h->msg, "%s", e.msg);
	api_conn_free(conn);
	return NULL;
}

/* A request the server never answers ends at the client's request timeout, while the other
 * threads' requests go on over the other connection; a connection cut before the answer fails
 * its request with a transport error and the next request opens a new one. */
static void test_timeout_and_cut(void **state)
{
	(void)state;
	struct server *srv = server_start();
	struct api_client *c = client_for(srv->port, 1500);
	struct err e = {0};
	struct api_mux *mux = api_mux_new(2, &e);
	assert_non_null(mux);

	struct hang_arg h = {.client = c, .mux = mux};
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, hang_main, &h), 0);
	struct api_conn *conn = api_conn_new_mux(c, mux, &e);
	assert_non_null(conn);
	int64_t t0 = mono_ns();
	for (int i = 0; i < 5; i++) /* meanwhile, on the other connection */
		if (api_request(conn, "POST", "/ok", NULL, "{}", 2, NULL, &e))
			fail_msg("request %d beside the hung one: %s", i, e.msg);
	assert_true(mono_ns() - t0 < 1200 * NSEC_PER_MSEC);
	pthread_join(t, NULL);
	assert_int_equal(h.rc, ERR_TRANSPORT);
	assert_true(h.took_ms >= 1400);
	assert_true(h.took_ms < 10000);

	err_clear(&e);
	int rc = api_request(conn, "POST", "/cut", NULL, "{}", 2, NULL, &e);
	assert_int_equal(rc, ERR_TRANSPORT);
	assert_non_null(strstr(e.msg, "/cut"));
	err_clear(&e);
	assert_int_equal(api_request(conn, "POST", "/ok", NULL, "{}", 2, NULL, &e), 0);

	api_conn_free(conn);
	api_mux_free(mux);
	api_client_free(c);
	server_stop(srv);
	free(srv);
}

/* At most MUX_MAX_ACTIVE (16) transfers run at once; a 17th waits in the muxer, and its timeout
 * counts while it waits: here the 16 hang for 3 s and the 17th, with 300 ms, fails at ~300 ms
 * with the muxer's message instead of starting late. */
static void test_waiting_for_a_slot_counts_against_the_timeout(void **state)
{
	(void)state;
	struct server *srv = server_start();
	struct api_client *slow = client_for(srv->port, 3000), *quick = client_for(srv->port, 300);
	struct err e = {0};
	struct api_mux *mux = api_mux_new(2, &e);
	assert_non_null(mux);
	enum { N = 16 };
	struct hang_arg h[N + 1];
	pthread_t t[N + 1];
	for (int i = 0; i < N; i++) {
		h[i] = (struct hang_arg){.client = slow, .mux = mux};
		assert_int_equal(pthread_create(&t[i], NULL, hang_main, &h[i]), 0);
	}
	sleep_ns(200 * NSEC_PER_MSEC); /* the 16 are in the muxer's multi handle */
	h[N] = (struct hang_arg){.client = quick, .mux = mux};
	assert_int_equal(pthread_create(&t[N], NULL, hang_main, &h[N]), 0);
	pthread_join(t[N], NULL);
	assert_int_equal(h[N].rc, ERR_TRANSPORT);
	assert_true(h[N].took_ms >= 300);
	assert_true(h[N].took_ms < 1500);
	assert_non_null(strstr(h[N].msg, "for one of the muxer's 16 transfer slots"));
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(h[i].rc, ERR_TRANSPORT);
		assert_null(strstr(h[i].msg, "transfer slots"));
	}
	api_mux_free(mux);
	api_client_free(slow);
	api_client_free(quick);
	server_stop(srv);
	free(srv);
}

struct streamer {
	struct api_client *client;
	struct api_mux *mux;
	atomic_bool stop;
	atomic_int lines;
	int rc;
};

static int on_stream_line(void *ctx, char *line, size_t len)
{
	struct streamer *st = ctx;
	if (len && strstr(line, "ADDED"))
		atomic_fetch_add(&st->lines, 1);
	return 0;
}

static void *streamer_main(void *arg)
{
	struct streamer *st = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new_mux(st->client, st->mux, &e);
	st->rc = conn ? api_stream(conn, "/stream", on_stream_line, st, &st->stop, &e) : -1;
	api_conn_free(conn);
	return NULL;
}

/* Starts streamer i on mux (first: the caller waits until its line came, so that it holds the
 * connection before the others start). */
static void streamer_start(struct streamer *st, pthread_t *t, struct api_client *c, struct api_mux *mux, bool first)
{
	st->client = c;
	st->mux = mux;
	atomic_init(&st->stop, false);
	atomic_init(&st->lines, 0);
	assert_int_equal(pthread_create(t, NULL, streamer_main, st), 0);
	for (int k = 0; first && k < 500 && atomic_load(&st->lines) == 0; k++)
		sleep_ns(10 * NSEC_PER_MSEC);
}

/* A stream (a watch) on a muxer's connection delivers its lines on the muxer's thread, leaves the
 * muxer free for other requests while it is open, and ends (ERR_STOPPED) once its stop flag is set,
 * though the server never ends it; the muxer can then be freed. Twenty streams at once over
 * HTTP/1.1, each holding a connection and a transfer slot (api_mux_new(32): 32 of each). */
#define STREAMERS 20
static void test_streams_stop(void **state)
{
	(void)state;
	struct server *srv = server_start();
	struct api_client *c = client_for(srv->port, 0);
	struct err e = {0};
	struct api_mux *mux = api_mux_new(32, &e);
	assert_non_null(mux);
	struct streamer *st = calloc(STREAMERS, sizeof(*st));
	pthread_t t[STREAMERS];
	assert_non_null(st);
	for (int i = 0; i < STREAMERS; i++)
		streamer_start(&st[i], &t[i], c, mux, false);
	for (int i = 0; i < STREAMERS; i++)
		for (int k = 0; k < 500 && atomic_load(&st[i].lines) == 0; k++)
			sleep_ns(10 * NSEC_PER_MSEC);
	for (int i = 0; i < STREAMERS; i++)
		assert_int_equal(atomic_load(&st[i].lines), 1);
	struct api_conn *conn = api_conn_new_mux(c, mux, &e);
	assert_non_null(conn);
	assert_int_equal(api_request(conn, "POST", "/ok", NULL, "{}", 2, NULL, &e), 0);
	api_conn_free(conn);
	for (int i = 0; i < STREAMERS; i++)
		atomic_store(&st[i].stop, true);
	for (int i = 0; i < STREAMERS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(st[i].rc, ERR_STOPPED);
	}
	free(st);
	api_mux_free(mux);
	api_client_free(c);
	server_stop(srv);
	free(srv);
}

/* One HTTP/1.1 connection (max_conns 1): the first stream holds it, the next 15 wait inside
 * libcurl for it (in the multi handle, where no callback of theirs runs), the 17th waits for a
 * transfer slot in the muxer. Stopping a waiting one ends it at once, whichever wait it is in,
 * while the first goes on. */
#define WAITERS 17
static void test_waiting_streams_stop(void **state)
{
	(void)state;
	struct server *srv = server_start();
	struct api_client *c = client_for(srv->port, 0);
	struct err e = {0};
	struct api_mux *mux = api_mux_new(1, &e);
	assert_non_null(mux);
	struct streamer *st = calloc(WAITERS, sizeof(*st));
	pthread_t t[WAITERS];
	assert_non_null(st);
	for (int i = 0; i < WAITERS; i++)
		streamer_start(&st[i], &t[i], c, mux, i == 0);
	assert_int_equal(atomic_load(&st[0].lines), 1);
	sleep_ns(200 * NSEC_PER_MSEC); /* the others are in their waits */
	for (int i = 1; i < WAITERS; i++) /* ended at the muxer's next round (within a second) */
		atomic_store(&st[i].stop, true);
	for (int i = 1; i < WAITERS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(st[i].rc, ERR_STOPPED);
		assert_int_equal(atomic_load(&st[i].lines), 0); /* never ran */
	}
	atomic_store(&st[0].stop, true);
	pthread_join(t[0], NULL);
	assert_int_equal(st[0].rc, ERR_STOPPED);
	free(st);
	api_mux_free(mux);
	api_client_free(c);
	server_stop(srv);
	free(srv);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct err e = {0};
	assert_null(api_mux_new(0, &e));
	assert_int_equal(e.code, ERR_INVALID);
	assert_non_null(strstr(e.msg, "api mux"));
	struct api_client *c = client_for(1, 1000);
	err_clear(&e);
	assert_null(api_conn_new_mux(c, NULL, &e));
	assert_int_equal(e.code, ERR_INVALID);
	api_client_free(c);
	api_mux_free(NULL);
}

int main(void)
{
	struct err e = {0};
	if (api_global_init(&e))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_requests_share_bounded_connections),
		cmocka_unit_test(test_http_results),
		cmocka_unit_test(test_timeout_and_cut),
		cmocka_unit_test(test_waiting_for_a_slot_counts_against_the_timeout),
		cmocka_unit_test(test_streams_stop),
		cmocka_unit_test(test_waiting_streams_stop),
		cmocka_unit_test(test_bad_arguments),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	api_global_cleanup();
	return rc;
}
