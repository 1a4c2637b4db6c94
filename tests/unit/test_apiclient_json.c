/* The arena-built JSON trees of apiclient/json.c: the same trees as yajl_tree_parse (values,
 * numbers' flags, escapes, nesting), the skipped fields, streamed LIST items in pieces of any
 * size, errors, and reuse of one parser across documents. */
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
#include "testutil.h"

/* Deep equality of two trees; keys in order. */
static void assert_same_tree(yajl_val a, yajl_val b, const char *where)
{
	if (!a || !b)
		fail_msg("%s: missing value", where);
	if (a->type != b->type)
		fail_msg("%s: type %d vs %d", where, a->type, b->type);
	switch (a->type) {
	case yajl_t_string:
		assert_string_equal(a->u.string, b->u.string);
		break;
	case yajl_t_number:
		assert_string_equal(a->u.number.r, b->u.number.r);
		assert_int_equal(a->u.number.flags & YAJL_NUMBER_INT_VALID, b->u.number.flags & YAJL_NUMBER_INT_VALID);
		if (a->u.number.flags & YAJL_NUMBER_INT_VALID)
			assert_int_equal(a->u.number.i, b->u.number.i);
		assert_int_equal(a->u.number.flags & YAJL_NUMBER_DOUBLE_VALID,
				 b->u.number.flags & YAJL_NUMBER_DOUBLE_VALID);
		if (a->u.number.flags & YAJL_NUMBER_DOUBLE_VALID)
			assert_true(a->u.number.d == b->u.number.d);
		break;
	case yajl_t_object:
		assert_int_equal(a->u.object.len, b->u.object.len);
		for (size_t i = 0; i < a->u.object.len; i++) {
			assert_string_equal(a->u.object.keys[i], b->u.object.keys[i]);
			assert_same_tree(a->u.object.values[i], b->u.object.values[i], a->u.object.keys[i]);
		}
		break;
	case yajl_t_array:
		assert_int_equal(a->u.array.len, b->u.array.len);
		for (size_t i = 0; i < a->u.array.len; i++)
			assert_same_tree(a->u.array.values[i], b->u.array.values[i], where);
		break;
	default:
		break;
	}
}

static yajl_val parse(struct api__json *j, const char *text)
{
	yajl_val root = NULL;
	char ebuf[256];
	int rc = api__json_parse(j, text, strlen(text), &root, ebuf, sizeof(ebuf));
	if (rc)
		fail_msg("%s: %d %s", text, rc, ebuf);
	return root;
}

static void test_same_as_yajl_tree(void **state)
{
	(void)state;
	static const char *const docs[] = {
		"{}",
		"[]",
		"\"text\"",
		"0",
		"true",
		"null",
		"[1,-1,0,-0,9223372036854775807,-9223372036854775807,9223372036854775808,-9223372036854775809,"
		"1.5,-2.25e3,1e400,12345678901234567890123,0.000001]",
		"{\"s\":\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\u20ac\\ud83d\\ude00\",\"e\":\"\",\"u\":\"caf\xc3\xa9\"}",
		"{\"a\":{\"b\":{\"c\":[[],[{}],[[1,[2,[3]]]]]}},\"t\":true,\"f\":false,\"n\":null,\"k\":{\"\":1}}",
		"{\"dup\":1,\"dup\":2}",
		"/* a comment */ {\"x\": [1, 2, 3] // another\n}",
		"{\"metadata\":{\"name\":\"p\",\"labels\":{\"managedFields\":\"kept\"}},\"spec\":{\"managedFields\":[1]}}",
	};
	struct api__json *j = api__json_new();
	assert_non_null(j);
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char ebuf[256];
		yajl_val want = yajl_tree_parse(docs[i], ebuf, sizeof(ebuf));
		if (!want)
			fail_msg("yajl_tree_parse %s: %s", docs[i], ebuf);
		assert_same_tree(parse(j, docs[i]), want, docs[i]);
		yajl_tree_free(want);
	}
	/* LLONG_MIN is an integer (encoding/json reads it; yajl_tree_parse did not) */
	yajl_val min = parse(j, "-9223372036854775808");
	assert_true(YAJL_IS_INTEGER(min));
	assert_true(min->u.number.i == INT64_MIN);
	api__json_free(j);
}

static yajl_val at(yajl_val v, const char *const *path)
{
	return yajl_tree_get(v, (const char **)path, yajl_t_any);
}

/* Fields decode.c does not read are not built; the same key elsewhere is kept. */
static void test_skipped_fields(void **state)
{
	(void)state;
	static const char doc[] =
		"{\"metadata\":{\"name\":\"p\",\"managedFields\":[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:spec\":{}}}],"
		"\"labels\":{\"managedFields\":\"x\"},\"annotations\":{\"env\":\"y\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"image\":\"i\","
		"\"command\":[\"sh\"],\"livenessProbe\":{\"exec\":{}},\"resources\":{\"requests\":{\"cpu\":\"1\"}}}],"
		"\"initContainers\":[{\"name\":\"i\",\"args\":[\"x\"],\"restartPolicy\":\"Always\"}],"
		"\"ephemeralContainers\":[{\"name\":\"e\"}],\"env\":\"not a container field\"},"
		"\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\",\"state\":{\"running\":{}},"
		"\"imageID\":\"x\",\"allocatedResources\":{\"cpu\":\"1\"}}],\"podIPs\":[],"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],\"nodeInfo\":{\"kubeletVersion\":\"v1\"},"
		"\"allocatable\":{\"cpu\":\"4\"},\"images\":[{\"names\":[\"a\"]}]}}";
	struct api__json *j = api__json_new();
	yajl_val root = parse(j, doc);
	static const char *const managed[] = { "metadata", "managedFields", NULL };
	static const char *const label[] = { "metadata", "labels", "managedFields", NULL };
	static const char *const annot[] = { "metadata", "annotations", "env", NULL };
	static const char *const spec_env[] = { "spec", "env", NULL };
	static const char *const eph[] = { "spec", "ephemeralContainers", NULL };
	static const char *const phase[] = { "status", "phase", NULL };
	static const char *const cstat[] = { "status", "containerStatuses", NULL };
	static const char *const podips[] = { "status", "podIPs", NULL };
	static const char *const conds[] = { "status", "conditions", NULL };
	static const char *const ninfo[] = { "status", "nodeInfo", NULL };
	static const char *const alloc[] = { "status", "allocatable", "cpu", NULL };
	static const char *const images[] = { "status", "images", NULL };
	assert_null(at(root, managed));
	assert_string_equal(YAJL_GET_STRING(at(root, label)), "x");
	assert_string_equal(YAJL_GET_STRING(at(root, annot)), "y");
	assert_string_equal(YAJL_GET_STRING(at(root, spec_env)), "not a container field");
	/* kept for their volumeMounts' bindMountOptions (NodeDeclaredFeatures) */
	assert_int_equal(YAJL_GET_ARRAY(at(root, eph))->len, 1);
	assert_string_equal(YAJL_GET_STRING(at(root, phase)), "Running");
	/* container statuses are read for in-place resize: name and resources only */
	assert_int_equal(YAJL_GET_ARRAY(at(root, cstat))->len, 1);
	assert_int_equal(YAJL_GET_ARRAY(at(root, cstat))->values[0]->u.object.len, 2); /* name, allocatedResources */
	assert_null(at(root, podips));
	assert_null(at(root, ninfo));
	assert_int_equal(YAJL_GET_ARRAY(at(root, conds))->len, 1);
	assert_string_equal(YAJL_GET_STRING(at(root, alloc)), "4");
	assert_int_equal(YAJL_GET_ARRAY(at(root, images))->len, 1);

	static const char *const containers[] = { "spec", "containers", NULL };
	yajl_val c = YAJL_GET_ARRAY(at(root, containers))->values[0];
	assert_int_equal(c->u.object.len, 3); /* name, image, resources */
	static const char *const name[] = { "name", NULL }, *const image[] = { "image", NULL },
				 *const cpu[] = { "resources", "requests", "cpu", NULL };
	assert_string_equal(YAJL_GET_STRING(at(c, name)), "c");
	assert_string_equal(YAJL_GET_STRING(at(c, image)), "i");
	assert_string_equal(YAJL_GET_STRING(at(c, cpu)), "1");
	static const char *const inits[] = { "spec", "initContainers", NULL };
	yajl_val ic = YAJL_GET_ARRAY(at(root, inits))->values[0];
	assert_int_equal(ic->u.object.len, 2); /* name, restartPolicy */
	api__json_free(j);
}

/* ---------- streamed LIST pages ---------- */

struct items {
	int n;
	char names[8][16];
	int stop_at; /* 1-based item index whose callback returns -7; 0 = never */
};

static int on_item(void *ctx, yajl_val item)
{
	struct items *it = ctx;
	static const char *const name[] = { "metadata", "name", NULL };
	yajl_val v = yajl_tree_get(item, (const char **)name, yajl_t_string);
	assert_non_null(v);
	if (it->n < 8)
		snprintf(it->names[it->n], sizeof(it->names[0]), "%s", YAJL_GET_STRING(v));
	it->n++;
	return it->stop_at && it->n == it->stop_at ? -7 : 0;
}

static const char list_doc[] =
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"42\",\"continue\":\"tok\"},"
	"\"items\":[{\"metadata\":{\"name\":\"a\",\"managedFields\":[{\"x\":1}]},\"spec\":{\"containers\":[{}]}},"
	"{\"metadata\":{\"name\":\"b\"}},{\"metadata\":{\"name\":\"c\",\"labels\":{\"k\":\"v\"}}}],\"tail\":[1,2]}";

static void check_list_root(yajl_val root)
{
	static const char *const rv[] = { "metadata", "resourceVersion", NULL };
	static const char *const cont[] = { "metadata", "continue", NULL };
	static const char *const items[] = { "items", NULL };
	static const char *const tail[] = { "tail", NULL };
	static const char *const kind[] = { "kind", NULL };
	assert_string_equal(YAJL_GET_STRING(at(root, rv)), "42");
	assert_string_equal(YAJL_GET_STRING(at(root, cont)), "tok");
	assert_string_equal(YAJL_GET_STRING(at(root, kind)), "PodList");
	assert_true(YAJL_IS_ARRAY(at(root, items)));
	assert_int_equal(YAJL_GET_ARRAY(at(root, items))->len, 0); /* handed out, not kept */
	assert_int_equal(YAJL_GET_ARRAY(at(root, tail))->len, 2);
}

static void test_streamed_items(void **state)
{
	(void)state;
	struct api__json *j = api__json_new();
	size_t len = strlen(list_doc);
	/* whole, byte by byte, and in pieces of every size up to 64 */
	for (size_t piece = 0; piece <= 64; piece++) {
		struct items it = { 0 };
		char ebuf[256];
		yajl_val root = NULL;
		assert_int_equal(api__json_begin(j, on_item, &it), 0);
		size_t step = piece ? piece : len;
		for (size_t off = 0; off < len; off += step) {
			size_t n = len - off < step ? len - off : step;
			int rc = api__json_feed(j, list_doc + off, n, ebuf, sizeof(ebuf));
			if (rc)
				fail_msg("piece %zu at %zu: %s", piece, off, ebuf);
		}
		assert_int_equal(api__json_end(j, &root, ebuf, sizeof(ebuf)), 0);
		assert_int_equal(it.n, 3);
		assert_string_equal(it.names[0], "a");
		assert_string_equal(it.names[1], "b");
		assert_string_equal(it.names[2], "c");
		check_list_root(root);
	}
	/* a nested "items" is an ordinary array */
	struct items it = { 0 };
	yajl_val root = NULL;
	static const char nested[] = "{\"spec\":{\"items\":[{\"metadata\":{\"name\":\"x\"}}]}}";
	assert_int_equal(api__json_begin(j, on_item, &it), 0);
	assert_int_equal(api__json_feed(j, nested, strlen(nested), NULL, 0), 0);
	assert_int_equal(api__json_end(j, &root, NULL, 0), 0);
	assert_int_equal(it.n, 0);
	static const char *const items[] = { "spec", "items", NULL };
	assert_int_equal(YAJL_GET_ARRAY(at(root, items))->len, 1);
	/* the callback's code stops the parse and comes back from api__json_feed */
	memset(&it, 0, sizeof(it));
	it.stop_at = 2;
	assert_int_equal(api__json_begin(j, on_item, &it), 0);
	assert_int_equal(api__json_feed(j, list_doc, len, NULL, 0), -7);
	assert_int_equal(it.n, 2);
	/* the same parser then parses whole documents again, items included (all but the skipped
	 * managedFields of the first item, which the reference lacks too) */
	static const char plain[] = "{\"metadata\":{\"resourceVersion\":\"42\"},\"items\":[{\"metadata\":"
				    "{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}}]}";
	yajl_val want = yajl_tree_parse(plain, NULL, 0);
	assert_non_null(want);
	assert_same_tree(parse(j, plain), want, "reparse");
	yajl_tree_free(want);
	api__json_free(j);
}

/* Documents and items far larger than the arenas' first blocks, between small ones: the arenas
 * grow to fit and every tree is intact. */
static void test_large_documents(void **state)
{
	(void)state;
	size_t cap = 400000, n = 0;
	char *big = malloc(cap);
	assert_non_null(big);
	n += (size_t)snprintf(big + n, cap - n, "{\"items\":[{\"metadata\":{\"name\":\"huge\",\"labels\":{");
	for (int i = 0; i < 5000; i++)
		n += (size_t)snprintf(big + n, cap - n, "%s\"k%d\":\"v%d\"", i ? "," : "", i, i);
	n += (size_t)snprintf(big + n, cap - n, "}}},{\"metadata\":{\"name\":\"small\"}}],\"metadata\":{\"x\":1}}");
	struct api__json *j = api__json_new();
	for (int round = 0; round < 3; round++) {
		yajl_val want = yajl_tree_parse(big, NULL, 0);
		assert_non_null(want);
		assert_same_tree(parse(j, big), want, "big");
		yajl_tree_free(want);
		static const char *const x[] = { "x", NULL };
		assert_string_equal(YAJL_GET_STRING(at(parse(j, "{\"x\":\"y\"}"), x)), "y");

		struct items it = { 0 };
		yajl_val root = NULL;
		assert_int_equal(api__json_begin(j, on_item, &it), 0);
		for (size_t off = 0; off < n; off += 4096)
			assert_int_equal(api__json_feed(j, big + off, n - off < 4096 ? n - off : 4096, NULL, 0), 0);
		assert_int_equal(api__json_end(j, &root, NULL, 0), 0);
		assert_int_equal(it.n, 2);
		assert_string_equal(it.names[0], "huge");
		assert_string_equal(it.names[1], "small");
	}
	api__json_free(j);
	free(big);
}

static void test_errors(void **state)
{
	(void)state;
	static const char *const bad[] = { "", "{", "{\"a\":}", "[1,]", "{\"a\":1}}", "nul", "{\"a\" 1}", "[1] [2]", "\"\\x\"" };
	struct api__json *j = api__json_new();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		yajl_val root = (yajl_val)1;
		char ebuf[256] = "";
		assert_int_equal(api__json_parse(j, bad[i], strlen(bad[i]), &root, ebuf, sizeof(ebuf)), ERR_INVALID);
		assert_null(root);
		assert_true(ebuf[0] != '\0');
	}
	/* bytes that are not UTF-8 pass through as they are (not checked; see json.c) */
	yajl_val raw = parse(j, "\"a\xff\"");
	assert_memory_equal(YAJL_GET_STRING(raw), "a\xff", 3);
	/* a failed document does not spoil the next one */
	static const char *const ok[] = { "x", NULL };
	assert_string_equal(YAJL_GET_STRING(at(parse(j, "{\"x\":\"y\"}"), ok)), "y");
	api__json_free(j);
	api__json_free(NULL);
}

/* {"a":[[...1...]]} with `arrays` arrays, into buf; returns its length. */
static size_t nested(char *buf, size_t arrays)
{
	size_t k = 0;
	memcpy(buf, "{\"a\":", 5);
	k += 5;
	memset(buf + k, '[', arrays);
	k += arrays;
	buf[k++] = '1';
	memset(buf + k, ']', arrays);
	k += arrays;
	buf[k++] = '}';
	return k;
}

/* Nesting is bounded as Go's encoding/json bounds it (maxNestingDepth 10000): 16 MB of "[" is
 * refused at the limit (it made csched allocate ~900 MB before), in a skipped field too, while
 * the deepest document Go accepts still parses. */
static void test_nesting_limit(void **state)
{
	(void)state;
	struct api__json *j = api__json_new();
	size_t n = (size_t)16 << 20;
	char *deep = malloc(n);
	assert_non_null(deep);
	memset(deep, '[', n);
	yajl_val root = (yajl_val)1;
	char ebuf[256] = "";
	assert_int_equal(api__json_parse(j, deep, n, &root, ebuf, sizeof(ebuf)), ERR_INVALID);
	assert_null(root);
	assert_string_equal(ebuf, "exceeded max depth of 10000");

	/* inside a field the parser skips (metadata.managedFields) */
	static const char pre[] = "{\"metadata\":{\"managedFields\":";
	memcpy(deep, pre, sizeof(pre) - 1);
	ebuf[0] = '\0';
	assert_int_equal(api__json_parse(j, deep, n, &root, ebuf, sizeof(ebuf)), ERR_INVALID);
	assert_string_equal(ebuf, "exceeded max depth of 10000");

	/* 10000 levels (a map around 9999 arrays around a number) is the deepest accepted */
	assert_int_equal(api__json_parse(j, deep, nested(deep, 9999), &root, ebuf, sizeof(ebuf)), 0);
	assert_non_null(root);
	assert_int_equal(api__json_parse(j, deep, nested(deep, 10000), &root, ebuf, sizeof(ebuf)), ERR_INVALID);
	assert_string_equal(ebuf, "exceeded max depth of 10000");
	api__json_free(j);
	free(deep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_yajl_tree),
		cmocka_unit_test(test_skipped_fields),
		cmocka_unit_test(test_streamed_items),
		cmocka_unit_test(test_large_documents),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nesting_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
