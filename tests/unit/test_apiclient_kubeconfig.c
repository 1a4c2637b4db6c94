/* Unit tests for apiclient configuration: kubeconfig variants (tests/fixtures/kubeconfig),
 * in-cluster configuration, exec credential plugins, $KUBECONFIG lists, and the helpers they
 * rest on (base64, the Status message of an error body). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiclient/api_client.h"
#include "apiclient/api_internal.h"
#include "testutil.h"

#define FIX "tests/fixtures/kubeconfig/"

static char *fixture_path(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof(rel), FIX "%s", name);
	return strdup(testutil_source_path(rel));
}

/* A file of the fixture directory as the loader resolves a relative path: "<dir>/<rel>". */
static char *fixture_rel(const char *rel)
{
	const char *dir = testutil_source_path("tests/fixtures/kubeconfig");
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", dir, rel);
	return p;
}

static void assert_pem_equals_file(const char *data, size_t len, const char *fixture)
{
	char rel[256];
	size_t flen = 0;
	snprintf(rel, sizeof(rel), FIX "%s", fixture);
	char *want = testutil_read_source_file(rel, &flen);
	assert_non_null(data);
	assert_int_equal(len, flen);
	assert_memory_equal(data, want, flen);
	free(want);
}

/* ---------- kubeconfig files that load ---------- */

struct ok_case {
	const char *file, *context;
	const char *server, *token, *ns;
	const char *token_file, *ca_file, *cert_file, *key_file; /* relative to the fixture dir */
	const char *ca_data, *cert_data, *key_data;             /* fixture whose bytes are embedded */
	bool insecure;
	const char *exec_cmd; /* relative to the fixture dir */
	const char *exec_args[4];
	const char *exec_env0;
};

static const struct ok_case ok_cases[] = {
	{.file = "token.yaml", .server = "https://127.0.0.1:6443", .token = "abc.def.ghi", .ns = "team-a",
	 .ca_data = "ca.crt"},
	{.file = "tokenfile.yaml", .server = "https://kube.example:443/", .token_file = "token.txt", .ca_file = "ca.crt"},
	{.file = "cert-files.yaml", .server = "https://127.0.0.1:6443", .ca_file = "./ca.crt", .cert_file = "client.crt",
	 .key_file = "client.key"},
	{.file = "cert-data.yaml", .server = "https://127.0.0.1:6443", .ca_data = "ca.crt", .cert_data = "client.crt",
	 .key_data = "client.key"},
	{.file = "insecure.yaml", .server = "https://10.1.2.3:6443", .token = "t", .insecure = true},
	{.file = "exec.yaml", .server = "https://127.0.0.1:6443", .ca_data = "ca.crt", .exec_cmd = "./exec-plugin.sh",
	 .exec_args = {"--mode", "token"}, .exec_env0 = "FIXTURE_SUFFIX=from-env"},
	/* Context selection: the current one, and another one by name. */
	{.file = "contexts.yaml", .server = "https://dev.example:6443", .token = "dev-token", .ns = "dev-ns",
	 .insecure = true},
	{.file = "contexts.yaml", .context = "prod", .server = "https://prod.example:6443", .token = "prod-token",
	 .ns = "prod-ns", .ca_data = "ca.crt"},
};

static void check_rel(const char *got, const char *rel)
{
	if (!rel) {
		assert_null(got);
		return;
	}
	char *want = fixture_rel(rel);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(want);
}

static void test_kubeconfig_ok(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
		const struct ok_case *t = &ok_cases[i];
		struct api_config c;
		struct err e = {0};
		char *path = fixture_path(t->file);
		int rc = api_config_load_kubeconfig(&c, path, t->context, &e);
		if (rc)
			fail_msg("case %zu (%s): %s", i, t->file, e.msg);
		assert_string_equal(c.server, t->server);
		if (t->token)
			assert_string_equal(c.token, t->token);
		else
			assert_null(c.token);
		if (t->ns)
			assert_string_equal(c.namespace, t->ns);
		else
			assert_null(c.namespace);
		check_rel(c.token_file, t->token_file);
		check_rel(c.ca_file, t->ca_file);
		check_rel(c.cert_file, t->cert_file);
		check_rel(c.key_file, t->key_file);
		if (t->ca_data)
			assert_pem_equals_file(c.ca_data, c.ca_data_len, t->ca_data);
		else
			assert_null(c.ca_data);
		if (t->cert_data)
			assert_pem_equals_file(c.cert_data, c.cert_data_len, t->cert_data);
		else
			assert_null(c.cert_data);
		if (t->key_data)
			assert_pem_equals_file(c.key_data, c.key_data_len, t->key_data);
		else
			assert_null(c.key_data);
		assert_int_equal(c.insecure_skip_tls_verify, t->insecure);
		if (t->exec_cmd) {
			assert_non_null(c.exec);
			check_rel(c.exec->command, t->exec_cmd);
			assert_string_equal(c.exec->api_version, "client.authentication.k8s.io/v1");
			size_t n = 0;
			for (; c.exec->args[n]; n++)
				assert_string_equal(c.exec->args[n], t->exec_args[n]);
			assert_null(t->exec_args[n]);
			assert_string_equal(c.exec->env[0], t->exec_env0);
			assert_null(c.exec->env[1]);
		} else {
			assert_null(c.exec);
		}
		/* Defaults the transport relies on. */
		assert_int_equal(c.connect_timeout_ms, 10000);
		assert_int_equal(c.request_timeout_ms, 60000);
		api_config_release(&c);
		assert_null(c.server);
		free(path);
	}
}

/* ---------- kubeconfig files that must fail, with a message naming file and field ---------- */

struct bad_case {
	const char *file, *context;
	int code;
	const char *want[3]; /* substrings of the message (the file name is always checked) */
};

static const struct bad_case bad_cases[] = {
	{"malformed.yaml", NULL, ERR_INVALID, {"malformed.yaml:7:", "invalid YAML"}},
	{"bad-base64.yaml", NULL, ERR_INVALID,
	 {"bad-base64.yaml:10:", "users[0].user.client-certificate-data: invalid base64"}},
	{"ca-not-pem.yaml", NULL, ERR_INVALID, {"clusters[0].cluster.certificate-authority-data: not PEM data"}},
	{"missing-server.yaml", NULL, ERR_INVALID, {"missing-server.yaml:6:", "clusters[0].cluster.server: required"}},
	{"missing-user.yaml", NULL, ERR_INVALID, {"contexts[0].context.user: no user named \"nobody\""}},
	{"cert-without-key.yaml", NULL, ERR_INVALID, {"users[0].user: client-key or client-key-data: required"}},
	{"missing-tokenfile.yaml", NULL, ERR_IO, {"users[0].user.tokenFile", "no-such-token.txt", "No such file"}},
	{"no-current-context.yaml", NULL, ERR_INVALID, {"current-context: not set"}},
	{"wrong-types.yaml", NULL, ERR_INVALID, {"wrong-types.yaml:3:", "clusters: expected a list"}},
	{"exec-bad-version.yaml", NULL, ERR_UNSUPPORTED, {"users[0].user.exec.apiVersion", "v1alpha1"}},
	{"contexts.yaml", "staging", ERR_INVALID, {"no context named \"staging\""}},
	{"no-such-file.yaml", NULL, ERR_IO, {"no-such-file.yaml: No such file"}},
	{"token.txt", NULL, ERR_INVALID, {"token.txt:1:1: expected a mapping"}},
};

static void test_kubeconfig_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *t = &bad_cases[i];
		struct api_config c;
		struct err e = {0};
		char *path = fixture_path(t->file);
		int rc = api_config_load_kubeconfig(&c, path, t->context, &e);
		if (rc != t->code)
			fail_msg("case %zu (%s): rc %d, want %d (%s)", i, t->file, rc, t->code, e.msg);
		if (!strstr(e.msg, path))
			fail_msg("case %zu: message does not name the file: %s", i, e.msg);
		for (size_t j = 0; j < 3 && t->want[j]; j++)
			if (!strstr(e.msg, t->want[j]))
				fail_msg("case %zu (%s): message lacks \"%s\": %s", i, t->file, t->want[j], e.msg);
		/* Nothing is handed out on failure. */
		assert_null(c.server);
		assert_null(c.token);
		api_config_release(&c);
		free(path);
	}
}

/* Every prefix of a valid kubeconfig is either accepted or rejected with a message, never a
 * crash (run under ASan/valgrind this also proves no leak on any error path). */
static void test_kubeconfig_truncations(void **state)
{
	(void)state;
	size_t len = 0;
	char *text = testutil_read_source_file(FIX "exec.yaml", &len);
	char dir[] = "/tmp/csched-kc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/config", dir);
	int failures = 0;
	for (size_t n = 0; n <= len; n += 7) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fwrite(text, 1, n, f);
		fclose(f);
		struct api_config c;
		struct err e = {0};
		int rc = api_config_load_kubeconfig(&c, path, NULL, &e);
		if (rc) {
			failures++;
			assert_non_null(strstr(e.msg, path));
		}
		api_config_release(&c);
	}
	assert_true(failures > 0);
	unlink(path);
	rmdir(dir);
	free(text);
}

/* ---------- $KUBECONFIG lists and the default order ---------- */

static void test_kubeconfig_env_list(void **state)
{
	(void)state;
	char *a = fixture_path("contexts.yaml"), *b = fixture_path("token.yaml");
	char env[1024];
	/* Missing files are skipped; the first file that sets current-context wins, and names
	 * resolve across files (ctx1 is only in the second file). */
	snprintf(env, sizeof(env), "/nonexistent/kubeconfig:%s:%s", a, b);
	setenv("KUBECONFIG", env, 1);
	struct api_config c;
	struct err e = {0};
	assert_int_equal(api_config_load_default(&c, NULL, NULL, &e), 0);
	assert_string_equal(c.server, "https://dev.example:6443");
	api_config_release(&c);
	assert_int_equal(api_config_load_default(&c, NULL, "ctx1", &e), 0);
	assert_string_equal(c.server, "https://127.0.0.1:6443");
	assert_string_equal(c.token, "abc.def.ghi");
	api_config_release(&c);
	/* An explicit path wins over $KUBECONFIG. */
	assert_int_equal(api_config_load_default(&c, b, NULL, &e), 0);
	assert_string_equal(c.namespace, "team-a");
	api_config_release(&c);
	setenv("KUBECONFIG", "/nonexistent/a:/nonexistent/b", 1);
	assert_int_equal(api_config_load_default(&c, NULL, NULL, &e), ERR_IO);
	assert_non_null(strstr(e.msg, "KUBECONFIG"));
	unsetenv("KUBECONFIG");
	free(a);
	free(b);
}

/* ---------- in-cluster ---------- */

static void write_file(const char *dir, const char *name, const char *text)
{
	char p[512];
	assert_true(snprintf(p, sizeof(p), "%s/%s", dir, name) < (int)sizeof(p));
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_in_cluster(void **state)
{
	(void)state;
	char dir[] = "/tmp/csched-sa-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct api_config c;
	struct err e = {0};
	unsetenv("POD_NAMESPACE");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	assert_int_equal(api_config_in_cluster(&c, dir, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "KUBERNETES_SERVICE_HOST"));

	setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	assert_int_equal(api_config_in_cluster(&c, dir, &e), ERR_IO); /* no token yet */
	assert_non_null(strstr(e.msg, "token"));

	write_file(dir, "token", "sa-token\n");
	write_file(dir, "ca.crt", "-----BEGIN CERTIFICATE-----\n");
	write_file(dir, "namespace", "kube-system\n");
	assert_int_equal(api_config_in_cluster(&c, dir, &e), 0);
	assert_string_equal(c.server, "https://10.0.0.1:443");
	char want[512];
	snprintf(want, sizeof(want), "%s/token", dir);
	assert_string_equal(c.token_file, want);
	assert_null(c.token); /* read (and re-read as it rotates) by the client */
	snprintf(want, sizeof(want), "%s/ca.crt", dir);
	assert_string_equal(c.ca_file, want);
	assert_string_equal(c.namespace, "kube-system");
	api_config_release(&c);

	/* IPv6 service host; POD_NAMESPACE wins over the file. */
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	setenv("POD_NAMESPACE", "from-env", 1);
	assert_int_equal(api_config_in_cluster(&c, dir, &e), 0);
	assert_string_equal(c.server, "https://[fd00::1]:443");
	assert_string_equal(c.namespace, "from-env");
	api_config_release(&c);

	/* load_default without a kubeconfig uses in-cluster when the variables are set... but its
	 * default directory does not exist here, so it falls back to ~/.kube/config. */
	unsetenv("KUBECONFIG");
	char home[] = "/tmp/csched-home-XXXXXX";
	assert_non_null(mkdtemp(home));
	const char *old_home = getenv("HOME");
	char *saved = old_home ? strdup(old_home) : NULL;
	setenv("HOME", home, 1);
	assert_int_equal(api_config_load_default(&c, NULL, NULL, &e), ERR_IO);
	assert_non_null(strstr(e.msg, ".kube/config"));
	char kdir[512], kpath[600];
	snprintf(kdir, sizeof(kdir), "%s/.kube", home);
	mkdir(kdir, 0700);
	size_t len;
	char *text = testutil_read_source_file(FIX "insecure.yaml", &len);
	write_file(kdir, "config", text);
	free(text);
	assert_int_equal(api_config_load_default(&c, NULL, NULL, &e), 0);
	assert_string_equal(c.server, "https://10.1.2.3:6443");
	api_config_release(&c);
	snprintf(kpath, sizeof(kpath), "%s/config", kdir);
	unlink(kpath);
	rmdir(kdir);
	rmdir(home);
	if (saved)
		setenv("HOME", saved, 1);
	free(saved);
	unsetenv("POD_NAMESPACE");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	const char *names[] = {"token", "ca.crt", "namespace"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "%s/%s", dir, names[i]);
		unlink(want);
	}
	rmdir(dir);
}

/* ---------- exec plugins ---------- */

struct exec_case {
	const char *mode;
	int code;
	const char *token;
	bool cert;
	int64_t expiry_us;
	const char *msg; /* error substring */
};

static const struct exec_case exec_cases[] = {
	{"token", 0, "exec-token-from-env", false, 1893553445000000LL, NULL}, /* 2030-01-02T03:04:05Z */
	{"cert", 0, NULL, true, 0, NULL},
	{"bad", ERR_INVALID, NULL, false, 0, "not a JSON ExecCredential"},
	{"fail", ERR_IO, NULL, false, 0, "exited with status 3"},
};

static void test_exec_plugin(void **state)
{
	(void)state;
	struct api_config c;
	struct err e = {0};
	char *path = fixture_path("exec.yaml");
	assert_int_equal(api_config_load_kubeconfig(&c, path, NULL, &e), 0);
	for (size_t i = 0; i < sizeof(exec_cases) / sizeof(exec_cases[0]); i++) {
		const struct exec_case *t = &exec_cases[i];
		free(c.exec->args[1]);
		c.exec->args[1] = strdup(t->mode);
		struct api__exec_result r;
		int rc = api__exec_run(c.exec, &r, &e);
		if (rc != t->code)
			fail_msg("case %s: rc %d want %d: %s", t->mode, rc, t->code, e.msg);
		if (rc) {
			assert_non_null(strstr(e.msg, t->msg));
			assert_non_null(strstr(e.msg, "exec-plugin.sh"));
			assert_null(r.token);
			continue;
		}
		if (t->token)
			assert_string_equal(r.token, t->token);
		else
			assert_null(r.token);
		assert_int_equal(r.expiry_us, t->expiry_us);
		if (t->cert) {
			assert_pem_equals_file(r.cert_data, r.cert_len, "client.crt");
			assert_pem_equals_file(r.key_data, r.key_len, "client.key");
		} else {
			assert_null(r.cert_data);
		}
		api__exec_result_release(&r);
	}
	/* Bounded by the plugin's timeout (issue 18 defect 5): one that closed its output but keeps
	 * running, and one that prints nothing, are killed at the deadline with a clear error (before,
	 * the first one blocked in waitpid, under the credential lock, until it chose to exit). */
	static const struct {
		const char *mode, *msg;
	} hang[] = { { "linger", "did not exit within 0.3 s" }, { "silent", "no credential within 0.3 s" } };
	c.exec->timeout_ms = 300;
	for (size_t i = 0; i < sizeof(hang) / sizeof(hang[0]); i++) {
		free(c.exec->args[1]);
		c.exec->args[1] = strdup(hang[i].mode);
		struct api__exec_result hr;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(api__exec_run(c.exec, &hr, &e), ERR_TIMEOUT);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		assert_non_null(strstr(e.msg, hang[i].msg));
		assert_null(hr.token);
		assert_true(t1.tv_sec - t0.tv_sec < 5); /* the plugin runs for 30 s */
	}
	c.exec->timeout_ms = 0;
	/* The plugin's apiVersion must match the configured one. */
	free(c.exec->args[1]);
	c.exec->args[1] = strdup("token");
	free(c.exec->api_version);
	c.exec->api_version = strdup("client.authentication.k8s.io/v1beta1");
	struct api__exec_result r;
	assert_int_equal(api__exec_run(c.exec, &r, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "apiVersion"));
	/* A command that does not exist. */
	free(c.exec->command);
	c.exec->command = strdup("/nonexistent/plugin");
	assert_int_equal(api__exec_run(c.exec, &r, &e), ERR_IO);
	assert_non_null(strstr(e.msg, "/nonexistent/plugin"));
	api_config_release(&c);
	free(path);
}

/* ---------- helpers ---------- */

static void test_base64(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
		int rc;
	} cases[] = {
		{"", "", 0},
		{"Zg==", "f", 0},
		{"Zm8=", "fo", 0},
		{"Zm9v", "foo", 0},
		{"Zm9v\nYmFy", "foobar", 0}, /* line breaks are ignored */
		{"Zm9vYg", "foob", 0},       /* missing padding is accepted */
		{"Zm9vY", NULL, ERR_INVALID}, /* 6 bits cannot make a byte */
		{"Zm9v*", NULL, ERR_INVALID},
		{"Zg==Zg==", NULL, ERR_INVALID}, /* data after padding */
		{"Zm9v=", NULL, ERR_INVALID},    /* padding that completes nothing */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;
		size_t len = 99;
		int rc = api__base64_decode(cases[i].in, strlen(cases[i].in), &out, &len);
		assert_int_equal(rc, cases[i].rc);
		if (rc == 0) {
			assert_int_equal(len, strlen(cases[i].out));
			assert_string_equal(out, cases[i].out);
		} else {
			assert_null(out);
		}
		free(out);
	}
}

static void test_status_message(void **state)
{
	(void)state;
	static const struct {
		const char *body;
		long status;
		const char *want;
	} cases[] = {
		{"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"pods \\\"x\\\" not found\","
		 "\"reason\":\"NotFound\",\"code\":404}",
		 404, "pods \"x\" not found"},
		{"<html>\x01gateway</html>", 502, "<html> gateway</html>"},
		{"", 503, "HTTP status 503 with no message"},
		{"{\"kind\":\"Status\"}", 500, "{\"kind\":\"Status\"}"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[256];
		api__status_message(cases[i].body, strlen(cases[i].body), cases[i].status, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kubeconfig_ok),
		cmocka_unit_test(test_kubeconfig_errors),
		cmocka_unit_test(test_kubeconfig_truncations),
		cmocka_unit_test(test_kubeconfig_env_list),
		cmocka_unit_test(test_in_cluster),
		cmocka_unit_test(test_exec_plugin),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_status_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
