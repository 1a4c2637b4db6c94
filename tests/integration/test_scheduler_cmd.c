/* The csched binary (CSCHED_BUILD_DIR/csched): --version, --help, flag errors, upstream's precedence
 * of flags over the configuration file (checked through --write-config-to), and a real run
 * against tests/cluster: leader election, a pod bound, /healthz and /metrics over HTTPS with
 * delegated authentication and authorization against the real apiserver (as upstream
 * kube-scheduler answers, recorded from its v1.37.2 binary on the same cluster), /livez beside 70
 * idle connections, then SIGTERM exits 0 and releases the lease. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "apiclient/api_client.h"
#include "apiclient/api_types.h"
#include "harness.h"
#include "testutil.h"

static const char *bin(void)
{
	return CSCHED_BUILD_DIR "/csched";
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_version_help_and_errors(void **state)
{
	(void)state;
	char *out = NULL;
	assert_int_equal(harness_run(&out, "%s --version", bin()), 0);
	assert_string_equal(out, "csched v" CSCHED_VERSION "\n");
	free(out);
	assert_int_equal(harness_run(&out, "%s --help", bin()), 0);
	assert_non_null(strstr(out, "Leader election flags:"));
	assert_non_null(strstr(out, "--leader-elect-lease-duration duration"));
	free(out);

	const struct {
		const char *args, *want;
	} bad[] = {
		{ "--bogus", "Error: unknown flag: --bogus" },
		{ "--secure-port=99999", "Error: invalid argument \"99999\" for \"--secure-port\" flag" },
		{ "--port=10251", "Error: unknown flag: --port (removed: csched serves HTTPS" },
		{ "--config=/nonexistent/x.yaml", "/nonexistent/x.yaml" },
		{ "--config=/dev/null --policy-config-file=/dev/null", "cannot be used together" },
		{ "--leader-elect-resource-lock=endpoints", "leaderElection.resourceLock" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = harness_run(&out, "%s %s 2>&1", bin(), bad[i].args);
		if (rc != 1 || !strstr(out, bad[i].want))
			fail_msg("%s: exit %d, output: %s", bad[i].args, rc, out);
		free(out);
	}
}

/* Upstream precedence, seen in the effective configuration --write-config-to writes. */
static void test_flag_precedence_over_config(void **state)
{
	(void)state;
	char dir[] = "/tmp/csched-cmd.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cfgp[128], outp[128];
	snprintf(cfgp, sizeof(cfgp), "%s/c.yaml", dir);
	snprintf(outp, sizeof(outp), "%s/out.yaml", dir);
	FILE *f = fopen(cfgp, "w");
	assert_non_null(f);
	fputs("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	      "clientConnection: {kubeconfig: /from/file, qps: 20, burst: 30}\n"
	      "leaderElection: {leaderElect: true, resourceName: filelease}\n",
	      f);
	fclose(f);
	const struct {
		const char *args;
		const char *want[4];
		const char *not_want[2];
	} cases[] = {
		/* no --config: deprecated client flags and leader-election flags apply */
		{ "--kube-api-qps=77 --kube-api-burst=88 --kubeconfig=/from/flag --leader-elect=false",
		  { "qps: 77", "burst: 88", "kubeconfig: \"/from/flag\"", "leaderElect: false" },
		  { NULL, NULL } },
		/* --config: only the leader-election flags override the file */
		{ "--config=%s --kube-api-qps=77 --kubeconfig=/from/flag --leader-elect=false "
		  "--leader-elect-resource-name=flaglease --leader-elect-lease-duration=40s",
		  { "qps: 20", "kubeconfig: \"/from/file\"", "leaderElect: false", "resourceName: \"flaglease\"" },
		  { "qps: 77", "/from/flag" } },
		/* --config alone: the file wins over the flags' defaults */
		{ "--config=%s", { "leaderElect: true", "resourceName: \"filelease\"", "burst: 30", NULL }, { NULL, NULL } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char args[512], *out = NULL;
		snprintf(args, sizeof(args), cases[i].args, cfgp);
		unlink(outp);
		int rc = harness_run(&out, "%s %s --write-config-to=%s 2>&1", bin(), args, outp);
		if (rc != 0)
			fail_msg("case %zu: exit %d: %s", i, rc, out);
		free(out);
		char *w = slurp(outp);
		assert_non_null(w);
		for (size_t j = 0; j < 4 && cases[i].want[j]; j++)
			if (!strstr(w, cases[i].want[j]))
				fail_msg("case %zu: \"%s\" missing from:\n%s", i, cases[i].want[j], w);
		for (size_t j = 0; j < 2 && cases[i].not_want[j]; j++)
			if (strstr(w, cases[i].not_want[j]))
				fail_msg("case %zu: \"%s\" present in:\n%s", i, cases[i].not_want[j], w);
		free(w);
	}
	char *out = NULL;
	harness_run(&out, "rm -rf %s", dir);
	free(out);
}

/* Whether some line of text starts with prefix and contains a, b (and c unless NULL). */
static bool has_line(const char *text, const char *prefix, const char *a, const char *b, const char *c)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *eol = strchr(l, '\n');
		size_t len = eol ? (size_t)(eol - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (strncmp(line, prefix, strlen(prefix)) == 0 && strstr(line, a) && strstr(line, b) &&
		    (!c || strstr(line, c)))
			return true;
	}
	return false;
}

/* GET https://127.0.0.1:port/path with "Authorization: Bearer token" (NULL: none): the status,
 * the body in *body (malloc'd). */
static long get(int port, const char *path, const char *token, char **body)
{
	char url[256];
	long status = 0;
	struct err e = { 0 };
	snprintf(url, sizeof(url), "https://127.0.0.1:%d%s", port, path);
	if (harness_http_get_auth(url, token, &status, body, &e) != 0)
		fail_msg("GET %s: %s", url, e.msg);
	return status;
}

static char *sa_token(const struct harness_cluster *c, const char *name)
{
	char *out = NULL;
	if (harness_kubectl(c->kubeconfig, NULL, &out, "create token %s -n default", name) != 0)
		fail_msg("create token %s: %s", name, out);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/* The secure port as upstream serves it. Expected statuses and bodies: k8s.io/apiserver
 * filters.Unauthorized (401), responsewriters.Forbidden (403), both seen byte for byte from
 * kube-scheduler v1.37.2 (tests/cluster's binary, same flags and cluster). */
static void serving_checks(const struct harness_cluster *c, int port)
{
	char *out = NULL, *body = NULL;
	/* a ServiceAccount without and one with get on the non-resource URL /metrics */
	static const char *const setup[] = {
		"create sa nometrics -n default",
		"create sa metrics -n default",
		"create clusterrole it-metrics-reader --verb=get --non-resource-url=/metrics",
		"create clusterrolebinding it-metrics-reader --clusterrole=it-metrics-reader "
		"--serviceaccount=default:metrics",
	};
	for (size_t i = 0; i < sizeof(setup) / sizeof(setup[0]); i++) {
		if (harness_kubectl(c->kubeconfig, NULL, &out, "%s", setup[i]) != 0)
			fail_msg("%s: %s", setup[i], out);
		free(out);
	}
	char *without = sa_token(c, "nometrics"), *with = sa_token(c, "metrics");

	/* no credentials: the always-allowed health paths */
	assert_int_equal(get(port, "/healthz", NULL, &body), 200);
	assert_string_equal(body, "ok");
	free(body);
	assert_int_equal(get(port, "/livez", NULL, &body), 200);
	free(body);
	/* no token: system:anonymous, forbidden by the SubjectAccessReview */
	assert_int_equal(get(port, "/metrics", NULL, &body), 403);
	assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
				  "\"message\":\"forbidden: User \\\"system:anonymous\\\" cannot get path \\\"/metrics\\\"\","
				  "\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
	free(body);
	/* a token the TokenReview rejects: 401, on any path */
	assert_int_equal(get(port, "/livez", "not-a-token", &body), 401);
	assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
				  "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n");
	free(body);
	/* authenticated, not authorized */
	assert_int_equal(get(port, "/metrics", without, &body), 403);
	assert_string_equal(body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
				  "\"message\":\"forbidden: User \\\"system:serviceaccount:default:nometrics\\\" cannot get "
				  "path \\\"/metrics\\\"\",\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
	free(body);
	/* authorized */
	assert_int_equal(get(port, "/metrics", with, &body), 200);
	assert_true(has_line(body, "scheduler_schedule_attempts_total{", "result=\"scheduled\"", "profile=\"csched\"", "} 1"));
	assert_true(has_line(body, "leader_election_master_status{", "name=\"csched\"", "} 1", NULL));
	free(body);
	free(without);
	free(with);

	/* the reproduction: 70 idle connections, then /livez answers at once */
	int idle[70];
	for (int i = 0; i < 70; i++) {
		idle[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		assert_int_equal(connect(idle[i], (struct sockaddr *)&a, sizeof(a)), 0);
	}
	usleep(200 * 1000);
	int64_t t0 = harness_now_ms();
	assert_int_equal(get(port, "/livez", NULL, &body), 200);
	assert_string_equal(body, "ok");
	free(body);
	int64_t took = harness_now_ms() - t0;
	printf("[ MEASURE  ] /livez beside 70 idle connections: %lld ms\n", (long long)took);
	assert_true(took < 1000);
	for (int i = 0; i < 70; i++)
		close(idle[i]);
}

static void test_run_bind_health_sigterm(void **state)
{
	(void)state;
	struct harness_cluster c;
	struct err e = { 0 };
	char *out = NULL;
	if (harness_cluster_start(&c, 0, &e) < 0)
		fail_msg("cluster: %s", e.msg);
	struct api_client *cl = harness_client_new(&c, NULL, &e);
	assert_non_null(cl);
	assert_int_equal(harness_create_nodes(cl, "node-", 0, 3, &e), 0);

	int port = harness_free_port();
	assert_true(port > 0);
	char logp[400], portarg[32], kcarg[400];
	snprintf(logp, sizeof(logp), "%s/csched.log", c.dir);
	snprintf(portarg, sizeof(portarg), "--secure-port=%d", port);
	snprintf(kcarg, sizeof(kcarg), "--kubeconfig=%s", c.kubeconfig);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *lf = freopen(logp, "w", stderr);
		(void)lf;
		execl(bin(), "csched", kcarg, portarg, "--bind-address=127.0.0.1", "-v=2", "--leader-elect-retry-period=500ms",
		      "--leader-elect-renew-deadline=2s", "--leader-elect-lease-duration=3s", (char *)NULL);
		_exit(127);
	}
	/* the harness pods carry no schedulerName: give it csched's */
	const char *pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
			  "\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"pause\"}]}}";
	struct api_conn *conn = api_conn_new(cl, &e);
	assert_non_null(conn);
	assert_int_equal(api_request(conn, "POST", "/api/v1/namespaces/default/pods", NULL, pod, strlen(pod), NULL, &e),
			 0);
	bool bound = false;
	int64_t end = harness_now_ms() + 20000;
	while (!bound && harness_now_ms() < end) {
		struct api_response r = { 0 };
		if (api_request(conn, "GET", "/api/v1/namespaces/default/pods/p", NULL, NULL, 0, &r, &e) == 0)
			bound = strstr(r.body, "\"nodeName\":\"node-") != NULL;
		api_response_release(&r);
		if (!bound)
			usleep(100 * 1000);
	}
	if (!bound) {
		harness_run(&out, "tail -n 30 %s", logp);
		fail_msg("pod not bound; csched log:\n%s", out);
	}
	serving_checks(&c, port);
	struct api_lease l = { 0 };
	assert_int_equal(api_lease_get(conn, "kube-system", "csched", &l, &e), 0);
	assert_non_null(l.holder_identity);
	assert_true(l.holder_identity[0] != '\0');
	api_lease_release(&l);

	int64_t t0 = harness_now_ms();
	kill(pid, SIGTERM);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	printf("[ MEASURE  ] csched exited %.2f s after SIGTERM\n", (harness_now_ms() - t0) / 1000.0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	memset(&l, 0, sizeof(l));
	assert_int_equal(api_lease_get(conn, "kube-system", "csched", &l, &e), 0);
	assert_true(!l.holder_identity || l.holder_identity[0] == '\0'); /* released */
	api_lease_release(&l);

	api_conn_free(conn);
	api_client_free(cl);
	harness_cluster_stop(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_help_and_errors),
		cmocka_unit_test(test_flag_precedence_over_config),
		cmocka_unit_test(test_run_bind_health_sigterm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
