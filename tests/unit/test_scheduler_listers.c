/* Preemption's listers (scheduler/pdbs.c) and the volume plugins' (scheduler/volumes.c) on a
 * scheduler that is never started (no server): the informers' stores are filled through their
 * watch-line seam (api__inf_watch_line), as watch events would. fw_listers.pod answers from the
 * pod informer's store (upstream's pod lister); fw_listers.pdb_each walks the
 * PodDisruptionBudget informer's (pdbLister.List(Everything)), which exists only when a profile
 * runs DefaultPreemption at PostFilter. The volume listers answer from the PV, StorageClass,
 * CSINode, CSIDriver, VolumeAttachment and CSIStorageCapacity informers, which exist only for the
 * kinds a profile's plugins need; PVs by class and VolumeAttachments by node come from indexes
 * the handlers keep (upstream's storage-class and va.spec.nodename indexers). DynamicResources'
 * listers (scheduler/dra.c) answer from the ResourceClaim, ResourceSlice, DeviceClass and
 * DeviceTaintRule informers; their handlers' queue events carry the typed objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/framework.h"
#include "apiclient/informer_internal.h"
#include "config/config.h"
#include "common/intern.h"
#include "scheduler/sched_internal.h"

struct fixture {
	struct api_client *client;
	struct scheduler *s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err e = { 0 };
	struct api_config cfg = { 0 };
	cfg.server = strdup("http://127.0.0.1:1"); /* never contacted: nothing is started */
	assert_int_equal(api_global_init(&e), 0);
	f->client = api_client_new(&cfg, &e);
	assert_non_null(f->client);
	struct sched_options o = { .client = f->client, .binders = 1 };
	f->s = sched_new(&o, &e);
	if (!f->s)
		fail_msg("sched_new: %s", e.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	sched_free(f->s);
	api_client_free(f->client);
	free(f);
	return 0;
}

/* One watch event into inf's store. */
static void event(struct api_informer *inf, const char *type, const char *object)
{
	char line[2048];
	unsigned long events = 0;
	struct err e = { 0 };
	int n = snprintf(line, sizeof(line), "{\"type\":\"%s\",\"object\":%s}", type, object);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	if (api__inf_watch_line(inf, line, (size_t)n, &events, &e))
		fail_msg("%s: %s", type, e.msg);
	assert_int_equal(events, 1);
}

#define POD_JSON(name, rv)                                                                                   \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"uid-" name "\","           \
	"\"resourceVersion\":\"" rv "\"},\"spec\":{\"schedulerName\":\"csched\",\"nodeName\":\"n1\","        \
	"\"containers\":[{\"name\":\"c\"}]}}"

static void test_pod_lister(void **state)
{
	struct fixture *f = *state;
	assert_null(sched_pod_lister(f->s, "default", "web-0"));
	event(f->s->pod_inf, "ADDED", POD_JSON("web-0", "10"));
	event(f->s->pod_inf, "ADDED", POD_JSON("web-1", "11"));
	struct api_pod *p = sched_pod_lister(f->s, "default", "web-0");
	assert_non_null(p);
	assert_string_equal(p->meta.name, "web-0");
	assert_string_equal(p->meta.resource_version, "10");
	api_pod_unref(p);
	assert_null(sched_pod_lister(f->s, "other", "web-0")); /* by namespace and name */
	/* the latest version, and gone once deleted */
	event(f->s->pod_inf, "MODIFIED", POD_JSON("web-0", "12"));
	p = sched_pod_lister(f->s, "default", "web-0");
	assert_non_null(p);
	assert_string_equal(p->meta.resource_version, "12");
	api_pod_unref(p);
	event(f->s->pod_inf, "DELETED", POD_JSON("web-0", "13"));
	assert_null(sched_pod_lister(f->s, "default", "web-0"));
	p = sched_pod_lister(f->s, "default", "web-1");
	assert_non_null(p);
	api_pod_unref(p);
}

struct seen {
	int n, stop_at;
	bool web, all, other;
};

static int visit(void *arg, const struct api_pdb *pdb)
{
	struct seen *s = arg;
	s->n++;
	if (!strcmp(pdb->meta.name, "web"))
		s->web = pdb->disruptions_allowed == 1 && pdb->n_disrupted == 1;
	else if (!strcmp(pdb->meta.name, "all"))
		s->all = pdb->selector && pdb->selector->match_labels.n == 0;
	else if (!strcmp(pdb->meta.name, "other"))
		s->other = pdb->meta.namespace == intern_str("kube-system");
	return s->n == s->stop_at ? 7 : 0;
}

static void test_pdb_each(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	struct seen s = { 0 };
	/* no PDB informer (no profile runs DefaultPreemption at PostFilter): nothing, 0 */
	struct api_informer *keep = f->s->pdb_inf;
	f->s->pdb_inf = NULL;
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 0);
	assert_int_equal(s.n, 0);
	f->s->pdb_inf = keep ? keep : api_informer_new(f->client, API_KIND_PDB, NULL, NULL, &e);
	assert_non_null(f->s->pdb_inf);

	event(f->s->pdb_inf, "ADDED",
	      "{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"resourceVersion\":\"1\"},\"spec\":"
	      "{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}},\"status\":{\"disruptionsAllowed\":1,"
	      "\"disruptedPods\":{\"web-0\":\"2026-11-25T20:30:00Z\"}}}");
	event(f->s->pdb_inf, "ADDED",
	      "{\"metadata\":{\"name\":\"all\",\"namespace\":\"default\",\"resourceVersion\":\"2\"},\"spec\":"
	      "{\"selector\":{}}}");
	event(f->s->pdb_inf, "ADDED",
	      "{\"metadata\":{\"name\":\"other\",\"namespace\":\"kube-system\",\"resourceVersion\":\"3\"}}");
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.web && s.all && s.other);
	/* fn's first non-zero answer stops the walk and is returned */
	s = (struct seen){ .stop_at = 2 };
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 7);
	assert_int_equal(s.n, 2);
	/* a deleted PDB is no longer listed */
	event(f->s->pdb_inf, "DELETED", "{\"metadata\":{\"name\":\"all\",\"namespace\":\"default\",\"resourceVersion\":\"4\"}}");
	s = (struct seen){ 0 };
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 0);
	assert_int_equal(s.n, 2);
	assert_false(s.all);
}

/* The PDB informer exists when some profile runs DefaultPreemption at PostFilter (upstream reads
 * the PDB lister only in PostFilter's Evaluator; v1.37's default profile has the plugin at
 * PreEnqueue and PostFilter, default_plugins.go). */
static void test_pdb_informer_only_with_postfilter(void **state)
{
	(void)state;
	static const struct {
		const char *yaml;
		bool want;
	} t[] = {
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n",
		  true },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    postFilter:\n      disabled:\n      - name: DefaultPreemption\n",
		  false },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    preEnqueue:\n      disabled:\n      - name: DefaultPreemption\n",
		  true },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultPreemption\n"
		  "- schedulerName: second\n",
		  true },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultPreemption\n",
		  false },
	};
	struct err e = { 0 };
	struct api_config acfg = { 0 };
	acfg.server = strdup("http://127.0.0.1:1"); /* never contacted */
	assert_int_equal(api_global_init(&e), 0);
	struct api_client *client = api_client_new(&acfg, &e);
	assert_non_null(client);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct config cfg;
		memset(&cfg, 0, sizeof(cfg));
		if (config_load_buffer(&cfg, fw_registry(), "t.yaml", t[i].yaml, strlen(t[i].yaml), &e) < 0)
			fail_msg("case %zu: %s", i, e.msg);
		assert_int_equal(sched_pdbs_needed(&cfg), t[i].want);
		struct sched_options o = { .cfg = &cfg, .client = client, .binders = 1 };
		struct scheduler *s = sched_new(&o, &e);
		if (!s)
			fail_msg("case %zu: sched_new: %s", i, e.msg);
		if ((s->pdb_inf != NULL) != t[i].want)
			fail_msg("case %zu: PDB informer %s", i, s->pdb_inf ? "created" : "missing");
		/* without one, the caches are synced without it (nothing else started here) */
		assert_true(sched_pdbs_synced(s->pdb_inf) == !t[i].want);
		sched_free(s);
		config_free(&cfg);
	}
	api_client_free(client);
}

/* ---------- volume listers ---------- */

/* A scheduler with every volume informer (the default profile's NodeVolumeLimits, VolumeBinding
 * and VolumeZone need all of them: sched_new's set is checked, then replaced by a fresh full one). */
static void with_volumes(struct fixture *f)
{
	struct err e = { 0 };
	assert_int_equal(sched_volume_kinds(f->s), SCHED_VOL_PV | SCHED_VOL_STORAGE_CLASS | SCHED_VOL_CSINODE |
							    SCHED_VOL_CSIDRIVER | SCHED_VOL_VOLUME_ATTACHMENT |
							    SCHED_VOL_CSI_STORAGE_CAPACITY);
	assert_non_null(f->s->volumes);
	assert_non_null(sched_volumes_informer(f->s->volumes, API_KIND_PV));
	assert_non_null(sched_volumes_informer(f->s->volumes, API_KIND_CSINODE));
	assert_non_null(sched_volumes_informer(f->s->volumes, API_KIND_VOLUME_ATTACHMENT));
	sched_volumes_free(f->s->volumes);
	f->s->volumes = sched_volumes_new(f->client, 0x3f, f->s->queue, &e);
	if (!f->s->volumes)
		fail_msg("sched_volumes_new: %s", e.msg);
}

#define PV_JSON(name, rv, cls, extra)                                                                 \
	"{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\"" extra "},\"spec\":"      \
	"{\"storageClassName\":\"" cls "\",\"capacity\":{\"storage\":\"1Gi\"}},\"status\":{\"phase\":"    \
	"\"Available\"}}"

struct names {
	int n, stop_at;
	char got[8][32];
};

static int pv_visit(void *arg, const struct api_pv *pv)
{
	struct names *s = arg;
	if (s->n < 8)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%s", pv->meta.name);
	s->n++;
	return s->n == s->stop_at ? 9 : 0;
}

static bool has_name(const struct names *s, const char *name)
{
	for (int i = 0; i < s->n && i < 8; i++)
		if (!strcmp(s->got[i], name))
			return true;
	return false;
}

static void test_pv_listers(void **state)
{
	struct fixture *f = *state;
	struct names s = { 0 };
	/* without the informers: nothing, 0 */
	struct sched_volumes *keep = f->s->volumes;
	f->s->volumes = NULL;
	assert_null(sched_pv_lister(f->s, "a"));
	assert_int_equal(sched_pv_each(f->s, NULL, pv_visit, &s), 0);
	assert_int_equal(sched_pv_each(f->s, "fast", pv_visit, &s), 0);
	assert_int_equal(s.n, 0);
	f->s->volumes = keep;
	with_volumes(f);
	struct api_informer *inf = sched_volumes_informer(f->s->volumes, API_KIND_PV);
	assert_non_null(inf);
	event(inf, "ADDED", PV_JSON("a", "1", "fast", ""));
	event(inf, "ADDED", PV_JSON("b", "2", "slow", ""));
	/* the beta annotation wins over spec.storageClassName (upstream GetPersistentVolumeClass) */
	event(inf, "ADDED", PV_JSON("c", "3", "slow", ",\"annotations\":{\"volume.beta.kubernetes.io/storage-class\":\"fast\"}"));
	event(inf, "ADDED", PV_JSON("d", "4", "", ""));
	struct api_pv *pv = sched_pv_lister(f->s, "b");
	assert_non_null(pv);
	assert_string_equal(pv->meta.resource_version, "2");
	assert_int_equal(pv->capacity_storage, 1073741824);
	api_pv_unref(pv);
	assert_null(sched_pv_lister(f->s, "zz"));
	assert_int_equal(sched_pv_each(f->s, NULL, pv_visit, &s), 0);
	assert_int_equal(s.n, 4);
	s = (struct names){ 0 };
	assert_int_equal(sched_pv_each(f->s, "fast", pv_visit, &s), 0);
	assert_int_equal(s.n, 2);
	assert_true(has_name(&s, "a") && has_name(&s, "c"));
	s = (struct names){ 0 };
	assert_int_equal(sched_pv_each(f->s, "", pv_visit, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(has_name(&s, "d"));
	s = (struct names){ 0 };
	assert_int_equal(sched_pv_each(f->s, "never-seen-class", pv_visit, &s), 0);
	assert_int_equal(s.n, 0);
	/* an update moves the PV between classes; the first non-zero answer stops the walk */
	event(inf, "MODIFIED", PV_JSON("a", "5", "slow", ""));
	s = (struct names){ 0 };
	assert_int_equal(sched_pv_each(f->s, "fast", pv_visit, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(has_name(&s, "c"));
	s = (struct names){ .stop_at = 1 };
	assert_int_equal(sched_pv_each(f->s, "slow", pv_visit, &s), 9);
	assert_int_equal(s.n, 1);
	/* a delete leaves store and index */
	event(inf, "DELETED", PV_JSON("b", "6", "slow", ""));
	assert_null(sched_pv_lister(f->s, "b"));
	s = (struct names){ 0 };
	assert_int_equal(sched_pv_each(f->s, "slow", pv_visit, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(has_name(&s, "a"));
	/* the fw_ wrappers reach the same stores through a profile's listers */
	const struct fw_pl *const *pls;
	uint32_t n = 0;
	pls = fw_profile_plugins(f->s->profiles[0].fw, CFG_EP_FILTER, &n);
	assert_true(n > 0);
	pv = fw_get_pv(pls[0], "a");
	assert_non_null(pv);
	assert_string_equal(pv->meta.resource_version, "5");
	api_pv_unref(pv);
	s = (struct names){ 0 };
	assert_int_equal(fw_each_pv(pls[0], "slow", pv_visit, &s), 0);
	assert_int_equal(s.n, 1);
}

static int va_visit(void *arg, const struct api_volume_attachment *va)
{
	struct names *s = arg;
	if (s->n < 8)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%s", va->meta.name);
	s->n++;
	return 0;
}

static int csc_visit(void *arg, const struct api_csi_storage_capacity *c)
{
	struct names *s = arg;
	if (s->n < 8)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%s", c->meta.name);
	s->n++;
	return 0;
}

#define VA_JSON(name, rv, node) \
	"{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\"},\"spec\":{\"attacher\":" \
	"\"ebs.csi.aws.com\",\"nodeName\":\"" node "\",\"source\":{\"persistentVolumeName\":\"pv-" name "\"}}}"

static void test_storage_listers(void **state)
{
	struct fixture *f = *state;
	struct names s = { 0 };
	struct sched_volumes *keep = f->s->volumes;
	f->s->volumes = NULL;
	assert_null(sched_storage_class_lister(f->s, "fast"));
	assert_null(sched_csinode_lister(f->s, "n1"));
	assert_null(sched_csidriver_lister(f->s, "d"));
	assert_int_equal(sched_volume_attachment_each(f->s, NULL, va_visit, &s), 0);
	assert_int_equal(sched_csi_storage_capacity_each(f->s, csc_visit, &s), 0);
	assert_int_equal(s.n, 0);
	f->s->volumes = keep;
	with_volumes(f);
	struct sched_volumes *v = f->s->volumes;
	event(sched_volumes_informer(v, API_KIND_STORAGE_CLASS), "ADDED",
	      "{\"metadata\":{\"name\":\"fast\",\"resourceVersion\":\"1\"},\"provisioner\":\"p\","
	      "\"volumeBindingMode\":\"WaitForFirstConsumer\"}");
	event(sched_volumes_informer(v, API_KIND_CSINODE), "ADDED",
	      "{\"metadata\":{\"name\":\"n1\",\"resourceVersion\":\"2\"},\"spec\":{\"drivers\":[{\"name\":\"d\","
	      "\"nodeID\":\"n1\",\"allocatable\":{\"count\":2}}]}}");
	event(sched_volumes_informer(v, API_KIND_CSIDRIVER), "ADDED",
	      "{\"metadata\":{\"name\":\"d\",\"resourceVersion\":\"3\"},\"spec\":{\"storageCapacity\":true}}");
	struct api_informer *va_inf = sched_volumes_informer(v, API_KIND_VOLUME_ATTACHMENT);
	event(va_inf, "ADDED", VA_JSON("va1", "4", "n1"));
	event(va_inf, "ADDED", VA_JSON("va2", "5", "n2"));
	event(va_inf, "ADDED", VA_JSON("va3", "6", "n1"));
	event(sched_volumes_informer(v, API_KIND_CSI_STORAGE_CAPACITY), "ADDED",
	      "{\"metadata\":{\"name\":\"cap\",\"namespace\":\"kube-system\",\"resourceVersion\":\"7\"},"
	      "\"storageClassName\":\"fast\",\"capacity\":\"10Gi\"}");

	struct api_storage_class *sc = sched_storage_class_lister(f->s, "fast");
	assert_non_null(sc);
	assert_int_equal(sc->volume_binding_mode, API_BINDING_WAIT_FOR_FIRST_CONSUMER);
	api_storage_class_unref(sc);
	struct api_csinode *cn = sched_csinode_lister(f->s, "n1");
	assert_non_null(cn);
	assert_int_equal(cn->drivers[0].allocatable_count, 2);
	api_csinode_unref(cn);
	struct api_csidriver *cd = sched_csidriver_lister(f->s, "d");
	assert_non_null(cd);
	assert_true(cd->storage_capacity);
	api_csidriver_unref(cd);
	assert_null(sched_csidriver_lister(f->s, "other"));

	assert_int_equal(sched_volume_attachment_each(f->s, NULL, va_visit, &s), 0);
	assert_int_equal(s.n, 3);
	s = (struct names){ 0 };
	assert_int_equal(sched_volume_attachment_each(f->s, "n1", va_visit, &s), 0);
	assert_int_equal(s.n, 2);
	assert_true(has_name(&s, "va1") && has_name(&s, "va3"));
	/* moved to another node, then deleted */
	event(va_inf, "MODIFIED", VA_JSON("va3", "8", "n2"));
	s = (struct names){ 0 };
	assert_int_equal(sched_volume_attachment_each(f->s, "n2", va_visit, &s), 0);
	assert_int_equal(s.n, 2);
	event(va_inf, "DELETED", VA_JSON("va1", "9", "n1"));
	s = (struct names){ 0 };
	assert_int_equal(sched_volume_attachment_each(f->s, "n1", va_visit, &s), 0);
	assert_int_equal(s.n, 0);

	s = (struct names){ 0 };
	assert_int_equal(sched_csi_storage_capacity_each(f->s, csc_visit, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(has_name(&s, "cap"));
}

/* The handlers send each kind's events to the queue with the decoded objects: a hint registered
 * for the resource sees the event's action and its old/new objects, typed by resource. */
static char hint_log[16][48];
static int n_hint_log;

static const char *obj_name(uint32_t res, const void *o)
{
	if (!o)
		return "-";
	switch (res) {
	case QUEUE_RES_PERSISTENT_VOLUME:
		return ((const struct api_pv *)o)->meta.name;
	case QUEUE_RES_STORAGE_CLASS:
		return ((const struct api_storage_class *)o)->meta.name;
	case QUEUE_RES_CSI_NODE:
		return ((const struct api_csinode *)o)->meta.name;
	case QUEUE_RES_CSI_DRIVER:
		return ((const struct api_csidriver *)o)->meta.name;
	case QUEUE_RES_VOLUME_ATTACHMENT:
		return ((const struct api_volume_attachment *)o)->meta.name;
	default:
		return ((const struct api_csi_storage_capacity *)o)->meta.name;
	}
}

static enum queue_hint hint_record(const void *plugin, const struct api_pod *pod, const void *old_obj,
				   const void *new_obj)
{
	(void)pod;
	uint32_t res = *(const uint32_t *)plugin;
	if (n_hint_log < 16)
		snprintf(hint_log[n_hint_log++], sizeof(hint_log[0]), "%u %s->%s", res, obj_name(res, old_obj),
			 obj_name(res, new_obj));
	return QUEUE_HINT_SKIP;
}

/* sched_volumes_set_delete_hook's callback: "resource name" of each delete */
static char delete_log[8][48];
static int n_delete_log;

static void delete_record(void *ctx, uint32_t res, const void *obj)
{
	(void)ctx;
	if (n_delete_log < 8)
		snprintf(delete_log[n_delete_log++], sizeof(delete_log[0]), "%u %s", res, obj_name(res, obj));
}

static const uint32_t r_pv = QUEUE_RES_PERSISTENT_VOLUME, r_sc = QUEUE_RES_STORAGE_CLASS, r_cn = QUEUE_RES_CSI_NODE,
		      r_cd = QUEUE_RES_CSI_DRIVER, r_va = QUEUE_RES_VOLUME_ATTACHMENT,
		      r_csc = QUEUE_RES_CSI_STORAGE_CAPACITY;

static void test_volume_events(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	static const struct queue_hint_reg regs[] = {
		{ "Vol", { QUEUE_RES_PERSISTENT_VOLUME, QUEUE_ACT_ALL, NULL }, hint_record, &r_pv },
		{ "Vol", { QUEUE_RES_STORAGE_CLASS, QUEUE_ACT_ALL, NULL }, hint_record, &r_sc },
		{ "Vol", { QUEUE_RES_CSI_NODE, QUEUE_ACT_ALL, NULL }, hint_record, &r_cn },
		{ "Vol", { QUEUE_RES_CSI_DRIVER, QUEUE_ACT_ALL, NULL }, hint_record, &r_cd },
		{ "Vol", { QUEUE_RES_VOLUME_ATTACHMENT, QUEUE_ACT_ALL, NULL }, hint_record, &r_va },
		{ "Vol", { QUEUE_RES_CSI_STORAGE_CAPACITY, QUEUE_ACT_ALL, NULL }, hint_record, &r_csc },
	};
	static const struct queue_profile prof = { "default-scheduler", regs, sizeof(regs) / sizeof(regs[0]), NULL, NULL };
	struct queue_options qo = { .profiles = &prof, .n_profiles = 1 };
	struct queue *q = queue_new(&qo, &e);
	assert_non_null(q);
	struct sched_volumes *v = sched_volumes_new(f->client, 0x3f, q, &e);
	assert_non_null(v);
	static const char *pod_json =
		"{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"uid-p\",\"resourceVersion\":\"1\"},"
		"\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
	struct api_pod *pod = api_pod_decode_json(pod_json, strlen(pod_json), &e);
	assert_non_null(pod);
	assert_int_equal(queue_add(q, pod, &e), 0);
	api_pod_unref(pod);
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(q, &qpi), 0);
	static const char *const rejectors[] = { "Vol" };
	struct queue_failure fl = { rejectors, 1, NULL, 0 };
	assert_int_equal(queue_add_unschedulable_if_not_present(q, qpi, &fl, &e), 0);
	assert_int_equal(queue_pod_tier(q, "uid-p"), QUEUE_TIER_UNSCHEDULABLE);

	sched_volumes_set_delete_hook(v, delete_record, NULL);
	n_delete_log = 0;
	n_hint_log = 0;
	event(sched_volumes_informer(v, API_KIND_PV), "ADDED", PV_JSON("a", "1", "fast", ""));
	event(sched_volumes_informer(v, API_KIND_PV), "MODIFIED", PV_JSON("a", "2", "fast", ""));
	event(sched_volumes_informer(v, API_KIND_STORAGE_CLASS), "ADDED", "{\"metadata\":{\"name\":\"s\"}}");
	event(sched_volumes_informer(v, API_KIND_CSINODE), "ADDED", "{\"metadata\":{\"name\":\"n\"}}");
	event(sched_volumes_informer(v, API_KIND_CSIDRIVER), "ADDED", "{\"metadata\":{\"name\":\"d\"}}");
	event(sched_volumes_informer(v, API_KIND_VOLUME_ATTACHMENT), "ADDED", VA_JSON("va", "3", "n"));
	event(sched_volumes_informer(v, API_KIND_CSI_STORAGE_CAPACITY), "ADDED",
	      "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"}}");
	event(sched_volumes_informer(v, API_KIND_VOLUME_ATTACHMENT), "DELETED", VA_JSON("va", "4", "n"));
	event(sched_volumes_informer(v, API_KIND_PV), "DELETED", PV_JSON("a", "5", "fast", ""));
	char want[9][48];
	snprintf(want[0], 48, "%u -->a", r_pv);
	snprintf(want[1], 48, "%u a->a", r_pv);
	snprintf(want[2], 48, "%u -->s", r_sc);
	snprintf(want[3], 48, "%u -->n", r_cn);
	snprintf(want[4], 48, "%u -->d", r_cd);
	snprintf(want[5], 48, "%u -->va", r_va);
	snprintf(want[6], 48, "%u -->c", r_csc);
	snprintf(want[7], 48, "%u va->-", r_va);
	snprintf(want[8], 48, "%u a->-", r_pv);
	assert_int_equal(n_hint_log, 9);
	for (int i = 0; i < 9; i++)
		assert_string_equal(hint_log[i], want[i]);
	/* the deletes (only they) reach the plugins' per-object state (VolumeBinding's assume cache) */
	assert_int_equal(n_delete_log, 2);
	snprintf(want[0], 48, "%u va", (unsigned)QUEUE_RES_VOLUME_ATTACHMENT);
	snprintf(want[1], 48, "%u a", (unsigned)QUEUE_RES_PERSISTENT_VOLUME);
	assert_string_equal(delete_log[0], want[0]);
	assert_string_equal(delete_log[1], want[1]);

	/* a pod in flight records the events with references on their objects (the queue's
	 * obj_ref by resource), dropped when its attempt is done (valgrind and ASan check both) */
	static const char *pod2_json =
		"{\"metadata\":{\"name\":\"p2\",\"namespace\":\"default\",\"uid\":\"uid-p2\",\"resourceVersion\":\"1\"},"
		"\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
	pod = api_pod_decode_json(pod2_json, strlen(pod2_json), &e);
	assert_non_null(pod);
	assert_int_equal(queue_add(q, pod, &e), 0);
	api_pod_unref(pod);
	assert_int_equal(queue_try_pop(q, &qpi), 0);
	struct queue_counts qc;
	queue_counts(q, &qc);
	uint32_t before = qc.in_flight_events;
	event(sched_volumes_informer(v, API_KIND_PV), "ADDED", PV_JSON("z", "6", "fast", ""));
	event(sched_volumes_informer(v, API_KIND_STORAGE_CLASS), "MODIFIED", "{\"metadata\":{\"name\":\"s\",\"resourceVersion\":\"7\"}}");
	event(sched_volumes_informer(v, API_KIND_CSI_STORAGE_CAPACITY), "DELETED",
	      "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"}}");
	queue_counts(q, &qc);
	assert_int_equal(qc.in_flight_events, before + 3);
	queue_done(q, "uid-p2");
	queue_pod_info_free(qpi);
	sched_volumes_free(v); /* the stores' references go; the queue holds none now */
	queue_free(q);
}

/* The kinds each plugin needs: its upstream constructor's listers, and the kinds of its events. */
static void test_volume_kinds(void **state)
{
	(void)state;
	static const struct queue_event_hint ev_csinode[] = { { { QUEUE_RES_CSI_NODE, QUEUE_ACT_ADD, NULL }, NULL } };
	static const struct queue_event_hint ev_node[] = { { { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL }, NULL } };
	static const struct queue_event_hint ev_va_csc[] = {
		{ { QUEUE_RES_VOLUME_ATTACHMENT, QUEUE_ACT_DELETE, NULL }, NULL },
		{ { QUEUE_RES_CSI_STORAGE_CAPACITY, QUEUE_ACT_ADD, NULL }, NULL },
	};
	static const struct {
		struct fw_plugin p;
		unsigned want;
	} t[] = {
		{ { .name = "NodeResourcesFit", FW_EVENTS(ev_node) }, 0 },
		{ { .name = "VolumeRestrictions" }, 0 },
		{ { .name = "VolumeZone" }, SCHED_VOL_PV | SCHED_VOL_STORAGE_CLASS },
		{ { .name = "VolumeBinding" },
		  SCHED_VOL_PV | SCHED_VOL_STORAGE_CLASS | SCHED_VOL_CSINODE | SCHED_VOL_CSIDRIVER |
			  SCHED_VOL_CSI_STORAGE_CAPACITY },
		{ { .name = "NodeVolumeLimits" },
		  SCHED_VOL_PV | SCHED_VOL_STORAGE_CLASS | SCHED_VOL_CSINODE | SCHED_VOL_CSIDRIVER |
			  SCHED_VOL_VOLUME_ATTACHMENT },
		{ { .name = "Custom", FW_EVENTS(ev_csinode) }, SCHED_VOL_CSINODE },
		{ { .name = "Custom", FW_EVENTS(ev_va_csc) }, SCHED_VOL_VOLUME_ATTACHMENT | SCHED_VOL_CSI_STORAGE_CAPACITY },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (sched_volume_kinds_of(&t[i].p) != t[i].want)
			fail_msg("case %zu (%s): 0x%x, want 0x%x", i, t[i].p.name, sched_volume_kinds_of(&t[i].p), t[i].want);
	/* a profile running no volume plugin: no informer, the caches are synced without them */
	static const char *yaml =
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		"- schedulerName: csched\n  plugins:\n    multiPoint:\n      disabled:\n      - name: '*'\n"
		"      enabled:\n      - name: PrioritySort\n      - name: DefaultBinder\n      - name: NodeName\n";
	struct err e = { 0 };
	struct api_config acfg = { 0 };
	acfg.server = strdup("http://127.0.0.1:1"); /* never contacted */
	assert_int_equal(api_global_init(&e), 0);
	struct api_client *client = api_client_new(&acfg, &e);
	assert_non_null(client);
	struct config cfg;
	memset(&cfg, 0, sizeof(cfg));
	if (config_load_buffer(&cfg, fw_registry(), "t.yaml", yaml, strlen(yaml), &e) < 0)
		fail_msg("%s", e.msg);
	struct sched_options o = { .cfg = &cfg, .client = client, .binders = 1 };
	struct scheduler *s = sched_new(&o, &e);
	if (!s)
		fail_msg("sched_new: %s", e.msg);
	assert_int_equal(sched_volume_kinds(s), 0);
	assert_null(s->volumes);
	assert_true(sched_volumes_synced(s->volumes));
	assert_null(sched_pv_lister(s, "a"));
	sched_free(s);
	config_free(&cfg);
	api_client_free(client);
}

/* ---------- DynamicResources' listers (scheduler/dra.c) ---------- */

#define CLAIM_JSON(name, rv) \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ns\",\"uid\":\"uid-" name "\",\"resourceVersion\":\"" rv "\"}," \
	"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}}}"
#define SLICE_JSON(name, rv, pool, dev) \
	"{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\"},\"spec\":{\"driver\":\"gpu.example.com\"," \
	"\"pool\":{\"name\":\"" pool "\",\"generation\":1,\"resourceSliceCount\":1},\"nodeName\":\"n1\"," \
	"\"devices\":[{\"name\":\"" dev "\"}]}}"
#define RULE_JSON(name, rv, selector) \
	"{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\"},\"spec\":{\"deviceSelector\":" selector "," \
	"\"taint\":{\"key\":\"k\",\"effect\":\"NoSchedule\"}}}"

static int claim_visit(void *arg, const struct api_resource_claim *c)
{
	struct names *s = arg;
	if (s->n < 8)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%s", c->meta.name);
	s->n++;
	return s->n == s->stop_at ? 9 : 0;
}

static int slice_visit(void *arg, const struct api_resource_slice *sl)
{
	struct names *s = arg;
	if (s->n < 8)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%s", sl->meta.name);
	s->n++;
	return s->n == s->stop_at ? 9 : 0;
}

static int class_visit(void *arg, const struct api_device_class *c)
{
	struct names *s = arg;
	if (s->n < 8)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%s", c->meta.name);
	s->n++;
	return s->n == s->stop_at ? 9 : 0;
}

static int rule_visit(void *arg, const struct api_device_taint_rule *r)
{
	struct names *s = arg;
	if (s->n < 8)
		snprintf(s->got[s->n], sizeof(s->got[0]), "%s", r->meta.name);
	s->n++;
	return s->n == s->stop_at ? 9 : 0;
}

/* A claim sink's record: "+name/rv" for an add, "~name/old rv>new rv" for an update, "-name/rv"
 * for a delete, concatenated. */
static void sink_record(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj)
{
	char *log = arg, one[64];
	if (!old)
		snprintf(one, sizeof(one), "+%s/%s ", new_obj->meta.name, new_obj->meta.resource_version);
	else if (new_obj)
		snprintf(one, sizeof(one), "~%s/%s>%s ", new_obj->meta.name, old->meta.resource_version,
			 new_obj->meta.resource_version);
	else
		snprintf(one, sizeof(one), "-%s/%s ", old->meta.name, old->meta.resource_version);
	strncat(log, one, 255 - strlen(log));
}

/* The four listers answer from their informers' stores; without the informers (no plugin needs
 * them) they answer nothing. */
static void test_dra_listers(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	struct names s = { 0 };
	/* the default profile does not run DynamicResources yet (NOT_YET in the registry) */
	struct sched_dra *keep = f->s->dra;
	f->s->dra = NULL;
	assert_null(sched_resource_claim_lister(f->s, "ns", "a"));
	assert_null(sched_device_class_lister(f->s, "gpu"));
	assert_int_equal(sched_resource_claim_each(f->s, claim_visit, &s), 0);
	assert_int_equal(sched_resource_slice_each(f->s, slice_visit, &s), 0);
	assert_int_equal(sched_device_class_each(f->s, class_visit, &s), 0);
	assert_int_equal(sched_device_taint_rule_each(f->s, rule_visit, &s), 0);
	assert_int_equal(s.n, 0);
	assert_true(sched_dra_synced(NULL));
	sched_dra_free(keep);

	f->s->dra = sched_dra_new(f->client, SCHED_DRA_ALL, NULL, &e);
	if (!f->s->dra)
		fail_msg("sched_dra_new: %s", e.msg);
	struct sched_dra *d = f->s->dra;
	/* the claim handlers call the sinks (DynamicResources' tracker) with each event */
	char log[256] = "";
	const struct sched_claim_sink sinks[] = { { sink_record, log } };
	sched_dra_set_claim_sinks(d, sinks, 1);
	assert_false(sched_dra_synced(d)); /* never listed */
	event(sched_dra_informer(d, API_KIND_RESOURCE_CLAIM), "ADDED", CLAIM_JSON("a", "1"));
	event(sched_dra_informer(d, API_KIND_RESOURCE_CLAIM), "ADDED", CLAIM_JSON("b", "2"));
	event(sched_dra_informer(d, API_KIND_RESOURCE_CLAIM), "MODIFIED", CLAIM_JSON("a", "3"));
	event(sched_dra_informer(d, API_KIND_RESOURCE_SLICE), "ADDED", SLICE_JSON("s1", "4", "p1", "gpu-0"));
	event(sched_dra_informer(d, API_KIND_DEVICE_CLASS), "ADDED",
	      "{\"metadata\":{\"name\":\"gpu\",\"resourceVersion\":\"5\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":\"true\"}}]}}");
	event(sched_dra_informer(d, API_KIND_DEVICE_TAINT_RULE), "ADDED", RULE_JSON("r", "6", "{\"pool\":\"p1\"}"));

	struct api_resource_claim *c = sched_resource_claim_lister(f->s, "ns", "a");
	assert_non_null(c);
	assert_string_equal(c->meta.resource_version, "3");
	assert_ptr_equal(c->requests[0].exactly->device_class_name, intern_str("gpu"));
	api_resource_claim_unref(c);
	assert_null(sched_resource_claim_lister(f->s, "other", "a"));
	assert_null(sched_resource_claim_lister(f->s, "ns", NULL));
	struct api_device_class *dc = sched_device_class_lister(f->s, "gpu");
	assert_non_null(dc);
	assert_string_equal(dc->selectors[0], "true");
	api_device_class_unref(dc);
	assert_null(sched_device_class_lister(f->s, "cpu"));

	s = (struct names){ 0 };
	assert_int_equal(sched_resource_claim_each(f->s, claim_visit, &s), 0);
	assert_int_equal(s.n, 2);
	assert_true(has_name(&s, "a") && has_name(&s, "b"));
	s = (struct names){ .stop_at = 1 };
	assert_int_equal(sched_resource_claim_each(f->s, claim_visit, &s), 9); /* the first non-zero answer */
	assert_int_equal(s.n, 1);
	s = (struct names){ 0 };
	assert_int_equal(sched_resource_slice_each(f->s, slice_visit, &s), 0);
	assert_int_equal(s.n, 1);
	assert_true(has_name(&s, "s1"));
	s = (struct names){ 0 };
	assert_int_equal(sched_device_class_each(f->s, class_visit, &s), 0);
	assert_true(s.n == 1 && has_name(&s, "gpu"));
	s = (struct names){ 0 };
	assert_int_equal(sched_device_taint_rule_each(f->s, rule_visit, &s), 0);
	assert_true(s.n == 1 && has_name(&s, "r"));

	event(sched_dra_informer(d, API_KIND_RESOURCE_CLAIM), "DELETED", CLAIM_JSON("a", "7"));
	assert_null(sched_resource_claim_lister(f->s, "ns", "a"));
	assert_string_equal(log, "+a/1 +b/2 ~a/1>3 -a/7 ");
	/* the scheduler's informers exist: a profile built now (the explainer's) gets no sink */
	assert_true(f->s->claim_sinks_closed);
	assert_int_equal(sched_resource_claim_sink(f->s, sink_record, log), 1);
	sched_dra_set_claim_sinks(d, NULL, 0); /* sinks[] ends with this function */
	s = (struct names){ 0 };
	assert_int_equal(sched_resource_claim_each(f->s, claim_visit, &s), 0);
	assert_true(s.n == 1 && has_name(&s, "b"));

	/* the framework's listers are these (sched_fw_profile_options) */
	struct fw_profile_options po;
	sched_fw_profile_options(f->s, &po);
	assert_ptr_equal(po.listers.resource_claim, sched_resource_claim_lister);
	assert_ptr_equal(po.listers.resource_claim_each, sched_resource_claim_each);
	assert_ptr_equal(po.listers.resource_claim_sink, sched_resource_claim_sink);
	assert_ptr_equal(po.listers.resource_slice_each, sched_resource_slice_each);
	assert_ptr_equal(po.listers.device_class, sched_device_class_lister);
	assert_ptr_equal(po.listers.device_class_each, sched_device_class_each);
	assert_ptr_equal(po.listers.device_taint_rule_each, sched_device_taint_rule_each);
}

/* csched simulate: a dump's items of the four kinds go into their stores, other kinds are skipped. */
static void test_dra_load(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	static const char dump[] =
		"{\"kind\":\"List\",\"items\":["
		"{\"kind\":\"DeviceClass\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":\"gpu\"},\"spec\":{}},"
		"{\"kind\":\"ResourceClaim\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},"
		"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}}},"
		"{\"kind\":\"ResourceSlice\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":\"s\"},"
		"\"spec\":{\"driver\":\"d\",\"pool\":{\"name\":\"p\"},\"nodeName\":\"n1\",\"devices\":[{\"name\":\"x\"}]}},"
		"{\"kind\":\"DeviceTaintRule\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":{\"name\":\"t\"},"
		"\"spec\":{\"taint\":{\"key\":\"k\",\"effect\":\"NoSchedule\"}}},"
		"{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n1\"}}]}";
	sched_dra_free(f->s->dra);
	f->s->dra = NULL;
	assert_int_equal(sched_dra_load(NULL, dump, strlen(dump), &e), 0); /* nothing needed: nothing loaded */
	f->s->dra = sched_dra_new(f->client, SCHED_DRA_ALL, NULL, &e);
	assert_non_null(f->s->dra);
	if (sched_dra_load(f->s->dra, dump, strlen(dump), &e))
		fail_msg("%s", e.msg);
	assert_true(sched_dra_synced(f->s->dra));
	struct api_resource_claim *c = sched_resource_claim_lister(f->s, "ns", "c");
	assert_non_null(c);
	api_resource_claim_unref(c);
	struct api_device_class *dc = sched_device_class_lister(f->s, "gpu");
	assert_non_null(dc);
	api_device_class_unref(dc);
	struct names s = { 0 };
	assert_int_equal(sched_resource_slice_each(f->s, slice_visit, &s), 0);
	assert_true(s.n == 1 && has_name(&s, "s"));
	s = (struct names){ 0 };
	assert_int_equal(sched_device_taint_rule_each(f->s, rule_visit, &s), 0);
	assert_true(s.n == 1 && has_name(&s, "t"));
	e = (struct err){ 0 };
	assert_int_equal(sched_dra_load(f->s->dra, "{", 1, &e), ERR_INVALID);
}

static const uint32_t r_claim = QUEUE_RES_RESOURCE_CLAIM, r_slice = QUEUE_RES_RESOURCE_SLICE,
		      r_class = QUEUE_RES_DEVICE_CLASS;

static const char *dra_name(uint32_t res, const void *o)
{
	if (!o)
		return "-";
	return res == QUEUE_RES_RESOURCE_CLAIM ? ((const struct api_resource_claim *)o)->meta.name
	       : res == QUEUE_RES_RESOURCE_SLICE ? ((const struct api_resource_slice *)o)->meta.name
						 : ((const struct api_device_class *)o)->meta.name;
}

static enum queue_hint dra_hint_record(const void *plugin, const struct api_pod *pod, const void *old_obj,
				       const void *new_obj)
{
	(void)pod;
	uint32_t res = *(const uint32_t *)plugin;
	if (n_hint_log < 16)
		snprintf(hint_log[n_hint_log++], sizeof(hint_log[0]), "%u %s->%s", res, dra_name(res, old_obj),
			 dra_name(res, new_obj));
	return QUEUE_HINT_SKIP;
}

/* The handlers send ResourceClaim, ResourceSlice and DeviceClass events with the typed objects;
 * a DeviceTaintRule event is an update of each slice its selector names (upstream's
 * ResourceSliceTracker reports the slices it patches). */
static void test_dra_events(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	static const struct queue_hint_reg regs[] = {
		{ "DRA", { QUEUE_RES_RESOURCE_CLAIM, QUEUE_ACT_ALL, NULL }, dra_hint_record, &r_claim },
		{ "DRA", { QUEUE_RES_RESOURCE_SLICE, QUEUE_ACT_ALL, NULL }, dra_hint_record, &r_slice },
		{ "DRA", { QUEUE_RES_DEVICE_CLASS, QUEUE_ACT_ALL, NULL }, dra_hint_record, &r_class },
	};
	static const struct queue_profile prof = { "default-scheduler", regs, sizeof(regs) / sizeof(regs[0]), NULL, NULL };
	struct queue_options qo = { .profiles = &prof, .n_profiles = 1 };
	struct queue *q = queue_new(&qo, &e);
	assert_non_null(q);
	struct sched_dra *d = sched_dra_new(f->client, SCHED_DRA_ALL, q, &e);
	assert_non_null(d);
	static const char *pod_json =
		"{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"uid-p\",\"resourceVersion\":\"1\"},"
		"\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
	struct api_pod *pod = api_pod_decode_json(pod_json, strlen(pod_json), &e);
	assert_non_null(pod);
	assert_int_equal(queue_add(q, pod, &e), 0);
	api_pod_unref(pod);
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(q, &qpi), 0);
	static const char *const rejectors[] = { "DRA" };
	struct queue_failure fl = { rejectors, 1, NULL, 0 };
	assert_int_equal(queue_add_unschedulable_if_not_present(q, qpi, &fl, &e), 0);

	n_hint_log = 0;
	struct api_informer *claims = sched_dra_informer(d, API_KIND_RESOURCE_CLAIM),
			    *slices = sched_dra_informer(d, API_KIND_RESOURCE_SLICE),
			    *classes = sched_dra_informer(d, API_KIND_DEVICE_CLASS),
			    *rules = sched_dra_informer(d, API_KIND_DEVICE_TAINT_RULE);
	event(claims, "ADDED", CLAIM_JSON("a", "1"));
	event(claims, "MODIFIED", CLAIM_JSON("a", "2"));
	event(claims, "DELETED", CLAIM_JSON("a", "3"));
	event(slices, "ADDED", SLICE_JSON("s1", "4", "p1", "gpu-0"));
	event(slices, "ADDED", SLICE_JSON("s2", "5", "p2", "gpu-1"));
	event(classes, "ADDED", "{\"metadata\":{\"name\":\"gpu\",\"resourceVersion\":\"6\"}}");
	event(classes, "MODIFIED", "{\"metadata\":{\"name\":\"gpu\",\"resourceVersion\":\"7\"}}");
	int before_rules = n_hint_log;
	event(rules, "ADDED", RULE_JSON("r", "8", "{\"pool\":\"p2\"}"));          /* s2 */
	event(rules, "MODIFIED", RULE_JSON("r", "9", "{\"device\":\"gpu-0\"}"));   /* s2 (old), s1 (new) */
	event(rules, "DELETED", RULE_JSON("r", "10", "{\"device\":\"gpu-0\"}"));   /* s1 */
	event(rules, "ADDED", RULE_JSON("r2", "11", "{\"driver\":\"other\"}"));    /* none */
	event(rules, "ADDED", RULE_JSON("r3", "12", "{}"));                           /* every slice */
	char want[13][48];
	int n = 0;
	snprintf(want[n++], 48, "%u -->a", r_claim);
	snprintf(want[n++], 48, "%u a->a", r_claim);
	snprintf(want[n++], 48, "%u a->-", r_claim);
	snprintf(want[n++], 48, "%u -->s1", r_slice);
	snprintf(want[n++], 48, "%u -->s2", r_slice);
	snprintf(want[n++], 48, "%u -->gpu", r_class);
	snprintf(want[n++], 48, "%u gpu->gpu", r_class);
	assert_int_equal(before_rules, n);
	snprintf(want[n++], 48, "%u s2->s2", r_slice);
	snprintf(want[n++], 48, "%u s2->s2", r_slice);
	snprintf(want[n++], 48, "%u s1->s1", r_slice);
	snprintf(want[n++], 48, "%u s1->s1", r_slice);
	int rest = n; /* r3 selects both slices, in the store's order */
	n += 2;
	assert_int_equal(n_hint_log, n);
	for (int i = 0; i < rest; i++)
		assert_string_equal(hint_log[i], want[i]);
	char a[48], b[48];
	snprintf(a, 48, "%u s1->s1", r_slice);
	snprintf(b, 48, "%u s2->s2", r_slice);
	assert_true((!strcmp(hint_log[rest], a) && !strcmp(hint_log[rest + 1], b)) ||
		    (!strcmp(hint_log[rest], b) && !strcmp(hint_log[rest + 1], a)));

	/* a pod in flight records the events with references on their objects (the queue's
	 * obj_ref by resource), dropped when its attempt is done (valgrind and ASan check both) */
	static const char *pod2_json =
		"{\"metadata\":{\"name\":\"p2\",\"namespace\":\"default\",\"uid\":\"uid-p2\",\"resourceVersion\":\"1\"},"
		"\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
	pod = api_pod_decode_json(pod2_json, strlen(pod2_json), &e);
	assert_non_null(pod);
	assert_int_equal(queue_add(q, pod, &e), 0);
	api_pod_unref(pod);
	assert_int_equal(queue_try_pop(q, &qpi), 0);
	struct queue_counts qc;
	queue_counts(q, &qc);
	uint32_t before = qc.in_flight_events;
	event(claims, "ADDED", CLAIM_JSON("z", "13"));
	event(slices, "MODIFIED", SLICE_JSON("s1", "14", "p1", "gpu-0"));
	event(classes, "DELETED", "{\"metadata\":{\"name\":\"gpu\",\"resourceVersion\":\"15\"}}");
	queue_counts(q, &qc);
	assert_int_equal(qc.in_flight_events, before + 3);
	sched_dra_free(d); /* the stores' references go; the in-flight events keep theirs */
	queue_done(q, "uid-p2");
	queue_pod_info_free(qpi);
	queue_free(q);
}

/* The kinds each plugin needs: all four for DynamicResources, else the kinds of its events; a
 * profile without them creates no informer. */
static void test_dra_kinds(void **state)
{
	(void)state;
	static const struct queue_event_hint ev_claim[] = { { { QUEUE_RES_RESOURCE_CLAIM, QUEUE_ACT_ADD, NULL }, NULL } };
	static const struct queue_event_hint ev_slice_class[] = {
		{ { QUEUE_RES_RESOURCE_SLICE, QUEUE_ACT_ADD, NULL }, NULL },
		{ { QUEUE_RES_DEVICE_CLASS, QUEUE_ACT_UPDATE, NULL }, NULL },
	};
	static const struct queue_event_hint ev_node[] = { { { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL }, NULL } };
	static const struct {
		struct fw_plugin p;
		unsigned want;
	} t[] = {
		{ { .name = "DynamicResources" }, SCHED_DRA_ALL },
		{ { .name = "NodeResourcesFit", FW_EVENTS(ev_node) }, 0 },
		{ { .name = "VolumeBinding" }, 0 },
		{ { .name = "Custom", FW_EVENTS(ev_claim) }, SCHED_DRA_RESOURCE_CLAIM },
		{ { .name = "Custom", FW_EVENTS(ev_slice_class) }, SCHED_DRA_RESOURCE_SLICE | SCHED_DRA_DEVICE_CLASS },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (sched_dra_kinds_of(&t[i].p) != t[i].want)
			fail_msg("case %zu (%s): 0x%x, want 0x%x", i, t[i].p.name, sched_dra_kinds_of(&t[i].p), t[i].want);
	assert_int_equal(SCHED_DRA_ALL, 0xf);
	struct err e = { 0 };
	struct api_config acfg = { 0 };
	acfg.server = strdup("http://127.0.0.1:1"); /* never contacted */
	assert_int_equal(api_global_init(&e), 0);
	struct api_client *client = api_client_new(&acfg, &e);
	assert_non_null(client);
	struct sched_options o = { .client = client, .binders = 1 };
	struct scheduler *s = sched_new(&o, &e);
	if (!s)
		fail_msg("sched_new: %s", e.msg);
	/* the default profile: DynamicResources when the registry runs it, nothing otherwise */
	unsigned kinds = sched_dra_kinds(s);
	assert_true(kinds == 0 || kinds == SCHED_DRA_ALL);
	assert_true((kinds != 0) == (s->dra != NULL));
	assert_true((kinds != 0) == (sched_dra_informer(s->dra, API_KIND_DEVICE_TAINT_RULE) != NULL));
	sched_free(s);
	/* without DynamicResources: NodeResourcesFit's DeviceClass events only, unless it or
	 * BalancedAllocation scores a resource name DRA may back, whose devices it then counts
	 * (upstream's DRA manager informs claims and slices whatever the profile runs) */
	static const char *const disabled = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
					    "profiles:\n- schedulerName: csched\n  plugins:\n    multiPoint:\n      disabled:\n"
					    "      - name: DynamicResources\n";
	static const struct {
		const char *args;
		unsigned want;
	} c[] = {
		{ "", SCHED_DRA_DEVICE_CLASS },
		{ "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: LeastAllocated\n"
		  "        resources:\n        - name: cpu\n          weight: 1\n        - name: example.com/gpu\n          weight: 1\n",
		  SCHED_DRA_DEVICE_CLASS | SCHED_DRA_RESOURCE_CLAIM | SCHED_DRA_RESOURCE_SLICE },
		{ "  pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n"
		  "      - name: deviceclass.resource.kubernetes.io/gpu\n        weight: 1\n",
		  SCHED_DRA_DEVICE_CLASS | SCHED_DRA_RESOURCE_CLAIM | SCHED_DRA_RESOURCE_SLICE },
		{ "  pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n"
		  "      - name: cpu\n        weight: 1\n      - name: hugepages-2Mi\n        weight: 1\n",
		  SCHED_DRA_DEVICE_CLASS },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char yaml[1024];
		snprintf(yaml, sizeof(yaml), "%s%s", disabled, c[i].args);
		struct config cfg;
		memset(&cfg, 0, sizeof(cfg));
		if (config_load_buffer(&cfg, fw_registry(), "t.yaml", yaml, strlen(yaml), &e) < 0)
			fail_msg("config %zu: %s", i, e.msg);
		struct sched_options oc = { .cfg = &cfg, .client = client, .binders = 1 };
		if (!(s = sched_new(&oc, &e)))
			fail_msg("config %zu: sched_new: %s", i, e.msg);
		if (sched_dra_kinds(s) != c[i].want)
			fail_msg("config %zu: kinds 0x%x, want 0x%x", i, sched_dra_kinds(s), c[i].want);
		sched_free(s);
		config_free(&cfg);
	}
	api_client_free(client);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pod_lister, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdb_each, setup, teardown),
		cmocka_unit_test(test_pdb_informer_only_with_postfilter),
		cmocka_unit_test_setup_teardown(test_pv_listers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_storage_listers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_volume_events, setup, teardown),
		cmocka_unit_test(test_volume_kinds),
		cmocka_unit_test_setup_teardown(test_dra_listers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dra_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dra_load, setup, teardown),
		cmocka_unit_test(test_dra_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
