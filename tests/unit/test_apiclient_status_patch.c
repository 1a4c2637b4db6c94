/* apiclient/: the pods/status patch after a failed attempt (api_pod_status_patch), as upstream's
 * updatePod (schedule_one.go) makes it: podutil.UpdatePodCondition, then util.PatchPodStatus's
 * strategicpatch.CreateTwoWayMergePatch of the old and new status.
 *
 * Expected bodies: upstream schedule_one_test.go TestUpdatePodStatus where a row applies to a
 * PodScheduled condition without a probe time, else the oracle: updatePod's own steps
 * (podutil.UpdatePodCondition, CreateTwoWayMergePatch of k8s.io/kubernetes v1.37.2 /
 * apimachinery v0.37.2) run in Go on the same old status and condition; "now" there was
 * 2026-11-25T13:29:15Z, the now_us given here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apiclient/api_client.h"
#include "apiclient/api_types.h"

#define NOW_US (1795613355LL * 1000000)
#define MSG "0/1 nodes are available: 1 Too many pods."
#define POD(status) \
	"{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u1\",\"generation\":2}," \
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":" status "}"
#define OLD_SCHED(extra) \
	"{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\"," extra \
	"\"observedGeneration\":1,\"lastProbeTime\":null,\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}"

struct patch_case {
	const char *name;
	const char *pod;                  /* JSON */
	struct api_pod_scheduled cond;    /* status NULL: no condition */
	const char *nominated;
	const char *want;                 /* NULL: no request */
};

static const struct patch_case cases[] = {
	/* upstream TestUpdatePodStatus "Should make patch request to add pod condition when there
	 * are none currently" (with lastProbeTime unset: null) */
	{ "new condition", POD("{\"phase\":\"Pending\"}"), { "False", "Unschedulable", MSG, 1 }, NULL,
	  "{\"status\":{\"conditions\":[{\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-11-25T13:29:15Z\","
	  "\"message\":\"" MSG "\",\"observedGeneration\":1,\"reason\":\"Unschedulable\",\"status\":\"False\","
	  "\"type\":\"PodScheduled\"}]}}" },
	/* upstream TestUpdatePodStatus "... add a new pod condition when there is already one with
	 * another type": the list order as a directive */
	{ "new condition after another type",
	  POD("{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}]}"),
	  { "False", "Unschedulable", MSG, 1 }, NULL,
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"Ready\"},{\"type\":\"PodScheduled\"}],"
	  "\"conditions\":[{\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-11-25T13:29:15Z\",\"message\":\"" MSG
	  "\",\"observedGeneration\":1,\"reason\":\"Unschedulable\",\"status\":\"False\",\"type\":\"PodScheduled\"}]}}" },
	/* upstream TestUpdatePodStatus "... but the transition time should remain unchanged because
	 * the status is the same"; oracle: the generation moved too */
	{ "same status, new message", POD("{\"conditions\":[" OLD_SCHED("\"message\":\"old\",") "]}"),
	  { "False", "Unschedulable", MSG, 2 }, NULL,
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"PodScheduled\"}],\"conditions\":[{\"message\":\"" MSG
	  "\",\"observedGeneration\":2,\"type\":\"PodScheduled\"}]}}" },
	/* upstream TestUpdatePodStatus "Should not make patch request if pod condition already exists
	 * and is identical and nominated node name is not set"; oracle: a new observedGeneration
	 * alone is no change (UpdatePodCondition's isEqual leaves it out) */
	{ "identical but the generation", POD("{\"conditions\":[" OLD_SCHED("\"message\":\"" MSG "\",") "]}"),
	  { "False", "Unschedulable", MSG, 2 }, NULL, NULL },
	/* upstream TestUpdatePodStatus "... identical but nominated node name is set and different";
	 * oracle: the generation then rides along */
	{ "identical, nominated node changes", POD("{\"conditions\":[" OLD_SCHED("\"message\":\"" MSG "\",") "]}"),
	  { "False", "Unschedulable", MSG, 2 }, "node-1",
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"PodScheduled\"}],\"conditions\":[{"
	  "\"observedGeneration\":2,\"type\":\"PodScheduled\"}],\"nominatedNodeName\":\"node-1\"}}" },
	{ "identical, same nominated node",
	  POD("{\"nominatedNodeName\":\"node-1\",\"conditions\":[" OLD_SCHED("\"message\":\"" MSG "\",") "]}"),
	  { "False", "Unschedulable", MSG, 1 }, "node-1", NULL },
	/* upstream TestUpdatePodStatus "Should make patch request to update an existing pod
	 * condition" (status changes: a new transition time); oracle: nominatedNodeName cleared */
	{ "status True to False, nomination cleared",
	  POD("{\"nominatedNodeName\":\"n\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\","
	      "\"observedGeneration\":1,\"lastProbeTime\":null,\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}]}"),
	  { "False", "Unschedulable", MSG, 1 }, "",
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"PodScheduled\"}],\"conditions\":[{"
	  "\"lastTransitionTime\":\"2026-11-25T13:29:15Z\",\"message\":\"" MSG "\",\"reason\":\"Unschedulable\","
	  "\"status\":\"False\",\"type\":\"PodScheduled\"}],\"nominatedNodeName\":null}}" },
	/* oracle: a probe time is dropped, an empty message deleted */
	{ "probe time and message dropped",
	  POD("{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
	      "\"message\":\"" MSG "\",\"observedGeneration\":1,\"lastProbeTime\":\"2020-05-12T00:00:00Z\","
	      "\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}]}"),
	  { "False", "Unschedulable", "", 1 }, NULL,
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"PodScheduled\"}],\"conditions\":[{"
	  "\"lastProbeTime\":null,\"message\":null,\"type\":\"PodScheduled\"}]}}" },
	/* oracle: a condition without a transition time keeps none while the status holds */
	{ "reason changes, no transition time, among others",
	  POD("{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"},{\"type\":\"PodScheduled\",\"status\":\"False\","
	      "\"reason\":\"Unschedulable\",\"message\":\"" MSG "\",\"observedGeneration\":1},{\"type\":\"X\",\"status\":\"True\"}]}"),
	  { "False", "SchedulerError", MSG, 1 }, NULL,
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"Ready\"},{\"type\":\"PodScheduled\"},{\"type\":\"X\"}],"
	  "\"conditions\":[{\"reason\":\"SchedulerError\",\"type\":\"PodScheduled\"}]}}" },
	/* upstream updatePod with a nil condition: only the nomination */
	{ "no condition, nomination", POD("{\"conditions\":[" OLD_SCHED("\"message\":\"" MSG "\",") "]}"),
	  { NULL, NULL, NULL, 0 }, "node-1", "{\"status\":{\"nominatedNodeName\":\"node-1\"}}" },
};

/* A preemption victim's DisruptionTarget condition (upstream executor.go PreemptPod:
 * CalculatePodConditionObservedGeneration, podutil.UpdatePodCondition, util.PatchPodStatus).
 * Expected bodies: oracle, those steps run in Go (k8s.io/kubernetes v1.37.2) on the same old
 * status for a victim of generation 3, "now" pinned to NOW_US. */
#define VICTIM(status) \
	"{\"metadata\":{\"name\":\"v\",\"namespace\":\"default\",\"uid\":\"u2\",\"generation\":3}," \
	"\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},\"status\":" status "}"
#define DT_MSG "default-scheduler: preempting to accommodate a higher priority pod"
#define DT_COND { "True", "PreemptionByScheduler", DT_MSG, 3 }
#define DT_FULL \
	"{\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-11-25T13:29:15Z\",\"message\":\"" DT_MSG "\"," \
	"\"observedGeneration\":3,\"reason\":\"PreemptionByScheduler\",\"status\":\"True\",\"type\":\"DisruptionTarget\"}"

static const struct patch_case dt_cases[] = {
	/* oracle: a running victim without conditions */
	{ "DisruptionTarget: none yet", VICTIM("{\"phase\":\"Running\"}"), DT_COND, NULL,
	  "{\"status\":{\"conditions\":[" DT_FULL "]}}" },
	/* oracle: appended after the pod's other conditions */
	{ "DisruptionTarget: after others",
	  VICTIM("{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
		 "\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"},{\"type\":\"PodScheduled\",\"status\":\"True\","
		 "\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}]}"),
	  DT_COND, NULL,
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"Ready\"},{\"type\":\"PodScheduled\"},"
	  "{\"type\":\"DisruptionTarget\"}],\"conditions\":[" DT_FULL "]}}" },
	/* oracle: UpdatePodCondition reports no change: no patch (PreemptPod goes on to the delete) */
	{ "DisruptionTarget: identical",
	  VICTIM("{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":"
		 "\"PreemptionByScheduler\",\"message\":\"" DT_MSG "\",\"observedGeneration\":3,"
		 "\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}]}"),
	  DT_COND, NULL, NULL },
	/* oracle: another reason with the same status keeps the transition time */
	{ "DisruptionTarget: other reason",
	  VICTIM("{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":"
		 "\"DeletionByTaintManager\",\"message\":\"Taint manager: deleting due to NoExecute taint\","
		 "\"observedGeneration\":1,\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}]}"),
	  DT_COND, NULL,
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"DisruptionTarget\"}],\"conditions\":[{"
	  "\"message\":\"" DT_MSG "\",\"observedGeneration\":3,\"reason\":\"PreemptionByScheduler\","
	  "\"type\":\"DisruptionTarget\"}]}}" },
	/* oracle: False to True moves the transition time */
	{ "DisruptionTarget: was False",
	  VICTIM("{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"False\",\"reason\":\"X\","
		 "\"message\":\"m\",\"lastTransitionTime\":\"2020-05-12T00:00:00Z\"}]}"),
	  DT_COND, NULL,
	  "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"DisruptionTarget\"}],\"conditions\":[{"
	  "\"lastTransitionTime\":\"2026-11-25T13:29:15Z\",\"message\":\"" DT_MSG "\",\"observedGeneration\":3,"
	  "\"reason\":\"PreemptionByScheduler\",\"status\":\"True\",\"type\":\"DisruptionTarget\"}]}}" },
};

/* type NULL: api_pod_status_patch, else api_pod_condition_patch of that type. */
static int run_cases(const struct patch_case *cs, size_t n, const char *type)
{
	int failures = 0;
	for (size_t i = 0; i < n; i++) {
		const struct patch_case *tc = &cs[i];
		struct err e = { 0 };
		struct api_pod *pod = api_pod_decode_json(tc->pod, strlen(tc->pod), &e);
		if (!pod) {
			print_error("%s: decode: %s\n", tc->name, e.msg);
			failures++;
			continue;
		}
		char *body = NULL;
		size_t len = 0;
		int rc = type ? api_pod_condition_patch(pod, type, &tc->cond, NOW_US, &body, &len, &e)
			      : api_pod_status_patch(pod, tc->cond.status ? &tc->cond : NULL, tc->nominated, NOW_US, &body,
						     &len, &e);
		bool ok = rc == 0 && (tc->want ? body && len == strlen(body) && strcmp(body, tc->want) == 0 : !body);
		if (!ok) {
			print_error("%s: rc %d %s\n  got: %s\n want: %s\n", tc->name, rc, e.msg, body ? body : "(no request)",
				    tc->want ? tc->want : "(no request)");
			failures++;
		}
		free(body);
		api_pod_unref(pod);
	}
	return failures;
}

static void test_disruption_target_patch(void **state)
{
	(void)state;
	assert_int_equal(run_cases(dt_cases, sizeof(dt_cases) / sizeof(dt_cases[0]), "DisruptionTarget"), 0);
}

static void test_status_patch(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct patch_case *tc = &cases[i];
		struct err e = { 0 };
		struct api_pod *pod = api_pod_decode_json(tc->pod, strlen(tc->pod), &e);
		if (!pod) {
			print_error("%s: decode: %s\n", tc->name, e.msg);
			failures++;
			continue;
		}
		char *body = NULL;
		size_t len = 0;
		int rc = api_pod_status_patch(pod, tc->cond.status ? &tc->cond : NULL, tc->nominated, NOW_US, &body, &len, &e);
		bool ok = rc == 0 && (tc->want ? body && len == strlen(body) && strcmp(body, tc->want) == 0 : !body);
		if (!ok) {
			print_error("%s: rc %d %s\n  got: %s\n want: %s\n", tc->name, rc, e.msg, body ? body : "(no request)",
				    tc->want ? tc->want : "(no request)");
			failures++;
		}
		free(body);
		api_pod_unref(pod);
	}
	assert_int_equal(failures, 0);
}

/* The fields the patch diffs against are decoded (pods only). */
static void test_condition_fields_decoded(void **state)
{
	(void)state;
	struct err e = { 0 };
	static const char doc[] = POD("{\"conditions\":[" OLD_SCHED("\"message\":\"m\",") "]}");
	struct api_pod *pod = api_pod_decode_json(doc, strlen(doc), &e);
	assert_non_null(pod);
	assert_int_equal(pod->meta.generation, 2);
	assert_int_equal(pod->n_conditions, 1);
	assert_int_equal(pod->conditions[0].observed_generation, 1);
	assert_string_equal(pod->conditions[0].last_transition_time, "2020-05-12T00:00:00Z");
	assert_string_equal(pod->conditions[0].last_probe_time, "");
	api_pod_unref(pod);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_patch),
		cmocka_unit_test(test_condition_fields_decoded),
		cmocka_unit_test(test_disruption_target_patch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
