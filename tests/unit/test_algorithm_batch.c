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
#include <yajl/yajl_tree.h>

#include "algorithm_testlib.h"
#include "config/config.h"
#include "testutil.h"

#define MAX_NODES 8
#define MAX_STEPS 16

struct seq {
	struct config cfg;
	struct fw_profile *p;
	struct fw_cycle *c;
	uint32_t n;
	struct api_node *nodes[MAX_NODES];
	struct node_info nis[MAX_NODES];
	const struct node_info *ptrs[MAX_NODES];
	struct fw_node_list list;
	struct api_pod *bound[MAX_STEPS];
	uint32_t n_bound;
	/* the batch outcomes summed over the cycles, as upstream's metrics count them */
	int hint_used, hint_not_used, no_hint, hinted, rescored, stored;
	int flushed[FW_FLUSH_NORMALIZE_ERROR + 1];
};

static void add_node(struct seq *s, yajl_val v)
{
	struct err e = { 0 };
	assert_true(s->n < MAX_NODES);
	struct api_node *node = api_node_decode(v, &e);
	if (!node)
		fail_msg("api_node_decode: %s", e.msg);
	s->nodes[s->n] = node;
	tl_node_info(&s->nis[s->n], node, NULL, 0);
	s->ptrs[s->n] = &s->nis[s->n];
	s->n++;
	s->list.n = s->n;
	s->list.nodes = s->ptrs;
}

static void count(struct seq *s, const struct fw_schedule_result *res)
{
	const struct fw_batch_outcome *o = &res->batch;
	if (o->hint)
		s->hinted++;
	else
		s->no_hint++;
	s->rescored += o->rescored;
	s->flushed[o->hint_flush]++;
	if (!o->stored)
		return;
	s->stored++;
	s->flushed[o->store_flush]++;
	if (o->attempt && strcmp(o->attempt, "hint_used") == 0)
		s->hint_used++;
	else if (o->attempt)
		s->hint_not_used++;
}

/* Schedules pod, assumes it on the host chosen, appends the host to got. */
static void schedule(struct seq *s, yajl_val v, char *got, size_t size)
{
	static struct fw_schedule_result res;
	struct err e = { 0 };
	struct api_pod *pod = api_pod_decode(v, &e);
	if (!pod)
		fail_msg("api_pod_decode: %s", e.msg);
	fw_cycle_reset(s->c);
	if (fw_schedule_pod(s->p, s->c, &s->list, pod, NULL, &res, &e) < 0)
		fail_msg("fw_schedule_pod: %s", e.msg);
	assert_int_equal(res.code, FW_SUCCESS);
	const char *want = res.suggested_host;
	snprintf(got + strlen(got), size - strlen(got), "%s ", want);
	assert_true(fw_profile_batches(s->p));
	count(s, &res);
	struct api_pod *b = api_pod_assigned_copy(pod, res.suggested_host);
	assert_non_null(b);
	for (uint32_t i = 0; i < s->n; i++)
		if (strcmp(s->nodes[i]->meta.name, want) == 0 && node_info_add_pod(&s->nis[i], b, &e) < 0)
			fail_msg("node_info_add_pod: %s", e.msg);
	s->bound[s->n_bound++] = b;
	api_pod_unref(pod);
}

/* Runs tests/fixtures/batching/<name>.json against <name>.out. */
static void run_seq(struct seq *s, const char *name, const char *config_yaml)
{
	char path[256], err[256];
	size_t len;
	struct err e = { 0 };
	memset(s, 0, sizeof(*s));
	if (config_load_buffer(&s->cfg, fw_registry(), name, config_yaml, strlen(config_yaml), &e) < 0)
		fail_msg("config: %s", e.msg);
	struct fw_profile_config pc;
	fw_profile_config_from_cfg(&s->cfg.profiles[0], &pc);
	struct fw_profile_options o = { 0 };
	if (!(s->p = fw_profile_new(&pc, &o, &e)))
		fail_msg("fw_profile_new: %s", e.msg);
	s->c = fw_cycle_new(s->p);

	snprintf(path, sizeof(path), "tests/fixtures/batching/%s.json", name);
	char *json = testutil_read_source_file(path, &len);
	assert_non_null(json);
	yajl_val root = yajl_tree_parse(json, err, sizeof(err));
	if (!root)
		fail_msg("%s: %s", path, err);
	snprintf(path, sizeof(path), "tests/fixtures/batching/%s.out", name);
	char *out = testutil_read_source_file(path, &len);
	assert_non_null(out);

	static const char *nodes_path[] = { "nodes", NULL }, *steps_path[] = { "steps", NULL };
	yajl_val nodes = yajl_tree_get(root, nodes_path, yajl_t_array);
	yajl_val steps = yajl_tree_get(root, steps_path, yajl_t_array);
	assert_non_null(nodes);
	for (size_t i = 0; i < nodes->u.array.len; i++)
		add_node(s, nodes->u.array.values[i]);
	char *line = out, want[256] = "", got[256] = "";
	/* without steps: four copies of "pod" (batchseq's default) */
	size_t n_steps = steps ? steps->u.array.len : 4;
	for (size_t i = 0; i < n_steps; i++) {
		static const char *pod_path[] = { "pod", NULL }, *add_path[] = { "addNode", NULL };
		yajl_val st = steps ? steps->u.array.values[i] : root;
		char *nl = strchr(line, '\n');
		assert_non_null(nl);
		*nl = '\0';
		yajl_val add = yajl_tree_get(st, add_path, yajl_t_object);
		if (add) {
			add_node(s, add);
		} else {
			const char *arrow = strstr(line, " -> ");
			assert_non_null(arrow);
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s ", arrow + 4);
			schedule(s, yajl_tree_get(st, pod_path, yajl_t_object), got, sizeof(got));
		}
		line = nl + 1;
	}
	assert_string_equal(got, want);
	yajl_tree_free(root);
	free(json);
	free(out);
}

static void seq_release(struct seq *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		node_info_release(&s->nis[i]);
		api_node_unref(s->nodes[i]);
	}
	for (uint32_t i = 0; i < s->n_bound; i++)
		api_pod_unref(s->bound[i]);
	fw_cycle_free(s->c);
	fw_profile_free(s->p);
	config_free(&s->cfg);
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_batch),
		cmocka_unit_test(test_seq_mp_equal),
		cmocka_unit_test(test_seq_list_equal),
		cmocka_unit_test(test_seq_mp_mixed),
		cmocka_unit_test(test_seq_mp_fill),
		cmocka_unit_test(test_seq_mp_addnode),
		cmocka_unit_test(test_seq_list_fill_add),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
