/* The host's pick among scored nodes (upstream schedule_one.go schedulePod:
 * NewSortedScoredNodes(priorityList).Pop(), framework/sorted_nodes.go) and the sorted remainder
 * the batch path reads. */
#include "algorithm_testlib.h"

/* ---------- the heap ---------- */

struct heap_case {
	const char *name;
	uint32_t n;
	int64_t total[8];
	int64_t randomizer[8];
	int pop[8];           /* indices into the input, in pop order */
	int rest_after_first[8]; /* the heap's layout after the first Pop (UnorderedList) */
};

/* Cases 1-3: upstream sorted_nodes_test.go TestSortedScoredNodes_Pop ("descending by
 * TotalScore", "tie-break by Randomizer", "mixed scores and tie-breaks", nodes renamed n0..). The
 * others: totals of nodes n0..n7 with Randomizer 0, as prioritizeNodes leaves it without extenders.
 * Every pop order and every layout after the first Pop is what upstream's own
 * framework.NewSortedScoredNodes(...).Pop() and UnorderedList() (v1.37.2) print
 * (tests/fixtures/batching/sortednodes/). */
static const struct heap_case heap_cases[] = {
	{ "descending by TotalScore", 3, { 1, 3, 2 }, { 0 }, { 1, 2, 0 }, { 2, 0 } },
	{ "tie-break by Randomizer", 3, { 5, 5, 5 }, { 1, 3, 2 }, { 1, 2, 0 }, { 2, 0 } },
	{ "mixed scores and tie-breaks", 4, { 3, 2, 1, 3 }, { 1, 0, 0, 2 }, { 3, 0, 1, 2 }, { 0, 1, 2 } },
	{ "ties_late", 4, { 1, 1, 5, 5 }, { 0 }, { 3, 2, 1, 0 }, { 2, 0, 1 } },
	{ "all_equal", 5, { 7, 7, 7, 7, 7 }, { 0 }, { 0, 4, 3, 2, 1 }, { 4, 1, 2, 3 } },
	{ "mixed", 8, { 3, 9, 9, 2, 9, 4, 9, 1 }, { 0 }, { 1, 4, 6, 2, 5, 0, 3, 7 }, { 4, 0, 2, 3, 7, 5, 6 } },
	{ "distinct", 6, { 10, 40, 20, 50, 30, 60 }, { 0 }, { 5, 3, 1, 4, 2, 0 }, { 3, 1, 2, 0, 4 } },
	{ "two_ties", 6, { 4, 6, 6, 4, 6, 4 }, { 0 }, { 1, 4, 2, 3, 0, 5 }, { 4, 5, 2, 3, 0 } },
};

static void test_sorted_nodes_upstream_order(void **state)
{
	(void)state;
	struct node_info nis[8];
	for (int i = 0; i < 8; i++) {
		char name[8];
		snprintf(name, sizeof(name), "n%d", i);
		node_info_init(&nis[i], intern_str(name));
	}
	for (size_t k = 0; k < ARRAY_SIZE(heap_cases); k++) {
		const struct heap_case *tc = &heap_cases[k];
		struct fw_scored_node h[8];
		for (uint32_t i = 0; i < tc->n; i++)
			h[i] = (struct fw_scored_node){ .node = &nis[i], .total = tc->total[i], .randomizer = tc->randomizer[i] };
		fw_sorted_nodes_init(h, tc->n);
		uint32_t len = tc->n;
		for (uint32_t i = 0; i < tc->n; i++) {
			struct fw_scored_node got = fw_sorted_nodes_pop(h, &len);
			if (got.node != &nis[tc->pop[i]])
				fail_msg("%s: pop %u: got %s, want n%d", tc->name, i, got.node->name, tc->pop[i]);
			assert_int_equal(got.total, tc->total[tc->pop[i]]);
			if (i == 0)
				for (uint32_t r = 0; r < len; r++)
					if (h[r].node != &nis[tc->rest_after_first[r]])
						fail_msg("%s: layout[%u]: got %s, want n%d", tc->name, r, h[r].node->name,
							 tc->rest_after_first[r]);
		}
		assert_int_equal(len, 0);
	}
	for (int i = 0; i < 8; i++)
		node_info_release(&nis[i]);
}

/* Properties over random totals (a fixed LCG: no flakes): the first Pop is a maximal total and
 * the pops never increase (upstream nodeScoreHeap.Less: TotalScore desc). */
static void test_sorted_nodes_properties(void **state)
{
	(void)state;
	static struct fw_scored_node h[300];
	uint64_t x = 42;
	for (int round = 0; round < 200; round++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t n = 1 + (uint32_t)(x >> 33) % 300;
		int64_t max = INT64_MIN;
		for (uint32_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			h[i] = (struct fw_scored_node){ .total = (int64_t)((x >> 33) % 7) };
			if (h[i].total > max)
				max = h[i].total;
		}
		fw_sorted_nodes_init(h, n);
		uint32_t len = n;
		int64_t prev = fw_sorted_nodes_pop(h, &len).total;
		assert_int_equal(prev, max);
		while (len) {
			int64_t t = fw_sorted_nodes_pop(h, &len).total;
			assert_true(t <= prev);
			prev = t;
		}
	}
}

/* ---------- the pick in a cycle ---------- */

/* TaintToleration alone scores: raw = untolerated PreferNoSchedule taints, normalized reversed. */
static struct fw_profile *taint_profile(void)
{
	static const struct tl_profile_spec spec = {
		.filter = { "TaintToleration" },
		.pre_score = { "TaintToleration" },
		.score = { "TaintToleration" },
		.score_weight = { 1 },
	};
	return tl_profile(&spec, NULL);
}

static const char *schedule(struct fw_profile *p, struct fw_cycle *c, struct tl_cluster *cl, const struct api_pod *pod)
{
	static struct fw_schedule_result res;
	struct err e = { 0 };
	fw_cycle_reset(c);
	if (fw_schedule_pod(p, c, &cl->list, pod, NULL, &res, &e) < 0)
		fail_msg("fw_schedule_pod: %s", e.msg);
	assert_int_equal(res.code, FW_SUCCESS);
	return res.suggested_host;
}

/* Pops the profile's sorted remainder into names (destroys it). Returns how many. */
static uint32_t pop_rest(struct fw_profile *p, const char **names, int64_t *totals)
{
	uint32_t k = 0;
	while (p->n_sorted) {
		struct fw_scored_node s = fw_sorted_nodes_pop(p->sorted, &p->n_sorted);
		names[k] = s.node->name;
		totals[k++] = s.total;
	}
	return k;
}

/* Totals 0, 0, 100, 100 over the feasible order n0..n3 (the order repeats every cycle: 4 nodes
 * processed, nextStartNodeIndex back to 0). Upstream pops n3 every time, not a random one of the
 * tied n2/n3 (heap case "ties_late" above: Randomizer is 0 without extenders); the rest pops
 * n2, n1, n0. */
static void test_select_tie_follows_heap(void **state)
{
	(void)state;
	static struct tl_cluster cl;
	struct fw_profile *p = taint_profile();
	struct fw_cycle *c = fw_cycle_new(p);
	tl_cluster_add(&cl, "n0", "a=1:PreferNoSchedule");
	tl_cluster_add(&cl, "n1", "a=1:PreferNoSchedule");
	tl_cluster_add(&cl, "n2", NULL);
	tl_cluster_add(&cl, "n3", NULL);
	struct api_pod *pod = tobj_pod(NULL);
	for (int i = 0; i < 200; i++)
		assert_string_equal(schedule(p, c, &cl, pod), "n3");
	const char *names[8];
	int64_t totals[8];
	assert_int_equal(pop_rest(p, names, totals), 3);
	static const char *const want[] = { "n2", "n1", "n0" };
	static const int64_t want_total[] = { 100, 0, 0 };
	for (int i = 0; i < 3; i++) {
		assert_string_equal(names[i], want[i]);
		assert_int_equal(totals[i], want_total[i]);
	}
	api_pod_unref(pod);
	tl_cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* Distinct totals: the pick is the best, the remainder pops by total desc (upstream
 * TestSortedScoredNodes_Pop "descending by TotalScore"); raw 2, 0, 3, 1 -> 100 - 100*raw/3 (upstream
 * DefaultNormalizeScore, reversed): 34, 100, 0, 67. */
static void test_select_distinct_remainder_sorted(void **state)
{
	(void)state;
	static struct tl_cluster cl;
	struct fw_profile *p = taint_profile();
	struct fw_cycle *c = fw_cycle_new(p);
	tl_cluster_add(&cl, "two", "a=1:PreferNoSchedule,b=1:PreferNoSchedule");
	tl_cluster_add(&cl, "zero", NULL);
	tl_cluster_add(&cl, "three", "a=1:PreferNoSchedule,b=1:PreferNoSchedule,c=1:PreferNoSchedule");
	tl_cluster_add(&cl, "one", "a=1:PreferNoSchedule");
	struct api_pod *pod = tobj_pod(NULL);
	assert_string_equal(schedule(p, c, &cl, pod), "zero");
	const char *names[8];
	int64_t totals[8];
	assert_int_equal(pop_rest(p, names, totals), 3);
	static const char *const want[] = { "one", "two", "three" };
	static const int64_t want_total[] = { 67, 34, 0 };
	for (int i = 0; i < 3; i++) {
		assert_string_equal(names[i], want[i]);
		assert_int_equal(totals[i], want_total[i]);
	}
	/* one feasible node: no scoring, no remainder (upstream StoreScheduleResults(..., nil)) */
	assert_string_equal(schedule(p, c, &cl, pod), "zero");
	assert_int_equal(p->n_sorted, 3);
	static struct tl_cluster one;
	tl_cluster_add(&one, "only", NULL);
	assert_string_equal(schedule(p, c, &one, pod), "only");
	assert_int_equal(p->n_sorted, 0);
	tl_cluster_release(&one);
	api_pod_unref(pod);
	tl_cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* ---------- a sequence of pods with equal scheduling signatures (OpportunisticBatching) ---------- */

/* Upstream's default profile without NodeResourcesBalancedAllocation (the plugins csched runs, in
 * default_plugins.go order). */
static struct fw_profile *batch_profile(void)
{
	static const struct tl_profile_spec spec = {
		.pre_filter = { "NodeAffinity", "NodePorts", "NodeResourcesFit" },
		.filter = { "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
			    "NodeResourcesFit" },
		.pre_score = { "TaintToleration", "NodeAffinity", "NodeResourcesFit" },
		.score = { "TaintToleration", "NodeAffinity", "NodeResourcesFit", "ImageLocality" },
		.score_weight = { 3, 2, 1, 1 },
	};
	return tl_profile(&spec, NULL);
}

#define BATCH_AFFINITY                                                                                  \
	"{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":["                        \
	"{\"weight\":10,\"preference\":{\"matchExpressions\":[{\"key\":\"pref\",\"operator\":\"In\",\"values\":[\"1\",\"2\"]}]}}," \
	"{\"weight\":10,\"preference\":{\"matchExpressions\":[{\"key\":\"pref\",\"operator\":\"In\",\"values\":[\"2\"]}]}}]}}"

/* Four pods of one template (equal scheduling signatures), each bound before the next:
 * a (cpu 1, pref=2), b (pref=1, one PreferNoSchedule taint), c (plain), d (two taints); every pod
 * requests cpu 1 and prefers pref=2 (weight 20) over pref=1 (weight 10).
 *
 * oracle: these four states in sequence (tests/unit/test_algorithm_select.c's nodes and pod as
 * v1 JSON, config multiPoint.disabled NodeResourcesBalancedAllocation, each pod bound where the
 * previous run selected): selected a (a 546, c 384, b 334, d 84), then b (434; a Insufficient
 * cpu), b (418), b (403).
 *
 * Upstream's OpportunisticBatching would hint c to the second pod: the first cycle's sorted rest
 * is c 384, b 334, d 84, a no longer fits, and the hint skips the renormalization that lifts b's
 * NodeAffinity score from 50 to 100 once a is gone. It does not here because the profile keeps
 * PodTopologySpread with its system default constraints, whose SignPod refuses every pod (see
 * tests/unit/test_config_batching.c). Upstream's real scheduler (scheduler.New + Run over a fake
 * clientset, parallelism 1; tests/fixtures/batching/seq_*.json and batchseq/) binds a, b, b, b with
 * this configuration and a, c, b, b once
 * PodTopologySpread is disabled too: this profile (no sign mask) does not batch and matches the
 * first; csched matches the second in tests/unit/test_algorithm_batch.c (docs/config.md
 * "OpportunisticBatching"). */
static void test_batch_equal_signatures_default_profile(void **state)
{
	(void)state;
	static struct tl_cluster cl;
	struct fw_profile *p = batch_profile();
	struct fw_cycle *c = fw_cycle_new(p);
	struct err e = { 0 };
	uint32_t i = 0;
	cl.nodes[i] = TOBJ_NODE(.name = "a", .alloc = "cpu=1,memory=16Gi,pods=110", .labels = "pref=2");
	cl.nodes[++i] = TOBJ_NODE(.name = "b", .alloc = "cpu=4,memory=16Gi,pods=110", .labels = "pref=1",
				  .taints = "t1=1:PreferNoSchedule");
	cl.nodes[++i] = TOBJ_NODE(.name = "c", .alloc = "cpu=4,memory=16Gi,pods=110");
	cl.nodes[++i] = TOBJ_NODE(.name = "d", .alloc = "cpu=4,memory=16Gi,pods=110",
				  .taints = "t1=1:PreferNoSchedule,t2=1:PreferNoSchedule");
	for (cl.n = 0; cl.n <= i; cl.n++) {
		tl_node_info(&cl.nis[cl.n], cl.nodes[cl.n], NULL, 0);
		cl.ptrs[cl.n] = &cl.nis[cl.n];
	}
	cl.list.n = cl.n;
	cl.list.nodes = cl.ptrs;

	static const char *const want[] = { "a", "b", "b", "b" };
	struct api_pod *bound[4] = { NULL };
	for (int k = 0; k < 4; k++) {
		char name[8];
		snprintf(name, sizeof(name), "p%d", k);
		struct api_pod *pod = TOBJ_POD(.name = name, .labels = "app=web", .affinity = BATCH_AFFINITY,
					       .containers = { { .req = "cpu=1,memory=1Gi" } });
		const char *host = schedule(p, c, &cl, pod);
		assert_string_equal(host, want[k]);
		if (k == 0) {
			/* the first cycle's sorted rest, which upstream's batch would have reused */
			const char *names[8];
			int64_t totals[8];
			static const char *const rest[] = { "c", "b", "d" };
			static const int64_t rest_total[] = { 384, 334, 84 };
			assert_int_equal(pop_rest(p, names, totals), 3);
			for (int r = 0; r < 3; r++) {
				assert_string_equal(names[r], rest[r]);
				assert_int_equal(totals[r], rest_total[r]);
			}
		}
		bound[k] = TOBJ_POD(.name = name, .node = host, .labels = "app=web", .affinity = BATCH_AFFINITY,
				    .containers = { { .req = "cpu=1,memory=1Gi" } });
		for (uint32_t n = 0; n < cl.n; n++)
			if (strcmp(cl.nodes[n]->meta.name, host) == 0 && node_info_add_pod(&cl.nis[n], bound[k], &e) < 0)
				fail_msg("node_info_add_pod: %s", e.msg);
		api_pod_unref(pod);
	}
	tl_cluster_release(&cl);
	for (int k = 0; k < 4; k++)
		api_pod_unref(bound[k]);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* Where upstream asks for a node hint (findNodesThatFitPod: after PreFilter succeeded, before the
 * nominated node and Filter; schedulePod returns ErrNoNodesAvailable before that). */
static void test_asked_hint(void **state)
{
	(void)state;
	static struct tl_cluster cl;
	static struct fw_schedule_result res;
	struct fw_profile *p = taint_profile();
	struct fw_cycle *c = fw_cycle_new(p);
	struct err e = { 0 };
	struct api_pod *pod = tobj_pod(NULL);
	fw_cycle_reset(c);
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &res, &e), 0);
	assert_int_equal(res.code, FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	assert_false(res.asked_hint);
	tl_cluster_add(&cl, "n0", "a=1:NoSchedule");
	fw_cycle_reset(c);
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &res, &e), 0);
	assert_int_equal(res.code, FW_UNSCHEDULABLE);
	assert_true(res.asked_hint);
	tl_cluster_add(&cl, "n1", NULL);
	fw_cycle_reset(c);
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &res, &e), 0);
	assert_int_equal(res.code, FW_SUCCESS);
	assert_true(res.asked_hint);
	api_pod_unref(pod);
	tl_cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_nodes_upstream_order),
		cmocka_unit_test(test_sorted_nodes_properties),
		cmocka_unit_test(test_select_tie_follows_heap),
		cmocka_unit_test(test_select_distinct_remainder_sorted),
		cmocka_unit_test(test_batch_equal_signatures_default_profile),
		cmocka_unit_test(test_asked_hint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
