/* VolumeBinding (algorithm/plugins/volume_binding.c, volume_binder.c): upstream v1.37.2
 * plugins/volumebinding binder_test.go (TestFindPodVolumesWithoutProvisioning,
 * TestFindPodVolumesWithProvisioning, TestCapacity, TestAssumePodVolumes,
 * TestRevertAssumedPodVolumes, TestCheckBindings, TestBindPodVolumes), scorer_test.go (TestScore),
 * passive_assume_cache_test.go (TestAssume, TestRestore, TestAssumeUpdateCache),
 * util/assumecache assume_cache_test.go (TestEvents' deletes, TestRestore) and
 * volume_binding_test.go (TestVolumeBinding, TestIsSchedulableAfter*), each case under its
 * upstream name, with upstream's fixtures (makeTestPVC, makeTestPV, makeCapacity) rendered as
 * manifests. The listers and the API writes are a fake world the tests own. */
#include "algorithm_testlib.h"

#include <time.h>

#include "algorithm/plugins/volume_binding_internal.h"

/* ---------- fixtures (binder_test.go) ---------- */

enum pvc_state { PVC_UNBOUND, PVC_PREBOUND, PVC_BOUND, PVC_SELECTED_NODE };

/* makeTestPVC(name, size, node, state, pvName, rv, class) in namespace testns, uid pvc-uid. */
struct pvc_spec {
	const char *name, *size, *node;
	enum pvc_state state;
	const char *pv_name, *rv, *cls; /* cls NULL: no storageClassName */
	bool owned_by_pod;               /* makeGenericEphemeralPVC(owned) */
};

/* makeTestPV(name, node, capacity, version, boundToPVC, className) */
struct pv_spec {
	const char *name, *node, *capacity, *rv;
	const struct pvc_spec *bound_to;
	const char *cls;
	const char *ref_uid; /* overrides bound_to's uid ("" = a claimRef without uid) */
};

#define WAIT "waitClass"
#define IMMEDIATE "immediateClass"
#define WAIT_PROV "waitClassWithProvisioner"
#define TOPO_MISMATCH "topoMismatchClass"
#define PROVISIONER "test-provisioner"

static const struct pvc_spec unbound_pvc = { "unbound-pvc", "1G", "", PVC_UNBOUND, "", "1", WAIT, false };
static const struct pvc_spec unbound_pvc2 = { "unbound-pvc2", "5G", "", PVC_UNBOUND, "", "1", WAIT, false };
static const struct pvc_spec prebound_pvc = { "prebound-pvc", "1G", "", PVC_PREBOUND, "pv-node1a", "1", WAIT, false };
static const struct pvc_spec bound_pvc = { "bound-pvc", "1G", "", PVC_BOUND, "pv-bound", "1", WAIT, false };
static const struct pvc_spec bound_pvc_node1a = { "unbound-pvc", "1G", "", PVC_BOUND, "pv-node1a", "1", WAIT, false };
static const struct pvc_spec immediate_unbound_pvc = { "immediate-unbound-pvc", "1G", "", PVC_UNBOUND, "", "1", IMMEDIATE, false };
static const struct pvc_spec immediate_bound_pvc = { "immediate-bound-pvc", "1G", "", PVC_BOUND, "pv-bound-immediate", "1", IMMEDIATE, false };
static const struct pvc_spec provisioned_pvc = { "provisioned-pvc", "1Gi", "", PVC_UNBOUND, "", "1", WAIT_PROV, false };
static const struct pvc_spec no_provisioner_pvc = { "no-provisioner-pvc", "1Gi", "", PVC_UNBOUND, "", "1", WAIT, false };
static const struct pvc_spec topo_mismatch_pvc = { "topo-mismatch-pvc", "1Gi", "", PVC_UNBOUND, "", "1", TOPO_MISMATCH, false };
static const struct pvc_spec selected_node_pvc = { "provisioned-pvc", "1Gi", "node1", PVC_SELECTED_NODE, "", "1", WAIT_PROV, false };
static const struct pvc_spec correct_generic_pvc = { "test-pod-test-volume", "1G", "", PVC_BOUND, "pv-bound", "1", IMMEDIATE, true };
static const struct pvc_spec conflicting_generic_pvc = { "test-pod-test-volume", "1G", "", PVC_BOUND, "pv-bound", "1", IMMEDIATE, false };

static const struct pv_spec pv_node1a = { "pv-node1a", "node1", "5G", "1", NULL, WAIT, NULL };
static const struct pv_spec pv_node1b = { "pv-node1b", "node1", "10G", "1", NULL, WAIT, NULL };
static const struct pv_spec pv_node2 = { "pv-node2", "node2", "1G", "1", NULL, WAIT, NULL };
static const struct pv_spec pv_bound = { "pv-bound", "node1", "1G", "1", &bound_pvc, WAIT, NULL };
static const struct pv_spec pv_node1a_bound = { "pv-node1a", "node1", "5G", "1", &unbound_pvc, WAIT, NULL };
static const struct pv_spec pv_bound_immediate = { "pv-bound-immediate", "node1", "1G", "1", &immediate_bound_pvc, IMMEDIATE, NULL };
static const struct pv_spec pv_bound_immediate_node2 = { "pv-bound-immediate", "node2", "1G", "1", &immediate_bound_pvc, IMMEDIATE, NULL };
static const struct pv_spec pv_bound_generic = { "pv-bound", "node1", "1G", "1", &correct_generic_pvc, WAIT, NULL };

static struct api_pvc *mkpvc(const struct pvc_spec *s)
{
	char json[2048], ann[256] = "", owner[256] = "", cls[128] = "", vol[128] = "";
	if (s->state == PVC_SELECTED_NODE)
		snprintf(ann, sizeof(ann), ",\"annotations\":{\"volume.kubernetes.io/selected-node\":\"%s\"}", s->node);
	else if (s->state == PVC_BOUND && s->node[0]) /* provisioned: the annotation stays */
		snprintf(ann, sizeof(ann),
			 ",\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\",\"volume.kubernetes.io/selected-node\":\"%s\"}",
			 s->node);
	else if (s->state == PVC_BOUND)
		snprintf(ann, sizeof(ann), ",\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}");
	if (s->owned_by_pod)
		snprintf(owner, sizeof(owner),
			 ",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"test-pod\",\"uid\":\"uid-test-pod\",\"controller\":true}]");
	if (s->cls)
		snprintf(cls, sizeof(cls), ",\"storageClassName\":\"%s\"", s->cls);
	if (s->state == PVC_BOUND || s->state == PVC_PREBOUND)
		snprintf(vol, sizeof(vol), ",\"volumeName\":\"%s\"", s->pv_name);
	snprintf(json, sizeof(json),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"testns\",\"uid\":\"pvc-uid\",\"resourceVersion\":\"%s\"%s%s},"
		 "\"spec\":{\"resources\":{\"requests\":{\"storage\":\"%s\"}},\"volumeMode\":\"Filesystem\"%s%s}}",
		 s->name, s->rv, ann, owner, s->size, cls, vol);
	struct err e = { 0 };
	struct api_pvc *p = api_pvc_decode_json(json, strlen(json), &e);
	if (!p)
		fail_msg("pvc %s: %s", s->name, e.msg);
	return p;
}

static struct api_pv *mkpv(const struct pv_spec *s)
{
	char json[2048], aff[256] = "", ref[512] = "", ann[128] = "";
	if (s->node && s->node[0])
		snprintf(aff, sizeof(aff),
			 ",\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"nodeKey\","
			 "\"operator\":\"In\",\"values\":[\"%s\"]}]}]}}",
			 s->node);
	if (s->bound_to) {
		snprintf(ref, sizeof(ref),
			 ",\"claimRef\":{\"kind\":\"PersistentVolumeClaim\",\"apiVersion\":\"v1\",\"namespace\":\"testns\","
			 "\"name\":\"%s\",\"uid\":\"%s\",\"resourceVersion\":\"%s\"}",
			 s->bound_to->name, s->ref_uid ? s->ref_uid : "pvc-uid", s->bound_to->rv);
		snprintf(ann, sizeof(ann), ",\"annotations\":{\"pv.kubernetes.io/bound-by-controller\":\"yes\"}");
	}
	snprintf(json, sizeof(json),
		 "{\"metadata\":{\"name\":\"%s\",\"resourceVersion\":\"%s\"%s},\"spec\":{\"capacity\":{\"storage\":\"%s\"},"
		 "\"storageClassName\":\"%s\",\"volumeMode\":\"Filesystem\"%s%s},\"status\":{\"phase\":\"Available\"}}",
		 s->name, s->rv, ann, s->capacity, s->cls, aff, ref);
	struct err e = { 0 };
	struct api_pv *p = api_pv_decode_json(json, strlen(json), &e);
	if (!p)
		fail_msg("pv %s: %s", s->name, e.msg);
	return p;
}

static struct api_storage_class *mkclass(const char *json)
{
	struct err e = { 0 };
	struct api_storage_class *sc = api_storage_class_decode_json(json, strlen(json), &e);
	if (!sc)
		fail_msg("class: %s", e.msg);
	return sc;
}

/* makeCapacity(name, class, node (its nodeKey label value, NULL = network attached), capacity,
 * maximumVolumeSize) */
static struct api_csi_storage_capacity *mkcap(const char *cls, const char *node, const char *cap, const char *max)
{
	char json[1024], topo[128], c[64] = "", m[64] = "";
	snprintf(topo, sizeof(topo), node ? "{\"matchLabels\":{\"nodeKey\":\"%s\"}}" : "{}", node);
	if (cap && cap[0])
		snprintf(c, sizeof(c), ",\"capacity\":\"%s\"", cap);
	if (max && max[0])
		snprintf(m, sizeof(m), ",\"maximumVolumeSize\":\"%s\"", max);
	snprintf(json, sizeof(json),
		 "{\"metadata\":{\"name\":\"net\",\"namespace\":\"testns\"},\"storageClassName\":\"%s\",\"nodeTopology\":%s%s%s}",
		 cls, topo, c, m);
	struct err e = { 0 };
	struct api_csi_storage_capacity *x = api_csi_storage_capacity_decode_json(json, strlen(json), &e);
	if (!x)
		fail_msg("capacity: %s", e.msg);
	return x;
}

static struct api_csidriver *mkdriver(bool capacity)
{
	char json[256];
	snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"storageCapacity\":%s}}", PROVISIONER,
		 capacity ? "true" : "false");
	struct err e = { 0 };
	struct api_csidriver *d = api_csidriver_decode_json(json, strlen(json), &e);
	if (!d)
		fail_msg("driver: %s", e.msg);
	return d;
}

/* ---------- the fake world: listers and API ---------- */

#define WMAX 16
struct world {
	struct api_pvc *pvcs[WMAX];
	uint32_t n_pvcs;
	struct api_pv *pvs[WMAX];
	uint32_t n_pvs;
	struct api_storage_class *classes[8];
	uint32_t n_classes;
	struct api_csidriver *driver;
	struct api_csi_storage_capacity *caps[8];
	uint32_t n_caps;
	struct api_node *nodes[4];
	uint32_t n_nodes;
	struct api_csinode *csinode; /* the CSINode of every node name (NULL: none) */
	/* API writes: what was written, failures to inject, the PV controller to play */
	char writes[512];
	int fail_write;      /* the n-th write (1-based) fails with a conflict; 0 = none */
	int n_writes;
	int sleeps;
	void (*controller)(struct world *w); /* run at every poll (the PV controller) */
	bool lag;                            /* written PVs reach the lister one poll later */
	struct api_pv *lagging;              /* the written PV the informer has not delivered yet */
	bool stop;                           /* the scheduler stops: sleep returns false */
	bool pod_gone;                       /* the pod lister no longer has the pod */
};

static void world_put_pvc(struct world *w, struct api_pvc *p)
{
	for (uint32_t i = 0; i < w->n_pvcs; i++)
		if (!strcmp(w->pvcs[i]->meta.name, p->meta.name) && !strcmp(w->pvcs[i]->meta.namespace, p->meta.namespace)) {
			api_pvc_unref(w->pvcs[i]);
			w->pvcs[i] = p;
			return;
		}
	w->pvcs[w->n_pvcs++] = p;
}

static void world_put_pv(struct world *w, struct api_pv *p)
{
	for (uint32_t i = 0; i < w->n_pvs; i++)
		if (!strcmp(w->pvs[i]->meta.name, p->meta.name)) {
			api_pv_unref(w->pvs[i]);
			w->pvs[i] = p;
			return;
		}
	w->pvs[w->n_pvs++] = p;
}

static struct api_pvc *w_pvc(void *ctx, const char *ns, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_pvcs; i++)
		if (!strcmp(w->pvcs[i]->meta.namespace, ns) && !strcmp(w->pvcs[i]->meta.name, name))
			return api_pvc_ref(w->pvcs[i]);
	return NULL;
}

static struct api_pv *w_pv(void *ctx, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_pvs; i++)
		if (!strcmp(w->pvs[i]->meta.name, name))
			return api_pv_ref(w->pvs[i]);
	return NULL;
}

static int w_pv_each(void *ctx, const char *cls, int (*fn)(void *arg, const struct api_pv *pv), void *arg)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_pvs; i++) {
		if (cls && strcmp(w->pvs[i]->storage_class_name, cls) != 0)
			continue;
		int rc = fn(arg, w->pvs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static struct api_storage_class *w_class(void *ctx, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_classes; i++)
		if (!strcmp(w->classes[i]->meta.name, name))
			return api_storage_class_ref(w->classes[i]);
	return NULL;
}

static struct api_csidriver *w_driver(void *ctx, const char *name)
{
	struct world *w = ctx;
	return w->driver && !strcmp(w->driver->meta.name, name) ? api_csidriver_ref(w->driver) : NULL;
}

static int w_caps(void *ctx, int (*fn)(void *arg, const struct api_csi_storage_capacity *c), void *arg)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_caps; i++) {
		int rc = fn(arg, w->caps[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static void note(struct world *w, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(w->writes);
	snprintf(w->writes + n, sizeof(w->writes) - n, fmt, a, b);
}

/* The apiserver's side of PATCH with a resourceVersion precondition: the PV gets the claimRef and
 * resourceVersion + 1. */
static int w_bind_pv(void *ctx, const char *pv_name, const char *pv_rv, const struct api_pvc *claim, bool bbc,
		     char *new_rv, size_t size, struct err *e)
{
	(void)bbc;
	struct world *w = ctx;
	struct api_pv *pv = w_pv(w, pv_name);
	int rc = 0;
	w->n_writes++;
	if (!pv || strcmp(pv->meta.resource_version, pv_rv) != 0 || w->n_writes == w->fail_write) {
		rc = err_set(e, ERR_CONFLICT, "Operation cannot be fulfilled on persistentvolumes \"%s\"", pv_name);
		goto out;
	}
	note(w, "pv %s->%s;", pv_name, claim->meta.name);
	char rv[24];
	snprintf(rv, sizeof(rv), "%lld", atoll(pv_rv) + 1);
	static struct pvc_spec bound[WMAX];
	static int nb;
	struct pvc_spec *b = &bound[nb++ % WMAX];
	*b = (struct pvc_spec){ .name = claim->meta.name, .rv = "1" };
	char *rvs = strdup(rv), *cap = NULL;
	char capbuf[32];
	snprintf(capbuf, sizeof(capbuf), "%lld", (long long)pv->capacity_storage);
	cap = strdup(capbuf);
	const char *node = NULL;
	if (pv->node_affinity && pv->node_affinity->n_required)
		node = pv->node_affinity->required[0].exprs[0].values[0];
	struct pv_spec s = { pv->meta.name, node, cap, rvs, b, pv->storage_class_name, claim->meta.uid };
	if (w->lag) {
		api_pv_unref(w->lagging);
		w->lagging = mkpv(&s);
	} else {
		world_put_pv(w, mkpv(&s));
	}
	free(rvs);
	free(cap);
	snprintf(new_rv, size, "%s", rv);
out:
	api_pv_unref(pv);
	return rc;
}

static int w_select_node(void *ctx, const struct api_pvc *claim, const char *node, char *new_rv, size_t size,
			 struct err *e)
{
	struct world *w = ctx;
	w->n_writes++;
	if (w->n_writes == w->fail_write)
		return err_set(e, ERR_CONFLICT, "Operation cannot be fulfilled on persistentvolumeclaims \"%s\"",
			       claim->meta.name);
	note(w, "pvc %s@%s;", claim->meta.name, node);
	char rv[24];
	snprintf(rv, sizeof(rv), "%lld", atoll(claim->meta.resource_version) + 1);
	struct pvc_spec s = { claim->meta.name, "1Gi", node, PVC_SELECTED_NODE, "", rv, vb_pvc_class(claim), false };
	world_put_pvc(w, mkpvc(&s));
	snprintf(new_rv, size, "%s", rv);
	return 0;
}

static struct api_csinode *w_csinode(void *ctx, const char *name)
{
	struct world *w = ctx;
	(void)name;
	return w->csinode ? api_csinode_ref(w->csinode) : NULL;
}

/* The pod lister: the test's pod exists unless pod_gone. */
static struct api_pod *w_pod(void *ctx, const char *ns, const char *name)
{
	struct world *w = ctx;
	if (w->pod_gone)
		return NULL;
	return TOBJ_POD(.name = name, .ns = ns);
}

static struct api_node *w_node(void *ctx, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_nodes; i++)
		if (!strcmp(w->nodes[i]->meta.name, name))
			return api_node_ref(w->nodes[i]);
	return NULL;
}

/* Sleeps a twentieth of the poll interval (the deadline is real time: bindTimeoutSeconds 1 gives
 * about 20 polls). */
static bool w_sleep(void *ctx, int64_t ms)
{
	struct world *w = ctx;
	struct timespec ts = { 0, (long)(ms / 20) * 1000000L };
	nanosleep(&ts, NULL);
	w->sleeps++;
	if (w->controller)
		w->controller(w);
	return !w->stop;
}

/* binder_test.go newTestBinder's classes, node1/node2 (nodeKey labels) */
static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->classes[w->n_classes++] = mkclass(
		"{\"metadata\":{\"name\":\"" WAIT_PROV "\"},\"provisioner\":\"" PROVISIONER "\",\"volumeBindingMode\":"
		"\"WaitForFirstConsumer\",\"allowedTopologies\":[{\"matchLabelExpressions\":[{\"key\":\"nodeKey\",\"values\":"
		"[\"node1\",\"reference-value\"]}]}]}");
	w->classes[w->n_classes++] =
		mkclass("{\"metadata\":{\"name\":\"" IMMEDIATE "\"},\"volumeBindingMode\":\"Immediate\"}");
	w->classes[w->n_classes++] = mkclass("{\"metadata\":{\"name\":\"" WAIT "\"},\"volumeBindingMode\":"
					     "\"WaitForFirstConsumer\",\"provisioner\":\"kubernetes.io/no-provisioner\"}");
	w->classes[w->n_classes++] = mkclass(
		"{\"metadata\":{\"name\":\"" TOPO_MISMATCH "\"},\"provisioner\":\"" PROVISIONER "\",\"volumeBindingMode\":"
		"\"WaitForFirstConsumer\",\"allowedTopologies\":[{\"matchLabelExpressions\":[{\"key\":\"nodeKey\",\"values\":"
		"[\"reference-value\"]}]}]}");
	w->nodes[w->n_nodes++] = TOBJ_NODE(.name = "node1", .labels = "nodeKey=node1");
	w->nodes[w->n_nodes++] = TOBJ_NODE(.name = "node2", .labels = "nodeKey=node2");
}

static void world_release(struct world *w)
{
	for (uint32_t i = 0; i < w->n_pvcs; i++)
		api_pvc_unref(w->pvcs[i]);
	for (uint32_t i = 0; i < w->n_pvs; i++)
		api_pv_unref(w->pvs[i]);
	for (uint32_t i = 0; i < w->n_classes; i++)
		api_storage_class_unref(w->classes[i]);
	for (uint32_t i = 0; i < w->n_caps; i++)
		api_csi_storage_capacity_unref(w->caps[i]);
	for (uint32_t i = 0; i < w->n_nodes; i++)
		api_node_unref(w->nodes[i]);
	api_csidriver_unref(w->driver);
	api_pv_unref(w->lagging);
	api_csinode_unref(w->csinode);
	memset(w, 0, sizeof(*w));
}

/* A profile running VolumeBinding at every point it implements, on world w. */
static struct fw_profile *profile(struct world *w, const struct cfg_plugin_args *args)
{
	static const char *const vb[] = { "VolumeBinding", NULL }, *const qs[] = { "PrioritySort", NULL },
				 *const bind[] = { "DefaultBinder", NULL };
	struct fw_profile_config pc;
	struct tl_lists ls;
	memset(&pc, 0, sizeof(pc));
	memset(&ls, 0, sizeof(ls));
	pc.scheduler_name = "test";
	pc.args = args;
	tl_fill(&pc, &ls, CFG_EP_QUEUE_SORT, qs, NULL);
	tl_fill(&pc, &ls, CFG_EP_BIND, bind, NULL);
	static const enum cfg_ext_point eps[] = { CFG_EP_PRE_FILTER, CFG_EP_FILTER, CFG_EP_PRE_SCORE, CFG_EP_SCORE,
						  CFG_EP_RESERVE, CFG_EP_PRE_BIND };
	for (size_t i = 0; i < ARRAY_SIZE(eps); i++)
		tl_fill(&pc, &ls, eps[i], vb, NULL);
	struct fw_profile_options o = {
		.listers = { .pvc = w_pvc, .pv = w_pv, .pv_each = w_pv_each, .storage_class = w_class,
			     .csidriver = w_driver, .csi_storage_capacity_each = w_caps, .pod = w_pod, .csinode = w_csinode, .ctx = w },
		.volume = { w_bind_pv, w_select_node, w_node, w_sleep, w },
	};
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	if (!p)
		fail_msg("fw_profile_new: %s", e.msg);
	return p;
}

/* withPVCSVolume: the pod test-pod in testns on node1 naming the claims */
static struct api_pod *claims_pod(const struct pvc_spec *const *pvcs)
{
	char names[256] = "";
	for (int i = 0; pvcs && pvcs[i]; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? "," : "", pvcs[i]->name);
	if (!names[0])
		return TOBJ_POD(.name = "test-pod", .ns = "testns", .node = "node1");
	return TOBJ_POD(.name = "test-pod", .ns = "testns", .node = "node1", .pvcs = names);
}

static struct api_pod *ephemeral_pod(const char *volume)
{
	char spec[256];
	snprintf(spec, sizeof(spec), "\"volumes\":[{\"name\":\"%s\",\"ephemeral\":{\"volumeClaimTemplate\":{\"spec\":{}}}}]",
		 volume);
	return TOBJ_POD(.name = "test-pod", .ns = "testns", .node = "node1", .spec = spec);
}

/* upstream's findPodVolumes helper: GetPodVolumeClaims, fail on immediate claims, FindPodVolumes.
 * Returns the code (FW_ERROR = shouldFail) with the reasons in msg and the bindings/provisions as
 * "pvc:pv,..." and "pvc,...". */
struct found {
	enum fw_code code;
	char msg[512], bindings[256], provisions[256];
	struct vb_pod_volumes *v;
	struct vb_state *s;
};

static void find(const struct fw_pl *pl, const struct api_pod *pod, const struct api_node *node, struct found *f)
{
	struct fw_status st;
	memset(f, 0, sizeof(*f));
	f->s = calloc(1, sizeof(*f->s));
	map_init(&f->s->by_node);
	pthread_mutex_init(&f->s->lock, NULL);
	fw_status_reset(&st);
	f->code = vb_get_pod_volume_claims(pl, pod, f->s, &st);
	if (f->code == FW_SUCCESS && f->s->n_immediate)
		f->code = FW_ERROR;
	if (f->code == FW_SUCCESS) {
		f->code = vb_find_pod_volumes(pl, pod, f->s, node, &f->v, &st);
		if (f->code == FW_UNSCHEDULABLE_AND_UNRESOLVABLE)
			f->code = FW_SUCCESS; /* reasons, not an error */
	}
	fw_status_message(&st, f->msg, sizeof(f->msg));
	for (uint32_t i = 0; f->v && i < f->v->n_static; i++)
		snprintf(f->bindings + strlen(f->bindings), sizeof(f->bindings) - strlen(f->bindings), "%s%s:%s", i ? "," : "",
			 f->v->statics[i].claim->pvc->meta.name, f->v->statics[i].pv.pv->meta.name);
	for (uint32_t i = 0; f->v && i < f->v->n_dynamic; i++) {
		const struct vb_provision *d = &f->v->dynamics[i];
		snprintf(f->provisions + strlen(f->provisions), sizeof(f->provisions) - strlen(f->provisions), "%s%s%s",
			 i ? "," : "", d->claim.pvc->meta.name, d->has_node_capacity ? "@cap" : "");
	}
}

static void found_release(struct found *f)
{
	vb_pod_volumes_free(f->v);
	vb_state_free(f->s);
	f->v = NULL;
	f->s = NULL;
}

#define PVCS(...) ((const struct pvc_spec *const[]){ __VA_ARGS__, NULL })
#define PVS(...) ((const struct pv_spec *const[]){ __VA_ARGS__, NULL })

struct find_case {
	const char *name;
	const struct pv_spec *const *pvs;
	const struct pvc_spec *const *pod_pvcs;
	const struct pvc_spec *const *cache_pvcs; /* NULL: pod_pvcs */
	int pod;                                  /* 0 claims pod, 1 no volumes, 2 emptyDir, 3/4 ephemeral */
	const char *bindings, *provisions, *reasons;
	bool should_fail;
};

static void run_find_cases(const struct find_case *cases, size_t n, int driver)
{
	for (size_t i = 0; i < n; i++) {
		const struct find_case *tc = &cases[i];
		struct world w;
		world_init(&w);
		if (driver)
			w.driver = mkdriver(driver == 1);
		for (int j = 0; tc->pvs && tc->pvs[j]; j++)
			world_put_pv(&w, mkpv(tc->pvs[j]));
		const struct pvc_spec *const *cache = tc->cache_pvcs ? tc->cache_pvcs : tc->pod_pvcs;
		for (int j = 0; cache && cache[j]; j++)
			world_put_pvc(&w, mkpvc(cache[j]));
		struct api_pod *pod = tc->pod == 1   ? TOBJ_POD(.name = "test-pod", .ns = "testns", .node = "node1")
				      : tc->pod == 2 ? TOBJ_POD(.name = "test-pod", .ns = "testns", .node = "node1",
								.spec = "\"volumes\":[{\"name\":\"e\",\"emptyDir\":{}}]")
				      : tc->pod == 3 ? ephemeral_pod("no-such-pvc")
				      : tc->pod == 4 ? ephemeral_pod("test-volume")
						     : claims_pod(tc->pod_pvcs);
		struct fw_profile *p = profile(&w, NULL);
		const struct fw_pl *pl = tl_pl(p, "VolumeBinding");
		struct found f;
		find(pl, pod, w.nodes[0], &f);
		if ((f.code == FW_ERROR) != tc->should_fail)
			fail_msg("%s (driver %d): got %s \"%s\"", tc->name, driver, fw_code_str(f.code), f.msg);
		if (!tc->should_fail) {
			if (strcmp(f.msg, tc->reasons ? tc->reasons : ""))
				fail_msg("%s (driver %d): reasons \"%s\", want \"%s\"", tc->name, driver, f.msg,
					 tc->reasons ? tc->reasons : "");
			if (strcmp(f.bindings, tc->bindings ? tc->bindings : ""))
				fail_msg("%s (driver %d): bindings \"%s\", want \"%s\"", tc->name, driver, f.bindings,
					 tc->bindings ? tc->bindings : "");
			if (strcmp(f.provisions, tc->provisions ? tc->provisions : ""))
				fail_msg("%s (driver %d): provisions \"%s\", want \"%s\"", tc->name, driver, f.provisions,
					 tc->provisions ? tc->provisions : "");
		}
		found_release(&f);
		fw_profile_free(p);
		api_pod_unref(pod);
		world_release(&w);
	}
}

/* upstream TestFindPodVolumesWithoutProvisioning, under each of its three CSIDriver variants */
static void test_find_pod_volumes_without_provisioning(void **state)
{
	(void)state;
	const struct find_case cases[] = {
		{ "no-volumes", .pod = 1 },
		{ "no-pvcs", .pod = 2 },
		{ "pvc-not-found", .pod_pvcs = PVCS(&bound_pvc), .cache_pvcs = (const struct pvc_spec *const[]){ NULL },
		  .should_fail = true },
		{ "bound-pvc", .pvs = PVS(&pv_bound), .pod_pvcs = PVCS(&bound_pvc) },
		{ "bound-pvc,pv-not-exists", .pvs = NULL, .pod_pvcs = PVCS(&bound_pvc), .reasons = VB_REASON_PV_NOT_EXIST },
		{ "prebound-pvc", .pvs = PVS(&pv_node1a_bound), .pod_pvcs = PVCS(&prebound_pvc), .should_fail = true },
		{ "unbound-pvc,pv-same-node", .pvs = PVS(&pv_node2, &pv_node1a, &pv_node1b), .pod_pvcs = PVCS(&unbound_pvc),
		  .bindings = "unbound-pvc:pv-node1a" },
		{ "unbound-pvc,pv-different-node", .pvs = PVS(&pv_node2), .pod_pvcs = PVCS(&unbound_pvc), .reasons = VB_REASON_BIND_CONFLICT },
		{ "two-unbound-pvcs", .pvs = PVS(&pv_node1a, &pv_node1b), .pod_pvcs = PVCS(&unbound_pvc, &unbound_pvc2),
		  .bindings = "unbound-pvc:pv-node1a,unbound-pvc2:pv-node1b" },
		{ "two-unbound-pvcs,order-by-size", .pvs = PVS(&pv_node1a, &pv_node1b), .pod_pvcs = PVCS(&unbound_pvc2, &unbound_pvc),
		  .bindings = "unbound-pvc:pv-node1a,unbound-pvc2:pv-node1b" },
		{ "two-unbound-pvcs,partial-match", .pvs = PVS(&pv_node1a), .pod_pvcs = PVCS(&unbound_pvc, &unbound_pvc2),
		  .bindings = "unbound-pvc:pv-node1a", .reasons = VB_REASON_BIND_CONFLICT },
		{ "one-bound,one-unbound", .pvs = PVS(&pv_bound, &pv_node1a), .pod_pvcs = PVCS(&unbound_pvc, &bound_pvc),
		  .bindings = "unbound-pvc:pv-node1a" },
		{ "one-bound,one-unbound,no-match", .pvs = PVS(&pv_bound, &pv_node2), .pod_pvcs = PVCS(&unbound_pvc, &bound_pvc),
		  .reasons = VB_REASON_BIND_CONFLICT },
		{ "one-prebound,one-unbound", .pvs = PVS(&pv_node1a, &pv_node1b), .pod_pvcs = PVCS(&unbound_pvc, &prebound_pvc),
		  .should_fail = true },
		{ "immediate-bound-pvc", .pvs = PVS(&pv_bound_immediate), .pod_pvcs = PVCS(&immediate_bound_pvc) },
		{ "immediate-bound-pvc-wrong-node", .pvs = PVS(&pv_bound_immediate_node2), .pod_pvcs = PVCS(&immediate_bound_pvc),
		  .reasons = VB_REASON_NODE_CONFLICT },
		{ "immediate-unbound-pvc", .pvs = NULL, .pod_pvcs = PVCS(&immediate_unbound_pvc), .should_fail = true },
		{ "immediate-unbound-pvc,delayed-mode-bound", .pvs = PVS(&pv_bound), .pod_pvcs = PVCS(&immediate_unbound_pvc, &bound_pvc),
		  .should_fail = true },
		{ "immediate-unbound-pvc,delayed-mode-unbound", .pvs = NULL, .pod_pvcs = PVCS(&immediate_unbound_pvc, &unbound_pvc),
		  .should_fail = true },
		{ "generic-ephemeral,no-pvc", .pod = 3, .should_fail = true },
		{ "generic-ephemeral,with-pvc", PVS(&pv_bound_generic), .cache_pvcs = PVCS(&correct_generic_pvc), .pod = 4 },
		{ "generic-ephemeral,wrong-pvc", PVS(&pv_bound_generic), .cache_pvcs = PVCS(&conflicting_generic_pvc),
		  .pod = 4, .should_fail = true },
	};
	for (int driver = 0; driver < 3; driver++)
		run_find_cases(cases, ARRAY_SIZE(cases), driver);
}

/* upstream TestFindPodVolumesWithProvisioning (needsCapacity cases: with a capacity-tracking
 * driver and no CSIStorageCapacity they fail with ErrReasonNotEnoughSpace) */
static void test_find_pod_volumes_with_provisioning(void **state)
{
	(void)state;
	const struct find_case cases[] = {
		{ "one-provisioned", .pvs = NULL, .pod_pvcs = PVCS(&provisioned_pvc), .provisions = "provisioned-pvc" },
		{ "two-unbound-pvcs,one-matched,one-provisioned", .pvs = PVS(&pv_node1a), .pod_pvcs = PVCS(&unbound_pvc, &provisioned_pvc),
		  .bindings = "unbound-pvc:pv-node1a", .provisions = "provisioned-pvc" },
		{ "one-bound,one-provisioned", .pvs = PVS(&pv_bound), .pod_pvcs = PVCS(&bound_pvc, &provisioned_pvc),
		  .provisions = "provisioned-pvc" },
		{ "one-binding,one-selected-node", .pvs = PVS(&pv_bound), .pod_pvcs = PVCS(&bound_pvc, &selected_node_pvc),
		  .provisions = "provisioned-pvc" },
		{ "immediate-unbound-pvc", .pvs = NULL, .pod_pvcs = PVCS(&immediate_unbound_pvc), .should_fail = true },
		{ "one-immediate-bound,one-provisioned", PVS(&pv_bound_immediate),
		  PVCS(&immediate_bound_pvc, &provisioned_pvc), .provisions = "provisioned-pvc" },
		{ "invalid-provisioner", .pvs = NULL, .pod_pvcs = PVCS(&no_provisioner_pvc), .reasons = VB_REASON_BIND_CONFLICT },
		{ "volume-topology-unsatisfied", .pvs = NULL, .pod_pvcs = PVCS(&topo_mismatch_pvc), .reasons = VB_REASON_BIND_CONFLICT },
	};
	run_find_cases(cases, ARRAY_SIZE(cases), 0);
	run_find_cases(cases, ARRAY_SIZE(cases), 2);
	/* "CSIDriver with capacity tracking": the needsCapacity cases lack storage (upstream checks
	 * only the reasons then) */
	struct find_case with_cap[ARRAY_SIZE(cases)];
	memcpy(with_cap, cases, sizeof(cases));
	for (size_t i = 0; i < ARRAY_SIZE(with_cap); i++)
		if (with_cap[i].provisions) {
			with_cap[i].reasons = VB_REASON_NOT_ENOUGH_SPACE;
			with_cap[i].provisions = NULL;
		}
	run_find_cases(with_cap, ARRAY_SIZE(with_cap), 1);
}

/* upstream TestFindPodVolumesWithCSIMigration: a bound GCE PD PV without node affinity but with
 * beta zone labels (makeTestPVForCSIMigration), translated only on nodes whose CSINode lists
 * kubernetes.io/gce-pd as migrated (then its zone becomes topology.gke.io/zone). */
static void test_find_pod_volumes_with_csi_migration(void **state)
{
	(void)state;
	static const struct pvc_spec bound_migration_pvc = { "pvc-migration-bound", "1G", "", PVC_BOUND,
							       "pv-migration-bound", "1", WAIT, false };
	static const char pv_json[] =
		"{\"metadata\":{\"name\":\"pv-migration-bound\",\"resourceVersion\":\"1\",\"labels\":{"
		"\"failure-domain.beta.kubernetes.io/zone\":\"us-east-1\",\"failure-domain.beta.kubernetes.io/region\":\"us-east-1a\"}},"
		"\"spec\":{\"capacity\":{\"storage\":\"1G\"},\"storageClassName\":\"waitClass\",\"volumeMode\":\"Filesystem\","
		"\"gcePersistentDisk\":{\"pdName\":\"test-disk\",\"fsType\":\"ext4\"},"
		"\"claimRef\":{\"namespace\":\"testns\",\"name\":\"pvc-migration-bound\",\"uid\":\"pvc-uid\"}},"
		"\"status\":{\"phase\":\"Available\"}}";
	struct {
		const char *name;
		const char *node_zone;
		const char *migrated; /* the CSINode's annotation; NULL: no CSINode */
		const char *reasons;
	} cases[] = {
		{ "pvc-bound", "us-east-1", "kubernetes.io/gce-pd", "" },
		{ "pvc-bound,csinode-not-migrated", "us-east-1", "", "" },
		{ "pvc-bound,missing-csinode", "us-east-1", NULL, "" },
		{ "pvc-bound,node-different-zone", "us-east-2", "kubernetes.io/gce-pd", VB_REASON_NODE_CONFLICT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w;
		struct err e = { 0 };
		world_init(&w);
		struct api_pv *pv = api_pv_decode_json(pv_json, strlen(pv_json), &e);
		if (!pv)
			fail_msg("pv: %s", e.msg);
		world_put_pv(&w, pv);
		world_put_pvc(&w, mkpvc(&bound_migration_pvc));
		if (cases[i].migrated) {
			char json[256];
			snprintf(json, sizeof(json),
				 "{\"metadata\":{\"name\":\"node1\",\"annotations\":{\"storage.alpha.kubernetes.io/migrated-plugins\":\"%s\"}}}",
				 cases[i].migrated);
			w.csinode = api_csinode_decode_json(json, strlen(json), &e);
			assert_non_null(w.csinode);
		}
		char labels[64];
		snprintf(labels, sizeof(labels), "topology.gke.io/zone=%s", cases[i].node_zone);
		struct api_node *node = TOBJ_NODE(.name = "node1", .labels = labels);
		struct api_pod *pod = claims_pod(PVCS(&bound_migration_pvc));
		struct fw_profile *p = profile(&w, NULL);
		struct found f;
		find(tl_pl(p, "VolumeBinding"), pod, node, &f);
		if (f.code != FW_SUCCESS || strcmp(f.msg, cases[i].reasons))
			fail_msg("%s: %s \"%s\"", cases[i].name, fw_code_str(f.code), f.msg);
		found_release(&f);
		fw_profile_free(p);
		api_pod_unref(pod);
		api_node_unref(node);
		world_release(&w);
	}
}

/* upstream TestCapacity, with and without the driver's opt-in */
static void test_capacity(void **state)
{
	(void)state;
	struct {
		const char *name;
		const char *caps[3][4]; /* class, node, capacity, max */
		const char *provisions, *reasons;
	} cases[] = {
		{ "network-attached", { { WAIT_PROV, NULL, "1Gi", "" } }, "provisioned-pvc@cap", NULL },
		{ "local-storage", { { WAIT_PROV, "node1", "1Gi", "" } }, "provisioned-pvc@cap", NULL },
		{ "multiple", { { WAIT_PROV, NULL, "1Gi", "" }, { WAIT_PROV, "node2", "1Gi", "" }, { WAIT_PROV, "node1", "1Gi", "" } },
		  "provisioned-pvc@cap", NULL },
		{ "no-storage", { { NULL } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
		{ "wrong-node", { { WAIT_PROV, "node2", "1Gi", "" } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
		{ "wrong-storage-class", { { WAIT, "node1", "1Gi", "" } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
		{ "insufficient-storage", { { WAIT_PROV, "node1", "1Mi", "" } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
		{ "insufficient-volume-size", { { WAIT_PROV, "node1", "1Gi", "1Mi" } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
		{ "zero-storage", { { WAIT_PROV, "node1", "0Mi", "" } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
		{ "zero-volume-size", { { WAIT_PROV, "node1", "", "0Mi" } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
		{ "nil-storage", { { WAIT_PROV, "node1", "", "" } }, NULL, VB_REASON_NOT_ENOUGH_SPACE },
	};
	for (int opt_in = 0; opt_in < 2; opt_in++)
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			struct world w;
			world_init(&w);
			w.driver = mkdriver(opt_in);
			for (int j = 0; j < 3 && cases[i].caps[j][0]; j++)
				w.caps[w.n_caps++] = mkcap(cases[i].caps[j][0], cases[i].caps[j][1], cases[i].caps[j][2],
							   cases[i].caps[j][3]);
			world_put_pvc(&w, mkpvc(&provisioned_pvc));
			struct api_pod *pod = claims_pod(PVCS(&provisioned_pvc));
			struct fw_profile *p = profile(&w, NULL);
			struct found f;
			find(tl_pl(p, "VolumeBinding"), pod, w.nodes[0], &f);
			/* without the opt-in every case provisions, without a capacity */
			const char *want_prov = opt_in ? cases[i].provisions : "provisioned-pvc";
			const char *want_reasons = opt_in ? cases[i].reasons : NULL;
			if (f.code != FW_SUCCESS || strcmp(f.msg, want_reasons ? want_reasons : "") ||
			    strcmp(f.provisions, want_prov ? want_prov : ""))
				fail_msg("%s (optIn %d): %s \"%s\" provisions \"%s\"", cases[i].name, opt_in, fw_code_str(f.code),
					 f.msg, f.provisions);
			/* "multiple": the first capacity that fits and the node can reach (node1's) */
			if (opt_in && !strcmp(cases[i].name, "multiple"))
				assert_int_equal(f.v->dynamics[0].node_capacity, 1LL << 30);
			found_release(&f);
			fw_profile_free(p);
			api_pod_unref(pod);
			world_release(&w);
		}
}

/* ---------- Reserve / PreBind / Unreserve ---------- */

/* A cycle run through PreFilter, Filter on node1, Reserve. */
struct cycle_run {
	struct fw_profile *p;
	const struct fw_pl *pl;
	struct fw_cycle *c;
	struct node_info ni;
	enum fw_code pre_filter, filter, reserve;
	struct fw_status st;
};

static void run_to_reserve(struct world *w, struct api_pod *pod, struct cycle_run *r, const struct cfg_plugin_args *args)
{
	memset(r, 0, sizeof(*r));
	r->p = profile(w, args);
	r->pl = tl_pl(r->p, "VolumeBinding");
	r->c = fw_cycle_new(r->p);
	tl_node_info(&r->ni, w->nodes[0], NULL, 0);
	struct fw_node_names names = { .all = true };
	fw_status_reset(&r->st);
	r->pre_filter = r->pl->plugin->pre_filter(r->pl, r->c, pod, &names, &r->st);
	if (r->pre_filter != FW_SUCCESS)
		return;
	fw_status_reset(&r->st);
	r->filter = r->pl->plugin->filter(r->pl, r->c, pod, &r->ni, &r->st);
	if (r->filter != FW_SUCCESS)
		return;
	fw_status_reset(&r->st);
	r->reserve = r->pl->plugin->reserve(r->pl, r->c, pod, "node1", &r->st);
}

static void run_release(struct cycle_run *r)
{
	fw_cycle_free(r->c);
	node_info_release(&r->ni);
	fw_profile_free(r->p);
}

/* What the assume cache says of PV name / claim name now (upstream pvCache.Get / pvcCache.Get). */
static const char *assumed_pv_claim(const struct fw_pl *pl, const char *name)
{
	struct vb_priv *p = pl->priv;
	static char buf[64];
	pthread_mutex_lock(&p->lock);
	struct vb_assumed_pv *a = map_get(&p->pvs, name);
	snprintf(buf, sizeof(buf), "%s", a ? a->ref_name : "-");
	pthread_mutex_unlock(&p->lock);
	return buf;
}

static const char *assumed_pvc_node(const struct fw_pl *pl, const char *name)
{
	struct vb_priv *p = pl->priv;
	static char buf[64], key[128];
	snprintf(key, sizeof(key), "testns/%s", name);
	pthread_mutex_lock(&p->lock);
	struct vb_assumed_pvc *a = map_get(&p->pvcs, key);
	snprintf(buf, sizeof(buf), "%s", a ? (a->selected_node ? a->selected_node : "") : "-");
	pthread_mutex_unlock(&p->lock);
	return buf;
}

/* upstream TestAssumePodVolumes and TestRevertAssumedPodVolumes (through Reserve/Unreserve) */
static void test_assume_pod_volumes(void **state)
{
	(void)state;
	struct {
		const char *name;
		const struct pvc_spec *const *pvcs;
		const struct pv_spec *const *pvs;
		bool expect_all_bound;
		const char *assumed_pvs;  /* "pv=claim" checked after Reserve */
		const char *assumed_pvcs; /* "claim=node" */
	} cases[] = {
		{ "all-bound", PVCS(&bound_pvc), PVS(&pv_bound), true, NULL, NULL },
		{ "one-binding", PVCS(&unbound_pvc), PVS(&pv_node1a), false, "pv-node1a=unbound-pvc", NULL },
		{ "two-bindings", PVCS(&unbound_pvc, &unbound_pvc2), PVS(&pv_node1a, &pv_node1b), false,
		  "pv-node1a=unbound-pvc,pv-node1b=unbound-pvc2", NULL },
		{ "pv-already-bound", PVCS(&unbound_pvc), PVS(&pv_node1a_bound), false, NULL, NULL },
		{ "one-binding, one-pvc-provisioned", PVCS(&unbound_pvc, &provisioned_pvc), PVS(&pv_node1a), false,
		  "pv-node1a=unbound-pvc", "provisioned-pvc=node1" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w;
		world_init(&w);
		for (int j = 0; cases[i].pvs[j]; j++)
			world_put_pv(&w, mkpv(cases[i].pvs[j]));
		for (int j = 0; cases[i].pvcs[j]; j++)
			world_put_pvc(&w, mkpvc(cases[i].pvcs[j]));
		struct api_pod *pod = claims_pod(cases[i].pvcs);
		struct cycle_run r;
		run_to_reserve(&w, pod, &r, NULL);
		if (r.reserve != FW_SUCCESS)
			fail_msg("%s: %s/%s/%s", cases[i].name, fw_code_str(r.pre_filter), fw_code_str(r.filter),
				 fw_code_str(r.reserve));
		struct vb_state *s = fw_cycle_state(r.c, r.pl);
		assert_int_equal(s->all_bound, cases[i].expect_all_bound);
		/* "pv-already-bound": GetBindVolumeToClaim finds nothing to change, so nothing assumed */
		char want[128], *save = NULL;
		snprintf(want, sizeof(want), "%s", cases[i].assumed_pvs ? cases[i].assumed_pvs : "");
		for (char *t = strtok_r(want, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(t, '=');
			*eq = '\0';
			if (strcmp(assumed_pv_claim(r.pl, t), eq + 1))
				fail_msg("%s: pv %s assumed for %s", cases[i].name, t, assumed_pv_claim(r.pl, t));
		}
		snprintf(want, sizeof(want), "%s", cases[i].assumed_pvcs ? cases[i].assumed_pvcs : "");
		for (char *t = strtok_r(want, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(t, '=');
			*eq = '\0';
			if (strcmp(assumed_pvc_node(r.pl, t), eq + 1))
				fail_msg("%s: claim %s assumed on %s", cases[i].name, t, assumed_pvc_node(r.pl, t));
		}
		if (!cases[i].assumed_pvs)
			assert_string_equal(assumed_pv_claim(r.pl, cases[i].pvs[0]->name), "-");
		/* TestRevertAssumedPodVolumes: Unreserve restores the informer's objects */
		r.pl->plugin->unreserve(r.pl, r.c, pod, "node1");
		for (int j = 0; cases[i].pvs[j]; j++)
			assert_string_equal(assumed_pv_claim(r.pl, cases[i].pvs[j]->name), "-");
		for (int j = 0; cases[i].pvcs[j]; j++)
			assert_string_equal(assumed_pvc_node(r.pl, cases[i].pvcs[j]->name), "-");
		run_release(&r);
		api_pod_unref(pod);
		world_release(&w);
	}
}

/* An assumed PV is seen by the next pod's Filter (another pod cannot take it), and expires when
 * the informer delivers a newer version (upstream TestAssume / TestAssumeUpdateCache /
 * TestRestore semantics); Assume of a version the informer has moved past fails "out of sync". */
static void test_assume_cache(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	world_put_pv(&w, mkpv(&pv_node1a));
	world_put_pvc(&w, mkpvc(&unbound_pvc));
	static const struct pvc_spec other = { "other-pvc", "1G", "", PVC_UNBOUND, "", "1", WAIT, false };
	world_put_pvc(&w, mkpvc(&other));
	struct api_pod *pod = claims_pod(PVCS(&unbound_pvc));
	struct api_pod *pod2 = TOBJ_POD(.name = "pod2", .ns = "testns", .node = "node1", .pvcs = "other-pvc");
	struct cycle_run r;
	run_to_reserve(&w, pod, &r, NULL);
	assert_int_equal(r.reserve, FW_SUCCESS);
	assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "unbound-pvc");

	/* pod2 on the same profile: the only PV is assumed for unbound-pvc */
	struct fw_cycle *c2 = fw_cycle_new(r.p);
	struct fw_node_names names = { .all = true };
	struct fw_status st;
	char msg[256];
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->pre_filter(r.pl, c2, pod2, &names, &st), FW_SUCCESS);
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->filter(r.pl, c2, pod2, &r.ni, &st), FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	assert_string_equal(fw_status_message(&st, msg, sizeof(msg)), VB_REASON_BIND_CONFLICT);

	/* the informer delivers version 2 of the PV (still unbound): the assumption expires */
	static const struct pv_spec v2 = { "pv-node1a", "node1", "5G", "2", NULL, WAIT, NULL };
	world_put_pv(&w, mkpv(&v2));
	fw_cycle_reset(c2);
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->pre_filter(r.pl, c2, pod2, &names, &st), FW_SUCCESS);
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->filter(r.pl, c2, pod2, &r.ni, &st), FW_SUCCESS);
	/* reading version 2 expired the entry of version 1 (upstream mayExpire) */
	assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "-");
	/* Reserve of pod2 assumes version 2; a PV moved to version 3 meanwhile is out of sync */
	static const struct pv_spec v3 = { "pv-node1a", "node1", "5G", "3", NULL, WAIT, NULL };
	world_put_pv(&w, mkpv(&v3));
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->reserve(r.pl, c2, pod2, "node1", &st), FW_ERROR);
	assert_string_equal(fw_status_message(&st, msg, sizeof(msg)), "\"pv-node1a\" is out of sync (stored: 3, assume: 2)");
	/* Restore of the first pod's assumption (version 1) leaves nothing behind */
	r.pl->plugin->unreserve(r.pl, r.c, pod, "node1");
	assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "-");
	fw_cycle_free(c2);
	run_release(&r);
	api_pod_unref(pod);
	api_pod_unref(pod2);
	world_release(&w);
}

static void world_del_pv(struct world *w, const char *name)
{
	for (uint32_t i = 0; i < w->n_pvs; i++)
		if (!strcmp(w->pvs[i]->meta.name, name)) {
			api_pv_unref(w->pvs[i]);
			w->pvs[i] = w->pvs[--w->n_pvs];
			return;
		}
}

static void world_del_pvc(struct world *w, const char *name)
{
	for (uint32_t i = 0; i < w->n_pvcs; i++)
		if (!strcmp(w->pvcs[i]->meta.name, name)) {
			api_pvc_unref(w->pvcs[i]);
			w->pvcs[i] = w->pvcs[--w->n_pvcs];
			return;
		}
}

static void assumed_counts(const struct fw_pl *pl, size_t *n_pvs, size_t *n_pvcs)
{
	vb_assumed_counts(pl->priv, n_pvs, n_pvcs);
}

/* upstream util/assumecache assume_cache_test.go TestEvents ("nop delete": a nil delete changes
 * nothing; "delete": the informer's delete takes the object, assumed or not, so Get says not
 * found) and TestRestore ("empty cache": nothing to restore is a no-op), through the informer
 * delete the scheduler forwards (fw_profile_object_deleted). csched's entries expire when a newer
 * version is read; a deleted object is never read again, so only the delete can drop its entry. */
static void test_assume_cache_delete(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	world_put_pv(&w, mkpv(&pv_node1a));
	world_put_pvc(&w, mkpvc(&unbound_pvc));
	struct api_pod *pod = claims_pod(PVCS(&unbound_pvc));
	struct cycle_run r;
	size_t n_pv, n_pvc;
	run_to_reserve(&w, pod, &r, NULL);
	assert_int_equal(r.reserve, FW_SUCCESS);
	assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "unbound-pvc");

	/* nop delete: a nil object, another kind, an object without an entry */
	fw_profile_object_deleted(r.p, QUEUE_RES_PERSISTENT_VOLUME, NULL);
	fw_profile_object_deleted(r.p, QUEUE_RES_NODE, w.nodes[0]);
	struct api_pv *other = mkpv(&pv_node2);
	fw_profile_object_deleted(r.p, QUEUE_RES_PERSISTENT_VOLUME, other);
	api_pv_unref(other);
	assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "unbound-pvc");
	assumed_counts(r.pl, &n_pv, &n_pvc);
	assert_int_equal(n_pv, 1);
	assert_int_equal(n_pvc, 0);

	/* delete: the entry goes with the object */
	struct api_pv *gone = api_pv_ref(w.pvs[0]);
	world_del_pv(&w, "pv-node1a");
	fw_profile_object_deleted(r.p, QUEUE_RES_PERSISTENT_VOLUME, gone);
	assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "-");
	assumed_counts(r.pl, &n_pv, &n_pvc);
	assert_int_equal(n_pv, 0);

	/* the informer adds the object again (same name and version, as TestEvents' re-add): the
	 * plugin sees the informer's object, not the assumption made before the delete */
	world_put_pv(&w, gone);
	struct api_pod *pod2 = TOBJ_POD(.name = "pod2", .ns = "testns", .node = "node1", .pvcs = "other-pvc");
	static const struct pvc_spec other_pvc = { "other-pvc", "1G", "", PVC_UNBOUND, "", "1", WAIT, false };
	world_put_pvc(&w, mkpvc(&other_pvc));
	struct fw_cycle *c2 = fw_cycle_new(r.p);
	struct fw_node_names names = { .all = true };
	struct fw_status st;
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->pre_filter(r.pl, c2, pod2, &names, &st), FW_SUCCESS);
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->filter(r.pl, c2, pod2, &r.ni, &st), FW_SUCCESS);
	fw_cycle_free(c2);
	api_pod_unref(pod2);

	/* a claim's assumed selected node goes with the claim's delete */
	world_put_pvc(&w, mkpvc(&provisioned_pvc));
	struct api_pod *pod3 = claims_pod(PVCS(&provisioned_pvc));
	struct fw_cycle *c3 = fw_cycle_new(r.p);
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->pre_filter(r.pl, c3, pod3, &names, &st), FW_SUCCESS);
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->filter(r.pl, c3, pod3, &r.ni, &st), FW_SUCCESS);
	fw_status_reset(&st);
	assert_int_equal(r.pl->plugin->reserve(r.pl, c3, pod3, "node1", &st), FW_SUCCESS);
	assert_string_equal(assumed_pvc_node(r.pl, "provisioned-pvc"), "node1");
	struct api_pvc *claim = w_pvc(&w, "testns", "provisioned-pvc");
	world_del_pvc(&w, "provisioned-pvc");
	fw_profile_object_deleted(r.p, QUEUE_RES_PERSISTENT_VOLUME_CLAIM, claim);
	api_pvc_unref(claim);
	assert_string_equal(assumed_pvc_node(r.pl, "provisioned-pvc"), "-");
	assumed_counts(r.pl, &n_pv, &n_pvc);
	assert_int_equal(n_pv, 0);
	assert_int_equal(n_pvc, 0);
	fw_cycle_free(c3);
	api_pod_unref(pod3);
	run_release(&r);
	api_pod_unref(pod);
	world_release(&w);
}

/* Memory stays flat under churn: pods whose PV (static binding) or claim (provisioning) is
 * assumed at Reserve, then deleted with their objects before the informer delivers a newer
 * version, leave no entry behind (counted, 400 rounds on one plugin instance). */
static void test_assume_cache_churn(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	struct fw_profile *p = profile(&w, NULL);
	const struct fw_pl *pl = tl_pl(p, "VolumeBinding");
	struct node_info ni;
	tl_node_info(&ni, w.nodes[0], NULL, 0);
	struct fw_cycle *c = fw_cycle_new(p);
	for (int i = 0; i < 400; i++) {
		char pv_name[32], claim_name[32];
		snprintf(pv_name, sizeof(pv_name), "pv-churn-%d", i);
		snprintf(claim_name, sizeof(claim_name), "claim-churn-%d", i);
		bool dynamic = i % 2;
		struct pvc_spec cs = { claim_name, "1G", "", PVC_UNBOUND, "", "1", dynamic ? WAIT_PROV : WAIT, false };
		struct pv_spec vs = { pv_name, "node1", "5G", "1", NULL, WAIT, NULL };
		if (!dynamic)
			world_put_pv(&w, mkpv(&vs));
		world_put_pvc(&w, mkpvc(&cs));
		struct api_pod *pod = TOBJ_POD(.name = "churn", .ns = "testns", .node = "node1", .pvcs = claim_name);
		struct fw_node_names names = { .all = true };
		struct fw_status st;
		fw_cycle_reset(c);
		fw_status_reset(&st);
		assert_int_equal(pl->plugin->pre_filter(pl, c, pod, &names, &st), FW_SUCCESS);
		fw_status_reset(&st);
		assert_int_equal(pl->plugin->filter(pl, c, pod, &ni, &st), FW_SUCCESS);
		fw_status_reset(&st);
		assert_int_equal(pl->plugin->reserve(pl, c, pod, "node1", &st), FW_SUCCESS);
		size_t n_pv, n_pvc;
		assumed_counts(pl, &n_pv, &n_pvc);
		assert_int_equal(n_pv, dynamic ? 0 : 1);
		assert_int_equal(n_pvc, dynamic ? 1 : 0);
		/* the pod, its claim and its PV are deleted; the informers deliver the deletes */
		struct api_pvc *claim = w_pvc(&w, "testns", claim_name);
		world_del_pvc(&w, claim_name);
		fw_profile_object_deleted(p, QUEUE_RES_PERSISTENT_VOLUME_CLAIM, claim);
		api_pvc_unref(claim);
		if (!dynamic) {
			struct api_pv *pv = w_pv(&w, pv_name);
			world_del_pv(&w, pv_name);
			fw_profile_object_deleted(p, QUEUE_RES_PERSISTENT_VOLUME, pv);
			api_pv_unref(pv);
		}
		assumed_counts(pl, &n_pv, &n_pvc);
		assert_int_equal(n_pv, 0);
		assert_int_equal(n_pvc, 0);
		api_pod_unref(pod);
	}
	fw_cycle_free(c);
	node_info_release(&ni);
	fw_profile_free(p);
	world_release(&w);
}

/* A bound claim's PV with the required terms `terms` (JSON), the claim bound to it. */
static struct api_pv *pv_with_terms(const char *terms)
{
	char json[2048];
	snprintf(json, sizeof(json),
		 "{\"metadata\":{\"name\":\"pv-bound\",\"resourceVersion\":\"1\"},\"spec\":{\"capacity\":{\"storage\":\"1G\"},"
		 "\"storageClassName\":\"" WAIT "\",\"volumeMode\":\"Filesystem\",\"nodeAffinity\":{\"required\":"
		 "{\"nodeSelectorTerms\":%s}},\"claimRef\":{\"namespace\":\"testns\",\"name\":\"bound-pvc\","
		 "\"uid\":\"pvc-uid\"}},\"status\":{\"phase\":\"Bound\"}}",
		 terms);
	struct err e = { 0 };
	struct api_pv *pv = api_pv_decode_json(json, strlen(json), &e);
	if (!pv)
		fail_msg("pv: %s", e.msg);
	return pv;
}

/* A bound claim's PV node affinity with matchFields: upstream CheckNodeAffinity matches a node
 * built from the labels only (component-helpers storage/volume helpers.go); nodeaffinity.go's
 * extractNodeFields gives a nameless node no fields and nodeSelectorTerm.match then skips
 * matchFields, so a valid matchFields never rejects; an invalid one (two values) is a parse
 * error and its term never matches; matchExpressions still apply. (The differential's states
 * with matchFields in PV node affinity found this; the oracle agrees with each case.) */
static void test_pv_node_affinity_match_fields(void **state)
{
	(void)state;
	static const struct {
		const char *name, *terms;
		enum fw_code want;
	} cases[] = {
		{ "matchFields In another node", "[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node2\"]}]}]", FW_SUCCESS },
		{ "matchFields NotIn the node", "[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"NotIn\",\"values\":[\"node1\"]}]}]", FW_SUCCESS },
		{ "matchFields with two values", "[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node1\",\"node2\"]}]}]",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		{ "labels mismatch beside matchFields",
		  "[{\"matchExpressions\":[{\"key\":\"nodeKey\",\"operator\":\"In\",\"values\":[\"node2\"]}],"
		  "\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node1\"]}]}]",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		{ "labels match beside matchFields of another node",
		  "[{\"matchExpressions\":[{\"key\":\"nodeKey\",\"operator\":\"In\",\"values\":[\"node1\"]}],"
		  "\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"node2\"]}]}]",
		  FW_SUCCESS },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w;
		world_init(&w);
		world_put_pv(&w, pv_with_terms(cases[i].terms));
		world_put_pvc(&w, mkpvc(&bound_pvc));
		struct api_pod *pod = claims_pod(PVCS(&bound_pvc));
		struct cycle_run r;
		run_to_reserve(&w, pod, &r, NULL);
		if (r.pre_filter != FW_SUCCESS || r.filter != cases[i].want)
			fail_msg("%s: prefilter %d filter %d, want filter %d", cases[i].name, r.pre_filter, r.filter,
				 cases[i].want);
		if (cases[i].want != FW_SUCCESS) {
			char msg[256];
			assert_string_equal(fw_status_message(&r.st, msg, sizeof(msg)), VB_REASON_NODE_CONFLICT);
		}
		run_release(&r);
		api_pod_unref(pod);
		world_release(&w);
	}
}

/* The PV controller of the tests: binds each claim named by a PV's claimRef (upstream
 * TestBindPodVolumes' delayFunc), and marks a selected-node claim provisioned. */
static void controller_bind(struct world *w)
{
	for (uint32_t i = 0; i < w->n_pvs; i++) {
		const struct api_pv *pv = w->pvs[i];
		if (!pv->has_claim_ref)
			continue;
		struct api_pvc *c = w_pvc(w, pv->claim_ref.namespace, pv->claim_ref.name);
		if (c && !vb_annotation(&c->meta.annotations, VB_ANN_BIND_COMPLETED)) {
			struct pvc_spec s = { c->meta.name, "1G", "", PVC_BOUND, pv->meta.name, "9", vb_pvc_class(c), false };
			world_put_pvc(w, mkpvc(&s));
		}
		api_pvc_unref(c);
	}
}

/* The PV controller binds the claim at the first poll, before the informer delivers the written
 * PV (at the second): the first check sees the PV's old version (upstream checkBindings: not
 * synced yet, wait; without the version check, its missing claimRef would read as reset). */
static void controller_lagging(struct world *w)
{
	static const struct pvc_spec early = { "unbound-pvc", "1G", "", PVC_BOUND, "pv-node1a", "8", WAIT, false };
	if (w->sleeps == 1) {
		world_put_pvc(w, mkpvc(&early));
	} else if (w->lagging) {
		world_put_pv(w, w->lagging);
		w->lagging = NULL;
	}
}

static void controller_provision(struct world *w)
{
	for (uint32_t i = 0; i < w->n_pvcs; i++) {
		const struct api_pvc *c = w->pvcs[i];
		if (vb_annotation(&c->meta.annotations, VB_ANN_SELECTED_NODE) && !c->volume_name[0]) {
			static const struct pv_spec prov = { "pv-provisioned", "node1", "1Gi", "1", &provisioned_pvc, WAIT_PROV, NULL };
			world_put_pv(w, mkpv(&prov));
			struct pvc_spec s = { c->meta.name, "1Gi", "node1", PVC_BOUND, "pv-provisioned", "9", WAIT_PROV, false };
			world_put_pvc(w, mkpvc(&s));
			return;
		}
	}
}

static void controller_reset_claim_ref(struct world *w)
{
	static const struct pv_spec reset = { "pv-node1a", "node1", "5G", "5", &unbound_pvc, WAIT, "" };
	world_put_pv(w, mkpv(&reset));
}

static void controller_delete_pod(struct world *w)
{
	w->pod_gone = true;
}

static void controller_unselect(struct world *w)
{
	static const struct pvc_spec moved = { "provisioned-pvc", "1Gi", "node2", PVC_SELECTED_NODE, "", "7", WAIT_PROV, false };
	world_put_pvc(w, mkpvc(&moved));
}

/* upstream TestBindPodVolumes / TestCheckBindings / TestBindAPIUpdate, through PreBind */
static void test_bind_pod_volumes(void **state)
{
	(void)state;
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	static const struct cfg_shape_point shape[] = { { 0, 10 }, { 100, 0 } };
	args.volume_binding = (struct cfg_volume_binding_args){ 1, 2, shape }; /* bindTimeoutSeconds 1 */
	struct {
		const char *name;
		const struct pvc_spec *const *pvcs;
		const struct pv_spec *const *pvs;
		void (*controller)(struct world *w);
		int fail_write;
		enum fw_code want;
		const char *msg, *writes;
	} cases[] = {
		{ "all-bound", PVCS(&bound_pvc_node1a), PVS(&pv_node1a_bound), NULL, 0, FW_SUCCESS, "", "" },
		{ "binding-static-pv-succeeds-after-time", PVCS(&unbound_pvc), PVS(&pv_node1a), controller_bind, 0,
		  FW_SUCCESS, "", "pv pv-node1a->unbound-pvc;" },
		{ "binding-static-pv-informer-lags", PVCS(&unbound_pvc), PVS(&pv_node1a), controller_lagging, 0,
		  FW_SUCCESS, "", "pv pv-node1a->unbound-pvc;" },
		{ "binding-dynamic-pv-succeeds-after-time", PVCS(&provisioned_pvc), NULL, controller_provision, 0, FW_SUCCESS,
		  "", "pvc provisioned-pvc@node1;" },
		{ "binding-times-out", PVCS(&unbound_pvc), PVS(&pv_node1a), NULL, 0, FW_ERROR,
		  "binding volumes: context deadline exceeded", "pv pv-node1a->unbound-pvc;" },
		{ "binding-fails (claimRef reset)", PVCS(&unbound_pvc), PVS(&pv_node1a), controller_reset_claim_ref, 0,
		  FW_ERROR, "binding volumes: ClaimRef got reset for pv \"pv-node1a\"", "pv pv-node1a->unbound-pvc;" },
		{ "pod deleted while waiting", PVCS(&unbound_pvc), PVS(&pv_node1a), controller_delete_pod, 0, FW_ERROR,
		  "binding volumes: pod does not exist any more: pod \"test-pod\" not found", "pv pv-node1a->unbound-pvc;" },
		{ "provisioning-fails (selected node changed)", PVCS(&provisioned_pvc), NULL, controller_unselect, 0,
		  FW_ERROR, "binding volumes: provisioning failed for PVC \"provisioned-pvc\"", "pvc provisioned-pvc@node1;" },
		{ "bind-api-update fails", PVCS(&unbound_pvc, &provisioned_pvc), PVS(&pv_node1a), NULL, 1, FW_ERROR,
		  "Operation cannot be fulfilled on persistentvolumes \"pv-node1a\"", "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w;
		world_init(&w);
		for (int j = 0; cases[i].pvs && cases[i].pvs[j]; j++)
			world_put_pv(&w, mkpv(cases[i].pvs[j]));
		for (int j = 0; cases[i].pvcs[j]; j++)
			world_put_pvc(&w, mkpvc(cases[i].pvcs[j]));
		w.controller = cases[i].controller;
		w.fail_write = cases[i].fail_write;
		w.lag = cases[i].controller == controller_lagging;
		struct api_pod *pod = claims_pod(cases[i].pvcs);
		struct cycle_run r;
		run_to_reserve(&w, pod, &r, &args);
		if (r.reserve != FW_SUCCESS)
			fail_msg("%s: reserve %s", cases[i].name, fw_code_str(r.reserve));
		struct fw_status st;
		char msg[512];
		fw_status_reset(&st);
		enum fw_code code = r.pl->plugin->pre_bind(r.pl, r.c, pod, "node1", &st);
		fw_status_message(&st, msg, sizeof(msg));
		if (code != cases[i].want || strcmp(msg, cases[i].msg) || strcmp(w.writes, cases[i].writes))
			fail_msg("%s: %s \"%s\" writes \"%s\"", cases[i].name, fw_code_str(code), msg, w.writes);
		if (!strcmp(cases[i].name, "binding-times-out"))
			assert_true(w.sleeps >= 2); /* polls until the deadline, then gives up */
		else if (cases[i].controller == controller_lagging)
			assert_int_equal(w.sleeps, 2); /* waited for the informer */
		else if (cases[i].want == FW_SUCCESS && cases[i].controller)
			assert_int_equal(w.sleeps, 1); /* immediate = false: the first check after one interval */
		if (cases[i].want == FW_SUCCESS) {
			/* the informer has the written versions: the assumed entries are gone */
			assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "-");
			assert_string_equal(assumed_pvc_node(r.pl, "provisioned-pvc"), "-");
		}
		if (cases[i].fail_write) {
			/* bindAPIUpdate reverts what it did not write */
			assert_string_equal(assumed_pv_claim(r.pl, "pv-node1a"), "-");
			assert_string_equal(assumed_pvc_node(r.pl, "provisioned-pvc"), "-");
		}
		run_release(&r);
		api_pod_unref(pod);
		world_release(&w);
	}
}

/* ---------- Score (scorer_test.go TestScore) ---------- */

static void test_score(void **state)
{
	(void)state;
	struct vb_priv p;
	memset(&p, 0, sizeof(p));
	/* the default shape: 0 -> 10, 100 -> 0, scaled by 10 */
	p.n_shape = 2;
	p.shape_util[0] = 0, p.shape_score[0] = 100;
	p.shape_util[1] = 100, p.shape_score[1] = 0;
	struct {
		const char *name;
		struct {
			const char *cls;
			int64_t req, cap;
		} res[3];
		int64_t want;
	} cases[] = {
		{ "no volumes", { { NULL } }, 0 },
		{ "one class: 0%", { { "sc-1", 0, 100 } }, 100 },
		{ "one class: 30%", { { "sc-1", 30, 100 } }, 70 },
		{ "one class: 50%", { { "sc-1", 50, 100 } }, 50 },
		{ "one class: 100%", { { "sc-1", 100, 100 } }, 0 },
		{ "two classes: 0%, 0%", { { "sc-1", 0, 100 }, { "sc-2", 0, 100 } }, 100 },
		{ "two classes: 30%, 60%", { { "sc-1", 30, 100 }, { "sc-2", 60, 100 } }, 55 },
		{ "two classes: 50%, 50%", { { "sc-1", 50, 100 }, { "sc-2", 50, 100 } }, 50 },
		{ "two classes: 100%, 100%", { { "sc-1", 100, 100 }, { "sc-2", 100, 100 } }, 0 },
		{ "capacity 0 or over-requested", { { "sc-1", 1, 0 } }, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct class_res_case {
			int dummy;
		};
		struct vb_pod_volumes v;
		struct vb_binding b[3];
		struct api_pv *pvs[3] = { NULL };
		struct api_pvc *pvcs[3] = { NULL };
		struct vb_pvc claims[3];
		memset(&v, 0, sizeof(v));
		memset(b, 0, sizeof(b));
		memset(claims, 0, sizeof(claims));
		for (int j = 0; j < 3 && cases[i].res[j].cls; j++) {
			char json[512];
			struct err e = { 0 };
			snprintf(json, sizeof(json),
				 "{\"metadata\":{\"name\":\"pv%d\"},\"spec\":{\"storageClassName\":\"%s\",\"capacity\":{\"storage\":\"%lld\"}}}",
				 j, cases[i].res[j].cls, (long long)cases[i].res[j].cap);
			pvs[j] = api_pv_decode_json(json, strlen(json), &e);
			snprintf(json, sizeof(json),
				 "{\"metadata\":{\"name\":\"c%d\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"%lld\"}}}}",
				 j, (long long)cases[i].res[j].req);
			pvcs[j] = api_pvc_decode_json(json, strlen(json), &e);
			assert_non_null(pvs[j]);
			assert_non_null(pvcs[j]);
			claims[j].pvc = pvcs[j];
			b[j].pv.pv = pvs[j];
			b[j].claim = &claims[j];
			v.n_static++;
		}
		v.statics = b;
		int64_t got = vb_score_pod_volumes(&p, &v);
		if (got != cases[i].want)
			fail_msg("%s: score %lld, want %lld", cases[i].name, (long long)got, (long long)cases[i].want);
		for (int j = 0; j < 3; j++) {
			api_pv_unref(pvs[j]);
			api_pvc_unref(pvcs[j]);
		}
	}
}

/* ---------- the plugin (volume_binding_test.go TestVolumeBinding) ---------- */

/* PreFilter's and Filter's statuses and the Score of node1, as TestVolumeBinding checks them. */
static void test_volume_binding(void **state)
{
	(void)state;
	static const struct pvc_spec lost = { "pvc-a", "1Gi", "", PVC_PREBOUND, "pv-a", "1", WAIT, false };
	struct {
		const char *name;
		const struct pvc_spec *const *pvcs; /* NULL: none in the lister */
		const char *pod_claims;              /* the pod's claims */
		const struct pv_spec *const *pvs;
		const char *pvc_phase;               /* "Lost" / "deleted" for the pvc-a case */
		enum fw_code pre_filter;
		const char *pre_filter_msg;
		enum fw_code filter;
		const char *filter_msg;
		int64_t score;
	} cases[] = {
		{ "pod has not pvcs", NULL, NULL, NULL, NULL, FW_SKIP, "", FW_SUCCESS, "", 0 },
		{ "all bound", PVCS(&bound_pvc), "bound-pvc", PVS(&pv_bound), NULL, FW_SUCCESS, "", FW_SUCCESS, "", 0 },
		{ "PVC does not exist", NULL, "pvc-a", NULL, NULL, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "persistentvolumeclaim \"pvc-a\" not found", FW_SUCCESS, "", 0 },
		{ "Part of PVCs do not exist", PVCS(&bound_pvc), "bound-pvc,pvc-b", PVS(&pv_bound), NULL,
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "persistentvolumeclaim \"pvc-b\" not found", FW_SUCCESS, "", 0 },
		{ "immediate claims not bound", PVCS(&immediate_unbound_pvc), "immediate-unbound-pvc", NULL, NULL,
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, VB_REASON_UNBOUND_IMMEDIATE, FW_SUCCESS, "", 0 },
		{ "unbound claims no matches", PVCS(&unbound_pvc), "unbound-pvc", PVS(&pv_node2), NULL, FW_SUCCESS, "",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, VB_REASON_BIND_CONFLICT, 0 },
		{ "bound and unbound unsatisfied", PVCS(&bound_pvc, &unbound_pvc), "bound-pvc,unbound-pvc",
		  PVS(&pv_node2, &(const struct pv_spec){ "pv-bound", "node2", "1G", "1", &bound_pvc, WAIT, NULL }), NULL, FW_SUCCESS,
		  "", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, VB_REASON_NODE_CONFLICT ", " VB_REASON_BIND_CONFLICT, 0 },
		{ "pvc not found", NULL, "pvc-a", NULL, NULL, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "persistentvolumeclaim \"pvc-a\" not found", FW_SUCCESS, "", 0 },
		{ "pv not found", PVCS(&bound_pvc), "bound-pvc", NULL, NULL, FW_SUCCESS, "", FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  VB_REASON_PV_NOT_EXIST, 0 },
		{ "pv not found claim lost", PVCS(&lost), "pvc-a", NULL, "Lost", FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "persistentvolumeclaim \"pvc-a\" bound to non-existent persistentvolume \"pv-a\"", FW_SUCCESS, "", 0 },
		{ "pvc is being deleted", PVCS(&lost), "pvc-a", NULL, "deleted", FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "persistentvolumeclaim \"pvc-a\" is being deleted", FW_SUCCESS, "", 0 },
		/* StorageCapacityScoring on: a static binding of 1G of a 5G PV: 20% -> 80 */
		{ "local volumes with close capacity are preferred", PVCS(&unbound_pvc), "unbound-pvc", PVS(&pv_node1a),
		  NULL, FW_SUCCESS, "", FW_SUCCESS, "", 80 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w;
		world_init(&w);
		for (int j = 0; cases[i].pvs && cases[i].pvs[j]; j++)
			world_put_pv(&w, mkpv(cases[i].pvs[j]));
		for (int j = 0; cases[i].pvcs && cases[i].pvcs[j]; j++) {
			struct api_pvc *c = mkpvc(cases[i].pvcs[j]);
			if (cases[i].pvc_phase) {
				char json[512];
				struct err e = { 0 };
				snprintf(json, sizeof(json),
					 "{\"metadata\":{\"name\":\"pvc-a\",\"namespace\":\"testns\"%s},\"spec\":{\"volumeName\":\"pv-a\"},"
					 "\"status\":{\"phase\":\"%s\"}}",
					 !strcmp(cases[i].pvc_phase, "deleted") ? ",\"deletionTimestamp\":\"2020-01-01T00:00:00Z\"" : "",
					 !strcmp(cases[i].pvc_phase, "Lost") ? "Lost" : "Bound");
				api_pvc_unref(c);
				c = api_pvc_decode_json(json, strlen(json), &e);
				assert_non_null(c);
			}
			world_put_pvc(&w, c);
		}
		struct api_pod *pod = cases[i].pod_claims ? TOBJ_POD(.name = "test-pod", .ns = "testns",
								      .pvcs = cases[i].pod_claims)
							  : TOBJ_POD(.name = "test-pod", .ns = "testns");
		struct fw_profile *p = profile(&w, NULL);
		const struct fw_pl *pl = tl_pl(p, "VolumeBinding");
		struct fw_cycle *c = fw_cycle_new(p);
		struct node_info ni;
		tl_node_info(&ni, w.nodes[0], NULL, 0);
		struct fw_node_names names = { .all = true };
		struct fw_status st;
		char msg[512];
		fw_status_reset(&st);
		enum fw_code code = pl->plugin->pre_filter(pl, c, pod, &names, &st);
		fw_status_message(&st, msg, sizeof(msg));
		if (code != cases[i].pre_filter || strcmp(msg, cases[i].pre_filter_msg))
			fail_msg("%s: PreFilter %s \"%s\"", cases[i].name, fw_code_str(code), msg);
		if (code == FW_SUCCESS) {
			fw_status_reset(&st);
			code = pl->plugin->filter(pl, c, pod, &ni, &st);
			fw_status_message(&st, msg, sizeof(msg));
			if (code != cases[i].filter || strcmp(msg, cases[i].filter_msg))
				fail_msg("%s: Filter %s \"%s\"", cases[i].name, fw_code_str(code), msg);
			if (code == FW_SUCCESS) {
				const struct node_info *nis[1] = { &ni };
				int64_t score = -1;
				fw_status_reset(&st);
				assert_int_equal(pl->plugin->pre_score(pl, c, pod, nis, 1, &st), FW_SUCCESS);
				assert_int_equal(pl->plugin->score(pl, c, pod, &ni, &score, &st), FW_SUCCESS);
				if (score != cases[i].score)
					fail_msg("%s: score %lld, want %lld", cases[i].name, (long long)score,
						 (long long)cases[i].score);
			}
		}
		fw_cycle_free(c);
		node_info_release(&ni);
		fw_profile_free(p);
		api_pod_unref(pod);
		world_release(&w);
	}
}

/* ---------- queueing hints (volume_binding_test.go) ---------- */

static const struct fw_plugin *plugin(void)
{
	const struct fw_plugin *p = fw_registry_lookup("VolumeBinding");
	assert_non_null(p);
	return p;
}

static queue_hint_fn hint_of(uint32_t resource)
{
	const struct fw_plugin *p = plugin();
	for (uint32_t i = 0; i < p->n_events; i++)
		if (p->events[i].event.resource == resource)
			return p->events[i].hint;
	fail_msg("no event for resource %u", resource);
	return NULL;
}

/* upstream TestIsSchedulableAfterPersistentVolumeClaimChange */
static void test_hint_pvc(void **state)
{
	(void)state;
	queue_hint_fn h = hint_of(QUEUE_RES_PERSISTENT_VOLUME_CLAIM);
	struct api_pod *pod = TOBJ_POD(.name = "pod-a", .ns = "ns-a", .pvcs = "pvc-a");
	struct api_pod *eph = TOBJ_POD(.name = "pod-a", .ns = "ns-a",
				       .spec = "\"volumes\":[{\"name\":\"v\",\"ephemeral\":{\"volumeClaimTemplate\":{\"spec\":{}}}}]");
	struct err e = { 0 };
	const char *j1 = "{\"metadata\":{\"name\":\"pvc-a\",\"namespace\":\"ns-a\"}}";
	const char *j2 = "{\"metadata\":{\"name\":\"pvc-a\",\"namespace\":\"ns-b\"}}";
	const char *j3 = "{\"metadata\":{\"name\":\"pvc-b\",\"namespace\":\"ns-a\"}}";
	const char *j4 = "{\"metadata\":{\"name\":\"pod-a-v\",\"namespace\":\"ns-a\"}}";
	struct api_pvc *a = api_pvc_decode_json(j1, strlen(j1), &e), *other_ns = api_pvc_decode_json(j2, strlen(j2), &e),
		       *other = api_pvc_decode_json(j3, strlen(j3), &e), *ephc = api_pvc_decode_json(j4, strlen(j4), &e);
	/* "queue-on-add-pvc", "skip-onadd-pvc-in-different-namespace", "skip-add-unrelated-pvc",
	 * "queue-on-update-pvc", "queue-on-generic-ephemeral-pvc" */
	assert_int_equal(h(NULL, pod, NULL, a), QUEUE_HINT_QUEUE);
	assert_int_equal(h(NULL, pod, NULL, other_ns), QUEUE_HINT_SKIP);
	assert_int_equal(h(NULL, pod, NULL, other), QUEUE_HINT_SKIP);
	assert_int_equal(h(NULL, pod, a, a), QUEUE_HINT_QUEUE);
	assert_int_equal(h(NULL, eph, NULL, ephc), QUEUE_HINT_QUEUE);
	api_pvc_unref(a);
	api_pvc_unref(other_ns);
	api_pvc_unref(other);
	api_pvc_unref(ephc);
	api_pod_unref(pod);
	api_pod_unref(eph);
}

/* upstream TestIsSchedulableAfterStorageClassChange */
static void test_hint_storage_class(void **state)
{
	(void)state;
	queue_hint_fn h = hint_of(QUEUE_RES_STORAGE_CLASS);
	struct api_pod *pod = TOBJ_POD(.name = "pod-a", .ns = "ns-a");
	struct api_storage_class *sc = mkclass("{\"metadata\":{\"name\":\"sc-a\"}}");
	struct api_storage_class *topo = mkclass("{\"metadata\":{\"name\":\"sc-a\"},\"allowedTopologies\":[{\"matchLabelExpressions\":"
						 "[{\"key\":\"kubernetes.io/hostname\",\"values\":[\"node-a\"]}]}]}");
	struct api_storage_class *other = mkclass("{\"metadata\":{\"name\":\"sc-a\",\"labels\":{\"x\":\"y\"}}}");
	assert_int_equal(h(NULL, pod, NULL, sc), QUEUE_HINT_QUEUE);     /* "queue-on-add-sc" */
	assert_int_equal(h(NULL, pod, sc, topo), QUEUE_HINT_QUEUE);     /* "queue-on-update-allowed-topologies" */
	assert_int_equal(h(NULL, pod, sc, other), QUEUE_HINT_SKIP);     /* "skip-unrelated-change" */
	api_storage_class_unref(sc);
	api_storage_class_unref(topo);
	api_storage_class_unref(other);
	api_pod_unref(pod);
}

/* upstream TestIsSchedulableAfterCSIStorageCapacityChange */
static void test_hint_capacity(void **state)
{
	(void)state;
	queue_hint_fn h = hint_of(QUEUE_RES_CSI_STORAGE_CAPACITY);
	struct api_pod *pod = TOBJ_POD(.name = "pod-a");
	struct api_csi_storage_capacity *none = mkcap("sc-a", NULL, "", ""), *c10 = mkcap("sc-a", NULL, "10", ""),
					*c20 = mkcap("sc-a", NULL, "20", ""), *m5 = mkcap("sc-a", NULL, "100", "5"),
					*m10 = mkcap("sc-a", NULL, "100", "10");
	assert_int_equal(h(NULL, pod, NULL, c10), QUEUE_HINT_QUEUE); /* "queue-on-add-csi-storage-capacity" */
	assert_int_equal(h(NULL, pod, c10, c20), QUEUE_HINT_QUEUE);  /* "queue-on-increase-capacity" */
	assert_int_equal(h(NULL, pod, c20, c10), QUEUE_HINT_SKIP);   /* "skip-decrease-capacity" */
	assert_int_equal(h(NULL, pod, none, c10), QUEUE_HINT_QUEUE); /* "queue-on-capacity-set" */
	assert_int_equal(h(NULL, pod, c10, none), QUEUE_HINT_SKIP);  /* "skip-capacity-unset" */
	assert_int_equal(h(NULL, pod, m5, m10), QUEUE_HINT_QUEUE);   /* "queue-on-increase-max-volume-size" */
	assert_int_equal(h(NULL, pod, m10, m5), QUEUE_HINT_SKIP);    /* "skip-decrease-max-volume-size" */
	assert_int_equal(h(NULL, pod, c20, m10), QUEUE_HINT_SKIP);   /* max volume size (10) replaces capacity (20) */
	api_csi_storage_capacity_unref(none);
	api_csi_storage_capacity_unref(c10);
	api_csi_storage_capacity_unref(c20);
	api_csi_storage_capacity_unref(m5);
	api_csi_storage_capacity_unref(m10);
	api_pod_unref(pod);
}

/* upstream TestIsSchedulableAfterCSIDriverChange and TestIsSchedulableAfterCSINodeChange */
static void test_hint_csidriver_csinode(void **state)
{
	(void)state;
	queue_hint_fn hd = hint_of(QUEUE_RES_CSI_DRIVER), hn = hint_of(QUEUE_RES_CSI_NODE);
	struct api_pod *pod = TOBJ_POD(.name = "pod-a", .spec = "\"volumes\":[{\"name\":\"v\",\"csi\":{\"driver\":\"" PROVISIONER "\"}}]");
	struct api_pod *plain = TOBJ_POD(.name = "pod-b");
	struct api_csidriver *on = mkdriver(true), *off = mkdriver(false);
	assert_int_equal(hd(NULL, pod, on, off), QUEUE_HINT_QUEUE); /* "pod-schedulable-after-csidriver-change..." */
	assert_int_equal(hd(NULL, pod, off, on), QUEUE_HINT_SKIP);
	assert_int_equal(hd(NULL, pod, off, off), QUEUE_HINT_SKIP);
	assert_int_equal(hd(NULL, plain, on, off), QUEUE_HINT_SKIP); /* the pod has no CSI volume of it */
	struct err e = { 0 };
	const char *a = "{\"metadata\":{\"name\":\"node1\"}}";
	const char *b = "{\"metadata\":{\"name\":\"node1\",\"annotations\":{\"storage.alpha.kubernetes.io/migrated-plugins\":\"kubernetes.io/gce-pd\"}}}";
	const char *c = "{\"metadata\":{\"name\":\"node1\",\"labels\":{\"x\":\"y\"},\"annotations\":{\"storage.alpha.kubernetes.io/migrated-plugins\":\"kubernetes.io/gce-pd\"}}}";
	struct api_csinode *n0 = api_csinode_decode_json(a, strlen(a), &e), *n1 = api_csinode_decode_json(b, strlen(b), &e),
			   *n2 = api_csinode_decode_json(c, strlen(c), &e);
	assert_non_null(n0);
	assert_non_null(n1);
	assert_non_null(n2);
	assert_int_equal(hn(NULL, plain, NULL, n0), QUEUE_HINT_QUEUE); /* "queue-on-add-csinode" */
	assert_int_equal(hn(NULL, plain, n0, n1), QUEUE_HINT_QUEUE);   /* "queue-on-migrated-plugins-annotation-change" */
	assert_int_equal(hn(NULL, plain, n1, n2), QUEUE_HINT_SKIP);    /* "skip-on-unrelated-change" */
	api_csinode_unref(n0);
	api_csinode_unref(n1);
	api_csinode_unref(n2);
	api_csidriver_unref(on);
	api_csidriver_unref(off);
	api_pod_unref(pod);
	api_pod_unref(plain);
}

/* EventsToRegister: upstream's seven registrations, in order. */
static void test_events(void **state)
{
	(void)state;
	const struct fw_plugin *p = plugin();
	static const struct {
		uint32_t res, act;
		bool hint;
	} want[] = {
		{ QUEUE_RES_STORAGE_CLASS, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE, true },
		{ QUEUE_RES_PERSISTENT_VOLUME_CLAIM, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE, true },
		{ QUEUE_RES_PERSISTENT_VOLUME, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE, false },
		{ QUEUE_RES_NODE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL, false },
		{ QUEUE_RES_CSI_NODE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE, true },
		{ QUEUE_RES_CSI_DRIVER, QUEUE_ACT_UPDATE, true },
		{ QUEUE_RES_CSI_STORAGE_CAPACITY, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE, true },
	};
	assert_int_equal(p->n_events, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_int_equal(p->events[i].event.resource, want[i].res);
		assert_int_equal(p->events[i].event.actions, want[i].act);
		assert_int_equal(p->events[i].hint != NULL, want[i].hint);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_pod_volumes_without_provisioning),
		cmocka_unit_test(test_find_pod_volumes_with_provisioning),
		cmocka_unit_test(test_find_pod_volumes_with_csi_migration),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_assume_pod_volumes),
		cmocka_unit_test(test_assume_cache),
		cmocka_unit_test(test_assume_cache_delete),
		cmocka_unit_test(test_assume_cache_churn),
		cmocka_unit_test(test_pv_node_affinity_match_fields),
		cmocka_unit_test(test_bind_pod_volumes),
		cmocka_unit_test(test_score),
		cmocka_unit_test(test_volume_binding),
		cmocka_unit_test(test_hint_pvc),
		cmocka_unit_test(test_hint_storage_class),
		cmocka_unit_test(test_hint_capacity),
		cmocka_unit_test(test_hint_csidriver_csinode),
		cmocka_unit_test(test_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
