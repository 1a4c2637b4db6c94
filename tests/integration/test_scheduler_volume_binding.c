/* VolumeBinding on a real kube-apiserver + etcd with kube-controller-manager (its PV controller
 * binds claims), the csched binary scheduling (so that integration/rbac sees its PV and PVC
 * patches):
 *  - static binding: two zones, a PV in each (nodeAffinity on the zone), a WaitForFirstConsumer
 *    class without provisioner and a claim per PV (a selector picks the PV): each pod lands in its
 *    PV's zone, csched's PreBind writes the PV's claimRef and the PV controller binds both;
 *  - an unbound claim of an Immediate class: upstream's FailedScheduling message;
 *  - dynamic provisioning (no provisioner runs here): PreBind writes the claim's
 *    volume.kubernetes.io/selected-node and the pod waits, unbound; the test plays the provisioner
 *    (a PV pre-bound to the claim on that node), the PV controller binds, then the pod is bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "harness.h"
#include "poll.h"

#define NS "vol"

static void request(struct fx *fx, const char *method, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void request(struct fx *fx, const char *method, const char *path, const char *fmt, ...)
{
	char body[4096];
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (api_request(fx->conn, method, path, NULL, body, strlen(body), NULL, &e) < 0)
		FAILF(fx, "%s %s: %s", method, path, e.msg);
}

/* The string at keys (NULL-terminated) of the object at path into out ("" when absent); false
 * when the object does not exist. */
static bool get_str(struct fx *fx, const char *path, const char *const *keys, char *out, size_t size)
{
	struct api_response r = { 0 };
	struct err e = { 0 };
	out[0] = '\0';
	if (api_request(fx->conn, "GET", path, NULL, NULL, 0, &r, &e) < 0) {
		api_response_release(&r);
		return false;
	}
	char eb[128];
	yajl_val t = yajl_tree_parse(r.body, eb, sizeof(eb));
	yajl_val v = t ? yajl_tree_get(t, (const char **)keys, yajl_t_string) : NULL;
	if (v)
		snprintf(out, size, "%s", YAJL_GET_STRING(v));
	yajl_tree_free(t);
	api_response_release(&r);
	return true;
}

static void node(struct fx *fx, const char *name, const char *zone)
{
	request(fx, "POST", "/api/v1/nodes",
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
		"\"kubernetes.io/hostname\":\"%s\",\"topology.kubernetes.io/zone\":\"%s\"}},"
		"\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
		"\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		name, name, zone);
}

static void storage_class(struct fx *fx, const char *name, const char *provisioner, const char *mode)
{
	request(fx, "POST", "/apis/storage.k8s.io/v1/storageclasses",
		"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"%s\"},"
		"\"provisioner\":\"%s\",\"volumeBindingMode\":\"%s\"}",
		name, provisioner, mode);
}

/* A hostPath PV of class cls on the nodes whose key is value, labelled disk=<label>; claim_ref
 * (raw JSON members, "" = none) pre-binds it. */
static void pv(struct fx *fx, const char *name, const char *cls, const char *key, const char *value, const char *label,
	       const char *claim_ref)
{
	request(fx, "POST", "/api/v1/persistentvolumes",
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"disk\":\"%s\"}},"
		"\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadWriteOnce\"],"
		"\"persistentVolumeReclaimPolicy\":\"Retain\",\"storageClassName\":\"%s\",\"hostPath\":{\"path\":\"/tmp/%s\"},"
		"\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"%s\","
		"\"operator\":\"In\",\"values\":[\"%s\"]}]}]}}%s}}",
		name, label, cls, name, key, value, claim_ref);
}

static void claim(struct fx *fx, const char *name, const char *cls, const char *disk)
{
	char sel[128] = "";
	if (disk)
		snprintf(sel, sizeof(sel), ",\"selector\":{\"matchLabels\":{\"disk\":\"%s\"}}", disk);
	request(fx, "POST", "/api/v1/namespaces/" NS "/persistentvolumeclaims",
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"%s\"},"
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"storageClassName\":\"%s\","
		"\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}%s}}",
		name, cls, sel);
}

static void pod(struct fx *fx, const char *name, const char *claim_name)
{
	request(fx, "POST", "/api/v1/namespaces/" NS "/pods",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{\"schedulerName\":\"csched\","
		"\"containers\":[{\"name\":\"c\",\"image\":\"pause\"}],"
		"\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"%s\"}}]}}",
		name, claim_name);
}

struct want_str {
	struct fx *fx;
	const char *path;
	const char *const *keys;
	const char *want; /* NULL: any non-empty value */
	char got[256];
};

static bool str_is(void *ctx)
{
	struct want_str *w = ctx;
	get_str(w->fx, w->path, w->keys, w->got, sizeof(w->got));
	return w->want ? strcmp(w->got, w->want) == 0 : w->got[0] != '\0';
}

static void wait_str(struct fx *fx, const char *path, const char *const *keys, const char *want, char *out, size_t size)
{
	struct want_str w = { fx, path, keys, want, "" };
	if (!harness_wait_until(str_is, &w, WAIT_MS, 200))
		FAILF(fx, "%s %s: \"%s\", want \"%s\"", path, keys[1] ? keys[1] : keys[0], w.got, want ? want : "(set)");
	if (out)
		snprintf(out, size, "%s", w.got);
}

static const char *const NODE_NAME[] = { "spec", "nodeName", NULL };
static const char *const PHASE[] = { "status", "phase", NULL };
static const char *const CLAIM_REF_NAME[] = { "spec", "claimRef", "name", NULL };
static const char *const UID[] = { "metadata", "uid", NULL };
static const char *const SELECTED_NODE[] = { "metadata", "annotations", "volume.kubernetes.io/selected-node", NULL };

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	if (!fx)
		return -1;
	*state = fx;
	if (harness_setup(&fx->c, HARNESS_CONTROLLER_MANAGER, &fx->cl, &fx->conn) < 0)
		return -1;
	struct err e = { 0 };
	if (harness_create_namespace(fx->conn, NS, &e) < 0) {
		fprintf(stderr, "namespace: %s\n", e.msg);
		return -1;
	}
	node(fx, "a-1", "zone-a");
	node(fx, "b-1", "zone-b");
	char kc[512];
	snprintf(kc, sizeof(kc), "--kubeconfig=%s", fx->c.kubeconfig);
	const char *args[] = { kc, "--leader-elect=false", "--secure-port=0", "-v=2", NULL };
	csched_start(fx, "csched.log", args);
	return 0;
}

/* Static PVs in two zones, WaitForFirstConsumer: each pod in its PV's zone, the PVs bound by the
 * PV controller after csched wrote their claimRef. */
static void test_static_binding(void **state)
{
	struct fx *fx = *state;
	storage_class(fx, "local", "kubernetes.io/no-provisioner", "WaitForFirstConsumer");
	pv(fx, "pv-a", "local", "topology.kubernetes.io/zone", "zone-a", "a", "");
	pv(fx, "pv-b", "local", "topology.kubernetes.io/zone", "zone-b", "b", "");
	claim(fx, "claim-a", "local", "a");
	claim(fx, "claim-b", "local", "b");
	pod(fx, "pa", "claim-a");
	pod(fx, "pb", "claim-b");
	wait_str(fx, "/api/v1/namespaces/" NS "/pods/pa", NODE_NAME, "a-1", NULL, 0);
	wait_str(fx, "/api/v1/namespaces/" NS "/pods/pb", NODE_NAME, "b-1", NULL, 0);
	wait_str(fx, "/api/v1/persistentvolumes/pv-a", CLAIM_REF_NAME, "claim-a", NULL, 0);
	wait_str(fx, "/api/v1/persistentvolumes/pv-b", CLAIM_REF_NAME, "claim-b", NULL, 0);
	wait_str(fx, "/api/v1/persistentvolumes/pv-a", PHASE, "Bound", NULL, 0);
	wait_str(fx, "/api/v1/namespaces/" NS "/persistentvolumeclaims/claim-a", PHASE, "Bound", NULL, 0);
	wait_str(fx, "/api/v1/namespaces/" NS "/persistentvolumeclaims/claim-b", PHASE, "Bound", NULL, 0);
}

static bool ok_immediate(struct poll *p)
{
	const struct pod_row *r = pod_find(p, "pi");
	static const char want[] = "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.";
	if (r && strncmp(r->cond_msg, want, strlen(want)) == 0 && !strcmp(r->cond_reason, "Unschedulable"))
		return true;
	snprintf(p->why, sizeof(p->why), "pi: %s \"%s\"", r ? r->cond_reason : "missing", r ? r->cond_msg : "");
	return false;
}

/* An unbound claim of an Immediate class (nothing can bind it): upstream's message. */
static void test_unbound_immediate(void **state)
{
	struct fx *fx = *state;
	storage_class(fx, "imm", "example.com/none", "Immediate");
	claim(fx, "claim-i", "imm", NULL);
	pod(fx, "pi", "claim-i");
	struct poll p;
	wait_for(&p, fx, NS, ok_immediate, NULL, "pi rejected for its unbound immediate claim");
	char node_name[64];
	get_str(fx, "/api/v1/namespaces/" NS "/pods/pi", NODE_NAME, node_name, sizeof(node_name));
	assert_string_equal(node_name, "");
}

/* Dynamic provisioning up to the selected-node annotation; the test provisions, the PV
 * controller binds, then the pod is bound (PreBind's wait ends). */
static void test_dynamic_provisioning(void **state)
{
	struct fx *fx = *state;
	storage_class(fx, "dyn", "example.com/fake-provisioner", "WaitForFirstConsumer");
	claim(fx, "claim-d", "dyn", NULL);
	pod(fx, "pd", "claim-d");
	char selected[64], uid[64], node_name[64], ref[512];
	wait_str(fx, "/api/v1/namespaces/" NS "/persistentvolumeclaims/claim-d", SELECTED_NODE, NULL, selected,
		 sizeof(selected));
	assert_true(!strcmp(selected, "a-1") || !strcmp(selected, "b-1"));
	/* PreBind waits for the claim to be bound: the pod is not bound yet */
	get_str(fx, "/api/v1/namespaces/" NS "/pods/pd", NODE_NAME, node_name, sizeof(node_name));
	assert_string_equal(node_name, "");
	get_str(fx, "/api/v1/namespaces/" NS "/persistentvolumeclaims/claim-d", UID, uid, sizeof(uid));
	snprintf(ref, sizeof(ref),
		 ",\"claimRef\":{\"kind\":\"PersistentVolumeClaim\",\"apiVersion\":\"v1\",\"namespace\":\"" NS "\","
		 "\"name\":\"claim-d\",\"uid\":\"%s\"}",
		 uid);
	pv(fx, "pv-d", "dyn", "kubernetes.io/hostname", selected, "d", ref);
	wait_str(fx, "/api/v1/namespaces/" NS "/persistentvolumeclaims/claim-d", PHASE, "Bound", NULL, 0);
	wait_str(fx, "/api/v1/namespaces/" NS "/pods/pd", NODE_NAME, selected, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_binding),
		cmocka_unit_test(test_unbound_immediate),
		cmocka_unit_test(test_dynamic_provisioning),
	};
	return cmocka_run_group_tests(tests, setup, fx_teardown);
}
