/* PodTopologySpread (PreFilter, Filter, PreScore, Score, NormalizeScore): the pod's
 * topologySpreadConstraints or, when it has none, the profile's default constraints (upstream
 * framework/plugins/podtopologyspread, v1.37.2, with NodeInclusionPolicyInPodTopologySpread and
 * MatchLabelKeysInPodTopologySpread on, InPlacePodVerticalScalingSchedulerPreemption off).
 *
 * PreFilter counts the matching pods per topology value of each DoNotSchedule constraint over
 * every node and keeps the two smallest counts (upstream's critical paths), so Filter is a map
 * lookup per constraint. PreScore does the same for the ScheduleAnyway constraints and computes
 * every filtered node's raw score, so Score is one lookup. A node's count of matching pods is kept
 * across cycles until its snapshot generation moves (count_cache), so both walk the nodes, not
 * every pod of every node, in steady state; and where every node's inclusion is the same for the
 * pod (no node affinity or selector to honour, taints ignored), the sums per topology value are
 * kept too (fw_count_cache_domains) and only the nodes whose generation moved since the last cycle
 * with the same constraint (selector, namespace, topology keys) change them: then PreFilter and
 * PreScore read a handful of totals instead of walking 5000 nodes. Upstream's AddPod for nominated pods
 * (RunFilterPluginsWithNominatedPods) is applied inside Filter: csched's framework runs the
 * nominated pass on a node_info copy with the nominated pods appended, which Filter recognises. */
#include "algorithm/plugin.h"
#include "count_cache.h"
#include "plugin_helpers.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/pmap.h"

#define REASON_CONSTRAINTS "node(s) didn't match pod topology spread constraints"
#define REASON_LABEL REASON_CONSTRAINTS " (missing required label)"

static const char *label_hostname, *label_zone;
static struct api_topology_spread_constraint system_defaults[2];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* upstream systemDefaultConstraints, in its order */
static void names_init(void)
{
	label_hostname = intern_str("kubernetes.io/hostname");
	label_zone = intern_str("topology.kubernetes.io/zone");
	system_defaults[0] = (struct api_topology_spread_constraint){ .max_skew = 3, .topology_key = label_hostname,
								       .when_unsatisfiable = API_SCHEDULE_ANYWAY };
	system_defaults[1] = (struct api_topology_spread_constraint){ .max_skew = 5, .topology_key = label_zone,
								       .when_unsatisfiable = API_SCHEDULE_ANYWAY };
}

/* What init derives from the args, and the count caches. */
struct pts_priv {
	bool system_defaulted;
	uint32_t n_defaults;
	const struct api_topology_spread_constraint *defaults; /* static or the args' */
	/* countPodsMatchSelector per (namespace, selector) and node_info, kept across cycles; PreFilter
	 * and PreScore (the scheduler thread) only: Filter and Score never touch it */
	struct fw_count_cache counts;
};

static int init(struct fw_pl *pl, struct err *e)
{
	pthread_once(&once, names_init);
	const struct cfg_topology_spread_args *a = pl->args;
	struct pts_priv *p = calloc(1, sizeof(*p));
	if (!p)
		return err_set(e, ERR_NOMEM, "PodTopologySpread: out of memory");
	if (!a || a->defaulting_type == CFG_DEFAULTING_SYSTEM) {
		p->system_defaulted = true;
		p->n_defaults = 2;
		p->defaults = system_defaults;
	} else {
		p->n_defaults = a->n_default_constraints;
		p->defaults = a->default_constraints;
	}
	pl->priv = p;
	return 0;
}

static void release(struct fw_pl *pl)
{
	struct pts_priv *p = pl->priv;
	if (p)
		fw_count_cache_release(&p->counts);
	free(p);
	pl->priv = NULL;
}

/* ---------- constraints ---------- */

/* upstream topologySpreadConstraint. sel NULL is labels.Nothing() (matches no pod); an empty
 * selector is labels.Everything(), which matches every pod but counts none
 * (countPodsMatchSelector returns 0 for an empty selector). */
struct pts_constraint {
	int32_t max_skew;
	int32_t min_domains;
	const char *key; /* interned */
	const struct api_label_selector *sel;
	bool honor_affinity, honor_taints;
};

static bool sel_empty(const struct api_label_selector *s)
{
	return s && !s->match_labels.n && !s->n_exprs;
}

static bool sel_matches(const struct pts_constraint *c, const struct api_labels *labels)
{
	return c->sel && api_label_selector_matches(c->sel, labels);
}

/* Memory for constraints: the cycle arena, or (hints, which have no cycle) malloc'd blocks freed
 * together by mem_release. */
struct mem {
	struct fw_cycle *c;
	uint32_t n;
	void *blocks[32];
	struct api_selector_owner *owner; /* hints: referenced until mem_release */
};

static void owner_release(void *o)
{
	api_selector_owner_unref(o);
}

/* Keeps the reference o (which m now owns) until m is released (the cycle's end for a cycle). */
static int mem_keep(struct mem *m, struct api_selector_owner *o)
{
	if (m->c)
		return fw_cycle_on_release(m->c, owner_release, o);
	m->owner = o;
	return 0;
}

static void *mem_alloc(struct mem *m, size_t size)
{
	if (m->c)
		return fw_cycle_alloc(m->c, size ? size : 1);
	if (m->n == ARRAY_SIZE(m->blocks))
		return NULL;
	void *p = calloc(1, size ? size : 1);
	if (p)
		m->blocks[m->n++] = p;
	return p;
}

static void mem_release(struct mem *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		free(m->blocks[i]);
	m->n = 0;
	api_selector_owner_unref(m->owner);
	m->owner = NULL;
}

/* metav1.LabelSelectorAsSelector's validation of the operators (it fails, and the plugin with
 * it, on an operator labels do not have or on values that do not fit it). */
static bool sel_valid(const struct api_label_selector *s)
{
	for (uint32_t i = 0; s && i < s->n_exprs; i++) {
		const struct api_requirement *r = &s->exprs[i];
		switch (r->op) {
		case API_OP_IN:
		case API_OP_NOT_IN:
			if (!r->n_values)
				return false;
			break;
		case API_OP_EXISTS:
		case API_OP_DOES_NOT_EXIST:
			if (r->n_values)
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* sel (not NULL) with pod's values of keys added as match labels (upstream
 * mergeLabelSetWithSelector); sel itself when the pod has none of the keys. */
static const struct api_label_selector *merge_match_label_keys(struct mem *m, const struct api_label_selector *sel,
								const char *const *keys, uint32_t n,
								const struct api_labels *pod_labels)
{
	struct api_kv *kv = mem_alloc(m, (n + sel->match_labels.n) * sizeof(*kv));
	struct api_label_selector *out = mem_alloc(m, sizeof(*out));
	if (!kv || !out)
		return NULL;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		const char *v = api_labels_get(pod_labels, keys[i]);
		if (v)
			kv[k++] = (struct api_kv){ keys[i], v };
	}
	if (!k)
		return sel;
	if (sel->match_labels.n) /* memcpy from NULL is undefined even for 0 bytes */
		memcpy(kv + k, sel->match_labels.items, sel->match_labels.n * sizeof(*kv));
	out->match_labels = (struct api_labels){ k + sel->match_labels.n, kv };
	out->n_exprs = sel->n_exprs;
	out->exprs = sel->exprs;
	return out;
}

/* upstream filterTopologySpreadConstraints: the constraints of action, into out (room for n).
 * Returns how many, or -1 with *why set (an invalid selector, or out of memory). */
static int filter_constraints(struct mem *m, const struct api_topology_spread_constraint *cs, uint32_t n,
			      const struct api_labels *pod_labels, enum api_unsatisfiable action,
			      struct pts_constraint *out, const char **why)
{
	int k = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct api_topology_spread_constraint *c = &cs[i];
		if (c->when_unsatisfiable != action)
			continue;
		if (!sel_valid(c->label_selector)) {
			*why = "invalid label selector";
			return -1;
		}
		const struct api_label_selector *sel = c->label_selector;
		if (sel && c->n_match_label_keys &&
		    !(sel = merge_match_label_keys(m, sel, c->match_label_keys, c->n_match_label_keys, pod_labels))) {
			*why = "out of memory";
			return -1;
		}
		out[k++] = (struct pts_constraint){
			.max_skew = c->max_skew,
			.min_domains = c->has_min_domains ? c->min_domains : 1,
			.key = c->topology_key,
			.sel = sel,
			.honor_affinity = c->node_affinity_policy != API_POLICY_IGNORE,
			.honor_taints = c->node_taints_policy == API_POLICY_HONOR,
		};
	}
	return k;
}

/* upstream helper.DefaultSelector's accumulation: a label set (later keys override) and
 * requirements from a ReplicaSet or StatefulSet selector. */
struct dsel {
	struct mem *m;
	const struct api_labels *pod_labels;
	uint32_t n, cap;
	struct api_kv *kv;
	bool nomem;
};

static void dsel_merge(struct dsel *d, const struct api_labels *l)
{
	for (uint32_t i = 0; i < l->n; i++) {
		uint32_t j = 0;
		while (j < d->n && d->kv[j].key != l->items[i].key)
			j++;
		if (j < d->n) {
			d->kv[j].value = l->items[i].value;
			continue;
		}
		if (d->n == d->cap) {
			uint32_t cap = d->cap ? 2 * d->cap : 8;
			struct api_kv *kv = mem_alloc(d->m, cap * sizeof(*kv));
			if (!kv) {
				d->nomem = true;
				return;
			}
			if (d->n)
				memcpy(kv, d->kv, d->n * sizeof(*kv));
			d->kv = kv, d->cap = cap;
		}
		d->kv[d->n++] = l->items[i];
	}
}

/* upstream GetPodServices: a Service with a selector (a nil one selects nothing) matching the
 * pod's labels. */
static int service_fn(void *arg, const struct api_selector_owner *svc)
{
	struct dsel *d = arg;
	if (svc->selector && api_label_selector_matches(svc->selector, d->pod_labels))
		dsel_merge(d, &svc->selector->match_labels);
	return d->nomem;
}

/* upstream helper.DefaultSelector: NULL with *empty = true when it selects nothing to spread
 * (selector.Empty()); NULL with *empty = false on out of memory. */
static const struct api_label_selector *default_selector(const struct fw_pl *pl, struct mem *m,
							 const struct api_pod *pod, bool *empty)
{
	struct dsel d = { .m = m, .pod_labels = &pod->meta.labels };
	const struct api_label_selector *other = NULL;
	*empty = false;
	fw_each_service(pl, pod->meta.namespace, service_fn, &d);
	const struct api_owner_ref *owner = NULL;
	for (uint32_t i = 0; i < pod->meta.n_owner_refs && !owner; i++)
		if (pod->meta.owner_refs[i].controller)
			owner = &pod->meta.owner_refs[i];
	if (owner && owner->api_version && owner->kind && owner->name) {
		/* schema.ParseGroupVersion: "v1" and "/v1" are the core group */
		bool core = !strcmp(owner->api_version, "v1") || !strcmp(owner->api_version, "/v1");
		bool apps = !strcmp(owner->api_version, "apps/v1");
		enum api_selector_kind kind = API_SEL_SERVICE;
		if (core && !strcmp(owner->kind, "ReplicationController"))
			kind = API_SEL_RC;
		else if (apps && !strcmp(owner->kind, "ReplicaSet"))
			kind = API_SEL_RS;
		else if (apps && !strcmp(owner->kind, "StatefulSet"))
			kind = API_SEL_SS;
		struct api_selector_owner *o =
			kind != API_SEL_SERVICE ? fw_get_selector_owner(pl, kind, pod->meta.namespace, owner->name) : NULL;
		if (o && mem_keep(m, o) < 0) {
			api_selector_owner_unref(o);
			return NULL;
		}
		/* o stays referenced until m is released: the selector points into it */
		if (o && kind == API_SEL_RC) {
			if (o->selector)
				dsel_merge(&d, &o->selector->match_labels);
		} else if (o && o->selector && sel_valid(o->selector)) {
			other = o->selector; /* selector.Add(requirements): ANDed */
		}
	}
	if (d.nomem)
		return NULL;
	uint32_t n_other = other ? other->match_labels.n : 0;
	if (!d.n && !n_other && !(other && other->n_exprs)) {
		*empty = true;
		return NULL;
	}
	struct api_label_selector *s = mem_alloc(m, sizeof(*s));
	struct api_kv *kv = mem_alloc(m, (d.n + n_other) * sizeof(*kv));
	if (!s || !kv)
		return NULL;
	if (d.n)
		memcpy(kv, d.kv, d.n * sizeof(*kv));
	if (n_other)
		memcpy(kv + d.n, other->match_labels.items, n_other * sizeof(*kv));
	s->match_labels = (struct api_labels){ d.n + n_other, kv };
	if (other) {
		s->n_exprs = other->n_exprs;
		s->exprs = other->exprs;
	}
	return s;
}

/* upstream getConstraints (action DoNotSchedule) and initPreScoreState's (ScheduleAnyway): the
 * pod's constraints of action, else the default ones with DefaultSelector. *out in m; returns
 * the count or -1 with *why. */
static int get_constraints(const struct fw_pl *pl, struct mem *m, const struct api_pod *pod,
			   enum api_unsatisfiable action, struct pts_constraint **out, const char **why)
{
	const struct pts_priv *p = pl->priv;
	const struct api_topology_spread_constraint *cs = pod->spread_constraints;
	uint32_t n = pod->n_spread_constraints;
	bool defaults = !n;
	if (defaults)
		cs = p->defaults, n = p->n_defaults;
	*out = NULL;
	if (!n)
		return 0;
	struct pts_constraint *v = mem_alloc(m, n * sizeof(*v));
	if (!v) {
		*why = "out of memory";
		return -1;
	}
	int k = filter_constraints(m, cs, n, &pod->meta.labels, action, v, why);
	if (k <= 0 || !defaults) {
		*out = v;
		return k;
	}
	bool empty;
	const struct api_label_selector *sel = default_selector(pl, m, pod, &empty);
	if (!sel) {
		*why = "out of memory";
		return empty ? 0 : -1;
	}
	for (int i = 0; i < k; i++)
		v[i].sel = sel;
	*out = v;
	return k;
}

/* ---------- per-node helpers ---------- */

static bool node_has_keys(const struct api_node *node, const struct pts_constraint *cs, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!api_labels_get(&node->meta.labels, cs[i].key))
			return false;
	return true;
}

static bool untolerated_taint(const struct api_node *node, const struct api_pod *pod)
{
	for (uint32_t i = 0; i < node->n_taints; i++) {
		const struct api_taint *t = &node->taints[i];
		if (t->effect != API_EFFECT_NO_SCHEDULE && t->effect != API_EFFECT_NO_EXECUTE)
			continue;
		if (!fw_tolerations_tolerate(pod->tolerations, pod->n_tolerations, t))
			return true;
	}
	return false;
}

/* upstream matchNodeInclusionPolicies, with the node's affinity and taint answers computed once
 * per node (lazily: -1 = not yet). */
struct incl {
	int affinity, taints;
};

static bool incl_match(const struct pts_constraint *c, const struct api_pod *pod, const struct api_node *node,
		       struct incl *in)
{
	if (c->honor_affinity) {
		if (in->affinity < 0)
			in->affinity = fw_pod_required_affinity_matches(pod, node);
		if (!in->affinity)
			return false;
	}
	if (c->honor_taints) {
		if (in->taints < 0)
			in->taints = !untolerated_taint(node, pod);
		if (!in->taints)
			return false;
	}
	return true;
}

/* upstream countPodsMatchSelector as a predicate: pods of ns, not being deleted, matching sel */
static struct fw_pod_match count_match(const struct pts_constraint *c, const char *const *ns, struct fw_pod_clause *cl)
{
	*cl = (struct fw_pod_clause){ .ns = ns, .n_ns = 1, .sel = c->sel };
	return (struct fw_pod_match){ .c = cl, .n = 1, .skip_deleting = true };
}

/* The count cache slot of (ns, c's selector) for a cycle over n_nodes nodes; NULL when counting is
 * cheap (no selector or an empty one: 0; upstream countPodsMatchSelector) or out of memory. */
static struct fw_count_slot *count_cache_of(struct pts_priv *p, const struct pts_constraint *c, const char *const *ns,
					    uint32_t n_nodes)
{
	if (!c->sel || sel_empty(c->sel))
		return NULL;
	struct fw_pod_clause cl;
	struct fw_pod_match m = count_match(c, ns, &cl);
	return fw_count_cache_slot(&p->counts, &m, n_nodes);
}

/* upstream countPodsMatchSelector through cc (NULL: counted now) */
static int64_t count_pods_cached(struct fw_count_slot *cc, const struct node_info *ni, const struct pts_constraint *c,
				 const char *const *ns)
{
	if (!c->sel || sel_empty(c->sel))
		return 0;
	struct fw_pod_clause cl;
	struct fw_pod_match m = count_match(c, ns, &cl);
	return fw_count_cache_count(cc, &m, ni);
}

/* Whether c's node inclusion policies admit every node for pod (no node affinity or selector to
 * honour, taints not honoured): then its counts per topology value are kept across cycles. */
static bool incl_trivial(const struct pts_constraint *c, const struct api_pod *pod)
{
	const struct api_node_affinity *na = pod->affinity.node_affinity;
	return !c->honor_taints &&
	       (!c->honor_affinity || (!pod->node_selector.n && !(na && na->has_required)));
}

/* The totals per value of cs[i]'s key over nodes, kept across cycles in cc's slot (count_cache.h);
 * NULL when the constraint needs the walk (inclusion depends on the node, no slot, out of memory). */
static struct fw_domains *domains_of(struct pts_priv *p, struct fw_count_slot *cc, const struct pts_constraint *cs,
				     uint32_t n, uint32_t i, bool require_all, const struct api_pod *pod,
				     const struct fw_node_list *nodes, const char **keys)
{
	if (!cc || !incl_trivial(&cs[i], pod))
		return NULL;
	for (uint32_t j = 0; j < n; j++)
		keys[j] = cs[j].key;
	struct fw_pod_clause cl;
	struct fw_pod_match m = count_match(&cs[i], &pod->meta.namespace, &cl);
	return fw_count_cache_domains(&p->counts, cc, &m, keys, n, i, require_all, fw_names()->empty, nodes);
}

/* Maps released with the cycle. Their keys are interned strings (topology values, node names):
 * pointer maps. */
struct maps {
	uint32_t n;
	struct pmap m[];
};

static void maps_release(void *arg)
{
	struct maps *ms = arg;
	for (uint32_t i = 0; i < ms->n; i++)
		pmap_release(&ms->m[i]);
	free(ms);
}

/* n empty maps (topology value or node name -> a value in the arena), released with the cycle. */
static struct pmap *new_maps(struct fw_cycle *c, uint32_t n)
{
	struct maps *ms = calloc(1, sizeof(*ms) + n * sizeof(ms->m[0]));
	if (!ms)
		return NULL;
	ms->n = n;
	for (uint32_t i = 0; i < n; i++)
		pmap_init(&ms->m[i]);
	if (fw_cycle_on_release(c, maps_release, ms) < 0) {
		free(ms);
		return NULL;
	}
	return ms->m;
}

/* The counter of value in m, created at 0 when absent; NULL on out of memory. */
static int64_t *counter(struct fw_cycle *c, struct pmap *m, const char *value)
{
	int64_t *v = pmap_get(m, value);
	if (v)
		return v;
	if (!(v = fw_cycle_alloc(c, sizeof(*v))) || pmap_put(m, value, v) < 0)
		return NULL;
	return v;
}

/* ---------- PreFilter / Filter ---------- */

struct path {
	const char *value;
	int64_t num;
};

/* upstream preFilterState */
struct pf_state {
	uint32_t n;
	struct pts_constraint *cs;
	struct pmap *counts; /* per constraint: topology value -> int64_t * */
	struct path (*paths)[2]; /* per constraint: the two smallest counts (criticalPaths) */
};

/* upstream criticalPaths.update */
static void paths_update(struct path p[2], const char *value, int64_t num)
{
	int i = value == p[0].value ? 0 : value == p[1].value ? 1 : -1;
	if (i >= 0) {
		p[i].num = num;
		if (p[0].num > p[1].num) {
			struct path t = p[0];
			p[0] = p[1];
			p[1] = t;
		}
	} else if (num < p[0].num) {
		p[1] = p[0];
		p[0] = (struct path){ value, num };
	} else if (num < p[1].num) {
		p[1] = (struct path){ value, num };
	}
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	struct mem m = { .c = c };
	struct pts_constraint *cs;
	const char *why = NULL;
	int n = get_constraints(pl, &m, pod, API_DO_NOT_SCHEDULE, &cs, &why);
	if (n < 0)
		return fw_status_setf(st, FW_ERROR, "get constraints from pod: %s", why);
	if (!n)
		return FW_SKIP;
	struct pf_state *s = fw_cycle_alloc(c, sizeof(*s));
	struct pmap *counts = new_maps(c, (uint32_t)n);
	struct path(*paths)[2] = fw_cycle_alloc(c, (size_t)n * sizeof(*paths));
	struct fw_count_slot **cc = fw_cycle_alloc(c, (size_t)n * sizeof(*cc));
	struct fw_domains **dom = fw_cycle_alloc(c, (size_t)n * sizeof(*dom));
	const char **keys = fw_cycle_alloc(c, (size_t)n * sizeof(*keys));
	if (!s || !counts || !paths || !cc || !dom || !keys)
		return fw_status_set(st, FW_ERROR, "PodTopologySpread: out of memory");
	*s = (struct pf_state){ (uint32_t)n, cs, counts, paths };
	const struct fw_node_list *nodes = fw_cycle_nodes(c);
	fw_count_cache_begin(&((struct pts_priv *)pl->priv)->counts);
	bool walk = false;
	for (int i = 0; i < n; i++) {
		cc[i] = count_cache_of(pl->priv, &cs[i], &pod->meta.namespace, nodes ? nodes->n : 0);
		dom[i] = domains_of(pl->priv, cc[i], cs, (uint32_t)n, (uint32_t)i, true, pod, nodes, keys);
		walk = walk || !dom[i];
	}
	/* the constraints whose totals are kept: every domain with a counted node, as the walk */
	for (int i = 0; i < n; i++) {
		for (uint32_t t = 0; dom[i] && t < dom[i]->n_totals; t++) {
			const struct fw_domain_total *d = &dom[i]->totals[t];
			if (d->nodes <= 0)
				continue;
			int64_t *v = counter(c, &counts[i], d->value);
			if (!v)
				return fw_status_set(st, FW_ERROR, "PodTopologySpread: out of memory");
			*v += d->sum;
		}
	}
	for (uint32_t k = 0; walk && nodes && k < nodes->n; k++) {
		const struct node_info *ni = nodes->nodes[k];
		const struct api_node *node = ni->node;
		if (!node || !node_has_keys(node, cs, (uint32_t)n))
			continue;
		struct incl in = { -1, -1 };
		for (int i = 0; i < n; i++) {
			if (dom[i] || !incl_match(&cs[i], pod, node, &in))
				continue;
			int64_t *v = counter(c, &counts[i], api_labels_get(&node->meta.labels, cs[i].key));
			if (!v)
				return fw_status_set(st, FW_ERROR, "PodTopologySpread: out of memory");
			*v += count_pods_cached(cc[i], ni, &cs[i], &pod->meta.namespace);
		}
	}
	for (int i = 0; i < n; i++) {
		paths[i][0] = paths[i][1] = (struct path){ NULL, INT32_MAX };
		const void *key;
		void *val;
		for (size_t it = 0; pmap_next(&counts[i], &it, &key, &val);)
			paths_update(paths[i], key, *(int64_t *)val);
	}
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

/* Whether ni is the framework's copy of a node with its nominated pods nom[0..n) appended (the
 * nominated pass of RunFilterPluginsWithNominatedPods). */
static bool with_nominated(const struct node_info *ni, const struct api_pod *const *nom, uint32_t n)
{
	if (!n || ni->n_pods < n)
		return false;
	for (uint32_t j = 0; j < n; j++)
		if (ni->pods[ni->n_pods - n + j].pod != nom[j])
			return false;
	return true;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	const struct pf_state *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR,
				     "reading \"PreFilterPodTopologySpread\" from cycleState: not found");
	const struct api_node *node = ni->node;
	uint32_t n_nom = 0;
	const struct api_pod *const *nom = fw_cycle_nominated_pods(c, ni->name, &n_nom);
	/* upstream AddPod of each nominated pod and RemovePod of each preemption victim: only this
	 * node's topology values change */
	bool has_keys = node_has_keys(node, s->cs, s->n);
	bool add = with_nominated(ni, nom, n_nom) && has_keys;
	uint32_t it = 0;
	bool removed = has_keys && fw_removed_pod_next(c, ni, &it);
	struct incl in = { -1, -1 };
	for (uint32_t i = 0; i < s->n; i++) {
		const struct pts_constraint *cst = &s->cs[i];
		const char *value = api_labels_get(&node->meta.labels, cst->key);
		if (!value)
			return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_LABEL);
		const int64_t *v = pmap_get(&s->counts[i], value);
		int64_t match = v ? *v : 0, min = s->paths[i][0].num;
		size_t domains = pmap_len(&s->counts[i]);
		if ((add || removed) && incl_match(cst, pod, node, &in)) {
			int64_t delta = 0;
			for (uint32_t j = 0; add && j < n_nom; j++)
				if (nom[j]->meta.namespace == pod->meta.namespace && sel_matches(cst, &nom[j]->meta.labels))
					delta++;
			/* updateWithPod(-1) counts terminating victims too, which PreFilter did not */
			it = 0;
			for (const struct api_pod *r; removed && (r = fw_removed_pod_next(c, ni, &it));)
				if (r->meta.namespace == pod->meta.namespace && sel_matches(cst, &r->meta.labels))
					delta--;
			if (delta) {
				match += delta;
				if (!v)
					domains++;
				/* criticalPaths.update with the new count; as only this value changes, the
				 * smallest count it keeps is the true minimum */
				struct path p[2] = { s->paths[i][0], s->paths[i][1] };
				paths_update(p, value, match);
				min = p[0].num;
			}
		}
		if (domains < (size_t)(cst->min_domains > 0 ? cst->min_domains : 0))
			min = 0;
		int64_t self = sel_matches(cst, &pod->meta.labels) ? 1 : 0;
		if (match + self - min > cst->max_skew)
			return fw_status_set(st, FW_UNSCHEDULABLE, REASON_CONSTRAINTS);
	}
	return FW_SUCCESS;
}

/* ---------- PreScore / Score ---------- */

/* A scored node's raw score, or ignored (upstream IgnoredNodes). */
struct node_score {
	bool ignored;
	int64_t score;
};

struct ps_state {
	struct pmap *by_node; /* node name -> struct node_score * */
};

static double normalizing_weight(size_t size)
{
	return log((double)(size + 2));
}

static enum fw_code pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			      const struct node_info *const *filtered, uint32_t n_filtered, struct fw_status *st)
{
	const struct pts_priv *p = pl->priv;
	const struct fw_node_list *all = fw_cycle_nodes(c);
	if (!all || !all->n)
		return FW_SKIP;
	struct mem m = { .c = c };
	struct pts_constraint *cs;
	const char *why = NULL;
	int n = get_constraints(pl, &m, pod, API_SCHEDULE_ANYWAY, &cs, &why);
	if (n < 0)
		return fw_status_setf(st, FW_ERROR, "calculating preScoreState: %s", why);
	if (!n)
		return FW_SKIP;
	bool require_all = pod->n_spread_constraints || !p->system_defaulted;
	struct pmap *maps = new_maps(c, (uint32_t)n + 1);
	size_t *topo_size = fw_cycle_alloc(c, (size_t)n * sizeof(*topo_size));
	double *weight = fw_cycle_alloc(c, (size_t)n * sizeof(*weight));
	struct node_score *scores = fw_cycle_alloc(c, (size_t)(n_filtered ? n_filtered : 1) * sizeof(*scores));
	struct ps_state *s = fw_cycle_alloc(c, sizeof(*s));
	struct fw_count_slot **cc = fw_cycle_alloc(c, (size_t)n * sizeof(*cc));
	struct fw_domains **dom = fw_cycle_alloc(c, (size_t)n * sizeof(*dom));
	const char **keys = fw_cycle_alloc(c, (size_t)n * sizeof(*keys));
	if (!maps || !topo_size || !weight || !scores || !s || !cc || !dom || !keys)
		goto nomem;
	fw_count_cache_begin(&((struct pts_priv *)pl->priv)->counts);
	bool walk = false;
	for (int i = 0; i < n; i++) {
		cc[i] = count_cache_of(pl->priv, &cs[i], &pod->meta.namespace, all->n);
		/* hostname pairs are counted per filtered node below */
		if (cs[i].key != label_hostname) {
			dom[i] = domains_of(pl->priv, cc[i], cs, (uint32_t)n, (uint32_t)i, require_all, pod, all, keys);
			walk = walk || !dom[i];
		}
	}
	struct pmap *counts = maps + 1, *by_node = maps;
	const char *empty = fw_names()->empty;
	size_t ignored = 0;
	/* initPreScoreState: the topology values of the filtered nodes (a missing label counts as
	 * value "" when not every topology is required) */
	for (uint32_t k = 0; k < n_filtered; k++) {
		const struct api_node *node = filtered[k]->node;
		if (require_all && !node_has_keys(node, cs, (uint32_t)n)) {
			scores[k].ignored = true;
			ignored++;
			continue;
		}
		for (int i = 0; i < n; i++) {
			if (cs[i].key == label_hostname)
				continue;
			const char *value = api_labels_get(&node->meta.labels, cs[i].key);
			if (!value)
				value = empty;
			if (!pmap_get(&counts[i], value)) {
				if (!counter(c, &counts[i], value))
					goto nomem;
				topo_size[i]++;
			}
		}
	}
	for (int i = 0; i < n; i++)
		weight[i] = normalizing_weight(cs[i].key == label_hostname ? n_filtered - ignored : topo_size[i]);
	/* processAllNode: the matching pods of those values over every node; from the kept totals
	 * where there are */
	for (int i = 0; i < n; i++) {
		const void *key;
		void *val;
		for (size_t it = 0; dom[i] && pmap_next(&counts[i], &it, &key, &val);) {
			const struct fw_domain_total *d = fw_domains_get(dom[i], key);
			*(int64_t *)val += d ? d->sum : 0;
		}
	}
	for (uint32_t k = 0; walk && k < all->n; k++) {
		const struct node_info *ni = all->nodes[k];
		const struct api_node *node = ni->node;
		if (!node || (require_all && !node_has_keys(node, cs, (uint32_t)n)))
			continue;
		struct incl in = { -1, -1 };
		for (int i = 0; i < n; i++) {
			/* hostname pairs are counted per filtered node below: its map stays empty */
			if (cs[i].key == label_hostname || dom[i] || !incl_match(&cs[i], pod, node, &in))
				continue;
			const char *value = api_labels_get(&node->meta.labels, cs[i].key);
			int64_t *v = pmap_get(&counts[i], value ? value : empty);
			if (v)
				*v += count_pods_cached(cc[i], ni, &cs[i], &pod->meta.namespace);
		}
	}
	/* upstream Score, for every filtered node */
	for (uint32_t k = 0; k < n_filtered; k++) {
		const struct node_info *ni = filtered[k];
		if (!scores[k].ignored) {
			double score = 0;
			for (int i = 0; i < n; i++) {
				const char *value = api_labels_get(&ni->node->meta.labels, cs[i].key);
				if (!value)
					continue;
				int64_t cnt;
				if (cs[i].key == label_hostname)
					cnt = count_pods_cached(cc[i], ni, &cs[i], &pod->meta.namespace);
				else
					cnt = *(int64_t *)pmap_get(&counts[i], value);
				score += (double)cnt * weight[i] + (double)(cs[i].max_skew - 1);
			}
			scores[k].score = (int64_t)round(score);
		}
		if (pmap_put(by_node, ni->name, &scores[k]) < 0)
			goto nomem;
	}
	s->by_node = by_node;
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
nomem:
	return fw_status_set(st, FW_ERROR, "PodTopologySpread: out of memory");
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	const struct ps_state *s = fw_cycle_state(c, pl);
	const struct node_score *ns = s ? pmap_get(s->by_node, ni->name) : NULL;
	if (!ns)
		return fw_status_set(st, FW_ERROR, "reading \"PreScorePodTopologySpread\" from cycleState: not found");
	*out = ns->ignored ? 0 : ns->score;
	return FW_SUCCESS;
}

static enum fw_code normalize_score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
				    struct fw_node_score *scores, uint32_t n, struct fw_status *st)
{
	(void)pod;
	(void)st;
	const struct ps_state *s = fw_cycle_state(c, pl);
	if (!s)
		return FW_SUCCESS;
	int64_t min = INT64_MAX, max = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct node_score *ns = pmap_get(s->by_node, scores[i].ni->name);
		if (ns && ns->ignored) {
			scores[i].score = -1; /* upstream invalidScore */
			continue;
		}
		if (scores[i].score < min)
			min = scores[i].score;
		if (scores[i].score > max)
			max = scores[i].score;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (scores[i].score == -1)
			scores[i].score = 0;
		else if (max == 0)
			scores[i].score = FW_MAX_NODE_SCORE;
		else
			scores[i].score = FW_MAX_NODE_SCORE * (max + min - scores[i].score) / max;
	}
	return FW_SUCCESS;
}

/* ---------- queueing hints (upstream plugin.go) ---------- */

static bool labels_equal(const struct api_labels *a, const struct api_labels *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (api_labels_get(b, a->items[i].key) != a->items[i].value)
			return false;
	return true;
}

/* isSchedulableAfterPodLabelChange */
static enum queue_hint pod_label_change(const struct api_pod *old_pod, const struct api_pod *new_pod,
					const struct pts_constraint *cs, int n)
{
	if (labels_equal(&old_pod->meta.labels, &new_pod->meta.labels))
		return QUEUE_HINT_SKIP;
	for (int i = 0; i < n; i++)
		if (sel_matches(&cs[i], &old_pod->meta.labels) != sel_matches(&cs[i], &new_pod->meta.labels))
			return QUEUE_HINT_QUEUE;
	return QUEUE_HINT_SKIP;
}

/* upstream involvedInTopologySpreading */
static bool involved(const struct api_pod *incoming, const struct api_pod *pod)
{
	if (!incoming->node_name[0] && !(incoming->nominated_node_name && incoming->nominated_node_name[0]))
		return false;
	return incoming->meta.namespace == pod->meta.namespace;
}

static bool any_matches(const struct pts_constraint *cs, int n, const struct api_labels *l)
{
	for (int i = 0; i < n; i++)
		if (sel_matches(&cs[i], l))
			return true;
	return false;
}

/* isSchedulableAfterAssignedPodChange */
static enum queue_hint assigned_pod_change(const void *plv, const struct api_pod *pod, const void *old_obj,
					   const void *new_obj)
{
	const struct api_pod *op = old_obj, *np = new_obj;
	if ((np && !involved(np, pod)) || (op && !involved(op, pod)))
		return QUEUE_HINT_SKIP;
	struct mem m = { 0 };
	struct pts_constraint *cs;
	const char *why;
	enum queue_hint h;
	int n = get_constraints(plv, &m, pod, API_DO_NOT_SCHEDULE, &cs, &why);
	if (n < 0)
		h = QUEUE_HINT_ERROR;
	else if (np && op)
		h = pod_label_change(op, np, cs, n);
	else
		h = any_matches(cs, n, np ? &np->meta.labels : &op->meta.labels) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
	mem_release(&m);
	return h;
}

static bool tolerations_equal(const struct api_pod *a, const struct api_pod *b)
{
	if (a->n_tolerations != b->n_tolerations)
		return false;
	for (uint32_t i = 0; i < a->n_tolerations; i++) {
		const struct api_toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
		if (x->key != y->key || x->op != y->op || x->op_given != y->op_given || x->value != y->value || x->effect != y->effect ||
		    x->has_toleration_seconds != y->has_toleration_seconds ||
		    (x->has_toleration_seconds && x->toleration_seconds != y->toleration_seconds))
			return false;
	}
	return true;
}

/* isSchedulableAfterTargetPodChange */
static enum queue_hint target_pod_change(const void *plv, const struct api_pod *pod, const void *old_obj,
					 const void *new_obj)
{
	const struct api_pod *op = old_obj, *np = new_obj;
	if (!op || !np)
		return QUEUE_HINT_QUEUE;
	struct mem m = { 0 };
	struct pts_constraint *cs;
	const char *why;
	enum queue_hint h = QUEUE_HINT_SKIP;
	int n = get_constraints(plv, &m, pod, API_DO_NOT_SCHEDULE, &cs, &why);
	if (n < 0) {
		h = QUEUE_HINT_ERROR;
		goto out;
	}
	if (!tolerations_equal(op, np))
		for (int i = 0; i < n; i++)
			if (cs[i].honor_taints) {
				h = QUEUE_HINT_QUEUE;
				goto out;
			}
	h = pod_label_change(op, np, cs, n);
out:
	mem_release(&m);
	return h;
}

/* isSchedulableAfterNodeChange */
static enum queue_hint node_change(const void *plv, const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	const struct api_node *on = old_obj, *nn = new_obj;
	struct mem m = { 0 };
	struct pts_constraint *cs;
	const char *why;
	enum queue_hint h;
	int n = get_constraints(plv, &m, pod, API_DO_NOT_SCHEDULE, &cs, &why);
	if (n < 0) {
		h = QUEUE_HINT_ERROR;
		goto out;
	}
	bool om = on && node_has_keys(on, cs, (uint32_t)n), nm = nn && node_has_keys(nn, cs, (uint32_t)n);
	if (on && nn) {
		h = QUEUE_HINT_SKIP;
		if (om != nm) {
			h = QUEUE_HINT_QUEUE;
		} else if (nm) {
			bool changed = !api_node_taints_equal(on, nn);
			for (int i = 0; i < n && !changed; i++)
				changed = api_labels_get(&on->meta.labels, cs[i].key) !=
					  api_labels_get(&nn->meta.labels, cs[i].key);
			if (changed)
				h = QUEUE_HINT_QUEUE;
		}
	} else {
		h = (nn ? nm : om) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
	}
out:
	mem_release(&m);
	return h;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_ASSIGNED_POD,
	    .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_POD_LABEL | QUEUE_ACT_DELETE },
	  assigned_pod_change },
	{ { .resource = QUEUE_RES_TARGET_POD, .actions = QUEUE_ACT_UPDATE_POD_TOLERATION | QUEUE_ACT_UPDATE_POD_LABEL },
	  target_pod_change },
	{ { .resource = QUEUE_RES_NODE,
	    .actions = QUEUE_ACT_ADD | QUEUE_ACT_DELETE | QUEUE_ACT_UPDATE_NODE_LABEL | QUEUE_ACT_UPDATE_NODE_TAINT },
	  node_change },
};

const struct fw_plugin fw_plugin_pod_topology_spread = {
	.name = "PodTopologySpread",
	.args_kind = CFG_ARGS_TOPOLOGY_SPREAD,
	.init = init,
	.release = release,
	.pre_filter = pre_filter,
	.filter = filter,
	.pre_score = pre_score,
	.score = score,
	.normalize_score = normalize_score,
	FW_EVENTS(events),
};
