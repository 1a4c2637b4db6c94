/* dra_allocator_diagnose (algorithm/plugins/dra_allocator.h): for each reason `csched explain`
 * gives for a DRA pod that does not fit a node, a node and claims for which upstream's allocator
 * finds no allocation (each case first checks dra_allocator_allocate says DRA_UNSCHEDULABLE, so
 * the diagnosis is of a real rejection), and the line the diagnosis writes. This is csched's own
 * output (upstream says only "cannot allocate all claims"); the situations follow upstream's
 * TestAllocator cases of structured/internal/allocatortesting/allocator_testing.go named in each
 * test. Objects are the JSON the apiserver serves, decoded by apiclient's decoders; a backquote
 * stands for a JSON double quote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/plugins/dra_allocator.h"
#include "apiclient/api_types.h"
#include "common/arena.h"
#include "common/macros.h"
#include "common/strbuf.h"

#define NODE1 "{`metadata`:{`name`:`node-1`,`labels`:{`region`:`r1`}},`spec`:{},`status`:{}}"
#define GPU_CLASS "{`metadata`:{`name`:`gpu`},`spec`:{`selectors`:[{`cel`:{`expression`:`device.driver == 'gpu.example.com'`}}]}}"
#define A100_CLASS                                                                                                  \
	"{`metadata`:{`name`:`a100`},`spec`:{`selectors`:[{`cel`:{`expression`:`device.attributes['gpu.example.com'].model " \
	"== 'a100'`}}]}}"
#define SLICE_ON(node, count, extra, devices)                                                                  \
	"{`metadata`:{`name`:`slice-" node "`},`spec`:{`driver`:`gpu.example.com`,`pool`:{`name`:`" node           \
	"`,`generation`:1,`resourceSliceCount`:" #count "},`nodeName`:`" node "`" extra ",`devices`:[" devices "]}}"
#define DEV(name, model, numa, extra)                                                                          \
	"{`name`:`" name "`,`attributes`:{`model`:{`string`:`" model "`},`numa`:{`int`:" #numa                   \
	"}},`capacity`:{`memory`:{`value`:`16Gi`}}" extra "}"
#define TWO_T4 DEV("gpu-0", "t4", 0, "") "," DEV("gpu-1", "t4", 1, "")
#define REQ(name, class, count, extra) \
	"{`name`:`" name "`,`exactly`:{`deviceClassName`:`" class "`,`allocationMode`:`ExactCount`,`count`:" #count extra "}}"
#define CLAIM(name, requests, extra) \
	"{`metadata`:{`namespace`:`default`,`name`:`" name "`},`spec`:{`devices`:{`requests`:[" requests "]" extra "}}}"
#define ALLOCATED_CLAIM(name, dev)                                                                                \
	"{`metadata`:{`namespace`:`team-a`,`name`:`" name "`},`spec`:{},`status`:{`allocation`:{`devices`:{`results`:[" \
	"{`request`:`r`,`driver`:`gpu.example.com`,`pool`:`node-1`,`device`:`" dev "`}]}}}}"

static char *unquote(const char *s)
{
	char *d = strdup(s);
	assert_non_null(d);
	for (char *p = d; *p; p++)
		if (*p == '`')
			*p = '"';
	return d;
}

/* The object json decodes to, or the test fails (print names the decoder's error). */
#define DECODER(type)                                                                 \
	static struct api_##type *type##_json(const char *json)                       \
	{                                                                             \
		char *j = unquote(json);                                              \
		struct err e = { 0 };                                                 \
		struct api_##type *o = api_##type##_decode_json(j, strlen(j), &e);    \
		if (!o)                                                               \
			print_error("decode %s: %s\n%s\n", #type, e.msg, j);         \
		free(j);                                                              \
		assert_non_null(o);                                                   \
		return o;                                                             \
	}
DECODER(device_class)
DECODER(resource_slice)
DECODER(resource_claim)
DECODER(node)
#define DECODE(type, json) type##_json(json)

struct classes {
	uint32_t n;
	struct api_device_class *v[2];
};

static struct api_device_class *class_get(void *ctx, const char *name)
{
	struct classes *c = ctx;
	for (uint32_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i]->meta.name, name) == 0)
			return api_device_class_ref(c->v[i]);
	return NULL;
}

struct dcase {
	const char *slices[2];
	const char *claims[2];
	const char *allocated[2]; /* claims holding devices (the allocated state and the owners) */
};

/* Runs c: asserts dra_allocator_allocate on node-1 returns want and returns the diagnosis (malloc'd). */
static char *diagnose_want(const struct dcase *c, enum dra_result want)
{
	struct err e = { 0 };
	struct dra_cel_cache *cc = dra_cel_cache_new(16);
	struct dra_allocated_state *st = dra_allocated_state_new();
	struct classes cl = { 2, { DECODE(device_class, GPU_CLASS), DECODE(device_class, A100_CLASS) } };
	struct api_resource_slice *slices[2];
	const struct api_resource_claim *claims[2], *owners[2];
	uint32_t ns = 0, nc = 0, no = 0;
	for (; ns < 2 && c->slices[ns]; ns++)
		slices[ns] = DECODE(resource_slice, c->slices[ns]);
	for (; nc < 2 && c->claims[nc]; nc++)
		claims[nc] = DECODE(resource_claim, c->claims[nc]);
	for (; no < 2 && c->allocated[no]; no++) {
		owners[no] = DECODE(resource_claim, c->allocated[no]);
		assert_int_equal(dra_allocated_state_add(st, owners[no]->allocation), 0);
	}
	struct api_node *node = DECODE(node, NODE1);
	struct dra_allocator *a = dra_allocator_new(&dra_features_default, st, class_get, &cl, slices, ns, cc, &e);
	assert_non_null(a);
	struct arena *ar = arena_new(0);
	struct api_dra_allocation out[2];
	assert_int_equal(dra_allocator_allocate(a, node, claims, nc, 0, ar, out, &e), want);
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(dra_allocator_diagnose(a, node, claims, nc, owners, no, &sb, &e), 0);
	char *text = strbuf_detach(&sb, NULL);
	strbuf_release(&sb);
	print_message("%s", text);
	arena_free(ar);
	dra_allocator_free(a);
	api_node_unref(node);
	for (uint32_t i = 0; i < ns; i++)
		api_resource_slice_unref(slices[i]);
	for (uint32_t i = 0; i < nc; i++)
		api_resource_claim_unref((struct api_resource_claim *)claims[i]);
	for (uint32_t i = 0; i < no; i++)
		api_resource_claim_unref((struct api_resource_claim *)owners[i]);
	for (uint32_t i = 0; i < cl.n; i++)
		api_device_class_unref(cl.v[i]);
	dra_allocated_state_free(st);
	dra_cel_cache_free(cc);
	return text;
}

static char *diagnose(const struct dcase *c)
{
	return diagnose_want(c, DRA_UNSCHEDULABLE);
}

/* A CEL runtime error fails the allocation (upstream: the Filter's error); the diagnosis still
 * counts the devices. */
static char *diagnose_error(const struct dcase *c)
{
	return diagnose_want(c, DRA_ERROR);
}

static void expect(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("diagnosis\n%s\nlacks\n%s", text, want);
}

/* upstream "no-slices": no ResourceSlice for the node */
static void test_no_devices(void **state)
{
	(void)state;
	struct dcase c = { { SLICE_ON("node-2", 1, "", TWO_T4) }, { CLAIM("c", REQ("gpu", "gpu", 1, ""), "") }, { 0 } };
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu (class gpu): no device on this node's resource pools\n");
	free(t);
}

/* upstream "class-selector-mismatch"-like: the class selects model a100, the node has t4s */
static void test_class_selector(void **state)
{
	(void)state;
	struct dcase c = { { SLICE_ON("node-1", 1, "", TWO_T4) }, { CLAIM("c", REQ("gpu", "a100", 1, ""), "") }, { 0 } };
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu (class a100): 0 of 2 devices usable, 1 needed: no device "
			       "matches class a100's selectors\n");
	free(t);
}

/* upstream "request-selector-mismatch": the request's selectors reject the free device; a CEL
 * runtime error on a device the allocator skips as allocated (gpu-1 has no numa) is no reason */
static void test_request_selector(void **state)
{
	(void)state;
	struct dcase c = {
		{ SLICE_ON("node-1", 1, "", DEV("gpu-0", "t4", 0, "") ",{`name`:`gpu-1`,`attributes`:{`model`:{`string`:`t4`}}}") },
		{ CLAIM("c",
			REQ("gpu", "gpu", 1,
			    ",`selectors`:[{`cel`:{`expression`:`device.attributes['gpu.example.com'].numa == 7`}}]"),
			"") },
		{ ALLOCATED_CLAIM("x", "gpu-1") },
	};
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu (class gpu): 0 of 2 devices usable, 1 needed: the request's "
			       "selectors rejected 1; 1 already allocated (to claims team-a/x)\n");
	free(t);
}

/* A CEL runtime error (gpu-1 has no numa attribute) fails the allocation itself (upstream: the
 * Filter's error, as "runtime-CEL-errors" cases expect); the diagnosis counts the device as
 * rejected and quotes the first error. */
static void test_request_selector_cel_error(void **state)
{
	(void)state;
	struct dcase c = {
		{ SLICE_ON("node-1", 1, "", DEV("gpu-0", "t4", 0, "") ",{`name`:`gpu-1`,`attributes`:{`model`:{`string`:`t4`}}}") },
		{ CLAIM("c",
			REQ("gpu", "gpu", 1,
			    ",`selectors`:[{`cel`:{`expression`:`device.attributes['gpu.example.com'].numa == 7`}}]"),
			"") },
		{ 0 },
	};
	char *t = diagnose_error(&c);
	expect(t, "claim default/c, request gpu (class gpu): 0 of 2 devices usable, 1 needed: the request's selectors "
		  "rejected 2 (first CEL error: claim default/c: selector #0 on device gpu.example.com/node-1/gpu-1: CEL "
		  "runtime error: ");
	free(t);
}

/* upstream "all-devices-allocated"-like: both devices are held by other claims, named */
static void test_allocated(void **state)
{
	(void)state;
	struct dcase c = { { SLICE_ON("node-1", 1, "", TWO_T4) },
			   { CLAIM("c", REQ("gpu", "gpu", 1, ""), "") },
			   { ALLOCATED_CLAIM("train-0", "gpu-0"), ALLOCATED_CLAIM("train-1", "gpu-1") } };
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu (class gpu): 0 of 2 devices usable, 1 needed: 2 already "
			       "allocated (to claims team-a/train-0, team-a/train-1)\n");
	free(t);
}

/* upstream "with-constraint-not-matching-int-attribute": two devices, but their numa differs */
static void test_match_attribute(void **state)
{
	(void)state;
	struct dcase c = { { SLICE_ON("node-1", 1, "", TWO_T4) },
			   { CLAIM("c", REQ("gpu", "gpu", 2, ""), ",`constraints`:[{`matchAttribute`:`gpu.example.com/numa`}]") },
			   { 0 } };
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, constraint #0 (matchAttribute gpu.example.com/numa): no choice of the "
			       "usable devices satisfies it\n");
	free(t);
}

/* upstream "with-distinct-constraint" (the failing variant): both devices have model t4 */
static void test_distinct_attribute(void **state)
{
	(void)state;
	struct dcase c = {
		{ SLICE_ON("node-1", 1, "", TWO_T4) },
		{ CLAIM("c", REQ("a", "gpu", 1, "") "," REQ("b", "gpu", 1, ""),
			",`constraints`:[{`requests`:[`a`,`b`],`distinctAttribute`:`gpu.example.com/model`}]") },
		{ 0 },
	};
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, constraint #0 (distinctAttribute gpu.example.com/model over requests a, "
			       "b): no choice of the usable devices satisfies it\n");
	free(t);
}

/* upstream "tainted-device-disabled"/"NoSchedule taint": the only device is tainted */
static void test_taint(void **state)
{
	(void)state;
	struct dcase c = {
		{ SLICE_ON("node-1", 1, "",
			   DEV("gpu-0", "t4", 0, ",`taints`:[{`key`:`example.com/broken`,`value`:`ecc`,`effect`:`NoSchedule`}]")) },
		{ CLAIM("c", REQ("gpu", "gpu", 1, ""), "") },
		{ 0 },
	};
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu (class gpu): 0 of 1 devices usable, 1 needed: 1 have a taint "
			       "the request does not tolerate (example.com/broken=ecc:NoSchedule)\n");
	free(t);
}

/* upstream "partitionable-devices-with-shared-counters" when the counters are used up: two
 * partitions of one 16Gi GPU, the first (12Gi) allocated, the second (8Gi) no longer fits */
static void test_counters(void **state)
{
	(void)state;
	struct dcase c = {
		{ SLICE_ON("node-1", 2, "",
			   DEV("part-a", "t4", 0, ",`consumesCounters`:[{`counterSet`:`gpu-0-mem`,`counters`:{`memory`:{`value`:`12Gi`}}}]")
			   "," DEV("part-b", "t4", 0,
				   ",`consumesCounters`:[{`counterSet`:`gpu-0-mem`,`counters`:{`memory`:{`value`:`8Gi`}}}]")),
		  "{`metadata`:{`name`:`counters`},`spec`:{`driver`:`gpu.example.com`,`pool`:{`name`:`node-1`,`generation`:1,"
		  "`resourceSliceCount`:2},`nodeName`:`node-1`,`sharedCounters`:[{`name`:`gpu-0-mem`,`counters`:{`memory`:{"
		  "`value`:`16Gi`}}}]}}" },
		{ CLAIM("c", REQ("gpu", "gpu", 1, ""), "") },
		{ ALLOCATED_CLAIM("big", "part-a") },
	};
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu (class gpu): 0 of 2 devices usable, 1 needed: 1 already "
			       "allocated (to claims team-a/big); 1 lack counters (their shared counter sets are used up)\n");
	free(t);
}

/* upstream "consumable-capacity-request-exceeds-capacity": 32Gi asked of a shareable 16Gi device */
static void test_capacity(void **state)
{
	(void)state;
	struct dcase c = {
		{ SLICE_ON("node-1", 1, "", DEV("gpu-0", "t4", 0, ",`allowMultipleAllocations`:true")) },
		{ CLAIM("c", REQ("gpu", "gpu", 1, ",`capacity`:{`requests`:{`memory`:`32Gi`}}"), "") },
		{ 0 },
	};
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu (class gpu): 0 of 1 devices usable, 1 needed: 1 lack the "
			       "requested capacity\n");
	free(t);
}

/* Each claim alone fits the one device; together they do not (upstream "too-many-claims"-like) */
static void test_competing(void **state)
{
	(void)state;
	struct dcase c = { { SLICE_ON("node-1", 1, "", DEV("gpu-0", "t4", 0, "")) },
			   { CLAIM("c1", REQ("gpu", "gpu", 1, ""), ""), CLAIM("c2", REQ("gpu", "gpu", 1, ""), "") },
			   { 0 } };
	char *t = diagnose(&c);
	assert_string_equal(t, "each request alone has devices enough, but not all of them together: they compete for the "
			       "same devices or shared counters\n");
	free(t);
}

/* upstream "incomplete-pool": resourceSliceCount 2, one slice published */
static void test_incomplete_pool(void **state)
{
	(void)state;
	struct dcase c = { { SLICE_ON("node-1", 2, "", TWO_T4) }, { CLAIM("c", REQ("gpu", "gpu", 1, ""), "") }, { 0 } };
	char *t = diagnose(&c);
	expect(t, "resource pool gpu.example.com/node-1 is being updated (not all of its slices are published): its "
		  "devices are not used\n");
	expect(t, "claim default/c, request gpu (class gpu): no device on this node's resource pools\n");
	free(t);
}

/* firstAvailable: every subrequest gets its line, then the request's verdict */
static void test_first_available(void **state)
{
	(void)state;
	struct dcase c = {
		{ SLICE_ON("node-1", 1, "", TWO_T4) },
		{ CLAIM("c",
			"{`name`:`gpu`,`firstAvailable`:[{`name`:`big`,`deviceClassName`:`a100`,`allocationMode`:`ExactCount`,"
			"`count`:1},{`name`:`many`,`deviceClassName`:`gpu`,`allocationMode`:`ExactCount`,`count`:3}]}",
			"") },
		{ 0 },
	};
	char *t = diagnose(&c);
	assert_string_equal(t, "claim default/c, request gpu/big (class a100): 0 of 2 devices usable, 1 needed: no device "
			       "matches class a100's selectors\n"
			       "claim default/c, request gpu/many (class gpu): 2 of 2 devices usable, 3 needed\n"
			       "claim default/c, request gpu: none of its 2 firstAvailable subrequests can be satisfied\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_devices),	   cmocka_unit_test(test_class_selector),
		cmocka_unit_test(test_request_selector),   cmocka_unit_test(test_request_selector_cel_error),
		cmocka_unit_test(test_allocated),
		cmocka_unit_test(test_match_attribute),	   cmocka_unit_test(test_distinct_attribute),
		cmocka_unit_test(test_taint),		   cmocka_unit_test(test_counters),
		cmocka_unit_test(test_capacity),	   cmocka_unit_test(test_competing),
		cmocka_unit_test(test_incomplete_pool),	   cmocka_unit_test(test_first_available),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
