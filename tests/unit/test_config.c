/* config/: defaults, upstream example round trips, plugin merging, the legacy Policy mapping,
 * durations and malformed input. Error messages of validation are in test_config_errors.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "algorithm/framework.h"
#include "common/intern.h"
#include "config/config.h"
#include "testutil.h"

/* "Name/weight Name/weight" for one point of one profile. */
static const char *list_str(const struct cfg_profile *p, enum cfg_ext_point ep, char *buf, size_t size)
{
	const struct cfg_plugin_list *l = config_effective_plugins(p, ep);
	size_t o = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < l->n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s/%d", i ? " " : "", l->items[i].name, l->items[i].weight);
	return buf;
}

static char *write_to_string(const struct config *cfg)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	struct err e = { 0 };
	assert_int_equal(config_write(cfg, f, &e), 0);
	fclose(f);
	return out;
}

/* Loads text (config or Policy), writes it, loads the output and writes again: both outputs
 * must be identical and the reloaded effective plugins equal. */
static void check_round_trip(const struct config *cfg)
{
	char *first = write_to_string(cfg);
	struct config again;
	struct err e = { 0 };
	int rc = config_load_buffer(&again, fw_registry(), "written.yaml", first, strlen(first), &e);
	if (rc)
		fail_msg("reload failed: %s\n%s", e.msg, first);
	char *second = write_to_string(&again);
	assert_string_equal(first, second);
	assert_int_equal(again.n_profiles, cfg->n_profiles);
	char b1[1024], b2[1024];
	for (uint32_t i = 0; i < cfg->n_profiles; i++)
		for (int ep = 0; ep < CFG_EP_COUNT; ep++)
			assert_string_equal(list_str(&cfg->profiles[i], (enum cfg_ext_point)ep, b1, sizeof(b1)),
					    list_str(&again.profiles[i], (enum cfg_ext_point)ep, b2, sizeof(b2)));
	config_free(&again);
	free(first);
	free(second);
}

static const char *const default_lists[CFG_EP_COUNT] = {
	/* upstream apis/config/testing/defaults ExpandedPluginsV1 */
	[CFG_EP_PRE_ENQUEUE] = "SchedulingGates/0 DynamicResources/0 DefaultPreemption/0",
	[CFG_EP_QUEUE_SORT] = "PrioritySort/0",
	/* NodeDeclaredFeatures last: upstream apis/config/testing/defaults ExpandedPluginsV1 */
	[CFG_EP_PRE_FILTER] = "NodeAffinity/0 NodePorts/0 NodeResourcesFit/0 VolumeRestrictions/0 NodeVolumeLimits/0 VolumeBinding/0 VolumeZone/0 PodTopologySpread/0 InterPodAffinity/0 DynamicResources/0 NodeDeclaredFeatures/0",
	[CFG_EP_FILTER] = "NodeName/0 NodeUnschedulable/0 TaintToleration/0 NodeAffinity/0 NodePorts/0 NodeResourcesFit/0 VolumeRestrictions/0 NodeVolumeLimits/0 VolumeBinding/0 VolumeZone/0 PodTopologySpread/0 InterPodAffinity/0 DynamicResources/0 NodeDeclaredFeatures/0",
	[CFG_EP_POST_FILTER] = "DynamicResources/0 DefaultPreemption/0",
	[CFG_EP_PRE_SCORE] = "TaintToleration/0 NodeAffinity/0 NodeResourcesFit/0 VolumeBinding/0 PodTopologySpread/0 InterPodAffinity/0 NodeResourcesBalancedAllocation/0",
	[CFG_EP_SCORE] = "TaintToleration/3 NodeAffinity/2 NodeResourcesFit/1 VolumeBinding/1 PodTopologySpread/2 InterPodAffinity/2 DynamicResources/2 NodeResourcesBalancedAllocation/1 ImageLocality/1",
	[CFG_EP_RESERVE] = "VolumeBinding/0 DynamicResources/0",
	[CFG_EP_PERMIT] = "",
	[CFG_EP_PRE_BIND] = "VolumeBinding/0 DynamicResources/0",
	[CFG_EP_BIND] = "DefaultBinder/0",
	[CFG_EP_POST_BIND] = "",
};

static void test_defaults(void **state)
{
	(void)state;
	struct config c;
	struct err e = { 0 };
	char buf[1024];
	assert_int_equal(config_init_default(&c, fw_registry(), &e), 0);
	assert_int_equal(c.parallelism, 16);
	assert_int_equal(c.percentage_of_nodes_to_score, 0);
	assert_int_equal(c.pod_initial_backoff_seconds, 1);
	assert_int_equal(c.pod_max_backoff_seconds, 10);
	assert_false(c.delay_cache_until_active);
	assert_true(c.enable_profiling);
	assert_true(c.leader_election.leader_elect);
	assert_int_equal(c.leader_election.lease_duration_ns, 15000000000LL);
	assert_int_equal(c.leader_election.renew_deadline_ns, 10000000000LL);
	assert_int_equal(c.leader_election.retry_period_ns, 2000000000LL);
	assert_string_equal(c.leader_election.resource_lock, "leases");
	assert_string_equal(c.leader_election.resource_name, "csched");
	assert_string_equal(c.leader_election.resource_namespace, "kube-system");
	assert_string_equal(c.client_connection.kubeconfig, "");
	/* upstream pkg/scheduler/apis/config/v1 defaults_test.go TestSchedulerDefaults "empty config" */
	assert_string_equal(c.client_connection.content_type, "application/vnd.kubernetes.protobuf");
	assert_true(c.client_connection.qps == 50.0f);
	assert_int_equal(c.client_connection.burst, 100);
	assert_int_equal(c.n_extenders, 0);
	assert_int_equal(c.n_profiles, 1);
	const struct cfg_profile *p = config_profile(&c, "csched");
	assert_ptr_equal(p, &c.profiles[0]);
	assert_null(config_profile(&c, "default-scheduler"));
	assert_false(p->has_percentage_of_nodes_to_score);
	for (int ep = 0; ep < CFG_EP_COUNT; ep++)
		assert_string_equal(list_str(p, (enum cfg_ext_point)ep, buf, sizeof(buf)), default_lists[ep]);
	/* Plugin args carry upstream's defaults. */
	assert_int_equal(p->args.fit.scoring_type, CFG_SCORING_LEAST_ALLOCATED);
	assert_int_equal(p->args.fit.n_resources, 2);
	assert_ptr_equal(p->args.fit.resources[0].name, intern_str("cpu"));
	assert_ptr_equal(p->args.fit.resources[1].name, intern_str("memory"));
	assert_int_equal(p->args.fit.resources[1].weight, 1);
	assert_int_equal(p->args.balanced.n_resources, 2);
	assert_null(p->args.node_affinity.added_affinity);
	assert_int_equal(p->args.inter_pod_affinity.hard_pod_affinity_weight, 1);
	assert_int_equal(p->args.topology_spread.defaulting_type, CFG_DEFAULTING_SYSTEM);
	assert_int_equal(p->args.preemption.min_candidate_nodes_percentage, 10);
	assert_int_equal(p->args.preemption.min_candidate_nodes_absolute, 100);
	assert_int_equal(p->args.volume_binding.bind_timeout_seconds, 600);
	/* Upstream's defaulting appends pluginConfig for the profile's plugins, sorted by name. */
	assert_int_equal(p->n_plugin_config, 8);
	assert_int_equal(p->plugin_config[0], CFG_ARGS_PREEMPTION);
	assert_int_equal(p->plugin_config[1], CFG_ARGS_DYNAMIC_RESOURCES);
	assert_int_equal(p->plugin_config[2], CFG_ARGS_INTER_POD_AFFINITY);
	assert_int_equal(p->plugin_config[3], CFG_ARGS_NODE_AFFINITY);
	assert_int_equal(p->plugin_config[4], CFG_ARGS_BALANCED);
	assert_int_equal(p->plugin_config[5], CFG_ARGS_FIT);
	assert_int_equal(p->plugin_config[6], CFG_ARGS_TOPOLOGY_SPREAD);
	assert_int_equal(p->plugin_config[7], CFG_ARGS_VOLUME_BINDING);
	/* upstream apis/config/testing/defaults PluginConfigsV1: DynamicResourcesArgs 10s / 10m */
	assert_int_equal(p->args.dynamic_resources.filter_timeout_ns, 10000000000LL);
	assert_int_equal(p->args.dynamic_resources.binding_timeout_ns, 600000000000LL);
	/* StorageCapacityScoring (on in v1.37) defaults the shape: 0 -> 10, 100 -> 0 */
	assert_int_equal(p->args.volume_binding.n_shape, 2);
	assert_int_equal(p->args.volume_binding.shape[0].utilization, 0);
	assert_int_equal(p->args.volume_binding.shape[0].score, 10);
	assert_int_equal(p->args.volume_binding.shape[1].utilization, 100);
	assert_int_equal(p->args.volume_binding.shape[1].score, 0);
	int32_t w = 0;
	assert_true(config_profile_runs(p, CFG_EP_SCORE, "TaintToleration", &w));
	assert_int_equal(w, 3);
	assert_false(config_profile_runs(p, CFG_EP_SCORE, "NodeName", NULL));
	check_round_trip(&c);
	config_free(&c);
	config_free(&c); /* idempotent */
	config_free(NULL);
}

static void test_registry(void **state)
{
	(void)state;
	const struct cfg_registry *reg = fw_registry();
	const struct cfg_plugin_desc *r = reg->plugins;
	size_t n = reg->n;
	assert_true(n >= 19);
	static const struct {
		const char *name;
		bool implemented;
		unsigned points;
	} cases[] = {
		{ "NodeResourcesFit", true, CFG_EP_BIT(CFG_EP_PRE_FILTER) | CFG_EP_BIT(CFG_EP_FILTER) | CFG_EP_BIT(CFG_EP_PRE_SCORE) | CFG_EP_BIT(CFG_EP_SCORE) },
		{ "ImageLocality", true, CFG_EP_BIT(CFG_EP_SCORE) },
		{ "DefaultBinder", true, CFG_EP_BIT(CFG_EP_BIND) },
		{ "PodTopologySpread", true, CFG_EP_BIT(CFG_EP_PRE_FILTER) | CFG_EP_BIT(CFG_EP_FILTER) | CFG_EP_BIT(CFG_EP_PRE_SCORE) | CFG_EP_BIT(CFG_EP_SCORE) },
		{ "DefaultPreemption", true, CFG_EP_BIT(CFG_EP_PRE_ENQUEUE) | CFG_EP_BIT(CFG_EP_POST_FILTER) },
	};
	/* upstream v1.37 pkg/scheduler/apis/config/v1/default_plugins.go: getDefaultPlugins' MultiPoint
	 * list after applyFeatureGates with v1.37's default gates (DynamicResources before
	 * DefaultPreemption, NodeDeclaredFeatures appended), with its weights */
	static const struct {
		const char *name;
		int32_t weight;
	} upstream_order[] = {
		{ "SchedulingGates", 0 }, { "PrioritySort", 0 }, { "NodeName", 0 }, { "NodeUnschedulable", 0 },
		{ "TaintToleration", 3 }, { "NodeAffinity", 2 }, { "NodePorts", 0 }, { "NodeResourcesFit", 1 },
		{ "VolumeRestrictions", 0 }, { "NodeVolumeLimits", 0 }, { "VolumeBinding", 0 }, { "VolumeZone", 0 },
		{ "PodTopologySpread", 2 }, { "InterPodAffinity", 2 }, { "DynamicResources", 2 },
		{ "DefaultPreemption", 0 }, { "NodeResourcesBalancedAllocation", 1 }, { "ImageLocality", 1 },
		{ "DefaultBinder", 0 }, { "NodeDeclaredFeatures", 0 },
	};
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].upstream_default)
			continue;
		assert_true(k < sizeof(upstream_order) / sizeof(upstream_order[0]));
		assert_string_equal(r[i].name, upstream_order[k].name);
		assert_int_equal(r[i].default_weight, upstream_order[k].weight);
		k++;
	}
	assert_int_equal(k, sizeof(upstream_order) / sizeof(upstream_order[0]));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cfg_plugin_desc *info = cfg_registry_lookup(reg, cases[i].name);
		assert_non_null(info);
		assert_true(info >= r && info < r + n);
		assert_int_equal(info->implemented, cases[i].implemented);
		assert_int_equal(info->points, cases[i].points);
	}
	assert_null(cfg_registry_lookup(reg, "NodeResourcesLeastAllocated"));
	assert_string_equal(cfg_ext_point_key(CFG_EP_MULTI_POINT), "multiPoint");
	assert_string_equal(cfg_ext_point_type(CFG_EP_PRE_FILTER), "PreFilterPlugin");
}

/* ---------- upstream examples ---------- */

static struct config load_fixture(const char *rel, bool policy)
{
	struct config c;
	struct err e = { 0 };
	int rc = policy ? config_load_policy_file(&c, fw_registry(), testutil_source_path(rel), &e)
			: config_load_file(&c, fw_registry(), testutil_source_path(rel), &e);
	if (rc)
		fail_msg("%s: %s", rel, e.msg);
	return c;
}

static void test_fixture_round_trips(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		bool policy;
		uint32_t profiles;
	} cases[] = {
		{ "tests/fixtures/config/minimal.yaml", false, 1 },
		{ "tests/fixtures/config/multiple_profiles.yaml", false, 2 },
		{ "tests/fixtures/config/bin_packing_most_allocated.yaml", false, 1 },
		{ "tests/fixtures/config/bin_packing_rtcr.yaml", false, 1 },
		{ "tests/fixtures/config/node_affinity_per_profile.yaml", false, 2 },
		{ "tests/fixtures/config/topology_spread_defaults.yaml", false, 1 },
		{ "tests/fixtures/config/full.json", false, 2 },
		{ "tests/fixtures/config/seed_policy.json", true, 1 },
		{ "tests/fixtures/config/policy_full.yaml", true, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c = load_fixture(cases[i].file, cases[i].policy);
		assert_int_equal(c.n_profiles, cases[i].profiles);
		assert_int_equal(c.from_policy, cases[i].policy);
		check_round_trip(&c);
		config_free(&c);
	}
}

static void test_fixture_contents(void **state)
{
	(void)state;
	char buf[1024];
	struct config c = load_fixture("tests/fixtures/config/minimal.yaml", false);
	assert_string_equal(c.client_connection.kubeconfig, "/etc/srv/kubernetes/kube-scheduler/kubeconfig");
	assert_string_equal(c.profiles[0].scheduler_name, "csched");
	config_free(&c);

	c = load_fixture("tests/fixtures/config/multiple_profiles.yaml", false);
	assert_string_equal(c.profiles[0].scheduler_name, "default-scheduler");
	assert_string_equal(list_str(&c.profiles[0], CFG_EP_SCORE, buf, sizeof(buf)), default_lists[CFG_EP_SCORE]);
	const struct cfg_profile *ns = config_profile(&c, "no-scoring-scheduler");
	assert_non_null(ns);
	assert_string_equal(list_str(ns, CFG_EP_SCORE, buf, sizeof(buf)), "");
	assert_string_equal(list_str(ns, CFG_EP_PRE_SCORE, buf, sizeof(buf)), "");
	assert_string_equal(list_str(ns, CFG_EP_FILTER, buf, sizeof(buf)), default_lists[CFG_EP_FILTER]);
	config_free(&c);

	c = load_fixture("tests/fixtures/config/bin_packing_most_allocated.yaml", false);
	const struct cfg_fit_args *f = &c.profiles[0].args.fit;
	assert_int_equal(f->scoring_type, CFG_SCORING_MOST_ALLOCATED);
	assert_int_equal(f->n_resources, 4);
	assert_ptr_equal(f->resources[2].name, intern_str("intel.com/foo"));
	assert_int_equal(f->resources[3].weight, 3);
	assert_int_equal(c.profiles[0].plugin_config[0], CFG_ARGS_FIT);
	config_free(&c);

	c = load_fixture("tests/fixtures/config/bin_packing_rtcr.yaml", false);
	f = &c.profiles[0].args.fit;
	assert_int_equal(f->scoring_type, CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO);
	assert_int_equal(f->n_shape, 2);
	assert_int_equal(f->shape[1].utilization, 100);
	assert_int_equal(f->shape[1].score, 10);
	assert_int_equal(f->n_resources, 2);
	config_free(&c);

	c = load_fixture("tests/fixtures/config/node_affinity_per_profile.yaml", false);
	assert_null(c.profiles[0].args.node_affinity.added_affinity);
	const struct api_node_affinity *na = c.profiles[1].args.node_affinity.added_affinity;
	assert_non_null(na);
	assert_true(na->has_required);
	assert_int_equal(na->n_required, 1);
	assert_int_equal(na->required[0].n_exprs, 1);
	assert_ptr_equal(na->required[0].exprs[0].key, intern_str("scheduler-profile"));
	assert_int_equal(na->required[0].exprs[0].op, API_OP_IN);
	assert_int_equal(na->required[0].exprs[0].n_values, 1);
	assert_ptr_equal(na->required[0].exprs[0].values[0], intern_str("foo"));
	config_free(&c);

	c = load_fixture("tests/fixtures/config/topology_spread_defaults.yaml", false);
	const struct cfg_topology_spread_args *t = &c.profiles[0].args.topology_spread;
	assert_int_equal(t->defaulting_type, CFG_DEFAULTING_LIST);
	assert_int_equal(t->n_default_constraints, 1);
	assert_int_equal(t->default_constraints[0].max_skew, 1);
	assert_ptr_equal(t->default_constraints[0].topology_key, intern_str("topology.kubernetes.io/zone"));
	assert_int_equal(t->default_constraints[0].when_unsatisfiable, API_SCHEDULE_ANYWAY);
	assert_null(t->default_constraints[0].label_selector);
	/* PodTopologySpread runs with them. */
	assert_true(config_profile_runs(&c.profiles[0], CFG_EP_FILTER, "PodTopologySpread", NULL));
	config_free(&c);
}

static void test_full_json(void **state)
{
	(void)state;
	char buf[1024];
	struct config c = load_fixture("tests/fixtures/config/full.json", false);
	assert_int_equal(c.parallelism, 8);
	assert_int_equal(c.percentage_of_nodes_to_score, 40);
	assert_int_equal(c.pod_initial_backoff_seconds, 2);
	assert_int_equal(c.pod_max_backoff_seconds, 30);
	assert_true(c.delay_cache_until_active);
	assert_false(c.leader_election.leader_elect);
	assert_int_equal(c.leader_election.lease_duration_ns, 90000000000LL);
	assert_int_equal(c.leader_election.renew_deadline_ns, 60000000000LL);
	assert_int_equal(c.leader_election.retry_period_ns, 500000000LL);
	assert_string_equal(c.leader_election.resource_name, "my-lease");
	assert_string_equal(c.leader_election.resource_namespace, "sched");
	assert_string_equal(c.client_connection.kubeconfig, "/k.conf");
	assert_true(c.client_connection.qps == 12.5f);
	assert_int_equal(c.client_connection.burst, 20);

	const struct cfg_profile *a = config_profile(&c, "a");
	assert_non_null(a);
	assert_true(a->has_percentage_of_nodes_to_score);
	assert_int_equal(a->percentage_of_nodes_to_score, 30);
	assert_string_equal(list_str(a, CFG_EP_SCORE, buf, sizeof(buf)),
			    "ImageLocality/5 NodeAffinity/2 NodeResourcesFit/1 VolumeBinding/1 PodTopologySpread/2 InterPodAffinity/2 DynamicResources/2 NodeResourcesBalancedAllocation/1");
	assert_string_equal(list_str(a, CFG_EP_PRE_SCORE, buf, sizeof(buf)), default_lists[CFG_EP_PRE_SCORE]);
	assert_int_equal(a->args.balanced.n_resources, 2);
	assert_ptr_equal(a->args.balanced.resources[1].name, intern_str("example.com/gpu"));
	assert_int_equal(a->args.inter_pod_affinity.hard_pod_affinity_weight, 5);
	assert_int_equal(a->args.preemption.min_candidate_nodes_percentage, 20);
	assert_int_equal(a->args.preemption.min_candidate_nodes_absolute, 50);
	assert_int_equal(a->args.volume_binding.bind_timeout_seconds, 300);
	const struct api_node_affinity *na = a->args.node_affinity.added_affinity;
	assert_false(na->has_required);
	assert_int_equal(na->n_preferred, 1);
	assert_int_equal(na->preferred[0].weight, 10);
	assert_int_equal(na->preferred[0].term.exprs[0].op, API_OP_NOT_IN);
	assert_int_equal(na->preferred[0].term.exprs[0].n_values, 2);
	assert_ptr_equal(na->preferred[0].term.fields[0].key, intern_str("metadata.name"));
	/* Explicit entries first, in file order, then defaults for the profile's plugins. */
	static const enum cfg_args_kind order[] = { CFG_ARGS_BALANCED, CFG_ARGS_INTER_POD_AFFINITY, CFG_ARGS_PREEMPTION,
						    CFG_ARGS_VOLUME_BINDING, CFG_ARGS_NODE_AFFINITY, CFG_ARGS_DYNAMIC_RESOURCES,
						    CFG_ARGS_FIT, CFG_ARGS_TOPOLOGY_SPREAD };
	assert_int_equal(a->n_plugin_config, 8);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(a->plugin_config[i], order[i]);
	/* The extender's ignoredByScheduler resource becomes NodeResourcesFit's ignoredResources. */
	assert_int_equal(a->args.fit.n_ignored_resources, 1);
	assert_ptr_equal(a->args.fit.ignored_resources[0], intern_str("example.com/foo"));

	assert_int_equal(c.n_extenders, 1);
	const struct cfg_extender *x = &c.extenders[0];
	assert_string_equal(x->url_prefix, "http://127.0.0.1:8888/");
	assert_string_equal(x->filter_verb, "filter");
	assert_string_equal(x->prioritize_verb, "prioritize");
	assert_string_equal(x->preempt_verb, "");
	assert_int_equal(x->weight, 2);
	assert_string_equal(x->bind_verb, "bind");
	assert_true(x->enable_https);
	assert_int_equal(x->http_timeout_ns, 2000000000LL);
	assert_true(x->node_cache_capable);
	assert_true(x->ignorable);
	assert_true(x->has_tls);
	assert_true(x->tls.insecure);
	assert_string_equal(x->tls.server_name, "ext");
	assert_int_equal(x->tls.ca_data_len, 5);
	assert_memory_equal(x->tls.ca_data, "hello", 5);
	assert_int_equal(x->tls.cert_data_len, 0);
	assert_int_equal(x->n_managed_resources, 1);
	assert_true(x->managed_resources[0].ignored_by_scheduler);
	config_free(&c);
}

/* ---------- merging of the default plugins ---------- */

#define H "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

static void test_merge(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		const char *plugins; /* YAML under profiles[0].plugins, indented by 4 */
		enum cfg_ext_point ep;
		const char *want;
	} cases[] = {
		{ "no plugins: defaults", "    {}\n", CFG_EP_SCORE, default_lists[CFG_EP_SCORE] },
		{ "score: disable one, enable one with a weight",
		  "    score:\n      disabled:\n      - name: TaintToleration\n      enabled:\n      - name: ImageLocality\n        weight: 5\n",
		  CFG_EP_SCORE, "ImageLocality/5 NodeAffinity/2 NodeResourcesFit/1 VolumeBinding/1 PodTopologySpread/2 InterPodAffinity/2 DynamicResources/2 NodeResourcesBalancedAllocation/1" },
		{ "score: disabling at score keeps the plugin's preScore",
		  "    score:\n      disabled:\n      - name: TaintToleration\n",
		  CFG_EP_PRE_SCORE, default_lists[CFG_EP_PRE_SCORE] },
		{ "multiPoint re-configures a default in place",
		  "    multiPoint:\n      enabled:\n      - name: TaintToleration\n        weight: 10\n",
		  CFG_EP_SCORE, "TaintToleration/10 NodeAffinity/2 NodeResourcesFit/1 VolumeBinding/1 PodTopologySpread/2 InterPodAffinity/2 DynamicResources/2 NodeResourcesBalancedAllocation/1 ImageLocality/1" },
		{ "score weight overrides the multiPoint default, moving it first",
		  "    score:\n      enabled:\n      - name: NodeResourcesFit\n        weight: 7\n",
		  CFG_EP_SCORE, "NodeResourcesFit/7 TaintToleration/3 NodeAffinity/2 VolumeBinding/1 PodTopologySpread/2 InterPodAffinity/2 DynamicResources/2 NodeResourcesBalancedAllocation/1 ImageLocality/1" },
		{ "multiPoint '*' keeps only what it enables (filter)",
		  "    multiPoint:\n      disabled:\n      - name: '*'\n      enabled:\n      - name: PrioritySort\n      - name: NodeName\n      - name: DefaultBinder\n",
		  CFG_EP_FILTER, "NodeName/0" },
		{ "multiPoint '*' keeps only what it enables (score)",
		  "    multiPoint:\n      disabled:\n      - name: '*'\n      enabled:\n      - name: PrioritySort\n      - name: NodeName\n      - name: DefaultBinder\n",
		  CFG_EP_SCORE, "" },
		{ "filter '*' empties filter",
		  "    filter:\n      disabled:\n      - name: '*'\n", CFG_EP_FILTER, "" },
		{ "filter '*' leaves preFilter",
		  "    filter:\n      disabled:\n      - name: '*'\n", CFG_EP_PRE_FILTER, default_lists[CFG_EP_PRE_FILTER] },
		{ "filter '*' then re-enable in a new order",
		  "    filter:\n      disabled:\n      - name: '*'\n      enabled:\n      - name: NodePorts\n      - name: NodeName\n",
		  CFG_EP_FILTER, "NodePorts/0 NodeName/0" },
		{ "multiPoint disable + explicit filter enable appends it last",
		  "    multiPoint:\n      disabled:\n      - name: NodeAffinity\n    filter:\n      enabled:\n      - name: NodeAffinity\n",
		  CFG_EP_FILTER, "NodeName/0 NodeUnschedulable/0 TaintToleration/0 NodePorts/0 NodeResourcesFit/0 VolumeRestrictions/0 NodeVolumeLimits/0 VolumeBinding/0 VolumeZone/0 PodTopologySpread/0 InterPodAffinity/0 DynamicResources/0 NodeDeclaredFeatures/0 NodeAffinity/0" },
		{ "multiPoint disable removes it from score too",
		  "    multiPoint:\n      disabled:\n      - name: NodeAffinity\n    filter:\n      enabled:\n      - name: NodeAffinity\n",
		  CFG_EP_SCORE, "TaintToleration/3 NodeResourcesFit/1 VolumeBinding/1 PodTopologySpread/2 InterPodAffinity/2 DynamicResources/2 NodeResourcesBalancedAllocation/1 ImageLocality/1" },
		{ "explicit filter override goes first",
		  "    filter:\n      enabled:\n      - name: NodePorts\n",
		  CFG_EP_FILTER, "NodePorts/0 NodeName/0 NodeUnschedulable/0 TaintToleration/0 NodeAffinity/0 NodeResourcesFit/0 VolumeRestrictions/0 NodeVolumeLimits/0 VolumeBinding/0 VolumeZone/0 PodTopologySpread/0 InterPodAffinity/0 DynamicResources/0 NodeDeclaredFeatures/0" },
		{ "multiPoint disable of DynamicResources removes it from filter",
		  "    multiPoint:\n      disabled:\n      - name: DynamicResources\n", CFG_EP_FILTER,
		  "NodeName/0 NodeUnschedulable/0 TaintToleration/0 NodeAffinity/0 NodePorts/0 NodeResourcesFit/0 VolumeRestrictions/0 NodeVolumeLimits/0 VolumeBinding/0 VolumeZone/0 PodTopologySpread/0 InterPodAffinity/0 NodeDeclaredFeatures/0" },
	};
	char doc[2048], buf[1024];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(doc, sizeof(doc), H "profiles:\n- plugins:\n%s", cases[i].plugins);
		struct config c;
		struct err e = { 0 };
		if (config_load_buffer(&c, fw_registry(), "merge.yaml", doc, strlen(doc), &e))
			fail_msg("%s: %s", cases[i].name, e.msg);
		const char *got = list_str(&c.profiles[0], cases[i].ep, buf, sizeof(buf));
		if (strcmp(got, cases[i].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
		check_round_trip(&c);
		config_free(&c);
	}
}

/* ---------- legacy Policy ---------- */

static void test_policy_seed(void **state)
{
	(void)state;
	static const char *const want[CFG_EP_COUNT] = {
		[CFG_EP_PRE_ENQUEUE] = "SchedulingGates/0",
		[CFG_EP_QUEUE_SORT] = "PrioritySort/0",
		[CFG_EP_PRE_FILTER] = "NodePorts/0 NodeAffinity/0 NodeResourcesFit/0 VolumeRestrictions/0",
		/* upstream's predicateOrdering, plus the mandatory CheckNodeUnschedulable and
		 * PodToleratesNodeTaints */
		[CFG_EP_FILTER] = "NodeUnschedulable/0 NodeName/0 NodePorts/0 NodeAffinity/0 NodeResourcesFit/0 VolumeRestrictions/0 TaintToleration/0",
		/* upstream v1.22 factory.go createFromConfig: "PrioritySort", "DefaultPreemption" and
		 * "DefaultBinder" were neither predicates nor priorities before. We add them by default. */
		[CFG_EP_POST_FILTER] = "DefaultPreemption/0",
		[CFG_EP_PRE_SCORE] = "NodeResourcesBalancedAllocation/0 NodeResourcesFit/0",
		/* EqualPriority maps to nothing */
		[CFG_EP_SCORE] = "NodeResourcesBalancedAllocation/1 NodeResourcesFit/1",
		[CFG_EP_RESERVE] = "", [CFG_EP_PERMIT] = "", [CFG_EP_PRE_BIND] = "",
		[CFG_EP_BIND] = "DefaultBinder/0",
		[CFG_EP_POST_BIND] = "",
	};
	static const char seed[] =
		"{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"predicates\":[{\"name\":\"PodFitsHostPorts\"},{\"name\":\"PodFitsResources\"},"
		"{\"name\":\"NoDiskConflict\"},{\"name\":\"MatchNodeSelector\"},{\"name\":\"HostName\"}],\"priorities\":[{\"name\":"
		"\"LeastRequestedPriority\",\"weight\":1},{\"name\":\"BalancedResourceAllocation\",\"weight\":1},{\"name\":\"EqualPriority\",\"weight\":1}]}";
	char buf[1024];
	struct config c;
	struct err e = { 0 };
	if (config_load_policy_buffer(&c, fw_registry(), "seed.json", seed, sizeof(seed) - 1, &e))
		fail_msg("%s", e.msg);
	assert_true(c.from_policy);
	assert_int_equal(c.n_profiles, 1);
	assert_string_equal(c.profiles[0].scheduler_name, "csched");
	for (int ep = 0; ep < CFG_EP_COUNT; ep++)
		assert_string_equal(list_str(&c.profiles[0], (enum cfg_ext_point)ep, buf, sizeof(buf)), want[ep]);
	assert_int_equal(c.profiles[0].args.fit.scoring_type, CFG_SCORING_LEAST_ALLOCATED);
	/* The rest is upstream's defaults. */
	assert_int_equal(c.parallelism, 16);
	assert_string_equal(c.leader_election.resource_name, "csched");
	check_round_trip(&c);
	config_free(&c);
}

static void test_policy_mappings(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		const char *doc;
		enum cfg_ext_point ep;
		const char *want;
	} cases[] = {
		{ "GeneralPredicates expands to four plugins in upstream's order",
		  "kind: Policy\napiVersion: v1\npredicates:\n- name: GeneralPredicates\npriorities: []\n", CFG_EP_FILTER,
		  "NodeUnschedulable/0 NodeResourcesFit/0 NodeName/0 NodePorts/0 NodeAffinity/0 TaintToleration/0" },
		{ "file order does not matter: predicateOrdering rules",
		  "kind: Policy\napiVersion: v1\npredicates:\n- name: PodToleratesNodeTaints\n- name: HostName\n- name: CheckNodeUnschedulable\npriorities: []\n",
		  CFG_EP_FILTER, "NodeUnschedulable/0 NodeName/0 TaintToleration/0" },
		{ "PodFitsPorts is PodFitsHostPorts",
		  "kind: Policy\napiVersion: v1\npredicates:\n- name: PodFitsPorts\npriorities: []\n", CFG_EP_PRE_FILTER, "NodePorts/0" },
		{ "empty predicates still get the mandatory ones",
		  "kind: Policy\napiVersion: v1\npredicates: []\npriorities: []\n", CFG_EP_FILTER, "NodeUnschedulable/0 TaintToleration/0" },
		{ "empty priorities score nothing",
		  "kind: Policy\napiVersion: v1\npredicates: []\npriorities: []\n", CFG_EP_SCORE, "" },
		{ "priorities sorted by name, weights kept",
		  "kind: Policy\napiVersion: v1\npredicates: []\npriorities:\n- name: TaintTolerationPriority\n  weight: 3\n- name: ImageLocalityPriority\n  weight: 4\n- name: NodeAffinityPriority\n  weight: 5\n- name: MostRequestedPriority\n  weight: 6\n",
		  CFG_EP_SCORE, "ImageLocality/4 NodeResourcesFit/6 NodeAffinity/5 TaintToleration/3" },
		{ "priorities bring their PreScore",
		  "kind: Policy\napiVersion: v1\npredicates: []\npriorities:\n- name: TaintTolerationPriority\n  weight: 3\n- name: ImageLocalityPriority\n  weight: 4\n",
		  CFG_EP_PRE_SCORE, "TaintToleration/0" },
		{ "absent predicates: upstream defaults csched implements",
		  "kind: Policy\napiVersion: v1\n", CFG_EP_FILTER,
		  "NodeUnschedulable/0 NodeResourcesFit/0 NodeName/0 NodePorts/0 NodeAffinity/0 VolumeRestrictions/0 TaintToleration/0 NodeVolumeLimits/0 VolumeBinding/0 VolumeZone/0 PodTopologySpread/0 InterPodAffinity/0" },
		{ "absent priorities: upstream defaults csched implements",
		  "kind: Policy\napiVersion: v1\n", CFG_EP_SCORE,
		  "NodeResourcesBalancedAllocation/1 PodTopologySpread/2 ImageLocality/1 InterPodAffinity/1 NodeResourcesFit/1 NodeAffinity/1 TaintToleration/1" },
		{ "keys are case-insensitive", "KIND: Policy\nApiVersion: v1\nPredicates:\n- NAME: HostName\nPriorities: []\n",
		  CFG_EP_FILTER, "NodeUnschedulable/0 NodeName/0 TaintToleration/0" },
	};
	char buf[1024];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct err e = { 0 };
		if (config_load_policy_buffer(&c, fw_registry(), "p.yaml", cases[i].doc, strlen(cases[i].doc), &e))
			fail_msg("%s: %s", cases[i].name, e.msg);
		const char *got = list_str(&c.profiles[0], cases[i].ep, buf, sizeof(buf));
		if (strcmp(got, cases[i].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
		config_free(&c);
	}

	struct config c = load_fixture("tests/fixtures/config/policy_full.yaml", true);
	const struct cfg_profile *p = &c.profiles[0];
	assert_string_equal(list_str(p, CFG_EP_SCORE, buf, sizeof(buf)), "ImageLocality/1 NodeResourcesFit/2 TaintToleration/4");
	assert_int_equal(p->args.fit.scoring_type, CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO);
	assert_int_equal(p->args.fit.n_shape, 2);
	assert_int_equal(p->args.fit.shape[0].score, 10);
	assert_int_equal(p->args.fit.n_resources, 1);
	assert_int_equal(p->args.fit.resources[0].weight, 3);
	assert_int_equal(p->args.inter_pod_affinity.hard_pod_affinity_weight, 10);
	assert_int_equal(c.n_extenders, 1);
	assert_string_equal(c.extenders[0].url_prefix, "http://ext:80/api");
	assert_true(c.extenders[0].enable_https);
	assert_int_equal(c.extenders[0].http_timeout_ns, 3000000000LL);
	config_free(&c);
}

/* ---------- durations, JSON, overrides, malformed input ---------- */

static void test_durations(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		int64_t ns;
		const char *out;
	} ok[] = {
		{ "15s", 15000000000LL, "15s" }, { "1m30s", 90000000000LL, "1m30s" }, { "500ms", 500000000LL, "500ms" },
		{ "1h", 3600000000000LL, "1h0m0s" }, { "1.5s", 1500000000LL, "1.5s" }, { "-2s", -2000000000LL, "-2s" },
		{ "0", 0, "0s" }, { "300us", 300000, "300\xc2\xb5s" }, { "10ns", 10, "10ns" }, { "2h45m", 9900000000000LL, "2h45m0s" },
		{ "1.25ms", 1250000, "1.25ms" },
	};
	static const char *const bad[] = { "", "15", "s", "1x", "1.s5", "--1s", "1s ", "9999999999h" };
	char buf[48];
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int64_t ns = -1;
		assert_int_equal(cfg_duration_parse(ok[i].in, &ns), 0);
		assert_int_equal(ns, ok[i].ns);
		assert_string_equal(cfg_duration_format(ok[i].ns, buf, sizeof(buf)), ok[i].out);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ns;
		if (cfg_duration_parse(bad[i], &ns) == 0)
			fail_msg("\"%s\" parsed", bad[i]);
	}
}

static void test_json_and_yaml_agree(void **state)
{
	(void)state;
	static const char yaml[] = H "parallelism: 4\nprofiles:\n- schedulerName: x\n  plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 9\n";
	/* Tabs, no spaces after colons, one line: all JSON, all fine for libyaml. */
	static const char json[] = "{\n\t\"apiVersion\":\"kubescheduler.config.k8s.io/v1\",\n\t\"kind\":\"KubeSchedulerConfiguration\",\n"
				   "\t\"parallelism\":4,\"profiles\":[{\"schedulerName\":\"x\",\"plugins\":{\"score\":{\"enabled\":[{\"name\":\"ImageLocality\",\"weight\":9}]}}}]\n}\n";
	struct config a, b;
	struct err e = { 0 };
	assert_int_equal(config_load_buffer(&a, fw_registry(), "a.yaml", yaml, sizeof(yaml) - 1, &e), 0);
	if (config_load_buffer(&b, fw_registry(), "b.json", json, sizeof(json) - 1, &e))
		fail_msg("%s", e.msg);
	char *wa = write_to_string(&a), *wb = write_to_string(&b);
	assert_string_equal(wa, wb);
	assert_int_equal(b.parallelism, 4);
	free(wa);
	free(wb);
	config_free(&a);
	config_free(&b);
}

static void test_validate_after_override(void **state)
{
	(void)state;
	struct config c;
	struct err e = { 0 };
	assert_int_equal(config_init_default(&c, fw_registry(), &e), 0);
	c.client_connection.kubeconfig = config_strdup(&c, "/etc/kube.conf");
	c.leader_election.leader_elect = false;
	assert_int_equal(config_validate(&c, &e), 0);
	assert_string_equal(c.client_connection.kubeconfig, "/etc/kube.conf");
	c.parallelism = 0;
	assert_int_equal(config_validate(&c, &e), ERR_INVALID);
	assert_string_equal(e.msg, "parallelism: Invalid value: 0: should be an integer value greater than zero");
	c.parallelism = 4;
	c.profiles[0].args.preemption.min_candidate_nodes_percentage = 0;
	c.profiles[0].args.preemption.min_candidate_nodes_absolute = 0;
	/* the defaulted DefaultPreemptionArgs: first of upstream's sorted pluginsNames */
	assert_int_equal(c.profiles[0].plugin_config[0], CFG_ARGS_PREEMPTION);
	assert_int_equal(config_validate(&c, &e), ERR_INVALID);
	assert_string_equal(e.msg, "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute");
	config_free(&c);
}

static void test_plugin_config_without_args(void **state)
{
	(void)state;
	static const char doc[] = H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: ImageLocality\n    args: {}\n";
	struct config c;
	struct err e = { 0 };
	if (config_load_buffer(&c, fw_registry(), "t.yaml", doc, sizeof(doc) - 1, &e))
		fail_msg("%s", e.msg);
	const struct cfg_profile *p = &c.profiles[0];
	assert_null(p->args.node_affinity.added_affinity);
	assert_int_equal(p->n_plugin_config, 8);
	assert_int_equal(p->plugin_config[0], CFG_ARGS_NODE_AFFINITY);
	assert_int_equal(p->plugin_config[1], CFG_ARGS_PREEMPTION);
	assert_int_equal(p->plugin_config[2], CFG_ARGS_DYNAMIC_RESOURCES);
	assert_int_equal(p->plugin_config[3], CFG_ARGS_INTER_POD_AFFINITY);
	assert_int_equal(p->plugin_config[4], CFG_ARGS_BALANCED);
	assert_int_equal(p->plugin_config[5], CFG_ARGS_FIT);
	assert_int_equal(p->plugin_config[6], CFG_ARGS_TOPOLOGY_SPREAD);
	assert_int_equal(p->plugin_config[7], CFG_ARGS_VOLUME_BINDING);
	check_round_trip(&c);
	config_free(&c);
}

static void test_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *doc;
		const char *want;
	} cases[] = {
		{ "apiVersion: [\n", "t.yaml:2:1: invalid YAML: did not find expected node content while parsing a flow node" },
		{ "a: b\n c: d\n", "t.yaml:2:3: invalid YAML: mapping values are not allowed in this context" },
		{ "a: 1\n\tb: 2\n", "t.yaml:2:1: invalid YAML: found a tab character that violates indentation while scanning a plain scalar" },
		{ "{\"apiVersion\": \"x\"", "t.yaml:2:1: invalid YAML: did not find expected ',' or '}' while parsing a flow mapping" },
		{ "a: \"unterminated\n", "t.yaml:2:1: invalid YAML: found unexpected end of stream while scanning a quoted scalar" },
		{ "- 1\n- 2\n", "t.yaml:1:1: expected a mapping at the top level, got a sequence" },
		{ "just text\n", "t.yaml:1:1: expected a mapping at the top level, got a scalar" },
		{ "", "t.yaml:1:1: apiVersion: Required value: want kubescheduler.config.k8s.io/v1" },
		{ H "---\n" H, "t.yaml:3:1: more than one YAML document; a configuration file holds one" },
		{ "a: \xc3\x28\n", "t.yaml:1:5: invalid YAML: invalid trailing UTF-8 octet" },
		{ H "? [a]\n: b\n", "t.yaml:3:3: mapping keys must be strings" },
		{ H "anchors: &a [*a]\n", "t.yaml:3:10: anchors: unknown field \"anchors\"" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct err e = { 0 };
		int rc = config_load_buffer(&c, fw_registry(), "t.yaml", cases[i].doc, strlen(cases[i].doc), &e);
		if (rc != ERR_INVALID || strcmp(e.msg, cases[i].want))
			fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, e.msg, cases[i].want);
		assert_null(c.arena);
		config_free(&c);
	}
	struct config c;
	struct err e = { 0 };
	assert_int_equal(config_load_file(&c, fw_registry(), "/nonexistent/sched.yaml", &e), ERR_IO);
	assert_string_equal(e.msg, "/nonexistent/sched.yaml: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_fixture_round_trips),
		cmocka_unit_test(test_fixture_contents),
		cmocka_unit_test(test_full_json),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_policy_seed),
		cmocka_unit_test(test_policy_mappings),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_json_and_yaml_agree),
		cmocka_unit_test(test_validate_after_override),
		cmocka_unit_test(test_plugin_config_without_args),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
