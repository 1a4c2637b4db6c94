/* InterPodAffinity (PreFilter, Filter, PreScore, Score, NormalizeScore; upstream plugins/
 * interpodaffinity v1.37.2 with InterPodAffinityHostnameFastPath off, its v1.37 default): the pod's
 * required and preferred pod (anti-)affinity against the pods already placed, and the existing
 * pods' required anti-affinity (and, for scoring, their terms) against the pod.
 *
 * PreFilter and PreScore walk the snapshot once (for pods without pod affinity of their own, only
 * its nodes holding pods with pod (anti-)affinity) and leave topology-pair counts ((key, value) ->
 * count tables), so Filter and Score cost O(terms + node labels) per node. A node's count of pods
 * matching the incoming pod's terms is kept across cycles until its snapshot generation moves
 * (count_cache.h), so that part of both walks costs O(nodes) in steady state. PreFilter's walk of
 * the existing pods' required anti-affinity terms keeps each node's matched pairs the same way for
 * pods alike (same namespace, labels and namespace labels; the last OWN_SLOTS of them: own_slot's
 * anti_by_node), so it reads no term of a node whose generation did not move. PreScore goes further
 * for consecutive pods alike (same namespace, labels and namespace labels, same preferred terms):
 * the existing pods' matched terms are summed per node and kept (own_slot), and topologyScore
 * itself is kept and changed only by the nodes whose generation moved (agg_*), so its cycle reads
 * one pointer and one generation per node. Terms of the incoming pod
 * have their namespaceSelector unrolled into namespace names (upstream
 * mergeAffinityTermNamespacesIfNotEmpty, through the profile's Namespace lister); an existing
 * pod's terms are matched as written, against the incoming pod's namespace labels.
 * matchLabelKeys / mismatchLabelKeys are not read: the API server folds them into labelSelector
 * when the pod is created, and upstream's scheduler ignores them too.
 *
 * csched has no PreFilterExtensions: in the Filter pass with nominated pods (those of the node
 * appended to the node_info), Filter adds what upstream's AddPod adds to the counts of this node's
 * topology pairs, which are the only pairs a Filter of this node reads. */
#include "algorithm/plugin.h"
#include "count_cache.h"
#include "plugin_helpers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/pmap.h"

#define NAME "InterPodAffinity"
#define REASON_EXISTING_ANTI "node(s) didn't satisfy existing pods anti-affinity rules"
#define REASON_AFFINITY "node(s) didn't match pod affinity rules"
#define REASON_ANTI "node(s) didn't match pod anti-affinity rules"

static const struct api_labels no_labels;
/* labels.Everything(): what an empty namespaceSelector ({}) stays after the merge */
static const struct api_label_selector everything;

/* ---------- Terms ---------- */

/* upstream fwk.AffinityTerm of the incoming pod after the namespace merge. */
struct term {
	const struct api_label_selector *selector;    /* NULL = labels.Nothing() */
	const struct api_label_selector *ns_selector; /* NULL = Nothing(); &everything or, unmerged, the pod's */
	uint32_t n_ns;
	const char **ns; /* interned */
	const char *key; /* interned topology key */
	int32_t weight;
	bool cacheable; /* ns holds no names listed from the Namespace store (which hold no reference) */
};

static bool ns_in(const char *const *v, uint32_t n, const char *ns)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == ns)
			return true;
	return false;
}

/* AffinityTerm.Matches: namespace (by name or by ns_labels) and label selector. */
static bool term_matches(const struct term *t, const struct api_pod *p, const struct api_labels *ns_labels)
{
	if (!ns_in(t->ns, t->n_ns, p->meta.namespace) &&
	    !(t->ns_selector && api_label_selector_matches(t->ns_selector, ns_labels ? ns_labels : &no_labels)))
		return false;
	return api_label_selector_matches(t->selector, &p->meta.labels);
}

/* A term of owner as written (upstream newAffinityTerm, no merge) matching p. */
static bool raw_matches(const struct api_pod *owner, const struct api_pod_affinity_term *t, const struct api_pod *p,
			const struct api_labels *ns_labels)
{
	bool ns_ok;
	if (!t->n_namespaces && !t->namespace_selector)
		ns_ok = p->meta.namespace == owner->meta.namespace;
	else
		ns_ok = ns_in(t->namespaces, t->n_namespaces, p->meta.namespace) ||
			(t->namespace_selector &&
			 api_label_selector_matches(t->namespace_selector, ns_labels ? ns_labels : &no_labels));
	return ns_ok && api_label_selector_matches(t->label_selector, &p->meta.labels);
}

/* podMatchesAllAffinityTerms: terms not empty and p matches every one (nsLabels nil). */
static bool matches_all(const struct term *t, uint32_t n, const struct api_pod *p)
{
	if (!n)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!term_matches(&t[i], p, NULL))
			return false;
	return true;
}

static bool raw_matches_all(const struct api_pod *owner, const struct api_pod_affinity_term *t, uint32_t n,
			    const struct api_pod *p)
{
	if (!n)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!raw_matches(owner, &t[i], p, NULL))
			return false;
	return true;
}

static bool raw_matches_any(const struct api_pod *owner, const struct api_pod_affinity_term *t, uint32_t n,
			    const struct api_pod *p)
{
	for (uint32_t i = 0; i < n; i++)
		if (raw_matches(owner, &t[i], p, NULL))
			return true;
	return false;
}

static bool selector_empty(const struct api_label_selector *s)
{
	return s && !s->match_labels.n && !s->n_exprs;
}

struct ns_collect {
	const struct api_label_selector *sel;
	const char **out; /* NULL: count only */
	uint32_t n, cap;
};

static int ns_collect_one(void *arg, const struct api_namespace *ns)
{
	struct ns_collect *c = arg;
	if (!api_label_selector_matches(c->sel, &ns->meta.labels))
		return 0;
	if (c->out) {
		if (c->n == c->cap)
			return 1; /* the store grew between the passes: what it had is enough */
		/* compared by pointer only: a name whose namespace goes meanwhile is never read */
		c->out[c->n] = ns->meta.name;
	}
	c->n++;
	return 0;
}

/* newAffinityTerm + mergeAffinityTermNamespacesIfNotEmpty for a term of the incoming pod. */
static int merge_term(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
		      const struct api_pod_affinity_term *raw, int32_t weight, struct term *out)
{
	out->selector = raw->label_selector;
	out->key = raw->topology_key;
	out->weight = weight;
	out->ns_selector = NULL;
	const struct api_label_selector *nss = raw->namespace_selector;
	uint32_t n_listed = 0;
	struct ns_collect col = { .sel = nss };
	if (nss && !selector_empty(nss)) {
		fw_each_namespace(pl, ns_collect_one, &col);
		n_listed = col.n;
	}
	uint32_t n_own = !raw->n_namespaces && !nss ? 1 : raw->n_namespaces;
	out->ns = fw_cycle_alloc(c, (n_own + n_listed + 1) * sizeof(*out->ns));
	if (!out->ns)
		return ERR_NOMEM;
	if (!raw->n_namespaces && !nss)
		out->ns[0] = pod->meta.namespace;
	else if (raw->n_namespaces) /* memcpy from NULL is undefined even for 0 bytes */
		memcpy(out->ns, raw->namespaces, raw->n_namespaces * sizeof(*out->ns));
	out->n_ns = n_own;
	if (selector_empty(nss)) {
		out->ns_selector = &everything;
	} else if (n_listed) {
		col = (struct ns_collect){ .sel = nss, .out = out->ns + n_own, .cap = n_listed };
		fw_each_namespace(pl, ns_collect_one, &col);
		out->n_ns += col.n;
	}
	out->cacheable = out->n_ns == n_own;
	return 0;
}

/* t as a pod predicate (term_matches with nsLabels nil): its namespaces, or any when its
 * namespaceSelector matches the empty label set */
static void term_clause(const struct term *t, struct fw_pod_clause *out)
{
	*out = (struct fw_pod_clause){ .ns = t->ns, .n_ns = t->n_ns, .sel = t->selector };
	out->any_ns = t->ns_selector && api_label_selector_matches(t->ns_selector, &no_labels);
}

/* ---------- Counts of the incoming pod's terms per node, kept across cycles ---------- */

/* The existing pods' terms matched against the incoming pod, summed per topology key and node,
 * kept across cycles: PreScore's (by_node, own_node below PreScore's helpers) and PreFilter's
 * required anti-affinity (anti_by_node, anti_node). A slot is keyed by what those
 * terms read of the incoming pod: its namespace, its labels and its namespace's labels (copies,
 * their strings referenced so that their addresses stay theirs while compared). */
#define OWN_SLOTS 4
struct ipa_agg;

#define OWN_KEYS 4 /* a node whose pods' terms use more topology keys is walked every cycle */

struct own_slot {
	bool used_key; /* the key below is set */
	uint64_t id;   /* changes with the key */
	const char *ns;
	struct api_labels labels, ns_labels; /* items malloc'd */
	struct pmap by_node;                 /* const struct node_info * -> struct own_node * (malloc'd) */
	struct pmap anti_by_node;            /* PreFilter's: node_info -> struct anti_node * (malloc'd) */
	uint64_t used;                       /* round of the last use (LRU) */
	struct ipa_agg *agg;                 /* PreScore's topologyScore kept for these pods (agg_*) */
};

/* What init stores: the count cache of PreFilter and PreScore and the existing-pod sums of both
 * (own_slot; PreFilter and PreScore run on the scheduler thread only, Filter and Score read only
 * the cycle's own maps). */
struct ipa_priv {
	struct fw_count_cache counts;
	struct own_slot own[OWN_SLOTS];
	uint64_t own_round, own_ids;
};

static void own_slot_drop(struct own_slot *s);
static struct own_slot *own_slot_of(struct ipa_priv *p, const struct api_pod *pod, const struct api_labels *ns_labels,
				    uint32_t n_nodes);
static bool has_pod_affinity(const struct api_pod *p);
static void agg_free(struct ipa_agg *a);

static int init(struct fw_pl *pl, struct err *e)
{
	if (!(pl->priv = calloc(1, sizeof(struct ipa_priv))))
		return err_set(e, ERR_NOMEM, NAME ": out of memory");
	return 0;
}

static void release(struct fw_pl *pl)
{
	struct ipa_priv *p = pl->priv;
	if (p) {
		fw_count_cache_release(&p->counts);
		for (size_t i = 0; i < OWN_SLOTS; i++) {
			own_slot_drop(&p->own[i]);
			pmap_release(&p->own[i].by_node);
			pmap_release(&p->own[i].anti_by_node);
		}
	}
	free(p);
	pl->priv = NULL;
}

/* Per-node counts of pods matching a term, or (affinity) all of the terms. */
struct term_counts {
	struct fw_pod_match m;
	struct fw_count_slot *slot; /* NULL: counted each cycle */
};

/* tc for terms t[0..n) (conjunction) over n_nodes nodes; takes their cache slot when they are
 * cacheable. */
static int term_counts_init(const struct fw_pl *pl, struct fw_cycle *c, const struct term *t, uint32_t n,
			    uint32_t n_nodes, struct term_counts *tc)
{
	struct fw_pod_clause *cl = fw_cycle_alloc(c, (n ? n : 1) * sizeof(*cl));
	if (!cl)
		return ERR_NOMEM;
	bool cacheable = pl->priv && n;
	for (uint32_t i = 0; i < n; i++) {
		term_clause(&t[i], &cl[i]);
		cacheable = cacheable && t[i].cacheable;
	}
	*tc = (struct term_counts){ .m = { .c = cl, .n = n } };
	if (cacheable)
		tc->slot = fw_count_cache_slot(&((struct ipa_priv *)pl->priv)->counts, &tc->m, n_nodes);
	return 0;
}

static void term_counts_begin(const struct fw_pl *pl)
{
	if (pl->priv)
		fw_count_cache_begin(&((struct ipa_priv *)pl->priv)->counts);
}

static int merge_terms(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
		       const struct api_pod_affinity *a, bool preferred, struct term **out, uint32_t *n)
{
	*n = 0;
	*out = NULL;
	uint32_t cnt = !a ? 0 : preferred ? a->n_preferred : a->n_required;
	if (!cnt)
		return 0;
	struct term *t = fw_cycle_alloc(c, cnt * sizeof(*t));
	if (!t)
		return ERR_NOMEM;
	for (uint32_t i = 0; i < cnt; i++) {
		int rc = preferred ? merge_term(pl, c, pod, &a->preferred[i].term, a->preferred[i].weight, &t[i])
				   : merge_term(pl, c, pod, &a->required[i], 0, &t[i]);
		if (rc < 0)
			return rc;
	}
	*out = t;
	*n = cnt;
	return 0;
}

/* ---------- Topology-pair counts ---------- */

/* upstream topologyToMatchedTermCount / scoreMap: (topology key, value) -> count. Keys and values
 * are interned (node labels, term keys), so they are compared by pointer, without reading the
 * strings: a handful of topology keys searched linearly, each with a pointer map of its values to
 * their counts (stored in the value slot). */
_Static_assert(sizeof(intptr_t) >= sizeof(int64_t), "a pair's count lives in a pmap value");

struct tp_key {
	const char *key;
	struct pmap vals; /* value -> (intptr_t)count; an entry stays when its sum is 0 */
};

struct tp_map {
	uint32_t n_pairs; /* entries, as upstream's len() */
	uint32_t n_keys, cap_keys;
	struct tp_key *keys; /* malloc'd */
};

static void tp_release(void *arg)
{
	struct tp_map *m = arg;
	for (uint32_t i = 0; i < m->n_keys; i++)
		pmap_release(&m->keys[i].vals);
	free(m->keys);
}

static struct tp_key *tp_key(const struct tp_map *m, const char *key)
{
	for (uint32_t i = 0; i < m->n_keys; i++)
		if (m->keys[i].key == key)
			return &m->keys[i];
	return NULL;
}

static int tp_add(struct tp_map *m, const char *key, const char *value, int64_t delta)
{
	struct tp_key *k = tp_key(m, key);
	if (!k) {
		if (m->n_keys == m->cap_keys) {
			uint32_t cap = m->cap_keys ? m->cap_keys * 2 : 4;
			struct tp_key *keys = realloc(m->keys, cap * sizeof(*keys));
			if (!keys)
				return ERR_NOMEM;
			m->keys = keys;
			m->cap_keys = cap;
		}
		k = &m->keys[m->n_keys++];
		*k = (struct tp_key){ .key = key };
	}
	bool added;
	void **v = pmap_ref(&k->vals, value, &added);
	if (!v)
		return ERR_NOMEM;
	*v = (void *)((intptr_t)*v + (intptr_t)delta);
	m->n_pairs += added;
	return 0;
}

static int64_t tp_get(const struct tp_map *m, const char *key, const char *value)
{
	const struct tp_key *k = m->n_pairs ? tp_key(m, key) : NULL;
	return k ? (int64_t)(intptr_t)pmap_get(&k->vals, value) : 0;
}

/* The count of term key's pair on node n, if n has the key (upstream's update/recordMatch). */
static int tp_record(struct tp_map *m, const struct api_node *n, const char *key, int64_t delta)
{
	const char *v = api_labels_get(&n->meta.labels, key);
	return v ? tp_add(m, key, v, delta) : 0;
}

static struct tp_map *tp_new(struct fw_cycle *c)
{
	struct tp_map *m = fw_cycle_alloc(c, sizeof(*m));
	if (!m || fw_cycle_on_release(c, tp_release, m) < 0)
		return NULL;
	return m;
}

/* ---------- Shared per-pod state ---------- */

static const struct cfg_inter_pod_affinity_args *args_of(const struct fw_pl *pl)
{
	return pl->args;
}

static void ns_unref(void *arg)
{
	api_namespace_unref(arg);
}

/* GetNamespaceLabelsSnapshot: the labels of the pod's namespace, empty when it is unknown. The
 * namespace reference is held until the cycle is released. */
static int ns_labels_of(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			const struct api_labels **out)
{
	*out = &no_labels;
	struct api_namespace *ns = fw_get_namespace(pl, pod->meta.namespace);
	if (!ns)
		return 0;
	if (fw_cycle_on_release(c, ns_unref, ns) < 0) {
		api_namespace_unref(ns);
		return ERR_NOMEM;
	}
	*out = &ns->meta.labels;
	return 0;
}

/* ---------- PreFilter / Filter ---------- */

/* The plugin's cycle-state slot holds PreFilter's state, then PreScore's: each starts with its
 * tag, so that a Score whose PreScore a profile left out finds no state (as upstream's
 * getPreScoreState) instead of PreFilter's. */
enum state_tag { TAG_FILTER = 0x1fa, TAG_SCORE = 0x5c0 };

struct filter_state {
	enum state_tag tag;
	const struct api_labels *ns_labels;
	uint32_t n_aff, n_anti;
	struct term *aff, *anti; /* required, merged */
	struct tp_map *existing_anti; /* existingClusterWideAntiAffinityCounts */
	struct tp_map *aff_counts;    /* clusterWideAffinityCounts */
	struct tp_map *anti_counts;   /* clusterWideAntiAffinityCounts */
	bool self_match;              /* the pod matches all its own affinity terms */
};

static const struct api_pod_affinity_term *req_anti(const struct api_pod *p, uint32_t *n)
{
	const struct api_pod_affinity *a = p->affinity.pod_anti_affinity;
	*n = a ? a->n_required : 0;
	return a ? a->required : NULL;
}

static const struct api_pod_affinity_term *req_aff(const struct api_pod *p, uint32_t *n)
{
	const struct api_pod_affinity *a = p->affinity.pod_affinity;
	*n = a ? a->n_required : 0;
	return a ? a->required : NULL;
}

/* Whether a node of the snapshot has pods with required anti-affinity (affinity = false) or with
 * any pod (anti-)affinity (true): upstream's HavePodsWith*List not empty. */
static bool any_node_with(const struct fw_node_list *nodes, bool affinity)
{
	if (nodes->has_pod_lists)
		return affinity ? nodes->n_with_affinity > 0 : nodes->n_with_required_anti > 0;
	for (uint32_t i = 0; i < nodes->n; i++) {
		const struct node_info *ni = nodes->nodes[i];
		if (ni->node && (affinity ? ni->n_pods_with_affinity : ni->n_pods_with_required_anti_affinity))
			return true;
	}
	return false;
}

/* A node_info's existing pods' required anti-affinity terms matching the incoming pod, summed per
 * topology pair, at a generation (PreFilter's part of an own_slot); n > OWN_KEYS: walk the node. */
struct anti_node {
	uint64_t generation;
	uint32_t n; /* topology keys of the matching terms (pairs[] holds those the node has a label of) */
	uint32_t n_pairs;
	struct {
		const char *key, *value; /* the node's, held while the generation holds */
		int64_t sum;
	} pairs[OWN_KEYS];
};

/* ni's pods' required anti-affinity terms matched against pod into s->existing_anti, from slot o
 * while ni's generation holds (o NULL: walked). The walk sums per topology key before recording:
 * a pair's count is the same as with one update per match, and only tp_get reads these counts. */
static int existing_anti_node(struct filter_state *s, struct own_slot *o, const struct node_info *ni,
			      const struct api_pod *pod)
{
	void **v = o && ni->generation ? pmap_ref(&o->anti_by_node, ni, NULL) : NULL;
	struct anti_node *e = v ? *v : NULL;
	if (e && e->generation == ni->generation && e->n <= OWN_KEYS) {
		for (uint32_t i = 0; i < e->n_pairs; i++)
			if (tp_add(s->existing_anti, e->pairs[i].key, e->pairs[i].value, e->pairs[i].sum) < 0)
				return ERR_NOMEM;
		return 0;
	}
	if (e && e->generation == ni->generation)
		v = NULL; /* too many keys to keep: walked */
	struct anti_node w = { .generation = ni->generation };
	for (uint32_t k = 0; k < ni->n_pods; k++) {
		const struct api_pod *ep = ni->pods[k].pod;
		uint32_t n;
		const struct api_pod_affinity_term *t = req_anti(ep, &n);
		for (uint32_t j = 0; j < n; j++) {
			if (!raw_matches(ep, &t[j], pod, s->ns_labels))
				continue;
			const char *key = t[j].topology_key;
			uint32_t i = 0;
			while (i < w.n && i < OWN_KEYS && w.pairs[i].key != key)
				i++;
			if (i < w.n && i < OWN_KEYS) {
				w.pairs[i].sum++;
			} else if (w.n < OWN_KEYS) {
				w.pairs[w.n].key = key;
				w.pairs[w.n++].sum = 1;
			} else {
				w.n = OWN_KEYS + 1; /* a fifth key and beyond: recorded as matched */
				if (tp_record(s->existing_anti, ni->node, key, 1) < 0)
					return ERR_NOMEM;
			}
		}
	}
	for (uint32_t i = 0; i < w.n && i < OWN_KEYS; i++) {
		const char *value = api_labels_get(&ni->node->meta.labels, w.pairs[i].key);
		if (!value)
			continue; /* no pair on this node (upstream's update skips it) */
		w.pairs[w.n_pairs].key = w.pairs[i].key;
		w.pairs[w.n_pairs].value = value;
		w.pairs[w.n_pairs++].sum = w.pairs[i].sum;
		if (tp_add(s->existing_anti, w.pairs[i].key, value, w.pairs[i].sum) < 0)
			return ERR_NOMEM;
	}
	if (!v || (!e && !(e = *v = malloc(sizeof(*e)))))
		return 0; /* (out of memory: the slot stays NULL, retried next time) */
	*e = w;
	return 0;
}

/* getExistingAntiAffinityCounts over the nodes having pods with required anti-affinity; a node's
 * part is kept across cycles for pods alike (same namespace, labels and namespace labels: all
 * that those terms read of the pod) in their own_slot, while the node_info's generation holds. */
static int existing_anti_counts(const struct fw_pl *pl, struct filter_state *s, const struct fw_node_list *nodes,
				const struct api_pod *pod)
{
	bool l = nodes->has_pod_lists;
	/* (out of memory: o NULL, walked) */
	struct own_slot *o = pl->priv && any_node_with(nodes, false) ? own_slot_of(pl->priv, pod, s->ns_labels, nodes->n)
								     : NULL;
	for (uint32_t i = 0, n = l ? nodes->n_with_required_anti : nodes->n; i < n; i++) {
		const struct node_info *ni = l ? nodes->with_required_anti[i] : nodes->nodes[i];
		if (!ni->n_pods_with_required_anti_affinity || !ni->node)
			continue;
		if (existing_anti_node(s, o, ni, pod) < 0)
			return ERR_NOMEM;
	}
	return 0;
}

/* getIncomingAffinityAntiAffinityCounts over every pod of every node: per node, the pods matching
 * all the affinity terms and those matching each anti-affinity term (cnt: room for n_anti), from
 * the count cache where the node did not change, so the maps see one update per node and term. */
static int incoming_counts(const struct fw_pl *pl, struct fw_cycle *c, struct filter_state *s,
			   const struct fw_node_list *nodes, uint32_t *cnt)
{
	if (!s->n_aff && !s->n_anti)
		return 0;
	struct term_counts *tc = fw_cycle_alloc(c, (1 + s->n_anti) * sizeof(*tc));
	if (!tc)
		return ERR_NOMEM;
	term_counts_begin(pl);
	if (term_counts_init(pl, c, s->aff, s->n_aff, nodes->n, &tc[0]) < 0)
		return ERR_NOMEM;
	for (uint32_t j = 0; j < s->n_anti; j++)
		if (term_counts_init(pl, c, &s->anti[j], 1, nodes->n, &tc[1 + j]) < 0)
			return ERR_NOMEM;
	for (uint32_t i = 0; i < nodes->n; i++) {
		const struct node_info *ni = nodes->nodes[i];
		if (!ni->node || !ni->n_pods)
			continue;
		int64_t n_all = s->n_aff ? fw_count_cache_count(tc[0].slot, &tc[0].m, ni) : 0;
		for (uint32_t j = 0; j < s->n_anti; j++)
			cnt[j] = (uint32_t)fw_count_cache_count(tc[1 + j].slot, &tc[1 + j].m, ni);
		for (uint32_t j = 0; n_all && j < s->n_aff; j++)
			if (tp_record(s->aff_counts, ni->node, s->aff[j].key, n_all) < 0)
				return ERR_NOMEM;
		for (uint32_t j = 0; j < s->n_anti; j++)
			if (cnt[j] && tp_record(s->anti_counts, ni->node, s->anti[j].key, cnt[j]) < 0)
				return ERR_NOMEM;
	}
	return 0;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	const struct fw_node_list *nodes = fw_cycle_nodes(c);
	static const struct fw_node_list none;
	if (!nodes)
		nodes = &none;
	uint32_t n_req_aff, n_req_anti;
	req_aff(pod, &n_req_aff);
	req_anti(pod, &n_req_anti);
	if (!n_req_aff && !n_req_anti && !any_node_with(nodes, false))
		return FW_SKIP; /* what upstream's Skip test finds, without building the state (most pods) */
	struct filter_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s || merge_terms(pl, c, pod, pod->affinity.pod_affinity, false, &s->aff, &s->n_aff) < 0 ||
	    merge_terms(pl, c, pod, pod->affinity.pod_anti_affinity, false, &s->anti, &s->n_anti) < 0 ||
	    ns_labels_of(pl, c, pod, &s->ns_labels) < 0 || !(s->existing_anti = tp_new(c)) ||
	    !(s->aff_counts = tp_new(c)) || !(s->anti_counts = tp_new(c)))
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	uint32_t *cnt = s->n_anti ? fw_cycle_alloc(c, s->n_anti * sizeof(*cnt)) : NULL;
	if ((s->n_anti && !cnt) || existing_anti_counts(pl, s, nodes, pod) < 0 || incoming_counts(pl, c, s, nodes, cnt) < 0)
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	if (!s->existing_anti->n_pairs && !s->n_aff && !s->n_anti)
		return FW_SKIP;
	s->tag = TAG_FILTER;
	s->self_match = matches_all(s->aff, s->n_aff, pod);
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

/* The nominated pods of the Filter pass that adds them: those of the node now in ni. */
static bool is_added_nominated(const struct node_info *ni, const struct api_pod *p)
{
	int32_t i = node_info_pod_index(ni, p->meta.uid);
	return i >= 0 && ni->pods[i].pod == p;
}

/* nodeTopologyMatchesAffinity (gate off), plus AddPod's +1 of each added nominated pod matching
 * all the terms (the pairs of this node, which has every key when it is counted). */
static bool affinity_ok(const struct filter_state *s, const struct api_node *node, const struct api_pod *const *nom,
			uint32_t n_nom)
{
	if (!s->n_aff)
		return true;
	int64_t added = 0;
	for (uint32_t i = 0; i < n_nom; i++)
		if (matches_all(s->aff, s->n_aff, nom[i]))
			added++;
	bool pods_exist = true;
	for (uint32_t i = 0; i < s->n_aff; i++) {
		const char *v = api_labels_get(&node->meta.labels, s->aff[i].key);
		if (!v)
			return false; /* every topology label must exist, also for self-affinity */
		if (tp_get(s->aff_counts, s->aff[i].key, v) + added <= 0)
			pods_exist = false;
	}
	if (pods_exist)
		return true;
	/* the first pod of a group with affinity to itself */
	return !s->aff_counts->n_pairs && !added && s->self_match;
}

/* satisfyPodAntiAffinity (gate off) with the added nominated pods. */
static bool anti_ok(const struct filter_state *s, const struct api_node *node, const struct api_pod *const *nom,
		    uint32_t n_nom)
{
	for (uint32_t i = 0; i < s->n_anti; i++) {
		const char *v = api_labels_get(&node->meta.labels, s->anti[i].key);
		if (!v)
			continue;
		if (tp_get(s->anti_counts, s->anti[i].key, v) > 0)
			return false;
		for (uint32_t k = 0; k < n_nom; k++)
			if (term_matches(&s->anti[i], nom[k], NULL))
				return false;
	}
	return true;
}

/* satisfyExistingPodsAntiAffinity with the added nominated pods' required anti-affinity. */
static bool existing_anti_ok(const struct filter_state *s, const struct api_node *node, const struct api_pod *pod,
			     const struct api_pod *const *nom, uint32_t n_nom)
{
	const struct api_labels *l = &node->meta.labels;
	if (s->existing_anti->n_pairs)
		for (uint32_t i = 0; i < l->n; i++)
			if (tp_get(s->existing_anti, l->items[i].key, l->items[i].value) > 0)
				return false;
	for (uint32_t k = 0; k < n_nom; k++) {
		uint32_t n;
		const struct api_pod_affinity_term *t = req_anti(nom[k], &n);
		for (uint32_t j = 0; j < n; j++)
			if (api_labels_get(l, t[j].topology_key) && raw_matches(nom[k], &t[j], pod, s->ns_labels))
				return false;
	}
	return true;
}

/* ---------- Filter during preemption's dry run ----------
 *
 * ni is a copy of a snapshot node with victims removed (and maybe nominated pods appended):
 * upstream's RemovePod (and AddPod) updateWithPod with multiplier -1 (+1) per pod. Every pair it
 * changes is (key, the node's value of key); a pair whose count reaches 0 is deleted. */

/* The signed number of times updateWithPod adds to the pairs of this node for term (key) i of
 * the filtered pod's affinity (aff) or anti-affinity terms, over the removed (-1) and added
 * nominated (+1) pods. */
struct ipa_delta {
	const struct fw_cycle *c;
	const struct node_info *ni;
	const struct api_pod *const *added;
	uint32_t n_added;
};

/* Calls fn(arg, p, mult) for each removed (-1) and added (+1) pod. */
static void delta_each(const struct ipa_delta *x, void (*fn)(void *arg, const struct api_pod *p, int64_t mult),
		       void *arg)
{
	uint32_t it = 0;
	for (const struct api_pod *r; (r = fw_removed_pod_next(x->c, x->ni, &it));)
		fn(arg, r, -1);
	for (uint32_t i = 0; i < x->n_added; i++)
		fn(arg, x->added[i], 1);
}

struct sum_ctx {
	const struct filter_state *s;
	const struct api_pod *pod;
	const char *key;
	uint32_t term; /* anti term index */
	int64_t n;
};

static void sum_all_aff(void *arg, const struct api_pod *p, int64_t mult)
{
	struct sum_ctx *x = arg;
	if (matches_all(x->s->aff, x->s->n_aff, p))
		x->n += mult;
}

static void sum_anti(void *arg, const struct api_pod *p, int64_t mult)
{
	struct sum_ctx *x = arg;
	for (uint32_t j = 0; j < x->s->n_anti; j++)
		if (x->s->anti[j].key == x->key && term_matches(&x->s->anti[j], p, NULL))
			x->n += mult;
}

static void sum_existing(void *arg, const struct api_pod *p, int64_t mult)
{
	struct sum_ctx *x = arg;
	uint32_t n;
	const struct api_pod_affinity_term *t = req_anti(p, &n);
	for (uint32_t j = 0; j < n; j++)
		if (t[j].topology_key == x->key && raw_matches(p, &t[j], x->pod, x->s->ns_labels))
			x->n += mult;
}

static uint32_t terms_with_key(const struct term *t, uint32_t n, const char *key)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		k += t[i].key == key;
	return k;
}

static enum fw_code filter_changed(const struct filter_state *s, const struct ipa_delta *x, const struct api_pod *pod,
				   struct fw_status *st)
{
	const struct api_labels *l = &x->ni->node->meta.labels;
	if (s->n_aff) {
		struct sum_ctx sc = { .s = s };
		delta_each(x, sum_all_aff, &sc);
		bool pods_exist = true;
		int64_t pairs = s->aff_counts->n_pairs;
		for (uint32_t i = 0; i < s->n_aff; i++) {
			const char *key = s->aff[i].key, *v = api_labels_get(l, key);
			if (!v)
				return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_AFFINITY);
			int64_t before = tp_get(s->aff_counts, key, v);
			int64_t after = before + sc.n * terms_with_key(s->aff, s->n_aff, key);
			if (after <= 0)
				pods_exist = false;
			if (terms_with_key(s->aff, i, key)) /* this pair was counted at an earlier term */
				continue;
			pairs += (before == 0 && after != 0) - (before != 0 && after == 0);
		}
		if (!pods_exist && !(pairs == 0 && s->self_match))
			return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_AFFINITY);
	}
	for (uint32_t i = 0; i < s->n_anti; i++) {
		const char *v = api_labels_get(l, s->anti[i].key);
		if (!v)
			continue;
		struct sum_ctx sc = { .s = s, .key = s->anti[i].key };
		delta_each(x, sum_anti, &sc);
		if (tp_get(s->anti_counts, sc.key, v) + sc.n > 0)
			return fw_status_set(st, FW_UNSCHEDULABLE, REASON_ANTI);
	}
	for (uint32_t i = 0; i < l->n; i++) {
		struct sum_ctx sc = { .s = s, .pod = pod, .key = l->items[i].key };
		delta_each(x, sum_existing, &sc);
		if (tp_get(s->existing_anti, sc.key, l->items[i].value) + sc.n > 0)
			return fw_status_set(st, FW_UNSCHEDULABLE, REASON_EXISTING_ANTI);
	}
	return FW_SUCCESS;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	const struct filter_state *s = fw_cycle_state(c, pl);
	if (!s || s->tag != TAG_FILTER)
		return fw_status_set(st, FW_ERROR,
				     "error reading \"PreFilter" NAME "\" from cycleState: not found");
	if (!ni->node)
		return fw_status_set(st, FW_ERROR, "node not found");
	/* the nominated pods this pass added to the node (at most a handful) */
	uint32_t n_nom = 0, n_added = 0;
	const struct api_pod *const *nom = fw_cycle_nominated_pods(c, ni->name, &n_nom);
	const struct api_pod *added[16];
	const struct api_pod **addedp = added;
	if (n_nom > ARRAY_SIZE(added) && !(addedp = malloc(n_nom * sizeof(*addedp))))
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	for (uint32_t i = 0; i < n_nom; i++)
		if (is_added_nominated(ni, nom[i]))
			addedp[n_added++] = nom[i];
	enum fw_code code = FW_SUCCESS;
	uint32_t it = 0;
	if (fw_removed_pod_next(c, ni, &it))
		code = filter_changed(s, &(struct ipa_delta){ c, ni, addedp, n_added }, pod, st);
	else if (!affinity_ok(s, ni->node, addedp, n_added))
		code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_AFFINITY);
	else if (!anti_ok(s, ni->node, addedp, n_added))
		code = fw_status_set(st, FW_UNSCHEDULABLE, REASON_ANTI);
	else if (!existing_anti_ok(s, ni->node, pod, addedp, n_added))
		code = fw_status_set(st, FW_UNSCHEDULABLE, REASON_EXISTING_ANTI);
	if (addedp != added)
		free(addedp);
	return code;
}

/* ---------- PreScore / Score ---------- */

struct score_state {
	enum state_tag tag;
	struct tp_map *m; /* topologyScore */
};

struct score_ctx {
	const struct fw_pl *pl;
	const struct api_pod *pod;
	const struct api_labels *ns_labels;
	uint32_t n_pref_aff, n_pref_anti;
	struct term *pref_aff, *pref_anti;
	int32_t hard_weight;
	struct tp_map *m;
	int64_t *acc; /* per incoming term (affinity, then anti-affinity): matches on the current node */
	/* the existing pods' matching terms on the current node, summed per topology key (the node has
	 * one value per key, so one pair each) and recorded by flush_node */
	uint32_t n_own;
	struct {
		const char *key;
		int64_t sum;
	} own[16];
};

/* processTerm: term matching p adds weight * mult to the pair of its key on node. */
static int add_if(struct score_ctx *x, bool match, const struct api_node *node, const char *key, int64_t w)
{
	if (!match)
		return 0;
	uint32_t i = 0;
	while (i < x->n_own && x->own[i].key != key)
		i++;
	if (i < x->n_own) {
		x->own[i].sum += w;
		return 0;
	}
	if (x->n_own == ARRAY_SIZE(x->own))
		return tp_record(x->m, node, key, w);
	x->own[x->n_own].key = key;
	x->own[x->n_own++].sum = w;
	return 0;
}

/* processExistingPod: ep's own terms against the incoming pod (the incoming pod's terms against ep
 * are counted per node: pre_score, flush_node) */
static int process_existing(struct score_ctx *x, const struct api_pod *ep, const struct api_node *node)
{
	if (!node->meta.labels.n)
		return 0;
	const struct api_pod_affinity *a = ep->affinity.pod_affinity, *na = ep->affinity.pod_anti_affinity;
	if (x->hard_weight > 0 && a)
		for (uint32_t i = 0; i < a->n_required; i++)
			if (add_if(x, raw_matches(ep, &a->required[i], x->pod, x->ns_labels), node,
				   a->required[i].topology_key, x->hard_weight) < 0)
				return ERR_NOMEM;
	if (a)
		for (uint32_t i = 0; i < a->n_preferred; i++)
			if (add_if(x, raw_matches(ep, &a->preferred[i].term, x->pod, x->ns_labels), node,
				   a->preferred[i].term.topology_key, a->preferred[i].weight) < 0)
				return ERR_NOMEM;
	if (na)
		for (uint32_t i = 0; i < na->n_preferred; i++)
			if (add_if(x, raw_matches(ep, &na->preferred[i].term, x->pod, x->ns_labels), node,
				   na->preferred[i].term.topology_key, -(int64_t)na->preferred[i].weight) < 0)
				return ERR_NOMEM;
	return 0;
}

/* The incoming pod's preferred terms matched on node: weight (negative for anti-affinity) times
 * the matches, in one update per term; then the existing pods' sums per key; resets both. */
static int flush_node(struct score_ctx *x, const struct api_node *node)
{
	for (uint32_t i = 0; i < x->n_pref_aff + x->n_pref_anti; i++) {
		if (!x->acc[i])
			continue;
		bool anti = i >= x->n_pref_aff;
		const struct term *t = anti ? &x->pref_anti[i - x->n_pref_aff] : &x->pref_aff[i];
		int64_t w = (anti ? -(int64_t)t->weight : t->weight) * x->acc[i];
		x->acc[i] = 0;
		if (tp_record(x->m, node, t->key, w) < 0)
			return ERR_NOMEM;
	}
	/* (a sum of 0 still records its pair, as the single updates would have) */
	for (uint32_t i = 0; i < x->n_own; i++)
		if (tp_record(x->m, node, x->own[i].key, x->own[i].sum) < 0)
			return ERR_NOMEM;
	x->n_own = 0;
	return 0;
}

/* ---------- The existing pods' sums per node, kept across cycles ---------- */

/* A node_info's sums (score_ctx.own) at a generation; n > OWN_KEYS: walk the node. */
struct own_node {
	uint64_t generation;
	uint32_t n;
	struct {
		const char *key;
		int64_t sum;
	} own[OWN_KEYS];
};

static void labels_strings(const struct api_labels *l, void (*fn)(const char *))
{
	for (uint32_t i = 0; i < l->n; i++) {
		fn(l->items[i].key);
		fn(l->items[i].value);
	}
}

static void own_ref(const char *s)
{
	intern_ref(s);
}

static bool labels_eq(const struct api_labels *a, const struct api_labels *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->items, b->items, a->n * sizeof(*a->items)));
}

static int labels_copy(struct api_labels *dst, const struct api_labels *src)
{
	*dst = (struct api_labels){ 0 };
	if (!src->n)
		return 0;
	if (!(dst->items = malloc(src->n * sizeof(*dst->items))))
		return ERR_NOMEM;
	memcpy(dst->items, src->items, src->n * sizeof(*dst->items));
	dst->n = src->n;
	labels_strings(dst, own_ref);
	return 0;
}

static void own_slot_clear(struct own_slot *s)
{
	const void *k;
	void *v;
	for (size_t it = 0; pmap_next(&s->by_node, &it, &k, &v);)
		free(v);
	pmap_clear(&s->by_node);
	for (size_t it = 0; pmap_next(&s->anti_by_node, &it, &k, &v);)
		free(v);
	pmap_clear(&s->anti_by_node);
}

static void own_slot_drop(struct own_slot *s)
{
	own_slot_clear(s);
	agg_free(s->agg);
	s->agg = NULL;
	if (!s->used_key)
		return;
	intern_release(s->ns);
	labels_strings(&s->labels, intern_release);
	labels_strings(&s->ns_labels, intern_release);
	free(s->labels.items);
	free(s->ns_labels.items);
	s->used_key = false;
}

/* The slot for pod (with its namespace's labels ns_labels) over n_nodes nodes; NULL when out of
 * memory. PreFilter and PreScore of one pod share it. */
static struct own_slot *own_slot_of(struct ipa_priv *p, const struct api_pod *pod, const struct api_labels *ns_labels,
				    uint32_t n_nodes)
{
	const struct api_labels *labels = &pod->meta.labels;
	struct own_slot *s = NULL, *lru = NULL;
	p->own_round++;
	for (size_t i = 0; i < OWN_SLOTS && !s; i++) {
		struct own_slot *o = &p->own[i];
		if (o->used_key && o->ns == pod->meta.namespace && labels_eq(&o->labels, labels) &&
		    labels_eq(&o->ns_labels, ns_labels))
			s = o;
		else if (!lru || o->used < lru->used)
			lru = o;
	}
	if (!s) {
		s = lru;
		own_slot_drop(s);
		if (labels_copy(&s->labels, labels) < 0)
			return NULL;
		if (labels_copy(&s->ns_labels, ns_labels) < 0) {
			labels_strings(&s->labels, intern_release);
			free(s->labels.items);
			return NULL;
		}
		s->ns = pod->meta.namespace;
		intern_ref(s->ns);
		s->used_key = true;
		s->id = ++p->own_ids;
	} else if (pmap_len(&s->by_node) > 2 * (size_t)n_nodes + 64 ||
		   pmap_len(&s->anti_by_node) > 2 * (size_t)n_nodes + 64) {
		own_slot_clear(s); /* entries of node_infos gone from the snapshot */
	}
	s->used = p->own_round;
	return s;
}

/* processExistingPod for every pod of ni with pod affinity, into x->own (recorded by flush_node);
 * from slot s while ni's generation holds (s NULL: walked). */
static int process_node(struct score_ctx *x, struct own_slot *s, const struct node_info *ni)
{
	void **v = s && ni->generation ? pmap_ref(&s->by_node, ni, NULL) : NULL;
	struct own_node *e = v ? *v : NULL;
	if (e && e->generation == ni->generation && e->n <= OWN_KEYS) {
		for (uint32_t i = 0; i < e->n; i++) {
			x->own[i].key = e->own[i].key;
			x->own[i].sum = e->own[i].sum;
		}
		x->n_own = e->n;
		return 0;
	}
	if (e && e->generation == ni->generation)
		v = NULL; /* too many keys to keep: walked */
	for (uint32_t k = 0; k < ni->n_pods; k++) {
		const struct api_pod *ep = ni->pods[k].pod;
		if (has_pod_affinity(ep) && process_existing(x, ep, ni->node) < 0)
			return ERR_NOMEM;
	}
	if (!v || (!e && !(e = *v = malloc(sizeof(*e)))))
		return 0; /* (out of memory: the slot stays NULL, retried next time) */
	e->generation = ni->generation;
	e->n = x->n_own;
	for (uint32_t i = 0; i < x->n_own && i < OWN_KEYS; i++) {
		e->own[i].key = x->own[i].key;
		e->own[i].sum = x->own[i].sum;
	}
	return 0;
}

/* ---------- PreScore's topologyScore kept across cycles ----------
 *
 * What a node adds to topologyScore (its records: the incoming pod's preferred terms times their
 * matches there, the existing pods' sums per key) depends only on the node_info's content (its
 * generation), the incoming terms' predicates (their count cache slots) and what the existing
 * pods' terms read of the incoming pod (its own_slot). For consecutive pods alike in those, the
 * sums are kept: each node-list position's records, subtracted and recounted when the position
 * holds another node_info or generation, and the number of records per pair (a pair exists while
 * one records it, as upstream's map entries). The map is only changed by PreScore on the scheduler
 * thread; Score and NormalizeScore of the same cycle read it after, and no cycle reads it after
 * the next PreScore. */
#define AGG_RECS 6 /* a node with more records is walked every cycle (its cycle takes the walk) */

struct agg_term {
	const struct fw_count_slot *slot;
	uint64_t slot_id;
	const char *key; /* referenced */
	int64_t w;       /* the weight, negative for anti-affinity */
};

struct agg_rec {
	const char *key, *value;
	int64_t delta;
};

struct agg_pos {
	const struct node_info *ni; /* NULL: nothing recorded here */
	uint64_t generation;
	uint32_t n;
	struct agg_rec rec[AGG_RECS];
};

struct ipa_agg {
	/* identity */
	const struct own_slot *own;
	uint64_t own_id;
	uint32_t n_terms;
	struct agg_term *terms; /* malloc'd */
	/* content */
	uint32_t n_pos;
	struct agg_pos *pos; /* malloc'd */
	struct tp_map m;     /* the sums (pairs whose records are gone stay at 0) */
	struct tp_map refs;  /* records per pair */
	uint32_t live;       /* pairs with records */
};

static void agg_clear_maps(struct ipa_agg *a)
{
	tp_release(&a->m);
	tp_release(&a->refs);
	a->m = (struct tp_map){ 0 };
	a->refs = (struct tp_map){ 0 };
	a->live = 0;
}

static void agg_free(struct ipa_agg *a)
{
	if (!a)
		return;
	agg_clear_maps(a);
	for (uint32_t i = 0; i < a->n_terms; i++)
		intern_release(a->terms[i].key);
	free(a->terms);
	free(a->pos);
	free(a);
}

/* The incoming pod's preferred term i of x (affinity, then anti-affinity) and its signed weight. */
static const struct term *pref_term(const struct score_ctx *x, uint32_t i, int64_t *w)
{
	bool anti = i >= x->n_pref_aff;
	const struct term *t = anti ? &x->pref_anti[i - x->n_pref_aff] : &x->pref_aff[i];
	*w = anti ? -(int64_t)t->weight : t->weight;
	return t;
}

static bool agg_is(const struct ipa_agg *a, const struct own_slot *own, const struct score_ctx *x,
		   const struct term_counts *tc, uint32_t n_pref)
{
	if (a->own != own || a->own_id != own->id || a->n_terms != n_pref)
		return false;
	for (uint32_t i = 0; i < n_pref; i++) {
		int64_t w;
		const struct term *t = pref_term(x, i, &w);
		const struct agg_term *g = &a->terms[i];
		if (g->slot != tc[i].slot || g->slot_id != tc[i].slot->id || g->key != t->key || g->w != w)
			return false;
	}
	return true;
}

/* own's aggregate for the incoming terms, emptied when they changed (each own_slot keeps one, so
 * that pods of a few kinds in turn keep theirs); NULL when a term is counted without the cache
 * (its counts are not kept) or out of memory. */
static struct ipa_agg *agg_of(struct own_slot *own, const struct score_ctx *x, const struct term_counts *tc,
			      uint32_t n_pref)
{
	for (uint32_t i = 0; i < n_pref; i++)
		if (!tc[i].slot)
			return NULL;
	if (own->agg && agg_is(own->agg, own, x, tc, n_pref))
		return own->agg;
	agg_free(own->agg);
	struct ipa_agg *a = own->agg = calloc(1, sizeof(*a));
	if (!a || !(a->terms = calloc(n_pref ? n_pref : 1, sizeof(*a->terms)))) {
		free(a);
		own->agg = NULL;
		return NULL;
	}
	a->own = own;
	a->own_id = own->id;
	a->n_terms = n_pref;
	for (uint32_t i = 0; i < n_pref; i++) {
		int64_t w;
		const struct term *t = pref_term(x, i, &w);
		a->terms[i] = (struct agg_term){ tc[i].slot, tc[i].slot->id, t->key, w };
		intern_ref(t->key);
	}
	return a;
}

/* Adds delta to the pair and dref to its records (keeping live). */
static int agg_add(struct ipa_agg *a, const struct agg_rec *r, int64_t sign)
{
	if (tp_add(&a->m, r->key, r->value, sign * r->delta) < 0 || tp_add(&a->refs, r->key, r->value, sign) < 0)
		return ERR_NOMEM;
	int64_t refs = tp_get(&a->refs, r->key, r->value);
	if (sign > 0 && refs == 1)
		a->live++;
	else if (sign < 0 && !refs)
		a->live--;
	return 0;
}

/* ni's records (what flush_node would record) into p; x's per-node accumulators are left reset.
 * ERR_NOMEM, or 1 when they do not fit (too many keys or records). */
static int agg_records(struct score_ctx *x, struct own_slot *own, const struct term_counts *tc, uint32_t n_pref,
		       const struct node_info *ni, struct agg_pos *p)
{
	int rc = 0;
	p->n = 0;
	if (!ni->node || !ni->node->meta.labels.n)
		return 0;
	for (uint32_t j = 0; ni->n_pods && j < n_pref; j++)
		x->acc[j] = fw_count_cache_count(tc[j].slot, &tc[j].m, ni);
	if (ni->n_pods_with_affinity && (rc = process_node(x, own, ni)) < 0)
		goto out;
	if (x->n_own > OWN_KEYS) {
		rc = 1;
		goto out;
	}
	const struct api_labels *l = &ni->node->meta.labels;
	for (uint32_t j = 0; j < n_pref + x->n_own; j++) {
		struct agg_rec r;
		if (j < n_pref) {
			if (!x->acc[j])
				continue;
			int64_t w;
			const struct term *t = pref_term(x, j, &w);
			r = (struct agg_rec){ t->key, NULL, w * x->acc[j] };
		} else {
			r = (struct agg_rec){ x->own[j - n_pref].key, NULL, x->own[j - n_pref].sum };
		}
		if (!(r.value = api_labels_get(l, r.key)))
			continue;
		if (p->n == AGG_RECS) {
			rc = 1;
			goto out;
		}
		p->rec[p->n++] = r;
	}
out:
	for (uint32_t j = 0; j < n_pref; j++)
		x->acc[j] = 0;
	x->n_own = 0;
	if (rc)
		p->n = 0;
	return rc;
}

/* Brings a up to date with nodes. 0, ERR_NOMEM, or 1 when a node's records do not fit (then walk
 * this cycle: a stays consistent, that node recounted next time). */
static int agg_update(struct ipa_agg *a, struct score_ctx *x, struct own_slot *own, const struct term_counts *tc,
		      uint32_t n_pref, const struct fw_node_list *nodes)
{
	uint32_t n = nodes ? nodes->n : 0;
	/* another list length, or pairs of node_infos long gone piling up: count every node anew */
	if (n != a->n_pos || a->m.n_pairs > 2 * (uint64_t)n + 64) {
		agg_clear_maps(a);
		free(a->pos);
		a->n_pos = 0;
		if (!(a->pos = calloc(n ? n : 1, sizeof(*a->pos))))
			return ERR_NOMEM;
		a->n_pos = n;
	}
	for (uint32_t k = 0; k < n; k++) {
		const struct node_info *ni = nodes->nodes[k];
		struct agg_pos *p = &a->pos[k];
		if (p->ni == ni && p->generation == ni->generation && ni->generation)
			continue;
		for (uint32_t i = 0; i < p->n; i++)
			if (agg_add(a, &p->rec[i], -1) < 0)
				goto nomem;
		p->ni = NULL;
		int rc = agg_records(x, own, tc, n_pref, ni, p);
		if (rc)
			return rc;
		for (uint32_t i = 0; i < p->n; i++)
			if (agg_add(a, &p->rec[i], 1) < 0)
				goto nomem;
		p->ni = ni;
		p->generation = ni->generation;
	}
	return 0;
nomem:
	/* the sums may no longer add up: start over next time */
	a->n_pos = UINT32_MAX;
	return ERR_NOMEM;
}

static bool has_pod_affinity(const struct api_pod *p)
{
	return p->affinity.pod_affinity || p->affinity.pod_anti_affinity;
}

static enum fw_code pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			      const struct node_info *const *filtered, uint32_t n_filtered, struct fw_status *st)
{
	(void)filtered;
	(void)n_filtered;
	const struct cfg_inter_pod_affinity_args *a = args_of(pl);
	const struct api_pod_affinity *pa = pod->affinity.pod_affinity, *paa = pod->affinity.pod_anti_affinity;
	bool has_constraints = (pa && pa->n_preferred) || (paa && paa->n_preferred);
	if (a && a->ignore_preferred_terms_of_existing_pods && !has_constraints)
		return FW_SKIP;
	const struct fw_node_list *nodes = fw_cycle_nodes(c);
	if (!has_constraints && (!nodes || !any_node_with(nodes, true)))
		return FW_SKIP; /* no pod to process: upstream's Skip, without building the state */
	struct score_ctx x = { .pl = pl, .pod = pod, .hard_weight = a ? a->hard_pod_affinity_weight : 1 };
	struct score_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s || merge_terms(pl, c, pod, pa, true, &x.pref_aff, &x.n_pref_aff) < 0 ||
	    merge_terms(pl, c, pod, paa, true, &x.pref_anti, &x.n_pref_anti) < 0 ||
	    ns_labels_of(pl, c, pod, &x.ns_labels) < 0 || !(x.m = s->m = tp_new(c)) ||
	    !(x.acc = fw_cycle_alloc(c, (x.n_pref_aff + x.n_pref_anti + 1) * sizeof(*x.acc))))
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	/* the incoming pod's preferred terms: their matching pods per node, from the count cache */
	uint32_t n_pref = x.n_pref_aff + x.n_pref_anti;
	struct term_counts *tc = n_pref ? fw_cycle_alloc(c, n_pref * sizeof(*tc)) : NULL;
	if (n_pref && !tc)
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	term_counts_begin(pl);
	for (uint32_t i = 0; i < n_pref; i++) {
		const struct term *t = i < x.n_pref_aff ? &x.pref_aff[i] : &x.pref_anti[i - x.n_pref_aff];
		if (term_counts_init(pl, c, t, 1, nodes ? nodes->n : 0, &tc[i]) < 0)
			return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	}
	/* the existing pods' sums of the nodes whose generation did not move: kept (own_slot_of) */
	struct own_slot *own = pl->priv ? own_slot_of(pl->priv, pod, x.ns_labels, nodes ? nodes->n : 0) : NULL;
	/* topologyScore kept across cycles for pods alike (agg_update); else the walk */
	struct ipa_agg *agg = own ? agg_of(own, &x, tc, n_pref) : NULL;
	int arc = agg ? agg_update(agg, &x, own, tc, n_pref, nodes) : 1;
	if (arc < 0)
		return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	if (!arc) {
		if (!agg->live)
			return FW_SKIP;
		s->m = &agg->m;
		s->tag = TAG_SCORE;
		fw_cycle_set_state(c, pl, s);
		return FW_SUCCESS;
	}
	/* every node of the snapshot (not only the filtered ones), as upstream's shared lister; without
	 * preferred terms of its own only the pods with affinity can score the pod */
	bool l = !has_constraints && nodes && nodes->has_pod_lists;
	for (uint32_t i = 0, n = !nodes ? 0 : l ? nodes->n_with_affinity : nodes->n; i < n; i++) {
		const struct node_info *ni = l ? nodes->with_affinity[i] : nodes->nodes[i];
		if (!ni->node || (!has_constraints && !ni->n_pods_with_affinity))
			continue;
		/* (a node without labels has no pair to add to) */
		for (uint32_t j = 0; ni->node->meta.labels.n && ni->n_pods && j < n_pref; j++)
			x.acc[j] = fw_count_cache_count(tc[j].slot, &tc[j].m, ni);
		if (ni->n_pods_with_affinity && ni->node->meta.labels.n && process_node(&x, own, ni) < 0)
			return fw_status_set(st, FW_ERROR, NAME ": out of memory");
		if (flush_node(&x, ni->node) < 0)
			return fw_status_set(st, FW_ERROR, NAME ": out of memory");
	}
	if (!s->m->n_pairs)
		return FW_SKIP;
	s->tag = TAG_SCORE;
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	const struct score_state *s = fw_cycle_state(c, pl);
	*out = 0;
	if (!s || s->tag != TAG_SCORE)
		return fw_status_set(st, FW_ERROR, "failed to read \"PreScore" NAME "\" from cycleState: not found");
	if (!ni->node)
		return FW_SUCCESS;
	int64_t sum = 0;
	for (uint32_t i = 0; i < s->m->n_keys; i++) {
		const char *v = api_labels_get(&ni->node->meta.labels, s->m->keys[i].key);
		if (v)
			sum += (int64_t)(intptr_t)pmap_get(&s->m->keys[i].vals, v);
	}
	*out = sum;
	return FW_SUCCESS;
}

/* upstream NormalizeScore: min-max scaled to 0..100 (all equal -> 0). */
static enum fw_code normalize(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			      struct fw_node_score *scores, uint32_t n, struct fw_status *st)
{
	(void)pod;
	const struct score_state *s = fw_cycle_state(c, pl);
	if (!s || s->tag != TAG_SCORE)
		return fw_status_set(st, FW_ERROR, "failed to read \"PreScore" NAME "\" from cycleState: not found");
	if (!s->m->n_keys)
		return FW_SUCCESS;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		if (scores[i].score > hi)
			hi = scores[i].score;
		if (scores[i].score < lo)
			lo = scores[i].score;
	}
	int64_t diff = hi - lo;
	for (uint32_t i = 0; i < n; i++) {
		double f = 0;
		if (diff > 0)
			f = (double)FW_MAX_NODE_SCORE * ((double)(scores[i].score - lo) / (double)diff);
		scores[i].score = (int64_t)f;
	}
	return FW_SUCCESS;
}

/* ---------- Queueing hints (upstream plugin.go) ---------- */

static bool unscheduled(const struct api_pod *p)
{
	return !(p->node_name && p->node_name[0]) && !(p->nominated_node_name && p->nominated_node_name[0]);
}

/* isSchedulableAfterAssignedPodChange */
static enum queue_hint assigned_pod_change(const void *plugin, const struct api_pod *pod, const void *old_obj,
					   const void *new_obj)
{
	(void)plugin;
	const struct api_pod *op = old_obj, *np = new_obj;
	if ((np && unscheduled(np)) || (op && unscheduled(op)))
		return QUEUE_HINT_SKIP;
	uint32_t n_aff, n_anti;
	const struct api_pod_affinity_term *aff = req_aff(pod, &n_aff), *anti = req_anti(pod, &n_anti);
	if (np && op) {
		if (!raw_matches_all(pod, aff, n_aff, op) && raw_matches_all(pod, aff, n_aff, np))
			return QUEUE_HINT_QUEUE;
		if (raw_matches_any(pod, anti, n_anti, op) && !raw_matches_any(pod, anti, n_anti, np))
			return QUEUE_HINT_QUEUE;
		return QUEUE_HINT_SKIP;
	}
	if (np)
		return raw_matches_all(pod, aff, n_aff, np) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
	if (!op)
		return QUEUE_HINT_QUEUE;
	if (raw_matches_any(pod, anti, n_anti, op))
		return QUEUE_HINT_QUEUE;
	uint32_t n_oanti;
	const struct api_pod_affinity_term *oanti = req_anti(op, &n_oanti);
	return raw_matches_any(op, oanti, n_oanti, pod) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

/* isSchedulableAfterTargetPodUpdateLabel: always Queue */
static enum queue_hint target_pod_label(const void *plugin, const struct api_pod *pod, const void *old_obj,
					const void *new_obj)
{
	(void)plugin;
	(void)pod;
	(void)old_obj;
	(void)new_obj;
	return QUEUE_HINT_QUEUE;
}

/* isSchedulableAfterNodeChange */
static enum queue_hint node_change(const void *plugin, const struct api_pod *pod, const void *old_obj,
				   const void *new_obj)
{
	(void)plugin;
	const struct api_node *on = old_obj, *nn = new_obj;
	if (!nn)
		return QUEUE_HINT_QUEUE;
	uint32_t n_aff, n_anti;
	const struct api_pod_affinity_term *aff = req_aff(pod, &n_aff), *anti = req_anti(pod, &n_anti);
	for (uint32_t i = 0; i < n_aff; i++) {
		const char *nv = api_labels_get(&nn->meta.labels, aff[i].topology_key);
		if (!on) {
			if (nv)
				return QUEUE_HINT_QUEUE;
			continue;
		}
		const char *ov = api_labels_get(&on->meta.labels, aff[i].topology_key);
		if (!ov && nv)
			return QUEUE_HINT_QUEUE;
		if (ov && nv && ov != nv)
			return QUEUE_HINT_QUEUE;
	}
	for (uint32_t i = 0; i < n_anti; i++) {
		if (!on)
			return QUEUE_HINT_QUEUE;
		const char *nv = api_labels_get(&nn->meta.labels, anti[i].topology_key);
		const char *ov = api_labels_get(&on->meta.labels, anti[i].topology_key);
		if (ov && !nv)
			return QUEUE_HINT_QUEUE;
		if (ov && nv && ov != nv)
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_ASSIGNED_POD,
	    .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_POD_LABEL | QUEUE_ACT_DELETE },
	  assigned_pod_change },
	{ { .resource = QUEUE_RES_TARGET_POD, .actions = QUEUE_ACT_UPDATE_POD_LABEL }, target_pod_label },
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL }, node_change },
};

const struct fw_plugin fw_plugin_inter_pod_affinity = {
	.name = NAME,
	.args_kind = CFG_ARGS_INTER_POD_AFFINITY,
	.init = init,
	.release = release,
	.pre_filter = pre_filter,
	.filter = filter,
	.pre_score = pre_score,
	.score = score,
	.normalize_score = normalize,
	FW_EVENTS(events),
};
