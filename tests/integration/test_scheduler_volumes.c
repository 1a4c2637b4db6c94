/* The volume plugins' informers (scheduler/volumes.c: PersistentVolumes, StorageClasses, CSINodes,
 * CSIDrivers, VolumeAttachments, CSIStorageCapacities) against a real kube-apiserver + etcd, each
 * reading JSON and, on a second client, protobuf: objects made before they start arrive through
 * the initial list, later ones through the watch; label, spec and status updates, a PV delete
 * held by its pv-protection finalizer (deletionTimestamp set) and then released, and plain
 * deletes, after which every store equals a fresh LIST of the server (each name with the
 * server's resourceVersion, nothing more) and the JSON and protobuf stores hold the same decoded
 * values; the indexed walks (PVs by class, VolumeAttachments by node) follow the updates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "apiclient/informer.h"
#include "common/intern.h"
#include "harness.h"
#include "scheduler/sched_internal.h"
#include "testutil.h"

#define PVS "/api/v1/persistentvolumes"
#define ST "/apis/storage.k8s.io/v1"
#define SCS ST "/storageclasses"
#define CSINODES ST "/csinodes"
#define CSIDRIVERS ST "/csidrivers"
#define VAS ST "/volumeattachments"
#define CSCS ST "/namespaces/default/csistoragecapacities"

static struct harness_cluster cluster;
static struct api_client *cl, *pb_cl;
static struct api_conn *conn;

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	if (harness_setup(&cluster, 0, &cl, &conn))
		return -1;
	struct api_config cfg = { 0 };
	if (api_config_load_kubeconfig(&cfg, cluster.kubeconfig, "token", &e))
		fail_msg("kubeconfig: %s", e.msg);
	cfg.protobuf = true;
	if (!(pb_cl = api_client_new(&cfg, &e)))
		fail_msg("client: %s", e.msg);
	api_config_release(&cfg);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	api_client_free(pb_cl);
	pb_cl = NULL;
	harness_teardown(&cluster, &cl, &conn);
	return 0;
}

static void request(const char *method, const char *path, const char *content_type, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void request(const char *method, const char *path, const char *content_type, const char *fmt, ...)
{
	char body[2048] = "";
	struct err e = { 0 };
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(body, sizeof(body), fmt, ap);
		va_end(ap);
	}
	if (api_request(conn, method, path, content_type, fmt ? body : NULL, fmt ? strlen(body) : 0, NULL, &e))
		fail_msg("%s %s: %s", method, path, e.msg);
}

#define MERGE "application/merge-patch+json"

static void create_pv(const char *name, const char *cls, const char *zone)
{
	request("POST", PVS, NULL,
		"{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"%s\",\"labels\":"
		"{\"topology.kubernetes.io/zone\":\"%s\"}},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":"
		"[\"ReadWriteOnce\"],\"storageClassName\":\"%s\",\"csi\":{\"driver\":\"ebs.csi.aws.com\","
		"\"volumeHandle\":\"h-%s\"},\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":"
		"[{\"key\":\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":[\"%s\"]}]}]}}}}",
		name, zone, cls, name, zone);
}

static void create_sc(const char *name, const char *mode)
{
	request("POST", SCS, NULL,
		"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"%s\"},"
		"\"provisioner\":\"ebs.csi.aws.com\",\"volumeBindingMode\":\"%s\",\"allowedTopologies\":[{"
		"\"matchLabelExpressions\":[{\"key\":\"topology.kubernetes.io/zone\",\"values\":[\"zone-a\"]}]}]}",
		name, mode);
}

static void create_csinode(const char *name, int count)
{
	request("POST", CSINODES, NULL,
		"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"metadata\":{\"name\":\"%s\"},\"spec\":"
		"{\"drivers\":[{\"name\":\"ebs.csi.aws.com\",\"nodeID\":\"id-%s\",\"topologyKeys\":[\"zone\"],"
		"\"allocatable\":{\"count\":%d}}]}}",
		name, name, count);
}

static void create_csidriver(const char *name, bool capacity)
{
	request("POST", CSIDRIVERS, NULL,
		"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSIDriver\",\"metadata\":{\"name\":\"%s\"},\"spec\":"
		"{\"attachRequired\":true,\"storageCapacity\":%s}}",
		name, capacity ? "true" : "false");
}

static void create_va(const char *name, const char *node, const char *pv)
{
	request("POST", VAS, NULL,
		"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"VolumeAttachment\",\"metadata\":{\"name\":\"%s\"},"
		"\"spec\":{\"attacher\":\"ebs.csi.aws.com\",\"nodeName\":\"%s\",\"source\":{\"persistentVolumeName\":"
		"\"%s\"}}}",
		name, node, pv);
}

static void create_csc(const char *name, const char *zone, const char *cap)
{
	request("POST", CSCS, NULL,
		"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSIStorageCapacity\",\"metadata\":{\"name\":\"%s\"},"
		"\"storageClassName\":\"fast\",\"nodeTopology\":{\"matchLabels\":{\"topology.kubernetes.io/zone\":"
		"\"%s\"}},\"capacity\":\"%s\"}",
		name, zone, cap);
}

/* ---------- store vs server ---------- */

static const struct {
	enum api_kind kind;
	const char *list_path;
	bool namespaced;
} kinds[] = {
	{ API_KIND_PV, PVS, false },
	{ API_KIND_STORAGE_CLASS, SCS, false },
	{ API_KIND_CSINODE, CSINODES, false },
	{ API_KIND_CSIDRIVER, CSIDRIVERS, false },
	{ API_KIND_VOLUME_ATTACHMENT, VAS, false },
	{ API_KIND_CSI_STORAGE_CAPACITY, ST "/csistoragecapacities", true },
};

static const struct api_meta *meta_of(enum api_kind kind, const void *o)
{
	switch (kind) {
	case API_KIND_PV:
		return &((const struct api_pv *)o)->meta;
	case API_KIND_STORAGE_CLASS:
		return &((const struct api_storage_class *)o)->meta;
	case API_KIND_CSINODE:
		return &((const struct api_csinode *)o)->meta;
	case API_KIND_CSIDRIVER:
		return &((const struct api_csidriver *)o)->meta;
	case API_KIND_VOLUME_ATTACHMENT:
		return &((const struct api_volume_attachment *)o)->meta;
	default:
		return &((const struct api_csi_storage_capacity *)o)->meta;
	}
}

static void unref(enum api_kind kind, void *o)
{
	switch (kind) {
	case API_KIND_PV:
		api_pv_unref(o);
		break;
	case API_KIND_STORAGE_CLASS:
		api_storage_class_unref(o);
		break;
	case API_KIND_CSINODE:
		api_csinode_unref(o);
		break;
	case API_KIND_CSIDRIVER:
		api_csidriver_unref(o);
		break;
	case API_KIND_VOLUME_ATTACHMENT:
		api_volume_attachment_unref(o);
		break;
	default:
		api_csi_storage_capacity_unref(o);
	}
}

/* The decoded values compared between the JSON and the protobuf store. */
static bool same_values(enum api_kind kind, const void *a, const void *b)
{
	const struct api_meta *ma = meta_of(kind, a), *mb = meta_of(kind, b);
	if (strcmp(ma->resource_version, mb->resource_version) || strcmp(ma->uid, mb->uid) ||
	    ma->being_deleted != mb->being_deleted || ma->labels.n != mb->labels.n ||
	    ma->annotations.n != mb->annotations.n || ma->creation_timestamp != mb->creation_timestamp)
		return false;
	switch (kind) {
	case API_KIND_PV: {
		const struct api_pv *x = a, *y = b;
		return x->capacity_storage == y->capacity_storage && x->access_modes == y->access_modes &&
		       x->storage_class_name == y->storage_class_name && x->phase == y->phase &&
		       x->volume_mode == y->volume_mode && x->source.kind == y->source.kind &&
		       x->source.driver == y->source.driver && !strcmp(x->source.volume_handle, y->source.volume_handle) &&
		       (x->node_affinity != NULL) == (y->node_affinity != NULL) &&
		       (!x->node_affinity || x->node_affinity->n_required == y->node_affinity->n_required);
	}
	case API_KIND_STORAGE_CLASS: {
		const struct api_storage_class *x = a, *y = b;
		return x->provisioner == y->provisioner && x->volume_binding_mode == y->volume_binding_mode &&
		       x->n_allowed_topologies == y->n_allowed_topologies;
	}
	case API_KIND_CSINODE: {
		const struct api_csinode *x = a, *y = b;
		return x->n_drivers == y->n_drivers &&
		       (!x->n_drivers || (x->drivers[0].allocatable_count == y->drivers[0].allocatable_count &&
					  x->drivers[0].name == y->drivers[0].name &&
					  !strcmp(x->drivers[0].node_id, y->drivers[0].node_id)));
	}
	case API_KIND_CSIDRIVER: {
		const struct api_csidriver *x = a, *y = b;
		return x->attach_required == y->attach_required && x->storage_capacity == y->storage_capacity &&
		       x->has_storage_capacity == y->has_storage_capacity;
	}
	case API_KIND_VOLUME_ATTACHMENT: {
		const struct api_volume_attachment *x = a, *y = b;
		return x->attacher == y->attacher && x->node_name == y->node_name && x->attached == y->attached &&
		       !strcmp(x->pv_name, y->pv_name);
	}
	default: {
		const struct api_csi_storage_capacity *x = a, *y = b;
		return x->capacity == y->capacity && x->storage_class_name == y->storage_class_name &&
		       (x->node_topology != NULL) == (y->node_topology != NULL);
	}
	}
}

struct srv {
	int k;
	struct api_informer *json, *pb;
	long server, mismatched;
	char first[256];
};

static int srv_item(void *ctx, yajl_val item)
{
	static const char *ns_path[] = { "metadata", "namespace", NULL }, *name_path[] = { "metadata", "name", NULL },
			  *rv_path[] = { "metadata", "resourceVersion", NULL };
	struct srv *s = ctx;
	enum api_kind kind = kinds[s->k].kind;
	s->server++;
	yajl_val ns = yajl_tree_get(item, ns_path, yajl_t_string), name = yajl_tree_get(item, name_path, yajl_t_string),
		 rv = yajl_tree_get(item, rv_path, yajl_t_string);
	const char *nss = kinds[s->k].namespaced && ns ? ns->u.string : NULL;
	void *a = name ? api_informer_get(s->json, nss, name->u.string) : NULL;
	void *b = name ? api_informer_get(s->pb, nss, name->u.string) : NULL;
	bool ok = a && b && rv && !strcmp(meta_of(kind, a)->resource_version, rv->u.string) && same_values(kind, a, b);
	if (!ok && !s->mismatched++)
		snprintf(s->first, sizeof(s->first), "%s rv %s: json %s, protobuf %s", name ? name->u.string : "?",
			 rv ? rv->u.string : "?", a ? meta_of(kind, a)->resource_version : "missing",
			 b ? meta_of(kind, b)->resource_version : "missing");
	if (a)
		unref(kind, a);
	if (b)
		unref(kind, b);
	return 0;
}

static bool store_equals_server(void *ctx)
{
	struct srv *s = ctx;
	struct err e = { 0 };
	s->server = s->mismatched = 0;
	s->first[0] = '\0';
	if (harness_list(conn, kinds[s->k].list_path, srv_item, s, NULL, &e))
		fail_msg("list %s: %s", kinds[s->k].list_path, e.msg);
	return !s->mismatched && api_informer_len(s->json) == (size_t)s->server &&
	       api_informer_len(s->pb) == (size_t)s->server;
}

static void assert_stores_equal_server(struct sched_volumes *vj, struct sched_volumes *vp, const char *when)
{
	for (int k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++) {
		struct srv s = { .k = k,
				 .json = sched_volumes_informer(vj, kinds[k].kind),
				 .pb = sched_volumes_informer(vp, kinds[k].kind) };
		assert_non_null(s.json);
		assert_non_null(s.pb);
		if (!harness_wait_until(store_equals_server, &s, 30000, 50))
			fail_msg("%s: %s: server %ld, json store %zu, protobuf store %zu, %ld mismatched (first %s)", when,
				 kinds[k].list_path, s.server, api_informer_len(s.json), api_informer_len(s.pb),
				 s.mismatched, s.first);
	}
}

/* ---------- indexed walks ---------- */

static int count_pv(void *arg, const struct api_pv *pv)
{
	(void)pv;
	++*(int *)arg;
	return 0;
}

static int count_va(void *arg, const struct api_volume_attachment *va)
{
	(void)va;
	++*(int *)arg;
	return 0;
}

struct walk {
	struct scheduler *s;
	const char *key;
	bool va;
	int want, got;
};

static bool walk_count(void *ctx)
{
	struct walk *w = ctx;
	w->got = 0;
	if (w->va)
		sched_volume_attachment_each(w->s, w->key, count_va, &w->got);
	else
		sched_pv_each(w->s, w->key, count_pv, &w->got);
	return w->got == w->want;
}

static void assert_walk(struct scheduler *s, bool va, const char *key, int want)
{
	struct walk w = { s, key, va, want, 0 };
	if (!harness_wait_until(walk_count, &w, 30000, 50))
		fail_msg("%s %s: %d, want %d", va ? "VolumeAttachments of node" : "PVs of class", key, w.got, want);
}

static void test_volume_informers(void **state)
{
	(void)state;
	struct err e = { 0 };
	/* before the informers: listed */
	create_sc("fast", "WaitForFirstConsumer");
	create_pv("pv-a", "fast", "zone-a");
	create_pv("pv-b", "fast", "zone-b");
	create_csinode("node-1", 2);
	create_csidriver("ebs.csi.aws.com", true);
	create_va("va-1", "node-1", "pv-a");
	create_csc("cap-a", "zone-a", "10Gi");

	struct sched_volumes *vj = sched_volumes_new(cl, 0x3f, NULL, &e), *vp = sched_volumes_new(pb_cl, 0x3f, NULL, &e);
	if (!vj || !vp)
		fail_msg("sched_volumes_new: %s", e.msg);
	if (sched_volumes_start(vj, &e) || sched_volumes_start(vp, &e))
		fail_msg("start: %s", e.msg);
	assert_true(sched_volumes_wait_synced(vj, 30000));
	assert_true(sched_volumes_wait_synced(vp, 30000));
	assert_true(sched_volumes_synced(vj) && sched_volumes_synced(vp));
	assert_stores_equal_server(vj, vp, "after the initial list");
	struct scheduler sj = { .volumes = vj }, sp = { .volumes = vp };
	assert_walk(&sj, false, "fast", 2);
	assert_walk(&sp, false, "fast", 2);
	assert_walk(&sj, true, "node-1", 1);

	/* watched: creates */
	create_sc("slow", "Immediate");
	create_pv("pv-c", "slow", "zone-a");
	create_csinode("node-2", 5);
	create_csidriver("hostpath.csi.k8s.io", false);
	create_va("va-2", "node-1", "pv-b");
	create_va("va-3", "node-2", "pv-c");
	create_csc("cap-b", "zone-b", "1Ti");
	/* updates: labels, the beta class annotation (moves pv-b to class slow), status, spec */
	request("PATCH", PVS "/pv-a", MERGE, "{\"metadata\":{\"labels\":{\"tier\":\"db\"}}}");
	request("PATCH", PVS "/pv-b", MERGE,
		"{\"metadata\":{\"annotations\":{\"volume.beta.kubernetes.io/storage-class\":\"slow\"}}}");
	request("PATCH", PVS "/pv-c/status", MERGE, "{\"status\":{\"phase\":\"Available\"}}");
	request("PATCH", SCS "/fast", MERGE, "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}");
	request("PATCH", CSINODES "/node-1", MERGE, "{\"metadata\":{\"annotations\":{\"storage.alpha.kubernetes.io/"
						 "migrated-plugins\":\"kubernetes.io/aws-ebs\"}}}");
	request("PATCH", CSIDRIVERS "/hostpath.csi.k8s.io", MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
	request("PATCH", VAS "/va-1/status", MERGE, "{\"status\":{\"attached\":true}}");
	request("PATCH", CSCS "/cap-a", MERGE, "{\"capacity\":\"20Gi\"}");
	assert_stores_equal_server(vj, vp, "after creates and updates");
	assert_walk(&sj, false, "fast", 1);
	assert_walk(&sj, false, "slow", 2);
	assert_walk(&sp, false, "slow", 2);
	assert_walk(&sj, true, "node-1", 2);
	assert_walk(&sp, true, "node-2", 1);
	struct api_csi_storage_capacity *cap = api_informer_get(sched_volumes_informer(vp, API_KIND_CSI_STORAGE_CAPACITY),
							       "default", "cap-a");
	assert_non_null(cap);
	assert_int_equal(cap->capacity, 20LL << 30);
	api_csi_storage_capacity_unref(cap);
	struct api_pv *pv = sched_pv_lister(&sj, "pv-c");
	assert_non_null(pv);
	assert_ptr_equal(pv->phase, intern_str("Available"));
	api_pv_unref(pv);

	/* deletes: a PV is held by its pv-protection finalizer (deletionTimestamp: an update) until
	 * the finalizer goes; the others go at once */
	request("DELETE", PVS "/pv-a", NULL, NULL);
	request("DELETE", SCS "/slow", NULL, NULL);
	request("DELETE", CSINODES "/node-2", NULL, NULL);
	request("DELETE", CSIDRIVERS "/hostpath.csi.k8s.io", NULL, NULL);
	request("DELETE", VAS "/va-2", NULL, NULL);
	request("DELETE", CSCS "/cap-b", NULL, NULL);
	assert_stores_equal_server(vj, vp, "after deletes");
	pv = sched_pv_lister(&sp, "pv-a");
	assert_non_null(pv);
	assert_true(pv->meta.being_deleted);
	api_pv_unref(pv);
	request("PATCH", PVS "/pv-a", MERGE, "{\"metadata\":{\"finalizers\":null}}");
	assert_stores_equal_server(vj, vp, "after the PV's finalizer is removed");
	assert_null(sched_pv_lister(&sj, "pv-a"));
	assert_walk(&sj, false, "fast", 0);
	assert_walk(&sp, true, "node-1", 1);
	assert_int_equal(api_informer_len(sched_volumes_informer(vj, API_KIND_PV)), 2);

	for (int k = 0; k < (int)(sizeof(kinds) / sizeof(kinds[0])); k++) {
		struct api_informer_stats sa, sb;
		api_informer_stats(sched_volumes_informer(vj, kinds[k].kind), &sa);
		api_informer_stats(sched_volumes_informer(vp, kinds[k].kind), &sb);
		assert_int_equal(sa.decode_errors, 0);
		assert_int_equal(sb.decode_errors, 0);
		assert_int_equal(sa.protobuf_responses, 0);
		if (sb.protobuf_responses == 0)
			fail_msg("%s: the protobuf informer got no protobuf response", kinds[k].list_path);
	}
	sched_volumes_free(vj);
	sched_volumes_free(vp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_volume_informers, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
