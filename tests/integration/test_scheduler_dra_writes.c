/* DynamicResources' ResourceClaim writes (apiclient/writes_dra.c through scheduler/dra_writes.c's
 * fw_dra_ops) and the DRA informers (scheduler/dra.c) against a real kube-apiserver v1.37.2 +
 * etcd: a claim created, given the delete-protection finalizer, reserved for a pod with an
 * allocation (read back field by field: results, config, node selector, the timestamp written),
 * a write with a stale resourceVersion refused with ERR_CONFLICT, a second consumer added, one
 * unreserved by uid (upstream's strategic merge patch), deallocated, then deleted (finalizer
 * removed first); the four informers list and watch the kinds (DeviceTaintRules are served by
 * this apiserver: the informer stays). Through the fault proxy, a server answering 404 for
 * DeviceTaintRules (the API off) gets no DeviceTaintRule informer and the others still sync,
 * while any other failure of that first request keeps the informer (it retries and syncs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiclient/informer.h"
#include "common/intern.h"
#include "fault_proxy.h"
#include "harness.h"
#include "scheduler/sched_internal.h"

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;

static int setup(void **state)
{
	(void)state;
	return harness_setup(&cluster, 0, &cl, &conn) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	harness_teardown(&cluster, &cl, &conn);
	return 0;
}

/* A scheduler stand-in for fw_dra_ops' ctx: only the client is read (not on a binder thread,
 * every call opens its connection, as PostFilter's do). */
static struct scheduler *fake_sched(void)
{
	struct scheduler *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	s->client = cl;
	return s;
}

static struct api_resource_claim *get(const char *name)
{
	struct err e = { 0 };
	struct api_resource_claim *c = NULL;
	if (api_resource_claim_get(conn, "default", name, &c, &e))
		fail_msg("get %s: %s", name, e.msg);
	return c;
}

static void test_claim_writes(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct scheduler *s = fake_sched();
	static const char body[] =
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"claim-1\","
		"\"finalizers\":[\"example.com/keep\"]},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":"
		"{\"deviceClassName\":\"gpu.example.com\",\"count\":2}}]}}}";
	struct api_resource_claim *c = NULL, *upd = NULL;
	if (sched_dra_create_claim(s, "default", body, strlen(body), &c, &e))
		fail_msg("create: %s", e.msg);
	assert_string_equal(c->meta.name, "claim-1");
	assert_int_equal(c->requests[0].exactly->count, 2);

	/* the finalizer, kept once */
	if (sched_dra_add_finalizer(s, c, &upd, &e))
		fail_msg("add finalizer: %s", e.msg);
	assert_int_equal(upd->n_finalizers, 2);
	assert_string_equal(upd->finalizers[0], "example.com/keep");
	assert_string_equal(upd->finalizers[1], "resource.kubernetes.io/delete-protection");
	struct api_resource_claim *stale = c;
	c = upd;

	/* reserve with an allocation: written as the API's AllocationResult, read back */
	static const char alloc_json[] =
		"{\"metadata\":{\"name\":\"x\",\"namespace\":\"default\"},\"status\":{\"allocation\":{\"devices\":{\"results\":["
		"{\"request\":\"gpu\",\"driver\":\"gpu.example.com\",\"pool\":\"node-1\",\"device\":\"gpu-0\",\"adminAccess\":false,"
		"\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}],"
		"\"consumedCapacity\":{\"memory\":\"10Gi\"},\"shareID\":\"3f1b6a2c-0d4e-4f5a-9b8c-7d6e5f4a3b2c\"},"
		"{\"request\":\"gpu\",\"driver\":\"gpu.example.com\",\"pool\":\"node-1\",\"device\":\"gpu-1\","
		"\"bindingConditions\":[\"attached\"],\"bindingFailureConditions\":[\"failed\"]}],"
		"\"config\":[{\"source\":\"FromClass\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"a\":[1,2]}}},"
		"{\"source\":\"FromClaim\",\"requests\":[\"gpu\"],\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{}}}]},"
		"\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\","
		"\"values\":[\"node-1\"]}]}]}}}}";
	struct api_resource_claim *holder = api_resource_claim_decode_json(alloc_json, strlen(alloc_json), &e);
	if (!holder)
		fail_msg("%s", e.msg);
	struct api_dra_consumer p1 = { "", "pods", "pod-1", "uid-1" }, p2 = { "", "pods", "pod-2", "uid-2" };
	int64_t before = (int64_t)time(NULL);
	if (sched_dra_reserve(s, c, holder->allocation, &p1, true, &upd, &e))
		fail_msg("reserve: %s", e.msg);
	api_resource_claim_unref(c);
	c = upd;
	struct api_resource_claim *r = get("claim-1");
	const struct api_dra_allocation *a = r->allocation;
	assert_non_null(a);
	assert_int_equal(a->n_results, 2);
	assert_string_equal(a->results[0].device, "gpu-0");
	assert_true(a->results[0].has_admin_access);
	assert_int_equal(a->results[0].n_tolerations, 1);
	assert_int_equal(a->results[0].tolerations[0].op, API_DRA_TOL_EXISTS);
	assert_non_null(a->results[0].share_id);
	assert_string_equal(a->results[0].share_id, "3f1b6a2c-0d4e-4f5a-9b8c-7d6e5f4a3b2c");
	assert_int_equal(a->results[0].n_consumed_capacity, 1);
	assert_string_equal(a->results[0].consumed_capacity[0].value.s, "10Gi");
	assert_string_equal(a->results[1].binding_conditions[0], "attached");
	assert_string_equal(a->results[1].binding_failure_conditions[0], "failed");
	assert_int_equal(a->n_config, 2);
	assert_int_equal(a->config[0].source, API_DRA_CONFIG_FROM_CLASS);
	assert_string_equal(a->config[0].parameters_json, "{\"a\":[1,2]}");
	assert_int_equal(a->config[1].source, API_DRA_CONFIG_FROM_CLAIM);
	assert_string_equal(a->config[1].requests[0], "gpu");
	assert_non_null(a->node_selector);
	assert_string_equal(a->node_selector->terms[0].fields[0].values[0], "node-1");
	assert_true(a->has_allocation_timestamp);
	assert_true(a->allocation_timestamp >= before && a->allocation_timestamp <= (int64_t)time(NULL));
	assert_int_equal(r->n_reserved_for, 1);
	assert_string_equal(r->reserved_for[0].resource, "pods");
	assert_string_equal(r->reserved_for[0].name, "pod-1");
	assert_ptr_equal(r->reserved_for[0].uid, intern_str("uid-1"));
	assert_string_equal(r->meta.resource_version, c->meta.resource_version);
	api_resource_claim_unref(r);

	/* a stale resourceVersion: upstream's Update/UpdateStatus conflict */
	e = (struct err){ 0 };
	assert_int_equal(sched_dra_reserve(s, stale, NULL, &p2, false, &upd, &e), ERR_CONFLICT);
	assert_null(upd);
	assert_non_null(strstr(e.msg, "update status of resourceclaim default/claim-1"));
	e = (struct err){ 0 };
	assert_int_equal(sched_dra_deallocate(s, stale, &e), ERR_CONFLICT);
	e = (struct err){ 0 };
	assert_int_equal(sched_dra_add_finalizer(s, stale, &upd, &e), ERR_CONFLICT);
	api_resource_claim_unref(stale);

	/* a second consumer on the allocated claim (allocation NULL: kept) */
	e = (struct err){ 0 };
	if (sched_dra_reserve(s, c, NULL, &p2, true, &upd, &e))
		fail_msg("reserve 2: %s", e.msg);
	api_resource_claim_unref(c);
	c = upd;
	assert_int_equal(c->n_reserved_for, 2);
	assert_int_equal(c->allocation->n_results, 2);

	/* unreserve by uid, without the latest claim (a stale one has the same uid) */
	if (sched_dra_unreserve(s, c, "uid-1", &e))
		fail_msg("unreserve: %s", e.msg);
	r = get("claim-1");
	assert_int_equal(r->n_reserved_for, 1);
	assert_string_equal(r->reserved_for[0].name, "pod-2");
	api_resource_claim_unref(c);
	c = r;

	/* deallocate */
	if (sched_dra_deallocate(s, c, &e))
		fail_msg("deallocate: %s", e.msg);
	r = get("claim-1");
	assert_null(r->allocation);
	assert_int_equal(r->n_reserved_for, 0);
	assert_int_equal(r->n_finalizers, 2);
	api_resource_claim_unref(c);
	c = r;

	/* delete: the delete-protection finalizer goes first (from a stale claim: a conflict, a fresh
	 * GET, again), the other finalizer keeps the object until it is removed too */
	struct api_resource_claim *old = get("claim-1");
	harness_kubectl(cluster.kubeconfig, NULL, NULL, "label resourceclaim claim-1 touched=yes >/dev/null");
	if (sched_dra_delete_claim(s, old, &e))
		fail_msg("delete: %s", e.msg);
	api_resource_claim_unref(old);
	r = get("claim-1");
	assert_int_equal(r->n_finalizers, 1);
	assert_string_equal(r->finalizers[0], "example.com/keep");
	assert_true(r->meta.being_deleted);
	api_resource_claim_unref(r);
	harness_kubectl(cluster.kubeconfig, NULL, NULL,
			"patch resourceclaim claim-1 --type=merge -p '{\"metadata\":{\"finalizers\":null}}' >/dev/null");
	struct api_resource_claim *gone = NULL;
	e = (struct err){ 0 };
	assert_int_equal(api_resource_claim_get(conn, "default", "claim-1", &gone, &e), ERR_NOT_FOUND);
	/* deleting what is gone is no error */
	assert_int_equal(sched_dra_delete_claim(s, c, &e), 0);
	api_resource_claim_unref(c);
	api_resource_claim_unref(holder);
	free(s);
}

struct synced {
	struct sched_dra *d;
};

static bool all_synced(void *ctx)
{
	return sched_dra_synced(((struct synced *)ctx)->d);
}

struct want_obj {
	enum api_kind kind;
	struct api_informer *inf;
	const char *ns, *name;
	bool present;
};

static bool obj_is(void *ctx)
{
	struct want_obj *w = ctx;
	void *o = api_informer_get(w->inf, w->ns, w->name);
	bool there = o != NULL;
	switch (w->kind) { /* the reference api_informer_get gave */
	case API_KIND_RESOURCE_CLAIM:
		api_resource_claim_unref(o);
		break;
	case API_KIND_RESOURCE_SLICE:
		api_resource_slice_unref(o);
		break;
	case API_KIND_DEVICE_CLASS:
		api_device_class_unref(o);
		break;
	default:
		api_device_taint_rule_unref(o);
	}
	return there == w->present;
}

/* kubectl create -f of manifest (written to a file in the cluster's directory). */
static void create(const char *manifest)
{
	char path[400], *out = NULL;
	snprintf(path, sizeof(path), "%s/dra-objects.yaml", cluster.dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(manifest, f);
	fclose(f);
	if (harness_kubectl(cluster.kubeconfig, NULL, &out, "create -f '%s'", path) != 0)
		fail_msg("kubectl: %s", out);
	free(out);
}

static void test_informers(void **state)
{
	(void)state;
	struct err e = { 0 };
	/* before the informers start: they arrive through the initial list */
	create("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\n"
	       "spec: {}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\nspec: "
	       "{driver: gpu.example.com, pool: {name: p, generation: 1, resourceSliceCount: 1}, nodeName: n1, "
	       "devices: [{name: gpu-0}]}\n");
	/* a second set on a protobuf client: the same objects (api_config.protobuf, as csched runs) */
	struct api_config cfg = { 0 };
	if (api_config_load_kubeconfig(&cfg, cluster.kubeconfig, "token", &e))
		fail_msg("kubeconfig: %s", e.msg);
	cfg.protobuf = true;
	struct api_client *pb_cl = api_client_new(&cfg, &e);
	api_config_release(&cfg);
	assert_non_null(pb_cl);
	struct sched_dra *d = sched_dra_new(cl, SCHED_DRA_ALL, NULL, &e), *dp = sched_dra_new(pb_cl, SCHED_DRA_ALL, NULL, &e);
	if (!d || sched_dra_start(d, &e) || !dp || sched_dra_start(dp, &e))
		fail_msg("sched_dra: %s", e.msg);
	struct synced sy = { d }, syp = { dp };
	assert_true(harness_wait_until(all_synced, &sy, 30000, 20));
	assert_true(harness_wait_until(all_synced, &syp, 30000, 20));
	assert_non_null(sched_dra_informer(d, API_KIND_DEVICE_TAINT_RULE)); /* served here */
	/* after: through the watch */
	create("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: "
	       "{name: w, namespace: default}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: "
	       "gpu.example.com}}]}}\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: t}\n"
	       "spec: {deviceSelector: {pool: p}, taint: {key: k, effect: NoSchedule}}\n");
	struct want_obj w[] = {
		{ API_KIND_DEVICE_CLASS, sched_dra_informer(d, API_KIND_DEVICE_CLASS), NULL, "gpu.example.com", true },
		{ API_KIND_RESOURCE_SLICE, sched_dra_informer(d, API_KIND_RESOURCE_SLICE), NULL, "s1", true },
		{ API_KIND_RESOURCE_CLAIM, sched_dra_informer(d, API_KIND_RESOURCE_CLAIM), "default", "w", true },
		{ API_KIND_DEVICE_TAINT_RULE, sched_dra_informer(d, API_KIND_DEVICE_TAINT_RULE), NULL, "t", true },
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		if (!harness_wait_until(obj_is, &w[i], 30000, 20))
			fail_msg("%s never arrived", w[i].name);
		struct want_obj wp = w[i];
		wp.inf = sched_dra_informer(dp, w[i].kind);
		if (!harness_wait_until(obj_is, &wp, 30000, 20))
			fail_msg("%s never arrived (protobuf)", w[i].name);
	}
	struct api_informer_stats st;
	api_informer_stats(sched_dra_informer(dp, API_KIND_RESOURCE_CLAIM), &st);
	assert_true(st.protobuf_responses > 0);
	api_informer_stats(sched_dra_informer(d, API_KIND_RESOURCE_CLAIM), &st);
	assert_int_equal(st.protobuf_responses, 0);
	/* the opaque parameters, through protobuf's RawExtension */
	create("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: cfg}\nspec: {config: [{opaque: "
	       "{driver: d, parameters: {b: [1, 2.5], a: x}}}]}\n");
	struct want_obj wc = { API_KIND_DEVICE_CLASS, sched_dra_informer(dp, API_KIND_DEVICE_CLASS), NULL, "cfg", true };
	assert_true(harness_wait_until(obj_is, &wc, 30000, 20));
	struct api_device_class *dc = api_informer_get(wc.inf, NULL, "cfg");
	assert_non_null(dc);
	assert_string_equal(dc->config[0].parameters_json, "{\"a\":\"x\",\"b\":[1,2.5]}");
	api_device_class_unref(dc);
	harness_kubectl(cluster.kubeconfig, NULL, NULL, "delete resourceclaim w >/dev/null");
	w[2].present = false;
	assert_true(harness_wait_until(obj_is, &w[2], 30000, 20));
	sched_dra_stop(d);
	sched_dra_free(d);
	sched_dra_free(dp);
	api_client_free(pb_cl);
}

static void test_taint_rules_not_served(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct fproxy *p = fproxy_start(&cluster, &e);
	if (!p)
		fail_msg("proxy: %s", e.msg);
	struct api_client *pc = fproxy_client_new(p, &cluster, NULL, 0, &e);
	assert_non_null(pc);
	int id = fproxy_add(p, &(struct fproxy_rule){ .path = "/devicetaintrules", .fault = FP_REPLY, .status = 404 });
	assert_true(id >= 0);
	struct sched_dra *d = sched_dra_new(pc, SCHED_DRA_ALL, NULL, &e);
	if (!d || sched_dra_start(d, &e))
		fail_msg("sched_dra: %s", e.msg);
	assert_null(sched_dra_informer(d, API_KIND_DEVICE_TAINT_RULE));
	assert_int_equal(fproxy_fired(p, id), 1); /* the probe only */
	struct synced sy = { d };
	assert_true(harness_wait_until(all_synced, &sy, 30000, 20));
	sched_dra_free(d);

	/* a 500: not "not served", the informer stays and syncs once the server answers */
	fproxy_clear(p);
	id = fproxy_add(p, &(struct fproxy_rule){ .path = "/devicetaintrules", .times = 1, .fault = FP_REPLY, .status = 500 });
	d = sched_dra_new(pc, SCHED_DRA_ALL, NULL, &e);
	if (!d || sched_dra_start(d, &e))
		fail_msg("sched_dra: %s", e.msg);
	assert_non_null(sched_dra_informer(d, API_KIND_DEVICE_TAINT_RULE));
	sy.d = d;
	assert_true(harness_wait_until(all_synced, &sy, 30000, 20));
	assert_int_equal(fproxy_fired(p, id), 1);
	sched_dra_free(d);
	api_client_free(pc);
	fproxy_stop(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claim_writes),
		cmocka_unit_test(test_informers),
		cmocka_unit_test(test_taint_rules_not_served),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
