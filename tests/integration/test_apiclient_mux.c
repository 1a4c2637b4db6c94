/* api_mux against the real kube-apiserver (TLS, ALPN h2), through a byte relay on loopback that
 * counts the TCP connections and can hold and cut them:
 *  - N threads bind N pods at once, each blocked in its own api_bind_pod on a connection of the
 *    same muxer: every bind succeeds (201; a second bind is ERR_CONFLICT with the server's
 *    message, as on a connection of its own), all of them over one TCP connection and HTTP/2;
 *  - binds in flight when that connection is cut do not hang: each ends within its timeout, in
 *    success (libcurl resent it on a new connection: nothing had reached the server) or in
 *    ERR_TRANSPORT, as a bind on a per-thread connection does; a retry of the failed ones
 *    succeeds over a new connection and no pod is bound twice;
 *  - informers with shared_connection (the client's watch muxer) list and watch over one TCP
 *    connection, see what is created after their sync, resume after that connection is cut,
 *    and stop without waiting for an event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_client.h"
#include "apiclient/informer.h"
#include "apiclient/api_types.h"
#include "harness.h"
#include "testutil.h"

/* ---------- a TCP relay: 127.0.0.1:port <-> the apiserver ---------- */

#define RELAY_MAX 32

struct relay {
	int fd, port, upstream_port;
	pthread_t thread;
	pthread_mutex_t lock;
	int client[RELAY_MAX], server[RELAY_MAX]; /* -1: closed */
	int n;                                    /* pairs accepted so far */
	bool hold;                                /* client -> server bytes are not relayed */
	bool cut;                                 /* close every open pair */
	atomic_bool stop;
};

static int connect_upstream(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

static bool pump(int from, int to)
{
	char buf[16384];
	ssize_t r = recv(from, buf, sizeof buf, 0);
	if (r <= 0)
		return false;
	for (ssize_t off = 0; off < r;) {
		ssize_t w = send(to, buf + off, (size_t)(r - off), MSG_NOSIGNAL);
		if (w <= 0)
			return false;
		off += w;
	}
	return true;
}

static void close_pair(struct relay *r, int i)
{
	if (r->client[i] >= 0) {
		close(r->client[i]);
		close(r->server[i]);
		r->client[i] = r->server[i] = -1;
	}
}

/* One thread polls the listening socket and every pair. */
static void *relay_main(void *arg)
{
	struct relay *r = arg;
	while (!atomic_load(&r->stop)) {
		struct pollfd p[1 + 2 * RELAY_MAX];
		int idx[1 + 2 * RELAY_MAX], np = 0;
		pthread_mutex_lock(&r->lock);
		if (r->cut) {
			for (int i = 0; i < r->n; i++)
				close_pair(r, i);
			r->cut = false;
		}
		bool hold = r->hold;
		p[np++] = (struct pollfd){.fd = r->fd, .events = POLLIN};
		for (int i = 0; i < r->n; i++) {
			if (r->client[i] < 0)
				continue;
			if (!hold) {
				idx[np] = i;
				p[np++] = (struct pollfd){.fd = r->client[i], .events = POLLIN};
			}
			idx[np] = RELAY_MAX + i;
			p[np++] = (struct pollfd){.fd = r->server[i], .events = POLLIN};
		}
		pthread_mutex_unlock(&r->lock);
		if (poll(p, (nfds_t)np, 20) <= 0)
			continue;
		pthread_mutex_lock(&r->lock);
		if (p[0].revents & POLLIN) {
			int c = accept4(r->fd, NULL, NULL, SOCK_CLOEXEC);
			int s = c >= 0 ? connect_upstream(r->upstream_port) : -1;
			if (c >= 0 && s >= 0 && r->n < RELAY_MAX) {
				r->client[r->n] = c;
				r->server[r->n] = s;
				r->n++;
			} else {
				if (c >= 0)
					close(c);
				if (s >= 0)
					close(s);
			}
		}
		for (int k = 1; k < np; k++) {
			if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int i = idx[k] % RELAY_MAX;
			if (r->client[i] < 0 || r->cut)
				continue;
			bool ok = idx[k] < RELAY_MAX ? pump(r->client[i], r->server[i]) : pump(r->server[i], r->client[i]);
			if (!ok)
				close_pair(r, i);
		}
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* On the heap: a test that fails leaves its relay thread running (cmocka jumps out of the test),
 * which must not write into the next test's stack. */
static struct relay *relay_start(int upstream_port)
{
	struct relay *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	pthread_mutex_init(&r->lock, NULL);
	r->upstream_port = upstream_port;
	for (int i = 0; i < RELAY_MAX; i++)
		r->client[i] = r->server[i] = -1;
	r->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(r->fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	assert_int_equal(bind(r->fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(r->fd, 64), 0);
	assert_int_equal(getsockname(r->fd, (struct sockaddr *)&a, &len), 0);
	r->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&r->thread, NULL, relay_main, r), 0);
	return r;
}

static void relay_stop(struct relay *r)
{
	atomic_store(&r->stop, true);
	pthread_join(r->thread, NULL);
	for (int i = 0; i < r->n; i++)
		close_pair(r, i);
	close(r->fd);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static int relay_connections(struct relay *r)
{
	pthread_mutex_lock(&r->lock);
	int n = r->n;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void relay_set(struct relay *r, bool hold, bool cut)
{
	pthread_mutex_lock(&r->lock);
	r->hold = hold;
	r->cut = cut;
	pthread_mutex_unlock(&r->lock);
}

/* ---------- fixture ---------- */

struct fixture {
	struct harness_cluster cluster;
	struct api_client *direct;
	struct api_conn *conn;
};

static struct fixture *fx;

static int setup(void **state)
{
	struct err e = {0};
	fx = calloc(1, sizeof(*fx));
	assert_non_null(fx);
	if (harness_setup(&fx->cluster, HARNESS_BENCH, &fx->direct, &fx->conn))
		return -1;
	if (harness_create_namespace(fx->conn, "mux", &e) ||
	    harness_create_nodes(fx->direct, "mux-node-", 0, 1, &e))
		fail_msg("setup: %s", e.msg);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (fx)
		harness_teardown(&fx->cluster, &fx->direct, &fx->conn);
	free(fx);
	fx = NULL;
	return 0;
}

/* A client of the cluster's kubeconfig (token) whose server is the relay: TLS end to end (the
 * apiserver's certificate names 127.0.0.1, the relay's address too). */
static struct api_client *relay_client(const struct relay *r, long timeout_ms)
{
	struct api_config cfg;
	struct err e = {0};
	if (api_config_load_kubeconfig(&cfg, fx->cluster.kubeconfig, "token", &e))
		fail_msg("kubeconfig: %s", e.msg);
	free(cfg.server);
	char url[64];
	snprintf(url, sizeof url, "https://127.0.0.1:%d", r->port);
	cfg.server = strdup(url);
	cfg.request_timeout_ms = timeout_ms;
	struct api_client *c = api_client_new(&cfg, &e);
	if (!c)
		fail_msg("api_client_new: %s", e.msg);
	return c;
}

/* The uid and spec.nodeName of pod mux/name ("" when unassigned). */
static void pod_get(const char *name, char *uid, size_t uid_size, char *node, size_t node_size)
{
	char path[256];
	snprintf(path, sizeof path, "/api/v1/namespaces/mux/pods/%s", name);
	struct api_response r = {0};
	struct err e = {0};
	if (api_request(fx->conn, "GET", path, NULL, NULL, 0, &r, &e))
		fail_msg("GET %s: %s", path, e.msg);
	yajl_val root = yajl_tree_parse(r.body, NULL, 0);
	assert_non_null(root);
	static const char *uid_p[] = {"metadata", "uid", NULL}, *node_p[] = {"spec", "nodeName", NULL};
	yajl_val u = yajl_tree_get(root, uid_p, yajl_t_string), n = yajl_tree_get(root, node_p, yajl_t_string);
	snprintf(uid, uid_size, "%s", u ? YAJL_GET_STRING(u) : "");
	snprintf(node, node_size, "%s", n ? YAJL_GET_STRING(n) : "");
	yajl_tree_free(root);
	api_response_release(&r);
}

#define BINDERS 32

struct binder {
	struct api_client *client;
	struct api_mux *mux;
	pthread_barrier_t *go;
	char name[64], uid[64];
	int rc;
	char msg[ERR_MSG_MAX];
	int64_t took_ms;
};

static void *binder_main(void *arg)
{
	struct binder *b = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new_mux(b->client, b->mux, &e);
	if (!conn) {
		b->rc = e.code;
		snprintf(b->msg, sizeof b->msg, "%s", e.msg);
		pthread_barrier_wait(b->go);
		return NULL;
	}
	pthread_barrier_wait(b->go);
	int64_t t0 = harness_now_ms();
	b->rc = api_bind_pod(conn, "mux", b->name, b->uid, "mux-node-0", &e);
	b->took_ms = harness_now_ms() - t0;
	snprintf(b->msg, sizeof b->msg, "%s", e.msg);
	api_conn_free(conn);
	return NULL;
}

/* Runs BINDERS binds of PREFIX0.. at once; with hold_and_cut, the relay holds what they send
 * until all have been submitted, then cuts the connection they share. */
static void bind_all(struct api_client *cl, struct api_mux *mux, const char *prefix, struct binder *b,
		     struct relay *relay, bool hold_and_cut, bool unbound)
{
	pthread_t t[BINDERS];
	pthread_barrier_t go;
	pthread_barrier_init(&go, NULL, BINDERS + 1);
	char node[64];
	for (int i = 0; i < BINDERS; i++) {
		b[i] = (struct binder){.client = cl, .mux = mux, .go = &go};
		snprintf(b[i].name, sizeof b[i].name, "%s%d", prefix, i);
		pod_get(b[i].name, b[i].uid, sizeof b[i].uid, node, sizeof node);
		if (unbound)
			assert_string_equal(node, "");
		assert_int_equal(pthread_create(&t[i], NULL, binder_main, &b[i]), 0);
	}
	if (hold_and_cut)
		relay_set(relay, true, false);
	pthread_barrier_wait(&go);
	if (hold_and_cut) {
		struct timespec ts = {0, 300 * 1000000L}; /* every bind written into the held connection */
		nanosleep(&ts, NULL);
		relay_set(relay, false, true);
	}
	for (int i = 0; i < BINDERS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
}

static void test_concurrent_binds_share_one_h2_connection(void **state)
{
	(void)state;
	struct err e = {0};
	struct relay *relay = relay_start(fx->cluster.apiserver_port);
	if (harness_create_pods(fx->direct, "mux", "a-", 0, BINDERS, &e))
		fail_msg("pods: %s", e.msg);
	struct api_client *cl = relay_client(relay, 30000);
	struct api_mux *mux = api_mux_new(16, &e);
	assert_non_null(mux);

	struct binder b[BINDERS];
	bind_all(cl, mux, "a-", b, relay, false, true);
	for (int i = 0; i < BINDERS; i++)
		if (b[i].rc)
			fail_msg("bind %s: %s", b[i].name, b[i].msg);
	struct api_mux_stats st;
	api_mux_stats(mux, &st);
	print_message("mux: %d binds: %llu requests, %llu connections, %llu over HTTP/2, %llu polls\n", BINDERS,
		      (unsigned long long)st.requests, (unsigned long long)st.connects, (unsigned long long)st.http2,
		      (unsigned long long)st.polls);
	assert_int_equal(st.requests, BINDERS);
	assert_int_equal(st.http2, BINDERS);
	assert_int_equal(st.connects, 1);
	assert_int_equal(relay_connections(relay), 1);
	char uid[64], node[64];
	for (int i = 0; i < BINDERS; i++) {
		pod_get(b[i].name, uid, sizeof uid, node, sizeof node);
		assert_string_equal(node, "mux-node-0");
	}

	/* binding again: the server's 409, as on a connection of one's own */
	bind_all(cl, mux, "a-", b, relay, false, false);
	for (int i = 0; i < BINDERS; i++) {
		assert_int_equal(b[i].rc, ERR_CONFLICT);
		assert_non_null(strstr(b[i].msg, "already assigned"));
	}
	assert_int_equal(relay_connections(relay), 1);

	api_mux_free(mux);
	api_client_free(cl);
	relay_stop(relay);
}

static void test_cut_connection_fails_or_resends_in_flight_binds(void **state)
{
	(void)state;
	struct err e = {0};
	struct relay *relay = relay_start(fx->cluster.apiserver_port);
	if (harness_create_pods(fx->direct, "mux", "b-", 0, BINDERS, &e))
		fail_msg("pods: %s", e.msg);
	struct api_client *cl = relay_client(relay, 5000);
	struct api_mux *mux = api_mux_new(16, &e);
	assert_non_null(mux);
	struct api_conn *warm = api_conn_new_mux(cl, mux, &e);
	assert_non_null(warm);
	/* the connection is up (TLS, h2 settings) before the binds start */
	long n = 0;
	if (harness_count(warm, "/api/v1/namespaces/mux/pods", &n, &e))
		fail_msg("count: %s", e.msg);
	assert_int_equal(relay_connections(relay), 1);

	struct binder b[BINDERS];
	bind_all(cl, mux, "b-", b, relay, true, true);
	int failed = 0, ok = 0;
	for (int i = 0; i < BINDERS; i++) {
		assert_true(b[i].took_ms < 15000); /* none hangs: the request timeout is 5 s */
		if (b[i].rc == 0) {
			ok++;
		} else {
			if (b[i].rc != ERR_TRANSPORT)
				fail_msg("bind %s: %d %s", b[i].name, b[i].rc, b[i].msg);
			failed++;
		}
	}
	print_message("mux: connection cut under %d binds: %d resent by libcurl, %d failed (ERR_TRANSPORT)\n",
		      BINDERS, ok, failed);
	assert_true(relay_connections(relay) >= 2 || failed == BINDERS);

	/* the failed ones again, as the scheduler retries a failed binding cycle */
	for (int i = 0; i < BINDERS; i++) {
		if (b[i].rc == 0)
			continue;
		err_clear(&e);
		int rc = api_bind_pod(warm, "mux", b[i].name, b[i].uid, "mux-node-0", &e);
		if (rc)
			fail_msg("retried bind %s: %s", b[i].name, e.msg);
	}
	char uid[64], node[64];
	for (int i = 0; i < BINDERS; i++) {
		pod_get(b[i].name, uid, sizeof uid, node, sizeof node);
		assert_string_equal(node, "mux-node-0");
	}
	struct api_mux_stats st;
	api_mux_stats(mux, &st);
	assert_true(st.connects >= 2);
	api_conn_free(warm);
	api_mux_free(mux);
	api_client_free(cl);
	relay_stop(relay);
}

/* 64 binders that each bind pods one after another on their own long-lived api_conn, as the
 * scheduler's do: the muxer waits for the network between them, a few rounds per request. */
#define SEQ_THREADS 64
#define SEQ_BINDS 20
struct seq_binder {
	struct api_client *client;
	struct api_mux *mux;
	int first, failed;
	char (*uids)[64]; /* of s-0.. (read before the threads start: pod_get's connection is one) */
};

static void *seq_binder_main(void *arg)
{
	struct seq_binder *sb = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new_mux(sb->client, sb->mux, &e);
	if (!conn) {
		sb->failed = SEQ_BINDS;
		return NULL;
	}
	for (int i = sb->first; i < sb->first + SEQ_BINDS; i++) {
		char name[64];
		snprintf(name, sizeof name, "s-%d", i);
		if (api_bind_pod(conn, "mux", name, sb->uids[i], "mux-node-0", &e))
			sb->failed++;
	}
	api_conn_free(conn);
	return NULL;
}

static void test_sequential_binds_do_not_spin(void **state)
{
	(void)state;
	struct err e = {0};
	if (harness_create_pods(fx->direct, "mux", "s-", 0, SEQ_THREADS * SEQ_BINDS, &e))
		fail_msg("pods: %s", e.msg);
	struct api_client *cl = harness_client_new(&fx->cluster, NULL, &e);
	assert_non_null(cl);
	struct api_mux *mux = api_mux_new(16, &e);
	assert_non_null(mux);
	static char uids[SEQ_THREADS * SEQ_BINDS][64];
	for (int i = 0; i < SEQ_THREADS * SEQ_BINDS; i++) {
		char name[64], node[64];
		snprintf(name, sizeof name, "s-%d", i);
		pod_get(name, uids[i], sizeof uids[i], node, sizeof node);
	}
	pthread_t t[SEQ_THREADS];
	struct seq_binder sb[SEQ_THREADS];
	for (int i = 0; i < SEQ_THREADS; i++) {
		sb[i] = (struct seq_binder){.client = cl, .mux = mux, .first = i * SEQ_BINDS, .uids = uids};
		assert_int_equal(pthread_create(&t[i], NULL, seq_binder_main, &sb[i]), 0);
	}
	for (int i = 0; i < SEQ_THREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(sb[i].failed, 0);
	}
	struct api_mux_stats st;
	api_mux_stats(mux, &st);
	print_message("mux: %d sequential binds: %llu requests, %llu connections, %llu over HTTP/2, %llu polls\n",
		      SEQ_THREADS * SEQ_BINDS, (unsigned long long)st.requests, (unsigned long long)st.connects,
		      (unsigned long long)st.http2, (unsigned long long)st.polls);
	assert_int_equal(st.requests, SEQ_THREADS * SEQ_BINDS);
	assert_true(st.polls <= 4 * st.requests);
	api_mux_free(mux);
	api_client_free(cl);
}

/* A request whose body the server does not read yet (the relay holds it): HTTP/2 flow control
 * stops libcurl's sending while the socket stays writable, and the muxer must wait, not spin
 * (api_mux.c MUX_SPIN_ROUNDS). */
struct big_patch {
	struct api_client *client;
	struct api_mux *mux;
	int rc;
	char msg[ERR_MSG_MAX];
};

static void *big_patch_main(void *arg)
{
	struct big_patch *bp = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new_mux(bp->client, bp->mux, &e);
	if (!conn) {
		bp->rc = -1;
		return NULL;
	}
	size_t n = 3u << 20;
	char *body = malloc(n + 64);
	int k = snprintf(body, 64, "{\"metadata\":{\"annotations\":{\"x\":\"");
	memset(body + k, 'a', n - (size_t)k - 8);
	strcpy(body + n - 8, "\"}}}");
	bp->rc = api_patch_pod_status(conn, "mux", "big-0", body, strlen(body), &e);
	snprintf(bp->msg, sizeof bp->msg, "%s", e.msg);
	free(body);
	api_conn_free(conn);
	return NULL;
}

static void test_held_body_does_not_spin(void **state)
{
	(void)state;
	struct err e = {0};
	struct relay *relay = relay_start(fx->cluster.apiserver_port);
	if (harness_create_pods(fx->direct, "mux", "big-", 0, 1, &e))
		fail_msg("pods: %s", e.msg);
	struct api_client *cl = relay_client(relay, 30000);
	struct api_mux *mux = api_mux_new(16, &e);
	assert_non_null(mux);
	/* one bind first, so that the connection is up and speaks HTTP/2 */
	struct binder b[BINDERS];
	bind_all(cl, mux, "a-", b, relay, false, false);
	struct api_mux_stats st0, st1;
	relay_set(relay, true, false);
	api_mux_stats(mux, &st0);
	struct big_patch bp = {.client = cl, .mux = mux};
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, big_patch_main, &bp), 0);
	struct timespec ts = {1, 0};
	nanosleep(&ts, NULL);
	api_mux_stats(mux, &st1);
	relay_set(relay, false, false);
	pthread_join(t, NULL);
	print_message("mux: 1 s with a held 3 MiB body: %llu polls, throttled %llu times\n",
		      (unsigned long long)(st1.polls - st0.polls), (unsigned long long)(st1.throttles - st0.throttles));
	/* without the spin guard 470,000-580,000 (libcurl 7.88); with it about one a millisecond */
	assert_true(st1.throttles > st0.throttles);
	assert_true(st1.polls - st0.polls < 5000);
	/* the body went out once released: the server's own verdict on it */
	assert_int_equal(bp.rc, ERR_HTTP);
	assert_non_null(strstr(bp.msg, "may not be more than 262144 bytes"));
	api_mux_free(mux);
	api_client_free(cl);
	relay_stop(relay);
}

/* Polls inf's store for namespace name for up to 20 s. */
static bool namespace_seen(struct api_informer *inf, const char *name)
{
	for (int i = 0; i < 2000; i++) {
		struct api_namespace *ns = api_informer_get(inf, NULL, name);
		if (ns) {
			api_namespace_unref(ns);
			return true;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return false;
}

#define SHARED_INFORMERS 4

static void test_shared_informers_one_connection(void **state)
{
	(void)state;
	struct err e = {0};
	struct relay *relay = relay_start(fx->cluster.apiserver_port);
	struct api_client *cl = relay_client(relay, 30000);
	static const enum api_kind kinds[SHARED_INFORMERS] = {API_KIND_NAMESPACE, API_KIND_PV, API_KIND_STORAGE_CLASS,
							      API_KIND_PVC};
	struct api_informer_options o = {.shared_connection = true};
	struct api_informer *inf[SHARED_INFORMERS];
	for (int i = 0; i < SHARED_INFORMERS; i++) {
		if (!(inf[i] = api_informer_new(cl, kinds[i], &o, NULL, &e)) || api_informer_start(inf[i], &e))
			fail_msg("informer %d: %s", i, e.msg);
	}
	for (int i = 0; i < SHARED_INFORMERS; i++)
		assert_true(api_informer_wait_synced(inf[i], 30000));
	/* four watches at once over one TCP connection: HTTP/2 streams (HTTP/1.1 needs four) */
	assert_int_equal(relay_connections(relay), 1);
	struct api_namespace *listed = api_informer_get(inf[0], NULL, "mux"); /* made by the setup */
	assert_non_null(listed);
	api_namespace_unref(listed);
	if (harness_create_namespace(fx->conn, "mux-shared-1", &e))
		fail_msg("namespace: %s", e.msg);
	assert_true(namespace_seen(inf[0], "mux-shared-1")); /* watched */

	/* the connection cut: every stream on it breaks; the informers reconnect and resume */
	relay_set(relay, false, true);
	if (harness_create_namespace(fx->conn, "mux-shared-2", &e))
		fail_msg("namespace: %s", e.msg);
	assert_true(namespace_seen(inf[0], "mux-shared-2"));
	int after_cut = relay_connections(relay);
	assert_true(after_cut >= 2);
	struct api_informer_stats st;
	api_informer_stats(inf[0], &st);
	assert_true(st.watch_errors + st.relists >= 1);

	/* stopping ends each one's stream (nothing else would: no event comes) */
	for (int i = 0; i < SHARED_INFORMERS; i++)
		api_informer_free(inf[i]);
	api_client_free(cl);
	relay_stop(relay);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_binds_share_one_h2_connection),
		cmocka_unit_test(test_sequential_binds_do_not_spin),
		cmocka_unit_test(test_held_body_does_not_spin),
		cmocka_unit_test(test_cut_connection_fails_or_resends_in_flight_binds),
		cmocka_unit_test(test_shared_informers_one_connection),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
