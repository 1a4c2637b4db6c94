/* NodeAffinity (PreFilter, Filter, PreScore, Score): spec.nodeSelector, required and preferred
 * node affinity, plus the profile's addedAffinity (NodeAffinityArgs). */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <string.h>

#define REASON_POD "node(s) didn't match Pod's node affinity/selector"
#define REASON_ENFORCED "node(s) didn't match scheduler-enforced node affinity"
#define REASON_CONFLICT "pod affinity terms conflict"

static const struct api_node_affinity *added(const struct fw_pl *pl)
{
	const struct cfg_node_affinity_args *a = pl->args;
	return a ? a->added_affinity : NULL;
}

static bool term_is_empty(const struct api_node_selector_term *t)
{
	return !t->n_exprs && !t->n_fields;
}

/* A term that is not empty but never matches because it does not parse. */
static bool term_broken(const struct api_node_selector_term *t)
{
	return !fw_node_selector_term_valid(t);
}

/* Like upstream NewNodeSelector / NewPreferredSchedulingTerms on the args: a broken term is a
 * configuration error. */
static int init(struct fw_pl *pl, struct err *e)
{
	const struct api_node_affinity *a = added(pl);
	if (!a)
		return 0;
	if (a->has_required)
		for (uint32_t i = 0; i < a->n_required; i++)
			if (!term_is_empty(&a->required[i]) && term_broken(&a->required[i]))
				return err_set(e, ERR_INVALID,
					       "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%u]: invalid requirement",
					       i);
	for (uint32_t i = 0; i < a->n_preferred; i++)
		if (!term_is_empty(&a->preferred[i].term) && term_broken(&a->preferred[i].term))
			return err_set(e, ERR_INVALID,
				       "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%u].preference: invalid requirement",
				       i);
	return 0;
}

static bool has_required(const struct api_pod *pod)
{
	const struct api_node_affinity *na = pod->affinity.node_affinity;
	return na && na->has_required;
}

static bool name_in(const char *const *v, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == name)
			return true;
	return false;
}

/* The node names a term pins with metadata.name In [...] (its requirements are ANDed: the
 * intersection) into names; false when no requirement pins it (the term allows any node). */
static bool term_node_names(const struct api_node_selector_term *t, const char **names, uint32_t *n)
{
	const char *metadata_name = fw_names()->metadata_name;
	bool have = false;
	*n = 0;
	for (uint32_t j = 0; j < t->n_fields; j++) {
		const struct api_requirement *r = &t->fields[j];
		if (r->key != metadata_name || r->op != API_OP_IN)
			continue;
		uint32_t kept = 0;
		if (!have) {
			for (uint32_t k = 0; k < r->n_values; k++)
				if (!name_in(names, kept, r->values[k]))
					names[kept++] = r->values[k];
		} else {
			for (uint32_t m = 0; m < *n; m++)
				if (name_in(r->values, r->n_values, names[m]))
					names[kept++] = names[m];
		}
		*n = kept;
		have = true;
	}
	return have;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	const struct api_node_affinity *a = added(pl);
	bool added_required = a && a->has_required;
	if (!has_required(pod) && !added_required && !pod->node_selector.n)
		return FW_SKIP;
	if (!has_required(pod) || !pod->affinity.node_affinity->n_required)
		return FW_SUCCESS;

	/* every term pinned to metadata.name In [...] -> only those nodes can match */
	const struct api_node_affinity *na = pod->affinity.node_affinity;
	uint32_t cap = 0;
	for (uint32_t i = 0; i < na->n_required; i++)
		for (uint32_t j = 0; j < na->required[i].n_fields; j++)
			cap += na->required[i].fields[j].n_values;
	const char **uni = fw_cycle_alloc(c, (cap + 1) * sizeof(*uni));
	const char **term_names = fw_cycle_alloc(c, (cap + 1) * sizeof(*term_names));
	if (!uni || !term_names)
		return fw_status_set(st, FW_ERROR, "NodeAffinity: out of memory");
	uint32_t n_uni = 0;
	for (uint32_t i = 0; i < na->n_required; i++) {
		uint32_t n_term;
		if (!term_node_names(&na->required[i], term_names, &n_term))
			return FW_SUCCESS; /* this term allows any node: terms are ORed */
		for (uint32_t m = 0; m < n_term; m++)
			if (!name_in(uni, n_uni, term_names[m]))
				uni[n_uni++] = term_names[m];
	}
	if (!n_uni)
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_CONFLICT);
	out->all = false;
	out->n = n_uni;
	out->names = uni;
	return FW_SUCCESS;
}

static bool added_required_matches(const struct api_node_affinity *a, const struct api_node *node)
{
	if (!a || !a->has_required)
		return true;
	return fw_node_selector_matches(a->required, a->n_required, node);
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)c;
	if (!added_required_matches(added(pl), ni->node))
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_ENFORCED);
	if (!fw_pod_required_affinity_matches(pod, ni->node))
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_POD);
	return FW_SUCCESS;
}

static enum fw_code pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			      const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)c;
	(void)nodes;
	const struct api_node_affinity *na = pod->affinity.node_affinity;
	const struct api_node_affinity *a = added(pl);
	if (!n)
		return FW_SUCCESS;
	/* upstream skips only when neither the pod nor the profile's addedAffinity has preferred
	 * terms: the added ones score every pod */
	if ((!na || !na->n_preferred) && (!a || !a->n_preferred))
		return FW_SKIP;
	/* upstream NewPreferredSchedulingTerms: a broken preferred term is an error */
	for (uint32_t i = 0; na && i < na->n_preferred; i++) {
		const struct api_preferred_node_term *t = &na->preferred[i];
		if (t->weight && !term_is_empty(&t->term) && term_broken(&t->term))
			return fw_status_setf(st, FW_ERROR,
					      "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%u].preference: invalid requirement",
					      i);
	}
	return FW_SUCCESS;
}

static int64_t preferred_score(const struct api_preferred_node_term *terms, uint32_t n, const struct api_node *node)
{
	int64_t sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct api_preferred_node_term *t = &terms[i];
		if (!t->weight || term_is_empty(&t->term))
			continue;
		if (fw_node_selector_term_matches(&t->term, node))
			sum += t->weight;
	}
	return sum;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)c;
	(void)st;
	const struct api_node_affinity *na = pod->affinity.node_affinity;
	const struct api_node_affinity *a = added(pl);
	int64_t s = 0;
	if (a)
		s += preferred_score(a->preferred, a->n_preferred, ni->node);
	if (na)
		s += preferred_score(na->preferred, na->n_preferred, ni->node);
	*out = s;
	return FW_SUCCESS;
}

/* Queue when the node now matches the pod's required affinity and did not before (or is new). */
static enum queue_hint node_change(const void *pl, const struct api_pod *pod, const void *old_obj,
				const void *new_obj)
{
	const struct api_node *on = old_obj, *nn = new_obj;
	if (!nn)
		return QUEUE_HINT_SKIP;
	if (!added_required_matches(added(pl), nn))
		return QUEUE_HINT_SKIP;
	if (!fw_pod_required_affinity_matches(pod, nn))
		return QUEUE_HINT_SKIP;
	if (!on)
		return QUEUE_HINT_QUEUE;
	return fw_pod_required_affinity_matches(pod, on) ? QUEUE_HINT_SKIP : QUEUE_HINT_QUEUE;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL }, node_change },
};

const struct fw_plugin fw_plugin_node_affinity = {
	.name = "NodeAffinity",
	.args_kind = CFG_ARGS_NODE_AFFINITY,
	.init = init,
	.pre_filter = pre_filter,
	.filter = filter,
	.pre_score = pre_score,
	.score = score,
	.normalize_score = fw_normalize_to_max,
	FW_EVENTS(events),
};
