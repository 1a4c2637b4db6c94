/* Unit test for api_trace_requests, the request log that the RBAC test reads (tests/rbac): each
 * request is one "METHOD PATH" line, written before it is sent (a refused connection still
 * counts: RBAC is about what csched asks for). The server is a closed port. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiclient/api_client.h"

static void test_trace_lines(void **state)
{
	(void)state;
	char path[] = "/tmp/csched-trace.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct err e = { 0 };
	assert_int_equal(api_global_init(&e), 0);
	assert_int_equal(api_trace_requests(path, &e), 0);
	struct api_config cfg = { 0 };
	cfg.server = strdup("https://127.0.0.1:1");
	cfg.connect_timeout_ms = 200;
	cfg.request_timeout_ms = 500;
	struct api_client *c = api_client_new(&cfg, &e);
	assert_non_null(c);
	struct api_conn *conn = api_conn_new(c, &e);
	assert_non_null(conn);
	assert_int_not_equal(api_request(conn, "GET", "/api/v1/nodes?limit=500", NULL, NULL, 0, NULL, &e), 0);
	assert_int_not_equal(api_request(conn, "POST", "/api/v1/namespaces/ns/pods/p/binding", "application/json", "{}",
					 2, NULL, &e),
			     0);
	api_conn_free(conn);
	api_client_free(c);

	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char text[512] = "";
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	unlink(path);
	text[n] = '\0';
	assert_string_equal(text, "GET /api/v1/nodes?limit=500\nPOST /api/v1/namespaces/ns/pods/p/binding\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
