/* Command-line flags of csched, with upstream kube-scheduler's names and pflag's syntax:
 * --name=value, --name value, -v=2 / -v 2 / -v2 for shorthands, --bool / --bool=false, "--" ends
 * the flags. Unknown flags, missing or malformed values and positional arguments are errors. */
#ifndef CSCHED_CMD_FLAGS_H
#define CSCHED_CMD_FLAGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"

struct cmd_flags {
	/* Misc */
	const char *config;            /* --config */
	const char *master;            /* --master: overrides the kubeconfig's server */
	const char *write_config_to;   /* --write-config-to */
	const char *policy_config_file; /* --policy-config-file (legacy Policy) */
	/* Secure serving (health and metrics) */
	const char *bind_address; /* --bind-address */
	int port;                 /* --secure-port; 0 = no server */
	const char *tls_cert_file, *tls_private_key_file;
	/* Delegated authentication and authorization (k8s.io/apiserver options) */
	const char *authentication_kubeconfig, *authorization_kubeconfig;
	const char *authorization_always_allow_paths; /* comma-separated */
	bool authentication_skip_lookup, authentication_tolerate_lookup_failure; /* accepted, no effect */
	int64_t authentication_token_cache_ttl_ns, authorization_allow_ttl_ns, authorization_deny_ttl_ns;
	/* Leader election: applied over the configuration only when set (upstream) */
	bool leader_elect;
	int64_t lease_duration_ns, renew_deadline_ns, retry_period_ns;
	const char *resource_lock, *resource_name, *resource_namespace;
	bool set_leader_elect, set_lease_duration, set_renew_deadline, set_retry_period;
	bool set_resource_lock, set_resource_name, set_resource_namespace;
	/* Deprecated upstream (ignored when --config is given, as upstream) */
	const char *kubeconfig;
	double kube_api_qps;
	int kube_api_burst;
	const char *kube_api_content_type;
	bool set_kubeconfig, set_kube_api_qps, set_kube_api_burst, set_kube_api_content_type;
	/* Logging */
	int verbosity;
	/* Global */
	bool help, version;
};

/* Fills f with the defaults, then parses argv[1..argc). Returns 0 or ERR_INVALID with e naming the
 * flag ("unknown flag: --foo", "invalid argument \"x\" for \"--port\" flag: ..."). Strings point
 * into argv. */
int cmd_flags_parse(struct cmd_flags *f, int argc, char **argv, struct err *e);
/* The --help text: usage line and the flags in groups, with their defaults. */
void cmd_flags_usage(FILE *out, const char *prog);

#endif
