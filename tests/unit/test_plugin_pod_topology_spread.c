/* PodTopologySpread (algorithm/plugins/pod_topology_spread.c). The table cases are upstream's
 * (v1.37.2 pkg/scheduler/framework/plugins/podtopologyspread filtering_test.go TestSingleConstraint
 * and TestMultipleConstraints, scoring_test.go TestPodTopologySpreadScore), converted to JSON by
 * gen_pts_cases.py into pts_cases.h with their upstream names; the others cite their source. */
#include "algorithm_testlib.h"
#include "cache/cache.h"
#include "cache/snapshot.h"

#define MAX_OBJS 16

struct pts_want_code {
	const char *node;
	enum fw_code code;
};

struct pts_filter_case {
	const char *name;
	const char *pod;
	const char *nodes[MAX_OBJS];
	const char *existing[MAX_OBJS];
	struct pts_want_code want[MAX_OBJS];
};

struct pts_want_score {
	const char *node;
	int64_t score;
};

struct pts_score_case {
	const char *name;
	const char *pod;
	const char *nodes[MAX_OBJS];
	const char *existing[MAX_OBJS];
	const char *failed[MAX_OBJS];
	struct pts_want_score want[MAX_OBJS];
};

struct pts_hint_case {
	const char *name;
	const char *pod;
	const char *old_obj, *new_obj; /* JSON, NULL = none */
	enum queue_hint want;
};

#include "pts_cases.h"

/* ---------- fake listers ---------- */

struct owners {
	uint32_t n;
	struct api_selector_owner *items[8];
};

static int services_each(void *ctx, const char *ns, int (*fn)(void *arg, const struct api_selector_owner *svc),
			 void *arg)
{
	const struct owners *l = ctx;
	for (uint32_t i = 0; i < l->n; i++) {
		const struct api_selector_owner *o = l->items[i];
		if (o->kind != API_SEL_SERVICE || strcmp(o->meta.namespace, ns))
			continue;
		int rc = fn(arg, o);
		if (rc)
			return rc;
	}
	return 0;
}

static struct api_selector_owner *owner_get(void *ctx, enum api_selector_kind kind, const char *ns, const char *name)
{
	const struct owners *l = ctx;
	for (uint32_t i = 0; i < l->n; i++) {
		struct api_selector_owner *o = l->items[i];
		if (o->kind == kind && !strcmp(o->meta.namespace, ns) && !strcmp(o->meta.name, name))
			return api_selector_owner_ref(o);
	}
	return NULL;
}

static void owners_add(struct owners *l, enum api_selector_kind kind, const char *json)
{
	struct err e = { 0 };
	struct api_selector_owner *o = api_selector_owner_decode_json(kind, json, strlen(json), &e);
	if (!o)
		fail_msg("owner: %s", e.msg);
	l->items[l->n++] = o;
}

static void owners_release(struct owners *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		api_selector_owner_unref(l->items[i]);
	l->n = 0;
}

/* ---------- a cluster and a profile ---------- */

struct cluster {
	uint32_t n;
	struct node_info nis[MAX_OBJS];
	const struct node_info *ptrs[MAX_OBJS];
	struct fw_node_list list;
};

static struct api_pod *pod_json(const char *json)
{
	struct err e = { 0 };
	struct api_pod *p = api_pod_decode_json(json, strlen(json), &e);
	if (!p)
		fail_msg("pod: %s", e.msg);
	return p;
}

/* Nodes a then b (NULL-terminated lists of JSON), each with the existing pods bound to it. */
static void cluster_init(struct cluster *cl, const char *const *a, const char *const *b, const char *const *existing)
{
	struct err e = { 0 };
	memset(cl, 0, sizeof(*cl));
	for (int pass = 0; pass < 2; pass++) {
		const char *const *list = pass ? b : a;
		for (uint32_t i = 0; list && list[i]; i++) {
			struct api_node *node = api_node_decode_json(list[i], strlen(list[i]), &e);
			if (!node)
				fail_msg("node: %s", e.msg);
			tl_node_info(&cl->nis[cl->n], node, NULL, 0);
			api_node_unref(node);
			cl->ptrs[cl->n] = &cl->nis[cl->n];
			cl->n++;
		}
	}
	for (uint32_t i = 0; existing && existing[i]; i++) {
		struct api_pod *p = pod_json(existing[i]);
		for (uint32_t k = 0; k < cl->n; k++)
			if (!strcmp(cl->nis[k].name, p->node_name) && node_info_add_pod(&cl->nis[k], p, &e) < 0)
				fail_msg("add pod: %s", e.msg);
		api_pod_unref(p);
	}
	/* a generation as the cache stamps one (unique in the process), so that the plugin's per-node
	 * counts are kept and read as over a real snapshot */
	static uint64_t generation = UINT64_C(1) << 62;
	for (uint32_t k = 0; k < cl->n; k++)
		cl->nis[k].generation = ++generation;
	cl->list = (struct fw_node_list){ .n = cl->n, .nodes = cl->ptrs };
}

static void cluster_release(struct cluster *cl)
{
	for (uint32_t i = 0; i < cl->n; i++)
		node_info_release(&cl->nis[i]);
}

static const struct node_info *cluster_node(const struct cluster *cl, const char *name)
{
	for (uint32_t i = 0; i < cl->n; i++)
		if (!strcmp(cl->nis[i].name, name))
			return &cl->nis[i];
	fail_msg("no node %s", name);
	return NULL;
}

/* A profile running PodTopologySpread at PreFilter, Filter, PreScore and Score with args (NULL =
 * defaults: System defaulting) and the owners as its listers. */
static struct fw_profile *profile(const struct cfg_plugin_args *args, struct owners *owners)
{
	static const char *const pts[] = { "PodTopologySpread", NULL }, *const qs[] = { "PrioritySort", NULL },
				 *const bind[] = { "DefaultBinder", NULL };
	static const int32_t w[] = { 2 };
	struct fw_profile_config pc;
	struct tl_lists ls;
	memset(&pc, 0, sizeof(pc));
	memset(&ls, 0, sizeof(ls));
	pc.scheduler_name = "test";
	pc.args = args;
	tl_fill(&pc, &ls, CFG_EP_QUEUE_SORT, qs, NULL);
	tl_fill(&pc, &ls, CFG_EP_BIND, bind, NULL);
	tl_fill(&pc, &ls, CFG_EP_PRE_FILTER, pts, NULL);
	tl_fill(&pc, &ls, CFG_EP_FILTER, pts, NULL);
	tl_fill(&pc, &ls, CFG_EP_PRE_SCORE, pts, NULL);
	tl_fill(&pc, &ls, CFG_EP_SCORE, pts, w);
	struct fw_profile_options o = { 0 };
	if (owners)
		o.listers = (struct fw_listers){ .owner = owner_get, .services_each = services_each, .ctx = owners };
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	if (!p)
		fail_msg("fw_profile_new: %s", e.msg);
	return p;
}

/* upstream's filter tests: PodTopologySpreadArgs{DefaultingType: ListDefaulting}, no defaults */
static const struct cfg_plugin_args *list_args(void)
{
	static struct cfg_plugin_args a;
	a.topology_spread.defaulting_type = CFG_DEFAULTING_LIST;
	return &a;
}

/* ---------- Filter ---------- */

/* PreFilter then Filter on want's nodes; returns the failures (printed). */
static int run_filter_case(const struct pts_filter_case *tc)
{
	struct fw_profile *p = profile(list_args(), NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "PodTopologySpread");
	struct cluster cl;
	cluster_init(&cl, tc->nodes, NULL, tc->existing);
	struct api_pod *pod = pod_json(tc->pod);
	int failures = 0;
	fw_cycle_reset(c);
	c->nodes = &cl.list;
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	fw_status_reset(&st);
	enum fw_code code = pl->plugin->pre_filter(pl, c, pod, &names, &st);
	if (code != FW_SUCCESS) {
		print_error("%s: PreFilter %s\n", tc->name, fw_code_str(code));
		failures++;
	}
	for (uint32_t i = 0; !failures && tc->want[i].node; i++) {
		fw_status_reset(&st);
		code = pl->plugin->filter(pl, c, pod, cluster_node(&cl, tc->want[i].node), &st);
		if (code != tc->want[i].code) {
			print_error("%s: [%s] want %s, got %s\n", tc->name, tc->want[i].node, fw_code_str(tc->want[i].code),
				    fw_code_str(code));
			failures++;
		}
	}
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
	return failures;
}

static void test_single_constraint(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < ARRAY_SIZE(single_constraint_cases); i++)
		failures += run_filter_case(&single_constraint_cases[i]);
	assert_int_equal(failures, 0);
}

static void test_multiple_constraints(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < ARRAY_SIZE(multiple_constraints_cases); i++)
		failures += run_filter_case(&multiple_constraints_cases[i]);
	assert_int_equal(failures, 0);
}

/* ---------- Score ---------- */

/* PreScore on the nodes, Score each, NormalizeScore; compares with want (upstream's loop). */
static int run_score(const char *name, struct fw_profile *p, struct cluster *cl, uint32_t n_candidates,
		     struct api_pod *pod, const struct pts_want_score *want)
{
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "PodTopologySpread");
	struct fw_status st;
	struct fw_node_score scores[MAX_OBJS];
	int failures = 0;
	fw_cycle_reset(c);
	c->nodes = &cl->list;
	fw_status_reset(&st);
	enum fw_code code = pl->plugin->pre_score(pl, c, pod, cl->ptrs, n_candidates, &st);
	if (code != FW_SUCCESS) {
		print_error("%s: PreScore %s\n", name, fw_code_str(code));
		failures++;
		goto out;
	}
	for (uint32_t i = 0; i < n_candidates; i++) {
		fw_status_reset(&st);
		scores[i].ni = cl->ptrs[i];
		if (pl->plugin->score(pl, c, pod, cl->ptrs[i], &scores[i].score, &st) != FW_SUCCESS) {
			print_error("%s: Score failed\n", name);
			failures++;
			goto out;
		}
	}
	fw_status_reset(&st);
	pl->plugin->normalize_score(pl, c, pod, scores, n_candidates, &st);
	uint32_t n_want = 0;
	while (want[n_want].node)
		n_want++;
	if (n_want != n_candidates) {
		print_error("%s: %u scores, want %u\n", name, n_candidates, n_want);
		failures++;
	}
	for (uint32_t i = 0; i < n_candidates && i < n_want; i++)
		if (strcmp(scores[i].ni->name, want[i].node) || scores[i].score != want[i].score) {
			print_error("%s: [%s] score %lld, want [%s] %lld\n", name, scores[i].ni->name,
				    (long long)scores[i].score, want[i].node, (long long)want[i].score);
			failures++;
		}
out:
	fw_cycle_free(c);
	return failures;
}

static void test_pod_topology_spread_score(void **state)
{
	(void)state;
	int failures = 0;
	/* upstream runs these with SystemDefaulting (the pods have constraints of their own) */
	struct fw_profile *p = profile(NULL, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(score_cases); i++) {
		const struct pts_score_case *tc = &score_cases[i];
		struct cluster cl;
		cluster_init(&cl, tc->nodes, tc->failed, tc->existing);
		uint32_t n = 0;
		while (tc->nodes[n])
			n++;
		struct api_pod *pod = pod_json(tc->pod);
		failures += run_score(tc->name, p, &cl, n, pod, tc->want);
		api_pod_unref(pod);
		cluster_release(&cl);
	}
	fw_profile_free(p);
	assert_int_equal(failures, 0);
}

#define NODE_H(name) "{\"metadata\":{\"name\":\"" name "\",\"labels\":{\"kubernetes.io/hostname\":\"" name "\"}}}"
#define POD_ON(name, node) \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"" name "\",\"labels\":{\"foo\":\"\"}},\"spec\":{\"nodeName\":\"" node "\"}}"

/* upstream scoring_test.go TestPodTopologySpreadScore "system defaulting, nodes don't have zone, pods
 * match service" (matching pods 4/3/2/1 on hostnames; the Service in the pod's namespace) */
static void test_score_system_defaults_service(void **state)
{
	(void)state;
	static const char *const nodes[] = { NODE_H("node-a"), NODE_H("node-b"), NODE_H("node-c"), NODE_H("node-d"), NULL };
	static const char *const existing[] = {
		POD_ON("p-a1", "node-a"), POD_ON("p-a2", "node-a"), POD_ON("p-a3", "node-a"), POD_ON("p-a4", "node-a"),
		POD_ON("p-b1", "node-b"), POD_ON("p-b2", "node-b"), POD_ON("p-b3", "node-b"), POD_ON("p-c1", "node-c"),
		POD_ON("p-c2", "node-c"), POD_ON("p-d1", "node-d"), NULL,
	};
	static const struct pts_want_score want[] = { { "node-a", 44 }, { "node-b", 66 }, { "node-c", 77 }, { "node-d", 100 }, { 0 } };
	struct owners owners = { 0 };
	owners_add(&owners, API_SEL_SERVICE,
		   "{\"metadata\":{\"name\":\"s\",\"namespace\":\"default\"},\"spec\":{\"selector\":{\"foo\":\"\"}}}");
	struct fw_profile *p = profile(NULL, &owners);
	struct cluster cl;
	cluster_init(&cl, nodes, NULL, existing);
	struct api_pod *pod = pod_json("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"p\",\"labels\":{\"foo\":\"\"}}}");
	assert_int_equal(run_score("system defaulting, nodes don't have zone, pods match service", p, &cl, 4, pod, want), 0);
	/* without the Service, DefaultSelector is empty: upstream PreScore skips */
	owners_release(&owners);
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "PodTopologySpread");
	struct fw_status st;
	fw_status_reset(&st);
	c->nodes = &cl.list;
	assert_int_equal(pl->plugin->pre_score(pl, c, pod, cl.ptrs, 4, &st), FW_SKIP);
	fw_cycle_free(c);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_profile_free(p);
}

/* ---------- default constraints and nominated pods (oracle) ---------- */

/* The cluster of the oracle cases: n1, n2 in zone z1, n3, n4 in z2, n5 in z3, n6 without a zone;
 * ReplicaSet rs1 (selector app=web) owns w1, w2 (n1), w3 (n2), w4 (n3), w5 (n6); o1 (app=other)
 * runs on n5. */
#define ZNODE(n, z) \
	"{\"metadata\":{\"name\":\"" n "\",\"labels\":{\"kubernetes.io/hostname\":\"" n "\",\"topology.kubernetes.io/zone\":\"" z "\"}}}"
#define RS_OWNED "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs1\",\"uid\":\"u-rs1\",\"controller\":true}]"
#define WEB_POD(name, node)                                                                                       \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"" name "\",\"labels\":{\"app\":\"web\"}," RS_OWNED \
	"},\"spec\":{\"nodeName\":\"" node "\"}}"
static const char *const oracle_nodes[] = { ZNODE("n1", "z1"), ZNODE("n2", "z1"), ZNODE("n3", "z2"), ZNODE("n4", "z2"),
					    ZNODE("n5", "z3"), NODE_H("n6"), NULL };
static const char *const oracle_web[] = {
	WEB_POD("w1", "n1"), WEB_POD("w2", "n1"), WEB_POD("w3", "n2"), WEB_POD("w4", "n3"), WEB_POD("w5", "n6"),
	"{\"metadata\":{\"name\":\"o1\",\"namespace\":\"default\",\"uid\":\"o1\",\"labels\":{\"app\":\"other\"}},\"spec\":{\"nodeName\":\"n5\"}}",
	NULL,
};
#define NEW_WEB "{\"metadata\":{\"name\":\"new\",\"namespace\":\"default\",\"uid\":\"new\",\"labels\":{\"app\":\"web\"}," RS_OWNED "}}"

static void add_rs1(struct owners *o)
{
	owners_add(o, API_SEL_RS,
		   "{\"metadata\":{\"name\":\"rs1\",\"namespace\":\"default\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}}}");
}

/* oracle: the cluster above, pod "new" owned by rs1 (no constraints of its own), default
 * configuration (System defaulting): PodTopologySpread raw 16/13/10/8/6/4, normalized (weight 2)
 * 50/86/124/150/174/200 on n1..n6 */
static void test_oracle_system_defaults_replicaset(void **state)
{
	(void)state;
	static const struct pts_want_score want[] = { { "n1", 25 }, { "n2", 43 }, { "n3", 62 }, { "n4", 75 },
						       { "n5", 87 }, { "n6", 100 }, { 0 } };
	struct owners owners = { 0 };
	add_rs1(&owners);
	struct fw_profile *p = profile(NULL, &owners);
	struct cluster cl;
	cluster_init(&cl, oracle_nodes, NULL, oracle_web);
	struct api_pod *pod = pod_json(NEW_WEB);
	assert_int_equal(run_score("oracle system defaults replicaset", p, &cl, 6, pod, want), 0);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_profile_free(p);
	owners_release(&owners);
}

/* oracle: the same with defaultingType List, defaultConstraints [{maxSkew 1, zone, DoNotSchedule}]:
 * only n5 passes; n6 (no zone) is UnschedulableAndUnresolvable */
static void test_oracle_list_defaults_filter(void **state)
{
	(void)state;
	static const struct pts_want_code want[] = { { "n1", FW_UNSCHEDULABLE }, { "n2", FW_UNSCHEDULABLE },
						     { "n3", FW_UNSCHEDULABLE }, { "n4", FW_UNSCHEDULABLE },
						     { "n5", FW_SUCCESS },	 { "n6", FW_UNSCHEDULABLE_AND_UNRESOLVABLE } };
	struct api_topology_spread_constraint dc = { .max_skew = 1,
						     .topology_key = intern_str("topology.kubernetes.io/zone"),
						     .when_unsatisfiable = API_DO_NOT_SCHEDULE };
	struct cfg_plugin_args args = { 0 };
	args.topology_spread = (struct cfg_topology_spread_args){ 1, &dc, CFG_DEFAULTING_LIST };
	struct owners owners = { 0 };
	add_rs1(&owners);
	struct fw_profile *p = profile(&args, &owners);
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "PodTopologySpread");
	struct cluster cl;
	cluster_init(&cl, oracle_nodes, NULL, oracle_web);
	struct api_pod *pod = pod_json(NEW_WEB);
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	c->nodes = &cl.list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_filter(pl, c, pod, &names, &st), FW_SUCCESS);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		fw_status_reset(&st);
		enum fw_code code = pl->plugin->filter(pl, c, pod, cluster_node(&cl, want[i].node), &st);
		if (code != want[i].code)
			fail_msg("%s: %s, want %s", want[i].node, fw_code_str(code), fw_code_str(want[i].code));
	}
	/* without the ReplicaSet the default selector is empty: nothing to spread */
	owners_release(&owners);
	fw_cycle_reset(c);
	c->nodes = &cl.list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_filter(pl, c, pod, &names, &st), FW_SKIP);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* oracle: pods app=db d1 on n1 (z1), d2 on n3 (z2); two pods app=db of priority 10 nominated to n5
 * (z3); the pod app=db with {maxSkew 1, zone, DoNotSchedule, app=db}: with upstream's AddPod of
 * the nominated pods n5 fails too: "0/6 nodes are available: 1 node(s) didn't match pod topology
 * spread constraints (missing required label), 5 node(s) didn't match pod topology spread
 * constraints." (then the preemption message, csched has no DefaultPreemption) */
static void test_oracle_nominated_pods(void **state)
{
	(void)state;
#define DB_POD(name, node) \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"" name "\",\"labels\":{\"app\":\"db\"}},\"spec\":{\"nodeName\":\"" node "\"}}"
#define NOM_POD(name)                                                                                        \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"" name "\",\"labels\":{\"app\":\"db\"}}," \
	"\"spec\":{\"priority\":10},\"status\":{\"nominatedNodeName\":\"n5\"}}"
	static const char *const existing[] = { DB_POD("d1", "n1"), DB_POD("d2", "n3"), NULL };
	struct fw_profile *p = profile(list_args(), NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	struct cluster cl;
	cluster_init(&cl, oracle_nodes, NULL, existing);
	struct api_pod *pod = pod_json(
		"{\"metadata\":{\"name\":\"new\",\"namespace\":\"default\",\"uid\":\"new\",\"labels\":{\"app\":\"db\"}},"
		"\"spec\":{\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"topology.kubernetes.io/zone\","
		"\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}}}]}}");
	struct api_pod *nom[2] = { pod_json(NOM_POD("nom")), pod_json(NOM_POD("nom2")) };
	struct fw_nominated_pod np[2] = { { intern_str("n5"), nom[0] }, { intern_str("n5"), nom[1] } };
	struct fw_nominated nominated = { 2, np };
	struct fw_schedule_result res;
	struct err e = { 0 };
	char msg[512];
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, &nominated, &res, &e), 0);
	assert_int_equal(res.code, FW_UNSCHEDULABLE);
	assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
			    "0/6 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label), "
			    "5 node(s) didn't match pod topology spread constraints.");
	/* without them n5 (the empty zone) fits: oracle, same state without the nominated pods */
	fw_cycle_reset(c);
	assert_int_equal(fw_schedule_pod(p, c, &cl.list, pod, NULL, &res, &e), 0);
	assert_int_equal(res.code, FW_SUCCESS);
	assert_string_equal(res.suggested_host, "n5");
	api_pod_unref(nom[0]);
	api_pod_unref(nom[1]);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* upstream scoring_test.go TestPreScoreSkip */
static void test_pre_score_skip(void **state)
{
	(void)state;
	static const char *const nodes_ab[] = { NODE_H("node-a"), NODE_H("node-b"), NULL };
	static const char *const nodes_planet[] = {
		"{\"metadata\":{\"name\":\"node-a\",\"labels\":{\"planet\":\"mars\"}}}", NULL
	};
	struct fw_status st;
	struct cluster cl;
	/* "the pod doesn't have soft topology spread Constraints" (ListDefaulting) */
	struct fw_profile *p = profile(list_args(), NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	const struct fw_pl *pl = tl_pl(p, "PodTopologySpread");
	cluster_init(&cl, nodes_ab, NULL, NULL);
	struct api_pod *pod = pod_json("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"p\"}}");
	c->nodes = &cl.list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_score(pl, c, pod, cl.ptrs, cl.n, &st), FW_SKIP);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);

	/* "default constraints and a replicaset that doesn't match": the pod's owner rs2 does not
	 * exist (only rs1 does), so DefaultSelector is empty */
	struct api_topology_spread_constraint dc = { .max_skew = 2, .topology_key = intern_str("planet"),
						     .when_unsatisfiable = API_SCHEDULE_ANYWAY };
	struct cfg_plugin_args args = { 0 };
	args.topology_spread = (struct cfg_topology_spread_args){ 1, &dc, CFG_DEFAULTING_LIST };
	struct owners owners = { 0 };
	owners_add(&owners, API_SEL_RS,
		   "{\"metadata\":{\"name\":\"rs1\",\"namespace\":\"default\"},\"spec\":{\"selector\":"
		   "{\"matchExpressions\":[{\"key\":\"tar\",\"operator\":\"Exists\"}]}}}");
	p = profile(&args, &owners);
	c = fw_cycle_new(p);
	pl = tl_pl(p, "PodTopologySpread");
	cluster_init(&cl, nodes_planet, NULL, NULL);
	pod = pod_json("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"p\",\"labels\":{\"foo\":\"bar\",\"baz\":\"sup\"},"
		       "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs2\",\"uid\":\"u\",\"controller\":true}]}}");
	c->nodes = &cl.list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_score(pl, c, pod, cl.ptrs, cl.n, &st), FW_SKIP);
	/* the same pod owned by rs1 (selector tar Exists, which the pod lacks): not skipped, upstream
	 * TestPreScoreStateEmptyNodes "default constraints and a replicaset" builds the constraint */
	api_pod_unref(pod);
	pod = pod_json("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"p\",\"labels\":{\"foo\":\"bar\",\"baz\":\"sup\"},"
		       "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs1\",\"uid\":\"u\",\"controller\":true}]}}");
	fw_cycle_reset(c);
	c->nodes = &cl.list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_score(pl, c, pod, cl.ptrs, cl.n, &st), FW_SUCCESS);
	api_pod_unref(pod);
	cluster_release(&cl);
	fw_cycle_free(c);
	fw_profile_free(p);
	owners_release(&owners);
}

/* ---------- queueing hints ---------- */

static queue_hint_fn hint_of(const struct fw_pl *pl, enum queue_resource res)
{
	for (uint32_t i = 0; i < pl->plugin->n_events; i++)
		if (pl->plugin->events[i].event.resource == (uint32_t)res)
			return pl->plugin->events[i].hint;
	fail_msg("no hint for resource %d", (int)res);
	return NULL;
}

/* upstream plugin_test.go runs each with PodTopologySpreadArgs{DefaultingType: ListDefaulting} */
static int run_hints(const struct pts_hint_case *cases, size_t n, enum queue_resource res)
{
	struct fw_profile *p = profile(list_args(), NULL);
	const struct fw_pl *pl = tl_pl(p, "PodTopologySpread");
	queue_hint_fn hint = hint_of(pl, res);
	struct err e = { 0 };
	int failures = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pts_hint_case *tc = &cases[i];
		struct api_pod *pod = pod_json(tc->pod);
		void *objs[2] = { NULL, NULL };
		const char *json[2] = { tc->old_obj, tc->new_obj };
		for (int k = 0; k < 2; k++) {
			if (!json[k])
				continue;
			objs[k] = res == QUEUE_RES_NODE ? (void *)api_node_decode_json(json[k], strlen(json[k]), &e)
							: (void *)api_pod_decode_json(json[k], strlen(json[k]), &e);
			if (!objs[k])
				fail_msg("%s: %s", tc->name, e.msg);
		}
		enum queue_hint got = hint(pl, pod, objs[0], objs[1]);
		if (got != tc->want) {
			print_error("%s: hint %d, want %d\n", tc->name, (int)got, (int)tc->want);
			failures++;
		}
		for (int k = 0; k < 2; k++) {
			if (res == QUEUE_RES_NODE)
				api_node_unref(objs[k]);
			else
				api_pod_unref(objs[k]);
		}
		api_pod_unref(pod);
	}
	fw_profile_free(p);
	return failures;
}

static void test_hint_node_change(void **state)
{
	(void)state;
	assert_int_equal(run_hints(node_change_cases, ARRAY_SIZE(node_change_cases), QUEUE_RES_NODE), 0);
}

static void test_hint_assigned_pod_change(void **state)
{
	(void)state;
	assert_int_equal(run_hints(assigned_pod_change_cases, ARRAY_SIZE(assigned_pod_change_cases), QUEUE_RES_ASSIGNED_POD), 0);
}

static void test_hint_target_pod_change(void **state)
{
	(void)state;
	assert_int_equal(run_hints(target_pod_change_cases, ARRAY_SIZE(target_pod_change_cases), QUEUE_RES_TARGET_POD), 0);
}

/* upstream plugin.go EventsToRegister */
static void test_events_to_register(void **state)
{
	(void)state;
	const struct fw_plugin *pl = fw_registry_lookup("PodTopologySpread");
	assert_non_null(pl);
	assert_int_equal(pl->n_events, 3);
	assert_int_equal(pl->events[0].event.resource, QUEUE_RES_ASSIGNED_POD);
	assert_int_equal(pl->events[0].event.actions, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_POD_LABEL | QUEUE_ACT_DELETE);
	assert_int_equal(pl->events[1].event.resource, QUEUE_RES_TARGET_POD);
	assert_int_equal(pl->events[1].event.actions, QUEUE_ACT_UPDATE_POD_TOLERATION | QUEUE_ACT_UPDATE_POD_LABEL);
	assert_int_equal(pl->events[2].event.resource, QUEUE_RES_NODE);
	assert_int_equal(pl->events[2].event.actions,
			 QUEUE_ACT_ADD | QUEUE_ACT_DELETE | QUEUE_ACT_UPDATE_NODE_LABEL | QUEUE_ACT_UPDATE_NODE_TAINT);
}

/* ---------- counts kept across cycles (count_cache) ----------
 * One profile schedules over a real cache and snapshot while pods are added, removed and
 * relabelled and nodes relabelled; every cycle must see the counts of the current state. Expected
 * values by hand from upstream v1.37.2 podtopologyspread: filtering.go Filter (fails when matchNum +
 * selfMatchNum - minMatchNum > maxSkew), scoring.go Score (count * log(nodes + 2) + maxSkew - 1,
 * rounded) and NormalizeScore (100 * (max + min - score) / max, 100 when max is 0). */

#define CC_NODE(name, zone)                                                                                      \
	"{\"metadata\":{\"name\":\"" name "\",\"labels\":{\"kubernetes.io/hostname\":\"" name                      \
	"\",\"topology.kubernetes.io/zone\":\"" zone "\"}},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"pods\":\"110\"}}}"
#define CC_POD(name, app, node)                                                                                   \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"uid-" name "\",\"labels\":{\"app\":\"" app \
	"\"}},\"spec\":{\"nodeName\":\"" node "\",\"containers\":[{\"name\":\"c\"}]}}"
#define CC_INCOMING(when, key)                                                                                    \
	"{\"metadata\":{\"name\":\"in\",\"namespace\":\"default\",\"uid\":\"uid-in\",\"labels\":{\"app\":\"x\"}},"  \
	"\"spec\":{\"containers\":[{\"name\":\"c\"}],\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"" key \
	"\",\"whenUnsatisfiable\":\"" when "\",\"labelSelector\":{\"matchLabels\":{\"app\":\"x\"}}}]}}"

static struct api_node *cc_node_json(const char *json)
{
	struct err e = { 0 };
	struct api_node *n = api_node_decode_json(json, strlen(json), &e);
	if (!n)
		fail_msg("node: %s", e.msg);
	return n;
}

struct cc_env {
	struct fw_profile *p;
	struct cache *cache;
	struct snapshot *snap;
	struct api_pod *hard, *soft; /* the incoming pod: DoNotSchedule, ScheduleAnyway */
};

/* One cycle of each incoming pod over the snapshot: hard's Filter on n1, n2 must give fits[0..1];
 * soft's normalized scores of n1, n2 must be scores[0..1]. */
static void cc_check(struct cc_env *v, const char *step, const bool fits[2], const int64_t scores[2])
{
	struct err e = { 0 };
	assert_int_equal(cache_update_snapshot(v->cache, v->snap, &e), 0);
	struct fw_node_list list;
	fw_node_list_from_snapshot(v->snap, &list);
	const struct node_info *nis[2] = { snapshot_get(v->snap, intern_str("n1")), snapshot_get(v->snap, intern_str("n2")) };
	assert_non_null(nis[0]);
	assert_non_null(nis[1]);
	const struct fw_pl *pl = tl_pl(v->p, "PodTopologySpread");
	struct fw_cycle *c = fw_cycle_new(v->p);
	struct fw_status st;
	struct fw_node_names names = { .all = true };

	fw_cycle_reset(c);
	c->nodes = &list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_filter(pl, c, v->hard, &names, &st), FW_SUCCESS);
	for (int i = 0; i < 2; i++) {
		fw_status_reset(&st);
		enum fw_code code = pl->plugin->filter(pl, c, v->hard, nis[i], &st);
		if ((code == FW_SUCCESS) != fits[i])
			fail_msg("%s: Filter of n%d: %s, want %s", step, i + 1, fw_code_str(code), fits[i] ? "fit" : "no fit");
	}

	fw_cycle_reset(c);
	c->nodes = &list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_score(pl, c, v->soft, nis, 2, &st), FW_SUCCESS);
	struct fw_node_score sc[2];
	for (int i = 0; i < 2; i++) {
		sc[i].ni = nis[i];
		assert_int_equal(pl->plugin->score(pl, c, v->soft, nis[i], &sc[i].score, &st), FW_SUCCESS);
	}
	pl->plugin->normalize_score(pl, c, v->soft, sc, 2, &st);
	for (int i = 0; i < 2; i++)
		if (sc[i].score != scores[i])
			fail_msg("%s: score of n%d: %lld, want %lld", step, i + 1, (long long)sc[i].score, (long long)scores[i]);
	fw_cycle_free(c);
}

static void cc_add_pod(struct cache *c, const char *json)
{
	struct err e = { 0 };
	struct api_pod *p = pod_json(json);
	assert_int_equal(cache_add_pod(c, p, &e), 0);
	api_pod_unref(p);
}

static void cc_env_init(struct cc_env *v, const char *key)
{
	struct err e = { 0 };
	v->cache = cache_new();
	v->snap = snapshot_new();
	struct api_node *n1 = cc_node_json(CC_NODE("n1", "a")), *n2 = cc_node_json(CC_NODE("n2", "b"));
	assert_int_equal(cache_add_node(v->cache, n1, &e), 0);
	assert_int_equal(cache_add_node(v->cache, n2, &e), 0);
	api_node_unref(n1);
	api_node_unref(n2);
	if (!strcmp(key, "zone")) {
		v->hard = pod_json(CC_INCOMING("DoNotSchedule", "topology.kubernetes.io/zone"));
		v->soft = pod_json(CC_INCOMING("ScheduleAnyway", "topology.kubernetes.io/zone"));
	} else {
		v->hard = pod_json(CC_INCOMING("DoNotSchedule", "kubernetes.io/hostname"));
		v->soft = pod_json(CC_INCOMING("ScheduleAnyway", "kubernetes.io/hostname"));
	}
}

static void cc_env_free(struct cc_env *v)
{
	api_pod_unref(v->hard);
	api_pod_unref(v->soft);
	snapshot_free(v->snap);
	cache_free(v->cache);
}

static const bool CC_FIT_N2[2] = { false, true }, CC_FIT_BOTH[2] = { true, true }, CC_FIT_N1[2] = { true, false };
/* scores with one node's count 1 and the other's 0: round(1 * log(4)) = 1, normalized 0 and 100 */
static const int64_t CC_PREFER_N2[2] = { 0, 100 }, CC_EVEN[2] = { 100, 100 }, CC_PREFER_N1[2] = { 100, 0 };

/* hostname constraint: the counts of n1 and n2 follow every pod change of the cache */
static void test_count_cache_pod_changes(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct cc_env v = { .p = profile(list_args(), NULL) };
	cc_env_init(&v, "hostname");
	cc_add_pod(v.cache, CC_POD("p1", "x", "n1"));
	cc_check(&v, "p1 on n1", CC_FIT_N2, CC_PREFER_N2);
	cc_check(&v, "no change", CC_FIT_N2, CC_PREFER_N2);
	cc_add_pod(v.cache, CC_POD("p2", "x", "n2"));
	cc_check(&v, "p2 added on n2", CC_FIT_BOTH, CC_EVEN);
	struct api_pod *old = pod_json(CC_POD("p2", "x", "n2")), *relabelled = pod_json(CC_POD("p2", "y", "n2"));
	assert_int_equal(cache_update_pod(v.cache, old, relabelled, &e), 0);
	cc_check(&v, "p2 relabelled app=y", CC_FIT_N2, CC_PREFER_N2);
	struct api_pod *p1 = pod_json(CC_POD("p1", "x", "n1"));
	assert_int_equal(cache_remove_pod(v.cache, p1, &e), 0);
	cc_check(&v, "p1 removed", CC_FIT_BOTH, CC_EVEN);
	assert_int_equal(cache_update_pod(v.cache, relabelled, old, &e), 0);
	cc_check(&v, "p2 relabelled app=x again", CC_FIT_N1, CC_PREFER_N1);
	/* an assumed pod counts as well (the scheduler's own placements) */
	struct api_pod *p3 = pod_json(CC_POD("p3", "x", ""));
	assert_int_equal(cache_assume_pod(v.cache, p3, "n1", &e), 0);
	cc_check(&v, "p3 assumed on n1", CC_FIT_BOTH, CC_EVEN);
	assert_int_equal(cache_forget_pod(v.cache, p3, "n1", &e), 0);
	cc_check(&v, "p3 forgotten", CC_FIT_N1, CC_PREFER_N1);
	api_pod_unref(old);
	api_pod_unref(relabelled);
	api_pod_unref(p1);
	api_pod_unref(p3);
	cc_env_free(&v);
	fw_profile_free(v.p);
}

/* The same profile over caches built one after the other by the same steps, so that a new cache's
 * node_infos may sit where a freed one's were, with the same count of changes: n1 has 1 matching
 * pod in every other cache, none in the others. */
static void test_count_cache_new_cache(void **state)
{
	(void)state;
	struct cc_env v = { .p = profile(list_args(), NULL) };
	for (int i = 0; i < 16; i++) {
		cc_env_init(&v, "hostname");
		cc_add_pod(v.cache, i % 2 ? CC_POD("q1", "y", "n1") : CC_POD("p1", "x", "n1"));
		cc_check(&v, i % 2 ? "q1 (app=y) on n1" : "p1 on n1", i % 2 ? CC_FIT_BOTH : CC_FIT_N2, i % 2 ? CC_EVEN : CC_PREFER_N2);
		cc_env_free(&v);
	}
	fw_profile_free(v.p);
}

/* zone constraint: a node relabelled into the other zone takes its pods' count along */
static void test_count_cache_node_relabel(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct cc_env v = { .p = profile(list_args(), NULL) };
	cc_env_init(&v, "zone");
	cc_add_pod(v.cache, CC_POD("p1", "x", "n2"));
	cc_check(&v, "p1 on n2 (zone b)", CC_FIT_N1, CC_PREFER_N1);
	struct api_node *old = cc_node_json(CC_NODE("n2", "b")), *moved = cc_node_json(CC_NODE("n2", "a"));
	assert_int_equal(cache_update_node(v.cache, old, moved, &e), 0);
	/* one zone "a" holding p1: skew 1 + 1 - 1 on both nodes; both score count 1 */
	cc_check(&v, "n2 relabelled into zone a", CC_FIT_BOTH, CC_EVEN);
	assert_int_equal(cache_update_node(v.cache, moved, old, &e), 0);
	cc_check(&v, "n2 back in zone b", CC_FIT_N1, CC_PREFER_N1);
	api_node_unref(old);
	api_node_unref(moved);
	cc_env_free(&v);
	fw_profile_free(v.p);
}

/* Five DoNotSchedule constraints with distinct selectors in one PreFilter (more than the count
 * cache once had slots): each keeps its own counts. app In a1..a4 per hostname, app=a5 per zone;
 * two pods app=a5 on n2 (zone b): zone b counts 2, zone a 0, so n2 exceeds maxSkew 1 (2 + 0 - 0)
 * and n1 fits (upstream filtering.go Filter). */
#define CC_FIVE_CONSTRAINT(app, key) \
	"{\"maxSkew\":1,\"topologyKey\":\"" key "\",\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{\"matchLabels\":{\"app\":\"" app "\"}}}"
static void test_count_cache_five_selectors(void **state)
{
	(void)state;
	struct cc_env v = { .p = profile(list_args(), NULL) };
	cc_env_init(&v, "hostname");
	api_pod_unref(v.hard);
	v.hard = pod_json("{\"metadata\":{\"name\":\"in\",\"namespace\":\"default\",\"uid\":\"uid-in\",\"labels\":{\"app\":\"in\"}},"
			  "\"spec\":{\"containers\":[{\"name\":\"c\"}],\"topologySpreadConstraints\":["
			  CC_FIVE_CONSTRAINT("a1", "kubernetes.io/hostname") "," CC_FIVE_CONSTRAINT("a2", "kubernetes.io/hostname") ","
			  CC_FIVE_CONSTRAINT("a3", "kubernetes.io/hostname") "," CC_FIVE_CONSTRAINT("a4", "kubernetes.io/hostname") ","
			  CC_FIVE_CONSTRAINT("a5", "topology.kubernetes.io/zone") "]}}");
	cc_add_pod(v.cache, CC_POD("p1", "a5", "n2"));
	cc_add_pod(v.cache, CC_POD("p2", "a5", "n2"));
	/* soft: hostname app=x, no pod matches: both nodes score the same */
	cc_check(&v, "first cycle", CC_FIT_N1, CC_EVEN);
	cc_check(&v, "second cycle", CC_FIT_N1, CC_EVEN);
	cc_env_free(&v);
	fw_profile_free(v.p);
}

/* zone constraint, totals per zone kept across cycles (fw_count_cache_domains): nodes joining and
 * leaving the list, and one node taking another's place in a list of the same length, must give
 * the counts of a full walk. Expected by hand from upstream v1.37.2 filtering.go Filter
 * (matchNum + selfMatchNum - minMatchNum > maxSkew fails, the minimum over every domain with an
 * eligible node, 0 counts included) and scoring.go Score / NormalizeScore (as above). */
static void test_count_cache_domains_nodes_change(void **state)
{
	(void)state;
	struct err e = { 0 };
	static const bool none[2] = { false, false };
	static const int64_t prefer_n2_third[2] = { 33, 100 };
	struct cc_env v = { .p = profile(list_args(), NULL) };
	cc_env_init(&v, "zone");
	cc_add_pod(v.cache, CC_POD("p1", "x", "n1"));
	cc_add_pod(v.cache, CC_POD("p2", "x", "n2"));
	/* zones a and b count 1 each: 1 + 1 - 1 fits both */
	cc_check(&v, "a:1 b:1", CC_FIT_BOTH, CC_EVEN);
	struct api_node *n3 = cc_node_json(CC_NODE("n3", "c"));
	assert_int_equal(cache_add_node(v.cache, n3, &e), 0);
	/* zone c joins with 0 matching pods: 1 + 1 - 0 exceeds maxSkew 1 on both; the score only
	 * counts the filtered nodes' zones (n1, n2) */
	cc_check(&v, "n3 joins in zone c", none, CC_EVEN);
	cc_check(&v, "n3 joined, no change", none, CC_EVEN);
	/* n3 leaves and n4 (zone a, one matching pod) comes in the same snapshot update: the list
	 * keeps its length, zone c must be gone and zone a count 2 */
	assert_int_equal(cache_remove_node(v.cache, n3, &e), 0);
	struct api_node *n4 = cc_node_json(CC_NODE("n4", "a"));
	assert_int_equal(cache_add_node(v.cache, n4, &e), 0);
	cc_add_pod(v.cache, CC_POD("p3", "x", "n4"));
	/* a:2 b:1: n1 2 + 1 - 1 > 1, n2 1 + 1 - 1 fits; scores round(2 log 4) = 3 and round(log 4) = 1,
	 * normalized 100 * (3 + 1 - s) / 3 */
	cc_check(&v, "n3 replaced by n4 (zone a, 1 pod)", CC_FIT_N2, prefer_n2_third);
	assert_int_equal(cache_remove_node(v.cache, n4, &e), 0);
	cc_check(&v, "n4 gone", CC_FIT_BOTH, CC_EVEN);
	api_node_unref(n3);
	api_node_unref(n4);
	cc_env_free(&v);
	fw_profile_free(v.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_constraint),
		cmocka_unit_test(test_multiple_constraints),
		cmocka_unit_test(test_pod_topology_spread_score),
		cmocka_unit_test(test_score_system_defaults_service),
		cmocka_unit_test(test_pre_score_skip),
		cmocka_unit_test(test_oracle_system_defaults_replicaset),
		cmocka_unit_test(test_oracle_list_defaults_filter),
		cmocka_unit_test(test_oracle_nominated_pods),
		cmocka_unit_test(test_hint_node_change),
		cmocka_unit_test(test_hint_assigned_pod_change),
		cmocka_unit_test(test_hint_target_pod_change),
		cmocka_unit_test(test_events_to_register),
		cmocka_unit_test(test_count_cache_pod_changes),
		cmocka_unit_test(test_count_cache_new_cache),
		cmocka_unit_test(test_count_cache_node_relabel),
		cmocka_unit_test(test_count_cache_five_selectors),
		cmocka_unit_test(test_count_cache_domains_nodes_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
