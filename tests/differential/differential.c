/* The differential test: csched's algorithm against upstream kube-scheduler's (the oracle,
 * tests/oracle) on random small cluster states (gen.c). For every node it compares the Filter
 * verdict (code, failing plugin, reasons), each score plugin's normalized x weight score and the
 * total of feasible nodes, the best-node set, csched's pick (in that set) and, when nothing fits,
 * the FailedScheduling message, the rejecting plugins and preemption's decision (the nominated
 * node among upstream's equally good candidates, and its victims). See README.md.
 *
 *   differential [FILE]             compare with expected outputs (default: the checked-in
 *                                   expected.jsonl.gz); FILE may be .jsonl or .jsonl.gz
 *   differential --state SEED       the oracle's input for SEED (one line of JSON)
 *   differential --states FROM N    inputs for seeds FROM..FROM+N-1, one per line (oracle -jsonl)
 *   differential --strip FROM       oracle -jsonl output on stdin -> expected lines (with seeds)
 * Options: --max N (difference lines printed, default 40), --quiet (summary only). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "algorithm/framework_internal.h"
#include "apiclient/api_types.h"
#include "cache/cache.h"
#include "cache/snapshot.h"
#include "common/strbuf.h"
#include "config/config.h"
#include "gen.h"

#ifndef DIFFERENTIAL_FIXTURE
#define DIFFERENTIAL_FIXTURE CSCHED_SOURCE_DIR "/tests/differential/expected.jsonl.gz"
#endif

#define MAX_REASONS 8
#define MAX_SCORES 12
#define TEXT 512
#define MAX_VICTIMS 16
#define NAME 64 /* namespace/name of a pod */

/* One node's outcome, as the oracle reports it. */
struct node_out {
	char name[16];
	char code[40], plugin[64];
	int n_reasons;
	char reasons[MAX_REASONS][TEXT];
	int n_scores;
	char score_plugin[MAX_SCORES][64];
	int64_t score[MAX_SCORES];
	bool has_total;
	int64_t total;
	/* DRA: the allocation Reserve records on the node (oracle_alloc_text's form), "" when none */
	char alloc[1024];
};

/* Preemption's victims on one node (upstream's Candidate). */
struct candidate {
	char node[16];
	int64_t pdb_violations;
	int n_victims;
	char victims[MAX_VICTIMS][NAME]; /* namespace/name, sorted */
};

/* One state's outcome: the fields compared (the oracle's names). */
struct result {
	uint64_t seed;
	char state_hash[16]; /* of the oracle's input (expected files), "" when absent */
	int n_nodes;
	struct node_out nodes[GEN_MAX_NODES];
	int n_best;
	char best[GEN_MAX_NODES][16];
	char selected[16]; /* csched's pick (not in expected files) */
	bool cycle_error;  /* csched's fw_schedule_pod ended in an error (not in expected files) */
	char message[4096];
	int n_unsched;
	char unsched[FW_MAX_PLUGINS][64];
	/* preemption: the node nominated ("" none); expected: every candidate and those upstream's
	 * SelectCandidate may pick (preemptionBest); csched: its one decision in candidates[0] */
	char nominated[16];
	int n_candidates, n_preempt_best;
	struct candidate candidates[GEN_MAX_NODES];
	char preempt_best[GEN_MAX_NODES][16];
	char pod_nominated[16]; /* csched: the pending pod's status.nominatedNodeName */
	char preenqueue[TEXT];  /* the PreEnqueue rejection ("code plugin: reasons"), "" when none */
	/* csched: the allocation its Reserve and DynamicResources' PreBind wrote on its pick */
	bool alloc_checked;
	char alloc[1024];
	/* The binding cycle's outcome: expected, the node upstream ran Reserve and PreBind for (the
	 * oracle's "bound", "" when it did not) and their error ("" none); csched, DynamicResources'
	 * PreBind error on its pick (Reserve's is in alloc, as the oracle's per-node allocationError). */
	char bind_node[16];
	char bind_error[TEXT];
	int n_warnings;
	char error[TEXT]; /* the oracle could not run the state */
};

/* Truncating string copy (dst and src never overlap). */
static void copy(char *dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;
	if (n)
		memmove(dst, src, n);
	dst[n] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* FNV-1a (32 bits) of the oracle's input for seed, as 8 hex digits: an expected line made from
 * another state (the generator or the registry's NOT_YET rows changed) is detected, not
 * compared. */
static void state_hash(uint64_t seed, char out[16])
{
	struct gen g;
	gen_state(&g, seed);
	char *js = gen_state_json(&g);
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)js; *p; p++)
		h = (h ^ *p) * 16777619u;
	snprintf(out, 16, "%08x", h);
	free(js);
	gen_release(&g);
}

/* ---------- Reading the oracle's (or an expected file's) JSON ---------- */

static yajl_val get(yajl_val obj, const char *key)
{
	if (!YAJL_IS_OBJECT(obj))
		return NULL;
	for (size_t i = 0; i < obj->u.object.len; i++)
		if (!strcmp(obj->u.object.keys[i], key))
			return obj->u.object.values[i];
	return NULL;
}

static const char *get_str(yajl_val obj, const char *key)
{
	yajl_val v = get(obj, key);
	return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : "";
}

/* A status object of the oracle ({"code", "plugin", "reasons"}) as "code plugin: reason; reason". */
static void status_text(yajl_val st, char *buf, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s %s:", get_str(st, "code"), *get_str(st, "plugin") ? get_str(st, "plugin") : "-");
	yajl_val rs = get(st, "reasons");
	for (size_t k = 0; YAJL_IS_ARRAY(rs) && k < rs->u.array.len; k++)
		strbuf_addf(&sb, "%s %s", k ? ";" : "", YAJL_IS_STRING(rs->u.array.values[k]) ? YAJL_GET_STRING(rs->u.array.values[k]) : "");
	copy(buf, size, sb.data);
	strbuf_release(&sb);
}

/* The oracle's per-node "allocation" (claim name -> {devices, nodeSelector}, Go's map order:
 * sorted) and "allocationError" as one line: "claim: request driver/pool/device[ admin][ shared][
 * capacity=quantity...], ...[ @ nodeSelector]; claim: ...[ ! error]" (a share's shareID is random:
 * only its presence counts). csched's side is made the same way (dra_reserve). */
static void oracle_alloc_text(yajl_val alloc, const char *error, char *buf, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; YAJL_IS_OBJECT(alloc) && i < alloc->u.object.len; i++) {
		yajl_val a = alloc->u.object.values[i], devs = get(a, "devices");
		strbuf_addf(&sb, "%s%s:", i ? "; " : "", alloc->u.object.keys[i]);
		for (size_t k = 0; YAJL_IS_ARRAY(devs) && k < devs->u.array.len; k++) {
			yajl_val d = devs->u.array.values[k], ad = get(d, "adminAccess"), cc = get(d, "consumedCapacity");
			strbuf_addf(&sb, "%s %s %s/%s/%s%s%s", k ? "," : "", get_str(d, "request"), get_str(d, "driver"),
				    get_str(d, "pool"), get_str(d, "device"), YAJL_IS_TRUE(ad) ? " admin" : "",
				    YAJL_IS_TRUE(get(d, "shared")) ? " shared" : "");
			for (size_t m = 0; YAJL_IS_OBJECT(cc) && m < cc->u.object.len; m++) /* sorted keys */
				strbuf_addf(&sb, " %s=%s", cc->u.object.keys[m],
					    YAJL_IS_STRING(cc->u.object.values[m]) ? YAJL_GET_STRING(cc->u.object.values[m]) : "?");
		}
		if (*get_str(a, "nodeSelector"))
			strbuf_addf(&sb, " @ %s", get_str(a, "nodeSelector"));
	}
	if (error && *error)
		strbuf_addf(&sb, "%s! %s", sb.len ? " " : "", error);
	copy(buf, size, sb.data ? sb.data : "");
	strbuf_release(&sb);
}

/* Parses one output line into r (seed kept). Returns 0, or -1 with r->error set. */
static int parse_result(const char *line, struct result *r)
{
	char errbuf[256];
	uint64_t seed = r->seed;
	memset(r, 0, sizeof(*r));
	r->seed = seed;
	yajl_val t = yajl_tree_parse(line, errbuf, sizeof(errbuf));
	if (!t) {
		snprintf(r->error, sizeof(r->error), "unparsable line: %s", errbuf);
		return -1;
	}
	yajl_val v;
	if ((v = get(t, "seed")) && YAJL_IS_INTEGER(v))
		r->seed = (uint64_t)YAJL_GET_INTEGER(v);
	copy(r->state_hash, sizeof(r->state_hash), get_str(t, "state"));
	if ((v = get(t, "error"))) {
		snprintf(r->error, sizeof(r->error), "oracle: %s", get_str(t, "error"));
		yajl_tree_free(t);
		return -1;
	}
	yajl_val nodes = get(t, "nodes");
	for (size_t i = 0; YAJL_IS_OBJECT(nodes) && i < nodes->u.object.len && r->n_nodes < GEN_MAX_NODES; i++) {
		struct node_out *n = &r->nodes[r->n_nodes++];
		yajl_val nv = nodes->u.object.values[i], f = get(nv, "filter");
		copy(n->name, sizeof(n->name), nodes->u.object.keys[i]);
		copy(n->code, sizeof(n->code), get_str(f, "code"));
		copy(n->plugin, sizeof(n->plugin), get_str(f, "plugin"));
		yajl_val rs = get(f, "reasons");
		for (size_t k = 0; YAJL_IS_ARRAY(rs) && k < rs->u.array.len && n->n_reasons < MAX_REASONS; k++)
			copy(n->reasons[n->n_reasons++], TEXT, YAJL_GET_STRING(rs->u.array.values[k]));
		yajl_val sc = get(nv, "scores");
		for (size_t k = 0; YAJL_IS_OBJECT(sc) && k < sc->u.object.len && n->n_scores < MAX_SCORES; k++) {
			copy(n->score_plugin[n->n_scores], 64, sc->u.object.keys[k]);
			n->score[n->n_scores++] = YAJL_GET_INTEGER(sc->u.object.values[k]);
		}
		if ((v = get(nv, "total")) && YAJL_IS_INTEGER(v)) {
			n->has_total = true;
			n->total = YAJL_GET_INTEGER(v);
		}
		if ((v = get(nv, "alloc")) && YAJL_IS_STRING(v)) /* an expected line */
			copy(n->alloc, sizeof(n->alloc), YAJL_GET_STRING(v));
		else /* the oracle's output */
			oracle_alloc_text(get(nv, "allocation"), get_str(nv, "allocationError"), n->alloc, sizeof(n->alloc));
	}
	yajl_val bind = get(t, "bind");
	if (YAJL_IS_OBJECT(bind)) { /* an expected line */
		copy(r->bind_node, sizeof(r->bind_node), get_str(bind, "node"));
		copy(r->bind_error, sizeof(r->bind_error), get_str(bind, "error"));
	} else if (*get_str(t, "bound")) { /* the oracle's output */
		copy(r->bind_node, sizeof(r->bind_node), get_str(t, "bound"));
		yajl_val rs = get(get(t, "bindStatus"), "reasons");
		const char *msg = YAJL_IS_ARRAY(rs) && rs->u.array.len && YAJL_IS_STRING(rs->u.array.values[0])
					  ? YAJL_GET_STRING(rs->u.array.values[0])
					  : "";
		/* DynamicResources' PreBind only, without the framework's wrapping; csched's side runs
		 * no other PreBind (VolumeBinding's waits for a PV controller the oracle lacks) and
		 * Reserve's errors are in the per-node allocation */
		static const char dr[] = "running PreBind plugin \"DynamicResources\": ";
		if (!strncmp(msg, dr, sizeof(dr) - 1))
			copy(r->bind_error, sizeof(r->bind_error), msg + sizeof(dr) - 1);
		else if (msg[0])
			r->bind_node[0] = '\0';
	}
	if ((v = get(t, "preenqueue")) && YAJL_IS_STRING(v))
		copy(r->preenqueue, sizeof(r->preenqueue), YAJL_GET_STRING(v));
	else if (YAJL_IS_OBJECT(v))
		status_text(v, r->preenqueue, sizeof(r->preenqueue));
	yajl_val best = get(t, "best");
	for (size_t i = 0; YAJL_IS_ARRAY(best) && i < best->u.array.len && r->n_best < GEN_MAX_NODES; i++)
		copy(r->best[r->n_best++], 16, YAJL_GET_STRING(best->u.array.values[i]));
	copy(r->message, sizeof(r->message), get_str(t, "message"));
	yajl_val up = get(t, "unschedulablePlugins");
	for (size_t i = 0; YAJL_IS_ARRAY(up) && i < up->u.array.len && r->n_unsched < FW_MAX_PLUGINS; i++)
		copy(r->unsched[r->n_unsched++], 64, YAJL_GET_STRING(up->u.array.values[i]));
	copy(r->nominated, sizeof(r->nominated), get_str(t, "nominatedNode"));
	yajl_val cs = get(t, "candidates");
	for (size_t i = 0; YAJL_IS_OBJECT(cs) && i < cs->u.object.len && r->n_candidates < GEN_MAX_NODES; i++) {
		struct candidate *c = &r->candidates[r->n_candidates++];
		yajl_val cv = cs->u.object.values[i], vs = get(cv, "victims");
		copy(c->node, sizeof(c->node), cs->u.object.keys[i]);
		if ((v = get(cv, "pdbViolations")) && YAJL_IS_INTEGER(v))
			c->pdb_violations = YAJL_GET_INTEGER(v);
		for (size_t k = 0; YAJL_IS_ARRAY(vs) && k < vs->u.array.len && c->n_victims < MAX_VICTIMS; k++)
			copy(c->victims[c->n_victims++], NAME, YAJL_GET_STRING(vs->u.array.values[k]));
	}
	yajl_val pb = get(t, "preemptionBest");
	for (size_t i = 0; YAJL_IS_ARRAY(pb) && i < pb->u.array.len && r->n_preempt_best < GEN_MAX_NODES; i++)
		copy(r->preempt_best[r->n_preempt_best++], 16, YAJL_GET_STRING(pb->u.array.values[i]));
	yajl_val w = get(t, "warnings");
	r->n_warnings = YAJL_IS_ARRAY(w) ? (int)w->u.array.len : 0;
	if (r->n_warnings)
		snprintf(r->error, sizeof(r->error), "the API server would reject the state: %s",
			 YAJL_GET_STRING(w->u.array.values[0]));
	yajl_tree_free(t);
	return 0;
}

/* The expected-file form of r: the compared fields only, with the seed. */
static void write_result(FILE *out, const struct result *r)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"seed\":%" PRIu64 ",\"state\":\"%s\",\"nodes\":{", r->seed, r->state_hash);
	for (int i = 0; i < r->n_nodes; i++) {
		const struct node_out *n = &r->nodes[i];
		strbuf_puts(&sb, i ? "," : "");
		gen_json_str(&sb, n->name);
		strbuf_puts(&sb, ":{\"filter\":{\"code\":");
		gen_json_str(&sb, n->code);
		if (n->plugin[0]) {
			strbuf_puts(&sb, ",\"plugin\":");
			gen_json_str(&sb, n->plugin);
		}
		if (n->n_reasons) {
			strbuf_puts(&sb, ",\"reasons\":[");
			for (int k = 0; k < n->n_reasons; k++) {
				strbuf_puts(&sb, k ? "," : "");
				gen_json_str(&sb, n->reasons[k]);
			}
			strbuf_puts(&sb, "]");
		}
		strbuf_puts(&sb, "}");
		if (n->n_scores) {
			strbuf_puts(&sb, ",\"scores\":{");
			for (int k = 0; k < n->n_scores; k++) {
				strbuf_puts(&sb, k ? "," : "");
				gen_json_str(&sb, n->score_plugin[k]);
				strbuf_addf(&sb, ":%" PRId64, n->score[k]);
			}
			strbuf_puts(&sb, "}");
		}
		if (n->has_total)
			strbuf_addf(&sb, ",\"total\":%" PRId64, n->total);
		if (n->alloc[0]) {
			strbuf_puts(&sb, ",\"alloc\":");
			gen_json_str(&sb, n->alloc);
		}
		strbuf_puts(&sb, "}");
	}
	strbuf_puts(&sb, "},\"best\":[");
	for (int i = 0; i < r->n_best; i++) {
		strbuf_puts(&sb, i ? "," : "");
		gen_json_str(&sb, r->best[i]);
	}
	strbuf_puts(&sb, "]");
	if (r->message[0]) {
		strbuf_puts(&sb, ",\"message\":");
		gen_json_str(&sb, r->message);
	}
	if (r->bind_node[0]) {
		strbuf_puts(&sb, ",\"bind\":{\"node\":");
		gen_json_str(&sb, r->bind_node);
		strbuf_puts(&sb, ",\"error\":");
		gen_json_str(&sb, r->bind_error);
		strbuf_puts(&sb, "}");
	}
	if (r->preenqueue[0]) {
		strbuf_puts(&sb, ",\"preenqueue\":");
		gen_json_str(&sb, r->preenqueue);
	}
	if (r->n_unsched) {
		strbuf_puts(&sb, ",\"unschedulablePlugins\":[");
		for (int i = 0; i < r->n_unsched; i++) {
			strbuf_puts(&sb, i ? "," : "");
			gen_json_str(&sb, r->unsched[i]);
		}
		strbuf_puts(&sb, "]");
	}
	if (r->nominated[0]) {
		strbuf_puts(&sb, ",\"nominatedNode\":");
		gen_json_str(&sb, r->nominated);
		strbuf_puts(&sb, ",\"candidates\":{");
		for (int i = 0; i < r->n_candidates; i++) {
			const struct candidate *c = &r->candidates[i];
			strbuf_puts(&sb, i ? "," : "");
			gen_json_str(&sb, c->node);
			strbuf_puts(&sb, ":{\"victims\":[");
			for (int k = 0; k < c->n_victims; k++) {
				strbuf_puts(&sb, k ? "," : "");
				gen_json_str(&sb, c->victims[k]);
			}
			strbuf_addf(&sb, "],\"pdbViolations\":%" PRId64 "}", c->pdb_violations);
		}
		strbuf_puts(&sb, "},\"preemptionBest\":[");
		for (int i = 0; i < r->n_preempt_best; i++) {
			strbuf_puts(&sb, i ? "," : "");
			gen_json_str(&sb, r->preempt_best[i]);
		}
		strbuf_puts(&sb, "]");
	}
	strbuf_puts(&sb, "}\n");
	fputs(sb.data, out);
	strbuf_release(&sb);
}

/* ---------- Running csched ---------- */

/* The PVCs of the state being run: what the scheduler's PVC informer would hold (the profiles are
 * built once per configuration, so their lister reads this). */
static struct api_pvc *cur_pvcs[GEN_MAX_PVCS];
static int n_cur_pvcs;

static struct api_pvc *pvc_lister(void *ctx, const char *ns, const char *name)
{
	(void)ctx;
	for (int i = 0; i < n_cur_pvcs; i++)
		if (!strcmp(cur_pvcs[i]->meta.namespace, ns) && !strcmp(cur_pvcs[i]->meta.name, name))
			return api_pvc_ref(cur_pvcs[i]);
	return NULL;
}

/* NodeVolumeLimits' objects of the state being run (g->vol): what the volume informers would hold. */
static struct api_pv *cur_pvs[GEN_MAX_VOL_OBJS];
static struct api_storage_class *cur_scs[GEN_MAX_VOL_OBJS];
static struct api_csinode *cur_csinodes[GEN_MAX_VOL_OBJS];
static struct api_csidriver *cur_csidrivers[GEN_MAX_VOL_OBJS];
static struct api_volume_attachment *cur_vas[GEN_MAX_VOL_OBJS];
static int n_cur_pvs, n_cur_scs, n_cur_csinodes, n_cur_csidrivers, n_cur_vas;

#define BY_NAME(arr, n, ref)                                    \
	for (int i = 0; i < (n); i++)                           \
		if (!strcmp((arr)[i]->meta.name, name))         \
			return ref((arr)[i]);                   \
	return NULL

static struct api_pv *pv_lister(void *ctx, const char *name)
{
	(void)ctx;
	BY_NAME(cur_pvs, n_cur_pvs, api_pv_ref);
}

static struct api_storage_class *sc_lister(void *ctx, const char *name)
{
	(void)ctx;
	BY_NAME(cur_scs, n_cur_scs, api_storage_class_ref);
}

static struct api_csinode *csinode_lister(void *ctx, const char *name)
{
	(void)ctx;
	BY_NAME(cur_csinodes, n_cur_csinodes, api_csinode_ref);
}

static struct api_csidriver *csidriver_lister(void *ctx, const char *name)
{
	(void)ctx;
	BY_NAME(cur_csidrivers, n_cur_csidrivers, api_csidriver_ref);
}

static int va_each(void *ctx, const char *node, int (*fn)(void *arg, const struct api_volume_attachment *va), void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_vas; i++) {
		if (node && strcmp(cur_vas[i]->node_name, node))
			continue;
		int rc = fn(arg, cur_vas[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Decodes the state's volume objects into the listers' arrays; -1 with e set on bad input. */
static int vol_objs_load(const struct gen *g, struct err *e)
{
	for (int i = 0; i < g->n_vol_objs; i++) {
		const char *js = g->vol_objs[i];
		size_t n = strlen(js);
		void *o = NULL;
		switch (g->vol_kind[i]) {
		case GEN_VOL_PV:
			o = cur_pvs[n_cur_pvs] = api_pv_decode_json(js, n, e);
			n_cur_pvs += o != NULL;
			break;
		case GEN_VOL_SC:
			o = cur_scs[n_cur_scs] = api_storage_class_decode_json(js, n, e);
			n_cur_scs += o != NULL;
			break;
		case GEN_VOL_CSINODE:
			o = cur_csinodes[n_cur_csinodes] = api_csinode_decode_json(js, n, e);
			n_cur_csinodes += o != NULL;
			break;
		case GEN_VOL_CSIDRIVER:
			o = cur_csidrivers[n_cur_csidrivers] = api_csidriver_decode_json(js, n, e);
			n_cur_csidrivers += o != NULL;
			break;
		default:
			o = cur_vas[n_cur_vas] = api_volume_attachment_decode_json(js, n, e);
			n_cur_vas += o != NULL;
		}
		if (!o)
			return -1;
	}
	return 0;
}

static void vol_objs_free(void)
{
	while (n_cur_pvs)
		api_pv_unref(cur_pvs[--n_cur_pvs]);
	while (n_cur_scs)
		api_storage_class_unref(cur_scs[--n_cur_scs]);
	while (n_cur_csinodes)
		api_csinode_unref(cur_csinodes[--n_cur_csinodes]);
	while (n_cur_csidrivers)
		api_csidriver_unref(cur_csidrivers[--n_cur_csidrivers]);
	while (n_cur_vas)
		api_volume_attachment_unref(cur_vas[--n_cur_vas]);
}

/* The Namespaces, Services, RCs, ReplicaSets and StatefulSets of the state being run: what the
 * scheduler's informers would hold (InterPodAffinity's namespaceSelector, PodTopologySpread's
 * system default constraints). */
static struct api_namespace *cur_ns[GEN_MAX_NAMESPACES];
static int n_cur_ns;
static struct api_selector_owner *cur_owners[GEN_MAX_OWNERS];
static int n_cur_owners;
/* gen.c's owner kinds, as apiclient's */
static const enum api_selector_kind owner_kinds[] = {
	[GEN_SERVICE] = API_SEL_SERVICE, [GEN_RC] = API_SEL_RC, [GEN_RS] = API_SEL_RS, [GEN_SS] = API_SEL_SS
};

static struct api_namespace *ns_lister(void *ctx, const char *name)
{
	(void)ctx;
	for (int i = 0; i < n_cur_ns; i++)
		if (!strcmp(cur_ns[i]->meta.name, name))
			return api_namespace_ref(cur_ns[i]);
	return NULL;
}

static int ns_each(void *ctx, int (*fn)(void *arg, const struct api_namespace *ns), void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_ns; i++) {
		int r = fn(arg, cur_ns[i]);
		if (r)
			return r;
	}
	return 0;
}

static struct api_selector_owner *owner_lister(void *ctx, enum api_selector_kind kind, const char *ns,
					       const char *name)
{
	(void)ctx;
	for (int i = 0; i < n_cur_owners; i++) {
		struct api_selector_owner *o = cur_owners[i];
		if (o->kind == kind && !strcmp(o->meta.namespace, ns) && !strcmp(o->meta.name, name))
			return api_selector_owner_ref(o);
	}
	return NULL;
}

static int services_each(void *ctx, const char *ns, int (*fn)(void *arg, const struct api_selector_owner *svc),
			 void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_owners; i++) {
		if (cur_owners[i]->kind != API_SEL_SERVICE || strcmp(cur_owners[i]->meta.namespace, ns))
			continue;
		int r = fn(arg, cur_owners[i]);
		if (r)
			return r;
	}
	return 0;
}

/* The PodDisruptionBudgets of the state being run: what the PDB informer would hold. Decoded
 * here: metadata and spec.selector (a metav1.LabelSelector, as a ReplicaSet's) through
 * api_selector_owner_decode_json, which owns them (pdb_owners), and the two status fields
 * preemption reads directly. */
static struct api_pdb *cur_pdbs[GEN_MAX_PDBS];
static struct api_selector_owner *pdb_owners[GEN_MAX_PDBS];
static int n_cur_pdbs;

static int pdb_decode(const char *json, struct err *e)
{
	char errbuf[256];
	struct api_selector_owner *o = api_selector_owner_decode_json(API_SEL_RS, json, strlen(json), e);
	yajl_val t = o ? yajl_tree_parse(json, errbuf, sizeof(errbuf)) : NULL;
	struct api_pdb *p = t ? calloc(1, sizeof(*p)) : NULL;
	if (!p) {
		api_selector_owner_unref(o);
		yajl_tree_free(t);
		return o ? err_set(e, ERR_INVALID, "pdb: %s", t ? "out of memory" : errbuf) : -1;
	}
	p->refs = 1;
	p->meta = o->meta;
	p->selector = o->selector;
	yajl_val st = get(t, "status"), v = get(st, "disruptionsAllowed"), dp = get(st, "disruptedPods");
	p->disruptions_allowed = YAJL_IS_INTEGER(v) ? (int32_t)YAJL_GET_INTEGER(v) : 0;
	if (YAJL_IS_OBJECT(dp) && dp->u.object.len) {
		const char **names = calloc(dp->u.object.len, sizeof(*names));
		for (size_t i = 0; names && i < dp->u.object.len; i++)
			names[p->n_disrupted++] = strdup(dp->u.object.keys[i]);
		p->disrupted_pods = names;
	}
	yajl_tree_free(t);
	pdb_owners[n_cur_pdbs] = o;
	cur_pdbs[n_cur_pdbs++] = p;
	return 0;
}

static void pdbs_free(void)
{
	while (n_cur_pdbs) {
		struct api_pdb *p = cur_pdbs[--n_cur_pdbs];
		for (uint32_t i = 0; i < p->n_disrupted; i++)
			free((char *)p->disrupted_pods[i]);
		free((void *)p->disrupted_pods);
		free(p);
		api_selector_owner_unref(pdb_owners[n_cur_pdbs]);
	}
}

static int pdb_each(void *ctx, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_pdbs; i++) {
		int r = fn(arg, cur_pdbs[i]);
		if (r)
			return r;
	}
	return 0;
}

/* The pods the pod informer would hold (the pending pod, which preemption re-reads as
 * upstream's Evaluator does, the nominated and the non-terminal bound pods). */
#define MAX_LISTED_PODS (GEN_MAX_PODS + GEN_MAX_NOMINATED + 1)
static struct api_pod *cur_pods[MAX_LISTED_PODS];
static int n_cur_pods;

static struct api_pod *pod_lister(void *ctx, const char *ns, const char *name)
{
	(void)ctx;
	for (int i = 0; i < n_cur_pods; i++)
		if (!strcmp(cur_pods[i]->meta.namespace, ns) && !strcmp(cur_pods[i]->meta.name, name))
			return api_pod_ref(cur_pods[i]);
	return NULL;
}

static void list_pod(struct api_pod *p)
{
	if (n_cur_pods < MAX_LISTED_PODS)
		cur_pods[n_cur_pods++] = api_pod_ref(p);
}

/* The dry-run executor: what DefaultPreemption asked to actuate (node and victims), instead of
 * evicting. */
static struct candidate actuated;
static int n_actuated;

static enum fw_code record_preemption(void *ctx, const struct api_pod *preemptor, const struct fw_preemption *p,
				      struct fw_status *st)
{
	(void)ctx, (void)preemptor, (void)st;
	struct candidate *c = &actuated;
	memset(c, 0, sizeof(*c));
	copy(c->node, sizeof(c->node), p->node_name);
	c->pdb_violations = p->num_pdb_violations;
	for (uint32_t i = 0; i < p->n_victims && c->n_victims < MAX_VICTIMS; i++)
		snprintf(c->victims[c->n_victims++], NAME, "%s/%s", p->victims[i]->meta.namespace, p->victims[i]->meta.name);
	qsort(c->victims, (size_t)c->n_victims, NAME, cmp_str);
	n_actuated++;
	return FW_SUCCESS;
}

/* ---------- DRA: the resource.k8s.io/v1 stores and DynamicResources' API writes ---------- */

/* The DRA objects of the state being run (the DRA informers' stores in csched). */
static struct api_resource_claim *cur_claims[GEN_MAX_DRA_OBJS + 4];
static struct api_resource_slice *cur_slices[GEN_MAX_DRA_OBJS];
static struct api_device_class *cur_classes[GEN_MAX_DRA_OBJS];
static struct api_device_taint_rule *cur_rules[GEN_MAX_DRA_OBJS];
static int n_cur_claims, n_cur_slices, n_cur_classes, n_cur_rules;

static struct api_resource_claim *claim_lister(void *ctx, const char *ns, const char *name)
{
	(void)ctx;
	for (int i = 0; i < n_cur_claims; i++)
		if (!strcmp(cur_claims[i]->meta.namespace, ns) && !strcmp(cur_claims[i]->meta.name, name))
			return api_resource_claim_ref(cur_claims[i]);
	return NULL;
}

/* The claim event sinks (fw_listers.resource_claim_sink: DynamicResources' tracker of each
 * harness's profile); the stores' loads and frees deliver adds and deletes to them, as the
 * claim informer's handlers do. */
static struct claim_sink {
	void (*fn)(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj);
	void *arg;
} *claim_sinks;
static int n_claim_sinks;

static void claim_emit(const struct api_resource_claim *old, const struct api_resource_claim *new_obj)
{
	for (int i = 0; i < n_claim_sinks; i++)
		claim_sinks[i].fn(claim_sinks[i].arg, old, new_obj);
}

static int claim_sink(void *ctx,
		      void (*fn)(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj),
		      void *arg)
{
	(void)ctx;
	struct claim_sink *v = realloc(claim_sinks, (size_t)(n_claim_sinks + 1) * sizeof(*v));
	if (!v)
		return ERR_NOMEM;
	claim_sinks = v;
	claim_sinks[n_claim_sinks++] = (struct claim_sink){ fn, arg };
	for (int i = 0; i < n_cur_claims; i++)
		fn(arg, NULL, cur_claims[i]);
	return 0;
}

static int claim_each(void *ctx, int (*fn)(void *arg, const struct api_resource_claim *c), void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_claims; i++) {
		int rc = fn(arg, cur_claims[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int slice_each(void *ctx, int (*fn)(void *arg, const struct api_resource_slice *s), void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_slices; i++) {
		int rc = fn(arg, cur_slices[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static struct api_device_class *class_lister(void *ctx, const char *name)
{
	(void)ctx;
	for (int i = 0; i < n_cur_classes; i++)
		if (!strcmp(cur_classes[i]->meta.name, name))
			return api_device_class_ref(cur_classes[i]);
	return NULL;
}

static int class_each(void *ctx, int (*fn)(void *arg, const struct api_device_class *c), void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_classes; i++) {
		int rc = fn(arg, cur_classes[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int rule_each(void *ctx, int (*fn)(void *arg, const struct api_device_taint_rule *r), void *arg)
{
	(void)ctx;
	for (int i = 0; i < n_cur_rules; i++) {
		int rc = fn(arg, cur_rules[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Decodes g's DRA objects into the stores. 0, or -1 with e. */
static int dra_objs_load(const struct gen *g, struct err *e)
{
	for (int i = 0; i < g->n_dra_objs; i++) {
		const char *js = g->dra_objs[i];
		size_t len = strlen(js);
		bool ok = true;
		switch (g->dra_kind[i]) {
		case GEN_DRA_CLASS:
			ok = (cur_classes[n_cur_classes] = api_device_class_decode_json(js, len, e)) && ++n_cur_classes;
			break;
		case GEN_DRA_SLICE:
			ok = (cur_slices[n_cur_slices] = api_resource_slice_decode_json(js, len, e)) && ++n_cur_slices;
			break;
		case GEN_DRA_CLAIM:
			ok = (cur_claims[n_cur_claims] = api_resource_claim_decode_json(js, len, e)) && ++n_cur_claims;
			if (ok)
				claim_emit(NULL, cur_claims[n_cur_claims - 1]);
			break;
		case GEN_DRA_TAINT_RULE:
			ok = (cur_rules[n_cur_rules] = api_device_taint_rule_decode_json(js, len, e)) && ++n_cur_rules;
			break;
		case GEN_DRA_KINDS:
			break;
		}
		if (!ok)
			return -1;
	}
	return 0;
}

static void dra_objs_free(void)
{
	while (n_cur_claims) {
		claim_emit(cur_claims[n_cur_claims - 1], NULL);
		api_resource_claim_unref(cur_claims[--n_cur_claims]);
	}
	while (n_cur_slices)
		api_resource_slice_unref(cur_slices[--n_cur_slices]);
	while (n_cur_classes)
		api_device_class_unref(cur_classes[--n_cur_classes]);
	while (n_cur_rules)
		api_device_taint_rule_unref(cur_rules[--n_cur_rules]);
}

/* Go's encoding of a v1.NodeSelector (the oracle prints an allocation's with json.Marshal):
 * matchExpressions, matchFields and values omitted when empty. */
static void node_selector_json(struct strbuf *sb, const struct api_node_selector *ns)
{
	static const char *const ops[] = { [API_OP_IN] = "In",	       [API_OP_NOT_IN] = "NotIn",
					   [API_OP_EXISTS] = "Exists", [API_OP_DOES_NOT_EXIST] = "DoesNotExist",
					   [API_OP_GT] = "Gt",	       [API_OP_LT] = "Lt",
					   [API_OP_UNKNOWN] = "?" };
	strbuf_puts(sb, "{\"nodeSelectorTerms\":[");
	for (uint32_t t = 0; t < ns->n_terms; t++) {
		const struct api_node_selector_term *term = &ns->terms[t];
		strbuf_puts(sb, t ? ",{" : "{");
		for (int f = 0; f < 2; f++) {
			uint32_t n = f ? term->n_fields : term->n_exprs;
			const struct api_requirement *rs = f ? term->fields : term->exprs;
			if (!n)
				continue;
			strbuf_addf(sb, "%s\"%s\":[", f && term->n_exprs ? "," : "", f ? "matchFields" : "matchExpressions");
			for (uint32_t k = 0; k < n; k++) {
				strbuf_puts(sb, k ? ",{\"key\":" : "{\"key\":");
				gen_json_str(sb, rs[k].key);
				strbuf_addf(sb, ",\"operator\":\"%s\"", ops[rs[k].op]);
				if (rs[k].n_values) {
					strbuf_puts(sb, ",\"values\":[");
					for (uint32_t v = 0; v < rs[k].n_values; v++) {
						strbuf_puts(sb, v ? "," : "");
						gen_json_str(sb, rs[k].values[v]);
					}
					strbuf_puts(sb, "]");
				}
				strbuf_puts(sb, "}");
			}
			strbuf_puts(sb, "]");
		}
		strbuf_puts(sb, "}");
	}
	strbuf_puts(sb, "]}");
}

/* What DynamicResources' PreBind wrote: per claim (name) the allocation, in oracle_alloc_text's
 * form. */
#define MAX_WRITES 8
static struct {
	char claim[64];
	char text[1024];
} writes[MAX_WRITES];
static int n_writes;

static int dra_reserve(void *ctx, const struct api_resource_claim *claim, const struct api_dra_allocation *allocation,
		       const struct api_dra_consumer *consumer, bool set_timestamp, struct api_resource_claim **out,
		       struct err *e)
{
	(void)ctx, (void)consumer, (void)set_timestamp, (void)e;
	if (allocation && n_writes < MAX_WRITES) {
		struct strbuf sb = STRBUF_INIT;
		for (uint32_t k = 0; k < allocation->n_results; k++) {
			const struct api_dra_device_result *r = &allocation->results[k];
			strbuf_addf(&sb, "%s %s %s/%s/%s%s%s", k ? "," : "", r->request, r->driver, r->pool, r->device,
				    r->has_admin_access && r->admin_access ? " admin" : "", r->share_id ? " shared" : "");
			for (uint32_t m = 0; m < r->n_consumed_capacity; m++) /* sorted by name, as Go's map keys */
				strbuf_addf(&sb, " %s=%s", r->consumed_capacity[m].name, r->consumed_capacity[m].value.s);
		}
		if (allocation->node_selector) {
			strbuf_puts(&sb, " @ ");
			node_selector_json(&sb, allocation->node_selector);
		}
		copy(writes[n_writes].claim, sizeof(writes[n_writes].claim), claim->meta.name);
		copy(writes[n_writes].text, sizeof(writes[n_writes].text), sb.data ? sb.data : "");
		n_writes++;
		strbuf_release(&sb);
	}
	*out = api_resource_claim_ref((struct api_resource_claim *)claim);
	return 0;
}

static int dra_get_claim(void *ctx, const char *ns, const char *name, struct api_resource_claim **out, struct err *e)
{
	if (!(*out = claim_lister(ctx, ns, name)))
		return err_set(e, ERR_NOT_FOUND, "differential: resourceclaims \"%s\" not found", name);
	return 0;
}

static int dra_add_finalizer(void *ctx, const struct api_resource_claim *claim, struct api_resource_claim **out,
			     struct err *e)
{
	(void)ctx, (void)e;
	*out = api_resource_claim_ref((struct api_resource_claim *)claim);
	return 0;
}

static int dra_deallocate(void *ctx, const struct api_resource_claim *claim, struct err *e)
{
	(void)ctx, (void)claim, (void)e;
	return 0;
}

static int dra_unreserve(void *ctx, const struct api_resource_claim *claim, const char *uid, struct err *e)
{
	(void)ctx, (void)claim, (void)uid, (void)e;
	return 0;
}

/* DRAExtendedResource's special claim: created as asked (decoded from its body). */
static int dra_create_claim(void *ctx, const char *ns, const char *json, size_t len, struct api_resource_claim **out,
			    struct err *e)
{
	(void)ctx, (void)ns;
	return (*out = api_resource_claim_decode_json(json, len, e)) ? 0 : -1;
}

static int dra_delete_claim(void *ctx, const struct api_resource_claim *claim, struct err *e)
{
	(void)ctx, (void)claim, (void)e;
	return 0;
}

static int dra_patch_pod(void *ctx, const struct api_pod *pod, const char *status_json, struct err *e)
{
	(void)ctx, (void)pod, (void)status_json, (void)e;
	return 0;
}

static bool dra_sleep(void *ctx, int64_t ms)
{
	(void)ctx, (void)ms;
	return false; /* no binding conditions are generated: nothing to wait for */
}

static int cmp_write(const void *a, const void *b)
{
	return strcmp(((const char *)a), ((const char *)b)); /* by claim name, the first member */
}

/* The allocation csched records on node (its Reserve plugins, then DynamicResources' PreBind
 * with the recording writes above) in oracle_alloc_text's form, for the pod's own claims. */
static void dra_allocation(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod, const char *node,
			   struct result *got)
{
	struct fw_status st;
	n_writes = 0;
	got->alloc_checked = true;
	fw_status_reset(&st);
	char err[FW_STATUS_TEXT_MAX] = "";
	if (fw_run_reserve(p, c, pod, node, &st) != FW_SUCCESS) {
		fw_status_message(&st, err, sizeof(err));
	} else {
		uint32_t n;
		const struct fw_pl *const *pb = fw_profile_plugins(p, CFG_EP_PRE_BIND, &n);
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(pb[i]->plugin->name, "DynamicResources"))
				continue;
			fw_status_reset(&st);
			enum fw_code code = pb[i]->plugin->pre_bind(pb[i], c, pod, node, &st);
			if (code != FW_SUCCESS && code != FW_SKIP)
				fw_status_message(&st, got->bind_error, sizeof(got->bind_error));
		}
	}
	qsort(writes, (size_t)n_writes, sizeof(writes[0]), cmp_write);
	struct strbuf sb = STRBUF_INIT;
	int shown = 0;
	for (int i = 0; i < n_writes; i++) {
		bool own = false; /* a claim of the pod's spec (directly or through its status) */
		for (uint32_t k = 0; k < pod->n_resource_claims; k++) {
			const struct api_pod_resource_claim *rc = &pod->resource_claims[k];
			const char *name = rc->resource_claim_name;
			for (uint32_t m = 0; !name && m < pod->n_resource_claim_statuses; m++)
				if (!strcmp(pod->resource_claim_statuses[m].name, rc->name))
					name = pod->resource_claim_statuses[m].resource_claim_name;
			own |= name && !strcmp(name, writes[i].claim);
		}
		if (own)
			strbuf_addf(&sb, "%s%s:%s", shown++ ? "; " : "", writes[i].claim, writes[i].text);
	}
	if (err[0])
		strbuf_addf(&sb, "%s! %s", sb.len ? " " : "", err);
	copy(got->alloc, sizeof(got->alloc), sb.data ? sb.data : "");
	strbuf_release(&sb);
	fw_run_unreserve(p, c, pod, node);
}

/* kube-scheduler's and csched's pod informers list and watch with the field selector
 * status.phase!=Succeeded,status.phase!=Failed (scheduler.c POD_FIELD_SELECTOR), so the API
 * server never hands them terminal pods; the harness applies that selector itself. */
static bool terminal(const struct api_pod *p)
{
	return !strcmp(p->phase, "Succeeded") || !strcmp(p->phase, "Failed");
}

struct harness {
	struct config cfg;
	struct fw_profile *profile;
	char *config_text;
};

static int harness_init(struct harness *h, const char *config_text)
{
	struct err e = { 0 };
	memset(h, 0, sizeof(*h));
	if (config_load_buffer(&h->cfg, fw_registry(), "differential-config", config_text, strlen(config_text), &e) < 0) {
		fprintf(stderr, "differential: config: %s\n", e.msg);
		return -1;
	}
	struct fw_profile_config pc;
	fw_profile_config_from_cfg(&h->cfg.profiles[0], &pc);
	struct fw_profile_options o = { .percentage_of_nodes_to_score = h->cfg.percentage_of_nodes_to_score,
					.listers = { .pvc = pvc_lister,
						     .ns = ns_lister,
						     .ns_each = ns_each,
						     .owner = owner_lister,
						     .services_each = services_each,
						     .pod = pod_lister,
						     .pdb_each = pdb_each,
						     .pv = pv_lister,
						     .storage_class = sc_lister,
						     .csinode = csinode_lister,
						     .csidriver = csidriver_lister,
						     .volume_attachment_each = va_each,
						     .resource_claim = claim_lister,
						     .resource_claim_each = claim_each,
						     .resource_claim_sink = claim_sink,
						     .resource_slice_each = slice_each,
						     .device_class = class_lister,
						     .device_class_each = class_each,
						     .device_taint_rule_each = rule_each },
					/* DynamicResources' writes, recorded (dra_allocation) */
					.dra = { .get_claim = dra_get_claim,
						 .add_finalizer = dra_add_finalizer,
						 .reserve = dra_reserve,
						 .deallocate = dra_deallocate,
						 .unreserve = dra_unreserve,
						 .create_claim = dra_create_claim,
						 .delete_claim = dra_delete_claim,
						 .patch_pod_extended_status = dra_patch_pod,
						 .sleep = dra_sleep },
					/* no evictions: the decision is recorded and compared */
					.preempt = { .actuate = record_preemption } };
	if (!(h->profile = fw_profile_new(&pc, &o, &e))) {
		fprintf(stderr, "differential: profile: %s\n", e.msg);
		config_free(&h->cfg);
		return -1;
	}
	h->config_text = strdup(config_text);
	return 0;
}

static void harness_free(struct harness *h)
{
	fw_profile_free(h->profile);
	config_free(&h->cfg);
	free(h->config_text);
}

static void set_status(struct node_out *n, const struct fw_status *st)
{
	copy(n->code, sizeof(n->code), fw_code_str(st->code));
	copy(n->plugin, sizeof(n->plugin), st->plugin);
	for (const char *r = fw_status_reason_next(st, NULL); r && n->n_reasons < MAX_REASONS;
	     r = fw_status_reason_next(st, r))
		copy(n->reasons[n->n_reasons++], TEXT, r);
}

/* Upstream's RunPreScorePlugins + RunScorePlugins on the feasible nodes, plugin by plugin, with the
 * profile's own plugins and weights (fw_schedule_pod keeps no per-plugin scores; its pick is
 * checked against the best set separately). Runs even for one feasible node, as the oracle does. */
static int score_nodes(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		       const struct node_info *const *feas, uint32_t n, struct result *got, int *idx_of, char *err,
		       size_t errsz)
{
	bool skip[FW_MAX_PLUGINS] = { 0 };
	struct fw_status st;
	uint32_t n_pre, n_score;
	const struct fw_pl *const *pre = fw_profile_plugins(p, CFG_EP_PRE_SCORE, &n_pre);
	const struct fw_pl *const *sc = fw_profile_plugins(p, CFG_EP_SCORE, &n_score);
	for (uint32_t i = 0; i < n_pre; i++) {
		fw_status_reset(&st);
		enum fw_code code = pre[i]->plugin->pre_score(pre[i], c, pod, feas, n, &st);
		if (code == FW_SKIP)
			skip[pre[i]->index] = true;
		else if (code != FW_SUCCESS)
			return snprintf(err, errsz, "PreScore %s: %s", pre[i]->plugin->name, fw_code_str(code)), -1;
	}
	struct fw_node_score ns[GEN_MAX_NODES];
	for (uint32_t k = 0; k < n_score; k++) {
		const struct fw_pl *pl = sc[k];
		if (skip[pl->index])
			continue; /* upstream leaves the plugin out of the node's scores */
		fw_pre_score_fn prepare = fw_score_prepare_of(pl->plugin);
		if (prepare) {
			fw_status_reset(&st);
			(void)prepare(pl, c, pod, feas, n, &st); /* Skip: Score gives 0 anyway */
		}
		for (uint32_t i = 0; i < n; i++) {
			ns[i] = (struct fw_node_score){ feas[i], 0 };
			fw_status_reset(&st);
			enum fw_code code = pl->plugin->score(pl, c, pod, feas[i], &ns[i].score, &st);
			if (code != FW_SUCCESS)
				return snprintf(err, errsz, "Score %s: %s", pl->plugin->name, fw_code_str(code)), -1;
		}
		if (pl->plugin->normalize_score) {
			fw_status_reset(&st);
			if (pl->plugin->normalize_score(pl, c, pod, ns, n, &st) != FW_SUCCESS)
				return snprintf(err, errsz, "NormalizeScore %s failed", pl->plugin->name), -1;
		}
		int64_t w = fw_profile_weight(p, pl);
		for (uint32_t i = 0; i < n; i++) {
			struct node_out *nr = &got->nodes[idx_of[i]];
			if (nr->n_scores < MAX_SCORES) {
				copy(nr->score_plugin[nr->n_scores], 64, pl->plugin->name);
				nr->score[nr->n_scores++] = ns[i].score * w;
			}
			nr->has_total = true;
			nr->total += ns[i].score * w;
		}
	}
	return 0;
}

/* The profiles built so far, one per configuration text (the generator uses a few hundred). */
#define MAX_HARNESSES 512
static struct harness harnesses[MAX_HARNESSES];
static int n_harnesses;

static void harnesses_free(void);

static struct harness *harness_for(const char *config_text)
{
	for (int i = 0; i < n_harnesses; i++)
		if (!strcmp(harnesses[i].config_text, config_text))
			return &harnesses[i];
	if (n_harnesses == MAX_HARNESSES) /* the variants multiply past the cache: start over */
		harnesses_free();
	if (harness_init(&harnesses[n_harnesses], config_text) < 0)
		return NULL;
	return &harnesses[n_harnesses++];
}

static void harnesses_free(void)
{
	for (int i = 0; i < n_harnesses; i++)
		harness_free(&harnesses[i]);
	n_harnesses = 0;
	free(claim_sinks); /* their plugins are gone */
	claim_sinks = NULL;
	n_claim_sinks = 0;
}

/* s with the first `from` replaced by `to` (malloc'd), or NULL when s has no `from`. */
static char *replace1(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	if (!at)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, s, (size_t)(at - s));
	strbuf_puts(&sb, to);
	strbuf_puts(&sb, at + strlen(from));
	return strbuf_detach(&sb, NULL);
}

/* Churn (odd seeds of the topology states): the cache reaches the state through a snapshot of
 * another one, as a live scheduler's does: each labelled bound pod first carries an extra label
 * and is then updated to its own, and a decoy copy of every bound pod (its affinity included) is
 * added and then removed, with a snapshot taken between (nodes with a zone carry another zone and
 * rack until after it: run_csched); so the cache's incremental updates of
 * the per-node lists of pods with (anti-)affinity and of the snapshot count, which the oracle's
 * fresh state does not have. first[i] receives the pod to update from (NULL: add it). */
static int churn(const struct gen *g, struct cache *cache, struct snapshot *snap, struct api_pod **first,
		 struct err *e)
{
	struct api_pod *decoys[GEN_MAX_PODS] = { 0 };
	int rc = 0;
	for (int i = 0; rc == 0 && i < g->n_pods; i++) {
		char *dj = replace1(g->pods[i], "\"metadata\":{\"name\":\"", "\"metadata\":{\"name\":\"decoy-");
		char *dj2 = dj ? replace1(dj, "\"uid\":\"uid-", "\"uid\":\"uid-decoy-") : NULL;
		char *vj = replace1(g->pods[i], "\"labels\":{", "\"labels\":{\"churn\":\"1\",");
		if (dj2 && (decoys[i] = api_pod_decode_json(dj2, strlen(dj2), e)) && !terminal(decoys[i]))
			rc = cache_add_pod(cache, decoys[i], e);
		if (rc == 0 && vj && (first[i] = api_pod_decode_json(vj, strlen(vj), e)) && !terminal(first[i]))
			rc = cache_add_pod(cache, first[i], e);
		free(dj);
		free(dj2);
		free(vj);
	}
	if (rc == 0)
		rc = cache_update_snapshot(cache, snap, e);
	for (int i = 0; i < g->n_pods; i++) {
		if (rc == 0 && decoys[i] && !terminal(decoys[i]))
			rc = cache_remove_pod(cache, decoys[i], e);
		api_pod_unref(decoys[i]);
	}
	return rc;
}

/* The cycle's outcome as upstream's schedulingCycle reports it: a Filter error's message; or,
 * unschedulable, PostFilter (preemption: the node nominated and what the dry-run executor was
 * asked to evict), the FitError message and the rejecting plugins; or csched's pick. Returns 0,
 * or -1 with got->error set. */
static int outcome(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod, struct fw_schedule_result *res,
		   struct result *got)
{
	if (res->code == FW_ERROR) {
		char m[FW_STATUS_TEXT_MAX];
		got->cycle_error = true;
		copy(got->message, sizeof(got->message), fw_status_message(&res->status, m, sizeof(m)));
	} else if (res->code != FW_SUCCESS) {
		if (res->code == FW_UNSCHEDULABLE && fw_profile_has_post_filter(p)) {
			struct fw_post_filter_result pfr = { 0 };
			struct fw_status pst;
			fw_status_reset(&pst);
			fw_run_post_filter(p, c, pod, &res->diag, &pfr, &pst);
			copy(got->nominated, sizeof(got->nominated), pfr.nominated_node_name);
		}
		/* the nominated node's candidate is what the plugin actuated, once */
		if (got->nominated[0] && (n_actuated != 1 || strcmp(actuated.node, got->nominated))) {
			snprintf(got->error, sizeof(got->error), "PostFilter nominated %s but actuated %d time(s) (node %s)",
				 got->nominated, n_actuated, n_actuated ? actuated.node : "-");
			return -1;
		}
		if (!got->nominated[0] && n_actuated) {
			snprintf(got->error, sizeof(got->error), "PostFilter actuated a preemption on %s but nominated none",
				 actuated.node);
			return -1;
		}
		if (got->nominated[0]) {
			got->candidates[0] = actuated;
			got->n_candidates = 1;
		}
		fw_fit_error_message(&res->diag, got->message, sizeof(got->message));
		for (uint32_t i = 0; i < res->diag.n_unschedulable_plugins; i++)
			copy(got->unsched[got->n_unsched++], 64, res->diag.unschedulable_plugins[i]);
		qsort(got->unsched, (size_t)got->n_unsched, sizeof(got->unsched[0]), cmp_str);
	} else {
		copy(got->selected, sizeof(got->selected), res->suggested_host);
	}
	return 0;
}

static int pod_key_cmp(const struct api_pod *a, const struct api_pod *b)
{
	int c = strcmp(a->meta.namespace, b->meta.namespace);
	return c ? c : strcmp(a->meta.name, b->meta.name);
}

/* Runs csched on g's state. Returns 0, or -1 with got->error set. */
static int run_csched(const struct gen *g, struct result *got)
{
	struct err e = { 0 };
	struct cache *cache = cache_new();
	struct snapshot *snap = snapshot_new();
	struct api_pod *pod = NULL;
	struct fw_cycle *c = NULL;
	struct api_pod *nom_pods[GEN_MAX_NOMINATED] = { 0 };
	struct api_pod *first[GEN_MAX_PODS] = { 0 }; /* churn's versions of the bound pods */
	struct api_node *first_nodes[GEN_MAX_NODES] = { 0 }; /* and of the nodes */
	struct fw_nominated_pod noms[GEN_MAX_NOMINATED];
	struct fw_nominated nominated = { 0, noms };
	int rc = -1;
	/* a DRA state gets a profile of its own: DynamicResources keeps claims it assumed or has in
	 * flight from one cycle to the next, which must not carry over to another state */
	struct harness own = { 0 };
	int sinks_before = n_claim_sinks; /* own's plugin adds a claim sink, dropped with it */
	struct harness *h = !g->dra ? harness_for(g->config) : harness_init(&own, g->config) == 0 ? &own : NULL;
	if (!h) {
		snprintf(got->error, sizeof(got->error), "csched rejects the configuration (see above)");
		goto out;
	}
	bool churning = g->topo && (got->seed & 1);
	for (int i = 0; i < g->n_nodes; i++) {
		/* churn: the node first carries another zone and rack and is updated to its own after
		 * a snapshot (below) */
		char *vj = NULL, *vj2 = NULL;
		if (churning && (vj = replace1(g->nodes[i], "\"topology.kubernetes.io/zone\":\"", "\"topology.kubernetes.io/zone\":\"x")))
			vj2 = replace1(vj, "\"example.com/rack\":\"", "\"example.com/rack\":\"x");
		const char *js = vj2 ? vj2 : vj ? vj : g->nodes[i];
		struct api_node *n = api_node_decode_json(js, strlen(js), &e);
		int r = n ? cache_add_node(cache, n, &e) : -1;
		if (vj)
			first_nodes[i] = api_node_ref(n);
		api_node_unref(n);
		free(vj);
		free(vj2);
		if (r < 0) {
			snprintf(got->error, sizeof(got->error), "node %d: %.400s", i, e.msg);
			goto out;
		}
	}
	for (int i = 0; i < g->n_pvcs; i++) {
		if (!(cur_pvcs[n_cur_pvcs] = api_pvc_decode_json(g->pvcs[i], strlen(g->pvcs[i]), &e))) {
			snprintf(got->error, sizeof(got->error), "pvc %d: %.400s", i, e.msg);
			goto out;
		}
		n_cur_pvcs++;
	}
	if (vol_objs_load(g, &e) < 0) {
		snprintf(got->error, sizeof(got->error), "volume object: %.400s", e.msg);
		goto out;
	}
	if (dra_objs_load(g, &e) < 0) {
		snprintf(got->error, sizeof(got->error), "DRA object: %.400s", e.msg);
		goto out;
	}
	for (int i = 0; i < g->n_namespaces; i++) {
		if (!(cur_ns[n_cur_ns] = api_namespace_decode_json(g->namespaces[i], strlen(g->namespaces[i]), &e))) {
			snprintf(got->error, sizeof(got->error), "namespace %d: %.400s", i, e.msg);
			goto out;
		}
		n_cur_ns++;
	}
	for (int i = 0; i < g->n_owners; i++) {
		if (!(cur_owners[n_cur_owners] = api_selector_owner_decode_json(owner_kinds[g->owner_kind[i]], g->owners[i],
										 strlen(g->owners[i]), &e))) {
			snprintf(got->error, sizeof(got->error), "owner %d: %.400s", i, e.msg);
			goto out;
		}
		n_cur_owners++;
	}
	for (int i = 0; i < g->n_pdbs; i++) {
		if (pdb_decode(g->pdbs[i], &e) < 0) {
			snprintf(got->error, sizeof(got->error), "pdb %d: %.400s", i, e.msg);
			goto out;
		}
	}
	if (churning && churn(g, cache, snap, first, &e) < 0) {
		snprintf(got->error, sizeof(got->error), "churn: %.400s", e.msg);
		goto out;
	}
	for (int i = 0; i < g->n_nodes; i++) {
		struct api_node *n = first_nodes[i] ? api_node_decode_json(g->nodes[i], strlen(g->nodes[i]), &e) : NULL;
		int r = !first_nodes[i] ? 0 : n ? cache_update_node(cache, first_nodes[i], n, &e) : -1;
		api_node_unref(n);
		if (r < 0) {
			snprintf(got->error, sizeof(got->error), "node update %d: %.400s", i, e.msg);
			goto out;
		}
	}
	/* in namespace/name order, as an informer's LIST returns them (the API server lists etcd's
	 * keys in order; the oracle's fake clientset does too): preemption reprieves victims of equal
	 * priority and start time in the node's pod order */
	int ord[GEN_MAX_PODS];
	struct api_pod *decoded[GEN_MAX_PODS] = { 0 };
	for (int i = 0; i < g->n_pods; i++) {
		ord[i] = i;
		decoded[i] = api_pod_decode_json(g->pods[i], strlen(g->pods[i]), &e);
	}
	for (int i = 1; i < g->n_pods; i++)
		for (int j = i; j > 0 && decoded[ord[j]] && decoded[ord[j - 1]] &&
				pod_key_cmp(decoded[ord[j]], decoded[ord[j - 1]]) < 0; j--) {
			int t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	for (int k = 0; k < g->n_pods; k++) {
		int i = ord[k];
		struct api_pod *bp = decoded[i];
		decoded[i] = NULL;
		int r = !bp ? -1
			: terminal(bp) ? 0
			: first[i] && !terminal(first[i]) ? cache_update_pod(cache, first[i], bp, &e)
							   : cache_add_pod(cache, bp, &e);
		if (bp && !terminal(bp))
			list_pod(bp);
		api_pod_unref(bp);
		if (r < 0) {
			snprintf(got->error, sizeof(got->error), "pod %d: %.400s", i, e.msg);
			for (int m = 0; m < g->n_pods; m++)
				api_pod_unref(decoded[m]);
			goto out;
		}
	}
	/* the nominated pods, as the queue's nominator lists them for the cycle */
	for (int i = 0; i < g->n_nominated; i++) {
		if (!(nom_pods[i] = api_pod_decode_json(g->nominated[i], strlen(g->nominated[i]), &e))) {
			snprintf(got->error, sizeof(got->error), "nominated pod %d: %.400s", i, e.msg);
			goto out;
		}
		noms[i] = (struct fw_nominated_pod){ nom_pods[i]->nominated_node_name, nom_pods[i] };
		list_pod(nom_pods[i]);
		nominated.n++;
	}
	if (!(pod = api_pod_decode_json(g->pod, strlen(g->pod), &e)) || cache_update_snapshot(cache, snap, &e) < 0) {
		snprintf(got->error, sizeof(got->error), "pod/snapshot: %.400s", e.msg);
		goto out;
	}
	list_pod(pod);
	copy(got->pod_nominated, sizeof(got->pod_nominated), pod->nominated_node_name);
	struct fw_status pst;
	fw_status_reset(&pst);
	if (fw_run_pre_enqueue(h->profile, pod, &pst) != FW_SUCCESS) { /* the oracle's status_text form */
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s %s:", fw_code_str(pst.code), pst.plugin && pst.plugin[0] ? pst.plugin : "-");
		int k = 0;
		for (const char *r = fw_status_reason_next(&pst, NULL); r; r = fw_status_reason_next(&pst, r))
			strbuf_addf(&sb, "%s %s", k++ ? ";" : "", r);
		copy(got->preenqueue, sizeof(got->preenqueue), sb.data);
		strbuf_release(&sb);
	}
	n_actuated = 0;
	struct fw_node_list nodes;
	fw_node_list_from_snapshot(snap, &nodes);
	struct fw_profile *p = h->profile;
	struct fw_schedule_result res;
	c = fw_cycle_new(p);
	fw_profile_batch_reset(p); /* each state is a fresh upstream scheduler: no batch state */
	if (!c || fw_schedule_pod(p, c, &nodes, pod, &nominated, &res, &e) < 0) {
		snprintf(got->error, sizeof(got->error), "fw_schedule_pod: %.400s", c ? e.msg : "out of memory");
		goto out;
	}
	/* A pod nominated by an earlier preemption goes to its nominated node without the other nodes
	 * being evaluated when it fits there, and the diagnosis keeps that node's status when not
	 * (upstream evaluateNominatedNode): the outcome comes from this cycle, the per-node
	 * verdicts and scores from a second one without the nomination, as the oracle's all-nodes
	 * pass has none. */
	if (got->pod_nominated[0]) {
		if (outcome(p, c, pod, &res, got) < 0)
			goto out;
		char *js = replace1(g->pod, "\"nominatedNodeName\":", "\"x-nominatedNodeName\":");
		struct api_pod *plain = js ? api_pod_decode_json(js, strlen(js), &e) : NULL;
		free(js);
		fw_cycle_free(c);
		c = plain ? fw_cycle_new(p) : NULL;
		fw_profile_batch_reset(p);
		if (!c || fw_schedule_pod(p, c, &nodes, plain, &nominated, &res, &e) < 0) {
			api_pod_unref(plain);
			snprintf(got->error, sizeof(got->error), "fw_schedule_pod (not nominated): %.400s", e.msg);
			goto out;
		}
		api_pod_unref(pod); /* the pod lister keeps the nominated one */
		pod = plain;
	}
	/* per node: its failure, else feasible, else the status of nodes PreFilter excluded */
	const struct node_info *feas[GEN_MAX_NODES];
	int idx_of[GEN_MAX_NODES];
	uint32_t n_feas = 0;
	for (uint32_t i = 0; i < nodes.n && got->n_nodes < GEN_MAX_NODES; i++) {
		const struct node_info *ni = nodes.nodes[i];
		struct node_out *nr = &got->nodes[got->n_nodes];
		copy(nr->name, sizeof(nr->name), ni->name);
		const struct fw_status *st = NULL;
		for (uint32_t k = 0; k < res.diag.n_node_status; k++)
			if (!strcmp(res.diag.node_status[k].node_name, ni->name))
				st = res.diag.node_status[k].status;
		bool feasible = false;
		for (uint32_t k = 0; !st && res.code != FW_ERROR && k < res.feasible_nodes; k++)
			feasible |= p->scratch_feasible[k] == ni;
		if (st)
			set_status(nr, st);
		else if (feasible) {
			copy(nr->code, sizeof(nr->code), "Success");
			idx_of[n_feas] = got->n_nodes;
			feas[n_feas++] = ni;
		} else if (res.diag.has_absent_status)
			set_status(nr, &res.diag.absent_status);
		else
			copy(nr->code, sizeof(nr->code), res.code == FW_ERROR ? "(cycle error)" : "(not evaluated)");
		got->n_nodes++;
	}
	if (!got->pod_nominated[0] && outcome(p, c, pod, &res, got) < 0)
		goto out;
	if (n_feas && score_nodes(p, c, pod, feas, n_feas, got, idx_of, got->error, sizeof(got->error)) < 0)
		goto out;
	if (got->selected[0] && pod->n_resource_claims)
		dra_allocation(p, c, pod, got->selected, got);
	int64_t best = INT64_MIN;
	for (uint32_t i = 0; i < n_feas; i++) {
		const struct node_out *nr = &got->nodes[idx_of[i]];
		int64_t t = nr->has_total ? nr->total : 1;
		if (t > best) {
			best = t;
			got->n_best = 0;
		}
		if (t == best)
			copy(got->best[got->n_best++], 16, nr->name);
	}
	rc = 0;
out:
	while (n_cur_pvcs)
		api_pvc_unref(cur_pvcs[--n_cur_pvcs]);
	vol_objs_free();
	dra_objs_free();
	while (n_cur_ns)
		api_namespace_unref(cur_ns[--n_cur_ns]);
	while (n_cur_owners)
		api_selector_owner_unref(cur_owners[--n_cur_owners]);
	pdbs_free();
	while (n_cur_pods)
		api_pod_unref(cur_pods[--n_cur_pods]);
	for (int i = 0; i < GEN_MAX_NOMINATED; i++)
		api_pod_unref(nom_pods[i]);
	for (int i = 0; i < GEN_MAX_PODS; i++)
		api_pod_unref(first[i]);
	for (int i = 0; i < GEN_MAX_NODES; i++)
		api_node_unref(first_nodes[i]);
	fw_cycle_free(c);
	api_pod_unref(pod);
	snapshot_free(snap);
	cache_free(cache);
	if (h == &own) {
		harness_free(&own);
		n_claim_sinks = sinks_before;
	}
	return rc;
}

/* ---------- Comparing ---------- */

/* Differences counted by cause (field and plugins), with the first seed that shows each. */
struct cause {
	char key[160];
	uint64_t seeds, first_seed;
	uint64_t last_seed_plus1;
	char example[600];
};
#define MAX_CAUSES 256
static struct cause causes[MAX_CAUSES];
static int n_causes;
static int max_print = 40, printed, n_diffs;
static bool quiet;

static void diff(uint64_t seed, const char *node, const char *field, const char *cause, const char *want,
		 const char *got)
{
	char key[160];
	snprintf(key, sizeof(key), "%s", cause);
	struct cause *c = NULL;
	for (int i = 0; i < n_causes; i++)
		if (!strcmp(causes[i].key, key))
			c = &causes[i];
	if (!c && n_causes < MAX_CAUSES) {
		c = &causes[n_causes++];
		copy(c->key, sizeof(c->key), key);
		c->first_seed = seed;
		snprintf(c->example, sizeof(c->example), "seed %" PRIu64 " node %s %s: expected %.250s, got %.250s", seed,
			 node, field, want, got);
	}
	if (c && c->last_seed_plus1 != seed + 1) {
		c->seeds++;
		c->last_seed_plus1 = seed + 1;
	}
	n_diffs++;
	if (!quiet && printed++ < max_print)
		printf("DIFF seed=%" PRIu64 " node=%s field=%s\n  expected: %s\n  got:      %s\n", seed, node, field, want,
		       got);
}

/* The reasons, sorted when sort: upstream lists the Insufficient <extended resource> reasons in
 * Go map order (noderesources/fit.go fitsRequest ranges over ScalarResources), which differs
 * from run to run; so reasons compare as sets (the FailedScheduling message sorts them anyway). */
static void join(char *buf, size_t size, char list[][TEXT], int n, bool sort)
{
	static char tmp[MAX_REASONS][TEXT];
	memcpy(tmp, list, (size_t)n * TEXT);
	if (sort)
		qsort(tmp, (size_t)n, TEXT, cmp_str);
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s\"%s\"", i ? ", " : "", tmp[i]);
}

static const struct node_out *find_node(const struct result *r, const char *name)
{
	for (int i = 0; i < r->n_nodes; i++)
		if (!strcmp(r->nodes[i].name, name))
			return &r->nodes[i];
	return NULL;
}

static int64_t score_of(const struct node_out *n, const char *plugin, bool *present)
{
	for (int i = 0; i < n->n_scores; i++)
		if (!strcmp(n->score_plugin[i], plugin))
			return *present = true, n->score[i];
	return *present = false, 0;
}

static bool in_list(char list[][16], int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* Compares; returns the number of differences. */
static int compare(const struct result *want, const struct result *got)
{
	uint64_t seed = want->seed;
	int nd = n_diffs, np = printed;
	char a[4096], b[4096], cause[256];
	/* A Filter error ends upstream's and csched's cycle at once (findNodesThatPassFilters), so
	 * csched has no verdict for the other nodes while the oracle's per-node pass evaluates each
	 * one: then only the oracle's Error on some node and the message are compared. */
	bool want_error = false;
	for (int i = 0; i < want->n_nodes; i++)
		want_error |= !strcmp(want->nodes[i].code, "Error");
	if (got->cycle_error && !want_error)
		diff(seed, "-", "filter", "csched's cycle failed where no upstream filter errs", "no Error", got->message);
	for (int i = 0; !got->cycle_error && i < want->n_nodes; i++) {
		const struct node_out *w = &want->nodes[i], *g = find_node(got, w->name);
		if (!g) {
			diff(seed, w->name, "node", "node missing in csched", "present", "absent");
			continue;
		}
		join(a, sizeof(a), (char(*)[TEXT])w->reasons, w->n_reasons, true);
		join(b, sizeof(b), (char(*)[TEXT])g->reasons, g->n_reasons, true);
		bool same = !strcmp(a, b);
		join(a, sizeof(a), (char(*)[TEXT])w->reasons, w->n_reasons, false);
		join(b, sizeof(b), (char(*)[TEXT])g->reasons, g->n_reasons, false);
		if (strcmp(w->code, g->code) || strcmp(w->plugin, g->plugin) || !same) {
			char fa[8400], fb[8400];
			snprintf(fa, sizeof(fa), "%s %s [%s]", w->code, w->plugin[0] ? w->plugin : "-", a);
			snprintf(fb, sizeof(fb), "%s %s [%s]", g->code, g->plugin[0] ? g->plugin : "-", b);
			snprintf(cause, sizeof(cause), "filter: expected %s/%s, got %s/%s%s", w->code,
				 w->plugin[0] ? w->plugin : "-", g->code, g->plugin[0] ? g->plugin : "-",
				 !strcmp(w->code, g->code) && !strcmp(w->plugin, g->plugin) ? " (reasons)" : "");
			diff(seed, w->name, "filter", cause, fa, fb);
		}
		/* scores: only where both found the node feasible (else the filter difference says it);
		 * a plugin upstream skipped (absent) counts as 0 */
		if (strcmp(w->code, "Success") || strcmp(g->code, "Success"))
			continue;
		for (int pass = 0; pass < 2; pass++) {
			const struct node_out *x = pass ? g : w;
			for (int k = 0; k < x->n_scores; k++) {
				const char *pl = x->score_plugin[k];
				bool pw, pg;
				if (pass && (score_of(w, pl, &pw), pw))
					continue; /* compared in the first pass */
				int64_t sw = score_of(w, pl, &pw), sg = score_of(g, pl, &pg);
				if (sw != sg) {
					snprintf(a, sizeof(a), "%" PRId64 "%s", sw, pw ? "" : " (absent)");
					snprintf(b, sizeof(b), "%" PRId64 "%s", sg, pg ? "" : " (absent)");
					snprintf(cause, sizeof(cause), "score %s", pl);
					char field[96];
					snprintf(field, sizeof(field), "scores.%s", pl);
					diff(seed, w->name, field, cause, a, b);
				}
			}
		}
		if (w->has_total != g->has_total || w->total != g->total) {
			snprintf(a, sizeof(a), w->has_total ? "%" PRId64 : "(none)", w->total);
			snprintf(b, sizeof(b), g->has_total ? "%" PRId64 : "(none)", g->total);
			diff(seed, w->name, "total", "total", a, b);
		}
	}
	for (int i = 0; i < got->n_nodes; i++)
		if (!find_node(want, got->nodes[i].name))
			diff(seed, got->nodes[i].name, "node", "node missing in the oracle", "absent", "present");
	char bw[256] = "", bg[256] = "";
	for (int i = 0; i < want->n_best; i++)
		snprintf(bw + strlen(bw), sizeof(bw) - strlen(bw), "%s%s", i ? " " : "", want->best[i]);
	for (int i = 0; i < got->n_best; i++)
		snprintf(bg + strlen(bg), sizeof(bg) - strlen(bg), "%s%s", i ? " " : "", got->best[i]);
	bool same_best = want->n_best == got->n_best;
	for (int i = 0; same_best && i < want->n_best; i++)
		same_best = in_list((char(*)[16])got->best, got->n_best, want->best[i]);
	/* the best set comes from the verdicts of every node, which a cycle that a Filter error
	 * ended does not have (upstream's own SchedulePod then picks nothing either) */
	if (!same_best && !(got->cycle_error && want_error))
		diff(seed, "-", "best", "best-node set", bw, bg);
	/* upstream's evaluateNominatedNode: a pod nominated by an earlier preemption goes to that node
	 * when it fits there, scores unseen */
	const struct node_out *nom = got->pod_nominated[0] ? find_node(want, got->pod_nominated) : NULL;
	bool nominated_pick = nom && !strcmp(got->selected, nom->name) && !strcmp(nom->code, "Success");
	if (got->selected[0] && !nominated_pick && !in_list((char(*)[16])want->best, want->n_best, got->selected))
		diff(seed, "-", "selected", "csched's pick not in upstream's best set", bw, got->selected);
	if (!want->n_best && got->selected[0])
		diff(seed, "-", "selected", "csched picked a node where upstream finds none", "(none)", got->selected);
	/* preemption: csched's node must be one upstream's SelectCandidate may pick (the last tie
	 * goes by Go map order), with upstream's victims on that node; the message names the node */
	char *want_msg = NULL;
	if (want->nominated[0] && !got->nominated[0])
		diff(seed, "-", "nominatedNode", "upstream preempts, csched does not", want->nominated, "(none)");
	if (!want->nominated[0] && got->nominated[0])
		diff(seed, got->nominated, "nominatedNode", "csched preempts, upstream does not", "(none)", got->nominated);
	if (want->nominated[0] && got->nominated[0]) {
		const struct candidate *wc = NULL, *gc = &got->candidates[0];
		for (int i = 0; i < want->n_candidates; i++)
			if (!strcmp(want->candidates[i].node, got->nominated))
				wc = &want->candidates[i];
		a[0] = '\0';
		for (int i = 0; i < want->n_preempt_best; i++)
			snprintf(a + strlen(a), sizeof(a) - strlen(a), "%s%s", i ? " " : "", want->preempt_best[i]);
		if (!in_list((char(*)[16])want->preempt_best, want->n_preempt_best, got->nominated))
			diff(seed, got->nominated, "nominatedNode",
			     wc ? "csched's preemption node is a worse upstream candidate" : "csched's preemption node is no upstream candidate",
			     a, got->nominated);
		if (wc) {
			a[0] = b[0] = '\0';
			for (int i = 0; i < wc->n_victims; i++)
				snprintf(a + strlen(a), sizeof(a) - strlen(a), "%s%s", i ? " " : "", wc->victims[i]);
			for (int i = 0; i < gc->n_victims; i++)
				snprintf(b + strlen(b), sizeof(b) - strlen(b), "%s%s", i ? " " : "", gc->victims[i]);
			if (strcmp(a, b))
				diff(seed, got->nominated, "victims", "preemption victims", a, b);
			if (wc->pdb_violations != gc->pdb_violations) {
				snprintf(a, sizeof(a), "%" PRId64, wc->pdb_violations);
				snprintf(b, sizeof(b), "%" PRId64, gc->pdb_violations);
				diff(seed, got->nominated, "pdbViolations", "preemption PDB violations", a, b);
			}
		}
		if (strcmp(want->nominated, got->nominated) &&
		    in_list((char(*)[16])want->preempt_best, want->n_preempt_best, got->nominated)) {
			snprintf(a, sizeof(a), "for pod on node %s, preempting", want->nominated);
			snprintf(b, sizeof(b), "for pod on node %s, preempting", got->nominated);
			want_msg = replace1(want->message, a, b);
		}
	}
	if (strcmp(want->preenqueue, got->preenqueue))
		diff(seed, "-", "preenqueue", "PreEnqueue rejection", want->preenqueue[0] ? want->preenqueue : "(none)",
		     got->preenqueue[0] ? got->preenqueue : "(none)");
	/* DRA: the allocation Reserve records on csched's pick (upstream's for that node) */
	const struct node_out *sel = got->alloc_checked ? find_node(want, got->selected) : NULL;
	if (sel && strcmp(sel->alloc, got->alloc))
		diff(seed, got->selected, "allocation", "DRA allocation on csched's pick", sel->alloc[0] ? sel->alloc : "(none)",
		     got->alloc[0] ? got->alloc : "(none)");
	/* PreBind ran on both sides' node only when the picks agree (a tie may part them) */
	if (sel && want->bind_node[0] && !strcmp(want->bind_node, got->selected) && strcmp(want->bind_error, got->bind_error))
		diff(seed, got->selected, "bind", "DynamicResources' PreBind on the bound node",
		     want->bind_error[0] ? want->bind_error : "(success)", got->bind_error[0] ? got->bind_error : "(success)");
	/* upstream filters nodes in parallel and its cycle ends with the first Filter error to
	 * arrive: with several nodes erring, any of their errors may be the message (the oracle's
	 * SchedulePod shows one of them) */
	bool other_error = false;
	for (int i = 0; got->cycle_error && i < want->n_nodes; i++)
		other_error |= !strcmp(want->nodes[i].code, "Error") && want->nodes[i].n_reasons &&
			       !strncmp(want->nodes[i].reasons[0], got->message, TEXT - 1);
	if (!other_error && strcmp(want_msg ? want_msg : want->message, got->message))
		diff(seed, "-", "message", "FailedScheduling message", want_msg ? want_msg : want->message, got->message);
	free(want_msg);
	a[0] = b[0] = '\0';
	for (int i = 0; i < want->n_unsched; i++)
		snprintf(a + strlen(a), sizeof(a) - strlen(a), "%s%s", i ? " " : "", want->unsched[i]);
	for (int i = 0; i < got->n_unsched; i++)
		snprintf(b + strlen(b), sizeof(b) - strlen(b), "%s%s", i ? " " : "", got->unsched[i]);
	if (strcmp(a, b))
		diff(seed, "-", "unschedulablePlugins", "unschedulablePlugins", a, b);
	int n = n_diffs - nd;
	if (n && !quiet && np < max_print)
		printf("  debug: %s/tests/differential --state %" PRIu64 " | $(tests/oracle/build.sh) -feature-gates "
		       "UserNamespacesHostNetworkSupport=true,VolumeBindMountOptions=true\n",
		       CSCHED_BUILD_DIR, seed);
	return n;
}

/* ---------- Modes ---------- */

static char *read_line(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, f);
	if (n < 0) {
		free(line);
		return NULL;
	}
	if (n && line[n - 1] == '\n')
		line[n - 1] = '\0';
	return line;
}

/* expected lines (with seeds) -> compare. Returns the exit status. */
static int check(const char *path)
{
	size_t len = strlen(path);
	bool gz = len > 3 && !strcmp(path + len - 3, ".gz");
	FILE *f;
	if (gz) {
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
		f = popen(cmd, "r");
	} else {
		f = fopen(path, "r");
	}
	if (!f) {
		perror(path);
		return 2;
	}
	struct gen g;
	uint64_t states = 0, differing = 0, skipped = 0, diffs = 0, not_yet = 0;
	/* the DRA states need DynamicResources in the registry: until then they are not run */
	const struct cfg_plugin_desc *dr = cfg_registry_lookup(fw_registry(), "DynamicResources");
	bool dra_ready = dr && dr->implemented;
	struct result *want = calloc(1, sizeof(*want)), *got = calloc(1, sizeof(*got));
	char *line;
	while ((line = read_line(f))) {
		if (!line[0]) {
			free(line);
			continue;
		}
		want->seed = UINT64_MAX;
		int rc = parse_result(line, want);
		free(line);
		if (rc < 0 || want->error[0] || want->seed == UINT64_MAX) {
			fprintf(stderr, "differential: seed %" PRIu64 " skipped: %s\n", want->seed, want->error);
			skipped++;
			continue;
		}
		if (want->seed >= GEN_DRA_SEED0 && !dra_ready) {
			not_yet++;
			continue;
		}
		char hash[16];
		states++;
		state_hash(want->seed, hash);
		if (want->state_hash[0] && strcmp(hash, want->state_hash)) {
			diff(want->seed, "-", "state",
			     want->seed >= GEN_DRA_SEED0
				     ? "stale expected output: the generated DRA state changed; regenerate: make "
				       "differential-dra UPDATE=1"
				     : "stale expected output: the generated state changed (generator or registry NOT_YET "
				       "rows); regenerate: make differential SEEDS=10000 UPDATE=1",
			     want->state_hash, hash);
			differing++;
			continue;
		}
		gen_state(&g, want->seed);
		memset(got, 0, sizeof(*got));
		got->seed = want->seed;
		if (run_csched(&g, got) < 0) {
			diff(want->seed, "-", "run", "csched could not run the state", "a run", got->error);
			differing++;
		} else {
			int n = compare(want, got);
			diffs += (uint64_t)n;
			differing += n > 0;
		}
		gen_release(&g);
	}
	int st = gz ? pclose(f) : fclose(f);
	free(want);
	free(got);
	harnesses_free();
	if (n_causes) {
		printf("\nDifferences by cause (states showing it, first example):\n");
		for (int i = 0; i < n_causes; i++)
			printf("  %6" PRIu64 "  %s\n          e.g. %s\n", causes[i].seeds, causes[i].key, causes[i].example);
	}
	printf("differential: %" PRIu64 " states, %" PRIu64 " differ (%" PRIu64 " differences), %" PRIu64
	       " skipped (%s)\n",
	       states, differing, diffs, skipped, path);
	if (st != 0) {
		fprintf(stderr, "differential: reading %s failed\n", path);
		return 2;
	}
	if (not_yet && !states) {
		printf("differential: %" PRIu64 " DRA states not run: DynamicResources is NOT_YET in the registry\n", not_yet);
		return 77; /* ctest's SKIP_RETURN_CODE */
	}
	return differing || skipped || !states ? 1 : 0;
}

/* oracle -jsonl output on stdin (line i = seed from + i) -> expected lines on stdout. */
static int strip(uint64_t from)
{
	struct result *r = calloc(1, sizeof(*r));
	uint64_t seed = from, bad = 0;
	char *line;
	while ((line = read_line(stdin))) {
		r->seed = seed;
		if (parse_result(line, r) < 0 || r->error[0]) {
			fprintf(stderr, "differential: seed %" PRIu64 ": %s\n", seed, r->error);
			bad++;
		}
		r->seed = seed++;
		state_hash(r->seed, r->state_hash);
		if (!r->error[0] || r->n_warnings)
			write_result(stdout, r);
		free(line);
	}
	free(r);
	fprintf(stderr, "differential: %" PRIu64 " oracle outputs, %" PRIu64 " with errors or warnings\n", seed - from,
		bad);
	return bad ? 1 : 0;
}

static int states(uint64_t from, uint64_t n)
{
	for (uint64_t s = from; s < from + n; s++) {
		struct gen g;
		gen_state(&g, s);
		char *js = gen_state_json(&g);
		puts(js);
		free(js);
		gen_release(&g);
	}
	return fflush(stdout) ? 2 : 0;
}

int main(int argc, char **argv)
{
	const char *path = DIFFERENTIAL_FIXTURE;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--state") && i + 1 < argc)
			return states(strtoull(argv[i + 1], NULL, 10), 1);
		if (!strcmp(argv[i], "--states") && i + 2 < argc)
			return states(strtoull(argv[i + 1], NULL, 10), strtoull(argv[i + 2], NULL, 10));
		if (!strcmp(argv[i], "--strip") && i + 1 < argc)
			return strip(strtoull(argv[i + 1], NULL, 10));
		if (!strcmp(argv[i], "--max") && i + 1 < argc)
			max_print = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--quiet"))
			quiet = true;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: %s [--max N] [--quiet] [EXPECTED.jsonl[.gz]] | --state SEED | --states FROM N | "
					"--strip FROM\n",
				argv[0]);
			return 2;
		} else
			path = argv[i];
	}
	return check(path);
}
