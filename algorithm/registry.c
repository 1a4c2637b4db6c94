/* The plugin registry: one table from which config/ (through fw_registry()), the framework and
 * the default profile read every plugin. */
#include "framework_internal.h"

#include <pthread.h>
#include <string.h>

#include "common/intern.h"

/* The one plugin table, in upstream's default MultiPoint order (v1.37 pkg/scheduler/apis/config/v1/
 * default_plugins.go getDefaultPlugins, then applyFeatureGates with v1.37's defaults:
 * NodeDeclaredFeatures (GA) appended last, DynamicResources (DynamicResourceAllocation GA) inserted
 * before DefaultPreemption with weight 2; InPlacePodVerticalScalingSchedulerPreemption,
 * GenericWorkload and TopologyAwareWorkloadScheduling are off, so no DeferredPodScheduling,
 * GangScheduling, TopologyPlacementGenerator or PodGroupPodsCount), with default score weights. Config validation, the default profile, --help and docs/config.md all read it:
 * adding a plugin = its file in algorithm/plugins + one row here.
 *
 * A row names an implemented plugin by its struct fw_plugin, whose name, extension points
 * (the callbacks it sets) and args kind are read from it, so they cannot disagree. Rows
 * without a plugin are upstream defaults csched does not implement yet (deliberate difference):
 * they keep upstream's position and weight but stay out of csched's default profile (running a
 * profile that claims PodTopologySpread but silently skips it would place pods differently
 * from upstream without saying so), and a configuration naming one is rejected with "plugin X
 * is not implemented by csched yet". Replace NOT_YET by PLUGIN when the plugin lands. */
struct row {
	const struct fw_plugin *plugin; /* NULL: not implemented yet */
	const char *name;               /* plugin == NULL only */
	unsigned points;                /* plugin == NULL only: CFG_EP_BIT mask */
	enum cfg_args_kind args_kind;   /* plugin == NULL only */
	int32_t default_weight;         /* score weight in the default profile (0 = no score) */
	bool upstream_default;
};

#define PLUGIN(p, w) { .plugin = &(p), .default_weight = (w), .upstream_default = true }
#define NOT_YET(n, pts, w, args) \
	{ .name = (n), .points = (pts), .args_kind = (args), .default_weight = (w), .upstream_default = true }

#define PE CFG_EP_BIT(CFG_EP_PRE_ENQUEUE)
#define PF CFG_EP_BIT(CFG_EP_PRE_FILTER)
#define F CFG_EP_BIT(CFG_EP_FILTER)
#define PoF CFG_EP_BIT(CFG_EP_POST_FILTER)
#define PS CFG_EP_BIT(CFG_EP_PRE_SCORE)
#define S CFG_EP_BIT(CFG_EP_SCORE)
#define R CFG_EP_BIT(CFG_EP_RESERVE)
#define PB CFG_EP_BIT(CFG_EP_PRE_BIND)

static const struct row table[] = {
	PLUGIN(fw_plugin_scheduling_gates, 0),
	PLUGIN(fw_plugin_priority_sort, 0),
	PLUGIN(fw_plugin_node_name, 0),
	PLUGIN(fw_plugin_node_unschedulable, 0),
	PLUGIN(fw_plugin_taint_toleration, 3),
	PLUGIN(fw_plugin_node_affinity, 2),
	PLUGIN(fw_plugin_node_ports, 0),
	PLUGIN(fw_plugin_node_resources_fit, 1),
	PLUGIN(fw_plugin_volume_restrictions, 0),
	PLUGIN(fw_plugin_node_volume_limits, 0),
	PLUGIN(fw_plugin_volume_binding, 0),
	PLUGIN(fw_plugin_volume_zone, 0),
	PLUGIN(fw_plugin_pod_topology_spread, 2),
	PLUGIN(fw_plugin_inter_pod_affinity, 2),
	PLUGIN(fw_plugin_dynamic_resources, 2),
	PLUGIN(fw_plugin_default_preemption, 0),
	PLUGIN(fw_plugin_balanced_allocation, 1),
	PLUGIN(fw_plugin_image_locality, 1),
	PLUGIN(fw_plugin_default_binder, 0),
	/* v1.37 applyFeatureGates appends it (NodeDeclaredFeatures GA, locked on) */
	PLUGIN(fw_plugin_node_declared_features, 0),
};
#define N_TABLE (sizeof(table) / sizeof(table[0]))

/* Views of the table, built once: config's descriptors, the implemented plugins, and the
 * default profile's lists (static storage, as fw_default_profile_config promises). */
static struct cfg_plugin_desc descs[N_TABLE];
static struct cfg_registry cfg_reg;
static const struct fw_plugin *impl[N_TABLE];
static size_t n_impl;
static struct cfg_plugin def_items[CFG_EP_COUNT][N_TABLE];
static uint32_t n_def[CFG_EP_COUNT];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static unsigned plugin_points(const struct fw_plugin *pl)
{
	unsigned m = 0;
	for (int ep = 0; ep < CFG_EP_COUNT; ep++)
		if (fw_plugin_implements(pl, (enum cfg_ext_point)ep))
			m |= CFG_EP_BIT(ep);
	return m;
}

static void table_init(void)
{
	for (size_t i = 0; i < N_TABLE; i++) {
		const struct row *r = &table[i];
		const struct fw_plugin *pl = r->plugin;
		struct cfg_plugin_desc *d = &descs[i];
		d->name = pl ? pl->name : r->name;
		d->points = pl ? plugin_points(pl) : r->points;
		d->implemented = pl != NULL;
		d->upstream_default = r->upstream_default;
		d->default_weight = r->default_weight;
		d->args = cfg_args_type_of(pl ? pl->args_kind : r->args_kind);
		if (pl)
			impl[n_impl++] = pl;
		if (!pl || !r->upstream_default)
			continue;
		/* What config's mergePlugins + MultiPoint expansion yield for the default profile:
		 * every point in table order; an unset score weight counts as 1. */
		for (int ep = 0; ep < CFG_EP_COUNT; ep++)
			if (d->points & CFG_EP_BIT(ep))
				def_items[ep][n_def[ep]++] = (struct cfg_plugin){
					.name = d->name,
					.weight = ep == CFG_EP_SCORE ? (r->default_weight ? r->default_weight : 1) : 0,
				};
	}
	cfg_reg = (struct cfg_registry){ .plugins = descs, .n = N_TABLE };
}

const struct cfg_registry *fw_registry(void)
{
	pthread_once(&table_once, table_init);
	return &cfg_reg;
}

const struct fw_plugin *fw_registry_lookup(const char *name)
{
	pthread_once(&table_once, table_init);
	for (size_t i = 0; name && i < n_impl; i++)
		if (strcmp(impl[i]->name, name) == 0)
			return impl[i];
	return NULL;
}

const struct fw_plugin *const *fw_registry_all(size_t *n)
{
	pthread_once(&table_once, table_init);
	*n = n_impl;
	return impl;
}

bool fw_plugin_implements(const struct fw_plugin *pl, enum cfg_ext_point ep)
{
	switch (ep) {
	case CFG_EP_PRE_ENQUEUE:
		return pl->pre_enqueue;
	case CFG_EP_QUEUE_SORT:
		return pl->less;
	case CFG_EP_PRE_FILTER:
		return pl->pre_filter;
	case CFG_EP_FILTER:
		return pl->filter;
	case CFG_EP_POST_FILTER:
		return pl->post_filter;
	case CFG_EP_PRE_SCORE:
		return pl->pre_score;
	case CFG_EP_SCORE:
		return pl->score;
	case CFG_EP_RESERVE:
		return pl->reserve;
	case CFG_EP_PERMIT:
		return pl->permit;
	case CFG_EP_PRE_BIND:
		return pl->pre_bind;
	case CFG_EP_BIND:
		return pl->bind;
	case CFG_EP_POST_BIND:
		return pl->post_bind;
	default:
		return false;
	}
}

void fw_default_profile_config(const char *scheduler_name, struct fw_profile_config *out)
{
	pthread_once(&table_once, table_init);
	memset(out, 0, sizeof(*out));
	out->scheduler_name = scheduler_name ? scheduler_name : CFG_DEFAULT_SCHEDULER_NAME;
	for (int ep = 0; ep < CFG_EP_COUNT; ep++)
		out->points[ep] = (struct cfg_plugin_list){ .n = n_def[ep], .items = def_items[ep] };
}

void fw_profile_config_from_cfg(const struct cfg_profile *p, struct fw_profile_config *out)
{
	memset(out, 0, sizeof(*out));
	out->scheduler_name = p->scheduler_name;
	out->has_percentage_of_nodes_to_score = p->has_percentage_of_nodes_to_score;
	out->percentage_of_nodes_to_score = p->percentage_of_nodes_to_score;
	for (int ep = 0; ep < CFG_EP_COUNT; ep++)
		out->points[ep] = p->effective[ep];
	out->args = &p->args;
	out->sign_mask = config_profile_sign_mask(p, fw_registry());
}

static struct fw_names names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_init(void)
{
	names.cpu = intern_str("cpu");
	names.memory = intern_str("memory");
	names.ephemeral_storage = intern_str("ephemeral-storage");
	names.pods = intern_str("pods");
	names.any_ip = intern_str("0.0.0.0");
	names.tcp = intern_str("TCP");
	names.empty = intern_str("");
	names.metadata_name = intern_str("metadata.name");
	names.taint_unschedulable = intern_str("node.kubernetes.io/unschedulable");
}

const struct fw_names *fw_names(void)
{
	pthread_once(&names_once, names_init);
	return &names;
}
