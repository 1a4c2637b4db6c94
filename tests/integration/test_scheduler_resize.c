/* In-place resize against a real kube-apiserver + etcd (tests/cluster), csched in-process:
 * a bound pod whose resize down is still in progress (the kubelet's container status reports more
 * than the spec) keeps its old requests counted (upstream's PodRequests with status resources),
 * so a pod needing the difference is unschedulable; when the status reports the resize done, the
 * node's requests shrink and the AssignedPod/UpdatePodScaleDown event requeues the pod at once
 * (without the event it would wait for the unschedulable pods' 5-minute flush). The kubelet's
 * part is played by PATCHes of the pod's status subresource. */
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

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	if (harness_cluster_start(&cluster, 0, &e) < 0) {
		fprintf(stderr, "cluster: %s\n", e.msg);
		return -1;
	}
	if (!(cl = harness_client_new(&cluster, NULL, &e)) || !(conn = api_conn_new(cl, &e))) {
		fprintf(stderr, "client: %s\n", e.msg);
		return -1;
	}
	const char *ns = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" NS "\"}}";
	if (api_request(conn, "POST", "/api/v1/namespaces", NULL, ns, strlen(ns), NULL, &e) < 0) {
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
	api_conn_free(conn);
	conn = NULL;
	api_client_free(cl);
	cl = NULL;
	harness_cluster_stop(&cluster);
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

/* The pod's node name (a static copy), "" while unbound. */
static const char *node_of(const char *name)
{
	static char buf[256];
	char path[256];
	struct api_response r = { 0 };
	struct err e = { 0 };
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s", name);
	buf[0] = '\0';
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) == 0) {
		struct api_pod *p = api_pod_decode_json(r.body, r.len, &e);
		if (p)
			snprintf(buf, sizeof(buf), "%s", p->node_name);
		api_pod_unref(p);
	}
	api_response_release(&r);
	return buf;
}

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
	struct err e = { 0 };
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

	if (config_init_default(&cfg, fw_registry(), &e) < 0)
		fail_msg("config: %s", e.msg);
	struct sched_options o = { .cfg = &cfg, .client = cl};
	if (!(sched = sched_new(&o, &e)))
		fail_msg("sched_new: %s", e.msg);
	if (sched_start_scheduling(sched, &e) < 0)
		fail_msg("sched_start_scheduling: %s", e.msg);
	assert_true(sched_wait_synced(sched, 30000));

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
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_resize_down_in_progress_then_done, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
