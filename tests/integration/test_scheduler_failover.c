/* Failover of a leader-elected pair of real csched processes (CSCHED_BUILD_DIR/csched) against
 * tests/cluster, authenticated as the ServiceAccount of manifests/ (RBAC applied with kubectl, token
 * from the TokenRequest API), with the default leader-election timings (leaseDuration 15 s,
 * renewDeadline 10 s, retryPeriod 2 s) on the Lease kube-system/csched.
 *
 * Each replica runs in its own UTS namespace with its own hostname, as each pod of the Deployment
 * has: its holder identity is "HOSTNAME_UUID" and its events' reportingInstance "csched-HOSTNAME",
 * so the test can tell which replica bound which pod.
 *
 * A thread creates STREAM_RATE pods per second for the whole run; two watches record when each
 * pod is seen bound and every Lease record. The cases run in order on the same replicas:
 *  1. exactly one leader: the Lease holder is one of the two identities, the standby is ready
 *     (caches synced) with leader_election_master_status 0 and schedules nothing, the leader 1;
 *  2. kill -9 of the leader under the stream: the standby acquires the Lease and binds within
 *     leaseDuration + retryPeriod + KILL_MARGIN_S of the kill;
 *  3. the killed replica restarted as a standby, SIGTERM of the leader: it exits 0, the Lease is
 *     released (holderIdentity emptied) and the restarted replica binds within TERM_MAX_S;
 * then, over the whole stream: every pod is bound, by exactly one bind (at most one "Successfully
 * bound" log line and one Scheduled event per pod, no FailedScheduling, no bind error logged; the
 * kill -9 may cut off the line or event of at most 2 binds, which must then date from the kill),
 * and both hostnames appear among the Scheduled events' reportingInstance.
 * Failover and Lease transition times are printed ("[ MEASURE  ]" lines).
 *
 * THREADS: the stream thread writes created_us/n_created/stream_err (read by the main thread after
 * joining it, n_created atomically before); the two watch threads write the arrays under
 * watch_lock. The main thread alone runs the replicas and the checks. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include <cmocka.h>

#include "../unit/prom_text_check.h"
#include "apiclient/api_client.h"
#include "harness.h"
#include "scheduler/leader.h"
#include "testutil.h"

#define NS "failover"
#define LEASE_NS "kube-system"
#define LEASE_NAME "csched"
#define N_NODES 20
#define STREAM_RATE 10 /* pods per second */
#define MAX_PODS 4000
#define MAX_LEASE_RECORDS 1024

static const double LEASE_S = SCHED_LEADER_DEFAULT_LEASE_DURATION_MS / 1000.0;
static const double RETRY_S = SCHED_LEADER_DEFAULT_RETRY_PERIOD_MS / 1000.0;
/* kill -9 -> first pod bound by the standby: at most leaseDuration + retryPeriod (the standby
 * counts the lease duration from when it observed the last renewal, at most one retry period
 * after it, and tries again the moment the lease expires) plus this margin for a loaded machine
 * (2 cores shared with other builds and tests). */
static const double KILL_MARGIN_S = 1.0;
static const double TERM_MAX_S = 5.0; /* SIGTERM -> first pod bound by the other replica */

/* ---------- Shared state ---------- */

struct replica {
	char host[32];  /* its hostname */
	char log[400];  /* stderr of the current process */
	char identity[320];
	int port;
	pid_t pid; /* 0 when not running */
};

static struct harness_cluster cluster;
static struct api_client *admin;
static struct api_conn *admin_conn; /* main thread only */
static char sa_kc[400];
static struct replica rep[3]; /* a, b, and a restarted */
static char all_logs[3][400];
static int n_logs;

/* Times are wall-clock microseconds (CLOCK_REALTIME), the clock csched writes into eventTime and
 * the Lease, so that they compare with what the test measures. */
static int64_t t_kill_us, t_term_us;

/* the stream: pod i is "s-%05d"; created_us[i] set once created */
static pthread_t stream_thread;
static atomic_bool stream_stop, stream_running;
static atomic_int n_created;
static int64_t created_us[MAX_PODS];
static struct err stream_err; /* set by the stream thread before it ends; read after join */

/* the watches */
struct lease_rec {
	int64_t seen_us; /* when the watch delivered it */
	char holder[320];
	int64_t acquire_us, renew_us;
	int transitions;
	int duration_s;
};
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER; /* guards the arrays below; leaf */
static struct lease_rec lease_recs[MAX_LEASE_RECORDS];
static int n_lease_recs;
static int64_t bound_us[MAX_PODS]; /* first time seen with a nodeName, 0 until then */

struct watch {
	const char *path;
	void (*on_object)(const char *type, yajl_val obj);
	pthread_t thread;
	atomic_bool stop;
	bool running;
	atomic_int errors;
};
static struct watch lease_watch, pod_watch;

static double secs(int64_t us)
{
	return (double)us / 1e6;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static const char *jstr(yajl_val v, const char *a, const char *b, const char *c)
{
	const char *path[] = {a, b, c, NULL};
	yajl_val s = yajl_tree_get(v, path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

static long jint(yajl_val v, const char *a, const char *b)
{
	const char *path[] = {a, b, NULL};
	yajl_val n = yajl_tree_get(v, path, yajl_t_number);
	return n && YAJL_IS_INTEGER(n) ? (long)YAJL_GET_INTEGER(n) : 0;
}

static int64_t jtime(yajl_val v, const char *a, const char *b)
{
	const char *s = jstr(v, a, b, NULL);
	int64_t us = 0;
	if (s && api_parse_time(s, &us) != 0)
		us = 0;
	return us;
}

static int pod_index(const char *name)
{
	int i = -1;
	char extra;
	if (!name || sscanf(name, "s-%d%c", &i, &extra) != 1 || i < 0 || i >= MAX_PODS)
		return -1;
	return i;
}

/* The last lines of every replica log, for failure messages. */
static void dump_logs(void)
{
	for (int i = 0; i < n_logs; i++) {
		char *out = NULL;
		harness_run(&out, "tail -n 25 '%s'", all_logs[i]);
		fprintf(stderr, "---- %s (tail) ----\n%s", all_logs[i], out ? out : "");
		free(out);
	}
}

#define FAIL(...)                     \
	do {                          \
		dump_logs();          \
		fail_msg(__VA_ARGS__); \
	} while (0)

/* ---------- Watches ---------- */

static int watch_line(void *ctx, char *line, size_t len)
{
	struct watch *w = ctx;
	(void)len;
	char ebuf[128];
	yajl_val root = yajl_tree_parse(line, ebuf, sizeof ebuf);
	if (!root) {
		atomic_fetch_add(&w->errors, 1);
		return 0;
	}
	const char *type = jstr(root, "type", NULL, NULL);
	const char *path[] = {"object", NULL};
	yajl_val obj = yajl_tree_get(root, path, yajl_t_object);
	if (type && obj)
		w->on_object(type, obj);
	yajl_tree_free(root);
	return 0;
}

static void *watch_main(void *arg)
{
	struct watch *w = arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new(admin, &e);
	if (!conn) {
		atomic_fetch_add(&w->errors, 1);
		return NULL;
	}
	/* A watch the server ends is started again: its initial ADDED events repeat the current
	 * state, which the handlers take as they come. */
	while (!atomic_load(&w->stop)) {
		int rc = api_stream(conn, w->path, watch_line, w, &w->stop, &e);
		if (rc != 0 && rc != ERR_STOPPED) {
			atomic_fetch_add(&w->errors, 1);
			sleep_ms(100);
		}
		err_clear(&e);
	}
	api_conn_free(conn);
	return NULL;
}

static void on_lease(const char *type, yajl_val obj)
{
	if (strcmp(type, "ADDED") != 0 && strcmp(type, "MODIFIED") != 0)
		return;
	struct lease_rec r = {.seen_us = api_wall_us()};
	const char *h = jstr(obj, "spec", "holderIdentity", NULL);
	snprintf(r.holder, sizeof r.holder, "%s", h ? h : "");
	r.acquire_us = jtime(obj, "spec", "acquireTime");
	r.renew_us = jtime(obj, "spec", "renewTime");
	r.transitions = (int)jint(obj, "spec", "leaseTransitions");
	r.duration_s = (int)jint(obj, "spec", "leaseDurationSeconds");
	pthread_mutex_lock(&watch_lock);
	if (n_lease_recs < MAX_LEASE_RECORDS)
		lease_recs[n_lease_recs++] = r;
	pthread_mutex_unlock(&watch_lock);
}

static void on_pod(const char *type, yajl_val obj)
{
	if (strcmp(type, "ADDED") != 0 && strcmp(type, "MODIFIED") != 0)
		return;
	int i = pod_index(jstr(obj, "metadata", "name", NULL));
	const char *node = jstr(obj, "spec", "nodeName", NULL);
	if (i < 0 || !node || !*node)
		return;
	int64_t now = api_wall_us();
	pthread_mutex_lock(&watch_lock);
	if (!bound_us[i])
		bound_us[i] = now;
	pthread_mutex_unlock(&watch_lock);
}

static void watch_start(struct watch *w, const char *path, void (*fn)(const char *, yajl_val))
{
	w->path = path;
	w->on_object = fn;
	atomic_init(&w->stop, false);
	atomic_init(&w->errors, 0);
	assert_int_equal(pthread_create(&w->thread, NULL, watch_main, w), 0);
	w->running = true;
}

static void watch_stop(struct watch *w)
{
	if (!w->running)
		return;
	atomic_store(&w->stop, true);
	pthread_join(w->thread, NULL);
	w->running = false;
}

/* The first Lease record held by `holder` ("" = released) seen at or after from_us; copies it to
 * *out. */
static bool lease_seen(const char *holder, int64_t from_us, struct lease_rec *out)
{
	bool found = false;
	pthread_mutex_lock(&watch_lock);
	for (int i = 0; i < n_lease_recs && !found; i++)
		if (lease_recs[i].seen_us >= from_us && strcmp(lease_recs[i].holder, holder) == 0) {
			*out = lease_recs[i];
			found = true;
		}
	pthread_mutex_unlock(&watch_lock);
	return found;
}

/* The last renewal by `holder` the watch delivered before until_us. */
static bool last_renewal(const char *holder, int64_t until_us, struct lease_rec *out)
{
	bool found = false;
	pthread_mutex_lock(&watch_lock);
	for (int i = 0; i < n_lease_recs; i++)
		if (lease_recs[i].seen_us < until_us && strcmp(lease_recs[i].holder, holder) == 0) {
			*out = lease_recs[i];
			found = true;
		}
	pthread_mutex_unlock(&watch_lock);
	return found;
}

/* Whether a record with another, non-empty holder than `holder` was seen in [from_us, to_us). */
static bool other_holder_seen(const char *holder, int64_t from_us, int64_t to_us)
{
	bool found = false;
	pthread_mutex_lock(&watch_lock);
	for (int i = 0; i < n_lease_recs; i++)
		if (lease_recs[i].seen_us >= from_us && lease_recs[i].seen_us < to_us && lease_recs[i].holder[0] &&
		    strcmp(lease_recs[i].holder, holder) != 0)
			found = true;
	pthread_mutex_unlock(&watch_lock);
	return found;
}

/* ---------- The pod stream ---------- */

static void *stream_main(void *arg)
{
	(void)arg;
	struct err e = {0};
	struct api_conn *conn = api_conn_new(admin, &e);
	if (!conn) {
		stream_err = e;
		return NULL;
	}
	int64_t start = api_now_ns();
	for (int i = 0; i < MAX_PODS && !atomic_load(&stream_stop); i++) {
		/* on a fixed schedule, so a slow request does not lower the rate */
		int64_t due = start + (int64_t)i * (1000000000LL / STREAM_RATE), now = api_now_ns();
		if (due > now)
			sleep_ms((long)((due - now) / 1000000));
		char body[768];
		int n = snprintf(body, sizeof body,
				 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"s-%05d\","
				 "\"namespace\":\"" NS "\",\"labels\":{\"app\":\"stream\"}},\"spec\":{"
				 "\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"pause\","
				 "\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":"
				 "{\"cpu\":\"10m\",\"memory\":\"16Mi\"}}}]}}",
				 i);
		int64_t t = api_wall_us();
		int rc = api_request(conn, "POST", "/api/v1/namespaces/" NS "/pods", NULL, body, (size_t)n, NULL, &e);
		if (rc != 0) {
			err_prefix(&e, "stream: create s-%05d", i);
			stream_err = e;
			break;
		}
		created_us[i] = t;
		atomic_store(&n_created, i + 1);
	}
	api_conn_free(conn);
	return NULL;
}

static void stream_start(void)
{
	atomic_init(&stream_stop, false);
	atomic_init(&n_created, 0);
	assert_int_equal(pthread_create(&stream_thread, NULL, stream_main, NULL), 0);
	atomic_store(&stream_running, true);
}

static void stream_end(void)
{
	if (!atomic_load(&stream_running))
		return;
	atomic_store(&stream_stop, true);
	pthread_join(stream_thread, NULL);
	atomic_store(&stream_running, false);
}

/* ---------- Replicas ---------- */

static void replica_start(struct replica *r, const char *host, int generation)
{
	memset(r, 0, sizeof *r);
	snprintf(r->host, sizeof r->host, "%s", host);
	snprintf(r->log, sizeof r->log, "%s/%s.%d.log", cluster.dir, host, generation);
	snprintf(all_logs[n_logs++], sizeof all_logs[0], "%s", r->log);
	r->port = harness_free_port();
	assert_true(r->port > 0);
	char kc[512], port[32];
	snprintf(kc, sizeof kc, "--kubeconfig=%s", sa_kc);
	snprintf(port, sizeof port, "--secure-port=%d", r->port);
	char *argv[] = {CSCHED_BUILD_DIR "/csched", kc, port, "--bind-address=127.0.0.1", "--leader-elect=true",
			"-v=2", NULL};
	struct err e = {0};
	r->pid = harness_spawn(argv, r->log, host, &e);
	if (r->pid <= 0)
		fail_msg("start %s: %s", host, e.msg);
}

/* Its identity, from the log line the elector writes when it starts. */
static void replica_identity(struct replica *r)
{
	const char *marker = "leader election: attempting to acquire lease " LEASE_NS "/" LEASE_NAME " as ";
	int64_t end = harness_now_ms() + 20000;
	while (!r->identity[0] && harness_now_ms() < end) {
		char *out = NULL;
		harness_run(&out, "cat '%s'", r->log);
		const char *p = out ? strstr(out, marker) : NULL;
		if (p) {
			p += strlen(marker);
			snprintf(r->identity, sizeof r->identity, "%.*s", (int)strcspn(p, " \n"), p);
		}
		free(out);
		if (!r->identity[0])
			sleep_ms(50);
	}
	if (!r->identity[0])
		FAIL("%s: no identity in %s", r->host, r->log);
	char want[64];
	snprintf(want, sizeof want, "%s_", r->host);
	assert_true(strncmp(r->identity, want, strlen(want)) == 0); /* hostname + "_" + UUID */
}

/* GET over HTTPS as the admin (its bearer token: the replica makes a real TokenReview). */
static long http_get(const struct replica *r, const char *path, char **body)
{
	static char token[256];
	if (!token[0]) {
		char *out = NULL;
		if (harness_kubectl(cluster.kubeconfig, NULL, &out,
				    "config view --raw -o jsonpath='{.users[?(@.name==\"admin-token\")].user.token}'") != 0 ||
		    !out[0])
			fail_msg("admin token: %s", out);
		snprintf(token, sizeof token, "%s", out);
		free(out);
	}
	char url[128];
	long status = 0;
	struct err e = {0};
	snprintf(url, sizeof url, "https://127.0.0.1:%d%s", r->port, path);
	if (harness_http_get_auth(url, token, &status, body, &e) != 0)
		return -1;
	return status;
}

/* Waits until /readyz answers 200 (informers synced). */
static void replica_wait_ready(const struct replica *r, long timeout_ms)
{
	int64_t end = harness_now_ms() + timeout_ms;
	while (harness_now_ms() < end) {
		if (http_get(r, "/readyz", NULL) == 200)
			return;
		sleep_ms(50);
	}
	FAIL("%s: /readyz not 200 within %ld ms", r->host, timeout_ms);
}

/* A sample of /metrics (-1 when the series is absent); the page must parse. */
static double metric(const struct replica *r, const char *name, const char *const *pairs, int npairs)
{
	char *body = NULL, why[256];
	long st = http_get(r, "/metrics", &body);
	if (st != 200)
		FAIL("%s: /metrics: status %ld", r->host, st);
	if (!prom_check_text(body, why, sizeof why, NULL))
		fail_msg("%s: /metrics does not parse: %s", r->host, why);
	double v = -1;
	if (!prom_find(body, name, pairs, npairs, &v))
		v = -1;
	free(body);
	return v;
}

static double master_status(const struct replica *r)
{
	const char *l[] = {"name=" LEASE_NAME};
	return metric(r, "leader_election_master_status", l, 1);
}

static double scheduled_total(const struct replica *r)
{
	const char *l[] = {"result=scheduled", "profile=csched"};
	double v = metric(r, "scheduler_schedule_attempts_total", l, 2);
	return v < 0 ? 0 : v;
}

static struct replica *holder_of(const char *identity)
{
	for (int i = 0; i < 3; i++)
		if (rep[i].pid > 0 && identity && !strcmp(rep[i].identity, identity))
			return &rep[i];
	return NULL;
}

static void current_lease(struct api_lease *l)
{
	struct err e = {0};
	memset(l, 0, sizeof *l);
	if (api_lease_get(admin_conn, LEASE_NS, LEASE_NAME, l, &e) != 0)
		fail_msg("get lease: %s", e.msg);
}

/* The earliest time a pod was seen bound after after_us (waits for one); 0 on timeout. */
static int64_t wait_bound_after(int64_t after_us, long timeout_ms)
{
	int64_t end = harness_now_ms() + timeout_ms;
	while (harness_now_ms() < end) {
		int64_t first = 0;
		pthread_mutex_lock(&watch_lock);
		for (int i = 0; i < MAX_PODS; i++)
			if (bound_us[i] > after_us && (!first || bound_us[i] < first))
				first = bound_us[i];
		pthread_mutex_unlock(&watch_lock);
		if (first)
			return first;
		sleep_ms(20);
	}
	return 0;
}

/* Waits until every pod created so far is seen bound. */
static void wait_all_bound(long timeout_ms)
{
	int want = atomic_load(&n_created);
	int64_t end = harness_now_ms() + timeout_ms;
	int missing = 0;
	while (harness_now_ms() < end) {
		missing = 0;
		pthread_mutex_lock(&watch_lock);
		for (int i = 0; i < want; i++)
			missing += bound_us[i] == 0;
		pthread_mutex_unlock(&watch_lock);
		if (!missing)
			return;
		sleep_ms(50);
	}
	FAIL("%d of the first %d pods not bound within %ld ms", missing, want, timeout_ms);
}

/* ---------- Events ---------- */

struct ev_scan {
	int scheduled[MAX_PODS];
	int64_t first_sched_us[MAX_PODS];
	char instance[MAX_PODS][64]; /* reportingInstance of the (first) Scheduled event */
	int n_scheduled, n_failed, n_other;
	char failed_note[512];
};

static int scan_event(void *ctx, yajl_val item)
{
	struct ev_scan *s = ctx;
	const char *reason = jstr(item, "reason", NULL, NULL);
	const char *ctrl = jstr(item, "reportingController", NULL, NULL);
	int i = pod_index(jstr(item, "regarding", "name", NULL));
	if (!reason || i < 0 || !ctrl || strcmp(ctrl, "csched") != 0) {
		s->n_other++;
		return 0;
	}
	if (!strcmp(reason, "FailedScheduling")) {
		s->n_failed++;
		const char *note = jstr(item, "note", NULL, NULL);
		snprintf(s->failed_note, sizeof s->failed_note, "s-%05d: %s", i, note ? note : "");
		return 0;
	}
	if (strcmp(reason, "Scheduled") != 0) {
		s->n_other++;
		return 0;
	}
	/* a series would count more than one occurrence of the same event */
	const char *sp[] = {"series", NULL};
	int count = yajl_tree_get(item, sp, yajl_t_object) ? (int)jint(item, "series", "count") : 1;
	s->scheduled[i] += count > 1 ? count : 1;
	s->n_scheduled++;
	int64_t t = jtime(item, "eventTime", NULL);
	if (!s->first_sched_us[i] || t < s->first_sched_us[i]) {
		s->first_sched_us[i] = t;
		const char *inst = jstr(item, "reportingInstance", NULL, NULL);
		snprintf(s->instance[i], sizeof s->instance[i], "%s", inst ? inst : "");
	}
	return 0;
}

static struct ev_scan *scan_events(void)
{
	struct ev_scan *s = calloc(1, sizeof *s);
	assert_non_null(s);
	struct err e = {0};
	if (harness_list(admin_conn, "/apis/events.k8s.io/v1/namespaces/" NS "/events", scan_event, s, NULL, &e) != 0)
		fail_msg("list events: %s", e.msg);
	return s;
}

/* The first Scheduled event (eventTime) by replica host after from_us; 0 when none. */
static int64_t first_scheduled_by(const struct ev_scan *s, const char *host, int64_t from_us)
{
	char inst[64];
	int64_t first = 0;
	snprintf(inst, sizeof inst, "csched-%s", host);
	for (int i = 0; i < MAX_PODS; i++)
		if (s->first_sched_us[i] > from_us && !strcmp(s->instance[i], inst) &&
		    (!first || s->first_sched_us[i] < first))
			first = s->first_sched_us[i];
	return first;
}

/* Polls the events until one by `host` after from_us exists; returns its eventTime. */
static int64_t wait_scheduled_by(const char *host, int64_t from_us, long timeout_ms)
{
	int64_t end = harness_now_ms() + timeout_ms, t = 0;
	while (!t && harness_now_ms() < end) {
		struct ev_scan *s = scan_events();
		t = first_scheduled_by(s, host, from_us);
		free(s);
		if (!t)
			sleep_ms(200);
	}
	return t;
}

/* ---------- Setup ---------- */

static int setup(void **state)
{
	(void)state;
	struct err e = {0};
	if (harness_cluster_start(&cluster, 0, &e) != 0)
		fail_msg("cluster: %s", e.msg);
	admin = harness_client_new(&cluster, NULL, &e);
	assert_non_null(admin);
	admin_conn = api_conn_new(admin, &e);
	assert_non_null(admin_conn);

	char *out = NULL;
	int rc = harness_kubectl(cluster.kubeconfig, NULL, &out,
				 "apply -f '%1$s/manifests/serviceaccount.yaml' -f '%1$s/manifests/rbac.yaml'",
				 CSCHED_SOURCE_DIR);
	if (rc != 0)
		fail_msg("apply serviceaccount and rbac: %s", out);
	free(out);
	snprintf(sa_kc, sizeof sa_kc, "%s/sa.kubeconfig", cluster.dir);
	if (harness_sa_kubeconfig(&cluster, "kube-system", "csched", 3600, sa_kc, &e) != 0)
		fail_msg("service account kubeconfig: %s", e.msg);

	static const char nsb[] = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" NS "\"}}";
	if (api_request(admin_conn, "POST", "/api/v1/namespaces", NULL, nsb, strlen(nsb), NULL, &e) != 0)
		fail_msg("create namespace: %s", e.msg);
	if (harness_create_nodes(admin, "node-", 0, N_NODES, &e) != 0)
		fail_msg("nodes: %s", e.msg);

	watch_start(&lease_watch,
		    "/apis/coordination.k8s.io/v1/namespaces/" LEASE_NS "/leases?watch=1&fieldSelector=metadata.name%3D" LEASE_NAME,
		    on_lease);
	watch_start(&pod_watch, "/api/v1/namespaces/" NS "/pods?watch=1", on_pod);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	stream_end();
	for (int i = 0; i < 3; i++)
		if (rep[i].pid > 0) {
			kill(rep[i].pid, SIGKILL);
			harness_wait_child(rep[i].pid, 10000, NULL, NULL);
			rep[i].pid = 0;
		}
	watch_stop(&lease_watch);
	watch_stop(&pod_watch);
	api_conn_free(admin_conn);
	api_client_free(admin);
	harness_cluster_stop(&cluster);
	return 0;
}

/* ---------- 1. exactly one leader ---------- */

static struct replica *leader, *standby;

static void test_exactly_one_leader(void **state)
{
	(void)state;
	int64_t t0 = harness_now_ms();
	replica_start(&rep[0], "replica-a", 1);
	replica_start(&rep[1], "replica-b", 1);
	replica_identity(&rep[0]);
	replica_identity(&rep[1]);
	assert_string_not_equal(rep[0].identity, rep[1].identity);
	replica_wait_ready(&rep[0], 30000);
	replica_wait_ready(&rep[1], 30000);

	/* the Lease is created by one of them at its first attempt */
	struct api_lease l;
	int64_t end = harness_now_ms() + (int64_t)(2 * RETRY_S + 5) * 1000;
	for (;;) {
		current_lease(&l);
		leader = holder_of(l.holder_identity);
		api_lease_release(&l);
		if (leader || harness_now_ms() > end)
			break;
		sleep_ms(50);
	}
	if (!leader)
		FAIL("no replica holds the lease");
	standby = leader == &rep[0] ? &rep[1] : &rep[0];
	printf("[ MEASURE  ] both replicas ready and %s leading %.2f s after start\n", leader->host,
	       (harness_now_ms() - t0) / 1000.0);

	stream_start();
	/* exactly one for a few retry periods: the holder does not change, the gauges agree */
	int64_t from = api_wall_us();
	sleep_ms((long)(2 * RETRY_S * 1000) + 500);
	current_lease(&l);
	assert_string_equal(l.holder_identity, leader->identity);
	assert_int_equal(l.lease_duration_seconds, (int)LEASE_S);
	assert_int_equal(l.lease_transitions, 0);
	api_lease_release(&l);
	assert_false(other_holder_seen(leader->identity, from, api_wall_us()));
	assert_true(master_status(leader) == 1);
	assert_true(master_status(standby) == 0);
	/* the standby is ready (caches synced) and healthy, and binds nothing */
	assert_int_equal(http_get(standby, "/readyz", NULL), 200);
	assert_int_equal(http_get(standby, "/healthz", NULL), 200);
	assert_int_equal(http_get(standby, "/livez", NULL), 200);
	assert_int_equal(http_get(leader, "/livez", NULL), 200);
	if (!wait_bound_after(0, 10000))
		FAIL("the leader bound no pod of the stream");
	end = harness_now_ms() + 5000;
	while (scheduled_total(leader) < 1 && harness_now_ms() < end)
		sleep_ms(50);
	assert_true(scheduled_total(leader) >= 1);
	assert_true(scheduled_total(standby) == 0);
}

/* ---------- 2. kill -9 of the leader under the stream ---------- */

static void test_kill9_standby_takes_over(void **state)
{
	(void)state;
	assert_non_null(leader);
	assert_true(atomic_load(&n_created) >= 20);
	struct replica *old = leader, *next = standby;
	int transitions_before;
	struct api_lease l;
	current_lease(&l);
	transitions_before = l.lease_transitions;
	api_lease_release(&l);

	t_kill_us = api_wall_us();
	assert_int_equal(kill(old->pid, SIGKILL), 0);
	int st = 0;
	struct err e = {0};
	assert_int_equal(harness_wait_child(old->pid, 5000, &st, &e), 0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	old->pid = 0;

	/* the standby acquires the lease, then binds */
	struct lease_rec acq = {0};
	int64_t end = harness_now_ms() + (int64_t)((LEASE_S + 2 * RETRY_S + 10) * 1000);
	while (!lease_seen(next->identity, t_kill_us, &acq) && harness_now_ms() < end)
		sleep_ms(20);
	if (!lease_seen(next->identity, t_kill_us, &acq))
		FAIL("%s did not acquire the lease", next->host);
	int64_t first_bind = wait_scheduled_by(next->host, t_kill_us, 15000);
	if (!first_bind)
		FAIL("%s bound nothing after acquiring the lease", next->host);
	/* the killed leader's last renewal (one in flight at the kill is seen after it) */
	struct lease_rec last = {0};
	assert_true(last_renewal(old->identity, acq.seen_us, &last));

	double acquired = secs(acq.acquire_us - t_kill_us), bound = secs(first_bind - t_kill_us);
	printf("[ MEASURE  ] kill -9 of %s: its last renewal %.2f s before the kill; %s acquired the lease "
	       "(acquireTime) %.2f s after the kill (%.2f s after that renewal) and bound its first pod %.2f s "
	       "after the kill (%.2f s after acquiring; bound: leaseDuration %.0f + retryPeriod %.0f + margin %.1f s "
	       "= %.1f s)\n",
	       old->host, secs(t_kill_us - last.renew_us), next->host, acquired, secs(acq.acquire_us - last.renew_us),
	       bound, secs(first_bind - acq.acquire_us), LEASE_S, RETRY_S, KILL_MARGIN_S,
	       LEASE_S + RETRY_S + KILL_MARGIN_S);
	printf("[ MEASURE  ] lease transition: holder %s -> %s seen by the watch %.2f s after the kill; "
	       "leaseTransitions %d -> %d\n",
	       old->host, next->host, secs(acq.seen_us - t_kill_us), transitions_before, acq.transitions);
	/* never before the lease expired (two leaders): the standby counts leaseDuration from when it
	 * saw the last renewal, which was written after the renewTime it carries (same clock here) */
	assert_true(acq.acquire_us - last.renew_us >= (int64_t)(LEASE_S * 1e6));
	assert_true(bound <= LEASE_S + RETRY_S + KILL_MARGIN_S);
	assert_true(bound >= acquired);
	assert_int_equal(acq.transitions, transitions_before + 1);
	assert_true(master_status(next) == 1);

	/* the backlog of the leaderless window is bound */
	wait_all_bound(20000);
	int64_t drained = api_wall_us();
	printf("[ MEASURE  ] backlog after kill -9: all %d pods created so far bound %.2f s after the kill\n",
	       atomic_load(&n_created), secs(drained - t_kill_us));
	leader = next;
	standby = old;
}

/* ---------- 3. SIGTERM of the leader, the killed replica restarted as standby ---------- */

static void test_sigterm_hands_over(void **state)
{
	(void)state;
	assert_non_null(leader);
	assert_non_null(standby);
	/* the replica killed in case 2 comes back (its pod restarted: same hostname, new identity) */
	struct replica *old = leader, *next = &rep[2];
	char host[32];
	snprintf(host, sizeof host, "%s", standby->host);
	replica_start(next, host, 2);
	replica_identity(next);
	replica_wait_ready(next, 30000);
	sleep_ms((long)(RETRY_S * 1000) + 200); /* it has tried once and found the lease held */
	assert_true(master_status(next) == 0);
	assert_true(scheduled_total(next) == 0);
	struct api_lease l;
	current_lease(&l);
	assert_string_equal(l.holder_identity, old->identity);
	int transitions_before = l.lease_transitions;
	api_lease_release(&l);

	t_term_us = api_wall_us();
	int64_t t0 = harness_now_ms();
	assert_int_equal(kill(old->pid, SIGTERM), 0);
	int st = 0;
	struct err e = {0};
	if (harness_wait_child(old->pid, 15000, &st, &e) != 0)
		FAIL("%s: %s", old->host, e.msg);
	double exited = (harness_now_ms() - t0) / 1000.0;
	old->pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		FAIL("%s did not exit 0 after SIGTERM (status 0x%x)", old->host, st);
	char *out = NULL;
	harness_run(&out, "grep -c 'leader election: released lease " LEASE_NS "/" LEASE_NAME "' '%s'", old->log);
	assert_true(out && atoi(out) == 1);
	free(out);

	int64_t first_bind = wait_scheduled_by(next->host, t_term_us, 15000);
	if (!first_bind)
		FAIL("%s bound nothing after the SIGTERM of %s", next->host, old->host);
	struct lease_rec rel = {0}, acq = {0};
	assert_true(lease_seen("", t_term_us, &rel)); /* released: holderIdentity emptied */
	assert_int_equal(rel.duration_s, 1);
	assert_true(lease_seen(next->identity, t_term_us, &acq));
	assert_true(acq.seen_us >= rel.seen_us);
	double bound = secs(first_bind - t_term_us);
	printf("[ MEASURE  ] SIGTERM of %s: exited 0 after %.2f s; lease released (renewTime) %.2f s, acquired by "
	       "%s (acquireTime) %.2f s, first pod bound by it %.2f s after the SIGTERM (bound %.1f s)\n",
	       old->host, exited, secs(rel.renew_us - t_term_us), next->host, secs(acq.acquire_us - t_term_us), bound,
	       TERM_MAX_S);
	printf("[ MEASURE  ] lease transitions: holder %s -> \"\" seen %.2f s, \"\" -> %s seen %.2f s after the "
	       "SIGTERM; leaseTransitions %d -> %d\n",
	       old->host, secs(rel.seen_us - t_term_us), next->host, secs(acq.seen_us - t_term_us), transitions_before,
	       acq.transitions);
	assert_true(bound < TERM_MAX_S);
	assert_int_equal(acq.transitions, transitions_before + 1);
	assert_true(master_status(next) == 1);
	leader = next;
	standby = NULL;

	/* the stream runs a little longer under the new leader, then everything is bound */
	sleep_ms(2000);
	stream_end();
	if (stream_err.code)
		fail_msg("%s", stream_err.msg);
	wait_all_bound(20000);
}

/* ---------- Over the whole stream: bound once, none lost ---------- */

/* How many "Successfully bound" lines name pod i, over every replica log. */
static void count_bind_lines(int *per_pod, int n)
{
	for (int k = 0; k < n_logs; k++) {
		FILE *f = fopen(all_logs[k], "r");
		assert_non_null(f);
		char line[2048];
		while (fgets(line, sizeof line, f)) {
			const char *p = strstr(line, "Successfully bound pod to node pod=\"" NS "/s-");
			if (!p)
				continue;
			int i = -1;
			if (sscanf(p + strlen("Successfully bound pod to node pod=\"" NS "/s-"), "%d", &i) == 1 && i >= 0 &&
			    i < n)
				per_pod[i]++;
		}
		fclose(f);
	}
}

static void test_every_pod_bound_exactly_once(void **state)
{
	(void)state;
	int n = atomic_load(&n_created);
	assert_true(n >= 20 * STREAM_RATE); /* the stream ran through both failovers */
	assert_true(t_kill_us && t_term_us);

	/* the API's view: every pod exists and is bound */
	long count = 0;
	struct err e = {0};
	assert_int_equal(harness_count(admin_conn, "/api/v1/namespaces/" NS "/pods", &count, &e), 0);
	assert_int_equal(count, n);
	long unbound = -1;
	const char *unbound_path = "/api/v1/namespaces/" NS "/pods?fieldSelector=spec.nodeName%3D";
	assert_int_equal(harness_count(admin_conn, unbound_path, &unbound, &e), 0);
	assert_int_equal(unbound, 0);

	/* events: wait until the senders have delivered (SIGTERM drains; kill -9 may lose the events
	 * of the last binds before it) */
	struct ev_scan *s = NULL;
	int prev = -1;
	int64_t end = harness_now_ms() + 20000;
	for (;;) {
		free(s);
		s = scan_events();
		if ((s->n_scheduled >= n - 2 && s->n_scheduled == prev) || harness_now_ms() > end)
			break;
		prev = s->n_scheduled;
		sleep_ms(1000);
	}
	watch_stop(&pod_watch); /* every pod is bound: bound_us is final and read without the lock */
	int *lines = calloc((size_t)n, sizeof *lines);
	assert_non_null(lines);
	count_bind_lines(lines, n);

	int no_event = 0, no_line = 0, by_a = 0, by_b = 0, slowest = 0;
	for (int i = 0; i < n; i++) {
		if (bound_us[i] - created_us[i] > bound_us[slowest] - created_us[slowest])
			slowest = i;
		if (s->scheduled[i] > 1 || lines[i] > 1)
			FAIL("pod s-%05d bound more than once: %d Scheduled events, %d \"Successfully bound\" lines", i,
			     s->scheduled[i], lines[i]);
		by_a += !strcmp(s->instance[i], "csched-replica-a");
		by_b += !strcmp(s->instance[i], "csched-replica-b");
		if (s->scheduled[i] == 1 && lines[i] == 1)
			continue;
		/* only a bind by the replica killed with -9 may have lost its event or log line: then it
		 * was seen bound around the kill */
		no_event += s->scheduled[i] == 0;
		no_line += lines[i] == 0;
		printf("[ NOTE     ] pod s-%05d: %d Scheduled events, %d log lines, seen bound %.3f s after the kill -9\n",
		       i, s->scheduled[i], lines[i], secs(bound_us[i] - t_kill_us));
		if (bound_us[i] < t_kill_us - 2000000 || bound_us[i] > t_kill_us + 1000000)
			FAIL("pod s-%05d has %d Scheduled events and %d log lines but was not bound around the kill", i,
			     s->scheduled[i], lines[i]);
	}
	printf("[ MEASURE  ] %d pods, all bound once: Scheduled events by csched-replica-a %d, by csched-replica-b "
	       "%d; pods whose event or log line the kill -9 lost: %d, %d\n",
	       n, by_a, by_b, no_event, no_line);
	printf("[ MEASURE  ] longest wait of a pod, creation -> seen bound: %.2f s (s-%05d, created %.2f s after the "
	       "kill -9)\n",
	       secs(bound_us[slowest] - created_us[slowest]), slowest, secs(created_us[slowest] - t_kill_us));
	assert_true(no_event <= 2 && no_line <= 2);
	if (s->n_failed)
		FAIL("%d FailedScheduling events, e.g. %s", s->n_failed, s->failed_note);
	assert_true(by_a > 0 && by_b > 0); /* both replicas' instances appear */
	assert_int_equal(by_a + by_b + no_event, n);

	/* no bind was refused or failed in any log */
	for (int k = 0; k < n_logs; k++) {
		char *out = NULL;
		int rc = harness_run(&out, "grep -E 'Error scheduling pod|Binding rejected|already assigned|no longer the "
					   "leader' '%s'",
				     all_logs[k]);
		if (rc != 1)
			FAIL("%s: bind errors logged:\n%s", all_logs[k], out);
		free(out);
	}
	assert_int_equal(atomic_load(&lease_watch.errors), 0);
	assert_int_equal(atomic_load(&pod_watch.errors), 0);
	free(lines);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exactly_one_leader),
		cmocka_unit_test(test_kill9_standby_takes_over),
		cmocka_unit_test(test_sigterm_hands_over),
		cmocka_unit_test(test_every_pod_bound_exactly_once),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
