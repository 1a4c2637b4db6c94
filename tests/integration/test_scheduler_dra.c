/* DynamicResources (resource.k8s.io/v1) on a real kube-apiserver + etcd + kube-controller-manager
 * (its resourceclaim controller makes template claims and writes the pods'
 * status.resourceClaimStatuses), csched in-process beside upstream's kube-scheduler v1.37.2
 * (tests/cluster's binary, profile "upstream" = the default plugins), one cluster for the file.
 *
 * Each scheduler gets its own copy of the same device world: a DeviceClass "gpu-T" selecting
 * driver "gpu-T.example.com" and ResourceSlices of that driver on the same four nodes (T = "c"
 * for csched, "u" for upstream), so that both run side by side without taking each other's
 * devices. Every scenario is run by both; what each decided (the node of each pod, each claim's
 * allocation: node, request/pool/device results, reservedFor count; the FailedScheduling message
 * and the PodScheduled condition) is rendered without the driver's name and csched's rendering
 * must equal upstream's. The scenarios are built so that one node only can fit (upstream breaks
 * score ties at random), and csched's outcome is also checked against the scenario's design.
 *
 * Device world per driver (memory capacity, model and numa attributes):
 *   n0: a100 80Gi, a30 24Gi, mig0 10Gi, late 10Gi
 *   n1: t4a t4 numa 0, t4b t4 numa 1, v100 32Gi, a10 24Gi, mig0..mig2 10Gi
 *   n2: l4-0..l4-3 (numa 0,0,1,1), ext (the extended resource's device)
 *   n3: t4a, t4b (both numa 0), h100 80Gi tainted maint=x:NoSchedule
 *
 * Scenarios (issue 23's integration list):
 *  - a claim for a device with >= 40Gi: only n0's a100 (h100 is tainted);
 *  - one claim shared by two pods: both on n1 (v100), reservedFor holds both;
 *  - a template claim: the controller creates it, the pod lands on n1 (a10);
 *  - a pod whose claim does not exist yet waits (PreEnqueue, no attempt) and is scheduled once
 *    the claim is created;
 *  - count 3 (mig: n1 only) and allocationMode All (l4: the 4 devices of n2);
 *  - firstAvailable [huge (>= 1Ti: none), small (a30)]: result "gpu/small" on n0;
 *  - matchAttribute numa over 2 t4: n3 only (n1's two differ);
 *  - a device taint not tolerated: pending with upstream's message; tolerated: n3;
 *  - a pending claim woken by a new ResourceSlice: bound within a bound well below any timer
 *    (the unschedulable pool's flush is 5 min, backoff starts at 1 s), latency measured;
 *  - an extended resource backed by DRA (DeviceClass extendedResourceName): upstream binds it to
 *    n2, the scheduler-created claim allocated, the pod's extendedResourceClaimStatus written;
 *    csched does not implement DRAExtendedResource yet (docs/config.md) and must stay pending
 *    with NodeResourcesFit's reason;
 *  - 210 claims of one device each over 200 devices (driver bulk.example.com, 50 per node), all
 *    at once, csched only: exactly 200 pods bound, every allocated device distinct, each claim
 *    allocated on its pod's node and reserved for it, the 10 others unallocated.
 * CSCHED_TEST_DRA_SIDE=upstream runs upstream's side alone (checks the scenarios' design against
 * upstream itself), =csched csched's alone; CSCHED_TEST_FILTER selects tests (cmocka's filter). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NS "dra"
#define WAIT_MS 60000
#define N_NODES 4
#define RES "/apis/resource.k8s.io/v1"

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;
static struct scheduler *sched;
static struct config cfg;
static pid_t upstream_pid;
static pid_t binary_pid; /* test_binary's csched, stopped by teardown if the test fails */

/* The two schedulers; upstream's side is off when its binary could not be built. */
struct side {
	const char *tag;       /* "c" / "u": names of pods, claims, drivers and classes */
	const char *scheduler; /* spec.schedulerName */
	bool on;
};
static struct side sides[2] = { { "c", "csched", true }, { "u", "upstream", false } };
#define FOR_SIDES(k)                                                                                  \
	for (int k = 0; k < 2; k++)                                                                   \
		if (sides[k].on)

/* ---------- requests ---------- */

/* Replaces @D (the side's driver), @C (its DeviceClass) and @T (its tag) in tmpl. */
static void subst(char *out, size_t size, const char *tmpl, const char *tag)
{
	size_t n = 0;
	for (const char *p = tmpl; *p && n + 1 < size; p++) {
		if (p[0] == '@' && (p[1] == 'D' || p[1] == 'C' || p[1] == 'T')) {
			n += snprintf(out + n, size - n, p[1] == 'D' ? "gpu-%s.example.com" : p[1] == 'C' ? "gpu-%s" : "%s",
				      tag);
			p++;
			if (n >= size)
				n = size - 1;
			continue;
		}
		out[n++] = *p;
	}
	out[n] = '\0';
}

/* A request whose body is fmt's output with the side's names substituted; fails the test on an
 * error. out (if not NULL) receives the response body. */
static void request(const char *tag, const char *method, const char *path, char *out, size_t out_size,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void request(const char *tag, const char *method, const char *path, char *out, size_t out_size,
		    const char *fmt, ...)
{
	static char raw[65536], body[65536];
	char p[512];
	struct api_response r = { 0 };
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	subst(body, sizeof(body), raw, tag);
	subst(p, sizeof(p), path, tag);
	const char *ct = !strcmp(method, "PATCH") ? "application/merge-patch+json" : NULL;
	if (api_request(conn, method, p, ct, body, strlen(body), &r, &e) < 0)
		fail_msg("%s %s: %s", method, p, e.msg);
	if (out)
		snprintf(out, out_size, "%.*s", (int)r.len, r.body);
	api_response_release(&r);
}

/* GET path: the parsed body (yajl_tree_free), or NULL on 404. */
static yajl_val get_json(const char *path)
{
	struct api_response r = { 0 };
	struct err e = { 0 };
	char errbuf[256];
	int rc = api_request(conn, "GET", path, NULL, NULL, 0, &r, &e);
	if (rc == ERR_NOT_FOUND) {
		api_response_release(&r);
		return NULL;
	}
	if (rc < 0)
		fail_msg("GET %s: %s", path, e.msg);
	yajl_val v = yajl_tree_parse(r.body, errbuf, sizeof(errbuf));
	api_response_release(&r);
	if (!v)
		fail_msg("GET %s: %s", path, errbuf);
	return v;
}

static yajl_val jget(yajl_val v, yajl_type t, ...)
{
	const char *path[8];
	int n = 0;
	va_list ap;
	va_start(ap, t);
	while (n < 7 && (path[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	path[n] = NULL;
	return v ? yajl_tree_get(v, path, t) : NULL;
}

static const char *jstr(yajl_val v, ...)
{
	const char *path[8];
	int n = 0;
	va_list ap;
	va_start(ap, v);
	while (n < 7 && (path[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	path[n] = NULL;
	yajl_val s = v ? yajl_tree_get(v, path, yajl_t_string) : NULL;
	return s ? YAJL_GET_STRING(s) : "";
}

/* ---------- the device world ---------- */

/* One device: model, numa, memory; extra (",..." members) appended, e.g. taints. */
static int dev(char *out, size_t size, const char *name, const char *model, int numa, const char *mem,
	       const char *extra)
{
	return snprintf(out, size,
			"{\"name\":\"%s\",\"attributes\":{\"model\":{\"string\":\"%s\"},\"numa\":{\"int\":%d}},"
			"\"capacity\":{\"memory\":{\"value\":\"%s\"}}%s}",
			name, model, numa, mem, extra);
}

/* The slice NAME of driver @D in pool POOL on node NODE with the devices (a JSON array body). */
static void mk_slice(const char *tag, const char *name, const char *pool, const char *node, const char *devices)
{
	request(tag, "POST", RES "/resourceslices", NULL, 0,
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"%s\"},"
		"\"spec\":{\"driver\":\"@D\",\"pool\":{\"name\":\"%s\",\"generation\":1,\"resourceSliceCount\":1},"
		"\"nodeName\":\"%s\",\"devices\":[%s]}}",
		name, pool, node, devices);
}

static void mk_world(const char *tag)
{
	char d[4096];
	size_t n;
	request(tag, "POST", RES "/deviceclasses", NULL, 0,
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"@C\"},"
		"\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == '@D'\"}}]}}");
	/* the extended resource's class: model "ext" only */
	request(tag, "POST", RES "/deviceclasses", NULL, 0,
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"@C-ext\"},"
		"\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == '@D' && "
		"device.attributes['@D'].model == 'ext'\"}}],\"extendedResourceName\":\"example.com/gpu-@T\"}}");

	n = dev(d, sizeof(d), "a100", "a100", 0, "80Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	n += dev(d + n, sizeof(d) - n, "a30", "a30", 0, "24Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	n += dev(d + n, sizeof(d) - n, "mig0", "mig", 0, "10Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	dev(d + n, sizeof(d) - n, "late", "late", 0, "10Gi", "");
	mk_slice(tag, "@D-n0", "n0", "n0", d);

	n = dev(d, sizeof(d), "t4a", "t4", 0, "16Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	n += dev(d + n, sizeof(d) - n, "t4b", "t4", 1, "16Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	n += dev(d + n, sizeof(d) - n, "v100", "v100", 0, "32Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	n += dev(d + n, sizeof(d) - n, "a10", "a10", 0, "24Gi", "");
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "mig%d", i);
		n += snprintf(d + n, sizeof(d) - n, ",");
		n += dev(d + n, sizeof(d) - n, name, "mig", 0, "10Gi", "");
	}
	mk_slice(tag, "@D-n1", "n1", "n1", d);

	n = 0;
	for (int i = 0; i < 4; i++) {
		char name[16];
		snprintf(name, sizeof(name), "l4-%d", i);
		n += dev(d + n, sizeof(d) - n, name, "l4", i / 2, "24Gi", "");
		n += snprintf(d + n, sizeof(d) - n, ",");
	}
	dev(d + n, sizeof(d) - n, "ext", "ext", 0, "24Gi", "");
	mk_slice(tag, "@D-n2", "n2", "n2", d);

	n = dev(d, sizeof(d), "t4a", "t4", 0, "16Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	n += dev(d + n, sizeof(d) - n, "t4b", "t4", 0, "16Gi", "");
	n += snprintf(d + n, sizeof(d) - n, ",");
	dev(d + n, sizeof(d) - n, "h100", "h100", 0, "80Gi",
	    ",\"taints\":[{\"key\":\"maint\",\"value\":\"x\",\"effect\":\"NoSchedule\"}]");
	mk_slice(tag, "@D-n3", "n3", "n3", d);
}

/* ---------- claims and pods ---------- */

/* Claim @T-NAME with spec.devices = devices (the side's names substituted). */
static void mk_claim(const char *tag, const char *name, const char *devices)
{
	request(tag, "POST", RES "/namespaces/" NS "/resourceclaims", NULL, 0,
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"@T-%s\"},"
		"\"spec\":{\"devices\":%s}}",
		name, devices);
}

/* One request "gpu" of class @C with the CEL selector sel (NULL: none) and more members. */
#define REQ(sel, more)                                                                               \
	"{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"@C\"" sel more "}}]}"
#define SEL(expr) ",\"selectors\":[{\"cel\":{\"expression\":\"" expr "\"}}]"
#define MODEL(m) SEL("device.attributes['@D'].model == '" m "'")

/* Pod @T-NAME of the side's scheduler whose pod claim "gpu" is claims_json (one
 * spec.resourceClaims entry's other members) and whose container has resources (a JSON object). */
static void mk_pod_res(const struct side *s, const char *name, const char *claim_member, const char *resources)
{
	char claims[512] = "";
	if (claim_member)
		snprintf(claims, sizeof(claims), ",\"resourceClaims\":[{\"name\":\"gpu\",%s}]", claim_member);
	request(s->tag, "POST", "/api/v1/namespaces/" NS "/pods", NULL, 0,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"@T-%s\"},\"spec\":{"
		"\"schedulerName\":\"%s\",\"terminationGracePeriodSeconds\":0,\"containers\":[{\"name\":\"c\","
		"\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":%s}]%s}}",
		name, s->scheduler, resources, claims);
}

/* A pod using claim @T-CLAIM. */
static void mk_pod(const struct side *s, const char *name, const char *claim)
{
	char member[128];
	snprintf(member, sizeof(member), "\"resourceClaimName\":\"@T-%s\"", claim);
	mk_pod_res(s, name, member, "{\"claims\":[{\"name\":\"gpu\"}]}");
}

/* The node of pod @T-NAME, "" while unbound (static storage). */
static const char *node_of(const char *tag, const char *name)
{
	static char buf[64];
	char path[256];
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s-%s", tag, name);
	yajl_val v = get_json(path);
	snprintf(buf, sizeof(buf), "%s", jstr(v, "spec", "nodeName", NULL));
	yajl_tree_free(v);
	return buf;
}

static const char *wait_bound(const char *tag, const char *name)
{
	int64_t end = harness_now_ms() + WAIT_MS;
	const char *n;
	while (!(n = node_of(tag, name))[0]) {
		if (harness_now_ms() > end)
			fail_msg("pod %s-%s not bound after %d ms", tag, name, WAIT_MS);
		usleep(20 * 1000);
	}
	return n;
}

/* The newest FailedScheduling event's message of pod NAME (full name), "" until there is one. */
static void failed_message_of(const char *name, char *out, size_t size)
{
	char path[256];
	out[0] = '\0';
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/events?fieldSelector=involvedObject.name%%3D%s", name);
	yajl_val root = get_json(path);
	yajl_val items = jget(root, yajl_t_array, "items", NULL);
	for (size_t i = 0; items && i < YAJL_GET_ARRAY(items)->len; i++) {
		yajl_val it = YAJL_GET_ARRAY(items)->values[i];
		if (!strcmp(jstr(it, "reason", NULL), "FailedScheduling"))
			snprintf(out, size, "%s", jstr(it, "message", NULL));
	}
	yajl_tree_free(root);
}

static void failed_message(const char *tag, const char *name, char *out, size_t size)
{
	char full[128];
	snprintf(full, sizeof(full), "%s-%s", tag, name);
	failed_message_of(full, out, size);
}

/* Renders a side's names tag-free in place: "gpu-c..." -> "gpu-T...", a word "c-..." -> "T-..."
 * (tags are one character, so lengths are kept). */
static void normalize(char *s, const char *tag)
{
	char t = tag[0];
	for (char *p = s; *p; p++) {
		if (!strncmp(p, "gpu-", 4) && p[4] == t)
			p[4] = 'T';
		else if (p[0] == t && p[1] == '-' && (p == s || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '-')))
			p[0] = 'T';
	}
}

/* The pod's PodScheduled condition as "status reason: message". */
/* "on device DRIVER/POOL/DEVICE:" -> "on device *:" in place: which device a CEL runtime error
 * is met on first depends on which node's Filter gets there first (upstream runs them in
 * parallel), so only the rest of the message is compared. */
static void mask_device(char *s)
{
	for (char *p = strstr(s, "on device "); p; p = strstr(p, "on device ")) {
		char *q = p + strlen("on device "), *colon = strchr(q, ':');
		if (!colon)
			break;
		*q = '*';
		memmove(q + 1, colon, strlen(colon) + 1);
		p = q;
	}
}

/* The pod's PodScheduled condition, waited for up to WAIT_MS: both schedulers write the
 * FailedScheduling event and the status patch from different threads, so the event can come
 * first (seen with upstream in the TSan run). */
static void scheduled_condition(const char *tag, const char *name, char *out, size_t size)
{
	char path[256];
	int64_t end = harness_now_ms() + WAIT_MS;
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s-%s", tag, name);
	for (;;) {
		out[0] = '\0';
		yajl_val v = get_json(path);
		yajl_val conds = jget(v, yajl_t_array, "status", "conditions", NULL);
		for (size_t i = 0; conds && i < YAJL_GET_ARRAY(conds)->len; i++) {
			yajl_val c = YAJL_GET_ARRAY(conds)->values[i];
			if (!strcmp(jstr(c, "type", NULL), "PodScheduled"))
				snprintf(out, size, "%s %s: %s", jstr(c, "status", NULL), jstr(c, "reason", NULL),
					 jstr(c, "message", NULL));
		}
		yajl_tree_free(v);
		if (out[0] || harness_now_ms() > end)
			return;
		usleep(50 * 1000);
	}
}

static void wait_failed(const char *tag, const char *name, char *out, size_t size)
{
	int64_t end = harness_now_ms() + WAIT_MS;
	for (;;) {
		failed_message(tag, name, out, size);
		if (out[0])
			return;
		if (harness_now_ms() > end)
			fail_msg("no FailedScheduling event for %s-%s after %d ms", tag, name, WAIT_MS);
		usleep(50 * 1000);
	}
}

/* The node an allocation's nodeSelector names (upstream: one term, matchFields metadata.name In
 * [node]), "" when none. */
static const char *alloc_node(yajl_val alloc)
{
	yajl_val terms = jget(alloc, yajl_t_array, "nodeSelector", "nodeSelectorTerms", NULL);
	if (!terms || YAJL_GET_ARRAY(terms)->len != 1)
		return "";
	yajl_val t = YAJL_GET_ARRAY(terms)->values[0];
	yajl_val mf = jget(t, yajl_t_array, "matchFields", NULL);
	if (!mf || YAJL_GET_ARRAY(mf)->len != 1)
		return "";
	yajl_val f = YAJL_GET_ARRAY(mf)->values[0];
	yajl_val vals = jget(f, yajl_t_array, "values", NULL);
	if (strcmp(jstr(f, "key", NULL), "metadata.name") || strcmp(jstr(f, "operator", NULL), "In") || !vals ||
	    YAJL_GET_ARRAY(vals)->len != 1 || !YAJL_IS_STRING(YAJL_GET_ARRAY(vals)->values[0]))
		return "";
	return YAJL_GET_STRING(YAJL_GET_ARRAY(vals)->values[0]);
}

/* Claim ns/name rendered without its driver: "node=N results=REQ:POOL/DEV,... reserved=K", or
 * "unallocated reserved=K", or "absent". */
static void claim_summary_path(const char *name, char *out, size_t size)
{
	char path[256];
	snprintf(path, sizeof(path), RES "/namespaces/" NS "/resourceclaims/%s", name);
	yajl_val v = get_json(path);
	if (!v) {
		snprintf(out, size, "absent");
		return;
	}
	yajl_val alloc = jget(v, yajl_t_object, "status", "allocation", NULL);
	yajl_val reserved = jget(v, yajl_t_array, "status", "reservedFor", NULL);
	size_t nres = reserved ? YAJL_GET_ARRAY(reserved)->len : 0, len = 0;
	if (!alloc) {
		snprintf(out, size, "unallocated reserved=%zu", nres);
		yajl_tree_free(v);
		return;
	}
	len += snprintf(out + len, size - len, "node=%s results=", alloc_node(alloc));
	yajl_val results = jget(alloc, yajl_t_array, "devices", "results", NULL);
	for (size_t i = 0; results && i < YAJL_GET_ARRAY(results)->len && len < size; i++) {
		yajl_val r = YAJL_GET_ARRAY(results)->values[i];
		len += snprintf(out + len, size - len, "%s%s:%s/%s", i ? "," : "", jstr(r, "request", NULL),
				jstr(r, "pool", NULL), jstr(r, "device", NULL));
	}
	if (len < size)
		snprintf(out + len, size - len, " reserved=%zu", nres);
	yajl_tree_free(v);
}

static void claim_summary(const char *tag, const char *name, char *out, size_t size)
{
	char full[128];
	snprintf(full, sizeof(full), "%s-%s", tag, name);
	claim_summary_path(full, out, size);
}

/* What each side decided (got[k], rendered without the side's names): csched's must equal
 * upstream's (when both run) and want (when not NULL). */
static void compare(const char *what, char got[2][4096], const char *want)
{
	FOR_SIDES(k)
	printf("[ DRA      ] %s: %s \"%s\"\n", what, sides[k].scheduler, got[k]);
	if (sides[0].on && sides[1].on)
		assert_string_equal(got[0], got[1]);
	FOR_SIDES(k)
	if (want)
		assert_string_equal(got[k], want);
}

/* ---------- setup ---------- */

static pid_t start_upstream(void)
{
	struct err e = { 0 };
	char *bin = NULL;
	if (harness_run(&bin, "%s/tests/cluster/bin kube-scheduler 2>/dev/null", CSCHED_SOURCE_DIR) != 0 || !bin || !bin[0]) {
		free(bin);
		return 0;
	}
	bin[strcspn(bin, "\n")] = '\0';
	char cfgp[400], logp[400], cfgarg[420];
	snprintf(cfgp, sizeof(cfgp), "%s/upstream.yaml", cluster.dir);
	snprintf(logp, sizeof(logp), "%s/upstream.log", cluster.dir);
	FILE *f = fopen(cfgp, "w");
	if (!f) {
		free(bin);
		return 0;
	}
	fprintf(f,
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
		"clientConnection: {kubeconfig: \"%s\"}\nleaderElection: {leaderElect: false}\n"
		"profiles:\n- schedulerName: upstream\n",
		cluster.kubeconfig);
	fclose(f);
	snprintf(cfgarg, sizeof(cfgarg), "--config=%s", cfgp);
	char *argv[] = { bin, cfgarg, "--secure-port=0", NULL };
	pid_t pid = harness_spawn(argv, logp, NULL, &e);
	free(bin);
	if (pid < 0) {
		fprintf(stderr, "kube-scheduler: %s\n", e.msg);
		return 0;
	}
	return pid;
}

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	if (harness_setup(&cluster, HARNESS_CONTROLLER_MANAGER, &cl, &conn) < 0)
		return -1;
	/* the local control plane serves resource.k8s.io/v1 (GA) */
	yajl_val g = get_json(RES);
	if (!g || strcmp(jstr(g, "groupVersion", NULL), "resource.k8s.io/v1")) {
		fprintf(stderr, "the apiserver does not serve resource.k8s.io/v1\n");
		yajl_tree_free(g);
		return -1;
	}
	yajl_tree_free(g);
	request("", "POST", "/api/v1/namespaces", NULL, 0,
		"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" NS "\"}}");
	for (int i = 0; i < N_NODES; i++)
		request("", "POST", "/api/v1/nodes", NULL, 0,
			"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n%d\",\"labels\":{"
			"\"kubernetes.io/hostname\":\"n%d\"}},"
			"\"status\":{\"capacity\":{\"cpu\":\"32\",\"memory\":\"64Gi\",\"pods\":\"110\"},"
			"\"allocatable\":{\"cpu\":\"32\",\"memory\":\"64Gi\",\"pods\":\"110\"},"
			"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
			i, i);
	for (int k = 0; k < 2; k++)
		mk_world(sides[k].tag);
	if (config_init_default(&cfg, fw_registry(), &e) < 0) {
		fprintf(stderr, "config: %s\n", e.msg);
		return -1;
	}
	struct sched_options o = { .cfg = &cfg, .client = cl };
	if (!(sched = sched_new(&o, &e)) || sched_start_scheduling(sched, &e) < 0 || !sched_wait_synced(sched, 30000)) {
		fprintf(stderr, "scheduler: %s\n", e.msg);
		return -1;
	}
	const char *only = getenv("CSCHED_TEST_DRA_SIDE");
	sides[0].on = !only || strcmp(only, "upstream");
	upstream_pid = only && !strcmp(only, "csched") ? 0 : start_upstream();
	sides[1].on = upstream_pid > 0;
	if (!sides[1].on)
		fprintf(stderr, "no kube-scheduler binary (tests/cluster/bin kube-scheduler): csched is checked alone\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	struct err e = { 0 };
	if (binary_pid > 0) {
		kill(binary_pid, SIGTERM);
		harness_wait_child(binary_pid, 10000, NULL, &e);
		binary_pid = 0;
	}
	if (upstream_pid > 0) {
		kill(upstream_pid, SIGTERM);
		harness_wait_child(upstream_pid, 10000, NULL, &e);
		upstream_pid = 0;
	}
	sched_free(sched);
	sched = NULL;
	config_free(&cfg);
	harness_teardown(&cluster, &cl, &conn);
	return 0;
}


/* ---------- scenarios ---------- */

static void test_big_memory(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "big",
			 REQ(SEL("device.capacity['@D'].memory.compareTo(quantity('40Gi')) >= 0"), ""));
		mk_pod(&sides[k], "big", "big");
	}
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "big");
		char c[1024];
		claim_summary(sides[k].tag, "big", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare(">= 40Gi", got, "pod=n0 node=n0 results=gpu:n0/a100 reserved=1");
}

static void test_shared_claim(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "shared", REQ(MODEL("v100"), ""));
		mk_pod(&sides[k], "shared-a", "shared");
		mk_pod(&sides[k], "shared-b", "shared");
	}
	FOR_SIDES(k)
	{
		char a[64], c[1024];
		snprintf(a, sizeof(a), "%s", wait_bound(sides[k].tag, "shared-a"));
		const char *b = wait_bound(sides[k].tag, "shared-b");
		claim_summary(sides[k].tag, "shared", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pods=%s,%s %s", a, b, c);
	}
	compare("shared claim", got, "pods=n1,n1 node=n1 results=gpu:n1/v100 reserved=2");
}

/* The claim the resourceclaim controller made for pod @T-NAME's "gpu" (status.resourceClaimStatuses). */
static void generated_claim(const char *tag, const char *name, char *out, size_t size)
{
	char path[256];
	int64_t end = harness_now_ms() + WAIT_MS;
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s-%s", tag, name);
	out[0] = '\0';
	while (!out[0]) {
		yajl_val v = get_json(path);
		yajl_val st = jget(v, yajl_t_array, "status", "resourceClaimStatuses", NULL);
		for (size_t i = 0; st && i < YAJL_GET_ARRAY(st)->len; i++) {
			yajl_val s = YAJL_GET_ARRAY(st)->values[i];
			if (!strcmp(jstr(s, "name", NULL), "gpu"))
				snprintf(out, size, "%s", jstr(s, "resourceClaimName", NULL));
		}
		yajl_tree_free(v);
		if (!out[0] && harness_now_ms() > end)
			fail_msg("no status.resourceClaimStatuses for %s-%s after %d ms", tag, name, WAIT_MS);
		if (!out[0])
			usleep(50 * 1000);
	}
}

static void test_template_claim(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		request(sides[k].tag, "POST", RES "/namespaces/" NS "/resourceclaimtemplates", NULL, 0,
			"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaimTemplate\",\"metadata\":{\"name\":"
			"\"@T-a10\"},\"spec\":{\"spec\":{\"devices\":" REQ(MODEL("a10"), "") "}}}");
		mk_pod_res(&sides[k], "tmpl", "\"resourceClaimTemplateName\":\"@T-a10\"",
			   "{\"claims\":[{\"name\":\"gpu\"}]}");
	}
	FOR_SIDES(k)
	{
		char claim[256], c[1024];
		const char *n = wait_bound(sides[k].tag, "tmpl");
		generated_claim(sides[k].tag, "tmpl", claim, sizeof(claim));
		/* generateName POD-CLAIM- */
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "%s-tmpl-gpu-", sides[k].tag);
		assert_true(!strncmp(claim, prefix, strlen(prefix)));
		claim_summary_path(claim, c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("template claim", got, "pod=n1 node=n1 results=gpu:n1/a10 reserved=1");
}

static void test_claim_created_later(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	mk_pod(&sides[k], "later", "later");
	/* PreEnqueue keeps the pod out of the cycle: no attempt, no event, unbound */
	usleep(2000 * 1000);
	FOR_SIDES(k)
	{
		char m[1024];
		failed_message(sides[k].tag, "later", m, sizeof(m));
		snprintf(got[k], sizeof(got[k]), "node=\"%s\" event=\"%s\"", node_of(sides[k].tag, "later"), m);
	}
	compare("claim missing", got, "node=\"\" event=\"\"");
	int64_t t0 = harness_now_ms();
	FOR_SIDES(k)
	mk_claim(sides[k].tag, "later", REQ(MODEL("late"), ",\"count\":1"));
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "later");
		printf("[ MEASURE  ] %s: claim created -> pod bound in %lld ms\n", sides[k].scheduler,
		       (long long)(harness_now_ms() - t0));
		char c[1024];
		claim_summary(sides[k].tag, "later", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("claim created later", got, "pod=n0 node=n0 results=gpu:n0/late reserved=1");
}

static void test_count_and_all(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "three", REQ(MODEL("mig"), ",\"count\":3"));
		mk_pod(&sides[k], "three", "three");
	}
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "three");
		char c[1024];
		claim_summary(sides[k].tag, "three", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("count 3", got, "pod=n1 node=n1 results=gpu:n1/mig0,gpu:n1/mig1,gpu:n1/mig2 reserved=1");

	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "all", REQ(MODEL("l4"), ",\"allocationMode\":\"All\""));
		mk_pod(&sides[k], "all", "all");
	}
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "all");
		char c[1024];
		claim_summary(sides[k].tag, "all", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("allocationMode All", got, "pod=n2 node=n2 results=gpu:n2/l4-0,gpu:n2/l4-1,gpu:n2/l4-2,gpu:n2/l4-3 reserved=1");
}

static void test_first_available(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "first",
			 "{\"requests\":[{\"name\":\"gpu\",\"firstAvailable\":["
			 "{\"name\":\"huge\",\"deviceClassName\":\"@C\"" SEL("device.capacity['@D'].memory.compareTo(quantity('1Ti')) >= 0") "},"
			 "{\"name\":\"small\",\"deviceClassName\":\"@C\"" MODEL("a30") "}]}]}");
		mk_pod(&sides[k], "first", "first");
	}
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "first");
		char c[1024];
		claim_summary(sides[k].tag, "first", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("firstAvailable", got, "pod=n0 node=n0 results=gpu/small:n0/a30 reserved=1");
}

static void test_match_attribute(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "numa",
			 "{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"@C\"" MODEL("t4") ",\"count\":2}}],"
			 "\"constraints\":[{\"matchAttribute\":\"@D/numa\"}]}");
		mk_pod(&sides[k], "numa", "numa");
	}
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "numa");
		char c[1024];
		claim_summary(sides[k].tag, "numa", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("matchAttribute", got, "pod=n3 node=n3 results=gpu:n3/t4a,gpu:n3/t4b reserved=1");
}

static void test_taint(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "tainted", REQ(MODEL("h100"), ""));
		mk_pod(&sides[k], "tainted", "tainted");
	}
	FOR_SIDES(k)
	{
		char m[1024], cond[1200];
		wait_failed(sides[k].tag, "tainted", m, sizeof(m));
		/* the event may come before the status patch with the condition */
		int64_t end = harness_now_ms() + WAIT_MS;
		do
			scheduled_condition(sides[k].tag, "tainted", cond, sizeof(cond));
		while (!cond[0] && harness_now_ms() < end && !usleep(20 * 1000));
		snprintf(got[k], sizeof(got[k]), "event=\"%s\" condition=\"%s\" node=\"%s\"", m, cond,
			 node_of(sides[k].tag, "tainted"));
	}
	compare("taint not tolerated", got,
		"event=\"0/4 nodes are available: 4 cannot allocate all claims. preemption: 0/4 nodes are available: 4 "
		"Preemption is not helpful for scheduling.\" condition=\"False Unschedulable: 0/4 nodes are available: 4 "
		"cannot allocate all claims. preemption: 0/4 nodes are available: 4 Preemption is not helpful for "
		"scheduling.\" node=\"\"");

	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "tolerated",
			 REQ(MODEL("h100"), ",\"tolerations\":[{\"key\":\"maint\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]"));
		mk_pod(&sides[k], "tolerated", "tolerated");
	}
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "tolerated");
		char c[1024];
		claim_summary(sides[k].tag, "tolerated", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("taint tolerated", got, "pod=n3 node=n3 results=gpu:n3/h100 reserved=1");
}

static void test_messages(void **state)
{
	(void)state;
	char got[2][4096];
	/* a class that does not exist, a selector nothing matches, a CEL runtime error */
	static const char *const claims[][2] = {
		{ "noclass", "{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"@C-none\"}}]}" },
		{ "nomatch", REQ(MODEL("b999"), "") },
		{ "celerr", REQ(SEL("device.attributes['@D'].nosuch == 'x'"), "") },
	};
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		FOR_SIDES(k)
		{
			mk_claim(sides[k].tag, claims[i][0], claims[i][1]);
			mk_pod(&sides[k], claims[i][0], claims[i][0]);
		}
		FOR_SIDES(k)
		{
			char m[1024], cond[1200];
			wait_failed(sides[k].tag, claims[i][0], m, sizeof(m));
			scheduled_condition(sides[k].tag, claims[i][0], cond, sizeof(cond));
			/* the pod's, claim's and class's names carry the side's tag */
			normalize(m, sides[k].tag);
			normalize(cond, sides[k].tag);
			mask_device(m);
			mask_device(cond);
			snprintf(got[k], sizeof(got[k]), "event=\"%s\" condition=\"%s\"", m, cond);
		}
		compare(claims[i][0], got, NULL);
	}
}

static void test_woken_by_slice(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	{
		mk_claim(sides[k].tag, "b200", REQ(MODEL("b200"), ""));
		mk_pod(&sides[k], "b200", "b200");
	}
	FOR_SIDES(k)
	{
		char m[1024];
		wait_failed(sides[k].tag, "b200", m, sizeof(m));
	}
	/* the pod is now in the unschedulable pool (its backoff runs out after 1 s); the slice's
	 * event (QueueingHint) is what brings it back, long before the pool's 5-minute flush */
	usleep(1500 * 1000);
	int64_t t0[2] = { 0, 0 };
	FOR_SIDES(k)
	{
		char d[512];
		dev(d, sizeof(d), "b200", "b200", 0, "192Gi", "");
		t0[k] = harness_now_ms();
		mk_slice(sides[k].tag, "@D-n2-new", "n2-new", "n2", d);
	}
	FOR_SIDES(k)
	{
		const char *n = wait_bound(sides[k].tag, "b200");
		long long ms = (long long)(harness_now_ms() - t0[k]);
		printf("[ MEASURE  ] %s: new ResourceSlice -> pending pod bound in %lld ms\n", sides[k].scheduler, ms);
		/* backoff (1 s after the failure, already spent) + a cycle: far below the 5 min flush */
		assert_true(ms < 10000);
		char c[1024];
		claim_summary(sides[k].tag, "b200", c, sizeof(c));
		snprintf(got[k], sizeof(got[k]), "pod=%s %s", n, c);
	}
	compare("woken by a slice", got, "pod=n2 node=n2 results=gpu:n2-new/b200 reserved=1");
}

/* The pod's special claim as "pod=NODE claim=CLAIM-SUMMARY meta=... mappings=..." (tag-free):
 * status.extendedResourceClaimStatus names it (waited for), the claim's generateName, annotation
 * and controller, the allocation and reservation, the request mappings. */
static void ext_claim_of(const char *tag, const char *name, char *out, size_t size)
{
	char path[512], claim[256] = "", summary[1024], maps[512] = "";
	const char *n = wait_bound(tag, name);
	char node[64];
	snprintf(node, sizeof(node), "%s", n);
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s-%s", tag, name);
	int64_t end = harness_now_ms() + WAIT_MS;
	while (!claim[0] && harness_now_ms() < end) {
		yajl_val v = get_json(path);
		snprintf(claim, sizeof(claim), "%s", jstr(v, "status", "extendedResourceClaimStatus", "resourceClaimName", NULL));
		yajl_val m = jget(v, yajl_t_array, "status", "extendedResourceClaimStatus", "requestMappings", NULL);
		size_t len = 0;
		for (size_t i = 0; m && i < YAJL_GET_ARRAY(m)->len && len < sizeof(maps); i++) {
			yajl_val it = YAJL_GET_ARRAY(m)->values[i];
			len += snprintf(maps + len, sizeof(maps) - len, "%s%s/%s/%s", i ? "," : "", jstr(it, "containerName", NULL),
					jstr(it, "resourceName", NULL), jstr(it, "requestName", NULL));
		}
		yajl_tree_free(v);
		if (!claim[0])
			usleep(50 * 1000);
	}
	if (!claim[0])
		fail_msg("pod %s-%s: no status.extendedResourceClaimStatus after %d ms", tag, name, WAIT_MS);
	claim_summary_path(claim, summary, sizeof(summary));
	snprintf(path, sizeof(path), RES "/namespaces/" NS "/resourceclaims/%s", claim);
	yajl_val c = get_json(path);
	char want_gen[128], pod_uid[64];
	snprintf(want_gen, sizeof(want_gen), "%s-%s-extended-resources-", tag, name);
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s-%s", tag, name);
	yajl_val p = get_json(path);
	snprintf(pod_uid, sizeof(pod_uid), "%s", jstr(p, "metadata", "uid", NULL));
	yajl_tree_free(p);
	yajl_val owners = jget(c, yajl_t_array, "metadata", "ownerReferences", NULL);
	yajl_val o = owners && YAJL_GET_ARRAY(owners)->len == 1 ? YAJL_GET_ARRAY(owners)->values[0] : NULL;
	bool owned = o && !strcmp(jstr(o, "kind", NULL), "Pod") && !strcmp(jstr(o, "uid", NULL), pod_uid) &&
		     YAJL_IS_TRUE(jget(o, yajl_t_any, "controller", NULL));
	bool annotated = !strcmp(jstr(c, "metadata", "annotations", "resource.kubernetes.io/extended-resource-claim", NULL),
				 "true");
	snprintf(out, size, "pod=%s claim=%s generated=%s owned=%s annotated=%s mappings=%s", node, summary,
		 !strcmp(jstr(c, "metadata", "generateName", NULL), want_gen) && !strncmp(claim, want_gen, strlen(want_gen))
			 ? "yes"
			 : "no",
		 owned ? "yes" : "no", annotated ? "yes" : "no", maps);
	yajl_tree_free(c);
	normalize(out, tag);
}

/* DRAExtendedResource: a pod asking for example.com/gpu-@T (the extendedResourceName of class
 * @C-ext, whose one device "ext" sits on n2) and no node advertising it: both schedulers bind it
 * to n2, create its special claim with the allocation and reservation, and set the pod's
 * status.extendedResourceClaimStatus. */
static void test_extended_resource(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	mk_pod_res(&sides[k], "ext", NULL,
		   "{\"requests\":{\"example.com/gpu-@T\":\"1\"},\"limits\":{\"example.com/gpu-@T\":\"1\"}}");
	FOR_SIDES(k)
	ext_claim_of(sides[k].tag, "ext", got[k], sizeof(got[k]));
	compare("extended resource", got,
		"pod=n2 claim=node=n2 results=container-0-request-0:n2/ext reserved=1 generated=yes owned=yes "
		"annotated=yes mappings=c/example.com/gpu-T/container-0-request-0");
}

/* The special claim an earlier attempt left behind (annotated, the pod its controller, allocated
 * on @D-stale's device): Filter rejects every node ("cannot schedule extended resource claim"),
 * PostFilter deletes that claim, and the next attempt (woken by the deletion of an allocated
 * claim) creates a new one on the free "ext" device of slice @D-NAME on n3. Returns the old
 * claim's state ("absent" once deleted) and the new claim's in got. */
static void stale_ext_claim(const struct side *s, const char *name, char *got, size_t size)
{
	char body[4096], path[256], d[512], uid[64], stale[128];
	/* a free "ext" device for the new claim */
	dev(d, sizeof(d), "ext", "ext", 0, "24Gi", "");
	snprintf(path, sizeof(path), "@D-%s", name);
	mk_slice(s->tag, path, name, "n3", d);
	/* the pod, gated until the stale claim exists */
	request(s->tag, "POST", "/api/v1/namespaces/" NS "/pods", body, sizeof(body),
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"@T-%s\"},\"spec\":{"
		"\"schedulerName\":\"%s\",\"terminationGracePeriodSeconds\":0,\"schedulingGates\":[{\"name\":\"wait\"}],"
		"\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":"
		"{\"requests\":{\"example.com/gpu-@T\":\"1\"},\"limits\":{\"example.com/gpu-@T\":\"1\"}}}]}}",
		name, s->scheduler);
	char errbuf[128];
	yajl_val p = yajl_tree_parse(body, errbuf, sizeof(errbuf));
	snprintf(uid, sizeof(uid), "%s", jstr(p, "metadata", "uid", NULL));
	yajl_tree_free(p);
	assert_true(uid[0]);
	snprintf(stale, sizeof(stale), "%s-%s-extended-resources-stale", s->tag, name);
	request(s->tag, "POST", RES "/namespaces/" NS "/resourceclaims", NULL, 0,
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"%s\","
		"\"finalizers\":[\"resource.kubernetes.io/delete-protection\"],"
		"\"annotations\":{\"resource.kubernetes.io/extended-resource-claim\":\"true\"},"
		"\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"@T-%s\",\"uid\":\"%s\","
		"\"controller\":true}]},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"container-0-request-0\","
		"\"exactly\":{\"deviceClassName\":\"@C-ext\"}}]}}}",
		stale, name, uid);
	snprintf(path, sizeof(path), RES "/namespaces/" NS "/resourceclaims/%s/status", stale);
	request(s->tag, "PATCH", path, NULL, 0,
		"{\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"container-0-request-0\","
		"\"driver\":\"@D\",\"pool\":\"n0\",\"device\":\"late\"}]},\"nodeSelector\":{\"nodeSelectorTerms\":"
		"[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"n0\"]}]}]}}}}");
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/@T-%s", name);
	request(s->tag, "PATCH", path, NULL, 0, "{\"spec\":{\"schedulingGates\":null}}");
	char c[2048];
	ext_claim_of(s->tag, name, c, sizeof(c));
	char old[256];
	claim_summary_path(stale, old, sizeof(old));
	snprintf(got, size, "stale=%s new: %s", old, c);
	normalize(got, s->tag);
}

static void test_extended_resource_stale(void **state)
{
	(void)state;
	char got[2][4096];
	FOR_SIDES(k)
	stale_ext_claim(&sides[k], "ext2", got[k], sizeof(got[k]));
	compare("extended resource, stale claim", got,
		"stale=absent new: pod=n3 claim=node=n3 results=container-0-request-0:ext2/ext reserved=1 generated=yes "
		"owned=yes annotated=yes mappings=c/example.com/gpu-T/container-0-request-0");
}

/* csched devices against the cluster as the scenarios above left it: n0's devices with their
 * claims and pods, the class and the selector evaluated, and the errors an operator sees. */
static void test_devices_command(void **state)
{
	(void)state;
	/* csched's side (upstream's alone with CSCHED_TEST_DRA_SIDE=upstream) */
	const char *t = sides[0].on ? "c" : "u";
	char cmd[1024], want[512], *out = NULL;
	subst(cmd, sizeof(cmd),
	      "%s/csched devices --kubeconfig=%s --node n0 --class @C --selector "
	      "\"device.capacity['@D'].memory.compareTo(quantity('40Gi')) >= 0\" 2>&1",
	      t);
	int rc = harness_run(&out, cmd, CSCHED_BUILD_DIR, cluster.kubeconfig);
	printf("%s", out ? out : "");
	assert_int_equal(rc, 0);
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	/* header, n0's 4 devices of each of the two drivers, a blank line, the summary */
	assert_int_equal(lines, 1 + 8 + 2);
	assert_true(!strncmp(out, "NODE  DRIVER", 12));
	/* the side's a100 allocated to @T-big and matching; its a30 held by @T-first (the
	 * firstAvailable claim) and too small; the other side's driver outside the class */
	subst(want, sizeof(want), "@D  n0    a100    model=a100,numa=0  memory=80Gi  -       dra/@T-big (pods: @T-big)", t);
	char *row = strstr(out, want);
	assert_non_null(row);
	assert_true(!strncmp(strchr(row, '\n') - 5, "  yes", 5));
	subst(want, sizeof(want), "@D  n0    a30 ", t);
	assert_non_null(row = strstr(out, want));
	subst(want, sizeof(want), "dra/@T-first (pods: @T-first)", t);
	assert_non_null(strstr(row, want));
	assert_true(!strncmp(strchr(row, '\n') - 4, "  no", 4));
	subst(want, sizeof(want), "@D  n0    a100 ", t[0] == 'c' ? "u" : "c");
	assert_non_null(row = strstr(out, want));
	assert_true(!strncmp(strchr(row, '\n') - 4, "  no", 4));
	subst(want, sizeof(want), "\n1 of 8 devices match class @C (1 selector) and --selector\n", t);
	assert_non_null(strstr(out, want));
	free(out);

	out = NULL;
	rc = harness_run(&out, "%s/csched devices --kubeconfig=%s --class nope 2>&1", CSCHED_BUILD_DIR, cluster.kubeconfig);
	assert_int_equal(rc, 1);
	assert_string_equal(out, "Error: deviceclass \"nope\" not found\n");
	free(out);
	out = NULL;
	rc = harness_run(&out, "%s/csched devices --kubeconfig=%s --node nowhere 2>&1", CSCHED_BUILD_DIR, cluster.kubeconfig);
	assert_int_equal(rc, 1);
	assert_string_equal(out, "Error: node \"nowhere\" not found\n");
	free(out);
}

/* ---------- 210 claims at once over 200 devices ---------- */

#define BULK_NODES N_NODES
#define BULK_PER_NODE 50
#define BULK_CLAIMS 210

struct seen {
	char dev[BULK_NODES * BULK_PER_NODE][32];
	int n;
};

static void test_no_device_twice(void **state)
{
	(void)state;
	if (!sides[0].on)
		skip();
	char d[BULK_PER_NODE * 64];
	request("", "POST", RES "/deviceclasses", NULL, 0,
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"bulk\"},"
		"\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'bulk.example.com'\"}}]}}");
	for (int nd = 0; nd < BULK_NODES; nd++) {
		size_t n = 0;
		for (int i = 0; i < BULK_PER_NODE; i++)
			n += snprintf(d + n, sizeof(d) - n, "%s{\"name\":\"d%d\"}", i ? "," : "", i);
		request("", "POST", RES "/resourceslices", NULL, 0,
			"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"bulk-n%d\"},"
			"\"spec\":{\"driver\":\"bulk.example.com\",\"pool\":{\"name\":\"n%d\",\"generation\":1,"
			"\"resourceSliceCount\":1},\"nodeName\":\"n%d\",\"devices\":[%s]}}",
			nd, nd, nd, d);
	}
	for (int i = 0; i < BULK_CLAIMS; i++) {
		char name[32];
		snprintf(name, sizeof(name), "bulk-%d", i);
		request("c", "POST", RES "/namespaces/" NS "/resourceclaims", NULL, 0,
			"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"%s\"},"
			"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"d\",\"exactly\":{\"deviceClassName\":\"bulk\"}}]}}}",
			name);
	}
	int64_t t0 = harness_now_ms();
	for (int i = 0; i < BULK_CLAIMS; i++) {
		char name[32], member[64];
		snprintf(name, sizeof(name), "bulk-%d", i);
		snprintf(member, sizeof(member), "\"resourceClaimName\":\"%s\"", name);
		request("c", "POST", "/api/v1/namespaces/" NS "/pods", NULL, 0,
			"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
			"\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\"}],"
			"\"resourceClaims\":[{\"name\":\"d\",%s}]}}",
			name, member);
	}
	/* wait for 200 bound and every one of the 10 others to have failed once */
	int bound = 0;
	int64_t end = harness_now_ms() + 3 * WAIT_MS;
	char path[256];
	for (;;) {
		bound = 0;
		yajl_val v = get_json("/api/v1/namespaces/" NS "/pods?labelSelector=&limit=1000");
		yajl_val items = jget(v, yajl_t_array, "items", NULL);
		for (size_t i = 0; items && i < YAJL_GET_ARRAY(items)->len; i++) {
			yajl_val it = YAJL_GET_ARRAY(items)->values[i];
			if (!strncmp(jstr(it, "metadata", "name", NULL), "bulk-", 5) && jstr(it, "spec", "nodeName", NULL)[0])
				bound++;
		}
		yajl_tree_free(v);
		if (bound >= BULK_NODES * BULK_PER_NODE || harness_now_ms() > end)
			break;
		usleep(200 * 1000);
	}
	printf("[ MEASURE  ] %d of %d claims (1 device each, %d devices) bound in %lld ms\n", bound, BULK_CLAIMS,
	       BULK_NODES * BULK_PER_NODE, (long long)(harness_now_ms() - t0));
	assert_int_equal(bound, BULK_NODES * BULK_PER_NODE);
	usleep(2000 * 1000); /* nothing more may bind */

	static struct seen seen;
	seen.n = 0;
	int allocated = 0, pending = 0;
	for (int i = 0; i < BULK_CLAIMS; i++) {
		char name[32], pod_node[64], pod_uid[64];
		snprintf(name, sizeof(name), "bulk-%d", i);
		snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s", name);
		yajl_val p = get_json(path);
		snprintf(pod_node, sizeof(pod_node), "%s", jstr(p, "spec", "nodeName", NULL));
		snprintf(pod_uid, sizeof(pod_uid), "%s", jstr(p, "metadata", "uid", NULL));
		yajl_tree_free(p);
		snprintf(path, sizeof(path), RES "/namespaces/" NS "/resourceclaims/%s", name);
		yajl_val c = get_json(path);
		yajl_val alloc = jget(c, yajl_t_object, "status", "allocation", NULL);
		yajl_val reserved = jget(c, yajl_t_array, "status", "reservedFor", NULL);
		if (!pod_node[0]) {
			/* unbound: its claim may not hold a device (nor be reserved) */
			if (alloc || (reserved && YAJL_GET_ARRAY(reserved)->len))
				fail_msg("claim %s of an unbound pod is allocated or reserved", name);
			pending++;
			yajl_tree_free(c);
			continue;
		}
		if (!alloc)
			fail_msg("claim %s of pod bound to %s is not allocated", name, pod_node);
		if (strcmp(alloc_node(alloc), pod_node))
			fail_msg("claim %s allocated on \"%s\", its pod is on %s", name, alloc_node(alloc), pod_node);
		if (!reserved || YAJL_GET_ARRAY(reserved)->len != 1 ||
		    strcmp(jstr(YAJL_GET_ARRAY(reserved)->values[0], "uid", NULL), pod_uid))
			fail_msg("claim %s is not reserved for its pod (uid %s) alone", name, pod_uid);
		yajl_val results = jget(alloc, yajl_t_array, "devices", "results", NULL);
		if (!results || YAJL_GET_ARRAY(results)->len != 1)
			fail_msg("claim %s: %zu results, want 1", name, results ? YAJL_GET_ARRAY(results)->len : 0);
		yajl_val r = YAJL_GET_ARRAY(results)->values[0];
		char key[32];
		snprintf(key, sizeof(key), "%s/%s", jstr(r, "pool", NULL), jstr(r, "device", NULL));
		if (strcmp(jstr(r, "driver", NULL), "bulk.example.com") || strcmp(jstr(r, "pool", NULL), pod_node))
			fail_msg("claim %s: device %s of driver %s on pod node %s", name, key, jstr(r, "driver", NULL), pod_node);
		for (int j = 0; j < seen.n; j++)
			if (!strcmp(seen.dev[j], key))
				fail_msg("device %s allocated twice (claim %s and an earlier one)", key, name);
		if (seen.n < BULK_NODES * BULK_PER_NODE)
			snprintf(seen.dev[seen.n++], sizeof(seen.dev[0]), "%s", key);
		allocated++;
		yajl_tree_free(c);
	}
	printf("[ MEASURE  ] %d claims allocated (distinct devices), %d pending\n", allocated, pending);
	assert_int_equal(allocated, BULK_NODES * BULK_PER_NODE);
	assert_int_equal(pending, BULK_CLAIMS - BULK_NODES * BULK_PER_NODE);
	/* a pending one says why, as upstream would */
	for (int i = 0; i < BULK_CLAIMS; i++) {
		char name[32], ev[1024];
		snprintf(name, sizeof(name), "bulk-%d", i);
		snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s", name);
		yajl_val p = get_json(path);
		bool unbound = !jstr(p, "spec", "nodeName", NULL)[0];
		yajl_tree_free(p);
		if (!unbound)
			continue;
		int64_t until = harness_now_ms() + WAIT_MS;
		while (failed_message_of(name, ev, sizeof(ev)), !ev[0] && harness_now_ms() < until)
			usleep(100 * 1000);
		printf("[ DRA      ] pending %s: \"%s\"\n", name, ev);
		assert_non_null(strstr(ev, "cannot allocate all claims"));
		break;
	}
}

/* The csched binary in place of the in-process scheduler, last: its requests go to the RBAC trace
 * (CSCHED_API_TRACE, inherited), so that integration/rbac sees DynamicResources' claim writes
 * (the finalizer patch, the status patch with the allocation and reservedFor). A device of its
 * own (model "bin" on n0) keeps it clear of what the earlier scenarios allocated. */
static void test_binary(void **state)
{
	(void)state;
	struct err e = { 0 };
	const char *tag = sides[0].tag;
	if (!sides[0].on)
		skip();
	sched_free(sched); /* one scheduler for "csched" at a time */
	sched = NULL;
	char d[512];
	dev(d, sizeof(d), "bin0", "bin", 0, "8Gi", "");
	mk_slice(tag, "@D-bin", "bin", "n0", d);
	char kc[512], logp[512];
	snprintf(kc, sizeof(kc), "--kubeconfig=%s", cluster.kubeconfig);
	snprintf(logp, sizeof(logp), "%s/csched-binary.log", cluster.dir);
	char *argv[] = { CSCHED_BUILD_DIR "/csched", kc, "--leader-elect=false", "--secure-port=0", "-v=2", NULL };
	binary_pid = harness_spawn(argv, logp, NULL, &e);
	if (binary_pid <= 0)
		fail_msg("csched: %s", e.msg);
	mk_claim(tag, "bin", REQ(MODEL("bin"), ""));
	mk_pod(&sides[0], "bin", "bin");
	char n[64];
	snprintf(n, sizeof(n), "%s", wait_bound(tag, "bin"));
	char c[1024];
	claim_summary(tag, "bin", c, sizeof(c));
	/* DRAExtendedResource's writes (the RBAC check wants the binary to use them): the stale
	 * claim deleted, the new one created */
	char ext[4096];
	stale_ext_claim(&sides[0], "bin-ext", ext, sizeof(ext));
	kill(binary_pid, SIGTERM);
	harness_wait_child(binary_pid, 10000, NULL, &e);
	binary_pid = 0;
	char got[1200];
	snprintf(got, sizeof(got), "pod=%s %s", n, c);
	assert_string_equal(got, "pod=n0 node=n0 results=gpu:bin/bin0 reserved=1");
	assert_string_equal(ext, "stale=absent new: pod=n3 claim=node=n3 results=container-0-request-0:bin-ext/ext "
				 "reserved=1 generated=yes owned=yes annotated=yes "
				 "mappings=c/example.com/gpu-T/container-0-request-0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_big_memory),
		cmocka_unit_test(test_shared_claim),
		cmocka_unit_test(test_template_claim),
		cmocka_unit_test(test_claim_created_later),
		cmocka_unit_test(test_count_and_all),
		cmocka_unit_test(test_first_available),
		cmocka_unit_test(test_match_attribute),
		cmocka_unit_test(test_taint),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_woken_by_slice),
		cmocka_unit_test(test_extended_resource),
		cmocka_unit_test(test_extended_resource_stale),
		cmocka_unit_test(test_devices_command),
		cmocka_unit_test(test_no_device_twice),
		cmocka_unit_test(test_binary),
	};
	if (getenv("CSCHED_TEST_FILTER"))
		cmocka_set_test_filter(getenv("CSCHED_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
