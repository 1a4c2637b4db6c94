/* NodeResourcesFit's and NodeResourcesBalancedAllocation's scoring of extended resources backed
 * by DRA (DRAExtendedResource; algorithm/plugins/dra_score.c). Cases and expected values are
 * upstream v1.37.2's (pkg/scheduler/framework/plugins/noderesources): fit_test.go
 * TestFitScore, balanced_allocation_test.go TestNodeResourcesBalancedAllocation and
 * resource_allocation_test.go TestCalculateResourceAllocatableRequest; the cases without an
 * upstream name follow upstream's code (resource_allocation.go), named where they depart. */
#include "algorithm_testlib.h"

#include "algorithm/plugin_helpers.h"

#define ER "extended.resource.dra.io/something"
#define CLASS "device-class-name"
#define NODE "resource-node"
#define DRIVER "test-driver"

/* ---------- the DRA stores the profile's listers read ---------- */

static struct api_device_class *classes[4];
static struct api_resource_slice *slices[4];
static struct api_resource_claim *claims[4];
static uint32_t n_classes, n_slices, n_claims;

static struct api_device_class *class_get(void *ctx, const char *name)
{
	(void)ctx;
	for (uint32_t i = 0; i < n_classes; i++)
		if (strcmp(classes[i]->meta.name, name) == 0)
			return api_device_class_ref(classes[i]);
	return NULL;
}

static int class_each(void *ctx, int (*fn)(void *arg, const struct api_device_class *c), void *arg)
{
	(void)ctx;
	for (uint32_t i = 0; i < n_classes; i++) {
		int rc = fn(arg, classes[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int slice_each(void *ctx, int (*fn)(void *arg, const struct api_resource_slice *s), void *arg)
{
	(void)ctx;
	for (uint32_t i = 0; i < n_slices; i++) {
		int rc = fn(arg, slices[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int claim_each(void *ctx, int (*fn)(void *arg, const struct api_resource_claim *c), void *arg)
{
	(void)ctx;
	for (uint32_t i = 0; i < n_claims; i++) {
		int rc = fn(arg, claims[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static struct api_resource_claim *claim_get(void *ctx, const char *ns, const char *name)
{
	(void)ctx;
	for (uint32_t i = 0; i < n_claims; i++)
		if (strcmp(claims[i]->meta.namespace, ns) == 0 && strcmp(claims[i]->meta.name, name) == 0)
			return api_resource_claim_ref(claims[i]);
	return NULL;
}

static const struct fw_listers listers = { .device_class = class_get,
					   .device_class_each = class_each,
					   .resource_slice_each = slice_each,
					   .resource_claim_each = claim_each,
					   .resource_claim = claim_get };

static void add_class(const char *json)
{
	struct err e = { 0 };
	assert_true(n_classes < 4);
	if (!(classes[n_classes++] = api_device_class_decode_json(json, strlen(json), &e)))
		fail_msg("class: %s", e.msg);
}

static void add_slice(const char *json)
{
	struct err e = { 0 };
	assert_true(n_slices < 4);
	if (!(slices[n_slices++] = api_resource_slice_decode_json(json, strlen(json), &e)))
		fail_msg("slice: %s", e.msg);
}

static void add_claim(const char *json)
{
	struct err e = { 0 };
	assert_true(n_claims < 4);
	if (!(claims[n_claims++] = api_resource_claim_decode_json(json, strlen(json), &e)))
		fail_msg("claim: %s", e.msg);
}

static void clear_objects(void)
{
	for (uint32_t i = 0; i < n_classes; i++)
		api_device_class_unref(classes[i]);
	for (uint32_t i = 0; i < n_slices; i++)
		api_resource_slice_unref(slices[i]);
	for (uint32_t i = 0; i < n_claims; i++)
		api_resource_claim_unref(claims[i]);
	n_classes = n_slices = n_claims = 0;
}

/* upstream deviceClassWithExtendResourceName */
#define CLASS_ER "{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\"}}"
/* upstream st.MakeResourceSlice(node, driver).Device(...)...: pool and slice of the node */
#define SLICE(node, devices)                                                                                        \
	"{\"metadata\":{\"name\":\"" node "-" DRIVER "\"},\"spec\":{\"driver\":\"" DRIVER "\",\"pool\":{\"name\":\"" node \
	"\",\"generation\":0,\"resourceSliceCount\":1},\"nodeName\":\"" node "\",\"devices\":[" devices "]}}"
#define DEV(name) "{\"name\":\"" name "\"}"
/* a claim whose allocation holds device dev of pool (and a share of it when share is not "") */
#define ALLOCATED(name, pool, dev, share)                                                                           \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"uid-" name "\"},\"spec\":{\"devices\":" \
	"{\"requests\":[{\"name\":\"req-1\",\"exactly\":{\"deviceClassName\":\"" CLASS "\"}}]}},\"status\":{"          \
	"\"allocation\":{\"devices\":{\"results\":[{\"request\":\"req-1\",\"driver\":\"" DRIVER "\",\"pool\":\"" pool    \
	"\",\"device\":\"" dev "\"" share "}]}}}}"
#define REQ(extra) "[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{" extra "}}}]"

/* ---------- running a plugin ---------- */

struct run {
	struct fw_profile *p;
	struct fw_cycle *c;
	const struct fw_pl *pl;
	struct fw_node_list list;
	const struct node_info *ptrs[4];
};

static void run_init(struct run *r, const struct tl_profile_spec *spec, const char *plugin)
{
	r->p = tl_profile(spec, NULL);
	r->c = fw_cycle_new(r->p);
	assert_non_null(r->c);
	r->pl = tl_pl(r->p, plugin);
}

static void run_release(struct run *r)
{
	fw_cycle_free(r->c);
	fw_profile_free(r->p);
}

/* The plugin's scores for pod on nis[0..n): its PreScore when the profile runs it, else the
 * cycle's preparation (upstream's Score computing the state itself, "if PreScore is not called"). */
static void run_scores(struct run *r, const struct api_pod *pod, struct node_info *nis, uint32_t n, int64_t *out)
{
	struct fw_status st;
	for (uint32_t i = 0; i < n; i++)
		r->ptrs[i] = &nis[i];
	r->list.n = n;
	r->list.nodes = r->ptrs;
	fw_cycle_reset(r->c);
	r->c->nodes = &r->list;
	uint32_t n_pre;
	fw_profile_plugins(r->p, CFG_EP_PRE_SCORE, &n_pre);
	fw_pre_score_fn pre = n_pre ? r->pl->plugin->pre_score : fw_score_prepare_of(r->pl->plugin);
	fw_status_reset(&st);
	assert_int_equal(pre(r->pl, r->c, pod, r->ptrs, n, &st), FW_SUCCESS);
	for (uint32_t i = 0; i < n; i++) {
		fw_status_reset(&st);
		out[i] = -1;
		assert_int_equal(r->pl->plugin->score(r->pl, r->c, pod, r->ptrs[i], &out[i], &st), FW_SUCCESS);
	}
}

static struct cfg_resource_weight res_er[] = { { NULL, 1 } };
static struct cfg_resource_weight res_cpu_mem_er[] = { { NULL, 1 }, { NULL, 1 }, { NULL, 1 } };

static void init_names(void)
{
	res_er[0].name = intern_str(ER);
	res_cpu_mem_er[0].name = intern_str("cpu");
	res_cpu_mem_er[1].name = intern_str("memory");
	res_cpu_mem_er[2].name = intern_str(ER);
}

/* Scores of plugin (at PreScore too or at Score only) over nodes node1 and node2. */
static void expect_two(const char *name, const char *plugin, bool pre_score, const struct cfg_plugin_args *args,
		       const char *node_fmt, const char *existing[2], const char *pod_containers, int64_t want1,
		       int64_t want2)
{
	struct tl_profile_spec spec = { .score = { plugin }, .args = args, .listers = &listers };
	if (pre_score)
		spec.pre_score[0] = plugin;
	struct run r;
	run_init(&r, &spec, plugin);
	struct api_node *nodes[2];
	struct api_pod *pods[2] = { NULL, NULL };
	struct node_info nis[2];
	for (int k = 0; k < 2; k++) {
		char nn[8];
		snprintf(nn, sizeof(nn), "node%d", k + 1);
		nodes[k] = tobj_node_json(node_fmt, nn);
		if (existing && existing[k])
			pods[k] = TOBJ_POD(.containers_json = existing[k], .node = nn);
		tl_node_info(&nis[k], nodes[k], &pods[k], pods[k] ? 1 : 0);
	}
	struct api_pod *pod = TOBJ_POD(.containers_json = pod_containers);
	int64_t got[2];
	run_scores(&r, pod, nis, 2, got);
	if (got[0] != want1 || got[1] != want2)
		fail_msg("%s (%s%s): got %lld, %lld want %lld, %lld", name, plugin, pre_score ? "" : ", no PreScore",
			 (long long)got[0], (long long)got[1], (long long)want1, (long long)want2);
	for (int k = 0; k < 2; k++) {
		node_info_release(&nis[k]);
		api_node_unref(nodes[k]);
		api_pod_unref(pods[k]);
	}
	api_pod_unref(pod);
	run_release(&r);
}

/* fit_test.go TestFitScore "test case for ScoringStrategy LeastAllocated with Extended resources"
 * (and "... if PreScore is not called"): node1 has 3 devices, node2 2, the pod asks for one:
 * (3-1)*100/3 = 66 and (2-1)*100/2 = 50. */
static void test_fit_least_allocated_dra(void **state)
{
	(void)state;
	add_class(CLASS_ER);
	add_slice(SLICE("node1", DEV("device-1") "," DEV("device-2") "," DEV("device-3")));
	add_slice(SLICE("node2", DEV("device-1") "," DEV("device-2")));
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.fit.scoring_type = CFG_SCORING_LEAST_ALLOCATED;
	args.fit.n_resources = 1;
	args.fit.resources = res_er;
	for (int pre = 1; pre >= 0; pre--)
		expect_two("LeastAllocated with Extended resources", "NodeResourcesFit", pre, &args,
			   "{\"metadata\":{\"name\":\"%s\"}}", NULL, REQ("\"" ER "\":\"1\""), 66, 50);
	/* without the class the resource is a device-plugin one neither node has: nothing scored */
	api_device_class_unref(classes[0]);
	classes[0] = classes[--n_classes];
	expect_two("no DeviceClass", "NodeResourcesFit", true, &args, "{\"metadata\":{\"name\":\"%s\"}}", NULL,
		   REQ("\"" ER "\":\"1\""), 0, 0);
	clear_objects();
}

/* balanced_allocation_test.go TestNodeResourcesBalancedAllocation "include DRA resource on a node
 * for balanced resource allocation" (and "... if PreScore not called"): node1's 8 devices make
 * its fractions cpu 86%, memory 0%, DRA 0 -> 12% (score 76); node2 has none (75). */
static void test_balanced_allocation_dra(void **state)
{
	(void)state;
	add_class(CLASS_ER);
	add_slice(SLICE("node1", DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4") "," DEV(
					 "device-5") "," DEV("device-6") "," DEV("device-7") "," DEV("device-8")));
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.balanced.n_resources = 3;
	args.balanced.resources = res_cpu_mem_er;
	const char *existing[2] = {
		"[{\"name\":\"a\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1000m\"}}},"
		"{\"name\":\"b\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2000m\"}}}]",
		"[{\"name\":\"a\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1000m\",\"memory\":\"2000\"}}},"
		"{\"name\":\"b\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2000m\",\"memory\":\"3000\"}}}]",
	};
	const char *node = "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"allocatable\":{\"cpu\":\"3500m\","
			   "\"memory\":\"40000\",\"pods\":\"32\"}}}";
	for (int pre = 1; pre >= 0; pre--)
		expect_two("include DRA resource on a node for balanced resource allocation",
			   "NodeResourcesBalancedAllocation", pre, &args, node, existing, REQ("\"" ER "\":\"1\""), 76, 75);
	clear_objects();
}

/* upstream v1.37.2's NewBalancedAllocation gives its scorer no CEL cache, so a backing class
 * with selectors makes deviceMatchesClass dereference nil (the scheduler panics). csched
 * evaluates the selectors as NodeResourcesFit does (docs/config.md): the same 76/75 as above
 * when the selector takes node1's 8 devices; when it rejects them all, node1 scores cpu and memory
 * only (86% and 0% with and without the pod: 57 both ways, 50 + (50 + 57 - 57) / 2 = 75). */
static void test_balanced_allocation_dra_selectors(void **state)
{
	(void)state;
	add_class("{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\","
		  "\"selectors\":[{\"cel\":{\"expression\":\"device.driver == '" DRIVER "'\"}}]}}");
	add_slice(SLICE("node1", DEV("device-1") "," DEV("device-2") "," DEV("device-3") "," DEV("device-4") "," DEV(
					 "device-5") "," DEV("device-6") "," DEV("device-7") "," DEV("device-8")));
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.balanced.n_resources = 3;
	args.balanced.resources = res_cpu_mem_er;
	const char *existing[2] = {
		"[{\"name\":\"a\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1000m\"}}},"
		"{\"name\":\"b\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2000m\"}}}]",
		"[{\"name\":\"a\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1000m\",\"memory\":\"2000\"}}},"
		"{\"name\":\"b\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2000m\",\"memory\":\"3000\"}}}]",
	};
	const char *node = "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"allocatable\":{\"cpu\":\"3500m\","
			   "\"memory\":\"40000\",\"pods\":\"32\"}}}";
	expect_two("class selectors take the devices", "NodeResourcesBalancedAllocation", true, &args, node, existing,
		   REQ("\"" ER "\":\"1\""), 76, 75);
	clear_objects();
	add_class("{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\","
		  "\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'other'\"}}]}}");
	add_slice(SLICE("node1", DEV("device-1")));
	expect_two("class selectors reject the devices", "NodeResourcesBalancedAllocation", true, &args, node, existing,
		   REQ("\"" ER "\":\"1\""), 75, 75);
	clear_objects();
}

/* ---------- resource_allocation_test.go TestCalculateResourceAllocatableRequest ---------- */

/* (allocatable, allocated) of resource name on node (JSON) as NodeResourcesFit's Score reads it,
 * for a pod asking for one (upstream calls calculateResourceAllocatableRequest with no pod: the
 * pod's 1 is taken back out of the requested amount). With dr, the profile runs DynamicResources,
 * whose tracker gives the allocated state. */
static void alloc_req(const char *node_json, const char *name, bool dr, int64_t *alloc, int64_t *allocated)
{
	struct cfg_resource_weight w[] = { { intern_str(name), 1 } };
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.fit.n_resources = 1;
	args.fit.resources = w;
	args.dynamic_resources = (struct cfg_dynamic_resources_args){ 10000000000LL, 600000000000LL };
	struct tl_profile_spec spec = { .pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" },
					.args = &args, .listers = &listers };
	if (dr)
		spec.filter[0] = "DynamicResources";
	struct run r;
	run_init(&r, &spec, "NodeResourcesFit");
	struct api_node *node = tobj_node_json("%s", node_json);
	struct node_info ni;
	tl_node_info(&ni, node, NULL, 0);
	char req[256];
	snprintf(req, sizeof(req), REQ("\"%s\":\"1\""), name);
	struct api_pod *pod = TOBJ_POD(.containers_json = req);
	const struct node_info *ptrs[1] = { &ni };
	struct fw_status st;
	fw_cycle_reset(r.c);
	assert_int_equal(r.pl->plugin->pre_score(r.pl, r.c, pod, ptrs, 1, &st), FW_SUCCESS);
	const struct fw_pod_res_refs *s = fw_cycle_state(r.c, r.pl);
	assert_non_null(s);
	assert_int_equal(s->n, 1);
	int64_t req_total;
	fw_res_ref_alloc_req_dra(s, &ni, &s->res[0], false, alloc, &req_total);
	*allocated = *alloc ? req_total - 1 : 0;
	node_info_release(&ni);
	api_node_unref(node);
	api_pod_unref(pod);
	run_release(&r);
}

#define PLAIN_NODE "{\"metadata\":{\"name\":\"" NODE "\",\"labels\":{\"zone\":\"us-east-1a\"}}}"

/* upstream's per-device-node-selection case: a GPU-like CEL selector over a slice whose devices
 * name this node, another node, and a zone selector */
#define PER_DEVICE_CLASS                                                                                          \
	"{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\",\"selectors\":[{\"cel\":" \
	"{\"expression\":\"device.driver == \\\"" DRIVER "\\\" && device.capacity[\\\"" DRIVER                         \
	"\\\"].memory.compareTo(quantity(\\\"8Gi\\\")) >= 0 && device.attributes[\\\"" DRIVER                          \
	"\\\"].model.startsWith(\\\"SOME-\\\")\"}}]}}"
#define PER_DEVICE_SLICE                                                                                          \
	"{\"metadata\":{\"name\":\"per-device-slice\"},\"spec\":{\"driver\":\"" DRIVER "\",\"pool\":{\"name\":"       \
	"\"per-device-pool\",\"generation\":0,\"resourceSliceCount\":1},\"perDeviceNodeSelection\":true,\"devices\":[" \
	"{\"name\":\"device-1\",\"nodeName\":\"" NODE "\",\"attributes\":{\"model\":{\"string\":\"SOME-XYZ\"}},"      \
	"\"capacity\":{\"memory\":{\"value\":\"16Gi\"}}},"                                                             \
	"{\"name\":\"device-2\",\"nodeName\":\"other-node\",\"attributes\":{\"model\":{\"string\":\"SOME-ZYX\"}},"     \
	"\"capacity\":{\"memory\":{\"value\":\"12Gi\"}}},"                                                             \
	"{\"name\":\"device-3\",\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\","    \
	"\"operator\":\"In\",\"values\":[\"us-east-1a\"]}]}]},\"attributes\":{\"model\":{\"string\":\"SOME-XZY\"}},"   \
	"\"capacity\":{\"memory\":{\"value\":\"24Gi\"}}}]}}"

struct calc_case {
	const char *name;
	const char *node;
	const char *resource;
	const char *objs[4]; /* "C:" class, "S:" slice, "R:" claim JSON */
	int64_t alloc, allocated;
};

static const struct calc_case calc_cases[] = {
	{ "device-plugin-resource-feature-enabled",
	  "{\"metadata\":{\"name\":\"" NODE "\"},\"status\":{\"allocatable\":{\"" ER "\":\"4\"}}}",
	  ER,
	  { NULL },
	  4,
	  0 },
	{ "DRA-backed-resource-explicit", PLAIN_NODE, ER, { "C:" CLASS_ER, "S:" SLICE(NODE, DEV("device-1")) }, 1, 0 },
	{ "DRA-backed-resource-implicit",
	  PLAIN_NODE,
	  "deviceclass.resource.kubernetes.io/" CLASS,
	  { "C:{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{}}", "S:" SLICE(NODE, DEV("device-1")) },
	  1,
	  0 },
	{ "DRA-backed-resource-no-slices", PLAIN_NODE, ER, { "C:" CLASS_ER }, 0, 0 },
	{ "DRA-backed-resource-with-allocated-device",
	  PLAIN_NODE,
	  ER,
	  { "C:" CLASS_ER, "S:" SLICE(NODE, DEV("device-1") "," DEV("device-2")),
	    "R:" ALLOCATED("test-claim", NODE, "device-1", "") },
	  2,
	  1 },
	{ "DRA-backed-resource-with-shared-device-allocation",
	  PLAIN_NODE,
	  ER,
	  { "C:" CLASS_ER, "S:" SLICE(NODE, DEV("device-1") "," DEV("device-2")),
	    "R:" ALLOCATED("test-claim", NODE, "device-1", ",\"shareID\":\"4a0d5f53-3c4e-4a39-9d43-8d7c3a0c1b21\"") },
	  2,
	  1 },
	{ "DRA-backed-resource-multiple-devices-mixed-allocation",
	  PLAIN_NODE,
	  ER,
	  { "C:" CLASS_ER, "S:" SLICE(NODE, DEV("device-1") "," DEV("device-2") "," DEV("device-3")),
	    "R:" ALLOCATED("test-claim-1", NODE, "device-1", ""),
	    "R:" ALLOCATED("test-claim-2", NODE, "device-2", ",\"shareID\":\"4a0d5f53-3c4e-4a39-9d43-8d7c3a0c1b22\"") },
	  3,
	  2 },
	{ "DRA-backed-resource-with-per-device-node-selection",
	  PLAIN_NODE,
	  ER,
	  { "C:" PER_DEVICE_CLASS, "S:" PER_DEVICE_SLICE, "R:" ALLOCATED("test-claim", "per-device-pool", "device-1", "") },
	  2,
	  1 },
	/* not upstream cases, upstream's code: a slice of another node, one for all nodes and one
	 * whose node selector the node fails (calculateDRAResourceTotals' slice-level test) */
	{ "slices of other nodes, all nodes, a failing node selector",
	  PLAIN_NODE,
	  ER,
	  { "C:" CLASS_ER, "S:" SLICE("other-node", DEV("device-1") "," DEV("device-2")),
	    "S:{\"metadata\":{\"name\":\"all\"},\"spec\":{\"driver\":\"" DRIVER "\",\"pool\":{\"name\":\"all\","
	    "\"generation\":0,\"resourceSliceCount\":1},\"allNodes\":true,\"devices\":[" DEV("a-1") "]}}",
	    "S:{\"metadata\":{\"name\":\"sel\"},\"spec\":{\"driver\":\"" DRIVER "\",\"pool\":{\"name\":\"sel\","
	    "\"generation\":0,\"resourceSliceCount\":1},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":"
	    "[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"us-west\"]}]}]},\"devices\":[" DEV("s-1") "]}}" },
	  1,
	  0 },
	/* not upstream cases: two pools published for the node add up; an error in one fails both */
	{ "two slices of the node",
	  PLAIN_NODE,
	  ER,
	  { "C:" CLASS_ER, "S:" SLICE(NODE, DEV("device-1") "," DEV("device-2")),
	    "S:{\"metadata\":{\"name\":\"second\"},\"spec\":{\"driver\":\"" DRIVER "\",\"pool\":{\"name\":\"second\","
	    "\"generation\":0,\"resourceSliceCount\":1},\"nodeName\":\"" NODE "\",\"devices\":[" DEV("device-1") "]}}",
	    "R:" ALLOCATED("test-claim", "second", "device-1", "") },
	  3,
	  1 },
	{ "CEL runtime error in the node's other slice",
	  PLAIN_NODE,
	  ER,
	  { "C:{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\",\"selectors\":"
	    "[{\"cel\":{\"expression\":\"device.attributes['" DRIVER "'].model == 'x'\"}}]}}",
	    "S:{\"metadata\":{\"name\":\"second\"},\"spec\":{\"driver\":\"" DRIVER "\",\"pool\":{\"name\":\"second\","
	    "\"generation\":0,\"resourceSliceCount\":1},\"nodeName\":\"" NODE "\",\"devices\":[" DEV("device-2") "]}}",
	    "S:" SLICE(NODE, "{\"name\":\"device-1\",\"attributes\":{\"model\":{\"string\":\"x\"}}}") },
	  0,
	  0 },
	/* deviceMatchesClass's error (a CEL runtime error on a device available on the node) fails
	 * calculateDRAResourceTotals: the resource is not scored from DRA there */
	{ "CEL runtime error on a device of the node",
	  PLAIN_NODE,
	  ER,
	  { "C:{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\",\"selectors\":"
	    "[{\"cel\":{\"expression\":\"device.attributes['" DRIVER "'].model == 'x'\"}}]}}",
	    "S:" SLICE(NODE, "{\"name\":\"device-1\",\"attributes\":{\"model\":{\"string\":\"x\"}}},"
			     DEV("device-2")) },
	  0,
	  0 },
	/* ... but only where the device is: on another node the matching device counts */
	{ "CEL runtime error on a device of another node",
	  PLAIN_NODE,
	  ER,
	  { "C:{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\",\"selectors\":"
	    "[{\"cel\":{\"expression\":\"device.attributes['" DRIVER "'].model == 'x'\"}}]}}",
	    "S:" SLICE(NODE, "{\"name\":\"device-1\",\"attributes\":{\"model\":{\"string\":\"x\"}}}"),
	    "S:" SLICE("other-node", DEV("device-2")) },
	  1,
	  0 },
	/* upstream binds cel.Device{Driver, Attributes, Capacity}: allowMultipleAllocations reads
	 * false even for a device that allows them */
	{ "allowMultipleAllocations reads false",
	  PLAIN_NODE,
	  ER,
	  { "C:{\"metadata\":{\"name\":\"" CLASS "\"},\"spec\":{\"extendedResourceName\":\"" ER "\",\"selectors\":"
	    "[{\"cel\":{\"expression\":\"!device.allowMultipleAllocations\"}}]}}",
	    "S:" SLICE(NODE, "{\"name\":\"device-1\",\"allowMultipleAllocations\":true}," DEV("device-2")) },
	  2,
	  0 },
};

static void load_objs(const char *const *objs)
{
	for (int k = 0; k < 4 && objs[k]; k++) {
		if (objs[k][0] == 'C')
			add_class(objs[k] + 2);
		else if (objs[k][0] == 'S')
			add_slice(objs[k] + 2);
		else
			add_claim(objs[k] + 2);
	}
}

static void test_calculate_resource_allocatable_request(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(calc_cases) / sizeof(calc_cases[0]); i++) {
		const struct calc_case *tc = &calc_cases[i];
		load_objs(tc->objs);
		for (int dr = 0; dr < 2; dr++) {
			int64_t alloc, allocated;
			alloc_req(tc->node, tc->resource, dr, &alloc, &allocated);
			if (alloc != tc->alloc || allocated != tc->allocated)
				fail_msg("%s%s: got (%lld, %lld) want (%lld, %lld)", tc->name,
					 dr ? " (with DynamicResources)" : "", (long long)alloc, (long long)allocated,
					 (long long)tc->alloc, (long long)tc->allocated);
		}
		clear_objects();
	}
}

/* A configuration that scores no DRA-backed name makes no selector cache and no DRA state. */
static void test_no_dra_state_without_backed_resources(void **state)
{
	(void)state;
	add_class(CLASS_ER);
	add_slice(SLICE("node1", DEV("device-1")));
	struct tl_profile_spec spec = { .pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" },
					.listers = &listers };
	struct run r;
	run_init(&r, &spec, "NodeResourcesFit");
	struct api_node *node = tobj_node_json("{\"metadata\":{\"name\":\"node1\"},\"status\":{\"allocatable\":"
					       "{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}");
	struct node_info ni;
	tl_node_info(&ni, node, NULL, 0);
	struct api_pod *pod = TOBJ_POD(.containers_json = REQ("\"cpu\":\"100m\",\"" ER "\":\"1\""));
	const struct node_info *ptrs[1] = { &ni };
	struct fw_status st;
	fw_cycle_reset(r.c);
	assert_int_equal(r.pl->plugin->pre_score(r.pl, r.c, pod, ptrs, 1, &st), FW_SUCCESS);
	const struct fw_pod_res_refs *s = fw_cycle_state(r.c, r.pl);
	assert_non_null(s);
	assert_null(s->dra);
	node_info_release(&ni);
	api_node_unref(node);
	api_pod_unref(pod);
	run_release(&r);
	clear_objects();
}

int main(void)
{
	init_names();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_least_allocated_dra),
		cmocka_unit_test(test_balanced_allocation_dra),
		cmocka_unit_test(test_balanced_allocation_dra_selectors),
		cmocka_unit_test(test_calculate_resource_allocatable_request),
		cmocka_unit_test(test_no_dra_state_without_backed_resources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
