/* upstream's scheduler_batch_* metrics for a profile whose pods it signs, recorded from what the
 * batch path did (sched_record_batch_metrics over fw_schedule_pod's results).
 *
 * upstream: tests/fixtures/batching/batchseq with a metrics argument (its real scheduler gathers
 * the families; seq_mp_fill.metrics.out, seq_mp_mixed.metrics.out) on the sequences of
 * test_algorithm_batch.c:
 * - seq_mp_fill: batch_attempts_total hint_used 6, no_hint 1; batch_rescore_attempts_total 4 and
 *   batch_rescore_duration_seconds 4 samples; get_node_hint_duration_seconds hint 6, no_hint 1;
 *   store_schedule_results_duration_seconds 7; no batch_cache_flushed_total series.
 * - seq_mp_mixed: hint_used 3, no_hint 4; batch_cache_flushed_total pod_incompatible 3;
 *   rescore 1; hint 3, no_hint 4; store 7. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "batch_seq.h"
#include "prom_text_check.h"
#include "scheduler/metrics.h"
#include "scheduler/sched_internal.h"

static void record(void *ctx, const struct fw_schedule_result *res)
{
	sched_record_batch_metrics(ctx, "default-scheduler", true, res);
}

#define MP_DISABLED                                                                                     \
	"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"     \
	"- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      disabled:\n"            \
	"      - name: NodeResourcesBalancedAllocation\n      - name: PodTopologySpread\n"

static char *render_seq(const char *name, struct sched_metrics **m)
{
	static struct seq s;
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	*m = sched_metrics_new();
	assert_non_null(*m);
	memset(&s, 0, sizeof(s));
	s.on_result = record;
	s.ctx = *m;
	run_seq(&s, name, MP_DISABLED);
	seq_release(&s);
	assert_int_equal(sched_metrics_render(*m, &text, &len, &e), 0);
	char why[512] = "";
	int n = 0;
	if (!prom_check_text(text, why, sizeof why, &n))
		fail_msg("invalid exposition: %s\n%s", why, text);
	return text;
}

static void expect(const char *text, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strstr(text, want[i]))
			fail_msg("missing:\n%s\nin:\n%s", want[i], text);
}

static void test_fill(void **state)
{
	(void)state;
	struct sched_metrics *m;
	char *text = render_seq("seq_mp_fill", &m);
	static const char *const want[] = {
		"scheduler_batch_attempts_total{profile=\"default-scheduler\",result=\"hint_used\"} 6\n",
		"scheduler_batch_attempts_total{profile=\"default-scheduler\",result=\"no_hint\"} 1\n",
		"# HELP scheduler_batch_rescore_attempts_total [ALPHA] Counts of rescore attempts during opportunistic batching.\n"
		"# TYPE scheduler_batch_rescore_attempts_total counter\n"
		"scheduler_batch_rescore_attempts_total{profile=\"default-scheduler\"} 4\n",
		"# HELP scheduler_batch_rescore_duration_seconds [ALPHA] Latency for rescoring a node during opportunistic batching.\n"
		"# TYPE scheduler_batch_rescore_duration_seconds histogram\n",
		"scheduler_batch_rescore_duration_seconds_count{profile=\"default-scheduler\"} 4\n",
		"scheduler_get_node_hint_duration_seconds_count{hinted=\"hint\",profile=\"default-scheduler\"} 6\n",
		"scheduler_get_node_hint_duration_seconds_count{hinted=\"no_hint\",profile=\"default-scheduler\"} 1\n",
		"scheduler_store_schedule_results_duration_seconds_count{profile=\"default-scheduler\"} 7\n",
	};
	expect(text, want, sizeof(want) / sizeof(want[0]));
	assert_null(strstr(text, "scheduler_batch_cache_flushed_total{"));
	assert_null(strstr(text, "hint_not_used"));
	/* name order as client_golang gathers: attempts, cache_flushed, rescore_attempts, rescore_duration */
	assert_true(strstr(text, "# HELP scheduler_batch_attempts_total") <
		    strstr(text, "# HELP scheduler_batch_rescore_attempts_total"));
	assert_true(strstr(text, "# HELP scheduler_batch_rescore_attempts_total") <
		    strstr(text, "# HELP scheduler_batch_rescore_duration_seconds"));
	free(text);
	sched_metrics_free(m);
}

static void test_mixed(void **state)
{
	(void)state;
	struct sched_metrics *m;
	char *text = render_seq("seq_mp_mixed", &m);
	static const char *const want[] = {
		"scheduler_batch_attempts_total{profile=\"default-scheduler\",result=\"hint_used\"} 3\n",
		"scheduler_batch_attempts_total{profile=\"default-scheduler\",result=\"no_hint\"} 4\n",
		"scheduler_batch_cache_flushed_total{profile=\"default-scheduler\",reason=\"pod_incompatible\"} 3\n",
		"scheduler_batch_rescore_attempts_total{profile=\"default-scheduler\"} 1\n",
		"scheduler_get_node_hint_duration_seconds_count{hinted=\"hint\",profile=\"default-scheduler\"} 3\n",
		"scheduler_get_node_hint_duration_seconds_count{hinted=\"no_hint\",profile=\"default-scheduler\"} 4\n",
		"scheduler_store_schedule_results_duration_seconds_count{profile=\"default-scheduler\"} 7\n",
	};
	expect(text, want, sizeof(want) / sizeof(want[0]));
	/* the only flush series upstream gathered */
	const char *f = strstr(text, "scheduler_batch_cache_flushed_total{");
	assert_non_null(f);
	assert_null(strstr(f + 1, "scheduler_batch_cache_flushed_total{"));
	free(text);
	sched_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_mixed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
