/* GetNodeHint and StoreScheduleResults (algorithm/batch.c) on upstream's own test tables:
 * upstream v1.37.2 pkg/scheduler/framework/runtime/batch_test.go TestBatchBasic, TestBatchRescore
 * and TestBatchRescoreChain, row by row. Upstream's test plugins (batchTest: a node holds one
 * "blocking" pod, whose UID starts with 'b'; configurableFilter; configurableScore, whose
 * NormalizeScore checks that PreScore saw every node it normalizes) stand in for the instances of
 * real plugins of a test profile (white-box: their fw_pl's plugin is replaced). The flush reasons
 * asserted besides are batch.go's logUnusableState calls on the same paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "algorithm/cycle_internal.h"
#include "algorithm_testlib.h"

/* ---------- upstream's test plugins ---------- */

static enum fw_code batch_test_filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
				      const struct node_info *ni, struct fw_status *st)
{
	(void)pl;
	(void)c;
	for (uint32_t i = 0; i < ni->n_pods; i++)
		if (pod->meta.uid[0] == 'b' && ni->pods[i].pod->meta.uid[0] == 'b')
			return fw_status_set(st, FW_UNSCHEDULABLE, "unsched");
	return FW_SUCCESS;
}

static const struct fw_plugin batch_test = { .name = "batchTest", .filter = batch_test_filter };

static struct {
	bool filter_err, pre_score_err, score_err, norm_err;
	int64_t score;
	const char *seen[8]; /* the nodes PreScore was given */
	uint32_t n_seen;
} conf;

static enum fw_code conf_filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
				const struct node_info *ni, struct fw_status *st)
{
	(void)pl;
	(void)c;
	(void)pod;
	(void)ni;
	return conf.filter_err ? fw_status_set(st, FW_ERROR, "injected filter error") : FW_SUCCESS;
}

static enum fw_code conf_pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				   const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)pl;
	(void)c;
	(void)pod;
	if (conf.pre_score_err)
		return fw_status_set(st, FW_ERROR, "injected prescore error");
	conf.n_seen = 0;
	for (uint32_t i = 0; i < n && i < 8; i++)
		conf.seen[conf.n_seen++] = nodes[i]->name;
	return FW_SUCCESS;
}

static enum fw_code conf_score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			       const struct node_info *ni, int64_t *score, struct fw_status *st)
{
	(void)pl;
	(void)c;
	(void)pod;
	(void)ni;
	if (conf.score_err)
		return fw_status_set(st, FW_ERROR, "injected score error");
	*score = conf.score;
	return FW_SUCCESS;
}

static enum fw_code conf_normalize(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
				   struct fw_node_score *scores, uint32_t n, struct fw_status *st)
{
	(void)pl;
	(void)c;
	(void)pod;
	if (conf.norm_err)
		return fw_status_set(st, FW_ERROR, "injected normalize error");
	for (uint32_t i = 0; i < n; i++) {
		bool seen = false;
		for (uint32_t k = 0; k < conf.n_seen; k++)
			seen = seen || strcmp(conf.seen[k], scores[i].ni->name) == 0;
		if (!seen)
			return fw_status_set(st, FW_ERROR, "NormalizeScore called for node which was not passed to PreScore");
	}
	return FW_SUCCESS;
}

static const struct fw_plugin conf_filter_pl = { .name = "configurableFilter", .filter = conf_filter };
static const struct fw_plugin conf_score_pl = { .name = "configurableScore",
						.pre_score = conf_pre_score,
						.score = conf_score,
						.normalize_score = conf_normalize };

/* newBatchTestFramework: Filter batchTest (+ configurableFilter), PreScore/Score configurableScore
 * (weight 1) when scoring. Real plugins hold the slots; their instances run the test plugins. */
static struct fw_profile *batch_profile(bool scoring)
{
	static const struct tl_profile_spec plain = { .filter = { "NodeName" } };
	static const struct tl_profile_spec with_score = {
		.filter = { "NodeName", "NodeUnschedulable" },
		.pre_score = { "TaintToleration" },
		.score = { "TaintToleration" },
		.score_weight = { 1 },
	};
	struct fw_profile *p = tl_profile(scoring ? &with_score : &plain, NULL);
	((struct fw_pl *)tl_pl(p, "NodeName"))->plugin = &batch_test;
	if (scoring) {
		((struct fw_pl *)tl_pl(p, "NodeUnschedulable"))->plugin = &conf_filter_pl;
		((struct fw_pl *)tl_pl(p, "TaintToleration"))->plugin = &conf_score_pl;
	}
	return p;
}

/* ---------- fixtures ---------- */

struct nodes {
	uint32_t n;
	struct api_node *nodes[4];
	struct node_info nis[4];
	const struct node_info *ptrs[4];
	struct fw_node_list list;
};

static const struct node_info *add_node(struct nodes *ns, const char *name, struct api_pod *pod)
{
	struct api_node *node = TOBJ_NODE(.name = name);
	uint32_t i = ns->n++;
	ns->nodes[i] = node;
	tl_node_info(&ns->nis[i], node, pod ? &pod : NULL, pod ? 1 : 0);
	ns->ptrs[i] = &ns->nis[i];
	ns->list.n = ns->n;
	ns->list.nodes = ns->ptrs;
	return &ns->nis[i];
}

static void nodes_release(struct nodes *ns)
{
	for (uint32_t i = 0; i < ns->n; i++) {
		node_info_release(&ns->nis[i]);
		api_node_unref(ns->nodes[i]);
	}
	ns->n = 0;
	ns->list.n = 0;
}

static void set_sig(struct fw_profile *p, const char *sig)
{
	struct fw_sig *s = &p->batch.pod;
	s->len = 0;
	p->batch.pod_signed = sig != NULL;
	if (!sig)
		return;
	size_t n = strlen(sig);
	if (n > s->cap) {
		s->buf = realloc(s->buf, n);
		assert_non_null(s->buf);
		s->cap = n;
	}
	memcpy(s->buf, sig, n);
	s->len = n;
}

/* p->sorted as NewSortedScoredNodes of names (totals descending, so they pop in this order, as
 * the tests' FIFO testSortedScoredNodes does) with raw score raw[i] for plugin pl (NULL: none). */
static void set_sorted(struct fw_profile *p, const char *const *names, const int64_t *raw, uint32_t n,
		       const struct fw_pl *pl, const int64_t *totals)
{
	struct fw_batch *b = &p->batch;
	if (p->sorted_cap < 8) {
		p->sorted = realloc(p->sorted, 8 * sizeof(*p->sorted));
		assert_non_null(p->sorted);
		p->sorted_cap = 8;
	}
	if (b->cur_raw_cap < 8) {
		b->cur_raw = realloc(b->cur_raw, 8 * sizeof(*b->cur_raw));
		assert_non_null(b->cur_raw);
		b->cur_raw_cap = 8;
	}
	for (uint32_t i = 0; i < n; i++) {
		p->sorted[i] = (struct fw_scored_node){ .name = intern_str(names[i]),
							.total = totals ? totals[i] : (int64_t)(n - i),
							.row = i };
		b->cur_raw[i] = raw ? raw[i] : 0;
	}
	fw_sorted_nodes_init(p->sorted, n);
	p->n_sorted = n;
	b->cur_n_pls = pl ? 1 : 0;
	b->cur_pls[0] = pl;
	b->cur_stride = n;
}

static const char *hint(struct fw_profile *p, struct fw_cycle *c, struct nodes *ns, const struct api_pod *pod,
			uint64_t cycle, struct fw_schedule_result *res)
{
	struct err e = { 0 };
	int rc;
	fw_cycle_reset(c);
	res->batch = (struct fw_batch_outcome){ 0 };
	p->batch.cycle = cycle;
	const char *h = fw_batch_get_node_hint(p, c, &ns->list, pod, res, &e, &rc);
	assert_int_equal(rc, 0);
	return h;
}

static void store(struct fw_profile *p, const char *hinted, const char *chosen, bool sorted, uint64_t cycle,
		  struct fw_schedule_result *res)
{
	p->batch.cycle = cycle;
	assert_int_equal(fw_batch_store(p, hinted, intern_str(chosen), sorted, res), 0);
}

/* ---------- TestBatchBasic ---------- */

struct basic_case {
	const char *name;
	const char *first_uid, *first_sig;
	bool first_ok;
	const char *first_chosen;
	const char *first_other[3]; /* NULL-terminated */
	bool first_other_nil;
	bool same_cycle, skip_pod;
	const char *second_uid, *second_nnn, *second_sig, *second_chosen;
	const char *want_hint;
	const char *want_state_sig; /* NULL: empty state */
	const char *want_state_nodes[3];
	enum fw_batch_flush want_flush; /* GetNodeHint's logUnusableState for the second pod */
};

/* upstream batch_test.go TestBatchBasic (rows in order; the GenericWorkload-enabled row is left
 * out: the gate is off in v1.37 and csched has no pod groups) */
static const struct basic_case basic_cases[] = {
	{ "a second pod with the same signature gets a hint", "b-1", "sig", true, "n3", { "n1" }, false, false,
	  false, "b-2", "", "sig", "n1", "n1", NULL, { NULL }, FW_FLUSH_NONE },
	{ "a second pod with a different signature doesn't get a hint", "a-1", "sig", true, "n3", { "n1" }, false,
	  false, false, "a-2", "", "sig2", "n1", NULL, NULL, { NULL }, FW_FLUSH_POD_INCOMPATIBLE },
	{ "pod doesn't get hint if previous pod didn't scheduled", "b-1", "sig", false, "n3", { "n1" }, false, false,
	  false, "b-2", "", "sig", "n1", NULL, NULL, { NULL }, FW_FLUSH_NONE },
	{ "empty list", "b-1", "sig", true, "n3", { NULL }, false, false, false, "b-2", "", "sig", "n4", NULL, NULL,
	  { NULL }, FW_FLUSH_NONE },
	{ "nil list", "b-1", "sig", true, "n3", { NULL }, true, false, false, "b-2", "", "sig", "n4", NULL, NULL,
	  { NULL }, FW_FLUSH_NONE },
	{ "pod doesn't get hint because the previous pod is to a different profile", "b-1", "sig", true, "n3",
	  { "n1" }, false, false, true, "b-2", "", "sig", "n1", NULL, NULL, { NULL }, FW_FLUSH_POD_SKIPPED },
	{ "pod doesn't use batch from preceding pod when they are from the same cycle state, but GenericWorkload is disabled",
	  "b-1", "sig", true, "n3", { "n1" }, false, true, false, "b-2", "", "sig", "n1", NULL, NULL, { NULL },
	  FW_FLUSH_POD_SKIPPED },
	{ "pod uses batch from preceding pod and leaves remaining batch to next pod", "b-1", "sig", true, "n3",
	  { "n1", "n2" }, false, false, false, "b-2", "", "sig", "n1", "n1", "sig", { "n2" }, FW_FLUSH_NONE },
	{ "a second pod with a nominated node does not get a hint", "b-1", "sig", true, "n3", { "n1" }, false, false,
	  false, "b-2", "n1", "sig", "n1", NULL, NULL, { NULL }, FW_FLUSH_POD_NOMINATED },
};

static void test_batch_basic(void **state)
{
	(void)state;
	for (size_t t = 0; t < sizeof(basic_cases) / sizeof(basic_cases[0]); t++) {
		const struct basic_case *tc = &basic_cases[t];
		static struct fw_schedule_result res;
		static struct nodes ns;
		struct fw_profile *p = batch_profile(false);
		struct fw_cycle *c = fw_cycle_new(p);
		struct api_pod *pod1 = TOBJ_POD(.name = "pod", .uid = tc->first_uid);
		struct api_pod *pod2 = TOBJ_POD(.name = "pod2", .uid = tc->second_uid, .nominated = tc->second_nnn);

		set_sig(p, tc->first_sig);
		if (hint(p, c, &ns, pod1, 1, &res))
			fail_msg("%s: unexpected first hint", tc->name);
		if (tc->first_ok) {
			uint32_t n = 0;
			while (n < 3 && tc->first_other[n])
				n++;
			set_sorted(p, tc->first_other, NULL, n, NULL, NULL);
			store(p, NULL, tc->first_chosen, !tc->first_other_nil, 1, &res);
		}
		uint64_t cycle = tc->skip_pod ? 3 : tc->same_cycle ? 1 : 2;
		add_node(&ns, tc->first_chosen, pod1); /* the last chosen node holds the first pod */
		set_sig(p, tc->second_sig);
		const char *h = hint(p, c, &ns, pod2, cycle, &res);
		if ((h == NULL) != (tc->want_hint == NULL) || (h && strcmp(h, tc->want_hint) != 0))
			fail_msg("%s: hint %s, want %s", tc->name, h ? h : "\"\"", tc->want_hint ? tc->want_hint : "\"\"");
		if (res.batch.hint_flush != tc->want_flush)
			fail_msg("%s: flush %s, want %s", tc->name, fw_batch_flush_name(res.batch.hint_flush),
				 fw_batch_flush_name(tc->want_flush));
		store(p, h, tc->second_chosen, false, cycle, &res); /* secondOtherNodes: nil in every row */
		bool empty = !p->batch.have_state || p->batch.n_heap == 0;
		if (empty != (tc->want_state_sig == NULL))
			fail_msg("%s: state empty %d", tc->name, empty);
		if (!empty) {
			assert_int_equal(p->batch.sig.len, strlen(tc->want_state_sig));
			assert_memory_equal(p->batch.sig.buf, tc->want_state_sig, p->batch.sig.len);
			for (uint32_t i = 0; tc->want_state_nodes[i]; i++)
				assert_string_equal(fw_sorted_nodes_pop(p->batch.heap, &p->batch.n_heap).name,
						    tc->want_state_nodes[i]);
			assert_int_equal(p->batch.n_heap, 0);
		}
		nodes_release(&ns);
		api_pod_unref(pod1);
		api_pod_unref(pod2);
		fw_cycle_free(c);
		fw_profile_free(p);
	}
}

/* ---------- TestBatchRescore ---------- */

struct rescore_case {
	const char *name;
	int64_t score;
	bool filter_err, pre_score_err, score_err, norm_err, chosen_missing, cached_missing;
	const char *want_hint;
	const char *want_remaining[2];
	bool want_rescored;
	enum fw_batch_flush want_flush;
};

/* upstream batch_test.go TestBatchRescore */
static const struct rescore_case rescore_cases[] = {
	{ "rescored node wins", 100, false, false, false, false, false, false, "n2", { "n1" }, true, FW_FLUSH_NONE },
	{ "rescored node loses", 10, false, false, false, false, false, false, "n1", { "n2" }, true, FW_FLUSH_NONE },
	{ "filter error gives no hint", 100, true, false, false, false, false, false, NULL, { "n1" }, false,
	  FW_FLUSH_FILTER_ERROR },
	{ "prescore error gives no hint", 0, false, true, false, false, false, false, NULL, { "n1" }, true,
	  FW_FLUSH_PRESCORE_ERROR },
	{ "score error gives no hint", 0, false, false, true, false, false, false, NULL, { "n1" }, true,
	  FW_FLUSH_RESCORE_ERROR },
	{ "normalize error gives no hint", 0, false, false, false, true, false, false, NULL, { "n1" }, true,
	  FW_FLUSH_NORMALIZE_ERROR },
	{ "chosen node missing from lister gives no hint", 0, false, false, false, false, true, false, NULL, { "n1" },
	  false, FW_FLUSH_NODE_MISSING },
	{ "cached node missing from lister gives no hint", 100, false, false, false, false, false, true, NULL,
	  { "n1" }, true, FW_FLUSH_NODE_MISSING },
};

static void test_batch_rescore(void **state)
{
	(void)state;
	static const char *const n1[] = { "n1" };
	static const int64_t n1_cached_score[] = { 50 }, zero_total[] = { 0 };
	for (size_t t = 0; t < sizeof(rescore_cases) / sizeof(rescore_cases[0]); t++) {
		const struct rescore_case *tc = &rescore_cases[t];
		static struct fw_schedule_result res;
		static struct nodes ns;
		memset(&conf, 0, sizeof(conf));
		conf.score = tc->score;
		conf.filter_err = tc->filter_err;
		conf.pre_score_err = tc->pre_score_err;
		conf.score_err = tc->score_err;
		conf.norm_err = tc->norm_err;
		struct fw_profile *p = batch_profile(true);
		struct fw_cycle *c = fw_cycle_new(p);
		struct api_pod *pod1 = TOBJ_POD(.name = "pod1", .uid = "a-1");
		struct api_pod *pod2 = TOBJ_POD(.name = "pod2", .uid = "a-2");
		set_sig(p, "sig");
		assert_null(hint(p, c, &ns, pod1, 1, &res));
		/* cachedNodes: n1 with RawScores configurableScore 50 (TotalScore 0) */
		set_sorted(p, n1, n1_cached_score, 1, tl_pl(p, "configurableScore"), zero_total);
		store(p, NULL, "n2", true, 1, &res);
		if (!tc->chosen_missing) {
			if (!tc->cached_missing)
				add_node(&ns, "n1", NULL);
			add_node(&ns, "n2", pod1);
		}
		set_sig(p, "sig"); /* every GetNodeHint gets the pod's signature */
		const char *h = hint(p, c, &ns, pod2, 2, &res);
		if ((h == NULL) != (tc->want_hint == NULL) || (h && strcmp(h, tc->want_hint) != 0))
			fail_msg("%s: hint %s, want %s (flush %s)", tc->name, h ? h : "\"\"",
				 tc->want_hint ? tc->want_hint : "\"\"", fw_batch_flush_name(res.batch.hint_flush));
		if (res.batch.hint_flush != tc->want_flush || res.batch.rescored != tc->want_rescored)
			fail_msg("%s: flush %s rescored %d", tc->name, fw_batch_flush_name(res.batch.hint_flush),
				 res.batch.rescored);
		assert_true(p->batch.have_state);
		assert_int_equal(p->batch.n_heap, 1);
		assert_string_equal(fw_sorted_nodes_pop(p->batch.heap, &p->batch.n_heap).name, tc->want_remaining[0]);
		nodes_release(&ns);
		api_pod_unref(pod1);
		api_pod_unref(pod2);
		fw_cycle_free(c);
		fw_profile_free(p);
	}
}

/* upstream batch_test.go TestBatchRescoreChain */
static void test_batch_rescore_chain(void **state)
{
	(void)state;
	static const char *const n1[] = { "n1" };
	static const int64_t n1_cached_score[] = { 50 }, zero_total[] = { 0 };
	static struct fw_schedule_result res;
	static struct nodes ns;
	memset(&conf, 0, sizeof(conf));
	conf.score = 100;
	struct fw_profile *p = batch_profile(true);
	struct fw_cycle *c = fw_cycle_new(p);
	struct api_pod *pod1 = TOBJ_POD(.name = "pod1", .uid = "a-1");
	struct api_pod *pod2 = TOBJ_POD(.name = "pod2", .uid = "a-2");
	struct api_pod *pod3 = TOBJ_POD(.name = "pod3", .uid = "a-3");
	set_sig(p, "sig");
	assert_null(hint(p, c, &ns, pod1, 1, &res));
	set_sorted(p, n1, n1_cached_score, 1, tl_pl(p, "configurableScore"), zero_total);
	store(p, NULL, "n2", true, 1, &res);
	add_node(&ns, "n1", NULL);
	add_node(&ns, "n2", pod1);
	set_sig(p, "sig");
	const char *h2 = hint(p, c, &ns, pod2, 2, &res);
	assert_non_null(h2);
	assert_string_equal(h2, "n2");
	store(p, h2, "n2", false, 2, &res);
	assert_string_equal(res.batch.attempt, "hint_used");
	set_sig(p, "sig");
	const char *h3 = hint(p, c, &ns, pod3, 3, &res);
	assert_non_null(h3);
	assert_string_equal(h3, "n2");
	assert_true(p->batch.have_state);
	assert_int_equal(p->batch.n_heap, 1);
	assert_string_equal(fw_sorted_nodes_pop(p->batch.heap, &p->batch.n_heap).name, "n1");
	nodes_release(&ns);
	api_pod_unref(pod1);
	api_pod_unref(pod2);
	api_pod_unref(pod3);
	fw_cycle_free(c);
	fw_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_basic),
		cmocka_unit_test(test_batch_rescore),
		cmocka_unit_test(test_batch_rescore_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
