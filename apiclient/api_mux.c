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
 * one, within their own timeout). At most max(MUX_MAX_ACTIVE, max_conns) transfers are in the
 * multi handle at once; later ones wait in the muxer, oldest first, their timeout counting.
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
 * Streams: the informers that api_informer_options.shared_connection puts here (the client's
 * watch muxer, api__client_watch_mux) run their LISTs and watches as such transfers, as
 * client-go's informers share one HTTP/2 connection; their write callbacks (the decoding of
 * events) run on the muxer thread. A watch never ends by itself, so a transfer submitted with a
 * stop flag is ended by the muxer the round after the flag is set (api__mux_wake makes that
 * round happen at once): it leaves the multi handle and completes with
 * CURLE_ABORTED_BY_CALLBACK, whether it was running or waiting for a slot.
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
/* libcurl 7.88 (Debian 12's) spins over HTTP/2: with flow control holding a transfer's body it
 * asks to be polled for a writable socket and then sends nothing (curl issues #7821 and #12640,
 * fixed in 8.6's adjust_pollset), and under load it also returns from curl_multi_poll at once
 * round after round with nothing to do. Measured: a 3 MiB body the server did not read made
 * 470,000-580,000 rounds in a second; DefaultTopologySpreading_5000Nodes' binds 20,000-40,000
 * rounds a second (40-80 per bind), half of csched's CPU in the runs where it happened. So after
 * MUX_SPIN_ROUNDS rounds in a row whose poll returned within MUX_INSTANT_NS and that moved
 * nothing (no transfer added or finished, nothing submitted), the muxer throttles itself for
 * MUX_THROTTLE_MS: each round waits for the server's bytes only (what ends a flow-control stop:
 * a WINDOW_UPDATE is a read), and at least MUX_PAUSE_MS when they are there at once, so at most
 * ~1000 rounds a second; libcurl runs after every wait, so a completion or a submission waits at
 * most MUX_PAUSE_MS more. */
#define MUX_INSTANT_NS 20000
#define MUX_SPIN_ROUNDS 16
#define MUX_PAUSE_MS 1
#define MUX_THROTTLE_MS 100
/* Transfers in the multi handle at once, at least (max_conns if more); the rest wait in the
 * muxer, oldest first. libcurl 7.88 does O(transfers) work in every round, for HTTP/2 too: its
 * pollset lists the connection's socket once per transfer (a poll of 65 entries with 64 binds
 * in flight, all the same socket) and curl_multi_perform visits every transfer. The API server
 * on the benchmarks' 2 CPUs serves a handful of requests at a time, so 16 in flight keep it as
 * busy as 64 (the HTTP/1.1 fallback had max_conns = 16 connections already). */
#define MUX_MAX_ACTIVE 16
#define MUX_WAIT_CHECK_MS 10

/* One submitted transfer; lives on the submitter's stack until done. */
struct mux_req {
	CURL *h;
	const atomic_bool *stop; /* set: end the transfer (streams); NULL = none */
	long timeout_ms;      /* 0 = none */
	int64_t submitted_ns; /* CLOCK_MONOTONIC */
	char *errbuf;         /* the submitter's, CURL_ERROR_SIZE */
	CURLcode result;
	bool done; /* under mux->lock */
	pthread_cond_t cond;
	struct mux_req *next;               /* submitted or waiting list */
	struct mux_req *run_prev, *run_next; /* in the multi handle: the running list */
};

struct api_mux {
	CURLM *m; /* the muxer thread's; see DESIGN */
	pthread_t thread;
	bool thread_started;

	int max_active;            /* transfers in the multi handle at most (MUX_MAX_ACTIVE) */
	struct mux_req *wait_head; /* taken from submitted, waiting for a slot, oldest first */
	struct mux_req *wait_tail; /* (both the muxer thread's only) */
	struct mux_req *running;   /* in the multi handle (the muxer thread's only) */

	pthread_mutex_t lock; /* guards the fields below and every mux_req's done (leaf lock) */
	struct mux_req *submitted; /* not yet added to m, newest first */
	bool stopping;

	/* written by the muxer thread, read by anyone (api_mux_stats) */
	atomic_uint_fast64_t n_requests, n_connects, n_http2, n_polls, n_throttles;
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

static bool stopped(const struct mux_req *r)
{
	return r->stop && atomic_load(r->stop);
}

static void running_add(struct api_mux *x, struct mux_req *r)
{
	r->run_prev = NULL;
	r->run_next = x->running;
	if (x->running)
		x->running->run_prev = r;
	x->running = r;
}

static void running_remove(struct api_mux *x, struct mux_req *r)
{
	if (r->run_prev)
		r->run_prev->run_next = r->run_next;
	else
		x->running = r->run_next;
	if (r->run_next)
		r->run_next->run_prev = r->run_prev;
	r->run_prev = r->run_next = NULL;
}

/* Moves the transfers submitted since the last call to the end of the waiting list, then adds
 * waiting ones to the multi handle while fewer than max_active are in it; a waiting transfer
 * whose timeout has passed fails without being run. */
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
	if (rev) {
		if (x->wait_tail)
			x->wait_tail->next = rev;
		else
			x->wait_head = rev;
		while (rev->next)
			rev = rev->next;
		x->wait_tail = rev;
	}
	int64_t now = mono_ns();
	struct mux_req **pp = &x->wait_head, *prev = NULL;
	while (*pp) {
		struct mux_req *r = *pp;
		long waited_ms = (long)((now - r->submitted_ns) / NSEC_PER_MSEC);
		bool expired = r->timeout_ms > 0 && waited_ms >= r->timeout_ms;
		bool halted = stopped(r);
		if (!expired && !halted && *active >= x->max_active) {
			prev = r;
			pp = &r->next;
			continue;
		}
		*pp = r->next; /* out of the waiting list */
		if (x->wait_tail == r)
			x->wait_tail = prev;
		r->next = NULL;
		if (halted) {
			snprintf(r->errbuf, CURL_ERROR_SIZE, "stopped");
			complete(x, r, CURLE_ABORTED_BY_CALLBACK);
			continue;
		}
		if (expired) {
			snprintf(r->errbuf, CURL_ERROR_SIZE, "waited %ld ms for one of the muxer's %d transfer slots",
				 waited_ms, x->max_active);
			complete(x, r, CURLE_OPERATION_TIMEDOUT);
			continue;
		}
		if (r->timeout_ms > 0) /* what is left of it; at least 1 ms (0 would mean none) */
			curl_easy_setopt(r->h, CURLOPT_TIMEOUT_MS, r->timeout_ms - waited_ms);
		curl_easy_setopt(r->h, CURLOPT_PRIVATE, (void *)r);
		CURLMcode mc = curl_multi_add_handle(x->m, r->h);
		if (mc) {
			LOG_V(2, "api mux: curl_multi_add_handle: %s", curl_multi_strerror(mc));
			complete(x, r, CURLE_OUT_OF_MEMORY);
			continue;
		}
		running_add(x, r);
		(*active)++;
	}
}

/* Ends the running transfers whose stop flag is set (streams: see DESIGN). */
static void end_stopped(struct api_mux *x, int *active)
{
	struct mux_req *r = x->running;
	while (r) {
		struct mux_req *next = r->run_next;
		if (stopped(r)) {
			/* also drops a completion libcurl may have queued for it */
			curl_multi_remove_handle(x->m, r->h);
			running_remove(x, r);
			(*active)--;
			snprintf(r->errbuf, CURL_ERROR_SIZE, "stopped");
			complete(x, r, CURLE_ABORTED_BY_CALLBACK);
		}
		r = next;
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
		running_remove(x, r);
		(*active)--;
		complete(x, r, result);
	}
}

/* A throttled round's wait (see MUX_SPIN_ROUNDS): until one of the sockets libcurl reads from
 * is readable, for at most MUX_PAUSE_MS, and MUX_PAUSE_MS in all when one is readable at once. */
static void wait_throttled(struct api_mux *x)
{
	fd_set rd, wr, ex;
	int maxfd = -1;
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_ZERO(&ex);
	struct pollfd p[16];
	nfds_t n = 0;
	if (curl_multi_fdset(x->m, &rd, &wr, &ex, &maxfd) == CURLM_OK)
		for (int fd = 0; fd <= maxfd && fd < FD_SETSIZE && n < sizeof p / sizeof p[0]; fd++)
			if (FD_ISSET(fd, &rd))
				p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
	int64_t t0 = mono_ns();
	(void)poll(p, n, MUX_PAUSE_MS); /* EINTR or nothing to wait for: the next round tells */
	int64_t left = MUX_PAUSE_MS * NSEC_PER_MSEC - (mono_ns() - t0);
	if (left > MUX_PAUSE_MS * NSEC_PER_MSEC - MUX_INSTANT_NS)
		sleep_ns(left); /* readable at once: libcurl does not read it either */
}

static void *mux_main(void *arg)
{
	struct api_mux *x = arg;
	int active = 0;
	int spins = 0;             /* rounds in a row whose poll returned at once and moved nothing */
	bool instant = false;      /* the last curl_multi_poll returned at once */
	int64_t throttle_end = 0;  /* CLOCK_MONOTONIC ns: throttled rounds until then */
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
		end_stopped(x, &active);
		bool finished = active != before;
		pthread_mutex_lock(&x->lock);
		bool quit = x->stopping && !x->submitted && !x->wait_head && active == 0;
		bool more = x->submitted != NULL;
		pthread_mutex_unlock(&x->lock);
		if (quit)
			break;
		spins = instant && !added && !finished && !more ? spins + 1 : 0;
		if (more || (finished && x->wait_head)) /* new work, or slots for the waiting ones */
			continue;
		atomic_fetch_add(&x->n_polls, 1);
		if (spins >= MUX_SPIN_ROUNDS) {
			spins = 0;
			throttle_end = mono_ns() + MUX_THROTTLE_MS * NSEC_PER_MSEC;
			atomic_fetch_add(&x->n_throttles, 1);
		}
		if (throttle_end && mono_ns() < throttle_end) {
			wait_throttled(x);
			instant = false;
			continue;
		}
		throttle_end = 0;
		/* woken early by curl_multi_wakeup (a submission, the stop) or by a socket */
		int64_t t0 = mono_ns();
		/* transfers waiting for a slot: look at their timeouts every MUX_WAIT_CHECK_MS */
		mc = curl_multi_poll(x->m, NULL, 0, x->wait_head ? MUX_WAIT_CHECK_MS : MUX_POLL_MS, NULL);
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
	x->max_active = max_conns < MUX_MAX_ACTIVE ? MUX_MAX_ACTIVE : max_conns;
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
	out->throttles = (uint64_t)atomic_load(&x->n_throttles);
}

void api__mux_wake(struct api_mux *x)
{
	if (x)
		curl_multi_wakeup(x->m);
}

CURLcode api__mux_perform(struct api_mux *x, CURL *h, long timeout_ms, char *errbuf, const atomic_bool *stop)
{
	struct mux_req r = {.h = h, .stop = stop, .timeout_ms = timeout_ms, .submitted_ns = mono_ns(), .errbuf = errbuf};
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
	 * timeout (CURLOPT_TIMEOUT_MS), at its stop flag, or at the muxer's stop, which waits for
	 * them */
	while (!r.done)
		pthread_cond_wait(&r.cond, &x->lock);
	pthread_mutex_unlock(&x->lock);
	pthread_cond_destroy(&r.cond);
	return r.result;
}
