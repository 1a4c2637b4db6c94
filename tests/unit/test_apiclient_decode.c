/* Decoding of Pods, Nodes and Leases, selector and toleration matching, refcounting.
 *
 * The fixtures in tests/fixtures/api were captured from a real kube-apiserver v1.37.2 (see the
 * README there); the error cases are hand-written objects with one thing wrong each. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_types.h"
#include "common/arena.h"
#include "common/intern.h"
#include "testobj.h"
#include "testutil.h"

#define I(s) intern_str(s)

/* Annotations are kept in the object's arena, not interned: looked up by content. */
static const char *annotation(const struct api_labels *l, const char *key)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].key, key))
			return l->items[i].value;
	return NULL;
}

/* ---------- fixtures ---------- */

static void test_pod_rich(void **state)
{
	(void)state;
	struct api_pod *p = tobj_pod_fixture("pod-rich.json");
	char key[64];

	/* metadata */
	/* a pod's name stays in its arena (interning it would keep every name ever seen) */
	assert_string_equal(p->meta.name, "web-1");
	assert_ptr_not_equal(p->meta.name, I("web-1"));
	assert_ptr_equal(p->meta.namespace, I("default"));
	assert_ptr_equal(p->meta.uid, I("bbeeb5e0-90c8-4125-b9d6-ea9176f11982"));
	assert_string_equal(p->meta.resource_version, "363");
	assert_string_equal(api_pod_key(p, key, sizeof(key)), "default/web-1");
	assert_string_equal(api_pod_key(p, key, 8), "default");
	assert_int_equal(p->meta.labels.n, 2);
	assert_ptr_equal(api_labels_get(&p->meta.labels, I("app")), I("web"));
	assert_ptr_equal(api_labels_get(&p->meta.labels, I("tier")), I("frontend"));
	assert_null(api_labels_get(&p->meta.labels, I("nope")));
	/* the fixture has annotations; no plugin reads a pod's, so they are not decoded */
	assert_int_equal(p->meta.annotations.n, 0);
	assert_int_equal(p->meta.n_owner_refs, 1);
	assert_string_equal(p->meta.owner_refs[0].kind, "ReplicaSet");
	assert_string_equal(p->meta.owner_refs[0].name, "web-7d9f");
	assert_string_equal(p->meta.owner_refs[0].api_version, "apps/v1");
	assert_string_equal(p->meta.owner_refs[0].uid, "6f1c2a52-7a0e-4c83-9d1b-0c7a8b0e2f11");
	assert_true(p->meta.owner_refs[0].controller);
	assert_int_equal(p->meta.creation_timestamp, 1795422686);
	assert_false(p->meta.being_deleted);

	/* scheduling fields */
	assert_false(api_pod_is_assigned(p));
	assert_ptr_equal(p->node_name, I(""));
	assert_ptr_equal(p->scheduler_name, I("my-scheduler"));
	assert_true(p->has_priority);
	assert_int_equal(p->priority, 1000);
	assert_int_equal(p->preemption_policy, API_PREEMPT_NEVER);
	assert_false(p->host_network);
	assert_int_equal(p->node_selector.n, 1);
	assert_ptr_equal(api_labels_get(&p->node_selector, I("disktype")), I("ssd"));

	/* node affinity */
	const struct api_node_affinity *na = p->affinity.node_affinity;
	assert_non_null(na);
	assert_true(na->has_required);
	assert_int_equal(na->n_required, 2);
	assert_int_equal(na->required[0].n_exprs, 2);
	assert_int_equal(na->required[0].n_fields, 0);
	assert_ptr_equal(na->required[0].exprs[0].key, I("topology.kubernetes.io/zone"));
	assert_int_equal(na->required[0].exprs[0].op, API_OP_IN);
	assert_int_equal(na->required[0].exprs[0].n_values, 2);
	assert_ptr_equal(na->required[0].exprs[0].values[1], I("zone-b"));
	assert_int_equal(na->required[0].exprs[1].op, API_OP_DOES_NOT_EXIST);
	assert_int_equal(na->required[0].exprs[1].n_values, 0);
	assert_int_equal(na->required[1].n_exprs, 0);
	assert_int_equal(na->required[1].n_fields, 1);
	assert_ptr_equal(na->required[1].fields[0].key, I("metadata.name"));
	assert_ptr_equal(na->required[1].fields[0].values[0], I("node-rich"));
	assert_int_equal(na->n_preferred, 1);
	assert_int_equal(na->preferred[0].weight, 20);
	assert_int_equal(na->preferred[0].term.exprs[0].op, API_OP_GT);
	assert_ptr_equal(na->preferred[0].term.exprs[0].values[0], I("4"));

	/* pod affinity */
	const struct api_pod_affinity *pa = p->affinity.pod_affinity;
	assert_non_null(pa);
	assert_int_equal(pa->n_required, 1);
	assert_ptr_equal(pa->required[0].topology_key, I("topology.kubernetes.io/zone"));
	assert_non_null(pa->required[0].label_selector);
	assert_ptr_equal(api_labels_get(&pa->required[0].label_selector->match_labels, I("app")), I("cache"));
	assert_int_equal(pa->required[0].n_namespaces, 2);
	assert_ptr_equal(pa->required[0].namespaces[1], I("caching"));
	assert_null(pa->required[0].namespace_selector);
	assert_int_equal(pa->required[0].n_match_label_keys, 1);
	assert_ptr_equal(pa->required[0].match_label_keys[0], I("pod-template-hash"));
	assert_int_equal(pa->n_preferred, 1);
	assert_int_equal(pa->preferred[0].weight, 50);
	assert_ptr_equal(pa->preferred[0].term.topology_key, I("kubernetes.io/hostname"));
	assert_int_equal(pa->preferred[0].term.label_selector->n_exprs, 1);
	assert_non_null(pa->preferred[0].term.namespace_selector);
	assert_ptr_equal(api_labels_get(&pa->preferred[0].term.namespace_selector->match_labels, I("team")), I("a"));
	const struct api_pod_affinity *anti = p->affinity.pod_anti_affinity;
	assert_non_null(anti);
	assert_int_equal(anti->n_required, 1);
	assert_int_equal(anti->n_preferred, 0);
	assert_int_equal(anti->required[0].n_mismatch_label_keys, 1);
	assert_ptr_equal(anti->required[0].mismatch_label_keys[0], I("tenant"));

	/* tolerations */
	assert_int_equal(p->n_tolerations, 3);
	assert_ptr_equal(p->tolerations[0].key, I("dedicated"));
	assert_int_equal(p->tolerations[0].op, API_TOLERATION_EQUAL);
	assert_ptr_equal(p->tolerations[0].value, I("gpu"));
	assert_int_equal(p->tolerations[0].effect, API_EFFECT_NO_SCHEDULE);
	assert_false(p->tolerations[0].has_toleration_seconds);
	assert_int_equal(p->tolerations[1].op, API_TOLERATION_EXISTS);
	assert_int_equal(p->tolerations[1].effect, API_EFFECT_NO_EXECUTE);
	assert_true(p->tolerations[1].has_toleration_seconds);
	assert_int_equal(p->tolerations[1].toleration_seconds, 300);
	assert_ptr_equal(p->tolerations[2].key, I(""));
	assert_int_equal(p->tolerations[2].effect, API_EFFECT_NONE);

	/* topology spread */
	assert_int_equal(p->n_spread_constraints, 2);
	const struct api_topology_spread_constraint *c = &p->spread_constraints[0];
	assert_int_equal(c->max_skew, 1);
	assert_ptr_equal(c->topology_key, I("topology.kubernetes.io/zone"));
	assert_int_equal(c->when_unsatisfiable, API_DO_NOT_SCHEDULE);
	assert_true(c->has_min_domains);
	assert_int_equal(c->min_domains, 2);
	assert_int_equal(c->node_affinity_policy, API_POLICY_HONOR);
	assert_int_equal(c->node_taints_policy, API_POLICY_IGNORE);
	assert_int_equal(c->n_match_label_keys, 1);
	assert_ptr_equal(c->match_label_keys[0], I("pod-template-hash"));
	c = &p->spread_constraints[1];
	assert_int_equal(c->max_skew, 3);
	assert_int_equal(c->when_unsatisfiable, API_SCHEDULE_ANYWAY);
	assert_false(c->has_min_domains);
	assert_int_equal(c->node_affinity_policy, API_POLICY_UNSET);
	assert_int_equal(c->label_selector->exprs[0].op, API_OP_EXISTS);

	/* containers */
	assert_int_equal(p->n_init_containers, 2);
	assert_ptr_equal(p->init_containers[0].name, I("init-db"));
	assert_false(p->init_containers[0].restart_policy_always);
	assert_int_equal(p->init_containers[0].requests.cpu, 1000);
	assert_int_equal(p->init_containers[0].requests.memory, 1073741824);
	assert_true(p->init_containers[1].restart_policy_always);
	assert_ptr_equal(p->init_containers[1].image, I("registry.example.com/logs/agent"));
	assert_int_equal(p->init_containers[1].requests.memory, 64 << 20);
	assert_int_equal(p->n_containers, 2);
	const struct api_container *w = &p->containers[0];
	assert_ptr_equal(w->image, I("nginx:1.27"));
	assert_true(w->requests.has_cpu && w->requests.has_memory && w->requests.has_ephemeral_storage);
	assert_false(w->requests.has_pods);
	assert_int_equal(w->requests.cpu, 500);
	assert_int_equal(w->requests.memory, 256 << 20);
	assert_int_equal(w->requests.ephemeral_storage, 1 << 30);
	assert_int_equal(w->requests.n_scalar, 1);
	assert_int_equal(api_resources_scalar(&w->requests, I("example.com/foo")), 3);
	assert_int_equal(api_resources_scalar(&w->requests, I("example.com/bar")), 0);
	assert_int_equal(w->limits.cpu, 2000);
	assert_int_equal(w->limits.memory, 512 << 20);
	assert_int_equal(w->n_ports, 3);
	assert_int_equal(w->ports[0].container_port, 80);
	assert_int_equal(w->ports[0].host_port, 8080);
	assert_ptr_equal(w->ports[0].protocol, I("TCP"));
	assert_ptr_equal(w->ports[0].host_ip, I(""));
	assert_ptr_equal(w->ports[1].protocol, I("UDP"));
	assert_ptr_equal(w->ports[1].host_ip, I("127.0.0.1"));
	assert_int_equal(w->ports[2].host_port, 0);
	assert_int_equal(p->containers[1].requests.cpu, 100);
	assert_int_equal(p->containers[1].requests.memory, 129000000);
	assert_false(p->containers[1].limits.has_cpu);

	/* overhead (from the RuntimeClass), no pod-level resources */
	assert_int_equal(p->overhead.cpu, 250);
	assert_int_equal(p->overhead.memory, 120 << 20);
	assert_false(p->pod_requests.has_cpu);

	/* volumes */
	assert_int_equal(p->n_volumes, 6);
	assert_int_equal(p->volumes[0].kind, API_VOLUME_PVC);
	assert_string_equal(p->volumes[0].claim_name, "data-web-1");
	assert_true(p->volumes[0].read_only);
	assert_int_equal(p->volumes[1].kind, API_VOLUME_GCE_PD);
	assert_string_equal(p->volumes[1].pd_name, "disk-1");
	assert_int_equal(p->volumes[2].kind, API_VOLUME_AWS_EBS);
	assert_string_equal(p->volumes[2].volume_id, "vol-0123456789abcdef0");
	assert_false(p->volumes[2].read_only);
	assert_int_equal(p->volumes[3].kind, API_VOLUME_RBD);
	assert_int_equal(p->volumes[3].n_monitors, 2);
	assert_string_equal(p->volumes[3].monitors[1], "10.0.0.2:6789");
	assert_string_equal(p->volumes[3].pool, "kube");
	assert_string_equal(p->volumes[3].image, "img-1");
	assert_int_equal(p->volumes[4].kind, API_VOLUME_ISCSI);
	assert_string_equal(p->volumes[4].iqn, "iqn.2001-04.com.example:storage.disk1");
	assert_string_equal(p->volumes[4].target_portal, "10.0.0.9:3260");
	assert_int_equal(p->volumes[4].lun, 3);
	assert_true(p->volumes[4].read_only);
	assert_int_equal(p->volumes[5].kind, API_VOLUME_OTHER);
	assert_string_equal(p->volumes[5].name, "scratch");

	assert_int_equal(p->n_scheduling_gates, 2);
	assert_string_equal(p->scheduling_gates[0], "example.com/quota");
	assert_string_equal(p->scheduling_gates[1], "example.com/approval");

	/* status */
	assert_ptr_equal(p->phase, I("Pending"));
	assert_ptr_equal(p->nominated_node_name, I("node-rich"));
	assert_int_equal(p->n_conditions, 1);
	assert_ptr_equal(p->conditions[0].type, I("PodScheduled"));
	assert_ptr_equal(p->conditions[0].status, I("False"));
	assert_string_equal(p->conditions[0].reason, "SchedulingGated");
	api_pod_unref(p);
}

static void test_pod_minimal_and_assigned(void **state)
{
	(void)state;
	struct api_pod *p = tobj_pod_fixture("pod-minimal.json");
	assert_ptr_equal(p->scheduler_name, I("default-scheduler"));
	assert_true(p->has_priority); /* the Priority admission plugin sets 0 */
	assert_int_equal(p->priority, 0);
	assert_int_equal(p->preemption_policy, API_PREEMPT_LOWER_PRIORITY);
	assert_null(p->affinity.node_affinity);
	assert_null(p->affinity.pod_affinity);
	assert_null(p->affinity.pod_anti_affinity);
	assert_int_equal(p->n_containers, 1);
	assert_false(p->containers[0].requests.has_cpu);
	assert_int_equal(p->containers[0].requests.n_scalar, 0);
	assert_int_equal(p->n_volumes, 0);
	assert_int_equal(p->n_scheduling_gates, 0);
	assert_int_equal(p->meta.labels.n, 0);
	api_pod_unref(p);

	p = tobj_pod_fixture("pod-assigned-deleting.json");
	assert_true(api_pod_is_assigned(p));
	assert_ptr_equal(p->node_name, I("node-plain"));
	assert_ptr_equal(p->meta.namespace, I("kube-system"));
	assert_true(p->host_network);
	assert_true(p->meta.being_deleted);
	assert_int_equal(p->meta.creation_timestamp, 1795422681);
	assert_int_equal(p->meta.deletion_timestamp, 1795422711);
	assert_int_equal(p->containers[0].requests.cpu, 1500);
	assert_int_equal(p->containers[0].requests.memory, INT64_C(2) << 30);
	assert_int_equal(p->containers[0].ports[0].host_port, 5432);
	api_pod_unref(p);
}

static void test_node_rich(void **state)
{
	(void)state;
	struct api_node *n = tobj_node_fixture("node-rich.json");
	assert_ptr_equal(n->meta.name, I("node-rich"));
	assert_ptr_equal(n->meta.namespace, I(""));
	assert_string_equal(n->meta.uid, "cb9b294e-2f9d-4606-8de7-007adea9ebc7"); /* not interned */
	assert_string_equal(n->meta.resource_version, "355");
	assert_int_equal(n->meta.creation_timestamp, 1795422680);
	assert_ptr_equal(api_labels_get(&n->meta.labels, I("topology.kubernetes.io/zone")), I("zone-a"));
	assert_string_equal(annotation(&n->meta.annotations, "example.com/note"), "capture fixture");
	assert_null(annotation(&n->meta.annotations, "example.com/none"));
	assert_true(n->unschedulable);
	assert_int_equal(n->n_taints, 4);
	assert_ptr_equal(n->taints[0].key, I("dedicated"));
	assert_ptr_equal(n->taints[0].value, I("gpu"));
	assert_int_equal(n->taints[0].effect, API_EFFECT_NO_SCHEDULE);
	assert_ptr_equal(n->taints[1].value, I(""));
	assert_int_equal(n->taints[2].effect, API_EFFECT_PREFER_NO_SCHEDULE);
	assert_int_equal(n->taints[3].effect, API_EFFECT_NO_EXECUTE);
	assert_int_equal(n->capacity.cpu, 8000);
	assert_int_equal(n->capacity.memory, INT64_C(32) << 30);
	assert_int_equal(n->capacity.ephemeral_storage, INT64_C(100) << 30);
	assert_int_equal(n->allocatable.cpu, 7800);
	assert_int_equal(n->allocatable.memory, INT64_C(33822867456));
	assert_int_equal(n->allocatable.ephemeral_storage, INT64_C(96636764160));
	assert_true(n->allocatable.has_pods);
	assert_int_equal(n->allocatable.pods, 110);
	assert_int_equal(n->allocatable.n_scalar, 2);
	assert_int_equal(api_resources_scalar(&n->allocatable, I("nvidia.com/gpu")), 4);
	assert_int_equal(api_resources_scalar(&n->allocatable, I("hugepages-2Mi")), 1 << 30);
	assert_int_equal(n->n_conditions, 2);
	const struct api_condition *ready = api_node_condition(n, I("Ready"));
	assert_non_null(ready);
	assert_ptr_equal(ready->status, I("True"));
	assert_string_equal(ready->reason, "KubeletReady");
	assert_null(api_node_condition(n, I("DiskPressure")));
	assert_int_equal(n->n_images, 2);
	assert_int_equal(n->images[0].n_names, 2);
	assert_ptr_equal(n->images[0].names[1], I("registry.k8s.io/pause:3.10"));
	assert_int_equal(n->images[0].size_bytes, 320368);
	assert_int_equal(n->images[1].size_bytes, 72955450);
	api_node_unref(n);

	n = tobj_node_fixture("node-plain.json");
	assert_false(n->unschedulable);
	assert_int_equal(n->n_taints, 0);
	assert_int_equal(n->allocatable.cpu, 4000);
	assert_int_equal(n->n_images, 0);
	api_node_unref(n);
}

/* A LIST page and watch event lines, decoded item by item as the informer does. */
static void test_list_and_watch(void **state)
{
	(void)state;
	char errbuf[256];
	struct err e;
	char *json = testutil_read_source_file("tests/fixtures/api/podlist-page1.json", NULL);
	yajl_val tree = yajl_tree_parse(json, errbuf, sizeof(errbuf));
	assert_non_null(tree);
	const char *items_path[] = { "items", NULL };
	yajl_val items = yajl_tree_get(tree, items_path, yajl_t_array);
	assert_non_null(items);
	assert_int_equal(items->u.array.len, 2);
	for (size_t i = 0; i < items->u.array.len; i++) {
		struct api_pod *p = api_pod_decode(items->u.array.values[i], &e);
		if (!p)
			fail_msg("item %zu: %s", i, e.msg);
		assert_ptr_equal(p->meta.namespace, I("default"));
		api_pod_unref(p);
	}
	yajl_tree_free(tree);
	free(json);

	json = testutil_read_source_file("tests/fixtures/api/nodelist.json", NULL);
	tree = yajl_tree_parse(json, errbuf, sizeof(errbuf));
	assert_non_null(tree);
	items = yajl_tree_get(tree, items_path, yajl_t_array);
	assert_int_equal(items->u.array.len, 2);
	for (size_t i = 0; i < items->u.array.len; i++) {
		struct api_node *n = api_node_decode(items->u.array.values[i], &e);
		if (!n)
			fail_msg("node %zu: %s", i, e.msg);
		api_node_unref(n);
	}
	yajl_tree_free(tree);
	free(json);

	static const char *want_type[] = { "MODIFIED", "MODIFIED", "DELETED", "BOOKMARK" };
	json = testutil_read_source_file("tests/fixtures/api/watch-pod-events.jsonl", NULL);
	size_t line = 0;
	for (char *s = json, *nl; *s; s = nl + 1, line++) {
		nl = strchr(s, '\n');
		assert_non_null(nl);
		*nl = '\0';
		tree = yajl_tree_parse(s, errbuf, sizeof(errbuf));
		assert_non_null(tree);
		const char *type_path[] = { "type", NULL }, *obj_path[] = { "object", NULL };
		assert_true(line < 4);
		assert_string_equal(YAJL_GET_STRING(yajl_tree_get(tree, type_path, yajl_t_string)), want_type[line]);
		struct api_pod *p = api_pod_decode(yajl_tree_get(tree, obj_path, yajl_t_object), &e);
		if (!p)
			fail_msg("line %zu: %s", line, e.msg);
		if (line < 3) {
			assert_string_equal(p->meta.name, "minimal");
			assert_ptr_equal(api_labels_get(&p->meta.labels, I("extra")), I("1"));
		} else { /* a bookmark carries only a resourceVersion ("containers": null) */
			assert_string_equal(p->meta.resource_version, "367");
			assert_int_equal(p->n_containers, 0);
		}
		assert_int_equal(p->meta.being_deleted, line >= 1 && line < 3);
		api_pod_unref(p);
		yajl_tree_free(tree);
	}
	assert_int_equal(line, 4);
	free(json);
}

/* ---------- errors ---------- */

#define POD_HEAD "{\"metadata\":{\"name\":\"web-1\",\"namespace\":\"default\"},"

static void test_pod_errors(void **state)
{
	(void)state;
	static const struct {
		const char *json, *msg;
	} t[] = {
		{ "{\"metadata\":", "pod: invalid JSON: parse error: premature EOF" },
		{ "{\"a\":1}}", "pod: invalid JSON: parse error: trailing garbage" },
		{ "[1,2]", "pod: expected object, got array" },
		{ "{\"metadata\":{\"name\":7}}", "pod: metadata.name: expected string, got number" },
		{ "{\"metadata\":[]}", "pod: metadata: expected object, got array" },
		{ POD_HEAD "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"abc\"}}}]}}",
		  "pod default/web-1: spec.containers[0].resources.requests.cpu: invalid quantity \"abc\": "
		  "must be [+-]digits[.digits][suffix]" },
		{ POD_HEAD "\"spec\":{\"containers\":[{},{\"resources\":{\"limits\":{\"memory\":\"1.2.3\"}}}]}}",
		  "pod default/web-1: spec.containers[1].resources.limits.memory: invalid quantity \"1.2.3\": "
		  "must be [+-]digits[.digits][suffix]" },
		{ POD_HEAD "\"spec\":{\"initContainers\":[{\"resources\":{\"requests\":{\"example.com/gpu\":true}}}]}}",
		  "pod default/web-1: spec.initContainers[0].resources.requests.example.com/gpu: expected quantity string, "
		  "got boolean" },
		{ POD_HEAD "\"spec\":{\"overhead\":{\"cpu\":\"1e\"}}}",
		  "pod default/web-1: spec.overhead.cpu: invalid quantity \"1e\": unknown suffix" },
		{ POD_HEAD "\"spec\":{\"containers\":{}}}", "pod default/web-1: spec.containers: expected array, got object" },
		{ POD_HEAD "\"spec\":{\"priority\":\"high\"}}", "pod default/web-1: spec.priority: expected integer, got string" },
		{ POD_HEAD "\"spec\":{\"priority\":2147483648}}", "pod default/web-1: spec.priority: invalid integer 2147483648" },
		{ POD_HEAD "\"spec\":{\"priority\":1.5}}", "pod default/web-1: spec.priority: invalid integer 1.5" },
		{ POD_HEAD "\"spec\":{\"hostNetwork\":\"yes\"}}",
		  "pod default/web-1: spec.hostNetwork: expected boolean, got string" },
		{ POD_HEAD "\"spec\":{\"nodeSelector\":{\"a\":1}}}", "pod default/web-1: spec.nodeSelector.a: expected string, got number" },
		{ POD_HEAD "\"spec\":{\"tolerations\":[{\"key\":\"k\"},{\"tolerationSeconds\":\"5\"}]}}",
		  "pod default/web-1: spec.tolerations[1].tolerationSeconds: expected integer, got string" },
		{ POD_HEAD "\"spec\":{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
			  "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"a\",\"values\":[1]}]}]}}}}}",
		  "pod default/web-1: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
		  "nodeSelectorTerms[0].matchExpressions[0].values[0]: expected string, got number" },
		{ POD_HEAD "\"spec\":{\"affinity\":{\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":"
			  "[{\"weight\":1,\"podAffinityTerm\":{\"labelSelector\":\"app=x\"}}]}}}}",
		  "pod default/web-1: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
		  "podAffinityTerm.labelSelector: expected object, got string" },
		{ POD_HEAD "\"spec\":{\"topologySpreadConstraints\":[{\"maxSkew\":1,\"whenUnsatisfiable\":\"Maybe\"}]}}",
		  "pod default/web-1: spec.topologySpreadConstraints[0].whenUnsatisfiable: unsupported value \"Maybe\": "
		  "supported values: \"DoNotSchedule\", \"ScheduleAnyway\"" },
		{ POD_HEAD "\"spec\":{\"topologySpreadConstraints\":[{\"whenUnsatisfiable\":\"DoNotSchedule\","
			  "\"nodeTaintsPolicy\":\"honor\"}]}}",
		  "pod default/web-1: spec.topologySpreadConstraints[0].nodeTaintsPolicy: unsupported value \"honor\": "
		  "supported values: \"Honor\", \"Ignore\"" },
		{ POD_HEAD "\"spec\":{\"preemptionPolicy\":\"Sometimes\"}}",
		  "pod default/web-1: spec.preemptionPolicy: unsupported value \"Sometimes\": supported values: \"Never\", "
		  "\"PreemptLowerPriority\"" },
		{ POD_HEAD "\"spec\":{\"containers\":[{\"ports\":[{\"hostPort\":\"80\"}]}]}}",
		  "pod default/web-1: spec.containers[0].ports[0].hostPort: expected integer, got string" },
		{ POD_HEAD "\"spec\":{\"volumes\":[{\"name\":\"v\",\"iscsi\":{\"lun\":\"0\"}}]}}",
		  "pod default/web-1: spec.volumes[0].iscsi.lun: expected integer, got string" },
		{ POD_HEAD "\"spec\":{\"resources\":{\"requests\":{\"memory\":\"1 Gi\"}}}}",
		  "pod default/web-1: spec.resources.requests.memory: invalid quantity \"1 Gi\": must be "
		  "[+-]digits[.digits][suffix]" },
		{ POD_HEAD "\"status\":{\"conditions\":[{\"type\":false}]}}",
		  "pod default/web-1: status.conditions[0].type: expected string, got boolean" },
		{ "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"creationTimestamp\":\"yesterday\"}}",
		  "pod ns/p: metadata.creationTimestamp: invalid time \"yesterday\"" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct err e = { 0 };
		struct api_pod *p = api_pod_decode_json(t[i].json, strlen(t[i].json), &e);
		if (p)
			fail_msg("case %zu decoded: %s", i, t[i].json);
		assert_int_equal(e.code, ERR_INVALID);
		if (strcmp(e.msg, t[i].msg) != 0)
			fail_msg("case %zu:\n got  %s\n want %s", i, e.msg, t[i].msg);
	}
}

static void test_node_errors(void **state)
{
	(void)state;
	static const struct {
		const char *json, *msg;
	} t[] = {
		{ "", "node: invalid JSON: parse error: premature EOF" },
		{ "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"allocatable\":{\"cpu\":\"4x\"}}}",
		  "node n1: status.allocatable.cpu: invalid quantity \"4x\": must be [+-]digits[.digits][suffix]" },
		{ "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"taints\":[{\"key\":\"a\",\"effect\":3}]}}",
		  "node n1: spec.taints[0].effect: expected string, got number" },
		{ "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"unschedulable\":1}}",
		  "node n1: spec.unschedulable: expected boolean, got number" },
		{ "{\"metadata\":{\"name\":\"n1\"},\"status\":{\"images\":[{\"names\":\"x\"}]}}",
		  "node n1: status.images[0].names: expected array, got string" },
		{ "{\"metadata\":{\"name\":\"n1\",\"labels\":[\"a\"]}}", "node n1: metadata.labels: expected object, got array" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct err e = { 0 };
		struct api_node *n = api_node_decode_json(t[i].json, strlen(t[i].json), &e);
		if (n)
			fail_msg("case %zu decoded: %s", i, t[i].json);
		if (strcmp(e.msg, t[i].msg) != 0)
			fail_msg("case %zu:\n got  %s\n want %s", i, e.msg, t[i].msg);
	}
	/* NULL tree and NULL err are fine. */
	assert_null(api_node_decode(NULL, NULL));
	assert_null(api_pod_decode(NULL, NULL));
}

/* encoding/json leniencies the apiserver's clients rely on: null is the zero value, unknown
 * fields are skipped, quantities may be JSON numbers or padded strings, duplicate keys: last wins. */
static void test_pod_lenient(void **state)
{
	(void)state;
	static const char json[] =
		"{\"kind\":\"Pod\",\"unknownTop\":{\"x\":[1,2]},\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
		"\"labels\":null,\"annotations\":{\"a\":null},\"futureField\":true},"
		"\"spec\":{\"schedulerName\":null,\"nodeName\":null,\"tolerations\":[null,{\"operator\":\"Sideways\","
		"\"effect\":\"NoWhatever\"}],\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":2,"
		"\"memory\":\" 1Gi \",\"pods\":null,\"example.com/x\":\"1\",\"example.com/x\":\"5\"}},\"ports\":[{}]}],"
		"\"nodeSelector\":{\"k\":\"v1\",\"k\":\"v2\"},\"affinity\":{\"nodeAffinity\":{}}},"
		"\"status\":null}";
	struct err e = { 0 };
	struct api_pod *p = api_pod_decode_json(json, strlen(json), &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(p->meta.labels.n, 0);
	assert_int_equal(p->meta.annotations.n, 0);
	assert_ptr_equal(p->scheduler_name, I("default-scheduler"));
	assert_false(api_pod_is_assigned(p));
	assert_false(p->has_priority);
	assert_int_equal(p->n_tolerations, 2);
	assert_ptr_equal(p->tolerations[0].key, I(""));
	assert_int_equal(p->tolerations[0].op, API_TOLERATION_EQUAL);
	assert_int_equal(p->tolerations[1].op, API_TOLERATION_UNKNOWN);
	assert_int_equal(p->tolerations[1].effect, API_EFFECT_UNKNOWN);
	const struct api_resources *r = &p->containers[0].requests;
	assert_int_equal(r->cpu, 2000);
	assert_int_equal(r->memory, 1 << 30);
	assert_true(r->has_pods);
	assert_int_equal(r->pods, 0);
	assert_int_equal(r->n_scalar, 1);
	assert_int_equal(api_resources_scalar(r, I("example.com/x")), 5);
	assert_ptr_equal(p->containers[0].ports[0].protocol, I("TCP"));
	assert_int_equal(p->node_selector.n, 1);
	assert_ptr_equal(api_labels_get(&p->node_selector, I("k")), I("v2"));
	assert_non_null(p->affinity.node_affinity);
	assert_false(p->affinity.node_affinity->has_required);
	assert_ptr_equal(p->phase, I(""));
	assert_ptr_equal(p->nominated_node_name, I(""));
	api_pod_unref(p);

	/* a node's annotations: null reads as "", duplicate keys: the last one wins */
	static const char node_json[] = "{\"metadata\":{\"name\":\"n\",\"annotations\":{\"a\":null,\"b\":\"1\","
					"\"c\":\"x\",\"b\":\"2\"}}}";
	struct api_node *n = api_node_decode_json(node_json, strlen(node_json), &e);
	if (!n)
		fail_msg("%s", e.msg);
	assert_int_equal(n->meta.annotations.n, 3);
	assert_string_equal(annotation(&n->meta.annotations, "a"), "");
	assert_string_equal(annotation(&n->meta.annotations, "b"), "2");
	assert_string_equal(annotation(&n->meta.annotations, "c"), "x");
	api_node_unref(n);
}

/* ---------- arena sizing ---------- */

/* Each decoded object is one block sized from the objects decoded before it: a pod much larger
 * than the usual ones is decoded again into a block of its size, never left with a second one. */
static void test_arena_sizing(void **state)
{
	(void)state;
	static const char small[] = "{\"metadata\":{\"name\":\"s\",\"namespace\":\"d\",\"uid\":\"u-s\"},"
				    "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
	char big[8192];
	int n = snprintf(big, sizeof(big), "{\"metadata\":{\"name\":\"b\",\"labels\":{");
	for (int i = 0; i < 60; i++)
		n += snprintf(big + n, sizeof(big) - (size_t)n, "%s\"label-%d\":\"value-%d\"", i ? "," : "", i, i);
	n += snprintf(big + n, sizeof(big) - (size_t)n, "}},\"spec\":{\"tolerations\":[");
	for (int i = 0; i < 30; i++)
		n += snprintf(big + n, sizeof(big) - (size_t)n, "%s{\"key\":\"k%d\",\"operator\":\"Exists\"}", i ? "," : "", i);
	snprintf(big + n, sizeof(big) - (size_t)n, "]}}");

	struct err e = { 0 };
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 40; i++) {
			struct api_pod *p = api_pod_decode_json(small, strlen(small), &e);
			assert_non_null(p);
			assert_false(arena_overflowed(p->arena));
			assert_string_equal(p->meta.name, "s");
			api_pod_unref(p);
		}
		struct api_pod *b = api_pod_decode_json(big, strlen(big), &e);
		if (!b)
			fail_msg("%s", e.msg);
		assert_false(arena_overflowed(b->arena));
		assert_int_equal(b->meta.labels.n, 60);
		assert_ptr_equal(api_labels_get(&b->meta.labels, I("label-59")), I("value-59"));
		assert_int_equal(b->n_tolerations, 30);
		assert_ptr_equal(b->tolerations[29].key, I("k29"));
		api_pod_unref(b);
	}
	/* nodes learn their own size */
	static const char node[] = "{\"metadata\":{\"name\":\"n\"},\"status\":{\"allocatable\":{\"cpu\":\"4\","
				   "\"example.com/gpu\":\"2\"}}}";
	for (int i = 0; i < 20; i++) {
		struct api_node *nd = api_node_decode_json(node, strlen(node), &e);
		assert_non_null(nd);
		assert_false(arena_overflowed(nd->arena));
		assert_int_equal(nd->allocatable.cpu, 4000);
		assert_int_equal(nd->allocatable.n_scalar, 1);
		assert_int_equal(api_resources_scalar(&nd->allocatable, I("example.com/gpu")), 2);
		api_node_unref(nd);
	}
}

/* ---------- lease ---------- */

static void test_lease(void **state)
{
	(void)state;
	static const char json[] =
		"{\"kind\":\"Lease\",\"metadata\":{\"name\":\"csched\",\"namespace\":\"kube-system\","
		"\"resourceVersion\":\"42\"},\"spec\":{\"holderIdentity\":\"host-1_abc\",\"leaseDurationSeconds\":15,"
		"\"acquireTime\":\"2026-11-23T08:31:26.123456Z\",\"renewTime\":\"2026-11-23T10:31:27.5+02:00\","
		"\"leaseTransitions\":3}}";
	char errbuf[128];
	struct api_lease l;
	struct err e = { 0 };
	yajl_val tree = yajl_tree_parse(json, errbuf, sizeof(errbuf));
	assert_non_null(tree);
	assert_int_equal(api_lease_decode(tree, &l, &e), 0);
	yajl_tree_free(tree);
	assert_string_equal(l.name, "csched");
	assert_string_equal(l.namespace, "kube-system");
	assert_string_equal(l.resource_version, "42");
	assert_string_equal(l.holder_identity, "host-1_abc");
	assert_int_equal(l.lease_duration_seconds, 15);
	assert_int_equal(l.acquire_time_us, INT64_C(1795422686123456));
	assert_int_equal(l.renew_time_us, INT64_C(1795422687500000));
	assert_int_equal(l.lease_transitions, 3);
	api_lease_release(&l);
	assert_null(l.name);
	api_lease_release(&l); /* idempotent */

	static const char empty[] = "{\"metadata\":{\"name\":\"csched\",\"namespace\":\"kube-system\"},\"spec\":{}}";
	tree = yajl_tree_parse(empty, errbuf, sizeof(errbuf));
	assert_int_equal(api_lease_decode(tree, &l, &e), 0);
	yajl_tree_free(tree);
	assert_null(l.holder_identity);
	assert_int_equal(l.acquire_time_us, 0);
	api_lease_release(&l);

	static const char bad[] = "{\"metadata\":{\"name\":\"csched\",\"namespace\":\"kube-system\"},"
				  "\"spec\":{\"holderIdentity\":\"h\",\"renewTime\":\"2026-13-01T00:00:00Z\"}}";
	tree = yajl_tree_parse(bad, errbuf, sizeof(errbuf));
	assert_int_equal(api_lease_decode(tree, &l, &e), ERR_INVALID);
	yajl_tree_free(tree);
	assert_string_equal(e.msg, "lease kube-system/csched: spec.renewTime: invalid time \"2026-13-01T00:00:00Z\"");
	assert_null(l.name);
	assert_null(l.holder_identity);
}

/* ---------- selectors and tolerations ---------- */

static struct api_labels labels_of(struct api_kv *kv, const char *const *pairs)
{
	uint32_t n = 0;
	for (; pairs[2 * n]; n++)
		kv[n] = (struct api_kv){ I(pairs[2 * n]), I(pairs[2 * n + 1]) };
	return (struct api_labels){ n, kv };
}

static void test_label_selector(void **state)
{
	(void)state;
	const char *in_vals[] = { I("web"), I("api") };
	struct api_kv ml_kv[] = { { I("tier"), I("frontend") } };
	static const struct {
		const char *name;
		int match_labels; /* 0 or 1 (tier=frontend) */
		enum api_op op;   /* on key "app", with in_vals when n_values > 0 */
		uint32_t n_values;
		bool has_expr;
		const char *labels[8];
		bool want;
	} t[] = {
		{ "empty selector matches everything", 0, 0, 0, false, { NULL }, true },
		{ "matchLabels hit", 1, 0, 0, false, { "tier", "frontend", "app", "web", NULL }, true },
		{ "matchLabels wrong value", 1, 0, 0, false, { "tier", "backend", NULL }, false },
		{ "matchLabels absent key", 1, 0, 0, false, { "app", "web", NULL }, false },
		{ "In hit", 0, API_OP_IN, 2, true, { "app", "api", NULL }, true },
		{ "In miss", 0, API_OP_IN, 2, true, { "app", "db", NULL }, false },
		{ "In absent", 0, API_OP_IN, 2, true, { NULL }, false },
		{ "In without values is invalid", 0, API_OP_IN, 0, true, { "app", "web", NULL }, false },
		{ "NotIn absent key", 0, API_OP_NOT_IN, 2, true, { NULL }, true },
		{ "NotIn other value", 0, API_OP_NOT_IN, 2, true, { "app", "db", NULL }, true },
		{ "NotIn listed value", 0, API_OP_NOT_IN, 2, true, { "app", "web", NULL }, false },
		{ "Exists", 0, API_OP_EXISTS, 0, true, { "app", "", NULL }, true },
		{ "Exists absent", 0, API_OP_EXISTS, 0, true, { "x", "y", NULL }, false },
		{ "Exists with values is invalid", 0, API_OP_EXISTS, 2, true, { "app", "web", NULL }, false },
		{ "DoesNotExist", 0, API_OP_DOES_NOT_EXIST, 0, true, { "x", "y", NULL }, true },
		{ "DoesNotExist present", 0, API_OP_DOES_NOT_EXIST, 0, true, { "app", "web", NULL }, false },
		{ "Gt is not a label selector operator", 0, API_OP_GT, 2, true, { "app", "web", NULL }, false },
		{ "unknown operator", 0, API_OP_UNKNOWN, 2, true, { "app", "web", NULL }, false },
		{ "both must hold", 1, API_OP_IN, 2, true, { "tier", "frontend", "app", "db", NULL }, false },
		{ "both hold", 1, API_OP_IN, 2, true, { "tier", "frontend", "app", "web", NULL }, true },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct api_requirement req = { I("app"), t[i].op, t[i].n_values, in_vals };
		struct api_label_selector s = { .match_labels = { (uint32_t)t[i].match_labels, ml_kv },
						.n_exprs = t[i].has_expr,
						.exprs = &req };
		struct api_kv kv[4];
		struct api_labels l = labels_of(kv, t[i].labels);
		if (api_label_selector_matches(&s, &l) != t[i].want)
			fail_msg("%s: want %d", t[i].name, t[i].want);
	}
	struct api_labels none = { 0, NULL };
	assert_false(api_label_selector_matches(NULL, &none)); /* no selector: nothing */
}

static void test_tolerations(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		const char *key, *value;
		enum api_toleration_op op;
		enum api_taint_effect effect;
		const char *taint_key, *taint_value;
		enum api_taint_effect taint_effect;
		bool want;
	} t[] = {
		{ "equal all", "k", "v", API_TOLERATION_EQUAL, API_EFFECT_NO_SCHEDULE, "k", "v", API_EFFECT_NO_SCHEDULE, true },
		{ "equal value differs", "k", "v", API_TOLERATION_EQUAL, API_EFFECT_NO_SCHEDULE, "k", "w",
		  API_EFFECT_NO_SCHEDULE, false },
		{ "equal empty value vs empty", "k", "", API_TOLERATION_EQUAL, API_EFFECT_NO_SCHEDULE, "k", "",
		  API_EFFECT_NO_SCHEDULE, true },
		{ "equal key differs", "k", "v", API_TOLERATION_EQUAL, API_EFFECT_NONE, "j", "v", API_EFFECT_NO_EXECUTE,
		  false },
		{ "effect differs", "k", "v", API_TOLERATION_EQUAL, API_EFFECT_NO_EXECUTE, "k", "v",
		  API_EFFECT_NO_SCHEDULE, false },
		{ "empty effect matches all", "k", "v", API_TOLERATION_EQUAL, API_EFFECT_NONE, "k", "v",
		  API_EFFECT_PREFER_NO_SCHEDULE, true },
		{ "exists ignores value", "k", "", API_TOLERATION_EXISTS, API_EFFECT_NO_SCHEDULE, "k", "anything",
		  API_EFFECT_NO_SCHEDULE, true },
		{ "exists empty key matches every key", "", "", API_TOLERATION_EXISTS, API_EFFECT_NONE, "any", "x",
		  API_EFFECT_NO_EXECUTE, true },
		{ "exists empty key, effect must match", "", "", API_TOLERATION_EXISTS, API_EFFECT_NO_SCHEDULE, "any",
		  "x", API_EFFECT_NO_EXECUTE, false },
		{ "equal empty key matches any key with value", "", "x", API_TOLERATION_EQUAL, API_EFFECT_NONE, "any",
		  "x", API_EFFECT_NO_SCHEDULE, true },
		{ "unknown operator never", "k", "v", API_TOLERATION_UNKNOWN, API_EFFECT_NONE, "k", "v",
		  API_EFFECT_NO_SCHEDULE, false },
		{ "unschedulable taint", "node.kubernetes.io/unschedulable", "", API_TOLERATION_EXISTS,
		  API_EFFECT_NO_SCHEDULE, "node.kubernetes.io/unschedulable", "", API_EFFECT_NO_SCHEDULE, true },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct api_toleration tol = { .key = I(t[i].key), .op = t[i].op, .value = I(t[i].value),
					      .effect = t[i].effect };
		struct api_taint taint = { I(t[i].taint_key), I(t[i].taint_value), t[i].taint_effect };
		if (api_toleration_tolerates(&tol, &taint) != t[i].want)
			fail_msg("%s: want %d", t[i].name, t[i].want);
	}
	/* Tolerations decoded from the fixture against the fixture node's taints. */
	struct api_pod *p = tobj_pod_fixture("pod-rich.json");
	struct api_node *n = tobj_node_fixture("node-rich.json");
	static const bool want[3][4] = {
		{ true, false, false, false }, /* dedicated=gpu:NoSchedule */
		{ false, false, false, true }, /* example.com/evict Exists NoExecute */
		{ true, true, true, true },     /* Exists, every key and effect */
	};
	for (uint32_t i = 0; i < p->n_tolerations; i++)
		for (uint32_t j = 0; j < n->n_taints; j++)
			if (api_toleration_tolerates(&p->tolerations[i], &n->taints[j]) != want[i][j])
				fail_msg("toleration %u taint %u: want %d", i, j, want[i][j]);
	api_pod_unref(p);
	api_node_unref(n);
}

/* ---------- refcounting ---------- */

static void *unref_pod(void *arg)
{
	api_pod_unref(arg);
	return NULL;
}

static void test_refcount(void **state)
{
	(void)state;
	struct api_pod *p = tobj_pod_fixture("pod-rich.json");
	assert_int_equal(p->refs, 1);
	assert_ptr_equal(api_pod_ref(p), p);
	assert_ptr_equal(api_pod_ref(p), p);
	assert_int_equal(p->refs, 3);
	/* Two other threads drop their references; the last one (here) frees the arena, which
	 * valgrind and ASan check. */
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, unref_pod, p), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(p->refs, 1);
	api_pod_unref(p);

	struct api_node *n = tobj_node_fixture("node-plain.json");
	assert_ptr_equal(api_node_ref(n), n);
	api_node_unref(n);
	assert_int_equal(n->refs, 1);
	api_node_unref(n);

	assert_null(api_pod_ref(NULL));
	assert_null(api_node_ref(NULL));
	api_pod_unref(NULL);
	api_node_unref(NULL);
	assert_false(api_pod_is_assigned(NULL));
	assert_null(api_node_condition(NULL, I("Ready")));
}

/* The fields NodeDeclaredFeatures infers from (component-helpers nodedeclaredfeatures/features)
 * and the node's status.declaredFeatures, through the informers' parser (which skips most of a
 * volume mount and an ephemeral container). */
static void test_declared_features_fields(void **state)
{
	(void)state;
	static const char pod[] = POD_HEAD "\"spec\":{\"hostNetwork\":true,\"hostUsers\":false,"
		"\"containers\":[{\"name\":\"a\",\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\"}]},"
		"{\"name\":\"b\",\"restartPolicyRules\":[{\"action\":\"Restart\"},{\"action\":\"RestartAllContainers\"}],"
		"\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\"},{\"name\":\"w\",\"mountPath\":\"/w\",\"bindMountOptions\":[\"ro\"]}]}],"
		"\"ephemeralContainers\":[{\"name\":\"e\",\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\",\"bindMountOptions\":[\"x\"]}]}]}}";
	struct err e = { 0 };
	struct api_pod *p = api_pod_decode_json(pod, strlen(pod), &e);
	assert_non_null(p);
	assert_true(p->host_users_false);
	assert_true(p->ephemeral_bind_mount_options);
	assert_false(p->containers[0].restart_all_containers);
	assert_false(p->containers[0].bind_mount_options);
	assert_true(p->containers[1].restart_all_containers);
	assert_true(p->containers[1].bind_mount_options);
	api_pod_unref(p);
	static const char plain[] = POD_HEAD "\"spec\":{\"hostUsers\":true}}";
	p = api_pod_decode_json(plain, strlen(plain), &e);
	assert_non_null(p);
	assert_false(p->host_users_false);
	assert_false(p->ephemeral_bind_mount_options);
	api_pod_unref(p);

	static const char node[] = "{\"metadata\":{\"name\":\"n\"},\"status\":{\"declaredFeatures\":[\"A\",\"B\"]}}";
	struct api_node *n = api_node_decode_json(node, strlen(node), &e);
	assert_non_null(n);
	assert_int_equal(n->n_declared_features, 2);
	assert_ptr_equal(n->declared_features[0], I("A"));
	assert_ptr_equal(n->declared_features[1], I("B"));
	api_node_unref(n);

	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ POD_HEAD "\"spec\":{\"hostUsers\":\"no\"}}", "pod default/web-1: spec.hostUsers: expected boolean, got string" },
		{ POD_HEAD "\"spec\":{\"containers\":[{\"volumeMounts\":[{\"bindMountOptions\":\"ro\"}]}]}}",
		  "pod default/web-1: spec.containers[0].volumeMounts[0].bindMountOptions: expected array, got string" },
		{ POD_HEAD "\"spec\":{\"initContainers\":[{\"restartPolicyRules\":[{\"action\":1}]}]}}",
		  "pod default/web-1: spec.initContainers[0].restartPolicyRules[0].action: expected string, got number" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&e, 0, sizeof(e));
		assert_null(api_pod_decode_json(bad[i].json, strlen(bad[i].json), &e));
		assert_string_equal(e.msg, bad[i].msg);
	}
	static const char bad_node[] = "{\"metadata\":{\"name\":\"n\"},\"status\":{\"declaredFeatures\":[1]}}";
	memset(&e, 0, sizeof(e));
	assert_null(api_node_decode_json(bad_node, strlen(bad_node), &e));
	assert_string_equal(e.msg, "node n: status.declaredFeatures[0]: expected string, got number");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declared_features_fields),
		cmocka_unit_test(test_pod_rich),	  cmocka_unit_test(test_pod_minimal_and_assigned),
		cmocka_unit_test(test_node_rich),	  cmocka_unit_test(test_list_and_watch),
		cmocka_unit_test(test_pod_errors),	  cmocka_unit_test(test_node_errors),
		cmocka_unit_test(test_pod_lenient),	  cmocka_unit_test(test_lease),
		cmocka_unit_test(test_label_selector), cmocka_unit_test(test_tolerations),
		cmocka_unit_test(test_refcount),	  cmocka_unit_test(test_arena_sizing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
