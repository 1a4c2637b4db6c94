/* csched explain for a pod with a ResourceClaim (issue 23, "Beyond upstream") against a real
 * kube-apiserver + etcd: three nodes, a DeviceClass, ResourceSlices for two of them (two GPUs on
 * dx-gpu, one tainted GPU on dx-tainted), a first pod whose claim csched allocates on dx-gpu, and a
 * second pod whose claim asks for two GPUs and stays pending. The explanation's message is the
 * FailedScheduling event's (upstream's "cannot allocate all claims"), and each node's details say
 * why: one GPU of dx-gpu is allocated to the first claim (named), dx-plain publishes no device,
 * dx-tainted's device has an untolerated taint. The live endpoint (`csched explain --server`,
 * /debug/explain on the secure port) answers the same details, and the one-shot command
 * (`csched explain --kubeconfig`, its own informers) prints them in its table. */
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
#include "config/config.h"
#include "harness.h"
#include "scheduler/explain.h"
#include "scheduler/health.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NS "dx"
#define DRIVER "gpu.example.com"

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

static void mk_node(const char *name)
{
	request("POST", "/api/v1/nodes",
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
		"\"kubernetes.io/hostname\":\"%s\"}},\"spec\":{},"
		"\"status\":{\"capacity\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"pods\":\"110\"},"
		"\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"pods\":\"110\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		name, name);
}

static void mk_slice(const char *node, const char *devices)
{
	request("POST", "/apis/resource.k8s.io/v1/resourceslices",
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"%s-gpus\"},"
		"\"spec\":{\"driver\":\"" DRIVER "\",\"pool\":{\"name\":\"%s\",\"generation\":1,\"resourceSliceCount\":1},"
		"\"nodeName\":\"%s\",\"devices\":[%s]}}",
		node, node, node, devices);
}

static void mk_claim(const char *name, int count)
{
	request("POST", "/apis/resource.k8s.io/v1/namespaces/" NS "/resourceclaims",
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"%s\"},"
		"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpus\",\"exactly\":{\"deviceClassName\":\"" DRIVER
		"\",\"allocationMode\":\"ExactCount\",\"count\":%d}}]}}}",
		name, count);
}

static void mk_pod(const char *name, const char *claim)
{
	request("POST", "/api/v1/namespaces/" NS "/pods",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
		"\"schedulerName\":\"csched\",\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":\"%s\"}],"
		"\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"100m\"},\"claims\":[{\"name\":\"gpu\"}]}}]}}",
		name, claim);
}

/* The pod's node (static copy), "" while unbound, NULL when absent. */
static const char *node_of(const char *name)
{
	static char buf[256];
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
	if (!p)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", p->node_name ? p->node_name : "");
	api_pod_unref(p);
	return buf;
}

static const char *jstr(yajl_val v, const char *const *path)
{
	yajl_val s = yajl_tree_get(v, (const char **)path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

/* The message of the pod's latest FailedScheduling event (malloc'd), or NULL. */
static char *failed_scheduling_message(const char *pod)
{
	char path[512];
	struct api_response r = { 0 };
	struct err e = { 0 };
	char *msg = NULL;
	snprintf(path, sizeof(path),
		 "/apis/events.k8s.io/v1/namespaces/" NS "/events?fieldSelector=regarding.name%%3D%s", pod);
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) < 0) {
		api_response_release(&r);
		return NULL;
	}
	yajl_val root = yajl_tree_parse(r.body, NULL, 0);
	api_response_release(&r);
	yajl_val items = root ? yajl_tree_get(root, (const char *[]){ "items", NULL }, yajl_t_array) : NULL;
	for (size_t i = 0; items && i < items->u.array.len; i++) {
		const char *reason = jstr(items->u.array.values[i], (const char *[]){ "reason", NULL });
		const char *note = jstr(items->u.array.values[i], (const char *[]){ "note", NULL });
		if (reason && note && strcmp(reason, "FailedScheduling") == 0) {
			free(msg);
			msg = strdup(note);
		}
	}
	yajl_tree_free(root);
	return msg;
}

static yajl_val explain_json(const char *pod)
{
	struct sched_explain_request rq = { NS, pod, NULL, SCHED_EXPLAIN_JSON };
	char *text = NULL, errbuf[256];
	size_t len = 0;
	struct err e = { 0 };
	if (sched_explain(sched, &rq, &text, &len, &e) < 0)
		fail_msg("explain %s: %s", pod, e.msg);
	yajl_val v = yajl_tree_parse(text, errbuf, sizeof(errbuf));
	if (!v)
		fail_msg("explain %s: not JSON (%s):\n%s", pod, errbuf, text);
	printf("%s\n", text);
	free(text);
	return v;
}

/* The details of node's row, joined by '\n' into buf. */
static const char *details_of(yajl_val root, const char *node, char *buf, size_t size)
{
	yajl_val arr = yajl_tree_get(root, (const char *[]){ "nodeResults", NULL }, yajl_t_array);
	buf[0] = '\0';
	for (size_t i = 0; arr && i < arr->u.array.len; i++) {
		yajl_val n = arr->u.array.values[i];
		const char *name = jstr(n, (const char *[]){ "name", NULL });
		if (!name || strcmp(name, node) != 0)
			continue;
		assert_string_equal(jstr(n, (const char *[]){ "plugin", NULL }), "DynamicResources");
		yajl_val d = yajl_tree_get(n, (const char *[]){ "details", NULL }, yajl_t_array);
		assert_non_null(d);
		for (size_t k = 0; k < d->u.array.len; k++)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s\n", YAJL_GET_STRING(d->u.array.values[k]));
		return buf;
	}
	fail_msg("no row for %s", node);
	return NULL;
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
	if (config_init_default(&cfg, fw_registry(), &e) < 0) {
		fprintf(stderr, "config: %s\n", e.msg);
		return -1;
	}
	mk_node("dx-gpu");
	mk_node("dx-plain");
	mk_node("dx-tainted");
	request("POST", "/apis/resource.k8s.io/v1/deviceclasses",
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"" DRIVER "\"},"
		"\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == '" DRIVER "'\"}}]}}");
	mk_slice("dx-gpu", "{\"name\":\"gpu-0\",\"attributes\":{\"model\":{\"string\":\"a100\"}}},"
			   "{\"name\":\"gpu-1\",\"attributes\":{\"model\":{\"string\":\"a100\"}}}");
	mk_slice("dx-tainted", "{\"name\":\"gpu-0\",\"attributes\":{\"model\":{\"string\":\"a100\"}},"
			       "\"taints\":[{\"key\":\"example.com/broken\",\"value\":\"ecc\",\"effect\":\"NoSchedule\"}]}");
	struct sched_options so = { .cfg = &cfg, .client = cl, .binders = 2 };
	if (!(sched = sched_new(&so, &e)) || sched_start_scheduling(sched, &e) < 0) {
		fprintf(stderr, "scheduler: %s\n", e.msg);
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

static void test_pending_dra_pod(void **state)
{
	(void)state;
	char buf[4096];
	/* the first claim gets a GPU of dx-gpu (the only node with an untainted one) */
	mk_claim("first-claim", 1);
	mk_pod("first", "first-claim");
	int64_t end = harness_now_ms() + 30000;
	const char *n;
	while (!((n = node_of("first")) && n[0]) && harness_now_ms() < end)
		usleep(100 * 1000);
	assert_non_null(n);
	assert_string_equal(n, "dx-gpu");
	/* the second asks for two: dx-gpu has one left */
	mk_claim("pair-claim", 2);
	mk_pod("second", "pair-claim");
	char *want = NULL;
	end = harness_now_ms() + 30000;
	while (!(want = failed_scheduling_message("second")) && harness_now_ms() < end)
		usleep(100 * 1000);
	assert_non_null(want);
	yajl_val root = explain_json("second");
	assert_string_equal(jstr(root, (const char *[]){ "result", "code", NULL }), "Unschedulable");
	/* upstream's message, byte for byte the event's */
	assert_string_equal(jstr(root, (const char *[]){ "result", "message", NULL }), want);
	assert_non_null(strstr(want, "cannot allocate all claims"));
	/* and why, per node */
	assert_string_equal(details_of(root, "dx-gpu", buf, sizeof(buf)),
			    "claim " NS "/pair-claim, request gpus (class " DRIVER "): 1 of 2 devices usable, 2 needed: 1 "
			    "already allocated (to claims " NS "/first-claim)\n");
	assert_string_equal(details_of(root, "dx-plain", buf, sizeof(buf)),
			    "claim " NS "/pair-claim, request gpus (class " DRIVER "): no device on this node's resource pools\n");
	assert_string_equal(details_of(root, "dx-tainted", buf, sizeof(buf)),
			    "claim " NS "/pair-claim, request gpus (class " DRIVER "): 0 of 1 devices usable, 2 needed: 1 have a "
			    "taint the request does not tolerate (example.com/broken=ecc:NoSchedule)\n");
	yajl_tree_free(root);

	/* the live endpoint, through the command */
	struct err e = { 0 };
	struct sched_auth_options ao = { .authn = cl, .authz = cl };
	struct sched_auth *auth = sched_auth_new(&ao, &e);
	assert_non_null(auth);
	struct sched_health_options ho = { .bind_address = "127.0.0.1", .port = SCHED_HEALTH_PORT_EPHEMERAL,
					   .auth = auth, .explain = sched };
	struct sched_health *h = sched_health_start(&ho, &e);
	if (!h)
		fail_msg("health: %s", e.msg);
	char *tok = NULL;
	if (harness_kubectl(cluster.kubeconfig, NULL, &tok,
			    "config view --raw -o jsonpath='{.users[?(@.name==\"admin-token\")].user.token}'") != 0 ||
	    !tok || !tok[0])
		fail_msg("admin token: %s", tok ? tok : "");
	tok[strcspn(tok, "\r\n")] = '\0';
	char *live = NULL;
	int rc = harness_run(&live, "'%s' explain " NS "/second --server https://127.0.0.1:%d --token '%s' "
				    "--insecure-skip-tls-verify -o json 2>/dev/null",
			     CSCHED_BUILD_DIR "/csched", sched_health_port(h), tok);
	if (rc != 0)
		fail_msg("csched explain --server: %d: %s", rc, live);
	yajl_val lr = yajl_tree_parse(live, NULL, 0);
	assert_non_null(lr);
	assert_string_equal(details_of(lr, "dx-gpu", buf, sizeof(buf)),
			    "claim " NS "/pair-claim, request gpus (class " DRIVER "): 1 of 2 devices usable, 2 needed: 1 "
			    "already allocated (to claims " NS "/first-claim)\n");
	yajl_tree_free(lr);
	free(live);
	free(tok);
	sched_health_stop(h);
	sched_auth_free(auth);

	/* the one-shot command, with its own informers, prints the details in the table */
	char *out = NULL;
	rc = harness_run(&out, "'%s' explain " NS "/second --kubeconfig '%s' 2>/dev/null", CSCHED_BUILD_DIR "/csched",
			     cluster.kubeconfig);
	if (rc != 0)
		fail_msg("csched explain (one-shot): %d: %s", rc, out);
	printf("one-shot explain:\n%s", out);
	if (!strstr(out, want))
		fail_msg("one-shot table lacks the message \"%s\"", want);
	assert_non_null(strstr(out, "    claim " NS "/pair-claim, request gpus (class " DRIVER "): 1 of 2 devices usable, 2 "
				    "needed: 1 already allocated (to claims " NS "/first-claim)\n"));
	free(out);
	free(want);
	/* explain wrote nothing: the pod is still pending */
	assert_string_equal(node_of("second"), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pending_dra_pod),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
