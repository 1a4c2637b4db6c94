/* `csched devices` (cmd/devices.c) on objects captured from a kube-apiserver v1.37.2
 * (tests/fixtures/api/dra/: slicelist.json, claimlist.json, class-gpu.json): one row per device
 * with its node (nodeName, node selector, per-device selection), attributes, capacity, taints and
 * allocation (claim and reserved pods); MATCH per device for a class and/or a selector, with the
 * verdicts upstream's CEL environment gives (k8s.io/dynamic-resource-allocation v0.37.2
 * cel/compile_test.go: "real-driver-name", "string", "runtime-error-lookup-identifier" -> "no such
 * key: ...", "domain-check-negative", "syntax-error"); --node with upstream's node selector
 * semantics (a term's matchExpressions and matchFields are ANDed); LIST pages and their errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/devices_internal.h"
#include "testutil.h"

static struct cmd_devices_input in;
static struct api_device_class *gpu_class;

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	size_t len;
	char *s = testutil_read_source_file("tests/fixtures/api/dra/slicelist.json", &len);
	char cont[64] = "x";
	if (cmd_devices_add_page(&in, CMD_DEVICES_SLICES, s, len, cont, sizeof(cont), &e) < 0) {
		fprintf(stderr, "slices: %s\n", e.msg);
		return -1;
	}
	free(s);
	assert_string_equal(cont, ""); /* the last page */
	s = testutil_read_source_file("tests/fixtures/api/dra/claimlist.json", &len);
	if (cmd_devices_add_page(&in, CMD_DEVICES_CLAIMS, s, len, NULL, 0, &e) < 0) {
		fprintf(stderr, "claims: %s\n", e.msg);
		return -1;
	}
	free(s);
	s = testutil_read_source_file("tests/fixtures/api/dra/class-gpu.json", &len);
	gpu_class = api_device_class_decode_json(s, len, &e);
	free(s);
	return gpu_class ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	cmd_devices_input_release(&in);
	api_device_class_unref(gpu_class);
	return 0;
}

/* The line of device dev in the table (static storage), failing when absent. */
static const char *row_of(const char *table, const char *dev)
{
	static char line[1024];
	char key[64];
	snprintf(key, sizeof(key), "  %s  ", dev);
	for (const char *p = table; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (strstr(line, key))
			return line;
		p += n + (nl ? 1 : 0);
	}
	fail_msg("no row for %s in:\n%s", dev, table);
	return NULL;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void render(const struct cmd_devices_query *q, struct strbuf *out)
{
	struct err e = { 0 };
	if (cmd_devices_render(&in, q, out, &e) < 0)
		fail_msg("%s", e.msg);
	assert_false(out->oom);
}

static void test_table(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	struct cmd_devices_query q = { 0 };
	render(&q, &out);
	/* header + 6 devices (rack-1-counters publishes counters only); no MATCH column */
	assert_int_equal(count_lines(out.data), 7);
	assert_non_null(strstr(out.data, "NODE"));
	assert_null(strstr(out.data, "MATCH"));
	/* ordered by node column: "(node selector)" < "(per device)" slices < "node-1" */
	assert_true(strstr(out.data, "nic-0") < strstr(out.data, "part-a"));
	assert_true(strstr(out.data, "part-c") < strstr(out.data, "gpu-0"));
	const char *r = row_of(out.data, "gpu-0");
	assert_true(!strncmp(r, "node-1 ", 7));
	assert_non_null(strstr(r, "  gpu.example.com  node-1  gpu-0  "));
	/* attributes by name as served (the driver's own unqualified), capacity as served */
	assert_non_null(strstr(r, "driverVersion=1.2.3,example.com/numa=1,healthy=true,index=0,model=A100"));
	assert_non_null(strstr(r, "bandwidth=100G,cores=108,memory=40Gi"));
	assert_non_null(strstr(r, "example.com/unhealthy=ecc:NoSchedule"));
	/* allocated to default/gpu-claim, reserved for pod dra-pod */
	assert_non_null(strstr(r, "default/gpu-claim (pods: dra-pod)"));
	r = row_of(out.data, "gpu-1");
	assert_non_null(strstr(r, "model=B200"));
	assert_true(r[strlen(r) - 1] == '-'); /* not allocated */
	r = row_of(out.data, "nic-0");
	assert_true(!strncmp(r, "(node selector)", 15));
	assert_non_null(strstr(r, "net.example.com  fabric  nic-0"));
	assert_non_null(strstr(r, "default/gpu-claim (pods: dra-pod)")); /* the claim's second result */
	/* per-device node selection: each device's own */
	assert_true(!strncmp(row_of(out.data, "part-a"), "node-2 ", 7));
	assert_true(!strncmp(row_of(out.data, "part-b"), "(all nodes) ", 12));
	assert_true(!strncmp(row_of(out.data, "part-c"), "(node selector) ", 16));
	strbuf_release(&out);
}

struct match_case {
	const char *name;
	bool with_class;
	const char *selector;
	/* MATCH of nic-0, part-a, part-b, part-c, gpu-0, gpu-1 */
	const char *want[6];
	const char *summary;
	const char *error; /* the first error's text, or NULL */
};

static const struct match_case match_cases[] = {
	/* the class: device.driver == "gpu.example.com" (compile_test "real-driver-name"), then
	 * model.startsWith("A"): false for nic-0 at the first selector; the partitions have no model
	 * ("runtime-error-lookup-identifier": no such key) */
	{ "class", true, NULL, { "no", "error", "error", "error", "yes", "no" },
	  "1 of 6 devices match class gpu.example.com (2 selectors)",
	  "selector #1 on device gpu.example.com/rack-1/part-a: CEL runtime error: no such key: model" },
	/* "string" */
	{ "selector", false, "device.attributes[\"gpu.example.com\"].model == \"B200\"",
	  { "error", "error", "error", "error", "no", "yes" }, "1 of 6 devices match --selector",
	  "selector #0 on device net.example.com/fabric/nic-0: CEL runtime error: no such key: model" },
	/* "domain-check-negative" / positive: no error for anyone */
	{ "domain check", false, "\"gpu.example.com\" in device.attributes", { "no", "no", "no", "no", "yes", "yes" },
	  "2 of 6 devices match --selector", NULL },
	/* the class's selectors first, then --selector (index 2) */
	{ "class and selector", true, "device.attributes[\"example.com\"].numa == 1",
	  { "no", "error", "error", "error", "yes", "no" }, "1 of 6 devices match class gpu.example.com (2 selectors) and --selector",
	  "selector #1 on device gpu.example.com/rack-1/part-a: CEL runtime error: no such key: model" },
	/* "syntax-error": a compile error on every device */
	{ "compile error", false, "?!", { "error", "error", "error", "error", "error", "error" },
	  "0 of 6 devices match --selector", "selector #0: CEL compile error: " },
};

static void test_match(void **state)
{
	(void)state;
	static const char *const devs[6] = { "nic-0", "part-a", "part-b", "part-c", "gpu-0", "gpu-1" };
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		const struct match_case *c = &match_cases[i];
		struct strbuf out = STRBUF_INIT;
		struct cmd_devices_query q = { c->with_class ? gpu_class : NULL, c->selector, NULL };
		render(&q, &out);
		printf("case %s:\n%s", c->name, out.data);
		assert_non_null(strstr(out.data, "MATCH"));
		for (int k = 0; k < 6; k++) {
			const char *r = row_of(out.data, devs[k]);
			char want[16];
			snprintf(want, sizeof(want), "  %s", c->want[k]);
			if (strlen(r) < strlen(want) || strcmp(r + strlen(r) - strlen(want), want))
				fail_msg("case %s: %s: want MATCH %s in \"%s\"", c->name, devs[k], c->want[k], r);
		}
		assert_non_null(strstr(out.data, c->summary));
		if (c->error) {
			const char *p = strstr(out.data, "first error: ");
			assert_non_null(p);
			assert_true(!strncmp(p + strlen("first error: "), c->error, strlen(c->error)));
		} else {
			assert_null(strstr(out.data, "first error"));
		}
		strbuf_release(&out);
	}
}

static void test_node(void **state)
{
	(void)state;
	struct err e = { 0 };
	/* node-2 with rack=r1 and no fabric label: part-a (nodeName node-2), part-b (allNodes); not
	 * part-c (rack In [r1 r2] AND metadata.name In [node-3]), nor nic-0 (fabric Exists), nor node-1's */
	static const char node_json[] =
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-2\",\"labels\":{\"rack\":\"r1\"}}}";
	struct api_node *n = api_node_decode_json(node_json, strlen(node_json), &e);
	assert_non_null(n);
	struct strbuf out = STRBUF_INIT;
	struct cmd_devices_query q = { NULL, NULL, n };
	render(&q, &out);
	assert_int_equal(count_lines(out.data), 3);
	row_of(out.data, "part-a");
	row_of(out.data, "part-b");
	assert_null(strstr(out.data, "part-c"));
	assert_null(strstr(out.data, "nic-0"));
	assert_null(strstr(out.data, "gpu-0"));
	strbuf_release(&out);
	api_node_unref(n);

	/* node-3 in rack r2 with the fabric label: nic-0, part-b, part-c */
	static const char node3_json[] = "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-3\","
					  "\"labels\":{\"rack\":\"r2\",\"fabric\":\"\"}}}";
	n = api_node_decode_json(node3_json, strlen(node3_json), &e);
	assert_non_null(n);
	q.node = n;
	render(&q, &out);
	assert_int_equal(count_lines(out.data), 4);
	row_of(out.data, "nic-0");
	row_of(out.data, "part-b");
	row_of(out.data, "part-c");
	strbuf_release(&out);
	api_node_unref(n);

	/* any other node: the allNodes device only */
	static const char other_json[] = "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"elsewhere\"}}";
	n = api_node_decode_json(other_json, strlen(other_json), &e);
	q.node = n;
	render(&q, &out);
	assert_int_equal(count_lines(out.data), 2);
	row_of(out.data, "part-b");
	strbuf_release(&out);
	api_node_unref(n);

	/* no slice at all */
	struct cmd_devices_input none = { 0 };
	q.node = NULL;
	assert_int_equal(cmd_devices_render(&none, &q, &out, &e), 0);
	assert_string_equal(out.data, "NODE  DRIVER  POOL  DEVICE  ATTRIBUTES  CAPACITY  TAINTS  ALLOCATED\n(no devices)\n");
	strbuf_release(&out);
}

static void test_pages(void **state)
{
	(void)state;
	struct cmd_devices_input x = { 0 };
	struct err e = { 0 };
	char cont[64];
	/* a page with a continue token, an empty page without items */
	static const char page1[] = "{\"kind\":\"ResourceSliceList\",\"metadata\":{\"continue\":\"abc=\"},\"items\":[{\"metadata\":"
				    "{\"name\":\"s\"},\"spec\":{\"driver\":\"d.example.com\",\"pool\":{\"name\":\"p\",\"generation\":1,"
				    "\"resourceSliceCount\":1},\"allNodes\":true,\"devices\":[{\"name\":\"x\"}]}}]}";
	assert_int_equal(cmd_devices_add_page(&x, CMD_DEVICES_SLICES, page1, strlen(page1), cont, sizeof(cont), &e), 0);
	assert_string_equal(cont, "abc=");
	assert_int_equal(x.n_slices, 1);
	static const char page2[] = "{\"kind\":\"ResourceSliceList\",\"metadata\":{}}";
	assert_int_equal(cmd_devices_add_page(&x, CMD_DEVICES_SLICES, page2, strlen(page2), cont, sizeof(cont), &e), 0);
	assert_string_equal(cont, "");
	assert_int_equal(x.n_slices, 1);
	struct strbuf out = STRBUF_INIT;
	struct cmd_devices_query q = { 0 };
	render(&q, &out); /* renders the global fixture; this one alone: */
	strbuf_release(&out);
	assert_int_equal(cmd_devices_render(&x, &q, &out, &e), 0);
	assert_non_null(strstr(out.data, "(all nodes)  d.example.com  p     x"));
	strbuf_release(&out);

	/* errors name the list and the item */
	static const char bad_json[] = "{\"items\":[";
	assert_true(cmd_devices_add_page(&x, CMD_DEVICES_SLICES, bad_json, strlen(bad_json), cont, sizeof(cont), &e) < 0);
	assert_non_null(strstr(e.msg, "resourceslices: the list does not parse"));
	static const char bad_items[] = "{\"items\":{}}";
	assert_true(cmd_devices_add_page(&x, CMD_DEVICES_CLAIMS, bad_items, strlen(bad_items), cont, sizeof(cont), &e) < 0);
	assert_string_equal(e.msg, "resourceclaims: items is not an array");
	static const char bad_item[] = "{\"items\":[{\"metadata\":{\"name\":\"c1\"},\"spec\":{\"devices\":{\"requests\":7}}}]}";
	assert_true(cmd_devices_add_page(&x, CMD_DEVICES_CLAIMS, bad_item, strlen(bad_item), cont, sizeof(cont), &e) < 0);
	assert_true(!strncmp(e.msg, "resourceclaims item 0 (c1): ", strlen("resourceclaims item 0 (c1): ")));
	assert_int_equal(x.n_claims, 0);
	cmd_devices_input_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_pages),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
