/* csched's command-line flags (cmd/flags.h, linked from csched_cmd): pflag syntax, defaults,
 * values, errors naming the flag, and the --help text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/flags.h"

#define MAX_ARGS 10

struct flag_case {
	const char *args[MAX_ARGS]; /* after argv[0], NULL-terminated */
	const char *err;            /* expected error message, NULL = success */
	void (*check)(const struct cmd_flags *f);
};

static void check_defaults(const struct cmd_flags *f)
{
	assert_null(f->config);
	/* upstream SecureServingOptions (0.0.0.0) and kube-scheduler's DefaultKubeSchedulerPort */
	assert_string_equal(f->bind_address, "0.0.0.0");
	assert_int_equal(f->port, 10259);
	assert_null(f->tls_cert_file);
	assert_null(f->tls_private_key_file);
	/* upstream NewDelegatingAuthenticationOptions / NewDelegatingAuthorizationOptions */
	assert_int_equal(f->authentication_token_cache_ttl_ns, 10000000000LL);
	assert_int_equal(f->authorization_allow_ttl_ns, 10000000000LL);
	assert_int_equal(f->authorization_deny_ttl_ns, 10000000000LL);
	assert_string_equal(f->authorization_always_allow_paths, "/healthz,/readyz,/livez");
	assert_true(f->authentication_tolerate_lookup_failure); /* kube-scheduler sets it */
	assert_true(f->leader_elect);
	assert_false(f->set_leader_elect);
	assert_int_equal(f->lease_duration_ns, 15000000000LL);
	assert_int_equal(f->renew_deadline_ns, 10000000000LL);
	assert_int_equal(f->retry_period_ns, 2000000000LL);
	assert_string_equal(f->resource_lock, "leases");
	assert_string_equal(f->resource_name, "csched");
	assert_string_equal(f->resource_namespace, "kube-system");
	assert_true(f->kube_api_qps == 50.0);
	assert_int_equal(f->kube_api_burst, 100);
	assert_int_equal(f->verbosity, 0);
	assert_false(f->help || f->version || f->set_kubeconfig || f->set_kube_api_qps || f->set_kube_api_content_type);
	/* upstream deprecated.go: default "application/vnd.kubernetes.protobuf" */
	assert_string_equal(f->kube_api_content_type, "application/vnd.kubernetes.protobuf");
}

static void check_config(const struct cmd_flags *f)
{
	assert_string_equal(f->config, "/etc/csched.yaml");
}

static void check_v3(const struct cmd_flags *f)
{
	assert_int_equal(f->verbosity, 3);
}

static void check_le_off(const struct cmd_flags *f)
{
	assert_false(f->leader_elect);
	assert_true(f->set_leader_elect);
}

static void check_le_on(const struct cmd_flags *f)
{
	assert_true(f->leader_elect);
	assert_true(f->set_leader_elect);
}

static void check_durations(const struct cmd_flags *f)
{
	assert_int_equal(f->lease_duration_ns, 30000000000LL);
	assert_true(f->set_lease_duration);
	assert_int_equal(f->renew_deadline_ns, 1500000000LL);
	assert_true(f->set_renew_deadline);
	assert_false(f->set_retry_period);
}

static void check_le_names(const struct cmd_flags *f)
{
	assert_string_equal(f->resource_name, "other");
	assert_string_equal(f->resource_namespace, "sched");
	assert_true(f->set_resource_name && f->set_resource_namespace);
	assert_false(f->set_resource_lock);
}

static void check_client(const struct cmd_flags *f)
{
	assert_string_equal(f->kubeconfig, "/k");
	assert_true(f->kube_api_qps == 100.5);
	assert_int_equal(f->kube_api_burst, 200);
	assert_true(f->set_kubeconfig && f->set_kube_api_qps && f->set_kube_api_burst);
	/* upstream cmd/kube-scheduler/app/options/deprecated.go: --kube-api-content-type */
	assert_true(f->set_kube_api_content_type);
	assert_string_equal(f->kube_api_content_type, "application/json");
	assert_string_equal(f->master, "https://10.0.0.1:6443");
}

static void check_serving(const struct cmd_flags *f)
{
	assert_string_equal(f->bind_address, "10.0.0.5");
	assert_int_equal(f->port, 0);
}

static void check_tls_auth(const struct cmd_flags *f)
{
	assert_int_equal(f->port, 1234);
	assert_string_equal(f->tls_cert_file, "/c.crt");
	assert_string_equal(f->tls_private_key_file, "/c.key");
	assert_string_equal(f->authentication_kubeconfig, "/a.conf");
	assert_string_equal(f->authorization_kubeconfig, "/z.conf");
	assert_int_equal(f->authentication_token_cache_ttl_ns, 30000000000LL);
	assert_int_equal(f->authorization_allow_ttl_ns, 60000000000LL);
	assert_string_equal(f->authorization_always_allow_paths, "/livez,/metrics");
}

static void check_help(const struct cmd_flags *f)
{
	assert_true(f->help);
}

static void check_version(const struct cmd_flags *f)
{
	assert_true(f->version);
}

static void check_misc(const struct cmd_flags *f)
{
	assert_string_equal(f->write_config_to, "/tmp/out.yaml");
	assert_string_equal(f->policy_config_file, "/p.json");
}

static const struct flag_case cases[] = {
	{ { NULL }, NULL, check_defaults },
	{ { "--config=/etc/csched.yaml", NULL }, NULL, check_config },
	{ { "--config", "/etc/csched.yaml", NULL }, NULL, check_config },
	{ { "-v=3", NULL }, NULL, check_v3 },
	{ { "-v", "3", NULL }, NULL, check_v3 },
	{ { "-v3", NULL }, NULL, check_v3 },
	{ { "--v=3", NULL }, NULL, check_v3 },
	{ { "--v", "3", NULL }, NULL, check_v3 },
	{ { "--leader-elect=false", NULL }, NULL, check_le_off },
	{ { "--leader-elect=0", NULL }, NULL, check_le_off },
	{ { "--leader-elect", NULL }, NULL, check_le_on },
	{ { "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline", "1.5s", NULL }, NULL,
	  check_durations },
	{ { "--leader-elect-resource-name=other", "--leader-elect-resource-namespace=sched", NULL }, NULL,
	  check_le_names },
	{ { "--kubeconfig=/k", "--kube-api-qps=100.5", "--kube-api-burst=200", "--master=https://10.0.0.1:6443",
	    "--kube-api-content-type=application/json", NULL },
	  NULL, check_client },
	{ { "--bind-address=10.0.0.5", "--secure-port=0", NULL }, NULL, check_serving },
	{ { "--secure-port=1234", "--tls-cert-file=/c.crt", "--tls-private-key-file=/c.key",
	    "--authentication-kubeconfig=/a.conf", "--authorization-kubeconfig=/z.conf",
	    "--authentication-token-webhook-cache-ttl=30s", "--authorization-webhook-cache-authorized-ttl=1m",
	    "--authorization-always-allow-paths=/livez,/metrics", NULL },
	  NULL, check_tls_auth },
	{ { "--help", NULL }, NULL, check_help },
	{ { "-h", NULL }, NULL, check_help },
	{ { "--version", NULL }, NULL, check_version },
	{ { "--write-config-to=/tmp/out.yaml", "--policy-config-file", "/p.json", NULL }, NULL, check_misc },
	{ { "--config=/x", "--", NULL }, NULL, NULL },
	/* errors */
	{ { "--bogus", NULL }, "unknown flag: --bogus", NULL },
	{ { "--bogus=1", NULL }, "unknown flag: --bogus", NULL },
	{ { "--profile-name=x", NULL }, "unknown flag: --profile-name", NULL },
	{ { "--parallelism=4", NULL }, "unknown flag: --parallelism", NULL },
	{ { "-x", NULL }, "unknown shorthand flag: 'x' in -x", NULL },
	{ { "extra", NULL }, "unexpected argument \"extra\" (csched takes no arguments)", NULL },
	{ { "--", "extra", NULL }, "unexpected argument \"extra\" (csched takes no arguments)", NULL },
	{ { "--secure-port", NULL }, "flag needs an argument: --secure-port", NULL },
	/* the old plain-HTTP port is gone (upstream removed its own insecure port in v1.23) */
	{ { "--port=10251", NULL },
	  "unknown flag: --port (removed: csched serves HTTPS with authentication on --secure-port, default 10259; "
	  "--secure-port=0 turns it off; see docs/operations.md)",
	  NULL },
	{ { "-v", NULL }, "flag needs an argument: -v", NULL },
	{ { "--secure-port=70000", NULL },
	  "invalid argument \"70000\" for \"--secure-port\" flag: must be a port number in 0..65535", NULL },
	{ { "--secure-port=ten", NULL },
	  "invalid argument \"ten\" for \"--secure-port\" flag: must be a port number in 0..65535", NULL },
	{ { "--leader-elect=maybe", NULL },
	  "invalid argument \"maybe\" for \"--leader-elect\" flag: strconv.ParseBool: parsing: invalid syntax", NULL },
	{ { "--leader-elect-retry-period=2", NULL },
	  "invalid argument \"2\" for \"--leader-elect-retry-period\" flag: must be a duration such as 15s, 1m30s or "
	  "500ms",
	  NULL },
	{ { "--kube-api-qps=fast", NULL }, "invalid argument \"fast\" for \"--kube-api-qps\" flag: must be a number",
	  NULL },
	{ { "-v=high", NULL }, "invalid argument \"high\" for \"-v\" flag: must be an integer in 0..100", NULL },
};

static void test_flag_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[MAX_ARGS + 2] = { "csched" };
		int argc = 1;
		for (int j = 0; cases[i].args[j]; j++)
			argv[argc++] = (char *)cases[i].args[j];
		struct cmd_flags f;
		struct err e = { 0 };
		int rc = cmd_flags_parse(&f, argc, argv, &e);
		if (cases[i].err) {
			if (rc != ERR_INVALID)
				fail_msg("case %zu (%s): expected an error", i, argv[1]);
			assert_string_equal(e.msg, cases[i].err);
		} else {
			if (rc != 0)
				fail_msg("case %zu (%s): %s", i, argv[1], e.msg);
			if (cases[i].check)
				cases[i].check(&f);
		}
	}
}

static void test_usage_groups_and_defaults(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	cmd_flags_usage(f, "csched");
	fclose(f);
	static const char *const want[] = {
		"Usage:\n  csched [flags]\n",
		"  csched explain NAMESPACE/NAME [flags]",
		"\nMisc flags:\n",
		"\nLeader election flags:\n",
		"\nDeprecated flags:\n",
		"\nLogs flags:\n",
		"--config string",
		"--leader-elect-lease-duration duration",
		"(default 15s)",
		"--leader-elect-resource-lock string",
		"(default \"leases\")",
		"(default \"csched\")",
		"--secure-port int",
		"(default 10259)",
		"\nSecure serving flags:\n",
		"\nAuthentication flags:\n",
		"\nAuthorization flags:\n",
		"--tls-cert-file string",
		"--authorization-always-allow-paths string",
		"(default \"/healthz,/readyz,/livez\")",
		"-v, --v Level",
		"-h, --help",
		"--kube-api-qps float",
		"\nPlugins (", /* the registry table */
		"   NodeResourcesFit                 1   preFilter,filter,preScore,score\n",
		"   PodTopologySpread                2   preFilter,filter,preScore,score\n",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(buf, want[i]))
			fail_msg("--help lacks \"%s\":\n%s", want[i], buf);
	/* groups in upstream's order */
	assert_true(strstr(buf, "Misc flags") < strstr(buf, "Leader election flags"));
	assert_true(strstr(buf, "Leader election flags") < strstr(buf, "Deprecated flags"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_table),
		cmocka_unit_test(test_usage_groups_and_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
