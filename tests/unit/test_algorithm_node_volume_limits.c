/* NodeVolumeLimits (algorithm/plugins/node_volume_limits.c): upstream v1.37.2
 * plugins/nodevolumelimits/csi_test.go's tables, case by case under their upstream names
 * (TestCSILimits, TestVolumeLimitScalingGate, TestCSILimitsQHint, TestCSILimitsAddedPVCQHint,
 * TestCSILimitsDeletedVolumeAttachmentQHint, TestCSILimitsAfterCSINodeUpdatedQHint), with the
 * fake listers rebuilt as upstream's helpers build them (getFakeCSIPVLister, getFakeCSIPVCLister,
 * getFakeCSIStorageClassLister, buildFakeClientWithVALister, getNodeWithPodAndVolumeLimits), plus
 * csi-translation-lib's handle rules the upstream tables do not reach. */
#include "algorithm_testlib.h"

#define NODE "node-for-max-pd-test-1"
#define SC_NAME "csi-sc"
#define EBS "ebs.csi.aws.com"
#define GCE "pd.csi.storage.gke.io"
#define AWS_INTREE "kubernetes.io/aws-ebs"
#define HOSTPATH "kubernetes.io/hostpath"
#define MAX_COUNT "node(s) exceed max volume count"

/* ---------- the fake listers ---------- */

struct world {
	uint32_t n_pvc, n_pv, n_sc, n_va, n_drv;
	struct api_pvc *pvc[32];
	struct api_pv *pv[32];
	struct api_storage_class *sc[2];
	struct api_volume_attachment *va[8];
	struct api_csidriver *drv[2];
	struct api_csinode *csinode; /* NULL: none */
};

static struct api_pvc *get_pvc(void *ctx, const char *ns, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_pvc; i++)
		if (!strcmp(w->pvc[i]->meta.namespace, ns) && !strcmp(w->pvc[i]->meta.name, name))
			return api_pvc_ref(w->pvc[i]);
	return NULL;
}

static struct api_pv *get_pv(void *ctx, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_pv; i++)
		if (!strcmp(w->pv[i]->meta.name, name))
			return api_pv_ref(w->pv[i]);
	return NULL;
}

static struct api_storage_class *get_sc(void *ctx, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_sc; i++)
		if (!strcmp(w->sc[i]->meta.name, name))
			return api_storage_class_ref(w->sc[i]);
	return NULL;
}

static struct api_csinode *get_csinode(void *ctx, const char *name)
{
	struct world *w = ctx;
	return w->csinode && !strcmp(w->csinode->meta.name, name) ? api_csinode_ref(w->csinode) : NULL;
}

static struct api_csidriver *get_csidriver(void *ctx, const char *name)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_drv; i++)
		if (!strcmp(w->drv[i]->meta.name, name))
			return api_csidriver_ref(w->drv[i]);
	return NULL;
}

static int each_va(void *ctx, const char *node, int (*fn)(void *arg, const struct api_volume_attachment *va),
		   void *arg)
{
	struct world *w = ctx;
	for (uint32_t i = 0; i < w->n_va; i++) {
		if (node && strcmp(w->va[i]->node_name, node))
			continue;
		int rc = fn(arg, w->va[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static void world_release(struct world *w)
{
	for (uint32_t i = 0; i < w->n_pvc; i++)
		api_pvc_unref(w->pvc[i]);
	for (uint32_t i = 0; i < w->n_pv; i++)
		api_pv_unref(w->pv[i]);
	for (uint32_t i = 0; i < w->n_sc; i++)
		api_storage_class_unref(w->sc[i]);
	for (uint32_t i = 0; i < w->n_va; i++)
		api_volume_attachment_unref(w->va[i]);
	for (uint32_t i = 0; i < w->n_drv; i++)
		api_csidriver_unref(w->drv[i]);
	api_csinode_unref(w->csinode);
	memset(w, 0, sizeof(*w));
}

#define DECODE(fn, ...)                                                               \
	({                                                                            \
		char json_[4096];                                                     \
		struct err e_ = { 0 };                                                \
		snprintf(json_, sizeof(json_), __VA_ARGS__);                          \
		__typeof__(fn(json_, 0, &e_)) o_ = fn(json_, strlen(json_), &e_);     \
		if (!o_)                                                              \
			fail_msg("%s: %s: %s", #fn, e_.msg, json_);                   \
		o_;                                                                   \
	})

/* getFakeCSIPVLister("csi", drivers...): csi-<driver>-<0..3>; AWS in-tree and hostPath sources for
 * those plugin names, CSI otherwise. */
static void add_pvs(struct world *w, const char *driver)
{
	for (int j = 0; j < 4; j++) {
		char name[128];
		snprintf(name, sizeof(name), "csi-%s-%d", driver, j);
		if (!strcmp(driver, AWS_INTREE))
			w->pv[w->n_pv++] = DECODE(api_pv_decode_json,
						  "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"awsElasticBlockStore\":{\"volumeID\":\"%s\"}}}",
						  name, name);
		else if (!strcmp(driver, HOSTPATH))
			w->pv[w->n_pv++] = DECODE(api_pv_decode_json,
						  "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"hostPath\":{\"path\":\"/tmp\"}}}", name);
		else
			w->pv[w->n_pv++] = DECODE(
				api_pv_decode_json,
				"{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"csi\":{\"driver\":\"%s\",\"volumeHandle\":\"%s\"}}}",
				name, driver, name);
	}
}

/* getFakeCSIPVCLister("csi", SC_NAME, drivers...): claims bound to those PVs, csi-4 (class, unbound),
 * csi-5 (neither), csi-6 (class, bound to a missing PV). Upstream's claims have no namespace, its
 * st.MakePod() pods neither; here both are in "default". */
static void add_pvcs(struct world *w, const char *const *drivers, uint32_t n)
{
	for (uint32_t d = 0; d < n; d++)
		for (int j = 0; j < 4; j++) {
			char name[128];
			snprintf(name, sizeof(name), "csi-%s-%d", drivers[d], j);
			w->pvc[w->n_pvc++] = DECODE(
				api_pvc_decode_json,
				"{\"metadata\":{\"namespace\":\"default\",\"name\":\"%s\"},\"spec\":{\"volumeName\":\"%s\"}}", name,
				name);
		}
	w->pvc[w->n_pvc++] = DECODE(api_pvc_decode_json,
				    "{\"metadata\":{\"namespace\":\"default\",\"name\":\"csi-4\"},\"spec\":{\"storageClassName\":\"%s\"}}",
				    SC_NAME);
	w->pvc[w->n_pvc++] = DECODE(api_pvc_decode_json, "{\"metadata\":{\"namespace\":\"default\",\"name\":\"csi-5\"},\"spec\":{}}");
	w->pvc[w->n_pvc++] = DECODE(api_pvc_decode_json,
				    "{\"metadata\":{\"namespace\":\"default\",\"name\":\"csi-6\"},\"spec\":{\"storageClassName\":\"%s\","
				    "\"volumeName\":\"missing-in-action\"}}",
				    SC_NAME);
}

/* an ephemeral volume's claim test/<name> with storageClassName SC_NAME, owned by the pod uid
 * (NULL: no owner) */
static void add_ephemeral_claim(struct world *w, const char *name, const char *owner_uid)
{
	char owner[256] = "";
	if (owner_uid)
		snprintf(owner, sizeof(owner),
			 ",\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"abc\",\"uid\":\"%s\",\"controller\":true}]",
			 owner_uid);
	w->pvc[w->n_pvc++] = DECODE(api_pvc_decode_json,
				    "{\"metadata\":{\"namespace\":\"test\",\"name\":\"%s\"%s},\"spec\":{\"storageClassName\":\"%s\"}}",
				    name, owner, SC_NAME);
}

/* getNodeWithPodAndVolumeLimits' CSINode: "csinode" (every driver with count limit),
 * "csinode-with-no-limit", "no-csi-driver" (no drivers), "" (none) */
static void set_csinode(struct world *w, const char *source, int32_t limit, const char *const *drivers, uint32_t n)
{
	if (!*source)
		return;
	char d[1024] = "";
	size_t len = 0;
	for (uint32_t i = 0; strcmp(source, "no-csi-driver") && i < n; i++) {
		char alloc[64] = "";
		if (!strcmp(source, "csinode"))
			snprintf(alloc, sizeof(alloc), ",\"allocatable\":{\"count\":%d}", limit);
		len += (size_t)snprintf(d + len, sizeof(d) - len, "%s{\"name\":\"%s\",\"nodeID\":\"%s\"%s}", i ? "," : "",
					drivers[i], NODE, alloc);
	}
	w->csinode = DECODE(api_csinode_decode_json, "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"drivers\":[%s]}}", NODE, d);
}

/* buildFakeClientWithVALister(count, drivers...) */
static void add_vas(struct world *w, int count, const char *const *drivers, uint32_t n)
{
	for (uint32_t d = 0; d < n; d++)
		for (int j = 0; j < count; j++)
			w->va[w->n_va++] = DECODE(api_volume_attachment_decode_json,
						  "{\"metadata\":{\"name\":\"va-%s-%d\"},\"spec\":{\"nodeName\":\"%s\",\"attacher\":\"%s\","
						  "\"source\":{\"persistentVolumeName\":\"csi-%s-%d\"}}}",
						  drivers[d], j, NODE, drivers[d], drivers[d], j);
}

static struct fw_profile *profile(struct world *w)
{
	static const char *const nvl[] = { "NodeVolumeLimits", NULL }, *const qs[] = { "PrioritySort", NULL },
				 *const bind[] = { "DefaultBinder", NULL };
	struct fw_profile_config pc;
	struct tl_lists ls;
	memset(&pc, 0, sizeof(pc));
	memset(&ls, 0, sizeof(ls));
	pc.scheduler_name = "test";
	tl_fill(&pc, &ls, CFG_EP_QUEUE_SORT, qs, NULL);
	tl_fill(&pc, &ls, CFG_EP_BIND, bind, NULL);
	tl_fill(&pc, &ls, CFG_EP_PRE_FILTER, nvl, NULL);
	tl_fill(&pc, &ls, CFG_EP_FILTER, nvl, NULL);
	struct fw_profile_options o = { .listers = { .pvc = get_pvc,
						     .pv = get_pv,
						     .storage_class = get_sc,
						     .csinode = get_csinode,
						     .csidriver = get_csidriver,
						     .volume_attachment_each = each_va,
						     .ctx = w } };
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	if (!p)
		fail_msg("fw_profile_new: %s", e.msg);
	return p;
}

static struct api_pod *mkpod(const char *json)
{
	struct err e = { 0 };
	struct api_pod *p = api_pod_decode_json(json, strlen(json), &e);
	if (!p)
		fail_msg("pod: %s: %s", e.msg, json);
	return p;
}

/* st.MakePod().PVC(c1)[.PVC(c2)] */
static struct api_pod *pvc_pod(const char *name, const char *claims)
{
	return TOBJ_POD(.name = name, .ns = "default", .pvcs = claims);
}

/* Runs PreFilter and, unless it skips, Filter on a node with the existing pods; checks codes and
 * messages. */
static void run(const char *name, struct world *w, struct api_pod *pod, struct api_pod **existing, size_t n_existing,
		enum fw_code want_pre, enum fw_code want, const char *want_msg)
{
	struct fw_profile *p = profile(w);
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "NodeVolumeLimits");
	struct api_node *node = TOBJ_NODE(.name = NODE);
	struct node_info ni;
	tl_node_info(&ni, node, existing, n_existing);
	fw_cycle_reset(c);
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	char msg[512];
	fw_status_reset(&st);
	enum fw_code code = pl->plugin->pre_filter(pl, c, pod, &names, &st);
	if (code != want_pre)
		fail_msg("%s: PreFilter got %s", name, fw_code_str(code));
	if (code != FW_SKIP) {
		fw_status_reset(&st);
		code = pl->plugin->filter(pl, c, pod, &ni, &st);
		fw_status_message(&st, msg, sizeof(msg));
		if (code != want || strcmp(msg, want_msg ? want_msg : ""))
			fail_msg("%s: Filter got %s \"%s\", want %s \"%s\"", name, fw_code_str(code), msg, fw_code_str(want),
				 want_msg ? want_msg : "");
	}
	node_info_release(&ni);
	api_node_unref(node);
	fw_cycle_free(c);
	fw_profile_free(p);
}

enum {
	RUNNING, PENDING, UNBOUND2, MISSING_PV, NO_SC, GCE_TWO, INTREE_ONE, INTREE_TWO, EBS_ONE, EBS_TWO, NONMIG, EPH,
	EPH_TWO, INLINE, INLINE_SAME, CM_SECRET, PVC_CM_SECRET, EPH_CM_SECRET, INLINE_CM_SECRET, N_PODS
};

static void make_pods(struct api_pod **p)
{
	p[RUNNING] = pvc_pod("running", "csi-ebs.csi.aws.com-3");
	p[PENDING] = pvc_pod("pending", "csi-4");
	p[UNBOUND2] = pvc_pod("unbound2", "csi-4");
	p[MISSING_PV] = pvc_pod("missing-pv", "csi-6");
	p[NO_SC] = pvc_pod("no-sc", "csi-5");
	p[GCE_TWO] = pvc_pod("gce-two", "csi-pd.csi.storage.gke.io-1,csi-pd.csi.storage.gke.io-2");
	p[INTREE_ONE] = pvc_pod("intree-one", "csi-kubernetes.io/aws-ebs-0");
	p[INTREE_TWO] = pvc_pod("intree-two", "csi-kubernetes.io/aws-ebs-1,csi-kubernetes.io/aws-ebs-2");
	p[EBS_ONE] = pvc_pod("ebs-one", "csi-ebs.csi.aws.com-0");
	p[EBS_TWO] = pvc_pod("ebs-two", "csi-ebs.csi.aws.com-1,csi-ebs.csi.aws.com-2");
	p[NONMIG] = pvc_pod("nonmig", "csi-kubernetes.io/hostpath-0");
	p[EPH] = mkpod("{\"metadata\":{\"name\":\"abc\",\"namespace\":\"test\",\"uid\":\"12345\"},"
		       "\"spec\":{\"volumes\":[{\"name\":\"xyz\",\"ephemeral\":{}}]}}");
	p[EPH_TWO] = mkpod("{\"metadata\":{\"name\":\"abc\",\"namespace\":\"test\",\"uid\":\"12345II\"},"
			   "\"spec\":{\"volumes\":[{\"name\":\"x\",\"ephemeral\":{}},{\"name\":\"y\",\"ephemeral\":{}}]}}");
	p[INLINE] = mkpod("{\"metadata\":{\"name\":\"inline\",\"namespace\":\"default\",\"uid\":\"u-inline\"},"
			  "\"spec\":{\"volumes\":[{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"aws-inline1\"}}]}}");
	p[INLINE_SAME] = mkpod("{\"metadata\":{\"name\":\"inline-same\",\"namespace\":\"default\",\"uid\":\"u-is\"},"
			       "\"spec\":{\"volumes\":[{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"csi-ebs.csi.aws.com-1\"}}]}}");
	p[CM_SECRET] = mkpod("{\"metadata\":{\"name\":\"cm\",\"namespace\":\"default\",\"uid\":\"u-cm\"},\"spec\":{\"volumes\":["
			     "{\"name\":\"a\",\"configMap\":{}},{\"name\":\"b\",\"secret\":{}}]}}");
	p[PVC_CM_SECRET] = mkpod("{\"metadata\":{\"name\":\"pvc-cm\",\"namespace\":\"default\",\"uid\":\"u-pcm\"},\"spec\":{\"volumes\":["
				 "{\"name\":\"a\",\"configMap\":{}},{\"name\":\"b\",\"secret\":{}},"
				 "{\"name\":\"c\",\"persistentVolumeClaim\":{\"claimName\":\"csi-ebs.csi.aws.com-0\"}}]}}");
	p[EPH_CM_SECRET] = mkpod("{\"metadata\":{\"name\":\"abc\",\"namespace\":\"test\"},\"spec\":{\"volumes\":["
				 "{\"name\":\"a\",\"configMap\":{}},{\"name\":\"b\",\"secret\":{}},{\"name\":\"xyz\",\"ephemeral\":{}}]}}");
	p[INLINE_CM_SECRET] = mkpod("{\"metadata\":{\"name\":\"inline-cm\",\"namespace\":\"default\",\"uid\":\"u-icm\"},\"spec\":{\"volumes\":["
				    "{\"name\":\"a\",\"configMap\":{}},{\"name\":\"b\",\"secret\":{}},"
				    "{\"name\":\"c\",\"awsElasticBlockStore\":{\"volumeID\":\"aws-inline1\"}}]}}");
}

/* upstream TestCSILimits. Its fake PVC lister's NotFound says "persistentvolumeclaims"; the
 * informer lister the plugin runs with says "persistentvolumeclaim", which csched writes. */
static void test_csi_limits(void **state)
{
	(void)state;
	struct api_pod *pods[N_PODS];
	make_pods(pods);
	enum { EXTRA_NONE, EXTRA_CONFLICTING, EXTRA_EPH, EXTRA_XY };
	const char *missing = "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found";
	struct {
		const char *test;
		int pod;
		int existing[4]; /* -1 terminated */
		int extra;
		int32_t max_vols;
		int va_count;
		const char *drivers[2];
		const char *limit_source;
		enum fw_code pre, code;
		const char *msg;
	} cases[] = {
		{ "should count VolumeAttachments towards volume limit when no pods exist", EBS_ONE, { -1 }, EXTRA_NONE, 2, 2,
		  { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "should schedule pod when VolumeAttachments count does not exceed limit", EBS_ONE, { -1 }, EXTRA_NONE, 2, 1,
		  { EBS }, "csinode", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "fits when node volume limit >= new pods CSI volume", EBS_ONE, { RUNNING, EBS_TWO, -1 }, EXTRA_NONE, 4, 0,
		  { EBS }, "csinode", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "doesn't when node volume limit <= pods CSI volume", EBS_ONE, { RUNNING, EBS_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "should when driver does not support volume limits", EBS_ONE, { RUNNING, EBS_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { EBS }, "csinode-with-no-limit", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "count pending PVCs towards volume limit <= pods CSI volume", EBS_ONE, { PENDING, EBS_TWO, -1 }, EXTRA_NONE,
		  2, 0, { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "count multiple pending pvcs towards volume limit >= pods CSI volume", EBS_ONE,
		  { PENDING, UNBOUND2, EBS_TWO, -1 }, EXTRA_NONE, 4, 0, { EBS }, "csinode", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "should count PVCs with invalid PV name but valid SC", EBS_ONE, { MISSING_PV, EBS_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "don't count pvcs with missing SC towards volume limit", EBS_ONE, { RUNNING, NO_SC, -1 }, EXTRA_NONE, 2, 0,
		  { EBS }, "csinode", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "count pvcs with the same type towards volume limit", EBS_ONE, { GCE_TWO, EBS_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { EBS, GCE }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "don't count pvcs with different type towards volume limit", GCE_TWO, { EBS_TWO, RUNNING, -1 }, EXTRA_NONE, 2,
		  0, { EBS, GCE }, "csinode", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "should count in-tree volumes if migration is enabled", INTREE_ONE, { INTREE_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { AWS_INTREE, EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "nil csi node", INLINE, { INTREE_TWO, -1 }, EXTRA_NONE, 0, 0, { AWS_INTREE, EBS }, "", FW_SUCCESS, FW_SUCCESS,
		  NULL },
		{ "should count unbound in-tree volumes if migration is enabled", PENDING, { INTREE_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { AWS_INTREE, EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "should not limit pod if volume used does not report limits", INTREE_ONE, { INTREE_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { AWS_INTREE, EBS }, "csinode-with-no-limit", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "should not count non-migratable in-tree volumes", NONMIG, { EBS_TWO, -1 }, EXTRA_NONE, 2, 0, { HOSTPATH, EBS },
		  "csinode", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "should count in-tree inline volumes if migration is enabled", INLINE, { INTREE_TWO, -1 }, EXTRA_NONE, 2, 0,
		  { AWS_INTREE, EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)", INTREE_ONE,
		  { EBS_TWO, -1 }, EXTRA_NONE, 2, 0, { AWS_INTREE, EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)", INLINE,
		  { EBS_TWO, INTREE_ONE, -1 }, EXTRA_NONE, 3, 0, { AWS_INTREE, EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE,
		  MAX_COUNT },
		{ "should not count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)",
		  INLINE_SAME, { EBS_TWO, INTREE_ONE, -1 }, EXTRA_NONE, 3, 0, { AWS_INTREE, EBS }, "csinode", FW_SUCCESS,
		  FW_SUCCESS, NULL },
		{ "should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)", EBS_ONE,
		  { INTREE_TWO, -1 }, EXTRA_NONE, 2, 0, { AWS_INTREE, EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "ephemeral volume missing", EPH, { -1 }, EXTRA_NONE, 0, 0, { EBS }, "csinode-with-no-limit", FW_SUCCESS,
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, missing },
		{ "ephemeral volume not owned", EPH, { -1 }, EXTRA_CONFLICTING, 0, 0, { EBS }, "csinode-with-no-limit",
		  FW_SUCCESS, FW_ERROR, "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)" },
		{ "ephemeral volume unbound", EPH, { -1 }, EXTRA_EPH, 0, 0, { EBS }, "csinode-with-no-limit", FW_SUCCESS,
		  FW_SUCCESS, NULL },
		{ "ephemeral doesn't when node volume limit <= pods CSI volume", EPH, { RUNNING, EBS_TWO, -1 }, EXTRA_EPH, 2, 0,
		  { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "ephemeral doesn't when node volume limit <= pods ephemeral CSI volume", EBS_ONE, { RUNNING, EPH_TWO, -1 },
		  EXTRA_XY, 2, 0, { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume, ephemeral disabled",
		  EBS_ONE, { RUNNING, EPH, EBS_TWO, -1 }, EXTRA_EPH, 3, 0, { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE,
		  MAX_COUNT },
		{ "persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume", EBS_ONE,
		  { RUNNING, EPH, EBS_TWO, -1 }, EXTRA_EPH, 3, 0, { EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume", EBS_ONE,
		  { RUNNING, EPH, EBS_TWO, -1 }, EXTRA_EPH, 5, 0, { EBS }, "csinode", FW_SUCCESS, FW_SUCCESS, NULL },
		{ "skip Filter when the pod only uses secrets and configmaps", CM_SECRET, { -1 }, EXTRA_NONE, 2, 0, { EBS },
		  "csinode", FW_SKIP, FW_SUCCESS, NULL },
		{ "don't skip Filter when the pod has pvcs", PVC_CM_SECRET, { -1 }, EXTRA_NONE, 2, 0, { EBS }, "csinode",
		  FW_SUCCESS, FW_SUCCESS, NULL },
		{ "don't skip Filter when the pod has ephemeral volumes", EPH_CM_SECRET, { -1 }, EXTRA_NONE, 0, 0, { EBS },
		  "csinode-with-no-limit", FW_SUCCESS, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, missing },
		{ "don't skip Filter when the pod has inline migratable volumes", INLINE_CM_SECRET, { INTREE_TWO, -1 },
		  EXTRA_NONE, 2, 0, { AWS_INTREE, EBS }, "csinode", FW_SUCCESS, FW_UNSCHEDULABLE, MAX_COUNT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w = { 0 };
		uint32_t nd = cases[i].drivers[1] ? 2 : 1;
		for (uint32_t d = 0; d < nd; d++)
			add_pvs(&w, cases[i].drivers[d]);
		add_pvcs(&w, cases[i].drivers, nd);
		if (cases[i].extra == EXTRA_CONFLICTING)
			add_ephemeral_claim(&w, "abc-xyz", NULL);
		else if (cases[i].extra == EXTRA_EPH)
			add_ephemeral_claim(&w, "abc-xyz", "12345");
		else if (cases[i].extra == EXTRA_XY) {
			add_ephemeral_claim(&w, "abc-x", "12345II");
			add_ephemeral_claim(&w, "abc-y", "12345II");
		}
		w.sc[w.n_sc++] = DECODE(api_storage_class_decode_json, "{\"metadata\":{\"name\":\"%s\"},\"provisioner\":\"%s\"}",
					SC_NAME, cases[i].drivers[0]);
		add_vas(&w, cases[i].va_count, cases[i].drivers, nd);
		set_csinode(&w, cases[i].limit_source, cases[i].max_vols, cases[i].drivers, nd);
		struct api_pod *ex[4];
		size_t n_ex = 0;
		for (; cases[i].existing[n_ex] >= 0; n_ex++)
			ex[n_ex] = pods[cases[i].existing[n_ex]];
		run(cases[i].test, &w, pods[cases[i].pod], ex, n_ex, cases[i].pre, cases[i].code, cases[i].msg);
		world_release(&w);
	}
	for (int i = 0; i < N_PODS; i++)
		api_pod_unref(pods[i]);
}

/* upstream TestVolumeLimitScalingGate: the gate is on in v1.37 (beta) and csched has no switch,
 * so its "gate disabled" case is not run. */
static void test_volume_limit_scaling_gate(void **state)
{
	(void)state;
	struct {
		const char *name;
		const char *limit_source;
		int32_t limit;
		bool driver_present, prevent;
		enum fw_code code;
		const char *msg;
	} cases[] = {
		{ "gate enabled - allow scheduling when CSIDriver exists but PreventPodSchedulingIfMissing is not set",
		  "no-csi-driver", 0, true, false, FW_SUCCESS, NULL },
		{ "gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is true", "no-csi-driver", 0,
		  true, true, FW_UNSCHEDULABLE, EBS " CSI driver is not installed on the node" },
		{ "gate enabled - driver installed within limit", "csinode", 2, true, true, FW_SUCCESS, NULL },
		{ "gate enabled - allow scheduling when CSIDriver object missing", "no-csi-driver", 0, false, false, FW_SUCCESS,
		  NULL },
	};
	static const char *const drivers[] = { EBS };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w = { 0 };
		add_pvs(&w, EBS);
		add_pvcs(&w, drivers, 1);
		w.sc[w.n_sc++] = DECODE(api_storage_class_decode_json, "{\"metadata\":{\"name\":\"%s\"},\"provisioner\":\"%s\"}",
					SC_NAME, EBS);
		set_csinode(&w, cases[i].limit_source, cases[i].limit, drivers, 1);
		if (cases[i].driver_present)
			w.drv[w.n_drv++] = DECODE(api_csidriver_decode_json, "{\"metadata\":{\"name\":\"%s\"},\"spec\":{%s}}", EBS,
						  cases[i].prevent ? "\"preventPodSchedulingIfMissing\":true" : "");
		struct api_pod *pod = pvc_pod("p", "csi-ebs.csi.aws.com-0");
		run(cases[i].name, &w, pod, NULL, 0, FW_SUCCESS, cases[i].code, cases[i].msg);
		api_pod_unref(pod);
		world_release(&w);
	}
}

/* Beyond upstream's tables: csi-translation-lib's handles decide which volumes are the same one.
 * A GCE PD PV's handle carries its zone label (zonal) or region (regional), an inline GCE PD's
 * UNSPECIFIED; an "aws://zone/vol-x" EBS id is "vol-x"; a malformed inline EBS id is an Error;
 * a VolumeAttachment's volume already used by a pod counts once. */
static void test_translation(void **state)
{
	(void)state;
	static const char *const drivers[] = { GCE, EBS, "disk.csi.azure.com" };
	struct {
		const char *name;
		const char *pv_extra;  /* a PV "pv-x" bound by claim "c-x" */
		const char *new_vol;   /* the pod's volume JSON */
		const char *existing_vol;
		int32_t limit;
		enum fw_code code;
		const char *msg;
	} cases[] = {
		{ "zonal GCE PD PV and inline GCE PD are two volumes",
		  "{\"metadata\":{\"name\":\"pv-x\",\"labels\":{\"topology.kubernetes.io/zone\":\"us-a1-b\"}},\"spec\":{\"gcePersistentDisk\":{\"pdName\":\"d\"}}}",
		  "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"d\"}}", "{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c-x\"}}",
		  1, FW_UNSCHEDULABLE, MAX_COUNT },
		{ "unlabelled GCE PD PV and inline GCE PD are one volume",
		  "{\"metadata\":{\"name\":\"pv-x\"},\"spec\":{\"gcePersistentDisk\":{\"pdName\":\"d\"}}}",
		  "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"d\"}}", "{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c-x\"}}",
		  1, FW_SUCCESS, NULL },
		{ "regional GCE PD PV in two regions is not counted",
		  "{\"metadata\":{\"name\":\"pv-x\",\"labels\":{\"topology.kubernetes.io/zone\":\"us-a1-b__eu-a1-c\"}},\"spec\":{\"gcePersistentDisk\":{\"pdName\":\"d\"}}}",
		  "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"e\"}}", "{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c-x\"}}",
		  1, FW_SUCCESS, NULL },
		{ "aws:// EBS PV id is the bare volume id",
		  "{\"metadata\":{\"name\":\"pv-x\"},\"spec\":{\"awsElasticBlockStore\":{\"volumeID\":\"aws://us-east-1a/vol-1\"}}}",
		  "{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"vol-1\"}}", "{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c-x\"}}",
		  1, FW_SUCCESS, NULL },
		{ "inline Azure Disk of kind Shared is an error", NULL,
		  "{\"name\":\"az\",\"azureDisk\":{\"diskName\":\"d\",\"diskURI\":\"/sub/d\",\"kind\":\"Shared\"}}", NULL, 1,
		  FW_ERROR, "converting volume(az) from inline to csi: kind(Shared) is not supported in csi migration" },
		{ "inline Azure Disk of kind managed counts", NULL,
		  "{\"name\":\"az\",\"azureDisk\":{\"diskName\":\"d\",\"diskURI\":\"/sub/d\",\"kind\":\"managed\"}}", NULL, 0,
		  FW_UNSCHEDULABLE, MAX_COUNT },
		{ "malformed inline EBS id is an error", NULL,
		  "{\"name\":\"bad\",\"awsElasticBlockStore\":{\"volumeID\":\"aws://zone/notvol\"}}", NULL, 1, FW_ERROR,
		  "converting volume(bad) from inline to csi: failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://zone/notvol)" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct world w = { 0 };
		if (cases[i].pv_extra) {
			w.pv[w.n_pv++] = DECODE(api_pv_decode_json, "%s", cases[i].pv_extra);
			w.pvc[w.n_pvc++] = DECODE(api_pvc_decode_json,
						  "{\"metadata\":{\"namespace\":\"default\",\"name\":\"c-x\"},\"spec\":{\"volumeName\":\"pv-x\"}}");
		}
		set_csinode(&w, "csinode", cases[i].limit, drivers, 3);
		char json[1024];
		snprintf(json, sizeof(json),
			 "{\"metadata\":{\"name\":\"new\",\"namespace\":\"default\",\"uid\":\"u-new\"},\"spec\":{\"volumes\":[%s]}}",
			 cases[i].new_vol);
		struct api_pod *pod = mkpod(json);
		struct api_pod *ex[1];
		size_t n_ex = 0;
		if (cases[i].existing_vol) {
			snprintf(json, sizeof(json),
				 "{\"metadata\":{\"name\":\"old\",\"namespace\":\"default\",\"uid\":\"u-old\"},\"spec\":{\"nodeName\":\"%s\",\"volumes\":[%s]}}",
				 NODE, cases[i].existing_vol);
			ex[n_ex++] = mkpod(json);
		}
		run(cases[i].name, &w, pod, ex, n_ex, FW_SUCCESS, cases[i].code, cases[i].msg);
		for (size_t k = 0; k < n_ex; k++)
			api_pod_unref(ex[k]);
		api_pod_unref(pod);
		world_release(&w);
	}

	/* a VolumeAttachment of the volume a pod on the node uses counts once (limit 2: pod's 1 + VA
	 * of the same volume + new 1 = 2) */
	static const char *const ebs[] = { EBS };
	struct world w = { 0 };
	add_pvs(&w, EBS);
	add_pvcs(&w, ebs, 1);
	add_vas(&w, 1, ebs, 1); /* csi-ebs.csi.aws.com-0 */
	set_csinode(&w, "csinode", 2, ebs, 1);
	struct api_pod *user = pvc_pod("user", "csi-ebs.csi.aws.com-0");
	struct api_pod *pod = pvc_pod("p", "csi-ebs.csi.aws.com-1");
	run("VolumeAttachment of a pod's volume counts once", &w, pod, &user, 1, FW_SUCCESS, FW_SUCCESS, NULL);
	api_pod_unref(user);
	api_pod_unref(pod);
	world_release(&w);
}

/* ---------- queueing hints ---------- */

static queue_hint_fn hint_of(const struct fw_plugin *p, uint32_t resource, uint32_t action)
{
	for (uint32_t i = 0; i < p->n_events; i++)
		if (p->events[i].event.resource == resource && (p->events[i].event.actions & action))
			return p->events[i].hint;
	fail_msg("no event %u/%u", resource, action);
	return NULL;
}

/* upstream EventsToRegister and TestCSILimitsQHint, TestCSILimitsAddedPVCQHint,
 * TestCSILimitsDeletedVolumeAttachmentQHint, TestCSILimitsAfterCSINodeUpdatedQHint */
static void test_hints(void **state)
{
	(void)state;
	const struct fw_plugin *p = fw_registry_lookup("NodeVolumeLimits");
	assert_non_null(p);
	assert_int_equal(p->n_events, 5);
	assert_null(hint_of(p, QUEUE_RES_CSI_NODE, QUEUE_ACT_ADD));

	/* TestCSILimitsQHint */
	queue_hint_fn deleted = hint_of(p, QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE);
	struct api_pod *pod_ebs = pvc_pod("ebs", "csi-ebs.csi.aws.com-2");
	struct {
		const char *test;
		const char *json;
		enum queue_hint want;
	} qh[] = {
		{ "return a Queue when a deleted pod has a PVC",
		  "{\"metadata\":{\"name\":\"d\",\"namespace\":\"default\"},\"spec\":{\"nodeName\":\"" NODE "\",\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"placeholder\"}}]}}",
		  QUEUE_HINT_QUEUE },
		{ "return a Queue when a deleted pod has a inline migratable volume",
		  "{\"metadata\":{\"name\":\"d\",\"namespace\":\"default\"},\"spec\":{\"nodeName\":\"" NODE "\",\"volumes\":[{\"name\":\"v\",\"awsElasticBlockStore\":{}}]}}",
		  QUEUE_HINT_QUEUE },
		{ "return a QueueSkip when a deleted pod doesn't have any volume",
		  "{\"metadata\":{\"name\":\"d\",\"namespace\":\"default\"},\"spec\":{\"nodeName\":\"" NODE "\"}}", QUEUE_HINT_SKIP },
		{ "return a QueueSkip when a deleted pod is not scheduled.",
		  "{\"metadata\":{\"name\":\"d\",\"namespace\":\"default\"},\"spec\":{\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"csi-ebs.csi.aws.com-0\"}}]}}",
		  QUEUE_HINT_SKIP },
	};
	for (size_t i = 0; i < ARRAY_SIZE(qh); i++) {
		struct api_pod *d = mkpod(qh[i].json);
		if (deleted(NULL, pod_ebs, d, NULL) != qh[i].want)
			fail_msg("%s", qh[i].test);
		api_pod_unref(d);
	}

	/* TestCSILimitsAddedPVCQHint */
	queue_hint_fn added = hint_of(p, QUEUE_RES_PERSISTENT_VOLUME_CLAIM, QUEUE_ACT_ADD);
	struct {
		const char *test;
		const char *pod, *pvc_ns, *pvc_name;
		enum queue_hint want;
	} ap[] = {
		{ "a pod isn't in the same namespace as an added PVC",
		  "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns1\"},\"spec\":{}}", "ns2", "x", QUEUE_HINT_SKIP },
		{ "a pod is in the same namespace as an added PVC",
		  "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns1\"},\"spec\":{\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"pvc1\"}}]}}",
		  "ns1", "pvc1", QUEUE_HINT_QUEUE },
		{ "a pod has an ephemeral volume related to an added PVC",
		  "{\"metadata\":{\"name\":\"pod1\",\"namespace\":\"ns1\"},\"spec\":{\"volumes\":[{\"name\":\"ephemeral\",\"ephemeral\":{}}]}}",
		  "ns1", "pod1-ephemeral", QUEUE_HINT_QUEUE },
		{ "a pod doesn't have the same PVC as an added PVC",
		  "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns1\"},\"spec\":{\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"pvc1\"}}]}}",
		  "ns1", "pvc2", QUEUE_HINT_SKIP },
		{ "a pod doesn't have any PVC attached", "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns1\"},\"spec\":{}}", "ns1",
		  "pvc2", QUEUE_HINT_SKIP },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ap); i++) {
		struct api_pod *pod = mkpod(ap[i].pod);
		struct api_pvc *pvc = DECODE(api_pvc_decode_json, "{\"metadata\":{\"namespace\":\"%s\",\"name\":\"%s\"},\"spec\":{}}",
					     ap[i].pvc_ns, ap[i].pvc_name);
		if (added(NULL, pod, NULL, pvc) != ap[i].want)
			fail_msg("%s", ap[i].test);
		api_pvc_unref(pvc);
		api_pod_unref(pod);
	}

	/* TestCSILimitsDeletedVolumeAttachmentQHint (the inline-spec VolumeAttachments have no PV name) */
	queue_hint_fn va_deleted = hint_of(p, QUEUE_RES_VOLUME_ATTACHMENT, QUEUE_ACT_DELETE);
	struct {
		const char *test;
		const char *vols, *attacher;
		enum queue_hint want;
	} vh[] = {
		{ "a pod has PVC when VolumeAttachment is deleting",
		  "{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"pvc1\"}}", "test.storage.gke.io", QUEUE_HINT_QUEUE },
		{ "a pod has an Inline Migratable volume (AWSEBSDriver) when VolumeAttachment (AWSEBSDriver) is deleting (match)",
		  "{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"test\"}}", EBS, QUEUE_HINT_QUEUE },
		{ "a pod has an Inline Migratable volume (GCEPDDriver) when VolumeAttachment (AWSEBSDriver) is deleting (no match)",
		  "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"test\"}}", EBS, QUEUE_HINT_SKIP },
		{ "a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment (AWSEBSDriver) is deleting",
		  "{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"test\"}},{\"name\":\"w\",\"persistentVolumeClaim\":{\"claimName\":\"pvc1\"}}",
		  EBS, QUEUE_HINT_QUEUE },
		{ "a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment (AWSEBSDriver)  is deleting",
		  "{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"test\"}},{\"name\":\"w\",\"persistentVolumeClaim\":{\"claimName\":\"pvc1\"}}",
		  "test.storage.gke.io", QUEUE_HINT_QUEUE },
		{ "a pod has no PVC when VolumeAttachment is deleting", "", "test.storage.gke.io", QUEUE_HINT_SKIP },
		/* beyond upstream's table: a translation failure is Queue with an error */
		{ "untranslatable inline Azure Disk", "{\"name\":\"az\",\"azureDisk\":{\"diskURI\":\"/d\",\"kind\":\"Dedicated\"}}",
		  "disk.csi.azure.com", QUEUE_HINT_ERROR },
	};
	for (size_t i = 0; i < ARRAY_SIZE(vh); i++) {
		char json[1024];
		snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns1\"},\"spec\":{\"volumes\":[%s]}}",
			 vh[i].vols);
		struct api_pod *pod = mkpod(json);
		struct api_volume_attachment *va = DECODE(
			api_volume_attachment_decode_json,
			"{\"metadata\":{\"name\":\"volumeattachment1\"},\"spec\":{\"nodeName\":\"fake-node\",\"attacher\":\"%s\",\"source\":{}}}",
			vh[i].attacher);
		if (va_deleted(NULL, pod, va, NULL) != vh[i].want)
			fail_msg("%s", vh[i].test);
		api_volume_attachment_unref(va);
		api_pod_unref(pod);
	}

	/* TestCSILimitsAfterCSINodeUpdatedQHint */
	queue_hint_fn updated = hint_of(p, QUEUE_RES_CSI_NODE, QUEUE_ACT_UPDATE);
	struct {
		const char *name;
		int old_count, new_count;
		enum queue_hint want;
	} uh[] = {
		{ "limit raised, queue", 1, 2, QUEUE_HINT_QUEUE },
		{ "limit decreased, skip queueing", 2, 1, QUEUE_HINT_SKIP },
		{ "limit unchanged, skip queueing", 1, 1, QUEUE_HINT_SKIP },
	};
	struct api_pod *test_pod = TOBJ_POD(.name = "test-pod", .ns = "ns1", .pvcs = "csi-ebs.csi.aws.com-0");
	for (size_t i = 0; i < ARRAY_SIZE(uh); i++) {
		const char *fmt = "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"drivers\":[{\"name\":\"" EBS
				  "\",\"nodeID\":\"test-node\",\"allocatable\":{\"count\":%d}}]}}";
		struct api_csinode *o = DECODE(api_csinode_decode_json, fmt, uh[i].old_count);
		struct api_csinode *n = DECODE(api_csinode_decode_json, fmt, uh[i].new_count);
		if (updated(NULL, test_pod, o, n) != uh[i].want)
			fail_msg("%s", uh[i].name);
		api_csinode_unref(o);
		api_csinode_unref(n);
	}
	api_pod_unref(test_pod);
	api_pod_unref(pod_ebs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csi_limits),
		cmocka_unit_test(test_volume_limit_scaling_gate),
		cmocka_unit_test(test_translation),
		cmocka_unit_test(test_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
