/* DefaultPreemption (algorithm/plugins/default_preemption.c) and the RemovePod side of the
 * plugins whose PreFilter counts pods, from upstream v1.37.2's test tables:
 * framework/plugins/defaultpreemption/default_preemption_test.go, framework/preemption/
 * preemption_test.go and util_test.go. Upstream's priorities and resources: */
#include "algorithm_testlib.h"

#include "algorithm/preemption_internal.h"

#define NEG "-100"
#define LOW "0"
#define MID "100"
#define HIGH "1000"
#define VHIGH "10000"
#define SMALL "cpu=100m,memory=100"
#define MEDIUM "cpu=200m,memory=200"
#define LARGE "cpu=300m,memory=300"
#define VLARGE "cpu=500m,memory=500"
/* st.MakeNode().Capacity(): pods=32 unless given */
#define NODE_VLARGE VLARGE ",pods=32"

/* A pod of a case: name (uid = name), node, priority, requests, labels, status.startTime in
 * seconds (upstream's epochTimeN, N ns: the order is what counts; 0 = none), more spec JSON. */
struct pspec {
	const char *name, *node, *prio, *req, *labels;
	int start;
	const char *spec;
};

static struct api_pod *make_pod(const struct pspec *s)
{
	char uid[64], status[96] = "";
	snprintf(uid, sizeof(uid), "%s", s->name);
	if (s->start)
		snprintf(status, sizeof(status), "\"startTime\":\"1970-01-01T00:00:%02dZ\"", s->start);
	return TOBJ_POD(.name = s->name, .uid = uid, .node = s->node, .priority = s->prio, .labels = s->labels,
			.containers = { { .req = s->req ? s->req : "" } }, .spec = s->spec,
			.status = status[0] ? status : NULL);
}

/* A cluster, a profile with the filters of a case and DefaultPreemption, PDBs, the executor's
 * last call. */
struct env {
	uint32_t n;
	struct api_node *nodes[8];
	struct node_info nis[8];
	const struct node_info *ptrs[8];
	struct fw_node_list list;
	uint32_t n_pods;
	struct api_pod *pods[32];
	struct fw_profile *p;
	struct fw_cycle *c;
	const struct fw_pl *dp;
	struct fw_schedule_result res;
	uint32_t n_pdbs;
	struct api_pdb pdbs[4];
	struct api_label_selector sels[4];
	struct api_pod *sel_pods[4];
	/* fw_preempt_actuate's last call */
	int actuated;
	char act_node[32];
	char act_victims[256];
};

/* "name[/zone]": labels hostname (and zone), as upstream's TestDryRunPreemption names nodes. */
static void env_node(struct env *e, const char *spec, const char *alloc)
{
	char name[32], labels[96];
	const char *slash = strchr(spec, '/');
	snprintf(name, sizeof(name), "%.*s", slash ? (int)(slash - spec) : (int)strlen(spec), spec);
	if (slash)
		snprintf(labels, sizeof(labels), "hostname=%s,zone=%s", name, slash + 1);
	else
		snprintf(labels, sizeof(labels), "hostname=%s", name);
	uint32_t i = e->n++;
	e->nodes[i] = TOBJ_NODE(.name = name, .alloc = alloc, .labels = labels);
	tl_node_info(&e->nis[i], e->nodes[i], NULL, 0);
	e->ptrs[i] = &e->nis[i];
	e->list = (struct fw_node_list){ .n = e->n, .nodes = e->ptrs };
}

static void env_pods(struct env *e, const struct pspec *ps)
{
	for (; ps->name; ps++) {
		struct api_pod *p = make_pod(ps);
		e->pods[e->n_pods++] = p;
		for (uint32_t i = 0; i < e->n; i++)
			if (!strcmp(e->nis[i].name, ps->node))
				assert_int_equal(node_info_add_pod(&e->nis[i], p, NULL), 0);
	}
}

/* A PDB of namespace default selecting match labels ("k=v"), with disruptionsAllowed and
 * status.disruptedPods. */
static void env_pdb(struct env *e, const char *match, int32_t allowed, const char **disrupted, uint32_t n_disrupted)
{
	uint32_t i = e->n_pdbs++;
	e->sel_pods[i] = TOBJ_POD(.name = "selector-holder", .labels = match);
	e->sels[i] = (struct api_label_selector){ .match_labels = e->sel_pods[i]->meta.labels };
	e->pdbs[i] = (struct api_pdb){ .refs = 1, .selector = &e->sels[i], .disruptions_allowed = allowed,
				       .n_disrupted = n_disrupted, .disrupted_pods = disrupted };
	e->pdbs[i].meta.namespace = intern_str("default");
}

static int env_pdb_each(void *ctx, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg)
{
	struct env *e = ctx;
	for (uint32_t i = 0; i < e->n_pdbs; i++) {
		int rc = fn(arg, &e->pdbs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static void victims_str(struct api_pod *const *v, uint32_t n, char *buf, size_t size)
{
	size_t off = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < n && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? " " : "", v[i]->meta.name);
}

static enum fw_code env_actuate(void *ctx, const struct api_pod *preemptor, const struct fw_preemption *p,
				struct fw_status *st)
{
	(void)preemptor;
	(void)st;
	struct env *e = ctx;
	e->actuated++;
	snprintf(e->act_node, sizeof(e->act_node), "%s", p->node_name);
	victims_str(p->victims, p->n_victims, e->act_victims, sizeof(e->act_victims));
	return FW_SUCCESS;
}

/* filters: the PreFilter+Filter plugins of the case (NULL-terminated). */
static void env_profile(struct env *e, const char *const *filters, const struct cfg_plugin_args *args)
{
	struct tl_profile_spec s = { .post_filter = { "DefaultPreemption" }, .args = args };
	for (uint32_t i = 0; filters[i]; i++)
		s.pre_filter[i] = s.filter[i] = filters[i];
	e->p = tl_profile(&s, NULL);
	e->p->listers.pdb_each = env_pdb_each;
	e->p->listers.ctx = e;
	e->p->preempt.actuate = env_actuate;
	e->p->preempt.ctx = e;
	e->c = fw_cycle_new(e->p);
	e->dp = tl_pl(e->p, "DefaultPreemption");
	fw_default_preemption_set_offset(e->dp, 0);
}

/* Runs PreFilter and Filter for pod (its outcome in e->res), leaving the cycle ready for
 * PostFilter or a dry run. */
static void env_schedule(struct env *e, const struct api_pod *pod)
{
	struct err err = { 0 };
	fw_cycle_reset(e->c);
	memset(&e->res, 0, sizeof(e->res));
	assert_int_equal(fw_schedule_pod(e->p, e->c, &e->list, pod, NULL, &e->res, &err), 0);
}

static void env_release(struct env *e)
{
	fw_cycle_free(e->c);
	fw_profile_free(e->p);
	for (uint32_t i = 0; i < e->n; i++) {
		node_info_release(&e->nis[i]);
		api_node_unref(e->nodes[i]);
	}
	for (uint32_t i = 0; i < e->n_pods; i++)
		api_pod_unref(e->pods[i]);
	for (uint32_t i = 0; i < e->n_pdbs; i++)
		api_pod_unref(e->sel_pods[i]);
	memset(e, 0, sizeof(*e));
}

static const char *const FIT[] = { "NodeResourcesFit", NULL };

/* ---------- TestPostFilter ---------- */

/* upstream default_preemption_test.go TestPostFilter: the filtered nodes' statuses are given
 * ("U" Unschedulable, "X" UnschedulableAndUnresolvable, NULL absent). */
static void test_post_filter(void **state)
{
	(void)state;
	static const char *const one_pod = "pods=1";
	static const char *const node_res = "cpu=200m,memory=400,pods=32";
	static const struct {
		const char *name;
		struct pspec pod;
		struct pspec pods[4];
		const char *nodes[4], *allocs[4];
		const char *status[4];
		bool pdbs;
		enum fw_code want_code;
		const char *want_node; /* NULL: no result (keep) */
		const char *want_msg;
	} cases[] = {
		{ "pod with higher priority can be made schedulable", { "p", NULL, HIGH, NULL, NULL, 0, NULL },
		  { { "p1", "node1", NULL, NULL, NULL, 0, NULL } }, { "node1" }, { one_pod }, { "U" }, false, FW_SUCCESS,
		  "node1", "preemption: found a potential placement for pod on node node1, preempting 1 victims" },
		{ "pod with tied priority is still unschedulable", { "p", NULL, NULL, NULL, NULL, 0, NULL },
		  { { "p1", "node1", NULL, NULL, NULL, 0, NULL } }, { "node1" }, { one_pod }, { "U" }, false,
		  FW_UNSCHEDULABLE, "", "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod." },
		{ "preemption should respect filteredNodesStatuses", { "p", NULL, HIGH, NULL, NULL, 0, NULL },
		  { { "p1", "node1", NULL, NULL, NULL, 0, NULL } }, { "node1" }, { one_pod }, { "X" }, false,
		  FW_UNSCHEDULABLE, "", "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." },
		{ "preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable",
		  { "p", NULL, HIGH, NULL, NULL, 0, NULL }, { { "p1", "node1", NULL, NULL, NULL, 0, NULL } }, { "node1" },
		  { one_pod }, { NULL }, false, FW_UNSCHEDULABLE, "",
		  "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." },
		{ "pod can be made schedulable on one node", { "p", NULL, MID, NULL, NULL, 0, NULL },
		  { { "p1", "node1", HIGH, NULL, NULL, 0, NULL }, { "p2", "node2", LOW, NULL, NULL, 0, NULL } },
		  { "node1", "node2" }, { one_pod, one_pod }, { "U", "U" }, false, FW_SUCCESS, "node2",
		  "preemption: found a potential placement for pod on node node2, preempting 1 victims" },
		{ "pod can be made schedulable on minHighestPriority node", { "p", NULL, VHIGH, NULL, NULL, 0, NULL },
		  { { "p1", "node1", HIGH, NULL, "is-violating=non-violating", 0, NULL },
		    { "p2", "node1", LOW, NULL, "is-violating=violating", 0, NULL },
		    { "p3", "node2", MID, NULL, "is-violating=violating", 0, NULL } },
		  { "node1", "node2" }, { one_pod, one_pod }, { "U", "U" }, true, FW_SUCCESS, "node2",
		  "preemption: found a potential placement for pod on node node2, preempting 1 victims" },
		{ "no candidate nodes found, no enough resource after removing low priority pods",
		  { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", NULL, NULL, NULL, 0, NULL }, { "p2", "node2", NULL, NULL, NULL, 0, NULL } },
		  { "node1", "node2" }, { node_res, node_res }, { "U", "U" }, false, FW_UNSCHEDULABLE, "",
		  "preemption: 0/2 nodes are available: 2 Insufficient cpu." },
		{ "no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource",
		  { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", HIGH, NULL, NULL, 0, NULL }, { "p2", "node2", NULL, NULL, NULL, 0, NULL },
		    { "p3", "node3", HIGH, NULL, NULL, 0, NULL } },
		  { "node1", "node2", "node3" }, { one_pod, node_res, one_pod }, { "U", "U", "U" }, false, FW_UNSCHEDULABLE,
		  "", "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod." },
		{ "no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have "
		  "enough CPU resource",
		  { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", NULL, NULL, NULL, 0, NULL }, { "p2", "node2", NULL, NULL, NULL, 0, NULL } },
		  { "node1", "node2", "node3", "node4" }, { node_res, node_res, node_res, node_res }, { "U", "U", NULL, "X" },
		  false, FW_UNSCHEDULABLE, "",
		  "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling." },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env *e = calloc(1, sizeof(*e));
		assert_non_null(e);
		for (uint32_t k = 0; k < 4 && cases[i].nodes[k]; k++)
			env_node(e, cases[i].nodes[k], cases[i].allocs[k]);
		env_pods(e, cases[i].pods);
		if (cases[i].pdbs) {
			/* violating-pdb: minAvailable 100% (disruptionsAllowed 0); non-violating-pdb: MaxInt32 */
			env_pdb(e, "is-violating=violating", 0, NULL, 0);
			env_pdb(e, "is-violating=non-violating", INT32_MAX, NULL, 0);
		}
		env_profile(e, FIT, NULL);
		struct api_pod *pod = make_pod(&cases[i].pod);
		env_schedule(e, pod);
		struct fw_node_status ns[4];
		struct fw_status sts[4];
		struct fw_diagnosis d = { .num_all_nodes = e->n };
		for (uint32_t k = 0; k < e->n; k++) {
			if (!cases[i].status[k])
				continue;
			fw_status_reset(&sts[k]);
			sts[k].code = cases[i].status[k][0] == 'U' ? FW_UNSCHEDULABLE : FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
			ns[d.n_node_status++] = (struct fw_node_status){ e->nis[k].name, &sts[k] };
		}
		d.node_status = ns;
		struct fw_post_filter_result r = { NULL };
		struct fw_status st;
		fw_status_reset(&st);
		enum fw_code code = e->dp->plugin->post_filter(e->dp, e->c, pod, &d, &r, &st);
		char msg[FW_STATUS_TEXT_MAX];
		fw_status_message(&st, msg, sizeof(msg));
		if (code != cases[i].want_code || strcmp(msg, cases[i].want_msg) ||
		    (cases[i].want_node ? !r.nominated_node_name || strcmp(r.nominated_node_name, cases[i].want_node)
					: r.nominated_node_name != NULL))
			fail_msg("%s: got %s \"%s\" nominating %s", cases[i].name, fw_code_str(code), msg,
				 r.nominated_node_name ? r.nominated_node_name : "(nil)");
		/* success actuates exactly the chosen candidate */
		assert_int_equal(e->actuated, code == FW_SUCCESS);
		if (code == FW_SUCCESS)
			assert_string_equal(e->act_node, cases[i].want_node);
		api_pod_unref(pod);
		env_release(e);
		free(e);
	}
}

/* upstream TestPostFilter "preemption result filtered out by extenders": an extender that
 * keeps node1 only (tf.Node1PredicateExtender) decides between two equal candidates; upstream
 * TestPreempt "Scheduler extenders do not allow any preemption": nothing kept -> no candidate. */
static int keep_node1(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct fw_preemption *in,
		      uint32_t n_in, const struct fw_node_list *nodes, struct fw_preemption **out, uint32_t *n_out,
		      struct err *e)
{
	(void)pod;
	(void)nodes;
	(void)e;
	bool none = ctx != NULL;
	*out = fw_cycle_alloc(c, (n_in + 1) * sizeof(**out));
	*n_out = 0;
	for (uint32_t i = 0; !none && i < n_in; i++)
		if (!strcmp(in[i].node_name, "node1"))
			(*out)[(*n_out)++] = in[i];
	return 0;
}

static int failing_preempt(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct fw_preemption *in,
			   uint32_t n_in, const struct fw_node_list *nodes, struct fw_preemption **out, uint32_t *n_out,
			   struct err *e)
{
	(void)ctx, (void)c, (void)pod, (void)in, (void)n_in, (void)nodes, (void)out, (void)n_out;
	return err_set(e, ERR_IO, "fake error");
}

/* an answer naming node1 without victims (upstream callExtenders' check) */
static int no_victims(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct fw_preemption *in,
		      uint32_t n_in, const struct fw_node_list *nodes, struct fw_preemption **out, uint32_t *n_out,
		      struct err *e)
{
	(void)ctx, (void)pod, (void)nodes, (void)e;
	*out = fw_cycle_alloc(c, (n_in + 1) * sizeof(**out));
	*n_out = 0;
	for (uint32_t i = 0; i < n_in; i++) {
		(*out)[*n_out] = in[i];
		if (!strcmp(in[i].node_name, "node1"))
			(*out)[*n_out].n_victims = 0;
		(*n_out)++;
	}
	return 0;
}

static void test_post_filter_extenders(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		struct fw_extender x[2];
		uint32_t n_x;
		enum fw_code want_code;
		const char *want_node, *want_msg;
	} cases[] = {
		{ "preemption result filtered out by extenders", { { .name = "FakeExtender1", .preempt = keep_node1 } }, 1,
		  FW_SUCCESS, "node1", "preemption: found a potential placement for pod on node node1, preempting 1 victims" },
		/* TestPreempt: "Scheduler extenders do not allow any preemption" */
		{ "Scheduler extenders do not allow any preemption",
		  { { .name = "FakeExtender1", .preempt = keep_node1, .ctx = (void *)1 } }, 1, FW_UNSCHEDULABLE, NULL,
		  "preemption: no candidate node for preemption" },
		/* TestPreempt: "One scheduler extender allows only node1, the other returns error but ignorable" */
		{ "One scheduler extender allows only node1, the other returns error but ignorable",
		  { { .name = "FakeExtender1", .preempt = failing_preempt, .ignorable = true },
		    { .name = "FakeExtender2", .preempt = keep_node1 } },
		  2, FW_SUCCESS, "node1", "preemption: found a potential placement for pod on node node1, preempting 1 victims" },
		/* preemption.go callExtenders: an error of a non-ignorable extender ends preemption */
		{ "extender error", { { .name = "FakeExtender1", .preempt = failing_preempt } }, 1, FW_ERROR, NULL,
		  "preemption: fake error" },
		{ "extender answer without victims", { { .name = "FakeExtender1", .preempt = no_victims } }, 1, FW_ERROR,
		  NULL, "preemption: expected at least one victim pod on node \"node1\"" },
		{ "ignorable extender answer without victims drops the node",
		  { { .name = "FakeExtender1", .preempt = no_victims, .ignorable = true } }, 1, FW_SUCCESS, "node2",
		  "preemption: found a potential placement for pod on node node2, preempting 1 victims" },
	};
	static const struct pspec pods[] = { { "p1", "node1", NULL, NULL, NULL, 0, NULL },
					     { "p2", "node2", NULL, NULL, NULL, 0, NULL },
					     { NULL, NULL, NULL, NULL, NULL, 0, NULL } };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env *e = calloc(1, sizeof(*e));
		assert_non_null(e);
		env_node(e, "node1", "pods=1");
		env_node(e, "node2", "pods=1");
		env_pods(e, pods);
		struct tl_profile_spec s = { .pre_filter = { "NodeResourcesFit" }, .filter = { "NodeResourcesFit" },
					     .post_filter = { "DefaultPreemption" }, .extenders = cases[i].x,
					     .n_extenders = cases[i].n_x };
		e->p = tl_profile(&s, NULL);
		e->c = fw_cycle_new(e->p);
		e->dp = tl_pl(e->p, "DefaultPreemption");
		fw_default_preemption_set_offset(e->dp, 0);
		struct api_pod *pod = make_pod(&(struct pspec){ "p", NULL, HIGH, NULL, NULL, 0, NULL });
		env_schedule(e, pod);
		assert_int_equal(e->res.code, FW_UNSCHEDULABLE);
		struct fw_post_filter_result r = { NULL };
		struct fw_status st;
		fw_status_reset(&st);
		enum fw_code code = e->dp->plugin->post_filter(e->dp, e->c, pod, &e->res.diag, &r, &st);
		char msg[FW_STATUS_TEXT_MAX];
		fw_status_message(&st, msg, sizeof(msg));
		if (code != cases[i].want_code || strcmp(msg, cases[i].want_msg) ||
		    (cases[i].want_node ? !r.nominated_node_name || strcmp(r.nominated_node_name, cases[i].want_node)
					: r.nominated_node_name != NULL))
			fail_msg("%s: got %s \"%s\" nominating %s", cases[i].name, fw_code_str(code), msg,
				 r.nominated_node_name ? r.nominated_node_name : "(nil)");
		api_pod_unref(pod);
		env_release(e);
		free(e);
	}
}

/* upstream framework/interface_test.go TestNodesForStatusCode (code Unschedulable), through
 * PostFilter: 4 nodes with a pod each and a pod of the same priority, so each node tried gets
 * "No preemption victims found" and the others "Preemption is not helpful". The last case is
 * interface.go NodesForStatusCode's branch for absent nodes with the code (a PreFilter's
 * Unschedulable). */
static void test_nodes_for_status_code(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		const char *status[4]; /* "U", "X" or NULL (absent) */
		enum fw_code absent;
		const char *want;
	} cases[] = {
		{ "No node should be attempted", { "X", "X", "X", "X" }, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling." },
		{ "No node should be attempted, as all are implicitly not matching the code", { NULL },
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling." },
		{ "UnschedulableAndUnresolvable status should be skipped but Unschedulable should be tried",
		  { "U", "X", "U", NULL }, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption "
		  "is not helpful for scheduling." },
		{ "absent nodes with the code are tried", { NULL, "X", NULL, NULL }, FW_UNSCHEDULABLE,
		  "preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption "
		  "victims found for incoming pod." },
	};
	static const struct pspec pods[] = { { "p1", "node1", NULL, NULL, NULL, 0, NULL },
					     { "p2", "node2", NULL, NULL, NULL, 0, NULL },
					     { "p3", "node3", NULL, NULL, NULL, 0, NULL },
					     { "p4", "node4", NULL, NULL, NULL, 0, NULL },
					     { NULL, NULL, NULL, NULL, NULL, 0, NULL } };
	static const char *const names[] = { "node1", "node2", "node3", "node4" };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env *e = calloc(1, sizeof(*e));
		assert_non_null(e);
		for (int k = 0; k < 4; k++)
			env_node(e, names[k], "pods=1");
		env_pods(e, pods);
		env_profile(e, FIT, NULL);
		struct api_pod *pod = make_pod(&(struct pspec){ "p", NULL, NULL, NULL, NULL, 0, NULL });
		env_schedule(e, pod);
		struct fw_node_status ns[4];
		struct fw_status sts[4];
		struct fw_diagnosis d = { .num_all_nodes = 4, .has_absent_status = true };
		fw_status_reset(&d.absent_status);
		d.absent_status.code = cases[i].absent;
		for (uint32_t k = 0; k < 4; k++) {
			if (!cases[i].status[k])
				continue;
			fw_status_reset(&sts[k]);
			sts[k].code = cases[i].status[k][0] == 'U' ? FW_UNSCHEDULABLE : FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
			ns[d.n_node_status++] = (struct fw_node_status){ e->nis[k].name, &sts[k] };
		}
		d.node_status = ns;
		struct fw_post_filter_result r = { NULL };
		struct fw_status st;
		fw_status_reset(&st);
		e->dp->plugin->post_filter(e->dp, e->c, pod, &d, &r, &st);
		char msg[FW_STATUS_TEXT_MAX];
		fw_status_message(&st, msg, sizeof(msg));
		if (strcmp(msg, cases[i].want))
			fail_msg("%s: got \"%s\"", cases[i].name, msg);
		api_pod_unref(pod);
		env_release(e);
		free(e);
	}
}

/* upstream schedule_one.go: Diagnosis.PostFilterMsg is the PostFilter status' message whatever
 * its code, so a successful preemption's ends the FitError message (oracle: the differential
 * test's "preemption: found a potential placement ..." messages); the result nominates the node. */
static void test_run_post_filter_success(void **state)
{
	(void)state;
	static const struct pspec pods[] = { { "p1", "node1", NULL, NULL, NULL, 0, NULL },
					     { NULL, NULL, NULL, NULL, NULL, 0, NULL } };
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_node(e, "node1", "pods=1");
	env_pods(e, pods);
	env_profile(e, FIT, NULL);
	struct api_pod *pod = make_pod(&(struct pspec){ "p", NULL, HIGH, NULL, NULL, 0, NULL });
	env_schedule(e, pod);
	assert_int_equal(e->res.code, FW_UNSCHEDULABLE);
	struct fw_post_filter_result r;
	struct fw_status st;
	assert_int_equal(fw_run_post_filter(e->p, e->c, pod, &e->res.diag, &r, &st), FW_SUCCESS);
	assert_string_equal(r.nominated_node_name, "node1");
	assert_string_equal(e->res.diag.post_filter_msg,
			    "preemption: found a potential placement for pod on node node1, preempting 1 victims");
	assert_string_equal(e->act_victims, "p1");
	api_pod_unref(pod);
	env_release(e);
	free(e);
}

/* ---------- TestDryRunPreemption ---------- */

/* upstream default_preemption_test.go TestDryRunPreemption: every node is a potential node; the
 * candidates as "node:victim,victim[!violations]" sorted by node (upstream sorts them too);
 * offset as its getOffsetRand seeded with 4 draws for 5 nodes. */
static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_dry_run_preemption(void **state)
{
	(void)state;
	static const char *const FIT_IPA[] = { "NodeResourcesFit", "InterPodAffinity", NULL };
	static const char *const PTS[] = { "PodTopologySpread", NULL };
	static const char *const FOO_ANTI =
		"\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":"
		"{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"Exists\"}]},\"topologyKey\":\"hostname\"}]}}";
	static const char *const SPREAD =
		"\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\",\"whenUnsatisfiable\":"
		"\"DoNotSchedule\",\"labelSelector\":{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"Exists\"}]}},"
		"{\"maxSkew\":1,\"topologyKey\":\"hostname\",\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":"
		"{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"Exists\"}]}}]";
	static const char *disrupted_p2[] = { "p2" };
	static const char *disrupted_p13[] = { "p1.3" };
	static const char *disrupted_p12[] = { "p1.2" };
	static const struct {
		const char *name;
		const char *const *filters;
		const char *nodes[5];
		struct pspec pod;
		struct pspec pods[6];
		int pdb;            /* 0 none; 1: app=foo allowed 1; 2: app=foo allowed 0; 3, 4, 5: allowed 1
				     * with disrupted p2 / p1.2 / p1.3 */
		int32_t pct, abs;   /* args; 0, 0: defaults */
		uint32_t offset;
		const char *want;
	} cases[] = {
		{ "a pod that does not fit on any node", FIT, { "node1", "node2" }, { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1", "node1", HIGH, VLARGE, NULL, 0, NULL }, { "p2", "node2", HIGH, VLARGE, NULL, 0, NULL } },
		  0, 0, 0, 0, "" },
		{ "a pod that fits on both nodes when lower priority pods are preempted", FIT, { "node1", "node2" },
		  { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, VLARGE, NULL, 0, NULL }, { "p2", "node2", MID, VLARGE, NULL, 0, NULL } }, 0, 0, 0,
		  0, "node1:p1 node2:p2" },
		{ "a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen",
		  FIT, { "node1", "node2" }, { "p", NULL, LOW, VLARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, VLARGE, NULL, 0, NULL }, { "p2", "node2", MID, VLARGE, NULL, 0, NULL } }, 0, 0, 0,
		  0, "" },
		{ "medium priority pod is preempted, but lower priority one stays as it is small", FIT, { "node1", "node2" },
		  { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", LOW, SMALL, NULL, 0, NULL }, { "p1.2", "node1", MID, LARGE, NULL, 0, NULL },
		    { "p2", "node2", HIGH, LARGE, NULL, 0, NULL } },
		  0, 0, 0, 0, "node1:p1.2" },
		{ "mixed priority pods are preempted", FIT, { "node1", "node2" }, { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, SMALL, NULL, 0, NULL }, { "p1.2", "node1", LOW, SMALL, NULL, 0, NULL },
		    { "p1.3", "node1", MID, MEDIUM, NULL, 0, NULL }, { "p1.4", "node1", HIGH, SMALL, NULL, 0, NULL },
		    { "p2", "node2", HIGH, LARGE, NULL, 0, NULL } },
		  0, 0, 0, 0, "node1:p1.2,p1.3" },
		{ "mixed priority pods are preempted, pick later StartTime one when priorities are equal", FIT,
		  { "node1", "node2" }, { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", LOW, SMALL, NULL, 5, NULL }, { "p1.2", "node1", LOW, SMALL, NULL, 4, NULL },
		    { "p1.3", "node1", MID, MEDIUM, NULL, 3, NULL }, { "p1.4", "node1", HIGH, SMALL, NULL, 2, NULL },
		    { "p2", "node2", HIGH, LARGE, NULL, 1, NULL } },
		  0, 0, 0, 0, "node1:p1.1,p1.3" },
		/* InterPodAffinity's RemovePod: the victim's anti-affinity no longer counts */
		{ "pod with anti-affinity is preempted", FIT_IPA, { "node1", "node2" },
		  { "p", NULL, HIGH, SMALL, "foo=", 0, NULL },
		  { { "p1.1", "node1", LOW, SMALL, "foo=", 0, FOO_ANTI }, { "p1.2", "node1", MID, SMALL, NULL, 0, NULL },
		    { "p1.3", "node1", HIGH, SMALL, NULL, 0, NULL }, { "p2", "node2", HIGH, SMALL, NULL, 0, NULL } },
		  0, 0, 0, 0, "node1:p1.1" },
		/* PodTopologySpread's RemovePod: the victims' matches leave the counts */
		{ "preemption to resolve pod topology spread filter failure", PTS,
		  { "node-a/zone1", "node-b/zone1", "node-x/zone2" }, { "p", NULL, HIGH, NULL, "foo=", 0, SPREAD },
		  { { "pod-a1", "node-a", MID, NULL, "foo=", 0, NULL }, { "pod-a2", "node-a", LOW, NULL, "foo=", 0, NULL },
		    { "pod-b1", "node-b", LOW, NULL, "foo=", 0, NULL }, { "pod-x1", "node-x", HIGH, NULL, "foo=", 0, NULL },
		    { "pod-x2", "node-x", HIGH, NULL, "foo=", 0, NULL } },
		  0, 0, 0, 0, "node-a:pod-a2 node-b:pod-b1" },
		{ "preemption with violation of same pdb", FIT, { "node1" }, { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, "app=foo", 0, NULL }, { "p1.2", "node1", MID, MEDIUM, "app=foo", 0, NULL } },
		  1, 0, 0, 0, "node1:p1.1,p1.2!1" },
		{ "preemption with violation of the pdb with pod whose eviction was processed, the victim doesn't belong to "
		  "DisruptedPods",
		  FIT, { "node1" }, { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, "app=foo", 0, NULL }, { "p1.2", "node1", MID, MEDIUM, "app=foo", 0, NULL } },
		  3, 0, 0, 0, "node1:p1.1,p1.2!1" },
		{ "preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to "
		  "DisruptedPods",
		  FIT, { "node1" }, { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, "app=foo", 0, NULL }, { "p1.2", "node1", MID, MEDIUM, "app=foo", 0, NULL } },
		  4, 0, 0, 0, "node1:p1.1,p1.2" },
		{ "preemption with violation of the pdb with pod whose eviction was processed, the victim which belongs to "
		  "DisruptedPods is treated as 'nonViolating'",
		  FIT, { "node1" }, { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, "app=foo", 0, NULL }, { "p1.2", "node1", MID, MEDIUM, "app=foo", 0, NULL },
		    { "p1.3", "node1", MID, MEDIUM, "app=foo", 0, NULL } },
		  5, 0, 0, 0, "node1:p1.1,p1.2,p1.3!1" },
		{ "all nodes are possible candidates, but DefaultPreemptionArgs limits to 2", FIT,
		  { "node1", "node2", "node3", "node4", "node5" }, { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, LARGE, NULL, 0, NULL }, { "p2", "node2", MID, LARGE, NULL, 0, NULL },
		    { "p3", "node3", MID, LARGE, NULL, 0, NULL }, { "p4", "node4", MID, LARGE, NULL, 0, NULL },
		    { "p5", "node5", MID, LARGE, NULL, 0, NULL } },
		  0, 40, 1, 4, "node1:p1 node5:p5" },
		{ "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2", FIT,
		  { "node1", "node2", "node3", "node4", "node5" }, { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, LARGE, NULL, 0, NULL }, { "p2", "node2", VHIGH, LARGE, NULL, 0, NULL },
		    { "p3", "node3", MID, LARGE, NULL, 0, NULL }, { "p4", "node4", MID, LARGE, NULL, 0, NULL },
		    { "p5", "node5", VHIGH, LARGE, NULL, 0, NULL } },
		  0, 40, 1, 4, "node1:p1 node3:p3" },
		{ "preemption offset across multiple scheduling cycles and wrap around (cycle=1 => offset=1)", FIT,
		  { "node1", "node2", "node3", "node4", "node5" }, { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, LARGE, NULL, 0, NULL }, { "p2", "node2", MID, LARGE, NULL, 0, NULL },
		    { "p3", "node3", MID, LARGE, NULL, 0, NULL }, { "p4", "node4", MID, LARGE, NULL, 0, NULL },
		    { "p5", "node5", MID, LARGE, NULL, 0, NULL } },
		  0, 40, 1, 1, "node2:p2 node3:p3" },
		{ "preemption offset across multiple scheduling cycles and wrap around (cycle=2 => offset=3)", FIT,
		  { "node1", "node2", "node3", "node4", "node5" }, { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, LARGE, NULL, 0, NULL }, { "p2", "node2", MID, LARGE, NULL, 0, NULL },
		    { "p3", "node3", MID, LARGE, NULL, 0, NULL }, { "p4", "node4", MID, LARGE, NULL, 0, NULL },
		    { "p5", "node5", MID, LARGE, NULL, 0, NULL } },
		  0, 40, 1, 3, "node4:p4 node5:p5" },
		{ "preemption looks past numCandidates until a non-PDB violating node is found", FIT,
		  { "node1", "node2", "node3", "node4", "node5" }, { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, LARGE, "app=foo", 0, NULL }, { "p2", "node2", MID, LARGE, "app=foo", 0, NULL },
		    { "p3", "node3", MID, LARGE, NULL, 0, NULL }, { "p4", "node4", MID, LARGE, NULL, 0, NULL },
		    { "p5", "node5", MID, LARGE, "app=foo", 0, NULL } },
		  2, 40, 2, 4, "node1:p1!1 node3:p3 node5:p5!1" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env *e = calloc(1, sizeof(*e));
		assert_non_null(e);
		for (uint32_t k = 0; k < 5 && cases[i].nodes[k]; k++)
			env_node(e, cases[i].nodes[k], NODE_VLARGE);
		env_pods(e, cases[i].pods);
		switch (cases[i].pdb) {
		case 1:
			env_pdb(e, "app=foo", 1, NULL, 0);
			break;
		case 2:
			env_pdb(e, "app=foo", 0, NULL, 0);
			break;
		case 3:
			env_pdb(e, "app=foo", 1, disrupted_p2, 1);
			break;
		case 5:
			env_pdb(e, "app=foo", 1, disrupted_p13, 1);
			break;
		case 4:
			env_pdb(e, "app=foo", 1, disrupted_p12, 1);
			break;
		}
		struct cfg_plugin_args args;
		memset(&args, 0, sizeof(args));
		args.preemption = (struct cfg_preemption_args){ cases[i].pct ? cases[i].pct : 10,
								cases[i].pct ? cases[i].abs : 100 };
		env_profile(e, cases[i].filters, &args);
		struct api_pod *pod = make_pod(&cases[i].pod);
		env_schedule(e, pod);
		int32_t num = fw_preemption_num_candidates(args.preemption.min_candidate_nodes_percentage,
							   args.preemption.min_candidate_nodes_absolute, (int32_t)e->n);
		struct fw_dry_run r;
		assert_int_equal(fw_dry_run_preemption(e->dp, e->c, pod, e->ptrs, e->n, cases[i].offset, (uint32_t)num, &r), 0);
		char got[512] = "", *items[8];
		for (uint32_t k = 0; k < r.n_cands; k++) {
			/* upstream sorts each candidate's victims by name, then the candidates */
			const char *vn[16];
			char v[256] = "";
			for (uint32_t m = 0; m < r.cands[k].n_victims && m < 16; m++)
				vn[m] = r.cands[k].victims[m]->meta.name;
			qsort(vn, r.cands[k].n_victims, sizeof(*vn), cmp_cstr);
			for (uint32_t m = 0; m < r.cands[k].n_victims && m < 16; m++)
				snprintf(v + strlen(v), sizeof(v) - strlen(v), "%s%s", m ? "," : "", vn[m]);
			items[k] = malloc(300);
			snprintf(items[k], 300, "%s:%s", r.cands[k].node_name, v);
			if (r.cands[k].num_pdb_violations)
				snprintf(items[k] + strlen(items[k]), 300 - strlen(items[k]), "!%lld",
					 (long long)r.cands[k].num_pdb_violations);
		}
		qsort(items, r.n_cands, sizeof(*items), cmp_cstr);
		for (uint32_t k = 0; k < r.n_cands; k++) {
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", k ? " " : "", items[k]);
			free(items[k]);
		}
		if (strcmp(got, cases[i].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
		api_pod_unref(pod);
		env_release(e);
		free(e);
	}
}

/* ---------- TestSelectBestCandidate ---------- */

/* upstream default_preemption_test.go TestSelectBestCandidate: a dry run over every node, then
 * SelectCandidate (pickOneNodeForPreemption). Where upstream accepts either of two nodes, csched's
 * pick is the first candidate. */
/* The dry run in batches on a pool gives what the walk one node at a time gives: the same
 * candidates in the same order with the same victims, the same statuses (several batches of
 * nodes, PDB violations, nodes without victims and nodes where the pod never fits). Not an
 * upstream table: upstream's parallel walk may check extra nodes, csched's must not differ. */
#define BIG_N 700
static void dry_run_big(struct fw_pool *pool, uint32_t offset, int32_t num, char *out, size_t size)
{
	static struct api_node *nodes[BIG_N];
	static struct node_info nis[BIG_N];
	static const struct node_info *ptrs[BIG_N];
	struct api_pod *pods[2 * BIG_N];
	uint32_t n_pods = 0;
	for (uint32_t i = 0; i < BIG_N; i++) {
		char name[32], pn[32];
		snprintf(name, sizeof(name), "n%u", i);
		/* every 7th node too small for the pod even empty; every 5th node's pods outrank it */
		nodes[i] = TOBJ_NODE(.name = name, .alloc = i % 7 == 3 ? SMALL ",pods=32" : NODE_VLARGE);
		tl_node_info(&nis[i], nodes[i], NULL, 0);
		ptrs[i] = &nis[i];
		for (int k = 0; k < 2; k++) {
			snprintf(pn, sizeof(pn), "p%u-%d", i, k);
			struct pspec ps = { pn, name, i % 5 == 1 ? VHIGH : (k ? MID : LOW), MEDIUM,
					    i % 3 == 0 ? "app=foo" : NULL, (int)(i % 50), NULL };
			pods[n_pods] = make_pod(&ps);
			assert_int_equal(node_info_add_pod(&nis[i], pods[n_pods], NULL), 0);
			n_pods++;
		}
	}
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_pdb(e, "app=foo", 1, NULL, 0);
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.preemption = (struct cfg_preemption_args){ 40, 100 };
	struct tl_profile_spec sp = { .post_filter = { "DefaultPreemption" }, .args = &args };
	sp.pre_filter[0] = sp.filter[0] = "NodeResourcesFit";
	e->p = tl_profile(&sp, pool);
	e->p->listers.pdb_each = env_pdb_each;
	e->p->listers.ctx = e;
	e->c = fw_cycle_new(e->p);
	e->dp = tl_pl(e->p, "DefaultPreemption");
	struct fw_node_list list = { .n = BIG_N, .nodes = ptrs };
	struct pspec pp = { "p", NULL, HIGH, VLARGE, NULL, 0, NULL };
	struct api_pod *pod = make_pod(&pp);
	struct err err = { 0 };
	fw_cycle_reset(e->c);
	assert_int_equal(fw_schedule_pod(e->p, e->c, &list, pod, NULL, &e->res, &err), 0);
	assert_int_equal(e->res.code, FW_UNSCHEDULABLE);
	if (num < 0)
		num = fw_preemption_num_candidates(40, 100, BIG_N);
	struct fw_dry_run r;
	assert_int_equal(fw_dry_run_preemption(e->dp, e->c, pod, ptrs, BIG_N, offset, (uint32_t)num, &r), 0);
	size_t off = (size_t)snprintf(out, size, "%u cands %u status %u errors:", r.n_cands, r.n_status, r.n_errors);
	for (uint32_t k = 0; k < r.n_cands && off < size; k++) {
		char v[256];
		victims_str(r.cands[k].victims, r.cands[k].n_victims, v, sizeof(v));
		off += (size_t)snprintf(out + off, size - off, " %s[%s]!%lld", r.cands[k].node_name, v,
					(long long)r.cands[k].num_pdb_violations);
	}
	off += (size_t)snprintf(out + off, off < size ? size - off : 0, " |");
	for (uint32_t k = 0; k < r.n_status && off < size; k++) {
		char m[FW_STATUS_TEXT_MAX];
		off += (size_t)snprintf(out + off, size - off, " %s:%s", r.status[k].node_name,
					fw_status_message(r.status[k].status, m, sizeof(m)));
	}
	api_pod_unref(pod);
	env_release(e);
	free(e);
	for (uint32_t i = 0; i < n_pods; i++)
		api_pod_unref(pods[i]);
	for (uint32_t i = 0; i < BIG_N; i++) {
		node_info_release(&nis[i]);
		api_node_unref(nodes[i]);
	}
}

/* What dry_run_big's cluster must give, by upstream's rules: walking from offset, nodes 3 mod 7
 * (too small) and 1 mod 5 (no lower-priority pod) are no candidates; the others lose both pods
 * (the MID one first: most important), and on nodes 0 mod 3 one of the two app=foo pods
 * violates the PDB (disruptionsAllowed 1); non-violating candidates first, the walk stopping at
 * the 280th candidate (40% of 700). */
static void expected_big(uint32_t offset, char *out, size_t size)
{
	static char ok[1 << 15], viol[1 << 15];
	size_t lo = 0, lv = 0;
	uint32_t n_ok = 0, n_viol = 0, n_status = 0;
	ok[0] = viol[0] = '\0';
	for (uint32_t w = 0; w < BIG_N; w++) {
		uint32_t i = (offset + w) % BIG_N;
		if (i % 5 == 1 || i % 7 == 3) {
			n_status++;
			continue;
		}
		bool v = i % 3 == 0;
		char *b = v ? viol : ok;
		size_t *l = v ? &lv : &lo;
		*l += (size_t)snprintf(b + *l, sizeof(ok) - *l, " n%u[p%u-1 p%u-0]!%d", i, i, i, v);
		if (v)
			n_viol++;
		else
			n_ok++;
		if (n_ok && n_ok + n_viol >= 280)
			break;
	}
	snprintf(out, size, "%u cands %u status 0 errors:%s%s |", n_ok + n_viol, n_status, ok, viol);
}

static void test_dry_run_parallel_equals_sequential(void **state)
{
	(void)state;
	struct err err = { 0 };
	struct fw_pool *pool = fw_pool_new(4, &err);
	assert_non_null(pool);
	size_t size = 1 << 17;
	char *seq = malloc(size), *par = malloc(size), *want = malloc(size);
	assert_non_null(seq);
	assert_non_null(par);
	assert_non_null(want);
	static const uint32_t offsets[] = { 0, 250, 699 };
	for (size_t i = 0; i < ARRAY_SIZE(offsets); i++) {
		dry_run_big(NULL, offsets[i], -1, seq, size);
		dry_run_big(pool, offsets[i], -1, par, size);
		if (strcmp(seq, par))
			fail_msg("offset %u: pool \"%.300s\"..., inline \"%.300s\"...", offsets[i], par, seq);
		expected_big(offsets[i], want, size);
		if (strncmp(seq, want, strlen(want)))
			fail_msg("offset %u: got \"%.400s\"..., want \"%.400s\"...", offsets[i], seq, want);
	}
	/* none wanted (upstream allows minCandidateNodesPercentage 1 with absolute 0 on few nodes):
	 * every node is checked, none kept (upstream's candidateList of capacity 0) */
	dry_run_big(pool, 0, 0, par, size);
	assert_true(!strncmp(par, "0 cands 220 status 0 errors: |", 30)); /* 140 + 100 - 20 nodes */
	free(seq);
	free(par);
	free(want);
	fw_pool_free(pool);
}

static void test_select_best_candidate(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		uint32_t n_nodes;
		struct pspec pod;
		struct pspec pods[13];
		const char *want;
	} cases[] = {
		{ "a pod that fits on both nodes when lower priority pods are preempted", 2,
		  { "p", NULL, HIGH, LARGE, NULL, 0, NULL },
		  { { "p1", "node1", MID, LARGE, NULL, 1, NULL }, { "p2", "node2", MID, LARGE, NULL, 1, NULL } },
		  "node1" /* upstream: node1 or node2 */ },
		{ "node with min highest priority pod is picked", 3, { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, NULL, 1, NULL }, { "p1.2", "node1", MID, LARGE, NULL, 1, NULL },
		    { "p2.1", "node2", MID, MEDIUM, NULL, 1, NULL }, { "p2.2", "node2", LOW, MEDIUM, NULL, 1, NULL },
		    { "p3.1", "node3", LOW, MEDIUM, NULL, 1, NULL }, { "p3.2", "node3", LOW, MEDIUM, NULL, 1, NULL } },
		  "node3" },
		{ "when highest priorities are the same, minimum sum of priorities is picked", 3,
		  { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, NULL, 1, NULL }, { "p1.2", "node1", MID, LARGE, NULL, 1, NULL },
		    { "p2.1", "node2", MID, LARGE, NULL, 1, NULL }, { "p2.2", "node2", LOW, MEDIUM, NULL, 1, NULL },
		    { "p3.1", "node3", MID, MEDIUM, NULL, 1, NULL }, { "p3.2", "node3", MID, MEDIUM, NULL, 1, NULL } },
		  "node2" },
		{ "when highest priority and sum are the same, minimum number of pods is picked", 3,
		  { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, SMALL, NULL, 1, NULL }, { "p1.2", "node1", NEG, SMALL, NULL, 1, NULL },
		    { "p1.3", "node1", MID, SMALL, NULL, 1, NULL }, { "p1.4", "node1", NEG, SMALL, NULL, 1, NULL },
		    { "p2.1", "node2", MID, LARGE, NULL, 1, NULL }, { "p2.2", "node2", NEG, MEDIUM, NULL, 1, NULL },
		    { "p3.1", "node3", MID, MEDIUM, NULL, 1, NULL }, { "p3.2", "node3", NEG, SMALL, NULL, 1, NULL },
		    { "p3.3", "node3", LOW, SMALL, NULL, 1, NULL } },
		  "node2" },
		{ "sum of adjusted priorities is considered", 3, { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, SMALL, NULL, 1, NULL }, { "p1.2", "node1", NEG, SMALL, NULL, 1, NULL },
		    { "p1.3", "node1", NEG, SMALL, NULL, 1, NULL }, { "p2.1", "node2", MID, LARGE, NULL, 1, NULL },
		    { "p2.2", "node2", NEG, MEDIUM, NULL, 1, NULL }, { "p3.1", "node3", MID, MEDIUM, NULL, 1, NULL },
		    { "p3.2", "node3", NEG, SMALL, NULL, 1, NULL }, { "p3.3", "node3", LOW, SMALL, NULL, 1, NULL } },
		  "node2" },
		{ "non-overlapping lowest high priority, sum priorities, and number of pods", 4,
		  { "p", NULL, VHIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, SMALL, NULL, 1, NULL }, { "p1.2", "node1", LOW, SMALL, NULL, 1, NULL },
		    { "p1.3", "node1", LOW, SMALL, NULL, 1, NULL }, { "p2.1", "node2", HIGH, LARGE, NULL, 1, NULL },
		    { "p3.1", "node3", MID, MEDIUM, NULL, 1, NULL }, { "p3.2", "node3", LOW, SMALL, NULL, 1, NULL },
		    { "p3.3", "node3", LOW, SMALL, NULL, 1, NULL }, { "p3.4", "node3", LOW, MEDIUM, NULL, 1, NULL },
		    { "p4.1", "node4", MID, MEDIUM, NULL, 1, NULL }, { "p4.2", "node4", MID, SMALL, NULL, 1, NULL },
		    { "p4.3", "node4", MID, SMALL, NULL, 1, NULL }, { "p4.4", "node4", NEG, SMALL, NULL, 1, NULL } },
		  "node1" },
		{ "same priority, same number of victims, different start time for each node's pod", 3,
		  { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, NULL, 3, NULL }, { "p1.2", "node1", MID, MEDIUM, NULL, 3, NULL },
		    { "p2.1", "node2", MID, MEDIUM, NULL, 4, NULL }, { "p2.2", "node2", MID, MEDIUM, NULL, 4, NULL },
		    { "p3.1", "node3", MID, MEDIUM, NULL, 2, NULL }, { "p3.2", "node3", MID, MEDIUM, NULL, 2, NULL } },
		  "node2" },
		{ "same priority, same number of victims, different start time for all pods", 3,
		  { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", MID, MEDIUM, NULL, 5, NULL }, { "p1.2", "node1", MID, MEDIUM, NULL, 3, NULL },
		    { "p2.1", "node2", MID, MEDIUM, NULL, 6, NULL }, { "p2.2", "node2", MID, MEDIUM, NULL, 2, NULL },
		    { "p3.1", "node3", MID, MEDIUM, NULL, 4, NULL }, { "p3.2", "node3", MID, MEDIUM, NULL, 7, NULL } },
		  "node3" },
		{ "different priority, same number of victims, different start time for all pods", 3,
		  { "p", NULL, HIGH, VLARGE, NULL, 0, NULL },
		  { { "p1.1", "node1", LOW, MEDIUM, NULL, 5, NULL }, { "p1.2", "node1", MID, MEDIUM, NULL, 3, NULL },
		    { "p2.1", "node2", MID, MEDIUM, NULL, 7, NULL }, { "p2.2", "node2", LOW, MEDIUM, NULL, 2, NULL },
		    { "p3.1", "node3", LOW, MEDIUM, NULL, 4, NULL }, { "p3.2", "node3", MID, MEDIUM, NULL, 6, NULL } },
		  "node2" },
	};
	static const char *const names[] = { "node1", "node2", "node3", "node4" };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env *e = calloc(1, sizeof(*e));
		assert_non_null(e);
		for (uint32_t k = 0; k < cases[i].n_nodes; k++)
			env_node(e, names[k], NODE_VLARGE);
		env_pods(e, cases[i].pods);
		env_profile(e, FIT, NULL);
		struct api_pod *pod = make_pod(&cases[i].pod);
		env_schedule(e, pod);
		struct fw_dry_run r;
		assert_int_equal(fw_dry_run_preemption(e->dp, e->c, pod, e->ptrs, e->n, 0,
						       (uint32_t)fw_preemption_num_candidates(10, 100, (int32_t)e->n), &r),
				 0);
		int32_t best = r.n_cands == 1 ? 0 : fw_pick_one_node_for_preemption(r.cands, r.n_cands);
		assert_true(best >= 0);
		if (strcmp(r.cands[best].node_name, cases[i].want))
			fail_msg("%s: got %s, want %s", cases[i].name, r.cands[best].node_name, cases[i].want);
		api_pod_unref(pod);
		env_release(e);
		free(e);
	}
	assert_int_equal(fw_pick_one_node_for_preemption(NULL, 0), -1);
}

/* ---------- TestPodEligibleToPreemptOthers ---------- */

/* upstream default_preemption_test.go TestPodEligibleToPreemptOthers (single pods) */
static void test_pod_eligible_to_preempt_others(void **state)
{
	(void)state;
	static const char *const TERMINATING =
		"\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":\"PreemptionByScheduler\"}]";
	static const struct {
		const char *name;
		const char *pod_spec, *pod_prio, *nominated;
		const char *victim_prio, *victim_status;
		bool victim_deleted;
		enum fw_code nominated_status;
		const char *want; /* NULL: eligible */
	} cases[] = {
		{ "Pod with nominated node", NULL, HIGH, "node1", LOW, TERMINATING, true, FW_UNSCHEDULABLE,
		  "not eligible due to a terminating pod on the nominated node." },
		{ "Pod without nominated node", NULL, HIGH, NULL, LOW, TERMINATING, true, FW_UNSCHEDULABLE, NULL },
		{ "Pod with 'PreemptNever' preemption policy", "\"preemptionPolicy\":\"Never\"", HIGH, NULL, LOW, NULL, false,
		  FW_UNSCHEDULABLE, "not eligible due to preemptionPolicy=Never." },
		{ "preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition", NULL, HIGH,
		  "node1", LOW, TERMINATING, true, FW_UNSCHEDULABLE,
		  "not eligible due to a terminating pod on the nominated node." },
		{ "non-victim Pods terminating", NULL, HIGH, "node1", LOW, NULL, true, FW_UNSCHEDULABLE, NULL },
		/* default_preemption.go: a nominated node UnschedulableAndUnresolvable is tried again */
		{ "nominated node UnschedulableAndUnresolvable", NULL, HIGH, "node1", LOW, TERMINATING, true,
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, NULL },
		/* isPreemptionAllowed: a terminating pod of equal priority is no victim of the pod */
		{ "terminating pod of equal priority", NULL, HIGH, "node1", HIGH, TERMINATING, true, FW_UNSCHEDULABLE, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env *e = calloc(1, sizeof(*e));
		assert_non_null(e);
		env_node(e, "node1", NODE_VLARGE);
		char meta[64] = "";
		struct api_pod *victim = TOBJ_POD(.name = "p1", .node = "node1", .priority = cases[i].victim_prio,
						  .status = cases[i].victim_status);
		if (cases[i].victim_deleted) {
			char *m = tobj_pod_manifest(&(struct tobj_pod){ .name = "p1", .node = "node1",
									.priority = cases[i].victim_prio,
									.status = cases[i].victim_status });
			/* deletionTimestamp set: the pod is terminating */
			char *at = strstr(m, "\"metadata\":{");
			assert_non_null(at);
			size_t off = (size_t)(at - m) + strlen("\"metadata\":{");
			char *j = malloc(strlen(m) + 64);
			snprintf(j, strlen(m) + 64, "%.*s\"deletionTimestamp\":\"2020-01-01T00:00:00Z\",%s", (int)off, m, m + off);
			api_pod_unref(victim);
			victim = tobj_pod_json("%s", j);
			free(j);
			free(m);
		}
		(void)meta;
		e->pods[e->n_pods++] = victim;
		assert_int_equal(node_info_add_pod(&e->nis[0], victim, NULL), 0);
		env_profile(e, FIT, NULL);
		struct api_pod *pod = TOBJ_POD(.name = "p", .priority = cases[i].pod_prio, .spec = cases[i].pod_spec,
					       .nominated = cases[i].nominated);
		env_schedule(e, pod);
		const char *why = fw_pod_eligible_to_preempt_others(e->c, pod, cases[i].nominated_status);
		if (cases[i].want ? !why || strcmp(why, cases[i].want) : why != NULL)
			fail_msg("%s: got %s", cases[i].name, why ? why : "(eligible)");
		api_pod_unref(pod);
		env_release(e);
		free(e);
	}
}

/* ---------- util_test.go ---------- */

/* upstream util_test.go TestPodTerminatingByPreemption */
static void test_pod_terminating_by_preemption(void **state)
{
	(void)state;
	static const struct {
		const char *name, *json;
		bool want;
	} cases[] = {
		{ "pod without deletion timestamp",
		  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[]},\"status\":{\"conditions\":[{\"type\":"
		  "\"DisruptionTarget\",\"status\":\"True\",\"reason\":\"PreemptionByScheduler\"}]}}",
		  false },
		{ "pod with deletion timestamp but no DisruptionTarget condition",
		  "{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":\"2020-01-01T00:00:00Z\"},\"spec\":{\"containers\":[]}}",
		  false },
		{ "pod with deletion timestamp and DisruptionTarget condition with wrong reason",
		  "{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":\"2020-01-01T00:00:00Z\"},\"spec\":{\"containers\":[]},"
		  "\"status\":{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":\"Other\"}]}}",
		  false },
		{ "pod with deletion timestamp and DisruptionTarget condition with status false",
		  "{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":\"2020-01-01T00:00:00Z\"},\"spec\":{\"containers\":[]},"
		  "\"status\":{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"False\",\"reason\":"
		  "\"PreemptionByScheduler\"}]}}",
		  false },
		{ "pod terminating by preemption",
		  "{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":\"2020-01-01T00:00:00Z\"},\"spec\":{\"containers\":[]},"
		  "\"status\":{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":"
		  "\"PreemptionByScheduler\"}]}}",
		  true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct api_pod *p = tobj_pod_json("%s", cases[i].json);
		if (fw_pod_terminating_by_preemption(p) != cases[i].want)
			fail_msg("%s", cases[i].name);
		api_pod_unref(p);
	}
}

/* upstream util_test.go TestMoreImportantVictim (single pods) */
static void test_more_important_victim(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		struct pspec a, b;
		bool want;
	} cases[] = {
		{ "higher priority is more important", { "a", NULL, HIGH, NULL, NULL, 1, NULL },
		  { "b", NULL, LOW, NULL, NULL, 1, NULL }, true },
		{ "lower priority is less important", { "a", NULL, LOW, NULL, NULL, 1, NULL },
		  { "b", NULL, HIGH, NULL, NULL, 1, NULL }, false },
		{ "same priority, earlier start is more important", { "a", NULL, MID, NULL, NULL, 1, NULL },
		  { "b", NULL, MID, NULL, NULL, 2, NULL }, true },
		{ "same priority, later start is less important", { "a", NULL, MID, NULL, NULL, 2, NULL },
		  { "b", NULL, MID, NULL, NULL, 1, NULL }, false },
		/* GetPodStartTime: no startTime = now, after any real start */
		{ "same priority, no start time is less important", { "a", NULL, MID, NULL, NULL, 0, NULL },
		  { "b", NULL, MID, NULL, NULL, 1, NULL }, false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct api_pod *a = make_pod(&cases[i].a), *b = make_pod(&cases[i].b);
		if (fw_more_important_victim(a, b) != cases[i].want)
			fail_msg("%s", cases[i].name);
		api_pod_unref(a);
		api_pod_unref(b);
	}
}

/* upstream util_test.go TestFilterVictimsWithPDBViolation (single-pod victims): victims by index
 * into vs[] (viNoPDBMatch, viMatchPDB, viMatchPDB2, viMatchMultiplePDBs), the result as
 * "violating | non-violating" indices. */
static void test_filter_victims_with_pdb_violation(void **state)
{
	(void)state;
	static const char *disrupted_p1[] = { "p1" };
	static const struct pspec vs[] = {
		{ "p1", NULL, LOW, NULL, "app=foo", 0, NULL },             /* viNoPDBMatch (namespace other below) */
		{ "p1", NULL, LOW, NULL, "app=foo", 0, NULL },             /* viMatchPDB */
		{ "p2", NULL, LOW, NULL, "app=foo", 0, NULL },             /* viMatchPDB2 */
		{ "p1", NULL, LOW, NULL, "app=foo,tier=backend", 0, NULL }, /* viMatchMultiplePDBs */
	};
	static const struct {
		const char *name;
		int victims[3]; /* -1 ends */
		struct {
			const char *match; /* NULL ends; "" = an empty selector */
			int32_t allowed;
			bool disrupted_p1;
		} pdbs[3];
		const char *want;
	} cases[] = {
		{ "no victims, no PDBs", { -1 }, { { NULL, 0, false } }, "|" },
		{ "victim with no matching PDBs", { 0, -1 }, { { "app=bar", 0, false } }, "| 0" },
		{ "victim matching PDB, adequate DisruptionsAllowed", { 1, -1 }, { { "app=foo", 1, false } }, "| 1" },
		{ "victim matching PDB, no DisruptionsAllowed", { 1, -1 }, { { "app=foo", 0, false } }, "1 |" },
		{ "multiple victims matching the same PDB", { 1, 2, -1 }, { { "app=foo", 1, false } }, "2 | 1" },
		{ "pod in DisruptedPods is ignored", { 1, -1 }, { { "app=foo", 0, true } }, "| 1" },
		{ "PDB with empty selector", { 1, -1 }, { { "", 0, false } }, "| 1" },
		{ "Multiple PDBs", { 3, -1 }, { { "app=foo", 1, false }, { "tier=backend", 0, false } }, "3 |" },
	};
	struct api_pod *pods[4];
	for (int k = 0; k < 4; k++)
		pods[k] = k ? make_pod(&vs[k]) : TOBJ_POD(.name = "p1", .ns = "other", .labels = "app=foo");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env *e = calloc(1, sizeof(*e));
		assert_non_null(e);
		for (int k = 0; k < 3 && cases[i].pdbs[k].match; k++)
			env_pdb(e, cases[i].pdbs[k].match, cases[i].pdbs[k].allowed,
				cases[i].pdbs[k].disrupted_p1 ? disrupted_p1 : NULL, cases[i].pdbs[k].disrupted_p1);
		struct api_pod *victims[3], *viol[3], *ok[3];
		uint32_t n = 0, nv, no;
		for (; n < 3 && cases[i].victims[n] >= 0; n++)
			victims[n] = pods[cases[i].victims[n]];
		assert_int_equal(fw_filter_victims_with_pdb_violation(NULL, env_pdb_each, e, victims, n, viol, &nv, ok, &no),
				 0);
		char got[64] = "";
		for (uint32_t k = 0; k < nv; k++)
			for (int m = 0; m < 4; m++)
				if (viol[k] == pods[m])
					snprintf(got + strlen(got), sizeof(got) - strlen(got), "%d ", m);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "|");
		for (uint32_t k = 0; k < no; k++)
			for (int m = 0; m < 4; m++)
				if (ok[k] == pods[m])
					snprintf(got + strlen(got), sizeof(got) - strlen(got), " %d", m);
		if (strcmp(got, cases[i].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, got, cases[i].want);
		env_release(e);
		free(e);
	}
	for (int k = 0; k < 4; k++)
		api_pod_unref(pods[k]);
}

/* upstream default_preemption.go calculateNumCandidates, as TestDryRunPreemption's args use it */
static void test_num_candidates(void **state)
{
	(void)state;
	assert_int_equal(fw_preemption_num_candidates(10, 100, 5), 5);
	assert_int_equal(fw_preemption_num_candidates(40, 1, 5), 2);
	assert_int_equal(fw_preemption_num_candidates(40, 2, 5), 2);
	assert_int_equal(fw_preemption_num_candidates(10, 100, 5000), 500);
	assert_int_equal(fw_preemption_num_candidates(0, 100, 5000), 100);
}

/* upstream TestPreEnqueue: with async preemption a pod whose preemption runs waits; and
 * EventsToRegister: AssignedPod Delete with a hint that always skips. */
static bool running_p;
static bool is_running(void *ctx, const char *uid)
{
	(void)ctx;
	return running_p && !strcmp(uid, "uid-p");
}

static void test_pre_enqueue(void **state)
{
	(void)state;
	struct tl_profile_spec s = { .pre_enqueue = { "DefaultPreemption" }, .post_filter = { "DefaultPreemption" } };
	struct fw_profile *p = tl_profile(&s, NULL);
	p->preempt.is_running = is_running;
	const struct fw_pl *dp = tl_pl(p, "DefaultPreemption");
	struct api_pod *pod = TOBJ_POD(.name = "p");
	struct fw_status st;
	char msg[FW_STATUS_TEXT_MAX];
	running_p = false;
	fw_status_reset(&st);
	assert_int_equal(dp->plugin->pre_enqueue(dp, pod, &st), FW_SUCCESS);
	running_p = true;
	fw_status_reset(&st);
	assert_int_equal(dp->plugin->pre_enqueue(dp, pod, &st), FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	assert_string_equal(fw_status_message(&st, msg, sizeof(msg)), "waiting for the preemption for this pod to be finished");
	assert_int_equal(dp->plugin->n_events, 1);
	assert_int_equal(dp->plugin->events[0].event.resource, QUEUE_RES_ASSIGNED_POD);
	assert_int_equal(dp->plugin->events[0].event.actions, QUEUE_ACT_DELETE);
	assert_int_equal(dp->plugin->events[0].hint(dp, pod, pod, NULL), QUEUE_HINT_SKIP);
	api_pod_unref(pod);
	fw_profile_free(p);
}

/* ---------- RemovePod of the plugins that count pods in PreFilter ----------
 *
 * upstream's "pure RemovePod" check (interpodaffinity filtering_test.go
 * TestPreFilterStateAddRemovePod, podtopologyspread filtering_test.go TestPreFilterStateRemovePod):
 * the state built with every pod, after RemovePod of one, equals the state built without it. In
 * csched the removal shows where preemption filters: a copy of the pod's node without it, in a
 * dry-running cycle. So for every bound pod of each case: Filter on that copy must give the
 * verdict Filter gives on the node in a cluster without the pod. */
#define EQ_MAX 8

struct eq_case {
	const char *name;
	const char *nodes[EQ_MAX]; /* node manifests */
	const char *pods[EQ_MAX];  /* bound pod manifests */
	const char *pending;
	const char *removable;     /* NULL: every pod; else the names of the pods removed, ","-separated */
	const char *pvcs[4];       /* "namespace/name=AccessMode" in the PVC lister */
};

static const struct eq_case *eq_cur;

static struct api_pvc *eq_pvc(void *ctx, const char *ns, const char *name)
{
	(void)ctx;
	for (int i = 0; i < 4 && eq_cur->pvcs[i]; i++) {
		char want[128];
		snprintf(want, sizeof(want), "%s/%s=", ns, name);
		if (strncmp(eq_cur->pvcs[i], want, strlen(want)))
			continue;
		char json[256];
		snprintf(json, sizeof(json),
			 "{\"metadata\":{\"namespace\":\"%s\",\"name\":\"%s\"},\"spec\":{\"accessModes\":[\"%s\"]}}", ns,
			 name, eq_cur->pvcs[i] + strlen(want));
		struct err e = { 0 };
		struct api_pvc *p = api_pvc_decode_json(json, strlen(json), &e);
		if (!p)
			fail_msg("pvc: %s", e.msg);
		return p;
	}
	return NULL;
}

/* The Filter verdict of plugin on the node of pod skip: EQ_WITHOUT: a normal cycle over the
 * pods but skip; EQ_COPY: a copy of the node without pod skip in a dry-running cycle over every
 * pod; EQ_ALL: the node in a normal cycle over every pod. */
enum eq_mode { EQ_WITHOUT, EQ_COPY, EQ_ALL };

static enum fw_code eq_filter(const char *plugin, const struct eq_case *k, int skip, enum eq_mode mode, char *reason,
			      size_t size)
{
	bool copy = mode == EQ_COPY;
	struct api_node *nodes[EQ_MAX];
	struct api_pod *pods[EQ_MAX];
	struct node_info nis[EQ_MAX], cp;
	const struct node_info *ptrs[EQ_MAX];
	uint32_t n = 0, np = 0;
	for (; n < EQ_MAX && k->nodes[n]; n++) {
		nodes[n] = tobj_node_json("%s", k->nodes[n]);
		tl_node_info(&nis[n], nodes[n], NULL, 0);
		ptrs[n] = &nis[n];
	}
	int at = -1;
	for (; np < EQ_MAX && k->pods[np]; np++) {
		pods[np] = tobj_pod_json("%s", k->pods[np]);
		for (uint32_t i = 0; i < n; i++)
			if (!strcmp(nis[i].name, pods[np]->node_name)) {
				if ((int)np == skip)
					at = (int)i;
				if ((int)np != skip || mode != EQ_WITHOUT)
					assert_int_equal(node_info_add_pod(&nis[i], pods[np], NULL), 0);
			}
	}
	assert_true(at >= 0);
	struct fw_node_list list = { .n = n, .nodes = ptrs };
	struct tl_profile_spec s = { .pre_filter = { plugin }, .filter = { plugin } };
	struct fw_profile *p = tl_profile(&s, NULL);
	eq_cur = k;
	p->listers.pvc = eq_pvc;
	struct fw_cycle *c = fw_cycle_new(p);
	struct api_pod *pod = tobj_pod_json("%s", k->pending);
	static struct fw_schedule_result res;
	struct err e = { 0 };
	assert_int_equal(fw_schedule_pod(p, c, &list, pod, NULL, &res, &e), 0);
	const struct fw_pl *pl = tl_pl(p, plugin);
	const struct node_info *ni = &nis[at];
	if (copy) {
		memset(&cp, 0, sizeof(cp));
		assert_int_equal(node_info_copy(&cp, ni, NULL), 0);
		assert_int_equal(node_info_remove_pod(&cp, pods[skip], NULL), 0);
		fw_cycle_set_preempting(c, true);
		ni = &cp;
	}
	struct fw_status st;
	fw_status_reset(&st);
	enum fw_code code = c->skip_filter[pl->index] ? FW_SUCCESS : pl->plugin->filter(pl, c, pod, ni, &st);
	fw_status_message(&st, reason, size);
	if (copy)
		node_info_release(&cp);
	api_pod_unref(pod);
	fw_cycle_free(c);
	fw_profile_free(p);
	for (uint32_t i = 0; i < n; i++) {
		node_info_release(&nis[i]);
		api_node_unref(nodes[i]);
	}
	for (uint32_t i = 0; i < np; i++)
		api_pod_unref(pods[i]);
	return code;
}

/* Checks every case; returns how many removals changed the verdict on the node (the removal had
 * to be seen). */
static int check_remove_pod(const char *plugin, const struct eq_case *cases, size_t n_cases)
{
	int flips = 0;
	for (size_t i = 0; i < n_cases; i++) {
		for (int k = 0; k < EQ_MAX && cases[i].pods[k]; k++) {
			if (cases[i].removable) {
				struct api_pod *pk = tobj_pod_json("%s", cases[i].pods[k]);
				bool listed = strstr(cases[i].removable, pk->meta.name) != NULL;
				api_pod_unref(pk);
				if (!listed)
					continue;
			}
			char want_r[FW_STATUS_TEXT_MAX], got_r[FW_STATUS_TEXT_MAX], before_r[FW_STATUS_TEXT_MAX];
			enum fw_code want = eq_filter(plugin, &cases[i], k, EQ_WITHOUT, want_r, sizeof(want_r));
			enum fw_code got = eq_filter(plugin, &cases[i], k, EQ_COPY, got_r, sizeof(got_r));
			enum fw_code before = eq_filter(plugin, &cases[i], k, EQ_ALL, before_r, sizeof(before_r));
			if (want != got || strcmp(want_r, got_r))
				fail_msg("%s: %s without pod %d: got %s \"%s\", want %s \"%s\"", plugin, cases[i].name, k,
					 fw_code_str(got), got_r, fw_code_str(want), want_r);
			flips += before != want;
		}
	}
	return flips;
}

#define NODE_J(name, labels) "{\"metadata\":{\"name\":\"" name "\",\"labels\":{" labels "}}}"
#define POD_J(name, node, labels, spec) \
	"{\"metadata\":{\"name\":\"" name "\",\"uid\":\"" name "\",\"labels\":{" labels "}},\"spec\":{\"nodeName\":\"" \
	node "\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]" spec "}}"
#define PENDING_J(labels, spec) \
	"{\"metadata\":{\"name\":\"pending\",\"uid\":\"pending\",\"labels\":{" labels "}},\"spec\":{\"containers\":" \
	"[{\"name\":\"c\",\"image\":\"i\"}]" spec "}}"

#define L1 "\"region\":\"r1\",\"zone\":\"z11\""
#define L2 "\"region\":\"r1\",\"zone\":\"z12\""
#define L3 "\"region\":\"r2\",\"zone\":\"z21\""
#define FOOBAR "\"foo\":\"bar\""
#define TERM_FOO_BAR(key) \
	"{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"In\",\"values\":[\"bar\"]}]}," \
	"\"topologyKey\":\"" key "\"}"
#define TERMS_COMPLEX \
	"{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"In\",\"values\":[\"bar\",\"buzz\"]}]}," \
	"\"topologyKey\":\"region\"},{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"service\",\"operator\":" \
	"\"NotIn\",\"values\":[\"bar\",\"security\",\"test\"]}]},\"topologyKey\":\"zone\"}"
#define ANTI_FOO_BAR ",\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[" \
	TERM_FOO_BAR("region") "]}}"
#define ANTI_COMPLEX ",\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[" \
	TERMS_COMPLEX "]}}"
#define AFF_COMPLEX ",\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[" \
	TERMS_COMPLEX "]}}"

static void test_inter_pod_affinity_remove_pod(void **state)
{
	(void)state;
	/* interpodaffinity filtering_test.go TestPreFilterStateAddRemovePod (addedPod among the pods) */
	static const struct eq_case cases[] = {
		{ "preFilterState anti-affinity terms are updated correctly after adding and removing a pod (1)",
		  { NODE_J("nodeA", L1), NODE_J("nodeB", L2), NODE_J("nodeC", L3) },
		  { POD_J("p1", "nodeA", FOOBAR, ""), POD_J("p2", "nodeC", "", ANTI_FOO_BAR),
		    POD_J("addedPod", "nodeB", FOOBAR, ANTI_FOO_BAR) },
		  PENDING_J(FOOBAR, ANTI_FOO_BAR), NULL, { NULL } },
		{ "preFilterState anti-affinity terms are updated correctly after adding and removing a pod (2)",
		  { NODE_J("nodeA", L1), NODE_J("nodeB", L2), NODE_J("nodeC", L3) },
		  { POD_J("p1", "nodeA", FOOBAR, ""), POD_J("p2", "nodeC", "", ANTI_FOO_BAR),
		    POD_J("addedPod", "nodeA", FOOBAR, ANTI_COMPLEX) },
		  PENDING_J(FOOBAR, ANTI_COMPLEX), NULL, { NULL } },
		{ "preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
		  { NODE_J("nodeA", L1), NODE_J("nodeB", L2), NODE_J("nodeC", L3) },
		  { POD_J("p1", "nodeA", FOOBAR, ""),
		    POD_J("p2", "nodeC", "",
			  ",\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":["
			  TERM_FOO_BAR("region") "]},\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":["
			  TERMS_COMPLEX "]}}"),
		    POD_J("addedPod", "nodeA", FOOBAR, ANTI_COMPLEX) },
		  PENDING_J(FOOBAR, AFF_COMPLEX), NULL, { NULL } },
		{ "preFilterState anti-affinity terms with both hostname and non-hostname are updated correctly after adding "
		  "and removing a pod",
		  { NODE_J("nodeA", "\"region\":\"r1\",\"zone\":\"z11\",\"kubernetes.io/hostname\":\"nodeA\""),
		    NODE_J("nodeB", "\"region\":\"r1\",\"zone\":\"z12\",\"kubernetes.io/hostname\":\"nodeB\"") },
		  { POD_J("p1", "nodeA", FOOBAR, ""),
		    POD_J("addedPod", "nodeA", FOOBAR,
			  ",\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":["
			  TERM_FOO_BAR("region") "," TERM_FOO_BAR("kubernetes.io/hostname") "]}}") },
		  PENDING_J(FOOBAR, ANTI_FOO_BAR), NULL, { NULL } },
		/* TestRemovePodHostScopedAffinityCount: removing the only matching pod lets the pending
		 * pod's self-affinity through (the counts map empties) */
		{ "TestRemovePodHostScopedAffinityCount",
		  { NODE_J("nodeA", "\"kubernetes.io/hostname\":\"nodeA\""),
		    NODE_J("nodeB", "\"kubernetes.io/hostname\":\"nodeB\"") },
		  { POD_J("existing", "nodeA", FOOBAR, "") },
		  PENDING_J(FOOBAR, ",\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":["
				    TERM_FOO_BAR("kubernetes.io/hostname") "]}}"),
		  NULL, { NULL } },
	};
	assert_true(check_remove_pod("InterPodAffinity", cases, ARRAY_SIZE(cases)) > 0);
}

#define FOO_SEL "{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"Exists\"}]}"
#define SPREAD_ON(key) \
	"{\"maxSkew\":1,\"topologyKey\":\"" key "\",\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":" FOO_SEL "}"
#define NODE_ZN(name, zone) NODE_J(name, "\"zone\":\"" zone "\",\"node\":\"" name "\"")
#define FOO "\"foo\":\"\""

static void test_pod_topology_spread_remove_pod(void **state)
{
	(void)state;
	/* podtopologyspread filtering_test.go TestPreFilterStateRemovePod (the deletedPodIdx cases) */
	static const struct eq_case cases[] = {
		{ "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
		  { NODE_ZN("node-a", "zone1"), NODE_ZN("node-b", "zone1"), NODE_ZN("node-x", "zone2") },
		  { POD_J("p-a1", "node-a", FOO, ""), POD_J("p-b1", "node-b", FOO, ""), POD_J("p-x1", "node-x", FOO, "") },
		  PENDING_J(FOO, ",\"topologySpreadConstraints\":[" SPREAD_ON("zone") "]"), "p-a1", { NULL } },
		{ "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
		  { NODE_ZN("node-a", "zone1"), NODE_ZN("node-b", "zone1"), NODE_ZN("node-x", "zone2"),
		    NODE_ZN("node-y", "zone2") },
		  { POD_J("p-a1", "node-a", FOO, ""), POD_J("p-b1", "node-b", FOO, ""), POD_J("p-x1", "node-x", FOO, ""),
		    POD_J("p-y1", "node-y", FOO, "") },
		  PENDING_J(FOO, ",\"topologySpreadConstraints\":[" SPREAD_ON("zone") "]"), "p-a1", { NULL } },
		{ "delete an irrelevant pod won't help",
		  { NODE_ZN("node-a", "zone1"), NODE_ZN("node-b", "zone1"), NODE_ZN("node-x", "zone2"),
		    NODE_ZN("node-y", "zone2") },
		  { POD_J("p-a0", "node-a", "\"bar\":\"\"", ""), POD_J("p-a1", "node-a", FOO, ""),
		    POD_J("p-b1", "node-b", FOO, ""), POD_J("p-x1", "node-x", FOO, ""), POD_J("p-y1", "node-y", FOO, "") },
		  PENDING_J(FOO, ",\"topologySpreadConstraints\":[" SPREAD_ON("zone") "]"), "p-a0", { NULL } },
		{ "two spreadConstraints",
		  { NODE_ZN("node-a", "zone1"), NODE_ZN("node-b", "zone1"), NODE_ZN("node-x", "zone2") },
		  { POD_J("p-a1", "node-a", FOO, ""), POD_J("p-a2", "node-a", FOO, ""), POD_J("p-b1", "node-b", FOO, ""),
		    POD_J("p-x1", "node-x", FOO, ""), POD_J("p-x2", "node-x", FOO, "") },
		  PENDING_J(FOO, ",\"topologySpreadConstraints\":[" SPREAD_ON("zone") "," SPREAD_ON("node") "]"), "p-x1", { NULL } },
		/* the same clusters, every pod removed in turn */
		{ "two spreadConstraints, each pod",
		  { NODE_ZN("node-a", "zone1"), NODE_ZN("node-b", "zone1"), NODE_ZN("node-x", "zone2") },
		  { POD_J("p-a1", "node-a", FOO, ""), POD_J("p-a2", "node-a", FOO, ""), POD_J("p-b1", "node-b", FOO, ""),
		    POD_J("p-x1", "node-x", FOO, ""), POD_J("p-x2", "node-x", FOO, "") },
		  PENDING_J(FOO, ",\"topologySpreadConstraints\":[" SPREAD_ON("zone") "," SPREAD_ON("node") "]"), NULL, { NULL } },
	};
	assert_true(check_remove_pod("PodTopologySpread", cases, ARRAY_SIZE(cases)) > 0);
}

#define PVC_POD_J(name, claims) \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"" name "\"},\"spec\":{\"nodeName\":" \
	"\"node-1\",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[" claims "]}}"
#define CLAIM(n, c) "{\"name\":\"v" n "\",\"persistentVolumeClaim\":{\"claimName\":\"" c "\"}}"

static void test_volume_restrictions_remove_pod(void **state)
{
	(void)state;
	/* volumerestrictions volume_restrictions_test.go TestAccessModeConflicts, with upstream's
	 * RemovePod (updateWithPod(-1)) of each existing pod */
	static const struct eq_case cases[] = {
		{ "access mode conflict, unschedulable", { NODE_J("node-1", "") },
		  { PVC_POD_J("pod-with-one-pvc", CLAIM("0", "claim-with-rwop-1")),
		    PVC_POD_J("pod-with-rwx", CLAIM("0", "claim-with-rwx")) },
		  "{\"metadata\":{\"name\":\"pod-with-one-conflict\",\"namespace\":\"default\",\"uid\":\"c1\"},\"spec\":{"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[" CLAIM("0", "claim-with-rwop-1") "]}}",
		  NULL, { "default/claim-with-rwop-1=ReadWriteOncePod", "default/claim-with-rwx=ReadWriteMany" } },
		{ "two conflicts, unschedulable", { NODE_J("node-1", "") },
		  { PVC_POD_J("pod-with-two-pvcs", CLAIM("0", "claim-with-rwop-1") "," CLAIM("1", "claim-with-rwop-2")),
		    PVC_POD_J("pod-with-rwx", CLAIM("0", "claim-with-rwx")) },
		  "{\"metadata\":{\"name\":\"pod-with-two-conflicts\",\"namespace\":\"default\",\"uid\":\"c2\"},\"spec\":{"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[" CLAIM("0", "claim-with-rwop-1") ","
		  CLAIM("1", "claim-with-rwop-2") "]}}",
		  NULL,
		  { "default/claim-with-rwop-1=ReadWriteOncePod", "default/claim-with-rwop-2=ReadWriteOncePod",
		    "default/claim-with-rwx=ReadWriteMany" } },
	};
	assert_true(check_remove_pod("VolumeRestrictions", cases, ARRAY_SIZE(cases)) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_post_filter),
		cmocka_unit_test(test_post_filter_extenders),
		cmocka_unit_test(test_nodes_for_status_code),
		cmocka_unit_test(test_run_post_filter_success),
		cmocka_unit_test(test_dry_run_preemption),
		cmocka_unit_test(test_dry_run_parallel_equals_sequential),
		cmocka_unit_test(test_select_best_candidate),
		cmocka_unit_test(test_pod_eligible_to_preempt_others),
		cmocka_unit_test(test_pod_terminating_by_preemption),
		cmocka_unit_test(test_more_important_victim),
		cmocka_unit_test(test_filter_victims_with_pdb_violation),
		cmocka_unit_test(test_num_candidates),
		cmocka_unit_test(test_pre_enqueue),
		cmocka_unit_test(test_inter_pod_affinity_remove_pod),
		cmocka_unit_test(test_pod_topology_spread_remove_pod),
		cmocka_unit_test(test_volume_restrictions_remove_pod),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
