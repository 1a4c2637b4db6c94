/* NodeResourcesFit on pods with pod-level resources and on nodes running pods being resized in
 * place: the requests of both sides as upstream v1.37.2 counts them. Expected values are from
 * upstream's fit_test.go or the oracle (cited per case). */
#include "algorithm_testlib.h"

static enum fw_code run_fit_filter(const struct api_node *node, struct api_pod *existing, const struct api_pod *pod,
				   char *msg, size_t size)
{
	struct tl_profile_spec spec = { .pre_filter = { "NodeResourcesFit" }, .filter = { "NodeResourcesFit" } };
	struct fw_profile *p = tl_profile(&spec, NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	assert_non_null(c);
	const struct fw_pl *pl = tl_pl(p, "NodeResourcesFit");
	struct node_info ni;
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	tl_node_info(&ni, (struct api_node *)node, &existing, existing ? 1 : 0);
	fw_status_reset(&st);
	enum fw_code code = pl->plugin->pre_filter(pl, c, pod, &names, &st);
	if (code == FW_SUCCESS) {
		fw_status_reset(&st);
		code = pl->plugin->filter(pl, c, pod, &ni, &st);
	}
	fw_status_message(&st, msg, size);
	node_info_release(&ni);
	fw_cycle_free(c);
	fw_profile_free(p);
	return code;
}

/* fit_test.go makeAllocatableResources(10, 20, 32, 5, 20, 5) */
#define FIT_NODE                                                                                                 \
	"{\"metadata\":{\"name\":\"machine\"},\"status\":{\"allocatable\":{\"cpu\":\"10m\",\"memory\":\"20\","     \
	"\"pods\":\"32\",\"example.com/aaa\":\"5\",\"ephemeral-storage\":\"20\",\"hugepages-2Mi\":\"5\"}}}"

#define N1_4CPU \
	"{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"1Gi\",\"pods\":\"110\"}}}"
#define POD_LEVEL_RESIZED                                                                                         \
	.name = "b", .containers = { { .name = "c1", .req = "cpu=1", .lim = "cpu=2" } }, .pod_req = "cpu=2",       \
	.status = "\"phase\":\"Running\",\"allocatedResources\":{\"cpu\":\"3\"},\"resources\":{\"requests\":"      \
		  "{\"cpu\":\"3.5\"},\"limits\":{\"cpu\":\"5\"}}"

struct filter_case {
	const char *name;
	const char *node; /* JSON */
	struct tobj_pod existing; /* .node is set to the node's name; no existing pod when .name is NULL */
	struct tobj_pod pod;
	enum fw_code code;
	const char *msg;
};

static void test_fit_filter_pod_resources(void **state)
{
	(void)state;
	static const struct filter_case cases[] = {
		/* fit_test.go TestEnoughRequests, pod-level rows */
		{ "pod-level hugepages resource fit", FIT_NODE, { 0 },
		  { .containers_json = "[]", .pod_req = "cpu=3m,memory=2,hugepages-2Mi=5" }, FW_SUCCESS, "" },
		{ "both pod-level and container-level hugepages resource fit", FIT_NODE, { 0 },
		  { .containers = { { .req = "cpu=1m,memory=1,hugepages-2Mi=3" } }, .pod_req = "cpu=3m,memory=2,hugepages-2Mi=5" },
		  FW_SUCCESS, "" },
		{ "pod-level hugepages resource not fit", FIT_NODE, { 0 },
		  { .containers_json = "[]", .pod_req = "cpu=3m,memory=2,hugepages-2Mi=10" },
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient hugepages-2Mi" },
		{ "pod-level cpu resource not fit", FIT_NODE,
		  { .name = "e", .containers = { { .req = "cpu=5m,memory=5" } } },
		  { .containers = { { .req = "cpu=1m,memory=1" } }, .pod_req = "cpu=7m,memory=2" }, FW_UNSCHEDULABLE,
		  "Insufficient cpu" },
		{ "one pod-level cpu resource fits and all init and non-init containers resources fit", FIT_NODE,
		  { .name = "e", .containers = { { .req = "cpu=5m,memory=19" } } },
		  { .containers = { { .req = "cpu=1m,memory=1" } }, .inits = { { .name = "i", .req = "cpu=1m,memory=1" } },
		    .pod_req = "cpu=3m,memory=2" },
		  FW_UNSCHEDULABLE, "Insufficient memory" },
		/* oracle: node n1 allocatable cpu 4; bound pod with spec cpu 500m whose container status
		 * still reports allocatedResources and resources.requests cpu 1 (a resize down in
		 * progress); a pending 3500m pod gets NodeResourcesFit "Insufficient cpu": 1000m counted */
		{ "resize down in progress counts the status", N1_4CPU,
		  { .name = "b", .containers = { { .name = "c1", .req = "cpu=500m" } },
		    .status = "\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c1\",\"allocatedResources\":"
			      "{\"cpu\":\"1\"},\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]" },
		  { .containers = { { .name = "c1", .req = "cpu=3500m" } } }, FW_UNSCHEDULABLE, "Insufficient cpu" },
		/* oracle: n1 (cpu 4) runs a pod with pod-level requests cpu 2 (container c1 1) whose
		 * pod-level status reports allocatedResources cpu 3 and resources.requests cpu 3.5
		 * (InPlacePodLevelResourcesVerticalScaling): a 500m pod fits, a 600m pod gets
		 * "Insufficient cpu": 3500m counted */
		{ "pod-level resize status: 500m fits", N1_4CPU, { POD_LEVEL_RESIZED }, { .containers = { { .req = "cpu=500m" } } },
		  FW_SUCCESS, "" },
		{ "pod-level resize status: 600m does not", N1_4CPU, { POD_LEVEL_RESIZED },
		  { .containers = { { .req = "cpu=600m" } } }, FW_UNSCHEDULABLE, "Insufficient cpu" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct filter_case *tc = &cases[i];
		struct api_node *node = tobj_node_json("%s", tc->node);
		struct api_pod *existing = NULL;
		if (tc->existing.name) {
			struct tobj_pod e = tc->existing;
			e.node = node->meta.name;
			existing = tobj_pod(&e);
		}
		struct api_pod *pod = tobj_pod(&tc->pod);
		char msg[256];
		enum fw_code code = run_fit_filter(node, existing, pod, msg, sizeof(msg));
		if (code != tc->code || strcmp(msg, tc->msg) != 0)
			fail_msg("%s: got %s \"%s\", want %s \"%s\"", tc->name, fw_code_str(code), msg,
				 fw_code_str(tc->code), tc->msg);
		api_pod_unref(pod);
		api_pod_unref(existing);
		api_node_unref(node);
	}
}

/* NodeResourcesFit Score (LeastAllocated, cpu and memory) of a pod with pod-level requests. */
static void test_fit_score_pod_level(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .pre_filter = { "NodeResourcesFit" }, .filter = { "NodeResourcesFit" },
					.pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" } };
	struct fw_profile *p = tl_profile(&spec, NULL);
	struct fw_cycle *c = fw_cycle_new(p);
	assert_non_null(c);
	const struct fw_pl *pl = tl_pl(p, "NodeResourcesFit");
	struct api_node *node = TOBJ_NODE(.name = "n1", .alloc = "cpu=4,memory=4Gi,pods=110");
	/* oracle: this pod alone on n1 (allocatable cpu 4, memory 4Gi, pods 110): NodeResourcesFit
	 * raw score 82 (the pod level is not read by Fit's Score: cpu 2x100m, memory 1Gi+200Mi) */
	struct api_pod *pod = TOBJ_POD(.containers = { { .name = "c1", .req = "memory=1Gi" }, { .name = "c2" } },
				       .pod_req = "cpu=2");
	struct node_info ni;
	const struct node_info *ptrs[1] = { &ni };
	struct fw_node_list list = { .n = 1, .nodes = ptrs };
	struct fw_status st;
	int64_t score = -1;
	tl_node_info(&ni, node, NULL, 0);
	fw_cycle_reset(c);
	c->nodes = &list;
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->pre_score(pl, c, pod, ptrs, 1, &st), FW_SUCCESS);
	fw_status_reset(&st);
	assert_int_equal(pl->plugin->score(pl, c, pod, &ni, &score, &st), FW_SUCCESS);
	assert_int_equal(score, 82);
	node_info_release(&ni);
	api_pod_unref(pod);
	api_node_unref(node);
	fw_cycle_free(c);
	fw_profile_free(p);
}

/* ---------- NodeResourcesFit queueing hints ---------- */

static enum queue_hint fit_hint(const struct fw_profile *p, uint32_t res, uint32_t action, const struct api_pod *pod,
				const void *old_obj, const void *new_obj)
{
	struct queue_profile qp;
	fw_profile_queue_profile(p, &qp);
	struct queue_event in = { res, action, NULL };
	for (uint32_t i = 0; i < qp.n_hints; i++) {
		const struct queue_hint_reg *r = &qp.hints[i];
		if (strcmp(r->plugin, "NodeResourcesFit") == 0 && queue_event_matches(&r->event, &in))
			return r->hint(r->ctx, pod, old_obj, new_obj);
	}
	fail_msg("NodeResourcesFit registers no event matching resource %u action %u", res, action);
	return QUEUE_HINT_SKIP;
}

static void test_fit_hints_pod_resources(void **state)
{
	(void)state;
	struct fw_profile_config pc;
	fw_default_profile_config("hints", &pc);
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, NULL, &e);
	assert_non_null(p);

	/* fit_test.go TestIsFit "sufficient / insufficient pod-level resource hugepages", through
	 * isSchedulableAfterNodeChange on a node add (isFit false: Skip) */
	struct api_node *node = TOBJ_NODE(.name = "n", .alloc = "pods=32,hugepages-2Mi=2Mi"); /* Capacity() adds pods 32 */
	struct api_pod *fits = TOBJ_POD(.containers_json = "[]", .pod_req = "hugepages-2Mi=2Mi");
	struct api_pod *too_big = TOBJ_POD(.containers_json = "[]", .pod_req = "hugepages-2Mi=4Mi");
	assert_int_equal(fit_hint(p, QUEUE_RES_NODE, QUEUE_ACT_ADD, fits, NULL, node), QUEUE_HINT_QUEUE);
	assert_int_equal(fit_hint(p, QUEUE_RES_NODE, QUEUE_ACT_ADD, too_big, NULL, node), QUEUE_HINT_SKIP);

	/* fit.go haveEnoughRelevantResourcesDecreased reads the pods' requests with status resources:
	 * an assigned pod whose spec stays at 1 cpu while the kubelet's status goes from 3 to 1 cpu
	 * frees cpu (Queue) for a pod requesting cpu, nothing for one requesting only memory */
	struct api_pod *before = TOBJ_POD(.name = "b", .node = "n", .containers = { { .name = "c", .req = "cpu=1" } },
					  .status = "\"containerStatuses\":[{\"name\":\"c\",\"allocatedResources\":"
						    "{\"cpu\":\"3\"},\"resources\":{\"requests\":{\"cpu\":\"3\"}}}]");
	struct api_pod *after = TOBJ_POD(.name = "b", .node = "n", .containers = { { .name = "c", .req = "cpu=1" } },
					 .status = "\"containerStatuses\":[{\"name\":\"c\",\"allocatedResources\":"
						   "{\"cpu\":\"1\"},\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]");
	struct api_pod *wants_cpu = TOBJ_POD(.containers = { { .req = "cpu=2" } });
	struct api_pod *wants_mem = TOBJ_POD(.containers = { { .req = "memory=1Gi" } });
	assert_int_equal(fit_hint(p, QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_UPDATE_POD_SCALE_DOWN, wants_cpu, before, after),
			 QUEUE_HINT_QUEUE);
	assert_int_equal(fit_hint(p, QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_UPDATE_POD_SCALE_DOWN, wants_mem, before, after),
			 QUEUE_HINT_SKIP);

	api_pod_unref(fits);
	api_pod_unref(too_big);
	api_pod_unref(before);
	api_pod_unref(after);
	api_pod_unref(wants_cpu);
	api_pod_unref(wants_mem);
	api_node_unref(node);
	fw_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_filter_pod_resources),
		cmocka_unit_test(test_fit_score_pod_level),
		cmocka_unit_test(test_fit_hints_pod_resources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
