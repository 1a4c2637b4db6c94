/* Table-driven tests of the default plugins, cases carried over from upstream's plugin tests
 * (pkg/scheduler/framework/plugins/NAME/NAME_test.go): expected reasons and scores are upstream's. */
#include "algorithm_testlib.h"

#include "cache/cache.h"
#include "cache/snapshot.h"

/* ---------- helpers running one plugin ---------- */

struct one {
	struct fw_profile *p;
	struct fw_cycle *c;
	const struct fw_pl *pl;
	struct fw_node_list list;
};

static void one_init(struct one *o, const struct tl_profile_spec *spec, const char *plugin)
{
	o->p = tl_profile(spec, NULL);
	o->c = fw_cycle_new(o->p);
	assert_non_null(o->c);
	o->pl = tl_pl(o->p, plugin);
	memset(&o->list, 0, sizeof(o->list));
}

static void one_release(struct one *o)
{
	fw_cycle_free(o->c);
	fw_profile_free(o->p);
}

/* PreFilter (when the plugin has one) then Filter on ni; message of the status into msg. */
static enum fw_code run_filter(struct one *o, const struct api_pod *pod, const struct node_info *ni, char *msg,
			       size_t size)
{
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	fw_cycle_reset(o->c);
	msg[0] = '\0';
	if (o->pl->plugin->pre_filter) {
		fw_status_reset(&st);
		enum fw_code code = o->pl->plugin->pre_filter(o->pl, o->c, pod, &names, &st);
		if (code == FW_SKIP)
			return FW_SUCCESS; /* the framework then does not run the Filter */
		if (code != FW_SUCCESS) {
			fw_status_message(&st, msg, size);
			return code;
		}
	}
	fw_status_reset(&st);
	enum fw_code code = o->pl->plugin->filter(o->pl, o->c, pod, ni, &st);
	fw_status_message(&st, msg, size);
	return code;
}

/* Case name: plugin's PreFilter and Filter (profile spec) for pod on node, where existing (NULL =
 * none) runs; fails unless the code is want and (want_msg not NULL) the message want_msg. Drops
 * the references to node, existing and pod. */
static void expect_filter(const struct tl_profile_spec *spec, const char *plugin, const char *name,
			  struct api_node *node, struct api_pod *existing, struct api_pod *pod, enum fw_code want,
			  const char *want_msg)
{
	struct one o;
	struct node_info ni;
	char msg[512];
	one_init(&o, spec, plugin);
	tl_node_info(&ni, node, &existing, existing ? 1 : 0);
	enum fw_code code = run_filter(&o, pod, &ni, msg, sizeof(msg));
	if (code != want || (want_msg && strcmp(msg, want_msg) != 0))
		fail_msg("%s: got %s \"%s\", want %s \"%s\"", name, fw_code_str(code), msg, fw_code_str(want),
			 want_msg ? want_msg : "");
	node_info_release(&ni);
	api_pod_unref(pod);
	api_pod_unref(existing);
	api_node_unref(node);
	one_release(&o);
}

/* A fresh cycle state whose node list is nis[0..n) (through ptrs, 16 slots). */
static void one_set_nodes(struct one *o, struct node_info *nis, uint32_t n, const struct node_info **ptrs)
{
	assert_true(n <= 16);
	for (uint32_t i = 0; i < n; i++)
		ptrs[i] = &nis[i];
	o->list.n = n;
	o->list.nodes = ptrs;
	fw_cycle_reset(o->c);
	o->c->nodes = &o->list;
}

/* PreScore, Score on every node, NormalizeScore: the plugin's final scores. Returns the
 * PreScore code (Skip: scores untouched). */
static enum fw_code run_score(struct one *o, const struct api_pod *pod, struct node_info *nis, uint32_t n,
			      int64_t *out)
{
	const struct node_info *ptrs[16];
	struct fw_node_score ns[16];
	struct fw_status st;
	one_set_nodes(o, nis, n, ptrs);
	if (o->pl->plugin->pre_score) {
		fw_status_reset(&st);
		enum fw_code code = o->pl->plugin->pre_score(o->pl, o->c, pod, ptrs, n, &st);
		if (code != FW_SUCCESS)
			return code;
	}
	for (uint32_t i = 0; i < n; i++) {
		fw_status_reset(&st);
		ns[i].ni = ptrs[i];
		ns[i].score = -1;
		assert_int_equal(o->pl->plugin->score(o->pl, o->c, pod, ptrs[i], &ns[i].score, &st), FW_SUCCESS);
	}
	if (o->pl->plugin->normalize_score) {
		fw_status_reset(&st);
		assert_int_equal(o->pl->plugin->normalize_score(o->pl, o->c, pod, ns, n, &st), FW_SUCCESS);
	}
	for (uint32_t i = 0; i < n; i++)
		out[i] = ns[i].score;
	return FW_SUCCESS;
}

/* Case name: the plugin's final scores (run_score) for pod over nis[0..n) are want. Drops pod. */
static void expect_scores(struct one *o, const char *name, struct api_pod *pod, struct node_info *nis, uint32_t n,
			  const int64_t *want)
{
	int64_t got[16];
	assert_int_equal(run_score(o, pod, nis, n, got), FW_SUCCESS);
	for (uint32_t k = 0; k < n; k++)
		if (got[k] != want[k])
			fail_msg("%s: node %u: got %lld want %lld", name, k, (long long)got[k], (long long)want[k]);
	api_pod_unref(pod);
}

/* Releases nis[0..n) and drops the references to their nodes. */
static void release_nodes(struct node_info *nis, struct api_node **nodes, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		node_info_release(&nis[k]);
		api_node_unref(nodes[k]);
	}
}

/* ---------- NodeResourcesFit: Filter (fit_test.go TestEnoughRequests) ---------- */

#define FIT_NODE \
	"{\"metadata\":{\"name\":\"machine\"},\"status\":{\"allocatable\":{\"cpu\":\"10m\",\"memory\":\"20\",\"pods\":\"%s\"," \
	"\"example.com/aaa\":\"5\",\"ephemeral-storage\":\"20\",\"hugepages-2Mi\":\"5\"}}}"

struct fit_case {
	const char *name;
	const char *containers; /* incoming pod */
	const char *inits;
	const char *existing;   /* containers of the pod already on the node (NULL = none) */
	const char *alloc_pods;
	const char *ignored, *ignored_group;
	enum fw_code code;
	const char *msg;
};

#define R(cpu, mem) "{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"" cpu "\",\"memory\":\"" mem "\"}}}"
#define RX(extra) "{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{" extra "}}}"

static const struct fit_case fit_cases[] = {
	{ "no resources requested always fits", "[{\"name\":\"c\",\"image\":\"i\"}]", NULL, "[" R("10m", "20") "]", "32",
	  NULL, NULL, FW_SUCCESS, "" },
	{ "too many resources fails", "[" R("1m", "1") "]", NULL, "[" R("10m", "20") "]", "32", NULL, NULL,
	  FW_UNSCHEDULABLE, "Insufficient cpu, Insufficient memory" },
	{ "too many resources fails due to init container cpu", "[" R("1m", "1") "]", "[" R("3m", "1") "]",
	  "[" R("8m", "19") "]", "32", NULL, NULL, FW_UNSCHEDULABLE, "Insufficient cpu" },
	{ "too many resources fails due to highest init container cpu", "[" R("1m", "1") "]",
	  "[" R("3m", "1") "," R("2m", "1") "]", "[" R("8m", "19") "]", "32", NULL, NULL, FW_UNSCHEDULABLE,
	  "Insufficient cpu" },
	{ "too many resources fails due to init container memory", "[" R("1m", "1") "]", "[" R("1m", "3") "]",
	  "[" R("9m", "19") "]", "32", NULL, NULL, FW_UNSCHEDULABLE, "Insufficient memory" },
	{ "init container fits because it's the max, not sum, of containers and init containers",
	  "[" R("1m", "1") "]", "[" R("1m", "1") "]", "[" R("9m", "19") "]", "32", NULL, NULL, FW_SUCCESS, "" },
	{ "both resources fit", "[" R("1m", "1") "]", NULL, "[" R("5m", "5") "]", "32", NULL, NULL, FW_SUCCESS, "" },
	{ "one resource memory fits", "[" R("2m", "1") "]", NULL, "[" R("9m", "5") "]", "32", NULL, NULL,
	  FW_UNSCHEDULABLE, "Insufficient cpu" },
	{ "one resource cpu fits", "[" R("1m", "2") "]", NULL, "[" R("5m", "19") "]", "32", NULL, NULL,
	  FW_UNSCHEDULABLE, "Insufficient memory" },
	{ "equal edge case", "[" R("5m", "1") "]", NULL, "[" R("5m", "19") "]", "32", NULL, NULL, FW_SUCCESS, "" },
	{ "extended resource fits", "[" RX("\"example.com/aaa\":\"1\"") "]", NULL, NULL, "32", NULL, NULL,
	  FW_SUCCESS, "" },
	{ "extended resource capacity enforced (above allocatable: unresolvable)",
	  "[" RX("\"example.com/aaa\":\"10\"") "]", NULL, NULL, "32", NULL, NULL,
	  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient example.com/aaa" },
	{ "extended resource allocatable enforced", "[" RX("\"example.com/aaa\":\"1\"") "]", NULL,
	  "[" RX("\"example.com/aaa\":\"5\"") "]", "32", NULL, NULL, FW_UNSCHEDULABLE, "Insufficient example.com/aaa" },
	{ "extended resource allocatable enforced for multiple containers",
	  "[" RX("\"example.com/aaa\":\"3\"") "," RX("\"example.com/aaa\":\"3\"") "]", NULL,
	  "[" RX("\"example.com/aaa\":\"2\"") "]", "32", NULL, NULL, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
	  "Insufficient example.com/aaa" },
	{ "extended resource allocatable admits multiple init containers", "[" R("0", "0") "]",
	  "[" RX("\"example.com/aaa\":\"3\"") "," RX("\"example.com/aaa\":\"2\"") "]",
	  "[" RX("\"example.com/aaa\":\"2\"") "]", "32", NULL, NULL, FW_SUCCESS, "" },
	{ "extended resource unknown to the node: allocatable 0", "[" RX("\"example.com/bbb\":\"1\"") "]", NULL, NULL,
	  "32", NULL, NULL, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient example.com/bbb" },
	{ "skip checking ignored extended resource", "[" RX("\"example.com/bbb\":\"1\"") "]", NULL, NULL, "32",
	  "example.com/bbb", NULL, FW_SUCCESS, "" },
	{ "skip checking ignored extended resource via resource groups", "[" RX("\"example.com/bbb\":\"1\"") "]",
	  NULL, NULL, "32", NULL, "example.com", FW_SUCCESS, "" },
	{ "hugepages are not extended: never ignored", "[" RX("\"hugepages-2Mi\":\"10\"") "]", NULL, NULL, "32", NULL,
	  "hugepages-2Mi", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient hugepages-2Mi" },
	{ "hugepages resource allocatable enforced", "[" RX("\"hugepages-2Mi\":\"3\"") "]", NULL,
	  "[" RX("\"hugepages-2Mi\":\"3\"") "]", "32", NULL, NULL, FW_UNSCHEDULABLE, "Insufficient hugepages-2Mi" },
	{ "ephemeral storage resource enforced", "[" RX("\"ephemeral-storage\":\"25\"") "]", NULL,
	  "[" RX("\"ephemeral-storage\":\"2\"") "]", "32", NULL, NULL, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
	  "Insufficient ephemeral-storage" },
	{ "pod fits with ephemeral storage", "[" RX("\"ephemeral-storage\":\"10\"") "]", NULL,
	  "[" RX("\"ephemeral-storage\":\"2\"") "]", "32", NULL, NULL, FW_SUCCESS, "" },
	{ "even without specified resources, predicate fails when there's no space for additional pod",
	  "[{\"name\":\"c\",\"image\":\"i\"}]", NULL, "[" R("10m", "20") "]", "1", NULL, NULL, FW_UNSCHEDULABLE,
	  "Too many pods" },
	{ "even if both resources fit, predicate fails when there's no space for additional pod",
	  "[" R("1m", "1") "]", NULL, "[" R("5m", "5") "]", "1", NULL, NULL, FW_UNSCHEDULABLE, "Too many pods" },
	{ "even for equal edge case, predicate fails when there's no space for additional pod",
	  "[" R("5m", "1") "]", NULL, "[" R("5m", "19") "]", "1", NULL, NULL, FW_UNSCHEDULABLE, "Too many pods" },
	{ "all reasons are kept, in upstream's order", "[" R("6m", "16") "]", NULL, "[" R("5m", "5") "]", "1", NULL,
	  NULL, FW_UNSCHEDULABLE, "Too many pods, Insufficient cpu, Insufficient memory" },
	{ "sidecar requests add up with the containers", "[" R("5m", "1") "]",
	  "[{\"name\":\"s\",\"image\":\"i\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"1m\"}}}]",
	  "[" R("5m", "1") "]", "32", NULL, NULL, FW_UNSCHEDULABLE, "Insufficient cpu" },
};

static void test_fit_filter(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fit_cases) / sizeof(fit_cases[0]); i++) {
		const struct fit_case *tc = &fit_cases[i];
		const char *ign[1] = { tc->ignored ? intern_str(tc->ignored) : NULL };
		const char *grp[1] = { tc->ignored_group ? intern_str(tc->ignored_group) : NULL };
		struct cfg_plugin_args args;
		memset(&args, 0, sizeof(args));
		args.fit.n_ignored_resources = tc->ignored ? 1 : 0;
		args.fit.ignored_resources = ign;
		args.fit.n_ignored_resource_groups = tc->ignored_group ? 1 : 0;
		args.fit.ignored_resource_groups = grp;
		struct tl_profile_spec spec = { .pre_filter = { "NodeResourcesFit" }, .filter = { "NodeResourcesFit" },
						.args = &args };
		expect_filter(&spec, "NodeResourcesFit", tc->name, tobj_node_json(FIT_NODE, tc->alloc_pods),
			      tc->existing ? TOBJ_POD(.containers_json = tc->existing, .node = "machine") : NULL,
			      TOBJ_POD(.containers_json = tc->containers, .inits_json = tc->inits), tc->code, tc->msg);
	}
}

/* ---------- NodeResourcesFit: extended resources backed by DRA (fit_test.go TestEnoughRequests,
 * DRAExtendedResource cases; shouldDelegateResourceToDRA) ---------- */

#define DRA_ER "extended.resource.dra.io/something"

/* upstream deviceClassWithExtendResourceName, and a second class naming the same resource */
static struct api_device_class *dra_classes[2];
static uint32_t n_dra_classes;

static struct api_device_class *fit_class(void *ctx, const char *name)
{
	(void)ctx;
	for (uint32_t i = 0; i < n_dra_classes; i++)
		if (strcmp(dra_classes[i]->meta.name, name) == 0)
			return api_device_class_ref(dra_classes[i]);
	return NULL;
}

static int fit_class_each(void *ctx, int (*fn)(void *arg, const struct api_device_class *c), void *arg)
{
	(void)ctx;
	for (uint32_t i = 0; i < n_dra_classes; i++) {
		int rc = fn(arg, dra_classes[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static struct api_device_class *class_json(const char *json)
{
	struct err e = { 0 };
	struct api_device_class *c = api_device_class_decode_json(json, strlen(json), &e);
	if (!c)
		fail_msg("api_device_class_decode_json: %s", e.msg);
	return c;
}

#define DRA_NODE(extra) \
	"{\"metadata\":{\"name\":\"machine\"},\"status\":{\"allocatable\":{\"cpu\":\"10m\",\"memory\":\"20\",\"pods\":\"%s\"," \
	"\"example.com/aaa\":\"5\"" extra "}}}"

struct fit_dra_case {
	const char *name;
	bool classes; /* the DeviceClass exists */
	const char *node_fmt;
	const char *containers;
	enum fw_code code;
	const char *msg;
};

static const struct fit_dra_case fit_dra_cases[] = {
	{ "extended resource backed by device plugin", true, DRA_NODE(""), "[" RX("\"example.com/aaa\":\"1\"") "]",
	  FW_SUCCESS, "" },
	{ "extended resource backed by DRA", true, DRA_NODE(""),
	  "[" RX("\"cpu\":\"1m\",\"memory\":\"1\",\"" DRA_ER "\":\"1\"") "]", FW_SUCCESS, "" },
	/* upstream "extended resource backed by DRA not enabled": without the DeviceClass there is
	 * nothing to delegate to, as with the gate off */
	{ "extended resource not backed: no DeviceClass", false, DRA_NODE(""),
	  "[" RX("\"cpu\":\"1m\",\"memory\":\"1\",\"" DRA_ER "\":\"1\"") "]", FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
	  "Insufficient " DRA_ER },
	{ "extended resource NOT backed by DRA", true, DRA_NODE(""),
	  "[" RX("\"cpu\":\"1m\",\"memory\":\"1\",\"example.com/bbb\":\"1\"") "]", FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
	  "Insufficient example.com/bbb" },
	{ "extended resource was backed by Device Plugin (Allocatable: 0)", true, DRA_NODE(",\"" DRA_ER "\":\"0\""),
	  "[" RX("\"" DRA_ER "\":\"1\"") "]", FW_SUCCESS, "" },
	/* shouldDelegateResourceToDRA's first rule: a node advertising the resource keeps it */
	{ "node advertises the DRA-backed resource: Fit checks it", true, DRA_NODE(",\"" DRA_ER "\":\"1\""),
	  "[" RX("\"" DRA_ER "\":\"2\"") "]", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient " DRA_ER },
	{ "implicit deviceclass.resource.kubernetes.io/<class> name", true, DRA_NODE(""),
	  "[" RX("\"deviceclass.resource.kubernetes.io/device-class-name\":\"1\"") "]", FW_SUCCESS, "" },
	{ "implicit name of a class that does not exist", true, DRA_NODE(""),
	  "[" RX("\"deviceclass.resource.kubernetes.io/other\":\"1\"") "]", FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
	  "Insufficient deviceclass.resource.kubernetes.io/other" },
};

static void test_fit_filter_dra(void **state)
{
	(void)state;
	dra_classes[0] = class_json("{\"metadata\":{\"name\":\"device-class-name\"},"
				    "\"spec\":{\"extendedResourceName\":\"" DRA_ER "\"}}");
	struct fw_listers l = { .device_class = fit_class, .device_class_each = fit_class_each };
	for (size_t i = 0; i < sizeof(fit_dra_cases) / sizeof(fit_dra_cases[0]); i++) {
		const struct fit_dra_case *tc = &fit_dra_cases[i];
		n_dra_classes = tc->classes ? 1 : 0;
		struct tl_profile_spec spec = { .pre_filter = { "NodeResourcesFit" }, .filter = { "NodeResourcesFit" },
						.listers = &l };
		expect_filter(&spec, "NodeResourcesFit", tc->name, tobj_node_json(tc->node_fmt, "32"), NULL,
			      TOBJ_POD(.containers_json = tc->containers), tc->code, tc->msg);
	}
	api_device_class_unref(dra_classes[0]);
	n_dra_classes = 0;
}

/* extendedresourcecache: of two classes naming one resource the newer wins, the lower name among
 * equally new ones (updateResourceName2class). */
static void test_fit_dra_class_resolution(void **state)
{
	(void)state;
	struct fw_listers l = { .device_class = fit_class, .device_class_each = fit_class_each };
	struct tl_profile_spec spec = { .pre_filter = { "NodeResourcesFit" }, .filter = { "NodeResourcesFit" },
					.listers = &l };
	struct fw_profile *p = tl_profile(&spec, NULL);
	const struct fw_pl *pl = tl_pl(p, "NodeResourcesFit");
	static const struct { const char *t0, *t1, *want; } cases[] = {
		{ "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", "b" }, /* newer */
		{ "2024-01-02T00:00:00Z", "2024-01-01T00:00:00Z", "a" },
		{ "2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "a" }, /* tie: lower name */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[256];
		snprintf(buf, sizeof(buf),
			 "{\"metadata\":{\"name\":\"a\",\"creationTimestamp\":\"%s\"},\"spec\":{\"extendedResourceName\":\"" DRA_ER
			 "\"}}", cases[i].t0);
		dra_classes[1] = class_json(buf);
		snprintf(buf, sizeof(buf),
			 "{\"metadata\":{\"name\":\"b\",\"creationTimestamp\":\"%s\"},\"spec\":{\"extendedResourceName\":\"" DRA_ER
			 "\"}}", cases[i].t1);
		dra_classes[0] = class_json(buf);
		n_dra_classes = 2;
		struct api_device_class *c = fw_extended_resource_class(pl, DRA_ER);
		assert_non_null(c);
		assert_string_equal(c->meta.name, cases[i].want);
		api_device_class_unref(c);
		assert_null(fw_extended_resource_class(pl, "example.com/none"));
		c = fw_extended_resource_class(pl, "deviceclass.resource.kubernetes.io/a");
		assert_non_null(c);
		assert_string_equal(c->meta.name, "a");
		api_device_class_unref(c);
		api_device_class_unref(dra_classes[0]);
		api_device_class_unref(dra_classes[1]);
		n_dra_classes = 0;
	}
	fw_profile_free(p);
}

/* fit_test.go TestFitSignPod "DRA extended resource enabled - returns unschedulable": a pod
 * requesting a resource a DeviceClass backs is not signed (the same for BalancedAllocation);
 * one requesting only a device-plugin resource is. */
static void test_fit_sign_dra(void **state)
{
	(void)state;
	dra_classes[0] = class_json("{\"metadata\":{\"name\":\"device-class-name\"},"
				    "\"spec\":{\"extendedResourceName\":\"" DRA_ER "\"}}");
	n_dra_classes = 1;
	struct fw_listers l = { .device_class = fit_class, .device_class_each = fit_class_each };
	struct api_pod *dra = TOBJ_POD(.containers_json = "[" RX("\"cpu\":\"1\",\"" DRA_ER "\":\"1\"") "]");
	struct api_pod *implicit =
		TOBJ_POD(.containers_json = "[" RX("\"deviceclass.resource.kubernetes.io/device-class-name\":\"1\"") "]");
	struct api_pod *plain = TOBJ_POD(.containers_json = "[" RX("\"cpu\":\"1\",\"example.com/aaa\":\"1\"") "]");
	struct fw_sig sig = { 0 };
	uint32_t mask = CFG_SIGN_ON | CFG_SIGN_RESOURCES;
	assert_false(fw_sign_pod(mask, &l, dra, &sig));
	assert_false(fw_sign_pod(mask, &l, implicit, &sig));
	assert_true(fw_sign_pod(mask, &l, plain, &sig));
	/* "DRA extended resource disabled": no DeviceClass, signed */
	n_dra_classes = 0;
	assert_true(fw_sign_pod(mask, &l, dra, &sig));
	/* without NodeResourcesFit/BalancedAllocation the resources are not signed at all */
	n_dra_classes = 1;
	assert_true(fw_sign_pod(CFG_SIGN_ON, &l, dra, &sig));
	fw_sig_release(&sig);
	api_pod_unref(dra);
	api_pod_unref(implicit);
	api_pod_unref(plain);
	api_device_class_unref(dra_classes[0]);
	n_dra_classes = 0;
}

/* ---------- NodeResourcesFit: scores ---------- */

#define CAP_NODE(name, cpu, mem, extra) \
	"{\"metadata\":{\"name\":\"" name "\"},\"status\":{\"allocatable\":{\"cpu\":\"" cpu "\",\"memory\":\"" mem "\"" extra "}}}"

struct score_case {
	const char *name;
	const char *pod_containers;
	const char *nodes[3];
	const char *existing[3][3]; /* per node: containers JSON of existing pods */
	int64_t want[3];
	uint32_t n_nodes;
};

static void run_score_cases(const struct score_case *cases, size_t n_cases, const struct tl_profile_spec *spec,
			    const char *plugin)
{
	for (size_t i = 0; i < n_cases; i++) {
		const struct score_case *tc = &cases[i];
		struct one o;
		one_init(&o, spec, plugin);
		struct node_info nis[3];
		struct api_node *nodes[3];
		struct api_pod *pods[3][3] = { { 0 } };
		for (uint32_t k = 0; k < tc->n_nodes; k++) {
			nodes[k] = tobj_node_json("%s", tc->nodes[k]);
			size_t np = 0;
			for (; np < 3 && tc->existing[k][np]; np++)
				pods[k][np] = TOBJ_POD(.containers_json = tc->existing[k][np], .node = nodes[k]->meta.name);
			tl_node_info(&nis[k], nodes[k], pods[k], np);
		}
		expect_scores(&o, tc->name, TOBJ_POD(.containers_json = tc->pod_containers), nis, tc->n_nodes, tc->want);
		release_nodes(nis, nodes, tc->n_nodes);
		for (uint32_t k = 0; k < tc->n_nodes; k++)
			for (int j = 0; j < 3; j++)
				api_pod_unref(pods[k][j]);
		one_release(&o);
	}
}

/* upstream st.MakePod().Obj(): no containers, so no default requests either */
#define NO_REQ "[]"
#define CPU_AND_MEMORY "[" R("1000", "2000") "," R("2000", "3000") "]"

/* least_allocated_test.go TestLeastAllocatedScoringStrategy */
static const struct score_case least_cases[] = {
	{ "nothing scheduled, nothing requested", NO_REQ,
	  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "4000", "10000", "") }, { { 0 } }, { 100, 100 }, 2 },
	{ "nothing scheduled, resources requested, differently sized nodes", CPU_AND_MEMORY,
	  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "6000", "10000", "") }, { { 0 } }, { 37, 50 }, 2 },
	{ "no resources requested, pods scheduled with resources", NO_REQ,
	  { CAP_NODE("node1", "10000", "20000", ""), CAP_NODE("node2", "10000", "20000", "") },
	  { { "[" R("3000", "0") "]", "[" R("3000", "0") "]" }, { "[" R("3000", "0") "]", "[" R("3000", "5000") "]" } },
	  { 70, 57 }, 2 },
	{ "resources requested, pods scheduled with resources", CPU_AND_MEMORY,
	  { CAP_NODE("node1", "10000", "20000", ""), CAP_NODE("node2", "10000", "20000", "") },
	  { { "[" R("3000", "0") "]" }, { "[" R("3000", "5000") "]" } }, { 57, 45 }, 2 },
	{ "resources requested, pods scheduled with resources, differently sized nodes", CPU_AND_MEMORY,
	  { CAP_NODE("node1", "10000", "20000", ""), CAP_NODE("node2", "10000", "50000", "") },
	  { { "[" R("3000", "0") "]" }, { "[" R("3000", "5000") "]" } }, { 57, 60 }, 2 },
	{ "requested resources exceed node capacity", "[" R("3000", "0") "]",
	  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "4000", "10000", "") },
	  { { "[" R("3000", "0") "]" }, { "[" R("3000", "5000") "]" } }, { 50, 25 }, 2 },
	{ "zero node resources, pods scheduled with resources", NO_REQ,
	  { "{\"metadata\":{\"name\":\"node1\"}}", "{\"metadata\":{\"name\":\"node2\"}}" },
	  { { "[" R("3000", "0") "]" }, { "[" R("3000", "5000") "]" } }, { 0, 0 }, 2 },
	{ "bypass extended resource if the pod does not request", CPU_AND_MEMORY,
	  { CAP_NODE("node1", "6000", "10000", ""), CAP_NODE("node2", "6000", "10000", ",\"example.com/foo\":\"4\"") },
	  { { 0 } }, { 50, 50 }, 2 },
};

static void test_fit_least_allocated(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .pre_filter = { "NodeResourcesFit" }, .filter = { "NodeResourcesFit" },
					.pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" } };
	run_score_cases(least_cases, sizeof(least_cases) / sizeof(least_cases[0]), &spec, "NodeResourcesFit");
}

static void test_fit_weighted_and_extended(void **state)
{
	(void)state;
	/* "nothing scheduled, resources requested with different weight on CPU and memory":
	 * (25*1 + 50*2)/3 = 41 and (50*1 + 50*2)/3 = 50 */
	struct cfg_resource_weight w[] = { { intern_str("memory"), 2 }, { intern_str("cpu"), 1 } };
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.fit.n_resources = 2;
	args.fit.resources = w;
	struct tl_profile_spec spec = { .pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" },
					.args = &args };
	static const struct score_case weighted[] = {
		{ "different weights", CPU_AND_MEMORY,
		  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "6000", "10000", "") }, { { 0 } },
		  { 41, 50 }, 2 },
	};
	run_score_cases(weighted, 1, &spec, "NodeResourcesFit");

	/* "honor extended resource if the pod requests": (50+50+50)/3 = 50, (50+50+80)/3 = 60 */
	struct cfg_resource_weight ext[] = { { intern_str("cpu"), 1 }, { intern_str("memory"), 1 },
					     { intern_str("example.com/foo"), 1 } };
	args.fit.n_resources = 3;
	args.fit.resources = ext;
	static const struct score_case extended[] = {
		{ "honor extended resource", "[" RX("\"cpu\":\"3000\",\"memory\":\"5000\",\"example.com/foo\":\"2\"") "]",
		  { CAP_NODE("node1", "6000", "10000", ",\"example.com/foo\":\"4\""),
		    CAP_NODE("node2", "6000", "10000", ",\"example.com/foo\":\"10\"") },
		  { { 0 } }, { 50, 60 }, 2 },
		{ "bypass extended resource if the pod does not request", CPU_AND_MEMORY,
		  { CAP_NODE("node1", "6000", "10000", ""), CAP_NODE("node2", "6000", "10000", ",\"example.com/foo\":\"4\"") },
		  { { 0 } }, { 50, 50 }, 2 },
	};
	run_score_cases(extended, 2, &spec, "NodeResourcesFit");

	/* weights outside 1..100 are rejected when the profile is built */
	struct cfg_resource_weight bad[] = { { intern_str("memory"), 0 }, { intern_str("cpu"), 1 } };
	args.fit.n_resources = 2;
	args.fit.resources = bad;
	/* the default profile's other args as config defaults them (DynamicResources, whose init
	 * runs first at PreEnqueue, rejects a zero bindingTimeout) */
	args.dynamic_resources = (struct cfg_dynamic_resources_args){ 10000000000LL, 600000000000LL };
	struct fw_profile_config pc;
	fw_default_profile_config("x", &pc);
	pc.args = &args;
	struct err e = { 0 };
	assert_null(fw_profile_new(&pc, NULL, &e));
	assert_non_null(strstr(e.msg, "scoringStrategy.resources[0].weight"));
	assert_non_null(strstr(e.msg, "NodeResourcesFit"));
}

/* most_allocated_test.go TestMostAllocatedScoringStrategy */
static void test_fit_most_allocated(void **state)
{
	(void)state;
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.fit.scoring_type = CFG_SCORING_MOST_ALLOCATED;
	struct tl_profile_spec spec = { .pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" },
					.args = &args };
	static const struct score_case cases[] = {
		{ "nothing scheduled, nothing requested", NO_REQ,
		  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "4000", "10000", "") }, { { 0 } }, { 0, 0 }, 2 },
		{ "nothing scheduled, resources requested, differently sized nodes", CPU_AND_MEMORY,
		  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "6000", "10000", "") }, { { 0 } },
		  { 62, 50 }, 2 },
		{ "resources requested, pods scheduled with resources", CPU_AND_MEMORY,
		  { CAP_NODE("node1", "10000", "20000", ""), CAP_NODE("node2", "10000", "20000", "") },
		  { { "[" R("3000", "0") "]" }, { "[" R("3000", "5000") "]" } }, { 42, 55 }, 2 },
		{ "resources requested with more than the node, pods scheduled with resources",
		  "[" R("1000", "2000") "," R("2000", "3000") "]",
		  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "6000", "10000", "") },
		  { { "[" R("3000", "0") "]" }, { 0 } }, { 75, 50 }, 2 },
	};
	run_score_cases(cases, sizeof(cases) / sizeof(cases[0]), &spec, "NodeResourcesFit");
}

/* requested_to_capacity_ratio_test.go: shape {0,10},{100,0} (spread) and {0,0},{100,10} (pack) */
static void test_fit_requested_to_capacity_ratio(void **state)
{
	(void)state;
	struct cfg_shape_point spread[] = { { 0, 10 }, { 100, 0 } };
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.fit.scoring_type = CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO;
	args.fit.n_shape = 2;
	args.fit.shape = spread;
	struct tl_profile_spec spec = { .pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" },
					.args = &args };
	static const struct score_case cases[] = {
		/* TestRequestedToCapacityRatioScoringStrategy "nothing scheduled, nothing requested" */
		{ "nothing scheduled, nothing requested", NO_REQ,
		  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "4000", "10000", "") }, { { 0 } },
		  { 100, 100 }, 2 },
		{ "nothing scheduled, resources requested, differently sized nodes", "[" R("3000", "5000") "]",
		  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "6000", "10000", "") }, { { 0 } },
		  { 38, 50 }, 2 },
	};
	run_score_cases(cases, sizeof(cases) / sizeof(cases[0]), &spec, "NodeResourcesFit");

	struct cfg_shape_point pack[] = { { 0, 0 }, { 100, 10 } };
	args.fit.shape = pack;
	static const struct score_case pack_cases[] = {
		/* (75 + 50) / 2 = 62.5 -> 63 (math.Round) and (50 + 50) / 2 = 50 */
		{ "binpacking rounds halves away from zero", "[" R("3000", "5000") "]",
		  { CAP_NODE("node1", "4000", "10000", ""), CAP_NODE("node2", "6000", "10000", "") }, { { 0 } },
		  { 63, 50 }, 2 },
		{ "over capacity scores f(100)", "[" R("5000", "5000") "]",
		  { CAP_NODE("node1", "4000", "10000", "") }, { { 0 } }, { 75 }, 1 },
	};
	run_score_cases(pack_cases, 2, &spec, "NodeResourcesFit");

	/* a shape that is not increasing is rejected */
	struct cfg_shape_point bad[] = { { 50, 0 }, { 50, 10 } };
	args.fit.shape = bad;
	args.dynamic_resources = (struct cfg_dynamic_resources_args){ 10000000000LL, 600000000000LL };
	struct fw_profile_config pc;
	fw_default_profile_config("x", &pc);
	pc.args = &args;
	struct err e = { 0 };
	assert_null(fw_profile_new(&pc, NULL, &e));
	assert_non_null(strstr(e.msg, "shape[1].utilization"));
}

static enum fw_code run_prepared_image_score(struct one *o, const struct api_pod *pod, struct node_info *nis,
					     uint32_t n, int64_t *out);

/* oracle: tests/fixtures/oracle/fit-requested-to-capacity-ratio.json and fit-most-allocated.json
 * (the nodes and pods of balanced-3-resources.json; resources cpu 2, memory 1, example.com/gpu 3;
 * shape 0:0 30:7 100:3): RTCR a 53, b 38, c 54, d 37; MostAllocated a 47, b 16, c 58, d 88 */
#define ORACLE3_POD "[" RX("\"cpu\":\"500m\",\"memory\":\"2Gi\",\"example.com/gpu\":\"1\"") "]"
#define ORACLE3_NODES_ABD                                                                                  \
	{ CAP_NODE("a", "4", "8Gi", ",\"example.com/gpu\":\"4\""), CAP_NODE("b", "4", "8Gi", ""),        \
	  CAP_NODE("d", "3", "10Gi", ",\"example.com/gpu\":\"2\"") },                                      \
	{ { "[" R("3", "1Gi") "]" }, { 0 }, { "[" RX("\"cpu\":\"5\",\"memory\":\"1Gi\",\"example.com/gpu\":\"1\"") "]" } }
#define ORACLE3_NODE_C                                                                                     \
	{ CAP_NODE("c", "4", "8Gi", ",\"example.com/gpu\":\"8\"") },                                      \
	{ { "[" RX("\"cpu\":\"1500m\",\"memory\":\"6Gi\",\"example.com/gpu\":\"3\"") "]" } }
static void test_fit_scores_oracle(void **state)
{
	(void)state;
	struct cfg_resource_weight w[] = { { intern_str("cpu"), 2 }, { intern_str("memory"), 1 },
					   { intern_str("example.com/gpu"), 3 } };
	struct cfg_shape_point shape[] = { { 0, 0 }, { 30, 7 }, { 100, 3 } };
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.fit.scoring_type = CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO;
	args.fit.n_resources = 3;
	args.fit.resources = w;
	args.fit.n_shape = 3;
	args.fit.shape = shape;
	struct tl_profile_spec spec = { .pre_score = { "NodeResourcesFit" }, .score = { "NodeResourcesFit" },
					.args = &args };
	static const struct score_case rtcr[] = {
		{ "oracle fit-requested-to-capacity-ratio a b d", ORACLE3_POD, ORACLE3_NODES_ABD, { 53, 38, 37 }, 3 },
		{ "oracle fit-requested-to-capacity-ratio c", ORACLE3_POD, ORACLE3_NODE_C, { 54 }, 1 },
	};
	run_score_cases(rtcr, 2, &spec, "NodeResourcesFit");
	args.fit.scoring_type = CFG_SCORING_MOST_ALLOCATED;
	args.fit.n_shape = 0;
	args.fit.shape = NULL;
	static const struct score_case most[] = {
		{ "oracle fit-most-allocated a b d", ORACLE3_POD, ORACLE3_NODES_ABD, { 47, 16, 88 }, 3 },
		{ "oracle fit-most-allocated c", ORACLE3_POD, ORACLE3_NODE_C, { 58 }, 1 },
	};
	run_score_cases(most, 2, &spec, "NodeResourcesFit");
}


/* balanced_allocation_test.go TestNodeResourcesBalancedAllocation (v1.37: the score is the change
 * in balance, 50 + (50 + with - without) / 2); "with"/"without" per node in the comments */
#define BA_CPU(cpu) "{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"" cpu "\"}}}"
#define BA_GPU ",\"nvidia.com/gpu\":\"8\""
static void test_balanced_allocation(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .pre_score = { "NodeResourcesBalancedAllocation" },
					.score = { "NodeResourcesBalancedAllocation" } };
	static const struct score_case cases[] = {
		/* node1 100 -> 87, node2 100 -> 100 */
		{ "nothing scheduled, resources requested, differently sized nodes",
		  "[" R("1000m", "2000") "," R("2000m", "3000") "]",
		  { CAP_NODE("node1", "4000m", "10000", ""), CAP_NODE("node2", "6000m", "10000", "") }, { { 0 } },
		  { 68, 75 }, 2 },
		/* node1 85 -> 82, node2 97 -> 95 */
		{ "resources requested, pods scheduled with resources", "[" R("1000m", "2000") "," R("2000m", "3000") "]",
		  { CAP_NODE("node1", "10000m", "20000", ""), CAP_NODE("node2", "10000m", "20000", "") },
		  { { "[" BA_CPU("1000m") "," BA_CPU("2000m") "]" }, { "[" R("1000m", "2000") "," R("2000m", "3000") "]" } },
		  { 73, 74 }, 2 },
		/* node1 85 -> 82, node2 90 -> 80 */
		{ "resources requested, pods scheduled with resources, differently sized nodes",
		  "[" R("1000m", "2000") "," R("2000m", "3000") "]",
		  { CAP_NODE("node1", "10000m", "20000", ""), CAP_NODE("node2", "10000m", "50000", "") },
		  { { "[" BA_CPU("1000m") "," BA_CPU("2000m") "]" }, { "[" R("1000m", "2000") "," R("2000m", "3000") "]" } },
		  { 73, 70 }, 2 },
		/* node1 50 -> 100, node2 100 -> 50 */
		{ "resources requested, pods scheduled with resources, nodes to reach min/max score",
		  "[" RX("\"memory\":\"2000\"") "," RX("\"memory\":\"3000\"") "]",
		  { CAP_NODE("node1", "3000m", "5000", ""), CAP_NODE("node2", "3000m", "5000", "") },
		  { { "[" BA_CPU("1000m") "," BA_CPU("2000m") "]" }, { 0 } }, { 100, 50 }, 2 },
		/* node1 75 -> 50, node2 100 -> 75 */
		{ "requested resources at node capacity", "[" BA_CPU("1000m") "," BA_CPU("2000m") "]",
		  { CAP_NODE("node1", "6000m", "10000", ""), CAP_NODE("node2", "6000m", "10000", "") },
		  { { "[" BA_CPU("1000m") "," BA_CPU("2000m") "]" }, { "[" R("1000m", "2000") "," R("2000m", "3000") "]" } },
		  { 62, 62 }, 2 },
	};
	run_score_cases(cases, sizeof(cases) / sizeof(cases[0]), &spec, "NodeResourcesBalancedAllocation");

	/* "nothing scheduled, nothing requested, skip in PreScore": best-effort pods are not scored */
	struct one o;
	one_init(&o, &spec, "NodeResourcesBalancedAllocation");
	struct api_node *n = tobj_node_json(CAP_NODE("node1", "4000m", "10000", ""));
	struct node_info ni;
	tl_node_info(&ni, n, NULL, 0);
	struct api_pod *pod = TOBJ_POD(.containers_json = NO_REQ);
	int64_t got;
	assert_int_equal(run_score(&o, pod, &ni, 1, &got), FW_SKIP);
	node_info_release(&ni);
	api_node_unref(n);
	api_pod_unref(pod);
	one_release(&o);

	/* three resources: std over the fractions of the resources scored on the node */
	struct cfg_resource_weight res[] = { { intern_str("cpu"), 1 }, { intern_str("memory"), 1 },
					     { intern_str("nvidia.com/gpu"), 1 } },
				   res_ba3[] = { { intern_str("cpu"), 1 }, { intern_str("memory"), 1 },
						 { intern_str("example.com/gpu"), 1 } };
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.balanced.n_resources = 3;
	args.balanced.resources = res;
	spec.args = &args;
	static const struct score_case three[] = {
		/* node1 69 -> 70, node2 62 -> 65 */
		{ "scalar resource is included in the score computation if pod requests the scalar resource",
		  "[" RX("\"cpu\":\"0\",\"memory\":\"0\",\"nvidia.com/gpu\":\"1\"") "]",
		  { CAP_NODE("node1", "3500m", "40000", BA_GPU), CAP_NODE("node2", "3500m", "40000", BA_GPU) },
		  { { "[" R("1000m", "2000") "," RX("\"cpu\":\"2000m\",\"memory\":\"3000\",\"nvidia.com/gpu\":\"3\"") "]" },
		    { "[" R("1000m", "2000") "," R("2000m", "3000") "]" } },
		  { 75, 76 }, 2 },
		/* both 100 -> 63: the gpu is not requested, so not scored */
		{ "scalar resource is not included in the score computation if pod doesn't request the scalar resource",
		  "[" R("1000m", "2000") "," R("2000m", "3000") "]",
		  { CAP_NODE("node1", "3500m", "40000", BA_GPU), CAP_NODE("node2", "3500m", "40000", "") }, { { 0 } },
		  { 56, 56 }, 2 },
	};
	run_score_cases(three, sizeof(three) / sizeof(three[0]), &spec, "NodeResourcesBalancedAllocation");
	args.balanced.resources = res_ba3;
	static const struct score_case ba3[] = {
		/* oracle: tests/fixtures/oracle/balanced-3-resources.json (args cpu, memory, example.com/gpu; pod 500m/2Gi/1 gpu): a 77 (gpu 0 -> 1/4),
		 * b 71 (no gpu on the node: two fractions), d 77 (cpu over capacity: fraction capped at 1) */
		{ "oracle ba3 a b d", "[" RX("\"cpu\":\"500m\",\"memory\":\"2Gi\",\"example.com/gpu\":\"1\"") "]",
		  { CAP_NODE("a", "4", "8Gi", ",\"example.com/gpu\":\"4\""), CAP_NODE("b", "4", "8Gi", ""),
		    CAP_NODE("d", "3", "10Gi", ",\"example.com/gpu\":\"2\"") },
		  { { "[" R("3", "1Gi") "]" }, { 0 }, { "[" RX("\"cpu\":\"5\",\"memory\":\"1Gi\",\"example.com/gpu\":\"1\"") "]" } },
		  { 77, 71, 77 }, 3 },
		/* oracle: balanced-3-resources.json: c 72 (three fractions with and without the pod) */
		{ "oracle ba3 c", "[" RX("\"cpu\":\"500m\",\"memory\":\"2Gi\",\"example.com/gpu\":\"1\"") "]",
		  { CAP_NODE("c", "4", "8Gi", ",\"example.com/gpu\":\"8\"") },
		  { { "[" RX("\"cpu\":\"1500m\",\"memory\":\"6Gi\",\"example.com/gpu\":\"3\"") "]" } }, { 72 }, 1 },
	};
	run_score_cases(ba3, sizeof(ba3) / sizeof(ba3[0]), &spec, "NodeResourcesBalancedAllocation");
}

/* Score when the profile leaves the plugin's PreScore out: the framework's preparation computes
 * what PreScore would have. balanced_allocation_test.go "resources requested, pods scheduled with
 * resources if PreScore not called" (73, 74); fit's least_allocated_test.go "resources
 * requested, pods scheduled with resources" (57, 45), here without PreScore. */
static void test_resource_scores_without_pre_score(void **state)
{
	(void)state;
	static const struct {
		const char *plugin, *cpu, *mem, *existing[2], *pod;
		int64_t want[2];
	} cases[] = {
		{ "NodeResourcesBalancedAllocation", "10000m", "20000",
		  { "[" BA_CPU("1000m") "," BA_CPU("2000m") "]", "[" R("1000m", "2000") "," R("2000m", "3000") "]" },
		  "[" R("1000m", "2000") "," R("2000m", "3000") "]", { 73, 74 } },
		{ "NodeResourcesFit", "10000", "20000", { "[" R("3000", "0") "]", "[" R("3000", "5000") "]" }, CPU_AND_MEMORY,
		  { 57, 45 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tl_profile_spec spec = { .filter = { "NodeResourcesFit" }, .score = { cases[i].plugin } };
		struct one o;
		one_init(&o, &spec, cases[i].plugin);
		struct api_node *nodes[2];
		struct api_pod *existing[2];
		struct node_info nis[2];
		for (int k = 0; k < 2; k++) {
			char name[8];
			snprintf(name, sizeof(name), "node%d", k + 1);
			nodes[k] = tobj_node_json("{\"metadata\":{\"name\":\"%s\"},\"status\":{\"allocatable\":{\"cpu\":\"%s\","
						  "\"memory\":\"%s\"}}}",
						  name, cases[i].cpu, cases[i].mem);
			existing[k] = TOBJ_POD(.containers_json = cases[i].existing[k], .node = name);
			tl_node_info(&nis[k], nodes[k], &existing[k], 1);
		}
		struct api_pod *pod = TOBJ_POD(.containers_json = cases[i].pod);
		int64_t got[2];
		assert_int_equal(run_prepared_image_score(&o, pod, nis, 2, got), FW_SUCCESS);
		for (int k = 0; k < 2; k++)
			if (got[k] != cases[i].want[k])
				fail_msg("%s without PreScore: node%d got %lld want %lld", cases[i].plugin, k + 1,
					 (long long)got[k], (long long)cases[i].want[k]);
		release_nodes(nis, nodes, 2);
		for (int k = 0; k < 2; k++)
			api_pod_unref(existing[k]);
		api_pod_unref(pod);
		one_release(&o);
	}
}

/* ---------- ImageLocality (image_locality_test.go) ---------- */

#define MB (1024LL * 1024LL)

/* upstream's node "machine1" images, shared by the Score and the prepared-path tests */
static const struct node_image n1_imgs[] = {
	{ "gcr.io/40:latest", 40 * MB, 1 }, { "gcr.io/40:v1", 40 * MB, 1 },
	{ "gcr.io/300:latest", 300 * MB, 1 }, { "gcr.io/300:v1", 300 * MB, 1 },
	{ "gcr.io/2000:latest", 2000 * MB, 1 },
};

static void test_image_locality(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .score = { "ImageLocality" } };
	struct node_image n2_imgs[] = {
		{ "gcr.io/250:latest", 250 * MB, 1 }, { "gcr.io/10:latest", 10 * MB, 1 }, { "gcr.io/10:v1", 10 * MB, 1 },
	};
	struct {
		const char *name, *containers, *inits;
		int64_t want[3];
		uint32_t n;
	} cases[] = {
		/* node1: 40M*1/2 = 20M < 23M -> 0; node2: 250M/2 = 125M -> 100*(125-23)/(2000-23) = 5 */
		{ "two images spread on two nodes, prefer the larger image one",
		  "[{\"name\":\"a\",\"image\":\"gcr.io/40\"},{\"name\":\"b\",\"image\":\"gcr.io/250\"}]", NULL, { 0, 5 }, 2 },
		/* node1: (40M+300M)/2 = 170M -> 100*(170-23)/(2000-23) = 7; node2: 5M -> 0 */
		{ "two images on one node, prefer this node",
		  "[{\"name\":\"a\",\"image\":\"gcr.io/40\"},{\"name\":\"b\",\"image\":\"gcr.io/300\"}]", NULL, { 7, 0 }, 2 },
		/* node1: 2000M/2 = 1000M -> 100*(1000-23)/(1000-23) = 100; node2: 0 */
		{ "if exceed limit, use limit", "[{\"name\":\"a\",\"image\":\"gcr.io/2000\"}]", NULL, { 100, 0 }, 2 },
		/* tags: gcr.io/10:v1 matches node2 only: 5M -> 0 */
		{ "tagged image", "[{\"name\":\"a\",\"image\":\"gcr.io/10:v1\"}]", NULL, { 0, 0 }, 2 },
		/* init containers count too: 300M/2 + 250M/2 = 150M and 125M over 2 containers */
		{ "init containers count",
		  "[{\"name\":\"a\",\"image\":\"gcr.io/250\"}]", "[{\"name\":\"i\",\"image\":\"gcr.io/300:v1\"}]",
		  { 6, 5 }, 2 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct one o;
		one_init(&o, &spec, "ImageLocality");
		struct api_node *nodes[2] = { TOBJ_NODE(.name = "node1"), TOBJ_NODE(.name = "node2") };
		struct node_info nis[2];
		tl_node_info(&nis[0], nodes[0], NULL, 0);
		tl_node_info(&nis[1], nodes[1], NULL, 0);
		tl_set_images(&nis[0], n1_imgs, 5);
		tl_set_images(&nis[1], n2_imgs, 3);
		expect_scores(&o, cases[i].name,
			      TOBJ_POD(.containers_json = cases[i].containers, .inits_json = cases[i].inits), nis, 2,
			      cases[i].want);
		release_nodes(nis, nodes, 2);
		one_release(&o);
	}
}

/* The cycle's way to run ImageLocality: its per-pod preparation (which may Skip), then Score on
 * each node with the prepared state. Returns the preparation's code. */
static enum fw_code run_prepared_image_score(struct one *o, const struct api_pod *pod, struct node_info *nis,
					     uint32_t n, int64_t *out)
{
	const struct node_info *ptrs[16];
	struct fw_status st;
	one_set_nodes(o, nis, n, ptrs);
	fw_pre_score_fn prepare = fw_score_prepare_of(o->pl->plugin);
	assert_non_null(prepare);
	fw_status_reset(&st);
	enum fw_code code = prepare(o->pl, o->c, pod, ptrs, n, &st);
	assert_non_null(fw_cycle_state(o->c, o->pl)); /* Score below uses the prepared names */
	for (uint32_t i = 0; i < n; i++) {
		fw_status_reset(&st);
		out[i] = -1;
		assert_int_equal(o->pl->plugin->score(o->pl, o->c, pod, ptrs[i], &out[i], &st), FW_SUCCESS);
	}
	return code;
}

/* The prepared path gives the same scores as Score alone (upstream's per-node normalisation), on
 * nodes with and without the image index, and Skips exactly when every node scores 0. */
static void test_image_locality_prepared(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .score = { "ImageLocality" } };
	struct node_image n2_imgs[] = {
		{ "gcr.io/250:latest", 250 * MB, 2 }, { "gcr.io/10:latest", 10 * MB, 1 }, { "gcr.io/10:v1", 10 * MB, 1 },
	};
	struct node_image n3_imgs[] = { { "gcr.io/250:latest", 250 * MB, 2 } };
#define C(img) "{\"name\":\"c\",\"image\":\"" img "\"}"
	static const struct {
		const char *name, *containers, *inits;
		int64_t want[3];
	} cases[] = {
		/* totals over 3 nodes: 40M/3 = 13.3M -> 0; 250M*2/3 = 166.7M -> 100*(166.7-23)/(2000-23) = 7 */
		{ "larger spread image wins", "[" C("gcr.io/40") "," C("gcr.io/250") "]", NULL, { 0, 7, 7 } },
		{ "tagged and untagged of one image count per container",
		  "[" C("gcr.io/300") "," C("gcr.io/300:latest") "," C("gcr.io/300:v1") "]", NULL, { 9, 0, 0 } },
		{ "same image in an init and an app container", "[" C("gcr.io/250") "]", "[" C("gcr.io/250:latest") "]",
		  { 0, 15, 15 } },
		/* 2000M/3 = 666.7M -> 100*(666.7-23)/(1000-23) = 65 */
		{ "one big image", "[" C("gcr.io/2000") "]", NULL, { 65, 0, 0 } },
		{ "image on no node: skipped", "[" C("gcr.io/none") "]", NULL, { 0, 0, 0 } },
		{ "images too small everywhere: skipped", "[" C("gcr.io/10:v1") "," C("gcr.io/40:v1") "]", NULL, { 0, 0, 0 } },
		{ "no containers: skipped", "[]", NULL, { 0, 0, 0 } },
	};
#undef C
	for (int indexed = 0; indexed < 2; indexed++) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct one o;
			one_init(&o, &spec, "ImageLocality");
			struct api_node *nodes[3] = { TOBJ_NODE(.name = "node1"),
						      TOBJ_NODE(.name = "node2"),
						      TOBJ_NODE(.name = "node3") };
			struct node_info nis[3];
			for (int k = 0; k < 3; k++)
				tl_node_info(&nis[k], nodes[k], NULL, 0);
			tl_set_images(&nis[0], n1_imgs, 5);
			tl_set_images(&nis[1], n2_imgs, 3);
			tl_set_images(&nis[2], n3_imgs, 1);
			for (int k = 0; indexed && k < 3; k++)
				assert_int_equal(node_info_index_images(&nis[k]), 0);
			struct api_pod *pod = TOBJ_POD(.containers_json = cases[i].containers, .inits_json = cases[i].inits);
			int64_t plain[3], prepared[3];
			assert_int_equal(run_score(&o, pod, nis, 3, plain), FW_SUCCESS);
			enum fw_code code = run_prepared_image_score(&o, pod, nis, 3, prepared);
			bool all_zero = true;
			for (int k = 0; k < 3; k++) {
				if (plain[k] != cases[i].want[k] || prepared[k] != cases[i].want[k])
					fail_msg("%s (index %d): node %d: Score alone %lld, prepared %lld, want %lld",
						 cases[i].name, indexed, k + 1, (long long)plain[k], (long long)prepared[k],
						 (long long)cases[i].want[k]);
				all_zero &= cases[i].want[k] == 0;
			}
			if (code != (all_zero ? FW_SKIP : FW_SUCCESS))
				fail_msg("%s: preparation returned %s", cases[i].name, fw_code_str(code));
			release_nodes(nis, nodes, 3);
			api_pod_unref(pod);
			one_release(&o);
		}
	}
}

/* Image volumes count as images of the pod (upstream image_locality.go sumImageScores) */
#define IL_VOLUME(ref) "{\"name\":\"v\",\"image\":{\"reference\":\"" ref "\"}}"
static void test_image_locality_volumes(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .score = { "ImageLocality" } };
	/* image_locality_test.go TestImageLocalityPriority: node300600900 and node400030 */
	static const struct node_image n1_imgs[] = {
		{ "gcr.io/300:latest", 300 * MB, 1 }, { "gcr.io/600:latest", 600 * MB, 1 }, { "gcr.io/900:latest", 900 * MB, 1 },
	};
	static const struct node_image n2_imgs[] = { { "gcr.io/4000:latest", 4000 * MB, 1 }, { "gcr.io/30:latest", 30 * MB, 1 } };
	static const struct {
		const char *name, *containers, *volumes;
		int64_t want[2];
	} cases[] = {
		/* 100 * (300M * 1/2 - 23M) / (1000M * 2 - 23M) = 6 */
		{ "pod with ImageVolume", "[{\"name\":\"c\",\"image\":\"gcr.io/30\"}]", "[" IL_VOLUME("gcr.io/300") "]", { 6, 0 } },
		{ "same images as ImageVolume pod but as regular container images",
		  "[{\"name\":\"c\",\"image\":\"gcr.io/30\"},{\"name\":\"d\",\"image\":\"gcr.io/300\"}]", "[]", { 6, 0 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct one o;
		one_init(&o, &spec, "ImageLocality");
		struct api_node *nodes[2] = { TOBJ_NODE(.name = "node1"), TOBJ_NODE(.name = "node2") };
		struct node_info nis[2];
		for (int k = 0; k < 2; k++)
			tl_node_info(&nis[k], nodes[k], NULL, 0);
		tl_set_images(&nis[0], n1_imgs, 3);
		tl_set_images(&nis[1], n2_imgs, 2);
		char vols[256];
		snprintf(vols, sizeof(vols), "\"volumes\":%s", cases[i].volumes);
		struct api_pod *pod = TOBJ_POD(.containers_json = cases[i].containers, .spec = vols);
		int64_t plain[2], prepared[2];
		assert_int_equal(run_score(&o, pod, nis, 2, plain), FW_SUCCESS);
		run_prepared_image_score(&o, pod, nis, 2, prepared);
		for (int k = 0; k < 2; k++)
			if (plain[k] != cases[i].want[k] || prepared[k] != cases[i].want[k])
				fail_msg("%s: node%d: Score alone %lld, prepared %lld, want %lld", cases[i].name, k + 1,
					 (long long)plain[k], (long long)prepared[k], (long long)cases[i].want[k]);
		release_nodes(nis, nodes, 2);
		api_pod_unref(pod);
		one_release(&o);
	}

	/* oracle: tests/fixtures/oracle/image-locality-volumes.json, through the cache: n1 reports
	 * "gcr.io/300" untagged, which the pod's volume (normalised to gcr.io/300:latest) does not
	 * match; three images (one container, two volumes): n1 4, n2 41, n3 41 */
	struct cache *c = cache_new();
	struct snapshot *snap = snapshot_new();
	struct err e = { 0 };
	static const char *const node_json[] = {
		"{\"metadata\":{\"name\":\"n1\"},\"status\":{\"images\":[{\"names\":[\"gcr.io/300\"],\"sizeBytes\":943718400},"
		"{\"names\":[\"gcr.io/30:latest\"],\"sizeBytes\":524288000}]}}",
		"{\"metadata\":{\"name\":\"n2\"},\"status\":{\"images\":[{\"names\":[\"gcr.io/300:latest\",\"gcr.io/300@sha256:aaaa\"],"
		"\"sizeBytes\":943718400},{\"names\":[\"registry.io/x:v1\"],\"sizeBytes\":1048576000}]}}",
		"{\"metadata\":{\"name\":\"n3\"},\"status\":{\"images\":[{\"names\":[\"registry.io/x:v1\"],\"sizeBytes\":1048576000},"
		"{\"names\":[\"gcr.io/300:latest\"],\"sizeBytes\":104857600}]}}",
	};
	for (int k = 0; k < 3; k++) {
		struct api_node *n = tobj_node_json("%s", node_json[k]);
		assert_int_equal(cache_add_node(c, n, &e), 0);
		api_node_unref(n);
	}
	assert_int_equal(cache_update_snapshot(c, snap, &e), 0);
	struct api_pod *pod = TOBJ_POD(.containers_json = "[{\"name\":\"c\",\"image\":\"gcr.io/30\"}]",
				       .spec = "\"volumes\":[" IL_VOLUME("gcr.io/300") "," IL_VOLUME("registry.io/x:v1") "]");
	struct one o;
	one_init(&o, &spec, "ImageLocality");
	const struct node_info *ptrs[3];
	for (int k = 0; k < 3; k++)
		ptrs[k] = snapshot_get(snap, (const char *[]){ "n1", "n2", "n3" }[k]);
	o.list.n = 3;
	o.list.nodes = ptrs;
	static const int64_t want[3] = { 4, 41, 41 };
	for (int prepared = 0; prepared < 2; prepared++) {
		struct fw_status st;
		fw_cycle_reset(o.c);
		o.c->nodes = &o.list;
		if (prepared)
			fw_score_prepare_of(o.pl->plugin)(o.pl, o.c, pod, ptrs, 3, &st);
		for (int k = 0; k < 3; k++) {
			int64_t got = -1;
			fw_status_reset(&st);
			assert_int_equal(o.pl->plugin->score(o.pl, o.c, pod, ptrs[k], &got, &st), FW_SUCCESS);
			if (got != want[k])
				fail_msg("oracle image-locality-volumes (prepared %d): n%d got %lld want %lld", prepared, k + 1,
					 (long long)got, (long long)want[k]);
		}
	}
	one_release(&o);
	api_pod_unref(pod);
	snapshot_free(snap);
	cache_free(c);
}

/* ---------- resources resolved once per pod (helpers.c) ---------- */

/* fw_res_refs keeps, in order, the resources fw_resource_alloc_req can score, and
 * fw_res_ref_alloc_req reads on every node what fw_resource_alloc_req looks up by name. */
static void test_resource_refs(void **state)
{
	(void)state;
	const char *names[] = { "cpu", "memory", "ephemeral-storage", "pods", "example.com/foo", "example.com/bar",
				"hugepages-2Mi", "foo", "example.com/foo" };
	enum { NR = sizeof(names) / sizeof(names[0]) };
	static const struct {
		const char *desc;
		int64_t req[NR];
		const char *want; /* kept names */
	} cases[] = {
		{ "nothing requested: native ones stay",
		  { 0 }, "cpu memory ephemeral-storage" },
		{ "scalars kept only when requested",
		  { 100, 200, 0, 1, 2, 0, 3, 5, 0 }, "cpu memory ephemeral-storage example.com/foo hugepages-2Mi" },
		{ "a scalar the node lacks is kept (it scores 0 allocatable there)",
		  { 0, 0, 7, 0, 0, 1, 0, 0, 4 }, "cpu memory ephemeral-storage example.com/bar example.com/foo" },
	};
	const char *interned[NR];
	int64_t weights[NR];
	for (int i = 0; i < NR; i++) {
		interned[i] = intern_str(names[i]);
		weights[i] = i + 1;
	}
	struct api_node *n1 = TOBJ_NODE(.name = "n1", .alloc = "cpu=4,memory=10Gi,ephemeral-storage=20Gi,pods=110,"
							       "example.com/foo=5,hugepages-2Mi=8Mi");
	struct api_node *n2 = TOBJ_NODE(.name = "n2", .alloc = "cpu=2,memory=1Gi,pods=10,example.com/bar=3");
	struct api_pod *e1 = TOBJ_POD(.node = "n1",
				      .containers = { { .req = "cpu=1,memory=1Gi,ephemeral-storage=1Gi,example.com/foo=2" } });
	struct api_pod *e2 = TOBJ_POD(.node = "n2");
	struct node_info nis[3];
	tl_node_info(&nis[0], n1, &e1, 1);
	tl_node_info(&nis[1], n2, &e2, 1);
	node_info_init(&nis[2], intern_str("ghost")); /* no Node: zero allocatable */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fw_res_ref refs[NR];
		uint32_t n = fw_res_refs(interned, cases[i].req, weights, NR, refs);
		char got[256] = "";
		for (uint32_t k = 0; k < n; k++) {
			if (k)
				strcat(got, " ");
			strcat(got, refs[k].name);
		}
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: kept %s, want %s", cases[i].desc, got, cases[i].want);
		/* every name, kept or not, against the by-name lookup */
		uint32_t k = 0;
		for (int r = 0; r < NR; r++) {
			bool kept = k < n && refs[k].name == interned[r] && refs[k].pod_req == cases[i].req[r];
			if (kept)
				assert_int_equal(refs[k].weight, weights[r]);
			for (int node = 0; node < 3; node++)
				for (int use_req = 0; use_req < 2; use_req++) {
					int64_t a0, r0, a1 = 0, r1 = 0;
					fw_resource_alloc_req(&nis[node], interned[r], cases[i].req[r], use_req, &a0, &r0);
					if (kept)
						fw_res_ref_alloc_req(&nis[node], &refs[k], use_req, &a1, &r1);
					if (a0 != a1 || r0 != r1)
						fail_msg("%s: %s on node %d (requested %d): by name (%lld, %lld), resolved "
							 "(%lld, %lld)%s",
							 cases[i].desc, names[r], node, use_req, (long long)a0, (long long)r0,
							 (long long)a1, (long long)r1, kept ? "" : " (dropped)");
				}
			if (kept)
				k++;
		}
		assert_int_equal(k, n);
	}
	/* no weights: 1 each */
	struct fw_res_ref refs[NR];
	int64_t reqs[NR] = { 1, 1 };
	assert_int_equal(fw_res_refs(interned, reqs, NULL, 2, refs), 2);
	assert_int_equal(refs[0].weight, 1);
	assert_int_equal(refs[1].kind, FW_RES_MEMORY);
	for (int k = 0; k < 3; k++)
		node_info_release(&nis[k]);
	api_node_unref(n1);
	api_node_unref(n2);
	api_pod_unref(e1);
	api_pod_unref(e2);
}

/* ---------- TaintToleration (taint_toleration_test.go) ---------- */

static void test_taint_filter(void **state)
{
	(void)state;
	struct {
		const char *name, *tolerations, *taints;
		enum fw_code code;
		const char *msg;
	} cases[] = {
		{ "A pod having no tolerations can't be scheduled onto a node with nonempty taints", "",
		  "dedicated=user1:NoSchedule",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)" },
		{ "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
		  "dedicated=user1:NoSchedule", "dedicated=user1:NoSchedule", FW_SUCCESS, "" },
		{ "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
		  "dedicated=user2:NoSchedule", "dedicated=user1:NoSchedule",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)" },
		{ "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
		  "foo:NoSchedule", "foo=bar:NoSchedule", FW_SUCCESS, "" },
		{ "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated",
		  "dedicated=user2:NoSchedule,foo:NoSchedule", "dedicated=user2:NoSchedule,foo=bar:NoSchedule",
		  FW_SUCCESS, "" },
		{ "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match",
		  "foo=bar:PreferNoSchedule", "foo=bar:NoSchedule", FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		  "node(s) had untolerated taint(s)" },
		{ "The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty",
		  "foo=bar", "foo=bar:NoSchedule", FW_SUCCESS, "" },
		{ "The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule",
		  "dedicated=user2:NoSchedule", "dedicated=user1:PreferNoSchedule", FW_SUCCESS, "" },
		{ "The pod has no toleration, but the effect of taint on node is PreferNoSchedule", "",
		  "dedicated=user1:PreferNoSchedule", FW_SUCCESS, "" },
		{ "NoExecute counts", "",
		  "a=1:PreferNoSchedule,b:NoExecute,c=3:NoSchedule",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)" },
	};
	struct tl_profile_spec spec = { .filter = { "TaintToleration" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_filter(&spec, "TaintToleration", cases[i].name,
			      TOBJ_NODE(.name = "nodeA", .taints = cases[i].taints), NULL,
			      TOBJ_POD(.tolerations = cases[i].tolerations), cases[i].code, cases[i].msg);
}

static void test_taint_score(void **state)
{
	(void)state;
	struct {
		const char *name, *tolerations, *taints[3];
		int64_t want[3];
		uint32_t n;
	} cases[] = {
		{ "node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
		  "foo=bar:PreferNoSchedule", { "foo=bar:PreferNoSchedule", "foo=blah:PreferNoSchedule" },
		  { 100, 0 }, 2 },
		{ "the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
		  "cpu-type=arm64:PreferNoSchedule,disk-type=ssd:PreferNoSchedule",
		  { "", "cpu-type=arm64:PreferNoSchedule",
		    "cpu-type=arm64:PreferNoSchedule,disk-type=ssd:PreferNoSchedule" },
		  { 100, 100, 100 }, 3 },
		{ "the more intolerable taints a node has, the lower score it gets.", "foo=bar:PreferNoSchedule",
		  { "", "cpu-type=arm64:PreferNoSchedule",
		    "cpu-type=arm64:PreferNoSchedule,disk-type=ssd:PreferNoSchedule" },
		  { 100, 50, 0 }, 3 },
		{ "only taints and tolerations that have effect PreferNoSchedule are checked by prioritizer function",
		  "cpu-type=arm64:NoSchedule,disk-type=ssd:NoSchedule", { "", "cpu-type=arm64:NoSchedule",
		    "cpu-type=arm64:PreferNoSchedule,disk-type=ssd:PreferNoSchedule" },
		  { 100, 100, 0 }, 3 },
		{ "Default behaviour No taints and tolerations, lands on node with no taints", "",
		  { "", "cpu-type=arm64:PreferNoSchedule" }, { 100, 0 }, 2 },
	};
	struct tl_profile_spec spec = { .pre_score = { "TaintToleration" }, .score = { "TaintToleration" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct one o;
		one_init(&o, &spec, "TaintToleration");
		struct api_node *nodes[3];
		struct node_info nis[3];
		for (uint32_t k = 0; k < cases[i].n; k++) {
			char name[32];
			snprintf(name, sizeof(name), "node%u", k);
			nodes[k] = TOBJ_NODE(.name = name, .taints = cases[i].taints[k]);
			tl_node_info(&nis[k], nodes[k], NULL, 0);
		}
		expect_scores(&o, cases[i].name, TOBJ_POD(.tolerations = cases[i].tolerations), nis, cases[i].n,
			      cases[i].want);
		release_nodes(nis, nodes, cases[i].n);
		one_release(&o);
	}
}

/* ---------- NodeAffinity (node_affinity_test.go) ---------- */

static void test_node_affinity_filter(void **state)
{
	(void)state;
	static const char *const POD_REASON = "node(s) didn't match Pod's node affinity/selector";
	struct {
		const char *name, *selector, *terms, *labels, *node_name;
		enum fw_code code;
		const char *msg;
	} cases[] = {
		{ "no selector", NULL, NULL, "", "node1", FW_SUCCESS, "" },
		{ "missing labels", "foo=bar", NULL, "", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "same labels", "foo=bar", NULL, "foo=bar", "node1", FW_SUCCESS, "" },
		{ "node labels are superset", "foo=bar", NULL, "foo=bar,baz=blah", "node1", FW_SUCCESS, "" },
		{ "node labels are subset",
		  "foo=bar,baz=blah", NULL, "foo=bar", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Pod with matchExpressions using In operator that matches the existing node",
		  NULL, "foo In bar,value2", "foo=bar", "node1", FW_SUCCESS, "" },
		{ "Pod with matchExpressions using Gt operator that matches the existing node",
		  NULL, "kernel-version Gt 0204", "kernel-version=0206", "node1", FW_SUCCESS, "" },
		{ "Pod with matchExpressions using NotIn operator that matches the existing node",
		  NULL, "mem-type NotIn DDR,DDR2", "mem-type=DDR3", "node1", FW_SUCCESS, "" },
		{ "Pod with matchExpressions using Exists operator that matches the existing node",
		  NULL, "GPU Exists", "GPU=NVIDIA-GRID-K1", "node1", FW_SUCCESS, "" },
		{ "Pod with affinity that don't match node's labels won't schedule onto the node",
		  NULL, "foo In value1,value2", "foo=bar", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Pod with no Affinity will schedule onto a node", NULL, NULL, "foo=bar", "node1", FW_SUCCESS, "" },
		{ "Pod with multiple matchExpressions ANDed that matches the existing node",
		  NULL, "GPU Exists; GPU NotIn AMD,INTER", "GPU=NVIDIA-GRID-K1", "node1", FW_SUCCESS, "" },
		{ "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
		  NULL, "GPU Exists; GPU In AMD,INTER", "GPU=NVIDIA-GRID-K1", "node1",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
		  NULL, "foo In bar,value2 | diffkey In wrong,value2", "foo=bar", "node1", FW_SUCCESS, "" },
		{ "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
		  "foo=bar", "foo Exists", "foo=bar", "node1", FW_SUCCESS, "" },
		{ "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
		  "foo=bar", "foo Exists", "foo=barrrrrr", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Pod with an invalid value in Affinity term won't be scheduled onto the node",
		  NULL, "foo NotIn", "foo=bar", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Gt with a non-integer value never matches",
		  NULL, "v Gt 1.5", "v=3", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Lt against a non-integer label does not match",
		  NULL, "v Lt 5", "v=x", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "DoesNotExist", NULL, "v DoesNotExist", "w=x", "node1", FW_SUCCESS, "" },
		{ "Pod with matchFields using In operator that matches the existing node",
		  NULL, "metadata.name In node1", "", "node1", FW_SUCCESS, "" },
		{ "Pod with matchFields using In operator that does not match the existing node",
		  NULL, "metadata.name In node1", "", "node2", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Pod with two terms: matchFields does not match, but matchExpressions matches",
		  NULL, "metadata.name In node1 | foo In bar", "foo=bar", "node2", FW_SUCCESS, "" },
		{ "Pod with one term: matchFields does not match, but matchExpressions matches",
		  NULL, "foo In bar; metadata.name In node1", "foo=bar", "node2",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Pod with one term: both matchFields and matchExpressions match",
		  NULL, "foo In bar; metadata.name In node1", "foo=bar", "node1", FW_SUCCESS, "" },
		{ "Pod with two terms: both matchFields and matchExpressions do not match",
		  NULL, "metadata.name In node1 | foo In not-match-to-bar", "foo=bar", "node2",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
		{ "Pod with two terms of node.Name affinity",
		  NULL, "metadata.name In node1 | metadata.name In node2", "", "node2", FW_SUCCESS, "" },
		{ "Pod with an Affinity term pinned to conflicting nodes fails at PreFilter",
		  NULL, "metadata.name In node1; metadata.name In node2", "", "node2",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "pod affinity terms conflict" },
		{ "NotIn on metadata.name",
		  NULL, "metadata.name NotIn node1", "", "node1", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON },
	};
	struct tl_profile_spec spec = { .pre_filter = { "NodeAffinity" }, .filter = { "NodeAffinity" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_filter(&spec, "NodeAffinity", cases[i].name,
			      TOBJ_NODE(.name = cases[i].node_name, .labels = cases[i].labels), NULL,
			      TOBJ_POD(.node_selector = cases[i].selector, .node_affinity = cases[i].terms), cases[i].code,
			      cases[i].msg);
	/* what the terms syntax does not say: an empty term, a node affinity without required terms */
	expect_filter(&spec, "NodeAffinity",
		      "Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
		      TOBJ_NODE(.name = "node1", .labels = "foo=bar"), NULL,
		      TOBJ_POD(.affinity = TOBJ_NODE_AFFINITY("[{\"matchExpressions\":[]}]")),
		      FW_UNSCHEDULABLE_AND_UNRESOLVABLE, POD_REASON);
	expect_filter(&spec, "NodeAffinity", "Pod with Affinity but nil NodeSelector will schedule onto a node",
		      TOBJ_NODE(.name = "node1", .labels = "foo=bar"), NULL,
		      TOBJ_POD(.affinity = "{\"nodeAffinity\":{}}"), FW_SUCCESS, "");
}

/* PreFilter node-name results (node_affinity_test.go TestNodeAffinity wantPreFilterResult). */
static void test_node_affinity_pre_filter(void **state)
{
	(void)state;
	struct {
		const char *name, *selector, *terms;
		enum fw_code code;
		bool all;
		const char *names; /* sorted, space separated */
	} cases[] = {
		{ "no affinity: Skip", NULL, NULL, FW_SKIP, true, "" },
		{ "nodeSelector only: all nodes", "a=b", NULL, FW_SUCCESS, true, "" },
		{ "one term pinned", NULL, "metadata.name In node1", FW_SUCCESS, false, "node1" },
		{ "terms ORed: union",
		  NULL, "metadata.name In node1 | metadata.name In node2,node3",
		  FW_SUCCESS, false, "node1 node2 node3" },
		{ "requirements ANDed: intersection",
		  NULL, "metadata.name In node1,node2; metadata.name In node2,node3", FW_SUCCESS, false, "node2" },
		{ "a term without a name pin allows every node",
		  NULL, "metadata.name In node1 | foo Exists", FW_SUCCESS, true, "" },
		{ "NotIn does not pin", NULL, "metadata.name NotIn node1", FW_SUCCESS, true, "" },
	};
	struct tl_profile_spec spec = { .pre_filter = { "NodeAffinity" }, .filter = { "NodeAffinity" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct one o;
		one_init(&o, &spec, "NodeAffinity");
		struct api_pod *pod = TOBJ_POD(.node_selector = cases[i].selector, .node_affinity = cases[i].terms);
		struct fw_node_names names = { .all = true };
		struct fw_status st;
		fw_status_reset(&st);
		enum fw_code code = o.pl->plugin->pre_filter(o.pl, o.c, pod, &names, &st);
		assert_int_equal(code, cases[i].code);
		assert_int_equal(names.all, cases[i].all);
		if (!names.all) {
			const char *sorted[8];
			assert_true(names.n <= 8);
			for (uint32_t k = 0; k < names.n; k++)
				sorted[k] = names.names[k];
			for (uint32_t a = 0; a < names.n; a++)
				for (uint32_t b = a + 1; b < names.n; b++)
					if (strcmp(sorted[a], sorted[b]) > 0) {
						const char *t = sorted[a];
						sorted[a] = sorted[b];
						sorted[b] = t;
					}
			char joined[128] = "";
			for (uint32_t k = 0; k < names.n; k++) {
				strcat(joined, k ? " " : "");
				strcat(joined, sorted[k]);
			}
			if (strcmp(joined, cases[i].names))
				fail_msg("%s: got [%s]", cases[i].name, joined);
		}
		api_pod_unref(pod);
		one_release(&o);
	}
}

static void test_node_affinity_added_and_score(void **state)
{
	(void)state;
	/* addedAffinity from NodeAffinityArgs: required zone=foo, preferred weight 5 on zone=foo */
	struct api_pod *holder = TOBJ_POD(.affinity =
					  "{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
					  "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"foo\"]}]}]},"
					  "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":5,\"preference\":"
					  "{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"foo\"]}]}}]}}");
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	args.node_affinity.added_affinity = holder->affinity.node_affinity;
	struct tl_profile_spec spec = { .pre_filter = { "NodeAffinity" }, .filter = { "NodeAffinity" },
					.pre_score = { "NodeAffinity" }, .score = { "NodeAffinity" }, .args = &args };
	struct one o;
	one_init(&o, &spec, "NodeAffinity");
	struct api_node *n1 = TOBJ_NODE(.name = "node1", .labels = "zone=foo,foo=bar");
	struct api_node *n2 = TOBJ_NODE(.name = "node2", .labels = "zone=bar,foo=bar");
	struct api_node *n3 = TOBJ_NODE(.name = "node3", .labels = "zone=foo");
	struct node_info nis[3];
	tl_node_info(&nis[0], n1, NULL, 0);
	tl_node_info(&nis[1], n2, NULL, 0);
	tl_node_info(&nis[2], n3, NULL, 0);
	/* a pod without affinity is still checked against addedAffinity (PreFilter does not skip) */
	struct api_pod *plain = tobj_pod(NULL);
	char msg[256];
	assert_int_equal(run_filter(&o, plain, &nis[0], msg, sizeof(msg)), FW_SUCCESS);
	assert_int_equal(run_filter(&o, plain, &nis[1], msg, sizeof(msg)), FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	assert_string_equal(msg, "node(s) didn't match scheduler-enforced node affinity");

	/* scores: pod prefers foo=bar (weight 10); added preference zone=foo weight 5:
	 * node1 15, node2 10, node3 5 -> normalized 100, 66, 33 */
	struct api_pod *pref = TOBJ_POD(.affinity =
					"{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":["
					"{\"weight\":10,\"preference\":{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"In\",\"values\":[\"bar\"]}]}},"
					"{\"weight\":0,\"preference\":{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"Exists\"}]}}]}}");
	int64_t got[3];
	assert_int_equal(run_score(&o, pref, nis, 3, got), FW_SUCCESS);
	assert_int_equal(got[0], 100);
	assert_int_equal(got[1], 66);
	assert_int_equal(got[2], 33);
	/* no preferred terms on the pod: the added ones still score (node1 5, node2 0, node3 5) */
	assert_int_equal(run_score(&o, plain, nis, 3, got), FW_SUCCESS);
	assert_int_equal(got[0], 100);
	assert_int_equal(got[1], 0);
	assert_int_equal(got[2], 100);
	for (int k = 0; k < 3; k++)
		node_info_release(&nis[k]);
	api_node_unref(n1);
	api_node_unref(n2);
	api_node_unref(n3);
	api_pod_unref(plain);
	api_pod_unref(pref);
	one_release(&o);
	api_pod_unref(holder);
}

/* node_affinity_test.go TestNodeAffinityPriority, the rows with args.AddedAffinity (and the
 * PreScore Skip row): affinity1 = preferred weight 2 on foo In [bar] */
#define NA_PREF(w, key, val)                                                                                   \
	"{\"weight\":" w ",\"preference\":{\"matchExpressions\":[{\"key\":\"" key "\",\"operator\":\"In\","   \
	"\"values\":[\"" val "\"]}]}}"
#define NA_AFFINITY(terms) "{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[" terms "]}}"
static void test_node_affinity_priority_added(void **state)
{
	(void)state;
	struct api_node *nodes[3] = { TOBJ_NODE(.name = "node1", .labels = "foo=bar"),
				      TOBJ_NODE(.name = "node2", .labels = "key=value"),
				      TOBJ_NODE(.name = "node3", .labels = "foo=bar,key=value,az=az1") };
	struct node_info nis[3];
	for (int k = 0; k < 3; k++)
		tl_node_info(&nis[k], nodes[k], NULL, 0);
	struct api_pod *affinity1 = TOBJ_POD(.affinity = NA_AFFINITY(NA_PREF("2", "foo", "bar")));
	struct api_pod *added3 = TOBJ_POD(.affinity = NA_AFFINITY(NA_PREF("3", "key", "value")));
	struct cfg_plugin_args args;
	memset(&args, 0, sizeof(args));
	struct tl_profile_spec spec = { .pre_score = { "NodeAffinity" }, .score = { "NodeAffinity" }, .args = &args };
	struct one o;
	int64_t got[3];

	/* "Skip is returned in PreScore when NodeAffinity is nil" (no addedAffinity) */
	struct api_pod *plain = tobj_pod(NULL);
	one_init(&o, &spec, "NodeAffinity");
	assert_int_equal(run_score(&o, plain, nis, 2, got), FW_SKIP);
	one_release(&o);
	api_pod_unref(plain);

	/* "added affinity": a pod without affinity is scored by the added preferred terms */
	args.node_affinity.added_affinity = affinity1->affinity.node_affinity;
	one_init(&o, &spec, "NodeAffinity");
	static const int64_t want_added[] = { 100, 0 };
	expect_scores(&o, "added affinity", tobj_pod(NULL), nis, 2, want_added);
	one_release(&o);

	/* "added affinity and pod has default affinity": weights sum (pod 2 on foo=bar, added 3 on
	 * key=value): 2, 3, 5 -> 40, 60, 100 */
	args.node_affinity.added_affinity = added3->affinity.node_affinity;
	one_init(&o, &spec, "NodeAffinity");
	static const int64_t want_both[] = { 40, 60, 100 };
	expect_scores(&o, "added affinity and pod has default affinity",
		      TOBJ_POD(.affinity = NA_AFFINITY(NA_PREF("2", "foo", "bar"))), nis, 3, want_both);
	one_release(&o);

	release_nodes(nis, nodes, 3);
	api_pod_unref(affinity1);
	api_pod_unref(added3);

	/* oracle: tests/fixtures/oracle/node-affinity-added.json (added required pool In [a, b],
	 * preferred 7 on disk=ssd and 3 on pool=b; a pod without affinity): n1 raw 7 -> 100, n2 3 -> 42,
	 * n3 0; n4 (pool=c) fails Filter with the scheduler-enforced reason */
	struct api_pod *holder = TOBJ_POD(
		.affinity = "{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":"
			    "[{\"matchExpressions\":[{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]}]},"
			    "\"preferredDuringSchedulingIgnoredDuringExecution\":[" NA_PREF("7", "disk", "ssd") "," NA_PREF(
				    "3", "pool", "b") "]}}");
	args.node_affinity.added_affinity = holder->affinity.node_affinity;
	struct tl_profile_spec full = { .pre_filter = { "NodeAffinity" }, .filter = { "NodeAffinity" },
					.pre_score = { "NodeAffinity" }, .score = { "NodeAffinity" }, .args = &args };
	struct api_node *onodes[3] = { TOBJ_NODE(.name = "n1", .labels = "pool=a,disk=ssd"),
				       TOBJ_NODE(.name = "n2", .labels = "pool=b"),
				       TOBJ_NODE(.name = "n3", .labels = "pool=a") };
	for (int k = 0; k < 3; k++)
		tl_node_info(&nis[k], onodes[k], NULL, 0);
	one_init(&o, &full, "NodeAffinity");
	static const int64_t want_oracle[] = { 100, 42, 0 };
	expect_scores(&o, "oracle node-affinity-added", tobj_pod(NULL), nis, 3, want_oracle);
	one_release(&o);
	release_nodes(nis, onodes, 3);
	expect_filter(&full, "NodeAffinity", "oracle node-affinity-added n4", TOBJ_NODE(.name = "n4", .labels = "pool=c,disk=ssd"),
		      NULL, tobj_pod(NULL), FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
		      "node(s) didn't match scheduler-enforced node affinity");
	api_pod_unref(holder);
}

/* ---------- NodePorts (node_ports_test.go TestNodePorts) ---------- */

static void test_node_ports(void **state)
{
	(void)state;
	static const char *const REASON = "node(s) didn't have free ports for the requested pod ports";
	struct {
		const char *name, *want, *existing;
		bool fits;
	} cases[] = {
		{ "nothing running", NULL, NULL, true },
		{ "other port", "UDP/127.0.0.1/8080", "UDP/127.0.0.1/9090", true },
		{ "same udp port", "UDP/127.0.0.1/8080", "UDP/127.0.0.1/8080", false },
		{ "same tcp port", "TCP/127.0.0.1/8080", "TCP/127.0.0.1/8080", false },
		{ "different host ip", "TCP/127.0.0.1/8080", "TCP/127.0.0.2/8080", true },
		{ "different protocol", "UDP/127.0.0.1/8080", "TCP/127.0.0.1/8080", true },
		{ "second udp port conflict", "UDP/127.0.0.1/8000,UDP/127.0.0.1/8080", "UDP/127.0.0.1/8080", false },
		{ "first tcp port conflict", "TCP/127.0.0.1/8001,UDP/127.0.0.1/8080", "TCP/127.0.0.1/8001,UDP/127.0.0.1/8081",
		  false },
		{ "first tcp port conflict due to 0.0.0.0 hostIP", "TCP/0.0.0.0/8001", "TCP/127.0.0.1/8001", false },
		{ "TCP hostPort conflict due to 0.0.0.0 hostIP", "TCP/10.0.10.10/8001,TCP/0.0.0.0/8001",
		  "TCP/127.0.0.1/8001", false },
		{ "second tcp port conflict to 0.0.0.0 hostIP", "TCP/127.0.0.1/8001", "TCP/0.0.0.0/8001", false },
		{ "second different protocol", "UDP/127.0.0.1/8001", "TCP/0.0.0.0/8001", true },
		{ "UDP hostPort conflict due to 0.0.0.0 hostIP", "TCP/0.0.0.0/8001,UDP/0.0.0.0/8001", "TCP/127.0.0.1/8001",
		  false },
	};
	struct tl_profile_spec spec = { .pre_filter = { "NodePorts" }, .filter = { "NodePorts" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_filter(&spec, "NodePorts", cases[i].name, TOBJ_NODE(.name = "n"),
			      cases[i].existing ? TOBJ_POD(.node = "n", .containers = { { .ports = cases[i].existing } })
						: NULL,
			      TOBJ_POD(.containers = { { .ports = cases[i].want } }),
			      cases[i].fits ? FW_SUCCESS : FW_UNSCHEDULABLE, cases[i].fits ? NULL : REASON);
}

/* ---------- VolumeRestrictions (volume_restrictions_test.go disk conflicts) ---------- */

static void test_volume_restrictions(void **state)
{
	(void)state;
	static const char *const REASON = "node(s) had no available disk";
#define GCE(pd, ro) "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"" pd "\",\"readOnly\":" ro "}}"
#define EBS(id, ro) "{\"name\":\"v\",\"awsElasticBlockStore\":{\"volumeID\":\"" id "\",\"readOnly\":" ro "}}"
#define RBD(mons, img, ro) \
	"{\"name\":\"v\",\"rbd\":{\"monitors\":" mons ",\"pool\":\"p\",\"image\":\"" img "\",\"readOnly\":" ro "}}"
#define ISCSI(iqn, ro) \
	"{\"name\":\"v\",\"iscsi\":{\"targetPortal\":\"127.0.0.1:3260\",\"iqn\":\"" iqn "\",\"lun\":0,\"readOnly\":" ro "}}"
	struct {
		const char *name, *want, *existing;
		bool fits;
	} cases[] = {
		{ "nothing", GCE("foo", "false"), NULL, true },
		{ "one state", GCE("foo", "false"), GCE("foo", "false"), false },
		{ "different disk", GCE("foo", "false"), GCE("bar", "false"), true },
		{ "both read-only", GCE("foo", "true"), GCE("foo", "true"), true },
		{ "one writer", GCE("foo", "true"), GCE("foo", "false"), false },
		{ "EBS ignores read-only", EBS("vol-1", "true"), EBS("vol-1", "true"), false },
		{ "EBS other volume", EBS("vol-1", "false"), EBS("vol-2", "false"), true },
		{ "RBD overlapping monitors", RBD("[\"a\",\"b\"]", "img", "false"), RBD("[\"b\",\"c\"]", "img", "false"), false },
		{ "RBD disjoint monitors", RBD("[\"a\"]", "img", "false"), RBD("[\"c\"]", "img", "false"), true },
		{ "RBD other image", RBD("[\"a\"]", "img", "false"), RBD("[\"a\"]", "img2", "false"), true },
		{ "iSCSI same iqn", ISCSI("iqn.2016-12.server:storage.target01", "false"),
		  ISCSI("iqn.2016-12.server:storage.target01", "false"), false },
		{ "iSCSI both read-only", ISCSI("iqn.2016-12.server:storage.target01", "true"),
		  ISCSI("iqn.2016-12.server:storage.target01", "true"), true },
		{ "kinds differ", GCE("foo", "false"), EBS("foo", "false"), true },
	};
	struct tl_profile_spec spec = { .pre_filter = { "VolumeRestrictions" }, .filter = { "VolumeRestrictions" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char ex[512], want[512];
		snprintf(ex, sizeof(ex), "\"volumes\":[%s]", cases[i].existing ? cases[i].existing : "");
		snprintf(want, sizeof(want), "\"volumes\":[%s]", cases[i].want);
		expect_filter(&spec, "VolumeRestrictions", cases[i].name, TOBJ_NODE(.name = "n"),
			      cases[i].existing ? TOBJ_POD(.node = "n", .spec = ex) : NULL, TOBJ_POD(.spec = want),
			      cases[i].fits ? FW_SUCCESS : FW_UNSCHEDULABLE, cases[i].fits ? NULL : REASON);
	}
	/* no restricted volume: PreFilter Skip */
	struct one o;
	one_init(&o, &spec, "VolumeRestrictions");
	struct api_pod *plain = TOBJ_POD(.spec = "\"volumes\":[{\"name\":\"e\",\"emptyDir\":{}}]");
	struct fw_node_names names = { .all = true };
	struct fw_status st;
	fw_status_reset(&st);
	assert_int_equal(o.pl->plugin->pre_filter(o.pl, o.c, plain, &names, &st), FW_SKIP);
	api_pod_unref(plain);
	one_release(&o);
#undef GCE
#undef EBS
#undef RBD
#undef ISCSI
}

/* ---------- NodeName, NodeUnschedulable, SchedulingGates, PrioritySort ---------- */

static void test_node_name_and_unschedulable(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .filter = { "NodeName", "NodeUnschedulable" } };
	struct one o;
	one_init(&o, &spec, "NodeName");
	struct api_node *n = TOBJ_NODE(.name = "foo", .unschedulable = true);
	struct node_info ni;
	tl_node_info(&ni, n, NULL, 0);
	char msg[256];
	struct {
		const char *extra;
		enum fw_code code;
		const char *msg;
	} name_cases[] = {
		{ "", FW_SUCCESS, "" },
		{ "\"nodeName\":\"foo\"", FW_SUCCESS, "" },
		{ "\"nodeName\":\"bar\"", FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match the requested node name" },
	};
	for (size_t i = 0; i < 3; i++) {
		struct api_pod *pod = TOBJ_POD(.spec = name_cases[i].extra);
		assert_int_equal(run_filter(&o, pod, &ni, msg, sizeof(msg)), name_cases[i].code);
		assert_string_equal(msg, name_cases[i].msg);
		api_pod_unref(pod);
	}
	o.pl = tl_pl(o.p, "NodeUnschedulable");
	struct {
		const char *tolerations;
		enum fw_code code;
	} unsched_cases[] = {
		{ "", FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		{ "node.kubernetes.io/unschedulable:NoSchedule", FW_SUCCESS },
		{ ":", FW_SUCCESS },
		{ "node.kubernetes.io/unschedulable:NoExecute", FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
	};
	for (size_t i = 0; i < 4; i++) {
		struct api_pod *pod = TOBJ_POD(.tolerations = unsched_cases[i].tolerations);
		assert_int_equal(run_filter(&o, pod, &ni, msg, sizeof(msg)), unsched_cases[i].code);
		if (unsched_cases[i].code != FW_SUCCESS)
			assert_string_equal(msg, "node(s) were unschedulable");
		api_pod_unref(pod);
	}
	struct api_node *ok = TOBJ_NODE(.name = "ok");
	struct node_info ni2;
	tl_node_info(&ni2, ok, NULL, 0);
	struct api_pod *pod = tobj_pod(NULL);
	assert_int_equal(run_filter(&o, pod, &ni2, msg, sizeof(msg)), FW_SUCCESS);
	api_pod_unref(pod);
	node_info_release(&ni2);
	api_node_unref(ok);
	node_info_release(&ni);
	api_node_unref(n);
	one_release(&o);
}

static void test_scheduling_gates_and_priority_sort(void **state)
{
	(void)state;
	struct tl_profile_spec spec = { .pre_enqueue = { "SchedulingGates" } };
	struct fw_profile *p = tl_profile(&spec, NULL);
	struct fw_status st;
	struct api_pod *gated = TOBJ_POD(.gates = "foo,bar");
	struct api_pod *free_pod = tobj_pod(NULL);
	assert_int_equal(fw_run_pre_enqueue(p, gated, &st), FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	char msg[256];
	assert_string_equal(fw_status_message(&st, msg, sizeof(msg)), "waiting for scheduling gates: [foo bar]");
	assert_string_equal(st.plugin, "SchedulingGates");
	assert_int_equal(fw_run_pre_enqueue(p, free_pod, &st), FW_SUCCESS);

	fw_less_fn less = fw_profile_less(p);
	struct api_pod *hi = TOBJ_POD(.priority = "10");
	struct api_pod *lo = TOBJ_POD(.priority = "-5");
	assert_true(less(hi, 100, lo, 1));   /* priority first */
	assert_false(less(lo, 1, hi, 100));
	assert_true(less(free_pod, 1, gated, 2)); /* equal priority (0): earlier first */
	assert_false(less(free_pod, 2, gated, 1));
	assert_false(less(free_pod, 1, free_pod, 1));
	api_pod_unref(hi);
	api_pod_unref(lo);
	api_pod_unref(gated);
	api_pod_unref(free_pod);
	fw_profile_free(p);
}

/* ---------- Queueing hints ---------- */

static enum queue_hint hint_of(const struct fw_profile *p, const char *plugin, uint32_t res, uint32_t action,
			       const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	struct queue_profile qp;
	fw_profile_queue_profile(p, &qp);
	struct queue_event in = { res, action, NULL };
	for (uint32_t i = 0; i < qp.n_hints; i++) {
		const struct queue_hint_reg *r = &qp.hints[i];
		if (strcmp(r->plugin, plugin) == 0 && queue_event_matches(&r->event, &in))
			return r->hint ? r->hint(r->ctx, pod, old_obj, new_obj) : QUEUE_HINT_QUEUE;
	}
	fail_msg("%s registers no event matching resource %u action %u", plugin, res, action);
	return QUEUE_HINT_SKIP;
}

/* fit_test.go Test_isSchedulableAfterDeviceClassChange (the object-type cases have no C
 * counterpart: the queue hands the hint DeviceClasses only). */
static void test_fit_device_class_hints(void **state)
{
	(void)state;
	struct fw_profile_config pc;
	fw_default_profile_config("hints", &pc);
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, NULL, &e);
	assert_non_null(p);
	struct api_pod *mem = TOBJ_POD(.containers_json = "[" RX("\"memory\":\"2\"") "]");
	struct api_pod *implicit = TOBJ_POD(.containers_json = "[" RX("\"deviceclass.resource.kubernetes.io/gpuclass\":\"1\"") "]");
	struct api_pod *other = TOBJ_POD(.containers_json = "[" RX("\"example.com/othergpu\":\"1\"") "]");
	struct api_pod *gpu = TOBJ_POD(.containers_json = "[" RX("\"example.com/gpu\":\"1\"") "]");
	struct api_device_class *none = class_json("{\"metadata\":{\"name\":\"x\"},\"spec\":{}}");
	struct api_device_class *ern = class_json("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"extendedResourceName\":\"example.com/gpu\"}}");
	struct api_device_class *ern1 = class_json("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"extendedResourceName\":\"example.com/gpu1\"}}");
	struct api_device_class *gpuclass = class_json("{\"metadata\":{\"name\":\"gpuclass\"},\"spec\":{\"extendedResourceName\":\"example.com/gpu\"}}");
	struct api_device_class *gpuclass0 = class_json("{\"metadata\":{\"name\":\"gpuclass\"},\"spec\":{}}");
	struct api_device_class *myclass = class_json("{\"metadata\":{\"name\":\"myclass\"},\"spec\":{\"extendedResourceName\":\"example.com/gpu\"}}");
#define DC_HINT(pod, o, n) hint_of(p, "NodeResourcesFit", QUEUE_RES_DEVICE_CLASS, (o) ? QUEUE_ACT_UPDATE : QUEUE_ACT_ADD, pod, o, n)
	/* skip-queue-on-class-nil-extended-resource-name-pointer */
	assert_int_equal(DC_HINT(mem, none, none), QUEUE_HINT_SKIP);
	/* skip-queue-on-class-same-extended-resource-name(-pointer) */
	assert_int_equal(DC_HINT(mem, ern, ern), QUEUE_HINT_SKIP);
	/* queue-on-class-add-with-implicit-extended-resource-name */
	assert_int_equal(DC_HINT(implicit, NULL, gpuclass), QUEUE_HINT_QUEUE);
	/* skip-on-class-add-with-implicit-extended-resource-name-not-matching */
	assert_int_equal(DC_HINT(implicit, NULL, myclass), QUEUE_HINT_SKIP);
	/* skip-on-class-add-with-explicit-extended-resource-name-not-matching */
	assert_int_equal(DC_HINT(other, NULL, myclass), QUEUE_HINT_SKIP);
	/* skip-on-class-update-with-implicit-extended-resource-name */
	assert_int_equal(DC_HINT(implicit, gpuclass0, gpuclass), QUEUE_HINT_SKIP);
	/* queue-on-class-add-with-extended-resource-name */
	assert_int_equal(DC_HINT(gpu, NULL, ern), QUEUE_HINT_QUEUE);
	/* queue-on-class-update-with-extended-resource-name */
	assert_int_equal(DC_HINT(gpu, ern1, ern), QUEUE_HINT_QUEUE);
#undef DC_HINT
	struct api_device_class *cls[] = { none, ern, ern1, gpuclass, gpuclass0, myclass };
	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++)
		api_device_class_unref(cls[i]);
	struct api_pod *pods[] = { mem, implicit, other, gpu };
	for (size_t i = 0; i < sizeof(pods) / sizeof(pods[0]); i++)
		api_pod_unref(pods[i]);
	fw_profile_free(p);
}

static void test_queueing_hints(void **state)
{
	(void)state;
	struct fw_profile_config pc;
	fw_default_profile_config("hints", &pc);
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, NULL, &e);
	assert_non_null(p);

	struct api_pod *pod = TOBJ_POD(.containers = { { .req = "cpu=2,memory=1Gi" } }, .node_selector = "zone=a",
				       .tolerations = "t=ok:NoSchedule");
	struct api_node *small = TOBJ_NODE(.name = "n", .labels = "zone=a", .alloc = "cpu=1,memory=4Gi,pods=10");
	struct api_node *big = TOBJ_NODE(.name = "n", .labels = "zone=a", .alloc = "cpu=4,memory=4Gi,pods=10");
	struct api_node *big2 = TOBJ_NODE(.name = "n", .labels = "zone=b", .alloc = "cpu=8,memory=4Gi,pods=10");
	struct api_node *tainted = TOBJ_NODE(.name = "n", .taints = "t=no:NoSchedule");
	struct api_node *clean = TOBJ_NODE(.name = "n", .taints = "t=ok:NoSchedule");
	struct api_node *unsched = TOBJ_NODE(.name = "n", .unschedulable = true);

	/* NodeResourcesFit: a node the pod does not fit -> Skip; fits on add -> Queue; grew -> Queue */
	assert_int_equal(hint_of(p, "NodeResourcesFit", QUEUE_RES_NODE, QUEUE_ACT_ADD, pod, NULL, small), QUEUE_HINT_SKIP);
	assert_int_equal(hint_of(p, "NodeResourcesFit", QUEUE_RES_NODE, QUEUE_ACT_ADD, pod, NULL, big), QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "NodeResourcesFit", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_ALLOCATABLE, pod, small, big),
			 QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "NodeResourcesFit", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_ALLOCATABLE, pod, big, big),
			 QUEUE_HINT_SKIP);
	/* deleted pods: assigned -> Queue, unassigned -> Skip */
	struct api_pod *assigned = TOBJ_POD(.node = "n");
	struct api_pod *unassigned = tobj_pod(NULL);
	assert_int_equal(hint_of(p, "NodeResourcesFit", QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, pod, assigned, NULL),
			 QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "NodeResourcesFit", QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, pod, unassigned, NULL),
			 QUEUE_HINT_SKIP);
	/* NodeAffinity: matches now and did not before */
	assert_int_equal(hint_of(p, "NodeAffinity", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL, pod, big2, big), QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "NodeAffinity", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL, pod, big, big2),
			 QUEUE_HINT_SKIP);
	assert_int_equal(hint_of(p, "NodeAffinity", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL, pod, small, big),
			 QUEUE_HINT_SKIP);
	/* TaintToleration: untolerated -> tolerated */
	assert_int_equal(hint_of(p, "TaintToleration", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_TAINT, pod, tainted, clean),
			 QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "TaintToleration", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_TAINT, pod, clean, tainted),
			 QUEUE_HINT_SKIP);
	assert_int_equal(hint_of(p, "TaintToleration", QUEUE_RES_TARGET_POD, QUEUE_ACT_UPDATE_POD_TOLERATION, pod, pod, pod),
			 QUEUE_HINT_QUEUE);
	/* NodeUnschedulable: unschedulable -> schedulable */
	assert_int_equal(hint_of(p, "NodeUnschedulable", QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_TAINT, pod, unsched, clean),
			 QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "NodeUnschedulable", QUEUE_RES_NODE, QUEUE_ACT_ADD, pod, NULL, unsched), QUEUE_HINT_SKIP);
	/* NodePorts: the deleted pod must share a host port */
	struct api_pod *pp = TOBJ_POD(.containers = { { .ports = "TCP/0.0.0.0/80" } });
	struct api_pod *holder = TOBJ_POD(.node = "n", .containers = { { .ports = "TCP/10.0.0.1/80" } });
	struct api_pod *other = TOBJ_POD(.node = "n", .containers = { { .ports = "TCP/10.0.0.1/81" } });
	assert_int_equal(hint_of(p, "NodePorts", QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, pp, holder, NULL), QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "NodePorts", QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, pp, other, NULL), QUEUE_HINT_SKIP);
	/* NodeName registers Node Add only, without a hint */
	assert_int_equal(hint_of(p, "NodeName", QUEUE_RES_NODE, QUEUE_ACT_ADD, pod, NULL, clean), QUEUE_HINT_QUEUE);
	/* SchedulingGates: the pod itself lost its gates */
	struct api_pod *gated = TOBJ_POD(.gates = "g");
	assert_int_equal(hint_of(p, "SchedulingGates", QUEUE_RES_TARGET_POD,
				 QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, pod, gated, pod),
			 QUEUE_HINT_QUEUE);
	assert_int_equal(hint_of(p, "SchedulingGates", QUEUE_RES_TARGET_POD,
				 QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, pod, gated, gated),
			 QUEUE_HINT_SKIP);

	/* the queue's shape: each registration with the plugin instance as its hint's argument */
	struct queue_profile qp;
	fw_profile_queue_profile(p, &qp);
	assert_string_equal(qp.scheduler_name, "hints");
	assert_true(qp.n_hints >= 10);
	bool found = false;
	for (uint32_t i = 0; i < qp.n_hints; i++) {
		const struct queue_hint_reg *r = &qp.hints[i];
		if (strcmp(r->plugin, "TaintToleration") == 0 && r->event.resource == QUEUE_RES_NODE) {
			found = true;
			assert_int_equal(r->event.actions, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_TAINT);
			assert_int_equal(r->hint(r->ctx, pod, tainted, clean), QUEUE_HINT_QUEUE);
			assert_int_equal(r->hint(r->ctx, pod, clean, tainted), QUEUE_HINT_SKIP);
		}
	}
	assert_true(found);
	const char *gate = NULL;
	assert_false(qp.pre_enqueue(qp.pre_enqueue_ctx, gated, &gate));
	assert_string_equal(gate, "SchedulingGates");
	assert_true(qp.pre_enqueue(qp.pre_enqueue_ctx, pod, &gate));

	api_pod_unref(gated);
	api_pod_unref(pp);
	api_pod_unref(holder);
	api_pod_unref(other);
	api_pod_unref(assigned);
	api_pod_unref(unassigned);
	api_pod_unref(pod);
	api_node_unref(small);
	api_node_unref(big);
	api_node_unref(big2);
	api_node_unref(tainted);
	api_node_unref(clean);
	api_node_unref(unsched);
	fw_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_filter),
		cmocka_unit_test(test_fit_filter_dra),
		cmocka_unit_test(test_fit_dra_class_resolution),
		cmocka_unit_test(test_fit_device_class_hints),
		cmocka_unit_test(test_fit_sign_dra),
		cmocka_unit_test(test_fit_least_allocated),
		cmocka_unit_test(test_fit_weighted_and_extended),
		cmocka_unit_test(test_fit_most_allocated),
		cmocka_unit_test(test_fit_requested_to_capacity_ratio),
		cmocka_unit_test(test_fit_scores_oracle),
		cmocka_unit_test(test_balanced_allocation),
		cmocka_unit_test(test_resource_scores_without_pre_score),
		cmocka_unit_test(test_image_locality),
		cmocka_unit_test(test_image_locality_prepared),
		cmocka_unit_test(test_image_locality_volumes),
		cmocka_unit_test(test_resource_refs),
		cmocka_unit_test(test_taint_filter),
		cmocka_unit_test(test_taint_score),
		cmocka_unit_test(test_node_affinity_filter),
		cmocka_unit_test(test_node_affinity_pre_filter),
		cmocka_unit_test(test_node_affinity_added_and_score),
		cmocka_unit_test(test_node_affinity_priority_added),
		cmocka_unit_test(test_node_ports),
		cmocka_unit_test(test_volume_restrictions),
		cmocka_unit_test(test_node_name_and_unschedulable),
		cmocka_unit_test(test_scheduling_gates_and_priority_sort),
		cmocka_unit_test(test_queueing_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
