/* What the informer does after a failed watch or list page (issue 18 defect 6), decided from the
 * Status the server sent, as client-go v0.37.2's reflector (tools/cache/reflector.go: watch(),
 * list(), isExpiredError, isTooLargeResourceVersionError; tools/pager/pager.go for continue
 * tokens). The Status texts marked "captured" were answered by the real kube-apiserver v1.37.2 of
 * tests/cluster (the curl commands are in each comment); the others are built as the apiserver's
 * source builds them (apimachinery pkg/api/errors NewTooManyRequests, NewInternalError). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "apiclient/informer_internal.h"
#include "testutil.h"

/* captured: watch ?resourceVersion=2 after an etcd compaction, apiserver --watch-cache=false
 * (one line of the 200 stream) */
static const char watch_expired[] =
	"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
	"\"message\":\"The resourceVersion for the provided watch is too old.\",\"reason\":\"Expired\",\"code\":410}}";
/* captured: GET /api/v1/pods?resourceVersion=999999999&limit=500 (HTTP 504) */
static const char too_large[] =
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: Too large "
	"resource version: 999999999, current: 221\",\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"reason\":"
	"\"ResourceVersionTooLarge\",\"message\":\"Too large resource version\"}],\"retryAfterSeconds\":1},\"code\":504}";
/* captured: GET ...configmaps?limit=1&continue=<token of a list before the compaction>
 * (HTTP 410, --watch-cache=false) */
static const char continue_expired[] =
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsI"
	"nN0YXJ0IjoiY20xXHUwMDAwIn0\"},\"status\":\"Failure\",\"message\":\"The provided continue parameter is too old "
	"to display a consistent list result. You can start a new list without the continue parameter, or use the "
	"continue token in this response to retrieve the remainder of the results. Continuing with the provided "
	"token results in an inconsistent list - objects that were created, modified, or deleted between the time "
	"the first chunk was returned and now may show up in the list.\",\"reason\":\"Expired\",\"code\":410}";
/* captured: GET /api/v1/pods?watch=1 without credentials (HTTP 403) */
static const char forbidden[] =
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"pods is forbidden: "
	"User \\\"system:anonymous\\\" cannot watch resource \\\"pods\\\" in API group \\\"\\\" at the cluster scope\","
	"\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},\"code\":403}";
/* apimachinery NewTooManyRequests("...", 1) */
static const char too_many[] =
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Too many requests, "
	"please try again later.\",\"reason\":\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":1},\"code\":429}";
/* apimachinery NewInternalError(errors.New("etcdserver: request timed out")) */
static const char internal[] =
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal error "
	"occurred: etcdserver: request timed out\",\"reason\":\"InternalError\",\"details\":{\"causes\":[{\"message\":"
	"\"etcdserver: request timed out\"}]},\"code\":500}";
/* apiserver 1.17.0-1.18.5: no cause type, only the cause's message (upstream's second test) */
static const char too_large_old[] =
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout\","
	"\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"message\":\"Too large resource version\"}]},\"code\":504}";
/* an ordinary 504 (no cause): not a too large resourceVersion */
static const char plain_timeout[] =
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request "
	"did not complete within the allotted timeout\",\"reason\":\"Timeout\",\"code\":504}";

static void status_of(const char *body, long http, struct api__inf_status *st)
{
	struct api__json *j = api__json_new();
	assert_non_null(j);
	api__inf_status_from_body(j, body, body ? strlen(body) : 0, http, st);
	api__json_free(j);
}

static void test_watch_error_event_expired(void **state)
{
	(void)state;
	static const char *obj_path[] = {"object", NULL};
	struct api__json *j = api__json_new();
	yajl_val root = NULL;
	char eb[64];
	assert_int_equal(api__json_parse(j, watch_expired, strlen(watch_expired), &root, eb, sizeof(eb)), 0);
	struct api__inf_status st;
	api__inf_status_parse(yajl_tree_get(root, obj_path, yajl_t_object), 0, &st);
	assert_int_equal(st.code, 410);
	assert_string_equal(st.reason, "Expired");
	assert_true(api__inf_status_expired(&st));
	assert_int_equal(api__inf_after_watch_error(ERR_GONE, &st), INF_RELIST);
	api__json_free(j);
}

/* reflector.go: a too large resourceVersion ends watch() (default case), the next ListAndWatch,
 * after the backoff, lists (list(): isTooLargeResourceVersionError -> RV "", as csched's are) */
static void test_too_large_rv_relists(void **state)
{
	(void)state;
	struct api__inf_status st;
	status_of(too_large, 504, &st);
	assert_true(st.rv_too_large);
	assert_false(api__inf_status_expired(&st));
	assert_int_equal(api__inf_after_watch_error(ERR_HTTP, &st), INF_RELIST_BACKOFF);
	status_of(too_large_old, 504, &st);
	assert_true(st.rv_too_large);
	assert_int_equal(api__inf_after_watch_error(ERR_HTTP, &st), INF_RELIST_BACKOFF);
	/* a plain Timeout (no cause, no such message) is not one: the default case */
	status_of(plain_timeout, 504, &st);
	assert_false(st.rv_too_large);
	assert_int_equal(api__inf_after_watch_error(ERR_HTTP, &st), INF_RELIST_BACKOFF);
}

/* pager.go: an Expired error on a continue page -> list again from the start */
static void test_continue_expired(void **state)
{
	(void)state;
	struct api__inf_status st;
	status_of(continue_expired, 410, &st);
	assert_true(api__inf_status_expired(&st));
	assert_false(st.rv_too_large);
}

/* reflector.go watch(): 429 -> back off, watch again from the last resourceVersion */
static void test_too_many_requests_rewatches(void **state)
{
	(void)state;
	struct api__inf_status st;
	status_of(too_many, 429, &st);
	assert_int_equal(api__inf_after_watch_error(ERR_HTTP, &st), INF_REWATCH_BACKOFF);
	/* IsTooManyRequests checks the code whatever the reason */
	status_of("<html>slow down</html>", 429, &st);
	assert_int_equal(api__inf_after_watch_error(ERR_HTTP, &st), INF_REWATCH_BACKOFF);
}

/* reflector.go watch(): any other error ends ListAndWatch; the next run (after the backoff)
 * lists again. An InternalError is re-watched only within MaxInternalErrorRetryDuration (0). */
static void test_other_errors_relist_after_backoff(void **state)
{
	(void)state;
	struct api__inf_status st;
	status_of(internal, 500, &st);
	assert_string_equal(st.reason, "InternalError");
	assert_int_equal(api__inf_after_watch_error(ERR_HTTP, &st), INF_RELIST_BACKOFF);
	status_of(forbidden, 403, &st);
	assert_int_equal(st.code, 403);
	assert_int_equal(api__inf_after_watch_error(ERR_FORBIDDEN, &st), INF_RELIST_BACKOFF);
	/* a 503 from something that is not an apiserver: no Status, the HTTP status stands in */
	status_of("Service Unavailable", 503, &st);
	assert_int_equal(st.code, 503);
	assert_string_equal(st.reason, "");
	assert_int_equal(api__inf_after_watch_error(ERR_HTTP, &st), INF_RELIST_BACKOFF);
}

/* IsGone by code only when the reason is unknown (apimachinery errors.go knownReasons) */
static void test_gone_by_code(void **state)
{
	(void)state;
	struct api__inf_status st;
	status_of("{\"kind\":\"Status\",\"code\":410}", 410, &st);
	assert_true(api__inf_status_expired(&st));
	status_of("{\"kind\":\"Status\",\"reason\":\"Gone\",\"code\":410}", 410, &st);
	assert_true(api__inf_status_expired(&st));
	/* a known reason with code 410 is not IsGone (nor IsResourceExpired) */
	status_of("{\"kind\":\"Status\",\"reason\":\"Conflict\",\"code\":410}", 410, &st);
	assert_false(api__inf_status_expired(&st));
}

/* No Status: a broken stream is watched again (backoff); a line that is not an event is the
 * decoding error upstream's StreamWatcher reports as an InternalError: relist. */
static void test_no_status(void **state)
{
	(void)state;
	assert_int_equal(api__inf_after_watch_error(ERR_TRANSPORT, NULL), INF_REWATCH_BACKOFF);
	assert_int_equal(api__inf_after_watch_error(ERR_INVALID, NULL), INF_RELIST_BACKOFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watch_error_event_expired),
		cmocka_unit_test(test_too_large_rv_relists),
		cmocka_unit_test(test_continue_expired),
		cmocka_unit_test(test_too_many_requests_rewatches),
		cmocka_unit_test(test_other_errors_relist_after_backoff),
		cmocka_unit_test(test_gone_by_code),
		cmocka_unit_test(test_no_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
