/* The multiplexer of connections (contract in api_client.h): transfers of many threads over one
 * shared HTTP/2 connection.
 *
 * DESIGN
 * The binder threads each run one binding cycle at a time and block in it (PreBind plugins may
 * wait for minutes), so each kept its own api_conn, i.e. its own TCP + TLS connection: ~85 KB a
 * thread with up to 64 of them, the largest share of csched's memory at 500 nodes. Upstream's
 * binding goroutines share client-go's one HTTP/2 connection. Here the threads keep their
 * blocking model and their api_conn (an easy handle holding the request's options and answer),
 * but an api_conn made with api_conn_new_mux does not run its transfer itself: api__mux_perform
 * hands the easy handle to the muxer thread and waits for its completion.
 *
 * The muxer thread owns one curl multi handle with CURLPIPE_MULTIPLEX; its connection cache is
 * the only one the transfers use. Easy handles ask for HTTP/2 over TLS (ALPN) with
 * CURLOPT_PIPEWAIT, so transfers that start together wait for the first connection to say
 * whether it multiplexes instead of opening one each. A server that does not negotiate h2 (or a
 * plain http:// server) gets HTTP/1.1, one request per connection at a time, at most max_conns
 * connections (CURLMOPT_MAX_HOST_CONNECTIONS; further transfers wait inside libcurl for a free
 * one, within their own timeout).
 *
 * Everything of a request but the network stays on the submitting thread, unchanged: the rate
 * limiter, the credential (exec plugin runs, 401 retry), the per-request timeout and deadline
 * (the easy handle's own CURLOPT_TIMEOUT_MS, which counts from the hand-over, waiting for a
 * connection included), Retry-After waits, and the reading of the answer. While the muxer has
 * the handle, libcurl calls the api_conn's write and progress callbacks on the muxer thread;
 * the submitter touches neither the handle nor the api_conn until its completion is signalled.
 * A connection cut mid-transfer fails every transfer on it with libcurl's error, as the
 * per-thread connections failed their one transfer; the next transfers open a new connection.
 *
 * Locking: lock guards the submission list, the stopping flag and every request's done flag;
 * it is a leaf lock, never held while libcurl runs. The multi handle is touched by the muxer
 * thread only, except curl_multi_wakeup, which libcurl makes safe from any thread. Each waiting
 * submitter has its own condition variable (on its stack), so a completion wakes one thread,
 * not all 64. */
#include <poll.h>
#include <pthread.h>
#include <sys/select.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "client_internal.h"
#include "common/clock.h"
#include "common/log.h"

/* How long the muxer sleeps in curl_multi_poll at most when nothing happens (libcurl's own
 * timers, e.g. a transfer's timeout, shorten it; a submission wakes it at once). */
#define MUX_POLL_MS 1000
/* libcurl 7.88 (Debian 12's) spins over HTTP/2 when flow control holds a transfer's body while
 * the socket stays writable: it asks to be polled for writing, curl_multi_poll returns at once,
 * and curl_multi_perform sends nothing (curl issues #7821 and #12640, fixed in 8.6's
 * adjust_pollset). Measured: a 3 MiB body the server did not read made 470,000-580,000 rounds in
 * a second; DefaultTopologySpreading_5000Nodes' binds made 40,000 rounds a second (80 per bind),
 * half of csched's CPU in the runs where it happened. After MUX_SPIN_ROUNDS rounds in a row whose
 * poll returned within MUX_INSTANT_NS (a ready socket, or libcurl's timer at 0) and that moved
 * nothing (no transfer added or finished, nothing submitted), the muxer stops polling libcurl's
 * pollset and waits only for the server's bytes (what ends a flow-control stop: a WINDOW_UPDATE
 * is a read), at most MUX_PAUSE_MS a time, running libcurl after each wait, until a transfer is
 * added or finishes. A submission meanwhile waits at most MUX_PAUSE_MS. */
#define MUX_INSTANT_NS 20000
#define MUX_SPIN_ROUNDS 16
#define MUX_PAUSE_MS 1

/* One submitted transfer; lives on the submitter's stack until done. */
struct mux_req {
	CURL *h;
	CURLcode result;
	bool done; /* under mux->lock */
	pthread_cond_t cond;
	struct mux_req *next;
};

struct api_mux {
	CURLM *m; /* the muxer thread's; see DESIGN */
	pthread_t thread;
	bool thread_started;

	pthread_mutex_t lock; /* guards the fields below and every mux_req's done (leaf lock) */
	struct mux_req *submitted; /* not yet added to m, newest first */
	bool stopping;

	/* written by the muxer thread, read by anyone (api_mux_stats) */
	atomic_uint_fast64_t n_requests, n_connects, n_http2, n_polls, n_pauses;
};

/* Marks r done with result and wakes its submitter. */
static void complete(struct api_mux *x, struct mux_req *r, CURLcode result)
{
	pthread_mutex_lock(&x->lock);
	r->result = result;
	r->done = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&x->lock);
}

/* Adds the transfers submitted since the last call to the multi handle. */
static void add_submitted(struct api_mux *x, int *active)
{
	pthread_mutex_lock(&x->lock);
	struct mux_req *list = x->submitted;
	x->submitted = NULL;
	pthread_mutex_unlock(&x->lock);
	/* oldest first, as they were submitted */
	struct mux_req *rev = NULL;
	while (list) {
		struct mux_req *n = list->next;
		list->next = rev;
		rev = list;
		list = n;
	}
	while (rev) {
		struct mux_req *r = rev;
		rev = r->next;
		curl_easy_setopt(r->h, CURLOPT_PRIVATE, (void *)r);
		CURLMcode mc = curl_multi_add_handle(x->m, r->h);
		if (mc) {
			LOG_V(2, "api mux: curl_multi_add_handle: %s", curl_multi_strerror(mc));
			complete(x, r, CURLE_OUT_OF_MEMORY);
			continue;
		}
		(*active)++;
	}
}

/* Hands every finished transfer back to its submitter. */
static void reap_done(struct api_mux *x, int *active)
{
	int left;
	CURLMsg *msg;
	while ((msg = curl_multi_info_read(x->m, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		CURL *h = msg->easy_handle;
		CURLcode result = msg->data.result;
		struct mux_req *r = NULL;
		long connects = 0, httpv = 0;
		curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&r);
		curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
		curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &httpv);
		atomic_fetch_add(&x->n_requests, 1);
		atomic_fetch_add(&x->n_connects, (uint_fast64_t)connects);
		if (httpv == CURL_HTTP_VERSION_2_0)
			atomic_fetch_add(&x->n_http2, 1);
		/* removed before the submitter may touch (or free) the handle again */
		curl_multi_remove_handle(x->m, h);
		(*active)--;
		complete(x, r, result);
	}
}

/* The spin guard's pause (see MUX_SPIN_ROUNDS): waits until one of the multi handle's sockets
 * that libcurl reads from is readable, or MUX_PAUSE_MS. */
static void wait_readable(struct api_mux *x)
{
	fd_set rd, wr, ex;
	int maxfd = -1;
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_ZERO(&ex);
	struct pollfd p[16];
	nfds_t n = 0;
	if (curl_multi_fdset(x->m, &rd, &wr, &ex, &maxfd) == CURLM_OK)
		for (int fd = 0; fd <= maxfd && n < sizeof p / sizeof p[0]; fd++)
			if (FD_ISSET(fd, &rd))
				p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
	(void)poll(p, n, MUX_PAUSE_MS); /* EINTR or nothing to wait for: the next round tells */
}

static void *mux_main(void *arg)
{
	struct api_mux *x = arg;
	int active = 0;
	int spins = 0;        /* rounds in a row that found the socket ready and did nothing */
	bool instant = false; /* the last curl_multi_poll returned at once */
	bool paused = false;  /* the last wait was the spin guard's: stay there until a transfer moves */
	for (;;) {
		int before = active;
		add_submitted(x, &active);
		bool added = active != before;
		int running = 0;
		CURLMcode mc = curl_multi_perform(x->m, &running);
		if (mc)
			LOG_WARN("api mux: curl_multi_perform: %s", curl_multi_strerror(mc));
		before = active;
		reap_done(x, &active);
		bool finished = active != before;
		pthread_mutex_lock(&x->lock);
		bool quit = x->stopping && !x->submitted && active == 0;
		bool more = x->submitted != NULL;
		pthread_mutex_unlock(&x->lock);
		if (quit)
			break;
		spins = (instant || paused) && !added && !finished && !more ? spins + 1 : 0;
		if (more)
			continue;
		atomic_fetch_add(&x->n_polls, 1);
		if (spins >= MUX_SPIN_ROUNDS) {
			atomic_fetch_add(&x->n_pauses, 1);
			wait_readable(x);
			paused = true;
			instant = false;
			continue;
		}
		paused = false;
		/* woken early by curl_multi_wakeup (a submission, the stop) or by a socket */
		int64_t t0 = mono_ns();
		mc = curl_multi_poll(x->m, NULL, 0, MUX_POLL_MS, NULL);
		instant = mono_ns() - t0 < MUX_INSTANT_NS;
		if (mc) {
			LOG_WARN("api mux: curl_multi_poll: %s", curl_multi_strerror(mc));
			sleep_ns(10 * NSEC_PER_MSEC); /* not a busy loop if the poll keeps failing */
		}
	}
	return NULL;
}

struct api_mux *api_mux_new(int max_conns, struct err *e)
{
	if (max_conns < 1) {
		err_set(e, ERR_INVALID, "api mux: at least one connection is needed (got %d)", max_conns);
		return NULL;
	}
	struct api_mux *x = calloc(1, sizeof(*x));
	if (!x) {
		err_set(e, ERR_NOMEM, "api mux: out of memory");
		return NULL;
	}
	pthread_mutex_init(&x->lock, NULL);
	if (!(x->m = curl_multi_init())) {
		err_set(e, ERR_NOMEM, "api mux: cannot create a curl multi handle");
		goto fail;
	}
	CURLMcode mc = curl_multi_setopt(x->m, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	if (!mc)
		mc = curl_multi_setopt(x->m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)max_conns);
	if (!mc)
		mc = curl_multi_setopt(x->m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)max_conns);
	if (!mc) /* the connection cache: what the HTTP/1.1 fallback keeps alive between requests */
		mc = curl_multi_setopt(x->m, CURLMOPT_MAXCONNECTS, (long)max_conns);
	if (mc) {
		err_set(e, ERR_TRANSPORT, "api mux: curl multi option: %s", curl_multi_strerror(mc));
		goto fail;
	}
	int rc = pthread_create(&x->thread, NULL, mux_main, x);
	if (rc) {
		err_set(e, ERR_NOMEM, "api mux: pthread_create: %s", strerror(rc));
		goto fail;
	}
	x->thread_started = true;
	return x;
fail:
	api_mux_free(x);
	return NULL;
}

void api_mux_free(struct api_mux *x)
{
	if (!x)
		return;
	if (x->thread_started) {
		pthread_mutex_lock(&x->lock);
		x->stopping = true;
		pthread_mutex_unlock(&x->lock);
		curl_multi_wakeup(x->m);
		pthread_join(x->thread, NULL);
	}
	if (x->m)
		curl_multi_cleanup(x->m);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

void api_mux_stats(struct api_mux *x, struct api_mux_stats *out)
{
	out->requests = (uint64_t)atomic_load(&x->n_requests);
	out->connects = (uint64_t)atomic_load(&x->n_connects);
	out->http2 = (uint64_t)atomic_load(&x->n_http2);
	out->polls = (uint64_t)atomic_load(&x->n_polls);
	out->pauses = (uint64_t)atomic_load(&x->n_pauses);
}

CURLcode api__mux_perform(struct api_mux *x, CURL *h)
{
	struct mux_req r = {.h = h};
	if (pthread_cond_init(&r.cond, NULL))
		return CURLE_OUT_OF_MEMORY;
	pthread_mutex_lock(&x->lock);
	if (x->stopping) {
		pthread_mutex_unlock(&x->lock);
		pthread_cond_destroy(&r.cond);
		return CURLE_ABORTED_BY_CALLBACK;
	}
	r.next = x->submitted;
	x->submitted = &r;
	pthread_mutex_unlock(&x->lock);
	curl_multi_wakeup(x->m);
	pthread_mutex_lock(&x->lock);
	/* no timeout here: the muxer completes every transfer it took, within the handle's own
	 * timeout (CURLOPT_TIMEOUT_MS) or at its stop, which waits for them */
	while (!r.done)
		pthread_cond_wait(&r.cond, &x->lock);
	pthread_mutex_unlock(&x->lock);
	pthread_cond_destroy(&r.cond);
	return r.result;
}
