/* csched simulate (contract in simulate.h, output in docs/simulate.md).
 *
 * DESIGN
 * One thread (the caller's), on a scheduler that was never started: the dump, rewritten by the
 * what-ifs (a new List text made with yajl_gen), fills the scheduler's informers' stores through
 * api_informer_load_list, whose handlers fill the cache and the queue exactly as a LIST from the
 * server would. The pods to place are then taken in the queue's order (priority, highest first, then
 * the order they were listed in: the order a freshly started scheduler pops them) and scheduled one
 * after another by the loop's own framework profiles, as sched_schedule_one does: the scheduling
 * cycle count for OpportunisticBatching, the queue's nominated pods, fw_schedule_pod on the loop's
 * worker pool, then Reserve and the cache's assume for a pod that fits (so the next pod sees it);
 * a pod that fits nowhere is reported with its FailedScheduling message (no preemption: nothing is
 * evicted in a simulation). Each cycle carries a struct fw_record, rendered as explain renders it.
 * Nothing takes a lock for longer than the cache's and queue's own operations; no thread is started
 * and nothing is written. */
#include "scheduler/simulate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "sched_internal.h"

/* ---------- The what-ifs: the dump rewritten ---------- */

static const char *s_of(yajl_val v, const char *a, const char *b, const char *c)
{
	const char *path[] = { a, b, c, NULL };
	yajl_val s = yajl_tree_get(v, path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

static bool in_names(const char *const *names, uint32_t n, const char *name)
{
	for (uint32_t i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

#define G(x) \
	do { \
		if ((x) != yajl_gen_status_ok) \
			return ERR_NOMEM; \
	} while (0)

static int gen_str(yajl_gen g, const char *s)
{
	G(yajl_gen_string(g, (const unsigned char *)s, strlen(s)));
	return 0;
}

/* v as it is, except that (copies of a node) strings equal to from become to, and "uid" values get
 * to's suffix. */
static int gen_value(yajl_gen g, yajl_val v, const char *from, const char *to, const char *key)
{
	switch (v ? v->type : yajl_t_null) {
	case yajl_t_string: {
		const char *s = YAJL_GET_STRING(v);
		if (from && key && !strcmp(key, "uid")) {
			char uid[512];
			snprintf(uid, sizeof(uid), "%s-%s", s, to);
			return gen_str(g, uid);
		}
		return gen_str(g, from && !strcmp(s, from) ? to : s);
	}
	case yajl_t_number:
		G(yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r)));
		return 0;
	case yajl_t_object:
		G(yajl_gen_map_open(g));
		for (size_t i = 0; i < v->u.object.len; i++) {
			if (gen_str(g, v->u.object.keys[i]) < 0 ||
			    gen_value(g, v->u.object.values[i], from, to, v->u.object.keys[i]) < 0)
				return ERR_NOMEM;
		}
		G(yajl_gen_map_close(g));
		return 0;
	case yajl_t_array:
		G(yajl_gen_array_open(g));
		for (size_t i = 0; i < v->u.array.len; i++)
			if (gen_value(g, v->u.array.values[i], from, to, NULL) < 0)
				return ERR_NOMEM;
		G(yajl_gen_array_close(g));
		return 0;
	case yajl_t_true:
		G(yajl_gen_bool(g, 1));
		return 0;
	case yajl_t_false:
		G(yajl_gen_bool(g, 0));
		return 0;
	default:
		G(yajl_gen_null(g));
		return 0;
	}
}

/* obj without member skip (NULL: none); then, when set_key, that member set to true. */
static int gen_object_with(yajl_gen g, yajl_val obj, const char *skip, const char *set_key)
{
	G(yajl_gen_map_open(g));
	for (size_t i = 0; obj && YAJL_IS_OBJECT(obj) && i < obj->u.object.len; i++) {
		const char *k = obj->u.object.keys[i];
		if ((skip && !strcmp(k, skip)) || (set_key && !strcmp(k, set_key)))
			continue;
		if (gen_str(g, k) < 0 || gen_value(g, obj->u.object.values[i], NULL, NULL, k) < 0)
			return ERR_NOMEM;
	}
	if (set_key) {
		if (gen_str(g, set_key) < 0)
			return ERR_NOMEM;
		G(yajl_gen_bool(g, 1));
	}
	G(yajl_gen_map_close(g));
	return 0;
}

/* A cordoned node: spec.unschedulable = true. */
static int gen_cordoned(yajl_gen g, yajl_val node)
{
	bool had_spec = false;
	G(yajl_gen_map_open(g));
	for (size_t i = 0; i < node->u.object.len; i++) {
		const char *k = node->u.object.keys[i];
		if (gen_str(g, k) < 0)
			return ERR_NOMEM;
		if (!strcmp(k, "spec")) {
			had_spec = true;
			if (gen_object_with(g, node->u.object.values[i], NULL, "unschedulable") < 0)
				return ERR_NOMEM;
		} else if (gen_value(g, node->u.object.values[i], NULL, NULL, k) < 0) {
			return ERR_NOMEM;
		}
	}
	if (!had_spec && (gen_str(g, "spec") < 0 || gen_object_with(g, NULL, NULL, "unschedulable") < 0))
		return ERR_NOMEM;
	G(yajl_gen_map_close(g));
	return 0;
}

/* A drained pod, pending again: no spec.nodeName, no status (a new pod's). */
static int gen_drained(yajl_gen g, yajl_val pod)
{
	G(yajl_gen_map_open(g));
	for (size_t i = 0; i < pod->u.object.len; i++) {
		const char *k = pod->u.object.keys[i];
		if (!strcmp(k, "status"))
			continue;
		if (gen_str(g, k) < 0)
			return ERR_NOMEM;
		if (!strcmp(k, "spec") ? gen_object_with(g, pod->u.object.values[i], "nodeName", NULL) < 0
				       : gen_value(g, pod->u.object.values[i], NULL, NULL, k) < 0)
			return ERR_NOMEM;
	}
	G(yajl_gen_map_close(g));
	return 0;
}

/* DaemonSet pods and mirror pods stay on a drained node (kubectl drain's default). */
static bool stays_on_drain(yajl_val pod)
{
	const char *ann_path[] = { "metadata", "annotations", NULL }, *own_path[] = { "metadata", "ownerReferences", NULL };
	yajl_val ann = yajl_tree_get(pod, ann_path, yajl_t_object);
	for (size_t i = 0; ann && i < ann->u.object.len; i++)
		if (!strcmp(ann->u.object.keys[i], "kubernetes.io/config.mirror"))
			return true;
	yajl_val own = yajl_tree_get(pod, own_path, yajl_t_array);
	for (size_t i = 0; own && i < own->u.array.len; i++) {
		const char *kind = s_of(own->u.array.values[i], "kind", NULL, NULL);
		if (kind && !strcmp(kind, "DaemonSet"))
			return true;
	}
	return false;
}

static bool node_in_dump(yajl_val items, const char *name)
{
	for (size_t i = 0; i < items->u.array.len; i++) {
		const char *kind = s_of(items->u.array.values[i], "kind", NULL, NULL);
		const char *n = s_of(items->u.array.values[i], "metadata", "name", NULL);
		if (kind && n && !strcmp(kind, "Node") && !strcmp(n, name))
			return true;
	}
	return false;
}

static void gen_free_text(yajl_gen g, char **text, size_t *len)
{
	const unsigned char *buf;
	size_t n;
	*text = NULL;
	if (yajl_gen_get_buf(g, &buf, &n) == yajl_gen_status_ok && (*text = malloc(n + 1))) {
		memcpy(*text, buf, n);
		(*text)[n] = '\0';
		*len = n;
	}
	yajl_gen_free(g);
}

/* The dump with the what-ifs applied, as a new List text. */
static int rewrite(const struct sched_sim_request *rq, yajl_val root, char **text, size_t *len, struct err *e)
{
	static const char *items_path[] = { "items", NULL };
	yajl_val items = yajl_tree_get(root, items_path, yajl_t_array);
	if (!items)
		return err_set(e, ERR_INVALID, "dump: not a v1 List (no items)");
	if (rq->add_node && !node_in_dump(items, rq->add_node))
		return err_set(e, ERR_INVALID, "--add-node: node \"%s\" is not in the dump", rq->add_node);
	for (uint32_t i = 0; i < rq->n_cordon; i++)
		if (!node_in_dump(items, rq->cordon[i]))
			return err_set(e, ERR_INVALID, "--cordon: node \"%s\" is not in the dump", rq->cordon[i]);
	for (uint32_t i = 0; i < rq->n_drain; i++)
		if (!node_in_dump(items, rq->drain[i]))
			return err_set(e, ERR_INVALID, "--drain: node \"%s\" is not in the dump", rq->drain[i]);
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g)
		return err_set(e, ERR_NOMEM, "simulate: out of memory");
	int rc = 0;
	if (yajl_gen_map_open(g) || gen_str(g, "apiVersion") || gen_str(g, "v1") || gen_str(g, "kind") ||
	    gen_str(g, "List") || gen_str(g, "items") || yajl_gen_array_open(g)) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < items->u.array.len && !rc; i++) {
		yajl_val it = items->u.array.values[i];
		const char *kind = s_of(it, "kind", NULL, NULL), *name = s_of(it, "metadata", "name", NULL);
		bool is_node = kind && !strcmp(kind, "Node") && YAJL_IS_OBJECT(it);
		bool is_pod = kind && !strcmp(kind, "Pod") && YAJL_IS_OBJECT(it);
		if (is_node && (in_names(rq->cordon, rq->n_cordon, name) || in_names(rq->drain, rq->n_drain, name)))
			rc = gen_cordoned(g, it);
		else if (is_pod && in_names(rq->drain, rq->n_drain, s_of(it, "spec", "nodeName", NULL)) && !stays_on_drain(it))
			rc = gen_drained(g, it);
		else
			rc = gen_value(g, it, NULL, NULL, NULL);
		if (!rc && is_node && rq->add_node && name && !strcmp(name, rq->add_node))
			for (uint32_t k = 1; k <= rq->add_count && !rc; k++) {
				char copy[300];
				snprintf(copy, sizeof(copy), "%s-sim-%" PRIu32, name, k);
				rc = gen_value(g, it, name, copy, NULL);
			}
	}
	if (!rc && (yajl_gen_array_close(g) || yajl_gen_map_close(g)))
		rc = ERR_NOMEM;
out:
	if (rc) {
		yajl_gen_free(g);
		return err_set(e, ERR_NOMEM, "simulate: out of memory");
	}
	gen_free_text(g, text, len);
	return *text ? 0 : err_set(e, ERR_NOMEM, "simulate: out of memory");
}

/* ---------- The pods to place ---------- */

struct sim_pod {
	struct api_pod *pod; /* referenced */
	size_t order;        /* as listed */
};

static int cmp_sim_pods(const void *a, const void *b)
{
	const struct sim_pod *x = a, *y = b;
	if (x->pod->priority != y->pod->priority)
		return x->pod->priority > y->pod->priority ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A Pod as a user writes it for kubectl: metadata without a uid (the server assigns it) and perhaps
 * without a namespace (kubectl's context default). The queue and the cache key pods by uid, so
 * each gets a deterministic one ("simulate:NS/NAME"), and namespace "default" when it has none. */
static int gen_user_pod(yajl_gen g, yajl_val pod)
{
	G(yajl_gen_map_open(g));
	for (size_t i = 0; i < pod->u.object.len; i++) {
		const char *k = pod->u.object.keys[i];
		yajl_val v = pod->u.object.values[i];
		if (gen_str(g, k) < 0)
			return ERR_NOMEM;
		if (strcmp(k, "metadata") != 0 || !YAJL_IS_OBJECT(v)) {
			if (gen_value(g, v, NULL, NULL, k) < 0)
				return ERR_NOMEM;
			continue;
		}
		const char *ns = s_of(v, "namespace", NULL, NULL), *name = s_of(v, "name", NULL, NULL);
		bool has_uid = s_of(v, "uid", NULL, NULL) && s_of(v, "uid", NULL, NULL)[0];
		G(yajl_gen_map_open(g));
		for (size_t j = 0; j < v->u.object.len; j++) {
			const char *mk = v->u.object.keys[j];
			if ((!strcmp(mk, "uid") && !has_uid) || (!strcmp(mk, "namespace") && (!ns || !ns[0])))
				continue; /* replaced below */
			if (gen_str(g, mk) < 0 || gen_value(g, v->u.object.values[j], NULL, NULL, mk) < 0)
				return ERR_NOMEM;
		}
		if (!ns || !ns[0]) {
			ns = "default";
			if (gen_str(g, "namespace") < 0 || gen_str(g, ns) < 0)
				return ERR_NOMEM;
		}
		if (!has_uid && name) {
			char uid[600];
			snprintf(uid, sizeof(uid), "simulate:%s/%s", ns, name);
			if (gen_str(g, "uid") < 0 || gen_str(g, uid) < 0)
				return ERR_NOMEM;
		}
		G(yajl_gen_map_close(g));
	}
	G(yajl_gen_map_close(g));
	return 0;
}

static bool is_pod_object(yajl_val v)
{
	const char *kind = s_of(v, "kind", NULL, NULL);
	return YAJL_IS_OBJECT(v) && kind && !strcmp(kind, "Pod");
}

/* A pods file item that is not a Pod: an error as the YAML reader gives it (api_manifest_to_json
 * with kind "Pod"), so that a JSON file does not silently place nothing. item: 0 for a file that
 * is one object, else the List's item-th (from 1). */
static int not_a_pod(yajl_val v, size_t item, struct err *e)
{
	const char *kind = s_of(v, "kind", NULL, NULL), *name = s_of(v, "metadata", "name", NULL);
	char where[32] = "";
	if (item)
		snprintf(where, sizeof(where), " item %zu:", item);
	return err_set(e, ERR_INVALID, "pods:%s %s%s%s%s: only kind Pod is accepted here", where,
		       kind ? "kind " : "no kind", kind ? kind : "", name ? " " : "", name ? name : "");
}

/* The pods file (a List of Pods or one Pod, JSON) with its Pods completed by gen_user_pod, into
 * *out (malloc'd, the caller frees). */
static int complete_user_pods(const char *text, size_t len, char **out, size_t *out_len, struct err *e)
{
	static const char *items_path[] = { "items", NULL };
	char ebuf[256];
	char *copy = strndup(text, len);
	yajl_val root = copy ? yajl_tree_parse(copy, ebuf, sizeof(ebuf)) : NULL;
	yajl_gen g = NULL;
	int rc = 0;
	*out = NULL;
	if (!root) {
		rc = copy ? err_set(e, ERR_INVALID, "pods: not JSON: %s", ebuf) : err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!(g = yajl_gen_alloc(NULL))) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	yajl_val items = yajl_tree_get(root, items_path, yajl_t_array);
	if (!items) {
		rc = is_pod_object(root) ? gen_user_pod(g, root) : not_a_pod(root, 0, e);
	} else if (yajl_gen_map_open(g) != yajl_gen_status_ok) {
		rc = ERR_NOMEM;
	} else {
		for (size_t i = 0; i < root->u.object.len && !rc; i++) {
			yajl_val v = root->u.object.values[i];
			if (gen_str(g, root->u.object.keys[i]) < 0) {
				rc = ERR_NOMEM;
			} else if (v != items) {
				rc = gen_value(g, v, NULL, NULL, root->u.object.keys[i]);
			} else {
				rc = yajl_gen_array_open(g) == yajl_gen_status_ok ? 0 : ERR_NOMEM;
				for (size_t j = 0; j < items->u.array.len && !rc; j++) {
					yajl_val it = items->u.array.values[j];
					rc = is_pod_object(it) ? gen_user_pod(g, it) : not_a_pod(it, j + 1, e);
				}
				if (!rc && yajl_gen_array_close(g) != yajl_gen_status_ok)
					rc = ERR_NOMEM;
			}
		}
		if (!rc && yajl_gen_map_close(g) != yajl_gen_status_ok)
			rc = ERR_NOMEM;
	}
	if (rc == ERR_INVALID)
		goto out;
	const unsigned char *buf;
	size_t blen;
	if (rc || yajl_gen_get_buf(g, &buf, &blen) != yajl_gen_status_ok || !(*out = strndup((const char *)buf, blen))) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	*out_len = blen;
out:
	if (g)
		yajl_gen_free(g);
	yajl_tree_free(root);
	free(copy);
	return rc;
}

/* The unassigned pods of text's items (a List or one Pod) that one of s's profiles serves, as the
 * informer decoded them, appended to *v. */
static int collect_pods(struct scheduler *s, const char *text, size_t len, bool user_file, struct sim_pod **v, size_t *n,
			size_t *cap, struct err *e)
{
	static const char *items_path[] = { "items", NULL };
	char ebuf[256];
	char *copy = strndup(text, len);
	yajl_val root = copy ? yajl_tree_parse(copy, ebuf, sizeof(ebuf)) : NULL;
	int rc = 0;
	if (!root) {
		rc = copy ? err_set(e, ERR_INVALID, "pods: not JSON: %s", ebuf) : err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	yajl_val items = yajl_tree_get(root, items_path, yajl_t_array);
	size_t count = items ? items->u.array.len : 1;
	for (size_t i = 0; i < count; i++) {
		yajl_val it = items ? items->u.array.values[i] : root;
		const char *kind = s_of(it, "kind", NULL, NULL), *ns = s_of(it, "metadata", "namespace", NULL),
			   *name = s_of(it, "metadata", "name", NULL);
		if (!kind || strcmp(kind, "Pod"))
			continue;
		if (!ns || !name) {
			rc = err_set(e, ERR_INVALID, "pods: item %zu: metadata.namespace and metadata.name are required", i);
			goto out;
		}
		struct api_pod *p = sched_pod_lister(s, ns, name);
		if (!p)
			continue; /* Succeeded or Failed, or not decodable (the informer logged it) */
		if (api_pod_is_assigned(p) || !sched_profile_for(s, p)) {
			/* a pods file names what to place: say why one is not, as a dump's other pods are not */
			if (user_file && !api_pod_is_assigned(p))
				LOG_WARN("pod %s/%s: schedulerName \"%s\" is served by no profile of the configuration; not placed",
					 ns, name, p->scheduler_name);
			api_pod_unref(p);
			continue;
		}
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct sim_pod *nv = realloc(*v, nc * sizeof(*nv));
			if (!nv) {
				api_pod_unref(p);
				rc = err_set(e, ERR_NOMEM, "out of memory");
				goto out;
			}
			*v = nv;
			*cap = nc;
		}
		(*v)[*n] = (struct sim_pod){ p, *n };
		(*n)++;
	}
out:
	yajl_tree_free(root);
	free(copy);
	return rc;
}

/* ---------- Utilization ---------- */

struct usage {
	char node[256];
	int64_t cpu_alloc, mem_alloc, pods_alloc;
	int64_t cpu_before, mem_before, cpu_after, mem_after;
	uint32_t pods_before, pods_after;
};

static int take_usage(const struct snapshot *snap, struct usage **u, uint32_t *n, bool after)
{
	uint32_t count = snapshot_num_nodes(snap);
	if (!after) {
		*n = count;
		if (!(*u = calloc(count ? count : 1, sizeof(**u))))
			return ERR_NOMEM;
	}
	for (uint32_t i = 0; i < count; i++) {
		const struct node_info *ni = snapshot_node_at(snap, i);
		struct usage *x = after ? NULL : &(*u)[i];
		for (uint32_t k = 0; after && k < *n && !x; k++)
			if (!strcmp((*u)[k].node, ni->name))
				x = &(*u)[k];
		if (!x)
			continue; /* no node is added while placing */
		if (!after) {
			snprintf(x->node, sizeof(x->node), "%s", ni->name);
			const struct api_resources *a = node_info_allocatable(ni);
			x->cpu_alloc = a->cpu;
			x->mem_alloc = a->memory;
			x->pods_alloc = a->pods;
			x->cpu_before = ni->requested.cpu;
			x->mem_before = ni->requested.memory;
			x->pods_before = ni->n_pods;
		}
		x->cpu_after = ni->requested.cpu;
		x->mem_after = ni->requested.memory;
		x->pods_after = ni->n_pods;
	}
	return 0;
}

static int cmp_usage(const void *a, const void *b)
{
	return strcmp(((const struct usage *)a)->node, ((const struct usage *)b)->node);
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---------- The simulation ---------- */

static int load(struct scheduler *s, const char *text, size_t len, struct err *e)
{
	struct api_informer *infs[] = { s->node_inf, s->ns_inf, s->pvc_inf, s->pdb_inf, s->pod_inf };
	size_t loaded;
	for (size_t i = 0; i < sizeof(infs) / sizeof(infs[0]); i++)
		if (infs[i] && api_informer_load_list(infs[i], text, len, &loaded, e) < 0)
			return err_prefix(e, "dump");
	if (s->owners && sched_owners_load(s->owners, text, len, e) < 0)
		return err_prefix(e, "dump");
	if (sched_volumes_load(s->volumes, text, len, e) < 0 || sched_dra_load(s->dra, text, len, e) < 0)
		return err_prefix(e, "dump");
	return 0;
}

struct placement {
	struct api_pod *pod; /* borrowed from the sim_pod */
	const char *node;    /* interned or NULL */
	const char *status;  /* "Scheduled", "Unschedulable", "Gated", "Error" */
	char *message;       /* malloc'd */
	char *detail;        /* explain's rendering (JSON, or the table), malloc'd */
	int64_t total;
	bool has_total;
};

static int place_one(struct scheduler *s, struct snapshot *snap, struct api_pod *pod, uint64_t cycle, bool json,
		     struct placement *pl, struct err *e)
{
	struct sched_profile *prof = sched_profile_for(s, pod);
	struct fw_status st;
	struct fw_record rec;
	struct fw_schedule_result *res = calloc(1, sizeof(*res));
	struct fw_cycle *c = fw_cycle_new(prof->fw);
	struct sched_nominated nom = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char msg[FW_STATUS_TEXT_MAX * 3];
	int rc;

	pl->pod = pod;
	if (!res || !c) {
		rc = err_set(e, ERR_NOMEM, "simulate: out of memory");
		goto out;
	}
	if (fw_run_pre_enqueue(prof->fw, pod, &st) != FW_SUCCESS) {
		/* upstream never pops a gated pod */
		pl->status = "Gated";
		pl->message = strdup(fw_status_message(&st, msg, sizeof(msg)));
		rc = pl->message ? 0 : err_set(e, ERR_NOMEM, "simulate: out of memory");
		goto out;
	}
	if ((rc = cache_update_snapshot(s->cache, snap, e)) < 0)
		goto out;
	struct fw_node_list list;
	fw_node_list_from_snapshot(snap, &list);
	if ((rc = sched_nominated_get(s, pod, &nom, e)) < 0)
		goto out;
	fw_cycle_set_record(c, &rec);
	fw_profile_set_cycle(prof->fw, cycle);
	if ((rc = fw_schedule_pod(prof->fw, c, &list, pod, &nom.nom, res, e)) < 0)
		goto out;
	/* the per-plugin detail goes into the JSON document; the table lists the placements */
	if (json && (rc = sched_explain_render(pod, prof->name, &list, res, &rec, true, &sb, e)) < 0)
		goto out;
	pl->detail = strbuf_detach(&sb, NULL);
	msg[0] = '\0';
	if (res->code == FW_SUCCESS) {
		const char *host = res->suggested_host;
		for (uint32_t i = 0; rec.scored && i < rec.n_scored; i++)
			if (rec.nodes[i]->name == host) {
				pl->total = rec.totals[i];
				pl->has_total = true;
			}
		/* as the loop: Reserve, then the cache counts the pod there (the next pod sees it) */
		enum fw_code code = fw_run_reserve(prof->fw, c, pod, host, &st);
		if (code != FW_SUCCESS) {
			fw_run_unreserve(prof->fw, c, pod, host);
			pl->status = fw_code_is_rejected(code) ? "Unschedulable" : "Error";
			fw_status_message(&st, msg, sizeof(msg));
		} else if ((rc = cache_assume_pod(s->cache, pod, host, e)) < 0) {
			fw_run_unreserve(prof->fw, c, pod, host);
			goto out;
		} else {
			pl->status = "Scheduled";
			pl->node = host;
			queue_delete_nominated_pod(s->queue, pod->meta.uid);
		}
	} else if (res->code == FW_UNSCHEDULABLE) {
		pl->status = "Unschedulable";
		fw_fit_error_message(&res->diag, msg, sizeof(msg));
	} else {
		pl->status = res->code == FW_ERROR ? "Error" : "Unschedulable";
		fw_status_message(&res->status, msg, sizeof(msg));
	}
	if (!(pl->message = strdup(msg)))
		rc = err_set(e, ERR_NOMEM, "simulate: out of memory");
out:
	strbuf_release(&sb);
	sched_nominated_release(&nom);
	fw_cycle_free(c);
	free(res);
	return rc;
}

static void render_json(struct strbuf *sb, const struct placement *pl, size_t n, const struct usage *u, uint32_t nu)
{
	strbuf_puts(sb, "{\"apiVersion\":\"csched.io/v1alpha1\",\"kind\":\"Simulation\",\"placements\":[");
	for (size_t i = 0; i < n; i++) {
		strbuf_puts(sb, i ? ",{\"namespace\":" : "{\"namespace\":");
		sched_json_str(sb, pl[i].pod->meta.namespace);
		strbuf_puts(sb, ",\"name\":");
		sched_json_str(sb, pl[i].pod->meta.name);
		strbuf_puts(sb, ",\"status\":");
		sched_json_str(sb, pl[i].status);
		strbuf_puts(sb, ",\"node\":");
		sched_json_str(sb, pl[i].node);
		strbuf_puts(sb, ",\"message\":");
		sched_json_str(sb, pl[i].message);
		strbuf_puts(sb, ",\"explanation\":");
		strbuf_puts(sb, pl[i].detail ? pl[i].detail : "null");
		strbuf_puts(sb, "}");
	}
	strbuf_puts(sb, "],\"utilization\":[");
	for (uint32_t i = 0; i < nu; i++) {
		strbuf_puts(sb, i ? ",{\"node\":" : "{\"node\":");
		sched_json_str(sb, u[i].node);
		strbuf_addf(sb,
			    ",\"cpuAllocatableMillis\":%" PRId64 ",\"cpuRequestedMillisBefore\":%" PRId64
			    ",\"cpuRequestedMillisAfter\":%" PRId64 ",\"memoryAllocatableBytes\":%" PRId64
			    ",\"memoryRequestedBytesBefore\":%" PRId64 ",\"memoryRequestedBytesAfter\":%" PRId64
			    ",\"podsAllocatable\":%" PRId64 ",\"podsBefore\":%" PRIu32 ",\"podsAfter\":%" PRIu32 "}",
			    u[i].cpu_alloc, u[i].cpu_before, u[i].cpu_after, u[i].mem_alloc, u[i].mem_before, u[i].mem_after,
			    u[i].pods_alloc, u[i].pods_before, u[i].pods_after);
	}
	strbuf_puts(sb, "]}\n");
}

static void render_table(struct strbuf *sb, const struct placement *pl, size_t n, const struct usage *u, uint32_t nu)
{
	strbuf_puts(sb, "Placements, in scheduling order:\n");
	for (size_t i = 0; i < n; i++) {
		char key[300];
		snprintf(key, sizeof(key), "%s/%s", pl[i].pod->meta.namespace, pl[i].pod->meta.name);
		if (pl[i].node)
			strbuf_addf(sb, "  %4zu  %-40s -> %s", i + 1, key, pl[i].node);
		else
			strbuf_addf(sb, "  %4zu  %-40s    %s: %s", i + 1, key, pl[i].status, pl[i].message);
		if (pl[i].node && pl[i].has_total)
			strbuf_addf(sb, " (total %" PRId64 ")", pl[i].total);
		strbuf_puts(sb, "\n");
	}
	strbuf_puts(sb, "\nNode utilization (requested / allocatable), before -> after:\n");
	strbuf_puts(sb, "NODE                            CPU                  MEMORY               PODS\n");
	for (uint32_t i = 0; i < nu; i++)
		strbuf_addf(sb, "%-31s %5.1f%% -> %5.1f%%     %5.1f%% -> %5.1f%%     %3" PRIu32 " -> %3" PRIu32 "\n",
			    u[i].node, pct(u[i].cpu_before, u[i].cpu_alloc), pct(u[i].cpu_after, u[i].cpu_alloc),
			    pct(u[i].mem_before, u[i].mem_alloc), pct(u[i].mem_after, u[i].mem_alloc), u[i].pods_before,
			    u[i].pods_after);
}

/* The utilization as an SVG bar chart: per node four bars (CPU before, after; memory before,
 * after) as percentages of allocatable, a 100% line, the node names below. */
static void render_svg(struct strbuf *sb, const struct usage *u, uint32_t nu)
{
	enum { LEFT = 50, TOP = 40, H = 200, GROUP = 64, BAR = 12, BOTTOM = 110 };
	static const char *const fill[4] = { "#9ecae1", "#3182bd", "#fdae6b", "#e6550d" };
	static const char *const label[4] = { "CPU before", "CPU after", "memory before", "memory after" };
	unsigned w = LEFT + 20 + GROUP * (nu ? nu : 1), ht = TOP + H + BOTTOM;
	if (w < LEFT + 4 * 110 + 20) /* room for the legend and the title */
		w = LEFT + 4 * 110 + 20;
	strbuf_addf(sb,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" font-family=\"sans-serif\" "
		    "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		    "<text x=\"%d\" y=\"16\" font-size=\"13\">Requested / allocatable per node, before and after (csched simulate)</text>\n",
		    w, ht, LEFT);
	for (int k = 0; k < 4; k++)
		strbuf_addf(sb, "<rect x=\"%d\" y=\"22\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"31\">%s</text>\n",
			    LEFT + k * 110, fill[k], LEFT + k * 110 + 14, label[k]);
	for (int t = 0; t <= 100; t += 25)
		strbuf_addf(sb, "<line x1=\"%d\" x2=\"%u\" y1=\"%d\" y2=\"%d\" stroke=\"%s\"/><text x=\"4\" y=\"%d\">%d%%</text>\n",
			    LEFT, w - 10, TOP + H - H * t / 100, TOP + H - H * t / 100, t == 100 ? "#888" : "#eee",
			    TOP + H - H * t / 100 + 4, t);
	for (uint32_t i = 0; i < nu; i++) {
		double v[4] = { pct(u[i].cpu_before, u[i].cpu_alloc), pct(u[i].cpu_after, u[i].cpu_alloc),
				pct(u[i].mem_before, u[i].mem_alloc), pct(u[i].mem_after, u[i].mem_alloc) };
		int x0 = LEFT + 6 + GROUP * (int)i;
		for (int k = 0; k < 4; k++) {
			double hv = v[k] > 100 ? 100 : v[k];
			int bh = (int)(H * hv / 100.0 + 0.5);
			strbuf_addf(sb, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s %s: %.1f%%</title></rect>\n",
				    x0 + k * BAR, TOP + H - bh, BAR - 1, bh, fill[k], u[i].node, label[k], v[k]);
		}
		strbuf_puts(sb, "<text transform=\"translate(");
		strbuf_addf(sb, "%d,%d) rotate(45)\">", x0 + 2, TOP + H + 12);
		for (const char *c = u[i].node; *c; c++) /* node names are DNS names; escape anyway */
			strbuf_puts(sb, *c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[]){ *c, 0 });
		strbuf_puts(sb, "</text>\n");
	}
	strbuf_puts(sb, "</svg>\n");
}

int sched_simulate(struct scheduler *s, const struct sched_sim_request *rq, char **out, size_t *len, struct err *e)
{
	char ebuf[256];
	char *copy = NULL, *text = NULL, *user_pods = NULL;
	size_t text_len = 0, user_len = 0, n = 0, cap = 0;
	yajl_val root = NULL;
	struct sim_pod *pods = NULL;
	struct placement *pl = NULL;
	struct usage *u = NULL;
	uint32_t nu = 0;
	struct snapshot *snap = NULL;
	struct strbuf sb = STRBUF_INIT;
	int rc;

	*out = NULL;
	*len = 0;
	if (!rq || !rq->dump)
		return err_set(e, ERR_INVALID, "simulate: a dump is required");
	if (sched_is_scheduling(s))
		return err_set(e, ERR_INVALID, "simulate: the scheduler is running");
	if (!(copy = strndup(rq->dump, rq->dump_len)) || !(snap = snapshot_new())) {
		rc = err_set(e, ERR_NOMEM, "simulate: out of memory");
		goto out;
	}
	if (!(root = yajl_tree_parse(copy, ebuf, sizeof(ebuf)))) {
		rc = err_set(e, ERR_INVALID, "dump: not JSON: %s", ebuf);
		goto out;
	}
	if ((rc = rewrite(rq, root, &text, &text_len, e)) < 0 || (rc = load(s, text, text_len, e)) < 0)
		goto out;
	if (rq->pods && (rc = complete_user_pods(rq->pods, rq->pods_len, &user_pods, &user_len, e)) < 0)
		goto out;
	if (user_pods && (rc = api_informer_load_list(s->pod_inf, user_pods, user_len, &(size_t){ 0 }, e)) < 0) {
		err_prefix(e, "pods");
		goto out;
	}
	if ((rc = collect_pods(s, user_pods ? user_pods : text, user_pods ? user_len : text_len, user_pods != NULL, &pods, &n,
				 &cap, e)) < 0)
		goto out;
	if (n) /* the queue's order: priority, then as listed */
		qsort(pods, n, sizeof(*pods), cmp_sim_pods);
	if ((rc = cache_update_snapshot(s->cache, snap, e)) < 0)
		goto out;
	if (take_usage(snap, &u, &nu, false) < 0 || !(pl = calloc(n ? n : 1, sizeof(*pl)))) {
		rc = err_set(e, ERR_NOMEM, "simulate: out of memory");
		goto out;
	}
	uint64_t cycle = 0;
	for (size_t i = 0; i < n; i++) {
		/* upstream's SchedulingCycle counts every pod popped; gated pods are never popped */
		if ((rc = place_one(s, snap, pods[i].pod, cycle + 1, rq->json, &pl[i], e)) < 0)
			goto out;
		if (strcmp(pl[i].status, "Gated") != 0)
			cycle++;
	}
	if ((rc = cache_update_snapshot(s->cache, snap, e)) < 0)
		goto out;
	take_usage(snap, &u, &nu, true);
	qsort(u, nu, sizeof(*u), cmp_usage);
	if (rq->json)
		render_json(&sb, pl, n, u, nu);
	else
		render_table(&sb, pl, n, u, nu);
	if (rq->svg) {
		struct strbuf svg = STRBUF_INIT;
		render_svg(&svg, u, nu);
		if (svg.oom) {
			strbuf_release(&svg);
			rc = err_set(e, ERR_NOMEM, "simulate: out of memory");
			goto out;
		}
		*rq->svg = strbuf_detach(&svg, rq->svg_len);
	}
	if (sb.oom) {
		rc = err_set(e, ERR_NOMEM, "simulate: out of memory");
		goto out;
	}
	*out = strbuf_detach(&sb, len);
	rc = 0;
out:
	strbuf_release(&sb);
	for (size_t i = 0; pl && i < n; i++) {
		free(pl[i].message);
		free(pl[i].detail);
	}
	free(pl);
	for (size_t i = 0; i < n; i++)
		api_pod_unref(pods[i].pod);
	free(pods);
	free(u);
	snapshot_free(snap);
	yajl_tree_free(root);
	free(user_pods);
	free(text);
	free(copy);
	return rc;
}
