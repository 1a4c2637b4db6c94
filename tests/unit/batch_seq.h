/* The sequence harness of the OpportunisticBatching tests (test_algorithm_batch.c,
 * test_scheduler_metrics_batch_signed.c): runs tests/fixtures/batching/<name>.json (nodes, steps
 * of pods and added nodes) through one profile, each pod assumed where it went before the next,
 * and checks the placements against <name>.out, upstream's (batchseq). */
#ifndef CSCHED_TEST_BATCH_SEQ_H
#define CSCHED_TEST_BATCH_SEQ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	/* optional: called with every cycle's result */
	void (*on_result)(void *ctx, const struct fw_schedule_result *res);
	void *ctx;
};

static inline void add_node(struct seq *s, yajl_val v)
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

static inline void count(struct seq *s, const struct fw_schedule_result *res)
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
static inline void schedule(struct seq *s, yajl_val v, char *got, size_t size)
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
	if (s->on_result)
		s->on_result(s->ctx, &res);
	struct api_pod *b = api_pod_assigned_copy(pod, res.suggested_host);
	assert_non_null(b);
	for (uint32_t i = 0; i < s->n; i++)
		if (strcmp(s->nodes[i]->meta.name, want) == 0 && node_info_add_pod(&s->nis[i], b, &e) < 0)
			fail_msg("node_info_add_pod: %s", e.msg);
	s->bound[s->n_bound++] = b;
	api_pod_unref(pod);
}

/* Runs tests/fixtures/batching/<name>.json against <name>.out. */
static inline void run_seq(struct seq *s, const char *name, const char *config_yaml)
{
	char path[256], err[256];
	size_t len;
	struct err e = { 0 };
	void (*on_result)(void *, const struct fw_schedule_result *) = s->on_result;
	void *ctx = s->ctx;
	memset(s, 0, sizeof(*s));
	s->on_result = on_result;
	s->ctx = ctx;
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

static inline void seq_release(struct seq *s)
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

#endif
