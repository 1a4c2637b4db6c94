/* config_profile_upstream_signs_pods: which profiles kube-scheduler v1.37 would run
 * OpportunisticBatching for (it computes pod signatures only when PodTopologySpread has no default
 * constraints, upstream podtopologyspread/plugin.go SignPod + framework.go SignPod). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "algorithm/framework.h"
#include "config/config.h"

#define HEAD "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: s\n"

struct sign_case {
	const char *name;
	const char *yaml; /* NULL = csched's default configuration */
	bool signs;
};

/* oracle: upstream v1.37.2 (`oracle -v 6` on example 01-taint-and-cpu with each row's config as
 * a default-scheduler profile). Rows without signatures log "SignPod can't sign pod due to plugin"
 * plugin="PodTopologySpread" status="pods with default topology constraints are not signable" and
 * "OpportunisticBatch found unusable state" reason="pod_not_batchable" (default, Filter only, List
 * with a constraint); rows with signatures log "OpportunisticBatch set batch information"
 * (multiPoint disabled, '*' at multiPoint, List without constraints, every own point) or, with no
 * scoring left ('*' at every point), reason="empty_list" rather than pod_not_batchable. */
static const struct sign_case cases[] = {
	{ "default configuration", NULL, false },
	{ "default profile", HEAD, false },
	{ "PodTopologySpread disabled at multiPoint", HEAD "  plugins:\n    multiPoint:\n      disabled:\n      - name: PodTopologySpread\n", true },
	{ "every default plugin disabled at multiPoint", HEAD "  plugins:\n    multiPoint:\n      enabled:\n      - name: PrioritySort\n      - name: DefaultBinder\n      - name: NodeResourcesFit\n      disabled:\n      - name: '*'\n", true },
	{ "List without default constraints", HEAD "  pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n", true },
	{ "List with a default constraint", HEAD "  pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: ScheduleAnyway\n", false },
	{ "disabled at Filter only (still PreFilter, PreScore, Score)", HEAD "  plugins:\n    filter:\n      disabled:\n      - name: PodTopologySpread\n", false },
	{ "disabled at every point of its own", HEAD "  plugins:\n    preFilter:\n      disabled:\n      - name: PodTopologySpread\n    filter:\n      disabled:\n      - name: PodTopologySpread\n    preScore:\n      disabled:\n      - name: PodTopologySpread\n    score:\n      disabled:\n      - name: PodTopologySpread\n", true },
	/* upstream framework.go computeBatchablePlugins collects every PreFilter, Filter, PreScore and
	 * Score plugin the profile runs: one enabled at score alone refuses the pods (System defaults) */
	{ "disabled at multiPoint, enabled at score", HEAD "  plugins:\n    multiPoint:\n      disabled:\n      - name: PodTopologySpread\n    score:\n      enabled:\n      - name: PodTopologySpread\n", false },
	{ "'*' at every point of its own", HEAD "  plugins:\n    preFilter:\n      disabled:\n      - name: '*'\n    filter:\n      disabled:\n      - name: '*'\n    preScore:\n      disabled:\n      - name: '*'\n    score:\n      disabled:\n      - name: '*'\n", true },
};

static void test_upstream_signs_pods(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sign_case *tc = &cases[i];
		struct config cfg;
		struct err e = { 0 };
		int rc = tc->yaml ? config_load_buffer(&cfg, fw_registry(), "c.yaml", tc->yaml, strlen(tc->yaml), &e)
				  : config_init_default(&cfg, fw_registry(), &e);
		if (rc)
			fail_msg("%s: %s", tc->name, e.msg);
		if (config_profile_upstream_signs_pods(&cfg.profiles[0]) != tc->signs)
			fail_msg("%s: want %s", tc->name, tc->signs ? "signatures (batching)" : "no signatures");
		config_free(&cfg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upstream_signs_pods),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
