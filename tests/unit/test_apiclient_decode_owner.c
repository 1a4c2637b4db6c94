/* api_selector_owner_decode (apiclient/decode_owner.c): the selectors upstream helper.DefaultSelector
 * reads. A Service's nil selector selects nothing (upstream GetPodServices skips it), an empty map
 * every pod; ReplicaSet/StatefulSet selectors are LabelSelectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "apiclient/api_types.h"
#include "common/intern.h"

static struct api_selector_owner *dec(enum api_selector_kind kind, const char *json)
{
	struct err e = { 0 };
	struct api_selector_owner *o = api_selector_owner_decode_json(kind, json, strlen(json), &e);
	if (!o)
		fail_msg("decode: %s", e.msg);
	return o;
}

static void test_service(void **state)
{
	(void)state;
	struct api_selector_owner *o =
		dec(API_SEL_SERVICE, "{\"metadata\":{\"name\":\"s\",\"namespace\":\"ns\"},\"spec\":{\"selector\":{\"app\":\"web\"}}}");
	assert_int_equal(o->kind, API_SEL_SERVICE);
	assert_string_equal(o->meta.name, "s");
	assert_ptr_equal(o->meta.namespace, intern_str("ns"));
	assert_non_null(o->selector);
	assert_int_equal(o->selector->match_labels.n, 1);
	assert_ptr_equal(o->selector->match_labels.items[0].key, intern_str("app"));
	assert_ptr_equal(o->selector->match_labels.items[0].value, intern_str("web"));
	assert_int_equal(o->selector->n_exprs, 0);
	api_selector_owner_unref(api_selector_owner_ref(o));
	api_selector_owner_unref(o);
	/* absent and null: nil; {}: an empty selector (matches every pod) */
	o = dec(API_SEL_SERVICE, "{\"metadata\":{\"name\":\"s\",\"namespace\":\"ns\"},\"spec\":{}}");
	assert_null(o->selector);
	api_selector_owner_unref(o);
	o = dec(API_SEL_RC, "{\"metadata\":{\"name\":\"r\",\"namespace\":\"ns\"},\"spec\":{\"selector\":null}}");
	assert_null(o->selector);
	assert_int_equal(o->kind, API_SEL_RC);
	api_selector_owner_unref(o);
	o = dec(API_SEL_SERVICE, "{\"metadata\":{\"name\":\"s\",\"namespace\":\"ns\"},\"spec\":{\"selector\":{}}}");
	assert_non_null(o->selector);
	assert_int_equal(o->selector->match_labels.n, 0);
	api_selector_owner_unref(o);
}

static void test_replicaset_and_statefulset(void **state)
{
	(void)state;
	struct api_selector_owner *o = dec(
		API_SEL_RS,
		"{\"metadata\":{\"name\":\"rs\",\"namespace\":\"ns\"},\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"a\":\"b\"},"
		"\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"x\",\"y\"]}]}}}");
	assert_int_equal(o->kind, API_SEL_RS);
	assert_non_null(o->selector);
	assert_int_equal(o->selector->match_labels.n, 1);
	assert_int_equal(o->selector->n_exprs, 1);
	assert_int_equal(o->selector->exprs[0].op, API_OP_IN);
	assert_int_equal(o->selector->exprs[0].n_values, 2);
	api_selector_owner_unref(o);
	o = dec(API_SEL_SS, "{\"metadata\":{\"name\":\"ss\",\"namespace\":\"ns\"},\"spec\":{}}");
	assert_int_equal(o->kind, API_SEL_SS);
	assert_null(o->selector);
	api_selector_owner_unref(o);
	/* a selector that is not an object is an error naming the field */
	struct err e = { 0 };
	const char *bad = "{\"metadata\":{\"name\":\"ss\",\"namespace\":\"ns\"},\"spec\":{\"selector\":[1]}}";
	assert_null(api_selector_owner_decode_json(API_SEL_SS, bad, strlen(bad), &e));
	assert_non_null(strstr(e.msg, "spec.selector"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_service),
		cmocka_unit_test(test_replicaset_and_statefulset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
