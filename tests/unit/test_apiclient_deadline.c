/* api_conn_set_deadline (issue 18 defect 2): a request on a connection with a deadline ends at
 * the deadline, not at the client's request timeout, when the server accepts and never answers;
 * once the deadline has passed nothing is sent. client-go: every request of a lease renewal runs
 * under wait.PollUntilContextTimeout's context, whose deadline is renewDeadline
 * (tools/leaderelection/leaderelection.go renew), and an HTTP request ends at its context's
 * deadline (context.DeadlineExceeded). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "apiclient/api_client.h"
#include "common/clock.h"

/* A listening socket that never accepts: the kernel completes the handshake (backlog), the
 * request is sent, no answer ever comes. */
static int silent_server(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static struct api_client *client_for(int port)
{
	struct api_config ac = {0};
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	ac.server = strdup(url);
	ac.request_timeout_ms = 30000; /* what must not be waited for */
	struct err e = {0};
	struct api_client *c = api_client_new(&ac, &e);
	api_config_release(&ac);
	assert_non_null(c);
	return c;
}

static void test_request_ends_at_deadline(void **state)
{
	(void)state;
	int port = 0, fd = silent_server(&port);
	struct api_client *c = client_for(port);
	struct err e = {0};
	struct api_conn *conn = api_conn_new(c, &e);
	assert_non_null(conn);

	int64_t t0 = mono_ns(), deadline = t0 + 300 * 1000000LL;
	api_conn_set_deadline(conn, deadline);
	struct api_lease l = {0};
	int rc = api_lease_get(conn, "kube-system", "x", &l, &e);
	int64_t took_ms = (mono_ns() - t0) / 1000000;
	assert_true(rc < 0);
	assert_true(took_ms >= 250);
	assert_true(took_ms < 10000); /* not the 30 s request timeout (generous: CI machines are loaded) */

	/* past the deadline: ERR_TIMEOUT at once, nothing sent. libcurl may end the first request
	 * a few ms early (its timeout is rounded to ms and measured from its own start), so wait
	 * until the deadline has surely passed. */
	while (mono_ns() <= deadline + 1000000LL)
		usleep(1000);
	t0 = mono_ns();
	err_clear(&e);
	rc = api_lease_get(conn, "kube-system", "x", &l, &e);
	assert_int_equal(rc, ERR_TIMEOUT);
	assert_non_null(strstr(e.msg, "deadline exceeded"));
	assert_true((mono_ns() - t0) / 1000000 < 10000); /* no wait for the 30 s timeout either */

	api_lease_release(&l);
	api_conn_free(conn);
	api_client_free(c);
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	struct err e = {0};
	return api_global_init(&e);
}

static int teardown(void **state)
{
	(void)state;
	api_global_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_ends_at_deadline),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
