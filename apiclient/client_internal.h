/* Internals shared by api_client.c (the client, credentials, errors) and api_conn.c (connections
 * and requests): the two structs and what one file calls in the other. */
#ifndef CSCHED_API_CLIENT_INTERNAL_H
#define CSCHED_API_CLIENT_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <curl/curl.h>

#include "api_internal.h"

#define MAX_BODY ((size_t)1 << 30)      /* a response larger than 1 GiB is an error, not an OOM */
#define MAX_LINE ((size_t)64 << 20)     /* one watch event */
#define MAX_ERROR_BODY ((size_t)1 << 20)
#define POLL_MS 200
/* Receive buffer of the connections that read LIST pages and watch streams (api__conn_bulk).
 * Other connections (binders, events, the lease) read answers of ~1 KB: 128 KiB on each of them
 * was 2-3 MB of the process for nothing (SMALL_BUFFER_SIZE below). */
#define BULK_BUFFER_SIZE (128L * 1024)
/* Receive buffer of every other connection: 64 binders x 12 KiB saved (their answers are ~1 KB;
 * the pod a status patch returns a few KB). */
#define SMALL_BUFFER_SIZE (4L * 1024)
/* No byte for this long ends a stream. The apiserver sends a watch bookmark about every 60 s
 * (measured: 60.8 s), so 60 s would cut healthy quiet watches. */
#define LOW_SPEED_TIME_S 90
#define TOKEN_FILE_REREAD_NS (60LL * 1000000000LL)
#define MAX_RETRY_AFTER 10              /* client-go's maxRetries for 429 / Retry-After */
#define MAX_RETRY_AFTER_S 10
/* The informers' shared muxer over HTTP/1.1 (a server without h2): one connection per stream,
 * more than the shared informers csched runs (~20). */
#define WATCH_MUX_CONNS 64

struct api_client {
	struct api_config cfg; /* immutable after api_client_new */
	struct api_limiter *limiter; /* NULL = unlimited */

	pthread_mutex_t cred_lock; /* guards the fields below; leaf lock (held while a plugin runs) */
	char *file_token;          /* last content of cfg.token_file, trimmed */
	struct timespec file_mtime;
	ino_t file_ino;
	off_t file_size;
	int64_t file_read_ns;      /* api_now_ns() of the last read attempt */
	struct api__exec_result exec; /* cached exec credential */
	bool exec_valid;
	uint64_t exec_gen;         /* bumped by every successful plugin run */

	pthread_mutex_t watch_lock;  /* guards watch_mux's creation; leaf lock */
	struct api_mux *_Atomic watch_mux; /* api__client_watch_mux; NULL until first used */
};

struct api_conn {
	struct api_client *client;
	CURL *h;
	CURLM *m;          /* made by the first transfer that needs it (bulk or stoppable); else NULL */
	struct api_mux *mux; /* api_conn_new_mux: transfers run on the muxer's connection; borrowed */
	uint64_t cert_gen; /* exec_gen whose client certificate is set on h */
	bool bulk;         /* reads LIST pages and watches: transfers go through m (stoppable) */
	bool fresh;        /* next transfer opens a new connection (new client certificate) */
	char errbuf[CURL_ERROR_SIZE];
	/* per transfer */
	struct strbuf body; /* response body, or the pending partial line of a stream */
	size_t body_max;
	const atomic_bool *stop;
	int (*on_line)(void *ctx, char *line, size_t len);
	int (*on_data)(void *ctx, const char *buf, size_t len); /* api__get_chunks */
	void *line_ctx;  /* of on_line or on_data */
	int line_rc;     /* non-zero value returned by on_line or on_data */
	long stream_status;
	bool overflow;
	bool framed; /* the stream is protobuf frames (4-byte big-endian length + payload), not lines */
	const char *accept; /* api__conn_set_accept, or NULL (JSON); borrowed */
	int64_t deadline_ns; /* api_conn_set_deadline: CLOCK_MONOTONIC, 0 = none */
	long timeout_ms;     /* the current request's CURLOPT_TIMEOUT_MS (set_timeouts) */
};

/* api_conn.c: one piece of a 2xx stream body (as libcurl delivers it) into c->body, every line it
 * completes to c->on_line. False to abort the transfer: the line bound is exceeded (c->overflow)
 * or on_line failed (c->line_rc). The seam the watch fuzz target feeds (tests/fuzz). */
bool api__stream_write(struct api_conn *c, const char *p, size_t n);

/* api_mux.c: runs the transfer set up on h on the muxer's thread and connection; returns
 * libcurl's result once it is complete (h is then out of the muxer's multi handle). timeout_ms
 * (0 = none) is h's CURLOPT_TIMEOUT_MS, counted from here: time spent waiting for one of the
 * muxer's transfer slots counts, and a transfer that waits all of it fails with
 * CURLE_OPERATION_TIMEDOUT and a message in errbuf (CURL_ERROR_SIZE bytes, the submitter's).
 * stop (NULL = none): once it is set, the muxer ends the transfer (CURLE_ABORTED_BY_CALLBACK) at
 * its next round; api__mux_wake makes that round come at once. */
CURLcode api__mux_perform(struct api_mux *mux, CURL *h, long timeout_ms, char *errbuf, const atomic_bool *stop);
void api__mux_wake(struct api_mux *mux); /* NULL: nothing */

/* errors (api_client.c): an HTTP status >= 400, a libcurl failure -> ERR_* with a message */
int api__http_error(const char *method, const char *path, long status, const char *body, size_t len,
		    struct err *e);
int api__transport_error(struct api_conn *c, const char *method, const char *url, CURLcode cc, struct err *e);
/* credentials (api_client.c): the Authorization header for a request (malloc'd, NULL when none;
 * free with api__free_header), the exec credential generation it came from; a 401 drops it. */
int api__conn_auth(struct api_conn *conn, char **header, uint64_t *gen, struct err *e);
void api__exec_invalidate(struct api_client *c, uint64_t gen);
void api__free_header(char *h);

#endif
