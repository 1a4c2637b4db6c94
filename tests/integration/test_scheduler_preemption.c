/* DefaultPreemption end to end: csched's scheduler, in-process, against a real kube-apiserver +
 * etcd (tests/cluster), one fresh cluster per test:
 *  (a) a full cluster of priority-0 pods: a priority-1000 pod is nominated to the node where the
 *      fewest must go, its victim gets the DisruptionTarget condition, a deletion and a Preempted
 *      event, and the preemptor binds there;
 *  (b) a PodDisruptionBudget keeps its pods when another node works;
 *  (c) preemptionPolicy Never waits (upstream's message), nothing evicted;
 *  (d) two preemptors do not evict for the same room twice: the second evicts on the other node;
 *  (e) a preemptor whose victim is already terminating evicts nobody else and binds once it is gone.
 *
 * No kubelet runs: the apiserver deletes an unbound pod at once, but a bound pod's deletion only
 * sets its deletionTimestamp and waits for the kubelet to confirm. A thread here plays the kubelet:
 * it records every pod of the namespace it sees terminating (with its DisruptionTarget condition)
 * and, unless paused, force-deletes it (gracePeriodSeconds 0), as the kubelet finishes a pod's
 * termination. Low-priority pods are created bound (spec.nodeName) so that each test knows where
 * they are; PriorityClasses give the priorities (the Priority admission plugin runs). Test (a) runs
 * the csched binary (its requests feed the RBAC check), the others the scheduler in-process. */
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
#include <unistd.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "apiclient/api_types.h"
#include "config/config.h"
#include "harness.h"
#include "scheduler/metrics.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NS "t"
#define WAIT 45000
#define MAX_SEEN 64

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;
static struct scheduler *sched;
static struct sched_metrics *metrics; /* the in-process scheduler's */
static struct config cfg;
static pid_t csched_pid; /* the csched binary (test (a)), 0 when not running */

/* ---------- the kubelet stand-in ---------- */

struct seen {
	char name[64];
	char dt_reason[64], dt_msg[256]; /* its DisruptionTarget condition when first seen terminating */
};

static struct {
	pthread_t thread;
	bool running;
	atomic_bool stop, paused;
	pthread_mutex_t lock; /* guards seen, n_seen */
	struct seen seen[MAX_SEEN];
	int n_seen;
} kubelet;

struct kl_list {
	char names[MAX_SEEN][64];
	int n;
};

static void str_at(yajl_val v, const char *const *path, char *dst, size_t size)
{
	yajl_val s = yajl_tree_get(v, (const char **)path, yajl_t_string);
	snprintf(dst, size, "%s", s ? YAJL_GET_STRING(s) : "");
}

static int kl_item(void *ctx, struct yajl_val_s *item)
{
	static const char *const name_p[] = { "metadata", "name", NULL },
			  *const del_p[] = { "metadata", "deletionTimestamp", NULL },
			  *const conds_p[] = { "status", "conditions", NULL }, *const type_p[] = { "type", NULL },
			  *const reason_p[] = { "reason", NULL }, *const msg_p[] = { "message", NULL };
	struct kl_list *l = ctx;
	char name[64], del[64];
	str_at(item, name_p, name, sizeof(name));
	str_at(item, del_p, del, sizeof(del));
	if (!del[0])
		return 0;
	pthread_mutex_lock(&kubelet.lock);
	bool known = false;
	for (int i = 0; i < kubelet.n_seen; i++)
		known |= strcmp(kubelet.seen[i].name, name) == 0;
	if (!known && kubelet.n_seen < MAX_SEEN) {
		struct seen *s = &kubelet.seen[kubelet.n_seen++];
		memset(s, 0, sizeof(*s));
		snprintf(s->name, sizeof(s->name), "%s", name);
		yajl_val conds = yajl_tree_get(item, (const char **)conds_p, yajl_t_array);
		for (size_t i = 0; conds && i < conds->u.array.len; i++) {
			char type[64];
			str_at(conds->u.array.values[i], type_p, type, sizeof(type));
			if (strcmp(type, "DisruptionTarget") != 0)
				continue;
			str_at(conds->u.array.values[i], reason_p, s->dt_reason, sizeof(s->dt_reason));
			str_at(conds->u.array.values[i], msg_p, s->dt_msg, sizeof(s->dt_msg));
		}
	}
	pthread_mutex_unlock(&kubelet.lock);
	if (l->n < MAX_SEEN)
		snprintf(l->names[l->n++], sizeof(l->names[0]), "%s", name);
	return 0;
}

static void *kubelet_main(void *arg)
{
	(void)arg;
	struct err e = { 0 };
	struct api_conn *c = api_conn_new(cl, &e);
	if (!c)
		return NULL;
	static const char body[] = "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"gracePeriodSeconds\":0}";
	while (!atomic_load(&kubelet.stop)) {
		struct kl_list l = { .n = 0 };
		err_clear(&e);
		harness_list(c, "/api/v1/namespaces/" NS "/pods", kl_item, &l, NULL, &e);
		for (int i = 0; i < l.n && !atomic_load(&kubelet.paused); i++) {
			char path[160];
			snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s", l.names[i]);
			err_clear(&e);
			api_request(c, "DELETE", path, NULL, body, sizeof(body) - 1, NULL, &e); /* 404: gone already */
		}
		usleep(50 * 1000);
	}
	api_conn_free(c);
	return NULL;
}

static void kubelet_start(bool paused)
{
	atomic_store(&kubelet.stop, false);
	atomic_store(&kubelet.paused, paused);
	assert_int_equal(pthread_create(&kubelet.thread, NULL, kubelet_main, NULL), 0);
	kubelet.running = true;
}

static int n_seen(void)
{
	pthread_mutex_lock(&kubelet.lock);
	int n = kubelet.n_seen;
	pthread_mutex_unlock(&kubelet.lock);
	return n;
}

/* The pod's record once seen terminating (copied into out), or false. */
static bool seen_get(const char *name, struct seen *out)
{
	bool found = false;
	pthread_mutex_lock(&kubelet.lock);
	for (int i = 0; i < kubelet.n_seen; i++)
		if (strcmp(kubelet.seen[i].name, name) == 0) {
			*out = kubelet.seen[i];
			found = true;
		}
	pthread_mutex_unlock(&kubelet.lock);
	return found;
}

/* The names seen terminating, space-separated (static buffer, for messages). */
static const char *seen_names(void)
{
	static char buf[MAX_SEEN * 66];
	buf[0] = '\0';
	pthread_mutex_lock(&kubelet.lock);
	for (int i = 0; i < kubelet.n_seen; i++) {
		strcat(buf, kubelet.seen[i].name);
		strcat(buf, " ");
	}
	pthread_mutex_unlock(&kubelet.lock);
	return buf;
}

/* ---------- fixture ---------- */

static void request(const char *method, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void request(const char *method, const char *path, const char *fmt, ...)
{
	char body[8192];
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (api_request(conn, method, path, NULL, body, strlen(body), NULL, &e) < 0)
		fail_msg("%s %s: %s", method, path, e.msg);
}

static void mk_priority_class(const char *name, int value, const char *policy)
{
	request("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
		"{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"%s\"},"
		"\"value\":%d%s%s%s}",
		name, value, policy ? ",\"preemptionPolicy\":\"" : "", policy ? policy : "", policy ? "\"" : "");
}

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	memset(&kubelet, 0, sizeof(kubelet));
	pthread_mutex_init(&kubelet.lock, NULL);
	if (harness_setup(&cluster, 0, &cl, &conn) < 0)
		return -1;
	if (harness_create_namespace(conn, NS, &e) < 0) {
		fprintf(stderr, "namespace: %s\n", e.msg);
		return -1;
	}
	mk_priority_class("low", 0, NULL);
	mk_priority_class("high", 1000, NULL);
	mk_priority_class("high-never", 1000, "Never");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (kubelet.running) {
		atomic_store(&kubelet.stop, true);
		pthread_join(kubelet.thread, NULL);
		kubelet.running = false;
	}
	if (csched_pid > 0) {
		struct err e = { 0 };
		kill(csched_pid, SIGTERM);
		if (harness_wait_child(csched_pid, 20000, NULL, &e) < 0) {
			kill(csched_pid, SIGKILL);
			harness_wait_child(csched_pid, 5000, NULL, &e);
		}
		csched_pid = 0;
	}
	sched_free(sched);
	sched = NULL;
	sched_metrics_free(metrics);
	metrics = NULL;
	config_free(&cfg);
	harness_teardown(&cluster, &cl, &conn);
	pthread_mutex_destroy(&kubelet.lock);
	return 0;
}

/* A node with 1 CPU. */
static void mk_node(const char *name)
{
	request("POST", "/api/v1/nodes",
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
		"\"kubernetes.io/hostname\":\"%s\"}},"
		"\"status\":{\"capacity\":{\"cpu\":\"1\",\"memory\":\"16Gi\",\"pods\":\"110\"},"
		"\"allocatable\":{\"cpu\":\"1\",\"memory\":\"16Gi\",\"pods\":\"110\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		name, name);
}

/* A pod of class cls requesting cpu; node: bound there at creation (NULL: csched schedules it);
 * labels: members of metadata.labels. */
static void mk_pod(const char *name, const char *cls, const char *cpu, const char *node, const char *labels)
{
	request("POST", "/api/v1/namespaces/" NS "/pods",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{%s}},\"spec\":{"
		"\"schedulerName\":\"csched\",\"priorityClassName\":\"%s\"%s%s%s,"
		"\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"%s\"}}}]}}",
		name, labels ? labels : "", cls, node ? ",\"nodeName\":\"" : "", node ? node : "", node ? "\"" : "", cpu);
}

static struct api_pod *get_pod(const char *name)
{
	char path[256];
	struct api_response r = { 0 };
	struct err e = { 0 };
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s", name);
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) < 0) {
		api_response_release(&r);
		return NULL;
	}
	struct api_pod *p = api_pod_decode_json(r.body, r.len, &e);
	api_response_release(&r);
	return p;
}

/* The pod's node (static copy) once bound within timeout_ms, else NULL. */
static const char *wait_bound(const char *name, long timeout_ms)
{
	static char buf[256];
	int64_t end = harness_now_ms() + timeout_ms;
	do {
		struct api_pod *p = get_pod(name);
		if (p && p->node_name[0]) {
			snprintf(buf, sizeof(buf), "%s", p->node_name);
			api_pod_unref(p);
			return buf;
		}
		api_pod_unref(p);
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	return NULL;
}

/* Waits until the pod's status.nominatedNodeName is node. */
static void wait_nominated(const char *name, const char *node)
{
	char got[256] = "";
	int64_t end = harness_now_ms() + WAIT;
	do {
		struct api_pod *p = get_pod(name);
		snprintf(got, sizeof(got), "%s", p && p->nominated_node_name ? p->nominated_node_name : "");
		api_pod_unref(p);
		if (!strcmp(got, node))
			return;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	fail_msg("%s: nominatedNodeName \"%s\", want \"%s\"", name, got, node);
}

/* Waits until the PodScheduled condition's message of name contains want. */
static void wait_message_contains(const char *name, const char *want)
{
	char got[1100] = "";
	int64_t end = harness_now_ms() + WAIT;
	do {
		struct api_pod *p = get_pod(name);
		assert_non_null(p);
		for (uint32_t i = 0; i < p->n_conditions; i++)
			if (!strcmp(p->conditions[i].type, "PodScheduled"))
				snprintf(got, sizeof(got), "%s", p->conditions[i].message ? p->conditions[i].message : "");
		api_pod_unref(p);
		if (strstr(got, want))
			return;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	fail_msg("%s: PodScheduled message \"%s\" lacks \"%s\"", name, got, want);
}

static void wait_seen(int n)
{
	int64_t end = harness_now_ms() + WAIT;
	while (n_seen() < n && harness_now_ms() < end)
		usleep(50 * 1000);
	if (n_seen() < n)
		fail_msg("%d pods seen terminating (%s), want %d", n_seen(), seen_names(), n);
}

static void start_sched(void)
{
	struct err e = { 0 };
	if (!cfg.arena && config_init_default(&cfg, fw_registry(), &e) < 0)
		fail_msg("config: %s", e.msg);
	if (!metrics && !(metrics = sched_metrics_new()))
		fail_msg("metrics: out of memory");
	struct sched_options o = { .cfg = &cfg, .client = cl, .metrics = metrics };
	if (!(sched = sched_new(&o, &e)))
		fail_msg("sched_new: %s", e.msg);
	if (sched_start_scheduling(sched, &e) < 0)
		fail_msg("sched_start_scheduling: %s", e.msg);
	assert_true(sched_wait_synced(sched, 30000));
}

/* The csched binary instead of the in-process scheduler: its requests go to the RBAC trace
 * (CSCHED_API_TRACE, inherited), so that integration/rbac sees the preemption's DELETE and PATCH. */
static void start_csched_binary(void)
{
	char kc[512], log[512];
	struct err e = { 0 };
	snprintf(kc, sizeof(kc), "--kubeconfig=%s", cluster.kubeconfig);
	snprintf(log, sizeof(log), "%s/csched.log", cluster.dir);
	char *argv[] = { CSCHED_BUILD_DIR "/csched", kc, "--leader-elect=false", "--secure-port=0", "-v=2", NULL };
	csched_pid = harness_spawn(argv, log, NULL, &e);
	if (csched_pid <= 0)
		fail_msg("csched: %s", e.msg);
}

/* The value of the series line (name with its labels, as rendered) of the in-process scheduler's
 * metrics, or -1 when absent. */
static double metric(const char *series)
{
	char *text = NULL, key[256];
	size_t len = 0;
	struct err e = { 0 };
	double v = -1;
	assert_int_equal(sched_metrics_render(metrics, &text, &len, &e), 0);
	snprintf(key, sizeof(key), "\n%s ", series);
	const char *at = strstr(text, key);
	if (at)
		v = strtod(at + strlen(key), NULL);
	free(text);
	return v;
}

/* ---------- events ---------- */

struct ev_find {
	const char *regarding, *reason;
	char note[512], action[64], type[32], related[64], related_kind[32];
	bool found;
};

static int ev_item(void *ctx, struct yajl_val_s *item)
{
	static const char *const reg_p[] = { "regarding", "name", NULL }, *const reason_p[] = { "reason", NULL },
			  *const note_p[] = { "note", NULL }, *const action_p[] = { "action", NULL },
			  *const type_p[] = { "type", NULL }, *const rel_p[] = { "related", "name", NULL },
			  *const relk_p[] = { "related", "kind", NULL };
	struct ev_find *f = ctx;
	char reg[64], reason[64];
	str_at(item, reg_p, reg, sizeof(reg));
	str_at(item, reason_p, reason, sizeof(reason));
	if (strcmp(reg, f->regarding) != 0 || strcmp(reason, f->reason) != 0)
		return 0;
	f->found = true;
	str_at(item, note_p, f->note, sizeof(f->note));
	str_at(item, action_p, f->action, sizeof(f->action));
	str_at(item, type_p, f->type, sizeof(f->type));
	str_at(item, rel_p, f->related, sizeof(f->related));
	str_at(item, relk_p, f->related_kind, sizeof(f->related_kind));
	return 0;
}

static void wait_event(struct ev_find *f)
{
	struct err e = { 0 };
	int64_t end = harness_now_ms() + WAIT;
	do {
		f->found = false;
		err_clear(&e);
		if (harness_list(conn, "/apis/events.k8s.io/v1/namespaces/" NS "/events", ev_item, f, NULL, &e) == 0 &&
		    f->found)
			return;
		usleep(100 * 1000);
	} while (harness_now_ms() < end);
	fail_msg("no %s event regarding %s", f->reason, f->regarding);
}

/* ---------- tests ---------- */

/* (a) node-0 holds two 500m pods, node-1 four 250m ones: the 500m preemptor needs one victim on
 * node-0 and two on node-1, so upstream's pickOneNodeForPreemption takes node-0 (fewest victims,
 * every other criterion tied). */
static void test_preempts_fewest_and_binds(void **state)
{
	(void)state;
	char name[32];
	mk_node("node-0");
	mk_node("node-1");
	mk_pod("a0", "low", "500m", "node-0", NULL);
	mk_pod("a1", "low", "500m", "node-0", NULL);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		mk_pod(name, "low", "250m", "node-1", NULL);
	}
	kubelet_start(true); /* victims stay terminating until the checks below are done */
	start_csched_binary();
	mk_pod("high", "high", "500m", NULL, NULL);
	struct api_pod *pre = get_pod("high");
	assert_non_null(pre);
	char uid[128];
	snprintf(uid, sizeof(uid), "%s", pre->meta.uid);
	api_pod_unref(pre);

	wait_nominated("high", "node-0");
	wait_seen(1);
	usleep(1000 * 1000); /* no second victim follows */
	assert_int_equal(n_seen(), 1);
	struct seen v;
	if (!seen_get("a0", &v) && !seen_get("a1", &v))
		fail_msg("the victim is not on node-0: %s", seen_names());
	/* upstream PreemptPod: the condition is patched before the deletion */
	assert_string_equal(v.dt_reason, "PreemptionByScheduler");
	assert_string_equal(v.dt_msg, "csched: preempting to accommodate a higher priority pod");
	struct ev_find f = { .regarding = v.name, .reason = "Preempted" };
	wait_event(&f);
	char want[256];
	snprintf(want, sizeof(want), "Preempted by pod %s on node node-0", uid);
	assert_string_equal(f.note, want);
	assert_string_equal(f.action, "Preempting");
	assert_string_equal(f.type, "Normal");
	/* as kube-scheduler v1.37.2 sends it: no related object (see scheduler/preemption.c) */
	assert_string_equal(f.related, "");
	assert_string_equal(f.related_kind, "");
	assert_null(wait_bound("high", 500)); /* the room is not free yet */

	atomic_store(&kubelet.paused, false);
	const char *n = wait_bound("high", WAIT);
	if (!n)
		fail_msg("high not bound (terminating: %s)", seen_names());
	assert_string_equal(n, "node-0");
	assert_int_equal(n_seen(), 1);
}

/* (b) both nodes hold two 500m pods; node-0's are covered by a PDB that allows no disruption (no
 * disruption controller runs: status.disruptionsAllowed is 0), so node-1 is chosen (fewest PDB
 * violations first). */
static void test_pdb_spares_victim(void **state)
{
	(void)state;
	mk_node("node-0");
	mk_node("node-1");
	request("POST", "/apis/policy/v1/namespaces/" NS "/poddisruptionbudgets",
		"{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"pdb\"},"
		"\"spec\":{\"minAvailable\":2,\"selector\":{\"matchLabels\":{\"app\":\"protected\"}}}}");
	mk_pod("p0", "low", "500m", "node-0", "\"app\":\"protected\"");
	mk_pod("p1", "low", "500m", "node-0", "\"app\":\"protected\"");
	mk_pod("u0", "low", "500m", "node-1", NULL);
	mk_pod("u1", "low", "500m", "node-1", NULL);
	kubelet_start(false);
	start_sched();
	mk_pod("high", "high", "500m", NULL, NULL);
	const char *n = wait_bound("high", WAIT);
	if (!n)
		fail_msg("high not bound (terminating: %s)", seen_names());
	assert_string_equal(n, "node-1");
	struct seen v;
	assert_int_equal(n_seen(), 1);
	assert_true(seen_get("u0", &v) || seen_get("u1", &v));
	/* upstream's metrics: PostFilter ran at least once (again while the victim terminated, when
	 * requeued), one candidate of one victim, one asynchronous preemption that succeeded */
	assert_true(metric("scheduler_preemption_attempts_total") >= 1);
	assert_true(metric("scheduler_preemption_victims_count") == 1);
	assert_true(metric("scheduler_preemption_goroutines_execution_total{result=\"success\"}") == 1);
	assert_true(metric("scheduler_preemption_goroutines_execution_total{result=\"error\"}") == -1);
}

/* (c) preemptionPolicy Never: upstream PodEligibleToPreemptOthers says no; the pod waits with the
 * FitError and the preemption message, and nothing is evicted. */
static void test_policy_never_waits(void **state)
{
	(void)state;
	mk_node("node-0");
	mk_pod("a0", "low", "500m", "node-0", NULL);
	mk_pod("a1", "low", "500m", "node-0", NULL);
	kubelet_start(false);
	start_sched();
	mk_pod("never", "high-never", "500m", NULL, NULL);
	wait_message_contains("never", "not eligible due to preemptionPolicy=Never.");
	usleep(2000 * 1000);
	assert_int_equal(n_seen(), 0);
	assert_null(wait_bound("never", 100));
}

/* (d) two nodes with two 500m pods each and two 500m preemptors at once, the victims kept
 * terminating (the kubelet paused) until both preemptors are nominated. The second counts the
 * first's nomination (the two-pass filter): on the first's node it would need both pods gone (two
 * victims, one already terminating), on the other one, so it goes there (upstream
 * pickOneNodeForPreemption: the lower sum of victim priorities). One victim per node, two in all,
 * and each preemptor binds where it was nominated. Without the nomination counted both nodes need
 * one victim and either may be chosen.
 * The pause makes the outcome deterministic: with victims vanishing at once, a preemptor that
 * lost the rest of its node to the other's nomination can run again before the other's victim
 * shows as terminating, find itself eligible and evict a third pod; upstream's
 * PodEligibleToPreemptOthers has the same window (CI saw it once under TSan). */
static void nominated_of(const char *name, char *buf, size_t size)
{
	struct api_pod *p = get_pod(name);
	snprintf(buf, size, "%s", p && p->nominated_node_name ? p->nominated_node_name : "");
	api_pod_unref(p);
}

static void test_two_preemptors_no_double_eviction(void **state)
{
	(void)state;
	mk_node("node-0");
	mk_node("node-1");
	mk_pod("a0", "low", "500m", "node-0", NULL);
	mk_pod("a1", "low", "500m", "node-0", NULL);
	mk_pod("b0", "low", "500m", "node-1", NULL);
	mk_pod("b1", "low", "500m", "node-1", NULL);
	kubelet_start(true);
	start_sched();
	mk_pod("high-1", "high", "500m", NULL, NULL);
	mk_pod("high-2", "high", "500m", NULL, NULL);
	char n1[64] = "", n2[64] = "";
	int64_t end = harness_now_ms() + WAIT;
	while ((!n1[0] || !n2[0]) && harness_now_ms() < end) {
		usleep(50 * 1000);
		nominated_of("high-1", n1, sizeof(n1));
		nominated_of("high-2", n2, sizeof(n2));
	}
	if (!n1[0] || !n2[0])
		fail_msg("nominated: high-1 \"%s\", high-2 \"%s\" (terminating: %s)", n1, n2, seen_names());
	if (!strcmp(n1, n2))
		fail_msg("both preemptors nominated on %s (terminating: %s)", n1, seen_names());
	wait_seen(2);
	usleep(1000 * 1000); /* nothing more is evicted while the two terminate */
	struct seen v;
	if (n_seen() != 2 || !(seen_get("a0", &v) || seen_get("a1", &v)) || !(seen_get("b0", &v) || seen_get("b1", &v)))
		fail_msg("terminating: %s, want one pod of each node", seen_names());

	atomic_store(&kubelet.paused, false);
	const char *b = wait_bound("high-1", WAIT);
	if (!b || strcmp(b, n1) != 0)
		fail_msg("high-1 bound to \"%s\", nominated on %s", b ? b : "", n1);
	b = wait_bound("high-2", WAIT);
	if (!b || strcmp(b, n2) != 0)
		fail_msg("high-2 bound to \"%s\", nominated on %s", b ? b : "", n2);
	usleep(1000 * 1000);
	if (n_seen() != 2)
		fail_msg("%d victims (%s), want 2", n_seen(), seen_names());
}

/* (e) the preemptor's victim is terminating (the kubelet paused): the preemptor waits, nominated,
 * without evicting anyone else (upstream: not eligible while a lower-priority pod on its nominated
 * node terminates; PreEnqueue while the last victim's deletion is under way), then binds once the
 * victim is gone. */
static void test_victims_gone_no_new_eviction(void **state)
{
	(void)state;
	mk_node("node-0");
	mk_node("node-1");
	mk_pod("a0", "low", "500m", "node-0", NULL);
	mk_pod("a1", "low", "500m", "node-0", NULL);
	mk_pod("b0", "low", "500m", "node-1", NULL);
	mk_pod("b1", "low", "500m", "node-1", NULL);
	kubelet_start(true);
	start_sched();
	mk_pod("high", "high", "500m", NULL, NULL);
	wait_seen(1);
	struct api_pod *pre = get_pod("high");
	assert_non_null(pre);
	char nominated[64];
	snprintf(nominated, sizeof(nominated), "%s", pre->nominated_node_name ? pre->nominated_node_name : "");
	api_pod_unref(pre);
	/* a node joins (full: its pod exists first), which requeues the preemptor meanwhile */
	mk_pod("c0", "low", "1", "node-2-full", NULL);
	mk_node("node-2-full");
	usleep(3000 * 1000);
	if (n_seen() != 1)
		fail_msg("%d pods terminating (%s), want the one victim", n_seen(), seen_names());
	atomic_store(&kubelet.paused, false);
	const char *n = wait_bound("high", WAIT);
	if (!n)
		fail_msg("high not bound (terminating: %s)", seen_names());
	if (nominated[0])
		assert_string_equal(n, nominated);
	usleep(1000 * 1000);
	assert_int_equal(n_seen(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_preempts_fewest_and_binds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdb_spares_victim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_policy_never_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_preemptors_no_double_eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_victims_gone_no_new_eviction, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
