/* Lookups in the injected plugin registry, upstream's mergePlugins (v1 default_plugins.go) and
 * the framework's MultiPoint expansion and score weights (framework/runtime/framework.go), as
 * pure functions over struct cfg_plugins. The registry itself is algorithm/registry.c's table. */
#include <stdio.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "cfg_internal.h"

/* Plugins upstream removed from kubescheduler.config.k8s.io/v1 (validation.go's
 * invalidPluginsByVersion): naming one gets upstream's message. */
static const char *const removed_plugins[] = { "AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits" };

static const char *const ep_keys[CFG_EP_COUNT + 1] = {
	"preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
	"reserve", "permit", "preBind", "bind", "postBind", "multiPoint",
};
static const char *const ep_types[CFG_EP_COUNT + 1] = {
	"PreEnqueuePlugin", "QueueSortPlugin", "PreFilterPlugin", "FilterPlugin", "PostFilterPlugin",
	"PreScorePlugin", "ScorePlugin", "ReservePlugin", "PermitPlugin", "PreBindPlugin", "BindPlugin",
	"PostBindPlugin", "MultiPoint",
};

const char *cfg_ext_point_key(enum cfg_ext_point ep)
{
	return (unsigned)ep <= CFG_EP_COUNT ? ep_keys[ep] : NULL;
}

const char *cfg_ext_point_type(enum cfg_ext_point ep)
{
	return (unsigned)ep <= CFG_EP_COUNT ? ep_types[ep] : NULL;
}

const struct cfg_plugin_desc *cfg_registry_lookup(const struct cfg_registry *r, const char *name)
{
	if (!r || !name)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->plugins[i].name, name) == 0)
			return &r->plugins[i];
	return NULL;
}

const char *cfg_registry_args_plugin(const struct cfg_registry *r, enum cfg_args_kind kind)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (r->plugins[i].args && cfg_args_type_kind(r->plugins[i].args) == kind)
			return r->plugins[i].name;
	return "";
}

bool cfg_plugin_removed(const char *name)
{
	for (size_t i = 0; i < sizeof(removed_plugins) / sizeof(removed_plugins[0]); i++)
		if (strcmp(removed_plugins[i], name) == 0)
			return true;
	return false;
}

/* ---------- mergePlugins ---------- */

static bool set_disables(const struct cfg_plugin_set *s, const char *name)
{
	for (uint32_t i = 0; i < s->n_disabled; i++)
		if (strcmp(s->disabled[i], name) == 0)
			return true;
	return false;
}

/* mergePluginSet(defaults, custom) with custom = *set; the result replaces *set. */
static int merge_set(struct arena *a, const struct cfg_plugin *defs, uint32_t n_defs, struct cfg_plugin_set *set)
{
	uint32_t cap = n_defs + set->n_enabled;
	struct cfg_plugin *out = cap ? arena_alloc(a, cap * sizeof(*out)) : NULL;
	bool *replaced = set->n_enabled ? arena_alloc(a, set->n_enabled * sizeof(bool)) : NULL;
	if ((cap && !out) || (set->n_enabled && !replaced))
		return ERR_NOMEM;
	uint32_t n = 0;
	if (!set_disables(set, "*")) {
		for (uint32_t i = 0; i < n_defs; i++) {
			if (set_disables(set, defs[i].name))
				continue;
			struct cfg_plugin p = defs[i];
			/* Upstream keeps a name -> last index map: the last custom entry wins. */
			for (uint32_t j = set->n_enabled; j-- > 0;) {
				if (strcmp(set->enabled[j].name, p.name) == 0) {
					p = set->enabled[j];
					replaced[j] = true;
					break;
				}
			}
			out[n++] = p;
		}
	}
	for (uint32_t j = 0; j < set->n_enabled; j++)
		if (!replaced[j])
			out[n++] = set->enabled[j];
	set->enabled = out;
	set->n_enabled = n;
	return 0;
}

int cfg_plugins_merge_defaults(struct arena *a, const struct cfg_registry *reg, struct cfg_plugins *p)
{
	struct cfg_plugin *defs = reg->n ? arena_alloc(a, reg->n * sizeof(*defs)) : NULL;
	uint32_t n = 0;
	if (reg->n && !defs)
		return ERR_NOMEM;
	for (size_t i = 0; i < reg->n; i++) {
		const struct cfg_plugin_desc *pd = &reg->plugins[i];
		if (pd->upstream_default && pd->implemented) {
			defs[n].name = intern_str(pd->name);
			if (!defs[n].name)
				return ERR_NOMEM;
			defs[n++].weight = pd->default_weight;
		}
	}
	for (int ep = 0; ep <= CFG_EP_COUNT; ep++) {
		int rc = ep == CFG_EP_MULTI_POINT ? merge_set(a, defs, n, &p->sets[ep]) : merge_set(a, NULL, 0, &p->sets[ep]);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---------- checks on one profile's sets ---------- */

int cfg_plugins_check_sets(const struct cfg_vctx *v, const struct cfg_registry *reg, const char *ppath,
			   const struct cfg_plugins *p)
{
	char path[CFG_PATH_MAX];
	for (int ep = 0; ep <= CFG_EP_COUNT; ep++) {
		const struct cfg_plugin_set *s = &p->sets[ep];
		for (uint32_t i = 0; i < s->n_enabled; i++) {
			const struct cfg_plugin *pl = &s->enabled[i];
			cfg_pathf(path, sizeof(path), "%s.plugins.%s.enabled[%u]", ppath, ep_keys[ep], i);
			if (!pl->name || !pl->name[0])
				return cfg_verr(v, path, "name: required");
			if (cfg_plugin_removed(pl->name))
				return cfg_verr(v, path, "\"%s\": was invalid in version \"%s\" (KubeSchedulerConfiguration is version \"%s\")",
						pl->name, CFG_API_VERSION, CFG_API_VERSION);
			const struct cfg_plugin_desc *info = cfg_registry_lookup(reg, pl->name);
			if (!info)
				return cfg_verr(v, path, "unknown plugin \"%s\"", pl->name);
			if (!info->implemented)
				return cfg_verr(v, path, "plugin %s is not implemented by csched yet", pl->name);
			if (ep != CFG_EP_MULTI_POINT && !(info->points & CFG_EP_BIT(ep)))
				return cfg_verr(v, path, "plugin \"%s\" does not extend %s plugin", pl->name, ep_types[ep]);
			if (pl->weight < 0 || pl->weight > CFG_MAX_PLUGIN_WEIGHT) {
				cfg_pathf(path, sizeof(path), "%s.plugins.%s.enabled[%u].weight", ppath, ep_keys[ep], i);
				return cfg_verr(v, path, "must be in the range 1..%d, got %d", CFG_MAX_PLUGIN_WEIGHT, pl->weight);
			}
			for (uint32_t j = 0; j < i; j++) {
				if (strcmp(s->enabled[j].name, pl->name) != 0)
					continue;
				if (ep == CFG_EP_MULTI_POINT)
					return cfg_verr(v, path, "plugin \"%s\" is enabled more than once (first at enabled[%u])",
							pl->name, j);
				return cfg_verr(v, path, "plugin \"%s\" already registered as \"%s\"", pl->name, ep_types[ep]);
			}
		}
		for (uint32_t i = 0; i < s->n_disabled; i++) {
			const char *name = s->disabled[i];
			cfg_pathf(path, sizeof(path), "%s.plugins.%s.disabled[%u]", ppath, ep_keys[ep], i);
			if (!name || !name[0])
				return cfg_verr(v, path, "name: required");
			/* Upstream ignores unknown names here; csched rejects them so that a typo does
			 * not leave a plugin silently enabled. */
			if (strcmp(name, "*") != 0 && !cfg_registry_lookup(reg, name) && !cfg_plugin_removed(name))
				return cfg_verr(v, path, "unknown plugin \"%s\"", name);
		}
	}
	return 0;
}

/* ---------- expandMultiPointPlugins + getScoreWeights ---------- */

static bool names_has(const char *const *names, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static int32_t score_weight(const struct cfg_plugins *p, const char *name)
{
	/* Upstream walks Score.Enabled then MultiPoint.Enabled; the first entry wins and an
	 * unset weight counts as 1. */
	const struct cfg_plugin_set *sets[2] = { &p->sets[CFG_EP_SCORE], &p->sets[CFG_EP_MULTI_POINT] };
	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < sets[k]->n_enabled; i++)
			if (strcmp(sets[k]->enabled[i].name, name) == 0)
				return sets[k]->enabled[i].weight ? sets[k]->enabled[i].weight : 1;
	return 1;
}

/* Names of one point during expansion (arena scratch, each up to the point's plus
 * MultiPoint's enabled count). */
struct expansion {
	const char **enabled; /* the point's own enabled names, deduplicated */
	const char **mpe;     /* MultiPoint plugins that join the point */
	const char **over;    /* MultiPoint plugins the point names explicitly */
	uint32_t n_en, n_mp, n_over;
};

static int expansion_init(struct arena *a, uint32_t cap, struct expansion *x)
{
	*x = (struct expansion){ .n_en = 0 };
	if (!cap)
		return 0;
	x->enabled = arena_alloc(a, cap * sizeof(char *));
	x->mpe = arena_alloc(a, cap * sizeof(char *));
	x->over = arena_alloc(a, cap * sizeof(char *));
	return x->enabled && x->mpe && x->over ? 0 : ERR_NOMEM;
}

/* MultiPoint's enabled plugins that extend ep and the point does not disable. */
static int expand_multi_point(const struct cfg_vctx *v, const struct cfg_registry *reg, const char *ppath,
			      const struct cfg_plugins *p, int ep, struct expansion *x)
{
	const struct cfg_plugin_set *s = &p->sets[ep];
	const struct cfg_plugin_set *mp = &p->sets[CFG_EP_MULTI_POINT];
	char path[CFG_PATH_MAX];
	if (set_disables(s, "*"))
		return 0;
	for (uint32_t i = 0; i < mp->n_enabled; i++) {
		const char *name = mp->enabled[i].name;
		const struct cfg_plugin_desc *info = cfg_registry_lookup(reg, name);
		if (!info || !(info->points & CFG_EP_BIT(ep)) || set_disables(s, name))
			continue;
		if (names_has(x->enabled, x->n_en, name)) {
			if (!names_has(x->over, x->n_over, name))
				x->over[x->n_over++] = name;
			continue;
		}
		if (names_has(x->mpe, x->n_mp, name)) {
			cfg_pathf(path, sizeof(path), "%s.plugins.multiPoint.enabled[%u]", ppath, i);
			return cfg_verr(v, path, "plugin \"%s\" already registered as \"%s\"", name, ep_types[ep]);
		}
		x->mpe[x->n_mp++] = name;
	}
	return 0;
}

static int expand_point(struct arena *a, const struct cfg_vctx *v, const struct cfg_registry *reg,
			const char *ppath, struct cfg_profile *prof, int ep)
{
	const struct cfg_plugins *p = &prof->plugins;
	const struct cfg_plugin_set *s = &p->sets[ep];
	uint32_t cap = s->n_enabled + p->sets[CFG_EP_MULTI_POINT].n_enabled;
	struct expansion x;
	struct cfg_plugin *out = cap ? arena_alloc(a, cap * sizeof(*out)) : NULL;
	if (expansion_init(a, cap, &x) || (cap && !out))
		return err_set(v->e, ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; i < s->n_enabled; i++)
		if (!names_has(x.enabled, x.n_en, s->enabled[i].name))
			x.enabled[x.n_en++] = s->enabled[i].name;
	int rc = expand_multi_point(v, reg, ppath, p, ep, &x);
	if (rc)
		return rc;
	/* Order: explicit overrides of MultiPoint plugins (in their point's order), then
	 * MultiPoint plugins, then the point's other plugins. */
	uint32_t n = 0;
	for (uint32_t i = 0; i < x.n_en; i++)
		if (names_has(x.over, x.n_over, x.enabled[i]))
			out[n++] = (struct cfg_plugin){ .name = x.enabled[i] };
	for (uint32_t i = 0; i < x.n_mp; i++)
		out[n++] = (struct cfg_plugin){ .name = x.mpe[i] };
	for (uint32_t i = 0; i < x.n_en; i++)
		if (!names_has(x.over, x.n_over, x.enabled[i]))
			out[n++] = (struct cfg_plugin){ .name = x.enabled[i] };
	prof->effective[ep] = (struct cfg_plugin_list){ .n = n, .items = out };
	return 0;
}

int cfg_profile_expand(struct arena *a, const struct cfg_vctx *v, const struct cfg_registry *reg, const char *ppath,
		       struct cfg_profile *prof)
{
	char path[CFG_PATH_MAX];
	int rc;
	for (int ep = 0; ep < CFG_EP_COUNT; ep++)
		if ((rc = expand_point(a, v, reg, ppath, prof, ep)))
			return rc;

	/* Score weights, with upstream's overflow guard (sum of weight * MaxNodeScore must fit in
	 * int64). With weights capped at 100 the guard cannot trip; it stays as the invariant the
	 * score summation relies on. */
	int64_t total = 0;
	struct cfg_plugin_list *sl = &prof->effective[CFG_EP_SCORE];
	for (uint32_t i = 0; i < sl->n; i++) {
		sl->items[i].weight = score_weight(&prof->plugins, sl->items[i].name);
		int64_t w = (int64_t)sl->items[i].weight * CFG_MAX_NODE_SCORE;
		if (w > INT64_MAX - total) {
			cfg_pathf(path, sizeof(path), "%s.plugins.score", ppath);
			return cfg_verr(v, path, "total score of Score plugins could overflow");
		}
		total += w;
	}

	cfg_pathf(path, sizeof(path), "%s.plugins", ppath);
	if (prof->effective[CFG_EP_QUEUE_SORT].n != 1)
		return cfg_verr(v, path, "only one queue sort plugin required for profile with scheduler name \"%s\", but got %u",
				prof->scheduler_name, prof->effective[CFG_EP_QUEUE_SORT].n);
	if (prof->effective[CFG_EP_BIND].n == 0)
		return cfg_verr(v, path, "at least one bind plugin is needed for profile with scheduler name \"%s\"",
				prof->scheduler_name);
	return 0;
}

/* ---------- default pluginConfig ---------- */

static bool profile_names_plugin(const struct cfg_plugins *p, const char *name)
{
	for (int ep = 0; ep <= CFG_EP_COUNT; ep++)
		for (uint32_t i = 0; i < p->sets[ep].n_enabled; i++)
			if (strcmp(p->sets[ep].enabled[i].name, name) == 0)
				return true;
	return false;
}

void cfg_profile_default_plugin_config(const struct cfg_registry *reg, struct cfg_profile *prof)
{
	/* The registry's plugins with args, sorted by name as upstream's sorted pluginsNames. */
	const struct cfg_plugin_desc *sorted[CFG_ARGS_COUNT];
	int n = 0;
	for (size_t i = 0; i < reg->n && n < CFG_ARGS_COUNT; i++) {
		const struct cfg_plugin_desc *pd = &reg->plugins[i];
		if (!pd->args)
			continue;
		int j = n++;
		for (; j > 0 && strcmp(sorted[j - 1]->name, pd->name) > 0; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = pd;
	}
	for (int i = 0; i < n; i++) {
		enum cfg_args_kind k = cfg_args_type_kind(sorted[i]->args);
		bool present = false;
		for (uint32_t j = 0; j < prof->n_plugin_config; j++)
			present = present || prof->plugin_config[j] == k;
		if (!present && profile_names_plugin(&prof->plugins, sorted[i]->name))
			prof->plugin_config[prof->n_plugin_config++] = k;
	}
}

const struct cfg_plugin_list *config_effective_plugins(const struct cfg_profile *p, enum cfg_ext_point ep)
{
	static const struct cfg_plugin_list empty;
	if (!p || (unsigned)ep >= CFG_EP_COUNT)
		return &empty;
	return &p->effective[ep];
}

bool config_profile_runs(const struct cfg_profile *p, enum cfg_ext_point ep, const char *name, int32_t *weight)
{
	const struct cfg_plugin_list *l = config_effective_plugins(p, ep);
	for (uint32_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].name, name) == 0) {
			if (weight)
				*weight = l->items[i].weight;
			return true;
		}
	}
	return false;
}

bool config_profile_upstream_signs_pods(const struct cfg_profile *p)
{
	/* upstream's framework signs with every PreFilter, Filter, PreScore and Score plugin
	 * (computeBatchablePlugins); PodTopologySpread.SignPod refuses every pod while it has default
	 * constraints (podtopologyspread/plugin.go), i.e. defaultingType System or a non-empty List */
	static const enum cfg_ext_point points[] = { CFG_EP_PRE_FILTER, CFG_EP_FILTER, CFG_EP_PRE_SCORE,
						     CFG_EP_SCORE };
	static const char pts[] = "PodTopologySpread";
	const struct cfg_topology_spread_args *a = &p->args.topology_spread;
	if (a->defaulting_type == CFG_DEFAULTING_LIST && a->n_default_constraints == 0)
		return true;
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		if (config_profile_runs(p, points[i], pts, NULL))
			return false;
	return true;
}

/* Whether upstream runs name at PreFilter, Filter, PreScore or Score in p: csched's effective
 * lists for the plugins it implements; for the others (kept out of csched's lists), whether the
 * default MultiPoint entry survives the disabled lists at one of the points it implements. */
static bool upstream_runs(const struct cfg_profile *p, const struct cfg_registry *reg, const char *name)
{
	static const enum cfg_ext_point points[] = { CFG_EP_PRE_FILTER, CFG_EP_FILTER, CFG_EP_PRE_SCORE,
						     CFG_EP_SCORE };
	const struct cfg_plugin_desc *d = reg ? cfg_registry_lookup(reg, name) : NULL;
	if (!d || d->implemented) {
		for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++)
			if (config_profile_runs(p, points[i], name, NULL))
				return true;
		return false;
	}
	const struct cfg_plugin_set *mp = &p->plugins.sets[CFG_EP_MULTI_POINT];
	if (!d->upstream_default || set_disables(mp, "*") || set_disables(mp, name))
		return false;
	for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		const struct cfg_plugin_set *s = &p->plugins.sets[points[i]];
		if ((d->points & CFG_EP_BIT(points[i])) && !set_disables(s, "*") && !set_disables(s, name))
			return true;
	}
	return false;
}

uint32_t config_profile_sign_mask(const struct cfg_profile *p, const struct cfg_registry *reg)
{
	/* upstream plugins and the fragments their SignPod gives (or the pods it refuses) */
	static const struct {
		const char *name;
		uint32_t bits;
	} signers[] = {
		{ "NodeResourcesFit", CFG_SIGN_RESOURCES },
		{ "NodeResourcesBalancedAllocation", CFG_SIGN_RESOURCES },
		{ "NodeName", CFG_SIGN_NODE_NAME },
		{ "NodeAffinity", CFG_SIGN_NODE_AFFINITY },
		{ "TaintToleration", CFG_SIGN_TOLERATIONS },
		{ "NodeUnschedulable", CFG_SIGN_TOLERATIONS },
		{ "NodePorts", CFG_SIGN_HOST_PORTS },
		{ "ImageLocality", CFG_SIGN_IMAGES },
		{ "VolumeRestrictions", CFG_SIGN_VOLUMES },
		{ "NodeVolumeLimits", CFG_SIGN_VOLUMES },
		{ "VolumeBinding", CFG_SIGN_VOLUMES },
		{ "VolumeZone", CFG_SIGN_VOLUMES },
		{ "InterPodAffinity", CFG_SIGN_NO_POD_AFFINITY },
		{ "NodeDeclaredFeatures", CFG_SIGN_FEATURES },
		{ "PodTopologySpread", CFG_SIGN_NO_SPREAD },
		{ "DynamicResources", CFG_SIGN_NO_CLAIMS },
	};
	if (!config_profile_upstream_signs_pods(p))
		return 0;
	uint32_t m = CFG_SIGN_ON;
	for (size_t i = 0; i < sizeof(signers) / sizeof(signers[0]); i++)
		if (upstream_runs(p, reg, signers[i].name))
			m |= signers[i].bits;
	if ((m & CFG_SIGN_NO_POD_AFFINITY) && !p->args.inter_pod_affinity.ignore_preferred_terms_of_existing_pods)
		m |= CFG_SIGN_LABELS;
	return m;
}
