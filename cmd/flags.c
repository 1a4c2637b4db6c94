/* Command-line flags (contract in flags.h): one table drives parsing and --help. */
#include "cmd/flags.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/framework.h"
#include "config/config.h"
#include "scheduler/health.h"
#include "scheduler/leader.h"

enum flag_type { F_STRING, F_BOOL, F_INT, F_PORT, F_DOUBLE, F_DURATION, F_LEVEL };

struct flag_def {
	const char *name;
	char shorthand; /* 0 = none */
	enum flag_type type;
	const char *group;
	const char *def; /* default, as --help shows it ("" = none) */
	size_t off;      /* of the value in struct cmd_flags */
	ptrdiff_t set;   /* of the "set" bool, -1 = none */
	const char *help;
};

#define OFF(m) offsetof(struct cmd_flags, m)
#define NOSET (-1)

static const char G_MISC[] = "Misc flags", G_SERVE[] = "Secure serving flags", G_AUTHN[] = "Authentication flags",
		  G_AUTHZ[] = "Authorization flags",
		  G_LE[] = "Leader election flags", G_DEP[] = "Deprecated flags", G_LOG[] = "Logs flags",
		  G_GLOBAL[] = "Global flags";

/* One flag a line, its --help text last. */
static const struct flag_def flags[] = {
	{ "config", 0, F_STRING, G_MISC, "", OFF(config), NOSET, "The path to the configuration file (KubeSchedulerConfiguration)." },
	{ "master", 0, F_STRING, G_MISC, "", OFF(master), NOSET, "The address of the Kubernetes API server (overrides any value in kubeconfig)." },
	{ "write-config-to", 0, F_STRING, G_MISC, "", OFF(write_config_to), NOSET, "If set, write the configuration values to this file and exit." },
	{ "policy-config-file", 0, F_STRING, G_MISC, "", OFF(policy_config_file), NOSET, "File with a legacy scheduler Policy (kind: Policy, removed upstream in v1.23); csched maps its predicates and priorities to plugins. Cannot be combined with --config." },
	{ "bind-address", 0, F_STRING, G_SERVE, SCHED_HEALTH_DEFAULT_BIND_ADDRESS, OFF(bind_address), NOSET, "The IP address on which to listen for the --secure-port port. The associated interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. If blank or an unspecified address (0.0.0.0 or ::), all interfaces and IP address families will be used." },
	{ "secure-port", 0, F_PORT, G_SERVE, "10259", OFF(port), NOSET, "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all." },
	{ "tls-cert-file", 0, F_STRING, G_SERVE, "", OFF(tls_cert_file), NOSET, "File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated in memory." },
	{ "tls-private-key-file", 0, F_STRING, G_SERVE, "", OFF(tls_private_key_file), NOSET, "File containing the default x509 private key matching --tls-cert-file." },
	{ "authentication-kubeconfig", 0, F_STRING, G_AUTHN, "", OFF(authentication_kubeconfig), NOSET, "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io. This is optional. If empty, csched's own connection (--kubeconfig / clientConnection) is used." },
	{ "authentication-skip-lookup", 0, F_BOOL, G_AUTHN, "", OFF(authentication_skip_lookup), NOSET, "If false, the authentication-kubeconfig will be used to lookup missing authentication configuration from the cluster. (csched: accepted; it does no lookup, client certificates are not accepted.)" },
	{ "authentication-token-webhook-cache-ttl", 0, F_DURATION, G_AUTHN, "10s", OFF(authentication_token_cache_ttl_ns), NOSET, "The duration to cache responses from the webhook token authenticator." },
	{ "authentication-tolerate-lookup-failure", 0, F_BOOL, G_AUTHN, "true", OFF(authentication_tolerate_lookup_failure), NOSET, "If true, failures to look up missing authentication configuration from the cluster are not considered fatal. (csched: accepted; it does no lookup.)" },
	{ "authorization-always-allow-paths", 0, F_STRING, G_AUTHZ, SCHED_AUTH_DEFAULT_ALWAYS_ALLOW_PATHS, OFF(authorization_always_allow_paths), NOSET, "A list of HTTP paths to skip during authorization, i.e. these are authorized without contacting the 'core' kubernetes server." },
	{ "authorization-kubeconfig", 0, F_STRING, G_AUTHZ, "", OFF(authorization_kubeconfig), NOSET, "kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io. This is optional. If empty, csched's own connection (--kubeconfig / clientConnection) is used." },
	{ "authorization-webhook-cache-authorized-ttl", 0, F_DURATION, G_AUTHZ, "10s", OFF(authorization_allow_ttl_ns), NOSET, "The duration to cache 'authorized' responses from the webhook authorizer." },
	{ "authorization-webhook-cache-unauthorized-ttl", 0, F_DURATION, G_AUTHZ, "10s", OFF(authorization_deny_ttl_ns), NOSET, "The duration to cache 'unauthorized' responses from the webhook authorizer." },
	{ "leader-elect", 0, F_BOOL, G_LE, "true", OFF(leader_elect), OFF(set_leader_elect), "Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability." },
	{ "leader-elect-lease-duration", 0, F_DURATION, G_LE, "15s", OFF(lease_duration_ns), OFF(set_lease_duration), "The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot." },
	{ "leader-elect-renew-deadline", 0, F_DURATION, G_LE, "10s", OFF(renew_deadline_ns), OFF(set_renew_deadline), "The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration." },
	{ "leader-elect-resource-lock", 0, F_STRING, G_LE, "leases", OFF(resource_lock), OFF(set_resource_lock), "The type of resource object that is used for locking during leader election. Supported option is 'leases'." },
	{ "leader-elect-resource-name", 0, F_STRING, G_LE, CFG_DEFAULT_LEASE_NAME, OFF(resource_name), OFF(set_resource_name), "The name of resource object that is used for locking during leader election." },
	{ "leader-elect-resource-namespace", 0, F_STRING, G_LE, "kube-system", OFF(resource_namespace), OFF(set_resource_namespace), "The namespace of resource object that is used for locking during leader election." },
	{ "leader-elect-retry-period", 0, F_DURATION, G_LE, "2s", OFF(retry_period_ns), OFF(set_retry_period), "The duration the clients should wait between attempting acquisition and renewal of a leadership." },
	{ "kube-api-burst", 0, F_INT, G_DEP, "100", OFF(kube_api_burst), OFF(set_kube_api_burst), "DEPRECATED: burst to use while talking with kubernetes apiserver. This parameter is ignored if a config file is specified in --config." },
	{ "kube-api-content-type", 0, F_STRING, G_DEP, "application/vnd.kubernetes.protobuf", OFF(kube_api_content_type), OFF(set_kube_api_content_type), "DEPRECATED: content type of requests sent to apiserver. This parameter is ignored if a config file is specified in --config." },
	{ "kube-api-qps", 0, F_DOUBLE, G_DEP, "50", OFF(kube_api_qps), OFF(set_kube_api_qps), "DEPRECATED: QPS to use while talking with kubernetes apiserver. This parameter is ignored if a config file is specified in --config." },
	{ "kubeconfig", 0, F_STRING, G_DEP, "", OFF(kubeconfig), OFF(set_kubeconfig), "DEPRECATED: path to kubeconfig file with authorization and master location information. This parameter is ignored if a config file is specified in --config." },
	{ "v", 'v', F_LEVEL, G_LOG, "0", OFF(verbosity), NOSET, "number for the log level verbosity" },
	{ "help", 'h', F_BOOL, G_GLOBAL, "", OFF(help), NOSET, "help for csched" },
	{ "version", 0, F_BOOL, G_GLOBAL, "", OFF(version), NOSET, "Print version information and quit." },
};
#define N_FLAGS (sizeof(flags) / sizeof(flags[0]))

static const struct flag_def *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < N_FLAGS; i++)
		if (strlen(flags[i].name) == len && strncmp(flags[i].name, name, len) == 0)
			return &flags[i];
	return NULL;
}

static const struct flag_def *find_short(char c)
{
	for (size_t i = 0; i < N_FLAGS; i++)
		if (flags[i].shorthand == c)
			return &flags[i];
	return NULL;
}

static int parse_bool(const char *v, bool *out)
{
	/* Go's strconv.ParseBool */
	static const char *const t[] = { "1", "t", "T", "true", "TRUE", "True" };
	static const char *const f[] = { "0", "f", "F", "false", "FALSE", "False" };
	for (size_t i = 0; i < 6; i++) {
		if (strcmp(v, t[i]) == 0)
			return *out = true, 0;
		if (strcmp(v, f[i]) == 0)
			return *out = false, 0;
	}
	return -1;
}

static int parse_long(const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

static int set_value(struct cmd_flags *f, const struct flag_def *d, const char *dash, const char *v, struct err *e)
{
	char *base = (char *)f;
	long l;
	const char *why = NULL;
	switch (d->type) {
	case F_STRING:
		*(const char **)(base + d->off) = v;
		break;
	case F_BOOL:
		if (parse_bool(v, (bool *)(base + d->off)) < 0)
			why = "strconv.ParseBool: parsing: invalid syntax";
		break;
	case F_INT:
		if (parse_long(v, INT_MIN, INT_MAX, &l) < 0)
			why = "must be an integer";
		else
			*(int *)(base + d->off) = (int)l;
		break;
	case F_LEVEL:
		if (parse_long(v, 0, 100, &l) < 0)
			why = "must be an integer in 0..100";
		else
			*(int *)(base + d->off) = (int)l;
		break;
	case F_PORT:
		if (parse_long(v, 0, 65535, &l) < 0)
			why = "must be a port number in 0..65535";
		else
			*(int *)(base + d->off) = (int)l;
		break;
	case F_DOUBLE: {
		char *end;
		errno = 0;
		double x = strtod(v, &end);
		if (!*v || *end || errno || !isfinite(x))
			why = "must be a number";
		else
			*(double *)(base + d->off) = x;
		break;
	}
	case F_DURATION:
		if (cfg_duration_parse(v, (int64_t *)(base + d->off)) < 0)
			why = "must be a duration such as 15s, 1m30s or 500ms";
		break;
	}
	if (why)
		return err_set(e, ERR_INVALID, "invalid argument \"%s\" for \"%s%s\" flag: %s", v, dash, d->name, why);
	if (d->set >= 0)
		*(bool *)(base + d->set) = true;
	return 0;
}

int cmd_flags_parse(struct cmd_flags *f, int argc, char **argv, struct err *e)
{
	memset(f, 0, sizeof(*f));
	f->bind_address = SCHED_HEALTH_DEFAULT_BIND_ADDRESS;
	f->port = SCHED_HEALTH_DEFAULT_PORT;
	f->authentication_token_cache_ttl_ns = SCHED_AUTH_DEFAULT_TTL_NS;
	f->authentication_tolerate_lookup_failure = true;
	f->authorization_always_allow_paths = SCHED_AUTH_DEFAULT_ALWAYS_ALLOW_PATHS;
	f->authorization_allow_ttl_ns = SCHED_AUTH_DEFAULT_TTL_NS;
	f->authorization_deny_ttl_ns = SCHED_AUTH_DEFAULT_TTL_NS;
	f->leader_elect = true;
	f->lease_duration_ns = SCHED_LEADER_DEFAULT_LEASE_DURATION_MS * 1000000LL;
	f->renew_deadline_ns = SCHED_LEADER_DEFAULT_RENEW_DEADLINE_MS * 1000000LL;
	f->retry_period_ns = SCHED_LEADER_DEFAULT_RETRY_PERIOD_MS * 1000000LL;
	f->resource_lock = "leases";
	f->resource_name = CFG_DEFAULT_LEASE_NAME;
	f->resource_namespace = "kube-system";
	f->kube_api_qps = 50;
	f->kube_api_burst = 100;
	f->kube_api_content_type = "application/vnd.kubernetes.protobuf";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct flag_def *d;
		const char *val = NULL, *dash;
		if (strcmp(a, "--") == 0) {
			if (i + 1 < argc)
				return err_set(e, ERR_INVALID, "unexpected argument \"%s\" (csched takes no arguments)",
					       argv[i + 1]);
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			return err_set(e, ERR_INVALID, "unexpected argument \"%s\" (csched takes no arguments)", a);
		if (a[1] == '-') { /* --name[=value] */
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			dash = "--";
			if (!(d = find_long(name, len)) && len == 4 && strncmp(name, "port", 4) == 0)
				/* csched's old plain-HTTP port; upstream removed its own in v1.23 */
				return err_set(e, ERR_INVALID,
					       "unknown flag: --port (removed: csched serves HTTPS with authentication "
					       "on --secure-port, default 10259; --secure-port=0 turns it off; see "
					       "docs/operations.md)");
			if (!d)
				return err_set(e, ERR_INVALID, "unknown flag: --%.*s", (int)len, name);
			if (eq)
				val = eq + 1;
		} else { /* -c[value] or -c=value or -c value */
			dash = "-";
			if (!(d = find_short(a[1])))
				return err_set(e, ERR_INVALID, "unknown shorthand flag: '%c' in %s", a[1], a);
			if (a[2] == '=')
				val = a + 3;
			else if (a[2])
				val = a + 2;
		}
		if (!val) {
			if (d->type == F_BOOL) {
				val = "true";
			} else {
				if (i + 1 >= argc)
					return err_set(e, ERR_INVALID, "flag needs an argument: %s%s", dash,
						       dash[1] ? d->name : (char[]){ d->shorthand, 0 });
				val = argv[++i];
			}
		}
		if (set_value(f, d, dash, val, e) < 0)
			return e ? e->code : ERR_INVALID;
	}
	return 0;
}

/* The plugin table (algorithm/registry.c) in upstream's default order. */
static void usage_plugins(FILE *out)
{
	const struct cfg_registry *reg = fw_registry();
	fputs("\nPlugins (name, default score weight, extension points; * = not implemented by csched yet):\n\n", out);
	for (size_t i = 0; i < reg->n; i++) {
		const struct cfg_plugin_desc *pd = &reg->plugins[i];
		char points[160] = "";
		size_t off = 0;
		for (int ep = 0; ep < CFG_EP_COUNT && off < sizeof(points); ep++)
			if (pd->points & CFG_EP_BIT(ep))
				off += (size_t)snprintf(points + off, sizeof(points) - off, "%s%s", off ? "," : "",
							cfg_ext_point_key((enum cfg_ext_point)ep));
		char weight[16] = "";
		if (pd->default_weight)
			snprintf(weight, sizeof(weight), "%d", pd->default_weight);
		fprintf(out, "  %c%-32s %-3s %s\n", pd->implemented ? ' ' : '*', pd->name, weight, points);
	}
}

void cmd_flags_usage(FILE *out, const char *prog)
{
	static const char *const groups[] = { G_MISC, G_SERVE, G_AUTHN, G_AUTHZ, G_LE, G_DEP, G_LOG, G_GLOBAL };
	static const char *const type_names[] = { [F_STRING] = "string", [F_BOOL] = "", [F_INT] = "int",
						  [F_PORT] = "int", [F_DOUBLE] = "float", [F_DURATION] = "duration",
						  [F_LEVEL] = "Level" };
	fprintf(out,
		"csched is a Kubernetes scheduler compatible with kube-scheduler: it schedules the pods whose\n"
		"spec.schedulerName names one of its profiles (default \"%s\") onto nodes.\n\n"
		"Usage:\n  %s [flags]\n"
		"  %s explain NAMESPACE/NAME [flags]   why a pod is pending, or went where it is (explain --help)\n"
		"  %s simulate --dump FILE [flags]     where pods would go on a cluster dump (simulate --help)\n"
		"  %s devices [flags]                  DRA devices, their claims, what a selector matches (devices --help)\n",
		CFG_DEFAULT_SCHEDULER_NAME, prog, prog, prog, prog);
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		fprintf(out, "\n%s:\n\n", groups[g]);
		for (size_t i = 0; i < N_FLAGS; i++) {
			const struct flag_def *d = &flags[i];
			char left[96];
			if (d->group != groups[g])
				continue;
			if (d->shorthand)
				snprintf(left, sizeof(left), "-%c, --%s %s", d->shorthand, d->name, type_names[d->type]);
			else
				snprintf(left, sizeof(left), "    --%s %s", d->name, type_names[d->type]);
			fprintf(out, "  %-44s %s", left, d->help);
			if (d->def[0])
				fprintf(out, d->type == F_STRING ? " (default \"%s\")" : " (default %s)", d->def);
			fputc('\n', out);
		}
	}
	usage_plugins(out);
}
