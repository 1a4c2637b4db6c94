/* Transport to the kube-apiserver (contract in api_client.h).
 *
 * DESIGN
 * A struct api_client holds the immutable configuration, the shared rate limiter and the
 * credential cache; a struct api_conn is one thread's libcurl easy handle, so its connection is
 * kept between requests. Connections that read LIST pages and watches (api__conn_bulk) drive the
 * handle through their own multi handle, so that a watch can be stopped: the transfer loop polls
 * at most every 200 ms and checks the stop flag (the progress callback checks it too, so a busy
 * stream stops as fast). Other connections (binds, events, the lease) send short requests that
 * nothing stops, with curl_easy_perform: 10% less CPU per request than the multi loop.
 *
 * HTTP/1.1, not HTTP/2: with one connection per thread, as here, libcurl 7.88's HTTP/2 cost
 * 200 us of CPU per small request against 135 us for HTTP/1.1 (64 threads, loopback apiserver;
 * one HTTP/2 connection multiplexed from a single thread cost 107 us). Every connection, watches
 * included, carries one request at a time, so HTTP/2's multiplexing bought nothing.
 *
 * Credentials: a static token, a token file re-read when it changes (stat: inode, mtime, size)
 * or at least every minute (service-account tokens rotate), or an exec plugin whose result is
 * cached until its expirationTimestamp and dropped on a 401 (the request is then retried once
 * with a fresh credential). A plugin that returns a client certificate bumps a generation
 * number; each connection re-applies the certificate and opens a fresh connection when it sees a
 * new generation. client->cred_lock guards the whole cache and is held while the plugin runs,
 * so concurrent requests wait for one run instead of starting several. It is a leaf lock.
 *
 * Secrets never reach a log line: requests are logged (-v 6) by method, URL and status only, and
 * CURLOPT_VERBOSE (which prints headers) is never set. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <curl/curl.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/rfc3339.h"

#define MAX_BODY ((size_t)1 << 30)      /* a response larger than 1 GiB is an error, not an OOM */
#define MAX_LINE ((size_t)64 << 20)     /* one watch event */
#define MAX_ERROR_BODY ((size_t)1 << 20)
#define POLL_MS 200
/* Receive buffer of the connections that read LIST pages and watch streams (api__conn_bulk).
 * Other connections (binders, events, the lease) read answers of ~1 KB and keep libcurl's
 * 16 KiB default: 128 KiB on each of them was 2-3 MB of the process for nothing. */
#define BULK_BUFFER_SIZE (128L * 1024)
/* No byte for this long ends a stream. The apiserver sends a watch bookmark about every 60 s
 * (measured: 60.8 s), so 60 s would cut healthy quiet watches. */
#define LOW_SPEED_TIME_S 90
#define TOKEN_FILE_REREAD_NS (60LL * 1000000000LL)
#define MAX_RETRY_AFTER 10              /* client-go's maxRetries for 429 / Retry-After */
#define MAX_RETRY_AFTER_S 10

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
};

struct api_conn {
	struct api_client *client;
	CURL *h;
	CURLM *m;
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
};

/* ---------- responses ---------- */

void api_response_release(struct api_response *r)
{
	if (!r)
		return;
	free(r->body);
	memset(r, 0, sizeof(*r));
}

/* ---------- time ---------- */

int64_t api_now_ns(void)
{
	return mono_ns();
}

int64_t api_wall_us(void)
{
	return wall_us();
}

int api_parse_time(const char *s, int64_t *us)
{
	return rfc3339_parse(s, us) ? 0 : ERR_INVALID;
}

void api_format_time(int64_t us, char *buf, size_t size)
{
	rfc3339_format_micro(us, buf, size);
}

/* ---------- errors ---------- */

void api__status_message(const char *body, size_t len, long status, char *buf, size_t size)
{
	buf[0] = '\0';
	if (body && len) {
		static const char *const msg_path[] = {"message", NULL};
		yajl_val root = yajl_tree_parse(body, NULL, 0);
		yajl_val m = root ? yajl_tree_get(root, (const char **)msg_path, yajl_t_string) : NULL;
		if (m && YAJL_IS_STRING(m) && m->u.string && *m->u.string)
			snprintf(buf, size, "%s", m->u.string);
		yajl_tree_free(root);
		if (!buf[0]) {
			/* Not a Status (a proxy's HTML page...): a printable prefix of the body. */
			size_t n = 0;
			for (size_t i = 0; i < len && n + 1 < size && n < 200; i++) {
				unsigned char c = (unsigned char)body[i];
				buf[n++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
			}
			buf[n] = '\0';
		}
	}
	if (!buf[0])
		snprintf(buf, size, "HTTP status %ld with no message", status);
}

static int http_error_code(long status)
{
	switch (status) {
	case 401:
	case 403:
		return ERR_FORBIDDEN;
	case 404:
		return ERR_NOT_FOUND;
	case 409:
		return ERR_CONFLICT;
	case 410:
		return ERR_GONE;
	default:
		return ERR_HTTP;
	}
}

static int http_error(const char *method, const char *path, long status, const char *body,
		      size_t len, struct err *e)
{
	char msg[ERR_MSG_MAX];
	api__status_message(body, len, status, msg, sizeof(msg));
	int code = http_error_code(status);
	err_set(e, code, "%s %s: HTTP %ld: %s", method, path, status, msg);
	if (e)
		e->http_status = (int)status;
	return code;
}

static int transport_error(struct api_conn *c, const char *method, const char *url, CURLcode cc, struct err *e)
{
	const struct api_config *cfg = &c->client->cfg;
	const char *detail = c->errbuf[0] ? c->errbuf : curl_easy_strerror(cc);
	int code = ERR_TRANSPORT;
	switch (cc) {
	case CURLE_PEER_FAILED_VERIFICATION:
		err_set(e, code, "%s %s: TLS: the server's certificate is not trusted (%s): %s", method, url,
			cfg->ca_file ? cfg->ca_file : cfg->ca_data ? "certificate-authority-data" : "system roots", detail);
		break;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CLIENTCERT:
		err_set(e, code, "%s %s: TLS: %s", method, url, detail);
		break;
	case CURLE_OPERATION_TIMEDOUT:
		err_set(e, code, "%s %s: timeout: %s", method, url, detail);
		break;
	default:
		err_set(e, code, "%s %s: %s", method, url, detail);
	}
	if (e)
		e->http_status = 0;
	return code;
}

/* ---------- global ---------- */

int api_global_init(struct err *e)
{
	/* CURLOPT_NOSIGNAL (needed with threads) also stops curl from ignoring SIGPIPE around its
	 * socket writes: a peer that closes mid-write (an apiserver restart) must give EPIPE, not
	 * kill the process. An application's own SIGPIPE handler is left alone. */
	struct sigaction sa;
	if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL && !(sa.sa_flags & SA_SIGINFO))
		signal(SIGPIPE, SIG_IGN);
	CURLcode cc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (cc)
		return err_set(e, ERR_TRANSPORT, "curl_global_init: %s", curl_easy_strerror(cc));
	return 0;
}

void api_global_cleanup(void)
{
	curl_global_cleanup();
}

/* ---------- client ---------- */

struct api_client *api_client_new(struct api_config *cfg, struct err *e)
{
	struct api_client *c = NULL;
	if (!cfg || !cfg->server || !*cfg->server) {
		err_set(e, ERR_INVALID, "api client: no server in the configuration");
		goto fail;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		err_set(e, ERR_NOMEM, "api client: out of memory");
		goto fail;
	}
	c->cfg = *cfg;
	memset(cfg, 0, sizeof(*cfg));
	pthread_mutex_init(&c->cred_lock, NULL);
	struct api_config *k = &c->cfg;
	/* client-go takes "host:port" to mean https; a path prefix (Rancher) is kept, a trailing
	 * slash dropped so that server + "/api/v1/..." is right. */
	if (!strstr(k->server, "://")) {
		size_t n = strlen(k->server) + sizeof("https://");
		char *s = malloc(n);
		if (!s) {
			err_set(e, ERR_NOMEM, "api client: out of memory");
			goto fail;
		}
		snprintf(s, n, "https://%s", k->server);
		free(k->server);
		k->server = s;
	}
	if (strncmp(k->server, "https://", 8) && strncmp(k->server, "http://", 7)) {
		err_set(e, ERR_INVALID, "api client: server \"%s\": expected an https:// (or http://) URL", k->server);
		goto fail;
	}
	for (size_t n = strlen(k->server); n > 8 && k->server[n - 1] == '/'; n--)
		k->server[n - 1] = '\0';
	if (k->connect_timeout_ms <= 0)
		k->connect_timeout_ms = 10000;
	if (k->request_timeout_ms <= 0)
		k->request_timeout_ms = 60000;
	if (!k->user_agent && !(k->user_agent = strdup("csched/" CSCHED_VERSION))) {
		err_set(e, ERR_NOMEM, "api client: out of memory");
		goto fail;
	}
	if (k->qps > 0 && !(c->limiter = api_limiter_new(k->qps, k->burst))) {
		err_set(e, ERR_NOMEM, "api client: out of memory");
		goto fail;
	}
	if (k->insecure_skip_tls_verify)
		LOG_WARN("api client: insecure-skip-tls-verify: the identity of %s is not verified", k->server);
	LOG_V(2, "api client: server %s, qps %.1f burst %d, auth %s", k->server, k->qps, k->burst,
	      k->exec ? "exec plugin" : k->token_file ? "token file" : k->token ? "token"
					 : (k->cert_file || k->cert_data) ? "client certificate" : "none");
	return c;
fail:
	if (!c)
		api_config_release(cfg);
	api_client_free(c);
	return NULL;
}

void api_client_free(struct api_client *c)
{
	if (!c)
		return;
	api_config_release(&c->cfg);
	api_limiter_free(c->limiter);
	if (c->file_token)
		memset(c->file_token, 0, strlen(c->file_token));
	free(c->file_token);
	api__exec_result_release(&c->exec);
	pthread_mutex_destroy(&c->cred_lock);
	free(c);
}

const char *api_client_server(const struct api_client *c)
{
	return c->cfg.server;
}

const char *api_client_namespace(const struct api_client *c)
{
	return c->cfg.namespace;
}

/* ---------- credentials ---------- */

/* Caller holds c->cred_lock. */
static void token_file_refresh_locked(struct api_client *c)
{
	int64_t now = api_now_ns();
	struct stat st;
	bool changed = false;
	if (stat(c->cfg.token_file, &st) == 0)
		changed = st.st_ino != c->file_ino || st.st_size != c->file_size ||
			  st.st_mtim.tv_sec != c->file_mtime.tv_sec || st.st_mtim.tv_nsec != c->file_mtime.tv_nsec;
	if (c->file_token && !changed && now - c->file_read_ns < TOKEN_FILE_REREAD_NS)
		return;
	c->file_read_ns = now;
	char *t = NULL;
	struct err fe = {0};
	if (api__read_file(c->cfg.token_file, 1u << 20, &t, NULL, &fe)) {
		/* Keep the old token: a rotation in progress may leave the file briefly absent. */
		LOG_WARN("api client: token file: %s%s", fe.msg, c->file_token ? " (keeping the previous token)" : "");
		return;
	}
	char *s = t, *end;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		end--;
	*end = '\0';
	memmove(t, s, (size_t)(end - s) + 1);
	if (c->file_token)
		memset(c->file_token, 0, strlen(c->file_token));
	free(c->file_token);
	c->file_token = t;
	if (stat(c->cfg.token_file, &st) == 0) {
		c->file_ino = st.st_ino;
		c->file_size = st.st_size;
		c->file_mtime = st.st_mtim;
	}
}

/* The Authorization header for the next request (malloc'd, or NULL for no bearer token), and the
 * exec generation it came from. Applies a new exec client certificate to conn. */
static int conn_auth(struct api_conn *conn, char **header, uint64_t *gen, struct err *e)
{
	struct api_client *c = conn->client;
	const char *token = c->cfg.token;
	int rc = 0;
	*header = NULL;
	*gen = 0;
	if (!c->cfg.exec && !c->cfg.token_file && !token)
		return 0;
	pthread_mutex_lock(&c->cred_lock);
	if (c->cfg.exec) {
		if (c->exec_valid && c->exec.expiry_us && api_wall_us() >= c->exec.expiry_us) {
			LOG_V(4, "api client: exec credential expired: running %s", c->cfg.exec->command);
			c->exec_valid = false;
		}
		if (!c->exec_valid) {
			struct api__exec_result r;
			if ((rc = api__exec_run(c->cfg.exec, &r, e)))
				goto out;
			api__exec_result_release(&c->exec);
			c->exec = r;
			c->exec_valid = true;
			c->exec_gen++;
		}
		*gen = c->exec_gen;
		token = c->exec.token;
		if (c->exec.cert_data && conn->cert_gen != c->exec_gen) {
			struct curl_blob cert = {.data = c->exec.cert_data, .len = c->exec.cert_len, .flags = CURL_BLOB_COPY};
			struct curl_blob key = {.data = c->exec.key_data, .len = c->exec.key_len, .flags = CURL_BLOB_COPY};
			curl_easy_setopt(conn->h, CURLOPT_SSLCERT_BLOB, &cert);
			curl_easy_setopt(conn->h, CURLOPT_SSLCERTTYPE, "PEM");
			curl_easy_setopt(conn->h, CURLOPT_SSLKEY_BLOB, &key);
			curl_easy_setopt(conn->h, CURLOPT_SSLKEYTYPE, "PEM");
			conn->cert_gen = c->exec_gen;
			conn->fresh = true;
		}
	} else if (c->cfg.token_file) {
		token_file_refresh_locked(c);
		if (c->file_token && *c->file_token)
			token = c->file_token;
		if (!token) {
			rc = err_set(e, ERR_IO, "api client: token file %s: no token could be read", c->cfg.token_file);
			goto out;
		}
	}
	if (token && *token) {
		size_t n = strlen(token) + sizeof("Authorization: Bearer ");
		if (!(*header = malloc(n))) {
			rc = err_set(e, ERR_NOMEM, "api client: out of memory");
			goto out;
		}
		snprintf(*header, n, "Authorization: Bearer %s", token);
	}
out:
	pthread_mutex_unlock(&c->cred_lock);
	return rc;
}

/* A 401 with the exec credential of generation gen: drop it (once, if nobody refreshed since). */
static void exec_invalidate(struct api_client *c, uint64_t gen)
{
	pthread_mutex_lock(&c->cred_lock);
	if (c->exec_valid && c->exec_gen == gen)
		c->exec_valid = false;
	pthread_mutex_unlock(&c->cred_lock);
}

static void free_header(char *h)
{
	if (h) {
		memset(h, 0, strlen(h));
		free(h);
	}
}

/* ---------- connections ---------- */

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	struct api_conn *c = ud;
	return c->stop && atomic_load(c->stop) ? 1 : 0;
}

/* Hands every complete line of the stream to on_line; keeps the partial last line. */
static bool stream_lines(struct api_conn *c)
{
	size_t start = 0;
	char *nl;
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
		if (!c->stream_status)
			curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &c->stream_status);
		if (c->stream_status >= 200 && c->stream_status < 300) {
			if (!strbuf_add_max(&c->body, p, n, MAX_LINE)) {
				c->overflow = true;
				return 0;
			}
			return stream_lines(c) ? n : 0;
		}
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
	c->m = curl_multi_init();
	if (!c->h || !c->m) {
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
	/* Without a stop flag nothing needs the loop below. A bulk connection keeps to its multi
	 * handle even then: the connection cache belongs to the multi handle that runs the
	 * transfer, so mixing both would open a second connection. */
	if (!c->bulk && !c->stop)
		return curl_easy_perform(c->h);
	CURLcode res = CURLE_OK;
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
	if (!(t = curl_slist_append(l, "Accept: application/json")))
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
}

/* One request of conn_do. */
struct req {
	const char *method, *path, *url, *content_type, *body;
	size_t body_len;
	bool stream; /* on_line/stop are set: no overall timeout, a low-speed limit instead */
};

static void set_timeouts(struct api_conn *c, bool stream)
{
	if (stream) {
		curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, 0L);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_TIME, (long)LOW_SPEED_TIME_S);
	} else {
		curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, c->client->cfg.request_timeout_ms);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_LIMIT, 0L);
		curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_TIME, 0L);
	}
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
	if ((rc = conn_auth(c, &auth, gen, e))) {
		err_prefix(e, "%s %s", r->method, r->path);
		return rc;
	}
	rc = conn_setup(c, r->method, r->url, r->content_type, r->body, r->body_len, auth, &hdrs, e);
	free_header(auth);
	if (rc)
		return rc;
	set_timeouts(c, r->stream);
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
	return cc ? transport_error(c, r->method, r->url, cc, e) : 0;
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
	for (int attempt = 0;; attempt++) {
		uint64_t gen = 0;
		CURLcode cc = CURLE_OK;
		if ((rc = conn_attempt(c, &r, status, &gen, &cc, e)) || (rc = transfer_result(c, &r, cc, e)))
			break;
		if (*status == 401 && c->client->cfg.exec && !auth_retried) {
			auth_retried = true;
			exec_invalidate(c->client, gen);
			LOG_V(2, "%s %s: 401 with the exec credential: running the plugin again", method, path);
			continue;
		}
		if ((rc = retry_after_wait(c, &r, *status, attempt, e)) > 0)
			continue;
		if (!rc && *status >= 400)
			rc = http_error(method, path, *status, c->body.data, c->body.len, e);
		break;
	}
	free((char *)r.url);
	return rc;
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

int api__conn_bulk(struct api_conn *conn, struct err *e)
{
	CURLcode cc = curl_easy_setopt(conn->h, CURLOPT_BUFFERSIZE, BULK_BUFFER_SIZE);
	conn->bulk = true;
	if (cc)
		return err_set(e, ERR_TRANSPORT, "api conn: curl option: %s", curl_easy_strerror(cc));
	return 0;
}
