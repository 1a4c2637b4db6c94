/* The static plugin registry and the default profile (upstream default_plugins.go restricted
 * to what csched implements). */
#include "algorithm/framework_internal.h"

#include <pthread.h>
#include <string.h>

#include "common/intern.h"

/* Upstream's default MultiPoint order. */
static const struct fw_plugin *const registry[] = {
	&fw_plugin_scheduling_gates,
	&fw_plugin_priority_sort,
	&fw_plugin_node_unschedulable,
	&fw_plugin_node_name,
	&fw_plugin_taint_toleration,
	&fw_plugin_node_affinity,
	&fw_plugin_node_ports,
	&fw_plugin_node_resources_fit,
	&fw_plugin_volume_restrictions,
	&fw_plugin_balanced_allocation,
	&fw_plugin_image_locality,
	&fw_plugin_default_binder,
};
#define N_REGISTRY (sizeof(registry) / sizeof(registry[0]))

const struct fw_plugin *fw_registry_lookup(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < N_REGISTRY; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const struct fw_plugin *const *fw_registry_all(size_t *n)
{
	*n = N_REGISTRY;
	return registry;
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

#define P(n, w) { (n), (w) }
static struct cfg_plugin def_pre_enqueue[] = { P("SchedulingGates", 0) };
static struct cfg_plugin def_queue_sort[] = { P("PrioritySort", 0) };
static struct cfg_plugin def_pre_filter[] = {
	P("NodeAffinity", 0), P("NodePorts", 0), P("NodeResourcesFit", 0), P("VolumeRestrictions", 0),
};
static struct cfg_plugin def_filter[] = {
	P("NodeUnschedulable", 0), P("NodeName", 0), P("TaintToleration", 0),
	P("NodeAffinity", 0), P("NodePorts", 0), P("NodeResourcesFit", 0), P("VolumeRestrictions", 0),
};
static struct cfg_plugin def_pre_score[] = {
	P("TaintToleration", 0), P("NodeAffinity", 0), P("NodeResourcesFit", 0),
	P("NodeResourcesBalancedAllocation", 0),
};
static struct cfg_plugin def_score[] = {
	P("TaintToleration", 3), P("NodeAffinity", 2), P("NodeResourcesFit", 1),
	P("NodeResourcesBalancedAllocation", 1), P("ImageLocality", 1),
};
static struct cfg_plugin def_bind[] = { P("DefaultBinder", 0) };
#undef P
#define LIST(a) { sizeof(a) / sizeof(a[0]), a }

void fw_default_profile_config(const char *scheduler_name, struct fw_profile_config *out)
{
	memset(out, 0, sizeof(*out));
	out->scheduler_name = scheduler_name ? scheduler_name : CFG_DEFAULT_SCHEDULER_NAME;
	out->points[CFG_EP_PRE_ENQUEUE] = (struct cfg_plugin_list)LIST(def_pre_enqueue);
	out->points[CFG_EP_QUEUE_SORT] = (struct cfg_plugin_list)LIST(def_queue_sort);
	out->points[CFG_EP_PRE_FILTER] = (struct cfg_plugin_list)LIST(def_pre_filter);
	out->points[CFG_EP_FILTER] = (struct cfg_plugin_list)LIST(def_filter);
	out->points[CFG_EP_PRE_SCORE] = (struct cfg_plugin_list)LIST(def_pre_score);
	out->points[CFG_EP_SCORE] = (struct cfg_plugin_list)LIST(def_score);
	out->points[CFG_EP_BIND] = (struct cfg_plugin_list)LIST(def_bind);
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
