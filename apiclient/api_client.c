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
 * HTTP/1.1, not HTTP/2, on these connections: with one connection per thread, libcurl 7.88's
 * HTTP/2 cost 200 us of CPU per small request against 135 us for HTTP/1.1 (64 threads, loopback
 * apiserver; one HTTP/2 connection multiplexed from a single thread cost 107 us). Each of them
 * carries one request at a time, so HTTP/2's multiplexing bought nothing. The binder threads are
 * the exception: up to 64 of them, each blocked in one request, share one HTTP/2 connection
 * driven by a single muxer thread (api_mux.c, api_conn_new_mux), which is that cheapest case and
 * saves a TCP + TLS connection per thread. So do the informers of the quiet kinds (volumes,
 * owners, DRA, namespaces, PDBs, PVCs: api_informer_options.shared_connection), on a second
 * muxer the client makes on first use (api__client_watch_mux): ~20 TLS connections, their multi
 * handles and OpenSSL state were the largest per-process item of csched's heap left. The pods'
 * and nodes' informers keep a connection each: they carry the load (150,000 pods listed at
 * start-up, an event per pod created, bound and deleted), and their decoding runs on their own
 * threads, not on the muxer's.
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

#include "pb_internal.h"
#include "client_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/rfc3339.h"


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
		if (api__pb_magic(body, len)) {
			/* a protobuf Status (the informers accept protobuf) */
			struct api__pb *p = api__pb_new();
			yajl_val root = NULL;
			if (p && !api__pb_body(p, API_KIND_POD, body, len, NULL, NULL, &root, NULL, 0)) {
				yajl_val m = yajl_tree_get(root, (const char **)msg_path, yajl_t_string);
				if (m && YAJL_IS_STRING(m) && m->u.string && *m->u.string)
					snprintf(buf, size, "%s", m->u.string);
			}
			api__pb_free(p);
		} else {
			yajl_val root = yajl_tree_parse(body, NULL, 0);
			yajl_val m = root ? yajl_tree_get(root, (const char **)msg_path, yajl_t_string) : NULL;
			if (m && YAJL_IS_STRING(m) && m->u.string && *m->u.string)
				snprintf(buf, size, "%s", m->u.string);
			yajl_tree_free(root);
		}
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

int api__http_error(const char *method, const char *path, long status, const char *body,
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

int api__transport_error(struct api_conn *c, const char *method, const char *url, CURLcode cc, struct err *e)
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
	pthread_mutex_init(&c->watch_lock, NULL);
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
	api_mux_free(atomic_load(&c->watch_mux)); /* its informers were stopped: it is idle */
	pthread_mutex_destroy(&c->watch_lock);
	api_config_release(&c->cfg);
	api_limiter_free(c->limiter);
	if (c->file_token)
		memset(c->file_token, 0, strlen(c->file_token));
	free(c->file_token);
	api__exec_result_release(&c->exec);
	pthread_mutex_destroy(&c->cred_lock);
	free(c);
}

struct api_mux *api__client_watch_mux(struct api_client *c, struct err *e)
{
	struct api_mux *x = atomic_load(&c->watch_mux);
	if (x)
		return x;
	pthread_mutex_lock(&c->watch_lock);
	if (!(x = atomic_load(&c->watch_mux))) {
		x = api_mux_new(WATCH_MUX_CONNS, e);
		atomic_store(&c->watch_mux, x);
	}
	pthread_mutex_unlock(&c->watch_lock);
	return x;
}

void api__client_watch_wake(struct api_client *c)
{
	api__mux_wake(atomic_load(&c->watch_mux));
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
int api__conn_auth(struct api_conn *conn, char **header, uint64_t *gen, struct err *e)
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
void api__exec_invalidate(struct api_client *c, uint64_t gen)
{
	pthread_mutex_lock(&c->cred_lock);
	if (c->exec_valid && c->exec_gen == gen)
		c->exec_valid = false;
	pthread_mutex_unlock(&c->cred_lock);
}

void api__free_header(char *h)
{
	if (h) {
		memset(h, 0, strlen(h));
		free(h);
	}
}
