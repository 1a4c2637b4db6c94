/* VolumeZone (algorithm/plugins/volume_zone.c): the cases of upstream's
 * plugins/volumezone/volume_zone_test.go (v1.37.2) TestSingleZone, TestMultiZone,
 * TestWithBinding, TestIsSchedulableAfterPersistentVolumeClaimAdded,
 * TestIsSchedulableAfterStorageClassAdded and TestIsSchedulableAfterPersistentVolumeChange, run
 * as upstream runs them: PreFilter, then Filter on the same cycle state (after a PreFilter that
 * did not succeed Filter finds no state and reads the listers itself, upstream's fallback).
 *
 * One deliberate divergence from the table, not from upstream's scheduler: for a missing
 * StorageClass upstream's test expects `storageclasses.storage.k8s.io "Class_0" not found`, the
 * message of its fake lister (testing/framework); the informer lister kube-scheduler runs with
 * (client-go listers/storage/v1 storageclass.go, NewNotFound(storagev1.Resource("storageclass")))
 * says `storageclass.storage.k8s.io "Class_0" not found`, which is what csched matches. */
#include "algorithm_testlib.h"

#define CONFLICT "node(s) had no available volume zone"
#define BETA_ZONE "failure-domain.beta.kubernetes.io/zone"
#define BETA_REGION "failure-domain.beta.kubernetes.io/region"
#define ZONE "topology.kubernetes.io/zone"
#define REGION "topology.kubernetes.io/region"

/* ---------- fake listers ---------- */

struct store {
	uint32_t n_pvcs, n_pvs, n_scs;
	struct api_pvc *pvcs[8];
	struct api_pv *pvs[8];
	struct api_storage_class *scs[4];
};

static struct api_pvc *get_pvc(void *ctx, const char *ns, const char *name)
{
	const struct store *l = ctx;
	for (uint32_t i = 0; i < l->n_pvcs; i++)
		if (!strcmp(l->pvcs[i]->meta.namespace, ns) && !strcmp(l->pvcs[i]->meta.name, name))
			return api_pvc_ref(l->pvcs[i]);
	return NULL;
}

static struct api_pv *get_pv(void *ctx, const char *name)
{
	const struct store *l = ctx;
	for (uint32_t i = 0; i < l->n_pvs; i++)
		if (!strcmp(l->pvs[i]->meta.name, name))
			return api_pv_ref(l->pvs[i]);
	return NULL;
}

static struct api_storage_class *get_sc(void *ctx, const char *name)
{
	const struct store *l = ctx;
	for (uint32_t i = 0; i < l->n_scs; i++)
		if (!strcmp(l->scs[i]->meta.name, name))
			return api_storage_class_ref(l->scs[i]);
	return NULL;
}

/* A PV name with labels: "k=v,k2=v2" (values may hold "__"). */
static struct api_pv *mkpv(const char *name, const char *labels)
{
	char json[1024], lab[512] = "";
	size_t o = 0;
	for (const char *p = labels; p && *p;) {
		const char *eq = strchr(p, '='), *comma = strchr(p, ',');
		size_t vl = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
		o += (size_t)snprintf(lab + o, sizeof(lab) - o, "%s\"%.*s\":\"%.*s\"", o ? "," : "", (int)(eq - p), p,
				      (int)vl, eq + 1);
		p = comma ? comma + 1 : "";
	}
	snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"%s\",\"labels\":{%s}}}", name, lab);
	struct err e = { 0 };
	struct api_pv *pv = api_pv_decode_json(json, strlen(json), &e);
	if (!pv)
		fail_msg("pv %s: %s", name, e.msg);
	return pv;
}

/* A PVC default/name: spec.volumeName, and spec.storageClassName when cls != NULL. */
static struct api_pvc *mkpvc(const char *name, const char *volume, const char *cls)
{
	char json[512], c[128] = "";
	if (cls)
		snprintf(c, sizeof(c), ",\"storageClassName\":\"%s\"", cls);
	snprintf(json, sizeof(json),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\"},\"spec\":{\"volumeName\":\"%s\"%s}}", name,
		 volume, c);
	struct err e = { 0 };
	struct api_pvc *p = api_pvc_decode_json(json, strlen(json), &e);
	if (!p)
		fail_msg("pvc %s: %s", name, e.msg);
	return p;
}

static struct api_storage_class *mksc(const char *name, const char *mode)
{
	char json[256], m[96] = "";
	if (mode)
		snprintf(m, sizeof(m), ",\"volumeBindingMode\":\"%s\"", mode);
	snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"%s\"},\"provisioner\":\"p\"%s}", name, m);
	struct err e = { 0 };
	struct api_storage_class *sc = api_storage_class_decode_json(json, strlen(json), &e);
	if (!sc)
		fail_msg("sc %s: %s", name, e.msg);
	return sc;
}

static void store_release(struct store *l)
{
	for (uint32_t i = 0; i < l->n_pvcs; i++)
		api_pvc_unref(l->pvcs[i]);
	for (uint32_t i = 0; i < l->n_pvs; i++)
		api_pv_unref(l->pvs[i]);
	for (uint32_t i = 0; i < l->n_scs; i++)
		api_storage_class_unref(l->scs[i]);
	memset(l, 0, sizeof(*l));
}

/* A profile running VolumeZone's PreFilter and Filter with the listers of l. */
static struct fw_profile *profile(struct store *l)
{
	static const char *const vz[] = { "VolumeZone", NULL }, *const qs[] = { "PrioritySort", NULL },
				 *const bind[] = { "DefaultBinder", NULL };
	struct fw_profile_config pc;
	struct tl_lists ls;
	memset(&pc, 0, sizeof(pc));
	memset(&ls, 0, sizeof(ls));
	pc.scheduler_name = "test";
	tl_fill(&pc, &ls, CFG_EP_QUEUE_SORT, qs, NULL);
	tl_fill(&pc, &ls, CFG_EP_BIND, bind, NULL);
	tl_fill(&pc, &ls, CFG_EP_PRE_FILTER, vz, NULL);
	tl_fill(&pc, &ls, CFG_EP_FILTER, vz, NULL);
	struct fw_profile_options o = { .listers = { .pvc = get_pvc, .pv = get_pv, .storage_class = get_sc, .ctx = l } };
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	if (!p)
		fail_msg("fw_profile_new: %s", e.msg);
	return p;
}

struct zcase {
	const char *name;
	const char *pvc;         /* the pod's claim (NULL: a pod without volumes) */
	const char *node_labels; /* TOBJ_NODE labels */
	enum fw_code pre_filter; /* FW_SUCCESS = upstream's nil */
	const char *pre_filter_msg;
	enum fw_code filter;
	const char *filter_msg;
};

/* upstream's loop: PreFilter, then Filter on the same state, whatever PreFilter said. */
static void run_cases(struct store *l, const struct zcase *cases, size_t n)
{
	struct fw_profile *p = profile(l);
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "VolumeZone");
	for (size_t i = 0; i < n; i++) {
		const struct zcase *k = &cases[i];
		/* createPodWithVolume(pod, pvc) / st.MakePod().Name("pod_1").Namespace("default") */
		struct api_pod *pod = TOBJ_POD(.name = "pod_1", .ns = "default", .pvcs = k->pvc);
		struct api_node *node = TOBJ_NODE(.name = "host1", .labels = k->node_labels);
		struct node_info ni;
		tl_node_info(&ni, node, NULL, 0);
		fw_cycle_reset(c);
		struct fw_status st;
		struct fw_node_names names = { .all = true };
		char msg[256];
		fw_status_reset(&st);
		enum fw_code code = pl->plugin->pre_filter(pl, c, pod, &names, &st);
		fw_status_message(&st, msg, sizeof(msg));
		if (code != k->pre_filter || strcmp(msg, k->pre_filter_msg))
			fail_msg("%s: PreFilter got %s \"%s\", want %s \"%s\"", k->name, fw_code_str(code), msg,
				 fw_code_str(k->pre_filter), k->pre_filter_msg);
		assert_true(names.all);
		fw_status_reset(&st);
		code = pl->plugin->filter(pl, c, pod, &ni, &st);
		fw_status_message(&st, msg, sizeof(msg));
		if (code != k->filter || strcmp(msg, k->filter_msg))
			fail_msg("%s: Filter got %s \"%s\", want %s \"%s\"", k->name, fw_code_str(code), msg,
				 fw_code_str(k->filter), k->filter_msg);
		node_info_release(&ni);
		api_node_unref(node);
		api_pod_unref(pod);
	}
	fw_cycle_free(c);
	fw_profile_free(p);
}

#define UU FW_UNSCHEDULABLE_AND_UNRESOLVABLE

/* upstream TestSingleZone */
static void test_single_zone(void **state)
{
	(void)state;
	struct store l = { 0 };
	l.pvs[l.n_pvs++] = mkpv("Vol_1", BETA_ZONE "=us-west1-a");
	l.pvs[l.n_pvs++] = mkpv("Vol_2", BETA_REGION "=us-west1,uselessLabel=none");
	l.pvs[l.n_pvs++] = mkpv("Vol_3", BETA_REGION "=us-west1");
	l.pvs[l.n_pvs++] = mkpv("Vol_Stable_1", ZONE "=us-west1-a");
	l.pvs[l.n_pvs++] = mkpv("Vol_Stable_2", REGION "=us-west1,uselessLabel=none");
	l.pvs[l.n_pvs++] = mkpv("Vol_Stable_3", ZONE "=us-west1-a," REGION "=us-west1-a");
	static const char *const claims[][2] = { { "PVC_1", "Vol_1" },		   { "PVC_2", "Vol_2" },
						 { "PVC_3", "Vol_3" },		   { "PVC_4", "Vol_not_exist" },
						 { "PVC_Stable_1", "Vol_Stable_1" }, { "PVC_Stable_2", "Vol_Stable_2" },
						 { "PVC_Stable_3", "Vol_Stable_3" } };
	for (size_t i = 0; i < ARRAY_SIZE(claims); i++)
		l.pvcs[l.n_pvcs++] = mkpvc(claims[i][0], claims[i][1], NULL);
	static const struct zcase cases[] = {
		{ "pod without volume", NULL, BETA_ZONE "=us-west1-a", FW_SKIP, "", FW_SUCCESS, "" },
		{ "node without labels", "PVC_1", NULL, FW_SUCCESS, "", FW_SUCCESS, "" },
		{ "beta zone label matched", "PVC_1", BETA_ZONE "=us-west1-a,uselessLabel=none", FW_SUCCESS, "", FW_SUCCESS,
		  "" },
		{ "beta region label matched", "PVC_2", BETA_REGION "=us-west1,uselessLabel=none", FW_SUCCESS, "",
		  FW_SUCCESS, "" },
		{ "beta region label doesn't match", "PVC_2", BETA_REGION "=no_us-west1,uselessLabel=none", FW_SUCCESS, "",
		  UU, CONFLICT },
		{ "beta zone label doesn't match", "PVC_1", BETA_ZONE "=no_us-west1-a,uselessLabel=none", FW_SUCCESS, "",
		  UU, CONFLICT },
		{ "zone label matched", "PVC_Stable_1", ZONE "=us-west1-a,uselessLabel=none", FW_SUCCESS, "", FW_SUCCESS,
		  "" },
		{ "region label matched", "PVC_Stable_2", REGION "=us-west1,uselessLabel=none", FW_SUCCESS, "", FW_SUCCESS,
		  "" },
		{ "region label doesn't match", "PVC_Stable_2", REGION "=no_us-west1,uselessLabel=none", FW_SUCCESS, "", UU,
		  CONFLICT },
		{ "zone label doesn't match", "PVC_Stable_1", ZONE "=no_us-west1-a,uselessLabel=none", FW_SUCCESS, "", UU,
		  CONFLICT },
		{ "pv with zone and region, node with only zone", "PVC_Stable_3", ZONE "=us-west1-a", FW_SUCCESS, "", UU,
		  CONFLICT },
		{ "pv with zone,node with beta zone", "PVC_Stable_1", BETA_ZONE "=us-west1-a", FW_SUCCESS, "", UU, CONFLICT },
		{ "pv with beta label,node with ga label, matched", "PVC_1", ZONE "=us-west1-a", FW_SUCCESS, "", FW_SUCCESS,
		  "" },
		{ "pv with beta label,node with ga label, don't match", "PVC_1", ZONE "=us-west1-b", FW_SUCCESS, "", UU,
		  CONFLICT },
		/* beyond the table (volume_zone.go getPVbyPod): a claim bound to a missing PV, a missing
		 * claim; a PV without topology labels is no constraint (Skip) */
		{ "bound to a missing PV", "PVC_4", ZONE "=us-west1-a", UU, "persistentvolume \"Vol_not_exist\" not found",
		  UU, "persistentvolume \"Vol_not_exist\" not found" },
		{ "missing claim", "PVC_nope", ZONE "=us-west1-a", UU, "persistentvolumeclaim \"PVC_nope\" not found", UU,
		  "persistentvolumeclaim \"PVC_nope\" not found" },
	};
	run_cases(&l, cases, ARRAY_SIZE(cases));
	store_release(&l);
}

/* upstream TestMultiZone: a label value listing zones joined by "__" */
static void test_multi_zone(void **state)
{
	(void)state;
	struct store l = { 0 };
	l.pvs[l.n_pvs++] = mkpv("Vol_1", BETA_ZONE "=us-west1-a");
	l.pvs[l.n_pvs++] = mkpv("Vol_2", BETA_ZONE "=us-west1-b,uselessLabel=none");
	l.pvs[l.n_pvs++] = mkpv("Vol_3", BETA_ZONE "=us-west1-c__us-west1-a");
	l.pvs[l.n_pvs++] = mkpv("Vol_Stable_1", ZONE "=us-west1-a");
	l.pvs[l.n_pvs++] = mkpv("Vol_Stable_2", ZONE "=us-west1-c__us-west1-a");
	static const char *const claims[][2] = { { "PVC_1", "Vol_1" },		   { "PVC_2", "Vol_2" },
						 { "PVC_3", "Vol_3" },		   { "PVC_4", "Vol_not_exist" },
						 { "PVC_Stable_1", "Vol_Stable_1" }, { "PVC_Stable_2", "Vol_Stable_2" } };
	for (size_t i = 0; i < ARRAY_SIZE(claims); i++)
		l.pvcs[l.n_pvcs++] = mkpvc(claims[i][0], claims[i][1], NULL);
	static const struct zcase cases[] = {
		{ "node without labels", "PVC_3", NULL, FW_SUCCESS, "", FW_SUCCESS, "" },
		{ "beta zone label matched", "PVC_3", BETA_ZONE "=us-west1-a,uselessLabel=none", FW_SUCCESS, "", FW_SUCCESS,
		  "" },
		{ "beta zone label doesn't match", "PVC_1", BETA_ZONE "=us-west1-b,uselessLabel=none", FW_SUCCESS, "", UU,
		  CONFLICT },
		{ "zone label matched", "PVC_Stable_2", ZONE "=us-west1-a,uselessLabel=none", FW_SUCCESS, "", FW_SUCCESS,
		  "" },
		{ "zone label doesn't match", "PVC_Stable_1", ZONE "=us-west1-b,uselessLabel=none", FW_SUCCESS, "", UU,
		  CONFLICT },
	};
	run_cases(&l, cases, ARRAY_SIZE(cases));
	store_release(&l);

	/* beyond the table (LabelZonesToSet): an empty zone makes the label unparsable, which
	 * getPVTopologies skips (no constraint left: Skip); spaces around zones are trimmed */
	l.pvs[l.n_pvs++] = mkpv("Vol_bad", ZONE "=us-west1-a__");
	l.pvs[l.n_pvs++] = mkpv("Vol_sp", ZONE "=us-west1-c__ us-west1-a");
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_bad", "Vol_bad", NULL);
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_sp", "Vol_sp", NULL);
	static const struct zcase more[] = {
		{ "unparsable zone label ignored", "PVC_bad", ZONE "=elsewhere", FW_SKIP, "", FW_SUCCESS, "" },
		{ "zones trimmed", "PVC_sp", ZONE "=us-west1-a", FW_SUCCESS, "", FW_SUCCESS, "" },
	};
	run_cases(&l, more, ARRAY_SIZE(more));
	store_release(&l);
}

/* upstream TestWithBinding (see the top of this file for the StorageClass message) */
static void test_with_binding(void **state)
{
	(void)state;
	struct store l = { 0 };
	l.scs[l.n_scs++] = mksc("Class_Immediate", NULL);
	l.scs[l.n_scs++] = mksc("Class_Wait", "WaitForFirstConsumer");
	l.scs[l.n_scs++] = mksc("Class_Immediate_Set", "Immediate");
	l.pvs[l.n_pvs++] = mkpv("Vol_1", BETA_ZONE "=us-west1-a");
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_1", "Vol_1", NULL);
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_NoSC", "", "Class_0");
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_EmptySC", "", NULL);
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_WaitSC", "", "Class_Wait");
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_ImmediateSC", "", "Class_Immediate");
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_ImmediateSetSC", "", "Class_Immediate_Set");
	static const struct zcase cases[] = {
		{ "label zone failure domain matched", "PVC_1", BETA_ZONE "=us-west1-a,uselessLabel=none", FW_SUCCESS, "",
		  FW_SUCCESS, "" },
		{ "unbound volume empty storage class", "PVC_EmptySC", BETA_ZONE "=us-west1-a,uselessLabel=none", UU,
		  "PersistentVolumeClaim had no pv name and storageClass name", UU,
		  "PersistentVolumeClaim had no pv name and storageClass name" },
		{ "unbound volume no storage class", "PVC_NoSC", BETA_ZONE "=us-west1-a,uselessLabel=none", UU,
		  "storageclass.storage.k8s.io \"Class_0\" not found", UU, "storageclass.storage.k8s.io \"Class_0\" not found" },
		{ "unbound volume immediate binding mode", "PVC_ImmediateSC", BETA_ZONE "=us-west1-a,uselessLabel=none", UU,
		  "VolumeBindingMode not set for StorageClass \"Class_Immediate\"", UU,
		  "VolumeBindingMode not set for StorageClass \"Class_Immediate\"" },
		{ "unbound volume wait binding mode", "PVC_WaitSC", BETA_ZONE "=us-west1-a,uselessLabel=none", FW_SKIP, "",
		  FW_SUCCESS, "" },
		/* beyond the table: a class with volumeBindingMode Immediate set (as the apiserver
		 * defaults it) */
		{ "unbound volume immediate binding mode set", "PVC_ImmediateSetSC", BETA_ZONE "=us-west1-a", UU,
		  "PersistentVolume had no name", UU, "PersistentVolume had no name" },
	};
	run_cases(&l, cases, ARRAY_SIZE(cases));
	store_release(&l);
}

/* Filter with PreFilter's state: the PVs are read once, in PreFilter (a PV deleted from the
 * lister afterwards still decides), and a pod whose every claim is WaitForFirstConsumer or bound
 * to a PV without topology labels is skipped. */
static void test_state_and_skip(void **state)
{
	(void)state;
	struct store l = { 0 };
	l.pvs[l.n_pvs++] = mkpv("Vol_1", ZONE "=zone-a");
	l.pvs[l.n_pvs++] = mkpv("Vol_plain", "uselessLabel=none");
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_1", "Vol_1", NULL);
	l.pvcs[l.n_pvcs++] = mkpvc("PVC_plain", "Vol_plain", NULL);
	struct fw_profile *p = profile(&l);
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "VolumeZone");
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	struct api_pod *pod = TOBJ_POD(.name = "p", .ns = "default", .pvcs = "PVC_plain,PVC_1");
	struct api_node *na = TOBJ_NODE(.name = "a", .labels = ZONE "=zone-a"), *nb = TOBJ_NODE(.name = "b", .labels = ZONE "=zone-b");
	struct node_info ia, ib;
	tl_node_info(&ia, na, NULL, 0);
	tl_node_info(&ib, nb, NULL, 0);
	fw_cycle_reset(c);
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_filter(pl, c, pod, &names, &st), FW_SUCCESS);
	/* the lister loses the PV: the state still has it */
	struct api_pv *gone = l.pvs[0];
	l.pvs[0] = l.pvs[--l.n_pvs];
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->filter(pl, c, pod, &ia, &st), FW_SUCCESS);
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->filter(pl, c, pod, &ib, &st), UU);
	/* the state's references go with the cycle */
	fw_cycle_reset(c);
	l.pvs[l.n_pvs++] = gone;
	struct api_pod *plain = TOBJ_POD(.name = "q", .ns = "default", .pvcs = "PVC_plain");
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_filter(pl, c, plain, &names, &st), FW_SKIP);
	api_pod_unref(plain);
	api_pod_unref(pod);
	node_info_release(&ia);
	node_info_release(&ib);
	api_node_unref(na);
	api_node_unref(nb);
	fw_cycle_free(c);
	fw_profile_free(p);
	store_release(&l);
}

/* ---------- queueing hints ---------- */

static queue_hint_fn find_hint(uint32_t resource, uint32_t actions)
{
	const struct fw_plugin *pl = fw_registry_lookup("VolumeZone");
	for (uint32_t i = 0; i < pl->n_events; i++)
		if (pl->events[i].event.resource == resource && pl->events[i].event.actions == actions)
			return pl->events[i].hint;
	fail_msg("no registration %u/%u", resource, actions);
	return NULL;
}

/* upstream EventsToRegister and the three hint tests */
static void test_hints(void **state)
{
	(void)state;
	const struct fw_plugin *pl = fw_registry_lookup("VolumeZone");
	assert_non_null(pl);
	assert_int_equal(pl->n_events, 4);
	/* Node Add | UpdateNodeLabel: no hint (Queue) */
	const struct queue_event_hint *node_ev = NULL;
	for (uint32_t i = 0; i < pl->n_events; i++)
		if (pl->events[i].event.resource == QUEUE_RES_NODE)
			node_ev = &pl->events[i];
	assert_non_null(node_ev);
	assert_int_equal(node_ev->event.actions, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL);
	assert_null(node_ev->hint);

	/* TestIsSchedulableAfterPersistentVolumeClaimAdded */
	queue_hint_fn pvc = find_hint(QUEUE_RES_PERSISTENT_VOLUME_CLAIM, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE);
	struct api_pod *with1 = TOBJ_POD(.name = "pod_1", .ns = "default", .pvcs = "PVC_1");
	struct api_pod *with2 = TOBJ_POD(.name = "pod_1", .ns = "default", .pvcs = "PVC_2");
	struct api_pod *none = TOBJ_POD(.name = "pod_1", .ns = "default");
	struct api_pvc *pvc1 = mkpvc("PVC_1", "Vol_1", NULL), *pvc1_unbound = mkpvc("PVC_1", "", NULL);
	char json[256];
	snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"PVC_1\",\"namespace\":\"ns1\"},\"spec\":{\"volumeName\":\"Vol_1\"}}");
	struct err e = { 0 };
	struct api_pvc *pvc1_ns1 = api_pvc_decode_json(json, strlen(json), &e);
	assert_non_null(pvc1_ns1);
	assert_int_equal(pvc(NULL, with1, NULL, NULL), QUEUE_HINT_ERROR);		     /* error-wrong-new-object */
	assert_int_equal(pvc(NULL, none, NULL, pvc1), QUEUE_HINT_SKIP);		     /* pod-refers-no-pvc */
	assert_int_equal(pvc(NULL, with2, NULL, pvc1), QUEUE_HINT_SKIP);		     /* bound-to-different-pvc */
	assert_int_equal(pvc(NULL, with1, NULL, pvc1_ns1), QUEUE_HINT_SKIP);	     /* different-ns */
	assert_int_equal(pvc(NULL, with1, NULL, pvc1), QUEUE_HINT_QUEUE);		     /* bound-to-the-pvc */
	assert_int_equal(pvc(NULL, with1, pvc1_unbound, pvc1), QUEUE_HINT_QUEUE);      /* updated, the pod's */
	assert_int_equal(pvc(NULL, none, pvc1_unbound, pvc1), QUEUE_HINT_SKIP);	     /* updated, refers no pvc */

	/* TestIsSchedulableAfterStorageClassAdded */
	queue_hint_fn sc = find_hint(QUEUE_RES_STORAGE_CLASS, QUEUE_ACT_ADD);
	struct api_storage_class *no_mode = mksc("SC_1", NULL), *wait = mksc("SC_1", "WaitForFirstConsumer"),
				 *imm = mksc("SC_1", "Immediate");
	assert_int_equal(sc(NULL, with1, NULL, NULL), QUEUE_HINT_ERROR);
	assert_int_equal(sc(NULL, with1, NULL, no_mode), QUEUE_HINT_SKIP);
	assert_int_equal(sc(NULL, with1, NULL, wait), QUEUE_HINT_QUEUE);
	assert_int_equal(sc(NULL, with1, NULL, imm), QUEUE_HINT_SKIP); /* beyond the table */

	/* TestIsSchedulableAfterPersistentVolumeChange */
	queue_hint_fn pv = find_hint(QUEUE_RES_PERSISTENT_VOLUME, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE);
	struct api_pv *b = mkpv("Vol_1", BETA_ZONE "=us-west1-b"), *a = mkpv("Vol_1", BETA_ZONE "=us-west1-a"),
		      *a_zone = mkpv("Vol_1", BETA_ZONE "=us-west1-a," ZONE "=zone"),
		      *a_zone2 = mkpv("Vol_1", BETA_ZONE "=us-west1-a," ZONE "=zone"),
		      *multi = mkpv("Vol_1", ZONE "=x__y"), *multi_swapped = mkpv("Vol_1", ZONE "=y__x"),
		      *other_label = mkpv("Vol_1", ZONE "=x__y,tier=db");
	assert_int_equal(pv(NULL, with1, NULL, NULL), QUEUE_HINT_ERROR);	      /* error-wrong-new-object */
	assert_int_equal(pv(NULL, with1, NULL, b), QUEUE_HINT_QUEUE);		      /* new-pv-was-added */
	assert_int_equal(pv(NULL, with1, a, b), QUEUE_HINT_QUEUE);		      /* changed-topology */
	assert_int_equal(pv(NULL, with1, a, a_zone), QUEUE_HINT_QUEUE);	      /* added-topology-label */
	assert_int_equal(pv(NULL, with1, a_zone, a_zone2), QUEUE_HINT_SKIP);     /* no-topology-is-changed */
	/* beyond the table: zones compare as sets; other labels are no topology */
	assert_int_equal(pv(NULL, with1, multi, multi_swapped), QUEUE_HINT_SKIP);
	assert_int_equal(pv(NULL, with1, multi, other_label), QUEUE_HINT_SKIP);

	struct api_pv *pvs[] = { b, a, a_zone, a_zone2, multi, multi_swapped, other_label };
	for (size_t i = 0; i < ARRAY_SIZE(pvs); i++)
		api_pv_unref(pvs[i]);
	api_storage_class_unref(no_mode);
	api_storage_class_unref(wait);
	api_storage_class_unref(imm);
	api_pvc_unref(pvc1);
	api_pvc_unref(pvc1_unbound);
	api_pvc_unref(pvc1_ns1);
	api_pod_unref(with1);
	api_pod_unref(with2);
	api_pod_unref(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_zone),
		cmocka_unit_test(test_multi_zone),
		cmocka_unit_test(test_with_binding),
		cmocka_unit_test(test_state_and_skip),
		cmocka_unit_test(test_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
