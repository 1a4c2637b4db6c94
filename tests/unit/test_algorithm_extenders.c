/* HTTP extenders in the cycle (algorithm/extenders.c): findNodesThatPassExtenders, the extender
 * half of prioritizeNodes and the FitError they feed, with in-process fake extenders shaped like
 * upstream's testing/framework/fake_extender.go (FakeExtender: Filter's messages "FakeExtender: node
 * %q failed" / "... failed and unresolvable", Prioritize's combined scores). Expected values come
 * from upstream's extender_test.go TestSchedulerWithExtenders and schedule_one_test.go
 * TestFindNodesThatPassExtenders (cited per case). */
#include "algorithm_testlib.h"

#include "cache/node_info.h"

enum pred { P_TRUE, P_ERROR, P_FALSE, P_NODE1, P_NODE2, P_ABC, P_BOGUS }; /* P_ABC: a ok, b Unsched., c UUR; P_BOGUS: keeps "nope" */
enum prio { R_NONE, R_ERROR, R_NODE1, R_NODE2 };

struct fake {
	enum pred pred;
	enum prio prio;
	int64_t prio_weight; /* PriorityConfig.Weight */
	bool uninterested;
	int filter_calls, prio_calls;
};

static bool f_interested(void *ctx, const struct api_pod *pod)
{
	(void)pod;
	return !((struct fake *)ctx)->uninterested;
}

/* 0 Success, 1 Unschedulable, 2 UnschedulableAndUnresolvable, -1 Error */
static int run_pred(enum pred p, const char *node)
{
	switch (p) {
	case P_TRUE:
		return 0;
	case P_ERROR:
		return -1;
	case P_FALSE:
		return 1;
	case P_NODE1:
		return strcmp(node, "node1") ? 1 : 0;
	case P_NODE2:
		return strcmp(node, "node2") ? 1 : 0;
	case P_ABC:
		return !strcmp(node, "a") ? 0 : !strcmp(node, "b") ? 1 : 2;
	case P_BOGUS:
		return 0;
	}
	return -1;
}

static char *cdup(struct fw_cycle *c, const char *fmt, const char *arg)
{
	char buf[256];
	snprintf(buf, sizeof(buf), fmt, arg);
	char *s = fw_cycle_alloc(c, strlen(buf) + 1);
	strcpy(s, buf);
	return s;
}

static int f_filter(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct node_info *const *nodes,
		    uint32_t n, struct fw_ext_filter_result *out, struct err *e)
{
	struct fake *f = ctx;
	(void)pod;
	f->filter_calls++;
	out->has_kept = true;
	out->kept = fw_cycle_alloc(c, (n + 1) * sizeof(*out->kept));
	out->failed = fw_cycle_alloc(c, (n + 1) * sizeof(*out->failed));
	if (f->pred == P_BOGUS) {
		out->kept[out->n_kept++] = "nope";
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		int r = run_pred(f->pred, nodes[i]->name);
		if (r < 0)
			return err_set(e, ERR_INVALID, "some error");
		if (r == 0)
			out->kept[out->n_kept++] = nodes[i]->name;
		else
			out->failed[out->n_failed++] = (struct fw_ext_failed){
				nodes[i]->name,
				cdup(c, r == 1 ? "FakeExtender: node \"%s\" failed" : "FakeExtender: node \"%s\" failed and unresolvable",
				     nodes[i]->name),
				r == 2 };
	}
	return 0;
}

static int f_prioritize(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct node_info *const *nodes,
			uint32_t n, struct fw_ext_prio_result *out, struct err *e)
{
	struct fake *f = ctx;
	(void)pod;
	f->prio_calls++;
	if (f->prio == R_ERROR)
		return err_set(e, ERR_INVALID, "some error");
	out->scores = fw_cycle_alloc(c, (n + 1) * sizeof(*out->scores));
	for (uint32_t i = 0; i < n; i++) {
		const char *best = f->prio == R_NODE1 ? "node1" : "node2";
		int64_t s = strcmp(nodes[i]->name, best) ? 1 : 10;
		out->scores[out->n++] = (struct fw_ext_score){ nodes[i]->name, s * f->prio_weight };
	}
	return 0;
}

static struct fw_extender ext(struct fake *f, int64_t weight, bool ignorable)
{
	return (struct fw_extender){
		.name = "FakeExtender",
		.is_filter = true,
		.is_prioritizer = f->prio != R_NONE,
		.ignorable = ignorable,
		.weight = weight,
		.ctx = f,
		.is_interested = f_interested,
		.filter = f_filter,
		.prioritize = f_prioritize,
	};
}

struct run {
	struct fw_schedule_result res;
	char msg[1024];
	char host[64]; /* res.suggested_host, copied: the nodes are freed after the run */
};

/* Schedules a pod on nodes names (comma-less list) with the extenders; node1 gets a
 * PreferNoSchedule taint when taint_node1 (TaintToleration then scores node2 100, node1 0, as
 * upstream's Node2Prioritizer plugin). */
static int all_calls; /* calls of all_hook */

/* fw_profile_options.ext_prioritize_all as a test double: the calls one by one, counted. */
static void all_hook(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct node_info *const *nodes,
		     uint32_t n, const struct fw_extender *const *xs, uint32_t nx, struct fw_ext_prio_result *out, int *rcs,
		     struct err *errs)
{
	(void)ctx;
	all_calls++;
	for (uint32_t i = nx; i-- > 0;) /* in reverse: the order must not matter */
		rcs[i] = xs[i]->prioritize(xs[i]->ctx, c, pod, nodes, n, &out[i], &errs[i]);
}

static bool use_all_hook;

static void run(struct run *r, const char *const *names, const struct fw_extender *xs, uint32_t n_x, int32_t taint_weight)
{
	static struct tl_cluster cl;
	struct tl_profile_spec spec = { .extenders = xs, .n_extenders = n_x, .ext_prioritize_all = use_all_hook ? all_hook : NULL };
	if (taint_weight) {
		spec.pre_score[0] = spec.score[0] = "TaintToleration";
		spec.score_weight[0] = taint_weight;
	}
	struct fw_profile *p = tl_profile(&spec, NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	for (uint32_t i = 0; names[i]; i++)
		tl_cluster_add(&cl, names[i], taint_weight && !strcmp(names[i], "node1") ? "a=1:PreferNoSchedule" : NULL);
	struct api_pod *pod = tobj_pod(NULL);
	struct err e = { 0 };
	if (fw_schedule_pod(p, c, &cl.list, pod, NULL, &r->res, &e) < 0)
		fail_msg("fw_schedule_pod: %s", e.msg);
	if (r->res.code == FW_UNSCHEDULABLE)
		fw_fit_error_message(&r->res.diag, r->msg, sizeof(r->msg));
	else
		snprintf(r->msg, sizeof(r->msg), "%s", r->res.status.text);
	snprintf(r->host, sizeof(r->host), "%s", r->res.suggested_host ? r->res.suggested_host : "");
	r->res.suggested_host = NULL;
	api_pod_unref(pod);
	fw_cycle_free(c);
	fw_profile_free(p);
	tl_cluster_release(&cl);
}

static const char *const two[] = { "node1", "node2", NULL };

/* upstream extender_test.go TestSchedulerWithExtenders "test 1": a filter error fails the pod. */
static void test_filter_error_fails(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE }, f2 = { .pred = P_ERROR };
	struct fw_extender xs[] = { ext(&f1, 0, false), ext(&f2, 0, false) };
	struct run r;
	run(&r, two, xs, 2, 0);
	assert_int_equal(r.res.code, FW_ERROR);
	assert_string_equal(r.msg, "some error");
}

/* "test 2": the second extender fails every node: a FitError with its reasons. The message is
 * upstream's FitError over NodeToStatus {node1, node2: Unschedulable "FakeExtender: node %q
 * failed"}. */
static void test_filter_all_failed_fit_error(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE }, f2 = { .pred = P_FALSE };
	struct fw_extender xs[] = { ext(&f1, 0, false), ext(&f2, 0, false) };
	struct run r;
	run(&r, two, xs, 2, 0);
	assert_int_equal(r.res.code, FW_UNSCHEDULABLE);
	assert_string_equal(r.msg, "0/2 nodes are available: 1 FakeExtender: node \"node1\" failed, 1 FakeExtender: "
				   "node \"node2\" failed.");
	/* upstream: ExtenderName joins UnschedulablePlugins when extenders filtered nodes out */
	assert_int_equal(r.res.diag.n_unschedulable_plugins, 1);
	assert_string_equal(r.res.diag.unschedulable_plugins[0], "Extender");
}

/* "test 3": node1 alone passes: SuggestedHost node1, EvaluatedNodes 2, FeasibleNodes 1. */
static void test_filter_narrows(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE }, f2 = { .pred = P_NODE1 };
	struct fw_extender xs[] = { ext(&f1, 0, false), ext(&f2, 0, false) };
	struct run r;
	run(&r, two, xs, 2, 0);
	assert_int_equal(r.res.code, FW_SUCCESS);
	assert_string_equal(r.host, "node1");
	assert_int_equal(r.res.evaluated_nodes, 2);
	assert_int_equal(r.res.feasible_nodes, 1);
}

/* "test 4": node2 only, then node1 only: nothing is left (the second extender is not called on
 * an empty list: upstream breaks out of the loop). */
static void test_filter_sequence_empties(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_NODE2 }, f2 = { .pred = P_NODE1 };
	struct fw_extender xs[] = { ext(&f1, 0, false), ext(&f2, 0, false) };
	struct run r;
	run(&r, two, xs, 2, 0);
	assert_int_equal(r.res.code, FW_UNSCHEDULABLE);
	assert_int_equal(f2.filter_calls, 1); /* it saw node2 */
	assert_string_equal(r.msg, "0/2 nodes are available: 1 FakeExtender: node \"node1\" failed, 1 FakeExtender: "
				   "node \"node2\" failed.");
}

/* "test 5": a prioritize error is ignored; one node: SuggestedHost node1. */
static void test_prioritize_error_ignored(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE, .prio = R_ERROR, .prio_weight = 10 };
	struct fw_extender xs[] = { ext(&f1, 1, false) };
	static const char *const one[] = { "node1", NULL };
	struct run r;
	run(&r, one, xs, 1, 0);
	assert_int_equal(r.res.code, FW_SUCCESS);
	assert_string_equal(r.host, "node1");
	/* two nodes: the error is ignored too and a node is still picked */
	struct fake f2 = { .pred = P_TRUE, .prio = R_ERROR, .prio_weight = 10 };
	struct fw_extender ys[] = { ext(&f2, 1, false) };
	run(&r, two, ys, 1, 0);
	assert_int_equal(r.res.code, FW_SUCCESS);
	assert_int_equal(f2.prio_calls, 1);
}

/* "test 6": node1 1*(100, 10) + 5*(10, 100), scaled by MaxNodeScore/MaxExtenderPriority: node2. */
static void test_prioritize_weights(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE, .prio = R_NODE1, .prio_weight = 10 };
	struct fake f2 = { .pred = P_TRUE, .prio = R_NODE2, .prio_weight = 10 };
	struct fw_extender xs[] = { ext(&f1, 1, false), ext(&f2, 5, false) };
	struct run r;
	run(&r, two, xs, 2, 0);
	assert_int_equal(r.res.code, FW_SUCCESS);
	assert_string_equal(r.host, "node2");
	assert_int_equal(r.res.evaluated_nodes, 2);
	assert_int_equal(r.res.feasible_nodes, 2);
}

/* "test 6" again through the scheduler's all-at-once hook (used for two or more prioritizers):
 * the same pick. */
static void test_prioritize_weights_all_hook(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE, .prio = R_NODE1, .prio_weight = 10 };
	struct fake f2 = { .pred = P_TRUE, .prio = R_NODE2, .prio_weight = 10 };
	struct fw_extender xs[] = { ext(&f1, 1, false), ext(&f2, 5, false) };
	struct run r;
	use_all_hook = true;
	all_calls = 0;
	run(&r, two, xs, 2, 0);
	use_all_hook = false;
	assert_int_equal(all_calls, 1);
	assert_string_equal(r.host, "node2");
	assert_int_equal(f1.prio_calls + f2.prio_calls, 2);
}

/* "test 7": a score plugin of weight 20 for node2 (2000) beats the extender's node1 (1000). And the
 * same with weight 5 (500 + 100 vs 1000): node1, so the extender's scale matters. */
static void test_prioritize_with_plugins(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE, .prio = R_NODE1, .prio_weight = 10 };
	struct fw_extender xs[] = { ext(&f1, 1, false) };
	struct run r;
	run(&r, two, xs, 1, 20);
	assert_string_equal(r.host, "node2");
	run(&r, two, xs, 1, 5);
	assert_string_equal(r.host, "node1");
}

/* "test 8": an uninterested extender is never called. */
static void test_uninterested_not_called(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_ERROR, .prio = R_ERROR, .prio_weight = 10, .uninterested = true };
	struct fw_extender xs[] = { ext(&f1, 1, false) };
	struct run r;
	run(&r, two, xs, 1, 1);
	assert_int_equal(r.res.code, FW_SUCCESS);
	assert_string_equal(r.host, "node2");
	assert_int_equal(f1.filter_calls + f1.prio_calls, 0);
}

/* "test 9": an ignorable extender's error is skipped. */
static void test_ignorable_skipped(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_ERROR }, f2 = { .pred = P_NODE1 };
	struct fw_extender xs[] = { ext(&f1, 0, true), ext(&f2, 0, false) };
	struct run r;
	run(&r, two, xs, 2, 1);
	assert_int_equal(r.res.code, FW_SUCCESS);
	assert_string_equal(r.host, "node1");
	assert_int_equal(r.res.feasible_nodes, 1);
}

/* schedule_one_test.go TestFindNodesThatPassExtenders "unschedulable and unresolvable": b
 * Unschedulable, c UnschedulableAndUnresolvable, a feasible; with a FitError (a second extender
 * rejecting a) the histogram carries both reasons. */
static void test_failed_and_unresolvable(void **state)
{
	(void)state;
	static const char *const abc[] = { "a", "b", "c", NULL };
	struct fake f1 = { .pred = P_ABC }, f2 = { .pred = P_FALSE };
	struct fw_extender xs[] = { ext(&f1, 0, false) };
	struct run r;
	run(&r, abc, xs, 1, 0);
	assert_int_equal(r.res.code, FW_SUCCESS);
	assert_string_equal(r.host, "a");
	assert_int_equal(r.res.evaluated_nodes, 3);
	struct fw_extender ys[] = { ext(&f1, 0, false), ext(&f2, 0, false) };
	run(&r, abc, ys, 2, 0);
	assert_int_equal(r.res.code, FW_UNSCHEDULABLE);
	assert_string_equal(r.msg, "0/3 nodes are available: 1 FakeExtender: node \"a\" failed, 1 FakeExtender: node "
				   "\"b\" failed, 1 FakeExtender: node \"c\" failed and unresolvable.");
}

/* upstream extender.go Filter: a kept node that was not sent is an error naming both. */
static void test_filter_unknown_node(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_BOGUS };
	struct fw_extender xs[] = { ext(&f1, 0, false) };
	struct run r;
	run(&r, two, xs, 1, 0);
	assert_int_equal(r.res.code, FW_ERROR);
	assert_string_equal(r.msg, "extender \"FakeExtender\" claims a filtered node \"nope\" which is not found in the input node list");
}

/* upstream findNodesThatPassFilters: with an extender that filters, numNodesToFind is not cut to
 * 1 even without scoring, so the extender sees every feasible node. */
static void test_extender_sees_all_nodes(void **state)
{
	(void)state;
	static const char *const three[] = { "a", "b", "c", NULL };
	struct fake f1 = { .pred = P_ABC };
	struct fw_extender xs[] = { ext(&f1, 0, false) };
	struct run r;
	run(&r, three, xs, 1, 0);
	assert_int_equal(r.res.feasible_nodes, 1);
	assert_int_equal(r.res.evaluated_nodes, 3); /* 1 feasible + 2 statuses: all 3 were sent */
}

/* upstream framework/runtime/framework.go NewFramework: with extenders, defaultEnqueueExtension
 * registers "Extender" for every cluster event (no hint: Queue), so a pod an extender rejected is
 * retried on any event; without extenders there is no such registration. */
static void test_extender_requeue_registration(void **state)
{
	(void)state;
	struct fake f1 = { .pred = P_TRUE };
	struct fw_extender xs[] = { ext(&f1, 0, false) };
	for (int with = 0; with < 2; with++) {
		struct tl_profile_spec spec = { .filter = { "NodeName" }, .extenders = xs, .n_extenders = (uint32_t)with };
		struct fw_profile *p = tl_profile(&spec, NULL);
		struct queue_profile qp;
		fw_profile_queue_profile(p, &qp);
		int found = 0;
		for (uint32_t i = 0; i < qp.n_hints; i++)
			if (strcmp(qp.hints[i].plugin, "Extender") == 0) {
				found++;
				assert_true(queue_event_is_wildcard(&qp.hints[i].event));
				assert_null(qp.hints[i].hint);
			}
		assert_int_equal(found, with);
		fw_profile_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_error_fails),
		cmocka_unit_test(test_filter_all_failed_fit_error),
		cmocka_unit_test(test_filter_narrows),
		cmocka_unit_test(test_filter_sequence_empties),
		cmocka_unit_test(test_prioritize_error_ignored),
		cmocka_unit_test(test_prioritize_weights),
		cmocka_unit_test(test_prioritize_weights_all_hook),
		cmocka_unit_test(test_prioritize_with_plugins),
		cmocka_unit_test(test_uninterested_not_called),
		cmocka_unit_test(test_ignorable_skipped),
		cmocka_unit_test(test_failed_and_unresolvable),
		cmocka_unit_test(test_extender_sees_all_nodes),
		cmocka_unit_test(test_filter_unknown_node),
		cmocka_unit_test(test_extender_requeue_registration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
