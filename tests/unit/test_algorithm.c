/* Framework tests: statuses, the FitError message, numFeasibleNodesToFind, normalisation, event
 * matching, profiles, the worker pool and the generic scheduling cycle on small snapshots. */
#include "algorithm_testlib.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* ---------- status ---------- */

static void test_status(void **state)
{
	(void)state;
	struct fw_status st;
	char buf[256];
	fw_status_reset(&st);
	assert_true(fw_status_is_success(&st));
	assert_string_equal(fw_status_message(&st, buf, sizeof(buf)), "");
	assert_int_equal(fw_status_set(&st, FW_UNSCHEDULABLE, "Insufficient cpu"), FW_UNSCHEDULABLE);
	fw_status_add_reason(&st, "Insufficient memory");
	fw_status_add_reasonf(&st, "Insufficient %s", "example.com/gpu");
	assert_int_equal(st.n_reasons, 3);
	assert_string_equal(fw_status_message(&st, buf, sizeof(buf)),
			    "Insufficient cpu, Insufficient memory, Insufficient example.com/gpu");
	const char *r = fw_status_reason_next(&st, NULL);
	assert_string_equal(r, "Insufficient cpu");
	r = fw_status_reason_next(&st, r);
	assert_string_equal(r, "Insufficient memory");
	r = fw_status_reason_next(&st, r);
	assert_string_equal(r, "Insufficient example.com/gpu");
	assert_null(fw_status_reason_next(&st, r));
	/* the message buffer truncates, never overflows */
	char small[10];
	assert_string_equal(fw_status_message(&st, small, sizeof(small)), "Insuffici");
	/* a status is a value: copies keep their reasons */
	struct fw_status copy = st;
	fw_status_reset(&st);
	assert_string_equal(fw_status_message(&copy, buf, sizeof(buf)),
			    "Insufficient cpu, Insufficient memory, Insufficient example.com/gpu");
	/* an over-long reason is cut with "..." and the status stays well-formed */
	char big[2 * FW_STATUS_TEXT_MAX];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fw_status_set(&st, FW_ERROR, "first");
	fw_status_add_reason(&st, big);
	fw_status_add_reason(&st, "dropped");
	assert_int_equal(st.n_reasons, 2);
	r = fw_status_reason_next(&st, fw_status_reason_next(&st, NULL));
	assert_int_equal(strlen(r), FW_STATUS_TEXT_MAX - 6 - 1);
	assert_string_equal(r + strlen(r) - 3, "...");
	assert_null(fw_status_reason_next(&st, r));

	static const char *const names[] = { "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
					     "Wait", "Skip", "Pending" };
	for (int c = FW_SUCCESS; c <= FW_PENDING; c++)
		assert_string_equal(fw_code_str((enum fw_code)c), names[c]);
	assert_string_equal(fw_code_str((enum fw_code)99), "Unknown");
}

/* ---------- numFeasibleNodesToFind (schedule_one_test.go TestNumFeasibleNodesToFind) ---------- */

static void test_num_feasible_nodes_to_find(void **state)
{
	(void)state;
	struct {
		int32_t pct;
		uint32_t n, want;
	} cases[] = {
		{ 0, 10, 10 },     /* not set, nodes not more than 50 */
		{ 40, 10, 10 },    /* set, nodes not more than 50 */
		{ 0, 1000, 420 },  /* adaptive: 50 - 1000/125 = 42% */
		{ 40, 1000, 400 },
		{ 0, 6000, 300 },  /* adaptive floor 5% */
		{ 40, 6000, 2400 },
		{ 0, 99, 99 },
		{ 0, 100, 100 },   /* 50% of 100 = 50, raised to the 100 minimum */
		{ 10, 150, 100 },
		{ 100, 5000, 5000 },
		{ 1, 20000, 200 },
		{ 0, 5000, 500 },  /* 50 - 40 = 10% */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (fw_num_feasible_nodes_to_find(cases[i].pct, cases[i].n) != cases[i].want)
			fail_msg("pct %d n %u: got %u want %u", cases[i].pct, cases[i].n,
				 fw_num_feasible_nodes_to_find(cases[i].pct, cases[i].n), cases[i].want);
}

/* ---------- DefaultNormalizeScore (helper/normalize_score_test.go) ---------- */

static void test_default_normalize_score(void **state)
{
	(void)state;
	struct {
		int64_t in[6], want[6], want_rev[6];
		uint32_t n;
	} cases[] = {
		{ { 1, 2, 3, 4, 5 }, { 20, 40, 60, 80, 100 }, { 80, 60, 40, 20, 0 }, 5 },
		{ { 1000, 10, 20, 30, 40, 50 }, { 100, 1, 2, 3, 4, 5 }, { 0, 99, 98, 97, 96, 95 }, 6 },
		{ { 0, 1, 1, 1, 1 }, { 0, 100, 100, 100, 100 }, { 100, 0, 0, 0, 0 }, 5 },
		{ { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 100, 100, 100, 100, 100 }, 5 },
		{ { 3 }, { 100 }, { 0 }, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int rev = 0; rev < 2; rev++) {
			struct fw_node_score s[6];
			for (uint32_t k = 0; k < cases[i].n; k++)
				s[k] = (struct fw_node_score){ NULL, cases[i].in[k] };
			fw_default_normalize_score(100, rev, s, cases[i].n);
			for (uint32_t k = 0; k < cases[i].n; k++)
				assert_int_equal(s[k].score, rev ? cases[i].want_rev[k] : cases[i].want[k]);
		}
	}
}

/* ---------- FitError message (framework/types_test.go TestFitError_Error) ---------- */

static void set_status(struct fw_status *st, enum fw_code code, const char *r1, const char *r2)
{
	fw_status_set(st, code, r1);
	if (r2)
		fw_status_add_reason(st, r2);
}

static void test_fit_error_message(void **state)
{
	(void)state;
	static struct fw_status sts[16];
	static struct fw_node_status ns[16];
	static struct fw_diagnosis d;
	char buf[1024];
	const char *taint = "node(s) had untolerated taint(s)";
	const char *aff = "node(s) didn't match Pod's node affinity/selector";

	/* upstream.md's example, with the PostFilter suffix */
	memset(&d, 0, sizeof(d));
	d.num_all_nodes = 3;
	set_status(&sts[0], FW_UNSCHEDULABLE_AND_UNRESOLVABLE, taint, NULL);
	set_status(&sts[1], FW_UNSCHEDULABLE_AND_UNRESOLVABLE, aff, NULL);
	set_status(&sts[2], FW_UNSCHEDULABLE_AND_UNRESOLVABLE, aff, NULL);
	for (int i = 0; i < 3; i++)
		ns[i] = (struct fw_node_status){ "n", &sts[i] };
	d.n_node_status = 3;
	d.node_status = ns;
	assert_string_equal(fw_fit_error_message(&d, buf, sizeof(buf)),
			    "0/3 nodes are available: 1 node(s) had untolerated taint(s), "
			    "2 node(s) didn't match Pod's node affinity/selector.");
	snprintf(d.post_filter_msg, sizeof(d.post_filter_msg),
		 "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
	assert_string_equal(fw_fit_error_message(&d, buf, sizeof(buf)),
			    "0/3 nodes are available: 1 node(s) had untolerated taint(s), "
			    "2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 "
			    "Preemption is not helpful for scheduling.");

	/* every reason of a node counts; counts sort as strings ("10 ..." before "2 ...") */
	memset(&d, 0, sizeof(d));
	d.num_all_nodes = 12;
	for (int i = 0; i < 12; i++) {
		if (i < 2)
			set_status(&sts[i], FW_UNSCHEDULABLE, "Insufficient cpu", NULL);
		else
			set_status(&sts[i], FW_UNSCHEDULABLE, "Insufficient memory", NULL);
		ns[i] = (struct fw_node_status){ "n", &sts[i] };
	}
	fw_status_add_reason(&sts[0], "Too many pods");
	d.n_node_status = 12;
	d.node_status = ns;
	assert_string_equal(fw_fit_error_message(&d, buf, sizeof(buf)),
			    "0/12 nodes are available: 1 Too many pods, 10 Insufficient memory, 2 Insufficient cpu.");

	/* PreFilter rejection: its message only, even though every node has the absent status */
	memset(&d, 0, sizeof(d));
	d.num_all_nodes = 3;
	d.has_absent_status = true;
	set_status(&d.absent_status, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "pod affinity terms conflict", NULL);
	snprintf(d.pre_filter_msg, sizeof(d.pre_filter_msg), "pod affinity terms conflict");
	assert_string_equal(fw_fit_error_message(&d, buf, sizeof(buf)),
			    "0/3 nodes are available: pod affinity terms conflict.");
	snprintf(d.post_filter_msg, sizeof(d.post_filter_msg), "preemption: not eligible due to preemptionPolicy=Never.");
	assert_string_equal(fw_fit_error_message(&d, buf, sizeof(buf)),
			    "0/3 nodes are available: pod affinity terms conflict. preemption: not eligible due to "
			    "preemptionPolicy=Never.");

	/* nodes filtered out by a PreFilter node set count with the absent status */
	memset(&d, 0, sizeof(d));
	d.num_all_nodes = 5;
	set_status(&sts[0], FW_UNSCHEDULABLE, "Insufficient cpu", NULL);
	set_status(&sts[1], FW_UNSCHEDULABLE_AND_UNRESOLVABLE, taint, NULL);
	ns[0] = (struct fw_node_status){ "a", &sts[0] };
	ns[1] = (struct fw_node_status){ "b", &sts[1] };
	d.n_node_status = 2;
	d.node_status = ns;
	d.has_absent_status = true;
	set_status(&d.absent_status, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't satisfy plugin(s) [NodeAffinity]",
		   NULL);
	assert_string_equal(fw_fit_error_message(&d, buf, sizeof(buf)),
			    "0/5 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), "
			    "3 node(s) didn't satisfy plugin(s) [NodeAffinity].");

	/* a short buffer truncates safely */
	char small[16];
	assert_string_equal(fw_fit_error_message(&d, small, sizeof(small)), "0/5 nodes are a");
}

/* ---------- profiles ---------- */

static void test_profile_building(void **state)
{
	(void)state;
	struct fw_profile_config pc;
	struct err e;
	fw_default_profile_config(NULL, &pc);
	struct fw_profile *p = fw_profile_new(&pc, NULL, &e);
	assert_non_null(p);
	assert_string_equal(fw_profile_name(p), "csched");
	uint32_t n;
	const struct fw_pl *const *score = fw_profile_plugins(p, CFG_EP_SCORE, &n);
	static const char *const want_names[] = { "TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
						  "PodTopologySpread", "InterPodAffinity", "DynamicResources",
						  "NodeResourcesBalancedAllocation", "ImageLocality" };
	static const int32_t want_w[] = { 3, 2, 1, 1, 2, 2, 2, 1, 1 };
	assert_int_equal(n, 9);
	for (uint32_t i = 0; i < n; i++) {
		assert_string_equal(score[i]->plugin->name, want_names[i]);
		assert_int_equal(fw_profile_weight(p, score[i]), want_w[i]);
	}
	const struct fw_pl *const *filter = fw_profile_plugins(p, CFG_EP_FILTER, &n);
	/* Filter run order: upstream v1.37 pkg/scheduler/apis/config/v1/default_plugins.go
	 * getDefaultPlugins (MultiPoint order), restricted to the Filter plugins csched implements */
	static const char *const want_filter[] = { "NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity",
						   "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
						   "VolumeZone",
						   "PodTopologySpread", "InterPodAffinity", "DynamicResources",
						   "NodeDeclaredFeatures" /* appended in v1.37 */ };
	assert_int_equal(n, ARRAY_SIZE(want_filter));
	for (uint32_t i = 0; i < n; i++)
		assert_string_equal(filter[i]->plugin->name, want_filter[i]);
	/* one instance per plugin: the same fw_pl at every point */
	uint32_t npf;
	const struct fw_pl *const *pf = fw_profile_plugins(p, CFG_EP_PRE_FILTER, &npf);
	assert_ptr_equal(pf[2], filter[5]);
	/* DefaultPreemption's PostFilter (upstream default_plugins.go: MultiPoint) */
	assert_true(fw_profile_has_post_filter(p));
	fw_profile_free(p);
	fw_profile_free(NULL);

	struct cfg_plugin bad_name[] = { { "NoSuchPlugin", 0 } };
	struct cfg_plugin not_filter[] = { { "ImageLocality", 0 } };
	struct cfg_plugin heavy[] = { { "ImageLocality", 101 } };
	struct cfg_plugin dup[] = { { "NodeName", 0 }, { "NodeName", 0 } };
	struct {
		enum cfg_ext_point ep;
		struct cfg_plugin_list list;
		const char *want;
	} cases[] = {
		{ CFG_EP_FILTER, { 1, bad_name }, "plugin \"NoSuchPlugin\" does not exist" },
		{ CFG_EP_FILTER, { 1, not_filter }, "plugin \"ImageLocality\" does not extend filter" },
		{ CFG_EP_SCORE, { 1, heavy }, "must be in the range 1..100, got 101" },
		{ CFG_EP_FILTER, { 2, dup }, "plugin NodeName enabled twice" },
		{ CFG_EP_QUEUE_SORT, { 0, NULL }, "one queue sort plugin required for profile" },
		{ CFG_EP_BIND, { 0, NULL }, "at least one bind plugin is needed for profile" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fw_default_profile_config("bad", &pc);
		pc.points[cases[i].ep] = cases[i].list;
		memset(&e, 0, sizeof(e));
		assert_null(fw_profile_new(&pc, NULL, &e));
		if (!strstr(e.msg, cases[i].want) || !strstr(e.msg, "profile bad"))
			fail_msg("case %zu: %s", i, e.msg);
	}
	fw_default_profile_config("bad", &pc);
	pc.has_percentage_of_nodes_to_score = true;
	pc.percentage_of_nodes_to_score = 101;
	assert_null(fw_profile_new(&pc, NULL, &e));
	assert_non_null(strstr(e.msg, "percentageOfNodesToScore"));

	/* every registered plugin declares the points it implements consistently */
	size_t nreg;
	const struct fw_plugin *const *all = fw_registry_all(&nreg);
	assert_int_equal(nreg, 20); /* the registry table's PLUGIN rows */
	for (size_t i = 0; i < nreg; i++)
		assert_ptr_equal(fw_registry_lookup(all[i]->name), all[i]);
	assert_null(fw_registry_lookup("nope"));
	assert_true(fw_plugin_implements(fw_registry_lookup("NodeAffinity"), CFG_EP_PRE_SCORE));
	assert_false(fw_plugin_implements(fw_registry_lookup("NodeName"), CFG_EP_SCORE));

	/* the queue's registrations: a plugin's own events, none for a plugin that cannot reject */
	fw_default_profile_config("ev", &pc);
	p = fw_profile_new(&pc, NULL, &e);
	assert_non_null(p);
	struct queue_profile qp;
	fw_profile_queue_profile(p, &qp);
	bool name_add = false, binder = false;
	for (uint32_t i = 0; i < qp.n_hints; i++) {
		const struct queue_hint_reg *r = &qp.hints[i];
		if (strcmp(r->plugin, "NodeName") == 0)
			name_add |= r->event.resource == QUEUE_RES_NODE && r->event.actions == QUEUE_ACT_ADD && !r->hint;
		binder |= strcmp(r->plugin, "DefaultBinder") == 0;
	}
	assert_true(name_add);
	assert_false(binder); /* cannot reject a pod: no registrations */
	fw_profile_free(p);
}

/* ---------- pool ---------- */

struct sum_job {
	_Atomic uint64_t sum;
	_Atomic uint32_t calls;
	unsigned char *seen;
	uint32_t stop_after;
	_Atomic bool stop;
};

static void sum_fn(void *ctx, size_t i)
{
	struct sum_job *j = ctx;
	j->seen[i]++; /* each index belongs to one piece: no race */
	atomic_fetch_add(&j->sum, i);
	uint32_t c = atomic_fetch_add(&j->calls, 1) + 1;
	if (j->stop_after && c >= j->stop_after)
		atomic_store(&j->stop, true);
}

/* The framework's default profile and config's are one: both derive from the registry table
 * (config through mergePlugins + MultiPoint expansion). Same names, order and weights. */
static void test_default_profile_matches_config(void **state)
{
	(void)state;
	struct config c;
	struct err e = { 0 };
	assert_int_equal(config_init_default(&c, fw_registry(), &e), 0);
	struct fw_profile_config pc;
	fw_default_profile_config(NULL, &pc);
	assert_string_equal(pc.scheduler_name, c.profiles[0].scheduler_name);
	for (int ep = 0; ep < CFG_EP_COUNT; ep++) {
		const struct cfg_plugin_list *want = config_effective_plugins(&c.profiles[0], (enum cfg_ext_point)ep);
		assert_int_equal(pc.points[ep].n, want->n);
		for (uint32_t i = 0; i < want->n; i++) {
			assert_string_equal(pc.points[ep].items[i].name, want->items[i].name);
			assert_int_equal(pc.points[ep].items[i].weight, want->items[i].weight);
		}
	}
	config_free(&c);
}

static void test_pool(void **state)
{
	(void)state;
	struct err e;
	assert_null(fw_pool_new(0, &e));
	assert_non_null(strstr(e.msg, "parallelism"));
	int pars[] = { 1, 2, 4, 16 };
	size_t sizes[] = { 0, 1, 3, 100, 5000 };
	for (size_t a = 0; a < 4; a++) {
		struct fw_pool *pool = fw_pool_new(pars[a], &e);
		assert_non_null(pool);
		assert_int_equal(fw_pool_parallelism(pool), pars[a]);
		for (int round = 0; round < 3; round++) {
			for (size_t b = 0; b < 5; b++) {
				size_t n = sizes[b];
				struct sum_job j = { 0 };
				j.seen = calloc(n + 1, 1);
				atomic_init(&j.stop, false);
				fw_pool_run(pool, n, sum_fn, &j, &j.stop);
				assert_int_equal(atomic_load(&j.sum), n ? (uint64_t)n * (n - 1) / 2 : 0);
				for (size_t i = 0; i < n; i++)
					assert_int_equal(j.seen[i], 1);
				free(j.seen);
			}
			/* stop: no piece starts after the flag, so at most one more per worker */
			struct sum_job j = { 0 };
			j.seen = calloc(5000, 1);
			j.stop_after = 10;
			atomic_init(&j.stop, false);
			fw_pool_run(pool, 5000, sum_fn, &j, &j.stop);
			assert_true(atomic_load(&j.calls) >= 10);
			assert_true(atomic_load(&j.calls) < 10 + (uint32_t)pars[a]);
			free(j.seen);
		}
		fw_pool_free(pool);
	}
	/* NULL pool runs inline */
	struct sum_job j = { 0 };
	j.seen = calloc(10, 1);
	fw_pool_run(NULL, 10, sum_fn, &j, NULL);
	assert_int_equal(atomic_load(&j.sum), 45);
	free(j.seen);
	fw_pool_free(NULL);
}

/* Jobs back to back (helpers hand over while spinning) and jobs after pauses longer than the
 * helpers spin (they sleep and are woken), on pools larger than the machine: every index runs
 * exactly once each time, and the caller sees every write of the pieces. */
static void test_pool_handover(void **state)
{
	(void)state;
	struct err e;
	int pars[] = { 2, 3, 16 };
	for (size_t a = 0; a < 3; a++) {
		struct fw_pool *pool = fw_pool_new(pars[a], &e);
		assert_non_null(pool);
		for (int round = 0; round < 400; round++) {
			size_t n = 20 + (size_t)(round * 37) % 900; /* some inline, most shared */
			struct sum_job j = { 0 };
			j.seen = calloc(n, 1);
			assert_non_null(j.seen);
			atomic_init(&j.stop, false);
			fw_pool_run(pool, n, sum_fn, &j, &j.stop);
			assert_int_equal(atomic_load(&j.sum), (uint64_t)n * (n - 1) / 2);
			for (size_t i = 0; i < n; i++)
				if (j.seen[i] != 1)
					fail_msg("parallelism %d round %d: index %zu ran %d times", pars[a], round, i, j.seen[i]);
			free(j.seen);
			if (round % 50 == 49) {
				struct timespec ts = { 0, 2 * 1000 * 1000 }; /* helpers go to sleep */
				nanosleep(&ts, NULL);
			}
		}
		fw_pool_free(pool);
	}
}

/* fw_pool_run_w: every index runs once, with a worker index below fw_pool_workers, and no two
 * threads of one loop share an index (each worker's index set is owned by one thread). */
struct worker_job {
	int n_workers;
	_Atomic uintptr_t owner[64]; /* thread (address of its tl_thread_tag) using worker w */
	_Atomic uint32_t clash;
	unsigned char *seen;
	int *worker_of;
};

static _Thread_local char tl_thread_tag;

static void worker_fn(void *ctx, int worker, size_t i)
{
	struct worker_job *j = ctx;
	j->seen[i]++;
	j->worker_of[i] = worker;
	if (worker < 0 || worker >= j->n_workers) {
		atomic_fetch_add(&j->clash, 1);
		return;
	}
	uintptr_t me = (uintptr_t)&tl_thread_tag, want = 0;
	if (!atomic_compare_exchange_strong(&j->owner[worker], &want, me) && want != me)
		atomic_fetch_add(&j->clash, 1);
}

static void test_pool_worker_index(void **state)
{
	(void)state;
	struct err e;
	static const struct {
		int parallelism;
		size_t n;
	} cases[] = {
		{ 1, 1000 }, { 2, 0 }, { 2, 1 }, { 2, 127 }, { 2, 5000 }, { 3, 129 }, { 3, 900 }, { 16, 5000 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct fw_pool *pool = fw_pool_new(cases[k].parallelism, &e);
		assert_non_null(pool);
		int workers = fw_pool_workers(pool);
		assert_true(workers >= 1 && workers <= cases[k].parallelism && workers < 64);
		for (int round = 0; round < 20; round++) {
			size_t n = cases[k].n;
			struct worker_job j = { .n_workers = workers };
			j.seen = calloc(n + 1, 1);
			j.worker_of = calloc(n + 1, sizeof(*j.worker_of));
			assert_non_null(j.seen);
			assert_non_null(j.worker_of);
			/* every other round inline (fw_pool_set_inline): the caller alone */
			bool inline_only = round % 2 == 1;
			fw_pool_set_inline(pool, inline_only);
			fw_pool_run_w(pool, n, worker_fn, &j, NULL);
			fw_pool_set_inline(pool, false);
			for (size_t i = 0; i < n; i++)
				if (j.seen[i] != 1)
					fail_msg("case %zu: index %zu ran %d times", k, i, j.seen[i]);
			assert_int_equal(atomic_load(&j.clash), 0);
			/* the caller is worker 0, and runs inline loops alone */
			if (n && (n < 128 || workers == 1 || inline_only))
				for (size_t i = 0; i < n; i++)
					assert_int_equal(j.worker_of[i], 0);
			free(j.seen);
			free(j.worker_of);
		}
		fw_pool_free(pool);
	}
	assert_int_equal(fw_pool_workers(NULL), 1);
}

/* ---------- the cycle ---------- */

struct cluster {
	uint32_t n;
	struct api_node *nodes[2000];
	struct node_info nis[2000];
	const struct node_info *ptrs[2000];
	struct fw_node_list list;
};

static void cluster_add(struct cluster *cl, struct api_node *node, struct api_pod **pods, size_t n_pods)
{
	uint32_t i = cl->n++;
	cl->nodes[i] = node;
	tl_node_info(&cl->nis[i], node, pods, n_pods);
	cl->ptrs[i] = &cl->nis[i];
	cl->list.n = cl->n;
	cl->list.nodes = cl->ptrs;
}

static void cluster_release(struct cluster *cl)
{
	for (uint32_t i = 0; i < cl->n; i++) {
		node_info_release(&cl->nis[i]);
		api_node_unref(cl->nodes[i]);
	}
	cl->n = 0;
}

/* The cycle tests' node: hostname label, cpu, 16Gi, 110 pods, taints (testobj.h syntax) or none. */
static struct api_node *std_node(const char *name, const char *cpu, const char *taints)
{
	char labels[128], alloc[64];
	snprintf(labels, sizeof(labels), "kubernetes.io/hostname=%s", name);
	snprintf(alloc, sizeof(alloc), "cpu=%s,memory=16Gi,pods=110", cpu);
	return TOBJ_NODE(.name = name, .labels = labels, .alloc = alloc, .taints = taints);
}

static struct fw_profile *default_profile(struct fw_pool *pool)
{
	struct fw_profile_config pc;
	fw_default_profile_config("default", &pc);
	struct fw_profile_options o = { .pool = pool };
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	if (!p)
		fail_msg("%s", e.msg);
	return p;
}

/* One scheduling attempt with a fresh cycle state. */
static int schedule(struct fw_profile *p, struct fw_cycle *c, struct cluster *cl, const struct api_pod *pod,
		    const struct fw_nominated *nom, struct fw_schedule_result *res)
{
	struct err e = { 0 };
	fw_cycle_reset(c);
	int rc = fw_schedule_pod(p, c, &cl->list, pod, nom, res, &e);
	if (rc < 0)
		fail_msg("fw_schedule_pod: %s", e.msg);
	return rc;
}

/* oracle: tests/fixtures/oracle/fit-balanced-no-prescore.json (examples/01-taint-and-cpu with
 * NodeResourcesFit and NodeResourcesBalancedAllocation left out of PreScore): upstream's Score
 * computes the requests itself, so scheduling succeeds with the usual scores: n1 452, n2 444,
 * best n1 (n3 tainted). The slot of NodeResourcesFit holds its PreFilter state by then. */
static void test_cycle_scores_without_pre_score(void **state)
{
	(void)state;
	struct tl_profile_spec spec = {
		.pre_filter = { "NodeResourcesFit" },
		.filter = { "TaintToleration", "NodeResourcesFit" },
		.pre_score = { "TaintToleration" },
		.score = { "TaintToleration", "NodeResourcesFit", "NodeResourcesBalancedAllocation" },
		.score_weight = { 3, 1, 1 },
	};
	struct fw_profile *p = tl_profile(&spec, NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	static struct cluster cl;
	struct api_pod *busy = TOBJ_POD(.node = "n2", .containers = { { .req = "cpu=1,memory=1Gi" } });
	cluster_add(&cl, TOBJ_NODE(.name = "n1", .alloc = "cpu=2,memory=4Gi,pods=110"), NULL, 0);
	cluster_add(&cl, TOBJ_NODE(.name = "n2", .alloc = "cpu=4,memory=8Gi,pods=110"), &busy, 1);
	cluster_add(&cl, TOBJ_NODE(.name = "n3", .alloc = "cpu=8,memory=16Gi,pods=110", .taints = "dedicated=gpu:NoSchedule"),
		    NULL, 0);
	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=500m,memory=512Mi" } });
	static struct fw_schedule_result res;
	char msg[256];
	schedule(p, c, &cl, pod, NULL, &res);
	if (res.code != FW_SUCCESS)
		fail_msg("got %s: %s", fw_code_str(res.code), fw_status_message(&res.status, msg, sizeof(msg)));
	assert_string_equal(res.suggested_host, "n1");
	assert_int_equal(res.feasible_nodes, 2);
	api_pod_unref(busy);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* The explain record (struct fw_record): it changes nothing the cycle decides, holds what the cycle
 * computed (the weighted sum of the normalized scores is the total, the chosen node has the highest
 * total, raw = normalized for a plugin without NormalizeScore), and fw_cycle_reset detaches it.
 * Expected totals: state A of tests/unit/test_scheduler_explain.c (oracle: n1 452, n2 444). */
static void test_cycle_record(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result plain, recorded;
	struct fw_profile *p = default_profile(NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	struct api_pod *busy = TOBJ_POD(.node = "n2", .containers = { { .req = "cpu=1,memory=1Gi" } });
	cluster_add(&cl, TOBJ_NODE(.name = "n1", .alloc = "cpu=2,memory=4Gi,pods=110"), NULL, 0);
	cluster_add(&cl, TOBJ_NODE(.name = "n2", .alloc = "cpu=4,memory=8Gi,pods=110"), &busy, 1);
	cluster_add(&cl, TOBJ_NODE(.name = "n3", .alloc = "cpu=8,memory=16Gi,pods=110", .taints = "dedicated=gpu:NoSchedule"),
		    NULL, 0);
	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=500m,memory=512Mi" } });
	fw_profile_rewind(p);
	schedule(p, c, &cl, pod, NULL, &plain);
	struct fw_record rec;
	fw_cycle_reset(c);
	fw_profile_rewind(p);
	fw_cycle_set_record(c, &rec);
	struct err e = { 0 };
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &recorded, &e), 0);
	assert_int_equal(recorded.code, plain.code);
	assert_string_equal(recorded.suggested_host, plain.suggested_host);
	assert_string_equal(recorded.suggested_host, "n1");
	assert_int_equal(recorded.feasible_nodes, plain.feasible_nodes);
	assert_int_equal(recorded.evaluated_nodes, plain.evaluated_nodes);
	assert_int_equal(rec.n_feasible, 2);
	assert_true(rec.scored);
	assert_false(rec.nominated_fast_path);
	assert_false(rec.randomized);
	assert_int_equal(rec.n_scored, 2);
	int64_t best = INT64_MIN;
	const char *best_node = NULL;
	for (uint32_t i = 0; i < rec.n_scored; i++) {
		int64_t sum = 0;
		for (uint32_t k = 0; k < rec.n_pl; k++) {
			size_t at = (size_t)k * rec.n_scored + i;
			if (!rec.pls[k]->plugin->normalize_score)
				assert_int_equal(rec.raw[at], rec.normalized[at]);
			assert_int_equal(rec.weight[k], fw_profile_weight(p, rec.pls[k]));
			sum += rec.normalized[at] * rec.weight[k];
		}
		assert_int_equal(sum, rec.totals[i]);
		assert_int_equal(rec.totals[i], strcmp(rec.nodes[i]->name, "n1") == 0 ? 452 : 444);
		if (rec.totals[i] > best) {
			best = rec.totals[i];
			best_node = rec.nodes[i]->name;
		}
	}
	assert_string_equal(best_node, recorded.suggested_host);
	/* reset detaches: the next cycle writes no record */
	fw_cycle_reset(c);
	rec.n_feasible = 77;
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &recorded, &e), 0);
	assert_int_equal(rec.n_feasible, 77);
	api_pod_unref(busy);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

static void test_cycle_basic(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	struct fw_profile *p = default_profile(NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	char msg[1024];

	/* no nodes */
	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=1" } });
	schedule(p, c, &cl, pod, NULL, &res);
	assert_int_equal(res.code, FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	assert_string_equal(fw_status_message(&res.status, msg, sizeof(msg)), "no nodes available to schedule pods");

	/* the least loaded node wins (LeastAllocated + BalancedAllocation) */
	struct api_pod *busy = TOBJ_POD(.node = "n1", .containers = { { .req = "cpu=3,memory=1Gi" } });
	struct api_pod *fat = TOBJ_POD(.node = "n2", .containers = { { .req = "cpu=0,memory=8Gi" } });
	cluster_add(&cl, std_node("n1", "4", NULL), &busy, 1);
	cluster_add(&cl, std_node("n2", "4", NULL), &fat, 1);
	cluster_add(&cl, std_node("n3", "4", "dedicated=x:NoSchedule"),
		    NULL, 0);
	schedule(p, c, &cl, pod, NULL, &res);
	assert_int_equal(res.code, FW_SUCCESS);
	assert_string_equal(res.suggested_host, "n2");
	assert_int_equal(res.feasible_nodes, 2);
	assert_int_equal(res.evaluated_nodes, 3);
	assert_int_equal(res.diag.n_node_status, 1);
	assert_string_equal(res.diag.node_status[0].node_name, "n3");

	/* calling again without a reset is refused */
	struct err e = { 0 };
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &res, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "already used"));

	/* fit error: histogram message and rejector plugins */
	struct api_pod *huge = TOBJ_POD(.containers = { { .req = "cpu=2,memory=10Gi" } });
	schedule(p, c, &cl, huge, NULL, &res);
	assert_int_equal(res.code, FW_UNSCHEDULABLE);
	assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
			    "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had untolerated "
			    "taint(s).");
	assert_int_equal(res.diag.n_unschedulable_plugins, 2);
	bool fit = false, taint = false;
	for (uint32_t i = 0; i < res.diag.n_unschedulable_plugins; i++) {
		fit |= strcmp(res.diag.unschedulable_plugins[i], "NodeResourcesFit") == 0;
		taint |= strcmp(res.diag.unschedulable_plugins[i], "TaintToleration") == 0;
	}
	assert_true(fit && taint);
	assert_int_equal(res.evaluated_nodes, 3);
	assert_int_equal(res.feasible_nodes, 0);

	/* PostFilter: DefaultPreemption finds no lower-priority pod; it clears the nomination.
	 * oracle: this cluster (n1 busy cpu=3, n2 fat memory=8Gi, n3 tainted) and pod huge */
	struct fw_post_filter_result pfr;
	struct fw_status st;
	assert_int_equal(fw_run_post_filter(p, c, huge, &res.diag, &pfr, &st), FW_UNSCHEDULABLE);
	assert_string_equal(res.diag.post_filter_msg, "preemption: 0/3 nodes are available: 1 Preemption is not helpful "
						      "for scheduling, 2 No preemption victims found for incoming pod.");
	assert_string_equal(pfr.nominated_node_name, "");

	/* PreFilter node set: pinned to n3 via matchFields; tolerating its taint */
	struct api_pod *pinned = TOBJ_POD(.tolerations = "dedicated", .node_affinity = "metadata.name In n3");
	schedule(p, c, &cl, pinned, NULL, &res);
	assert_int_equal(res.code, FW_SUCCESS);
	assert_string_equal(res.suggested_host, "n3");
	assert_int_equal(res.evaluated_nodes, 1);

	/* pinned to a node that does not exist: every node gets the absent status */
	struct api_pod *ghost = TOBJ_POD(.node_affinity = "metadata.name In nope");
	schedule(p, c, &cl, ghost, NULL, &res);
	assert_int_equal(res.code, FW_UNSCHEDULABLE);
	assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
			    "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity].");
	assert_int_equal(res.diag.n_unschedulable_plugins, 1);
	assert_string_equal(res.diag.unschedulable_plugins[0], "NodeAffinity");

	/* PreFilter rejection */
	struct api_pod *conflict = TOBJ_POD(.node_affinity = "metadata.name In n1; metadata.name In n2");
	schedule(p, c, &cl, conflict, NULL, &res);
	assert_int_equal(res.code, FW_UNSCHEDULABLE);
	assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
			    "0/3 nodes are available: pod affinity terms conflict.");
	assert_string_equal(res.diag.unschedulable_plugins[0], "NodeAffinity");
	assert_int_equal(res.diag.absent_status.code, FW_UNSCHEDULABLE_AND_UNRESOLVABLE);

	/* nominated node tried first: n1 is worse by score but is the pod's nominated node */
	struct api_pod *nominated = TOBJ_POD(.nominated = "n1");
	schedule(p, c, &cl, nominated, NULL, &res);
	assert_int_equal(res.code, FW_SUCCESS);
	assert_string_equal(res.suggested_host, "n1");
	assert_int_equal(res.evaluated_nodes, 1);
	/* nominated to the tainted node: its failure is recorded, the pod goes elsewhere */
	struct api_pod *nominated3 = TOBJ_POD(.nominated = "n3");
	schedule(p, c, &cl, nominated3, NULL, &res);
	assert_int_equal(res.code, FW_SUCCESS);
	assert_string_equal(res.suggested_host, "n2");
	assert_int_equal(res.diag.n_node_status, 1);
	assert_int_equal(res.evaluated_nodes, 3);

	api_pod_unref(nominated);
	api_pod_unref(nominated3);
	api_pod_unref(conflict);
	api_pod_unref(ghost);
	api_pod_unref(pinned);
	api_pod_unref(huge);
	api_pod_unref(busy);
	api_pod_unref(fat);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* Nominated pods of >= priority count on their node; lower ones do not. */
static void test_cycle_nominated_pods(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	struct fw_profile *p = default_profile(NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	cluster_add(&cl, std_node("only", "4", NULL), NULL, 0);
	struct api_pod *pod = TOBJ_POD(.priority = "10", .containers = { { .req = "cpu=3" } });
	struct api_pod *high = TOBJ_POD(.priority = "10", .containers = { { .req = "cpu=2" } });
	struct api_pod *low = TOBJ_POD(.priority = "5", .containers = { { .req = "cpu=2" } });
	const char *only = intern_str("only");
	struct fw_nominated_pod hp[] = { { only, high } }, lp[] = { { only, low } }, self[] = { { only, pod } };
	struct fw_nominated nh = { 1, hp }, nl = { 1, lp }, ns = { 1, self };
	char msg[512];

	schedule(p, c, &cl, pod, &nh, &res);
	assert_int_equal(res.code, FW_UNSCHEDULABLE);
	assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
			    "0/1 nodes are available: 1 Insufficient cpu.");
	schedule(p, c, &cl, pod, &nl, &res);
	assert_int_equal(res.code, FW_SUCCESS);
	schedule(p, c, &cl, pod, &ns, &res); /* the pod itself never counts */
	assert_int_equal(res.code, FW_SUCCESS);
	/* the node_info in the snapshot was not touched */
	assert_int_equal(cl.nis[0].n_pods, 0);
	assert_int_equal(cl.nis[0].requested.cpu, 0);

	api_pod_unref(pod);
	api_pod_unref(high);
	api_pod_unref(low);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* Without score plugins one feasible node is enough: the start index rotates over the nodes,
 * advancing by every node processed (failed ones included). */
static void test_cycle_start_index_rotation(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	struct tl_profile_spec spec = { .filter = { "TaintToleration" } };
	struct fw_profile *p = tl_profile(&spec, NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	const char *taint = "k=v:NoSchedule";
	cluster_add(&cl, std_node("bad0", "4", taint), NULL, 0);
	cluster_add(&cl, std_node("good1", "4", NULL), NULL, 0);
	cluster_add(&cl, std_node("bad2", "4", taint), NULL, 0);
	cluster_add(&cl, std_node("good3", "4", NULL), NULL, 0);
	cluster_add(&cl, std_node("good4", "4", NULL), NULL, 0);
	struct api_pod *pod = tobj_pod(NULL);
	/* As upstream, the search stops when a second feasible node turns up (it is dropped), and
	 * failures met on the way count as processed:
	 * start 0: bad0 x, good1 ok, bad2 x, good3 dropped -> good1, 3 evaluated, next 3
	 * start 3: good3 ok, good4 dropped                  -> good3, 1 evaluated, next 4
	 * start 4: good4 ok, bad0 x, good1 dropped          -> good4, 2 evaluated, next 1
	 * start 1: good1 ok, bad2 x, good3 dropped          -> good1, 2 evaluated, next 3 */
	static const char *const want[] = { "good1", "good3", "good4", "good1", "good3" };
	static const uint32_t evaluated[] = { 3, 1, 2, 2, 1 };
	for (int i = 0; i < 5; i++) {
		schedule(p, c, &cl, pod, NULL, &res);
		assert_int_equal(res.code, FW_SUCCESS);
		assert_string_equal(res.suggested_host, want[i]);
		assert_int_equal(res.evaluated_nodes, evaluated[i]);
		assert_int_equal(res.feasible_nodes, 1);
	}
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* Ties follow upstream's heap (schedule_one.go NewSortedScoredNodes(...).Pop(); Randomizer is 0
 * without extenders): 4 equal nodes, all processed, so every cycle sees a, b, c, d in that order
 * and Go's heap pops the first of equal totals (upstream TestSortedScoredNodes_Pop over equal
 * totals; tests/unit/test_algorithm_select.c "all_equal"): a, every time, on fresh profiles too. */
static void test_cycle_tie_break_heap(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	const char *names[] = { "a", "b", "c", "d" };
	for (int i = 0; i < 4; i++)
		cluster_add(&cl, std_node(names[i], "4", NULL), NULL, 0);
	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=1" } });
	for (int round = 0; round < 3; round++) {
		struct fw_profile *p = default_profile(NULL);
		struct fw_cycle *c = fw_cycle_new(p);
		for (int i = 0; i < 100; i++) {
			schedule(p, c, &cl, pod, NULL, &res);
			assert_int_equal(res.code, FW_SUCCESS);
			assert_string_equal(res.suggested_host, "a");
		}
		fw_cycle_free(c);
		fw_profile_free(p);
	}
	api_pod_unref(pod);
	cluster_release(&cl);
}

/* 500 nodes, half tainted, on a pool of 4: exactly numFeasibleNodesToFind feasible nodes, every
 * failure recorded with its reason, the same totals as inline. */
static void test_cycle_parallel(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	struct err e;
	struct fw_pool *pool = fw_pool_new(4, &e);
	assert_non_null(pool);
	const char *taint = "k=v:NoSchedule";
	for (int i = 0; i < 500; i++) {
		char name[32];
		snprintf(name, sizeof(name), "node-%03d", i);
		cluster_add(&cl, std_node(name, "4", i % 2 ? taint : NULL), NULL, 0);
	}
	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=1" } });
	uint32_t to_find = fw_num_feasible_nodes_to_find(0, 500); /* 46% of 500 = 230 */
	assert_int_equal(to_find, 230);
	for (int mode = 0; mode < 2; mode++) {
		struct fw_profile *p = default_profile(mode ? pool : NULL);
		struct fw_cycle *c = fw_cycle_new(p);
		for (int round = 0; round < 5; round++) {
			schedule(p, c, &cl, pod, NULL, &res);
			assert_int_equal(res.code, FW_SUCCESS);
			assert_int_equal(res.feasible_nodes, to_find);
			assert_int_equal(res.evaluated_nodes, to_find + res.diag.n_node_status);
			/* inline, nodes alternate: 230 feasible need 229 or 230 failures on the way */
			if (!mode)
				assert_true(res.diag.n_node_status >= 229 && res.diag.n_node_status <= 230);
			else
				assert_true(res.diag.n_node_status >= 229);
			for (uint32_t i = 0; i < res.diag.n_node_status; i++) {
				char msg[256];
				fw_status_message(res.diag.node_status[i].status, msg, sizeof(msg));
				assert_string_equal(msg, "node(s) had untolerated taint(s)");
				assert_string_equal(res.diag.node_status[i].status->plugin, "TaintToleration");
			}
			int idx = atoi(res.suggested_host + 5);
			assert_int_equal(idx % 2, 0);
		}
		/* every node fails: the full histogram, whatever the order */
		struct api_pod *pick = TOBJ_POD(.node_selector = "none=x");
		schedule(p, c, &cl, pick, NULL, &res);
		assert_int_equal(res.code, FW_UNSCHEDULABLE);
		char msg[512];
		assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
				    "0/500 nodes are available: 250 node(s) didn't match Pod's node affinity/selector, "
				    "250 node(s) had untolerated taint(s).");
		assert_int_equal(res.evaluated_nodes, 500);
		api_pod_unref(pick);
		fw_cycle_free(c);
		fw_profile_free(p);
	}
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_pool_free(pool);
}

/* Filter workers count feasible nodes in batches: the pass still keeps exactly
 * min(to_find, feasible) nodes and counts every failure it reports as evaluated; inline it stops
 * where upstream's serial loop does (at the feasible node after the to_find-th), so the
 * evaluated count and the next start index follow from the node order alone. Node i is feasible
 * iff i % feasible_every == 0 (the others are tainted). */
static void test_cycle_filter_batches(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	static const struct {
		uint32_t n, feasible_every;
		int32_t pct;
		int parallelism;
	} cases[] = {
		{ 1000, 2, 0, 1 },  { 1000, 2, 0, 2 },  { 1000, 2, 0, 16 },  { 1000, 10, 50, 1 },
		{ 1000, 10, 50, 3 }, { 1500, 1, 10, 1 }, { 1500, 1, 10, 2 }, { 300, 3, 100, 1 },
		{ 300, 3, 100, 4 },  { 150, 7, 0, 1 },  { 150, 7, 0, 2 },   { 1999, 5, 20, 16 },
	};
	const char *taint = "k=v:NoSchedule";
	struct api_pod *pod = tobj_pod(NULL);
	struct tl_profile_spec spec = {
		.filter = { "TaintToleration" }, .pre_score = { "TaintToleration" }, .score = { "TaintToleration" },
		.score_weight = { 1 }, .has_pct = true,
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint32_t n = cases[k].n, every = cases[k].feasible_every;
		for (uint32_t i = 0; i < n; i++) {
			char name[32];
			snprintf(name, sizeof(name), "n%u", i);
			cluster_add(&cl, std_node(name, "4", i % every ? taint : NULL), NULL, 0);
		}
		struct err e;
		struct fw_pool *pool = NULL;
		if (cases[k].parallelism > 1)
			assert_non_null(pool = fw_pool_new(cases[k].parallelism, &e));
		spec.pct = cases[k].pct;
		struct fw_profile *p = tl_profile(&spec, pool);
		struct fw_cycle *c = fw_cycle_new(p);
		uint32_t to_find = fw_num_feasible_nodes_to_find(cases[k].pct, n);
		uint32_t all_feasible = (n + every - 1) / every;
		uint32_t want_feasible = to_find < all_feasible ? to_find : all_feasible;
		uint32_t start = 0;
		for (int round = 0; round < 6; round++) {
			schedule(p, c, &cl, pod, NULL, &res);
			assert_int_equal(res.code, FW_SUCCESS);
			assert_int_equal(res.feasible_nodes, want_feasible);
			assert_int_equal(res.evaluated_nodes, res.feasible_nodes + res.diag.n_node_status);
			assert_true(res.diag.n_node_status <= n - all_feasible);
			assert_int_equal(atoi(res.suggested_host + 1) % every, 0);
			for (uint32_t i = 0; i < res.diag.n_node_status; i++) {
				const char *name = res.diag.node_status[i].node_name;
				if (atoi(name + 1) % every == 0)
					fail_msg("case %zu: feasible node %s reported as failed", k, name);
				assert_string_equal(res.diag.node_status[i].status->plugin, "TaintToleration");
			}
			if (cases[k].parallelism > 1)
				continue;
			/* the serial reference */
			uint32_t feasible = 0, failed = 0;
			for (uint32_t s = 0; s < n; s++) {
				uint32_t idx = (start + s) % n;
				if (idx % every) {
					failed++;
				} else if (++feasible > to_find) {
					feasible--;
					break;
				}
			}
			assert_int_equal(res.diag.n_node_status, failed);
			assert_int_equal(res.evaluated_nodes, feasible + failed);
			for (uint32_t i = 0; i < res.diag.n_node_status; i++) {
				char want[32];
				uint32_t s = (uint32_t)i, idx = start;
				/* the i-th failure in node order from start */
				for (uint32_t seen = 0;; idx = (idx + 1) % n)
					if (idx % every && seen++ == s)
						break;
				snprintf(want, sizeof(want), "n%u", idx);
				assert_string_equal(res.diag.node_status[i].node_name, want);
			}
			start = (start + feasible + failed) % n;
		}
		fw_cycle_free(c);
		fw_profile_free(p);
		fw_pool_free(pool);
		cluster_release(&cl);
	}
	api_pod_unref(pod);
}

/* A Filter error (NodePorts without its PreFilter) aborts the cycle with the plugin named, on the
 * pool as inline. */
static void test_cycle_filter_error(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	struct err e;
	struct fw_pool *pool = fw_pool_new(3, &e);
	for (int i = 0; i < 150; i++) {
		char name[32];
		snprintf(name, sizeof(name), "n%d", i);
		cluster_add(&cl, std_node(name, "4", NULL), NULL, 0);
	}
	struct tl_profile_spec spec = { .filter = { "NodeName", "NodePorts" }, .score = { "ImageLocality" } };
	struct api_pod *pod = TOBJ_POD(.containers = { { .ports = "80" } });
	for (int mode = 0; mode < 2; mode++) {
		struct fw_profile *p = tl_profile(&spec, mode ? pool : NULL);
		struct fw_cycle *c = fw_cycle_new(p);
		schedule(p, c, &cl, pod, NULL, &res);
		assert_int_equal(res.code, FW_ERROR);
		char msg[512];
		fw_status_message(&res.status, msg, sizeof(msg));
		assert_string_equal(msg, "running \"NodePorts\" filter plugin: reading \"PreFilterNodePorts\" from "
					 "cycleState: not found");
		assert_string_equal(res.status.plugin, "NodePorts");
		fw_cycle_free(c);
		fw_profile_free(p);
	}
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_pool_free(pool);
}

/* Many cycles whose scratch memory outgrows the cycle arena's first block: memory stays bounded
 * (a reset arena must not keep doubling its next block). 2000 nodes, all scored. */
static void test_cycle_many_cycles(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	for (int i = 0; i < 2000; i++) {
		char name[32];
		snprintf(name, sizeof(name), "m%d", i);
		cluster_add(&cl, std_node(name, "4", NULL), NULL, 0);
	}
	struct fw_profile_config pc;
	fw_default_profile_config("all", &pc);
	pc.has_percentage_of_nodes_to_score = true;
	pc.percentage_of_nodes_to_score = 100;
	struct err e;
	struct fw_profile_options o = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	assert_non_null(p);
	struct fw_cycle *c = fw_cycle_new(p);
	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=1" } });
	for (int i = 0; i < 80; i++) {
		schedule(p, c, &cl, pod, NULL, &res);
		assert_int_equal(res.code, FW_SUCCESS);
		assert_int_equal(res.feasible_nodes, 2000);
	}
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* ---------- binding helpers ---------- */

struct bind_rec {
	int calls;
	char node[64];
	int fail;
};

static int bind_cb(void *ctx, const struct api_pod *pod, const char *node, struct err *e)
{
	struct bind_rec *r = ctx;
	(void)pod;
	r->calls++;
	snprintf(r->node, sizeof(r->node), "%s", node);
	if (r->fail)
		return err_set(e, ERR_CONFLICT, "pods \"p\" binding: conflict");
	return 0;
}

static void test_binding_helpers(void **state)
{
	(void)state;
	struct bind_rec rec = { 0 };
	struct fw_profile_config pc;
	fw_default_profile_config("b", &pc);
	struct fw_profile_options o = { .bind = bind_cb, .bind_ctx = &rec };
	struct err e;
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	assert_non_null(p);
	struct fw_cycle *c = fw_cycle_new(p);
	struct api_pod *pod = tobj_pod(NULL);
	struct fw_status st;
	int64_t timeout = -1;
	assert_int_equal(fw_run_reserve(p, c, pod, "n1", &st), FW_SUCCESS);
	assert_int_equal(fw_run_permit(p, c, pod, "n1", &timeout, &st), FW_SUCCESS);
	assert_int_equal(timeout, 0);
	assert_int_equal(fw_run_pre_bind(p, c, pod, "n1", &st), FW_SUCCESS);
	assert_int_equal(fw_run_bind(p, c, pod, "n1", &st), FW_SUCCESS);
	assert_int_equal(rec.calls, 1);
	assert_string_equal(rec.node, "n1");
	fw_run_post_bind(p, c, pod, "n1");
	fw_run_unreserve(p, c, pod, "n1");
	rec.fail = 1;
	assert_int_equal(fw_run_bind(p, c, pod, "n2", &st), FW_ERROR);
	char msg[512];
	assert_string_equal(fw_status_message(&st, msg, sizeof(msg)),
			    "running Bind plugin \"DefaultBinder\": pods \"p\" binding: conflict");
	assert_string_equal(st.plugin, "DefaultBinder");
	/* no callback configured: an error naming the profile */
	struct fw_profile *nob = fw_profile_new(&pc, NULL, &e);
	assert_int_equal(fw_run_bind(nob, c, pod, "n1", &st), FW_ERROR);
	assert_non_null(strstr(st.text, "no bind callback"));
	fw_profile_free(nob);

	/* cycle state: slots, arena, cleanups run on reset and free (valgrind checks the frees) */
	const struct fw_pl *pl = fw_profile_plugins(p, CFG_EP_FILTER, &(uint32_t){ 0 })[0];
	int *data = fw_cycle_alloc(c, sizeof(int));
	*data = 42;
	fw_cycle_set_state(c, pl, data);
	assert_ptr_equal(fw_cycle_state(c, pl), data);
	assert_int_equal(fw_cycle_on_release(c, free, malloc(16)), 0);
	fw_cycle_reset(c);
	assert_null(fw_cycle_state(c, pl));
	assert_int_equal(fw_cycle_on_release(c, free, malloc(32)), 0);
	api_pod_unref(pod);
	fw_cycle_free(c);
	fw_cycle_free(NULL);
	fw_profile_free(p);
}

/* ---------- timings (metrics) ---------- */

struct timing_log {
	int n_ep, n_pl;
	struct fw_ep_timing ep[32];
	struct fw_plugin_timing pl[64];
};

static void log_ep(void *ctx, const struct fw_ep_timing *t)
{
	struct timing_log *l = ctx;
	assert_true(l->n_ep < 32);
	l->ep[l->n_ep++] = *t;
}

static void log_plugin(void *ctx, const struct fw_plugin_timing *t)
{
	struct timing_log *l = ctx;
	assert_true(l->n_pl < 64);
	l->pl[l->n_pl++] = *t;
}

static void drain(struct fw_cycle *c, struct timing_log *l)
{
	memset(l, 0, sizeof(*l));
	struct fw_timing_sink sink = { l, log_ep, log_plugin };
	fw_cycle_drain_timings(c, &sink);
}

/* The extension points recorded, in order: "PreFilter:Success Filter:Success ...". */
static const char *ep_list(const struct timing_log *l)
{
	static char buf[512];
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < l->n_ep; i++) {
		assert_true(l->ep[i].ns >= 0);
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s:%s", i ? " " : "", fw_ep_str(l->ep[i].ep),
					fw_code_str(l->ep[i].code));
	}
	return buf;
}

/* Calls of plugin at ep that returned code (0 when none was recorded). */
static uint64_t calls(const struct timing_log *l, const char *plugin, enum fw_ep ep, enum fw_code code)
{
	for (int i = 0; i < l->n_pl; i++)
		if (strcmp(l->pl[i].plugin, plugin) == 0 && l->pl[i].ep == ep && l->pl[i].code == code)
			return l->pl[i].count;
	return 0;
}

/* Every extension point is timed in every cycle with the status upstream reports; a sampled cycle
 * also counts every plugin call (each Filter and Score call on each node), binned in upstream's
 * buckets; drained timings are gone; a reset turns sampling off. Inline and on a pool. */
static void test_cycle_timings(void **state)
{
	(void)state;
	static struct cluster cl;
	static struct fw_schedule_result res;
	struct timing_log *l = calloc(1, sizeof(*l));
	struct bind_rec rec = { 0 };
	struct err e = { 0 };
	struct fw_pool *pool = fw_pool_new(2, &e);
	assert_non_null(pool);
	const char *taint = "k=v:NoSchedule";
	for (int i = 0; i < 60; i++) { /* under 100 nodes every node is evaluated */
		char name[32];
		snprintf(name, sizeof(name), "t%d", i);
		cluster_add(&cl, std_node(name, "4", i % 3 == 0 ? taint : NULL), NULL, 0);
	}
	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=1" } });
	const double *bounds = fw_plugin_timing_bounds();
	assert_true(bounds[0] == 0.00001 && bounds[1] == 0.00001 * 1.5);
	assert_true(bounds[FW_PLUGIN_TIMING_BUCKETS - 1] > 0.022 && bounds[FW_PLUGIN_TIMING_BUCKETS - 1] < 0.0222);
	{
		/* a call lands where the metrics put its seconds ("le": the first bound >= them): ticks
		 * around each bound, converted as the framework converts them; 0 in the first bucket,
		 * a second above them all */
		struct fw_profile *bp = default_profile(NULL);
		struct fw_cycle *bc = fw_cycle_new(bp);
		const struct fw_pl *pls[1] = { tl_pl(bp, "NodeResourcesFit") };
		enum { PER = 4 };
		uint32_t ns[PER * FW_PLUGIN_TIMING_BUCKETS + 2];
		uint8_t code[PER * FW_PLUGIN_TIMING_BUCKETS + 2];
		uint64_t want[FW_PLUGIN_TIMING_BUCKETS + 1] = { 0 }, want_ticks = 0;
		double f = fw_ns_per_tick();
		assert_true(f > 0.01 && f < 100);
		size_t n = 0;
		for (int i = 0; i < FW_PLUGIN_TIMING_BUCKETS + 1; i++) {
			uint32_t base = i < FW_PLUGIN_TIMING_BUCKETS ? (uint32_t)(bounds[i] * 1e9 / f) : 0;
			for (int d = 0; d < (i < FW_PLUGIN_TIMING_BUCKETS ? PER : 1); d++) {
				uint32_t t = i < FW_PLUGIN_TIMING_BUCKETS ? base - 1 + (uint32_t)d : (uint32_t)(1e9 / f);
				int64_t v = (int64_t)((double)t * f + 0.5);
				int b = 0;
				while (b < FW_PLUGIN_TIMING_BUCKETS && (double)v / 1e9 > bounds[b])
					b++;
				ns[n++] = t;
				want[b]++;
				want_ticks += t;
			}
		}
		ns[n++] = 0;
		want[0]++;
		memset(code, FW_SUCCESS, n);
		fw_cycle_set_record_plugin_timings(bc, true);
		fw_cycle_record_calls(bc, FW_EP_FILTER, pls, 1, ns, code, n, n);
		drain(bc, l);
		assert_int_equal(l->n_pl, 1);
		assert_int_equal(l->pl[0].count, n);
		for (int b = 0; b <= FW_PLUGIN_TIMING_BUCKETS; b++)
			if (l->pl[0].buckets[b] != want[b])
				fail_msg("bucket %d: %llu calls, want %llu", b, (unsigned long long)l->pl[0].buckets[b],
					 (unsigned long long)want[b]);
		assert_true(fabs(l->pl[0].sum_s - (double)want_ticks * f / 1e9) < 1e-9);
		fw_cycle_free(bc);
		fw_profile_free(bp);
	}
	for (int mode = 0; mode < 2; mode++) {
		struct fw_profile_config pc;
		fw_default_profile_config("timed", &pc);
		struct fw_profile_options o = { .pool = mode ? pool : NULL, .bind = bind_cb, .bind_ctx = &rec };
		struct fw_profile *p = fw_profile_new(&pc, &o, &e);
		assert_non_null(p);
		struct fw_cycle *c = fw_cycle_new(p);

		/* unsampled: the points, no plugin timings */
		schedule(p, c, &cl, pod, NULL, &res);
		assert_int_equal(res.code, FW_SUCCESS);
		drain(c, l);
		assert_string_equal(ep_list(l), "PreFilter:Success Filter:Success PreScore:Success Score:Success");
		assert_int_equal(l->n_pl, 0);
		drain(c, l); /* drained means gone */
		assert_int_equal(l->n_ep + l->n_pl, 0);
		struct fw_status st;
		int64_t timeout;
		assert_int_equal(fw_run_reserve(p, c, pod, res.suggested_host, &st), FW_SUCCESS);
		assert_int_equal(fw_run_permit(p, c, pod, res.suggested_host, &timeout, &st), FW_SUCCESS);
		assert_int_equal(fw_run_pre_bind(p, c, pod, res.suggested_host, &st), FW_SUCCESS);
		assert_int_equal(fw_run_bind(p, c, pod, res.suggested_host, &st), FW_SUCCESS);
		fw_run_post_bind(p, c, pod, res.suggested_host);
		fw_run_unreserve(p, c, pod, res.suggested_host);
		drain(c, l);
		assert_string_equal(ep_list(l), "Reserve:Success Permit:Success PreBind:Success Bind:Success "
						"PostBind:Success Unreserve:Success");

		/* sampled: one observation per plugin call */
		fw_cycle_reset(c);
		fw_cycle_set_record_plugin_timings(c, true);
		assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &res, &e), 0);
		assert_int_equal(res.code, FW_SUCCESS);
		assert_int_equal(res.feasible_nodes, 40);
		assert_int_equal(res.diag.n_node_status, 20);
		assert_int_equal(fw_run_bind(p, c, pod, res.suggested_host, &st), FW_SUCCESS);
		drain(c, l);
		assert_string_equal(ep_list(l), "PreFilter:Success Filter:Success PreScore:Success Score:Success "
						"Bind:Success");
		assert_int_equal(calls(l, "TaintToleration", FW_EP_FILTER, FW_SUCCESS), 40);
		assert_int_equal(calls(l, "TaintToleration", FW_EP_FILTER, FW_UNSCHEDULABLE_AND_UNRESOLVABLE), 20);
		assert_int_equal(calls(l, "NodeResourcesFit", FW_EP_PRE_FILTER, FW_SUCCESS), 1);
		assert_int_equal(calls(l, "DefaultBinder", FW_EP_BIND, FW_SUCCESS), 1);
		uint32_t n_score;
		const struct fw_pl *const *score = fw_profile_plugins(p, CFG_EP_SCORE, &n_score);
		uint32_t scored = 0;
		for (uint32_t k = 0; k < n_score; k++) {
			uint64_t n = calls(l, score[k]->plugin->name, FW_EP_SCORE, FW_SUCCESS);
			assert_true(n == 0 || n == 40); /* skipped by PreScore, or once per feasible node */
			scored += n == 40;
		}
		assert_true(scored >= 3);
		assert_int_equal(calls(l, "NodeResourcesFit", FW_EP_SCORE, FW_SUCCESS), 40);
		assert_int_equal(calls(l, "TaintToleration", FW_EP_SCORE_NORMALIZE, FW_SUCCESS), 1);
		for (int i = 0; i < l->n_pl; i++) {
			uint64_t sum = 0;
			for (int b = 0; b <= FW_PLUGIN_TIMING_BUCKETS; b++)
				sum += l->pl[i].buckets[b];
			assert_int_equal(sum, l->pl[i].count);
			assert_true(l->pl[i].count > 0 && l->pl[i].sum_s >= 0 && l->pl[i].sum_s < 10);
		}

		/* a reset ends the sample */
		schedule(p, c, &cl, pod, NULL, &res);
		drain(c, l);
		assert_int_equal(l->n_ep, 4);
		assert_int_equal(l->n_pl, 0);

		/* PreFilter's rejection code; undrained timings die with the reset */
		struct api_pod *conflict = TOBJ_POD(.node_affinity = "metadata.name In t1; metadata.name In t2");
		schedule(p, c, &cl, conflict, NULL, &res);
		assert_int_equal(res.code, FW_UNSCHEDULABLE);
		drain(c, l);
		assert_string_equal(ep_list(l), "PreFilter:UnschedulableAndUnresolvable");
		schedule(p, c, &cl, pod, NULL, &res);
		fw_cycle_reset(c);
		drain(c, l);
		assert_int_equal(l->n_ep + l->n_pl, 0);
		api_pod_unref(conflict);
		fw_cycle_free(c);
		fw_profile_free(p);
	}

	/* a Filter error is the Filter point's status */
	struct tl_profile_spec spec = { .filter = { "NodeName", "NodePorts" }, .score = { "ImageLocality" } };
	struct fw_profile *p = tl_profile(&spec, pool);
	struct fw_cycle *c = fw_cycle_new(p);
	struct api_pod *ports = TOBJ_POD(.containers = { { .ports = "80" } });
	fw_cycle_reset(c);
	fw_cycle_set_record_plugin_timings(c, true);
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, ports, NULL, &res, &e), 0);
	assert_int_equal(res.code, FW_ERROR);
	drain(c, l);
	assert_string_equal(ep_list(l), "PreFilter:Success Filter:Error");
	assert_true(calls(l, "NodePorts", FW_EP_FILTER, FW_ERROR) >= 1);
	api_pod_unref(ports);
	fw_cycle_free(c);
	fw_profile_free(p);
	cluster_release(&cl);

	/* nominated pods: both passes on the node are calls */
	p = default_profile(pool);
	c = fw_cycle_new(p);
	cluster_add(&cl, std_node("only", "4", NULL), NULL, 0);
	struct api_pod *high = TOBJ_POD(.priority = "10", .containers = { { .req = "cpu=1" } });
	struct fw_nominated_pod hp[] = { { intern_str("only"), high } };
	struct fw_nominated nh = { 1, hp };
	fw_cycle_reset(c);
	fw_cycle_set_record_plugin_timings(c, true);
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, &nh, &res, &e), 0);
	assert_int_equal(res.code, FW_SUCCESS);
	drain(c, l);
	assert_int_equal(calls(l, "TaintToleration", FW_EP_FILTER, FW_SUCCESS), 2);
	assert_int_equal(calls(l, "NodeResourcesFit", FW_EP_FILTER, FW_SUCCESS), 2);
	api_pod_unref(high);
	fw_cycle_free(c);
	fw_profile_free(p);

	api_pod_unref(pod);
	cluster_release(&cl);
	fw_pool_free(pool);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_num_feasible_nodes_to_find),
		cmocka_unit_test(test_default_normalize_score),
		cmocka_unit_test(test_fit_error_message),
		cmocka_unit_test(test_profile_building),
		cmocka_unit_test(test_default_profile_matches_config),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_pool_handover),
		cmocka_unit_test(test_pool_worker_index),
		cmocka_unit_test(test_cycle_basic),
		cmocka_unit_test(test_cycle_record),
		cmocka_unit_test(test_cycle_scores_without_pre_score),
		cmocka_unit_test(test_cycle_nominated_pods),
		cmocka_unit_test(test_cycle_start_index_rotation),
		cmocka_unit_test(test_cycle_tie_break_heap),
		cmocka_unit_test(test_cycle_parallel),
		cmocka_unit_test(test_cycle_filter_batches),
		cmocka_unit_test(test_cycle_filter_error),
		cmocka_unit_test(test_cycle_many_cycles),
		cmocka_unit_test(test_binding_helpers),
		cmocka_unit_test(test_cycle_timings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
