/* InterPodAffinity end to end: csched's scheduler, in-process, against a real kube-apiserver + etcd
 * (tests/cluster), one fresh cluster per test:
 *  - 10 replicas with required hostname anti-affinity on 10 nodes land one per node; an 11th
 *    stays pending with upstream's message in its PodScheduled condition, and is bound as soon
 *    as an 11th node joins (the plugin's NodeAdd hint requeues it);
 *  - pods with required zone affinity to a labelled pod land in that pod's zone;
 *  - a namespaceSelector term sees the namespaces' labels (the Namespace informer). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "apiclient/api_types.h"
#include "config/config.h"
#include "harness.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NS "t"

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;
static struct scheduler *sched;
static struct config cfg;

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

static void mk_namespace(const char *name, const char *labels)
{
	request("POST", "/api/v1/namespaces",
		"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\",\"labels\":{%s}}}", name,
		labels);
}

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

/* labels: more JSON members of metadata.labels ("" for none) */
static void mk_node(const char *name, const char *labels)
{
	request("POST", "/api/v1/nodes",
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
		"\"kubernetes.io/hostname\":\"%s\"%s%s}},"
		"\"status\":{\"capacity\":{\"cpu\":\"8\",\"memory\":\"16Gi\",\"pods\":\"110\"},"
		"\"allocatable\":{\"cpu\":\"8\",\"memory\":\"16Gi\",\"pods\":\"110\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		name, name, labels[0] ? "," : "", labels);
}

/* labels: JSON members of metadata.labels; extra: more members of spec (leading comma included) */
static void mk_pod(const char *ns, const char *name, const char *labels, const char *extra)
{
	char path[128];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods", ns);
	request("POST", path,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{%s}},\"spec\":{"
		"\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"100Mi\"}}}]%s}}",
		name, labels, extra);
}

static struct api_pod *get_pod(const char *ns, const char *name)
{
	char path[256];
	struct api_response r = { 0 };
	struct err e = { 0 };
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods/%s", ns, name);
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) < 0) {
		api_response_release(&r);
		return NULL;
	}
	struct api_pod *p = api_pod_decode_json(r.body, r.len, &e);
	api_response_release(&r);
	return p;
}

/* The pod's node (static copy) once bound within timeout_ms, else NULL. */
static const char *wait_bound(const char *ns, const char *name, long timeout_ms)
{
	static char buf[256];
	int64_t end = harness_now_ms() + timeout_ms;
	do {
		struct api_pod *p = get_pod(ns, name);
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

static void start_sched(void)
{
	struct err e = { 0 };
	if (!cfg.arena && config_init_default(&cfg, fw_registry(), &e) < 0)
		fail_msg("config: %s", e.msg);
	struct sched_options o = { .cfg = &cfg, .client = cl };
	if (!(sched = sched_new(&o, &e)))
		fail_msg("sched_new: %s", e.msg);
	if (sched_start_scheduling(sched, &e) < 0)
		fail_msg("sched_start_scheduling: %s", e.msg);
	assert_true(sched_wait_synced(sched, 30000));
}

/* The PodScheduled condition's message of ns/name once it equals want (fails after timeout_ms). */
static void wait_condition_message(const char *ns, const char *name, const char *want, long timeout_ms)
{
	char got[1100] = "";
	int64_t end = harness_now_ms() + timeout_ms;
	do {
		struct api_pod *p = get_pod(ns, name);
		assert_non_null(p);
		for (uint32_t i = 0; i < p->n_conditions; i++)
			if (!strcmp(p->conditions[i].type, "PodScheduled"))
				snprintf(got, sizeof(got), "%s", p->conditions[i].message ? p->conditions[i].message : "");
		api_pod_unref(p);
		if (!strcmp(got, want))
			return;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	fail_msg("%s/%s: PodScheduled message \"%s\", want \"%s\"", ns, name, got, want);
}

#define ANTI_HOSTNAME                                                                                        \
	",\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"          \
	"\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}"

static void test_anti_affinity_one_per_node(void **state)
{
	(void)state;
	char name[64];
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "node-%d", i);
		mk_node(name, "");
	}
	start_sched();
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "web-%d", i);
		mk_pod(NS, name, "\"app\":\"web\"", ANTI_HOSTNAME);
	}
	bool used[10] = { false };
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "web-%d", i);
		const char *n = wait_bound(NS, name, 30000);
		if (!n)
			fail_msg("%s not bound", name);
		int k = atoi(n + strlen("node-"));
		assert_true(k >= 0 && k < 10);
		if (used[k])
			fail_msg("%s landed on %s, which already has a replica", name, n);
		used[k] = true;
	}

	/* the 11th: every node holds a replica it refuses (upstream's FitError message; csched has
	 * no DefaultPreemption, so no preemption suffix: docs/config.md) */
	mk_pod(NS, "web-10", "\"app\":\"web\"", ANTI_HOSTNAME);
	wait_condition_message(NS, "web-10",
			       "0/10 nodes are available: 10 node(s) didn't match pod anti-affinity rules. preemption: 0/10 "
			       "nodes are available: 10 No preemption victims found for incoming pod.", 15000);
	assert_null(wait_bound(NS, "web-10", 500));

	int64_t t0 = harness_now_ms();
	mk_node("node-10", "");
	const char *n = wait_bound(NS, "web-10", 15000);
	assert_non_null(n);
	assert_string_equal(n, "node-10");
	printf("[ MEASURE  ] bound %.2f s after the 11th node was created\n", (harness_now_ms() - t0) / 1000.0);
	assert_true(harness_now_ms() - t0 < 12000);
}

#define AFF_ZONE(extra)                                                                                     \
	",\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"              \
	"\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},\"topologyKey\":\"topology.kubernetes.io/zone\"" \
	extra "}]}}"

static void test_affinity_to_zone(void **state)
{
	(void)state;
	char name[64], labels[128];
	const char *zones[] = { "a", "b", "c" };
	for (int i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "node-%d", i);
		snprintf(labels, sizeof(labels), "\"topology.kubernetes.io/zone\":\"%s\"", zones[i % 3]);
		mk_node(name, labels);
	}
	mk_namespace("other", "\"team\":\"blue\"");
	start_sched();
	/* the anchor, pinned to zone b (node-4) by a node selector */
	mk_pod(NS, "db", "\"app\":\"db\"", ",\"nodeSelector\":{\"kubernetes.io/hostname\":\"node-4\"}");
	assert_non_null(wait_bound(NS, "db", 15000));
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "client-%d", i);
		mk_pod(NS, name, "\"app\":\"client\"", AFF_ZONE(""));
	}
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "client-%d", i);
		const char *n = wait_bound(NS, name, 15000);
		if (!n)
			fail_msg("%s not bound", name);
		int k = atoi(n + strlen("node-"));
		if (k % 3 != 1)
			fail_msg("%s landed on %s, outside zone b", name, n);
	}

	/* pods of namespace "other" selecting the anchor's namespace by its labels (the Namespace
	 * informer's store): team=blue selects no namespace, so no pod matches (and x does not match
	 * its own term: x is not app=db); the apiserver's kubernetes.io/metadata.name label selects
	 * "t", where the anchor runs */
	mk_pod("other", "x", "\"app\":\"x\"",
	       AFF_ZONE(",\"namespaceSelector\":{\"matchLabels\":{\"team\":\"blue\"}}"));
	wait_condition_message("other", "x", "0/9 nodes are available: 9 node(s) didn't match pod affinity rules. preemption: 0/9 nodes are "
			       "available: 9 Preemption is not helpful for scheduling.",
			       15000);
	mk_pod("other", "y", "\"app\":\"y\"",
	       AFF_ZONE(",\"namespaceSelector\":{\"matchLabels\":{\"kubernetes.io/metadata.name\":\"" NS "\"}}"));
	const char *n = wait_bound("other", "y", 15000);
	assert_non_null(n);
	if (atoi(n + strlen("node-")) % 3 != 1)
		fail_msg("other/y landed on %s, outside zone b", n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_anti_affinity_one_per_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_affinity_to_zone, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
