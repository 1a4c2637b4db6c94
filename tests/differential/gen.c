/* The differential test's state generator: a seed -> one small random cluster state (nodes, bound
 * pods, the pod to schedule, the KubeSchedulerConfiguration both sides run), as the JSON objects
 * an API server would hand the scheduler after defaulting (requests without limits except where
 * validation wants both, explicit protocol, allocatable present), so that the oracle's
 * defaulting adds nothing csched's informer would not also see. See README.md. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/framework.h"

/* splitmix64: tiny, seedable, and the same on every platform. */
static uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static int r_int(struct gen *g, int n) { return n <= 1 ? 0 : (int)(rnd(g) % (uint64_t)n); }
static bool r_pct(struct gen *g, int pct) { return r_int(g, 100) < pct; }
#define PICK(g, arr) ((arr)[r_int((g), (int)(sizeof(arr) / sizeof((arr)[0])))])

/* JSON string literal of s. */
void gen_json_str(struct strbuf *sb, const char *s)
{
	strbuf_puts(sb, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			strbuf_addf(sb, "\\%c", ch);
		else if (ch == '\n')
			strbuf_puts(sb, "\\n");
		else if (ch < 0x20)
			strbuf_addf(sb, "\\u%04x", ch);
		else
			strbuf_add(sb, s, 1);
	}
	strbuf_puts(sb, "\"");
}

/* ---------- Vocabulary ---------- */

static const char *const zones[] = { "zone-a", "zone-b", "zone-c" };
static const char *const taint_keys[] = { "dedicated", "gpu", "maintenance", "example.com/flaky" };
static const char *const taint_values[] = { "", "a", "b" };
static const char *const effects[] = { "NoSchedule", "NoExecute", "PreferNoSchedule" };
/* label keys with their values (tier is numeric for Gt/Lt) */
struct label_kind {
	const char *key;
	const char *values[4];
	int n;
};
static const struct label_kind label_kinds[] = {
	{ "disk", { "ssd", "hdd" }, 2 },
	{ "gpu", { "true", "false" }, 2 },
	{ "tier", { "1", "3", "5", "9" }, 4 },
	{ "example.com/pool", { "a", "b", "c" }, 3 },
};

/* Node-side images: names as a kubelet reports them (one may lack a tag). */
struct image {
	const char *names[2];
	int64_t size;
};
static const struct image images[] = {
	{ { "docker.io/library/nginx:1.25", "nginx:1.25" }, 190LL << 20 },
	{ { "registry.k8s.io/pause:3.10", NULL }, 700LL << 10 },
	{ { "docker.io/library/busybox:latest", NULL }, 4LL << 20 },
	{ { "quay.io/prometheus/prometheus", NULL }, 250LL << 20 },
	{ { "gcr.io/big/model:v1", NULL }, 2000LL << 20 },
	{ { "example.com/app:v2", "example.com/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" },
	  50LL << 20 },
	{ { "docker.io/library/redis:7", NULL }, 120LL << 20 },
	{ { "docker.io/library/postgres:16", NULL }, 400LL << 20 },
};
/* Pod-side image references (normalisation: untagged -> :latest, docker.io/library/ prefix). */
static const char *const pod_images[] = {
	"nginx:1.25", "docker.io/library/nginx:1.25", "nginx", "registry.k8s.io/pause:3.10", "busybox",
	"busybox:latest", "quay.io/prometheus/prometheus", "quay.io/prometheus/prometheus:latest",
	"gcr.io/big/model:v1", "example.com/app:v2", "redis:7", "postgres:16", "unknown.example/img:1",
};

/* status.declaredFeatures names, sorted as the API server requires (validation.go
 * validateNodeDeclaredFeatures rejects an unsorted list): the three features a pod's spec can
 * require (component-helpers nodedeclaredfeatures), others known to the registry, and unknown
 * names that upstream's TryMap skips. */
static const char *const node_features[] = {
	"CustomFeature", "DRANodeAllocatableResources", "ExtendWebSocketsToKubelet",
	"InPlacePodVerticalScalingInitContainers", "RestartAllContainersOnContainerExits",
	"UserNamespacesHostNetworkSupport", "Vendor/fastPath", "VolumeBindMountOptions", "ZetaFeature",
};

/* ---------- Objects ---------- */

static void comma(struct strbuf *sb, bool *first)
{
	if (!*first)
		strbuf_puts(sb, ",");
	*first = false;
}

/* ---------- Pod topology: the second stream (g->t, used only when g->topo) ---------- */

static uint64_t trnd(struct gen *g)
{
	uint64_t z = (g->t += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static int t_int(struct gen *g, int n) { return n <= 1 ? 0 : (int)(trnd(g) % (uint64_t)n); }
static bool t_pct(struct gen *g, int pct) { return t_int(g, 100) < pct; }
#define TPICK(g, arr) ((arr)[t_int((g), (int)(sizeof(arr) / sizeof((arr)[0])))])

/* ---------- Preemption: the third stream (g->p, used only when g->preempt) ---------- */

static uint64_t prnd(struct gen *g)
{
	uint64_t z = (g->p += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static int p_int(struct gen *g, int n) { return n <= 1 ? 0 : (int)(prnd(g) % (uint64_t)n); }
static bool p_pct(struct gen *g, int pct) { return p_int(g, 100) < pct; }
#define PPICK(g, arr) ((arr)[p_int((g), (int)(sizeof(arr) / sizeof((arr)[0])))])
#define NO_PRIORITY (-1000000) /* spec.priority absent (0 to the scheduler) */

/* ---------- Volume objects: the fourth stream (g->v, used only when g->vol) ---------- */

static uint64_t vrnd(struct gen *g)
{
	uint64_t z = (g->v += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static int v_int(struct gen *g, int n) { return n <= 1 ? 0 : (int)(vrnd(g) % (uint64_t)n); }
static bool v_pct(struct gen *g, int pct) { return v_int(g, 100) < pct; }
#define VPICK(g, arr) ((arr)[v_int((g), (int)(sizeof(arr) / sizeof((arr)[0])))])

/* A bound pod's priority (spread around the pending pod's, so that some are victims and some
 * not; negative ones test upstream's sum of priorities with MaxInt32+1 added) and its
 * status.startTime: the minute random, the second the pod's index on its node, so that pods of
 * one node never start at once (upstream orders victims by priority then start time,
 * util.MoreImportantPod, and a pod without startTime counts as started now: neither may leave
 * the order to chance) while pods of different nodes may (ties of pickOneNodeForPreemption's
 * last criterion, the latest start time). low: one of a few low priorities (absent = 0), so
 * that candidates of different nodes often tie (more so in guarded states, where only the
 * filler pods are victims). Writes `"priority":N,` into spec; *start gets
 * the time. */
static void put_bound_priority(struct gen *g, struct strbuf *sb, char start[32], bool low)
{
	static const int prios[] = { NO_PRIORITY, NO_PRIORITY, 0, 1, 1, 3, 5, 10, 10, 100, 1000, -5 };
	static const int low_prios[] = { NO_PRIORITY, 0, 0, 1 };
	int prio = low ? PPICK(g, low_prios) : PPICK(g, prios);
	if (g->guarded && !low)
		prio = 2000; /* above every pending pod's */
	if (prio != NO_PRIORITY)
		strbuf_addf(sb, "\"priority\":%d,", prio);
	int minute = low || p_pct(g, 60) ? 0 : 1 + p_int(g, 2);
	snprintf(start, 32, "2026-01-01T00:%02d:%02dZ", minute, g->node_pod_k % 60);
}

/* Pod labels the selectors of affinity terms, spread constraints and owners read. */
static const struct label_kind pod_label_kinds[GEN_POD_LABEL_KINDS] = {
	{ "app", { "web", "db", "cache" }, 3 },
	{ "version", { "v1", "v2" }, 2 },
	{ "team", { "a", "b", "" }, 3 }, /* "": present, empty (not absent) */
	{ "example.com/role", { "x", "y" }, 2 },
};
/* Pods' namespaces (Namespace objects exist for some); "ghost" only in terms' namespace lists. */
static const char *const pod_namespaces[] = { "default", "other", "prod", "dev" };
static const char *const term_namespaces[] = { "default", "other", "prod", "dev", "ghost" };
/* Topology keys: hostname (some nodes lack it, some have another value than their name), zone
 * (20% lack it), region (derived from the zone, sometimes absent), a rack key half the nodes
 * have. */
static const char *const topo_keys[] = {
	"kubernetes.io/hostname", "kubernetes.io/hostname", "topology.kubernetes.io/zone",
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "example.com/rack",
};

/* The topology labels of a node beyond hostname and zone (which gen_node writes). */
static void put_node_topology(struct gen *g, struct strbuf *sb, const char *zone)
{
	const char *region = NULL;
	if (zone && t_pct(g, 90))
		region = !strcmp(zone, "zone-c") ? "region-2" : "region-1";
	else if (!zone && t_pct(g, 50))
		region = t_pct(g, 50) ? "region-1" : "region-2";
	if (region)
		strbuf_addf(sb, ",\"topology.kubernetes.io/region\":\"%s\"", region);
	if (t_pct(g, 50)) { /* an empty value is a domain of its own, not a missing key */
		static const char *const racks[] = { "r1", "r2", "r1", "r2", "" };
		strbuf_addf(sb, ",\"example.com/rack\":\"%s\"", TPICK(g, racks));
	}
}

/* The labels of the pod being generated (into g->pod_labels) as `,"labels":{...}`. */
static void put_pod_labels(struct gen *g, struct strbuf *sb)
{
	bool first = true;
	for (int k = 0; k < GEN_POD_LABEL_KINDS; k++) {
		g->pod_labels[k] = t_pct(g, k ? 55 : 80) ? t_int(g, pod_label_kinds[k].n) : -1;
		if (g->pod_labels[k] < 0)
			continue;
		strbuf_puts(sb, first ? ",\"labels\":{" : ",");
		first = false;
		gen_json_str(sb, pod_label_kinds[k].key);
		strbuf_puts(sb, ":");
		gen_json_str(sb, pod_label_kinds[k].values[g->pod_labels[k]]);
	}
	if (!first)
		strbuf_puts(sb, "}");
}

/* A value of pod label kind k: mostly the current pod's own (so that selectors match it). */
static const char *pod_label_value(struct gen *g, int k)
{
	if (g->pod_labels[k] >= 0 && t_pct(g, 60))
		return pod_label_kinds[k].values[g->pod_labels[k]];
	return pod_label_kinds[k].values[t_int(g, pod_label_kinds[k].n)];
}

/* One matchExpressions entry over pod label kind k, every operator, into sb. */
static void put_pod_expr(struct gen *g, struct strbuf *sb, int k)
{
	static const char *const ops[] = { "In", "In", "NotIn", "Exists", "DoesNotExist" };
	const char *op = TPICK(g, ops);
	strbuf_puts(sb, "{\"key\":");
	gen_json_str(sb, pod_label_kinds[k].key);
	strbuf_addf(sb, ",\"operator\":\"%s\"", op);
	if (op[0] == 'I' || op[0] == 'N') {
		strbuf_puts(sb, ",\"values\":[");
		gen_json_str(sb, pod_label_value(g, k));
		if (t_pct(g, 30)) {
			strbuf_puts(sb, ",");
			gen_json_str(sb, pod_label_kinds[k].values[t_int(g, pod_label_kinds[k].n)]);
		}
		strbuf_puts(sb, "]");
	}
	strbuf_puts(sb, "}");
}

/* A user-written LabelSelector over pod labels: its matchLabels into ml and matchExpressions into
 * ex (without braces); returns the mask of label kinds it names. 10%: empty (matches all). */
static unsigned pod_selector_parts(struct gen *g, struct strbuf *ml, struct strbuf *ex)
{
	unsigned used = 0;
	int shape = t_int(g, 10); /* 0: {}, 1..4 matchLabels, 5..8 matchExpressions, 9 both */
	if (shape >= 1 && (shape <= 4 || shape == 9)) {
		int n = 1 + t_pct(g, 30), k0 = t_int(g, GEN_POD_LABEL_KINDS);
		for (int i = 0; i < n; i++) {
			int k = (k0 + i) % GEN_POD_LABEL_KINDS;
			strbuf_puts(ml, i ? "," : "");
			gen_json_str(ml, pod_label_kinds[k].key);
			strbuf_puts(ml, ":");
			gen_json_str(ml, pod_label_value(g, k));
			used |= 1u << k;
		}
	}
	if (shape >= 5) {
		int n = 1 + t_pct(g, 35);
		for (int i = 0; i < n; i++) {
			int k = t_int(g, GEN_POD_LABEL_KINDS);
			strbuf_puts(ex, ex->len ? "," : "");
			put_pod_expr(g, ex, k);
			used |= 1u << k;
		}
	}
	return used;
}

/* Appends `"key":[...]` of the label kinds in mask. */
static void put_key_list(struct strbuf *sb, const char *field, unsigned mask)
{
	strbuf_addf(sb, ",\"%s\":[", field);
	bool first = true;
	for (int k = 0; k < GEN_POD_LABEL_KINDS; k++)
		if (mask & (1u << k)) {
			comma(sb, &first);
			gen_json_str(sb, pod_label_kinds[k].key);
		}
	strbuf_puts(sb, "]");
}

/* `,"labelSelector":{...}` over pod labels (absent 6% when may_be_absent) with matchLabelKeys and
 * (when mismatch) mismatchLabelKeys, mostly written as the API server returns the pod: it appends
 * `key In (value)` / `key NotIn (value)` for each such key the pod has (registry/core/pod/
 * strategy.go applyLabelKeysToLabelSelector); unmerged_pct of them unmerged, as an API server
 * older than the merge wrote them (MatchLabelKeysInPodTopologySpreadSelectorMerge is v1.34;
 * upstream's PodTopologySpread merges the keys itself, InterPodAffinity does not). Validation
 * forbids a matchLabelKeys key that the user's selector names, a key in both lists, and either
 * list without a selector (ValidateMatchLabelKeysAndMismatchLabelKeys). */
static void put_pod_selector(struct gen *g, struct strbuf *sb, bool may_be_absent, bool mismatch, int unmerged_pct)
{
	if (may_be_absent && t_pct(g, 6))
		return;
	struct strbuf ml = STRBUF_INIT, ex = STRBUF_INIT;
	unsigned used = pod_selector_parts(g, &ml, &ex), match = 0, mis = 0;
	if (t_pct(g, 25))
		match = (1u + (unsigned)t_int(g, 15)) & ~used;
	if (mismatch && t_pct(g, 15))
		mis = (1u + (unsigned)t_int(g, 15)) & ~match;
	bool merge = (match || mis) && !t_pct(g, unmerged_pct);
	for (int pass = 0; merge && pass < 2; pass++)
		for (int k = 0; k < GEN_POD_LABEL_KINDS; k++)
			if (((pass ? mis : match) & (1u << k)) && g->pod_labels[k] >= 0) {
				strbuf_puts(&ex, ex.len ? "," : "");
				strbuf_puts(&ex, "{\"key\":");
				gen_json_str(&ex, pod_label_kinds[k].key);
				strbuf_addf(&ex, ",\"operator\":\"%s\",\"values\":[", pass ? "NotIn" : "In");
				gen_json_str(&ex, pod_label_kinds[k].values[g->pod_labels[k]]);
				strbuf_puts(&ex, "]}");
			}
	strbuf_puts(sb, ",\"labelSelector\":{");
	if (ml.data)
		strbuf_addf(sb, "\"matchLabels\":{%s}", ml.data);
	if (ex.data)
		strbuf_addf(sb, "%s\"matchExpressions\":[%s]", ml.data ? "," : "", ex.data);
	strbuf_puts(sb, "}");
	if (match)
		put_key_list(sb, "matchLabelKeys", match);
	if (mis)
		put_key_list(sb, "mismatchLabelKeys", mis);
	strbuf_release(&ml);
	strbuf_release(&ex);
}

/* A namespaceSelector over the Namespace objects' labels (env, team, kubernetes.io/metadata.name). */
static void put_namespace_selector(struct gen *g, struct strbuf *sb)
{
	static const char *const envs[] = { "prod", "dev", "test" };
	strbuf_puts(sb, ",\"namespaceSelector\":{");
	switch (t_int(g, 6)) {
	case 0:
	case 1: /* {}: every namespace */
		break;
	case 2:
		strbuf_addf(sb, "\"matchLabels\":{\"env\":\"%s\"}", TPICK(g, envs));
		break;
	case 3:
		strbuf_addf(sb, "\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"%s\",\"values\":[\"%s\"]}]",
			    t_pct(g, 50) ? "In" : "NotIn", TPICK(g, envs));
		break;
	case 4:
		strbuf_addf(sb, "\"matchExpressions\":[{\"key\":\"team\",\"operator\":\"%s\"}]",
			    t_pct(g, 50) ? "Exists" : "DoesNotExist");
		break;
	default:
		strbuf_addf(sb, "\"matchLabels\":{\"kubernetes.io/metadata.name\":\"%s\"}", TPICK(g, term_namespaces));
	}
	strbuf_puts(sb, "}");
}

/* One PodAffinityTerm: topology key, selector (with match/mismatchLabelKeys), namespaces,
 * namespaceSelector. */
static void put_affinity_term(struct gen *g, struct strbuf *sb)
{
	strbuf_puts(sb, "{\"topologyKey\":");
	gen_json_str(sb, TPICK(g, topo_keys));
	put_pod_selector(g, sb, true, true, 10);
	if (t_pct(g, 30)) {
		int n = 1 + t_pct(g, 40), k0 = t_int(g, 5);
		strbuf_puts(sb, ",\"namespaces\":[");
		for (int i = 0; i < n; i++) {
			strbuf_puts(sb, i ? "," : "");
			gen_json_str(sb, term_namespaces[(k0 + 2 * i) % 5]);
		}
		strbuf_puts(sb, "]");
	}
	if (t_pct(g, 30))
		put_namespace_selector(g, sb);
	strbuf_puts(sb, "}");
}

/* podAffinity / podAntiAffinity of the pod being generated, each of their four lists present with
 * probability pct, into sb as `"podAffinity":{...},"podAntiAffinity":{...}`; false if none. */
static bool put_pod_affinity(struct gen *g, struct strbuf *sb, int pct)
{
	bool any = false;
	for (int anti = 0; anti < 2; anti++) {
		bool req = t_pct(g, pct), pref = t_pct(g, pct);
		if (!req && !pref)
			continue;
		strbuf_addf(sb, "%s\"%s\":{", any ? "," : "", anti ? "podAntiAffinity" : "podAffinity");
		any = true;
		if (req) {
			int n = 1 + t_pct(g, 30);
			strbuf_puts(sb, "\"requiredDuringSchedulingIgnoredDuringExecution\":[");
			for (int i = 0; i < n; i++) {
				strbuf_puts(sb, i ? "," : "");
				put_affinity_term(g, sb);
			}
			strbuf_puts(sb, "]");
		}
		if (pref) {
			int n = 1 + t_int(g, 3);
			strbuf_addf(sb, "%s\"preferredDuringSchedulingIgnoredDuringExecution\":[", req ? "," : "");
			for (int i = 0; i < n; i++) {
				strbuf_addf(sb, "%s{\"weight\":%d,\"podAffinityTerm\":", i ? "," : "",
					    t_pct(g, 20) ? 100 : 1 + t_int(g, 100));
				put_affinity_term(g, sb);
				strbuf_puts(sb, "}");
			}
			strbuf_puts(sb, "]");
		}
		strbuf_puts(sb, "}");
	}
	return any;
}

/* The pending pod's topologySpreadConstraints: 1-3, unique (topologyKey, whenUnsatisfiable) as
 * validation wants; minDomains only with DoNotSchedule (validateMinDomains); both node inclusion
 * policies; matchLabelKeys merged into the selector as the API server does
 * (MatchLabelKeysInPodTopologySpreadSelectorMerge, beta and on in v1.37). */
static void put_spread(struct gen *g, struct strbuf *sb)
{
	static const char *const policies[] = { "Honor", "Ignore" };
	static const int skews[] = { 1, 1, 1, 2, 3, 5 };
	int n = 1 + t_int(g, 3);
	unsigned seen = 0;
	bool first = true;
	strbuf_puts(sb, ",\"topologySpreadConstraints\":[");
	for (int i = 0; i < n; i++) {
		static const int canon[] = { 0, 0, 1, 1, 2, 3 }; /* topo_keys index -> distinct key */
		int ki = t_int(g, (int)(sizeof(topo_keys) / sizeof(topo_keys[0])));
		bool hard = t_pct(g, 55);
		unsigned bit = 1u << (canon[ki] * 2 + hard);
		if (seen & bit)
			continue;
		seen |= bit;
		comma(sb, &first);
		strbuf_addf(sb, "{\"maxSkew\":%d,\"topologyKey\":", TPICK(g, skews));
		gen_json_str(sb, topo_keys[ki]);
		strbuf_addf(sb, ",\"whenUnsatisfiable\":\"%s\"", hard ? "DoNotSchedule" : "ScheduleAnyway");
		put_pod_selector(g, sb, true, false, 35);
		if (hard && t_pct(g, 25))
			strbuf_addf(sb, ",\"minDomains\":%d", 1 + t_int(g, 4));
		if (t_pct(g, 30))
			strbuf_addf(sb, ",\"nodeAffinityPolicy\":\"%s\"", TPICK(g, policies));
		if (t_pct(g, 30))
			strbuf_addf(sb, ",\"nodeTaintsPolicy\":\"%s\"", TPICK(g, policies));
		strbuf_puts(sb, "}");
	}
	strbuf_puts(sb, "]");
}

/* The controllers a pod may name: the kinds DefaultSelector reads (apps/v1 ReplicaSet and
 * StatefulSet, v1 ReplicationController), one it does not (Deployment, Job) and a ReplicaSet
 * under another group version (helper/spread.go compares the GVK: not read). */
static const struct {
	const char *api_version, *kind, *name;
} owner_refs[] = {
	{ "apps/v1", "ReplicaSet", "rs-a" },
	{ "apps/v1", "ReplicaSet", "rs-b" },
	{ "apps/v1", "StatefulSet", "ss-a" },
	{ "v1", "ReplicationController", "rc-a" },
	{ "apps/v1", "Deployment", "web" },
	{ "batch/v1", "Job", "job-a" },
	{ "extensions/v1beta1", "ReplicaSet", "rs-a" },
};

/* `,"ownerReferences":[...]`: a controller reference (controller true mostly, sometimes false or
 * absent), sometimes after a non-controller one. */
static void put_owner_refs(struct gen *g, struct strbuf *sb)
{
	strbuf_puts(sb, ",\"ownerReferences\":[");
	if (t_pct(g, 15))
		strbuf_puts(sb, "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs-b\",\"uid\":\"uid-rs-b\"},");
	int i = t_int(g, (int)(sizeof(owner_refs) / sizeof(owner_refs[0])));
	i = i >= 4 && t_pct(g, 50) ? t_int(g, 4) : i; /* mostly a kind that is read */
	int c = t_int(g, 20);
	strbuf_addf(sb, "{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"name\":\"%s\",\"uid\":\"uid-%s\"%s}]",
		    owner_refs[i].api_version, owner_refs[i].kind, owner_refs[i].name, owner_refs[i].name,
		    c < 17 ? ",\"controller\":true,\"blockOwnerDeletion\":true" : c < 19 ? ",\"controller\":false" : "");
}

/* A map selector (Service, RC): mostly a subset of the pending pod's labels (so it selects it),
 * sometimes other values, sometimes {} (selects every pod). */
static void put_map_selector(struct gen *g, struct strbuf *sb)
{
	strbuf_puts(sb, "{");
	if (!t_pct(g, 12)) {
		bool first = true;
		int k0 = t_int(g, GEN_POD_LABEL_KINDS), n = 1 + t_pct(g, 40);
		for (int i = 0; i < n; i++) {
			int k = (k0 + i) % GEN_POD_LABEL_KINDS;
			comma(sb, &first);
			gen_json_str(sb, pod_label_kinds[k].key);
			strbuf_puts(sb, ":");
			gen_json_str(sb, pod_label_value(g, k));
		}
	}
	strbuf_puts(sb, "}");
}

static void add_owner(struct gen *g, enum gen_owner_kind kind, char *json)
{
	if (g->n_owners < GEN_MAX_OWNERS) {
		g->owner_kind[g->n_owners] = kind;
		g->owners[g->n_owners++] = json;
	} else {
		free(json);
	}
}

/* Services, RCs, ReplicaSets and StatefulSets, mostly in the pending pod's namespace pns (its
 * labels are in g->pod_labels): the objects of owner_refs that DefaultSelector may find. */
static void gen_owners(struct gen *g, const char *pns)
{
	int ns_svc = t_int(g, 4);
	for (int i = 0; i < ns_svc; i++) {
		struct strbuf sb = STRBUF_INIT;
		const char *ns = t_pct(g, 80) ? pns : TPICK(g, pod_namespaces);
		strbuf_addf(&sb,
			    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"svc-%d\",\"namespace\":\"%s\","
			    "\"uid\":\"uid-svc-%s-%d\"},\"spec\":{",
			    i, ns, ns, i);
		if (!t_pct(g, 10)) { /* absent: a Service without a selector selects nothing */
			strbuf_puts(&sb, "\"selector\":");
			put_map_selector(g, &sb);
			strbuf_puts(&sb, ",");
		}
		strbuf_puts(&sb, "\"ports\":[{\"port\":80,\"protocol\":\"TCP\",\"targetPort\":80}],\"type\":\"ClusterIP\"}}");
		add_owner(g, GEN_SERVICE, strbuf_detach(&sb, NULL));
	}
	for (int i = 0; i < 4; i++) { /* rs-a, rs-b, ss-a, rc-a */
		if (!t_pct(g, 65))
			continue;
		const char *ns = t_pct(g, 85) ? pns : TPICK(g, pod_namespaces);
		enum gen_owner_kind kind = i < 2 ? GEN_RS : i == 2 ? GEN_SS : GEN_RC;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
				 "\"uid\":\"uid-%s\"},\"spec\":{\"replicas\":3,\"selector\":",
			    owner_refs[i].api_version, owner_refs[i].kind, owner_refs[i].name, ns, owner_refs[i].name);
		if (kind == GEN_RC) {
			put_map_selector(g, &sb);
		} else {
			struct strbuf ml = STRBUF_INIT, ex = STRBUF_INIT;
			pod_selector_parts(g, &ml, &ex);
			strbuf_puts(&sb, "{");
			if (ml.data)
				strbuf_addf(&sb, "\"matchLabels\":{%s}", ml.data);
			if (ex.data)
				strbuf_addf(&sb, "%s\"matchExpressions\":[%s]", ml.data ? "," : "", ex.data);
			strbuf_puts(&sb, "}");
			strbuf_release(&ml);
			strbuf_release(&ex);
		}
		strbuf_puts(&sb, "}}");
		add_owner(g, kind, strbuf_detach(&sb, NULL));
	}
}

/* Namespace objects (some of pod_namespaces lack one) with the labels the API server sets
 * (kubernetes.io/metadata.name) and some of env, team. */
static void gen_namespaces(struct gen *g)
{
	static const char *const envs[] = { "prod", "dev", "test" };
	for (int i = 0; i < 4; i++) {
		if (!t_pct(g, i ? 70 : 90))
			continue;
		const char *name = pod_namespaces[i];
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb,
			    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\",\"uid\":\"uid-ns-%s\","
			    "\"labels\":{\"kubernetes.io/metadata.name\":\"%s\"",
			    name, name, name);
		if (t_pct(g, 70))
			strbuf_addf(&sb, ",\"env\":\"%s\"", TPICK(g, envs));
		if (t_pct(g, 50))
			strbuf_addf(&sb, ",\"team\":\"%c\"", 'a' + t_int(g, 2));
		strbuf_puts(&sb, "}},\"spec\":{\"finalizers\":[\"kubernetes\"]},\"status\":{\"phase\":\"Active\"}}");
		g->namespaces[g->n_namespaces++] = strbuf_detach(&sb, NULL);
	}
}

/* A node's integer resources (what its capacity lists; allocatable may be lower). */
struct gen_res {
	int cpu_m, mem_mi, pods, eph_gi, gpu, huge_mi;
	bool has_eph, has_gpu, has_huge;
};

static void put_res(struct strbuf *sb, const struct gen_res *r, int cpu_less, int mem_less)
{
	strbuf_addf(sb, "{\"cpu\":\"%dm\",\"memory\":\"%dMi\",\"pods\":\"%d\"", r->cpu_m - cpu_less,
		    r->mem_mi - mem_less, r->pods);
	if (r->has_eph)
		strbuf_addf(sb, ",\"ephemeral-storage\":\"%dGi\"", r->eph_gi);
	if (r->has_gpu)
		strbuf_addf(sb, ",\"example.com/gpu\":\"%d\"", r->gpu);
	if (r->has_huge)
		strbuf_addf(sb, ",\"hugepages-2Mi\":\"%dMi\"", r->huge_mi);
	strbuf_puts(sb, "}");
}

static char *gen_node(struct gen *g, int idx)
{
	static const int cpus[] = { 1000, 2000, 4000, 8000, 3500, 16000 };
	static const int mems[] = { 2048, 4096, 8192, 3000, 16384 };
	static const int podss[] = { 3, 10, 110 };
	struct strbuf sb = STRBUF_INIT;
	const char *name = g->node_names[idx];
	strbuf_puts(&sb, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":");
	gen_json_str(&sb, name);
	strbuf_addf(&sb, ",\"uid\":\"uid-node-%s\",\"labels\":{", name);
	if (!g->topo) {
		strbuf_puts(&sb, "\"kubernetes.io/hostname\":");
		gen_json_str(&sb, name);
	} else {
		/* some nodes lack the hostname label or carry another value than their name (a
		 * kubelet --hostname-override): InterPodAffinity reads the label, PodTopologySpread's
		 * scoring the node name */
		strbuf_puts(&sb, "\"kubernetes.io/os\":\"linux\"");
		int h = t_int(g, 100);
		if (h >= 6)
			strbuf_addf(&sb, ",\"kubernetes.io/hostname\":\"%s%s\"", h < 11 ? "host-" : "", name);
	}
	const char *zone = r_pct(g, 80) ? PICK(g, zones) : NULL;
	if (zone)
		strbuf_addf(&sb, ",\"topology.kubernetes.io/zone\":\"%s\"", zone);
	if (g->topo)
		put_node_topology(g, &sb, zone);
	for (size_t k = 0; k < sizeof(label_kinds) / sizeof(label_kinds[0]); k++)
		if (r_pct(g, 45)) {
			strbuf_puts(&sb, ",");
			gen_json_str(&sb, label_kinds[k].key);
			strbuf_puts(&sb, ":");
			gen_json_str(&sb, label_kinds[k].values[r_int(g, label_kinds[k].n)]);
		}
	strbuf_puts(&sb, "}},\"spec\":{");
	bool first = true;
	bool unschedulable = r_pct(g, 10);
	if (unschedulable) {
		comma(&sb, &first);
		strbuf_puts(&sb, "\"unschedulable\":true");
	}
	int nt = r_pct(g, 30) ? 1 + r_pct(g, 30) : 0;
	/* the node lifecycle controller taints a cordoned node (TaintNodeUnschedulable), mostly */
	bool unsched_taint = unschedulable && r_pct(g, 70);
	if (nt || unsched_taint) {
		comma(&sb, &first);
		strbuf_puts(&sb, "\"taints\":[");
		int k0 = r_int(g, 4), e0 = r_int(g, 3);
		for (int t = 0; t < nt; t++) {
			/* unique (key, effect), as validation requires: the second taint has another key,
			 * or the same key with another effect */
			bool same_key = t && r_pct(g, 30);
			int k = !t || same_key ? k0 : (k0 + 1 + r_int(g, 3)) % 4;
			int e = !t ? e0 : same_key ? (e0 + 1 + r_int(g, 2)) % 3 : r_int(g, 3);
			const char *v = PICK(g, taint_values);
			strbuf_addf(&sb, "%s{\"key\":\"%s\",%s%s%s\"effect\":\"%s\"}", t ? "," : "", taint_keys[k],
				    *v ? "\"value\":\"" : "", v, *v ? "\"," : "", effects[e]);
		}
		if (unsched_taint)
			strbuf_addf(&sb, "%s{\"key\":\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"}",
				    nt ? "," : "");
		strbuf_puts(&sb, "]");
	}
	strbuf_puts(&sb, "},\"status\":{");
	struct gen_res r = {
		.cpu_m = PICK(g, cpus), .mem_mi = PICK(g, mems), .pods = PICK(g, podss),
		.has_eph = r_pct(g, 70), .eph_gi = 10 + 40 * r_int(g, 2),
		.has_gpu = r_pct(g, 30), .gpu = r_int(g, 5),
		.has_huge = r_pct(g, 30), .huge_mi = 512 * r_int(g, 3),
	};
	/* preemption states: half the nodes twice as large, so that fewer pending pods exceed a
	 * node's whole allocatable (UnschedulableAndUnresolvable: nothing to preempt there) and the
	 * filler pods (gen_filler_pod) decide */
	if (g->preempt && p_pct(g, 50)) {
		r.cpu_m *= 2;
		r.mem_mi *= 2;
	}
	g->node_cpu_m[idx] = r.cpu_m;
	g->node_mem_mi[idx] = r.mem_mi;
	strbuf_puts(&sb, "\"capacity\":");
	put_res(&sb, &r, 0, 0);
	strbuf_puts(&sb, ",\"allocatable\":");
	static const int cpu_less[] = { 0, 0, 100, 250 }, mem_less[] = { 0, 0, 256 };
	put_res(&sb, &r, PICK(g, cpu_less), PICK(g, mem_less));
	int ni = r_int(g, 5);
	if (ni) {
		strbuf_puts(&sb, ",\"images\":[");
		int start = r_int(g, 8);
		for (int i = 0; i < ni; i++) {
			const struct image *im = &images[(start + i * 3) % 8]; /* distinct: 3 is prime to 8 */
			strbuf_addf(&sb, "%s{\"names\":[\"%s\"", i ? "," : "", im->names[0]);
			if (im->names[1])
				strbuf_addf(&sb, ",\"%s\"", im->names[1]);
			strbuf_addf(&sb, "],\"sizeBytes\":%lld}", (long long)im->size);
		}
		strbuf_puts(&sb, "]");
	}
	int df = r_int(g, 20); /* 0..6: absent, 7: empty, else a sorted subset */
	if (df >= 7) {
		strbuf_puts(&sb, ",\"declaredFeatures\":[");
		bool f1 = true;
		for (size_t i = 0; df > 7 && i < sizeof(node_features) / sizeof(node_features[0]); i++)
			if (r_pct(g, 55)) {
				comma(&sb, &f1);
				gen_json_str(&sb, node_features[i]);
			}
		strbuf_puts(&sb, "]");
	}
	strbuf_puts(&sb, "}}");
	return strbuf_detach(&sb, NULL);
}

/* A container's requests; limits only where validation wants them (extended resources and
 * hugepages: limits == requests). Adds the cpu/memory requested into *cpu_m / *mem_mi. */
static void put_container(struct gen *g, struct strbuf *sb, const char *name, bool sidecar, int port_pct,
			  int *cpu_m, int *mem_mi, bool big)
{
	static const int ports[] = { 80, 443, 8080, 9090 };
	static const char *const protos[] = { "TCP", "TCP", "UDP", "SCTP" };
	static const char *const host_ips[] = { "", "", "127.0.0.1", "0.0.0.0", "10.0.0.1" };
	strbuf_addf(sb, "{\"name\":\"%s\",\"image\":\"%s\"", name, PICK(g, pod_images));
	bool init = name[0] == 'i';
	/* container restart rules (ContainerRestartRules, RestartAllContainersOnContainerExits: beta,
	 * on in v1.37); the action RestartAllContainers makes NodeDeclaredFeatures require
	 * RestartAllContainersOnContainerExits. A rule needs a container restartPolicy; an init
	 * container's decides whether it is a sidecar (Always). */
	if (big && r_pct(g, 10)) {
		static const char *const ctr_policies[] = { "Never", "OnFailure", "Always" };
		const char *policy = sidecar ? "Always" : PICK(g, ctr_policies);
		if (init && !sidecar && !strcmp(policy, "Always"))
			policy = "Never"; /* an init container with Always would be a sidecar */
		strbuf_addf(sb,
			    ",\"restartPolicy\":\"%s\",\"restartPolicyRules\":[{\"action\":\"%s\",\"exitCodes\":"
			    "{\"operator\":\"%s\",\"values\":[%d]}}]",
			    policy, r_pct(g, 70) ? "RestartAllContainers" : "Restart", r_pct(g, 50) ? "In" : "NotIn",
			    r_int(g, 3) * 21);
	} else if (sidecar) {
		strbuf_puts(sb, ",\"restartPolicy\":\"Always\"");
	}
	/* bindMountOptions (VolumeBindMountOptions, alpha: the oracle runs with the gate on, else the
	 * API server drops the field) make NodeDeclaredFeatures require VolumeBindMountOptions */
	if (g->scratch_mount && r_pct(g, 60)) {
		static const char *const bind_opts[] = { "", "\"noexec\"", "\"nodev\",\"nosuid\"", "\"nosuid\"" };
		const char *o = PICK(g, bind_opts);
		strbuf_puts(sb, ",\"volumeMounts\":[{\"name\":\"scratch\",\"mountPath\":\"/scratch\"");
		if (*o)
			strbuf_addf(sb, ",\"bindMountOptions\":[%s]", o);
		strbuf_puts(sb, "}]");
	}
	if (r_pct(g, port_pct)) {
		/* hostPort unique within the pod (validation), so a pod never conflicts with itself */
		int np = 1 + r_pct(g, 30), hps[2], n = 0;
		for (int i = 0; i < np; i++) {
			int hp = ports[r_int(g, 4)] + r_int(g, 2);
			if (!(g->used_ports[hp / 64] & (1ull << (hp % 64)))) {
				g->used_ports[hp / 64] |= 1ull << (hp % 64);
				hps[n++] = hp;
			}
		}
		strbuf_puts(sb, ",\"ports\":[");
		for (int i = 0; i < n; i++) {
			const char *ip = PICK(g, host_ips);
			/* hostNetwork: validation wants containerPort == hostPort */
			strbuf_addf(sb, "%s{\"containerPort\":%d,\"hostPort\":%d,\"protocol\":\"%s\"%s%s%s}", i ? "," : "",
				    g->host_network ? hps[i] : 1000 + hps[i], hps[i], PICK(g, protos), *ip ? ",\"hostIP\":\"" : "",
				    ip, *ip ? "\"" : "");
		}
		strbuf_puts(sb, "]");
	}
	int cpu = r_pct(g, 80) ? 50 * r_int(g, big ? 41 : 31) : 0;
	int mem = r_pct(g, 80) ? 64 * r_int(g, big ? 41 : 33) : 0;
	if (init && !sidecar && r_pct(g, 20)) { /* an init container larger than the containers */
		cpu = cpu * 2 + 1500;
		mem = mem * 2 + 1024;
	}
	bool eph = r_pct(g, big ? 12 : 20), gpu = r_pct(g, big ? 8 : 15), huge = r_pct(g, big ? 5 : 10);
	if (huge && !mem)
		mem = 64; /* validation: hugepages require cpu or memory */
	*cpu_m += cpu;
	*mem_mi += mem;
	if (name[0] == 'c' && g->n_ctr < GEN_MAX_CTRS) { /* regular containers, for resize statuses */
		g->ctr_cpu[g->n_ctr] = cpu;
		g->ctr_mem[g->n_ctr++] = mem;
	}
	struct strbuf req = STRBUF_INIT, lim = STRBUF_INIT;
	bool f = true, fl = true;
	if (cpu || r_pct(g, 10)) {
		comma(&req, &f);
		strbuf_addf(&req, "\"cpu\":\"%dm\"", cpu);
	}
	if (mem || r_pct(g, 10)) {
		comma(&req, &f);
		strbuf_addf(&req, "\"memory\":\"%dMi\"", mem);
	}
	if (eph) {
		comma(&req, &f);
		strbuf_addf(&req, "\"ephemeral-storage\":\"%dGi\"", 1 + r_int(g, 20));
	}
	if (gpu) {
		int n = 1 + r_int(g, 2);
		comma(&req, &f);
		strbuf_addf(&req, "\"example.com/gpu\":\"%d\"", n);
		comma(&lim, &fl);
		strbuf_addf(&lim, "\"example.com/gpu\":\"%d\"", n);
	}
	if (huge) {
		int n = 256 * (1 + r_int(g, 3));
		comma(&req, &f);
		strbuf_addf(&req, "\"hugepages-2Mi\":\"%dMi\"", n);
		comma(&lim, &fl);
		strbuf_addf(&lim, "\"hugepages-2Mi\":\"%dMi\"", n);
	}
	strbuf_puts(sb, ",\"resources\":{");
	if (req.data)
		strbuf_addf(sb, "\"requests\":{%s}", req.data);
	if (lim.data)
		strbuf_addf(sb, ",\"limits\":{%s}", lim.data);
	strbuf_puts(sb, "}}");
	strbuf_release(&req);
	strbuf_release(&lim);
}

/* Pod-level requests (spec.resources), at least the containers' sum as validation requires; one
 * or both of cpu and memory (a partial pod level). */
static void put_pod_resources(struct gen *g, struct strbuf *sb, int cpu_m, int mem_mi)
{
	int which = 1 + r_int(g, 3); /* 1 cpu, 2 memory, 3 both */
	strbuf_puts(sb, ",\"resources\":{\"requests\":{");
	if (which & 1)
		strbuf_addf(sb, "\"cpu\":\"%dm\"", cpu_m + 50 * r_int(g, 20));
	if (which & 2)
		strbuf_addf(sb, "%s\"memory\":\"%dMi\"", which & 1 ? "," : "", mem_mi + 64 * r_int(g, 20));
	strbuf_puts(sb, "}}");
}

/* Containers and init containers of a pod spec (pending: the pod to schedule). */
static void put_containers(struct gen *g, struct strbuf *sb, bool pending)
{
	int cpu = 0, mem = 0;
	memset(g->used_ports, 0, sizeof(g->used_ports));
	g->n_ctr = 0;
	int nc = 1 + r_int(g, 2);
	strbuf_puts(sb, "\"containers\":[");
	for (int i = 0; i < nc; i++) {
		char name[16];
		snprintf(name, sizeof(name), "c%d", i);
		if (i)
			strbuf_puts(sb, ",");
		put_container(g, sb, name, false, pending ? 25 : 15, &cpu, &mem, pending);
	}
	strbuf_puts(sb, "]");
	int ni = r_pct(g, pending ? 40 : 15) ? 1 + r_int(g, 2) : 0;
	if (ni) {
		int icpu = 0, imem = 0;
		strbuf_puts(sb, ",\"initContainers\":[");
		for (int i = 0; i < ni; i++) {
			char name[16];
			snprintf(name, sizeof(name), "i%d", i);
			if (i)
				strbuf_puts(sb, ",");
			bool sidecar = r_pct(g, 40);
			int c = 0, m = 0;
			put_container(g, sb, name, sidecar, 5, &c, &m, pending);
			if (sidecar) {
				cpu += c;
				mem += m;
			} else {
				icpu = c > icpu ? c : icpu;
				imem = m > imem ? m : imem;
			}
		}
		strbuf_puts(sb, "]");
		/* a rough upper bound of the effective request, for the pod level's minimum */
		cpu += icpu;
		mem += imem;
	}
	if (g->pod_level_resources && r_pct(g, 10))
		put_pod_resources(g, sb, cpu, mem);
}

/* Pod overhead, as the RuntimeClass admission plugin sets it from the pod's runtimeClassName
 * (the oracle runs no admission: both fields are written). */
static void put_overhead(struct gen *g, struct strbuf *sb)
{
	if (r_pct(g, 10))
		strbuf_addf(sb, ",\"runtimeClassName\":\"kata\",\"overhead\":{\"cpu\":\"%dm\",\"memory\":\"%dMi\"}",
			    50 * (1 + r_int(g, 10)), 32 * (1 + r_int(g, 8)));
}

/* A volume of a kind VolumeRestrictions checks for disk conflicts (GCE PD, AWS EBS, RBD, iSCSI),
 * from a small set of disks so that pods share them; with the defaults the API server sets (RBD
 * pool/user/keyring, iSCSI interface). */
static void put_disk(struct gen *g, struct strbuf *sb, int i)
{
	const char *ro = r_pct(g, 40) ? ",\"readOnly\":true" : "";
	strbuf_addf(sb, "{\"name\":\"dk%d\",", i);
	switch (r_int(g, 4)) {
	case 0:
		strbuf_addf(sb, "\"gcePersistentDisk\":{\"pdName\":\"disk-%c\"%s}}", 'a' + r_int(g, 2), ro);
		break;
	case 1:
		strbuf_addf(sb, "\"awsElasticBlockStore\":{\"volumeID\":\"vol-%d\"%s}}", 1 + r_int(g, 2), ro);
		break;
	case 2: {
		static const char *const mons[] = { "10.1.0.1:6789", "10.1.0.2:6789", "10.1.0.3:6789" };
		int mask = 1 + r_int(g, 7);
		bool f = true;
		strbuf_puts(sb, "\"rbd\":{\"monitors\":[");
		for (int m = 0; m < 3; m++)
			if (mask & (1 << m)) {
				comma(sb, &f);
				strbuf_addf(sb, "\"%s\"", mons[m]);
			}
		strbuf_addf(sb, "],\"image\":\"img-%c\",\"pool\":\"%s\",\"user\":\"admin\",\"keyring\":\"/etc/ceph/keyring\"%s}}",
			    'a' + r_int(g, 2), r_pct(g, 70) ? "rbd" : "fast", ro);
		break;
	}
	default:
		strbuf_addf(sb,
			    "\"iscsi\":{\"targetPortal\":\"10.0.0.%d:3260\",\"iqn\":\"iqn.2001-04.com.example:storage-%c\","
			    "\"lun\":0,\"iscsiInterface\":\"default\"%s}}",
			    1 + r_int(g, 2), 'a' + r_int(g, 2), ro);
	}
}

enum vol_pod { VOL_BOUND, VOL_PENDING, VOL_NOMINATED };

/* The volumes of a pod: image volumes and the emptyDir "scratch" (pending pod), disks, and
 * PVCs (data-0..data-3 may exist, data-4 never does). A pending pod with PVCs has disks more
 * often: a disk makes VolumeRestrictions' PreFilter keep its Filter, so that the
 * ReadWriteOncePod PVCs of nominated pods count (upstream AddPod). */
static void put_volumes(struct gen *g, struct strbuf *sb, enum vol_pod kind)
{
	bool pending = kind == VOL_PENDING;
	static const int pvc_pct[] = { 20, 15, 60 };
	int nc = r_pct(g, pvc_pct[kind]) ? 1 + (pending && r_pct(g, 30)) : 0;
	int c0 = pending && r_pct(g, 10) ? 4 : r_int(g, kind == VOL_NOMINATED ? 3 : 4);
	struct strbuf v = STRBUF_INIT;
	bool f = true;
	if (pending && r_pct(g, 20)) { /* image volumes count for ImageLocality (ImageVolume, on in v1.37) */
		int nv = 1 + r_pct(g, 30);
		for (int i = 0; i < nv; i++) {
			comma(&v, &f);
			strbuf_addf(&v, "{\"name\":\"iv%d\",\"image\":{\"reference\":\"%s\",\"pullPolicy\":\"IfNotPresent\"}}", i,
				    PICK(g, pod_images));
		}
	}
	if (g->scratch_mount) {
		comma(&v, &f);
		strbuf_puts(&v, "{\"name\":\"scratch\",\"emptyDir\":{}}");
	}
	int nd = r_pct(g, !pending ? 25 : nc ? 70 : 20) ? 1 + r_pct(g, 30) : 0;
	for (int i = 0; i < nd; i++) {
		comma(&v, &f);
		put_disk(g, &v, i);
	}
	for (int i = 0; i < nc; i++) {
		comma(&v, &f);
		strbuf_addf(&v, "{\"name\":\"pv%d\",\"persistentVolumeClaim\":{\"claimName\":\"data-%d\"%s}}", i,
			    (c0 + i) % 5, r_pct(g, 20) ? ",\"readOnly\":true" : "");
	}
	if (v.data)
		strbuf_addf(sb, ",\"volumes\":[%s]", v.data);
	strbuf_release(&v);
}

/* Appends sb's object (detached) to g->vol_objs as kind k; dropped when full. */
static void vol_obj(struct gen *g, enum gen_vol_kind k, struct strbuf *sb)
{
	if (g->n_vol_objs < GEN_MAX_VOL_OBJS) {
		g->vol_kind[g->n_vol_objs] = k;
		g->vol_objs[g->n_vol_objs++] = strbuf_detach(sb, NULL);
	} else {
		strbuf_release(sb);
	}
}

/* `,"nodeAffinity":{...}` of a PV, as local and zonal PVs carry: required node selector terms
 * (one, sometimes two: ORed) over the hostname label (one or two of the state's node names, a
 * "host-" value some nodes' labels have, a node that does not exist) and the zone label, with
 * In mostly, sometimes NotIn / Exists / DoesNotExist, and rarely a matchFields on metadata.name
 * (upstream CheckNodeAffinity matches a node of labels only: its name is empty). VolumeBinding's
 * "node(s) didn't match PersistentVolume's node affinity". */
static void gen_pv_node_affinity(struct gen *g, struct strbuf *sb)
{
	static const char *const ops[] = { "In", "In", "In", "In", "In", "In", "NotIn", "NotIn", "Exists", "DoesNotExist" };
	strbuf_puts(sb, ",\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[");
	int nt = 1 + v_pct(g, 25);
	for (int t = 0; t < nt; t++) {
		int kind = v_int(g, 100); /* < 55 hostname, < 92 zone, else matchFields */
		bool fields = kind >= 92;
		strbuf_addf(sb, "%s{\"%s\":[", t ? "," : "", fields ? "matchFields" : "matchExpressions");
		int ne = fields ? 1 : 1 + v_pct(g, 20);
		for (int x = 0; x < ne; x++) {
			const char *key = fields ? "metadata.name"
					  : (x ? v_pct(g, 50) : kind < 55) ? "kubernetes.io/hostname" : "topology.kubernetes.io/zone";
			bool host = !strcmp(key, "kubernetes.io/hostname") || fields;
			const char *op = fields ? (v_pct(g, 50) ? "In" : "NotIn") : VPICK(g, ops);
			strbuf_addf(sb, "%s{\"key\":\"%s\",\"operator\":\"%s\"", x ? "," : "", key, op);
			if (strcmp(op, "Exists") && strcmp(op, "DoesNotExist")) {
				strbuf_puts(sb, ",\"values\":[");
				int nv = 1 + v_pct(g, 30);
				for (int v = 0; v < nv; v++) {
					if (!host)
						strbuf_addf(sb, "%s\"%s\"", v ? "," : "", v_pct(g, 10) ? "zone-x" : VPICK(g, zones));
					else if (v_pct(g, 8))
						strbuf_addf(sb, "%s\"n99\"", v ? "," : "");
					else
						strbuf_addf(sb, "%s\"%s%s\"", v ? "," : "", v_pct(g, 10) ? "host-" : "",
							    g->node_names[v_int(g, g->n_nodes)]);
				}
				strbuf_puts(sb, "]");
			}
			strbuf_puts(sb, "}");
		}
		strbuf_puts(sb, "]}");
	}
	strbuf_puts(sb, "]}}");
}

/* The PV pv-NS-K a bound PVC names (present in 85% of the states' bound PVCs), with VolumeZone's
 * topology labels: GA or beta zone (one zone, two joined by "__", a zone no node has, an
 * unparsable "zone-a__"), sometimes a region, sometimes none (no constraint). Written as the API
 * server returns it (defaults: reclaim policy, volumeMode, phase). */
static void gen_pv(struct gen *g, const char *ns, int k)
{
	static const char *const zone_values[] = { "zone-a", "zone-b", "zone-c", "zone-a__zone-b", "zone-c__zone-a",
						   "zone-x", "zone-a__" };
	static const char *const region_values[] = { "region-1", "region-2", "region-1__region-2" };
	if (!v_pct(g, 85))
		return;
	struct strbuf lab = STRBUF_INIT;
	bool first = true;
	int zk = v_int(g, 4); /* 0: no zone, 1: beta zone, 2-3: GA zone */
	if (zk) {
		strbuf_addf(&lab, "\"%s\":\"%s\"",
			    zk == 1 ? "failure-domain.beta.kubernetes.io/zone" : "topology.kubernetes.io/zone",
			    VPICK(g, zone_values));
		first = false;
	}
	if (v_pct(g, 30)) {
		strbuf_addf(&lab, "%s\"%s\":\"%s\"", first ? "" : ",",
			    v_pct(g, 30) ? "failure-domain.beta.kubernetes.io/region" : "topology.kubernetes.io/region",
			    VPICK(g, region_values));
		first = false;
	}
	if (v_pct(g, 30))
		strbuf_addf(&lab, "%s\"tier\":\"db\"", first ? "" : ",");
	/* the source NodeVolumeLimits counts: CSI of two drivers with handles that sometimes repeat
	 * (two PVs, one volume), in-tree AWS EBS and GCE PD, hostPath (not counted) */
	static const char *const drivers[] = { "csi.example.com", "ebs.csi.aws.com" };
	struct strbuf src = STRBUF_INIT;
	switch (v_int(g, 6)) {
	case 0:
	case 1:
	case 2:
		strbuf_addf(&src, "\"csi\":{\"driver\":\"%s\",\"volumeHandle\":\"h-%d\"}", VPICK(g, drivers), v_int(g, 3));
		break;
	case 3:
		strbuf_addf(&src, "\"awsElasticBlockStore\":{\"volumeID\":\"%s\"}", v_pct(g, 50) ? "vol-a" : "aws://us-east-1a/vol-b");
		break;
	case 4:
		strbuf_puts(&src, "\"gcePersistentDisk\":{\"pdName\":\"disk-a\"}");
		break;
	default:
		strbuf_puts(&src, "\"hostPath\":{\"path\":\"/tmp\",\"type\":\"\"}");
	}
	struct strbuf aff = STRBUF_INIT;
	/* not in the DRA states (their expected file was made before PVs had node affinity) */
	if (!g->dra && v_pct(g, 35))
		gen_pv_node_affinity(g, &aff);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb,
		    "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"pv-%s-%d\","
		    "\"uid\":\"uid-pv-%s-%d\",\"labels\":{%s}},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},"
		    "\"accessModes\":[\"ReadWriteOnce\"],\"persistentVolumeReclaimPolicy\":\"Retain\","
		    "\"storageClassName\":\"standard\",\"volumeMode\":\"Filesystem\",\"claimRef\":{\"kind\":"
		    "\"PersistentVolumeClaim\",\"namespace\":\"%s\",\"name\":\"data-%d\",\"uid\":\"uid-pvc-%s-%d\"},"
		    "%s%s},\"status\":{\"phase\":\"Bound\"}}",
		    ns, k, ns, k, lab.data ? lab.data : "", ns, k, ns, k, src.data, aff.data ? aff.data : "");
	strbuf_release(&lab);
	strbuf_release(&src);
	strbuf_release(&aff);
	vol_obj(g, GEN_VOL_PV, &sb);
}

/* In 45% of the states the pending pod also mounts one of the state's PVCs of its namespace
 * (volume "vz"), so that VolumeZone decides more often than the first stream's rare PVC volumes
 * would have it: the pod's JSON gets the volume inserted. */
static void add_zone_claim(struct gen *g)
{
	if (!v_pct(g, 45) || !g->n_pvcs)
		return;
	const char *nsp = strstr(g->pod, "\"namespace\":\"");
	if (!nsp)
		return;
	nsp += strlen("\"namespace\":\"");
	size_t nsl = strcspn(nsp, "\"");
	int cand[GEN_MAX_PVCS], n = 0;
	for (int i = 0; i < g->n_pvcs; i++) {
		char want[64];
		snprintf(want, sizeof(want), "\"namespace\":\"%.*s\"", (int)nsl, nsp);
		if (strstr(g->pvcs[i], want))
			cand[n++] = i;
	}
	if (!n)
		return;
	const char *pvc = g->pvcs[cand[v_int(g, n)]];
	const char *np = strstr(pvc, "\"name\":\"") + strlen("\"name\":\"");
	char vol[128];
	snprintf(vol, sizeof(vol), "{\"name\":\"vz\",\"persistentVolumeClaim\":{\"claimName\":\"%.*s\"}}",
		 (int)strcspn(np, "\""), np);
	const char *at = strstr(g->pod, "\"volumes\":[");
	struct strbuf sb = STRBUF_INIT;
	if (at) {
		size_t off = (size_t)(at - g->pod) + strlen("\"volumes\":[");
		strbuf_addf(&sb, "%.*s%s%s%s", (int)off, g->pod, vol, g->pod[off] == ']' ? "" : ",", g->pod + off);
	} else {
		const char *sp = strstr(g->pod, "\"spec\":{");
		if (!sp)
			return;
		size_t off = (size_t)(sp - g->pod) + strlen("\"spec\":{");
		strbuf_addf(&sb, "%.*s\"volumes\":[%s],%s", (int)off, g->pod, vol, g->pod + off);
	}
	free(g->pod);
	g->pod = strbuf_detach(&sb, NULL);
}

/* The StorageClass the PVCs name, present in 80% of the states: WaitForFirstConsumer (VolumeZone
 * skips the unbound claims) or Immediate (an unbound claim is an error). */
static void gen_storage_class(struct gen *g)
{
	/* a CSI or in-tree provisioner NodeVolumeLimits maps unbound claims to, or none */
	static const char *const prov[] = { "csi.example.com", "ebs.csi.aws.com", "kubernetes.io/aws-ebs",
					    "kubernetes.io/gce-pd", "kubernetes.io/no-provisioner", "pd.csi.storage.gke.io" };
	if (!v_pct(g, 80))
		return;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb,
		    "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"standard\","
		    "\"uid\":\"uid-sc-standard\"},\"provisioner\":\"%s\",\"reclaimPolicy\":\"Delete\","
		    "\"volumeBindingMode\":\"%s\"}",
		    VPICK(g, prov), v_pct(g, 60) ? "WaitForFirstConsumer" : "Immediate");
	vol_obj(g, GEN_VOL_SC, &sb);
}

/* A PVC default/data-I (I < 4) or other/data-0, present or not, with random access modes (many
 * ReadWriteOncePod, the mode VolumeRestrictions checks). */
static void gen_pvcs(struct gen *g)
{
	static const char *const modes[] = {
		"\"ReadWriteOnce\"", "\"ReadWriteOncePod\"", "\"ReadWriteOncePod\"", "\"ReadOnlyMany\",\"ReadWriteOnce\"",
		"\"ReadWriteMany\"", "\"ReadWriteOnce\",\"ReadWriteOncePod\"",
	};
	for (int i = 0; i < 5 && g->n_pvcs < GEN_MAX_PVCS; i++) {
		if (!r_pct(g, i < 4 ? 85 : 40))
			continue;
		const char *ns = i < 4 ? "default" : "other";
		int k = i < 4 ? i : 0;
		bool bound = r_pct(g, 70);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb,
			    "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"data-%d\","
			    "\"namespace\":\"%s\",\"uid\":\"uid-pvc-%s-%d\"%s},\"spec\":{\"accessModes\":[%s],"
			    "\"resources\":{\"requests\":{\"storage\":\"1Gi\"}},\"storageClassName\":\"standard\","
			    "\"volumeMode\":\"Filesystem\"",
			    k, ns, ns, k,
			    /* as the PV controller leaves a bound claim (VolumeBinding reads a claim without it as
			     * not fully bound) */
			    bound ? ",\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}" : "", PICK(g, modes));
		if (bound)
			strbuf_addf(&sb, ",\"volumeName\":\"pv-%s-%d\"", ns, k);
		if (bound && g->vol)
			gen_pv(g, ns, k);
		strbuf_addf(&sb, "},\"status\":{\"phase\":\"%s\"}}", bound ? "Bound" : "Pending");
		g->pvcs[g->n_pvcs++] = strbuf_detach(&sb, NULL);
	}
}

/* `,"affinity":{...}` with pod (anti-)affinity when the pod has some (pct: see
 * put_pod_affinity); nothing otherwise. */
static void put_topo_affinity(struct gen *g, struct strbuf *sb, int any_pct, int pct)
{
	struct strbuf a = STRBUF_INIT;
	if (t_pct(g, any_pct) && put_pod_affinity(g, &a, pct))
		strbuf_addf(sb, ",\"affinity\":{%s}", a.data);
	strbuf_release(&a);
}

static char *gen_bound_pod(struct gen *g, int idx, const char *node)
{
	/* Succeeded/Failed pods: kube-scheduler's pod informer never lists them (field selector) */
	static const char *const phases[] = { "Running", "Running", "Running", "Running", "Running", "Running",
					      "Running", "Running", "Pending", "Succeeded", "Failed" };
	struct strbuf sb = STRBUF_INIT;
	const char *ns = r_pct(g, 10) ? "other" : "default";
	if (g->topo && t_pct(g, 25))
		ns = TPICK(g, pod_namespaces);
	g->host_network = r_pct(g, 5);
	g->scratch_mount = false;
	strbuf_addf(&sb,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b%d\",\"namespace\":\"%s\","
		    "\"uid\":\"uid-b%d\"",
		    idx, ns, idx);
	bool terminating = false;
	if (g->topo) {
		put_pod_labels(g, &sb);
		/* a terminating pod: PodTopologySpread does not count it (common.go
		 * countPodsMatchSelector), InterPodAffinity does */
		terminating = t_pct(g, 4);
	}
	/* on the pending pod's nominated node: a victim of its earlier preemption, still
	 * terminating (upstream PodEligibleToPreemptOthers then lets the pod wait) */
	bool preempted = g->preempt && g->pend_nom >= 0 && !strcmp(node, g->node_names[g->pend_nom]) && p_pct(g, 40);
	if (terminating || preempted)
		strbuf_puts(&sb, ",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\",\"deletionGracePeriodSeconds\":30");
	strbuf_addf(&sb, "},\"spec\":{\"nodeName\":\"%s\",\"schedulerName\":\"default-scheduler\",", node);
	char start[32] = "";
	if (g->preempt)
		put_bound_priority(g, &sb, start, false);
	put_containers(g, &sb, false);
	if (g->host_network)
		strbuf_puts(&sb, ",\"hostNetwork\":true");
	put_overhead(g, &sb);
	put_volumes(g, &sb, VOL_BOUND);
	if (g->topo)
		put_topo_affinity(g, &sb, 45, 40);
	strbuf_addf(&sb, "},\"status\":{\"phase\":\"%s\"", PICK(g, phases));
	if (start[0])
		strbuf_addf(&sb, ",\"startTime\":\"%s\"", start);
	if (preempted)
		strbuf_puts(&sb, ",\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\","
				 "\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"PreemptionByScheduler\","
				 "\"message\":\"default-scheduler: preempting to accommodate a higher priority pod\"}]");
	if (r_pct(g, 12)) {
		/* an in-place resize in progress (down): allocated and actuated above the spec, so
		 * upstream's NodeInfo counts max(spec, allocated, actuated) */
		strbuf_puts(&sb, ",\"containerStatuses\":[");
		int n = g->n_ctr < 2 ? g->n_ctr : 2; /* the regular containers c0, c1 come first */
		for (int i = 0; i < n; i++) {
			int cpu = g->ctr_cpu[i] + 50 * (1 + r_int(g, 10)), mem = g->ctr_mem[i] + 64 * (1 + r_int(g, 10));
			strbuf_addf(&sb,
				    "%s{\"name\":\"c%d\",\"image\":\"registry.k8s.io/pause:3.10\",\"imageID\":\"\",\"ready\":true,"
				    "\"restartCount\":0,\"allocatedResources\":{\"cpu\":\"%dm\",\"memory\":\"%dMi\"},"
				    "\"resources\":{\"requests\":{\"cpu\":\"%dm\",\"memory\":\"%dMi\"}}}",
				    i ? "," : "", i, cpu, mem, cpu, mem);
		}
		strbuf_puts(&sb, "]");
	}
	strbuf_puts(&sb, "}}");
	return strbuf_detach(&sb, NULL);
}

/* A pod without requests on node, labelled, maybe with pod (anti-)affinity: more pods for the
 * two plugins to count (topology states only; the second stream). */
static char *gen_light_pod(struct gen *g, int idx, const char *node)
{
	struct strbuf sb = STRBUF_INIT;
	const char *ns = t_pct(g, 60) ? "default" : TPICK(g, pod_namespaces);
	strbuf_addf(&sb,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"t%d\",\"namespace\":\"%s\","
		    "\"uid\":\"uid-t%d\"",
		    idx, ns, idx);
	put_pod_labels(g, &sb);
	strbuf_addf(&sb, "},\"spec\":{\"nodeName\":\"%s\",\"schedulerName\":\"default-scheduler\",", node);
	char start[32] = "";
	if (g->preempt)
		put_bound_priority(g, &sb, start, false);
	strbuf_puts(&sb, "\"containers\":[{\"name\":\"c0\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{}}]");
	put_topo_affinity(g, &sb, 40, 40);
	strbuf_puts(&sb, "},\"status\":{\"phase\":\"Running\"");
	if (start[0])
		strbuf_addf(&sb, ",\"startTime\":\"%s\"", start);
	strbuf_puts(&sb, "}}");
	return strbuf_detach(&sb, NULL);
}

/* A pod another cycle nominated (preemption): no nodeName, status.nominatedNodeName (sometimes a
 * node that does not exist), a priority around the pending pod's (only nominated pods of priority
 * >= its count, upstream RunFilterPluginsWithNominatedPods), maybe in another namespace. */
static char *gen_nominated_pod(struct gen *g, int idx)
{
	static const char *const prios[] = { "", ",\"priority\":3", ",\"priority\":10" };
	struct strbuf sb = STRBUF_INIT;
	const char *ns = r_pct(g, 30) ? "other" : "default";
	if (g->topo && t_pct(g, 20))
		ns = TPICK(g, pod_namespaces);
	g->host_network = false;
	g->scratch_mount = false;
	strbuf_addf(&sb,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"nm%d\",\"namespace\":\"%s\","
		    "\"uid\":\"uid-nm%d\"",
		    idx, ns, idx);
	if (g->topo) /* nominated pods count in both plugins' AddPod (PreFilterExtensions) */
		put_pod_labels(g, &sb);
	strbuf_addf(&sb, "},\"spec\":{\"schedulerName\":\"default-scheduler\"%s,", PICK(g, prios));
	put_containers(g, &sb, false);
	put_overhead(g, &sb);
	put_volumes(g, &sb, VOL_NOMINATED);
	if (g->topo)
		put_topo_affinity(g, &sb, 25, 40);
	const char *node = r_pct(g, 10) ? "n99" : g->node_names[r_int(g, g->n_nodes)];
	strbuf_addf(&sb, "},\"status\":{\"phase\":\"Pending\",\"nominatedNodeName\":\"%s\"}}", node);
	return strbuf_detach(&sb, NULL);
}

/* One node selector requirement (matchExpressions), every operator. */
static void put_expr(struct gen *g, struct strbuf *sb)
{
	static const char *const ops[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };
	const char *op = PICK(g, ops);
	if (!strcmp(op, "Gt") || !strcmp(op, "Lt")) {
		static const char *const nums[] = { "0", "2", "3", "5", "8" };
		strbuf_addf(sb, "{\"key\":\"tier\",\"operator\":\"%s\",\"values\":[\"%s\"]}", op, PICK(g, nums));
		return;
	}
	int kind = r_int(g, 6); /* 0..3 label kinds, 4 zone, 5 hostname */
	const char *key = kind < 4 ? label_kinds[kind].key
			  : kind == 4 ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname";
	strbuf_puts(sb, "{\"key\":");
	gen_json_str(sb, key);
	strbuf_addf(sb, ",\"operator\":\"%s\"", op);
	if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
		int nv = 1 + r_int(g, 2);
		strbuf_puts(sb, ",\"values\":[");
		for (int i = 0; i < nv; i++) {
			const char *v = kind < 4 ? label_kinds[kind].values[r_int(g, label_kinds[kind].n)]
					: kind == 4 ? PICK(g, zones) : g->node_names[r_int(g, g->n_nodes)];
			if (i)
				strbuf_puts(sb, ",");
			gen_json_str(sb, v);
		}
		strbuf_puts(sb, "]");
	}
	strbuf_puts(sb, "}");
}

/* A NodeSelectorTerm: matchExpressions and/or matchFields (metadata.name, one value). */
static void put_term(struct gen *g, struct strbuf *sb)
{
	int shape = r_int(g, 10); /* 0..6 expressions, 7..8 fields, 9 both */
	bool first = true;
	strbuf_puts(sb, "{");
	if (shape < 7 || shape == 9) {
		comma(sb, &first);
		strbuf_puts(sb, "\"matchExpressions\":[");
		int ne = 1 + r_pct(g, 35);
		for (int i = 0; i < ne; i++) {
			if (i)
				strbuf_puts(sb, ",");
			put_expr(g, sb);
		}
		strbuf_puts(sb, "]");
	}
	if (shape >= 7) {
		comma(sb, &first);
		strbuf_addf(sb, "\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"%s\",\"values\":[\"%s\"]}]",
			    r_pct(g, 70) ? "In" : "NotIn", g->node_names[r_int(g, g->n_nodes)]);
	}
	strbuf_puts(sb, "}");
}

static char *gen_pending_pod(struct gen *g)
{
	struct strbuf sb = STRBUF_INIT, junk = STRBUF_INIT;
	/* lean (40% of the topology states): the node selector, node affinity and volumes are
	 * drawn but not written, so that more pods fit and the two plugins' scores decide */
	bool lean = g->topo && t_pct(g, 40);
	/* and in 60% of the preemption states, so that more of them reach PostFilter with nodes that
	 * only lower-priority pods keep from fitting */
	lean |= g->preempt && p_pct(g, 60);
	/* and in 70% of the DRA states, so that more of them reach DynamicResources' Filter */
	lean |= g->dra && gen_d_pct(g, 70);
	if (!g->topo) {
		strbuf_puts(&sb, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"default\","
				 "\"uid\":\"uid-p\"},\"spec\":{\"schedulerName\":\"default-scheduler\",");
	} else {
		const char *ns = t_pct(g, 20) ? "prod" : "default";
		strbuf_addf(&sb, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"%s\","
				 "\"uid\":\"uid-p\"",
			    ns);
		put_pod_labels(g, &sb);
		if (t_pct(g, 55))
			put_owner_refs(g, &sb);
		strbuf_puts(&sb, "},\"spec\":{\"schedulerName\":\"default-scheduler\",");
		gen_owners(g, ns);
	}
	bool prio5 = r_pct(g, 30);
	if (g->preempt) {
		/* mostly above many bound pods' (bound pods: put_bound_priority), so that it preempts */
		static const int prios[] = { 10, 10, 100, 100, 1000, 1000, 5, 3, NO_PRIORITY };
		int prio = PPICK(g, prios);
		if (prio != NO_PRIORITY)
			strbuf_addf(&sb, "\"priority\":%d,", prio);
		int pol = p_int(g, 100);
		if (pol < 22)
			strbuf_addf(&sb, "\"preemptionPolicy\":\"%s\",", pol < 12 ? "Never" : "PreemptLowerPriority");
	} else if (prio5) {
		strbuf_puts(&sb, "\"priority\":5,");
	}
	g->host_network = r_pct(g, 12);
	g->scratch_mount = r_pct(g, 15);
	put_containers(g, &sb, true);
	/* hostNetwork with hostUsers false makes NodeDeclaredFeatures require
	 * UserNamespacesHostNetworkSupport (alpha: the oracle runs with the gate on, else the API
	 * server rejects the pod) */
	if (g->host_network)
		strbuf_puts(&sb, ",\"hostNetwork\":true");
	if (r_pct(g, g->host_network ? 60 : 10))
		strbuf_addf(&sb, ",\"hostUsers\":%s", r_pct(g, 80) ? "false" : "true");
	put_overhead(g, &sb);
	struct strbuf *na = lean ? &junk : &sb; /* node selection */
	if (r_pct(g, 25)) {
		strbuf_puts(na, ",\"nodeSelector\":{");
		int n = 1 + r_pct(g, 30);
		int k0 = r_int(g, 5);
		for (int i = 0; i < n; i++) {
			int k = (k0 + i) % 5;
			if (i)
				strbuf_puts(na, ",");
			if (k == 4) {
				strbuf_puts(na, "\"topology.kubernetes.io/zone\":");
				gen_json_str(na, PICK(g, zones));
			} else {
				gen_json_str(na, label_kinds[k].key);
				strbuf_puts(na, ":");
				gen_json_str(na, label_kinds[k].values[r_int(g, label_kinds[k].n)]);
			}
		}
		strbuf_puts(na, "}");
	}
	bool req = r_pct(g, 30), pref = r_pct(g, 40);
	struct strbuf pa = STRBUF_INIT;
	bool podaff = g->topo && t_pct(g, 70) && put_pod_affinity(g, &pa, 50);
	if (podaff && (lean || (!req && !pref)))
		strbuf_addf(&sb, ",\"affinity\":{%s}", pa.data);
	if (req || pref) {
		strbuf_puts(na, ",\"affinity\":{\"nodeAffinity\":{");
		if (req) {
			strbuf_puts(na, "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[");
			int nt = 1 + r_pct(g, 35);
			for (int i = 0; i < nt; i++) {
				if (i)
					strbuf_puts(na, ",");
				put_term(g, na);
			}
			strbuf_puts(na, "]}");
		}
		if (pref) {
			strbuf_puts(na, req ? "," : "");
			strbuf_puts(na, "\"preferredDuringSchedulingIgnoredDuringExecution\":[");
			int nt = 1 + r_int(g, 3);
			for (int i = 0; i < nt; i++) {
				strbuf_addf(na, "%s{\"weight\":%d,\"preference\":", i ? "," : "", 1 + r_int(g, 100));
				put_term(g, na);
				strbuf_puts(na, "}");
			}
			strbuf_puts(na, "]");
		}
		strbuf_puts(na, "}");
		if (podaff && !lean)
			strbuf_addf(na, ",%s", pa.data);
		strbuf_puts(na, "}");
	}
	strbuf_release(&pa);
	if (g->topo && t_pct(g, 55))
		put_spread(g, &sb);
	int ntol = r_pct(g, 55) ? 1 + r_int(g, 3) : 0;
	/* every taint: more lean pods fit */
	bool tolerate_all = lean && (g->dra && !g->topo ? gen_d_pct(g, 60) : t_pct(g, 60));
	if (ntol || tolerate_all) {
		strbuf_puts(&sb, ",\"tolerations\":[");
		if (tolerate_all)
			strbuf_addf(&sb, "{\"operator\":\"Exists\"}%s", ntol ? "," : "");
		for (int i = 0; i < ntol; i++) {
			bool exists = r_pct(g, 40);
			int effect = r_int(g, 5); /* 3, 4: any effect */
			const char *key = r_pct(g, 15) ? "node.kubernetes.io/unschedulable" : PICK(g, taint_keys);
			if (exists && r_pct(g, 5))
				key = ""; /* tolerates everything (with that effect) */
			strbuf_addf(&sb, "%s{", i ? "," : "");
			if (*key)
				strbuf_addf(&sb, "\"key\":\"%s\",", key);
			strbuf_addf(&sb, "\"operator\":\"%s\"", exists ? "Exists" : "Equal");
			if (!exists) {
				const char *v = PICK(g, taint_values);
				strbuf_addf(&sb, ",\"value\":\"%s\"", v);
			}
			if (effect < 3)
				strbuf_addf(&sb, ",\"effect\":\"%s\"", effects[effect]);
			if (effect == 1 && r_pct(g, 50))
				strbuf_addf(&sb, ",\"tolerationSeconds\":%d", 30 * r_int(g, 10));
			strbuf_puts(&sb, "}");
		}
		strbuf_puts(&sb, "]");
	}
	put_volumes(g, lean ? &junk : &sb, VOL_PENDING);
	if (lean && g->scratch_mount) /* the containers may mount it */
		strbuf_puts(&sb, ",\"volumes\":[{\"name\":\"scratch\",\"emptyDir\":{}}]");
	strbuf_release(&junk);
	if (g->pend_nom >= 0) /* an earlier cycle's preemption nominated it */
		strbuf_addf(&sb, "},\"status\":{\"phase\":\"Pending\",\"nominatedNodeName\":\"%s\"}}",
			    g->node_names[g->pend_nom]);
	else
		strbuf_puts(&sb, "}}");
	return strbuf_detach(&sb, NULL);
}

/* A pod that fills a third to two thirds of node's cpu or memory (or both), with a priority and
 * labels (preemption states only: more nodes where the pending pod fits once lower-priority pods
 * go, and PDBs to match). */
static char *gen_filler_pod(struct gen *g, int idx, int node)
{
	static const char *const apps[] = { "web", "db", "cache" };
	struct strbuf sb = STRBUF_INIT;
	const char *ns = p_pct(g, 75) ? "default" : "other";
	strbuf_addf(&sb,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"f%d\",\"namespace\":\"%s\","
		    "\"uid\":\"uid-f%d\",\"labels\":{\"app\":\"%s\"}},\"spec\":{\"nodeName\":\"%s\","
		    "\"schedulerName\":\"default-scheduler\",",
		    idx, ns, idx, PPICK(g, apps), g->node_names[node]);
	char start[32];
	put_bound_priority(g, &sb, start, g->guarded || p_pct(g, 60));
	int what = p_int(g, 3); /* 0 cpu, 1 memory, 2 both */
	int cpu = what != 1 ? g->node_cpu_m[node] * (33 + p_int(g, 34)) / 100 : 100;
	int mem = what != 0 ? g->node_mem_mi[node] * (33 + p_int(g, 34)) / 100 : 128;
	strbuf_addf(&sb,
		    "\"containers\":[{\"name\":\"c0\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{"
		    "\"requests\":{\"cpu\":\"%dm\",\"memory\":\"%dMi\"}}}]},\"status\":{\"phase\":\"Running\","
		    "\"startTime\":\"%s\"}}",
		    cpu, mem, start);
	return strbuf_detach(&sb, NULL);
}

/* PodDisruptionBudgets (policy/v1) over the bound pods' labels, as the disruption controller
 * left them: status.disruptionsAllowed 0-2 and sometimes a pod in disruptedPods (upstream
 * FilterVictimsWithPDBViolation skips it). Selectors: absent and {} (upstream skips both),
 * matchLabels or matchExpressions over the pod label kinds. */
static void gen_pdbs(struct gen *g)
{
	/* one PDB per namespace: a pod matching two would make upstream's verdict depend on the
	 * order its PDB lister returns them (FilterVictimsWithPDBViolation stops at the first
	 * violated one, leaving the other's budget unspent), which is Go map order */
	static const char *const nss[] = { "default", "other", "prod" };
	int n = p_pct(g, 55) ? 1 + p_int(g, 3) : 0;
	int ns0 = p_pct(g, 70) ? 0 : p_int(g, 3);
	for (; g->n_pdbs < n; g->n_pdbs++) {
		struct strbuf sb = STRBUF_INIT;
		const char *ns = nss[(ns0 + g->n_pdbs) % 3];
		strbuf_addf(&sb,
			    "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"pdb%d\","
			    "\"namespace\":\"%s\",\"uid\":\"uid-pdb%d\"},\"spec\":{\"minAvailable\":1",
			    g->n_pdbs, ns, g->n_pdbs);
		int shape = p_int(g, 10);
		int k = p_pct(g, 60) ? 0 : p_int(g, GEN_POD_LABEL_KINDS);
		const char *key = pod_label_kinds[k].key, *v = pod_label_kinds[k].values[p_int(g, pod_label_kinds[k].n)];
		if (shape == 1)
			strbuf_puts(&sb, ",\"selector\":{}");
		else if (shape >= 2 && shape < 7) {
			strbuf_puts(&sb, ",\"selector\":{\"matchLabels\":{");
			gen_json_str(&sb, key);
			strbuf_puts(&sb, ":");
			gen_json_str(&sb, v);
			strbuf_puts(&sb, "}}");
		} else if (shape >= 7) {
			strbuf_puts(&sb, ",\"selector\":{\"matchExpressions\":[{\"key\":");
			gen_json_str(&sb, key);
			strbuf_addf(&sb, ",\"operator\":\"%s\"", shape == 9 ? "Exists" : "In");
			if (shape != 9) {
				strbuf_puts(&sb, ",\"values\":[");
				gen_json_str(&sb, v);
				strbuf_puts(&sb, "]");
			}
			strbuf_puts(&sb, "}]}");
		}
		static const int allowed_v[] = { 0, 0, 1, 2 };
		int allowed = PPICK(g, allowed_v);
		strbuf_addf(&sb, "},\"status\":{\"disruptionsAllowed\":%d,\"currentHealthy\":%d,\"desiredHealthy\":1,"
				 "\"expectedPods\":%d",
			    allowed, 1 + allowed, 1 + allowed);
		/* mostly a filler pod's name (the likely victims), else a bound pod's */
		if (g->n_fillers && p_pct(g, 40))
			strbuf_addf(&sb, ",\"disruptedPods\":{\"f%d\":\"2026-01-01T00:00:00Z\"}",
				    g->filler_idx[p_int(g, g->n_fillers)]);
		else if (g->n_pods && p_pct(g, 15))
			strbuf_addf(&sb, ",\"disruptedPods\":{\"b%d\":\"2026-01-01T00:00:00Z\"}", p_int(g, g->n_pods));
		strbuf_puts(&sb, "}}");
		g->pdbs[g->n_pdbs] = strbuf_detach(&sb, NULL);
	}
}

/* Plugin args a profile may carry (half of the seeds run the defaults): addedAffinity, the
 * scoring strategies with their resources and weights, ignored resources, score weights. */
static const char *const config_variants[] = {
	"",
	"",
	"",
	"",
	"  pluginConfig:\n"
	"  - name: NodeAffinity\n"
	"    args:\n"
	"      addedAffinity:\n"
	"        requiredDuringSchedulingIgnoredDuringExecution:\n"
	"          nodeSelectorTerms:\n"
	"          - matchExpressions:\n"
	"            - key: disk\n"
	"              operator: NotIn\n"
	"              values: [hdd]\n"
	"        preferredDuringSchedulingIgnoredDuringExecution:\n"
	"        - weight: 30\n"
	"          preference:\n"
	"            matchExpressions:\n"
	"            - key: topology.kubernetes.io/zone\n"
	"              operator: In\n"
	"              values: [zone-a]\n"
	"        - weight: 70\n"
	"          preference:\n"
	"            matchExpressions:\n"
	"            - key: tier\n"
	"              operator: Gt\n"
	"              values: [\"2\"]\n",
	"  pluginConfig:\n"
	"  - name: NodeResourcesFit\n"
	"    args:\n"
	"      ignoredResourceGroups: [example.com]\n"
	"      scoringStrategy:\n"
	"        type: MostAllocated\n"
	"        resources:\n"
	"        - name: cpu\n"
	"          weight: 1\n"
	"        - name: memory\n"
	"          weight: 2\n",
	"  pluginConfig:\n"
	"  - name: NodeResourcesFit\n"
	"    args:\n"
	"      scoringStrategy:\n"
	"        type: RequestedToCapacityRatio\n"
	"        resources:\n"
	"        - name: cpu\n"
	"          weight: 2\n"
	"        - name: memory\n"
	"          weight: 1\n"
	"        requestedToCapacityRatio:\n"
	"          shape:\n"
	"          - utilization: 0\n"
	"            score: 0\n"
	"          - utilization: 60\n"
	"            score: 8\n"
	"          - utilization: 100\n"
	"            score: 10\n",
	"  pluginConfig:\n"
	"  - name: NodeResourcesFit\n"
	"    args:\n"
	"      ignoredResources: [hugepages-2Mi]\n"
	"      scoringStrategy:\n"
	"        type: LeastAllocated\n"
	"        resources:\n"
	"        - name: cpu\n"
	"          weight: 1\n"
	"        - name: memory\n"
	"          weight: 1\n"
	"        - name: example.com/gpu\n"
	"          weight: 3\n"
	"  - name: NodeResourcesBalancedAllocation\n"
	"    args:\n"
	"      resources:\n"
	"      - name: cpu\n"
	"        weight: 1\n"
	"      - name: memory\n"
	"        weight: 1\n"
	"      - name: example.com/gpu\n"
	"        weight: 1\n",
};

/* The args of InterPodAffinity and PodTopologySpread a profile may carry when the registry
 * implements them: hardPodAffinityWeight (0..100, validation_pluginargs.go) with
 * ignorePreferredTermsOfExistingPods; defaultingType List with default constraints (no selector,
 * ValidatePodTopologySpreadArgs; minDomains, node inclusion policies and matchLabelKeys allowed)
 * or none, and an explicit System. */
static const char *const pts_variants[] = {
	"  - name: PodTopologySpread\n"
	"    args:\n"
	"      defaultingType: List\n"
	"      defaultConstraints:\n"
	"      - maxSkew: 1\n"
	"        topologyKey: topology.kubernetes.io/zone\n"
	"        whenUnsatisfiable: DoNotSchedule\n"
	"      - maxSkew: 2\n"
	"        topologyKey: kubernetes.io/hostname\n"
	"        whenUnsatisfiable: ScheduleAnyway\n",
	"  - name: PodTopologySpread\n"
	"    args:\n"
	"      defaultingType: List\n"
	"      defaultConstraints:\n"
	"      - maxSkew: 1\n"
	"        topologyKey: topology.kubernetes.io/region\n"
	"        whenUnsatisfiable: DoNotSchedule\n"
	"        minDomains: 3\n"
	"        nodeAffinityPolicy: Ignore\n"
	"        nodeTaintsPolicy: Honor\n"
	"      - maxSkew: 1\n"
	"        topologyKey: example.com/rack\n"
	"        whenUnsatisfiable: ScheduleAnyway\n"
	"        matchLabelKeys: [version]\n",
	"  - name: PodTopologySpread\n"
	"    args:\n"
	"      defaultingType: List\n",
	"  - name: PodTopologySpread\n"
	"    args:\n"
	"      defaultingType: System\n",
};

static bool implemented(const struct cfg_registry *reg, const char *name)
{
	const struct cfg_plugin_desc *d = cfg_registry_lookup(reg, name);
	return d && d->implemented;
}

/* Whether the generator emits the pod-topology material (see struct gen's t). */
static bool gen_topo(void)
{
	/* DIFFERENTIAL_TOPOLOGY=1 / =0 forces it on / off (to try the generator) */
	const char *force = getenv("DIFFERENTIAL_TOPOLOGY");
	if (force && *force)
		return !strcmp(force, "1");
	const struct cfg_registry *reg = fw_registry();
	return implemented(reg, "InterPodAffinity") || implemented(reg, "PodTopologySpread");
}

/* Whether the generator emits the preemption material (see struct gen's p). */
static bool gen_preempt(void)
{
	/* DIFFERENTIAL_PREEMPTION=1 / =0 forces it on / off (=1 also keeps DefaultPreemption
	 * enabled in the configuration while it is NOT_YET: to try the generator on the oracle) */
	const char *force = getenv("DIFFERENTIAL_PREEMPTION");
	if (force && *force)
		return !strcmp(force, "1");
	return implemented(fw_registry(), "DefaultPreemption");
}

/* Whether the generator emits the volume material (see struct gen's v). */
static bool gen_vol(void)
{
	/* DIFFERENTIAL_VOLUMES=1 / =0 forces it on / off (to try the generator) */
	const char *force = getenv("DIFFERENTIAL_VOLUMES");
	if (force && *force)
		return !strcmp(force, "1");
	const struct cfg_registry *reg = fw_registry();
	return implemented(reg, "VolumeZone") || implemented(reg, "NodeVolumeLimits");
}

/* Whether seed is a DRA state (see struct gen's d). */
static bool gen_dra_seed(uint64_t seed)
{
	/* DIFFERENTIAL_DRA=1 / =0 forces it on / off (to try the generator on other seeds) */
	const char *force = getenv("DIFFERENTIAL_DRA");
	if (force && *force)
		return !strcmp(force, "1");
	return seed >= GEN_DRA_SEED0;
}

/* NodeVolumeLimits' material beside the PVs (gen_pv) and the StorageClass (gen_storage_class):
 * CSINodes with allocatable counts 0-2 (or none) per driver, the CSIDriver of csi.example.com
 * (preventPodSchedulingIfMissing sometimes), and VolumeAttachments of PVs (some missing) on the
 * nodes. The pods' PVCs and inline EBS / GCE PD disks are the first stream's. */
static void gen_volumes(struct gen *g)
{
	static const char *const drivers[] = { "csi.example.com", "ebs.csi.aws.com", "pd.csi.storage.gke.io" };
	for (int i = 0; i < g->n_nodes; i++) {
		if (!v_pct(g, 70))
			continue;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"metadata\":{\"name\":\"%s\"},"
				 "\"spec\":{\"drivers\":[", g->node_names[i]);
		bool first = true;
		for (int d = 0; d < 3; d++) {
			if (!v_pct(g, 70))
				continue;
			comma(&sb, &first);
			strbuf_addf(&sb, "{\"name\":\"%s\",\"nodeID\":\"%s\",\"topologyKeys\":null", drivers[d], g->node_names[i]);
			if (v_pct(g, 80))
				strbuf_addf(&sb, ",\"allocatable\":{\"count\":%d}", v_int(g, 3));
			strbuf_puts(&sb, "}");
		}
		strbuf_puts(&sb, "]}}");
		vol_obj(g, GEN_VOL_CSINODE, &sb);
	}
	if (v_pct(g, 70)) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSIDriver\",\"metadata\":{\"name\":\"csi.example.com\"},"
				 "\"spec\":{\"attachRequired\":true,\"podInfoOnMount\":false,\"requiresRepublish\":false,"
				 "\"storageCapacity\":false,\"fsGroupPolicy\":\"ReadWriteOnceWithFSType\","
				 "\"volumeLifecycleModes\":[\"Persistent\"],\"seLinuxMount\":false%s}}",
			    v_pct(g, 60) ? ",\"preventPodSchedulingIfMissing\":true" : "");
		vol_obj(g, GEN_VOL_CSIDRIVER, &sb);
	}
	int nva = v_pct(g, 70) ? 1 + v_int(g, 4) : 0;
	for (int i = 0; i < nva; i++) {
		struct strbuf sb = STRBUF_INIT;
		int k = v_int(g, 5);
		strbuf_addf(&sb, "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"VolumeAttachment\",\"metadata\":{\"name\":\"va-%d\"},"
				 "\"spec\":{\"attacher\":\"%s\",\"nodeName\":\"%s\",\"source\":{\"persistentVolumeName\":\"pv-%s-%d\"}}}",
			    i, drivers[v_int(g, 2)], g->node_names[v_int(g, g->n_nodes)], k < 4 ? "default" : "other", k < 4 ? k : 0);
		vol_obj(g, GEN_VOL_VA, &sb);
	}
}

/* A copy of json with ins inserted after the first occurrence of at (NULL when at is absent). */
static char *insert_after(const char *json, const char *at, const char *ins)
{
	const char *p = strstr(json, at);
	if (!p)
		return NULL;
	size_t head = (size_t)(p - json) + strlen(at);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%.*s%s%s", (int)head, json, ins, json + head);
	return strbuf_detach(&sb, NULL);
}

/* Gives the pending pod of namespace default 1-2 more PVC volumes (vv0, vv1: claims data-0..3)
 * half of the time, so that NodeVolumeLimits has new volumes to count (the first stream gives
 * few pending pods a PVC). */
static void add_pending_claims(struct gen *g)
{
	if (!strstr(g->pod, "\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"") || !v_pct(g, 50))
		return;
	struct strbuf v = STRBUF_INIT;
	int n = 1 + v_pct(g, 40);
	for (int i = 0; i < n; i++)
		strbuf_addf(&v, "{\"name\":\"vv%d\",\"persistentVolumeClaim\":{\"claimName\":\"data-%d\"}},", i, v_int(g, 4));
	char *np = insert_after(g->pod, "\"volumes\":[", v.data);
	if (!np) {
		v.data[v.len - 1] = '\0'; /* the trailing comma */
		struct strbuf w = STRBUF_INIT;
		strbuf_addf(&w, "\"volumes\":[%s],", v.data);
		np = insert_after(g->pod, "\"spec\":{", w.data);
		strbuf_release(&w);
	}
	strbuf_release(&v);
	if (np) {
		free(g->pod);
		g->pod = np;
	}
}

/* The profile both sides run: upstream's defaults minus the plugins csched lacks (the NOT_YET
 * rows of algorithm/registry.c), with one of config_variants (chosen by a hash of the seed, so
 * that it does not shift the state's random stream). Variant 6 also changes score weights. */
static char *gen_config(uint64_t seed, bool dra)
{
	const struct cfg_registry *reg = fw_registry();
	struct gen h = { .s = seed ^ 0xC0F16ull };
	size_t v = (size_t)(rnd(&h) % (sizeof(config_variants) / sizeof(config_variants[0])));
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
			 "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      disabled:\n");
	for (size_t i = 0; i < reg->n; i++) {
		const char *name = reg->plugins[i].name;
		/* the DRA states keep DynamicResources even while it is NOT_YET (to try the generator
		 * on the oracle) */
		if (!reg->plugins[i].implemented && reg->plugins[i].upstream_default &&
		    !(!strcmp(name, "DefaultPreemption") && gen_preempt()) && !(!strcmp(name, "DynamicResources") && dra))
			strbuf_addf(&sb, "      - name: %s\n", name);
	}
	/* one of the plugins at some extension points only (a fourth hash): its Score without its
	 * PreFilter state, or (a configuration upstream accepts) its Filter without PreFilter */
	struct gen h3 = { .s = seed ^ 0x9017ull };
	int pv = (int)(rnd(&h3) % 100);
	const char *pl = pv < 8 ? "InterPodAffinity" : "PodTopologySpread";
	if (pv < 16 && implemented(reg, pl))
		strbuf_addf(&sb, "    preFilter:\n      disabled:\n      - name: %s\n%s", pl,
			    pv % 4 ? "    filter:\n      disabled:\n" : "");
	if (pv < 16 && pv % 4 && implemented(reg, pl))
		strbuf_addf(&sb, "      - name: %s\n", pl);
	if (v == 6)
		strbuf_puts(&sb, "    score:\n      enabled:\n      - name: ImageLocality\n        weight: 5\n"
				 "      - name: TaintToleration\n        weight: 1\n");
	strbuf_puts(&sb, config_variants[v]);
	/* the pod-topology args, from a third hash of the seed */
	struct gen h2 = { .s = seed ^ 0x7090ull };
	bool ipa = implemented(reg, "InterPodAffinity") && rnd(&h2) % 100 < 30;
	bool pts = implemented(reg, "PodTopologySpread") && rnd(&h2) % 100 < 35;
	if ((ipa || pts) && !config_variants[v][0])
		strbuf_puts(&sb, "  pluginConfig:\n");
	if (ipa) {
		static const int weights[] = { 0, 1, 5, 100 };
		strbuf_addf(&sb,
			    "  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: %d\n"
			    "      ignorePreferredTermsOfExistingPods: %s\n",
			    weights[rnd(&h2) % 4], rnd(&h2) % 2 ? "true" : "false");
	}
	if (pts)
		strbuf_puts(&sb, pts_variants[rnd(&h2) % (sizeof(pts_variants) / sizeof(pts_variants[0]))]);
	return strbuf_detach(&sb, NULL);
}

void gen_state(struct gen *g, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->s = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
	g->t = seed * 0xD1B54A32D192ED03ull + 0x70B0ull;
	g->p = seed * 0xA24BAED4963EE407ull + 0x9E37ull;
	g->v = seed * 0xE7037ED1A0B428DBull + 0x501ull;
	g->d = seed * 0x8CB92BA72F3D8DD7ull + 0xD4Aull;
	g->dra = gen_dra_seed(seed);
	g->vol = gen_vol();
	g->topo = gen_topo();
	g->preempt = gen_preempt();
	g->pend_nom = -1;
	g->pod_level_resources = true;
	g->config = gen_config(seed, g->dra);
	g->n_nodes = 1 + r_int(g, 12);
	for (int i = 0; i < g->n_nodes; i++)
		snprintf(g->node_names[i], sizeof(g->node_names[i]), "n%d", (i + 1) % 100);
	for (int i = 0; i < g->n_nodes; i++)
		g->nodes[i] = gen_node(g, i);
	gen_pvcs(g);
	if (g->vol)
		gen_storage_class(g);
	if (g->preempt && p_pct(g, 15))
		g->pend_nom = p_int(g, g->n_nodes);
	g->guarded = g->preempt && p_pct(g, 25);
	for (int i = 0; i < g->n_nodes; i++) {
		int np = r_int(g, 4);
		for (int k = 0; k < np && g->n_pods < GEN_MAX_PODS; k++, g->n_pods++) {
			g->node_pod_k = k;
			g->pods[g->n_pods] = gen_bound_pod(g, g->n_pods, g->node_names[i]);
		}
	}
	for (int i = 0; g->topo && i < g->n_nodes; i++) {
		int np = t_int(g, 3);
		for (int k = 0; k < np && g->n_pods < GEN_MAX_PODS; k++, g->n_pods++) {
			g->node_pod_k = 10 + k; /* after the node's bound pods */
			g->pods[g->n_pods] = gen_light_pod(g, g->n_pods, g->node_names[i]);
		}
	}
	for (int i = 0; g->preempt && i < g->n_nodes; i++) {
		int np = p_pct(g, 85) ? 1 + p_int(g, 2) : 0;
		for (int k = 0; k < np && g->n_pods < GEN_MAX_PODS; k++, g->n_pods++) {
			g->node_pod_k = 20 + k;
			g->filler_idx[g->n_fillers++] = g->n_pods;
			g->pods[g->n_pods] = gen_filler_pod(g, g->n_pods, i);
		}
	}
	int nn = r_pct(g, 40) ? 1 + r_int(g, GEN_MAX_NOMINATED) : 0;
	for (; g->n_nominated < nn; g->n_nominated++)
		g->nominated[g->n_nominated] = gen_nominated_pod(g, g->n_nominated);
	g->pod = gen_pending_pod(g);
	if (g->vol)
		add_zone_claim(g);
	if (g->topo)
		gen_namespaces(g);
	if (g->preempt)
		gen_pdbs(g);
	if (g->vol) {
		gen_volumes(g);
		add_pending_claims(g);
	}
	if (g->dra)
		gen_dra(g);
}

void gen_release(struct gen *g)
{
	free(g->config);
	for (int i = 0; i < g->n_nodes; i++)
		free(g->nodes[i]);
	for (int i = 0; i < g->n_pods; i++)
		free(g->pods[i]);
	for (int i = 0; i < g->n_pvcs; i++)
		free(g->pvcs[i]);
	for (int i = 0; i < g->n_nominated; i++)
		free(g->nominated[i]);
	free(g->pod);
	for (int i = 0; i < g->n_namespaces; i++)
		free(g->namespaces[i]);
	for (int i = 0; i < g->n_owners; i++)
		free(g->owners[i]);
	for (int i = 0; i < g->n_pdbs; i++)
		free(g->pdbs[i]);
	for (int i = 0; i < g->n_vol_objs; i++)
		free(g->vol_objs[i]);
	for (int i = 0; i < g->n_dra_objs; i++)
		free(g->dra_objs[i]);
	memset(g, 0, sizeof(*g));
}

char *gen_state_json(const struct gen *g)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "{\"config\":");
	gen_json_str(&sb, g->config);
	strbuf_puts(&sb, ",\"nodes\":[");
	for (int i = 0; i < g->n_nodes; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", g->nodes[i]);
	strbuf_puts(&sb, "],\"pods\":[");
	for (int i = 0; i < g->n_pods; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", g->pods[i]);
	for (int i = 0; i < g->n_nominated; i++)
		strbuf_addf(&sb, "%s%s", i || g->n_pods ? "," : "", g->nominated[i]);
	strbuf_puts(&sb, "],\"pvcs\":[");
	for (int i = 0; i < g->n_pvcs; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", g->pvcs[i]);
	strbuf_addf(&sb, "],\"pod\":%s", g->pod);
	if (g->topo) {
		strbuf_puts(&sb, ",\"namespaces\":[");
		for (int i = 0; i < g->n_namespaces; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "", g->namespaces[i]);
		static const char *const keys[] = { "services", "replicationControllers", "replicaSets", "statefulSets" };
		for (int k = 0; k < 4; k++) {
			strbuf_addf(&sb, "],\"%s\":[", keys[k]);
			bool first = true;
			for (int i = 0; i < g->n_owners; i++)
				if ((int)g->owner_kind[i] == k) {
					comma(&sb, &first);
					strbuf_puts(&sb, g->owners[i]);
				}
		}
		strbuf_puts(&sb, "]");
	}
	if (g->preempt) {
		strbuf_puts(&sb, ",\"pdbs\":[");
		for (int i = 0; i < g->n_pdbs; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "", g->pdbs[i]);
		strbuf_puts(&sb, "]");
	}
	if (g->vol) {
		static const char *const keys[GEN_VOL_KINDS] = { "pvs", "storageClasses", "csiNodes", "csiDrivers", "objects" };
		for (int k = 0; k < GEN_VOL_KINDS; k++) {
			strbuf_addf(&sb, ",\"%s\":[", keys[k]);
			bool first = true;
			for (int i = 0; i < g->n_vol_objs; i++)
				if ((int)g->vol_kind[i] == k) {
					comma(&sb, &first);
					strbuf_puts(&sb, g->vol_objs[i]);
				}
			strbuf_puts(&sb, "]");
		}
	}
	if (g->dra) {
		static const char *const keys[GEN_DRA_KINDS] = { "deviceClasses", "resourceSlices", "resourceClaims",
								 "deviceTaintRules" };
		for (int k = 0; k < GEN_DRA_KINDS; k++) {
			strbuf_addf(&sb, ",\"%s\":[", keys[k]);
			bool first = true;
			for (int i = 0; i < g->n_dra_objs; i++)
				if ((int)g->dra_kind[i] == k) {
					comma(&sb, &first);
					strbuf_puts(&sb, g->dra_objs[i]);
				}
			strbuf_puts(&sb, "]");
		}
	}
	strbuf_puts(&sb, "}");
	return strbuf_detach(&sb, NULL);
}
