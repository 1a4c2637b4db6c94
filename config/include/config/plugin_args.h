/* Parsed, defaulted and validated plugin arguments (pluginConfig[].args), as plugins consume
 * them. config/ fills them from YAML/JSON; algorithm/ plugins read them. Plain values: every
 * pointer is owned by the struct config that holds them (config_free releases everything). */
#ifndef CSCHED_PLUGIN_ARGS_H
#define CSCHED_PLUGIN_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "apiclient/api_types.h"

struct cfg_resource_weight {
	const char *name; /* interned resource name */
	int64_t weight;   /* 1..100 */
};

struct cfg_shape_point {
	int32_t utilization; /* 0..100, strictly increasing */
	int32_t score;       /* 0..10 (MaxCustomPriorityScore) */
};

enum cfg_scoring_type {
	CFG_SCORING_LEAST_ALLOCATED,
	CFG_SCORING_MOST_ALLOCATED,
	CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO,
};

/* NodeResourcesFitArgs */
struct cfg_fit_args {
	uint32_t n_ignored_resources;
	const char **ignored_resources; /* interned */
	uint32_t n_ignored_resource_groups;
	const char **ignored_resource_groups; /* interned */
	enum cfg_scoring_type scoring_type;
	uint32_t n_resources; /* default: cpu 1, memory 1 */
	struct cfg_resource_weight *resources;
	uint32_t n_shape;
	struct cfg_shape_point *shape; /* RequestedToCapacityRatio only */
};

/* NodeResourcesBalancedAllocationArgs */
struct cfg_balanced_args {
	uint32_t n_resources; /* default: cpu 1, memory 1 (weights ignored by the plugin) */
	struct cfg_resource_weight *resources;
};

/* NodeAffinityArgs: addedAffinity (only nodeAffinity fields), NULL when absent. */
struct cfg_node_affinity_args {
	struct api_node_affinity *added_affinity;
};

/* InterPodAffinityArgs */
struct cfg_inter_pod_affinity_args {
	int32_t hard_pod_affinity_weight; /* default 1, 0..100 */
	bool ignore_preferred_terms_of_existing_pods;
};

enum cfg_defaulting_type { CFG_DEFAULTING_SYSTEM, CFG_DEFAULTING_LIST };

/* PodTopologySpreadArgs. With CFG_DEFAULTING_SYSTEM, default_constraints is empty and the
 * plugin applies upstream's system defaults (hostname maxSkew 3 + zone maxSkew 5, both
 * ScheduleAnyway); label_selector is always NULL (validation forbids it). */
struct cfg_topology_spread_args {
	uint32_t n_default_constraints;
	struct api_topology_spread_constraint *default_constraints;
	enum cfg_defaulting_type defaulting_type;
};

/* DefaultPreemptionArgs */
struct cfg_preemption_args {
	int32_t min_candidate_nodes_percentage; /* default 10 */
	int32_t min_candidate_nodes_absolute;   /* default 100 */
};

/* VolumeBindingArgs. StorageCapacityScoring is on (upstream v1.37's default, beta): an absent or
 * empty shape defaults to utilization 0 -> score 10, 100 -> 0 (SetDefaults_VolumeBindingArgs). */
struct cfg_volume_binding_args {
	int64_t bind_timeout_seconds; /* default 600 */
	uint32_t n_shape;
	const struct cfg_shape_point *shape; /* the default's static points, or the config's arena */
};

/* DynamicResourcesArgs (v1.37 gates: DRASchedulerFilterTimeout and DRADeviceBindingConditions
 * with DRAResourceClaimDeviceStatus on, so both fields are allowed). */
struct cfg_dynamic_resources_args {
	int64_t filter_timeout_ns;  /* default 10s; 0 = no limit; >= 0 */
	int64_t binding_timeout_ns; /* default 600s; >= 1s */
};

/* Which args struct a plugin takes (struct fw_plugin.args_kind; config/ maps each kind to its
 * struct cfg_args_type). */
enum cfg_args_kind {
	CFG_ARGS_NONE = -1,
	CFG_ARGS_FIT,                /* NodeResourcesFit */
	CFG_ARGS_BALANCED,           /* NodeResourcesBalancedAllocation */
	CFG_ARGS_NODE_AFFINITY,      /* NodeAffinity */
	CFG_ARGS_INTER_POD_AFFINITY, /* InterPodAffinity */
	CFG_ARGS_TOPOLOGY_SPREAD,    /* PodTopologySpread */
	CFG_ARGS_PREEMPTION,         /* DefaultPreemption */
	CFG_ARGS_VOLUME_BINDING,     /* VolumeBinding */
	CFG_ARGS_DYNAMIC_RESOURCES,  /* DynamicResources */
	CFG_ARGS_COUNT,
};

/* Every args struct of one profile, always defaulted (a plugin reads its member). */
struct cfg_plugin_args {
	struct cfg_fit_args fit;
	struct cfg_balanced_args balanced;
	struct cfg_node_affinity_args node_affinity;
	struct cfg_inter_pod_affinity_args inter_pod_affinity;
	struct cfg_topology_spread_args topology_spread;
	struct cfg_preemption_args preemption;
	struct cfg_volume_binding_args volume_binding;
	struct cfg_dynamic_resources_args dynamic_resources;
};

#endif
