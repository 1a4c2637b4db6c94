/* pluginConfig[].args: decoding (strict), upstream's v1 defaults (defaults.go), validation
 * (validation_pluginargs.go) and writing, for every plugin with an args type. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "config/cfg_internal.h"

static const char *const kind_plugin[CFG_ARGS_COUNT] = {
	"NodeResourcesFit", "NodeResourcesBalancedAllocation", "NodeAffinity", "InterPodAffinity",
	"PodTopologySpread", "DefaultPreemption", "VolumeBinding",
};
static const char *const kind_name[CFG_ARGS_COUNT] = {
	"NodeResourcesFitArgs", "NodeResourcesBalancedAllocationArgs", "NodeAffinityArgs", "InterPodAffinityArgs",
	"PodTopologySpreadArgs", "DefaultPreemptionArgs", "VolumeBindingArgs",
};

const char *cfg_args_kind_plugin(enum cfg_args_kind k)
{
	return (unsigned)k < CFG_ARGS_COUNT ? kind_plugin[k] : "";
}

const char *cfg_args_kind_name(enum cfg_args_kind k)
{
	return (unsigned)k < CFG_ARGS_COUNT ? kind_name[k] : "";
}

static const char *const scoring_names[] = { "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio" };

/* Upstream's defaultResourceSpec: cpu and memory, weight 1. Interned on first use. */
static struct cfg_resource_weight default_resources[2];

static struct cfg_resource_weight *default_resource_spec(void)
{
	if (!default_resources[0].name) {
		default_resources[0] = (struct cfg_resource_weight){ intern_str("cpu"), 1 };
		default_resources[1] = (struct cfg_resource_weight){ intern_str("memory"), 1 };
	}
	return default_resources;
}

void cfg_args_set_defaults(struct cfg_plugin_args *a)
{
	memset(a, 0, sizeof(*a));
	a->fit.scoring_type = CFG_SCORING_LEAST_ALLOCATED;
	a->fit.n_resources = 2;
	a->fit.resources = default_resource_spec();
	a->balanced.n_resources = 2;
	a->balanced.resources = default_resource_spec();
	a->inter_pod_affinity.hard_pod_affinity_weight = 1;
	a->topology_spread.defaulting_type = CFG_DEFAULTING_SYSTEM;
	a->preemption.min_candidate_nodes_percentage = 10;
	a->preemption.min_candidate_nodes_absolute = 100;
	a->volume_binding.bind_timeout_seconds = 600;
}

static int nomem(struct cfg_dec *d)
{
	return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
}

/* ---------- shared pieces ---------- */

struct args_ctx {
	enum cfg_args_kind kind;
	struct cfg_plugin_args *a;
	/* presence, for defaulting and presence-dependent checks */
	bool has_strategy, has_type, has_rtcr, has_resources;
	yaml_node_t *strategy_node;
};

static int type_meta(struct cfg_dec *d, const char *key, yaml_node_t *v, struct args_ctx *c, bool *handled)
{
	const char *s = NULL;
	*handled = true;
	if (dec_key_is(d, key, "apiVersion")) {
		int rc = dec_str(d, v, &s);
		if (!rc && strcmp(s, CFG_API_VERSION) != 0)
			rc = dec_err(d, v, "args for plugin %s must have apiVersion %s, got \"%s\"", kind_plugin[c->kind],
				     CFG_API_VERSION, s);
		return rc;
	}
	if (dec_key_is(d, key, "kind")) {
		int rc = dec_str(d, v, &s);
		if (!rc && strcmp(s, kind_name[c->kind]) != 0)
			rc = dec_err(d, v, "args for plugin %s were not of type %s, got %s", kind_plugin[c->kind],
				     kind_name[c->kind], s);
		return rc;
	}
	*handled = false;
	return 0;
}

struct res_list {
	struct cfg_resource_weight *items;
};

static int resource_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_resource_weight *r = ctx;
	if (dec_key_is(d, key, "name"))
		return dec_istr(d, v, &r->name);
	if (dec_key_is(d, key, "weight"))
		return dec_int(d, v, INT64_MIN, INT64_MAX, &r->weight);
	return dec_unknown(d, key, v);
}

static int resource_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct res_list *l = ctx;
	l->items[i].name = intern_str("");
	int rc = dec_map(d, item, resource_field, &l->items[i]);
	/* v1 defaulting: an unset weight is 1. */
	if (!rc && l->items[i].weight == 0)
		l->items[i].weight = 1;
	return rc;
}

int cfg_dec_resources(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_resource_weight **out)
{
	size_t len;
	int rc = dec_seq_len(d, n, &len);
	if (rc)
		return rc;
	struct res_list l = { .items = len ? arena_alloc(d->arena, len * sizeof(*l.items)) : NULL };
	if (len && !l.items)
		return nomem(d);
	rc = dec_seq(d, n, resource_item, &l);
	if (rc)
		return rc;
	*count = (uint32_t)len;
	*out = l.items;
	return 0;
}

static int shape_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_shape_point *p = ctx;
	if (dec_key_is(d, key, "utilization"))
		return dec_i32(d, v, &p->utilization);
	if (dec_key_is(d, key, "score"))
		return dec_i32(d, v, &p->score);
	return dec_unknown(d, key, v);
}

static int shape_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct cfg_shape_point *pts = ctx;
	return dec_map(d, item, shape_field, &pts[i]);
}

int cfg_dec_shape(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_shape_point **out)
{
	size_t len;
	int rc = dec_seq_len(d, n, &len);
	if (rc)
		return rc;
	struct cfg_shape_point *pts = len ? arena_alloc(d->arena, len * sizeof(*pts)) : NULL;
	if (len && !pts)
		return nomem(d);
	rc = dec_seq(d, n, shape_item, pts);
	if (rc)
		return rc;
	*count = (uint32_t)len;
	*out = pts;
	return 0;
}

/* ---------- NodeResourcesFitArgs ---------- */

static int rtcr_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	if (dec_key_is(d, key, "shape"))
		return cfg_dec_shape(d, v, &c->a->fit.n_shape, &c->a->fit.shape);
	return dec_unknown(d, key, v);
}

static int strategy_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	struct cfg_fit_args *f = &c->a->fit;
	if (dec_key_is(d, key, "type")) {
		const char *s = NULL;
		int rc = dec_str(d, v, &s);
		if (rc)
			return rc;
		for (size_t i = 0; i < 3; i++) {
			if (strcmp(s, scoring_names[i]) == 0) {
				f->scoring_type = (enum cfg_scoring_type)i;
				c->has_type = true;
				return 0;
			}
		}
		return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"", s);
	}
	if (dec_key_is(d, key, "resources")) {
		c->has_resources = true;
		return cfg_dec_resources(d, v, &f->n_resources, &f->resources);
	}
	if (dec_key_is(d, key, "requestedToCapacityRatio")) {
		c->has_rtcr = true;
		return dec_map(d, v, rtcr_field, c);
	}
	return dec_unknown(d, key, v);
}

static int fit_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	struct cfg_fit_args *f = &c->a->fit;
	if (dec_key_is(d, key, "ignoredResources"))
		return dec_istr_list(d, v, &f->n_ignored_resources, &f->ignored_resources);
	if (dec_key_is(d, key, "ignoredResourceGroups"))
		return dec_istr_list(d, v, &f->n_ignored_resource_groups, &f->ignored_resource_groups);
	if (dec_key_is(d, key, "scoringStrategy")) {
		c->has_strategy = true;
		c->strategy_node = v;
		/* An explicit strategy starts from nothing: v1 defaulting fills only resources. */
		f->n_resources = 0;
		f->resources = NULL;
		return dec_map(d, v, strategy_field, c);
	}
	return dec_unknown(d, key, v);
}

static int fit_finish(struct cfg_dec *d, struct args_ctx *c)
{
	struct cfg_fit_args *f = &c->a->fit;
	if (!c->has_strategy)
		return 0;
	size_t saved = dec_push_key(d, "scoringStrategy");
	int rc = 0;
	if (!c->has_type)
		rc = dec_err(d, c->strategy_node, "type: Unsupported value: \"\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");
	else if (f->scoring_type == CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO && !c->has_rtcr)
		rc = dec_err(d, c->strategy_node, "requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio");
	else if (f->scoring_type != CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO && c->has_rtcr)
		rc = dec_err(d, c->strategy_node, "requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio");
	dec_pop(d, saved);
	if (!rc && f->n_resources == 0) {
		f->n_resources = 2;
		f->resources = default_resource_spec();
	}
	return rc;
}

/* ---------- NodeResourcesBalancedAllocationArgs ---------- */

static int balanced_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	if (dec_key_is(d, key, "resources")) {
		c->has_resources = true;
		return cfg_dec_resources(d, v, &c->a->balanced.n_resources, &c->a->balanced.resources);
	}
	return dec_unknown(d, key, v);
}

/* ---------- NodeAffinityArgs ---------- */

static const char *const op_names[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };

struct req_ctx {
	struct api_requirement *r;
	yaml_node_t *op_node;
	bool has_op;
};

static int req_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct req_ctx *c = ctx;
	if (dec_key_is(d, key, "key"))
		return dec_istr(d, v, &c->r->key);
	if (dec_key_is(d, key, "operator")) {
		const char *s = NULL;
		int rc = dec_str(d, v, &s);
		if (rc)
			return rc;
		for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
			if (strcmp(s, op_names[i]) == 0) {
				c->r->op = (enum api_op)i;
				c->has_op = true;
				return 0;
			}
		}
		return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \"Lt\", \"NotIn\"", s);
	}
	if (dec_key_is(d, key, "values"))
		return dec_istr_list(d, v, &c->r->n_values, &c->r->values);
	return dec_unknown(d, key, v);
}

struct reqs {
	struct api_requirement *items;
	bool fields;
};

static int req_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct reqs *l = ctx;
	struct req_ctx c = { .r = &l->items[i] };
	c.r->key = intern_str("");
	int rc = dec_map(d, item, req_field, &c);
	if (rc)
		return rc;
	if (!c.has_op)
		return dec_err(d, item, "operator: Unsupported value: \"\": supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \"Lt\", \"NotIn\"");
	return 0;
}

static int dec_reqs(struct cfg_dec *d, yaml_node_t *n, bool fields, uint32_t *count, struct api_requirement **out)
{
	size_t len;
	int rc = dec_seq_len(d, n, &len);
	if (rc)
		return rc;
	struct reqs l = { .items = len ? arena_alloc(d->arena, len * sizeof(*l.items)) : NULL, .fields = fields };
	if (len && !l.items)
		return nomem(d);
	rc = dec_seq(d, n, req_item, &l);
	if (rc)
		return rc;
	*count = (uint32_t)len;
	*out = l.items;
	return 0;
}

static int term_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_node_selector_term *t = ctx;
	if (dec_key_is(d, key, "matchExpressions"))
		return dec_reqs(d, v, false, &t->n_exprs, &t->exprs);
	if (dec_key_is(d, key, "matchFields"))
		return dec_reqs(d, v, true, &t->n_fields, &t->fields);
	return dec_unknown(d, key, v);
}

static int term_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct api_node_selector_term *terms = ctx;
	return dec_map(d, item, term_field, &terms[i]);
}

static int selector_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_node_affinity *na = ctx;
	if (dec_key_is(d, key, "nodeSelectorTerms")) {
		size_t len;
		int rc = dec_seq_len(d, v, &len);
		if (rc)
			return rc;
		na->required = len ? arena_alloc(d->arena, len * sizeof(*na->required)) : NULL;
		if (len && !na->required)
			return nomem(d);
		na->n_required = (uint32_t)len;
		return dec_seq(d, v, term_item, na->required);
	}
	return dec_unknown(d, key, v);
}

struct pref_ctx {
	struct api_preferred_node_term *p;
	bool has_weight;
};

static int pref_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pref_ctx *c = ctx;
	if (dec_key_is(d, key, "weight")) {
		c->has_weight = true;
		return dec_i32(d, v, &c->p->weight);
	}
	if (dec_key_is(d, key, "preference"))
		return dec_map(d, v, term_field, &c->p->term);
	return dec_unknown(d, key, v);
}

static int pref_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct api_preferred_node_term *prefs = ctx;
	struct pref_ctx c = { .p = &prefs[i] };
	return dec_map(d, item, pref_field, &c);
}

static int affinity_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_node_affinity *na = ctx;
	if (dec_key_is(d, key, "requiredDuringSchedulingIgnoredDuringExecution")) {
		na->has_required = true;
		return dec_map(d, v, selector_field, na);
	}
	if (dec_key_is(d, key, "preferredDuringSchedulingIgnoredDuringExecution")) {
		size_t len;
		int rc = dec_seq_len(d, v, &len);
		if (rc)
			return rc;
		na->preferred = len ? arena_alloc(d->arena, len * sizeof(*na->preferred)) : NULL;
		if (len && !na->preferred)
			return nomem(d);
		na->n_preferred = (uint32_t)len;
		return dec_seq(d, v, pref_item, na->preferred);
	}
	return dec_unknown(d, key, v);
}

static int node_affinity_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	if (dec_key_is(d, key, "addedAffinity")) {
		struct api_node_affinity *na = arena_alloc(d->arena, sizeof(*na));
		if (!na)
			return nomem(d);
		c->a->node_affinity.added_affinity = na;
		return dec_map(d, v, affinity_field, na);
	}
	return dec_unknown(d, key, v);
}

/* ---------- InterPodAffinityArgs, DefaultPreemptionArgs, VolumeBindingArgs ---------- */

static int inter_pod_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	if (dec_key_is(d, key, "hardPodAffinityWeight"))
		return dec_i32(d, v, &c->a->inter_pod_affinity.hard_pod_affinity_weight);
	if (dec_key_is(d, key, "ignorePreferredTermsOfExistingPods"))
		return dec_bool(d, v, &c->a->inter_pod_affinity.ignore_preferred_terms_of_existing_pods);
	return dec_unknown(d, key, v);
}

static int preemption_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	if (dec_key_is(d, key, "minCandidateNodesPercentage"))
		return dec_i32(d, v, &c->a->preemption.min_candidate_nodes_percentage);
	if (dec_key_is(d, key, "minCandidateNodesAbsolute"))
		return dec_i32(d, v, &c->a->preemption.min_candidate_nodes_absolute);
	return dec_unknown(d, key, v);
}

static int volume_binding_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	if (dec_key_is(d, key, "bindTimeoutSeconds"))
		return dec_int(d, v, INT64_MIN, INT64_MAX, &c->a->volume_binding.bind_timeout_seconds);
	if (dec_key_is(d, key, "shape"))
		return dec_err(d, v, "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring (csched does not implement StorageCapacityScoring)");
	return dec_unknown(d, key, v);
}

/* ---------- PodTopologySpreadArgs ---------- */

static int constraint_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_topology_spread_constraint *t = ctx;
	const char *s = NULL;
	int rc;
	if (dec_key_is(d, key, "maxSkew"))
		return dec_i32(d, v, &t->max_skew);
	if (dec_key_is(d, key, "topologyKey"))
		return dec_istr(d, v, &t->topology_key);
	if (dec_key_is(d, key, "whenUnsatisfiable")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		if (strcmp(s, "DoNotSchedule") == 0)
			t->when_unsatisfiable = API_DO_NOT_SCHEDULE;
		else if (strcmp(s, "ScheduleAnyway") == 0)
			t->when_unsatisfiable = API_SCHEDULE_ANYWAY;
		else if (s[0] == '\0')
			return dec_err(d, v, "Required value: can not be empty");
		else
			return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"", s);
		return 0;
	}
	if (dec_key_is(d, key, "labelSelector"))
		return dec_err(d, v, "Forbidden: constraint must not define a selector, as they deduced for each pod");
	if (dec_key_is(d, key, "minDomains")) {
		t->has_min_domains = true;
		return dec_i32(d, v, &t->min_domains);
	}
	if (dec_key_is(d, key, "nodeAffinityPolicy") || dec_key_is(d, key, "nodeTaintsPolicy")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		enum api_inclusion_policy pol;
		if (strcmp(s, "Honor") == 0)
			pol = API_POLICY_HONOR;
		else if (strcmp(s, "Ignore") == 0)
			pol = API_POLICY_IGNORE;
		else
			return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"Honor\", \"Ignore\"", s);
		if (dec_key_is(d, key, "nodeAffinityPolicy"))
			t->node_affinity_policy = pol;
		else
			t->node_taints_policy = pol;
		return 0;
	}
	if (dec_key_is(d, key, "matchLabelKeys"))
		return dec_istr_list(d, v, &t->n_match_label_keys, &t->match_label_keys);
	return dec_unknown(d, key, v);
}

struct constraint_ctx {
	struct api_topology_spread_constraint *items;
};

static int constraint_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct constraint_ctx *c = ctx;
	struct api_topology_spread_constraint *t = &c->items[i];
	t->topology_key = intern_str("");
	t->when_unsatisfiable = (enum api_unsatisfiable)-1;
	int rc = dec_map(d, item, constraint_field, t);
	if (!rc && t->when_unsatisfiable == (enum api_unsatisfiable)-1)
		rc = dec_err(d, item, "whenUnsatisfiable: Required value: can not be empty");
	return rc;
}

static int topology_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	struct cfg_topology_spread_args *t = &c->a->topology_spread;
	if (dec_key_is(d, key, "defaultConstraints")) {
		size_t len;
		int rc = dec_seq_len(d, v, &len);
		if (rc)
			return rc;
		struct constraint_ctx cc = { .items = len ? arena_alloc(d->arena, len * sizeof(*cc.items)) : NULL };
		if (len && !cc.items)
			return nomem(d);
		t->n_default_constraints = (uint32_t)len;
		t->default_constraints = cc.items;
		return dec_seq(d, v, constraint_item, &cc);
	}
	if (dec_key_is(d, key, "defaultingType")) {
		const char *s = NULL;
		int rc = dec_str(d, v, &s);
		if (rc)
			return rc;
		if (strcmp(s, "System") == 0)
			t->defaulting_type = CFG_DEFAULTING_SYSTEM;
		else if (strcmp(s, "List") == 0)
			t->defaulting_type = CFG_DEFAULTING_LIST;
		else if (s[0])
			return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"System\", \"List\"", s);
		return 0;
	}
	return dec_unknown(d, key, v);
}

/* ---------- dispatch ---------- */

static int args_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct args_ctx *c = ctx;
	bool handled;
	int rc = type_meta(d, key, v, c, &handled);
	if (handled)
		return rc;
	switch (c->kind) {
	case CFG_ARGS_FIT:
		return fit_field(d, key, v, c);
	case CFG_ARGS_BALANCED:
		return balanced_field(d, key, v, c);
	case CFG_ARGS_NODE_AFFINITY:
		return node_affinity_field(d, key, v, c);
	case CFG_ARGS_INTER_POD_AFFINITY:
		return inter_pod_field(d, key, v, c);
	case CFG_ARGS_TOPOLOGY_SPREAD:
		return topology_field(d, key, v, c);
	case CFG_ARGS_PREEMPTION:
		return preemption_field(d, key, v, c);
	case CFG_ARGS_VOLUME_BINDING:
		return volume_binding_field(d, key, v, c);
	default:
		return dec_unknown(d, key, v);
	}
}

int cfg_args_decode(struct cfg_dec *d, yaml_node_t *n, enum cfg_args_kind kind, struct cfg_plugin_args *a)
{
	struct args_ctx c = { .kind = kind, .a = a };
	/* Explicit args replace the defaults of their own kind only. */
	struct cfg_plugin_args fresh;
	cfg_args_set_defaults(&fresh);
	switch (kind) {
	case CFG_ARGS_FIT:
		a->fit = fresh.fit;
		break;
	case CFG_ARGS_BALANCED:
		a->balanced = fresh.balanced;
		break;
	case CFG_ARGS_NODE_AFFINITY:
		a->node_affinity = fresh.node_affinity;
		break;
	case CFG_ARGS_INTER_POD_AFFINITY:
		a->inter_pod_affinity = fresh.inter_pod_affinity;
		break;
	case CFG_ARGS_TOPOLOGY_SPREAD:
		a->topology_spread = fresh.topology_spread;
		break;
	case CFG_ARGS_PREEMPTION:
		a->preemption = fresh.preemption;
		break;
	case CFG_ARGS_VOLUME_BINDING:
		a->volume_binding = fresh.volume_binding;
		break;
	default:
		return dec_err(d, n, "no args type");
	}
	int rc = dec_map(d, n, args_field, &c);
	if (rc)
		return rc;
	if (kind == CFG_ARGS_FIT)
		return fit_finish(d, &c);
	if (kind == CFG_ARGS_BALANCED && a->balanced.n_resources == 0) {
		a->balanced.n_resources = 2;
		a->balanced.resources = default_resource_spec();
	}
	return 0;
}

/* ---------- validation ---------- */

int cfg_check_shape(const struct cfg_vctx *v, const char *path, const struct cfg_shape_point *pts, uint32_t n)
{
	char p[CFG_PATH_MAX];
	if (n == 0)
		return cfg_verr(v, path, "Required value: at least one point must be specified");
	for (uint32_t i = 1; i < n; i++) {
		if (pts[i - 1].utilization >= pts[i].utilization) {
			cfg_pathf(p, sizeof(p), "%s[%u].utilization", path, i);
			return cfg_verr(v, p, "Invalid value: %d: values must be sorted in increasing order", pts[i].utilization);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (pts[i].utilization < 0 || pts[i].utilization > 100) {
			cfg_pathf(p, sizeof(p), "%s[%u].utilization", path, i);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 100]", pts[i].utilization);
		}
		if (pts[i].score < 0 || pts[i].score > 10) {
			cfg_pathf(p, sizeof(p), "%s[%u].score", path, i);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 10]", pts[i].score);
		}
	}
	return 0;
}

static int check_resource_names(const struct cfg_vctx *v, const char *path, const struct cfg_resource_weight *r,
				uint32_t n)
{
	char p[CFG_PATH_MAX];
	for (uint32_t i = 0; i < n; i++) {
		cfg_pathf(p, sizeof(p), "%s[%u].name", path, i);
		const char *m = cfg_check_qualified_name(r[i].name);
		if (m)
			return cfg_verr(v, p, "Invalid value: \"%s\": %s", r[i].name, m);
		for (uint32_t j = 0; j < i; j++)
			if (r[j].name == r[i].name)
				return cfg_verr(v, p, "Duplicate value: \"%s\"", r[i].name);
	}
	return 0;
}

static int check_requirements(const struct cfg_vctx *v, const char *path, const struct api_requirement *r,
			      uint32_t n, bool fields)
{
	char p[CFG_PATH_MAX];
	for (uint32_t i = 0; i < n; i++) {
		const struct api_requirement *q = &r[i];
		if (fields) {
			if (q->n_values != 1) {
				cfg_pathf(p, sizeof(p), "%s[%u].values", path, i);
				return cfg_verr(v, p, "Invalid value: %u values: must have one element", q->n_values);
			}
			if (q->op != API_OP_IN && q->op != API_OP_NOT_IN) {
				cfg_pathf(p, sizeof(p), "%s[%u].operator", path, i);
				return cfg_verr(v, p, "Unsupported value: \"%s\": supported values: \"In\", \"NotIn\"", op_names[q->op]);
			}
			continue;
		}
		cfg_pathf(p, sizeof(p), "%s[%u].key", path, i);
		const char *m = cfg_check_qualified_name(q->key);
		if (m)
			return cfg_verr(v, p, "Invalid value: \"%s\": %s", q->key, m);
		cfg_pathf(p, sizeof(p), "%s[%u].values", path, i);
		switch (q->op) {
		case API_OP_IN:
		case API_OP_NOT_IN:
			if (q->n_values == 0)
				return cfg_verr(v, p, "Required value: for 'in', 'notin' operators, values set can't be empty");
			break;
		case API_OP_EXISTS:
		case API_OP_DOES_NOT_EXIST:
			if (q->n_values != 0)
				return cfg_verr(v, p, "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
			break;
		case API_OP_GT:
		case API_OP_LT:
			if (q->n_values != 1)
				return cfg_verr(v, p, "Required value: for 'Gt', 'Lt' operators, exactly one value is required");
			{
				char *end;
				(void)strtoll(q->values[0], &end, 10);
				if (!q->values[0][0] || *end)
					return cfg_verr(v, p, "Invalid value: \"%s\": for 'Gt', 'Lt' operators, the value must be an integer",
							q->values[0]);
			}
			break;
		default:
			cfg_pathf(p, sizeof(p), "%s[%u].operator", path, i);
			return cfg_verr(v, p, "Unsupported value");
		}
		for (uint32_t j = 0; j < q->n_values; j++) {
			m = cfg_check_label_value(q->values[j]);
			if (m) {
				cfg_pathf(p, sizeof(p), "%s[%u].values[%u]", path, i, j);
				return cfg_verr(v, p, "Invalid value: \"%s\": %s", q->values[j], m);
			}
		}
	}
	return 0;
}

static int check_term(const struct cfg_vctx *v, const char *path, const struct api_node_selector_term *t)
{
	char p[CFG_PATH_MAX];
	cfg_pathf(p, sizeof(p), "%s.matchExpressions", path);
	int rc = check_requirements(v, p, t->exprs, t->n_exprs, false);
	if (rc)
		return rc;
	cfg_pathf(p, sizeof(p), "%s.matchFields", path);
	return check_requirements(v, p, t->fields, t->n_fields, true);
}

int cfg_args_validate(const struct cfg_vctx *v, const char *path, enum cfg_args_kind kind, const struct cfg_plugin_args *a)
{
	char p[CFG_PATH_MAX];
	int rc = 0;
	switch (kind) {
	case CFG_ARGS_FIT: {
		const struct cfg_fit_args *f = &a->fit;
		for (uint32_t i = 0; i < f->n_ignored_resources; i++) {
			cfg_pathf(p, sizeof(p), "%s.ignoredResources[%u]", path, i);
			const char *m = cfg_check_qualified_name(f->ignored_resources[i]);
			if (m)
				return cfg_verr(v, p, "Invalid value: \"%s\": %s", f->ignored_resources[i], m);
		}
		for (uint32_t i = 0; i < f->n_ignored_resource_groups; i++) {
			cfg_pathf(p, sizeof(p), "%s.ignoredResourceGroups[%u]", path, i);
			const char *g = f->ignored_resource_groups[i];
			if (strchr(g, '/'))
				return cfg_verr(v, p, "Invalid value: \"%s\": resource group name can't contain '/'", g);
			const char *m = cfg_check_qualified_name(g);
			if (m)
				return cfg_verr(v, p, "Invalid value: \"%s\": %s", g, m);
		}
		cfg_pathf(p, sizeof(p), "%s.scoringStrategy.resources", path);
		for (uint32_t i = 0; i < f->n_resources; i++) {
			if (f->resources[i].weight <= 0 || f->resources[i].weight > 100) {
				cfg_pathf(p, sizeof(p), "%s.scoringStrategy.resources[%u].weight", path, i);
				return cfg_verr(v, p, "Invalid value: %" PRId64 ": resource weight of %s not in valid range (0, 100]",
						f->resources[i].weight, f->resources[i].name);
			}
		}
		cfg_pathf(p, sizeof(p), "%s.scoringStrategy.resources", path);
		if ((rc = check_resource_names(v, p, f->resources, f->n_resources)))
			return rc;
		if (f->scoring_type == CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO) {
			cfg_pathf(p, sizeof(p), "%s.scoringStrategy.requestedToCapacityRatio.shape", path);
			return cfg_check_shape(v, p, f->shape, f->n_shape);
		}
		return 0;
	}
	case CFG_ARGS_BALANCED: {
		const struct cfg_balanced_args *b = &a->balanced;
		cfg_pathf(p, sizeof(p), "%s.resources", path);
		if ((rc = check_resource_names(v, p, b->resources, b->n_resources)))
			return rc;
		for (uint32_t i = 0; i < b->n_resources; i++) {
			if (b->resources[i].weight != 1) {
				cfg_pathf(p, sizeof(p), "%s.resources[%u].weight", path, i);
				return cfg_verr(v, p, "Invalid value: %" PRId64 ": must be 1", b->resources[i].weight);
			}
		}
		return 0;
	}
	case CFG_ARGS_NODE_AFFINITY: {
		const struct api_node_affinity *na = a->node_affinity.added_affinity;
		if (!na)
			return 0;
		for (uint32_t i = 0; i < na->n_required; i++) {
			cfg_pathf(p, sizeof(p), "%s.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%u]",
				 path, i);
			if ((rc = check_term(v, p, &na->required[i])))
				return rc;
		}
		for (uint32_t i = 0; i < na->n_preferred; i++) {
			cfg_pathf(p, sizeof(p), "%s.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%u]", path, i);
			if (na->preferred[i].weight < 1 || na->preferred[i].weight > 100) {
				char wp[CFG_PATH_MAX + 8];
				cfg_pathf(wp, sizeof(wp), "%s.weight", p);
				return cfg_verr(v, wp, "Invalid value: %d: must be in the range 1-100", na->preferred[i].weight);
			}
			char tp[CFG_PATH_MAX + 16];
			cfg_pathf(tp, sizeof(tp), "%s.preference", p);
			if ((rc = check_term(v, tp, &na->preferred[i].term)))
				return rc;
		}
		return 0;
	}
	case CFG_ARGS_INTER_POD_AFFINITY:
		if (a->inter_pod_affinity.hard_pod_affinity_weight < 0 || a->inter_pod_affinity.hard_pod_affinity_weight > 100) {
			cfg_pathf(p, sizeof(p), "%s.hardPodAffinityWeight", path);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 100]",
					a->inter_pod_affinity.hard_pod_affinity_weight);
		}
		return 0;
	case CFG_ARGS_TOPOLOGY_SPREAD: {
		const struct cfg_topology_spread_args *t = &a->topology_spread;
		if (t->defaulting_type == CFG_DEFAULTING_SYSTEM && t->n_default_constraints > 0) {
			cfg_pathf(p, sizeof(p), "%s.defaultingType", path);
			return cfg_verr(v, p, "Invalid value: \"System\": when .defaultConstraints are not empty");
		}
		for (uint32_t i = 0; i < t->n_default_constraints; i++) {
			const struct api_topology_spread_constraint *c = &t->default_constraints[i];
			if (c->max_skew <= 0) {
				cfg_pathf(p, sizeof(p), "%s.defaultConstraints[%u].maxSkew", path, i);
				return cfg_verr(v, p, "Invalid value: %d: not in valid range (0, inf)", c->max_skew);
			}
			cfg_pathf(p, sizeof(p), "%s.defaultConstraints[%u].topologyKey", path, i);
			if (!c->topology_key || !c->topology_key[0])
				return cfg_verr(v, p, "Required value: can not be empty");
			const char *m = cfg_check_qualified_name(c->topology_key);
			if (m)
				return cfg_verr(v, p, "Invalid value: \"%s\": %s", c->topology_key, m);
			for (uint32_t j = 0; j < i; j++) {
				const struct api_topology_spread_constraint *o = &t->default_constraints[j];
				if (o->topology_key == c->topology_key && o->when_unsatisfiable == c->when_unsatisfiable) {
					cfg_pathf(p, sizeof(p), "%s.defaultConstraints[%u]", path, i);
					return cfg_verr(v, p, "Duplicate value: \"{%s, %s}\"", c->topology_key,
							c->when_unsatisfiable == API_DO_NOT_SCHEDULE ? "DoNotSchedule" : "ScheduleAnyway");
				}
			}
		}
		return 0;
	}
	case CFG_ARGS_PREEMPTION: {
		const struct cfg_preemption_args *pa = &a->preemption;
		if (pa->min_candidate_nodes_percentage < 0 || pa->min_candidate_nodes_percentage > 100) {
			cfg_pathf(p, sizeof(p), "%s.minCandidateNodesPercentage", path);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 100]", pa->min_candidate_nodes_percentage);
		}
		if (pa->min_candidate_nodes_absolute < 0) {
			cfg_pathf(p, sizeof(p), "%s.minCandidateNodesAbsolute", path);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, inf)", pa->min_candidate_nodes_absolute);
		}
		if (pa->min_candidate_nodes_percentage == 0 && pa->min_candidate_nodes_absolute == 0) {
			cfg_pathf(p, sizeof(p), "%s.minCandidateNodesPercentage", path);
			return cfg_verr(v, p, "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute");
		}
		return 0;
	}
	case CFG_ARGS_VOLUME_BINDING:
		if (a->volume_binding.bind_timeout_seconds < 0) {
			cfg_pathf(p, sizeof(p), "%s.bindTimeoutSeconds", path);
			return cfg_verr(v, p, "Invalid value: %" PRId64 ": invalid BindTimeoutSeconds, should not be a negative value",
					a->volume_binding.bind_timeout_seconds);
		}
		return 0;
	default:
		return 0;
	}
}

/* ---------- writing ---------- */

static void w_key(FILE *f, int ind, const char *key)
{
	cfg_write_indent(f, ind);
	fprintf(f, "%s:", key);
}

static void w_resources(FILE *f, int ind, const char *key, const struct cfg_resource_weight *r, uint32_t n)
{
	if (!n)
		return;
	w_key(f, ind, key);
	fputc('\n', f);
	for (uint32_t i = 0; i < n; i++) {
		cfg_write_indent(f, ind);
		fputs("- name: ", f);
		cfg_write_str(f, r[i].name);
		fputc('\n', f);
		cfg_write_indent(f, ind + 2);
		fprintf(f, "weight: %" PRId64 "\n", r[i].weight);
	}
}

static void w_strs(FILE *f, int ind, const char *key, const char *const *s, uint32_t n)
{
	if (!n)
		return;
	w_key(f, ind, key);
	fputc('\n', f);
	for (uint32_t i = 0; i < n; i++) {
		cfg_write_indent(f, ind);
		fputs("- ", f);
		cfg_write_str(f, s[i]);
		fputc('\n', f);
	}
}

static void w_reqs(FILE *f, int ind, const char *key, const struct api_requirement *r, uint32_t n)
{
	if (!n)
		return;
	w_key(f, ind, key);
	fputc('\n', f);
	for (uint32_t i = 0; i < n; i++) {
		cfg_write_indent(f, ind);
		fputs("- key: ", f);
		cfg_write_str(f, r[i].key);
		fputc('\n', f);
		cfg_write_indent(f, ind + 2);
		fprintf(f, "operator: %s\n", (unsigned)r[i].op < 6 ? op_names[r[i].op] : "Unknown");
		w_strs(f, ind + 2, "values", r[i].values, r[i].n_values);
	}
}

static void w_term(FILE *f, int ind, const struct api_node_selector_term *t)
{
	if (!t->n_exprs && !t->n_fields) {
		fputs(" {}\n", f);
		return;
	}
	fputc('\n', f);
	w_reqs(f, ind, "matchExpressions", t->exprs, t->n_exprs);
	w_reqs(f, ind, "matchFields", t->fields, t->n_fields);
}

void cfg_args_write(FILE *f, int ind, enum cfg_args_kind kind, const struct cfg_plugin_args *a)
{
	w_key(f, ind, "apiVersion");
	fprintf(f, " %s\n", CFG_API_VERSION);
	w_key(f, ind, "kind");
	fprintf(f, " %s\n", kind_name[kind]);
	switch (kind) {
	case CFG_ARGS_FIT: {
		const struct cfg_fit_args *fa = &a->fit;
		w_strs(f, ind, "ignoredResources", fa->ignored_resources, fa->n_ignored_resources);
		w_strs(f, ind, "ignoredResourceGroups", fa->ignored_resource_groups, fa->n_ignored_resource_groups);
		w_key(f, ind, "scoringStrategy");
		fputc('\n', f);
		w_key(f, ind + 2, "type");
		fprintf(f, " %s\n", scoring_names[fa->scoring_type]);
		w_resources(f, ind + 2, "resources", fa->resources, fa->n_resources);
		if (fa->scoring_type == CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO) {
			w_key(f, ind + 2, "requestedToCapacityRatio");
			fputc('\n', f);
			w_key(f, ind + 4, "shape");
			fputs(fa->n_shape ? "\n" : " []\n", f);
			for (uint32_t i = 0; i < fa->n_shape; i++) {
				cfg_write_indent(f, ind + 4);
				fprintf(f, "- utilization: %d\n", fa->shape[i].utilization);
				cfg_write_indent(f, ind + 6);
				fprintf(f, "score: %d\n", fa->shape[i].score);
			}
		}
		break;
	}
	case CFG_ARGS_BALANCED:
		w_resources(f, ind, "resources", a->balanced.resources, a->balanced.n_resources);
		break;
	case CFG_ARGS_NODE_AFFINITY: {
		const struct api_node_affinity *na = a->node_affinity.added_affinity;
		if (!na)
			break;
		w_key(f, ind, "addedAffinity");
		if (!na->has_required && !na->n_preferred) {
			fputs(" {}\n", f);
			break;
		}
		fputc('\n', f);
		if (na->has_required) {
			w_key(f, ind + 2, "requiredDuringSchedulingIgnoredDuringExecution");
			fputc('\n', f);
			w_key(f, ind + 4, "nodeSelectorTerms");
			fputs(na->n_required ? "\n" : " []\n", f);
			for (uint32_t i = 0; i < na->n_required; i++) {
				cfg_write_indent(f, ind + 4);
				fputs("-", f);
				w_term(f, ind + 6, &na->required[i]);
			}
		}
		if (na->n_preferred) {
			w_key(f, ind + 2, "preferredDuringSchedulingIgnoredDuringExecution");
			fputc('\n', f);
			for (uint32_t i = 0; i < na->n_preferred; i++) {
				cfg_write_indent(f, ind + 2);
				fprintf(f, "- weight: %d\n", na->preferred[i].weight);
				w_key(f, ind + 4, "preference");
				w_term(f, ind + 6, &na->preferred[i].term);
			}
		}
		break;
	}
	case CFG_ARGS_INTER_POD_AFFINITY:
		w_key(f, ind, "hardPodAffinityWeight");
		fprintf(f, " %d\n", a->inter_pod_affinity.hard_pod_affinity_weight);
		if (a->inter_pod_affinity.ignore_preferred_terms_of_existing_pods) {
			w_key(f, ind, "ignorePreferredTermsOfExistingPods");
			fputs(" true\n", f);
		}
		break;
	case CFG_ARGS_TOPOLOGY_SPREAD: {
		const struct cfg_topology_spread_args *t = &a->topology_spread;
		if (t->n_default_constraints) {
			w_key(f, ind, "defaultConstraints");
			fputc('\n', f);
		}
		for (uint32_t i = 0; i < t->n_default_constraints; i++) {
			const struct api_topology_spread_constraint *c = &t->default_constraints[i];
			cfg_write_indent(f, ind);
			fprintf(f, "- maxSkew: %d\n", c->max_skew);
			w_key(f, ind + 2, "topologyKey");
			fputc(' ', f);
			cfg_write_str(f, c->topology_key);
			fputc('\n', f);
			w_key(f, ind + 2, "whenUnsatisfiable");
			fprintf(f, " %s\n", c->when_unsatisfiable == API_DO_NOT_SCHEDULE ? "DoNotSchedule" : "ScheduleAnyway");
			if (c->has_min_domains) {
				w_key(f, ind + 2, "minDomains");
				fprintf(f, " %d\n", c->min_domains);
			}
			if (c->node_affinity_policy != API_POLICY_UNSET) {
				w_key(f, ind + 2, "nodeAffinityPolicy");
				fprintf(f, " %s\n", c->node_affinity_policy == API_POLICY_HONOR ? "Honor" : "Ignore");
			}
			if (c->node_taints_policy != API_POLICY_UNSET) {
				w_key(f, ind + 2, "nodeTaintsPolicy");
				fprintf(f, " %s\n", c->node_taints_policy == API_POLICY_HONOR ? "Honor" : "Ignore");
			}
			w_strs(f, ind + 2, "matchLabelKeys", c->match_label_keys, c->n_match_label_keys);
		}
		w_key(f, ind, "defaultingType");
		fprintf(f, " %s\n", t->defaulting_type == CFG_DEFAULTING_LIST ? "List" : "System");
		break;
	}
	case CFG_ARGS_PREEMPTION:
		w_key(f, ind, "minCandidateNodesPercentage");
		fprintf(f, " %d\n", a->preemption.min_candidate_nodes_percentage);
		w_key(f, ind, "minCandidateNodesAbsolute");
		fprintf(f, " %d\n", a->preemption.min_candidate_nodes_absolute);
		break;
	case CFG_ARGS_VOLUME_BINDING:
		w_key(f, ind, "bindTimeoutSeconds");
		fprintf(f, " %" PRId64 "\n", a->volume_binding.bind_timeout_seconds);
		break;
	default:
		break;
	}
}
