/* OpportunisticBatching's metric families as upstream v1.37 exports them for a profile whose pods
 * it does not sign (pkg/scheduler/metrics/metrics.go BatchAttemptStats, BatchCacheFlushed,
 * GetNodeHintDuration, StoreScheduleResultsDuration; framework/runtime/batch.go GetNodeHint and
 * StoreScheduleResults with no batch state and a nil signature). Upstream's real scheduler
 * (scheduler.New + Run, fake clientset, four pods of one template bound one after another, default
 * plugins) gathers exactly these families, help texts and labels: batch_attempts_total
 * {profile,result="no_hint"} 4, batch_cache_flushed_total{profile,reason="pod_not_batchable"} 4,
 * and both histograms with 4 samples over the bounds 1e-05 .. 0.02048. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prom_text_check.h"
#include "scheduler/metrics.h"

static void test_batch_families(void **state)
{
	(void)state;
	struct sched_metrics *m = sched_metrics_new();
	assert_non_null(m);
	char *text = NULL;
	size_t len = 0;
	struct err e = {0};

	/* nothing observed: upstream's vectors without a series print nothing */
	assert_int_equal(sched_metrics_render(m, &text, &len, &e), 0);
	assert_null(strstr(text, "batch"));
	assert_null(strstr(text, "node_hint"));
	free(text);

	/* three cycles asked for a hint (GetNodeHint: no state, so "no_hint"); one stored with one
	 * feasible node (otherNodes nil: "empty_list"), two after scoring (nil signature:
	 * "pod_not_batchable") */
	for (int i = 0; i < 3; i++)
		sched_metrics_batch_no_hint(m, "p", 0);
	sched_metrics_batch_stored(m, "p", true, 0);
	sched_metrics_batch_stored(m, "p", false, 0);
	sched_metrics_batch_stored(m, "p", false, 0.001);
	sched_metrics_batch_no_hint(NULL, "p", 0); /* no registry: no-op */
	assert_int_equal(sched_metrics_render(m, &text, &len, &e), 0);
	char why[512] = "";
	int n = 0;
	if (!prom_check_text(text, why, sizeof why, &n))
		fail_msg("invalid exposition: %s\n%s", why, text);
	static const char *const want[] = {
		"# HELP scheduler_batch_attempts_total [ALPHA] Counts of results when we attempt to use batching.\n"
		"# TYPE scheduler_batch_attempts_total counter\n"
		"scheduler_batch_attempts_total{profile=\"p\",result=\"no_hint\"} 3\n",
		"# HELP scheduler_batch_cache_flushed_total [ALPHA] Counts of cache flushes by reason.\n"
		"# TYPE scheduler_batch_cache_flushed_total counter\n"
		"scheduler_batch_cache_flushed_total{profile=\"p\",reason=\"empty_list\"} 1\n"
		"scheduler_batch_cache_flushed_total{profile=\"p\",reason=\"pod_not_batchable\"} 2\n",
		"# HELP scheduler_get_node_hint_duration_seconds [ALPHA] Latency for getting a node hint.\n"
		"# TYPE scheduler_get_node_hint_duration_seconds histogram\n"
		"scheduler_get_node_hint_duration_seconds_bucket{hinted=\"no_hint\",profile=\"p\",le=\"1e-05\"} 3\n",
		"scheduler_get_node_hint_duration_seconds_bucket{hinted=\"no_hint\",profile=\"p\",le=\"0.02048\"} 3\n"
		"scheduler_get_node_hint_duration_seconds_bucket{hinted=\"no_hint\",profile=\"p\",le=\"+Inf\"} 3\n",
		"# HELP scheduler_store_schedule_results_duration_seconds [ALPHA] Latency for storing scheduling results.\n"
		"# TYPE scheduler_store_schedule_results_duration_seconds histogram\n"
		"scheduler_store_schedule_results_duration_seconds_bucket{profile=\"p\",le=\"1e-05\"} 2\n",
		"scheduler_store_schedule_results_duration_seconds_bucket{profile=\"p\",le=\"0.00128\"} 3\n",
		"scheduler_store_schedule_results_duration_seconds_count{profile=\"p\"} 3\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i]))
			fail_msg("missing:\n%s\nin:\n%s", want[i], text);
	/* name order, as client_golang gathers: batch_* before framework_*, get_node_hint after it,
	 * store_* after scheduling_* */
	const char *attempts = strstr(text, "# HELP scheduler_batch_attempts_total");
	const char *flushed = strstr(text, "# HELP scheduler_batch_cache_flushed_total");
	const char *hint = strstr(text, "# HELP scheduler_get_node_hint_duration_seconds");
	const char *store = strstr(text, "# HELP scheduler_store_schedule_results_duration_seconds");
	assert_true(attempts < flushed && flushed < hint && hint < store);
	free(text);
	sched_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_families),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
