/* api_manifest_to_json: YAML manifests converted as sigs.k8s.io/yaml v1.6.0's YAMLToJSON does
 * (go.yaml.in/yaml/v2 v2.4.2 underneath, as its go.mod pins). The scalar table follows v2's resolve.go (resolveMapList:
 * y/Y/yes/on are true, n/N/no/off false, ~ and null null; base-0 ints after dropping '_';
 * yamlStyleFloat; timestamps kept as strings when decoded into interface{}); the expected JSON is
 * encoding/json's (keys sorted, floats in shortest 'f' form), as in sigs.k8s.io/yaml's
 * TestYAMLToJSON. Every successful case's JSON was checked byte for byte against sigs.k8s.io/yaml
 * v1.6.0's YAMLToJSON on the same document. Documents become the items of a v1 List, as kubectl's
 * resource builder reads them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apiclient/api_client.h"

#define LIST(x) "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" x "]}"

struct mcase {
	const char *in, *kind, *want; /* want: JSON, or NULL with err a substring of the message */
	const char *err;
};

static const struct mcase cases[] = {
	/* JSON is returned as it is */
	{ " {\"kind\":\"Pod\"}", "Pod", " {\"kind\":\"Pod\"}", NULL },
	/* go-yaml v2 (YAML 1.1) booleans, pinned: sigs.k8s.io/yaml's doc says yes/no become true/false */
	{ "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: N\ng: true\nh: 'yes'\n", NULL,
	  LIST("{\"a\":true,\"b\":false,\"c\":true,\"d\":false,\"e\":true,\"f\":false,\"g\":true,\"h\":\"yes\"}"), NULL },
	{ "a: ~\nb: null\nc:\nd: NULL\ne: \"null\"\n", NULL, LIST("{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":\"null\"}"), NULL },
	/* ints: base 0 after dropping '_' (010 is octal 8), uint64 beyond int64; quoted stay strings */
	{ "a: 1\nb: -7\nc: 0x1F\nd: 010\ne: 1_000\nf: 0b101\ng: 18446744073709551615\nh: \"1\"\ni: 0o17\n", NULL,
	  LIST("{\"a\":1,\"b\":-7,\"c\":31,\"d\":8,\"e\":1000,\"f\":5,\"g\":18446744073709551615,\"h\":\"1\",\"i\":15}"), NULL },
	/* floats as encoding/json writes them */
	{ "a: 1.5\nb: .5\nc: 1e3\nd: 1.0\ne: 1e21\nf: 1e-7\ng: 0.000001\nh: 1.2.3\ni: 1e400\n", NULL,
	  LIST("{\"a\":1.5,\"b\":0.5,\"c\":1000,\"d\":1,\"e\":1e+21,\"f\":1e-7,\"g\":0.000001,\"h\":\"1.2.3\",\"i\":\"1e400\"}"), NULL },
	/* timestamps and other text stay strings; 100m is a quantity, not a number */
	{ "a: 2001-12-14\nb: 100m\nc: 1Gi\nd: \"on\"\n", NULL, LIST("{\"a\":\"2001-12-14\",\"b\":\"100m\",\"c\":\"1Gi\",\"d\":\"on\"}"), NULL },
	/* non-string keys become their spelling */
	{ "1: a\ntrue: b\n", NULL, LIST("{\"1\":\"a\",\"true\":\"b\"}"), NULL },
	/* anchors, aliases, merge keys (local keys and earlier merges win), a later duplicate key wins;
	 * the key y is the boolean true in go-yaml v2, so it is spelled "true" */
	{ "x: &r {cpu: 1, memory: 2}\ny: *r\nz:\n  <<: [*r, {cpu: 9, gpu: 3}]\n  cpu: 5\nw: 1\nw: 2\n", NULL,
	  LIST("{\"true\":{\"cpu\":1,\"memory\":2},\"w\":2,\"x\":{\"cpu\":1,\"memory\":2},\"z\":{\"cpu\":5,\"gpu\":3,\"memory\":2}}"), NULL },
	/* documents, a List flattened, empty documents skipped */
	{ "kind: Pod\nmetadata: {name: a}\n---\n---\nkind: List\nitems:\n- kind: Pod\n  metadata: {name: b}\n", "Pod",
	  LIST("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}},{\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}"), NULL },
	{ "", "Pod", LIST(""), NULL },
	/* errors name the file, line and column */
	{ "kind: Pod\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", "Pod", NULL,
	  "pods.yaml:3:1: document 2: kind Deployment web: only kind Pod is accepted here" },
	{ "kind: List\nitems:\n- kind: Pod\n- kind: Service\n", "Pod", NULL, "pods.yaml:4:3: document 1, item 2: kind Service" },
	{ "a: [1, 2\n", NULL, NULL, "pods.yaml:2:1: invalid YAML" },
	{ "a: b: c\n", NULL, NULL, "pods.yaml:1:5: invalid YAML: mapping values are not allowed in this context" },
	{ "a: *nope\n", NULL, NULL, "pods.yaml:1:4: invalid YAML" },
	{ "a: .nan\n", NULL, NULL, "pods.yaml:1:4: json: unsupported value: NaN" },
	{ "- 1\n", NULL, NULL, "pods.yaml:1:1: document : not an object" },
	{ "a: &x [*x]\n", NULL, NULL, "anchor value contains itself" },
	{ "~: 1\n", NULL, NULL, "pods.yaml:1:1: unsupported map key: null" },
	{ "a: {<<: 1}\n", NULL, NULL, "map merge requires map or sequence of maps" },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct mcase *c = &cases[i];
		struct err e = { 0 };
		char *out = NULL;
		size_t n = 0;
		int rc = api_manifest_to_json("pods.yaml", c->in, strlen(c->in), c->kind, &out, &n, &e);
		if (c->want) {
			if (rc || strcmp(out, c->want))
				print_error("case %zu: rc %d %s\n got  %s\n want %s\n", i, rc, e.msg, out ? out : "", c->want);
			assert_int_equal(rc, 0);
			assert_string_equal(out, c->want);
			assert_int_equal(n, strlen(c->want));
		} else {
			if (!rc || !strstr(e.msg, c->err))
				print_error("case %zu: rc %d msg %s want %s\n", i, rc, e.msg, c->err);
			assert_int_equal(rc, ERR_INVALID);
			assert_non_null(strstr(e.msg, c->err));
			assert_null(out);
		}
		free(out);
	}
}

/* Billion laughs: go-yaml v2 refuses a document made mostly of alias expansions. */
static void test_excessive_aliasing(void **state)
{
	(void)state;
	char buf[4096];
	size_t k = (size_t)snprintf(buf, sizeof(buf), "a: &a [x,x,x,x,x,x,x,x,x,x]\n");
	for (char c = 'b'; c <= 'j'; c++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", c, c,
				      c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
	struct err e = { 0 };
	char *out = NULL;
	size_t n = 0;
	assert_int_equal(api_manifest_to_json("lol.yaml", buf, k, NULL, &out, &n, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "excessive aliasing"));
	assert_null(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_excessive_aliasing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
