/* csched explain (scheduler/explain.c) on a scheduler that is never started (no server): nodes and
 * pods reach its cache, queue and pod store through the informers' watch-line seam, as watch
 * events would. Checks the JSON schema (docs/explain.md: every member, its type) and the recorded
 * decision against upstream's, from the oracle (tests/oracle, upstream v1.37.2's own scheduler code,
 * default configuration) on the states named below:
 *  - state A (tests/fixtures/oracle/fit-balanced-no-prescore.json without its config): n1 cpu 2,
 *    n2 cpu 4 with a 1-cpu pod, n3 tainted; the pod asks 500m: n3 rejected by TaintToleration
 *    (UnschedulableAndUnresolvable), n1 452 (TaintToleration 300, NodeResourcesFit 81,
 *    NodeResourcesBalancedAllocation 71), n2 444 (300, 71, 73), best n1;
 *  - state B: the same pod asking 4 cpus: message "0/3 nodes are available: 1 node(s) had
 *    untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 No
 *    preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.";
 *  - state C: n2 like n1 and empty: n1 and n2 both 452, best [n1 n2] (a tie).
 *  - state D: state B with the pod at priority 100: DefaultPreemption would nominate n2, evicting
 *    default/busy; message "... 2 Insufficient cpu. preemption: found a potential placement for pod
 *    on node n2, preempting 1 victims".
 *  - state E: state A's pod pinned by node affinity (matchFields metadata.name In [nope]): every
 *    node "node(s) didn't satisfy plugin(s) [NodeAffinity]" (no plugin: PreFilter's narrowing),
 *    message "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity].
 *    preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
 *  - state F: state A's pod with status.nominatedNodeName n2: upstream selects n2 (its
 *    evaluateNominatedNode), though n1 scores higher; no other node is evaluated.
 * A bound pod is explained as if pending: the pod of state A bound to n1 gets state A's answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "algorithm/framework.h"
#include "apiclient/informer_internal.h"
#include "common/intern.h"
#include "config/config.h"
#include "scheduler/explain.h"
#include "scheduler/sched_internal.h"

struct fixture {
	struct api_client *client;
	struct scheduler *s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err e = { 0 };
	struct api_config cfg = { 0 };
	cfg.server = strdup("http://127.0.0.1:1"); /* never contacted: nothing is started */
	assert_int_equal(api_global_init(&e), 0);
	f->client = api_client_new(&cfg, &e);
	assert_non_null(f->client);
	struct sched_options o = { .client = f->client, .binders = 1 };
	f->s = sched_new(&o, &e);
	if (!f->s)
		fail_msg("sched_new: %s", e.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	sched_free(f->s);
	api_client_free(f->client);
	free(f);
	return 0;
}

static void event(struct api_informer *inf, const char *object)
{
	char line[4096];
	unsigned long events = 0;
	struct err e = { 0 };
	int n = snprintf(line, sizeof(line), "{\"type\":\"ADDED\",\"object\":%s}", object);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	if (api__inf_watch_line(inf, line, (size_t)n, &events, &e))
		fail_msg("ADDED: %s", e.msg);
	assert_int_equal(events, 1);
}

static void node(struct fixture *f, const char *name, const char *zone, const char *cpu, const char *mem, bool tainted)
{
	char obj[1024];
	snprintf(obj, sizeof(obj),
		 "{\"metadata\":{\"name\":\"%s\",\"uid\":\"uid-%s\",\"resourceVersion\":\"1\",\"labels\":{"
		 "\"kubernetes.io/hostname\":\"%s\",\"topology.kubernetes.io/zone\":\"%s\"}},\"spec\":{\"taints\":[%s]},"
		 "\"status\":{\"allocatable\":{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"110\"}}}",
		 name, name, name, zone, tainted ? "{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}" : "",
		 cpu, mem);
	event(f->s->node_inf, obj);
}

static void pod(struct fixture *f, const char *name, const char *node_name, const char *cpu, const char *mem,
		const char *image)
{
	char obj[1024];
	snprintf(obj, sizeof(obj),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"uid-%s\",\"resourceVersion\":\"2\"},"
		 "\"spec\":{\"schedulerName\":\"csched\",\"nodeName\":\"%s\",\"containers\":[{\"name\":\"c\","
		 "\"image\":\"%s\",\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":\"%s\"}}}]},"
		 "\"status\":{\"phase\":\"%s\"}}",
		 name, name, node_name, image, cpu, mem, node_name[0] ? "Running" : "Pending");
	event(f->s->pod_inf, obj);
}

/* State A's cluster (the pod aside). */
static void state_a_nodes(struct fixture *f)
{
	node(f, "n1", "a", "2", "4Gi", false);
	node(f, "n2", "b", "4", "8Gi", false);
	node(f, "n3", "b", "8", "16Gi", true);
	pod(f, "busy", "n2", "1", "1Gi", "busybox");
}

static yajl_val explain(struct fixture *f, const char *name, const char *only)
{
	struct sched_explain_request rq = { "default", name, only, SCHED_EXPLAIN_JSON };
	char *text = NULL, why[256];
	size_t len = 0;
	struct err e = { 0 };
	if (sched_explain(f->s, &rq, &text, &len, &e) < 0)
		fail_msg("explain: %s", e.msg);
	assert_int_equal(strlen(text), len);
	yajl_val v = yajl_tree_parse(text, why, sizeof(why));
	if (!v)
		fail_msg("not JSON: %s\n%s", why, text);
	free(text);
	return v;
}

static yajl_val get(yajl_val v, const char *a, const char *b)
{
	const char *path[] = { a, b, NULL };
	return yajl_tree_get(v, path, yajl_t_any);
}

static const char *str(yajl_val v, const char *a, const char *b)
{
	yajl_val s = get(v, a, b);
	return s && YAJL_IS_STRING(s) ? YAJL_GET_STRING(s) : NULL;
}

static long long num(yajl_val v, const char *a, const char *b)
{
	yajl_val n = get(v, a, b);
	if (!n || !YAJL_IS_INTEGER(n))
		fail_msg("%s.%s: not an integer", a, b ? b : "");
	return YAJL_GET_INTEGER(n);
}

static yajl_val node_result(yajl_val root, const char *name)
{
	yajl_val arr = get(root, "nodeResults", NULL);
	assert_true(arr && YAJL_IS_ARRAY(arr));
	for (size_t i = 0; i < arr->u.array.len; i++)
		if (strcmp(str(arr->u.array.values[i], "name", NULL), name) == 0)
			return arr->u.array.values[i];
	return NULL;
}

/* ---------- Schema ---------- */

enum jt { J_STR, J_INT, J_BOOL, J_ARR, J_OBJ, J_STR_OR_NULL, J_OBJ_OR_NULL };

static bool has_type(yajl_val v, enum jt t)
{
	switch (t) {
	case J_STR: return v && YAJL_IS_STRING(v);
	case J_INT: return v && YAJL_IS_INTEGER(v);
	case J_BOOL: return v && (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v));
	case J_ARR: return v && YAJL_IS_ARRAY(v);
	case J_OBJ: return v && YAJL_IS_OBJECT(v);
	case J_STR_OR_NULL: return v && (YAJL_IS_STRING(v) || YAJL_IS_NULL(v));
	case J_OBJ_OR_NULL: return v && (YAJL_IS_OBJECT(v) || YAJL_IS_NULL(v));
	}
	return false;
}

/* docs/explain.md, member by member */
static const struct {
	const char *a, *b;
	enum jt t;
} schema[] = {
	{ "apiVersion", NULL, J_STR },
	{ "kind", NULL, J_STR },
	{ "pod", "namespace", J_STR },
	{ "pod", "name", J_STR },
	{ "pod", "uid", J_STR },
	{ "pod", "schedulerName", J_STR },
	{ "pod", "nodeName", J_STR_OR_NULL },
	{ "pod", "heldBy", J_STR_OR_NULL },
	{ "pod", "nominatedNodeName", J_STR_OR_NULL },
	{ "profile", NULL, J_STR },
	{ "nodes", NULL, J_INT },
	{ "result", "code", J_STR },
	{ "result", "chosenNode", J_STR_OR_NULL },
	{ "result", "ties", J_ARR },
	{ "result", "feasibleNodes", J_INT },
	{ "result", "evaluatedNodes", J_INT },
	{ "result", "scored", J_BOOL },
	{ "result", "nominatedFastPath", J_BOOL },
	{ "result", "randomizedTieBreak", J_BOOL },
	{ "result", "message", J_STR },
	{ "result", "preFilterMessage", J_STR_OR_NULL },
	{ "result", "unschedulablePlugins", J_ARR },
	{ "postFilter", NULL, J_OBJ_OR_NULL },
	{ "scorePlugins", NULL, J_ARR },
	{ "nodeResults", NULL, J_ARR },
	{ "summary", NULL, J_ARR },
};

static void check_schema(yajl_val root)
{
	assert_true(YAJL_IS_OBJECT(root));
	for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++)
		if (!has_type(get(root, schema[i].a, schema[i].b), schema[i].t))
			fail_msg("%s%s%s: missing or of the wrong type", schema[i].a, schema[i].b ? "." : "",
				 schema[i].b ? schema[i].b : "");
	assert_string_equal(str(root, "apiVersion", NULL), "csched.io/v1alpha1");
	assert_string_equal(str(root, "kind", NULL), "Explanation");
	yajl_val rows = get(root, "nodeResults", NULL);
	for (size_t i = 0; i < rows->u.array.len; i++) {
		yajl_val r = rows->u.array.values[i];
		assert_true(has_type(get(r, "name", NULL), J_STR));
		const char *v = str(r, "verdict", NULL);
		assert_non_null(v);
		if (strcmp(v, "Rejected") == 0) {
			assert_true(has_type(get(r, "plugin", NULL), J_STR_OR_NULL));
			assert_true(has_type(get(r, "code", NULL), J_STR));
			assert_true(has_type(get(r, "reasons", NULL), J_ARR));
			assert_true(has_type(get(r, "details", NULL), J_ARR));
		} else if (strcmp(v, "Feasible") == 0) {
			assert_true(has_type(get(r, "chosen", NULL), J_BOOL));
			assert_true(has_type(get(r, "tie", NULL), J_BOOL));
			yajl_val sc = get(r, "scores", NULL);
			if (sc) {
				assert_true(has_type(sc, J_ARR));
				for (size_t k = 0; k < sc->u.array.len; k++) {
					yajl_val s = sc->u.array.values[k];
					assert_true(has_type(get(s, "plugin", NULL), J_STR));
					assert_true(has_type(get(s, "raw", NULL), J_INT));
					assert_true(has_type(get(s, "normalized", NULL), J_INT));
					assert_true(has_type(get(s, "weight", NULL), J_INT));
					assert_true(has_type(get(s, "weighted", NULL), J_INT));
				}
				assert_true(has_type(get(r, "total", NULL), J_INT));
				assert_true(has_type(get(r, "extenderScore", NULL), J_INT));
			}
		} else {
			assert_string_equal(v, "NotEvaluated");
		}
	}
	yajl_val sum = get(root, "summary", NULL);
	for (size_t i = 0; i < sum->u.array.len; i++) {
		yajl_val g = sum->u.array.values[i];
		assert_true(has_type(get(g, "reason", NULL), J_STR));
		assert_true(has_type(get(g, "count", NULL), J_INT));
		assert_true(has_type(get(g, "nodes", NULL), J_ARR));
		assert_int_equal(get(g, "nodes", NULL)->u.array.len, num(g, "count", NULL));
	}
}

/* ---------- State A: scores (oracle) ---------- */

/* oracle, state A: nodes.<n>.scores (normalized x weight) of every plugin upstream ran; csched
 * runs the same plugins but skips those that score 0 on every node (DynamicResources,
 * VolumeBinding, ImageLocality here): those must be absent or 0. */
static const struct {
	const char *node, *plugin;
	long long raw, weighted;
} state_a_scores[] = {
	{ "n1", "TaintToleration", 0, 300 },
	{ "n1", "NodeResourcesFit", 81, 81 },
	{ "n1", "NodeResourcesBalancedAllocation", 71, 71 },
	{ "n2", "TaintToleration", 0, 300 },
	{ "n2", "NodeResourcesFit", 71, 71 },
	{ "n2", "NodeResourcesBalancedAllocation", 73, 73 },
};

static void check_state_a(yajl_val root)
{
	check_schema(root);
	assert_string_equal(str(root, "result", "code"), "Success");
	assert_string_equal(str(root, "result", "chosenNode"), "n1"); /* oracle: best [n1] */
	assert_int_equal(num(root, "result", "feasibleNodes"), 2);
	assert_int_equal(get(root, "result", "ties")->u.array.len, 1);
	assert_true(YAJL_IS_TRUE(get(root, "result", "scored")));
	yajl_val n3 = node_result(root, "n3");
	assert_string_equal(str(n3, "verdict", NULL), "Rejected");
	assert_string_equal(str(n3, "plugin", NULL), "TaintToleration");
	assert_string_equal(str(n3, "code", NULL), "UnschedulableAndUnresolvable");
	assert_string_equal(YAJL_GET_STRING(get(n3, "reasons", NULL)->u.array.values[0]), "node(s) had untolerated taint(s)");
	/* TaintToleration has no explain callback: no details beyond its reasons */
	assert_int_equal(get(n3, "details", NULL)->u.array.len, 0);
	static const struct {
		const char *node;
		long long total;
	} totals[] = { { "n1", 452 }, { "n2", 444 } };
	for (size_t i = 0; i < 2; i++) {
		yajl_val r = node_result(root, totals[i].node);
		assert_string_equal(str(r, "verdict", NULL), "Feasible");
		assert_int_equal(num(r, "total", NULL), totals[i].total);
		assert_int_equal(num(r, "extenderScore", NULL), 0);
		assert_int_equal(YAJL_IS_TRUE(get(r, "chosen", NULL)), i == 0);
		yajl_val sc = get(r, "scores", NULL);
		size_t matched = 0;
		for (size_t k = 0; k < sc->u.array.len; k++) {
			yajl_val s = sc->u.array.values[k];
			const char *pl = str(s, "plugin", NULL);
			long long raw = num(s, "raw", NULL), norm = num(s, "normalized", NULL), w = num(s, "weight", NULL),
				  wd = num(s, "weighted", NULL);
			assert_int_equal(norm * w, wd);
			bool found = false;
			for (size_t x = 0; x < sizeof(state_a_scores) / sizeof(state_a_scores[0]); x++)
				if (!strcmp(state_a_scores[x].node, totals[i].node) && !strcmp(state_a_scores[x].plugin, pl)) {
					found = true;
					matched++;
					if (raw != state_a_scores[x].raw || wd != state_a_scores[x].weighted)
						fail_msg("%s %s: raw %lld weighted %lld, upstream %lld %lld", totals[i].node, pl,
							 raw, wd, state_a_scores[x].raw, state_a_scores[x].weighted);
				}
			if (!found && wd != 0)
				fail_msg("%s %s: weighted %lld, upstream 0", totals[i].node, pl, wd);
		}
		assert_int_equal(matched, 3);
	}
}

static void test_state_a_scores(void **state)
{
	struct fixture *f = *state;
	state_a_nodes(f);
	pod(f, "incoming", "", "500m", "512Mi", "nginx");
	yajl_val root = explain(f, "incoming", NULL);
	check_state_a(root);
	assert_true(YAJL_IS_NULL(get(root, "pod", "nodeName")));
	assert_true(YAJL_IS_NULL(get(root, "postFilter", NULL)));
	/* the same state explained again gives the same answer (the start index is rewound) */
	yajl_val again = explain(f, "incoming", NULL);
	check_state_a(again);
	yajl_tree_free(again);
	/* --node: that node's row only */
	yajl_val one = explain(f, "incoming", "n2");
	assert_int_equal(get(one, "nodeResults", NULL)->u.array.len, 1);
	assert_string_equal(str(get(one, "nodeResults", NULL)->u.array.values[0], "name", NULL), "n2");
	yajl_tree_free(one);
	yajl_tree_free(root);
}

/* The pod of state A bound to n1: explained as if pending, so n1 must not count it (else n1 would
 * hold 500m more and score lower than 452). */
static void test_bound_pod_taken_off_its_node(void **state)
{
	struct fixture *f = *state;
	state_a_nodes(f);
	pod(f, "incoming", "n1", "500m", "512Mi", "nginx");
	assert_int_equal(sched_cache_node_pods(f->s, "n1"), 1);
	yajl_val root = explain(f, "incoming", NULL);
	check_state_a(root);
	assert_string_equal(str(root, "pod", "nodeName"), "n1");
	assert_string_equal(str(root, "pod", "heldBy"), "n1");
	/* no PostFilter for a bound pod, and the cache is untouched */
	assert_true(YAJL_IS_NULL(get(root, "postFilter", NULL)));
	assert_int_equal(sched_cache_node_pods(f->s, "n1"), 1);
	yajl_tree_free(root);
}

/* ---------- State B: the FailedScheduling message (oracle) ---------- */

static void test_state_b_message(void **state)
{
	struct fixture *f = *state;
	state_a_nodes(f);
	pod(f, "incoming", "", "4", "512Mi", "nginx");
	yajl_val root = explain(f, "incoming", NULL);
	check_schema(root);
	assert_string_equal(str(root, "result", "code"), "Unschedulable");
	assert_true(YAJL_IS_NULL(get(root, "result", "chosenNode")));
	assert_string_equal(str(root, "result", "message"),
			    "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: "
			    "0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not "
			    "helpful for scheduling.");
	static const struct {
		const char *node, *plugin, *code;
	} rows[] = { { "n1", "NodeResourcesFit", "UnschedulableAndUnresolvable" },
		     { "n2", "NodeResourcesFit", "Unschedulable" },
		     { "n3", "TaintToleration", "UnschedulableAndUnresolvable" } };
	for (size_t i = 0; i < 3; i++) {
		yajl_val r = node_result(root, rows[i].node);
		assert_string_equal(str(r, "verdict", NULL), "Rejected");
		assert_string_equal(str(r, "plugin", NULL), rows[i].plugin);
		assert_string_equal(str(r, "code", NULL), rows[i].code);
	}
	/* the summary is the message's histogram */
	yajl_val sum = get(root, "summary", NULL);
	assert_int_equal(sum->u.array.len, 2);
	assert_string_equal(str(sum->u.array.values[0], "reason", NULL), "Insufficient cpu");
	assert_int_equal(num(sum->u.array.values[0], "count", NULL), 2);
	assert_string_equal(str(sum->u.array.values[1], "reason", NULL), "node(s) had untolerated taint(s)");
	assert_int_equal(num(sum->u.array.values[1], "count", NULL), 1);
	/* the dry preemption found no candidate: its message, nothing nominated */
	yajl_val pf = get(root, "postFilter", NULL);
	assert_true(YAJL_IS_OBJECT(pf));
	assert_string_equal(str(pf, "code", NULL), "Unschedulable");
	assert_true(YAJL_IS_NULL(get(pf, "nominatedNode", NULL)));
	yajl_val plugins = get(root, "result", "unschedulablePlugins");
	assert_int_equal(plugins->u.array.len, 2);
	assert_string_equal(YAJL_GET_STRING(plugins->u.array.values[0]), "NodeResourcesFit");
	assert_string_equal(YAJL_GET_STRING(plugins->u.array.values[1]), "TaintToleration");
	yajl_tree_free(root);

	/* the table carries the message and a summary line per reason */
	struct sched_explain_request rq = { "default", "incoming", NULL, SCHED_EXPLAIN_TABLE };
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	assert_int_equal(sched_explain(f->s, &rq, &text, &len, &e), 0);
	assert_non_null(strstr(text, "Message:   0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."));
	assert_non_null(strstr(text, "      2  Insufficient cpu: n1 n2\n"));
	assert_non_null(strstr(text, "n3                              rejected      TaintToleration: node(s) had untolerated taint(s)"));
	free(text);
}

/* State D: the dry run's candidate and victims, nothing evicted (the busy pod stays in the cache). */
static void test_state_d_dry_preemption(void **state)
{
	struct fixture *f = *state;
	state_a_nodes(f);
	event(f->s->pod_inf, "{\"metadata\":{\"name\":\"incoming\",\"namespace\":\"default\",\"uid\":\"uid-incoming\","
			     "\"resourceVersion\":\"3\"},\"spec\":{\"schedulerName\":\"csched\",\"priority\":100,"
			     "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{\"requests\":"
			     "{\"cpu\":\"4\",\"memory\":\"512Mi\"}}}]}}");
	yajl_val root = explain(f, "incoming", NULL);
	check_schema(root);
	assert_string_equal(str(root, "result", "message"),
			    "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: "
			    "found a potential placement for pod on node n2, preempting 1 victims");
	yajl_val pf = get(root, "postFilter", NULL);
	assert_string_equal(str(pf, "code", NULL), "Success");
	assert_string_equal(str(pf, "nominatedNode", NULL), "n2");
	yajl_val v = get(pf, "victims", NULL);
	assert_int_equal(v->u.array.len, 1);
	assert_string_equal(str(v->u.array.values[0], "namespace", NULL), "default");
	assert_string_equal(str(v->u.array.values[0], "name", NULL), "busy");
	assert_int_equal(num(pf, "pdbViolations", NULL), 0);
	assert_int_equal(sched_cache_node_pods(f->s, "n2"), 1);
	yajl_tree_free(root);
}

/* State E: PreFilter narrowed the nodes to none: every node carries the absent status. */
static void test_state_e_prefilter_narrowing(void **state)
{
	struct fixture *f = *state;
	state_a_nodes(f);
	event(f->s->pod_inf, "{\"metadata\":{\"name\":\"incoming\",\"namespace\":\"default\",\"uid\":\"uid-incoming\","
			     "\"resourceVersion\":\"3\"},\"spec\":{\"schedulerName\":\"csched\",\"affinity\":{\"nodeAffinity\":{"
			     "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{\"matchFields\":[{"
			     "\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"nope\"]}]}]}}},"
			     "\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{\"requests\":"
			     "{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]}}");
	yajl_val root = explain(f, "incoming", NULL);
	check_schema(root);
	assert_string_equal(str(root, "result", "message"),
			    "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 "
			    "nodes are available: 3 Preemption is not helpful for scheduling.");
	static const char *const nodes[] = { "n1", "n2", "n3" };
	for (size_t i = 0; i < 3; i++) {
		yajl_val r = node_result(root, nodes[i]);
		assert_string_equal(str(r, "verdict", NULL), "Rejected");
		assert_true(YAJL_IS_NULL(get(r, "plugin", NULL)));
		assert_string_equal(str(r, "code", NULL), "UnschedulableAndUnresolvable");
		assert_string_equal(YAJL_GET_STRING(get(r, "reasons", NULL)->u.array.values[0]),
				    "node(s) didn't satisfy plugin(s) [NodeAffinity]");
	}
	yajl_val sum = get(root, "summary", NULL);
	assert_int_equal(sum->u.array.len, 1);
	assert_int_equal(num(sum->u.array.values[0], "count", NULL), 3);
	yajl_tree_free(root);
}

/* State F: the nominated node fits, so it is the only node evaluated (upstream's fast path). */
static void test_state_f_nominated_fast_path(void **state)
{
	struct fixture *f = *state;
	state_a_nodes(f);
	event(f->s->pod_inf, "{\"metadata\":{\"name\":\"incoming\",\"namespace\":\"default\",\"uid\":\"uid-incoming\","
			     "\"resourceVersion\":\"3\"},\"spec\":{\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\","
			     "\"image\":\"nginx\",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]},"
			     "\"status\":{\"phase\":\"Pending\",\"nominatedNodeName\":\"n2\"}}");
	yajl_val root = explain(f, "incoming", NULL);
	check_schema(root);
	assert_string_equal(str(root, "result", "chosenNode"), "n2");
	assert_true(YAJL_IS_TRUE(get(root, "result", "nominatedFastPath")));
	assert_true(YAJL_IS_FALSE(get(root, "result", "scored")));
	assert_string_equal(str(root, "pod", "nominatedNodeName"), "n2");
	assert_string_equal(str(node_result(root, "n2"), "verdict", NULL), "Feasible");
	assert_string_equal(str(node_result(root, "n1"), "verdict", NULL), "NotEvaluated");
	assert_string_equal(str(node_result(root, "n3"), "verdict", NULL), "NotEvaluated");
	yajl_tree_free(root);
}

/* ---------- State C: ties (oracle) ---------- */

static void test_state_c_tie(void **state)
{
	struct fixture *f = *state;
	node(f, "n1", "a", "2", "4Gi", false);
	node(f, "n2", "b", "2", "4Gi", false);
	node(f, "n3", "b", "8", "16Gi", true);
	pod(f, "incoming", "", "500m", "512Mi", "nginx");
	yajl_val root = explain(f, "incoming", NULL);
	check_schema(root);
	yajl_val ties = get(root, "result", "ties");
	assert_int_equal(ties->u.array.len, 2); /* oracle: best [n1 n2], both 452 */
	const char *chosen = str(root, "result", "chosenNode");
	assert_true(!strcmp(chosen, "n1") || !strcmp(chosen, "n2"));
	/* the chosen node first */
	assert_string_equal(YAJL_GET_STRING(ties->u.array.values[0]), chosen);
	for (size_t i = 0; i < 2; i++) {
		const char *n = i ? "n2" : "n1";
		yajl_val r = node_result(root, n);
		assert_int_equal(num(r, "total", NULL), 452);
		assert_true(YAJL_IS_TRUE(get(r, "tie", NULL)));
	}
	assert_false(YAJL_IS_TRUE(get(root, "result", "randomizedTieBreak")));
	yajl_tree_free(root);
}

/* ---------- Errors ---------- */

static void test_errors(void **state)
{
	struct fixture *f = *state;
	state_a_nodes(f);
	struct sched_explain_request rq = { "default", "missing", NULL, SCHED_EXPLAIN_JSON };
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	assert_int_equal(sched_explain(f->s, &rq, &text, &len, &e), ERR_NOT_FOUND);
	assert_string_equal(e.msg, "pod default/missing not found (the scheduler's informer has no such pod)");
	assert_null(text);
	pod(f, "incoming", "", "500m", "512Mi", "nginx");
	rq.name = "incoming";
	rq.node = "n9";
	assert_int_equal(sched_explain(f->s, &rq, &text, &len, &e), ERR_NOT_FOUND);
	assert_string_equal(e.msg, "node \"n9\" not found in the scheduler's cache");
	rq.node = NULL;
	rq.ns = "";
	assert_int_equal(sched_explain(f->s, &rq, &text, &len, &e), ERR_INVALID);
	/* a pod of another scheduler */
	event(f->s->pod_inf, "{\"metadata\":{\"name\":\"other\",\"namespace\":\"default\",\"uid\":\"uid-other\","
			     "\"resourceVersion\":\"3\"},\"spec\":{\"schedulerName\":\"someone-else\",\"containers\":[{\"name\":\"c\"}]}}");
	rq.ns = "default";
	rq.name = "other";
	assert_int_equal(sched_explain(f->s, &rq, &text, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "pod default/other: spec.schedulerName \"someone-else\" is not a profile of this scheduler");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_state_a_scores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound_pod_taken_off_its_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_b_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_c_tie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_d_dry_preemption, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_e_prefilter_narrowing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_f_nominated_fast_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
