/* OpportunisticBatching (upstream v1.37 framework/runtime/batch.go, schedule_one.go GetNodeHint /
 * StoreScheduleResults) for profiles upstream signs pods of: sequences of pods scheduled one after
 * another, each assumed on its node before the next, whose expected placements and batch metrics
 * come from upstream's real scheduler.
 *
 * upstream: tests/fixtures/batching/batchseq (scheduler.New + Run over a fake clientset,
 * parallelism 1, each pod created once the previous one is bound, nodes added between pods) on
 * tests/fixtures/batching/seq_*.json; its output is checked in as seq_*.out (placements) and
 * seq_*.metrics.out (the gathered scheduler_batch_* families). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "batch_seq.h"

#define HEAD "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"
/* the fixtures' configs: PodTopologySpread disabled at multiPoint, or defaultingType List */
#define MP_DISABLED HEAD "  plugins:\n    multiPoint:\n      disabled:\n      - name: NodeResourcesBalancedAllocation\n      - name: PodTopologySpread\n"
#define LIST HEAD "  plugins:\n    multiPoint:\n      disabled:\n      - name: NodeResourcesBalancedAllocation\n  pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n"

/* upstream: seq_batch.out, a c b b (the second pod takes the first cycle's hint, c) */
static void test_seq_batch(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_batch", MP_DISABLED);
	seq_release(&s);
}

/* upstream: seq_mp_equal.out, six pods of one template: a c b b b b */
static void test_seq_mp_equal(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_mp_equal", MP_DISABLED);
	seq_release(&s);
}

/* upstream: seq_mp_token.out and `seqrun seq_mp_token.json m`: the six pods of seq_mp_equal, each
 * with a projected service-account token volume of its own name (kube-api-access-<suffix>), p4's
 * token for audience "vault": a c b b b b, batch_attempts_total hint_used 3, no_hint 3;
 * batch_cache_flushed_total pod_incompatible 2; batch_rescore_attempts_total 2. */
static void test_seq_mp_token(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_mp_token", MP_DISABLED);
	assert_int_equal(s.hint_used, 3);
	assert_int_equal(s.hint_not_used, 0);
	assert_int_equal(s.no_hint, 3);
	assert_int_equal(s.flushed[FW_FLUSH_POD_INCOMPATIBLE], 2);
	assert_int_equal(s.rescored, 2);
	for (int f = FW_FLUSH_POD_FAILED; f <= FW_FLUSH_NORMALIZE_ERROR; f++)
		if (f != FW_FLUSH_POD_INCOMPATIBLE)
			assert_int_equal(s.flushed[f], 0);
	seq_release(&s);
}

/* upstream: seq_list_equal.out, the same with defaultingType List and no default constraints */
static void test_seq_list_equal(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_list_equal", LIST);
	seq_release(&s);
}

/* upstream: seq_mp_mixed.out and .metrics.out: signatures change with the memory request and
 * (InterPodAffinity runs upstream) the labels: batch_attempts_total hint_used 3, no_hint 4;
 * batch_cache_flushed_total pod_incompatible 3; batch_rescore_attempts_total 1. */
static void test_seq_mp_mixed(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_mp_mixed", MP_DISABLED);
	assert_int_equal(s.hint_used, 3);
	assert_int_equal(s.hint_not_used, 0);
	assert_int_equal(s.no_hint, 4);
	assert_int_equal(s.flushed[FW_FLUSH_POD_INCOMPATIBLE], 3);
	assert_int_equal(s.rescored, 1);
	assert_int_equal(s.stored, 7);
	/* every other flush reason: none (upstream gathered no other series) */
	for (int f = FW_FLUSH_POD_FAILED; f <= FW_FLUSH_NORMALIZE_ERROR; f++)
		if (f != FW_FLUSH_POD_INCOMPATIBLE)
			assert_int_equal(s.flushed[f], 0);
	seq_release(&s);
}

/* upstream: seq_mp_fill.out and .metrics.out: c holds two pods, b four; the hint after b filled
 * up is c: hint_used 6, no_hint 1, rescore 4, no flush. */
static void test_seq_mp_fill(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_mp_fill", MP_DISABLED);
	assert_int_equal(s.hint_used, 6);
	assert_int_equal(s.no_hint, 1);
	assert_int_equal(s.rescored, 4);
	assert_int_equal(s.stored, 7);
	for (int f = FW_FLUSH_POD_FAILED; f <= FW_FLUSH_NORMALIZE_ERROR; f++)
		assert_int_equal(s.flushed[f], 0);
	seq_release(&s);
}

/* upstream: seq_mp_addnode.out: node e (pref=2, no taint, the best score) added after the second
 * pod; the batch state predates it, so the hints keep to b. */
static void test_seq_mp_addnode(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_mp_addnode", MP_DISABLED);
	seq_release(&s);
}

/* upstream: seq_list_fill_add.out: List; c fills after two pods, e added after the third. */
static void test_seq_list_fill_add(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_list_fill_add", LIST);
	seq_release(&s);
}

/* The batch state names nodes of the previous cycle (the last chosen node, the sorted remainder).
 * When every one of them is deleted before the next pod, the state still holds its own references
 * on those names, so reading them is no use after free (ASan, valgrind), and the hint is flushed
 * as upstream's refreshHintCandidates does for a missing last chosen node ("node_missing"). */
static void test_deleted_nodes_flush_hint(void **state)
{
	(void)state;
	static struct seq s;
	run_seq(&s, "seq_batch", MP_DISABLED); /* a c b b: the state now names b and the rest */
	{
		size_t len;
		char err[128];
		char *json = testutil_read_source_file("tests/fixtures/batching/seq_batch.json", &len);
		assert_non_null(json);
		yajl_val root = yajl_tree_parse(json, err, sizeof(err));
		assert_non_null(root);
		static const char *pod_path[] = { "pod", NULL };
		yajl_val pod = yajl_tree_get(root, pod_path, yajl_t_object);
		assert_non_null(pod);
		/* every node goes, with the pods bound to them: no reference but the state's is left */
		for (uint32_t i = 0; i < s.n; i++) {
			node_info_release(&s.nis[i]);
			api_node_unref(s.nodes[i]);
		}
		for (uint32_t i = 0; i < s.n_bound; i++)
			api_pod_unref(s.bound[i]);
		s.n = s.n_bound = 0;
		yajl_val z = yajl_tree_parse("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"z\"},"
					     "\"spec\":{},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"16Gi\","
					     "\"pods\":\"110\"}}}",
					     err, sizeof(err));
		assert_non_null(z);
		add_node(&s, z);
		yajl_tree_free(z);
		char got[64] = "";
		schedule(&s, pod, got, sizeof(got));
		assert_string_equal(got, "z ");
		yajl_tree_free(root);
		free(json);
	}
	assert_int_equal(s.flushed[FW_FLUSH_NODE_MISSING], 1);
	seq_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_batch),
		cmocka_unit_test(test_seq_mp_equal),
		cmocka_unit_test(test_seq_mp_token),
		cmocka_unit_test(test_seq_list_equal),
		cmocka_unit_test(test_seq_mp_mixed),
		cmocka_unit_test(test_seq_mp_fill),
		cmocka_unit_test(test_seq_mp_addnode),
		cmocka_unit_test(test_seq_list_fill_add),
		cmocka_unit_test(test_deleted_nodes_flush_hint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
