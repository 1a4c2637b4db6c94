/* csched configuration: upstream's KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
 * and the legacy Policy file, read from YAML or JSON, defaulted and validated like upstream.
 *
 * A struct config is a plain value. Every pointer inside it points into cfg->arena or to an
 * interned string (plugin names, resource names, label keys and values); config_free releases
 * the arena, so one call frees everything. A loaded config is read-only afterwards and may be
 * shared by any number of threads.
 *
 * Loading runs, in order: strict decoding (unknown or duplicate keys and wrong types are
 * errors), upstream's defaulting (v1 defaults.go, including mergePlugins of the default
 * plugins into every profile), validation (upstream validation.go and validation_pluginargs.go
 * plus csched's own rules) and the computation of each profile's effective plugin lists (the
 * framework's expandMultiPointPlugins and score weights). Errors stop at the first problem and
 * name the file, line, column and field path:
 *   sched.yaml:12:9: profiles[0].plugins.score.enabled[1].weight: must be in the range 1..100, got 0
 *
 * Plugins that upstream enables by default but csched does not implement yet (the registry's
 * NOT_YET rows; none today) are left out of csched's default profile; a configuration that enables
 * one explicitly fails with "plugin X is not implemented by csched yet". See docs/config.md.
 *
 * config/ does not own the plugin list: the loaders take it as a struct cfg_registry (built by
 * algorithm/'s fw_registry() from its one plugin table), so that config never includes
 * algorithm/ headers. */
#ifndef CSCHED_CONFIG_H
#define CSCHED_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "config/plugin_args.h"

#define CFG_API_VERSION "kubescheduler.config.k8s.io/v1"
#define CFG_KIND "KubeSchedulerConfiguration"
#define CFG_DEFAULT_SCHEDULER_NAME "csched"
#define CFG_DEFAULT_LEASE_NAME "csched"
#define CFG_MAX_NODE_SCORE 100
#define CFG_MAX_PLUGIN_WEIGHT 100

/* Extension points, in upstream's cycle order. CFG_EP_MULTI_POINT only indexes
 * cfg_plugins.sets (it is configuration shorthand, not a point plugins run at). */
enum cfg_ext_point {
	CFG_EP_PRE_ENQUEUE,
	CFG_EP_QUEUE_SORT,
	CFG_EP_PRE_FILTER,
	CFG_EP_FILTER,
	CFG_EP_POST_FILTER,
	CFG_EP_PRE_SCORE,
	CFG_EP_SCORE,
	CFG_EP_RESERVE,
	CFG_EP_PERMIT,
	CFG_EP_PRE_BIND,
	CFG_EP_BIND,
	CFG_EP_POST_BIND,
	CFG_EP_COUNT,
	CFG_EP_MULTI_POINT = CFG_EP_COUNT,
};
#define CFG_EP_BIT(ep) (1u << (ep))

/* The YAML key of a point ("preFilter", "multiPoint"); NULL for an out-of-range value. */
const char *cfg_ext_point_key(enum cfg_ext_point ep);
/* Upstream's interface name ("PreFilterPlugin"), used in messages. */
const char *cfg_ext_point_type(enum cfg_ext_point ep);

/* ---------- Plugin registry ---------- */

/* How config/ reads, defaults, validates and writes one args type (NodeResourcesFitArgs...).
 * Opaque outside config/: one instance per enum cfg_args_kind, owned by config/. */
struct cfg_args_type;

/* The args type of kind, NULL for CFG_ARGS_NONE or an out-of-range value. */
const struct cfg_args_type *cfg_args_type_of(enum cfg_args_kind kind);
enum cfg_args_kind cfg_args_type_kind(const struct cfg_args_type *t);
/* "NodeResourcesFitArgs" */
const char *cfg_args_type_name(const struct cfg_args_type *t);
/* The member of a that holds t's args; NULL when t or a is NULL. */
const void *cfg_args_member(const struct cfg_args_type *t, const struct cfg_plugin_args *a);

/* One plugin name csched knows, as config/ needs it. The table is not config/'s: the loaders
 * receive it (algorithm/'s fw_registry() builds it from the one plugin table), so that config
 * validation, the default profile and the framework cannot disagree. */
struct cfg_plugin_desc {
	const char *name;
	unsigned points;         /* CFG_EP_BIT mask of the extension points it implements */
	bool implemented;        /* false: an upstream plugin csched does not implement yet */
	bool upstream_default;   /* in upstream's default profile; csched's holds the implemented ones */
	int32_t default_weight;  /* score weight in the default profile (0 = no score) */
	const struct cfg_args_type *args; /* NULL when the plugin takes no args */
};

/* Every plugin, in upstream's default MultiPoint order. Static: loaded configs borrow it. */
struct cfg_registry {
	const struct cfg_plugin_desc *plugins;
	size_t n;
};

/* The plugin with this name, or NULL. */
const struct cfg_plugin_desc *cfg_registry_lookup(const struct cfg_registry *r, const char *name);

/* ---------- Profiles ---------- */

struct cfg_plugin {
	const char *name; /* interned */
	int32_t weight;   /* 0 = unset (score plugins then weigh 1) */
};

struct cfg_plugin_set {
	uint32_t n_enabled;
	struct cfg_plugin *enabled;
	uint32_t n_disabled;
	const char **disabled; /* interned; "*" disables every default plugin of the point */
};

struct cfg_plugins {
	struct cfg_plugin_set sets[CFG_EP_COUNT + 1]; /* indexed by enum cfg_ext_point */
};

/* The plugins a profile runs at one extension point, in order. weight is the score weight
 * (1..100) at CFG_EP_SCORE and 0 elsewhere. */
struct cfg_plugin_list {
	uint32_t n;
	struct cfg_plugin *items;
};

struct cfg_profile {
	const char *scheduler_name;
	bool has_percentage_of_nodes_to_score;
	int32_t percentage_of_nodes_to_score; /* valid when has_percentage_of_nodes_to_score */

	/* Upstream's defaulted form: the profile's own sets merged with the default plugins
	 * (mergePlugins). This is what config_write emits. */
	struct cfg_plugins plugins;

	/* Arguments of every plugin that takes any, defaulted whether or not the profile
	 * enables the plugin. Plugins read these. */
	struct cfg_plugin_args args;
	/* pluginConfig entries in output order (explicit ones first, then defaults for the
	 * profile's plugins, sorted by name, as upstream's defaulting appends them). */
	uint32_t n_plugin_config;
	enum cfg_args_kind plugin_config[CFG_ARGS_COUNT];

	/* What the framework runs: per extension point, after MultiPoint expansion. */
	struct cfg_plugin_list effective[CFG_EP_COUNT];
};

/* Whether kube-scheduler v1.37 would compute scheduling signatures for p's pods, and so run its
 * OpportunisticBatching hints (feature gate on by default): only when the profile's upstream form
 * has no PodTopologySpread with default constraints (disabled at every PreFilter, Filter, PreScore
 * and Score point, or defaultingType List with no defaultConstraints). csched batches exactly
 * those profiles (config_profile_sign_mask, docs/config.md); the default profile never batches. */
bool config_profile_upstream_signs_pods(const struct cfg_profile *p);

/* The fragments of kube-scheduler v1.37's scheduling signature (framework SignPod: every PreFilter,
 * Filter, PreScore and Score plugin's SignPod, kube-scheduler framework/signers.go) for p's
 * upstream plugin set, including the upstream defaults csched does not implement (reg says which
 * those are); 0 when upstream signs no pod of p (config_profile_upstream_signs_pods false). */
enum {
	CFG_SIGN_ON = 1u << 0,          /* signatures enabled (SchedulerName is always a fragment) */
	CFG_SIGN_RESOURCES = 1u << 1,   /* NodeResourcesFit, NodeResourcesBalancedAllocation */
	CFG_SIGN_NODE_NAME = 1u << 2,   /* NodeName */
	CFG_SIGN_NODE_AFFINITY = 1u << 3, /* NodeAffinity: nodeAffinity and nodeSelector */
	CFG_SIGN_TOLERATIONS = 1u << 4, /* TaintToleration, NodeUnschedulable */
	CFG_SIGN_HOST_PORTS = 1u << 5,  /* NodePorts */
	CFG_SIGN_IMAGES = 1u << 6,      /* ImageLocality */
	CFG_SIGN_VOLUMES = 1u << 7,     /* VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone */
	CFG_SIGN_LABELS = 1u << 8,      /* InterPodAffinity without ignorePreferredTermsOfExistingPods */
	CFG_SIGN_FEATURES = 1u << 9,    /* NodeDeclaredFeatures */
	CFG_SIGN_NO_POD_AFFINITY = 1u << 10, /* InterPodAffinity: pods with pod (anti-)affinity unsigned */
	CFG_SIGN_NO_SPREAD = 1u << 11,  /* PodTopologySpread: pods with spread constraints unsigned */
	CFG_SIGN_NO_CLAIMS = 1u << 12,  /* DynamicResources: pods with resource claims unsigned */
};
uint32_t config_profile_sign_mask(const struct cfg_profile *p, const struct cfg_registry *reg);

/* The effective plugin list of p at point ep (never NULL). */
const struct cfg_plugin_list *config_effective_plugins(const struct cfg_profile *p, enum cfg_ext_point ep);
/* Whether p runs plugin name (interned or not) at ep; its score weight into *weight if not NULL. */
bool config_profile_runs(const struct cfg_profile *p, enum cfg_ext_point ep, const char *name, int32_t *weight);

/* ---------- Extenders ---------- */

struct cfg_extender_tls {
	bool insecure;
	const char *server_name, *cert_file, *key_file, *ca_file; /* "" when absent */
	/* PEM bytes (base64 in the file); len 0 when absent. Never log these. */
	size_t cert_data_len, key_data_len, ca_data_len;
	const unsigned char *cert_data, *key_data, *ca_data;
};

struct cfg_managed_resource {
	const char *name; /* interned extended resource name */
	bool ignored_by_scheduler;
};

struct cfg_extender {
	const char *url_prefix;      /* required */
	const char *filter_verb;     /* "" = not supported; likewise the other verbs */
	const char *preempt_verb;
	const char *prioritize_verb;
	const char *bind_verb;
	int64_t weight; /* > 0 when prioritize_verb is set */
	bool enable_https;
	bool has_tls;
	struct cfg_extender_tls tls;
	int64_t http_timeout_ns; /* defaulted to 5s (upstream's DefaultExtenderTimeout) */
	bool node_cache_capable;
	uint32_t n_managed_resources;
	struct cfg_managed_resource *managed_resources;
	bool ignorable;
};

/* ---------- The configuration ---------- */

struct cfg_leader_election {
	bool leader_elect;
	int64_t lease_duration_ns, renew_deadline_ns, retry_period_ns;
	const char *resource_lock;      /* "leases" */
	const char *resource_name;      /* "csched" */
	const char *resource_namespace; /* "kube-system" */
};

struct cfg_client_connection {
	const char *kubeconfig;           /* "" = in-cluster or the --kubeconfig flag */
	const char *accept_content_types; /* "" when absent */
	const char *content_type;         /* "application/vnd.kubernetes.protobuf" (see docs/config.md) */
	float qps;                        /* 50 */
	int32_t burst;                    /* 100 */
};

struct config {
	struct arena *arena; /* owns every non-interned pointer below */
	const struct cfg_registry *registry; /* borrowed, static: the plugins the loader knew */

	int32_t parallelism;                  /* 16 */
	int32_t percentage_of_nodes_to_score; /* 0 = adaptive */
	int64_t pod_initial_backoff_seconds;  /* 1 */
	int64_t pod_max_backoff_seconds;      /* 10 */
	bool delay_cache_until_active;
	bool enable_profiling;            /* true; parsed for compatibility */
	bool enable_contention_profiling; /* true; parsed for compatibility */
	struct cfg_leader_election leader_election;
	struct cfg_client_connection client_connection;

	uint32_t n_profiles;
	struct cfg_profile *profiles;
	uint32_t n_extenders;
	struct cfg_extender *extenders;

	bool from_policy; /* built from a legacy Policy file */
};

/* Every loader takes the plugin registry (algorithm/'s fw_registry()), borrowed for the life of
 * cfg. */

/* The configuration csched runs with when no file is given (one profile "csched").
 * On failure (out of memory) cfg is left empty. */
int config_init_default(struct config *cfg, const struct cfg_registry *reg, struct err *e);

/* Reads a KubeSchedulerConfiguration file (YAML or JSON). On failure cfg is left empty
 * (config_free is still safe) and e names file:line:col and the field path. */
int config_load_file(struct config *cfg, const struct cfg_registry *reg, const char *path, struct err *e);
/* Same from memory; name is used in messages in place of a file name. */
int config_load_buffer(struct config *cfg, const struct cfg_registry *reg, const char *name, const char *buf,
		       size_t len, struct err *e);

/* Reads a legacy Policy file (kind: Policy, apiVersion: v1; YAML or JSON) into a config with
 * upstream's other defaults and one profile named CFG_DEFAULT_SCHEDULER_NAME whose plugins are
 * the legacy mapping of the predicates and priorities (docs/config.md). */
int config_load_policy_file(struct config *cfg, const struct cfg_registry *reg, const char *path, struct err *e);
int config_load_policy_buffer(struct config *cfg, const struct cfg_registry *reg, const char *name, const char *buf,
			      size_t len, struct err *e);

/* Re-validates cfg after a caller changed fields (command-line flags) and recomputes the
 * effective plugin lists (with the registry cfg was loaded with). Messages name the field path
 * but no position. */
int config_validate(struct config *cfg, struct err *e);

/* A copy of s owned by cfg (for callers that override string fields); NULL on out of memory. */
char *config_strdup(struct config *cfg, const char *s);

/* The profile serving pods with this spec.schedulerName, or NULL. */
const struct cfg_profile *config_profile(const struct config *cfg, const char *scheduler_name);

/* Writes the effective configuration (defaults applied) as YAML that config_load_* reads back
 * to an equal configuration. Returns 0 or ERR_IO. */
int config_write(const struct config *cfg, FILE *f, struct err *e);

/* Releases everything cfg owns and zeroes it. NULL is a no-op. */
void config_free(struct config *cfg);

/* Go duration strings ("15s", "1m30s", "500ms", "-1.5h"): parse into nanoseconds, and format
 * like Go's time.Duration.String() into buf (at least 32 bytes). */
int cfg_duration_parse(const char *s, int64_t *ns);
const char *cfg_duration_format(int64_t ns, char *buf, size_t size);

#endif
