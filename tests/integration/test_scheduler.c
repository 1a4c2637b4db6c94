/* csched's scheduler, in-process (scheduler.h), against a real kube-apiserver + etcd
 * (tests/cluster), one fresh cluster per test:
 *  - 1000 pods on 100 heterogeneous nodes: all bound, no node over-committed, every node selector,
 *    taint and host port rule respected (time from first pod created to last bound printed);
 *  - an unschedulable pod gets upstream's exact FailedScheduling event and the condition
 *    PodScheduled=False/Unschedulable, then is bound within seconds after a node that fits joins;
 *  - higher priority pods bind first (created before the loop starts, room for half of them);
 *  - a gated pod waits until its gates are removed;
 *  - a pod deleted while queued is dropped; a pod deleted between scheduling and binding is
 *    forgotten and not requeued;
 *  - a bind the server rejects (the test binds the pod elsewhere from the before_bind hook)
 *    leaves the cache consistent;
 *  - pods of other schedulers are never touched;
 *  - two profiles: each schedules its own pods and reports as its own controller;
 *  - a pod naming a missing PVC gets upstream's PreFilter message, and is bound once the PVC exists. */
#include <setjmp.h>
#include <stdarg.h>
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
#include "common/intern.h"
#include "config/config.h"
#include "harness.h"
#include "scheduler/comparer.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NS "t"

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;
static struct scheduler *sched;
static struct config cfg;

/* ---------- helpers ---------- */

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	if (harness_setup(&cluster, 0, &cl, &conn) < 0)
		return -1;
	if (harness_create_namespace(conn, NS, &e) < 0) {
		fprintf(stderr, "namespace: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sched_free(sched);
	sched = NULL;
	config_free(&cfg);
	harness_teardown(&cluster, &cl, &conn);
	return 0;
}

static void request(const char *method, const char *path, const char *content_type, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void request(const char *method, const char *path, const char *content_type, const char *fmt, ...)
{
	char body[8192];
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (api_request(conn, method, path, content_type, body, strlen(body), NULL, &e) < 0)
		fail_msg("%s %s: %s", method, path, e.msg);
}

/* labels: JSON object members ("\"a\":\"b\"" or ""); taints: JSON array members or "". */
static void mk_node(const char *name, const char *cpu, const char *mem, int pods, const char *labels,
		    const char *taints, bool unschedulable)
{
	request("POST", "/api/v1/nodes", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
		"\"kubernetes.io/hostname\":\"%s\"%s%s}},\"spec\":{\"unschedulable\":%s,\"taints\":[%s]},"
		"\"status\":{\"capacity\":{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"%d\"},"
		"\"allocatable\":{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"%d\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		name, name, labels[0] ? "," : "", labels, unschedulable ? "true" : "false", taints, cpu, mem, pods, cpu,
		mem, pods);
}

/* extra: more members of spec (leading comma included by the caller) */
static void mk_pod(const char *name, const char *scheduler, const char *cpu, const char *mem, const char *extra)
{
	request("POST", "/api/v1/namespaces/" NS "/pods", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
		"\"schedulerName\":\"%s\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":\"%s\"}}}]%s}}",
		name, scheduler, cpu, mem, extra);
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

/* The pod's node name (a static copy), "" while unbound, NULL when it does not exist. */
static const char *node_of(const char *name)
{
	static char buf[256];
	struct api_pod *p = get_pod(name);
	if (!p)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", p->node_name);
	api_pod_unref(p);
	return buf;
}

static const char *wait_bound(const char *name, long timeout_ms)
{
	int64_t end = harness_now_ms() + timeout_ms;
	do {
		const char *n = node_of(name);
		if (n && n[0])
			return n;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	return NULL;
}

static void start_sched(const struct sched_hooks *hooks, int binders)
{
	struct err e = { 0 };
	if (!cfg.arena && config_init_default(&cfg, fw_registry(), &e) < 0)
		fail_msg("config: %s", e.msg);
	struct sched_options o = { .cfg = &cfg, .client = cl, .binders = binders };
	if (hooks)
		o.hooks = *hooks;
	if (!(sched = sched_new(&o, &e)))
		fail_msg("sched_new: %s", e.msg);
	if (sched_start_scheduling(sched, &e) < 0)
		fail_msg("sched_start_scheduling: %s", e.msg);
	assert_true(sched_wait_synced(sched, 30000));
}

/* Events of the pod (core v1 view): calls fn for each. */
struct ev_view {
	char type[32], reason[64], action[64], message[1100], controller[64];
};

static int pod_events(const char *name, struct ev_view *out, int max)
{
	char path[256];
	struct api_response r = { 0 };
	struct err e = { 0 };
	char errbuf[256];
	int n = 0;
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/events?fieldSelector=involvedObject.name%%3D%s", name);
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) < 0)
		fail_msg("events: %s", e.msg);
	yajl_val root = yajl_tree_parse(r.body, errbuf, sizeof(errbuf));
	api_response_release(&r);
	assert_non_null(root);
	const char *items_path[] = { "items", NULL };
	yajl_val items = yajl_tree_get(root, items_path, yajl_t_array);
	for (size_t i = 0; items && i < YAJL_GET_ARRAY(items)->len && n < max; i++) {
		yajl_val it = YAJL_GET_ARRAY(items)->values[i];
		struct {
			const char *key;
			char *dst;
			size_t size;
		} f[] = { { "type", out[n].type, sizeof(out[n].type) },
			  { "reason", out[n].reason, sizeof(out[n].reason) },
			  { "action", out[n].action, sizeof(out[n].action) },
			  { "message", out[n].message, sizeof(out[n].message) },
			  { "reportingComponent", out[n].controller, sizeof(out[n].controller) } };
		for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++) {
			const char *p[] = { f[j].key, NULL };
			yajl_val v = yajl_tree_get(it, p, yajl_t_string);
			snprintf(f[j].dst, f[j].size, "%s", v ? YAJL_GET_STRING(v) : "");
		}
		n++;
	}
	yajl_tree_free(root);
	return n;
}

static bool wait_event(const char *name, const char *reason, struct ev_view *out, long timeout_ms)
{
	int64_t end = harness_now_ms() + timeout_ms;
	struct ev_view evs[16];
	do {
		int n = pod_events(name, evs, 16);
		for (int i = 0; i < n; i++)
			if (strcmp(evs[i].reason, reason) == 0) {
				*out = evs[i];
				return true;
			}
		usleep(100 * 1000);
	} while (harness_now_ms() < end);
	return false;
}

static const struct api_condition *pod_condition(const struct api_pod *p, const char *type)
{
	for (uint32_t i = 0; i < p->n_conditions; i++)
		if (strcmp(p->conditions[i].type, type) == 0)
			return &p->conditions[i];
	return NULL;
}

/* ---------- 1000 pods on 100 heterogeneous nodes ---------- */

#define BULK_NODES 100
#define BULK_PODS 1000

struct listed {
	struct api_pod **pods;
	size_t n_pods, cap;
	struct api_node **nodes;
	size_t n_nodes;
};

static int collect_pod(void *ctx, struct yajl_val_s *item)
{
	struct listed *l = ctx;
	struct err e = { 0 };
	struct api_pod *p = api_pod_decode(item, &e);
	if (!p)
		return -1;
	if (l->n_pods == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->pods = realloc(l->pods, l->cap * sizeof(*l->pods));
	}
	l->pods[l->n_pods++] = p;
	return 0;
}

static int collect_node(void *ctx, struct yajl_val_s *item)
{
	struct listed *l = ctx;
	struct err e = { 0 };
	struct api_node *n = api_node_decode(item, &e);
	if (!n)
		return -1;
	l->nodes = realloc(l->nodes, (l->n_nodes + 1) * sizeof(*l->nodes));
	l->nodes[l->n_nodes++] = n;
	return 0;
}

static void listed_release(struct listed *l)
{
	for (size_t i = 0; i < l->n_pods; i++)
		api_pod_unref(l->pods[i]);
	for (size_t i = 0; i < l->n_nodes; i++)
		api_node_unref(l->nodes[i]);
	free(l->pods);
	free(l->nodes);
}

/* Every rule the default plugins enforce, checked on what the server holds. */
static void verify_placement(void)
{
	struct listed l = { 0 };
	struct err e = { 0 };
	if (harness_list(conn, "/api/v1/namespaces/" NS "/pods", collect_pod, &l, NULL, &e) < 0 ||
	    harness_list(conn, "/api/v1/nodes", collect_node, &l, NULL, &e) < 0)
		fail_msg("list: %s", e.msg);
	assert_int_equal(l.n_pods, BULK_PODS);
	assert_int_equal(l.n_nodes, BULK_NODES);
	for (size_t ni = 0; ni < l.n_nodes; ni++) {
		const struct api_node *node = l.nodes[ni];
		int64_t cpu = 0, mem = 0, pods = 0;
		int32_t ports[64];
		int n_ports = 0;
		for (size_t pi = 0; pi < l.n_pods; pi++) {
			const struct api_pod *p = l.pods[pi];
			if (p->node_name != node->meta.name)
				continue;
			pods++;
			for (uint32_t c = 0; c < p->n_containers; c++) {
				cpu += p->containers[c].requests.cpu;
				mem += p->containers[c].requests.memory;
				for (uint32_t k = 0; k < p->containers[c].n_ports; k++) {
					int32_t hp = p->containers[c].ports[k].host_port;
					if (!hp)
						continue;
					for (int x = 0; x < n_ports; x++)
						if (ports[x] == hp)
							fail_msg("host port %d used twice on %s", hp, node->meta.name);
					assert_true(n_ports < 64);
					ports[n_ports++] = hp;
				}
			}
			for (uint32_t s = 0; s < p->node_selector.n; s++) {
				const struct api_kv *kv = &p->node_selector.items[s];
				if (api_labels_get(&node->meta.labels, kv->key) != kv->value)
					fail_msg("pod %s on %s violates nodeSelector %s=%s", p->meta.name, node->meta.name,
						 kv->key, kv->value);
			}
			for (uint32_t t = 0; t < node->n_taints; t++) {
				const struct api_taint *taint = &node->taints[t];
				if (taint->effect != API_EFFECT_NO_SCHEDULE && taint->effect != API_EFFECT_NO_EXECUTE)
					continue;
				bool ok = false;
				for (uint32_t k = 0; k < p->n_tolerations && !ok; k++)
					ok = api_toleration_tolerates(&p->tolerations[k], taint);
				if (!ok)
					fail_msg("pod %s on %s does not tolerate taint %s", p->meta.name, node->meta.name,
						 taint->key);
			}
		}
		if (cpu > node->allocatable.cpu || mem > node->allocatable.memory || pods > node->allocatable.pods)
			fail_msg("node %s over-committed: cpu %lld/%lld memory %lld/%lld pods %lld/%lld", node->meta.name,
				 (long long)cpu, (long long)node->allocatable.cpu, (long long)mem,
				 (long long)node->allocatable.memory, (long long)pods, (long long)node->allocatable.pods);
	}
	for (size_t pi = 0; pi < l.n_pods; pi++)
		if (!l.pods[pi]->node_name[0])
			fail_msg("pod %s not bound", l.pods[pi]->meta.name);
	listed_release(&l);
}

static void test_bulk_1000_pods_100_nodes(void **state)
{
	(void)state;
	static const char *const cpus[] = { "2", "4", "8", "16" };
	static const char *const mems[] = { "4Gi", "8Gi", "16Gi", "64Gi" };
	char name[64], labels[256];
	for (int i = 0; i < BULK_NODES; i++) {
		snprintf(name, sizeof(name), "node-%03d", i);
		snprintf(labels, sizeof(labels), "\"topology.kubernetes.io/zone\":\"zone-%d\",\"tier\":\"%s\"%s", i % 3,
			 i % 2 ? "a" : "b", i % 10 == 0 ? ",\"dedicated\":\"batch\"" : "");
		mk_node(name, cpus[i % 4], mems[(i / 4) % 4], 110 / (1 + i % 3), labels,
			i % 10 == 0 ? "{\"key\":\"dedicated\",\"value\":\"batch\",\"effect\":\"NoSchedule\"}" : "", false);
	}
	start_sched(NULL, 0);

	int64_t t0 = harness_now_ms();
	for (int i = 0; i < BULK_PODS; i++) {
		char extra[512] = "";
		const char *cpu = (const char *[]){ "100m", "200m", "250m", "500m" }[i % 4];
		const char *mem = (const char *[]){ "128Mi", "256Mi", "512Mi" }[i % 3];
		switch (i % 10) {
		case 1: /* tier a only */
		case 2:
			snprintf(extra, sizeof(extra), ",\"nodeSelector\":{\"tier\":\"a\"}");
			break;
		case 3: /* the tainted batch nodes only */
			snprintf(extra, sizeof(extra),
				 ",\"nodeSelector\":{\"dedicated\":\"batch\"},\"tolerations\":[{\"key\":\"dedicated\","
				 "\"operator\":\"Equal\",\"value\":\"batch\",\"effect\":\"NoSchedule\"}]");
			break;
		default:
			break;
		}
		if (i % 10 == 4) {
			snprintf(name, sizeof(name), "pod-%04d", i);
			request("POST", "/api/v1/namespaces/" NS "/pods", NULL,
				"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
				"\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"pause\","
				"\"ports\":[{\"containerPort\":80,\"hostPort\":%d}],"
				"\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":\"%s\"}}}]}}",
				name, 9000 + (i / 10) % 3, cpu, mem);
			continue;
		}
		snprintf(name, sizeof(name), "pod-%04d", i);
		mk_pod(name, "csched", cpu, mem, extra);
	}
	int64_t t_created = harness_now_ms();
	struct sched_stats st;
	int64_t end = t0 + 120000;
	do {
		sched_stats(sched, &st);
		if (st.scheduled >= BULK_PODS)
			break;
		usleep(20 * 1000);
	} while (harness_now_ms() < end);
	int64_t t_bound = harness_now_ms();
	sched_stats(sched, &st);
	printf("[ MEASURE  ] %d pods on %d nodes: created in %.2f s, first created -> last bound %.2f s "
	       "(%.0f pods/s); attempts %llu, unschedulable %llu, errors %llu\n",
	       BULK_PODS, BULK_NODES, (t_created - t0) / 1000.0, (t_bound - t0) / 1000.0,
	       BULK_PODS * 1000.0 / (double)(t_bound - t0 ? t_bound - t0 : 1), (unsigned long long)st.attempts,
	       (unsigned long long)st.unschedulable, (unsigned long long)st.errors);
	assert_int_equal(st.scheduled, BULK_PODS);
	assert_int_equal(st.bind_failures, 0);
	verify_placement();
	/* The cache agrees: every pod confirmed by the informer, none left assumed. */
	end = harness_now_ms() + 10000;
	do {
		sched_stats(sched, &st);
		if (st.cache_pods == BULK_PODS && st.cache_assumed == 0)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(st.cache_pods, BULK_PODS);
	assert_int_equal(st.cache_assumed, 0);
	assert_int_equal(st.queue_pending, 0);
	/* and so says the comparer (upstream's cache debugger): cache == the informers' stores */
	struct sched_cache_diff d;
	struct err e = { 0 };
	if (sched_cache_wait_consistent(sched, 5000, &d, &e) != 0)
		fail_msg("%s", e.msg);
	sched_cache_diff_release(&d);
}

/* ---------- unschedulable, then a node that fits ---------- */

static void test_unschedulable_event_condition_then_bound(void **state)
{
	(void)state;
	mk_node("small", "1", "4Gi", 110, "\"disk\":\"ssd\"", "", false);
	mk_node("tainted", "8", "16Gi", 110, "\"disk\":\"ssd\"",
		"{\"key\":\"dedicated\",\"value\":\"x\",\"effect\":\"NoSchedule\"}", false);
	mk_node("nolabel", "8", "16Gi", 110, "", "", false);
	mk_node("cordoned", "8", "16Gi", 110, "\"disk\":\"ssd\"", "", true);
	start_sched(NULL, 0);
	mk_pod("waiter", "csched", "2", "1Gi", ",\"nodeSelector\":{\"disk\":\"ssd\"}");

	/* " preemption: ...": DefaultPreemption's PostFilter (upstream default_preemption.go: nodes Filter
	 * found Unschedulable without lower-priority pods get "No preemption victims found for incoming
	 * pod", every other node "Preemption is not helpful for scheduling"; a request above the node's
	 * allocatable is UnschedulableAndUnresolvable). oracle: these nodes and pod */
	static const char want[] = "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node "
				   "affinity/selector, 1 node(s) had untolerated taint(s), 1 node(s) were "
				   "unschedulable. preemption: 0/4 nodes are available: 4 Preemption is not helpful for "
				   "scheduling.";
	struct ev_view ev;
	assert_true(wait_event("waiter", "FailedScheduling", &ev, 10000));
	assert_string_equal(ev.type, "Warning");
	assert_string_equal(ev.action, "Scheduling");
	assert_string_equal(ev.message, want);
	assert_string_equal(ev.controller, "csched");

	struct api_pod *p = NULL;
	const struct api_condition *c = NULL;
	int64_t end = harness_now_ms() + 10000;
	do {
		api_pod_unref(p);
		p = get_pod("waiter");
		assert_non_null(p);
		c = pod_condition(p, "PodScheduled");
		if (c)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_non_null(c);
	assert_string_equal(c->status, "False");
	assert_string_equal(c->reason, "Unschedulable");
	assert_string_equal(c->message, want);
	assert_string_equal(p->node_name, "");
	api_pod_unref(p);

	/* A node that fits: NodeAdd moves the pod back; bound within seconds. */
	int64_t t0 = harness_now_ms();
	mk_node("big", "8", "16Gi", 110, "\"disk\":\"ssd\"", "", false);
	const char *n = wait_bound("waiter", 15000);
	assert_non_null(n);
	assert_string_equal(n, "big");
	printf("[ MEASURE  ] bound %.2f s after the fitting node was created\n", (harness_now_ms() - t0) / 1000.0);
	assert_true(harness_now_ms() - t0 < 12000);
	assert_true(wait_event("waiter", "Scheduled", &ev, 10000));
	assert_string_equal(ev.type, "Normal");
	assert_string_equal(ev.action, "Binding");
	assert_string_equal(ev.message, "Successfully assigned " NS "/waiter to big");
}

/* Polls pod name until its PodScheduled condition says want (fails the test after timeout_ms);
 * returns the pod (the caller unrefs it) and its condition in *cond. */
static struct api_pod *wait_scheduled_message(const char *name, const char *want, long timeout_ms,
					      const struct api_condition **cond)
{
	struct api_pod *p = NULL;
	const struct api_condition *c = NULL;
	int64_t end = harness_now_ms() + timeout_ms;
	do {
		api_pod_unref(p);
		p = get_pod(name);
		assert_non_null(p);
		c = pod_condition(p, "PodScheduled");
		if (c && strcmp(c->message, want) == 0)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_non_null(c);
	assert_string_equal(c->message, want);
	*cond = c;
	return p;
}

/* upstream updatePod / podutil.UpdatePodCondition: a second failed attempt with another message
 * keeps lastTransitionTime (the status stays False); observedGeneration is the pod's
 * metadata.generation (CalculatePodConditionObservedGeneration, PodObservedGenerationTracking GA
 * and locked on in v1.37). */
static void test_unschedulable_condition_fields(void **state)
{
	(void)state;
	mk_node("small", "1", "4Gi", 110, "", "", false);
	start_sched(NULL, 0);
	mk_pod("stuck", "csched", "2", "1Gi", "");

	/* " preemption: ...": DefaultPreemption's PostFilter (upstream default_preemption.go: nodes Filter
	 * found Unschedulable without lower-priority pods get "No preemption victims found for incoming
	 * pod", every other node "Preemption is not helpful for scheduling"; a request above the node's
	 * allocatable is UnschedulableAndUnresolvable). oracle: these nodes and pod */
	static const char want1[] = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
				    "1 Preemption is not helpful for scheduling.";
	static const char want2[] = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated "
				    "taint(s). preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
				    "scheduling.";
	const struct api_condition *c;
	struct api_pod *p = wait_scheduled_message("stuck", want1, 10000, &c);
	assert_string_equal(c->status, "False");
	assert_string_equal(c->reason, "Unschedulable");
	assert_true(p->meta.generation > 0);
	assert_int_equal(c->observed_generation, p->meta.generation);
	char *ltt = strdup(c->last_transition_time);
	assert_non_null(ltt);
	assert_true(ltt[0]);
	api_pod_unref(p);
	p = NULL;

	/* A node with room but a taint: Fit's hint requeues the pod, which fails again, now with
	 * another message, at least a second later (the times have whole seconds). */
	usleep(1100 * 1000);
	mk_node("tainted", "8", "16Gi", 110, "", "{\"key\":\"dedicated\",\"value\":\"x\",\"effect\":\"NoSchedule\"}",
		false);
	p = wait_scheduled_message("stuck", want2, 15000, &c);
	assert_string_equal(c->status, "False");
	assert_string_equal(c->last_transition_time, ltt);
	assert_int_equal(c->observed_generation, p->meta.generation);
	free(ltt);
	api_pod_unref(p);
}

/* ---------- priority ---------- */

static void test_higher_priority_binds_first(void **state)
{
	(void)state;
	char name[64], body[512];
	/* room for 5 pods of 200m */
	mk_node("one", "1", "8Gi", 110, "", "", false);
	for (int i = 0; i < 10; i++) {
		snprintf(body, sizeof(body),
			 "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
			 "{\"name\":\"p%d\"},\"value\":%d}",
			 i, i * 100);
		request("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", NULL, "%s", body);
	}
	/* created before the scheduler starts: all queued at once, popped by priority */
	for (int i = 0; i < 10; i++) {
		int prio = (i * 7) % 10; /* creation order unrelated to priority */
		snprintf(name, sizeof(name), "prio-%d", prio);
		snprintf(body, sizeof(body), ",\"priorityClassName\":\"p%d\"", prio);
		mk_pod(name, "csched", "200m", "64Mi", body);
	}
	start_sched(NULL, 1);
	int64_t end = harness_now_ms() + 15000;
	struct sched_stats st;
	do {
		sched_stats(sched, &st);
		if (st.scheduled >= 5 && st.unschedulable >= 5)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(st.scheduled, 5);
	for (int prio = 0; prio < 10; prio++) {
		snprintf(name, sizeof(name), "prio-%d", prio);
		const char *n = node_of(name);
		assert_non_null(n);
		if (prio >= 5)
			assert_string_equal(n, "one");
		else
			assert_string_equal(n, "");
	}
}

/* ---------- scheduling gates ---------- */

static void test_gated_pod_waits_until_ungated(void **state)
{
	(void)state;
	mk_node("n1", "4", "8Gi", 110, "", "", false);
	start_sched(NULL, 0);
	mk_pod("gated", "csched", "100m", "64Mi", ",\"schedulingGates\":[{\"name\":\"example.com/wait\"}]");
	mk_pod("free", "csched", "100m", "64Mi", "");
	assert_non_null(wait_bound("free", 10000));
	usleep(1500 * 1000);
	assert_string_equal(node_of("gated"), "");
	struct sched_stats st;
	sched_stats(sched, &st);
	assert_int_equal(st.queue_pending, 1); /* the gated pod */
	assert_int_equal(st.attempts, 1);      /* only "free" was tried */

	int64_t t0 = harness_now_ms();
	request("PATCH", "/api/v1/namespaces/" NS "/pods/gated", "application/merge-patch+json",
		"{\"spec\":{\"schedulingGates\":null}}");
	assert_non_null(wait_bound("gated", 10000));
	printf("[ MEASURE  ] gated pod bound %.2f s after its gates were removed\n",
	       (harness_now_ms() - t0) / 1000.0);
}

/* ---------- deleted pods ---------- */

struct delete_hook {
	const char *victim; /* pod name deleted from the hook */
	int calls;
};

static void hook_delete(void *ctx, const struct api_pod *pod, const char *node)
{
	struct delete_hook *h = ctx;
	(void)node;
	h->calls++;
	if (strcmp(pod->meta.name, h->victim) != 0)
		return;
	struct err e = { 0 };
	struct api_conn *c = api_conn_new(cl, &e);
	char path[256];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=0", pod->meta.namespace,
		 pod->meta.name);
	if (!c || api_request(c, "DELETE", path, NULL, NULL, 0, NULL, &e) < 0)
		fprintf(stderr, "hook delete: %s\n", e.msg);
	api_conn_free(c);
	usleep(1000 * 1000); /* let the informer see the delete before the bind fails */
}

static void test_deleted_pods_are_dropped(void **state)
{
	(void)state;
	struct delete_hook h = { "doomed-binding", 0 };
	struct sched_hooks hooks = { &h, hook_delete };
	mk_node("tiny", "500m", "1Gi", 110, "", "", false);
	start_sched(&hooks, 0);

	/* 1. Deleted while waiting in the unschedulable pool. */
	mk_pod("doomed-queued", "csched", "2", "64Mi", "");
	struct ev_view ev;
	assert_true(wait_event("doomed-queued", "FailedScheduling", &ev, 10000));
	request("DELETE", "/api/v1/namespaces/" NS "/pods/doomed-queued?gracePeriodSeconds=0", NULL, "%s", "");
	int64_t end = harness_now_ms() + 5000;
	struct sched_stats st;
	do {
		sched_stats(sched, &st);
		if (st.queue_pending == 0)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(st.queue_pending, 0);
	uint64_t attempts = st.attempts;
	mk_node("roomy", "4", "8Gi", 110, "", "", false); /* would fit: nothing may be retried */
	usleep(2500 * 1000);
	sched_stats(sched, &st);
	assert_int_equal(st.attempts, attempts);
	assert_int_equal(st.bind_failures, 0);

	/* 2. Deleted between the scheduling cycle and the bind: forgotten, not requeued. */
	mk_pod("doomed-binding", "csched", "100m", "64Mi", "");
	end = harness_now_ms() + 10000;
	do {
		sched_stats(sched, &st);
		if (st.bind_failures >= 1 && st.dropped >= 1)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(st.bind_failures, 1);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.cache_assumed, 0);
	usleep(1500 * 1000); /* a requeue would show up as a pending pod or another attempt */
	sched_stats(sched, &st);
	assert_int_equal(st.queue_pending, 0);
	assert_int_equal(st.attempts, attempts + 1);
	assert_null(node_of("doomed-binding"));
}

/* ---------- a pod recreated under the same name ---------- */

/* Before the first bind: deletes the pod and creates another under its name (a new UID, another
 * scheduler's, so it stays unassigned), then waits for the informer to see it; the bind of the old
 * UID then fails. */
static void hook_recreate(void *ctx, const struct api_pod *pod, const char *node)
{
	int *calls = ctx;
	(void)node;
	if ((*calls)++)
		return;
	struct err e = { 0 };
	struct api_conn *c = api_conn_new(cl, &e);
	char path[256], body[512];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=0", pod->meta.namespace,
		 pod->meta.name);
	int n = snprintf(body, sizeof(body),
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
			 "\"schedulerName\":\"someone-else\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\"}]}}",
			 pod->meta.name);
	if (!c || api_request(c, "DELETE", path, NULL, NULL, 0, NULL, &e) < 0 ||
	    api_request(c, "POST", "/api/v1/namespaces/" NS "/pods", NULL, body, (size_t)n, NULL, &e) < 0)
		fprintf(stderr, "hook recreate: %s\n", e.msg);
	api_conn_free(c);
	usleep(1000 * 1000); /* let the informer see the new pod before the bind fails */
}

/* upstream handleSchedulingFailure: when the informer's pod under the name has another UID ("Pod
 * was recreated while handling scheduling failure. Skip requeueing and status updates."), it
 * returns before the FailedScheduling event and the status patch. */
static void test_recreated_pod_gets_no_failure_event(void **state)
{
	(void)state;
	int calls = 0;
	struct sched_hooks hooks = { &calls, hook_recreate };
	mk_node("n1", "4", "8Gi", 110, "", "", false);
	start_sched(&hooks, 0);
	mk_pod("phoenix", "csched", "100m", "64Mi", "");

	struct sched_stats st;
	int64_t end = harness_now_ms() + 15000;
	do {
		sched_stats(sched, &st);
		if (st.bind_failures >= 1 && st.dropped >= 1)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(calls, 1);
	assert_int_equal(st.bind_failures, 1);
	assert_int_equal(st.dropped, 1); /* not requeued */
	usleep(2000 * 1000); /* an event or a patch would have been sent by now */
	struct ev_view ev;
	assert_false(wait_event("phoenix", "FailedScheduling", &ev, 0));
	struct api_pod *p = get_pod("phoenix");
	assert_non_null(p);
	assert_null(pod_condition(p, "PodScheduled"));
	assert_string_equal(p->node_name, "");
	api_pod_unref(p);
	sched_stats(sched, &st);
	assert_int_equal(st.queue_pending, 0);
}

/* ---------- a bind the server rejects ---------- */

struct steal_hook {
	const char *to; /* node the test binds the pod to first */
	int calls;
};

static void hook_steal(void *ctx, const struct api_pod *pod, const char *node)
{
	struct steal_hook *h = ctx;
	struct err e = { 0 };
	h->calls++;
	if (strcmp(node, h->to) == 0)
		return;
	struct api_conn *c = api_conn_new(cl, &e);
	if (!c || api_bind_pod(c, pod->meta.namespace, pod->meta.name, pod->meta.uid, h->to, &e) < 0)
		fprintf(stderr, "hook bind: %s\n", e.msg);
	api_conn_free(c);
	usleep(1000 * 1000); /* the informer confirms the pod elsewhere before our bind fails */
}

static void test_rejected_bind_keeps_cache_consistent(void **state)
{
	(void)state;
	struct steal_hook h = { "elsewhere", 0 };
	struct sched_hooks hooks = { &h, hook_steal };
	mk_node("chosen", "4", "8Gi", 110, "\"pick\":\"me\"", "", false);
	mk_node("elsewhere", "4", "8Gi", 110, "", "", false);
	start_sched(&hooks, 0);
	mk_pod("contested", "csched", "100m", "64Mi", ",\"nodeSelector\":{\"pick\":\"me\"}");

	struct ev_view ev;
	assert_true(wait_event("contested", "FailedScheduling", &ev, 10000));
	assert_non_null(strstr(ev.message, "running Bind plugin \"DefaultBinder\""));
	assert_string_equal(node_of("contested"), "elsewhere");
	struct sched_stats st;
	int64_t end = harness_now_ms() + 10000;
	do {
		sched_stats(sched, &st);
		if (st.cache_pods == 1 && st.cache_assumed == 0 && st.dropped == 1)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(st.bind_failures, 1);
	assert_int_equal(st.dropped, 1); /* already bound: not requeued */
	assert_int_equal(st.cache_pods, 1);
	assert_int_equal(st.cache_assumed, 0);
	assert_int_equal(st.queue_pending, 0);
	assert_int_equal(sched_cache_node_pods(sched, "elsewhere"), 1);
	assert_int_equal(sched_cache_node_pods(sched, "chosen"), 0);

	/* The freed room on "chosen" is usable: a second pod lands there. */
	h.to = "chosen";
	mk_pod("next", "csched", "100m", "64Mi", ",\"nodeSelector\":{\"pick\":\"me\"}");
	const char *n = wait_bound("next", 10000);
	assert_non_null(n);
	assert_string_equal(n, "chosen");
}

/* ---------- other schedulers' pods ---------- */

static void test_other_schedulers_pods_untouched(void **state)
{
	(void)state;
	mk_node("n1", "4", "8Gi", 110, "", "", false);
	start_sched(NULL, 0);
	mk_pod("theirs", "default-scheduler", "100m", "64Mi", "");
	mk_pod("someone", "someone-else", "100m", "64Mi", "");
	mk_pod("too-big-theirs", "someone-else", "64", "64Mi", "");
	mk_pod("ours", "csched", "100m", "64Mi", "");
	assert_non_null(wait_bound("ours", 10000));
	usleep(2000 * 1000);
	static const char *const others[] = { "theirs", "someone", "too-big-theirs" };
	for (size_t i = 0; i < 3; i++) {
		struct api_pod *p = get_pod(others[i]);
		assert_non_null(p);
		assert_string_equal(p->node_name, "");
		assert_null(pod_condition(p, "PodScheduled"));
		api_pod_unref(p);
		struct ev_view evs[4];
		assert_int_equal(pod_events(others[i], evs, 4), 0);
	}
	struct sched_stats st;
	sched_stats(sched, &st);
	assert_int_equal(st.attempts, 1);
	assert_int_equal(st.queue_pending, 0);
}

/* ---------- two profiles ---------- */

static void test_two_profiles(void **state)
{
	(void)state;
	struct err e = { 0 };
	static const char yaml[] = "apiVersion: kubescheduler.config.k8s.io/v1\n"
				   "kind: KubeSchedulerConfiguration\n"
				   "profiles:\n"
				   "- schedulerName: csched\n"
				   "- schedulerName: csched-spread\n"
				   "  plugins:\n"
				   "    score:\n"
				   "      disabled: [{name: NodeResourcesBalancedAllocation}]\n";
	if (config_load_buffer(&cfg, fw_registry(), "two.yaml", yaml, sizeof(yaml) - 1, &e) < 0)
		fail_msg("config: %s", e.msg);
	mk_node("n1", "4", "8Gi", 110, "", "", false);
	start_sched(NULL, 0);
	mk_pod("a", "csched", "100m", "64Mi", "");
	mk_pod("b", "csched-spread", "100m", "64Mi", "");
	mk_pod("c", "csched-other", "100m", "64Mi", "");
	assert_non_null(wait_bound("a", 10000));
	assert_non_null(wait_bound("b", 10000));
	struct ev_view ev;
	assert_true(wait_event("a", "Scheduled", &ev, 10000));
	assert_string_equal(ev.controller, "csched");
	assert_true(wait_event("b", "Scheduled", &ev, 10000));
	assert_string_equal(ev.controller, "csched-spread");
	assert_string_equal(node_of("c"), "");
}

/* ---------- a missing PVC, then the PVC ---------- */

/* upstream VolumeRestrictions: a pod naming a PVC that does not exist is rejected at PreFilter
 * with "persistentvolumeclaim \"NAME\" not found" (UnschedulableAndUnresolvable); creating the
 * PVC (PVC Add, its queueing hint) brings it back. The message ends in one more " not found":
 * DynamicResources' PostFilter fails reading the PreFilter state it never wrote, as upstream's
 * does, so DefaultPreemption does not run. The claim comes bound to a
 * PersistentVolume without zone labels (its PV exists, spec.volumeName and
 * pv.kubernetes.io/bind-completed set, as the PV controller leaves them; none runs here):
 * VolumeZone rejects an unbound claim of no class ("PersistentVolumeClaim had no pv name and
 * storageClass name") and VolumeBinding admits an unbound claim only once it can bind, as
 * upstream does. */
static void test_missing_pvc_then_created(void **state)
{
	(void)state;
	mk_node("n1", "4", "8Gi", 110, "", "", false);
	start_sched(NULL, 0);
	mk_pod("db", "csched", "100m", "64Mi",
	       ",\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"data-db-0\"}}]");
	struct ev_view ev;
	assert_true(wait_event("db", "FailedScheduling", &ev, 10000));
	assert_string_equal(ev.message, "0/1 nodes are available: persistentvolumeclaim \"data-db-0\" not found. not found");
	assert_string_equal(node_of("db"), "");

	request("POST", "/api/v1/persistentvolumes", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"pv-db-0\"},"
		"\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadWriteOnce\"],"
		"\"hostPath\":{\"path\":\"/tmp/pv-db-0\"},\"claimRef\":{\"namespace\":\"" NS "\",\"name\":\"data-db-0\"}}}");
	int64_t t0 = harness_now_ms();
	request("POST", "/api/v1/namespaces/" NS "/persistentvolumeclaims", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"data-db-0\","
		"\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}},"
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"volumeName\":\"pv-db-0\",\"storageClassName\":\"\","
		"\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}");
	const char *n = wait_bound("db", 15000);
	assert_non_null(n);
	assert_string_equal(n, "n1");
	printf("[ MEASURE  ] bound %.2f s after its PVC was created\n", (harness_now_ms() - t0) / 1000.0);
}

/* ---------- VolumeZone: PVs with zone labels ---------- */

/* A PV and a claim bound to each other as the PV controller leaves them (claimRef, volumeName,
 * pv.kubernetes.io/bind-completed; none runs here), so that VolumeBinding takes the claim as
 * bound. */
static void mk_pv_pvc(const char *pv, const char *zone, const char *pvc)
{
	request("POST", "/api/v1/persistentvolumes", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"%s\",\"labels\":"
		"{\"topology.kubernetes.io/zone\":\"%s\"}},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},"
		"\"accessModes\":[\"ReadWriteOnce\"],\"hostPath\":{\"path\":\"/tmp/%s\"},"
		"\"claimRef\":{\"namespace\":\"" NS "\",\"name\":\"%s\"}}}",
		pv, zone, pv, pvc);
	request("POST", "/api/v1/namespaces/" NS "/persistentvolumeclaims", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"%s\","
		"\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}},"
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"1Gi\"}},"
		"\"storageClassName\":\"\",\"volumeName\":\"%s\"}}",
		pvc, pv);
}

/* upstream VolumeZone through the scheduler's PV informer: a pod whose claim is bound to a PV of
 * zone-b lands on the zone-b node; one whose PV is in a zone no node has gets upstream's reason,
 * and relabelling the PV (a PersistentVolume update whose topology changed: the plugin's hint
 * says Queue) brings it back, onto the node of the PV's new zone. */
static void test_volume_zone(void **state)
{
	(void)state;
	mk_node("n-a", "4", "8Gi", 110, "\"topology.kubernetes.io/zone\":\"zone-a\"", "", false);
	mk_node("n-b", "4", "8Gi", 110, "\"topology.kubernetes.io/zone\":\"zone-b\"", "", false);
	mk_pv_pvc("pv-b", "zone-b", "data-b");
	mk_pv_pvc("pv-c", "zone-c", "data-c");
	start_sched(NULL, 0);
	mk_pod("db", "csched", "100m", "64Mi", ",\"volumes\":[{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"data-b\"}}]");
	const char *n = wait_bound("db", 15000);
	assert_non_null(n);
	assert_string_equal(n, "n-b");

	mk_pod("lost", "csched", "100m", "64Mi", ",\"volumes\":[{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"data-c\"}}]");
	struct ev_view ev;
	assert_true(wait_event("lost", "FailedScheduling", &ev, 15000));
	assert_string_equal(ev.message, "0/2 nodes are available: 2 node(s) had no available volume zone. "
					"preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
	assert_string_equal(node_of("lost"), "");

	int64_t t0 = harness_now_ms();
	request("PATCH", "/api/v1/persistentvolumes/pv-c", "application/merge-patch+json",
		"{\"metadata\":{\"labels\":{\"topology.kubernetes.io/zone\":\"zone-a\"}}}");
	n = wait_bound("lost", 15000);
	assert_non_null(n);
	assert_string_equal(n, "n-a");
	printf("[ MEASURE  ] bound %.2f s after its PV's zone label changed\n", (harness_now_ms() - t0) / 1000.0);
}

/* In-place resize: a bound pod whose resize down is still in progress (the kubelet's container
 * status reports more than the spec) keeps its old requests counted (upstream's PodRequests with
 * status resources), so a pod needing the difference is unschedulable; when the status reports the
 * resize done, the node's requests shrink and the AssignedPod/UpdatePodScaleDown event requeues
 * the pod at once (without the event it would wait for the unschedulable pods' 5-minute flush).
 * The kubelet's part is played by PATCHes of the pod's status subresource. */
/* What the kubelet reports for container c of pod "busy": allocated and actuated cpu. */
static void kubelet_status(const char *cpu)
{
	request("PATCH", "/api/v1/namespaces/" NS "/pods/busy/status", "application/merge-patch+json",
		"{\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\","
		"\"image\":\"registry.k8s.io/pause:3.10\",\"imageID\":\"\",\"ready\":true,\"restartCount\":0,"
		"\"state\":{\"running\":{\"startedAt\":\"2026-01-01T00:00:00Z\"}},"
		"\"allocatedResources\":{\"cpu\":\"%s\"},\"resources\":{\"requests\":{\"cpu\":\"%s\"}}}]}}",
		cpu, cpu);
}

static void test_resize_down_in_progress_then_done(void **state)
{
	(void)state;
	request("POST", "/api/v1/nodes", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"},"
		"\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
		"\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	/* resized from 3 cpus down to 1: the spec says 1, the kubelet still runs it at 3 */
	request("POST", "/api/v1/namespaces/" NS "/pods", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"busy\"},\"spec\":{"
		"\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}");
	kubelet_status("3");

	start_sched(NULL, 0);

	/* 2 cpus: fits only once the resize is done (3 + 2 > 4, 1 + 2 <= 4) */
	request("POST", "/api/v1/namespaces/" NS "/pods", NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"waiter\"},\"spec\":{"
		"\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}}");
	struct sched_stats st;
	int64_t end = harness_now_ms() + 15000;
	do {
		sched_stats(sched, &st);
		if (st.unschedulable >= 1)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(st.unschedulable, 1);
	usleep(1000 * 1000);
	assert_string_equal(node_of("waiter"), "");

	/* the kubelet has allocated and actuated 1 cpu: requeued by the scale-down, bound */
	int64_t t0 = harness_now_ms();
	kubelet_status("1");
	end = t0 + 15000;
	while (!node_of("waiter")[0] && harness_now_ms() < end)
		usleep(50 * 1000);
	assert_string_equal(node_of("waiter"), "n1");
	printf("[ MEASURE  ] bound %.2f s after the resize was reported done\n", (harness_now_ms() - t0) / 1000.0);
	/* well before the unschedulable pods' flush (upstream's podMaxInUnschedulablePodsDuration) */
	assert_true(harness_now_ms() - t0 < 12000);
}

int main(void)
{
	/* CSCHED_TEST_FILTER: run only the tests whose names match (cmocka's pattern). */
	if (getenv("CSCHED_TEST_FILTER"))
		cmocka_set_test_filter(getenv("CSCHED_TEST_FILTER"));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unschedulable_event_condition_then_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unschedulable_condition_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_higher_priority_binds_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gated_pod_waits_until_ungated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_pods_are_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recreated_pod_gets_no_failure_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejected_bind_keeps_cache_consistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_schedulers_pods_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_profiles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bulk_1000_pods_100_nodes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_pvc_then_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_volume_zone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resize_down_in_progress_then_done, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
