/* NodeVolumeLimits and VolumeRestrictions end to end: csched's scheduler, in-process, against a
 * real kube-apiserver + etcd (tests/cluster), one fresh cluster per test, through the real PVC,
 * PV, CSINode and VolumeAttachment informers. PVs are bound statically (a PV with claimRef and
 * phase Bound, its PVC with volumeName, the bind-completed annotation and phase Bound) so that no
 * PV controller or VolumeBinding takes part:
 *  - node-a's CSINode allows 2 volumes of csi.example.com: two pods with such PVCs land there, a
 *    third stays pending with upstream's message, and is bound to node-b once node-b and its
 *    CSINode appear (the CSINode Add event requeues it);
 *  - a VolumeAttachment on node-a counts towards the limit too;
 *  - a ReadWriteOncePod claim used by one pod: a second pod using it stays pending with upstream's
 *    message, and is bound once the first is deleted;
 *  - a pod naming a missing PVC is pending with upstream's message, and bound once the PVC (and
 *    its PV) appear (the PVC Add event). */
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
#define DRIVER "csi.example.com"

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;
static struct scheduler *sched;
static struct config cfg;

static void request_ct(const char *method, const char *path, const char *ct, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void request_ct(const char *method, const char *path, const char *ct, const char *fmt, ...)
{
	char body[8192];
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (api_request(conn, method, path, ct, body, strlen(body), NULL, &e) < 0)
		fail_msg("%s %s: %s", method, path, e.msg);
}

#define request(method, path, ...) request_ct(method, path, NULL, __VA_ARGS__)

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

static void mk_node(const char *name)
{
	request("POST", "/api/v1/nodes",
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
		"\"kubernetes.io/hostname\":\"%s\"}},"
		"\"status\":{\"capacity\":{\"cpu\":\"8\",\"memory\":\"16Gi\",\"pods\":\"110\"},"
		"\"allocatable\":{\"cpu\":\"8\",\"memory\":\"16Gi\",\"pods\":\"110\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		name, name);
}

/* A CSINode for node with DRIVER allowing count volumes. */
static void mk_csinode(const char *node, int count)
{
	request("POST", "/apis/storage.k8s.io/v1/csinodes",
		"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"metadata\":{\"name\":\"%s\"},"
		"\"spec\":{\"drivers\":[{\"name\":\"" DRIVER "\",\"nodeID\":\"%s\",\"allocatable\":{\"count\":%d}}]}}",
		node, node, count);
}

/* PV pv-<claim> (CSI DRIVER, handle h-<claim>) bound to NS/claim and the claim bound to it;
 * mode is the access mode of both. */
static void mk_bound_claim(const char *claim, const char *mode)
{
	char path[256];
	request("POST", "/api/v1/persistentvolumes",
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"pv-%s\"},"
		"\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"%s\"],"
		"\"persistentVolumeReclaimPolicy\":\"Retain\",\"claimRef\":{\"namespace\":\"" NS "\",\"name\":\"%s\"},"
		"\"csi\":{\"driver\":\"" DRIVER "\",\"volumeHandle\":\"h-%s\"}}}",
		claim, mode, claim, claim);
	snprintf(path, sizeof(path), "/api/v1/persistentvolumes/pv-%s/status", claim);
	request_ct("PATCH", path, "application/merge-patch+json", "{\"status\":{\"phase\":\"Bound\"}}");
	request("POST", "/api/v1/namespaces/" NS "/persistentvolumeclaims",
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"%s\","
		"\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}},"
		"\"spec\":{\"accessModes\":[\"%s\"],\"resources\":{\"requests\":{\"storage\":\"1Gi\"}},"
		"\"storageClassName\":\"\",\"volumeName\":\"pv-%s\"}}",
		claim, mode, claim);
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/persistentvolumeclaims/%s/status", claim);
	request_ct("PATCH", path, "application/merge-patch+json",
		   "{\"status\":{\"phase\":\"Bound\",\"accessModes\":[\"%s\"],\"capacity\":{\"storage\":\"1Gi\"}}}", mode);
}

/* A pod using the claims (comma-separated), optionally pinned to a node by hostname. */
static void mk_pod(const char *name, const char *claims, const char *node)
{
	char vols[1024] = "", sel[256] = "";
	size_t len = 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", claims);
	int i = 0;
	for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save), i++)
		len += (size_t)snprintf(vols + len, sizeof(vols) - len,
					"%s{\"name\":\"v%d\",\"persistentVolumeClaim\":{\"claimName\":\"%s\"}}", i ? "," : "",
					i, c);
	if (node)
		snprintf(sel, sizeof(sel), ",\"nodeSelector\":{\"kubernetes.io/hostname\":\"%s\"}", node);
	request("POST", "/api/v1/namespaces/" NS "/pods",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
		"\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"100Mi\"}}}],\"volumes\":[%s]%s}}",
		name, vols, sel);
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
static const char *wait_bound(const char *name, long timeout_ms)
{
	static char buf[256];
	int64_t end = harness_now_ms() + timeout_ms;
	do {
		struct api_pod *p = get_pod(NS, name);
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

/* Waits until the PodScheduled condition's message of NS/name equals want (fails after timeout_ms). */
static void wait_condition_message(const char *name, const char *want, long timeout_ms)
{
	char got[1100] = "";
	int64_t end = harness_now_ms() + timeout_ms;
	do {
		struct api_pod *p = get_pod(NS, name);
		assert_non_null(p);
		for (uint32_t i = 0; i < p->n_conditions; i++)
			if (!strcmp(p->conditions[i].type, "PodScheduled"))
				snprintf(got, sizeof(got), "%s", p->conditions[i].message ? p->conditions[i].message : "");
		api_pod_unref(p);
		if (!strcmp(got, want))
			return;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	fail_msg("%s/%s: PodScheduled message \"%s\", want \"%s\"", NS, name, got, want);
}

static void expect_bound(const char *pod, const char *node, long timeout_ms)
{
	const char *n = wait_bound(pod, timeout_ms);
	if (!n)
		fail_msg("%s not bound", pod);
	if (node && strcmp(n, node))
		fail_msg("%s bound to %s, want %s", pod, n, node);
}

#define MAX_COUNT_MSG                                                                                       \
	"0/1 nodes are available: 1 node(s) exceed max volume count. preemption: 0/1 nodes are available: 1 No " \
	"preemption victims found for incoming pod."

static void test_csinode_limit(void **state)
{
	(void)state;
	mk_node("node-a");
	mk_csinode("node-a", 2);
	for (int i = 0; i < 3; i++) {
		char c[16];
		snprintf(c, sizeof(c), "data-%d", i);
		mk_bound_claim(c, "ReadWriteOnce");
	}
	start_sched();
	mk_pod("p0", "data-0", NULL);
	expect_bound("p0", "node-a", 15000);
	mk_pod("p1", "data-1", NULL);
	expect_bound("p1", "node-a", 15000);

	/* a third distinct volume of the driver: node-a is full */
	mk_pod("p2", "data-2", NULL);
	wait_condition_message("p2", MAX_COUNT_MSG, 15000);
	/* a pod using a volume node-a already has adds nothing */
	mk_pod("p1-again", "data-1", NULL);
	expect_bound("p1-again", "node-a", 15000);

	/* p2 was rejected by NodeVolumeLimits only, which registers no Node event: the CSINode Add
	 * (no hint: Queue) moves it */
	int64_t t0 = harness_now_ms();
	mk_node("node-b");
	mk_csinode("node-b", 2);
	expect_bound("p2", "node-b", 15000);
	printf("[ MEASURE  ] p2 bound %.2f s after node-b and its CSINode were created\n",
	       (harness_now_ms() - t0) / 1000.0);
}

/* VolumeAttachments count as attached volumes (upstream getNodeVolumeAttachmentInfo). */
static void test_volume_attachment_counts(void **state)
{
	(void)state;
	mk_node("node-a");
	mk_csinode("node-a", 2);
	mk_bound_claim("att-0", "ReadWriteOnce");
	mk_bound_claim("att-1", "ReadWriteOnce");
	mk_bound_claim("data-0", "ReadWriteOnce");
	for (int i = 0; i < 2; i++)
		request("POST", "/apis/storage.k8s.io/v1/volumeattachments",
			"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"VolumeAttachment\",\"metadata\":{\"name\":\"va-%d\"},"
			"\"spec\":{\"attacher\":\"" DRIVER "\",\"nodeName\":\"node-a\",\"source\":{\"persistentVolumeName\":\"pv-att-%d\"}}}",
			i, i);
	start_sched();
	mk_pod("p0", "data-0", NULL);
	wait_condition_message("p0", MAX_COUNT_MSG, 15000);
	/* the attachment's deletion requeues it (VolumeAttachment Delete, a PVC pod: Queue) */
	request("DELETE", "/apis/storage.k8s.io/v1/volumeattachments/va-0", "%s", "");
	expect_bound("p0", "node-a", 15000);
}

static void test_read_write_once_pod(void **state)
{
	(void)state;
	mk_node("node-a");
	mk_bound_claim("rwop", "ReadWriteOncePod");
	start_sched();
	mk_pod("first", "rwop", NULL);
	expect_bound("first", "node-a", 15000);
	mk_pod("second", "rwop", NULL);
	wait_condition_message("second",
			       "0/1 nodes are available: 1 node(s) unavailable due to PersistentVolumeClaim with "
			       "ReadWriteOncePod access mode already in-use by another pod. preemption: 0/1 nodes are "
			       "available: 1 No preemption victims found for incoming pod.",
			       15000);
	assert_null(wait_bound("second", 500));
	/* the user goes: its deletion (AssignedPod Delete, same claim: Queue) lets the second in */
	request("DELETE", "/api/v1/namespaces/" NS "/pods/first?gracePeriodSeconds=0", "%s", "");
	expect_bound("second", "node-a", 15000);
}

static void test_missing_pvc(void **state)
{
	(void)state;
	mk_node("node-a");
	start_sched();
	mk_pod("late", "late-claim", NULL);
	wait_condition_message("late",
			       /* DynamicResources' PostFilter finds no PreFilter state (VolumeRestrictions
				* rejected first): upstream's " not found", and no preemption */
			       "0/1 nodes are available: persistentvolumeclaim \"late-claim\" not found. not found",
			       15000);
	assert_null(wait_bound("late", 500));
	int64_t t0 = harness_now_ms();
	mk_bound_claim("late-claim", "ReadWriteOnce");
	expect_bound("late", "node-a", 15000);
	printf("[ MEASURE  ] bound %.2f s after its PVC was created\n", (harness_now_ms() - t0) / 1000.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csinode_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_volume_attachment_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_write_once_pod, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_pvc, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
