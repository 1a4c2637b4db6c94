/* NodeDeclaredFeatures (algorithm/plugins/node_declared_features.c): cases from upstream's
 * plugins/nodedeclaredfeatures/nodedeclaredfeatures_test.go and component-helpers
 * nodedeclaredfeatures (v1.37.2 / v0.37.2) tests, with upstream's mock features replaced by the
 * real registry's features, and the oracle. */
#include "algorithm_testlib.h"

#define REASON "node(s) didn't match Pod's required features"

/* Pod specs (raw JSON spec members) requiring each inferable feature. */
#define RULE "\"restartPolicy\":\"Never\",\"restartPolicyRules\":[{\"action\":\"RestartAllContainers\"," \
	     "\"exitCodes\":{\"operator\":\"In\",\"values\":[1]}}]"
#define MOUNT "\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\",\"bindMountOptions\":[\"noexec\"]}]"
#define VOL "\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]"
#define NEED_RESTART "\"containers\":[{\"name\":\"c\",\"image\":\"i\"," RULE "}]"
#define NEED_USERNS "\"hostNetwork\":true,\"hostUsers\":false"
#define NEED_BIND "\"containers\":[{\"name\":\"c\",\"image\":\"i\"," MOUNT "}]," VOL
#define NEED_RESTART_AND_BIND "\"containers\":[{\"name\":\"c\",\"image\":\"i\"," RULE "," MOUNT "}]," VOL

#define F_RESTART "RestartAllContainersOnContainerExits"
#define F_USERNS "UserNamespacesHostNetworkSupport"
#define F_BIND "VolumeBindMountOptions"

/* A pod whose spec is exactly spec_members (the builders' TOBJ_POD adds a container of its own). */
static struct api_pod *mkpod(const char *uid, const char *labels_json, const char *spec_members)
{
	return tobj_pod_json("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"test-pod\","
			     "\"namespace\":\"default\",\"uid\":\"%s\",\"labels\":%s},\"spec\":{%s}}",
			     uid, labels_json ? labels_json : "{}", spec_members);
}
#define POD(spec) mkpod("123", NULL, (spec))

struct ndf {
	struct fw_profile *p;
	struct fw_cycle *c;
	const struct fw_pl *pl;
};

static void ndf_init(struct ndf *t)
{
	struct tl_profile_spec spec = { .pre_filter = { "NodeDeclaredFeatures" }, .filter = { "NodeDeclaredFeatures" } };
	t->p = tl_profile(&spec, NULL);
	t->c = fw_cycle_new(t->p);
	assert_non_null(t->c);
	t->pl = tl_pl(t->p, "NodeDeclaredFeatures");
}

static void ndf_release(struct ndf *t)
{
	fw_cycle_free(t->c);
	fw_profile_free(t->p);
}

static enum fw_code pre_filter(struct ndf *t, const struct api_pod *pod)
{
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	fw_cycle_reset(t->c);
	fw_status_reset(&st);
	enum fw_code code = t->pl->plugin->pre_filter(t->pl, t->c, pod, &names, &st);
	assert_true(names.all); /* upstream PreFilter always returns a nil result */
	return code;
}

/* PreFilter then (unless Skip) Filter on a node whose status has declared_json (NULL = no
 * declaredFeatures); the message goes to msg. Drops pod. */
static enum fw_code run(struct ndf *t, struct api_pod *pod, const char *declared_json, char *msg, size_t size)
{
	char status[512];
	snprintf(status, sizeof(status), "\"declaredFeatures\":%s", declared_json ? declared_json : "null");
	struct api_node *node = TOBJ_NODE(.name = "n", .status = status);
	struct node_info ni;
	tl_node_info(&ni, node, NULL, 0);
	msg[0] = '\0';
	enum fw_code code = pre_filter(t, pod);
	if (code == FW_SUCCESS) {
		struct fw_status st;
		fw_status_reset(&st);
		code = t->pl->plugin->filter(t->pl, t->c, pod, &ni, &st);
		fw_status_message(&st, msg, size);
	}
	node_info_release(&ni);
	api_node_unref(node);
	api_pod_unref(pod);
	return code;
}

/* InferForScheduling of the registry's features, seen through PreFilter: Skip without requirements. */
static void test_ndf_infer(void **state)
{
	(void)state;
	static const struct {
		const char *name, *spec;
		bool required;
	} cases[] = {
		/* component-helpers restartallcontainers TestInferForScheduling */
		{ "init container with rules",
		  "\"initContainers\":[{\"name\":\"i\",\"image\":\"i\"," RULE "}]", true },
		{ "regular container with rules", NEED_RESTART, true },
		{ "no rules",
		  "\"initContainers\":[{\"name\":\"name\",\"image\":\"image\"}],\"containers\":[{\"name\":\"name2\",\"image\":\"image\"}]",
		  false },
		/* restart_all_containers.go: only the RestartAllContainers action counts */
		{ "rule with another action",
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"restartPolicyRules\":[{\"action\":\"Restart\","
		  "\"exitCodes\":{\"operator\":\"In\",\"values\":[1]}}]}]",
		  false },
		/* component-helpers usernamespaceshostnetwork TestInferForScheduling */
		{ "HostNetwork true, HostUsers false", NEED_USERNS, true },
		{ "HostNetwork true, HostUsers nil", "\"hostNetwork\":true", false },
		{ "HostNetwork true, HostUsers true", "\"hostNetwork\":true,\"hostUsers\":true", false },
		{ "HostNetwork false, HostUsers false", "\"hostNetwork\":false,\"hostUsers\":false", false },
		/* volumebindmountoptions/feature.go InferForScheduling: containers, init and ephemeral
		 * containers; an empty list does not count (len > 0) */
		{ "container bindMountOptions", NEED_BIND, true },
		{ "init container bindMountOptions", "\"initContainers\":[{\"name\":\"i\",\"image\":\"i\"," MOUNT "}]," VOL, true },
		{ "ephemeral container bindMountOptions",
		  "\"ephemeralContainers\":[{\"name\":\"e\",\"image\":\"i\"," MOUNT "}]," VOL, true },
		{ "empty bindMountOptions",
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\","
		  "\"bindMountOptions\":[]}]}]," VOL,
		  false },
		/* nodedeclaredfeatures_test.go TestPreFilter "Pod with no requirements": Skip */
		{ "plain pod", "\"hostNetwork\":false", false },
	};
	struct ndf t;
	ndf_init(&t);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct api_pod *pod = POD(cases[i].spec);
		enum fw_code code = pre_filter(&t, pod);
		if (code != (cases[i].required ? FW_SUCCESS : FW_SKIP))
			fail_msg("%s: PreFilter got %s", cases[i].name, fw_code_str(code));
		api_pod_unref(pod);
	}
	ndf_release(&t);
}

/* nodedeclaredfeatures_test.go TestFilter, FeatureA/B/C -> the registry's features. */
static void test_ndf_filter(void **state)
{
	(void)state;
	static const struct {
		const char *name, *pod_spec, *declared;
		enum fw_code want;
	} cases[] = {
		{ "Node matches requirements", NEED_RESTART, "[\"" F_RESTART "\",\"" F_USERNS "\"]", FW_SUCCESS },
		{ "Node does not match requirements", NEED_RESTART, "[\"" F_USERNS "\"]", FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		{ "Node with multiple features, pod requires subset", NEED_RESTART_AND_BIND,
		  "[\"" F_RESTART "\",\"" F_USERNS "\",\"" F_BIND "\"]", FW_SUCCESS },
		{ "Node has no declared features", NEED_RESTART, NULL, FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		{ "Node with some but not all required features", NEED_RESTART_AND_BIND, "[\"" F_RESTART "\"]",
		  FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		/* a pod without requirements: PreFilter Skip, the Filter does not run */
		{ "no requirements", "\"hostNetwork\":true", "[]", FW_SKIP },
	};
	struct ndf t;
	char msg[256];
	ndf_init(&t);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum fw_code code = run(&t, POD(cases[i].pod_spec), cases[i].declared, msg, sizeof(msg));
		const char *want_msg = cases[i].want == FW_UNSCHEDULABLE_AND_UNRESOLVABLE ? REASON : "";
		if (code != cases[i].want || strcmp(msg, want_msg) != 0)
			fail_msg("%s: got %s \"%s\", want %s \"%s\"", cases[i].name, fw_code_str(code), msg,
				 fw_code_str(cases[i].want), want_msg);
	}

	/* "Error getting pre-filter state": Filter without PreFilter's state */
	struct api_node *node = TOBJ_NODE(.name = "n");
	struct api_pod *pod = POD(NEED_RESTART);
	struct node_info ni;
	struct fw_status st;
	tl_node_info(&ni, node, NULL, 0);
	fw_cycle_reset(t.c);
	fw_status_reset(&st);
	assert_int_equal(t.pl->plugin->filter(t.pl, t.c, pod, &ni, &st), FW_ERROR);
	assert_string_equal(fw_status_message(&st, msg, sizeof(msg)),
			    "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
	node_info_release(&ni);
	api_node_unref(node);
	api_pod_unref(pod);
	ndf_release(&t);
}

/* The node's list goes through FeatureMapper.TryMap: a merge walk over a list the API keeps
 * sorted, skipping unknown names. */
static void test_ndf_node_list(void **state)
{
	(void)state;
	static const struct {
		const char *name, *declared;
		enum fw_code want;
	} cases[] = {
		/* featureset_test.go TestFeatureMapper: unknown names at the start, middle and end are
		 * skipped, the known ones still map */
		{ "Unknown feature (start)", "[\"0\",\"" F_RESTART "\",\"" F_BIND "\"]", FW_SUCCESS },
		{ "Unknown feature (middle)", "[\"" F_RESTART "\",\"S\",\"" F_BIND "\"]", FW_SUCCESS },
		{ "Unknown feature (end)", "[\"" F_RESTART "\",\"" F_BIND "\",\"Zzz\"]", FW_SUCCESS },
		/* oracle: pod requiring RestartAllContainersOnContainerExits and VolumeBindMountOptions;
		 * n1 sorted list: Success; n2 one of them: UnschedulableAndUnresolvable; n3 the two in
		 * reverse order: UnschedulableAndUnresolvable (the walk misses the second); n4 sorted
		 * with unknown names around: Success */
		{ "oracle n1", "[\"" F_RESTART "\",\"" F_BIND "\"]", FW_SUCCESS },
		{ "oracle n2", "[\"" F_RESTART "\"]", FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		{ "oracle n3", "[\"" F_BIND "\",\"" F_RESTART "\"]", FW_UNSCHEDULABLE_AND_UNRESOLVABLE },
		{ "oracle n4", "[\"Aaa\",\"" F_RESTART "\",\"Unknown\",\"" F_BIND "\",\"Zzz\"]", FW_SUCCESS },
	};
	struct ndf t;
	char msg[256];
	ndf_init(&t);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum fw_code code = run(&t, POD("\"initContainers\":[{\"name\":\"i\",\"image\":\"i\"," RULE "}],"
							      "\"containers\":[{\"name\":\"c\",\"image\":\"i\"," MOUNT "}]," VOL),
					cases[i].declared, msg, sizeof(msg));
		if (code != cases[i].want)
			fail_msg("%s: got %s \"%s\", want %s", cases[i].name, fw_code_str(code), msg,
				 fw_code_str(cases[i].want));
	}
	/* oracle: hostNetwork + hostUsers false; n1 declares UserNamespacesHostNetworkSupport:
	 * Success; n2 declares the two others, n3 nothing: UnschedulableAndUnresolvable */
	assert_int_equal(run(&t, POD(NEED_USERNS), "[\"" F_USERNS "\"]", msg, sizeof(msg)), FW_SUCCESS);
	assert_int_equal(run(&t, POD(NEED_USERNS), "[\"" F_RESTART "\",\"" F_BIND "\"]", msg, sizeof(msg)),
			 FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	assert_int_equal(run(&t, POD(NEED_USERNS), NULL, msg, sizeof(msg)), FW_UNSCHEDULABLE_AND_UNRESOLVABLE);
	ndf_release(&t);
}

static const struct queue_event_hint *find_hint(const struct fw_plugin *pl, uint32_t resource)
{
	for (uint32_t i = 0; i < pl->n_events; i++)
		if (pl->events[i].event.resource == resource)
			return &pl->events[i];
	fail_msg("no registration for resource %u", resource);
	return NULL;
}

/* TestEventsToRegister, TestEnqueueExtensionsNodeUpdate, TestIsSchedulableAfterTargetPodUpdate. */
static void test_ndf_events(void **state)
{
	(void)state;
	const struct fw_plugin *pl = fw_registry_lookup("NodeDeclaredFeatures");
	assert_non_null(pl);
	/* TestEventsToRegister "plugin enabled": 2 events; Node Add|UpdateNodeDeclaredFeature and
	 * the pod's own Update (TargetPod) */
	assert_int_equal(pl->n_events, 2);
	const struct queue_event_hint *node = find_hint(pl, QUEUE_RES_NODE);
	assert_int_equal(node->event.actions, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_DECLARED_FEATURE);
	const struct queue_event_hint *self = find_hint(pl, QUEUE_RES_TARGET_POD);
	assert_int_equal(self->event.actions, QUEUE_ACT_UPDATE);

	struct api_pod *pod = POD("");
	struct api_node *bare = TOBJ_NODE(.name = "node-1");
	struct api_node *fa = TOBJ_NODE(.name = "node-1", .status = "\"declaredFeatures\":[\"FeatureA\"]");
	struct api_node *fa2 = TOBJ_NODE(.name = "node-1", .status = "\"declaredFeatures\":[\"FeatureA\"]");
	/* "Node Add with feature", "Node Update (Features Added)", "Node Update (Features Unchanged)" */
	assert_int_equal(node->hint(NULL, pod, NULL, fa), QUEUE_HINT_QUEUE);
	assert_int_equal(node->hint(NULL, pod, bare, fa), QUEUE_HINT_QUEUE);
	assert_int_equal(node->hint(NULL, pod, fa, fa2), QUEUE_HINT_SKIP);

	/* "Pod Update adds requirement", "Pod Update removes requirement", "Pod Update with no
	 * change in requirements" (a label change): the mock's inference -> a real requirement */
	struct api_pod *plain = POD("");
	struct api_pod *labelled = mkpod("123", "{\"foo\":\"bar\"}", "");
	struct api_pod *needs = mkpod("123", "{\"foo\":\"bar\"}", NEED_RESTART);
	assert_int_equal(self->hint(NULL, pod, plain, needs), QUEUE_HINT_QUEUE);
	assert_int_equal(self->hint(NULL, pod, needs, plain), QUEUE_HINT_QUEUE);
	assert_int_equal(self->hint(NULL, pod, plain, labelled), QUEUE_HINT_SKIP);
	/* another pod's update is not the TargetPod event */
	struct api_pod *other = mkpod("456", NULL, NEED_RESTART);
	struct api_pod *other_old = mkpod("456", NULL, "");
	assert_int_equal(self->hint(NULL, pod, other_old, other), QUEUE_HINT_SKIP);

	struct api_pod *pods[] = { pod, plain, labelled, needs, other, other_old };
	for (size_t i = 0; i < ARRAY_SIZE(pods); i++)
		api_pod_unref(pods[i]);
	api_node_unref(bare);
	api_node_unref(fa);
	api_node_unref(fa2);
}

/* oracle: s1's nodes n2 (the two other features declared) and n3 (none), pod with hostNetwork and
 * hostUsers false, default profile: both UnschedulableAndUnresolvable by NodeDeclaredFeatures,
 * message "0/2 nodes are available: 2 node(s) didn't match Pod's required features. preemption:
 * 0/2 nodes are available: 2 Preemption is not helpful for scheduling." (the preemption part is
 * DefaultPreemption's PostFilter). */
static void test_ndf_default_profile(void **state)
{
	(void)state;
	struct fw_profile_config pc;
	fw_default_profile_config("default", &pc);
	struct fw_profile_options o = { 0 };
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	assert_non_null(p);
	struct fw_cycle *c = fw_cycle_new(p);
	struct api_node *nodes[2] = {
		TOBJ_NODE(.name = "n2", .alloc = "cpu=4,memory=8Gi,pods=110",
			  .status = "\"declaredFeatures\":[\"" F_BIND "\",\"" F_RESTART "\"]"),
		TOBJ_NODE(.name = "n3", .alloc = "cpu=4,memory=8Gi,pods=110"),
	};
	struct node_info nis[2];
	const struct node_info *ptrs[2];
	for (int i = 0; i < 2; i++) {
		tl_node_info(&nis[i], nodes[i], NULL, 0);
		ptrs[i] = &nis[i];
	}
	struct fw_node_list list = { .n = 2, .nodes = ptrs };
	struct api_pod *pod = POD(NEED_USERNS ",\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]");
	static struct fw_schedule_result res;
	char msg[512];
	fw_cycle_reset(c);
	assert_int_equal(fw_schedule_pod(p, c, &list, pod, NULL, &res, &e), 0);
	assert_int_equal(res.code, FW_UNSCHEDULABLE);
	assert_int_equal(res.diag.n_unschedulable_plugins, 1);
	assert_string_equal(res.diag.unschedulable_plugins[0], "NodeDeclaredFeatures");
	assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
			    "0/2 nodes are available: 2 node(s) didn't match Pod's required features.");
	struct fw_post_filter_result pfr;
	struct fw_status st;
	assert_int_equal(fw_run_post_filter(p, c, pod, &res.diag, &pfr, &st), FW_UNSCHEDULABLE);
	assert_string_equal(fw_fit_error_message(&res.diag, msg, sizeof(msg)),
			    "0/2 nodes are available: 2 node(s) didn't match Pod's required features. preemption: 0/2 "
			    "nodes are available: 2 Preemption is not helpful for scheduling.");
	assert_string_equal(pfr.nominated_node_name, "");
	api_pod_unref(pod);
	for (int i = 0; i < 2; i++) {
		node_info_release(&nis[i]);
		api_node_unref(nodes[i]);
	}
	fw_cycle_free(c);
	fw_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ndf_infer),
		cmocka_unit_test(test_ndf_filter),
		cmocka_unit_test(test_ndf_node_list),
		cmocka_unit_test(test_ndf_events),
		cmocka_unit_test(test_ndf_default_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
