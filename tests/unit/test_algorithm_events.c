/* The default profile's queue registrations (EventsToRegister) and queueing hints against
 * upstream v1.37's, and the requeues they cause through a real queue. */
#include "algorithm_testlib.h"

#include "cache/node_info.h"
#include "queue/queue.h"

/* "AssignedPod" for QUEUE_RES_ASSIGNED_POD: the upstream EventResource string (the label of
 * {resource, All} without its "All"). */
static const char *resource_name(uint32_t resource, char *buf, unsigned size)
{
	struct queue_event ev = { resource, QUEUE_ACT_ALL, NULL };
	queue_event_label(&ev, buf, size);
	size_t n = strlen(buf);
	if (n >= 3 && strcmp(buf + n - 3, "All") == 0)
		buf[n - 3] = '\0';
	return buf;
}

/* upstream v1.37.2 EventsToRegister of the default plugins csched implements, with v1.37's
 * default feature gates (InPlacePodVerticalScaling GA, InPlacePodVerticalScalingSchedulerPreemption
 * off): framework/plugins/<plugin>/ sources. Actions are upstream's fwk.ActionType values (Add 1,
 * Delete 2, UpdateNodeAllocatable 4, UpdateNodeLabel 8, UpdateNodeTaint 16, UpdatePodScaleDown
 * 1024, UpdatePodToleration 4096, UpdatePodSchedulingGatesEliminated 8192, UpdateNodeDeclaredFeature
 * 128, Update 32764 = bits 4..16384), DRAExtendedResource (GA) on. */
enum { NONE, FN, QUEUE };
static const struct {
	const char *plugin, *resource;
	uint32_t actions;
	int hint; /* NONE: no QueueingHintFn (always Queue); FN: one; QUEUE: one that always queues */
} want_regs[] = {
	{ "SchedulingGates", "TargetPod", 8192, QUEUE }, /* ...AfterUpdateTargetPodSchedulingGatesEliminated */
	{ "NodeUnschedulable", "Node", 1 | 16, FN },
	{ "NodeUnschedulable", "TargetPod", 4096, FN },
	{ "NodeName", "Node", 1, NONE },
	{ "TaintToleration", "Node", 1 | 16, FN },
	{ "TaintToleration", "TargetPod", 4096, QUEUE }, /* isSchedulableAfterTargetPodTolerationChange */
	{ "NodeAffinity", "Node", 1 | 8, FN },
	{ "NodePorts", "AssignedPod", 2, FN },
	{ "NodePorts", "Node", 1, NONE },
	{ "NodeResourcesFit", "AssignedPod", 2, FN },
	{ "NodeResourcesFit", "Node", 1 | 4, FN },
	{ "NodeResourcesFit", "resource.k8s.io/DeviceClass", 1 | 32764, FN }, /* isSchedulableAfterDeviceClassEvent */
	{ "NodeResourcesFit", "AssignedPod", 1024, FN },
	{ "NodeResourcesFit", "TargetPod", 1024, QUEUE }, /* isSchedulableAfterTargetPodScaleDown */
	{ "VolumeRestrictions", "AssignedPod", 2, FN },
	{ "VolumeRestrictions", "Node", 1, NONE },
	{ "VolumeRestrictions", "PersistentVolumeClaim", 1, FN }, /* isSchedulableAfterPersistentVolumeClaimAdded */
	{ "NodeDeclaredFeatures", "Node", 1 | 128, FN },          /* nodedeclaredfeatures.go EventsToRegister */
	{ "NodeDeclaredFeatures", "TargetPod", 32764, FN },
	/* podtopologyspread/plugin.go EventsToRegister */
	{ "PodTopologySpread", "AssignedPod", 1 | 512 | 2, FN },
	{ "PodTopologySpread", "TargetPod", 4096 | 512, FN },
	{ "PodTopologySpread", "Node", 1 | 2 | 8 | 16, FN },
};

static bool in_table(const char *plugin)
{
	for (size_t i = 0; i < sizeof(want_regs) / sizeof(want_regs[0]); i++)
		if (strcmp(want_regs[i].plugin, plugin) == 0)
			return true;
	return false;
}

static struct fw_profile *default_profile(const char *name)
{
	struct fw_profile_config pc;
	fw_default_profile_config(name, &pc);
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, NULL, &e);
	if (!p)
		fail_msg("fw_profile_new: %s", e.msg);
	return p;
}

static void test_default_registrations_as_upstream(void **state)
{
	(void)state;
	struct fw_profile *p = default_profile("regs");
	struct queue_profile qp;
	fw_profile_queue_profile(p, &qp);
	bool seen[sizeof(want_regs) / sizeof(want_regs[0])] = { false };
	char res[64];
	for (uint32_t i = 0; i < qp.n_hints; i++) {
		const struct queue_hint_reg *r = &qp.hints[i];
		if (!in_table(r->plugin))
			continue; /* plugins csched's table does not cover (none that can reject, today) */
		resource_name(r->event.resource, res, sizeof(res));
		size_t j = 0;
		while (j < sizeof(want_regs) / sizeof(want_regs[0]) &&
		       (seen[j] || strcmp(want_regs[j].plugin, r->plugin) != 0 || strcmp(want_regs[j].resource, res) != 0 ||
			want_regs[j].actions != r->event.actions))
			j++;
		if (j == sizeof(want_regs) / sizeof(want_regs[0]))
			fail_msg("%s registers {%s, %u}, which upstream v1.37 does not", r->plugin, res, r->event.actions);
		if (want_regs[j].hint == FN && !r->hint)
			fail_msg("%s {%s, %u}: upstream has a queueing hint", r->plugin, res, r->event.actions);
		if (want_regs[j].hint == NONE && r->hint)
			fail_msg("%s {%s, %u}: upstream has no queueing hint (always Queue)", r->plugin, res,
				 r->event.actions);
		seen[j] = true;
	}
	for (size_t j = 0; j < sizeof(want_regs) / sizeof(want_regs[0]); j++)
		if (!seen[j])
			fail_msg("%s does not register {%s, %u}", want_regs[j].plugin, want_regs[j].resource,
				 want_regs[j].actions);
	/* plugins that cannot reject a pod register nothing (upstream shouldHaveEnqueueExtensions) */
	for (uint32_t i = 0; i < qp.n_hints; i++)
		if (!strcmp(qp.hints[i].plugin, "PrioritySort") || !strcmp(qp.hints[i].plugin, "DefaultBinder") ||
		    !strcmp(qp.hints[i].plugin, "ImageLocality") ||
		    !strcmp(qp.hints[i].plugin, "NodeResourcesBalancedAllocation"))
			fail_msg("%s registers events", qp.hints[i].plugin);
	fw_profile_free(p);
}

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

/* upstream volume_restrictions_test.go Test_isSchedulableAfterAssignedPodDeleted
 * ("queue-new-object-gcedisk-conflict": the deleted pod is not bound there, "skip-new-object-
 * gcedisk-no-conflict", "queue-has-same-claim", "skip-no-same-claim"), and the namespace check of
 * isSchedulableAfterAssignedPodDeleted (volume_restrictions.go). */
static void test_volume_restrictions_hint(void **state)
{
	(void)state;
	struct fw_profile *p = default_profile("vr");
	static const char gce[] = "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"pd\"}}";
	static const char other_gce[] = "{\"name\":\"v\",\"gcePersistentDisk\":{\"pdName\":\"other\"}}";
	char spec[256];
	snprintf(spec, sizeof(spec), "\"volumes\":[%s]", gce);
	struct api_pod *pod = TOBJ_POD(.name = "pod", .ns = "ns", .spec = spec);
	struct api_pod *pvc_pod = TOBJ_POD(.name = "pvc-pod", .ns = "ns", .pvcs = "claim");
	struct api_pod *same_disk = TOBJ_POD(.name = "d1", .ns = "ns", .node = "n", .spec = spec);
	struct api_pod *same_disk_unbound = TOBJ_POD(.name = "d2", .ns = "ns", .spec = spec, .nominated = "n");
	struct api_pod *same_disk_other_ns = TOBJ_POD(.name = "d3", .ns = "other", .node = "n", .spec = spec);
	snprintf(spec, sizeof(spec), "\"volumes\":[%s]", other_gce);
	struct api_pod *other_disk = TOBJ_POD(.name = "d4", .ns = "ns", .node = "n", .spec = spec);
	struct api_pod *same_claim = TOBJ_POD(.name = "c1", .ns = "ns", .node = "n", .pvcs = "claim");
	struct api_pod *other_claim = TOBJ_POD(.name = "c2", .ns = "ns", .node = "n", .pvcs = "other");
	static const struct {
		const char *name;
		int pod, deleted;
		enum queue_hint want;
	} cases[] = {
		{ "conflicting disk", 0, 0, QUEUE_HINT_QUEUE },
		{ "conflicting disk, pod not bound", 0, 1, QUEUE_HINT_QUEUE },
		{ "other namespace", 0, 2, QUEUE_HINT_SKIP },
		{ "unrelated disk", 0, 3, QUEUE_HINT_SKIP },
		{ "same PVC", 1, 4, QUEUE_HINT_QUEUE },
		{ "other PVC", 1, 5, QUEUE_HINT_SKIP },
	};
	struct api_pod *pods[] = { pod, pvc_pod };
	struct api_pod *deleted[] = { same_disk, same_disk_unbound, same_disk_other_ns, other_disk, same_claim, other_claim };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum queue_hint got = hint_of(p, "VolumeRestrictions", QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE,
					      pods[cases[i].pod], deleted[cases[i].deleted], NULL);
		if (got != cases[i].want)
			fail_msg("%s: hint %d, want %d", cases[i].name, got, cases[i].want);
	}
	/* upstream util.As fails on a missing object: every AssignedPodDelete hint answers Queue with
	 * an error (csched: QUEUE_HINT_ERROR, requeued as Queue) */
	static const char *const pod_delete_hints[] = { "VolumeRestrictions", "NodePorts", "NodeResourcesFit" };
	for (size_t i = 0; i < sizeof(pod_delete_hints) / sizeof(pod_delete_hints[0]); i++)
		assert_int_equal(hint_of(p, pod_delete_hints[i], QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, pod, NULL, NULL),
				 QUEUE_HINT_ERROR);
	for (size_t i = 0; i < sizeof(pods) / sizeof(pods[0]); i++)
		api_pod_unref(pods[i]);
	for (size_t i = 0; i < sizeof(deleted) / sizeof(deleted[0]); i++)
		api_pod_unref(deleted[i]);
	fw_profile_free(p);
}

/* ---------- Through a queue ---------- */

static int64_t fake_now;
static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_now;
}

static bool less_adapter(void *ctx, const struct queue_pod_info *a, const struct queue_pod_info *b)
{
	return fw_profile_less(ctx)(a->pod, a->timestamp, b->pod, b->timestamp);
}

static struct queue *profile_queue(struct fw_profile *p, struct queue_profile *qp)
{
	fw_profile_queue_profile(p, qp);
	struct queue_options o = { .less = less_adapter, .less_ctx = p, .now = fake_clock,
				   .pod_scaled_down = node_res_scaled_down, .profiles = qp, .n_profiles = 1 };
	fake_now = 1000LL * 1000000000LL;
	struct err e = { 0 };
	struct queue *q = queue_new(&o, &e);
	if (!q)
		fail_msg("queue_new: %s", e.msg);
	return q;
}

/* Pops pod and fails it with plugin as its only rejector: it lands in unschedulable. */
static void fail_by(struct queue *q, struct api_pod *pod, const char *plugin)
{
	struct err e = { 0 };
	assert_int_equal(queue_add(q, pod, &e), 0);
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(q, &qpi), 0);
	const char *u[1] = { plugin };
	struct queue_failure f = { .unschedulable_plugins = u, .n_unschedulable_plugins = 1 };
	assert_int_equal(queue_add_unschedulable_if_not_present(q, qpi, &f, &e), 0);
	assert_int_equal(queue_pod_tier(q, pod->meta.uid), QUEUE_TIER_UNSCHEDULABLE);
}

/* upstream scheduling_queue.go Update: the unschedulable pod's own update is a TargetPod event;
 * NodeResourcesFit registers {TargetPod, UpdatePodScaleDown} with a hint that always queues
 * (fit.go EventsToRegister, isSchedulableAfterTargetPodScaleDown), so a pod that no longer asks
 * for what no node has leaves unschedulable; a scale-up does not. */
static void test_own_scale_down_requeues(void **state)
{
	(void)state;
	struct fw_profile *p = default_profile("default-scheduler");
	struct queue_profile qp;
	struct queue *q = profile_queue(p, &qp);
	struct err e = { 0 };
	struct api_pod *big = TOBJ_POD(.name = "p", .rv = "1", .containers = { { .req = "cpu=8" } });
	struct api_pod *bigger = TOBJ_POD(.name = "p", .rv = "2", .containers = { { .req = "cpu=9" } });
	struct api_pod *small = TOBJ_POD(.name = "p", .rv = "3", .containers = { { .req = "cpu=1" } });
	fail_by(q, big, "NodeResourcesFit");
	assert_int_equal(queue_update(q, big, bigger, &e), 0);
	assert_int_equal(queue_pod_tier(q, big->meta.uid), QUEUE_TIER_UNSCHEDULABLE);
	assert_int_equal(queue_update(q, bigger, small, &e), 0);
	enum queue_tier t = queue_pod_tier(q, big->meta.uid);
	if (t != QUEUE_TIER_BACKOFF && t != QUEUE_TIER_ACTIVE)
		fail_msg("the pod's own scale-down left it in tier %d", t);
	queue_free(q);
	api_pod_unref(big);
	api_pod_unref(bigger);
	api_pod_unref(small);
	fw_profile_free(p);
}

/* upstream v1.37 buildQueueingHintMap registers exactly what plugins declare: NodeName's {Node,
 * Add} is not also {Node, UpdateNodeTaint}, so untainting a node does not move a pod only
 * NodeName rejected (csched used to add that registration). */
static void test_no_implied_taint_registration(void **state)
{
	(void)state;
	struct fw_profile *p = default_profile("default-scheduler");
	struct queue_profile qp;
	struct queue *q = profile_queue(p, &qp);
	struct api_pod *pod = TOBJ_POD(.name = "p");
	fail_by(q, pod, "NodeName");
	struct api_node *tainted = TOBJ_NODE(.name = "n", .taints = "k=v:NoSchedule");
	struct api_node *clean = TOBJ_NODE(.name = "n");
	struct queue_event ev = { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_TAINT, NULL };
	queue_move_on_event(q, &ev, tainted, clean, NULL, NULL);
	assert_int_equal(queue_pod_tier(q, pod->meta.uid), QUEUE_TIER_UNSCHEDULABLE);
	queue_free(q);
	api_pod_unref(pod);
	api_node_unref(tainted);
	api_node_unref(clean);
	fw_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_registrations_as_upstream),
		cmocka_unit_test(test_volume_restrictions_hint),
		cmocka_unit_test(test_own_scale_down_requeues),
		cmocka_unit_test(test_no_implied_taint_registration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
