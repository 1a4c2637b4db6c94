/* The resource.k8s.io/v1 decoders (apiclient/decode_dra.c) and the pod's DRA fields
 * (decode_pod.c; the protobuf pod path of protobuf.c): ResourceClaims, ResourceSlices,
 * DeviceClasses and DeviceTaintRules as api_dra.h documents them. Fixtures captured from a real
 * kube-apiserver v1.37.2 in JSON and protobuf from one server state (each fixture test runs on
 * both and must see the same values; tests/fixtures/api/dra/capture.sh, from
 * tests/fixtures/api/manifests/dra.yaml: the expected values are the manifest's and the server's
 * defaults), hand-written objects in the shape k8s.io/api resource/v1 types.go's json tags give
 * for what the fixtures cannot show (duplicate map keys, list-typed attributes, values the
 * apiserver would reject), and every error path, whose message names the object and field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "apiclient/api_types.h"
#include "apiclient/pb_internal.h"
#include "common/intern.h"
#include "testutil.h"

#define I(s) intern_str(s)
#define DFIX "tests/fixtures/api/dra/"

#define DECODE(type, json)                                                       \
	({                                                                       \
		struct err e_ = { 0 };                                           \
		const char *j_ = (json);                                         \
		struct type *o_ = type##_decode_json(j_, strlen(j_), &e_);       \
		if (!o_)                                                         \
			fail_msg("%s: %s", #type, e_.msg);                       \
		o_;                                                              \
	})

/* The error a decoder gives for json (it must fail). */
#define DECODE_ERR(type, json, want)                                                        \
	do {                                                                                \
		struct err e_ = { 0 };                                                      \
		const char *j_ = (json);                                                    \
		struct type *o_ = type##_decode_json(j_, strlen(j_), &e_);                  \
		if (o_) {                                                                   \
			type##_unref(o_);                                                   \
			fail_msg("%s: decoded, want error \"%s\"", #type, (want));          \
		}                                                                           \
		assert_int_equal(e_.code, ERR_INVALID);                                     \
		assert_string_equal(e_.msg, (want));                                        \
	} while (0)

static char *fixture(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), DFIX "%s", name);
	return testutil_read_source_file(path, len);
}

/* The format the fixture tests read (each runs twice: cmocka_unit_test_prestate with &fmt_json or
 * &fmt_pb): the same server state must decode to the same values from JSON and from protobuf. */
static bool use_pb;
static const bool fmt_json = false, fmt_pb = true;

static void set_format(void **state)
{
	use_pb = state && *state && *(const bool *)*state;
}

/* The fixture name (its .json, or the .pb beside it) parsed as the informers parse a body, into
 * *root (valid until the parsers are freed). */
static void fixture_tree(enum api_kind kind, const char *name, struct api__json **j, struct api__pb **p, yajl_val *root)
{
	char file[128], ebuf[256] = "";
	size_t len;
	snprintf(file, sizeof(file), "%s", name);
	if (use_pb)
		strcpy(strrchr(file, '.'), ".pb");
	char *buf = fixture(file, &len);
	*root = NULL;
	if (use_pb) {
		assert_non_null(*p = api__pb_new());
		assert_true(api__pb_magic(buf, len));
		if (api__pb_body(*p, kind, buf, len, NULL, NULL, root, ebuf, sizeof(ebuf)))
			fail_msg("%s: %s", file, ebuf);
	} else {
		assert_non_null(*j = api__json_new());
		if (api__json_parse(*j, buf, len, root, ebuf, sizeof(ebuf)))
			fail_msg("%s: %s", file, ebuf);
	}
	free(buf);
}

#define FIXTURE(kind, type, name)                                              \
	({                                                                     \
		struct api__json *j_ = NULL;                                   \
		struct api__pb *p_ = NULL;                                     \
		yajl_val r_;                                                   \
		struct err e_ = { 0 };                                         \
		fixture_tree((kind), (name), &j_, &p_, &r_);                   \
		struct type *o_ = type##_decode(r_, &e_);                      \
		if (!o_)                                                       \
			fail_msg("%s (%s): %s", name, use_pb ? "protobuf" : "JSON", e_.msg); \
		api__json_free(j_);                                            \
		api__pb_free(p_);                                              \
		o_;                                                            \
	})

/* ---------- ResourceSlice ---------- */

static void test_slice_node_local(void **state)
{
	set_format(state);
	struct api_resource_slice *s = FIXTURE(API_KIND_RESOURCE_SLICE, api_resource_slice, "slice-node.json");
	assert_ptr_equal(s->meta.name, I("node-1-gpu"));
	assert_string_equal(s->meta.namespace, "");
	assert_string_equal(s->meta.uid, "22c697fe-db7e-451c-b38f-fce3f094d0c7");
	assert_ptr_equal(s->driver, I("gpu.example.com"));
	assert_ptr_equal(s->pool_name, I("node-1"));
	assert_int_equal(s->pool_generation, 3);
	assert_int_equal(s->pool_slice_count, 1);
	assert_ptr_equal(s->node_name, I("node-1"));
	assert_null(s->node_selector);
	assert_false(s->all_nodes);
	assert_false(s->per_device_node_selection);
	assert_int_equal(s->n_shared_counters, 0);
	assert_null(s->shared_counters);
	assert_int_equal(s->n_devices, 2);

	const struct api_dra_device *d = &s->devices[0];
	assert_ptr_equal(d->name, I("gpu-0"));
	/* sorted by name (strcmp), as encoding/json orders map keys */
	assert_int_equal(d->n_attributes, 5);
	static const char *names[] = { "driverVersion", "example.com/numa", "healthy", "index", "model" };
	for (int i = 0; i < 5; i++)
		assert_ptr_equal(d->attributes[i].name, I(names[i]));
	assert_int_equal(d->attributes[0].type, API_DRA_ATTR_VERSION);
	assert_string_equal(d->attributes[0].s, "1.2.3");
	assert_int_equal(d->attributes[1].type, API_DRA_ATTR_INT);
	assert_int_equal(d->attributes[1].i, 1);
	assert_int_equal(d->attributes[2].type, API_DRA_ATTR_BOOL);
	assert_true(d->attributes[2].b);
	assert_int_equal(d->attributes[3].type, API_DRA_ATTR_INT);
	assert_int_equal(d->attributes[3].i, 0);
	assert_int_equal(d->attributes[4].type, API_DRA_ATTR_STRING);
	assert_string_equal(d->attributes[4].s, "A100");

	assert_int_equal(d->n_capacity, 3);
	assert_ptr_equal(d->capacity[0].name, I("bandwidth"));
	assert_string_equal(d->capacity[0].value.s, "100G");
	assert_int_equal(d->capacity[0].value.milli, 100000000000000LL);
	const struct api_dra_request_policy *p = d->capacity[0].request_policy;
	assert_non_null(p);
	assert_true(p->has_default);
	assert_string_equal(p->def.s, "10G");
	assert_int_equal(p->def.milli, 10000000000000LL);
	assert_int_equal(p->n_valid_values, 3);
	assert_string_equal(p->valid_values[0].s, "10G");
	assert_string_equal(p->valid_values[2].s, "100G");
	assert_false(p->has_valid_range);
	assert_ptr_equal(d->capacity[1].name, I("cores"));
	assert_int_equal(d->capacity[1].value.milli, 108000);
	p = d->capacity[1].request_policy;
	assert_non_null(p);
	assert_int_equal(p->def.milli, 1000);
	assert_int_equal(p->n_valid_values, 0);
	assert_true(p->has_valid_range);
	assert_true(p->has_min && p->has_max && p->has_step);
	assert_string_equal(p->min.s, "1");
	assert_string_equal(p->max.s, "108");
	assert_int_equal(p->max.milli, 108000);
	assert_int_equal(p->step.milli, 1000);
	assert_ptr_equal(d->capacity[2].name, I("memory"));
	assert_string_equal(d->capacity[2].value.s, "40Gi");
	assert_int_equal(d->capacity[2].value.milli, 40LL * 1024 * 1024 * 1024 * 1000);
	assert_null(d->capacity[2].request_policy);

	assert_true(d->allow_multiple_allocations);
	assert_true(d->binds_to_node);
	assert_int_equal(d->n_binding_conditions, 1);
	assert_string_equal(d->binding_conditions[0], "attached");
	assert_int_equal(d->n_binding_failure_conditions, 1);
	assert_string_equal(d->binding_failure_conditions[0], "attach-failed");
	assert_int_equal(d->n_taints, 1);
	assert_string_equal(d->taints[0].key, "example.com/unhealthy");
	assert_string_equal(d->taints[0].value, "ecc");
	assert_int_equal(d->taints[0].effect, API_DRA_EFFECT_NO_SCHEDULE);
	assert_string_equal(d->taints[0].effect_text, "NoSchedule");
	/* the apiserver sets timeAdded of a new taint (2026-11-28T04:08:56Z) */
	assert_true(d->taints[0].has_time_added);
	assert_int_equal(d->taints[0].time_added, 1795838936);
	assert_null(d->node_name);
	assert_null(d->node_selector);
	assert_false(d->all_nodes);
	assert_int_equal(d->n_consumes_counters, 0);

	d = &s->devices[1];
	assert_ptr_equal(d->name, I("gpu-1"));
	assert_int_equal(d->n_attributes, 1);
	assert_int_equal(d->n_capacity, 0);
	assert_null(d->capacity);
	assert_false(d->allow_multiple_allocations);
	assert_false(d->binds_to_node);
	assert_int_equal(d->n_taints, 0);
	api_resource_slice_unref(s);
}

static void test_slice_partitions(void **state)
{
	set_format(state);
	struct api_resource_slice *s = FIXTURE(API_KIND_RESOURCE_SLICE, api_resource_slice, "slice-partitions.json");
	assert_ptr_equal(s->pool_name, I("rack-1"));
	assert_int_equal(s->pool_slice_count, 2);
	assert_true(s->per_device_node_selection);
	assert_null(s->node_name);
	assert_null(s->node_selector);
	assert_false(s->all_nodes);
	assert_int_equal(s->n_devices, 3);
	const struct api_dra_device *a = &s->devices[0], *b = &s->devices[1], *c = &s->devices[2];
	assert_ptr_equal(a->name, I("part-a"));
	assert_ptr_equal(a->node_name, I("node-2"));
	assert_int_equal(a->n_consumes_counters, 1);
	assert_ptr_equal(a->consumes_counters[0].name, I("gpu-0-counters"));
	assert_int_equal(a->consumes_counters[0].n_counters, 2);
	assert_ptr_equal(a->consumes_counters[0].counters[0].name, I("memory"));
	assert_string_equal(a->consumes_counters[0].counters[0].value.s, "40Gi");
	assert_ptr_equal(a->consumes_counters[0].counters[1].name, I("sm"));
	assert_int_equal(a->consumes_counters[0].counters[1].value.milli, 66000);
	assert_ptr_equal(b->name, I("part-b"));
	assert_true(b->all_nodes);
	assert_null(b->node_name);
	assert_ptr_equal(c->name, I("part-c"));
	assert_non_null(c->node_selector);
	assert_int_equal(c->node_selector->n_terms, 1);
	const struct api_node_selector_term *t = &c->node_selector->terms[0];
	assert_int_equal(t->n_exprs, 1);
	assert_ptr_equal(t->exprs[0].key, I("rack"));
	assert_int_equal(t->exprs[0].op, API_OP_IN);
	assert_int_equal(t->exprs[0].n_values, 2);
	assert_int_equal(t->n_fields, 1);
	assert_ptr_equal(t->fields[0].key, I("metadata.name"));
	api_resource_slice_unref(s);

	s = FIXTURE(API_KIND_RESOURCE_SLICE, api_resource_slice, "slice-counters.json");
	assert_int_equal(s->n_devices, 0);
	assert_null(s->devices);
	assert_int_equal(s->n_shared_counters, 1);
	assert_ptr_equal(s->shared_counters[0].name, I("gpu-0-counters"));
	assert_int_equal(s->shared_counters[0].n_counters, 2);
	assert_ptr_equal(s->shared_counters[0].counters[0].name, I("memory"));
	assert_int_equal(s->shared_counters[0].counters[0].value.milli, 80LL * 1024 * 1024 * 1024 * 1000);
	assert_ptr_equal(s->shared_counters[0].counters[1].name, I("sm"));
	assert_string_equal(s->shared_counters[0].counters[1].value.s, "132");
	api_resource_slice_unref(s);

	s = FIXTURE(API_KIND_RESOURCE_SLICE, api_resource_slice, "slice-selector.json");
	assert_ptr_equal(s->driver, I("net.example.com"));
	assert_non_null(s->node_selector);
	assert_int_equal(s->node_selector->terms[0].exprs[0].op, API_OP_EXISTS);
	assert_null(s->node_name);
	assert_int_equal(s->n_devices, 1);
	assert_int_equal(s->devices[0].n_attributes, 0);
	assert_null(s->devices[0].attributes);
	api_resource_slice_unref(s);
}

/* What a served object cannot show: a key given twice keeps its last value (encoding/json), an
 * attribute with only list values (DRAListTypeAttributes, off) is dropped, the first typed value
 * of an attribute wins, unknown taint effects are kept as text, a bare-number quantity. */
static void test_slice_hand_written(void **state)
{
	(void)state;
	struct api_resource_slice *s = DECODE(
		api_resource_slice,
		"{\"metadata\":{\"name\":\"s\"},\"spec\":{\"driver\":\"d\",\"pool\":{\"name\":\"p\"},\"allNodes\":true,"
		"\"devices\":[{\"name\":\"x\",\"attributes\":{\"b\":{\"int\":1},\"a\":{\"ints\":[1,2]},\"b\":{\"int\":7},"
		"\"c\":{\"int\":-3,\"string\":\"ignored\"},\"d\":{\"strings\":[\"x\"]}},"
		"\"capacity\":{\"n\":{\"value\":5},\"m\":{\"value\":\" 1500m \"}},"
		"\"taints\":[{\"key\":\"k\",\"effect\":\"Sideways\"},{\"key\":\"k2\",\"effect\":\"None\"},"
		"{\"key\":\"k3\",\"effect\":\"NoExecute\"}],\"allNodes\":false}]}}");
	assert_true(s->all_nodes);
	assert_int_equal(s->pool_generation, 0);
	const struct api_dra_device *d = &s->devices[0];
	assert_int_equal(d->n_attributes, 2);
	assert_ptr_equal(d->attributes[0].name, I("b"));
	assert_int_equal(d->attributes[0].i, 7);
	assert_ptr_equal(d->attributes[1].name, I("c"));
	assert_int_equal(d->attributes[1].type, API_DRA_ATTR_INT);
	assert_int_equal(d->attributes[1].i, -3);
	assert_int_equal(d->n_capacity, 2);
	assert_ptr_equal(d->capacity[0].name, I("m"));
	assert_string_equal(d->capacity[0].value.s, "1500m");
	assert_int_equal(d->capacity[0].value.milli, 1500);
	assert_string_equal(d->capacity[1].value.s, "5");
	assert_int_equal(d->capacity[1].value.milli, 5000);
	assert_int_equal(d->taints[0].effect, API_DRA_EFFECT_OTHER);
	assert_string_equal(d->taints[0].effect_text, "Sideways");
	assert_string_equal(d->taints[0].value, "");
	assert_false(d->taints[0].has_time_added);
	assert_int_equal(d->taints[1].effect, API_DRA_EFFECT_NONE);
	assert_int_equal(d->taints[2].effect, API_DRA_EFFECT_NO_EXECUTE);
	assert_false(d->all_nodes);
	api_resource_slice_unref(s);

	/* an empty object: every list empty, every pointer NULL */
	s = DECODE(api_resource_slice, "{\"metadata\":{\"name\":\"e\"},\"spec\":{\"driver\":\"d\",\"devices\":null}}");
	assert_string_equal(s->pool_name, "");
	assert_int_equal(s->n_devices, 0);
	assert_null(s->devices);
	assert_null(s->node_name);
	api_resource_slice_unref(s);
}

/* ---------- DeviceClass and DeviceTaintRule ---------- */

static void test_class(void **state)
{
	set_format(state);
	struct api_device_class *c = FIXTURE(API_KIND_DEVICE_CLASS, api_device_class, "class-gpu.json");
	assert_ptr_equal(c->meta.name, I("gpu.example.com"));
	assert_int_equal(c->n_selectors, 2);
	assert_string_equal(c->selectors[0], "device.driver == \"gpu.example.com\"");
	assert_string_equal(c->selectors[1], "device.attributes[\"gpu.example.com\"].model.startsWith(\"A\")");
	assert_int_equal(c->n_config, 1);
	assert_int_equal(c->config[0].source, API_DRA_CONFIG_NONE);
	assert_int_equal(c->config[0].n_requests, 0);
	assert_string_equal(c->config[0].driver, "gpu.example.com");
	/* compact, keys in the order served (the apiserver sorts them) */
	static const char params[] =
		"{\"apiVersion\":\"gpu.example.com/v1\",\"kind\":\"GpuConfig\",\"sharing\":{\"replicas\":2,"
		"\"strategy\":\"TimeSlicing\"}}";
	assert_string_equal(c->config[0].parameters_json, params);
	assert_int_equal(c->config[0].parameters_len, strlen(params));
	assert_ptr_equal(c->extended_resource_name, I("example.com/gpu"));
	api_device_class_unref(c);

	c = FIXTURE(API_KIND_DEVICE_CLASS, api_device_class, "class-plain.json");
	assert_int_equal(c->n_selectors, 0);
	assert_null(c->selectors);
	assert_int_equal(c->n_config, 0);
	assert_null(c->extended_resource_name);
	api_device_class_unref(c);

	/* a config without opaque, a selector without cel */
	c = DECODE(api_device_class,
		   "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"selectors\":[{}],\"config\":[{\"opaque\":{\"driver\":\"x\"}},{}]}}");
	assert_string_equal(c->selectors[0], "");
	assert_string_equal(c->config[0].driver, "x");
	assert_null(c->config[0].parameters_json);
	assert_null(c->config[1].driver);
	api_device_class_unref(c);
}

static void test_taint_rule(void **state)
{
	set_format(state);
	struct api_device_taint_rule *r = FIXTURE(API_KIND_DEVICE_TAINT_RULE, api_device_taint_rule, "taintrule.json");
	assert_string_equal(r->meta.name, "gpu-0-maintenance");
	assert_ptr_equal(r->driver, I("gpu.example.com"));
	assert_ptr_equal(r->pool, I("node-1"));
	assert_ptr_equal(r->device, I("gpu-0"));
	assert_string_equal(r->taint.key, "example.com/maintenance");
	assert_string_equal(r->taint.value, "planned");
	assert_int_equal(r->taint.effect, API_DRA_EFFECT_NO_EXECUTE);
	assert_true(r->taint.has_time_added);
	assert_int_equal(r->taint.time_added, 1767323045); /* 2026-01-02T03:04:05Z */
	api_device_taint_rule_unref(r);

	r = DECODE(api_device_taint_rule,
		   "{\"metadata\":{\"name\":\"r\"},\"spec\":{\"deviceSelector\":{\"pool\":\"p\"},\"taint\":{\"key\":\"k\",\"effect\":\"NoSchedule\"}}}");
	assert_null(r->driver);
	assert_ptr_equal(r->pool, I("p"));
	assert_null(r->device);
	assert_int_equal(r->taint.effect, API_DRA_EFFECT_NO_SCHEDULE);
	api_device_taint_rule_unref(r);
}

/* ---------- ResourceClaim ---------- */

static void test_claim_allocated(void **state)
{
	set_format(state);
	struct api_resource_claim *c = FIXTURE(API_KIND_RESOURCE_CLAIM, api_resource_claim, "claim-allocated.json");
	/* metadata as a pod's: name in the arena, namespace and uid interned */
	assert_string_equal(c->meta.name, "gpu-claim");
	assert_ptr_equal(c->meta.namespace, I("default"));
	assert_ptr_equal(c->meta.uid, I("d49827c7-e66c-4c7a-bcd4-d9c38c1f67c7"));
	assert_true(c->extended_resource_claim);
	assert_int_equal(c->n_finalizers, 0);

	assert_int_equal(c->n_requests, 2);
	const struct api_dra_request *r = &c->requests[0];
	assert_ptr_equal(r->name, I("gpu"));
	assert_int_equal(r->n_first_available, 0);
	const struct api_dra_device_request *x = r->exactly;
	assert_non_null(x);
	assert_ptr_equal(x->name, I("gpu"));
	assert_ptr_equal(x->device_class_name, I("gpu.example.com"));
	assert_int_equal(x->n_selectors, 1);
	assert_string_equal(x->selectors[0],
			    "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"10Gi\")) >= 0");
	assert_int_equal(x->allocation_mode, API_DRA_MODE_EXACT_COUNT);
	assert_string_equal(x->allocation_mode_text, "ExactCount");
	assert_int_equal(x->count, 2);
	assert_true(x->has_admin_access);
	assert_false(x->admin_access);
	assert_int_equal(x->n_tolerations, 2);
	assert_string_equal(x->tolerations[0].key, "example.com/unhealthy");
	assert_int_equal(x->tolerations[0].op, API_DRA_TOL_EQUAL);
	assert_string_equal(x->tolerations[0].op_text, "Equal");
	assert_string_equal(x->tolerations[0].value, "ecc");
	assert_string_equal(x->tolerations[0].effect, "NoSchedule");
	assert_true(x->tolerations[0].has_toleration_seconds);
	assert_int_equal(x->tolerations[0].toleration_seconds, 300);
	assert_string_equal(x->tolerations[1].key, "");
	assert_int_equal(x->tolerations[1].op, API_DRA_TOL_EXISTS);
	assert_string_equal(x->tolerations[1].effect, "");
	assert_false(x->tolerations[1].has_toleration_seconds);
	assert_true(x->has_capacity);
	assert_int_equal(x->n_capacity_requests, 2);
	assert_ptr_equal(x->capacity_requests[0].name, I("cores"));
	assert_int_equal(x->capacity_requests[0].value.milli, 4000);
	assert_ptr_equal(x->capacity_requests[1].name, I("memory"));
	assert_string_equal(x->capacity_requests[1].value.s, "10Gi");

	r = &c->requests[1];
	assert_ptr_equal(r->name, I("nic"));
	assert_null(r->exactly);
	assert_int_equal(r->n_first_available, 2);
	assert_ptr_equal(r->first_available[0].name, I("fast"));
	assert_ptr_equal(r->first_available[0].device_class_name, I("plain.example.com"));
	assert_int_equal(r->first_available[0].allocation_mode, API_DRA_MODE_ALL);
	assert_int_equal(r->first_available[0].count, 0);
	assert_false(r->first_available[0].has_admin_access);
	assert_false(r->first_available[0].has_capacity);
	assert_ptr_equal(r->first_available[1].name, I("slow"));
	/* the apiserver defaults allocationMode of a subrequest */
	assert_string_equal(r->first_available[1].allocation_mode_text, "ExactCount");
	assert_int_equal(r->first_available[1].count, 1);

	assert_int_equal(c->n_constraints, 2);
	assert_int_equal(c->constraints[0].n_requests, 1);
	assert_ptr_equal(c->constraints[0].requests[0], I("gpu"));
	assert_ptr_equal(c->constraints[0].match_attribute, I("gpu.example.com/model"));
	assert_null(c->constraints[0].distinct_attribute);
	assert_int_equal(c->constraints[1].n_requests, 0);
	assert_null(c->constraints[1].match_attribute);
	assert_ptr_equal(c->constraints[1].distinct_attribute, I("gpu.example.com/index"));

	assert_int_equal(c->n_config, 1);
	assert_int_equal(c->config[0].source, API_DRA_CONFIG_NONE);
	assert_int_equal(c->config[0].n_requests, 1);
	assert_string_equal(c->config[0].requests[0], "gpu");
	assert_string_equal(c->config[0].parameters_json,
			    "{\"apiVersion\":\"gpu.example.com/v1\",\"kind\":\"GpuClaimConfig\",\"mode\":\"exclusive\"}");

	const struct api_dra_allocation *a = c->allocation;
	assert_non_null(a);
	assert_int_equal(a->n_results, 2);
	const struct api_dra_device_result *res = &a->results[0];
	assert_ptr_equal(res->request, I("gpu"));
	assert_ptr_equal(res->driver, I("gpu.example.com"));
	assert_ptr_equal(res->pool, I("node-1"));
	assert_ptr_equal(res->device, I("gpu-0"));
	assert_true(res->has_admin_access);
	assert_false(res->admin_access);
	assert_int_equal(res->n_tolerations, 1);
	assert_int_equal(res->tolerations[0].toleration_seconds, 300);
	assert_int_equal(res->n_binding_conditions, 1);
	assert_string_equal(res->binding_conditions[0], "attached");
	assert_string_equal(res->binding_failure_conditions[0], "attach-failed");
	assert_string_equal(res->share_id, "3f1b6a2c-0d4e-4f5a-9b8c-7d6e5f4a3b2c");
	assert_int_equal(res->n_consumed_capacity, 2);
	assert_ptr_equal(res->consumed_capacity[0].name, I("cores"));
	assert_ptr_equal(res->consumed_capacity[1].name, I("memory"));
	assert_int_equal(res->consumed_capacity[1].value.milli, 10LL * 1024 * 1024 * 1024 * 1000);
	res = &a->results[1];
	assert_ptr_equal(res->request, I("nic/slow"));
	assert_false(res->has_admin_access);
	assert_null(res->share_id);
	assert_int_equal(res->n_consumed_capacity, 0);
	assert_int_equal(a->n_config, 2);
	assert_int_equal(a->config[0].source, API_DRA_CONFIG_FROM_CLASS);
	assert_int_equal(a->config[0].n_requests, 0);
	assert_string_equal(a->config[0].parameters_json, "{\"kind\":\"GpuConfig\",\"sharing\":{\"replicas\":2}}");
	assert_int_equal(a->config[1].source, API_DRA_CONFIG_FROM_CLAIM);
	assert_string_equal(a->config[1].requests[0], "gpu");
	assert_non_null(a->node_selector);
	assert_int_equal(a->node_selector->n_terms, 1);
	assert_ptr_equal(a->node_selector->terms[0].fields[0].key, I("metadata.name"));
	assert_true(a->has_allocation_timestamp);
	assert_int_equal(a->allocation_timestamp, 1767323046); /* 2026-01-02T03:04:06Z */

	assert_int_equal(c->n_reserved_for, 1);
	assert_string_equal(c->reserved_for[0].api_group, "");
	assert_string_equal(c->reserved_for[0].resource, "pods");
	assert_string_equal(c->reserved_for[0].name, "dra-pod");
	assert_ptr_equal(c->reserved_for[0].uid, I("419cf885-20b2-4c4f-83dd-175fe6b1f2c3"));

	assert_int_equal(c->n_device_statuses, 1);
	const struct api_dra_device_status *ds = &c->device_statuses[0];
	assert_ptr_equal(ds->driver, I("gpu.example.com"));
	assert_ptr_equal(ds->pool, I("node-1"));
	assert_ptr_equal(ds->device, I("gpu-0"));
	assert_string_equal(ds->share_id, "3f1b6a2c-0d4e-4f5a-9b8c-7d6e5f4a3b2c");
	assert_int_equal(ds->n_conditions, 1);
	assert_ptr_equal(ds->conditions[0].type, I("attached"));
	assert_ptr_equal(ds->conditions[0].status, I("True"));
	assert_string_equal(ds->conditions[0].reason, "Attached");
	assert_string_equal(ds->conditions[0].message, "ready");
	api_resource_claim_unref(c);

	c = FIXTURE(API_KIND_RESOURCE_CLAIM, api_resource_claim, "claim-plain.json");
	assert_false(c->extended_resource_claim);
	assert_null(c->allocation);
	assert_int_equal(c->n_reserved_for, 0);
	assert_int_equal(c->n_device_statuses, 0);
	assert_null(c->device_statuses);
	assert_int_equal(c->n_constraints, 0);
	assert_int_equal(c->n_requests, 1);
	assert_int_equal(c->requests[0].exactly->allocation_mode, API_DRA_MODE_EXACT_COUNT);
	/* the apiserver defaults count to 1 with ExactCount */
	assert_int_equal(c->requests[0].exactly->count, 1);
	api_resource_claim_unref(c);
}

static void test_claim_hand_written(void **state)
{
	(void)state;
	struct api_resource_claim *c = DECODE(
		api_resource_claim,
		"{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"uid\":\"u\",\"finalizers\":"
		"[\"resource.kubernetes.io/delete-protection\"],\"annotations\":{\"resource.kubernetes.io/extended-resource-claim\":\"yes\"},"
		"\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p\",\"uid\":\"pu\",\"controller\":true}]},"
		"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"k\","
		"\"allocationMode\":\"Some\",\"tolerations\":[{\"operator\":\"Maybe\"}]}}]}},"
		"\"status\":{\"allocation\":{},\"reservedFor\":[{\"apiGroup\":\"g\",\"resource\":\"r\",\"name\":\"n\",\"uid\":\"x\"}]}}");
	assert_int_equal(c->n_finalizers, 1);
	assert_string_equal(c->finalizers[0], "resource.kubernetes.io/delete-protection");
	assert_false(c->extended_resource_claim); /* only "true" */
	assert_int_equal(c->meta.n_owner_refs, 1);
	assert_true(c->meta.owner_refs[0].controller);
	assert_int_equal(c->requests[0].exactly->allocation_mode, API_DRA_MODE_OTHER);
	assert_string_equal(c->requests[0].exactly->allocation_mode_text, "Some");
	assert_int_equal(c->requests[0].exactly->tolerations[0].op, API_DRA_TOL_OTHER);
	assert_string_equal(c->requests[0].exactly->tolerations[0].op_text, "Maybe");
	assert_non_null(c->allocation);
	assert_int_equal(c->allocation->n_results, 0);
	assert_null(c->allocation->node_selector);
	assert_false(c->allocation->has_allocation_timestamp);
	assert_string_equal(c->reserved_for[0].api_group, "g");
	api_resource_claim_unref(c);

	/* no spec.devices, no status */
	c = DECODE(api_resource_claim, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{}}");
	assert_int_equal(c->n_requests, 0);
	assert_null(c->requests);
	assert_null(c->allocation);
	api_resource_claim_unref(c);
}

/* Every error names the object and the field path. */
static void test_errors(void **state)
{
	(void)state;
	DECODE_ERR(api_resource_slice, "[]", "resourceslice: expected object, got array");
	DECODE_ERR(api_resource_slice, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"driver\":1}}",
		   "resourceslice s: spec.driver: expected string, got number");
	DECODE_ERR(api_resource_slice, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"pool\":{\"generation\":\"1\"}}}",
		   "resourceslice s: spec.pool.generation: expected integer, got string");
	DECODE_ERR(api_resource_slice, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"pool\":[]}}",
		   "resourceslice s: spec.pool: expected object, got array");
	DECODE_ERR(api_resource_slice, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"allNodes\":\"yes\"}}",
		   "resourceslice s: spec.allNodes: expected boolean, got string");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"name\":\"d\"},{\"attributes\":{\"a\":{\"int\":1.5}}}]}}",
		   "resourceslice s: spec.devices[1].attributes.a.int: invalid integer 1.5");
	DECODE_ERR(api_resource_slice, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"attributes\":[]}]}}",
		   "resourceslice s: spec.devices[0].attributes: expected object, got array");
	DECODE_ERR(api_resource_slice, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"attributes\":{\"a\":1}}]}}",
		   "resourceslice s: spec.devices[0].attributes.a: expected object, got number");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"capacity\":{\"mem\":{\"value\":\"1Qi\"}}}]}}",
		   "resourceslice s: spec.devices[0].capacity.mem.value: invalid quantity \"1Qi\": must be "
		   "[+-]digits[.digits][suffix]");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"capacity\":{\"c\":{\"value\":\"1\","
		   "\"requestPolicy\":{\"validRange\":{\"step\":true}}}}}]}}",
		   "resourceslice s: spec.devices[0].capacity.c.requestPolicy.validRange.step: expected quantity string, got boolean");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"capacity\":{\"c\":{\"requestPolicy\":{\"validValues\":[\"1\",{}]}}}}]}}",
		   "resourceslice s: spec.devices[0].capacity.c.requestPolicy.validValues[1]: expected quantity string, got object");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"sharedCounters\":[{\"name\":\"cs\",\"counters\":{\"m\":{\"value\":\"x\"}}}]}}",
		   "resourceslice s: spec.sharedCounters[0].counters.m.value: invalid quantity \"x\": must be "
		   "[+-]digits[.digits][suffix]");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"consumesCounters\":[{\"counterSet\":3}]}]}}",
		   "resourceslice s: spec.devices[0].consumesCounters[0].counterSet: expected string, got number");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"taints\":[{\"key\":\"k\",\"timeAdded\":\"yesterday\"}]}]}}",
		   "resourceslice s: spec.devices[0].taints[0].timeAdded: invalid time \"yesterday\"");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":7}]}]}}}",
		   "resourceslice s: spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].key: expected string, got number");
	DECODE_ERR(api_resource_slice, "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"nodeSelector\":{\"nodeSelectorTerms\":{}}}]}}",
		   "resourceslice s: spec.devices[0].nodeSelector.nodeSelectorTerms: expected array, got object");
	DECODE_ERR(api_resource_slice,
		   "{\"metadata\":{\"name\":\"s\"},\"spec\":{\"devices\":[{\"bindingConditions\":[1]}]}}",
		   "resourceslice s: spec.devices[0].bindingConditions[0]: expected string, got number");

	DECODE_ERR(api_device_class, "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"selectors\":[{\"cel\":{\"expression\":true}}]}}",
		   "deviceclass c: spec.selectors[0].cel.expression: expected string, got boolean");
	DECODE_ERR(api_device_class, "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"config\":[{\"opaque\":\"x\"}]}}",
		   "deviceclass c: spec.config[0].opaque: expected object, got string");
	DECODE_ERR(api_device_class, "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"extendedResourceName\":[]}}",
		   "deviceclass c: spec.extendedResourceName: expected string, got array");

	DECODE_ERR(api_device_taint_rule, "{\"metadata\":{\"name\":\"r\"},\"spec\":{\"deviceSelector\":{\"driver\":1}}}",
		   "devicetaintrule r: spec.deviceSelector.driver: expected string, got number");
	DECODE_ERR(api_device_taint_rule, "{\"metadata\":{\"name\":\"r\"},\"spec\":{\"taint\":{\"effect\":2}}}",
		   "devicetaintrule r: spec.taint.effect: expected string, got number");

	DECODE_ERR(api_resource_claim, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"devices\":{\"requests\":{}}}}",
		   "resourceclaim ns/c: spec.devices.requests: expected array, got object");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"exactly\":{\"count\":\"2\"}}]}}}",
		   "resourceclaim ns/c: spec.devices.requests[0].exactly.count: expected integer, got string");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r\",\"firstAvailable\":[{\"name\":\"s\",\"capacity\":{\"requests\":{\"m\":[]}}}]}]}}}",
		   "resourceclaim ns/c: spec.devices.requests[0].firstAvailable[0].capacity.requests.m: expected quantity string, got array");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"devices\":{\"requests\":[{\"exactly\":{\"tolerations\":[{\"tolerationSeconds\":1.5}]}}]}}}",
		   "resourceclaim ns/c: spec.devices.requests[0].exactly.tolerations[0].tolerationSeconds: invalid integer 1.5");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"devices\":{\"constraints\":[{\"matchAttribute\":false}]}}}",
		   "resourceclaim ns/c: spec.devices.constraints[0].matchAttribute: expected string, got boolean");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"allocation\":{\"devices\":{\"config\":[{\"source\":\"FromNowhere\"}]}}}}",
		   "resourceclaim ns/c: status.allocation.devices.config[0].source: unsupported value \"FromNowhere\": supported "
		   "values: \"FromClaim\", \"FromClass\"");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"shareID\":7}]}}}}",
		   "resourceclaim ns/c: status.allocation.devices.results[0].shareID: expected string, got number");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"allocation\":{\"allocationTimestamp\":\"soon\"}}}",
		   "resourceclaim ns/c: status.allocation.allocationTimestamp: invalid time \"soon\"");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"consumedCapacity\":{\"m\":\"abc\"}}]}}}}",
		   "resourceclaim ns/c: status.allocation.devices.results[0].consumedCapacity.m: invalid quantity "
		   "\"abc\": must be [+-]digits[.digits][suffix]");
	DECODE_ERR(api_resource_claim, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"reservedFor\":[{\"uid\":1}]}}",
		   "resourceclaim ns/c: status.reservedFor[0].uid: expected string, got number");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"devices\":[{\"conditions\":[{\"type\":1}]}]}}",
		   "resourceclaim ns/c: status.devices[0].conditions[0].type: expected string, got number");
	DECODE_ERR(api_resource_claim, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"devices\":[{\"shareID\":{}}]}}",
		   "resourceclaim ns/c: status.devices[0].shareID: expected string, got object");
	DECODE_ERR(api_resource_claim, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"finalizers\":\"f\"}}",
		   "resourceclaim ns/c: metadata.finalizers: expected array, got string");
	DECODE_ERR(api_resource_claim,
		   "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"annotations\":{\"resource.kubernetes.io/extended-resource-claim\":true}}}",
		   "resourceclaim ns/c: metadata.annotations.resource.kubernetes.io/extended-resource-claim: expected string, got boolean");

	DECODE_ERR(api_pod, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{\"resourceClaims\":[{\"name\":\"a\",\"resourceClaimName\":5}]}}",
		   "pod ns/p: spec.resourceClaims[0].resourceClaimName: expected string, got number");
	DECODE_ERR(api_pod, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"status\":{\"resourceClaimStatuses\":[{\"name\":[]}]}}",
		   "pod ns/p: status.resourceClaimStatuses[0].name: expected string, got array");
	DECODE_ERR(api_pod,
		   "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"status\":{\"extendedResourceClaimStatus\":{\"requestMappings\":[{\"requestName\":0}]}}}",
		   "pod ns/p: status.extendedResourceClaimStatus.requestMappings[0].requestName: expected string, got number");
}

/* ---------- the pod's fields, JSON and protobuf ---------- */

static void check_dra_pod(const struct api_pod *p, const char *how)
{
	if (p->n_resource_claims != 2)
		fail_msg("%s: %u resource claims", how, p->n_resource_claims);
	assert_string_equal(p->resource_claims[0].name, "gpus");
	assert_string_equal(p->resource_claims[0].resource_claim_name, "gpu-claim");
	assert_null(p->resource_claims[0].resource_claim_template_name);
	assert_string_equal(p->resource_claims[1].name, "scratch");
	assert_null(p->resource_claims[1].resource_claim_name);
	assert_string_equal(p->resource_claims[1].resource_claim_template_name, "scratch-template");
	if (p->n_resource_claim_statuses != 2)
		fail_msg("%s: %u resource claim statuses", how, p->n_resource_claim_statuses);
	assert_string_equal(p->resource_claim_statuses[0].name, "gpus");
	assert_null(p->resource_claim_statuses[0].resource_claim_name);
	assert_string_equal(p->resource_claim_statuses[1].name, "scratch");
	assert_string_equal(p->resource_claim_statuses[1].resource_claim_name, "dra-pod-scratch-x7k2p");
	const struct api_pod_extended_claim_status *x = p->extended_claim_status;
	if (!x)
		fail_msg("%s: no extendedResourceClaimStatus", how);
	assert_string_equal(x->resource_claim_name, "dra-pod-extended-resources-9q8wz");
	assert_int_equal(x->n_mappings, 1);
	assert_string_equal(x->mappings[0].container_name, "app");
	assert_string_equal(x->mappings[0].resource_name, "example.com/gpu");
	assert_string_equal(x->mappings[0].request_name, "container-0-request-0");
}

static void test_pod_fields(void **state)
{
	(void)state;
	char ebuf[256] = "";
	size_t jl, pl;
	struct err e = { 0 };
	char *json = fixture("pod-dra.json", &jl), *pb = fixture("pod-dra.pb", &pl);
	struct api_pod *p = api_pod_decode_json(json, jl, &e);
	if (!p)
		fail_msg("pod-dra.json: %s", e.msg);
	check_dra_pod(p, "JSON");
	api_pod_unref(p);

	struct api__pb *b = api__pb_new();
	yajl_val root = NULL;
	assert_true(api__pb_magic(pb, pl));
	if (api__pb_body(b, API_KIND_POD, pb, pl, NULL, NULL, &root, ebuf, sizeof(ebuf)))
		fail_msg("pod-dra.pb: %s", ebuf);
	p = api_pod_decode(root, &e);
	if (!p)
		fail_msg("pod-dra.pb: %s", e.msg);
	check_dra_pod(p, "protobuf");
	api_pod_unref(p);
	api__pb_free(b);
	free(json);
	free(pb);

	/* a pod without them */
	p = DECODE(api_pod, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{},\"status\":{}}");
	assert_int_equal(p->n_resource_claims, 0);
	assert_null(p->resource_claims);
	assert_int_equal(p->n_resource_claim_statuses, 0);
	assert_null(p->extended_claim_status);
	api_pod_unref(p);
}

/* ---------- lists ---------- */

struct list_items {
	int kind; /* 0 claims, 1 slices */
	size_t n;
};

static int list_item(void *ctx, yajl_val item)
{
	struct list_items *it = ctx;
	struct err e = { 0 };
	if (it->kind == 0) {
		struct api_resource_claim *c = api_resource_claim_decode(item, &e);
		if (!c)
			fail_msg("claim %zu: %s", it->n, e.msg);
		api_resource_claim_unref(c);
	} else {
		struct api_resource_slice *s = api_resource_slice_decode(item, &e);
		if (!s)
			fail_msg("slice %zu: %s", it->n, e.msg);
		api_resource_slice_unref(s);
	}
	it->n++;
	return 0;
}

/* LIST bodies item by item, as the informer reads them. */
static void test_lists(void **state)
{
	set_format(state);
	static const struct {
		int kind;
		const char *name;
		size_t want;
	} t[] = { { 0, "claimlist", 2 }, { 1, "slicelist", 4 } };
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char ebuf[256] = "", file[64];
		size_t jl;
		snprintf(file, sizeof(file), "%s.%s", t[i].name, use_pb ? "pb" : "json");
		char *body = fixture(file, &jl);
		struct list_items a = { .kind = t[i].kind };
		yajl_val root = NULL;
		if (use_pb) {
			struct api__pb *p = api__pb_new();
			if (api__pb_body(p, t[i].kind ? API_KIND_RESOURCE_SLICE : API_KIND_RESOURCE_CLAIM, body, jl, list_item,
					 &a, &root, ebuf, sizeof(ebuf)))
				fail_msg("%s: %s", file, ebuf);
			api__pb_free(p);
		} else {
			struct api__json *j = api__json_new();
			assert_int_equal(api__json_begin(j, list_item, &a), 0);
			assert_int_equal(api__json_feed(j, body, jl, ebuf, sizeof(ebuf)), 0);
			assert_int_equal(api__json_end(j, &root, ebuf, sizeof(ebuf)), 0);
			api__json_free(j);
		}
		assert_int_equal(a.n, t[i].want);
		free(body);
	}
}

/* ---------- reference counting ---------- */

static void test_refcount(void **state)
{
	(void)state;
	struct api_device_class *c = DECODE(api_device_class, "{\"metadata\":{\"name\":\"rc-class\"},\"spec\":{}}");
	assert_ptr_equal(api_device_class_ref(c), c);
	api_device_class_unref(c);
	assert_ptr_equal(c->meta.name, I("rc-class")); /* still alive: one reference left */
	api_device_class_unref(c);
	assert_null(api_device_class_ref(NULL));
	api_device_class_unref(NULL);
	api_resource_claim_unref(NULL);
	api_resource_slice_unref(NULL);
	api_device_taint_rule_unref(NULL);
	assert_null(api_resource_claim_ref(NULL));
	assert_null(api_resource_slice_ref(NULL));
	assert_null(api_device_taint_rule_ref(NULL));

	/* a DeviceTaintRule-patched copy keeps its base alive and releases it with itself (valgrind
	 * and ASan see the base freed exactly once) */
	struct api_resource_slice *base = DECODE(api_resource_slice, "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"driver\":\"d\"}}");
	struct api_resource_slice *copy = DECODE(api_resource_slice, "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"driver\":\"d\"}}");
	assert_null(copy->base);
	copy->base = api_resource_slice_ref(base);
	api_resource_slice_unref(base);
	assert_int_equal(base->refs, 1);
	assert_ptr_equal(copy->base->driver, I("d"));
	api_resource_slice_unref(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_slice_node_local, (void *)&fmt_json),
		cmocka_unit_test_prestate(test_slice_node_local, (void *)&fmt_pb),
		cmocka_unit_test_prestate(test_slice_partitions, (void *)&fmt_json),
		cmocka_unit_test_prestate(test_slice_partitions, (void *)&fmt_pb),
		cmocka_unit_test(test_slice_hand_written),
		cmocka_unit_test_prestate(test_class, (void *)&fmt_json),
		cmocka_unit_test_prestate(test_class, (void *)&fmt_pb),
		cmocka_unit_test_prestate(test_taint_rule, (void *)&fmt_json),
		cmocka_unit_test_prestate(test_taint_rule, (void *)&fmt_pb),
		cmocka_unit_test_prestate(test_claim_allocated, (void *)&fmt_json),
		cmocka_unit_test_prestate(test_claim_allocated, (void *)&fmt_pb),
		cmocka_unit_test(test_claim_hand_written),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pod_fields),
		cmocka_unit_test_prestate(test_lists, (void *)&fmt_json),
		cmocka_unit_test_prestate(test_lists, (void *)&fmt_pb),
		cmocka_unit_test(test_refcount),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
