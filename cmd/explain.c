/* `csched explain NAMESPACE/NAME`: why a pod is pending, or why it went where it is (contract in
 * cmd.h, output in docs/explain.md).
 *
 * DESIGN
 * Two ways to the same answer (scheduler/explain.h renders it in both):
 *   one-shot   builds the scheduler from the configuration (--config, else the defaults) and the
 *              kubeconfig without starting it: the informers the enabled plugins need list the
 *              cluster, and once they are synced the pod is explained and the process exits.
 *              Nothing is scheduled, bound or written (no loop, binder, event or lease thread
 *              is started).
 *   --server   asks a running csched's /debug/explain on its secure port (authorized there like
 *              /metrics) and prints the answer; credentials come from --token or the kubeconfig.
 * Runs on the main thread; the one-shot scheduler's informer threads are stopped before return. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd_internal.h"
#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "config/config.h"
#include "scheduler/explain.h"
#include "scheduler/health.h"
#include "scheduler/scheduler.h"

/* How long the one-shot mode waits for its informers' first LIST. */
#define EXPLAIN_SYNC_TIMEOUT_MS 120000

struct explain_flags {
	const char *pod;  /* NAMESPACE/NAME */
	const char *kubeconfig, *context, *config;
	const char *server, *token, *ca_file;
	bool insecure;
	const char *output; /* "table" (default) or "json" */
	const char *node;
	int verbosity;
	bool help;
};

static const char usage_text[] =
	"Usage: %s explain NAMESPACE/NAME [flags]\n"
	"\n"
	"Explains the scheduling of a pod: per node, the first plugin that rejects it and why, or for\n"
	"the feasible nodes every score plugin's raw, normalized and weighted score and the total; the\n"
	"node chosen and the ties; a summary of the rejections as the FailedScheduling event counts them.\n"
	"A bound pod is explained as if it were pending again. Nothing is written to the cluster.\n"
	"\n"
	"One-shot (default): lists what the configured plugins need from the API server, builds the\n"
	"scheduler's cache, explains, exits.\n"
	"      --kubeconfig string              Path to the kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)\n"
	"      --context string                 The kubeconfig context to use\n"
	"      --config string                  The scheduler's configuration file (KubeSchedulerConfiguration; default: the default profile)\n"
	"\n"
	"Live: asks a running csched (its /debug/explain endpoint, authorized like /metrics).\n"
	"      --server string                  The scheduler's secure address, e.g. https://127.0.0.1:10259\n"
	"      --token string                   Bearer token (default: the kubeconfig's credentials)\n"
	"      --certificate-authority string   CA file to verify the scheduler's serving certificate\n"
	"      --insecure-skip-tls-verify       Do not verify the scheduler's certificate (it is self-signed by default)\n"
	"\n"
	"Output:\n"
	"  -o, --output string                  table (default) or json (schema: docs/explain.md)\n"
	"      --node string                    Show only this node's row\n"
	"  -v, --v int                          Log verbosity (stderr)\n"
	"  -h, --help                           This help\n";

static int parse(struct explain_flags *f, int argc, char **argv, struct err *e)
{
	static const struct {
		const char *name;
		char shorthand;
		size_t off;
	} str_flags[] = {
		{ "kubeconfig", 0, offsetof(struct explain_flags, kubeconfig) },
		{ "context", 0, offsetof(struct explain_flags, context) },
		{ "config", 0, offsetof(struct explain_flags, config) },
		{ "server", 0, offsetof(struct explain_flags, server) },
		{ "token", 0, offsetof(struct explain_flags, token) },
		{ "certificate-authority", 0, offsetof(struct explain_flags, ca_file) },
		{ "output", 'o', offsetof(struct explain_flags, output) },
		{ "node", 0, offsetof(struct explain_flags, node) },
	};
	memset(f, 0, sizeof(*f));
	f->output = "table";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !a[1]) {
			if (f->pod)
				return err_set(e, ERR_INVALID, "unexpected argument \"%s\": one pod at a time", a);
			f->pod = a;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			f->help = true;
			continue;
		}
		if (!strcmp(a, "--insecure-skip-tls-verify") || !strcmp(a, "--insecure-skip-tls-verify=true")) {
			f->insecure = true;
			continue;
		}
		if (!strcmp(a, "--insecure-skip-tls-verify=false"))
			continue;
		/* --name=value, --name value, -x value, -xvalue */
		const char *name = a[1] == '-' ? a + 2 : NULL, *value = NULL;
		size_t name_len = 0;
		char shorthand = 0;
		if (name) {
			const char *eq = strchr(name, '=');
			name_len = eq ? (size_t)(eq - name) : strlen(name);
			value = eq ? eq + 1 : NULL;
		} else {
			shorthand = a[1];
			value = a[2] ? a + 2 : NULL;
		}
		bool is_v = (name && name_len == 1 && name[0] == 'v') || shorthand == 'v';
		size_t k = 0;
		for (; !is_v && k < sizeof(str_flags) / sizeof(str_flags[0]); k++)
			if ((name && strlen(str_flags[k].name) == name_len && !strncmp(str_flags[k].name, name, name_len)) ||
			    (shorthand && shorthand == str_flags[k].shorthand))
				break;
		if (!is_v && k == sizeof(str_flags) / sizeof(str_flags[0]))
			return err_set(e, ERR_INVALID, "unknown flag: %s", a);
		if (!value) {
			if (i + 1 >= argc)
				return err_set(e, ERR_INVALID, "flag needs an argument: %s", a);
			value = argv[++i];
		}
		if (is_v) {
			char *end;
			long v = strtol(value, &end, 10);
			if (*end || v < 0 || v > 10)
				return err_set(e, ERR_INVALID, "invalid argument \"%s\" for -v: an integer 0..10", value);
			f->verbosity = (int)v;
		} else {
			*(const char **)((char *)f + str_flags[k].off) = value;
		}
	}
	if (f->help)
		return 0;
	if (!f->pod)
		return err_set(e, ERR_INVALID, "a pod is required: explain NAMESPACE/NAME");
	const char *slash = strchr(f->pod, '/');
	if (!slash || slash == f->pod || !slash[1] || strchr(slash + 1, '/'))
		return err_set(e, ERR_INVALID, "pod \"%s\": expected NAMESPACE/NAME", f->pod);
	if (strcmp(f->output, "table") && strcmp(f->output, "json"))
		return err_set(e, ERR_INVALID, "--output \"%s\": must be table or json", f->output);
	if (f->server && f->config)
		return err_set(e, ERR_INVALID, "--config is the one-shot mode's: the server uses its own");
	if (!f->server && (f->token || f->ca_file || f->insecure))
		return err_set(e, ERR_INVALID, "--token, --certificate-authority and --insecure-skip-tls-verify need --server");
	return 0;
}

/* --server: GET /debug/explain from a running csched. */
static int explain_remote(const struct explain_flags *f, struct err *e)
{
	struct api_config ac = { 0 };
	struct api_client *c = NULL;
	struct api_conn *conn = NULL;
	struct api_response r = { 0 };
	struct strbuf path = STRBUF_INIT;
	int rc;

	/* the kubeconfig's credentials (token, exec plugin), unless --token; the server is the
	 * scheduler's, so the apiserver's CA does not apply unless given again */
	if (!f->token && (rc = api_config_load_default(&ac, f->kubeconfig, f->context, e)) < 0)
		goto out;
	free(ac.server);
	if (!(ac.server = strdup(f->server)) || (f->token && !(ac.token = strdup(f->token)))) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	if (f->ca_file || f->insecure) {
		free(ac.ca_file);
		free(ac.ca_data);
		ac.ca_file = ac.ca_data = NULL;
		ac.ca_data_len = 0;
		if (f->ca_file && !(ac.ca_file = strdup(f->ca_file))) {
			rc = err_set(e, ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	ac.insecure_skip_tls_verify = f->insecure;
	if (!(c = api_client_new(&ac, e)) || !(conn = api_conn_new(c, e))) {
		rc = e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	strbuf_puts(&path, SCHED_HEALTH_EXPLAIN_PATH "?pod=");
	cmd_query_escape(&path, f->pod);
	strbuf_puts(&path, "&output=");
	cmd_query_escape(&path, f->output);
	if (f->node) {
		strbuf_puts(&path, "&node=");
		cmd_query_escape(&path, f->node);
	}
	if (path.oom) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = api_request(conn, "GET", path.data, NULL, NULL, 0, &r, e);
	if (rc < 0 && r.body && r.len) /* the scheduler's own message */
		err_set(e, rc, "%s: %.*s", f->server, (int)(r.len && r.body[r.len - 1] == '\n' ? r.len - 1 : r.len), r.body);
	else if (rc < 0)
		err_prefix(e, "%s", f->server);
	else
		fwrite(r.body, 1, r.len, stdout);
out:
	api_response_release(&r);
	strbuf_release(&path);
	api_conn_free(conn);
	api_client_free(c);
	api_config_release(&ac);
	return rc;
}

/* One-shot: the scheduler built but not started, its informers synced, one explain. */
static int explain_once(const struct explain_flags *f, struct err *e)
{
	struct config cfg;
	struct api_config ac = { 0 };
	struct api_client *client = NULL;
	struct scheduler *s = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc;
	bool have_cfg = false;

	const struct cfg_registry *reg = fw_registry();
	if ((rc = f->config ? config_load_file(&cfg, reg, f->config, e) : config_init_default(&cfg, reg, e)) < 0)
		goto out;
	have_cfg = true;
	/* --kubeconfig wins over the file's clientConnection.kubeconfig */
	const char *kc = f->kubeconfig ? f->kubeconfig : cfg.client_connection.kubeconfig;
	if ((rc = api_config_load_default(&ac, kc && kc[0] ? kc : NULL, f->context, e)) < 0)
		goto out;
	ac.protobuf = !strncmp(cfg.client_connection.content_type, "application/vnd.kubernetes.protobuf",
			       strlen("application/vnd.kubernetes.protobuf"));
	if (!(client = api_client_new(&ac, e))) {
		rc = e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	struct sched_options so = { .cfg = &cfg, .client = client };
	if (!(s = sched_new(&so, e)) || (rc = sched_start_informers(s, e)) < 0) {
		rc = e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	if (!sched_wait_synced(s, EXPLAIN_SYNC_TIMEOUT_MS)) {
		rc = err_set(e, ERR_TIMEOUT, "the informers did not sync within %d s", EXPLAIN_SYNC_TIMEOUT_MS / 1000);
		goto out;
	}
	const char *slash = strchr(f->pod, '/');
	char ns[256];
	snprintf(ns, sizeof(ns), "%.*s", (int)(slash - f->pod), f->pod);
	struct sched_explain_request rq = { ns, slash + 1, f->node,
					    strcmp(f->output, "json") ? SCHED_EXPLAIN_TABLE : SCHED_EXPLAIN_JSON };
	if ((rc = sched_explain(s, &rq, &text, &len, e)) == 0)
		fwrite(text, 1, len, stdout);
out:
	free(text);
	sched_free(s);
	api_client_free(client);
	api_config_release(&ac);
	if (have_cfg)
		config_free(&cfg);
	return rc;
}

int cmd_explain(int argc, char **argv, const char *prog)
{
	struct explain_flags f;
	struct err e = { 0 };
	if (parse(&f, argc, argv, &e) < 0) {
		fprintf(stderr, "Error: %s\nRun '%s explain --help' for usage.\n", e.msg, prog);
		return 1;
	}
	if (f.help) {
		printf(usage_text, prog);
		return 0;
	}
	log_set_verbosity(f.verbosity);
	if (api_global_init(&e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		return 1;
	}
	int rc = f.server ? explain_remote(&f, &e) : explain_once(&f, &e);
	api_global_cleanup();
	if (rc < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		return 1;
	}
	return 0;
}
