/* The preemption metric families as upstream v1.37.2 exports them (pkg/scheduler/metrics/metrics.go
 * PreemptionAttempts, PreemptionVictims, PreemptionGoroutinesExecutionTotal; the last registered
 * with SchedulerAsyncPreemption, on by default): names, help texts (component-base prefixes the
 * stability level), label and buckets (ExponentialBuckets(1, 2, 7)). The deprecated
 * preemption_goroutines_duration_seconds is hidden in 1.37 (component-base shouldHide) and must not
 * show, nor the GenericWorkload-gated families (off by default). */
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

static char *render(struct sched_metrics *m)
{
	char *text = NULL;
	size_t len = 0;
	struct err e = {0};
	assert_int_equal(sched_metrics_render(m, &text, &len, &e), 0);
	char why[512] = "";
	int n = 0;
	if (!prom_check_text(text, why, sizeof why, &n))
		fail_msg("invalid exposition: %s\n%s", why, text);
	return text;
}

static void test_preemption_families(void **state)
{
	(void)state;
	struct sched_metrics *m = sched_metrics_new();
	assert_non_null(m);

	/* upstream: the unlabelled counter and histogram show from the start; the vector none */
	char *text = render(m);
	assert_non_null(strstr(text, "# HELP scheduler_preemption_attempts_total [STABLE] Total preemption attempts in "
				     "the cluster till now\n# TYPE scheduler_preemption_attempts_total counter\n"
				     "scheduler_preemption_attempts_total 0\n"));
	assert_null(strstr(text, "scheduler_preemption_goroutines_execution_total"));
	free(text);

	sched_metrics_preemption_attempt(m);
	sched_metrics_preemption_attempt(m);
	sched_metrics_preemption_victims(m, 1);
	sched_metrics_preemption_victims(m, 5);
	sched_metrics_preemption_goroutine(m, true);
	sched_metrics_preemption_goroutine(m, true);
	sched_metrics_preemption_goroutine(m, false);
	sched_metrics_preemption_goroutine(NULL, false); /* no registry: no-op */
	text = render(m);
	static const char *const want[] = {
		"scheduler_preemption_attempts_total 2\n",
		"# HELP scheduler_preemption_goroutines_execution_total [ALPHA] Number of preemption goroutines "
		"executed.\n"
		"# TYPE scheduler_preemption_goroutines_execution_total counter\n"
		"scheduler_preemption_goroutines_execution_total{result=\"error\"} 1\n"
		"scheduler_preemption_goroutines_execution_total{result=\"success\"} 2\n",
		"# HELP scheduler_preemption_victims [STABLE] Number of selected preemption victims for preemption "
		"initiated by a single pod\n"
		"# TYPE scheduler_preemption_victims histogram\n"
		"scheduler_preemption_victims_bucket{le=\"1\"} 1\n"
		"scheduler_preemption_victims_bucket{le=\"2\"} 1\n"
		"scheduler_preemption_victims_bucket{le=\"4\"} 1\n"
		"scheduler_preemption_victims_bucket{le=\"8\"} 2\n"
		"scheduler_preemption_victims_bucket{le=\"16\"} 2\n"
		"scheduler_preemption_victims_bucket{le=\"32\"} 2\n"
		"scheduler_preemption_victims_bucket{le=\"64\"} 2\n"
		"scheduler_preemption_victims_bucket{le=\"+Inf\"} 2\n"
		"scheduler_preemption_victims_sum 6\n"
		"scheduler_preemption_victims_count 2\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!strstr(text, want[i]))
			fail_msg("missing:\n%s\nin:\n%s", want[i], text);
	/* hidden or feature-gated off in v1.37.2 */
	assert_null(strstr(text, "preemption_goroutines_duration_seconds"));
	assert_null(strstr(text, "preemption_execution_duration_seconds"));
	assert_null(strstr(text, "preemption_pdb_violations_total"));
	free(text);
	sched_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preemption_families),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
