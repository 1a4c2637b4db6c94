/* api_pdb_decode (apiclient/decode_pdb.c): policy/v1 PodDisruptionBudgets as preemption reads
 * them (upstream FilterVictimsWithPDBViolation: namespace, spec.selector,
 * status.disruptionsAllowed, the keys of status.disruptedPods).
 *
 * The fixtures tests/fixtures/api/pdb*.json and watch-pdb-events.jsonl were captured from a real
 * kube-apiserver v1.37.2 (see the README there); the error cases are hand-written objects with
 * one thing wrong each. */
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
#include "common/intern.h"
#include "testutil.h"

#define I(s) intern_str(s)

/* A fixture through api_pdb_decode_json (the informers' parser, which skips managedFields). */
static struct api_pdb *fixture(const char *file)
{
	char path[256];
	size_t len = 0;
	struct err e = { 0 };
	snprintf(path, sizeof(path), "tests/fixtures/api/%s", file);
	char *json = testutil_read_source_file(path, &len);
	assert_non_null(json);
	struct api_pdb *p = api_pdb_decode_json(json, len, &e);
	free(json);
	if (!p)
		fail_msg("%s: %s", file, e.msg);
	return p;
}

static bool disrupted(const struct api_pdb *p, const char *pod)
{
	for (uint32_t i = 0; i < p->n_disrupted; i++)
		if (!strcmp(p->disrupted_pods[i], pod))
			return true;
	return false;
}

/* kubectl create -f manifests/pdb-web.yaml, status patched (disruptionsAllowed 1, two
 * disruptedPods), read back raw from the apiserver (managedFields included) */
static void test_fixture_web(void **state)
{
	(void)state;
	struct api_pdb *p = fixture("pdb-web.json");
	assert_ptr_equal(p->meta.name, I("web"));
	assert_ptr_equal(p->meta.namespace, I("default"));
	assert_string_equal(p->meta.uid, "bff30465-3829-4595-ac1c-2d2cddb2b677");
	assert_string_equal(p->meta.resource_version, "214");
	assert_ptr_equal(api_labels_get(&p->meta.labels, I("team")), I("frontend"));
	assert_non_null(p->selector);
	assert_int_equal(p->selector->match_labels.n, 1);
	assert_ptr_equal(api_labels_get(&p->selector->match_labels, I("app")), I("web"));
	assert_int_equal(p->selector->n_exprs, 2);
	assert_ptr_equal(p->selector->exprs[0].key, I("tier"));
	assert_int_equal(p->selector->exprs[0].op, API_OP_IN);
	assert_int_equal(p->selector->exprs[0].n_values, 2);
	assert_ptr_equal(p->selector->exprs[0].values[0], I("fe"));
	assert_ptr_equal(p->selector->exprs[0].values[1], I("be"));
	assert_ptr_equal(p->selector->exprs[1].key, I("canary"));
	assert_int_equal(p->selector->exprs[1].op, API_OP_DOES_NOT_EXIST);
	assert_int_equal(p->disruptions_allowed, 1);
	assert_int_equal(p->n_disrupted, 2);
	assert_true(disrupted(p, "web-0"));
	assert_true(disrupted(p, "web-1"));
	assert_false(disrupted(p, "web-2"));
	/* the selector matches as upstream's LabelSelectorAsSelector would */
	struct api_labels l = { 0 };
	struct api_kv kv[2] = { { I("app"), I("web") }, { I("tier"), I("be") } };
	l.items = kv;
	l.n = 2;
	assert_true(api_label_selector_matches(p->selector, &l));
	kv[1].value = I("db");
	assert_false(api_label_selector_matches(p->selector, &l));
	assert_ptr_equal(api_pdb_ref(p), p);
	api_pdb_unref(p);
	api_pdb_unref(p);
	api_pdb_unref(NULL);
	assert_null(api_pdb_ref(NULL));
}

/* selector {} (present, empty: upstream skips it like a nil one) and no selector at all */
static void test_fixture_empty_and_absent_selector(void **state)
{
	(void)state;
	struct api_pdb *p = fixture("pdb-all.json");
	assert_ptr_equal(p->meta.name, I("all"));
	assert_non_null(p->selector);
	assert_int_equal(p->selector->match_labels.n, 0);
	assert_int_equal(p->selector->n_exprs, 0);
	assert_int_equal(p->disruptions_allowed, 0);
	assert_int_equal(p->n_disrupted, 0);
	assert_null(p->disrupted_pods);
	api_pdb_unref(p);
	p = fixture("pdb-noselector.json");
	assert_ptr_equal(p->meta.namespace, I("kube-system"));
	assert_null(p->selector);
	assert_int_equal(p->disruptions_allowed, 0);
	api_pdb_unref(p);
}

/* A LIST page and watch event lines, decoded item by item as the informer does. */
static void test_list_and_watch(void **state)
{
	(void)state;
	char errbuf[256];
	struct err e = { 0 };
	char *json = testutil_read_source_file("tests/fixtures/api/pdblist-page1.json", NULL);
	yajl_val tree = yajl_tree_parse(json, errbuf, sizeof(errbuf));
	assert_non_null(tree);
	const char *items_path[] = { "items", NULL };
	yajl_val items = yajl_tree_get(tree, items_path, yajl_t_array);
	assert_non_null(items);
	assert_int_equal(items->u.array.len, 2);
	static const char *want_name[] = { "all", "web" };
	for (size_t i = 0; i < items->u.array.len; i++) {
		struct api_pdb *p = api_pdb_decode(items->u.array.values[i], &e);
		if (!p)
			fail_msg("item %zu: %s", i, e.msg);
		assert_ptr_equal(p->meta.name, I(want_name[i]));
		assert_int_equal(p->n_disrupted, i == 1 ? 2 : 0);
		api_pdb_unref(p);
	}
	yajl_tree_free(tree);
	free(json);

	/* status of "all" patched to disruptionsAllowed 2, then "noselector" deleted */
	static const char *want_type[] = { "MODIFIED", "DELETED", "BOOKMARK" };
	json = testutil_read_source_file("tests/fixtures/api/watch-pdb-events.jsonl", NULL);
	size_t line = 0;
	for (char *s = json, *nl; *s; s = nl + 1, line++) {
		nl = strchr(s, '\n');
		assert_non_null(nl);
		*nl = '\0';
		tree = yajl_tree_parse(s, errbuf, sizeof(errbuf));
		assert_non_null(tree);
		const char *type_path[] = { "type", NULL }, *obj_path[] = { "object", NULL };
		assert_true(line < 3);
		assert_string_equal(YAJL_GET_STRING(yajl_tree_get(tree, type_path, yajl_t_string)), want_type[line]);
		struct api_pdb *p = api_pdb_decode(yajl_tree_get(tree, obj_path, yajl_t_object), &e);
		if (!p)
			fail_msg("line %zu: %s", line, e.msg);
		if (line == 0) {
			assert_ptr_equal(p->meta.name, I("all"));
			assert_int_equal(p->disruptions_allowed, 2);
		} else if (line == 1) {
			assert_ptr_equal(p->meta.name, I("noselector"));
			assert_null(p->selector);
		} else { /* a bookmark carries a resourceVersion, an empty spec and a zero status */
			assert_string_equal(p->meta.resource_version, "218");
			assert_null(p->selector);
		}
		api_pdb_unref(p);
		yajl_tree_free(tree);
	}
	assert_int_equal(line, 3);
	free(json);
}

/* What Go's decoder accepts beside what the apiserver writes: null members read as absent
 * (encoding/json's zero values), a null disruptedPods time keeps its key, a repeated key is
 * one entry (the last wins in a Go map). */
static void test_nulls_and_duplicates(void **state)
{
	(void)state;
	static const char *json =
		"{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{\"selector\":null},"
		"\"status\":{\"disruptionsAllowed\":-1,\"disruptedPods\":{\"a\":null,\"b\":\"2026-11-25T20:30:00Z\","
		"\"a\":\"2026-11-25T20:30:00.5+01:00\"}}}";
	struct err e = { 0 };
	struct api_pdb *p = api_pdb_decode_json(json, strlen(json), &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_null(p->selector);
	assert_int_equal(p->disruptions_allowed, -1);
	assert_int_equal(p->n_disrupted, 2);
	assert_true(disrupted(p, "a"));
	assert_true(disrupted(p, "b"));
	api_pdb_unref(p);
	static const char *empty = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":null,"
				   "\"status\":{\"disruptedPods\":null,\"disruptionsAllowed\":null}}";
	p = api_pdb_decode_json(empty, strlen(empty), &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_null(p->selector);
	assert_int_equal(p->disruptions_allowed, 0);
	assert_int_equal(p->n_disrupted, 0);
	api_pdb_unref(p);
}

#define HEAD "{\"metadata\":{\"name\":\"budget\",\"namespace\":\"default\"},"
#define WHO "poddisruptionbudget default/budget: "

/* Bad input: NULL with an error naming the object and the field, never a crash. */
static void test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *json, *msg;
	} t[] = {
		{ "{\"metadata\":", "poddisruptionbudget: invalid JSON: parse error: premature EOF" },
		{ "[1]", "poddisruptionbudget: expected object, got array" },
		{ "{\"metadata\":{\"name\":[]}}", "poddisruptionbudget: metadata.name: expected string, got array" },
		{ HEAD "\"spec\":[]}", WHO "spec: expected object, got array" },
		{ HEAD "\"status\":5}", WHO "status: expected object, got number" },
		{ HEAD "\"spec\":{\"selector\":\"app=web\"}}", WHO "spec.selector: expected object, got string" },
		{ HEAD "\"spec\":{\"selector\":{\"matchLabels\":[]}}}", WHO "spec.selector.matchLabels: expected object, got array" },
		{ HEAD "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":1}}}}",
		  WHO "spec.selector.matchLabels.app: expected string, got number" },
		{ HEAD "\"spec\":{\"selector\":{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"In\",\"values\":3}]}}}",
		  WHO "spec.selector.matchExpressions[0].values: expected array, got number" },
		{ HEAD "\"status\":{\"disruptionsAllowed\":\"1\"}}",
		  WHO "status.disruptionsAllowed: expected integer, got string" },
		{ HEAD "\"status\":{\"disruptionsAllowed\":2147483648}}", WHO "status.disruptionsAllowed: invalid integer 2147483648" },
		{ HEAD "\"status\":{\"disruptionsAllowed\":1.5}}", WHO "status.disruptionsAllowed: invalid integer 1.5" },
		{ HEAD "\"status\":{\"disruptedPods\":[\"web-0\"]}}", WHO "status.disruptedPods: expected object, got array" },
		{ HEAD "\"status\":{\"disruptedPods\":{\"web-0\":1}}}",
		  WHO "status.disruptedPods.web-0: expected string, got number" },
		{ HEAD "\"status\":{\"disruptedPods\":{\"web-0\":\"2026-11-25T20:30:00Z\",\"web-1\":\"yesterday\"}}}",
		  WHO "status.disruptedPods.web-1: invalid time \"yesterday\"" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct err e = { 0 };
		struct api_pdb *p = api_pdb_decode_json(t[i].json, strlen(t[i].json), &e);
		if (p)
			fail_msg("case %zu decoded: %s", i, t[i].json);
		if (strcmp(e.msg, t[i].msg))
			fail_msg("case %zu:\n got  %s\n want %s", i, e.msg, t[i].msg);
		assert_int_equal(e.code, ERR_INVALID);
	}
	/* not an object at all, through the tree entry point */
	struct err e = { 0 };
	assert_null(api_pdb_decode(NULL, &e));
	assert_string_equal(e.msg, "poddisruptionbudget: expected object, got nothing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_web),
		cmocka_unit_test(test_fixture_empty_and_absent_selector),
		cmocka_unit_test(test_list_and_watch),
		cmocka_unit_test(test_nulls_and_duplicates),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
