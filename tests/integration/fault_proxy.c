/* The fault proxy (contract in fault_proxy.h). One thread accepts; one thread per client
 * connection reads one request, applies the first matching rule and forwards with libcurl, whose
 * callbacks write the answer to the client as it arrives (chunked). */
#include "fault_proxy.h"

#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "apiclient/api_client.h"

#define FP_MAX_RULES 32
#define FP_MAX_LOG 65536
#define FP_HEAD_MAX 65536
#define FP_MAX_OPEN 1024

struct rule {
	struct fproxy_rule r; /* strings owned (strdup) */
	int left;             /* uses left; -1 unlimited */
	long fired;
};

struct logent {
	char method[8];
	char *target;
	int status; /* the apiserver's answer, or the status a FP_REPLY sent */
};

struct fproxy {
	char upstream[64], ca_file[320];
	int lfd, port;
	atomic_bool stop;
	pthread_t acceptor;
	pthread_mutex_t lock; /* guards rules and log; leaf lock */
	struct rule rules[FP_MAX_RULES];
	int nrules;
	struct logent *log;
	size_t nlog;
	atomic_int active; /* connection threads running (detached) */
	int fds[FP_MAX_OPEN]; /* client sockets open now (-1: free slot), for fproxy_cut_streams */
};

/* One request being served. */
struct req {
	struct fproxy *p;
	int fd;
	char method[8], target[4096];
	char *body;
	size_t body_len;
	char auth[4096], ctype[128], accept[256];
	struct fproxy_rule rule; /* copy of the rule that applies (its strings are the proxy's) */
	bool faulted;
	/* answer */
	long status;
	bool head_sent, dead;
	size_t sent_bytes, sent_lines;
	char ctype_out[128];
};

static bool send_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

static bool send_chunk(struct req *q, const char *b, size_t n)
{
	char h[32];
	if (!n)
		return true;
	snprintf(h, sizeof(h), "%zx\r\n", n);
	return send_all(q->fd, h, strlen(h)) && send_all(q->fd, b, n) && send_all(q->fd, "\r\n", 2);
}

static void sleep_ms(struct fproxy *p, long ms)
{
	for (; ms > 0 && !atomic_load(&p->stop); ms -= 20) {
		struct timespec ts = {0, (ms < 20 ? ms : 20) * 1000000L};
		nanosleep(&ts, NULL);
	}
}

static const char *reason_of(int status)
{
	switch (status) {
	case 410:
		return "Expired";
	case 429:
		return "TooManyRequests";
	case 500:
		return "InternalError";
	case 503:
		return "ServiceUnavailable";
	case 504:
		return "Timeout";
	default:
		return "";
	}
}

static void log_request(struct fproxy *p, const struct req *q, int status)
{
	pthread_mutex_lock(&p->lock);
	if (p->nlog < FP_MAX_LOG) {
		struct logent *l = &p->log[p->nlog];
		snprintf(l->method, sizeof(l->method), "%s", q->method);
		l->target = strdup(q->target);
		l->status = status;
		if (l->target)
			p->nlog++;
	}
	pthread_mutex_unlock(&p->lock);
}

/* ---------- the answer, from libcurl's callbacks ---------- */

/* libcurl hands the handle to neither callback; the request keeps it. */
struct xfer {
	struct req q;
	CURL *h;
};

static bool send_head(struct req *q, CURL *h);
static bool inject_now(struct req *q);

static size_t on_header(char *b, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	struct req *q = &x->q;
	size_t len = size * n;
	if (len >= 5 && !strncmp(b, "HTTP/", 5)) {
		q->ctype_out[0] = '\0';
		return len;
	}
	if (len > 13 && !strncasecmp(b, "Content-Type:", 13)) {
		size_t k = len - 13;
		while (k && (b[13 + k - 1] == '\r' || b[13 + k - 1] == '\n'))
			k--;
		snprintf(q->ctype_out, sizeof(q->ctype_out), "%.*s", (int)k, b + 13);
	}
	/* the end of the head: an injection after 0 lines need not wait for a first event */
	if (len <= 2 && q->faulted && q->rule.fault == FP_INJECT && q->rule.after == 0) {
		long st = 0;
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &st);
		if (st >= 200 && st < 300 && (!send_head(q, x->h) || !inject_now(q)))
			return 0;
	}
	return len;
}

static bool send_head(struct req *q, CURL *h)
{
	char head[512];
	if (q->head_sent)
		return true;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &q->status);
	if (q->faulted && q->rule.fault == FP_STALL)
		sleep_ms(q->p, q->rule.ms);
	snprintf(head, sizeof(head),
		 "HTTP/1.1 %ld X\r\nContent-Type:%s\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
		 q->status, q->ctype_out[0] ? q->ctype_out : " application/json");
	q->head_sent = true;
	return send_all(q->fd, head, strlen(head));
}

/* Sends the injected line and ends the answer properly, as the apiserver ends a watch after an
 * ERROR event; the upstream transfer is abandoned (false: stop it). */
static bool inject_now(struct req *q)
{
	const char *l = q->rule.line ? q->rule.line : "";
	if (send_chunk(q, l, strlen(l)) && send_chunk(q, "\n", 1))
		send_all(q->fd, "0\r\n\r\n", 5);
	q->dead = true;
	return false;
}

static size_t on_data(char *b, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	struct req *q = &x->q;
	size_t len = size * n, take = len;
	if (q->dead || !send_head(q, x->h))
		return 0;
	if (q->faulted && q->rule.fault == FP_CUT) {
		if (q->sent_bytes + take > q->rule.after)
			take = q->rule.after - q->sent_bytes;
		if (!send_chunk(q, b, take))
			return 0;
		q->sent_bytes += take;
		if (q->sent_bytes >= q->rule.after) {
			q->dead = true; /* close without the final chunk: the client sees a broken answer */
			return 0;
		}
		return len;
	}
	if (q->faulted && q->rule.fault == FP_INJECT) {
		/* relay whole lines until `after` of them went through, then the injected one */
		size_t i = 0;
		while (i < len && q->sent_lines < q->rule.after) {
			const char *nl = memchr(b + i, '\n', len - i);
			size_t k = nl ? (size_t)(nl - (b + i)) + 1 : len - i;
			if (!send_chunk(q, b + i, k))
				return 0;
			if (nl)
				q->sent_lines++;
			i += k;
		}
		if (q->sent_lines >= q->rule.after) {
			inject_now(q);
			return 0;
		}
		return len;
	}
	if (!send_chunk(q, b, len))
		return 0;
	q->sent_bytes += len;
	return len;
}

static int on_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	(void)a, (void)b, (void)c, (void)d;
	struct xfer *x = ud;
	return atomic_load(&x->q.p->stop) ? 1 : 0;
}

/* ---------- one request ---------- */

static void reply(struct req *q, int status, int retry_after_s)
{
	char body[512], head[512];
	snprintf(body, sizeof(body),
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"fault proxy: injected %d\",\"reason\":\"%s\",\"code\":%d}",
		 status, reason_of(status), status);
	char ra[48] = "";
	if (retry_after_s > 0)
		snprintf(ra, sizeof(ra), "Retry-After: %d\r\n", retry_after_s);
	snprintf(head, sizeof(head),
		 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n%sContent-Length: %zu\r\nConnection: close\r\n\r\n",
		 status, ra, strlen(body));
	if (send_all(q->fd, head, strlen(head)))
		send_all(q->fd, body, strlen(body));
}

static void forward(struct xfer *x)
{
	struct req *q = &x->q;
	char url[4200], hb[4200];
	struct curl_slist *hl = NULL;
	CURL *h = curl_easy_init();
	if (!h)
		return;
	x->h = h;
	snprintf(url, sizeof(url), "%s%s", q->p->upstream, q->target);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CAINFO, q->p->ca_file);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, q->method);
	if (q->body_len || !strcmp(q->method, "POST") || !strcmp(q->method, "PUT") || !strcmp(q->method, "PATCH")) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, q->body ? q->body : "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)q->body_len);
	}
	if (q->auth[0]) {
		snprintf(hb, sizeof(hb), "Authorization:%s", q->auth);
		hl = curl_slist_append(hl, hb);
	}
	if (q->ctype[0]) {
		snprintf(hb, sizeof(hb), "Content-Type:%s", q->ctype);
		hl = curl_slist_append(hl, hb);
	}
	if (q->accept[0]) {
		snprintf(hb, sizeof(hb), "Accept:%s", q->accept);
		hl = curl_slist_append(hl, hb);
	}
	hl = curl_slist_append(hl, "Expect:");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	CURLcode cc = curl_easy_perform(h);
	long st = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st);
	if (!q->dead && cc == CURLE_OK) {
		if (send_head(q, h)) /* an empty body still needs the head */
			send_all(q->fd, "0\r\n\r\n", 5);
	}
	log_request(q->p, q, (int)st);
	curl_slist_free_all(hl);
	curl_easy_cleanup(h);
}

/* Reads the request head and body; false when the client sent nothing usable. */
static bool read_request(struct req *q)
{
	char *buf = malloc(FP_HEAD_MAX + 1), *end = NULL;
	size_t n = 0, clen = 0;
	if (!buf)
		return false;
	while (!end && n < FP_HEAD_MAX) {
		struct pollfd pf = {q->fd, POLLIN, 0};
		if (atomic_load(&q->p->stop))
			goto fail;
		if (poll(&pf, 1, 100) <= 0)
			continue;
		ssize_t r = recv(q->fd, buf + n, FP_HEAD_MAX - n, 0);
		if (r <= 0)
			goto fail;
		n += (size_t)r;
		buf[n] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	if (!end || sscanf(buf, "%7s %4095s", q->method, q->target) != 2)
		goto fail;
	*end = '\0';
	for (char *l = strstr(buf, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
		char *v = l + 2, *c = strchr(v, ':'), *eol = strstr(v, "\r\n");
		if (!c || (eol && c > eol))
			continue;
		size_t k = eol ? (size_t)(eol - (c + 1)) : strlen(c + 1);
		if (!strncasecmp(v, "Content-Length:", 15))
			clen = strtoul(c + 1, NULL, 10);
		else if (!strncasecmp(v, "Authorization:", 14))
			snprintf(q->auth, sizeof(q->auth), "%.*s", (int)k, c + 1);
		else if (!strncasecmp(v, "Content-Type:", 13))
			snprintf(q->ctype, sizeof(q->ctype), "%.*s", (int)k, c + 1);
		else if (!strncasecmp(v, "Accept:", 7))
			snprintf(q->accept, sizeof(q->accept), "%.*s", (int)k, c + 1);
	}
	size_t have = n - (size_t)(end + 4 - buf);
	q->body = malloc(clen + 1);
	if (!q->body)
		goto fail;
	memcpy(q->body, end + 4, have < clen ? have : clen);
	q->body_len = have < clen ? have : clen;
	while (q->body_len < clen) {
		ssize_t r = recv(q->fd, q->body + q->body_len, clen - q->body_len, 0);
		if (r <= 0)
			goto fail;
		q->body_len += (size_t)r;
	}
	free(buf);
	return true;
fail:
	free(buf);
	return false;
}

static bool rule_matches(const struct fproxy_rule *r, const struct req *q)
{
	return (!r->method || !strcmp(r->method, q->method)) && (!r->path || strstr(q->target, r->path));
}

static void track_fd(struct fproxy *p, int fd, int was)
{
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < FP_MAX_OPEN; i++) {
		if (p->fds[i] == was) {
			p->fds[i] = fd;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

static void *conn_main(void *arg)
{
	struct xfer *x = arg;
	struct req *q = &x->q;
	struct fproxy *p = q->p;
	track_fd(p, q->fd, -1);
	if (read_request(q)) {
		pthread_mutex_lock(&p->lock);
		for (int i = 0; i < p->nrules; i++) {
			struct rule *r = &p->rules[i];
			if (r->left == 0 || !rule_matches(&r->r, q))
				continue;
			if (r->left > 0)
				r->left--;
			r->fired++;
			q->rule = r->r; /* its strings: see fproxy_clear */
			q->faulted = true;
			break;
		}
		pthread_mutex_unlock(&p->lock);
		if (q->faulted && q->rule.fault == FP_REPLY) {
			reply(q, q->rule.status, q->rule.retry_after_s);
			log_request(p, q, q->rule.status);
		} else {
			if (q->faulted && q->rule.fault == FP_DELAY)
				sleep_ms(p, q->rule.ms);
			forward(x);
		}
	}
	track_fd(p, -1, q->fd);
	close(q->fd);
	free(q->body);
	free(x);
	atomic_fetch_sub(&p->active, 1);
	return NULL;
}

static void *accept_main(void *arg)
{
	struct fproxy *p = arg;
	while (!atomic_load(&p->stop)) {
		struct pollfd pf = {p->lfd, POLLIN, 0};
		if (poll(&pf, 1, 100) <= 0)
			continue;
		int fd = accept(p->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		struct xfer *x = calloc(1, sizeof(*x));
		pthread_t t;
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (x) {
			x->q.p = p;
			x->q.fd = fd;
			atomic_fetch_add(&p->active, 1);
			if (pthread_create(&t, &at, conn_main, x) == 0)
				x = NULL, fd = -1;
			else
				atomic_fetch_sub(&p->active, 1);
		}
		pthread_attr_destroy(&at);
		if (fd >= 0)
			close(fd);
		free(x);
	}
	return NULL;
}

/* ---------- public ---------- */

struct fproxy *fproxy_start(const struct harness_cluster *c, struct err *e)
{
	struct fproxy *p = calloc(1, sizeof(*p));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	if (!p || !(p->log = calloc(FP_MAX_LOG, sizeof(*p->log)))) {
		if (p)
			free(p);
		err_set(e, ERR_NOMEM, "fault proxy: out of memory");
		return NULL;
	}
	snprintf(p->upstream, sizeof(p->upstream), "%s", c->apiserver_url);
	snprintf(p->ca_file, sizeof(p->ca_file), "%s", c->ca_file);
	pthread_mutex_init(&p->lock, NULL);
	for (int i = 0; i < FP_MAX_OPEN; i++)
		p->fds[i] = -1;
	p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&a, sizeof(a)) || listen(p->lfd, 128) ||
	    getsockname(p->lfd, (struct sockaddr *)&a, &al)) {
		err_set(e, ERR_IO, "fault proxy: listen: %s", strerror(errno));
		goto fail;
	}
	p->port = ntohs(a.sin_port);
	if (pthread_create(&p->acceptor, NULL, accept_main, p)) {
		err_set(e, ERR_NOMEM, "fault proxy: pthread_create");
		goto fail;
	}
	return p;
fail:
	if (p->lfd >= 0)
		close(p->lfd);
	pthread_mutex_destroy(&p->lock);
	free(p->log);
	free(p);
	return NULL;
}

void fproxy_stop(struct fproxy *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, true);
	pthread_join(p->acceptor, NULL);
	close(p->lfd);
	while (atomic_load(&p->active) > 0) { /* each notices stop within ~100 ms */
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < p->nrules; i++) {
		free((char *)p->rules[i].r.method);
		free((char *)p->rules[i].r.path);
		free((char *)p->rules[i].r.line);
	}
	for (size_t i = 0; i < p->nlog; i++)
		free(p->log[i].target);
	free(p->log);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int fproxy_port(const struct fproxy *p)
{
	return p->port;
}

struct api_client *fproxy_client_new(const struct fproxy *p, const struct harness_cluster *c, const char *context,
				     long request_timeout_ms, struct err *e)
{
	struct api_config cfg = {0};
	if (api_config_load_kubeconfig(&cfg, c->kubeconfig, context, e)) {
		api_config_release(&cfg);
		return NULL;
	}
	if (request_timeout_ms > 0)
		cfg.request_timeout_ms = request_timeout_ms;
	free(cfg.server);
	if (asprintf(&cfg.server, "http://127.0.0.1:%d", p->port) < 0) {
		cfg.server = NULL;
		api_config_release(&cfg);
		err_set(e, ERR_NOMEM, "fault proxy: out of memory");
		return NULL;
	}
	return api_client_new(&cfg, e);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int fproxy_add(struct fproxy *p, const struct fproxy_rule *r)
{
	int id;
	pthread_mutex_lock(&p->lock);
	id = p->nrules;
	if (id >= FP_MAX_RULES) {
		pthread_mutex_unlock(&p->lock);
		return ERR_NOMEM;
	}
	struct rule *n = &p->rules[id];
	n->r = *r;
	n->r.method = dup_or_null(r->method);
	n->r.path = dup_or_null(r->path);
	n->r.line = dup_or_null(r->line);
	n->left = r->times > 0 ? r->times : -1;
	n->fired = 0;
	p->nrules++;
	pthread_mutex_unlock(&p->lock);
	return id;
}

/* The rules stay allocated (a request may hold their strings) but never apply again. */
void fproxy_clear(struct fproxy *p)
{
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < p->nrules; i++)
		p->rules[i].left = 0;
	pthread_mutex_unlock(&p->lock);
}

long fproxy_fired(struct fproxy *p, int id)
{
	pthread_mutex_lock(&p->lock);
	long n = id >= 0 && id < p->nrules ? p->rules[id].fired : 0;
	pthread_mutex_unlock(&p->lock);
	return n;
}

long fproxy_count(struct fproxy *p, const char *method, const char *path, int status)
{
	long n = 0;
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->nlog; i++) {
		const struct logent *l = &p->log[i];
		if ((!method || !strcmp(method, l->method)) && (!path || strstr(l->target, path)) &&
		    (!status || l->status == status))
			n++;
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}

void fproxy_cut_streams(struct fproxy *p)
{
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < FP_MAX_OPEN; i++)
		if (p->fds[i] >= 0)
			shutdown(p->fds[i], SHUT_RDWR);
	pthread_mutex_unlock(&p->lock);
}
