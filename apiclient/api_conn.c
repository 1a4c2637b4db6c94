/* Connections and requests of the transport (contract in api_client.h; DESIGN in api_client.c):
 * one libcurl easy handle per api_conn, transfers with retries, streams read line by line. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include <openssl/ssl.h>
#include <yajl/yajl_tree.h>

#include "client_internal.h"
#include "pb_internal.h"
#include "common/clock.h"
#include "common/log.h"

/* ---------- connections ---------- */

/* Whether libcurl's TLS backend is OpenSSL, whose SSL_CTX its CURLOPT_SSL_CTX_FUNCTION hands
 * over (other backends hand over their own context type, or refuse the option). */
static bool tls_is_openssl(void)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	return v && v->ssl_version && !strncmp(v->ssl_version, "OpenSSL/", 8);
}

/* CURLOPT_SSL_CTX_FUNCTION: OpenSSL frees a connection's record buffers (16 KB + 16 KB and
 * change, read and write) whenever they are empty instead of keeping them for the connection's
 * life. Most connections are idle most of the time (up to 64 binders kept alive between binds,
 * the event sender, the lease), so this is ~34 KB per idle connection; a busy one allocates
 * them per record, which the measured throughput does not show. */
static CURLcode on_ssl_ctx(CURL *h, void *ssl_ctx, void *arg)
{
	(void)h;
	(void)arg;
	SSL_CTX_set_mode((SSL_CTX *)ssl_ctx, SSL_MODE_RELEASE_BUFFERS);
	return CURLE_OK;
}

/* api_trace_requests' file, or -1 (atomic: set before threads start, read by every request). */
static int trace_fd = -1;

int api_trace_requests(const char *path, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	__atomic_store_n(&trace_fd, fd, __ATOMIC_RELEASE);
	return 0;
}

/* One line per request, written whole (O_APPEND) so that processes can share the file. */
static void trace_request(const char *method, const char *path)
{
	int fd = __atomic_load_n(&trace_fd, __ATOMIC_ACQUIRE);
	char line[2048];
	if (fd < 0)
		return;
	int n = snprintf(line, sizeof(line), "%s %s\n", method, path);
	if (n > 0 && (size_t)n < sizeof(line)) {
		ssize_t w = write(fd, line, (size_t)n);
		(void)w;
	}
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	struct api_conn *c = ud;
	return c->stop && atomic_load(c->stop) ? 1 : 0;
}

/* Hands every complete frame of a protobuf watch stream (apimachinery pkg/util/framer: a 4-byte
 * big-endian length, then the payload) to on_line; keeps the partial last one. */
static bool stream_frames(struct api_conn *c)
{
	size_t start = 0;
	const unsigned char *d = (const unsigned char *)c->body.data;
	while (c->body.len - start >= 4) {
		size_t len = (size_t)d[start] << 24 | (size_t)d[start + 1] << 16 | (size_t)d[start + 2] << 8 | d[start + 3];
		if (len > MAX_LINE) {
			c->overflow = true;
			return false;
		}
		if (c->body.len - start - 4 < len)
			break;
		int rc = c->on_line(c->line_ctx, c->body.data + start + 4, len);
		start += 4 + len;
		if (rc) {
			c->line_rc = rc;
			return false;
		}
	}
	if (start) {
		memmove(c->body.data, c->body.data + start, c->body.len - start);
		c->body.len -= start;
	}
	return true;
}

/* Hands every complete line of the stream to on_line; keeps the partial last line. */
static bool stream_lines(struct api_conn *c)
{
	size_t start = 0;
	char *nl;
	if (c->framed)
		return stream_frames(c);
	while (start < c->body.len && (nl = memchr(c->body.data + start, '\n', c->body.len - start))) {
		*nl = '\0';
		size_t len = (size_t)(nl - (c->body.data + start));
		int rc = c->on_line(c->line_ctx, c->body.data + start, len);
		start += len + 1;
		if (rc) {
			c->line_rc = rc;
			return false;
		}
	}
	if (start) {
		memmove(c->body.data, c->body.data + start, c->body.len - start);
		c->body.len -= start;
		c->body.data[c->body.len] = '\0';
	}
	return true;
}

bool api__stream_write(struct api_conn *c, const char *p, size_t n)
{
	if (!strbuf_add_max(&c->body, p, n, MAX_LINE)) {
		c->overflow = true;
		return false;
	}
	return stream_lines(c);
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct api_conn *c = ud;
	size_t n = size * nmemb;
	if (c->on_data) {
		if (!c->stream_status)
			curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &c->stream_status);
		if (c->stream_status >= 200 && c->stream_status < 300) {
			int rc = c->on_data(c->line_ctx, p, n);
			if (rc) {
				c->line_rc = rc;
				return 0;
			}
			return n;
		}
		strbuf_add_max(&c->body, p, n, MAX_ERROR_BODY);
		return n;
	}
	if (c->on_line) {
		if (!c->stream_status) {
			char *ct = NULL;
			curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &c->stream_status);
			/* what the server chose among what Accept offered */
			curl_easy_getinfo(c->h, CURLINFO_CONTENT_TYPE, &ct);
			c->framed = ct && !strncmp(ct, API_PB_MEDIA, strlen(API_PB_MEDIA));
		}
		if (c->stream_status >= 200 && c->stream_status < 300)
			return api__stream_write(c, p, n) ? n : 0;
		/* An error: keep the Status body for the message; what exceeds the bound is dropped. */
		strbuf_add_max(&c->body, p, n, MAX_ERROR_BODY);
		return n;
	}
	if (!strbuf_add_max(&c->body, p, n, c->body_max)) {
		c->overflow = true;
		return 0;
	}
	return n;
}

struct api_conn *api_conn_new(struct api_client *client, struct err *e)
{
	struct api_conn *c = calloc(1, sizeof(*c));
	const struct api_config *k = &client->cfg;
	if (!c) {
		err_set(e, ERR_NOMEM, "api conn: out of memory");
		return NULL;
	}
	c->client = client;
	c->h = curl_easy_init();
	if (!c->h) {
		err_set(e, ERR_NOMEM, "api conn: cannot create a curl handle");
		goto fail;
	}
	CURL *h = c->h;
	CURLcode cc = CURLE_OK;
#define SET(opt, val)                                              \
	do {                                                       \
		if (!cc)                                           \
			cc = curl_easy_setopt(h, opt, val);       \
	} while (0)
	SET(CURLOPT_NOSIGNAL, 1L);
	/* libcurl's smallest upload buffer (its default is 64 KiB, allocated per handle on the
	 * first POST: 4 MB over the binder threads' connections). Bodies are sent from
	 * CURLOPT_POSTFIELDS and are a few KB at most. */
	SET(CURLOPT_UPLOAD_BUFFERSIZE, 16384L);
	/* Receive buffer, likewise per handle for its life (libcurl's default 16 KiB): the answers
	 * of binds, status patches, events and the lease are a few KB at most, and a larger body
	 * only takes more write callbacks. api__conn_bulk raises it for LIST pages and watches. */
	SET(CURLOPT_BUFFERSIZE, SMALL_BUFFER_SIZE);
	SET(CURLOPT_ERRORBUFFER, c->errbuf);
	SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_CONNECTTIMEOUT_MS, k->connect_timeout_ms);
	SET(CURLOPT_USERAGENT, k->user_agent);
	SET(CURLOPT_WRITEFUNCTION, on_write);
	SET(CURLOPT_WRITEDATA, c);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, on_progress);
	SET(CURLOPT_XFERINFODATA, c);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_TCP_KEEPIDLE, 30L);
	SET(CURLOPT_TCP_KEEPINTVL, 30L);
	if (tls_is_openssl())
		SET(CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
	if (k->insecure_skip_tls_verify) {
		SET(CURLOPT_SSL_VERIFYPEER, 0L);
		SET(CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (k->ca_data || k->ca_file) {
		/* Only the configured CA, as client-go: not the system's roots besides. */
		SET(CURLOPT_CAPATH, NULL);
		if (k->ca_data) {
			struct curl_blob b = {.data = k->ca_data, .len = k->ca_data_len, .flags = CURL_BLOB_COPY};
			SET(CURLOPT_CAINFO, NULL);
			SET(CURLOPT_CAINFO_BLOB, &b);
		} else {
			SET(CURLOPT_CAINFO, k->ca_file);
		}
	}
	if (k->cert_data) {
		struct curl_blob b = {.data = k->cert_data, .len = k->cert_data_len, .flags = CURL_BLOB_COPY};
		SET(CURLOPT_SSLCERT_BLOB, &b);
	} else if (k->cert_file) {
		SET(CURLOPT_SSLCERT, k->cert_file);
	}
	if (k->key_data) {
		struct curl_blob b = {.data = k->key_data, .len = k->key_data_len, .flags = CURL_BLOB_COPY};
		SET(CURLOPT_SSLKEY_BLOB, &b);
	} else if (k->key_file) {
		SET(CURLOPT_SSLKEY, k->key_file);
	}
	if (k->cert_data || k->cert_file) {
		SET(CURLOPT_SSLCERTTYPE, "PEM");
		SET(CURLOPT_SSLKEYTYPE, "PEM");
	}
#undef SET
	if (cc) {
		err_set(e, ERR_TRANSPORT, "api conn: curl option: %s", curl_easy_strerror(cc));
		goto fail;
	}
	return c;
fail:
	api_conn_free(c);
	return NULL;
}

struct api_conn *api_conn_new_mux(struct api_client *client, struct api_mux *mux, struct err *e)
{
	if (!mux) {
		err_set(e, ERR_INVALID, "api conn: no multiplexer");
		return NULL;
	}
	struct api_conn *c = api_conn_new(client, e);
	if (!c)
		return NULL;
	/* HTTP/2 where TLS's ALPN agrees to it, else HTTP/1.1; PIPEWAIT: a transfer waits for a
	 * connection being set up to say whether it multiplexes rather than open another. Over TLS
	 * the handshake says it (ALPN); a plain http:// server would say it only with its first
	 * answer, so there every transfer would wait for the first one (a hung first request held
	 * the others until its timeout): HTTP/1.1 there, as api_conn_new's. */
	CURLcode cc = CURLE_OK;
	if (!strncasecmp(client->cfg.server, "https://", 8)) {
		cc = curl_easy_setopt(c->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
		if (!cc)
			cc = curl_easy_setopt(c->h, CURLOPT_PIPEWAIT, 1L);
	}
	if (cc) {
		err_set(e, ERR_TRANSPORT, "api conn: curl option: %s", curl_easy_strerror(cc));
		api_conn_free(c);
		return NULL;
	}
	c->mux = mux;
	return c;
}

void api_conn_free(struct api_conn *c)
{
	if (!c)
		return;
	if (c->m)
		curl_multi_cleanup(c->m);
	if (c->h)
		curl_easy_cleanup(c->h);
	strbuf_release(&c->body);
	free(c);
}

/* Runs the transfer set up on c->h; returns curl's result. */
static CURLcode conn_perform(struct api_conn *c)
{
	/* A muxed connection's transfer runs on the muxer's multi handle and connection. */
	if (c->mux)
		return api__mux_perform(c->mux, c->h, c->timeout_ms, c->errbuf, c->stop);
	/* Without a stop flag nothing needs the loop below. A bulk connection keeps to its multi
	 * handle even then: the connection cache belongs to the multi handle that runs the
	 * transfer, so mixing both would open a second connection. */
	if (!c->bulk && !c->stop)
		return curl_easy_perform(c->h);
	CURLcode res = CURLE_OK;
	/* Made on first use: a multi handle is ~6 KB of heap (measured with libcurl 7.88; ~25 KB
	 * more once its hash tables fill) and a wake-up socket pair, which the connections that
	 * only run curl_easy_perform (the binders', the event sender's) never use: 64 binders
	 * held 0.4 MB and 128 fds for nothing. */
	if (!c->m && !(c->m = curl_multi_init())) {
		snprintf(c->errbuf, sizeof(c->errbuf), "curl_multi_init: out of memory");
		return CURLE_OUT_OF_MEMORY;
	}
	CURLMcode mc = curl_multi_add_handle(c->m, c->h);
	if (mc)
		return CURLE_OUT_OF_MEMORY;
	int running = 1;
	bool stopped = false;
	while (running) {
		mc = curl_multi_perform(c->m, &running);
		if (mc) {
			res = CURLE_RECV_ERROR;
			snprintf(c->errbuf, sizeof(c->errbuf), "curl_multi_perform: %s", curl_multi_strerror(mc));
			break;
		}
		if (!running)
			break;
		if (c->stop && atomic_load(c->stop)) {
			stopped = true;
			break;
		}
		mc = curl_multi_poll(c->m, NULL, 0, POLL_MS, NULL);
		if (mc) {
			res = CURLE_RECV_ERROR;
			snprintf(c->errbuf, sizeof(c->errbuf), "curl_multi_poll: %s", curl_multi_strerror(mc));
			break;
		}
	}
	int left;
	CURLMsg *msg;
	while ((msg = curl_multi_info_read(c->m, &left))) {
		if (msg->msg == CURLMSG_DONE && msg->easy_handle == c->h && !stopped && res == CURLE_OK)
			res = msg->data.result;
	}
	curl_multi_remove_handle(c->m, c->h);
	if (stopped)
		res = CURLE_ABORTED_BY_CALLBACK;
	return res;
}

/* Sets up method, URL and headers of one transfer. */
static int conn_setup(struct api_conn *c, const char *method, const char *url, const char *content_type,
		      const char *body, size_t body_len, const char *auth, struct curl_slist **hdrs, struct err *e)
{
	CURL *h = c->h;
	struct curl_slist *l = NULL, *t;
	bool has_body = strcmp(method, "GET") && (body || strcmp(method, "DELETE"));
	c->errbuf[0] = '\0';
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, c->fresh ? 1L : 0L);
	c->fresh = false;
	if (!has_body) {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, strcmp(method, "GET") ? method : NULL);
	} else {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? body_len : 0));
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, strcmp(method, "POST") ? method : NULL);
	}
	char ct[160];
	snprintf(ct, sizeof(ct), "Content-Type: %s", content_type ? content_type : "application/json");
	char accept[200];
	snprintf(accept, sizeof(accept), "Accept: %s", c->accept ? c->accept : "application/json");
	if (!(t = curl_slist_append(l, accept)))
		goto nomem;
	l = t;
	if (has_body) {
		if (!(t = curl_slist_append(l, ct)))
			goto nomem;
		l = t;
	}
	if (!(t = curl_slist_append(l, "Expect:"))) /* no 100-continue round trip for large bodies */
		goto nomem;
	l = t;
	if (auth) {
		if (!(t = curl_slist_append(l, auth)))
			goto nomem;
		l = t;
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
	*hdrs = l;
	return 0;
nomem:
	curl_slist_free_all(l);
	return err_set(e, ERR_NOMEM, "%s %s: out of memory", method, url);
}

static void slist_free_secret(struct curl_slist *l)
{
	for (struct curl_slist *p = l; p; p = p->next)
		memset(p->data, 0, strlen(p->data));
	curl_slist_free_all(l);
}

static char *make_url(const struct api_client *c, const char *path)
{
	size_t n = strlen(c->cfg.server) + strlen(path) + 2;
	char *u = malloc(n);
	if (u)
		snprintf(u, n, "%s%s%s", c->cfg.server, path[0] == '/' ? "" : "/", path);
	return u;
}

static void reset_transfer(struct api_conn *c)
{
	c->body.len = 0;
	c->body.oom = false;
	if (c->body.data)
		c->body.data[0] = '\0';
	c->overflow = false;
	c->line_rc = 0;
	c->stream_status = 0;
	c->framed = false;
}

/* One request of conn_do. */
struct req {
	const char *method, *path, *url, *content_type, *body;
	size_t body_len;
	bool stream; /* on_line/stop are set: no overall timeout, a low-speed limit instead */
};

/* The time a request may take: the client's request timeout, cut to what is left of the
 * connection's deadline. ERR_TIMEOUT (nothing sent) once the deadline has passed. */
static int set_timeouts(struct api_conn *c, const struct req *r, struct err *e)
{
	long timeout_ms = c->client->cfg.request_timeout_ms;
	if (c->deadline_ns && !r->stream) {
		int64_t left_ms = (c->deadline_ns - api_now_ns()) / 1000000;
		if (left_ms <= 0)
			return err_set(e, ERR_TIMEOUT, "%s %s: deadline exceeded", r->method, r->path);
		if (timeout_ms <= 0 || left_ms < timeout_ms)
			timeout_ms = (long)left_ms;
	}
	c->timeout_ms = r->stream ? 0 : timeout_ms;
	if (r->stream) {
		curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, 0L);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_TIME, (long)LOW_SPEED_TIME_S);
	} else {
		curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, timeout_ms);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_LIMIT, 0L);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_TIME, 0L);
	}
	return 0;
}

static void log_transfer(struct api_conn *c, const struct req *r, long status, int64_t t0, CURLcode cc)
{
	if (!log_v_enabled(6))
		return;
	long httpv = 0, connects = 0;
	curl_easy_getinfo(c->h, CURLINFO_HTTP_VERSION, &httpv);
	curl_easy_getinfo(c->h, CURLINFO_NUM_CONNECTS, &connects);
	LOG_V(6, "%s %s %ld in %lld ms (%s%s)%s", r->method, r->url, status, (long long)((api_now_ns() - t0) / 1000000),
	      httpv == CURL_HTTP_VERSION_2_0 ? "HTTP/2" : "HTTP/1.1", connects ? ", new connection" : "",
	      cc ? " transfer failed" : "");
}

/* One attempt: credential, setup, perform. *gen is the exec credential generation it used. */
static int conn_attempt(struct api_conn *c, const struct req *r, long *status, uint64_t *gen, CURLcode *cc,
			struct err *e)
{
	char *auth = NULL;
	struct curl_slist *hdrs = NULL;
	int rc;
	reset_transfer(c);
	api_limiter_wait(c->client->limiter);
	if ((rc = api__conn_auth(c, &auth, gen, e))) {
		err_prefix(e, "%s %s", r->method, r->path);
		return rc;
	}
	rc = conn_setup(c, r->method, r->url, r->content_type, r->body, r->body_len, auth, &hdrs, e);
	api__free_header(auth);
	if (!rc)
		rc = set_timeouts(c, r, e);
	if (rc) {
		slist_free_secret(hdrs);
		curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, NULL);
		return rc;
	}
	int64_t t0 = api_now_ns();
	*cc = conn_perform(c);
	slist_free_secret(hdrs);
	curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, NULL);
	*status = 0;
	curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, status);
	log_transfer(c, r, *status, t0, *cc);
	return 0;
}

/* The error of a transfer that libcurl did not complete (cc != CURLE_OK), else 0. */
static int transfer_result(struct api_conn *c, const struct req *r, CURLcode cc, struct err *e)
{
	if (cc == CURLE_ABORTED_BY_CALLBACK)
		return err_set(e, ERR_STOPPED, "%s %s: stopped", r->method, r->path);
	if (cc == CURLE_WRITE_ERROR && c->line_rc)
		return c->line_rc;
	if (cc == CURLE_WRITE_ERROR && c->overflow)
		return err_set(e, ERR_TRANSPORT, "%s %s: response %s larger than %zu bytes", r->method, r->path,
			       r->stream ? "line" : "body", r->stream ? MAX_LINE : c->body_max);
	return cc ? api__transport_error(c, r->method, r->url, cc, e) : 0;
}

/* A 429 or 5xx with Retry-After (at most MAX_RETRY_AFTER times): waits it out (at most
 * MAX_RETRY_AFTER_S, stoppable) and returns 1; 0 when the answer is final; ERR_STOPPED. */
static int retry_after_wait(struct api_conn *c, const struct req *r, long status, int attempt, struct err *e)
{
	curl_off_t retry_after = 0;
	curl_easy_getinfo(c->h, CURLINFO_RETRY_AFTER, &retry_after);
	if ((status != 429 && (status < 500 || status >= 600)) || retry_after <= 0 || attempt >= MAX_RETRY_AFTER)
		return 0;
	long s = retry_after > MAX_RETRY_AFTER_S ? MAX_RETRY_AFTER_S : (long)retry_after;
	if (c->deadline_ns && api_now_ns() + s * 1000000000LL >= c->deadline_ns)
		return 0; /* the answer is final: no time left to wait and retry */
	LOG_V(2, "%s %s: HTTP %ld, retrying after %ld s", r->method, r->path, status, s);
	for (long ms = 0; ms < s * 1000; ms += POLL_MS) {
		if (c->stop && atomic_load(c->stop))
			return err_set(e, ERR_STOPPED, "%s %s: stopped", r->method, r->path);
		sleep_ns(POLL_MS * NSEC_PER_MSEC);
	}
	return 1;
}

/* One transfer with retries (401 with an exec credential: once; 429 or 5xx with Retry-After: up
 * to MAX_RETRY_AFTER times). Leaves the body in c->body. stream: on_line/stop are set. */
static int conn_do(struct api_conn *c, const char *method, const char *path, const char *content_type,
		   const char *body, size_t body_len, bool stream, long *status, struct err *e)
{
	int rc = 0;
	struct req r = {method, path, make_url(c->client, path), content_type, body, body_len, stream};
	bool auth_retried = false;
	if (e)
		e->http_status = 0; /* set again only when this request's answer is an HTTP error */
	if (!r.url)
		return err_set(e, ERR_NOMEM, "%s %s: out of memory", method, path);
	trace_request(method, path);
	for (int attempt = 0;; attempt++) {
		uint64_t gen = 0;
		CURLcode cc = CURLE_OK;
		if ((rc = conn_attempt(c, &r, status, &gen, &cc, e)) || (rc = transfer_result(c, &r, cc, e)))
			break;
		if (*status == 401 && c->client->cfg.exec && !auth_retried) {
			auth_retried = true;
			api__exec_invalidate(c->client, gen);
			LOG_V(2, "%s %s: 401 with the exec credential: running the plugin again", method, path);
			continue;
		}
		if ((rc = retry_after_wait(c, &r, *status, attempt, e)) > 0)
			continue;
		if (!rc && *status >= 400)
			rc = api__http_error(method, path, *status, c->body.data, c->body.len, e);
		break;
	}
	free((char *)r.url);
	return rc;
}

void api_conn_set_deadline(struct api_conn *conn, int64_t deadline_ns)
{
	if (conn)
		conn->deadline_ns = deadline_ns;
}

int api_request(struct api_conn *conn, const char *method, const char *path, const char *content_type,
		const char *body, size_t body_len, struct api_response *resp, struct err *e)
{
	long status = 0;
	if (resp)
		memset(resp, 0, sizeof(*resp));
	if (!conn || !method || !path)
		return err_set(e, ERR_INVALID, "api_request: missing connection, method or path");
	conn->on_line = NULL;
	conn->on_data = NULL;
	conn->stop = NULL;
	conn->body_max = MAX_BODY;
	int rc = conn_do(conn, method, path, content_type, body, body_len, false, &status, e);
	if (resp && (rc == 0 || status >= 400)) {
		/* The body moves to the caller; an empty body is still a valid string. */
		if (!conn->body.data && !strbuf_add_max(&conn->body, "", 0, 1))
			return err_set(e, ERR_NOMEM, "%s %s: out of memory", method, path);
		resp->status = status;
		resp->body = conn->body.data;
		resp->len = conn->body.len;
		memset(&conn->body, 0, sizeof(conn->body));
	} else if (conn->body.cap > (1u << 20)) {
		strbuf_release(&conn->body); /* do not keep a large page alive between requests */
	}
	return rc;
}

int api_stream(struct api_conn *conn, const char *path, int (*on_line)(void *ctx, char *line, size_t len), void *ctx,
	       const atomic_bool *stop, struct err *e)
{
	long status = 0;
	if (!conn || !path || !on_line)
		return err_set(e, ERR_INVALID, "api_stream: missing connection, path or callback");
	conn->on_line = on_line;
	conn->on_data = NULL;
	conn->line_ctx = ctx;
	conn->stop = stop;
	conn->body_max = MAX_LINE;
	int rc = conn_do(conn, "GET", path, NULL, NULL, 0, true, &status, e);
	if (rc == 0 && conn->body.len)
		LOG_V(4, "GET %s: stream ended with %zu bytes of an incomplete line", path, conn->body.len);
	conn->on_line = NULL;
	conn->stop = NULL;
	if (conn->body.cap > (1u << 20))
		strbuf_release(&conn->body);
	return rc;
}

int api__get_chunks(struct api_conn *conn, const char *path, int (*on_data)(void *ctx, const char *buf, size_t len),
		    void *ctx, struct err *e)
{
	long status = 0;
	if (!conn || !path || !on_data)
		return err_set(e, ERR_INVALID, "api__get_chunks: missing connection, path or callback");
	conn->on_line = NULL;
	conn->on_data = on_data;
	conn->line_ctx = ctx;
	conn->stop = NULL;
	conn->body_max = MAX_ERROR_BODY;
	int rc = conn_do(conn, "GET", path, NULL, NULL, 0, false, &status, e);
	conn->on_data = NULL;
	if (conn->body.cap > (1u << 20))
		strbuf_release(&conn->body);
	return rc;
}

bool api__client_protobuf(const struct api_client *c)
{
	return c->cfg.protobuf;
}

void api__conn_set_accept(struct api_conn *conn, const char *accept)
{
	conn->accept = accept;
}

bool api__conn_framed(const struct api_conn *conn)
{
	return conn->framed;
}

const char *api__conn_error_body(const struct api_conn *conn, size_t *len)
{
	long status = 0;
	curl_easy_getinfo(conn->h, CURLINFO_RESPONSE_CODE, &status);
	if (status < 400 || !conn->body.data) {
		*len = 0;
		return NULL;
	}
	*len = conn->body.len;
	return conn->body.data;
}

int api__conn_bulk(struct api_conn *conn, struct err *e)
{
	CURLcode cc = curl_easy_setopt(conn->h, CURLOPT_BUFFERSIZE, BULK_BUFFER_SIZE);
	conn->bulk = true;
	if (cc)
		return err_set(e, ERR_TRANSPORT, "api conn: curl option: %s", curl_easy_strerror(cc));
	return 0;
}

