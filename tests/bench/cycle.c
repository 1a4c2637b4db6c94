/* In-process benchmark of the scheduling cycle alone (no API server): a cache of N nodes (upstream's
 * node-default template), the default plugins, and P pods (pod-default) scheduled one after the
 * other the way the scheduler thread does it: refresh the snapshot, fw_schedule_pod, assume the pod
 * on the chosen host. Reports pods/s and the p50/p99 of one cycle, then a per-extension-point,
 * per-plugin breakdown measured single-threaded on a sample of pods (each plugin run over the nodes
 * the cycle examined, timed per plugin).
 *
 * Usage: bench_cycle [--nodes 5000] [--pods 5000] [--parallelism 16] [--pct 0]
 *                    [--breakdown-pods 300] [--json FILE] [--dump-decisions FILE] [--mixed]
 *                    [--workload SPEC.json] [--churn-interval-ms MS]
 *
 * --workload takes a workload of tests/bench/workloads rendered by tests/bench/cycle_spec.py: its
 * nodes (zone labels included), namespaces and Services (served to the plugins through the
 * profile's listers) and pod templates. Its initial pods are scheduled and assumed first, untimed;
 * the measured op's pods are timed (--nodes and --pods are then ignored), and the breakdown runs
 * more pods of the measured template.
 *
 * A pod that does not fit goes on as the scheduler thread's failure handling does: PostFilter
 * (DefaultPreemption: the dry run and the choice of a node), then, when it nominated a node, the
 * victims leave the cache (as their deletion would make them) and the pod is scheduled again, all
 * timed as that pod's cycle: PreemptionBasic's figure is preemptors placed per second.
 *
 * A churn op in mode create with a pod template (PreemptionAsync's preemptors) creates one pod
 * every intervalMs of the measured loop's timed clock, as upstream's ticker does on the wall clock
 * (a tick missed while a cycle runs is dropped, as Go's ticker drops it): its cycle, preemption
 * included, is timed with the loop, but only the measured pods count in pods/s, as upstream's
 * throughput counts only the measured op's namespace. --churn-interval-ms overrides the interval: a
 * cycle loop runs ~50x faster than upstream's CI floor, so at 200 ms it sees a preemptor or two,
 * where the scheduler held to the floor's rate would see one every ~114 pods.
 *
 * DRA workloads (resource.k8s.io objects in the spec: DeviceClasses, ResourceSlices, ResourceClaims,
 * and per pod op the claim the resourceclaim controller would generate for each pod) are served
 * through the profile's DRA listers from an in-memory store, and each placed pod goes on as the
 * scheduler does it: Reserve (DynamicResources records the in-flight allocation; timed, it is
 * part of the scheduling cycle), then PreBind, whose claim writes (fw_dra_ops) the store applies
 * as the server and the informer would (not timed: the binding cycle runs on another thread in
 * the scheduler). A pod's generated claim is added to the store before its cycle, and for a
 * steadyState op the pod and its claim are deleted once it is placed (upstream's
 * createPodsSteadily and the controller), both untimed: the controller's work, not the
 * scheduler's.
 *
 * --mixed replaces the uniform nodes and pods by varied ones (zones, sizes, images, taints,
 * tolerations, an extended resource, best-effort pods), to compare decisions across builds on
 * inputs where every default plugin matters.
 *
 * --dump-decisions writes one line per pod: its name, the chosen node (or "-"), and the numbers of
 * evaluated and feasible nodes, so that two builds can be compared with diff (ties resolve as
 * upstream's heap of scored nodes does, without randomness; with parallelism 1 the outcome is
 * deterministic).
 *
 * White-box: it includes algorithm/framework_internal.h to drive plugins one at a time for the
 * breakdown (the same plugin instances, cycle state and node list fw_schedule_pod uses). */
#include <inttypes.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithm/framework.h"
#include "algorithm/framework_internal.h"
#include "cache/cache.h"
#include "cache/snapshot.h"
#include "common/err.h"
#include "common/intern.h"
#include "common/map.h"
#include "apiclient/api_client.h"
#include "testobj.h"

#include <yajl/yajl_tree.h>

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* upstream's percentile index on sorted samples: ceil(n*p/100)-1. */
static int64_t pct_of(const int64_t *sorted, size_t n, double p)
{
	if (!n)
		return 0;
	size_t i = (size_t)ceil((double)n * p / 100.0);
	return sorted[i ? i - 1 : 0];
}

static int noop_bind(void *ctx, const struct api_pod *pod, const char *node_name, struct err *e)
{
	(void)ctx, (void)pod, (void)node_name, (void)e;
	return 0;
}

static struct api_node *make_node(int i, bool mixed)
{
	char name[32], uid[32], labels[128], alloc[128], images[512];
	snprintf(name, sizeof(name), "node-%d", i);
	snprintf(uid, sizeof(uid), "node-uid-%d", i);
	if (!mixed) {
		snprintf(labels, sizeof(labels), "kubernetes.io/hostname=%s", name);
		return TOBJ_NODE(.name = name, .uid = uid, .labels = labels, .cap = "pods=110,cpu=4,memory=32Gi",
				 .alloc = "pods=110,cpu=4,memory=32Gi", .ready = true);
	}
	/* --mixed: three zones, four sizes, images spread unevenly (tagged, untagged, several names
	 * per image), PreferNoSchedule and NoSchedule taints, an extended resource on some nodes */
	int cpu = 2 + (i % 4) * 2, mem_gi = 8 * (1 + i % 3), pods = i % 9 == 0 ? 20 : 110;
	bool gpu = i % 13 == 0, pref = i % 10 == 0;
	snprintf(labels, sizeof(labels), "kubernetes.io/hostname=%s,topology.kubernetes.io/zone=zone-%d", name, i % 3);
	snprintf(alloc, sizeof(alloc), "pods=%d,cpu=%d,memory=%dGi%s", pods, cpu, mem_gi, gpu ? ",example.com/gpu=4" : "");
	int k = snprintf(images, sizeof(images), "registry.k8s.io/pause:3.10=736000");
	if (i % 2 == 0)
		k += snprintf(images + k, sizeof(images) - (size_t)k, ",docker.io/library/nginx:1.25|nginx:1.25=%d",
			      60000000 + (i % 7) * 1000000);
	if (i % 5 == 0)
		k += snprintf(images + k, sizeof(images) - (size_t)k, ",busybox=5000000");
	if (i % 7 == 0)
		snprintf(images + k, sizeof(images) - (size_t)k, ",example.com/big/img:v1|example.com/big/img=500000000");
	const char *taints = pref && gpu ? "pref=x:PreferNoSchedule,dedicated=gpu:NoSchedule"
			     : pref	 ? "pref=x:PreferNoSchedule"
			     : gpu	 ? "dedicated=gpu:NoSchedule"
				         : NULL;
	return TOBJ_NODE(.name = name, .uid = uid, .labels = labels, .cap = alloc, .alloc = alloc, .taints = taints,
			 .images = images, .ready = true);
}

static struct api_pod *make_pod(int i, bool mixed)
{
	char name[32], uid[32], req[128];
	snprintf(name, sizeof(name), "pod-%d", i);
	snprintf(uid, sizeof(uid), "pod-uid-%d", i);
	if (!mixed)
		return TOBJ_POD(.name = name, .ns = "bench", .uid = uid, .scheduler = "csched",
				.containers = { { .name = "pause", .image = "registry.k8s.io/pause:3.10", .ports = "0:80",
						  .lim = "cpu=100m,memory=500Mi", .req = "cpu=100m,memory=500Mi" } });
	/* --mixed: varied requests (some best-effort, some with an extended resource), images that
	 * nodes have or not, with and without tags, init containers, tolerations */
	static const char *const image_of[] = { "registry.k8s.io/pause:3.10", "nginx:1.25", "busybox",
						"example.com/big/img", "docker.io/library/nginx:1.25" };
	bool gpu = i % 17 == 0, pref = i % 3 == 0;
	snprintf(req, sizeof(req), "cpu=%dm,memory=%dMi%s", 100 + (i % 5) * 100, 200 + (i % 6) * 300,
		 gpu ? ",example.com/gpu=1" : "");
	const char *tolerations = pref && gpu ? "pref:PreferNoSchedule,dedicated=gpu:NoSchedule"
				  : pref      ? "pref:PreferNoSchedule"
				  : gpu	      ? "dedicated=gpu:NoSchedule"
					      : NULL;
	return TOBJ_POD(.name = name, .ns = "bench", .uid = uid, .scheduler = "csched",
			.inits = { { .name = i % 4 == 1 ? "init" : NULL, .image = i % 4 == 1 ? "busybox" : NULL } },
			.containers = { { .name = "app", .image = image_of[i % 5], .req = i % 11 ? req : NULL },
					{ .name = i % 6 == 0 ? "side" : NULL,
					  .image = i % 6 == 0 ? "example.com/big/img:v1" : NULL } },
			.tolerations = tolerations);
}

/* ---------- per-plugin breakdown ---------- */

#define MAX_ROWS (CFG_EP_COUNT * FW_MAX_PLUGINS)

struct row {
	const char *point, *plugin;
	int64_t ns;
};

struct breakdown {
	struct row rows[MAX_ROWS];
	size_t n;
	uint64_t pods;
};

static struct row *row_of(struct breakdown *b, const char *point, const char *plugin)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].point == point && strcmp(b->rows[i].plugin, plugin) == 0)
			return &b->rows[i];
	if (b->n == MAX_ROWS)
		return &b->rows[MAX_ROWS - 1];
	b->rows[b->n] = (struct row){ point, plugin, 0 };
	return &b->rows[b->n++];
}

/* One pod's pass through the breakdown: what each point leaves for the next. */
struct bd_pod {
	struct breakdown *b;
	struct fw_profile *p;
	struct fw_cycle *c;
	const struct api_pod *pod;
	bool skip_f[FW_MAX_PLUGINS], skip_s[FW_MAX_PLUGINS];
	const struct node_info **examined, **feasible; /* list->n entries each */
	struct fw_node_score *scores;
	uint32_t n_ex, n_feas;
};

static void bd_add(struct bd_pod *d, const char *point, const struct fw_pl *pl, int64_t since)
{
	row_of(d->b, point, pl->plugin->name)->ns += now_ns() - since;
}

static int bd_pre_filter(struct bd_pod *d, struct err *e)
{
	uint32_t n_pl;
	const struct fw_pl *const *pls = fw_profile_plugins(d->p, CFG_EP_PRE_FILTER, &n_pl);
	for (uint32_t i = 0; i < n_pl; i++) {
		struct fw_node_names names = { .all = true };
		struct fw_status st;
		fw_status_reset(&st);
		int64_t t = now_ns();
		enum fw_code code = pls[i]->plugin->pre_filter(pls[i], d->c, d->pod, &names, &st);
		bd_add(d, "PreFilter", pls[i], t);
		if (code == FW_SKIP)
			d->skip_f[pls[i]->index] = true;
		else if (code != FW_SUCCESS)
			return err_set(e, ERR_INVALID, "breakdown: PreFilter %s rejected the pod", pls[i]->plugin->name);
	}
	return 0;
}

static bool bd_node_fits(struct bd_pod *d, const struct fw_pl *const *pls, uint32_t n_pl, const struct node_info *ni)
{
	for (uint32_t i = 0; i < n_pl; i++) {
		struct fw_status st;
		if (d->skip_f[pls[i]->index])
			continue;
		fw_status_reset(&st);
		if (pls[i]->plugin->filter(pls[i], d->c, d->pod, ni, &st) != FW_SUCCESS)
			return false;
	}
	return true;
}

/* Which nodes the generic algorithm examines (from a rotating start until enough feasible nodes
 * are found) and which pass; then each plugin's Filter time over the examined nodes (a second,
 * timed pass per plugin). */
static void bd_filter(struct bd_pod *d, const struct fw_node_list *list, uint32_t *start, int32_t pct)
{
	uint32_t n_pl, n = list->n, want = fw_num_feasible_nodes_to_find(pct, n);
	const struct fw_pl *const *pls = fw_profile_plugins(d->p, CFG_EP_FILTER, &n_pl);
	for (uint32_t k = 0; k < n && d->n_feas < want; k++) {
		const struct node_info *ni = list->nodes[(*start + k) % n];
		d->examined[d->n_ex++] = ni;
		if (bd_node_fits(d, pls, n_pl, ni))
			d->feasible[d->n_feas++] = ni;
	}
	*start = n ? (*start + d->n_ex) % n : 0;
	for (uint32_t i = 0; i < n_pl; i++) {
		if (d->skip_f[pls[i]->index])
			continue;
		int64_t t = now_ns();
		for (uint32_t k = 0; k < d->n_ex; k++) {
			struct fw_status st;
			fw_status_reset(&st);
			(void)pls[i]->plugin->filter(pls[i], d->c, d->pod, d->examined[k], &st);
		}
		bd_add(d, "Filter", pls[i], t);
	}
}

/* One plugin's Score over the feasible nodes, then its NormalizeScore. */
static void bd_score_one(struct bd_pod *d, const struct fw_pl *pl)
{
	struct fw_status st;
	int64_t t = now_ns();
	/* as the cycle does: a plugin's per-pod preparation, which may skip its Score (counted
	 * in its Score row) */
	fw_pre_score_fn prepare = fw_score_prepare_of(pl->plugin);
	if (prepare) {
		fw_status_reset(&st);
		if (prepare(pl, d->c, d->pod, d->feasible, d->n_feas, &st) == FW_SKIP) {
			bd_add(d, "Score", pl, t);
			return;
		}
	}
	for (uint32_t k = 0; k < d->n_feas; k++) {
		fw_status_reset(&st);
		d->scores[k].ni = d->feasible[k];
		d->scores[k].score = 0;
		(void)pl->plugin->score(pl, d->c, d->pod, d->feasible[k], &d->scores[k].score, &st);
	}
	bd_add(d, "Score", pl, t);
	if (pl->plugin->normalize_score) {
		fw_status_reset(&st);
		t = now_ns();
		(void)pl->plugin->normalize_score(pl, d->c, d->pod, d->scores, d->n_feas, &st);
		bd_add(d, "NormalizeScore", pl, t);
	}
}

static void bd_score(struct bd_pod *d)
{
	uint32_t n_pl;
	const struct fw_pl *const *pls = fw_profile_plugins(d->p, CFG_EP_PRE_SCORE, &n_pl);
	for (uint32_t i = 0; i < n_pl; i++) {
		struct fw_status st;
		fw_status_reset(&st);
		int64_t t = now_ns();
		enum fw_code code = pls[i]->plugin->pre_score(pls[i], d->c, d->pod, d->feasible, d->n_feas, &st);
		bd_add(d, "PreScore", pls[i], t);
		if (code == FW_SKIP)
			d->skip_s[pls[i]->index] = true;
	}
	pls = fw_profile_plugins(d->p, CFG_EP_SCORE, &n_pl);
	for (uint32_t i = 0; i < n_pl; i++)
		if (!d->skip_s[pls[i]->index])
			bd_score_one(d, pls[i]);
}

/* Runs the cycle of pod plugin by plugin, single-threaded, timing each plugin at each point:
 * PreFilter, Filter (over the nodes the generic algorithm examines), PreScore, Score and
 * NormalizeScore over the feasible ones. */
static int breakdown_pod(struct breakdown *b, struct fw_profile *p, struct fw_cycle *c,
			 const struct fw_node_list *list, const struct api_pod *pod, uint32_t *start,
			 int32_t pct, struct err *e)
{
	uint32_t n = list->n ? list->n : 1;
	struct bd_pod d = { .b = b, .p = p, .c = c, .pod = pod };
	int rc = 0;
	d.examined = calloc(n, sizeof(*d.examined));
	d.feasible = calloc(n, sizeof(*d.feasible));
	d.scores = calloc(n, sizeof(*d.scores));
	if (!d.examined || !d.feasible || !d.scores) {
		rc = err_set(e, ERR_NOMEM, "breakdown: node arrays");
		goto out;
	}
	fw_cycle_reset(c);
	c->nodes = list;
	if ((rc = bd_pre_filter(&d, e)) < 0)
		goto out;
	bd_filter(&d, list, start, pct);
	bd_score(&d);
	b->pods++;
out:
	c->nodes = NULL;
	fw_cycle_reset(c);
	free(d.examined);
	free(d.feasible);
	free(d.scores);
	return rc;
}

/* ---------- workload (--workload, from cycle_spec.py) ---------- */

/* One createPods op of the workload: count pods from template ("__NAME__" for the name). */
struct wl_pods {
	int count;
	bool measured;
	bool steady;          /* steadyState: each pod and its generated claim deleted once placed */
	char *template;       /* malloc'd */
	char *ns;             /* malloc'd */
	char *claim_template; /* the claim generated for each pod (cycle_spec.py), or NULL; malloc'd */
};

/* The workload: what cycle_spec.py rendered. Services and Namespaces are built here as the
 * listers' objects (static reference counts: the listers lend them; a get's "new reference" is one
 * more on a count that never reaches 0). */
struct workload {
	char *name;
	int threshold; /* upstream's CI floor, 0 when the workload has none */
	uint32_t n_nodes;
	char **nodes; /* manifests, malloc'd */
	uint32_t n_pod_ops;
	struct wl_pods *pod_ops;
	uint32_t n_services, n_namespaces;
	struct api_selector_owner *services;
	struct api_label_selector *selectors;
	struct api_namespace *namespaces;
	/* DRA objects as JSON text (malloc'd): claims with "__RV__" for their resourceVersion */
	uint32_t n_classes, n_slices, n_claims;
	char **classes, **slices, **claims;
	struct dra_store *dra; /* the store built from them (the listers' context is the workload) */
	struct wl_pods churn;   /* a churn op's pod template (count unused), template NULL when none */
	int churn_interval_ms;
};

static char *read_text(const char *path, struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		err_set(e, ERR_IO, "bench_cycle: %s: cannot read", path);
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		char *nb = realloc(buf, cap *= 2);
		if (!nb)
			free(buf);
		buf = nb;
	}
	fclose(f);
	if (!buf)
		err_set(e, ERR_NOMEM, "bench_cycle: %s", path);
	else
		buf[n] = 0;
	return buf;
}

static char *dup_str(yajl_val v)
{
	const char *s = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
	return s ? strdup(s) : NULL;
}

static yajl_val member(yajl_val obj, const char *key, yajl_type t)
{
	const char *path[] = { key, NULL };
	return yajl_tree_get(obj, path, t);
}

/* Labels from a JSON object of strings, interned (pinned: the workload lives as long as the run). */
static int labels_of(yajl_val obj, struct api_labels *out)
{
	size_t n = YAJL_IS_OBJECT(obj) ? obj->u.object.len : 0;
	out->n = 0;
	out->items = calloc(n ? n : 1, sizeof(*out->items));
	if (!out->items)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!YAJL_IS_STRING(obj->u.object.values[i]))
			return -1;
		out->items[out->n++] = (struct api_kv){ intern_str(obj->u.object.keys[i]),
						       intern_str(YAJL_GET_STRING(obj->u.object.values[i])) };
	}
	return 0;
}

static int wl_parse_pods(struct workload *w, yajl_val pods)
{
	w->pod_ops = calloc(pods->u.array.len ? pods->u.array.len : 1, sizeof(*w->pod_ops));
	if (!w->pod_ops)
		return -1;
	for (size_t i = 0; i < pods->u.array.len; i++) {
		yajl_val op = pods->u.array.values[i];
		yajl_val count = member(op, "count", yajl_t_number), measured = member(op, "measured", yajl_t_any);
		struct wl_pods *wp = &w->pod_ops[w->n_pod_ops++];
		wp->template = dup_str(member(op, "template", yajl_t_string));
		wp->ns = dup_str(member(op, "namespace", yajl_t_string));
		wp->claim_template = dup_str(member(op, "claimTemplate", yajl_t_string));
		wp->steady = YAJL_IS_TRUE(member(op, "steadyState", yajl_t_any));
		if (!count || !YAJL_IS_INTEGER(count) || !wp->template || !wp->ns)
			return -1;
		wp->count = (int)YAJL_GET_INTEGER(count);
		wp->measured = YAJL_IS_TRUE(measured);
	}
	return 0;
}

static int wl_parse_listers(struct workload *w, yajl_val svcs, yajl_val nss)
{
	size_t n_s = svcs ? svcs->u.array.len : 0, n_n = nss ? nss->u.array.len : 0;
	w->services = calloc(n_s ? n_s : 1, sizeof(*w->services));
	w->selectors = calloc(n_s ? n_s : 1, sizeof(*w->selectors));
	w->namespaces = calloc(n_n ? n_n : 1, sizeof(*w->namespaces));
	if (!w->services || !w->selectors || !w->namespaces)
		return -1;
	for (size_t i = 0; i < n_s; i++) {
		yajl_val sv = svcs->u.array.values[i];
		const char *ns = YAJL_GET_STRING(member(sv, "namespace", yajl_t_string));
		const char *name = YAJL_GET_STRING(member(sv, "name", yajl_t_string));
		struct api_selector_owner *o = &w->services[w->n_services++];
		o->refs = 1 << 30;
		o->kind = API_SEL_SERVICE;
		o->meta.namespace = intern_str(ns);
		o->meta.name = intern_str(name);
		o->selector = &w->selectors[i];
		if (!ns || !name || labels_of(member(sv, "selector", yajl_t_object), &o->selector->match_labels) < 0)
			return -1;
	}
	for (size_t i = 0; i < n_n; i++) {
		struct api_namespace *ns = &w->namespaces[w->n_namespaces++];
		ns->refs = 1 << 30;
		ns->meta.name = intern_str(YAJL_GET_STRING(nss->u.array.values[i]));
		ns->meta.namespace = "";
		if (!ns->meta.name)
			return -1;
	}
	return 0;
}

/* A JSON array of strings (absent: none) into *out, malloc'd copies. */
static int string_array(yajl_val arr, char ***out, uint32_t *n)
{
	size_t len = arr ? arr->u.array.len : 0;
	*n = 0;
	if (!(*out = calloc(len ? len : 1, sizeof(**out))))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!((*out)[(*n)++] = dup_str(arr->u.array.values[i])))
			return -1;
	return 0;
}

/* "churn": {"template", "namespace", "intervalMs"} (absent: no churn). */
static int wl_parse_churn(struct workload *w, yajl_val ch)
{
	if (!ch)
		return 0;
	yajl_val iv = member(ch, "intervalMs", yajl_t_number);
	w->churn.template = dup_str(member(ch, "template", yajl_t_string));
	w->churn.ns = dup_str(member(ch, "namespace", yajl_t_string));
	if (!w->churn.template || !w->churn.ns || !iv || !YAJL_IS_INTEGER(iv) || YAJL_GET_INTEGER(iv) < 1)
		return -1;
	w->churn_interval_ms = (int)YAJL_GET_INTEGER(iv);
	return 0;
}

static int workload_load(struct workload *w, const char *path, struct err *e)
{
	char ebuf[256] = "";
	char *text = read_text(path, e);
	if (!text)
		return -1;
	yajl_val root = yajl_tree_parse(text, ebuf, sizeof(ebuf));
	free(text);
	if (!root)
		return err_set(e, ERR_INVALID, "bench_cycle: %s: %s", path, ebuf);
	yajl_val nodes = member(root, "nodes", yajl_t_array), pods = member(root, "pods", yajl_t_array);
	yajl_val thr = member(root, "threshold", yajl_t_number);
	int rc = 0;
	w->name = dup_str(member(root, "name", yajl_t_string));
	w->threshold = thr && YAJL_IS_INTEGER(thr) ? (int)YAJL_GET_INTEGER(thr) : 0;
	if (!w->name || !nodes || !pods) {
		rc = err_set(e, ERR_INVALID, "bench_cycle: %s: needs name, nodes and pods (tests/bench/cycle_spec.py)", path);
		goto out;
	}
	w->nodes = calloc(nodes->u.array.len ? nodes->u.array.len : 1, sizeof(*w->nodes));
	for (size_t i = 0; w->nodes && i < nodes->u.array.len; i++)
		if (!(w->nodes[w->n_nodes++] = dup_str(nodes->u.array.values[i])))
			break;
	if (!w->nodes || (w->n_nodes && !w->nodes[w->n_nodes - 1]) || wl_parse_pods(w, pods) < 0 ||
	    wl_parse_listers(w, member(root, "services", yajl_t_array), member(root, "namespaces", yajl_t_array)) < 0 ||
	    string_array(member(root, "deviceClasses", yajl_t_array), &w->classes, &w->n_classes) < 0 ||
	    string_array(member(root, "resourceSlices", yajl_t_array), &w->slices, &w->n_slices) < 0 ||
	    string_array(member(root, "resourceClaims", yajl_t_array), &w->claims, &w->n_claims) < 0 ||
	    wl_parse_churn(w, member(root, "churn", yajl_t_object)) < 0)
		rc = err_set(e, ERR_INVALID, "bench_cycle: %s: malformed workload (tests/bench/cycle_spec.py)", path);
out:
	yajl_tree_free(root);
	return rc;
}

static void workload_free(struct workload *w)
{
	for (uint32_t i = 0; i < w->n_nodes; i++)
		free(w->nodes[i]);
	for (uint32_t i = 0; i < w->n_pod_ops; i++) {
		free(w->pod_ops[i].template);
		free(w->pod_ops[i].ns);
		free(w->pod_ops[i].claim_template);
	}
	free(w->churn.template);
	free(w->churn.ns);
	char **const lists[] = { w->classes, w->slices, w->claims };
	const uint32_t lens[] = { w->n_classes, w->n_slices, w->n_claims };
	for (size_t l = 0; l < 3; l++) {
		for (uint32_t i = 0; lists[l] && i < lens[l]; i++)
			free(lists[l][i]);
		free(lists[l]);
	}
	for (uint32_t i = 0; i < w->n_services; i++)
		free(w->selectors[i].match_labels.items);
	free(w->nodes);
	free(w->pod_ops);
	free(w->services);
	free(w->selectors);
	free(w->namespaces);
	free(w->name);
}

/* text with the placeholders of cycle_spec.py filled in: __NAME__, __UID__, __RV__ (rv, when not
 * NULL), and the pod's index in its op as __INDEX__, __INDEX_DIV_<n>__, __INDEX_MOD_<n>__
 * (driver.render). malloc'd, NULL when out of memory. */
static char *subst(const char *text, const char *name, const char *uid, const char *rv, int index)
{
	size_t cap = strlen(text) + 256, k = 0;
	char *out = malloc(cap);
	for (const char *t = text; out && *t;) {
		char num[32];
		const char *rep = NULL;
		size_t skip = 0;
		if (t[0] == '_' && t[1] == '_') {
			if (!strncmp(t, "__NAME__", 8))
				rep = name, skip = 8;
			else if (!strncmp(t, "__UID__", 7))
				rep = uid, skip = 7;
			else if (rv && !strncmp(t, "__RV__", 6))
				rep = rv, skip = 6;
			else if (!strncmp(t, "__INDEX__", 9)) {
				snprintf(num, sizeof(num), "%d", index);
				rep = num, skip = 9;
			} else if (!strncmp(t, "__INDEX_DIV_", 12) || !strncmp(t, "__INDEX_MOD_", 12)) {
				char *end;
				long d = strtol(t + 12, &end, 10);
				if (d > 0 && end > t + 12 && !strncmp(end, "__", 2)) {
					snprintf(num, sizeof(num), "%ld", t[8] == 'D' ? index / d : index % d);
					rep = num, skip = (size_t)(end + 2 - t);
				}
			}
		}
		size_t need = rep ? strlen(rep) : 1;
		if (k + need + 1 > cap) {
			char *nb = realloc(out, cap = 2 * cap + need);
			if (!nb) {
				free(out);
				return NULL;
			}
			out = nb;
		}
		if (rep) {
			memcpy(out + k, rep, need);
			k += need;
			t += skip;
		} else
			out[k++] = *t++;
	}
	if (out)
		out[k] = 0;
	return out;
}

/* The UID of pod name of op: "uid-<namespace>-<name>". */
static void pod_uid(const struct wl_pods *op, const char *name, char *uid, size_t size)
{
	snprintf(uid, size, "uid-%s-%s", op->ns, name);
}

/* A pod of op's template named name, index the pod's index in op (the template's placeholders
 * filled in by subst). */
static struct api_pod *workload_pod(const struct wl_pods *op, const char *name, int index)
{
	char uid[160];
	pod_uid(op, name, uid, sizeof(uid));
	char *json = subst(op->template, name, uid, NULL, index);
	struct err e = { 0 };
	if (!json)
		return NULL;
	struct api_pod *p = api_pod_decode_json(json, strlen(json), &e);
	if (!p)
		fprintf(stderr, "bench_cycle: pod %s: %s\n", name, e.msg);
	free(json);
	return p;
}

/* The measured op (the last one cycle_spec.py writes). */
static const struct wl_pods *workload_measured(const struct workload *w)
{
	return w->n_pod_ops && w->pod_ops[w->n_pod_ops - 1].measured ? &w->pod_ops[w->n_pod_ops - 1] : NULL;
}

/* The profile's listers over the workload's Services and Namespaces. */
static int wl_services_each(void *ctx, const char *ns, int (*fn)(void *arg, const struct api_selector_owner *svc),
			    void *arg)
{
	const struct workload *w = ctx;
	for (uint32_t i = 0; i < w->n_services; i++)
		if (strcmp(w->services[i].meta.namespace, ns) == 0) {
			int rc = fn(arg, &w->services[i]);
			if (rc)
				return rc;
		}
	return 0;
}

static struct api_namespace *wl_namespace(void *ctx, const char *name)
{
	struct workload *w = ctx;
	for (uint32_t i = 0; i < w->n_namespaces; i++)
		if (strcmp(w->namespaces[i].meta.name, name) == 0) {
			__atomic_add_fetch(&w->namespaces[i].refs, 1, __ATOMIC_RELAXED);
			return &w->namespaces[i];
		}
	return NULL;
}

static int wl_namespaces_each(void *ctx, int (*fn)(void *arg, const struct api_namespace *ns), void *arg)
{
	const struct workload *w = ctx;
	for (uint32_t i = 0; i < w->n_namespaces; i++) {
		int rc = fn(arg, &w->namespaces[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---------- DRA objects: the store behind the DRA listers and fw_dra_ops ---------- */

/* One ResourceClaim as the server holds it. Its object is rebuilt from JSON text on each write:
 * base (the claim as the workload gives it, "__RV__" for its resourceVersion) with the
 * delete-protection finalizer, the allocation and the reservedFor entries written so far. */
struct dra_claim {
	char *key;        /* "ns/name", the map key; malloc'd */
	char *base;       /* malloc'd */
	bool has_status;  /* the workload gave it a status (allocResourceClaims): never written */
	bool finalizer;   /* metadata.finalizers has resource.kubernetes.io/delete-protection */
	char *allocation; /* status.allocation (api_dra_allocation_json), or NULL; malloc'd */
	char *reserved;   /* status.reservedFor entries, comma-separated, or NULL; malloc'd */
	long rv;
	struct api_resource_claim *obj; /* the current object (the store's reference) */
};

/* The store: claims by key, slices and classes in workload order. Written by the scheduling
 * loop's thread only, between cycles (PreBind runs there in this benchmark); the plugins read it
 * during cycles, from pool threads too, while nothing writes. */
struct dra_store {
	struct map claims; /* key -> struct dra_claim */
	long last_rv;      /* the server's resourceVersion counter */
	uint32_t n_slices, n_classes;
	struct api_resource_slice **slices;
	struct api_device_class **classes;
	/* fw_listers.resource_claim_sink: called on each claim change, as the informer's handlers */
	struct dra_sink {
		void (*fn)(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj);
		void *arg;
	} sinks[4];
	uint32_t n_sinks;
};

static void dra_emit(const struct dra_store *st, const struct api_resource_claim *old,
		     const struct api_resource_claim *new_obj)
{
	for (uint32_t i = 0; i < st->n_sinks; i++)
		st->sinks[i].fn(st->sinks[i].arg, old, new_obj);
}

static void dra_claim_free(struct dra_claim *c)
{
	if (!c)
		return;
	api_resource_claim_unref(c->obj);
	free(c->key);
	free(c->base);
	free(c->allocation);
	free(c->reserved);
	free(c);
}

/* Appends s to buf (*len used, *cap allocated); -1 when out of memory. */
static int buf_add(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 1 > *cap) {
		char *nb = realloc(*buf, *cap = 2 * (*len + n + 1));
		if (!nb)
			return -1;
		*buf = nb;
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
	return 0;
}

/* c->obj from its text, with the next resourceVersion. */
static int dra_claim_build(struct dra_store *st, struct dra_claim *c, struct err *e)
{
	char rv[32];
	snprintf(rv, sizeof(rv), "%ld", c->rv = ++st->last_rv);
	char *text = subst(c->base, "", "", rv, 0), *buf = NULL;
	size_t len = 0, cap = 0, n = text ? strlen(text) : 0;
	int rc = -1;
	if (!text || n < 2 || text[n - 1] != '}')
		goto out;
	text[n - 1] = 0; /* the closing brace, put back after the status */
	const char *md = strstr(text, "\"metadata\":{");
	if (!md)
		goto out;
	size_t head = (size_t)(md - text) + strlen("\"metadata\":{");
	char saved = text[head];
	text[head] = 0;
	if (buf_add(&buf, &len, &cap, text) < 0 ||
	    (c->finalizer && buf_add(&buf, &len, &cap, "\"finalizers\":[\"resource.kubernetes.io/delete-protection\"],") < 0))
		goto out;
	text[head] = saved;
	if (buf_add(&buf, &len, &cap, text + head) < 0)
		goto out;
	if ((c->allocation || c->reserved) &&
	    (buf_add(&buf, &len, &cap, ",\"status\":{") < 0 ||
	     (c->allocation && (buf_add(&buf, &len, &cap, "\"allocation\":") < 0 ||
				buf_add(&buf, &len, &cap, c->allocation) < 0)) ||
	     (c->reserved && (buf_add(&buf, &len, &cap, c->allocation ? ",\"reservedFor\":[" : "\"reservedFor\":[") < 0 ||
			      buf_add(&buf, &len, &cap, c->reserved) < 0 || buf_add(&buf, &len, &cap, "]") < 0)) ||
	     buf_add(&buf, &len, &cap, "}") < 0))
		goto out;
	if (buf_add(&buf, &len, &cap, "}") < 0)
		goto out;
	struct api_resource_claim *obj = api_resource_claim_decode_json(buf, len, e);
	if (!obj) {
		err_prefix(e, "bench_cycle: claim %s", c->key);
		free(text);
		free(buf);
		return -1;
	}
	struct api_resource_claim *prev = c->obj;
	c->obj = obj;
	if (prev) /* an update; dra_claim_add reports an add */
		dra_emit(st, prev, obj);
	api_resource_claim_unref(prev);
	rc = 0;
out:
	if (rc < 0 && !e->code)
		err_set(e, ERR_NOMEM, "bench_cycle: claim %s: out of memory or malformed text", c->key);
	free(text);
	free(buf);
	return rc;
}

/* Adds the claim of JSON text json ("__RV__" for its resourceVersion) as the server would
 * create it. */
static int dra_claim_add(struct dra_store *st, const char *json, struct err *e)
{
	struct dra_claim *c = calloc(1, sizeof(*c));
	if (!c || !(c->base = strdup(json))) {
		free(c);
		return err_set(e, ERR_NOMEM, "bench_cycle: claim");
	}
	c->has_status = strstr(json, "\"status\":") != NULL;
	c->key = strdup("?");
	if (!c->key || dra_claim_build(st, c, e) < 0) {
		dra_claim_free(c);
		return -1;
	}
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", c->obj->meta.namespace, c->obj->meta.name);
	free(c->key);
	void *old = NULL;
	if (!(c->key = strdup(key)) || map_put(&st->claims, c->key, c, &old) < 0) {
		dra_claim_free(c);
		return err_set(e, ERR_NOMEM, "bench_cycle: claim %s", key);
	}
	dra_emit(st, old ? ((struct dra_claim *)old)->obj : NULL, c->obj);
	dra_claim_free(old);
	return 0;
}

static void dra_claim_delete(struct dra_store *st, const char *ns, const char *name)
{
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	struct dra_claim *c = map_del(&st->claims, key);
	if (c)
		dra_emit(st, c->obj, NULL);
	dra_claim_free(c);
}

static int dra_store_init(struct dra_store *st, const struct workload *w, struct err *e)
{
	map_init(&st->claims);
	st->slices = calloc(w->n_slices ? w->n_slices : 1, sizeof(*st->slices));
	st->classes = calloc(w->n_classes ? w->n_classes : 1, sizeof(*st->classes));
	if (!st->slices || !st->classes)
		return err_set(e, ERR_NOMEM, "bench_cycle: DRA objects");
	for (uint32_t i = 0; i < w->n_slices; i++)
		if (!(st->slices[st->n_slices++] = api_resource_slice_decode_json(w->slices[i], strlen(w->slices[i]), e))) {
			st->n_slices--;
			err_prefix(e, "bench_cycle: ResourceSlice %u", i);
			return -1;
		}
	for (uint32_t i = 0; i < w->n_classes; i++)
		if (!(st->classes[st->n_classes++] = api_device_class_decode_json(w->classes[i], strlen(w->classes[i]), e))) {
			st->n_classes--;
			err_prefix(e, "bench_cycle: DeviceClass %u", i);
			return -1;
		}
	for (uint32_t i = 0; i < w->n_claims; i++)
		if (dra_claim_add(st, w->claims[i], e) < 0)
			return -1;
	return 0;
}

static void dra_store_release(struct dra_store *st)
{
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(&st->claims, &it, &k, &v))
		dra_claim_free(v);
	map_release(&st->claims);
	for (uint32_t i = 0; i < st->n_slices; i++)
		api_resource_slice_unref(st->slices[i]);
	for (uint32_t i = 0; i < st->n_classes; i++)
		api_device_class_unref(st->classes[i]);
	free(st->slices);
	free(st->classes);
}

/* fw_listers' DRA members over the store (their context is the workload, as the others'). */
static struct api_resource_claim *dra_get_claim(void *ctx, const char *ns, const char *name)
{
	const struct dra_store *st = ((const struct workload *)ctx)->dra;
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	struct dra_claim *c = map_get(&st->claims, key);
	return c ? api_resource_claim_ref(c->obj) : NULL;
}

static int dra_claims_each(void *ctx, int (*fn)(void *arg, const struct api_resource_claim *c), void *arg)
{
	const struct dra_store *st = ((const struct workload *)ctx)->dra;
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(&st->claims, &it, &k, &v)) {
		int rc = fn(arg, ((struct dra_claim *)v)->obj);
		if (rc)
			return rc;
	}
	return 0;
}

/* Registers a sink and replays the stored claims to it as adds (fw_listers.resource_claim_sink). */
static int dra_claim_sink(void *ctx,
			  void (*fn)(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj),
			  void *arg)
{
	struct dra_store *st = ((const struct workload *)ctx)->dra;
	if (st->n_sinks == sizeof(st->sinks) / sizeof(st->sinks[0]))
		return ERR_NOMEM;
	st->sinks[st->n_sinks++] = (struct dra_sink){ fn, arg };
	size_t it = 0;
	const char *k;
	void *v;
	while (map_next(&st->claims, &it, &k, &v))
		fn(arg, NULL, ((struct dra_claim *)v)->obj);
	return 0;
}

static int dra_slices_each(void *ctx, int (*fn)(void *arg, const struct api_resource_slice *s), void *arg)
{
	const struct dra_store *st = ((const struct workload *)ctx)->dra;
	for (uint32_t i = 0; i < st->n_slices; i++) {
		int rc = fn(arg, st->slices[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static struct api_device_class *dra_get_class(void *ctx, const char *name)
{
	const struct dra_store *st = ((const struct workload *)ctx)->dra;
	for (uint32_t i = 0; i < st->n_classes; i++)
		if (!strcmp(st->classes[i]->meta.name, name))
			return api_device_class_ref(st->classes[i]);
	return NULL;
}

static int dra_classes_each(void *ctx, int (*fn)(void *arg, const struct api_device_class *c), void *arg)
{
	const struct dra_store *st = ((const struct workload *)ctx)->dra;
	for (uint32_t i = 0; i < st->n_classes; i++) {
		int rc = fn(arg, st->classes[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* fw_dra_ops over the store: the server's side of PreBind's writes, the claim's resourceVersion as
 * precondition (ERR_CONFLICT), the updated claim also what the informer then holds. */
static struct dra_claim *dra_claim_for_write(struct dra_store *st, const struct api_resource_claim *claim,
					     const char *call, struct err *e)
{
	char key[512];
	snprintf(key, sizeof(key), "%s/%s", claim->meta.namespace, claim->meta.name);
	struct dra_claim *c = map_get(&st->claims, key);
	if (!c) {
		err_set(e, ERR_NOT_FOUND, "bench_cycle: %s %s: not found", call, key);
		return NULL;
	}
	char rv[32];
	snprintf(rv, sizeof(rv), "%ld", c->rv);
	if (!claim->meta.resource_version || strcmp(claim->meta.resource_version, rv) != 0) {
		err_set(e, ERR_CONFLICT, "bench_cycle: %s %s: resourceVersion %s is not %s", call, key,
			claim->meta.resource_version ? claim->meta.resource_version : "", rv);
		return NULL;
	}
	if (c->has_status) {
		err_set(e, ERR_UNSUPPORTED, "bench_cycle: %s %s: a claim the workload gave a status is not written", call, key);
		return NULL;
	}
	return c;
}

static int dra_op_get(void *ctx, const char *ns, const char *name, struct api_resource_claim **out, struct err *e)
{
	struct workload w = { .dra = ctx };
	if (!(*out = dra_get_claim(&w, ns, name)))
		return err_set(e, ERR_NOT_FOUND, "bench_cycle: get resourceclaim %s/%s: not found", ns, name);
	return 0;
}

static int dra_op_add_finalizer(void *ctx, const struct api_resource_claim *claim, struct api_resource_claim **out,
				struct err *e)
{
	struct dra_claim *c = dra_claim_for_write(ctx, claim, "update resourceclaim", e);
	if (!c)
		return -1;
	c->finalizer = true;
	if (dra_claim_build(ctx, c, e) < 0)
		return -1;
	*out = api_resource_claim_ref(c->obj);
	return 0;
}

static int dra_op_reserve(void *ctx, const struct api_resource_claim *claim, const struct api_dra_allocation *allocation,
			  const struct api_dra_consumer *consumer, bool set_timestamp, struct api_resource_claim **out,
			  struct err *e)
{
	(void)set_timestamp; /* a timestamp changes nothing the scheduler reads */
	struct dra_claim *c = dra_claim_for_write(ctx, claim, "update resourceclaim status", e);
	if (!c)
		return -1;
	char entry[512];
	snprintf(entry, sizeof(entry), "%s{\"resource\":\"%s\",\"name\":\"%s\",\"uid\":\"%s\"}", c->reserved ? "," : "",
		 consumer->resource, consumer->name, consumer->uid);
	size_t len = c->reserved ? strlen(c->reserved) : 0, cap = len + 1;
	char *alloc_json = NULL;
	size_t alen = 0;
	if (allocation && api_dra_allocation_json(allocation, 0, &alloc_json, &alen, e) < 0)
		return -1;
	if (buf_add(&c->reserved, &len, &cap, entry) < 0) {
		free(alloc_json);
		return err_set(e, ERR_NOMEM, "bench_cycle: reserve");
	}
	if (alloc_json) {
		free(c->allocation);
		c->allocation = alloc_json;
	}
	if (dra_claim_build(ctx, c, e) < 0)
		return -1;
	*out = api_resource_claim_ref(c->obj);
	return 0;
}

/* ---------- main ---------- */

struct opts {
	int nodes, pods, parallelism, pct, breakdown_pods;
	int churn_interval_ms; /* --churn-interval-ms: overrides the workload's churn interval (0: keep) */
	const char *json;
	const char *dump;
	bool mixed;
	const char *workload; /* --workload SPEC.json, or NULL */
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ 5000, 5000, FW_DEFAULT_PARALLELISM, 0, 300, 0, NULL, NULL, false, NULL };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int *dst = NULL;
		if (!strcmp(a, "--nodes"))
			dst = &o->nodes;
		else if (!strcmp(a, "--pods"))
			dst = &o->pods;
		else if (!strcmp(a, "--parallelism"))
			dst = &o->parallelism;
		else if (!strcmp(a, "--pct"))
			dst = &o->pct;
		else if (!strcmp(a, "--breakdown-pods"))
			dst = &o->breakdown_pods;
		else if (!strcmp(a, "--churn-interval-ms"))
			dst = &o->churn_interval_ms;
		else if (!strcmp(a, "--json") && v) {
			o->json = v;
			i++;
			continue;
		} else if (!strcmp(a, "--mixed")) {
			o->mixed = true;
			continue;
		} else if (!strcmp(a, "--dump-decisions") && v) {
			o->dump = v;
			i++;
			continue;
		} else if (!strcmp(a, "--workload") && v) {
			o->workload = v;
			i++;
			continue;
		} else {
			fprintf(stderr, "bench_cycle: unknown argument '%s'\nusage: bench_cycle [--nodes N] [--pods P] "
					"[--parallelism K] [--pct PCT] [--breakdown-pods B] [--json FILE] "
					"[--dump-decisions FILE] [--mixed] [--workload SPEC.json] [--churn-interval-ms MS]\n", a);
			return -1;
		}
		char *end;
		long x = v ? strtol(v, &end, 10) : -1;
		if (!v || *end || x < 0 || x > 10000000) {
			fprintf(stderr, "bench_cycle: %s needs a non-negative integer\n", a);
			return -1;
		}
		*dst = (int)x;
		i++;
	}
	if (o->nodes < 1 || o->pods < 1 || o->parallelism < 1 || o->pct > 100) {
		fprintf(stderr, "bench_cycle: --nodes, --pods, --parallelism must be >= 1, --pct 0..100\n");
		return -1;
	}
	return 0;
}

/* One run: its inputs, the state the loop drives and the measurements. */
struct run {
	struct opts o;
	struct cache *cache;
	struct snapshot *snap;
	struct fw_pool *pool;
	struct fw_profile *prof;
	struct fw_cycle *cyc;
	struct api_pod **pods;        /* the measured pods */
	struct workload wl;           /* --workload; else empty */
	struct dra_store dra;         /* --workload: its DRA objects (empty for the others) */
	int64_t untimed_ns;           /* the measured loop's controller work (claims added, deleted) */
	struct api_pod **init_pods;   /* --workload: its initial pods, scheduled before the measured ones */
	int n_init;
	uint64_t init_unschedulable;
	int64_t init_ns;
	int64_t *cycle_ns, *algo_ns; /* per pod, sorted after the loop */
	struct breakdown *bd;
	/* decisions are recorded during the loop and written after it, outside the timing */
	const char **chosen;
	uint32_t *dec_eval, *dec_feas;
	uint64_t evaluated, unschedulable;
	uint64_t preemptions, victims; /* PostFilter nominations and the pods they evicted */
	/* the last preemption the profile's executor was given (record_preemption) */
	uint32_t n_pending;
	size_t cap_pending;
	struct api_pod **pending; /* referenced */
	int64_t total_ns;
	/* --workload with churn: the churn pods made during the measured loop (owned) */
	struct api_pod **churn_pods;
	uint32_t n_churn, cap_churn;
	uint64_t churn_placed;
};

/* The profile's executor: keeps the victims; run_one evicts them from the cache. */
static enum fw_code record_preemption(void *ctx, const struct api_pod *preemptor, const struct fw_preemption *p,
				      struct fw_status *st)
{
	(void)preemptor;
	struct run *r = ctx;
	if (p->n_victims > r->cap_pending) {
		struct api_pod **np = realloc(r->pending, p->n_victims * sizeof(*np));
		if (!np)
			return fw_status_set(st, FW_ERROR, "bench_cycle: out of memory");
		r->pending = np;
		r->cap_pending = p->n_victims;
	}
	for (uint32_t i = 0; i < p->n_victims; i++)
		r->pending[i] = api_pod_ref(p->victims[i]);
	r->n_pending = p->n_victims;
	return FW_SUCCESS;
}

static void pending_release(struct run *r)
{
	for (uint32_t i = 0; i < r->n_pending; i++)
		api_pod_unref(r->pending[i]);
	r->n_pending = 0;
}

static int run_alloc(struct run *r, struct err *e)
{
	size_t n = (size_t)r->o.pods;
	r->cache = cache_new();
	r->snap = snapshot_new();
	r->pods = calloc(n, sizeof(*r->pods));
	r->cycle_ns = calloc(n, sizeof(*r->cycle_ns));
	r->algo_ns = calloc(n, sizeof(*r->algo_ns));
	r->bd = calloc(1, sizeof(*r->bd));
	r->chosen = calloc(n, sizeof(*r->chosen));
	r->dec_eval = calloc(n, sizeof(*r->dec_eval));
	r->dec_feas = calloc(n, sizeof(*r->dec_feas));
	if (!r->cache || !r->snap || !r->pods || !r->cycle_ns || !r->algo_ns || !r->bd || !r->chosen || !r->dec_eval ||
	    !r->dec_feas)
		return err_set(e, ERR_NOMEM, "bench_cycle: setup");
	return 0;
}

static void run_release(struct run *r)
{
	fw_cycle_free(r->cyc);
	fw_profile_free(r->prof);
	fw_pool_free(r->pool);
	snapshot_free(r->snap);
	cache_free(r->cache);
	for (int i = 0; r->pods && i < r->o.pods; i++)
		api_pod_unref(r->pods[i]);
	free(r->pods);
	for (int i = 0; r->init_pods && i < r->n_init; i++)
		api_pod_unref(r->init_pods[i]);
	free(r->init_pods);
	for (uint32_t i = 0; i < r->n_churn; i++)
		api_pod_unref(r->churn_pods[i]);
	free(r->churn_pods);
	if (r->o.workload)
		dra_store_release(&r->dra);
	workload_free(&r->wl);
	free(r->cycle_ns);
	free(r->algo_ns);
	free(r->bd);
	free(r->chosen);
	free(r->dec_eval);
	free(r->dec_feas);
	pending_release(r);
	free(r->pending);
}

/* --workload: the initial pods of every op but the last, and the measured ones. */
static int setup_workload_pods(struct run *r, struct err *e)
{
	char name[64];
	int n = 0;
	for (uint32_t k = 0; k + 1 < r->wl.n_pod_ops; k++)
		n += r->wl.pod_ops[k].count;
	if (!(r->init_pods = calloc(n ? (size_t)n : 1, sizeof(*r->init_pods))))
		return err_set(e, ERR_NOMEM, "bench_cycle: pods");
	for (uint32_t k = 0; k + 1 < r->wl.n_pod_ops; k++)
		for (int i = 0; i < r->wl.pod_ops[k].count; i++) {
			snprintf(name, sizeof(name), "pod-%u-%d", k, i);
			if (!(r->init_pods[r->n_init++] = workload_pod(&r->wl.pod_ops[k], name, i)))
				return err_set(e, ERR_INVALID, "bench_cycle: initial pod %s", name);
		}
	for (int i = 0; i < r->o.pods; i++) {
		snprintf(name, sizeof(name), "pod-%d", i);
		if (!(r->pods[i] = workload_pod(workload_measured(&r->wl), name, i)))
			return err_set(e, ERR_INVALID, "bench_cycle: pod %s", name);
	}
	return 0;
}

/* The cluster, the pods, the default profile and a first snapshot. */
static int run_setup(struct run *r, struct err *e)
{
	const struct opts *o = &r->o;
	for (int i = 0; i < o->nodes; i++) {
		struct api_node *n = o->workload ? api_node_decode_json(r->wl.nodes[i], strlen(r->wl.nodes[i]), e)
						 : make_node(i, o->mixed);
		int rc = n ? cache_add_node(r->cache, n, e) : -1;
		api_node_unref(n);
		if (rc < 0)
			return rc;
	}
	if (o->workload && setup_workload_pods(r, e) < 0)
		return -1;
	for (int i = 0; !o->workload && i < o->pods; i++)
		r->pods[i] = make_pod(i, o->mixed);
	if (o->parallelism > 1 && !(r->pool = fw_pool_new(o->parallelism, e)))
		return -1;
	struct fw_profile_config pc;
	fw_default_profile_config("csched", &pc);
	struct fw_profile_options po = { .percentage_of_nodes_to_score = o->pct, .pool = r->pool, .bind = noop_bind,
					 .preempt = { .actuate = record_preemption, .ctx = r } };
	if (o->workload) {
		r->wl.dra = &r->dra;
		if (dra_store_init(&r->dra, &r->wl, e) < 0)
			return -1;
		po.listers = (struct fw_listers){ .ns = wl_namespace, .ns_each = wl_namespaces_each,
						  .services_each = wl_services_each, .resource_claim = dra_get_claim,
						  .resource_claim_each = dra_claims_each, .resource_claim_sink = dra_claim_sink,
						  .resource_slice_each = dra_slices_each,
						  .device_class = dra_get_class, .device_class_each = dra_classes_each,
						  .ctx = &r->wl };
		po.dra = (struct fw_dra_ops){ .get_claim = dra_op_get, .add_finalizer = dra_op_add_finalizer,
					      .reserve = dra_op_reserve, .ctx = &r->dra };
	}
	if (!(r->prof = fw_profile_new(&pc, &po, e)) || !(r->cyc = fw_cycle_new(r->prof))) {
		if (!e->msg[0])
			err_set(e, ERR_NOMEM, "bench_cycle: cycle state");
		return -1;
	}
	return cache_update_snapshot(r->cache, r->snap, e);
}

/* After a fit error: PostFilter; when it nominated a node, its victims leave the cache (their
 * deletion) and the pod's next cycle runs (res then holds that cycle's outcome). */
static int preempt(struct run *r, const struct api_pod *pod, struct fw_node_list *list, struct fw_schedule_result *res,
		   struct err *e)
{
	struct fw_post_filter_result pfr = { "" };
	struct fw_status st;
	enum fw_code pc = fw_run_post_filter(r->prof, r->cyc, pod, &res->diag, &pfr, &st);
	if (pc == FW_ERROR) {
		pending_release(r);
		char msg[FW_STATUS_TEXT_MAX];
		return err_set(e, ERR_INVALID, "bench_cycle: PostFilter: %s", fw_status_message(&st, msg, sizeof(msg)));
	}
	if (pc != FW_SUCCESS || !pfr.nominated_node_name || !pfr.nominated_node_name[0]) {
		pending_release(r);
		return 0;
	}
	r->preemptions++;
	r->victims += r->n_pending;
	for (uint32_t k = 0; k < r->n_pending; k++)
		if (cache_remove_pod(r->cache, r->pending[k], e) < 0 &&
		    cache_forget_pod(r->cache, r->pending[k], r->pending[k]->node_name, e) < 0) {
			pending_release(r);
			return -1;
		}
	pending_release(r);
	if (cache_update_snapshot(r->cache, r->snap, e) < 0)
		return -1;
	fw_node_list_from_snapshot(r->snap, list);
	fw_cycle_reset(r->cyc);
	return fw_schedule_pod(r->prof, r->cyc, list, pod, NULL, res, e);
}

/* --workload with DRA objects: the claim the resourceclaim controller generates for pod (op's
 * claimTemplate), added to the store. */
static int pod_claim_add(struct run *r, const struct wl_pods *op, const struct api_pod *pod, struct err *e)
{
	if (!op->claim_template)
		return 0;
	char *json = subst(op->claim_template, pod->meta.name, pod->meta.uid, NULL, 0);
	if (!json)
		return err_set(e, ERR_NOMEM, "bench_cycle: claim of %s", pod->meta.name);
	int rc = dra_claim_add(&r->dra, json, e);
	free(json);
	return rc;
}

/* The pod's generated claims leave the store (the controller deletes them with the pod). */
static void pod_claim_delete(struct run *r, const struct wl_pods *op, const struct api_pod *pod)
{
	for (uint32_t k = 0; op->claim_template && k < pod->n_resource_claim_statuses; k++)
		if (pod->resource_claim_statuses[k].resource_claim_name)
			dra_claim_delete(&r->dra, pod->meta.namespace, pod->resource_claim_statuses[k].resource_claim_name);
}

static bool run_has_dra(const struct run *r)
{
	return r->o.workload && (r->wl.n_slices || r->wl.n_claims || r->wl.n_classes);
}

/* Reserve of a pod assumed on host (part of the scheduling cycle): 1 placed, 0 rejected (then
 * Unreserve and the pod forgotten, as the scheduler does), -1 error. */
static int reserve_pod(struct run *r, const struct api_pod *pod, const char *host, struct err *e)
{
	struct fw_status st;
	if (fw_run_reserve(r->prof, r->cyc, pod, host, &st) == FW_SUCCESS)
		return 1;
	char msg[FW_STATUS_TEXT_MAX];
	fprintf(stderr, "bench_cycle: Reserve of %s on %s: %s\n", pod->meta.name, host,
		fw_status_message(&st, msg, sizeof(msg)));
	fw_run_unreserve(r->prof, r->cyc, pod, host);
	return cache_forget_pod(r->cache, pod, host, e) < 0 ? -1 : 0;
}

/* PreBind of a reserved pod: DynamicResources writes its claims into the store. */
static int pre_bind_pod(struct run *r, const struct api_pod *pod, const char *host, struct err *e)
{
	struct fw_status st;
	if (fw_run_pre_bind(r->prof, r->cyc, pod, host, &st) == FW_SUCCESS)
		return 0;
	char msg[FW_STATUS_TEXT_MAX];
	return err_set(e, ERR_INVALID, "bench_cycle: PreBind of %s on %s: %s", pod->meta.name, host,
		       fw_status_message(&st, msg, sizeof(msg)));
}

/* One pod as the scheduler thread does it: refresh the snapshot, schedule, assume. */
static int run_one(struct run *r, int i, struct fw_node_list *list, struct fw_schedule_result *res, struct err *e)
{
	const struct wl_pods *op = run_has_dra(r) ? workload_measured(&r->wl) : NULL;
	int64_t tc = now_ns();
	if (op && pod_claim_add(r, op, r->pods[i], e) < 0)
		return -1;
	int64_t t0 = now_ns();
	r->untimed_ns += t0 - tc;
	if (cache_update_snapshot(r->cache, r->snap, e) < 0)
		return -1;
	fw_node_list_from_snapshot(r->snap, list);
	fw_cycle_reset(r->cyc);
	int64_t t1 = now_ns();
	if (fw_schedule_pod(r->prof, r->cyc, list, r->pods[i], NULL, res, e) < 0)
		return -1;
	int64_t t2 = now_ns();
	if (res->code == FW_UNSCHEDULABLE && fw_profile_has_post_filter(r->prof) && preempt(r, r->pods[i], list, res, e) < 0)
		return -1;
	int placed = 0;
	if (res->code == FW_SUCCESS) {
		if (cache_assume_pod(r->cache, r->pods[i], res->suggested_host, e) < 0)
			return -1;
		placed = op ? reserve_pod(r, r->pods[i], res->suggested_host, e) : 1;
		if (placed < 0)
			return -1;
	}
	if (placed)
		r->chosen[i] = res->suggested_host;
	else
		r->unschedulable++;
	r->evaluated += res->evaluated_nodes;
	r->dec_eval[i] = res->evaluated_nodes;
	r->dec_feas[i] = res->feasible_nodes;
	int64_t tb = now_ns();
	r->cycle_ns[i] = tb - t0;
	r->algo_ns[i] = t2 - t1;
	if (!op)
		return 0;
	/* the binding cycle (another thread in the scheduler) and the controller: untimed */
	if (placed && pre_bind_pod(r, r->pods[i], res->suggested_host, e) < 0)
		return -1;
	if (op->steady) {
		if (placed && cache_forget_pod(r->cache, r->pods[i], res->suggested_host, e) < 0)
			return -1;
		pod_claim_delete(r, op, r->pods[i]);
	}
	r->untimed_ns += now_ns() - tb;
	return 0;
}

/* The next churn pod's cycle (timed by the caller's loop), preemption included, as run_one's. An
 * unschedulable churn pod is dropped: the scheduler would retry it, after the loop here. */
static int run_churn(struct run *r, struct fw_node_list *list, struct fw_schedule_result *res, struct err *e)
{
	char name[32];
	if (r->n_churn == r->cap_churn) {
		uint32_t cap = r->cap_churn ? 2 * r->cap_churn : 64;
		struct api_pod **np = realloc(r->churn_pods, cap * sizeof(*np));
		if (!np)
			return err_set(e, ERR_NOMEM, "bench_cycle: churn pods");
		r->churn_pods = np;
		r->cap_churn = cap;
	}
	snprintf(name, sizeof(name), "churn-pod-%u", r->n_churn);
	struct api_pod *p = workload_pod(&r->wl.churn, name, (int)r->n_churn);
	if (!p)
		return err_set(e, ERR_INVALID, "bench_cycle: churn pod %s", name);
	r->churn_pods[r->n_churn++] = p;
	if (cache_update_snapshot(r->cache, r->snap, e) < 0)
		return -1;
	fw_node_list_from_snapshot(r->snap, list);
	fw_cycle_reset(r->cyc);
	if (fw_schedule_pod(r->prof, r->cyc, list, p, NULL, res, e) < 0)
		return -1;
	if (res->code == FW_UNSCHEDULABLE && fw_profile_has_post_filter(r->prof) && preempt(r, p, list, res, e) < 0)
		return -1;
	if (res->code != FW_SUCCESS)
		return 0;
	r->churn_placed++;
	return cache_assume_pod(r->cache, p, res->suggested_host, e);
}

/* --workload: the initial pods, each scheduled and assumed as the measured ones are (untimed). */
static int run_init(struct run *r, struct fw_node_list *list, struct fw_schedule_result *res, struct err *e)
{
	int64_t t0 = now_ns();
	bool dra = run_has_dra(r);
	uint32_t op = 0;
	int op_end = r->wl.n_pod_ops > 1 ? r->wl.pod_ops[0].count : 0;
	for (int i = 0; i < r->n_init; i++) {
		while (dra && i >= op_end && op + 2 < r->wl.n_pod_ops)
			op_end += r->wl.pod_ops[++op].count;
		if (dra && pod_claim_add(r, &r->wl.pod_ops[op], r->init_pods[i], e) < 0)
			return -1;
		if (cache_update_snapshot(r->cache, r->snap, e) < 0)
			return -1;
		fw_node_list_from_snapshot(r->snap, list);
		fw_cycle_reset(r->cyc);
		if (fw_schedule_pod(r->prof, r->cyc, list, r->init_pods[i], NULL, res, e) < 0)
			return -1;
		int placed = 0;
		if (res->code == FW_SUCCESS) {
			if (cache_assume_pod(r->cache, r->init_pods[i], res->suggested_host, e) < 0)
				return -1;
			placed = dra ? reserve_pod(r, r->init_pods[i], res->suggested_host, e) : 1;
			if (placed < 0 || (placed && dra && pre_bind_pod(r, r->init_pods[i], res->suggested_host, e) < 0))
				return -1;
		}
		if (!placed)
			r->init_unschedulable++;
	}
	r->init_ns = now_ns() - t0;
	return 0;
}

/* The measured loop. */
static int run_loop(struct run *r, struct err *e)
{
	struct fw_node_list list;
	struct fw_schedule_result *res = calloc(1, sizeof(*res));
	if (!res)
		return err_set(e, ERR_NOMEM, "bench_cycle: result");
	if (run_init(r, &list, res, e) < 0) {
		free(res);
		err_prefix(e, "bench_cycle: initial pods");
		return -1;
	}
	int64_t t_all = now_ns(), tick = (int64_t)r->wl.churn_interval_ms * 1000000, next_churn = tick;
	for (int i = 0; i < r->o.pods; i++) {
		int64_t timed = now_ns() - t_all - r->untimed_ns;
		if (r->wl.churn.template && timed >= next_churn) {
			if (run_churn(r, &list, res, e) < 0)
				break;
			next_churn = (timed / tick + 1) * tick;
		}
		if (run_one(r, i, &list, res, e) < 0)
			break;
	}
	r->total_ns = now_ns() - t_all - r->untimed_ns;
	free(res);
	if (e->code) {
		err_prefix(e, "bench_cycle: scheduling loop");
		return -1;
	}
	return 0;
}

static int write_decisions(const struct run *r, struct err *e)
{
	FILE *df = fopen(r->o.dump, "w");
	if (!df)
		return err_set(e, ERR_IO, "bench_cycle: %s: cannot write", r->o.dump);
	for (int i = 0; i < r->o.pods; i++)
		fprintf(df, "%s %s %u %u\n", r->pods[i]->meta.name, r->chosen[i] ? r->chosen[i] : "-", r->dec_eval[i],
			r->dec_feas[i]);
	if (fclose(df) != 0)
		return err_set(e, ERR_IO, "bench_cycle: %s: write failed", r->o.dump);
	return 0;
}

/* The breakdown, single-threaded: the pods above stay assumed, so these pods see partly
 * filled nodes, as in a running cluster. They are not assumed themselves. */
static int run_breakdown(struct run *r, struct err *e)
{
	struct fw_node_list list;
	uint32_t start = 0;
	for (int i = 0; i < r->o.breakdown_pods; i++) {
		char name[32];
		snprintf(name, sizeof(name), "breakdown-%d", i);
		/* index as a measured pod's (wrapped): a pod template's claims by index (test-claim-<k/5>)
		 * exist for those */
		struct api_pod *p = r->o.workload ? workload_pod(workload_measured(&r->wl), name, i % r->o.pods)
						  : make_pod(r->o.pods + i, r->o.mixed);
		if (!p)
			return err_set(e, ERR_INVALID, "bench_cycle: pod %s", name);
		const struct wl_pods *op = run_has_dra(r) ? workload_measured(&r->wl) : NULL;
		int rc = op ? pod_claim_add(r, op, p, e) : 0;
		if (rc == 0)
			rc = cache_update_snapshot(r->cache, r->snap, e);
		if (rc == 0) {
			fw_node_list_from_snapshot(r->snap, &list);
			rc = breakdown_pod(r->bd, r->prof, r->cyc, &list, p, &start, r->o.pct, e);
		}
		if (op)
			pod_claim_delete(r, op, p);
		api_pod_unref(p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void print_summary(const struct run *r, double pods_per_s)
{
	const struct opts *o = &r->o;
	size_t n = (size_t)o->pods;
	if (o->workload) {
		printf("bench_cycle: workload %s: %d initial pods in %.2f s (%" PRIu64 " unschedulable)", r->wl.name, r->n_init,
		       (double)r->init_ns / 1e9, r->init_unschedulable);
		if (r->wl.threshold)
			printf("; upstream's CI floor %d pods/s, this run %.1fx it", r->wl.threshold,
			       pods_per_s / r->wl.threshold);
		printf("\n");
	}
	printf("bench_cycle: %d nodes, %d pods, parallelism %d: %.0f pods/s; cycle p50 %.1f us p99 %.1f us "
	       "(fw_schedule_pod alone p50 %.1f us p99 %.1f us); %.0f nodes evaluated per pod; %" PRIu64 " unschedulable\n",
	       o->nodes, o->pods, o->parallelism, pods_per_s, pct_of(r->cycle_ns, n, 50) / 1e3,
	       pct_of(r->cycle_ns, n, 99) / 1e3, pct_of(r->algo_ns, n, 50) / 1e3, pct_of(r->algo_ns, n, 99) / 1e3,
	       (double)r->evaluated / o->pods, r->unschedulable);
	if (r->n_churn)
		printf("bench_cycle: churn: %u pods created (one every %d ms of the loop), %" PRIu64 " placed\n", r->n_churn,
		       r->wl.churn_interval_ms, r->churn_placed);
	if (r->preemptions)
		printf("bench_cycle: %" PRIu64 " pods placed by preemption, %" PRIu64 " victims evicted\n", r->preemptions,
		       r->victims);
	if (!r->bd->pods)
		return;
	printf("per extension point and plugin, single-threaded, us per pod (%" PRIu64 " pods):\n", r->bd->pods);
	for (size_t i = 0; i < r->bd->n; i++)
		printf("  %-15s %-32s %9.1f\n", r->bd->rows[i].point, r->bd->rows[i].plugin,
		       (double)r->bd->rows[i].ns / 1e3 / (double)r->bd->pods);
}

static int write_json(const struct run *r, double pods_per_s, struct err *e)
{
	const struct opts *o = &r->o;
	const struct breakdown *bd = r->bd;
	size_t n = (size_t)o->pods;
	FILE *jf = fopen(o->json, "w");
	if (!jf)
		return err_set(e, ERR_IO, "bench_cycle: %s: cannot write", o->json);
	fprintf(jf, "{\"workload\": \"%s\", \"threshold\": %d, \"init_pods\": %d, \"init_unschedulable\": %" PRIu64 ",\n ",
		o->workload ? r->wl.name : "", r->wl.threshold, r->n_init, r->init_unschedulable);
	fprintf(jf, "\"nodes\": %d, \"pods\": %d, \"parallelism\": %d, \"percentageOfNodesToScore\": %d,\n"
		    " \"pods_per_s\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f, \"algo_p50_us\": %.1f, \"algo_p99_us\": %.1f,\n"
		    " \"evaluated_nodes\": %.0f, \"unschedulable\": %" PRIu64 ", \"preemptions\": %" PRIu64
		    ", \"victims\": %" PRIu64 ", \"churn_pods\": %u, \"churn_placed\": %" PRIu64
		    ", \"breakdown_pods\": %" PRIu64 ",\n"
		    " \"extension_points\": [",
		o->nodes, o->pods, o->parallelism, o->pct, pods_per_s, pct_of(r->cycle_ns, n, 50) / 1e3,
		pct_of(r->cycle_ns, n, 99) / 1e3, pct_of(r->algo_ns, n, 50) / 1e3, pct_of(r->algo_ns, n, 99) / 1e3,
		(double)r->evaluated / o->pods, r->unschedulable, r->preemptions, r->victims, r->n_churn,
		r->churn_placed, bd->pods);
	for (size_t i = 0; i < bd->n; i++)
		fprintf(jf, "%s\n  {\"point\": \"%s\", \"plugin\": \"%s\", \"us_per_pod\": %.2f}", i ? "," : "",
			bd->rows[i].point, bd->rows[i].plugin, (double)bd->rows[i].ns / 1e3 / (double)(bd->pods ? bd->pods : 1));
	fprintf(jf, "]}\n");
	if (fclose(jf) != 0)
		return err_set(e, ERR_IO, "bench_cycle: %s: write failed", o->json);
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	struct err e = { 0 };
	int rc = 1;
	if (parse_args(argc, argv, &r.o) < 0)
		return 2;
	if (r.o.workload) {
		if (workload_load(&r.wl, r.o.workload, &e) < 0)
			goto out;
		if (!workload_measured(&r.wl) || !r.wl.n_nodes || workload_measured(&r.wl)->count < 1) {
			err_set(&e, ERR_INVALID, "bench_cycle: %s: no nodes or no measured pods", r.o.workload);
			goto out;
		}
		if (r.o.churn_interval_ms > 0 && r.wl.churn.template)
			r.wl.churn_interval_ms = r.o.churn_interval_ms;
		r.o.nodes = (int)r.wl.n_nodes;
		r.o.pods = workload_measured(&r.wl)->count;
	}
	if (run_alloc(&r, &e) < 0 || run_setup(&r, &e) < 0 || run_loop(&r, &e) < 0)
		goto out;
	if (r.o.dump && write_decisions(&r, &e) < 0)
		goto out;
	if (run_breakdown(&r, &e) < 0)
		goto out;
	qsort(r.cycle_ns, (size_t)r.o.pods, sizeof(*r.cycle_ns), cmp_i64);
	qsort(r.algo_ns, (size_t)r.o.pods, sizeof(*r.algo_ns), cmp_i64);
	double pods_per_s = (double)r.o.pods / ((double)r.total_ns / 1e9);
	print_summary(&r, pods_per_s);
	if (r.o.json && write_json(&r, pods_per_s, &e) < 0)
		goto out;
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "%s\n", e.msg[0] ? e.msg : "bench_cycle: failed");
	run_release(&r);
	return rc;
}
