/* Integration-test harness (see harness.h).
 *
 * DESIGN: the cluster is driven through the shell scripts in tests/cluster/ so that tests,
 * benchmarks and humans start it the same way. Bulk creation fans out over HARNESS_WORKERS
 * threads, each with its own api_conn (one keep-alive connection each); the workers share only
 * an atomic index of the next object to create and the first error (guarded by bulk.lock). */
#include "harness.h"

#include <curl/curl.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "testutil.h"

#define HARNESS_WORKERS 4

int64_t harness_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool harness_wait_until(bool (*pred)(void *ctx), void *ctx, long timeout_ms, long poll_ms)
{
	int64_t deadline = harness_now_ms() + timeout_ms;
	if (poll_ms <= 0)
		poll_ms = 20;
	for (;;) {
		if (pred(ctx))
			return true;
		if (harness_now_ms() >= deadline)
			return false;
		sleep_ms(poll_ms);
	}
}

/* ---------- running commands ---------- */

static int run_cmd(char **out, const char *cmd)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	/* stderr goes with stdout so that a failing command explains itself. */
	char *full = NULL;
	if (asprintf(&full, "( %s ) 2>&1", cmd) < 0)
		return -1;
	FILE *p = popen(full, "r");
	free(full);
	if (!p)
		return -1;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0) {
		if (out) {
			if (len + n + 1 > cap) {
				size_t ncap = cap ? cap * 2 : 8192;
				while (ncap < len + n + 1)
					ncap *= 2;
				char *nb = realloc(buf, ncap);
				if (!nb)
					break;
				buf = nb;
				cap = ncap;
			}
			memcpy(buf + len, chunk, n);
			len += n;
		}
	}
	int st = pclose(p);
	if (out) {
		if (!buf)
			buf = calloc(1, 1);
		else
			buf[len] = '\0';
		*out = buf;
	}
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int harness_run(char **out, const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	int rc = run_cmd(out, cmd);
	free(cmd);
	return rc;
}

/* The pinned kubectl (tests/cluster/bin builds it if needed), resolved once. */
static char kubectl_bin[1024];
static void kubectl_resolve(void)
{
	char *out = NULL;
	if (harness_run(&out, "'%s' kubectl 2>/dev/null", testutil_source_path("tests/cluster/bin")) == 0 && out) {
		out[strcspn(out, "\n")] = '\0';
		snprintf(kubectl_bin, sizeof(kubectl_bin), "%s", out);
	}
	free(out);
}

int harness_kubectl(const char *kubeconfig, const char *context, char **out, const char *args_fmt, ...)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	char *args = NULL;
	int rc = -1;
	va_list ap;
	va_start(ap, args_fmt);
	int n = vasprintf(&args, args_fmt, ap);
	va_end(ap);
	if (n < 0)
		goto out;
	pthread_once(&once, kubectl_resolve);
	if (!kubectl_bin[0])
		goto out;
	rc = harness_run(out, "'%s' --kubeconfig='%s' %s%s%s %s", kubectl_bin, kubeconfig, context ? "--context='" : "",
			 context ? context : "", context ? "'" : "", args);
out:
	free(args);
	return rc;
}

/* ---------- the cluster ---------- */

static void env_str(const char *val, char *dst, size_t size)
{
	size_t n = strlen(val);
	if (n >= 2 && val[0] == '\'' && val[n - 1] == '\'') {
		val++;
		n -= 2;
	}
	if (n >= size)
		n = size - 1;
	memcpy(dst, val, n);
	dst[n] = '\0';
}

static int read_env(struct harness_cluster *c, struct err *e)
{
	char path[400], line[1024];
	snprintf(path, sizeof(path), "%s/env", c->dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		*eq = '\0';
		const char *k = line, *v = eq + 1;
		char tmp[400];
		env_str(v, tmp, sizeof(tmp));
		if (!strcmp(k, "KUBECONFIG"))
			env_str(v, c->kubeconfig, sizeof(c->kubeconfig));
		else if (!strcmp(k, "CA_FILE"))
			env_str(v, c->ca_file, sizeof(c->ca_file));
		else if (!strcmp(k, "APISERVER_URL"))
			env_str(v, c->apiserver_url, sizeof(c->apiserver_url));
		else if (!strcmp(k, "ETCD_URL"))
			env_str(v, c->etcd_url, sizeof(c->etcd_url));
		else if (!strcmp(k, "APISERVER_PORT"))
			c->apiserver_port = atoi(tmp);
		else if (!strcmp(k, "ETCD_PORT"))
			c->etcd_port = atoi(tmp);
		else if (!strcmp(k, "APISERVER_PID"))
			c->apiserver_pid = (pid_t)atoi(tmp);
		else if (!strcmp(k, "ETCD_PID"))
			c->etcd_pid = (pid_t)atoi(tmp);
		else if (!strcmp(k, "KCM_PID"))
			c->kcm_pid = (pid_t)atoi(tmp);
	}
	fclose(f);
	if (!c->kubeconfig[0] || !c->apiserver_port || !c->etcd_port || !c->apiserver_pid)
		return err_set(e, ERR_INVALID, "%s: incomplete (no KUBECONFIG, ports or pids)", path);
	return 0;
}

static int global_init_rc;
static struct err global_init_err;
static void global_init(void)
{
	global_init_rc = api_global_init(&global_init_err);
}

int harness_cluster_start(struct harness_cluster *c, unsigned flags, struct err *e)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int rc;
	char *out = NULL;

	memset(c, 0, sizeof(*c));
	pthread_once(&once, global_init);
	if (global_init_rc) {
		if (e)
			*e = global_init_err;
		return global_init_rc;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(c->dir, sizeof(c->dir), "%s/csched-it-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c->dir))
		return err_set(e, ERR_IO, "harness: mkdtemp %s: %s", c->dir, strerror(errno));
	int64_t t0 = harness_now_ms();
	rc = harness_run(&out, "'%s' '%s'%s%s%s",
			 testutil_source_path("tests/cluster/up"), c->dir,
			 flags & HARNESS_CONTROLLER_MANAGER ? " --with-controller-manager" : "",
			 flags & HARNESS_BENCH ? " --bench" : "",
			 flags & HARNESS_NO_WATCH_CACHE ? " --apiserver-arg=--watch-cache=false" : "");
	c->start_seconds = (double)(harness_now_ms() - t0) / 1000.0;
	fputs(out ? out : "", stderr); /* up's progress lines, for ctest --output-on-failure */
	if (rc != 0) {
		const char *tail = out ? out : "";
		size_t n = strlen(tail);
		if (n > 300)
			tail += n - 300;
		err_set(e, ERR_IO, "harness: tests/cluster/up %s failed (%d): ...%s", c->dir, rc, tail);
		c->running = true; /* so that stop cleans the directory */
		harness_cluster_stop(c);
		rc = ERR_IO;
		goto out;
	}
	c->running = true;
	rc = read_env(c, e);
	if (rc)
		harness_cluster_stop(c);
out:
	free(out);
	return rc;
}

void harness_cluster_stop(struct harness_cluster *c)
{
	if (!c->running)
		return;
	c->running = false;
	harness_run(NULL, "'%s' '%s' >&2", testutil_source_path("tests/cluster/down"), c->dir);
	const char *keep = getenv("CSCHED_KEEP_CLUSTER");
	if (keep && !strcmp(keep, "1"))
		fprintf(stderr, "harness: kept %s\n", c->dir);
	else if (strncmp(c->dir, "/", 1) == 0 && strstr(c->dir, "/csched-it-"))
		harness_run(NULL, "rm -rf '%s'", c->dir);
}

/* Alive and not a zombie: in a container whose init does not reap orphans, a killed
 * process stays a zombie (state Z) forever. */
static bool pid_running(pid_t pid)
{
	char path[64], buf[256];
	if (kill(pid, 0) != 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *rp = strrchr(buf, ')'); /* "pid (comm) S ..." */
	return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

static int kill_and_wait(pid_t pid, const char *what, int sig, struct err *e)
{
	if (pid <= 0 || kill(pid, sig) != 0)
		return err_set(e, ERR_IO, "harness: kill %d %s pid %d: %s", sig, what, (int)pid, strerror(errno));
	/* The process is not our child (up backgrounded it): poll until it is gone. */
	for (int i = 0; i < 300 && pid_running(pid); i++)
		sleep_ms(20);
	if (pid_running(pid))
		return err_set(e, ERR_TIMEOUT, "harness: %s pid %d still alive 6 s after signal %d", what, (int)pid, sig);
	return 0;
}

int harness_apiserver_kill(struct harness_cluster *c, int sig, struct err *e)
{
	return kill_and_wait(c->apiserver_pid, "apiserver", sig, e);
}

int harness_etcd_kill(struct harness_cluster *c, int sig, struct err *e)
{
	return kill_and_wait(c->etcd_pid, "etcd", sig, e);
}

static int restart(struct harness_cluster *c, const char *flag, struct err *e)
{
	char *out = NULL;
	int rc = harness_run(&out, "'%s' '%s' %s", testutil_source_path("tests/cluster/up"), c->dir, flag);
	if (rc != 0) {
		err_set(e, ERR_IO, "harness: up %s failed (%d): %s", flag, rc, out ? out : "");
		free(out);
		return ERR_IO;
	}
	free(out);
	return read_env(c, e);
}

int harness_apiserver_restart(struct harness_cluster *c, struct err *e)
{
	return restart(c, "--restart-apiserver", e);
}

int harness_etcd_restart(struct harness_cluster *c, struct err *e)
{
	return restart(c, "--restart-etcd", e);
}

struct api_client *harness_client_new(const struct harness_cluster *c, const char *context, struct err *e)
{
	struct api_config cfg = {0};
	if (api_config_load_kubeconfig(&cfg, c->kubeconfig, context, e)) {
		api_config_release(&cfg);
		return NULL;
	}
	return api_client_new(&cfg, e);
}

int harness_setup(struct harness_cluster *c, unsigned flags, struct api_client **cl, struct api_conn **conn)
{
	struct err e = {0};
	if (harness_cluster_start(c, flags, &e) < 0) {
		fprintf(stderr, "cluster: %s\n", e.msg);
		return -1;
	}
	if (!(*cl = harness_client_new(c, NULL, &e)) || !(*conn = api_conn_new(*cl, &e))) {
		fprintf(stderr, "client: %s\n", e.msg);
		return -1;
	}
	return 0;
}

void harness_teardown(struct harness_cluster *c, struct api_client **cl, struct api_conn **conn)
{
	api_conn_free(*conn);
	*conn = NULL;
	api_client_free(*cl);
	*cl = NULL;
	harness_cluster_stop(c);
}

int harness_create_namespace(struct api_conn *conn, const char *name, struct err *e)
{
	char body[256];
	int n = snprintf(body, sizeof(body), "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}",
			 name);
	return api_request(conn, "POST", "/api/v1/namespaces", NULL, body, (size_t)n, NULL, e);
}

/* ---------- bulk object creation ---------- */

enum bulk_op { BULK_CREATE_NODE, BULK_CREATE_POD, BULK_DELETE_NODE, BULK_DELETE_POD, BULK_LABEL_NODE, BULK_LABEL_POD };

struct bulk {
	struct api_client *cl;
	enum bulk_op op;
	const char *ns, *prefix, *value;
	int first, n;
	atomic_int next;     /* index of the next object to handle */
	atomic_bool failed;  /* stop early after the first error */
	pthread_mutex_t lock; /* guards err (the first error); leaf lock */
	struct err err;
};

static int bulk_one(struct bulk *b, struct api_conn *conn, int i, struct err *e)
{
	char path[512], body[2048], name[256];
	const char *method = "POST", *ctype = NULL;
	int blen = 0;
	snprintf(name, sizeof(name), "%s%d", b->prefix, i);
	switch (b->op) {
	case BULK_CREATE_NODE:
		snprintf(path, sizeof(path), "/api/v1/nodes");
		blen = snprintf(body, sizeof(body),
				"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\","
				"\"labels\":{\"kubernetes.io/hostname\":\"%s\"}},\"spec\":{},"
				"\"status\":{\"capacity\":{\"pods\":\"110\",\"cpu\":\"4\",\"memory\":\"32Gi\"},"
				"\"allocatable\":{\"pods\":\"110\",\"cpu\":\"4\",\"memory\":\"32Gi\"},"
				"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\"}],"
				"\"phase\":\"Running\"}}",
				name, name);
		break;
	case BULK_CREATE_POD:
		snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods", b->ns);
		blen = snprintf(body, sizeof(body),
				"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
				"\"namespace\":\"%s\"},\"spec\":{\"containers\":[{\"name\":\"pause\","
				"\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":"
				"{\"cpu\":\"100m\",\"memory\":\"500Mi\"}}}]}}",
				name, b->ns);
		break;
	case BULK_DELETE_NODE:
	case BULK_DELETE_POD:
		method = "DELETE";
		if (b->op == BULK_DELETE_NODE)
			snprintf(path, sizeof(path), "/api/v1/nodes/%s", name);
		else
			snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s", b->ns, name);
		blen = snprintf(body, sizeof(body),
				"{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"gracePeriodSeconds\":0}");
		break;
	case BULK_LABEL_NODE:
	case BULK_LABEL_POD:
		method = "PATCH";
		ctype = "application/merge-patch+json";
		if (b->op == BULK_LABEL_NODE)
			snprintf(path, sizeof(path), "/api/v1/nodes/%s", name);
		else
			snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s", b->ns, name);
		blen = snprintf(body, sizeof(body), "{\"metadata\":{\"labels\":{\"csched-test\":\"%s\"}}}", b->value);
		break;
	}
	struct api_response r = {0};
	int rc = api_request(conn, method, path, ctype, body, (size_t)blen, &r, e);
	api_response_release(&r);
	if (rc == ERR_NOT_FOUND && (b->op == BULK_DELETE_NODE || b->op == BULK_DELETE_POD))
		rc = 0;
	if (rc)
		err_prefix(e, "harness: %s %s", method, path);
	return rc;
}

static void *bulk_worker(void *arg)
{
	struct bulk *b = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new(b->cl, &e);
	int rc = conn ? 0 : (e.code ? e.code : ERR_NOMEM);
	while (!rc && !atomic_load(&b->failed)) {
		int i = atomic_fetch_add(&b->next, 1);
		if (i >= b->n)
			break;
		/* A transient refusal (429 when the server sheds load) is retried. */
		for (int attempt = 0;; attempt++) {
			rc = bulk_one(b, conn, b->first + i, &e);
			/* A retried create whose first attempt did reach the server. */
			if (rc == ERR_CONFLICT && attempt > 0 && (b->op == BULK_CREATE_NODE || b->op == BULK_CREATE_POD))
				rc = 0;
			if (!rc || attempt >= 5 || (e.http_status != 429 && rc != ERR_TRANSPORT))
				break;
			sleep_ms(100L << attempt);
		}
	}
	if (rc) {
		atomic_store(&b->failed, true);
		pthread_mutex_lock(&b->lock);
		if (!b->err.code)
			b->err = e;
		pthread_mutex_unlock(&b->lock);
	}
	api_conn_free(conn);
	return NULL;
}

static int bulk_run(struct api_client *cl, enum bulk_op op, const char *ns, const char *prefix, int first, int n,
		    const char *value, struct err *e)
{
	struct bulk b = {.cl = cl, .op = op, .ns = ns, .prefix = prefix, .value = value, .first = first, .n = n};
	pthread_t th[HARNESS_WORKERS];
	int started = 0;
	atomic_init(&b.next, 0);
	atomic_init(&b.failed, false);
	pthread_mutex_init(&b.lock, NULL);
	for (int i = 0; i < HARNESS_WORKERS; i++) {
		if (pthread_create(&th[i], NULL, bulk_worker, &b) != 0)
			break;
		started++;
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&b.lock);
	if (!started)
		return err_set(e, ERR_NOMEM, "harness: cannot start worker threads");
	if (b.err.code) {
		if (e)
			*e = b.err;
		return b.err.code;
	}
	return 0;
}

int harness_create_nodes(struct api_client *cl, const char *prefix, int first, int n, struct err *e)
{
	return bulk_run(cl, BULK_CREATE_NODE, NULL, prefix, first, n, NULL, e);
}

int harness_create_pods(struct api_client *cl, const char *ns, const char *prefix, int first, int n, struct err *e)
{
	return bulk_run(cl, BULK_CREATE_POD, ns, prefix, first, n, NULL, e);
}

int harness_delete_nodes(struct api_client *cl, const char *prefix, int first, int n, struct err *e)
{
	return bulk_run(cl, BULK_DELETE_NODE, NULL, prefix, first, n, NULL, e);
}

int harness_delete_pods(struct api_client *cl, const char *ns, const char *prefix, int first, int n, struct err *e)
{
	return bulk_run(cl, BULK_DELETE_POD, ns, prefix, first, n, NULL, e);
}

int harness_label_nodes(struct api_client *cl, const char *prefix, int first, int n, const char *value,
			struct err *e)
{
	return bulk_run(cl, BULK_LABEL_NODE, NULL, prefix, first, n, value, e);
}

int harness_label_pods(struct api_client *cl, const char *ns, const char *prefix, int first, int n,
		       const char *value, struct err *e)
{
	return bulk_run(cl, BULK_LABEL_POD, ns, prefix, first, n, value, e);
}

/* ---------- reading ---------- */

int harness_list(struct api_conn *conn, const char *path, int (*fn)(void *ctx, struct yajl_val_s *item), void *ctx,
		 char *resource_version, struct err *e)
{
	char *cont = NULL, *url = NULL;
	int rc = 0;
	static const char *items_path[] = {"items", NULL};
	static const char *cont_path[] = {"metadata", "continue", NULL};
	static const char *rv_path[] = {"metadata", "resourceVersion", NULL};
	do {
		struct api_response r = {0};
		char *esc = cont ? curl_easy_escape(NULL, cont, 0) : NULL;
		free(url);
		url = NULL;
		if (asprintf(&url, "%s%climit=500%s%s", path, strchr(path, '?') ? '&' : '?', esc ? "&continue=" : "",
			     esc ? esc : "") < 0)
			url = NULL;
		curl_free(esc);
		free(cont);
		cont = NULL;
		if (!url) {
			rc = err_set(e, ERR_NOMEM, "harness: list %s", path);
			break;
		}
		rc = api_request(conn, "GET", url, NULL, NULL, 0, &r, e);
		if (rc) {
			err_prefix(e, "harness: GET %s", url);
			api_response_release(&r);
			break;
		}
		char ebuf[256];
		yajl_val root = yajl_tree_parse(r.body, ebuf, sizeof(ebuf));
		api_response_release(&r);
		if (!root) {
			rc = err_set(e, ERR_INVALID, "harness: GET %s: %s", url, ebuf);
			break;
		}
		yajl_val items = yajl_tree_get(root, items_path, yajl_t_array);
		for (size_t i = 0; items && i < items->u.array.len && !rc; i++)
			rc = fn ? fn(ctx, items->u.array.values[i]) : 0;
		yajl_val c = yajl_tree_get(root, cont_path, yajl_t_string);
		const char *cs = c ? YAJL_GET_STRING(c) : NULL;
		if (cs && *cs && !(cont = strdup(cs)))
			rc = err_set(e, ERR_NOMEM, "harness: list %s", path);
		yajl_val rv = yajl_tree_get(root, rv_path, yajl_t_string);
		if (rv && resource_version)
			snprintf(resource_version, 32, "%s", YAJL_GET_STRING(rv));
		yajl_tree_free(root);
	} while (!rc && cont);
	free(cont);
	free(url);
	return rc;
}

static int count_one(void *ctx, struct yajl_val_s *item)
{
	(void)item;
	(*(long *)ctx)++;
	return 0;
}

int harness_count(struct api_conn *conn, const char *path, long *count, struct err *e)
{
	*count = 0;
	return harness_list(conn, path, count_one, count, NULL, e);
}

/* ---------- etcd ---------- */

struct membuf {
	char *p;
	size_t len;
};

static size_t membuf_write(char *data, size_t size, size_t nmemb, void *ud)
{
	struct membuf *m = ud;
	size_t n = size * nmemb;
	char *np = realloc(m->p, m->len + n + 1);
	if (!np)
		return 0;
	memcpy(np + m->len, data, n);
	m->p = np;
	m->len += n;
	m->p[m->len] = '\0';
	return n;
}

static int etcd_post(const struct harness_cluster *c, const char *api, const char *body, yajl_val *out, struct err *e)
{
	char url[160], ebuf[256];
	struct membuf m = {0};
	long status = 0;
	int rc = 0;
	CURL *h = curl_easy_init();
	if (!h)
		return err_set(e, ERR_NOMEM, "harness: curl_easy_init");
	snprintf(url, sizeof(url), "%s%s", c->etcd_url, api);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, membuf_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &m);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
	CURLcode cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		rc = err_set(e, ERR_TRANSPORT, "harness: POST %s: %s", url, curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		rc = err_set(e, ERR_HTTP, "harness: POST %s: HTTP %ld: %s", url, status, m.p ? m.p : "");
		goto out;
	}
	*out = yajl_tree_parse(m.p ? m.p : "", ebuf, sizeof(ebuf));
	if (!*out)
		rc = err_set(e, ERR_INVALID, "harness: POST %s: %s", url, ebuf);
out:
	free(m.p);
	curl_easy_cleanup(h);
	return rc;
}

int harness_etcd_revision(const struct harness_cluster *c, int64_t *rev, struct err *e)
{
	static const char *rev_path[] = {"header", "revision", NULL};
	yajl_val root = NULL;
	/* key "\0" (base64 "AA=="), count only: the header carries the store's revision. */
	int rc = etcd_post(c, "/v3/kv/range", "{\"key\":\"AA==\",\"count_only\":true}", &root, e);
	if (rc)
		return rc;
	yajl_val v = yajl_tree_get(root, rev_path, yajl_t_string); /* int64 as a JSON string */
	if (!v || sscanf(YAJL_GET_STRING(v), "%" SCNd64, rev) != 1)
		rc = err_set(e, ERR_INVALID, "harness: etcd range: no header.revision");
	yajl_tree_free(root);
	return rc;
}

int harness_etcd_compact(const struct harness_cluster *c, int64_t rev, struct err *e)
{
	char body[96];
	yajl_val root = NULL;
	snprintf(body, sizeof(body), "{\"revision\":\"%" PRId64 "\",\"physical\":true}", rev);
	int rc = etcd_post(c, "/v3/kv/compaction", body, &root, e);
	yajl_tree_free(root);
	return rc;
}

/* ---------- processes, HTTP and credentials ---------- */

int harness_free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int port = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

pid_t harness_spawn(char *const argv[], const char *log_path, const char *hostname, struct err *e)
{
	/* The child reports a failure before exec (errno and which step) through a close-on-exec
	 * pipe: EOF means exec succeeded. Only async-signal-safe calls run in the child, since the
	 * test may have other threads. */
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return err_set(e, ERR_IO, "harness: pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int en = errno;
		close(pfd[0]);
		close(pfd[1]);
		return err_set(e, ERR_IO, "harness: fork: %s", strerror(en));
	}
	if (pid == 0) {
		int report[2] = {0, 0}; /* step, errno */
		int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		/* the test's own connections are not the child's (best effort: Linux >= 5.11) */
		(void)close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			report[0] = 1;
		else if (hostname && unshare(CLONE_NEWUTS) != 0)
			report[0] = 2;
		else if (hostname && sethostname(hostname, strlen(hostname)) != 0)
			report[0] = 3;
		else {
			execv(argv[0], argv);
			report[0] = 4;
		}
		report[1] = errno;
		ssize_t w = write(pfd[1], report, sizeof(report));
		(void)w;
		_exit(127);
	}
	close(pfd[1]);
	int report[2] = {0, 0};
	ssize_t n;
	while ((n = read(pfd[0], report, sizeof(report))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (n <= 0)
		return pid;
	waitpid(pid, NULL, 0);
	static const char *const step[] = {"", "open the log", "unshare(CLONE_NEWUTS)", "sethostname", "exec"};
	int k = report[0] >= 1 && report[0] <= 4 ? report[0] : 0;
	return err_set(e, ERR_IO, "harness: spawn %s: %s: %s", argv[0], step[k], strerror(report[1]));
}

int harness_wait_child(pid_t pid, long timeout_ms, int *status, struct err *e)
{
	int64_t deadline = harness_now_ms() + timeout_ms;
	int st = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return err_set(e, ERR_IO, "harness: waitpid %d: %s", (int)pid, strerror(errno));
		if (harness_now_ms() >= deadline)
			return err_set(e, ERR_TIMEOUT, "harness: pid %d still running after %ld ms", (int)pid, timeout_ms);
		sleep_ms(10);
	}
	if (status)
		*status = st;
	return 0;
}

int harness_http_get(const char *url, long *status, char **body, struct err *e)
{
	return harness_http_get_auth(url, NULL, status, body, e);
}

int harness_http_get_auth(const char *url, const char *token, long *status, char **body, struct err *e)
{
	struct membuf m = {0};
	int rc = 0;
	struct curl_slist *hdrs = NULL;
	CURL *h = curl_easy_init();
	if (!h)
		return err_set(e, ERR_NOMEM, "harness: curl_easy_init");
	curl_easy_setopt(h, CURLOPT_URL, url);
	/* csched's health server: a self-signed certificate (its names are checked by unit tests) */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	if (token) {
		char hdr[4096];
		snprintf(hdr, sizeof hdr, "Authorization: Bearer %s", token);
		hdrs = curl_slist_append(NULL, hdr);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	}
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, membuf_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &m);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 5L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	CURLcode cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		rc = err_set(e, ERR_TRANSPORT, "harness: GET %s: %s", url, curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	if (body) {
		*body = m.p ? m.p : calloc(1, 1);
		m.p = NULL;
		if (!*body)
			rc = err_set(e, ERR_NOMEM, "harness: GET %s", url);
	}
out:
	free(m.p);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	return rc;
}

int harness_sa_kubeconfig(const struct harness_cluster *c, const char *ns, const char *name, long expiration_s,
			  const char *path, struct err *e)
{
	static const char *tok_path[] = {"status", "token", NULL};
	char url[512], body[256], ebuf[256];
	struct api_response r = {0};
	struct api_conn *conn = NULL;
	yajl_val root = NULL;
	FILE *f = NULL;
	int rc;
	struct api_client *cl = harness_client_new(c, NULL, e);
	if (!cl)
		return e && e->code ? e->code : ERR_INVALID;
	if (!(conn = api_conn_new(cl, e))) {
		rc = e && e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	snprintf(url, sizeof(url), "/api/v1/namespaces/%s/serviceaccounts/%s/token", ns, name);
	int blen = snprintf(body, sizeof(body),
			    "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\","
			    "\"spec\":{\"expirationSeconds\":%ld}}",
			    expiration_s);
	if ((rc = api_request(conn, "POST", url, NULL, body, (size_t)blen, &r, e))) {
		err_prefix(e, "harness: POST %s", url);
		goto out;
	}
	root = yajl_tree_parse(r.body, ebuf, sizeof(ebuf));
	yajl_val tok = root ? yajl_tree_get(root, tok_path, yajl_t_string) : NULL;
	if (!tok) {
		rc = err_set(e, ERR_INVALID, "harness: POST %s: no status.token in the answer", url);
		goto out;
	}
	/* The token is a credential: the file is private to the user. */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = err_set(e, ERR_IO, "harness: %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	fprintf(f,
		"apiVersion: v1\nkind: Config\n"
		"clusters:\n- name: harness\n  cluster:\n    server: \"%s\"\n    certificate-authority: \"%s\"\n"
		"users:\n- name: %s\n  user:\n    token: \"%s\"\n"
		"contexts:\n- name: %s\n  context:\n    cluster: harness\n    user: %s\n    namespace: %s\n"
		"current-context: %s\n",
		c->apiserver_url, c->ca_file, name, YAJL_GET_STRING(tok), name, name, ns, name);
	if (fclose(f) != 0)
		rc = err_set(e, ERR_IO, "harness: %s: %s", path, strerror(errno));
out:
	yajl_tree_free(root);
	api_response_release(&r);
	api_conn_free(conn);
	api_client_free(cl);
	return rc;
}
