/* The legacy Policy file (kind: Policy, apiVersion: v1; removed upstream in v1.23), mapped to
 * one profile the way upstream's legacy registry (framework/plugins/legacy_registry.go, v1.22)
 * did, onto today's plugin names. docs/config.md holds the table and the differences.
 *
 * Keys are matched case-insensitively (the Policy was decoded by encoding/json, which does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "cfg_internal.h"

#define MAX_PLUGINS 4

enum legacy_fit { FIT_NONE, FIT_LEAST, FIT_MOST, FIT_RTCR };

struct legacy {
	const char *name;
	const char *plugins[MAX_PLUGINS]; /* NULL-terminated; none = maps to nothing */
	const char *unsupported;          /* why csched refuses it, or NULL */
	enum legacy_fit fit;              /* priorities served by NodeResourcesFit's scoringStrategy */
};

/* Upstream's predicateOrdering: filters run in this order whatever the file's order. */
static const struct legacy predicates[] = {
	{ "CheckNodeUnschedulable", { "NodeUnschedulable" }, NULL, FIT_NONE },
	{ "GeneralPredicates", { "NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity" }, NULL, FIT_NONE },
	{ "HostName", { "NodeName" }, NULL, FIT_NONE },
	{ "PodFitsHostPorts", { "NodePorts" }, NULL, FIT_NONE },
	{ "MatchNodeSelector", { "NodeAffinity" }, NULL, FIT_NONE },
	{ "PodFitsResources", { "NodeResourcesFit" }, NULL, FIT_NONE },
	{ "NoDiskConflict", { "VolumeRestrictions" }, NULL, FIT_NONE },
	{ "PodToleratesNodeTaints", { "TaintToleration" }, NULL, FIT_NONE },
	{ "CheckNodeLabelPresence", { NULL }, "its NodeLabel plugin was removed upstream in v1.23", FIT_NONE },
	{ "CheckServiceAffinity", { NULL }, "its ServiceAffinity plugin was removed upstream in v1.23", FIT_NONE },
	{ "MaxEBSVolumeCount", { NULL }, "its EBSLimits plugin was removed upstream in v1.32 (use MaxCSIVolumeCountPred)", FIT_NONE },
	{ "MaxGCEPDVolumeCount", { NULL }, "its GCEPDLimits plugin was removed upstream in v1.32 (use MaxCSIVolumeCountPred)", FIT_NONE },
	{ "MaxCSIVolumeCountPred", { "NodeVolumeLimits" }, NULL, FIT_NONE },
	{ "MaxAzureDiskVolumeCount", { NULL }, "its AzureDiskLimits plugin was removed upstream in v1.32 (use MaxCSIVolumeCountPred)", FIT_NONE },
	{ "MaxCinderVolumeCount", { NULL }, "its CinderLimits plugin was removed upstream in v1.32 (use MaxCSIVolumeCountPred)", FIT_NONE },
	{ "CheckVolumeBinding", { "VolumeBinding" }, NULL, FIT_NONE },
	{ "NoVolumeZoneConflict", { "VolumeZone" }, NULL, FIT_NONE },
	{ "EvenPodsSpread", { "PodTopologySpread" }, NULL, FIT_NONE },
	{ "MatchInterPodAffinity", { "InterPodAffinity" }, NULL, FIT_NONE },
};
#define N_PRED (sizeof(predicates) / sizeof(predicates[0]))

/* Keys as upstream's registry; a priority with requestedToCapacityRatioArguments is keyed
 * "RequestedToCapacityRatio" whatever its name. Processed in key order (upstream sorts). */
static const struct legacy priorities[] = {
	{ "BalancedResourceAllocation", { "NodeResourcesBalancedAllocation" }, NULL, FIT_NONE },
	{ "EvenPodsSpreadPriority", { "PodTopologySpread" }, NULL, FIT_NONE },
	{ "ImageLocalityPriority", { "ImageLocality" }, NULL, FIT_NONE },
	{ "InterPodAffinityPriority", { "InterPodAffinity" }, NULL, FIT_NONE },
	{ "LeastRequestedPriority", { "NodeResourcesFit" }, NULL, FIT_LEAST },
	{ "MostRequestedPriority", { "NodeResourcesFit" }, NULL, FIT_MOST },
	{ "NodeAffinityPriority", { "NodeAffinity" }, NULL, FIT_NONE },
	{ "NodePreferAvoidPodsPriority", { NULL }, "its NodePreferAvoidPods plugin was removed upstream in v1.24", FIT_NONE },
	{ "RequestedToCapacityRatio", { "NodeResourcesFit" }, NULL, FIT_RTCR },
	{ "SelectorSpreadPriority", { "PodTopologySpread" }, NULL, FIT_NONE },
	{ "TaintTolerationPriority", { "TaintToleration" }, NULL, FIT_NONE },
};
#define N_PRIO (sizeof(priorities) / sizeof(priorities[0]))

/* Used when the file has no "predicates" / "priorities" key at all (an empty list is not
 * absent): upstream's DefaultPredicates / DefaultPriorities. csched skips the entries whose
 * plugin it does not implement yet, as it does for its default profile. */
static const char *const default_predicates[] = {
	"NoVolumeZoneConflict", "MaxCSIVolumeCountPred", "MatchInterPodAffinity", "NoDiskConflict", "GeneralPredicates",
	"PodToleratesNodeTaints", "CheckVolumeBinding", "CheckNodeUnschedulable", "EvenPodsSpread",
};
static const struct {
	const char *name;
	int64_t weight;
} default_priorities[] = {
	{ "InterPodAffinityPriority", 1 }, { "LeastRequestedPriority", 1 }, { "BalancedResourceAllocation", 1 },
	{ "NodeAffinityPriority", 1 }, { "TaintTolerationPriority", 1 }, { "ImageLocalityPriority", 1 },
	{ "EvenPodsSpreadPriority", 2 }, /* SelectorSpreadPriority and NodePreferAvoidPodsPriority also, see docs */
};

/* ---------- decoded file ---------- */

struct pol_pred {
	const char *name;
	yaml_node_t *node;
};

struct pol_prio {
	const char *name;
	int64_t weight;
	bool has_weight;
	yaml_node_t *node, *name_node;
	bool rtcr;
	uint32_t n_shape, n_resources;
	struct cfg_shape_point *shape;
	struct cfg_resource_weight *resources;
	yaml_node_t *rtcr_node;
};

struct pol {
	struct config *cfg;
	bool has_api_version, has_kind, has_predicates, has_priorities;
	size_t n_preds, n_prios;
	struct pol_pred *preds;
	struct pol_prio *prios;
	int32_t hard_weight;
	yaml_node_t *hard_node;
};

static int nomem(struct cfg_dec *d)
{
	return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
}

static int unsupported_arg(struct cfg_dec *d, yaml_node_t *v, const char *what)
{
	return dec_err(d, v, "%s is not supported by csched (its plugin was removed upstream in v1.23)", what);
}

static int pred_arg_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	(void)ctx;
	if (dec_key_is(d, key, "serviceAffinity"))
		return unsupported_arg(d, v, "the serviceAffinity argument (ServiceAffinity)");
	if (dec_key_is(d, key, "labelsPresence"))
		return unsupported_arg(d, v, "the labelsPresence argument (NodeLabel)");
	return dec_unknown(d, key, v);
}

static int pred_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pol_pred *p = ctx;
	if (dec_key_is(d, key, "name")) {
		p->node = v;
		return dec_str(d, v, &p->name);
	}
	if (dec_key_is(d, key, "argument"))
		return dec_map(d, v, pred_arg_field, p);
	return dec_unknown(d, key, v);
}

static int pred_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct pol *pol = ctx;
	struct pol_pred *p = &pol->preds[i];
	p->node = item;
	int rc = dec_map(d, item, pred_field, p);
	if (!rc && (!p->name || !p->name[0]))
		rc = dec_err(d, item, "name: Required value");
	return rc;
}

static int rtcr_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pol_prio *p = ctx;
	if (dec_key_is(d, key, "shape"))
		return cfg_dec_shape(d, v, &p->n_shape, &p->shape);
	if (dec_key_is(d, key, "resources"))
		return cfg_dec_resources(d, v, &p->n_resources, &p->resources);
	return dec_unknown(d, key, v);
}

static int prio_arg_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pol_prio *p = ctx;
	if (dec_key_is(d, key, "serviceAntiAffinity"))
		return unsupported_arg(d, v, "the serviceAntiAffinity argument (ServiceAffinity)");
	if (dec_key_is(d, key, "labelPreference"))
		return unsupported_arg(d, v, "the labelPreference argument (NodeLabel)");
	if (dec_key_is(d, key, "requestedToCapacityRatioArguments")) {
		p->rtcr = true;
		p->rtcr_node = v;
		return dec_map(d, v, rtcr_field, p);
	}
	return dec_unknown(d, key, v);
}

static int prio_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pol_prio *p = ctx;
	if (dec_key_is(d, key, "name")) {
		p->name_node = v;
		return dec_str(d, v, &p->name);
	}
	if (dec_key_is(d, key, "weight")) {
		p->has_weight = true;
		int rc = dec_int(d, v, INT64_MIN, INT64_MAX, &p->weight);
		/* Upstream requires a positive weight; csched's score weights are 1..100. */
		if (!rc && (p->weight < 1 || p->weight > CFG_MAX_PLUGIN_WEIGHT))
			rc = dec_err(d, v, "must be in the range 1..%d, got %lld", CFG_MAX_PLUGIN_WEIGHT, (long long)p->weight);
		return rc;
	}
	if (dec_key_is(d, key, "argument"))
		return dec_map(d, v, prio_arg_field, p);
	return dec_unknown(d, key, v);
}

static int prio_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct pol *pol = ctx;
	struct pol_prio *p = &pol->prios[i];
	p->node = item;
	int rc = dec_map(d, item, prio_field, p);
	if (rc)
		return rc;
	if (!p->name || !p->name[0])
		return dec_err(d, item, "name: Required value");
	if (!p->has_weight)
		return dec_err(d, item, "weight: priority %s should have a positive weight applied to it", p->name);
	return 0;
}

/* Zeroed arena room for the *n items of sequence v, size bytes each (NULL when empty). */
static int alloc_seq(struct cfg_dec *d, yaml_node_t *v, size_t size, void **items, size_t *n)
{
	int rc = dec_seq_len(d, v, n);
	if (rc)
		return rc;
	*items = *n ? arena_alloc(d->arena, *n * size) : NULL;
	return *n && !*items ? nomem(d) : 0;
}

static int top_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pol *pol = ctx;
	const char *s = NULL;
	void *items;
	int rc;
	if (dec_key_is(d, key, "kind")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		pol->has_kind = true;
		return strcmp(s, "Policy") ? dec_err(d, v, "unsupported kind \"%s\": want Policy", s) : 0;
	}
	if (dec_key_is(d, key, "apiVersion")) {
		if ((rc = dec_str(d, v, &s)))
			return rc;
		pol->has_api_version = true;
		return strcmp(s, "v1") ? dec_err(d, v, "unsupported apiVersion \"%s\": want v1", s) : 0;
	}
	if (dec_key_is(d, key, "predicates")) {
		pol->has_predicates = true;
		if ((rc = alloc_seq(d, v, sizeof(*pol->preds), &items, &pol->n_preds)))
			return rc;
		pol->preds = items;
		return dec_seq(d, v, pred_item, pol);
	}
	if (dec_key_is(d, key, "priorities")) {
		pol->has_priorities = true;
		if ((rc = alloc_seq(d, v, sizeof(*pol->prios), &items, &pol->n_prios)))
			return rc;
		pol->prios = items;
		return dec_seq(d, v, prio_item, pol);
	}
	if (dec_key_is(d, key, "extenders") || dec_key_is(d, key, "extenderConfigs"))
		return cfg_decode_extenders(d, v, true, pol->cfg);
	if (dec_key_is(d, key, "hardPodAffinitySymmetricWeight")) {
		pol->hard_node = v;
		if ((rc = dec_i32(d, v, &pol->hard_weight)))
			return rc;
		if (pol->hard_weight < 0 || pol->hard_weight > 100)
			return dec_err(d, v, "Invalid value: %d: not in valid range [0-100]", pol->hard_weight);
		return 0;
	}
	if (dec_key_is(d, key, "alwaysCheckAllPredicates")) {
		bool b;
		if ((rc = dec_bool(d, v, &b)))
			return rc;
		/* Upstream ran every filter even after a failure; KubeSchedulerConfiguration has no
		 * equivalent and csched stops at a node's first failing filter. */
		if (b)
			return dec_err(d, v, "alwaysCheckAllPredicates: true is not supported by csched (filters stop at a node's first failure, as in KubeSchedulerConfiguration)");
		return 0;
	}
	return dec_unknown(d, key, v);
}

/* ---------- mapping ---------- */

struct builder {
	struct arena *a;
	const struct cfg_registry *reg;
	struct cfg_plugin *items[CFG_EP_COUNT];
	uint32_t n[CFG_EP_COUNT];
};

static int add(struct builder *b, int ep, const char *name, int32_t weight)
{
	for (uint32_t i = 0; i < b->n[ep]; i++)
		if (strcmp(b->items[ep][i].name, name) == 0)
			return 0; /* upstream's appendToPluginSet keeps the first entry */
	if (!b->items[ep]) {
		b->items[ep] = arena_alloc(b->a, 32 * sizeof(struct cfg_plugin));
		if (!b->items[ep])
			return ERR_NOMEM;
	}
	if (b->n[ep] == 32)
		return ERR_INVALID;
	const char *in = intern_str(name);
	if (!in)
		return ERR_NOMEM;
	b->items[ep][b->n[ep]++] = (struct cfg_plugin){ .name = in, .weight = weight };
	return 0;
}

/* Enables plugin at the points it implements among mask (predicates: everything but
 * PreScore/Score; priorities: PreScore and Score). */
static int add_plugin(struct builder *b, const char *plugin, unsigned mask, int32_t weight)
{
	const struct cfg_plugin_desc *info = cfg_registry_lookup(b->reg, plugin);
	for (int ep = 0; ep < CFG_EP_COUNT; ep++) {
		if (!(info->points & mask & CFG_EP_BIT(ep)))
			continue;
		int rc = add(b, ep, plugin, ep == CFG_EP_SCORE ? weight : 0);
		if (rc)
			return rc;
	}
	return 0;
}

static const struct legacy *find(const struct legacy *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

static bool all_implemented(const struct cfg_registry *reg, const struct legacy *l)
{
	for (int i = 0; i < MAX_PLUGINS && l->plugins[i]; i++)
		if (!cfg_registry_lookup(reg, l->plugins[i])->implemented)
			return false;
	return true;
}

/* Error for a legacy name csched cannot honour, or 0. */
static int check_supported(struct cfg_dec *d, yaml_node_t *n, const char *kind, const char *name, const struct legacy *l)
{
	if (l->unsupported)
		return dec_err(d, n, "%s \"%s\" is not supported by csched: %s", kind, name, l->unsupported);
	for (int i = 0; i < MAX_PLUGINS && l->plugins[i]; i++)
		if (!cfg_registry_lookup(d->reg, l->plugins[i])->implemented)
			return dec_err(d, n, "%s \"%s\" maps to plugin %s: plugin %s is not implemented by csched yet", kind, name,
				       l->plugins[i], l->plugins[i]);
	return 0;
}

/* Legacy names upstream accepted as aliases of a registry key. */
static const struct {
	const char *alias, *key;
} aliases[] = {
	{ "PodFitsPorts", "PodFitsHostPorts" },
	{ "ServiceSpreadingPriority", "SelectorSpreadPriority" },
};

static const char *unalias(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(aliases[i].alias, name) == 0)
			return aliases[i].key;
	return name;
}

/* Pushes "<list>[i].name" for a message about that entry; returns the length for dec_pop. */
static size_t push_name(struct cfg_dec *d, const char *list, size_t i)
{
	size_t saved = dec_push_key(d, list);
	dec_push_index(d, i);
	dec_push_key(d, "name");
	return saved;
}

/* The mapping's state: which legacy entries are wanted, with what weight. */
struct mapping {
	bool want_pred[N_PRED];
	int64_t prio_weight[N_PRIO];
	const struct pol_prio *rtcr;    /* the priority with requestedToCapacityRatioArguments */
	const struct legacy *fit_prio;  /* the priority setting NodeResourcesFit's scoringStrategy */
};

static int check_predicate(struct cfg_dec *d, const struct pol *pol, size_t i, const struct legacy **out)
{
	const char *name = pol->preds[i].name;
	const struct legacy *l = find(predicates, N_PRED, unalias(name));
	size_t saved = push_name(d, "predicates", i);
	int rc = 0;
	for (size_t j = 0; j < i && !rc; j++)
		if (strcmp(pol->preds[j].name, name) == 0)
			rc = dec_err(d, pol->preds[i].node, "duplicate predicate name %s", name);
	if (!rc)
		rc = l ? check_supported(d, pol->preds[i].node, "predicate", name, l)
		       : dec_err(d, pol->preds[i].node, "predicate type not found for \"%s\"", name);
	dec_pop(d, saved);
	*out = l;
	return rc;
}

static int want_predicates(struct cfg_dec *d, const struct pol *pol, struct mapping *m)
{
	if (!pol->has_predicates) {
		for (size_t i = 0; i < sizeof(default_predicates) / sizeof(default_predicates[0]); i++) {
			const struct legacy *l = find(predicates, N_PRED, default_predicates[i]);
			if (all_implemented(d->reg, l))
				m->want_pred[l - predicates] = true;
		}
	}
	for (size_t i = 0; i < pol->n_preds; i++) {
		const struct legacy *l;
		int rc = check_predicate(d, pol, i, &l);
		if (rc)
			return rc;
		m->want_pred[l - predicates] = true;
	}
	/* Mandatory since TaintNodesByCondition: configured whatever the file says. */
	m->want_pred[find(predicates, N_PRED, "PodToleratesNodeTaints") - predicates] = true;
	m->want_pred[find(predicates, N_PRED, "CheckNodeUnschedulable") - predicates] = true;
	return 0;
}

/* Checks priority i and finds its legacy entry (*out; NULL for EqualPriority): keyed by its
 * name, an alias's target, or "RequestedToCapacityRatio" for any name with
 * requestedToCapacityRatioArguments. */
static int check_priority(struct cfg_dec *d, const struct pol *pol, size_t i, struct mapping *m,
			  const struct legacy **out)
{
	const struct pol_prio *p = &pol->prios[i];
	size_t saved = push_name(d, "priorities", i);
	int rc = 0;
	const struct legacy *l = NULL;
	for (size_t j = 0; j < i && !rc; j++)
		if (strcmp(pol->prios[j].name, p->name) == 0)
			rc = dec_err(d, p->name_node, "duplicate priority name %s", p->name);
	/* EqualPriority: every node scores the same, no plugin, as upstream skipped it. */
	if (rc || strcmp(p->name, "EqualPriority") == 0)
		goto out;
	l = find(priorities, N_PRIO, p->rtcr ? "RequestedToCapacityRatio" : unalias(p->name));
	if (!l)
		rc = dec_err(d, p->name_node, "priority type not found for \"%s\"%s", p->name,
			     strcmp(p->name, "RequestedToCapacityRatioPriority") == 0
				     ? " (it needs argument.requestedToCapacityRatioArguments)" : "");
	else
		rc = check_supported(d, p->name_node, "priority", p->name, l);
	if (!rc && l->fit != FIT_NONE) {
		if (m->fit_prio && m->fit_prio != l)
			rc = dec_err(d, p->name_node, "priority \"%s\" cannot be combined with %s: both map to NodeResourcesFit's single scoringStrategy",
				     p->name, m->fit_prio->name);
		m->fit_prio = l;
	}
out:
	dec_pop(d, saved);
	*out = l;
	return rc;
}

static int want_priorities(struct cfg_dec *d, const struct pol *pol, struct mapping *m)
{
	if (!pol->has_priorities) {
		for (size_t i = 0; i < sizeof(default_priorities) / sizeof(default_priorities[0]); i++) {
			const struct legacy *l = find(priorities, N_PRIO, default_priorities[i].name);
			if (all_implemented(d->reg, l))
				m->prio_weight[l - priorities] = default_priorities[i].weight;
		}
	}
	for (size_t i = 0; i < pol->n_prios; i++) {
		const struct legacy *l;
		int rc = check_priority(d, pol, i, m, &l);
		if (rc)
			return rc;
		if (!l)
			continue;
		if (pol->prios[i].rtcr)
			m->rtcr = &pol->prios[i];
		m->prio_weight[l - priorities] = pol->prios[i].weight;
	}
	return 0;
}

/* Enables the wanted entries' plugins: predicates at every point but PreScore/Score,
 * priorities at PreScore and Score with the priority's weight. */
static int add_wanted(struct builder *b, const struct pol *pol, struct mapping *m)
{
	const unsigned scoring = CFG_EP_BIT(CFG_EP_PRE_SCORE) | CFG_EP_BIT(CFG_EP_SCORE);
	for (size_t i = 0; i < N_PRED; i++)
		for (int k = 0; m->want_pred[i] && k < MAX_PLUGINS && predicates[i].plugins[k]; k++)
			if (add_plugin(b, predicates[i].plugins[k], ~scoring, 0))
				return ERR_NOMEM;
	for (size_t i = 0; i < N_PRIO; i++) {
		if (!m->prio_weight[i])
			continue;
		for (int k = 0; k < MAX_PLUGINS && priorities[i].plugins[k]; k++)
			if (add_plugin(b, priorities[i].plugins[k], scoring, (int32_t)m->prio_weight[i]))
				return ERR_NOMEM;
		if (!pol->has_priorities && priorities[i].fit != FIT_NONE)
			m->fit_prio = &priorities[i];
	}
	/* PrioritySort, DefaultPreemption (PostFilter) and DefaultBinder were neither predicates nor
	 * priorities: upstream added them. csched also adds SchedulingGates (PreEnqueue) so that gated
	 * pods keep waiting. */
	if (add(b, CFG_EP_PRE_ENQUEUE, "SchedulingGates", 0) || add(b, CFG_EP_QUEUE_SORT, "PrioritySort", 0) ||
	    add(b, CFG_EP_POST_FILTER, "DefaultPreemption", 0) || add(b, CFG_EP_BIND, "DefaultBinder", 0))
		return ERR_NOMEM;
	return 0;
}

/* The one profile of a Policy: the builder's plugins and no default plugin. */
static struct cfg_profile *build_profile(struct cfg_dec *d, const struct builder *b, struct config *cfg)
{
	cfg->profiles = arena_alloc(d->arena, sizeof(*cfg->profiles));
	const char **star = arena_alloc(d->arena, sizeof(char *));
	if (!cfg->profiles || !star || !(star[0] = intern_str("*")))
		return NULL;
	cfg->n_profiles = 1;
	struct cfg_profile *prof = &cfg->profiles[0];
	memset(prof, 0, sizeof(*prof));
	cfg_args_set_defaults(&prof->args);
	prof->scheduler_name = CFG_DEFAULT_SCHEDULER_NAME;
	for (int ep = 0; ep < CFG_EP_COUNT; ep++) {
		prof->plugins.sets[ep].enabled = b->items[ep];
		prof->plugins.sets[ep].n_enabled = b->n[ep];
	}
	prof->plugins.sets[CFG_EP_MULTI_POINT].disabled = star;
	prof->plugins.sets[CFG_EP_MULTI_POINT].n_disabled = 1;
	return prof;
}

/* requestedToCapacityRatioArguments: checked like NodeResourcesFitArgs, then its shape and
 * resources (if any) replace the defaults. */
static int apply_rtcr(struct cfg_dec *d, const struct pol *pol, const struct pol_prio *rtcr, struct cfg_fit_args *f)
{
	char path[CFG_PATH_MAX];
	struct cfg_vctx v = { .file = d->file, .marks = d->marks, .e = d->e };
	size_t idx = (size_t)(rtcr - pol->prios);
	int rc;
	cfg_pathf(path, sizeof(path), "priorities[%zu].argument.requestedToCapacityRatioArguments.shape", idx);
	if ((rc = cfg_check_shape(&v, path, rtcr->shape, rtcr->n_shape)))
		return rc;
	for (uint32_t i = 0; i < rtcr->n_resources; i++) {
		if (rtcr->resources[i].weight < 1 || rtcr->resources[i].weight > 100) {
			cfg_pathf(path, sizeof(path), "priorities[%zu].argument.requestedToCapacityRatioArguments.resources[%u].weight",
				 idx, i);
			return cfg_verr(&v, path, "Invalid value: %lld: resource weight of %s not in valid range (0, 100]",
					(long long)rtcr->resources[i].weight, rtcr->resources[i].name);
		}
	}
	f->shape = rtcr->shape;
	f->n_shape = rtcr->n_shape;
	if (rtcr->n_resources) {
		f->resources = rtcr->resources;
		f->n_resources = rtcr->n_resources;
	}
	return 0;
}

/* The legacy fit priority's scoringStrategy and hardPodAffinitySymmetricWeight, as pluginConfig. */
static int apply_args(struct cfg_dec *d, const struct pol *pol, const struct mapping *m, struct cfg_profile *prof)
{
	static const enum cfg_scoring_type scoring[] = {
		[FIT_NONE] = CFG_SCORING_LEAST_ALLOCATED, [FIT_LEAST] = CFG_SCORING_LEAST_ALLOCATED,
		[FIT_MOST] = CFG_SCORING_MOST_ALLOCATED, [FIT_RTCR] = CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO,
	};
	int rc;
	if (m->fit_prio) {
		prof->args.fit.scoring_type = scoring[m->fit_prio->fit];
		if (m->rtcr && (rc = apply_rtcr(d, pol, m->rtcr, &prof->args.fit)))
			return rc;
		prof->plugin_config[prof->n_plugin_config++] = CFG_ARGS_FIT;
	}
	if (pol->hard_weight != 0) {
		prof->args.inter_pod_affinity.hard_pod_affinity_weight = pol->hard_weight;
		prof->plugin_config[prof->n_plugin_config++] = CFG_ARGS_INTER_POD_AFFINITY;
	}
	return 0;
}

static int map_policy(struct cfg_dec *d, struct pol *pol, struct config *cfg)
{
	struct builder b = { .a = d->arena, .reg = d->reg };
	struct mapping m = { .rtcr = NULL };
	int rc;
	if ((rc = want_predicates(d, pol, &m)) || (rc = want_priorities(d, pol, &m)))
		return rc;
	if (add_wanted(&b, pol, &m))
		return nomem(d);
	struct cfg_profile *prof = build_profile(d, &b, cfg);
	if (!prof)
		return nomem(d);
	return apply_args(d, pol, &m, prof);
}

int cfg_policy_decode(struct cfg_dec *d, yaml_node_t *root, struct config *cfg)
{
	struct pol pol = { .cfg = cfg };
	if (root && root->type != YAML_MAPPING_NODE && !dec_is_null(root))
		return dec_err(d, root, "expected a mapping at the top level");
	int rc = root ? dec_map(d, root, top_field, &pol) : 0;
	if (rc)
		return rc;
	if (!pol.has_kind)
		return dec_err(d, root, "kind: Required value: want Policy");
	if (!pol.has_api_version)
		return dec_err(d, root, "apiVersion: Required value: want v1");
	if ((rc = map_policy(d, &pol, cfg)))
		return rc;
	cfg->from_policy = true;
	return 0;
}
