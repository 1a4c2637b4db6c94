/* The ResourceClaim writes' bodies (apiclient/writes_dra.c): an AllocationResult encoded as
 * k8s.io/api resource/v1 marshals it. The expected JSON is the apiserver's own serialization of
 * the allocation it stored (tests/fixtures/api/dra/claim-allocated.json, captured from
 * kube-apiserver v1.37.2: Go's encoding/json over the types' json tags, compacted), so decoding
 * it and encoding it again must give it back byte for byte; the other cases follow the json
 * tags of types.go (omitempty, field order) and metav1.Time's RFC 3339 in seconds. The argument
 * checks of the calls fail before any request (no server here; tests/integration/
 * test_dra_writes.c runs the calls against a real apiserver). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apiclient/api_client.h"
#include "apiclient/api_types.h"
#include "testutil.h"

static struct api_resource_claim *decode(const char *json)
{
	struct err e = { 0 };
	struct api_resource_claim *c = api_resource_claim_decode_json(json, strlen(json), &e);
	if (!c)
		fail_msg("%s", e.msg);
	return c;
}

static char *encode(const struct api_dra_allocation *a, int64_t now_s)
{
	struct err e = { 0 };
	char *out = NULL;
	size_t len = 0;
	if (api_dra_allocation_json(a, now_s, &out, &len, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(len, strlen(out));
	return out;
}

static void test_fixture_round_trip(void **state)
{
	(void)state;
	static const char want[] =
		"{\"devices\":{\"results\":[{\"request\":\"gpu\",\"driver\":\"gpu.example.com\",\"pool\":\"node-1\","
		"\"device\":\"gpu-0\",\"adminAccess\":false,\"tolerations\":[{\"key\":\"example.com/unhealthy\","
		"\"operator\":\"Equal\",\"value\":\"ecc\",\"effect\":\"NoSchedule\",\"tolerationSeconds\":300}],"
		"\"bindingConditions\":[\"attached\"],\"bindingFailureConditions\":[\"attach-failed\"],"
		"\"shareID\":\"3f1b6a2c-0d4e-4f5a-9b8c-7d6e5f4a3b2c\",\"consumedCapacity\":{\"cores\":\"4\",\"memory\":\"10Gi\"}},"
		"{\"request\":\"nic/slow\",\"driver\":\"net.example.com\",\"pool\":\"fabric\",\"device\":\"nic-0\"}],"
		"\"config\":[{\"source\":\"FromClass\",\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":"
		"{\"kind\":\"GpuConfig\",\"sharing\":{\"replicas\":2}}}},{\"source\":\"FromClaim\",\"requests\":[\"gpu\"],"
		"\"opaque\":{\"driver\":\"gpu.example.com\",\"parameters\":{\"mode\":\"exclusive\"}}}]},"
		"\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\","
		"\"values\":[\"node-1\"]}]}]},\"allocationTimestamp\":\"2026-01-02T03:04:06Z\"}";
	size_t len;
	char *json = testutil_read_source_file("tests/fixtures/api/dra/claim-allocated.json", &len);
	struct err e = { 0 };
	struct api_resource_claim *c = api_resource_claim_decode_json(json, len, &e);
	if (!c)
		fail_msg("%s", e.msg);
	assert_non_null(strstr(json, "\"allocationTimestamp\": \"2026-01-02T03:04:06Z\""));
	char *got = encode(c->allocation, 0);
	assert_string_equal(got, want);
	free(got);
	/* a timestamp already there is kept */
	got = encode(c->allocation, 1800000000);
	assert_string_equal(got, want);
	free(got);
	api_resource_claim_unref(c);
	free(json);
}

/* omitempty everywhere but devices (a struct: encoding/json writes it even when empty); the
 * allocation timestamp now when it has none; every node selector operator; tolerations as read. */
static void test_shapes(void **state)
{
	(void)state;
	struct api_resource_claim *c = decode("{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"allocation\":{}}}");
	char *got = encode(c->allocation, 0);
	assert_string_equal(got, "{\"devices\":{}}");
	free(got);
	got = encode(c->allocation, 1767323046);
	assert_string_equal(got, "{\"devices\":{},\"allocationTimestamp\":\"2026-01-02T03:04:06Z\"}");
	free(got);
	api_resource_claim_unref(c);

	c = decode("{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"status\":{\"allocation\":{\"devices\":{\"results\":["
		   "{\"request\":\"r/s\",\"driver\":\"d\",\"pool\":\"p\",\"device\":\"x\",\"adminAccess\":true,"
		   "\"tolerations\":[{\"operator\":\"Exists\"},{\"key\":\"k\",\"effect\":\"NoExecute\",\"tolerationSeconds\":0}]}],"
		   "\"config\":[{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"d\",\"parameters\":[1,\"two\",{\"z\":null,\"a\":1.50}]}}]},"
		   "\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"},"
		   "{\"key\":\"b\",\"operator\":\"NotIn\",\"values\":[\"x\",\"y\"]},{\"key\":\"c\",\"operator\":\"DoesNotExist\"},"
		   "{\"key\":\"d\",\"operator\":\"Gt\",\"values\":[\"1\"]},{\"key\":\"e\",\"operator\":\"Lt\",\"values\":[\"9\"]}]},{}]}}}}");
	got = encode(c->allocation, 0);
	assert_string_equal(got,
			    "{\"devices\":{\"results\":[{\"request\":\"r/s\",\"driver\":\"d\",\"pool\":\"p\",\"device\":\"x\","
			    "\"adminAccess\":true,\"tolerations\":[{\"operator\":\"Exists\"},{\"key\":\"k\",\"effect\":\"NoExecute\","
			    "\"tolerationSeconds\":0}]}],\"config\":[{\"source\":\"FromClaim\",\"opaque\":{\"driver\":\"d\","
			    "\"parameters\":[1,\"two\",{\"z\":null,\"a\":1.50}]}}]},\"nodeSelector\":{\"nodeSelectorTerms\":"
			    "[{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"},{\"key\":\"b\",\"operator\":\"NotIn\","
			    "\"values\":[\"x\",\"y\"]},{\"key\":\"c\",\"operator\":\"DoesNotExist\"},{\"key\":\"d\",\"operator\":"
			    "\"Gt\",\"values\":[\"1\"]},{\"key\":\"e\",\"operator\":\"Lt\",\"values\":[\"9\"]}]},{}]}}");
	free(got);
	api_resource_claim_unref(c);
}

/* What the API cannot carry is refused with the place named. */
static void test_errors(void **state)
{
	(void)state;
	struct err e = { 0 };
	char *out = (char *)1;
	size_t len = 1;
	struct api_dra_config cfg = { .source = API_DRA_CONFIG_NONE, .driver = "d" };
	struct api_dra_allocation a = { .n_config = 1, .config = &cfg };
	assert_int_equal(api_dra_allocation_json(&a, 0, &out, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "allocation: devices.config: a configuration without source");
	assert_null(out);

	cfg = (struct api_dra_config){ .source = API_DRA_CONFIG_FROM_CLASS, .driver = "d", .parameters_json = "{\"a\":",
				       .parameters_len = 5 };
	e = (struct err){ 0 };
	assert_int_equal(api_dra_allocation_json(&a, 0, &out, &len, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "allocation: devices.config: opaque parameters: "));

	struct api_requirement req = { .key = "k", .op = API_OP_UNKNOWN };
	struct api_node_selector_term term = { .n_exprs = 1, .exprs = &req };
	struct api_node_selector ns = { .n_terms = 1, .terms = &term };
	struct api_dra_allocation b = { .node_selector = &ns };
	e = (struct err){ 0 };
	assert_int_equal(api_dra_allocation_json(&b, 0, &out, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "allocation: nodeSelector: k: operator not known");

	/* the calls check their arguments before sending anything (conn is never used) */
	struct api_resource_claim *c = decode("{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"uid\":\"u\"}}");
	struct api_resource_claim *got = NULL;
	e = (struct err){ 0 };
	assert_int_equal(api_resource_claim_get(NULL, "a/b", "c", &got, &e), ERR_INVALID);
	assert_string_equal(e.msg, "get resourceclaim a/b/c: namespace \"a/b\": not a valid object name");
	assert_null(got);
	e = (struct err){ 0 };
	assert_int_equal(api_resource_claim_reserve(NULL, c, NULL, NULL, 0, &got, &e), ERR_INVALID);
	assert_string_equal(e.msg, "update status of resourceclaim ns/c: resourceVersion: required");
	e = (struct err){ 0 };
	assert_int_equal(api_resource_claim_add_finalizer(NULL, c, &got, &e), ERR_INVALID);
	assert_string_equal(e.msg, "update resourceclaim ns/c: resourceVersion: required");
	e = (struct err){ 0 };
	assert_int_equal(api_resource_claim_deallocate(NULL, c, &e), ERR_INVALID);
	assert_string_equal(e.msg, "update status of resourceclaim ns/c: resourceVersion: required");
	e = (struct err){ 0 };
	assert_int_equal(api_resource_claim_unreserve(NULL, c, "", &e), ERR_INVALID);
	assert_string_equal(e.msg, "patch status of resourceclaim ns/c: uid: required");
	e = (struct err){ 0 };
	assert_int_equal(api_resource_claim_create(NULL, "ns", NULL, 0, &got, &e), ERR_INVALID);
	assert_string_equal(e.msg, "create resourceclaim in ns: no body");
	api_resource_claim_unref(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_round_trip),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
