/* Unit tests for common/base64.h, common/strbuf.h and ARRAY_SIZE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/macros.h"
#include "common/strbuf.h"

static void test_base64(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		enum base64_mode mode;
		const char *out; /* NULL: invalid */
		size_t bad_at;
	} cases[] = {
		{"", BASE64_STRICT, "", 0},
		{"Zg==", BASE64_STRICT, "f", 0},
		{"Zm8=", BASE64_STRICT, "fo", 0},
		{"Zm9v", BASE64_STRICT, "foo", 0},
		{"Zm9vYmFy", BASE64_STRICT, "foobar", 0},
		{"+/+/", BASE64_STRICT, "\xfb\xff\xbf", 0},
		{"Zm9", BASE64_STRICT, NULL, 3},      /* length not a multiple of 4 */
		{"Zg", BASE64_STRICT, NULL, 2},
		{"Zm 9", BASE64_STRICT, NULL, 2},     /* no white space */
		{"Z===", BASE64_STRICT, NULL, 1},     /* '=' only in the last two places */
		{"Zg=v", BASE64_STRICT, NULL, 3},     /* data after padding */
		{"=Zm9", BASE64_STRICT, NULL, 0},
		{"Zm9v\n", BASE64_STRICT, NULL, 5},
		{"Zm9*", BASE64_STRICT, NULL, 3},
		{"Zm9vYg==Zm9v", BASE64_STRICT, NULL, 6},
		{"Zg", BASE64_LENIENT, "f", 0},       /* padding optional */
		{"Zm8", BASE64_LENIENT, "fo", 0},
		{"Zm9v\nYmFy\n", BASE64_LENIENT, "foobar", 0},
		{" Z g = = ", BASE64_LENIENT, "f", 0},
		{"Z", BASE64_LENIENT, NULL, 1},       /* 6 bits: not a byte */
		{"Zg=", BASE64_LENIENT, NULL, 3},     /* padding that does not complete the group */
		{"Zm8==", BASE64_LENIENT, NULL, 5},
		{"Zg==Zg==", BASE64_LENIENT, NULL, 4},
		{"Zm9v!", BASE64_LENIENT, NULL, 4},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t n = strlen(cases[i].in), len = 99, bad = 99;
		unsigned char *out = malloc(base64_decoded_max(n));
		assert_non_null(out);
		bool ok = base64_decode(cases[i].in, n, cases[i].mode, out, &len, &bad);
		if (ok != (cases[i].out != NULL))
			fail_msg("\"%s\" (mode %d): %s", cases[i].in, cases[i].mode, ok ? "accepted" : "rejected");
		if (ok && (len != strlen(cases[i].out) || memcmp(out, cases[i].out, len)))
			fail_msg("\"%s\": wrong output (%zu bytes)", cases[i].in, len);
		if (!ok && bad != cases[i].bad_at)
			fail_msg("\"%s\": bad_at %zu want %zu", cases[i].in, bad, cases[i].bad_at);
		free(out);
	}
}

static void test_strbuf(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	assert_null(sb.data);
	assert_true(strbuf_puts(&sb, "a"));
	assert_true(strbuf_addf(&sb, "-%d-%s", 42, "b"));
	assert_string_equal(sb.data, "a-42-b");
	assert_int_equal(sb.len, 6);
	char big[1000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_true(strbuf_addf(&sb, "%s", big)); /* longer than the formatting scratch buffer */
	assert_int_equal(sb.len, 6 + 999);
	assert_int_equal(strlen(sb.data), sb.len);
	/* max: refused without growing, not sticky */
	assert_false(strbuf_add_max(&sb, "yz", 2, sb.len + 1));
	assert_false(sb.oom);
	assert_true(strbuf_add_max(&sb, "y", 1, sb.len + 1));
	assert_true(strbuf_add(&sb, "", 0));
	size_t len = 0;
	char *s = strbuf_detach(&sb, &len);
	assert_int_equal(len, 6 + 999 + 1);
	assert_int_equal(s[len - 1], 'y');
	assert_null(sb.data);
	assert_int_equal(sb.len, 0);
	free(s);
	assert_null(strbuf_detach(&sb, NULL));
	strbuf_release(&sb); /* no-op on an empty one */
	/* out of memory is sticky */
	assert_true(strbuf_puts(&sb, "x"));
	assert_false(strbuf_grow(&sb, SIZE_MAX / 2));
	assert_true(sb.oom);
	assert_false(strbuf_puts(&sb, "y"));
	assert_string_equal(sb.data, "x");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_strbuf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
