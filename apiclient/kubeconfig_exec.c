/* Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1): the users[].user.exec
 * section of a kubeconfig, and running a plugin for an ExecCredential. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <yaml.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "apiclient/kubeconfig_internal.h"
#include "common/clock.h"
#include "common/log.h"

extern char **environ;

#define EXEC_MAX_OUTPUT (4u << 20)
#define EXEC_TIMEOUT_MS 60000         /* a plugin that hangs must not hang the scheduler */

/* ---------- the exec section of a kubeconfig ---------- */

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void api__exec_config_free(struct api_exec_config *x)
{
	if (!x)
		return;
	free(x->command);
	strv_free(x->args);
	strv_free(x->env);
	free(x->api_version);
	free(x);
}

int api__kc_exec(struct kc_file *f, yaml_node_t *x, const char *field, struct api_exec_config **out, struct err *e)
{
	int rc = 0;
	bool ok = true;
	const char *cmd = NULL, *ver = NULL, *mode = NULL;
	struct api_exec_config *c = calloc(1, sizeof(*c));
	if (!c)
		return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
	if (x->type != YAML_MAPPING_NODE) {
		rc = api__kc_err(e, ERR_INVALID, f, x, field, "expected a mapping");
		goto out;
	}
	if ((rc = api__kc_str(f, x, "command", field, &cmd, e)) || (rc = api__kc_str(f, x, "apiVersion", field, &ver, e)) ||
	    (rc = api__kc_str(f, x, "interactiveMode", field, &mode, e)))
		goto out;
	if (!cmd) {
		rc = api__kc_err(e, ERR_INVALID, f, x, field, "command: required");
		goto out;
	}
	if (!ver) {
		rc = api__kc_err(e, ERR_INVALID, f, x, field, "apiVersion: required");
		goto out;
	}
	if (strcmp(ver, "client.authentication.k8s.io/v1") && strcmp(ver, "client.authentication.k8s.io/v1beta1")) {
		rc = api__kc_err(e, ERR_UNSUPPORTED, f, api__kc_get(f, x, "apiVersion"), field,
			    "apiVersion: \"%s\" is not supported (client.authentication.k8s.io/v1 or v1beta1)", ver);
		goto out;
	}
	if (mode && strcmp(mode, "Never") && strcmp(mode, "IfAvailable")) {
		rc = api__kc_err(e, strcmp(mode, "Always") ? ERR_INVALID : ERR_UNSUPPORTED, f, api__kc_get(f, x, "interactiveMode"),
			    field, "interactiveMode: \"%s\": %s", mode,
			    strcmp(mode, "Always") ? "expected Never, IfAvailable or Always"
						   : "the scheduler has no terminal for an interactive plugin");
		goto out;
	}
	bool cluster_info = false;
	if ((rc = api__kc_bool(f, x, "provideClusterInfo", field, &cluster_info, e)))
		goto out;
	if (cluster_info)
		LOG_WARN("%s: %s: provideClusterInfo is not supported; the plugin runs without cluster information", f->path,
			 field);
	/* client-go resolves a command with a path separator against the kubeconfig's directory,
	 * and leaves a bare name to $PATH. */
	c->command = strchr(cmd, '/') ? api__kc_resolve_path(f->dir, cmd) : strdup(cmd);
	c->api_version = api__strdup(ver, &ok);
	if (!c->command || !ok) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
		goto out;
	}
	yaml_node_t *args = api__kc_get(f, x, "args"), *env = api__kc_get(f, x, "env");
	if (args && args->type != YAML_SEQUENCE_NODE) {
		rc = api__kc_err(e, ERR_INVALID, f, args, field, "args: expected a list of strings");
		goto out;
	}
	if (env && env->type != YAML_SEQUENCE_NODE) {
		rc = api__kc_err(e, ERR_INVALID, f, env, field, "env: expected a list of {name, value}");
		goto out;
	}
	size_t na = args ? (size_t)(args->data.sequence.items.top - args->data.sequence.items.start) : 0;
	size_t ne = env ? (size_t)(env->data.sequence.items.top - env->data.sequence.items.start) : 0;
	c->args = calloc(na + 1, sizeof(char *));
	c->env = calloc(ne + 1, sizeof(char *));
	if (!c->args || !c->env) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		yaml_node_t *a = api__kc_node(f, args->data.sequence.items.start[i]);
		if (!a || a->type != YAML_SCALAR_NODE) {
			rc = api__kc_err(e, ERR_INVALID, f, a, field, "args[%zu]: expected a string", i);
			goto out;
		}
		if (!(c->args[i] = strdup((const char *)a->data.scalar.value))) {
			rc = err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
			goto out;
		}
	}
	for (size_t i = 0; i < ne; i++) {
		yaml_node_t *v = api__kc_node(f, env->data.sequence.items.start[i]);
		char where[ERR_MSG_MAX];
		if (snprintf(where, sizeof(where), "%s.env[%zu]", field, i) >= (int)sizeof(where))
			where[sizeof(where) - 1] = 0; /* a cut field path still names the place */
		const char *name = NULL, *value = NULL;
		if (!v || v->type != YAML_MAPPING_NODE) {
			rc = api__kc_err(e, ERR_INVALID, f, v, where, "expected a mapping with name and value");
			goto out;
		}
		if ((rc = api__kc_str(f, v, "name", where, &name, e)) || (rc = api__kc_str(f, v, "value", where, &value, e)))
			goto out;
		if (!name || strchr(name, '=')) {
			rc = api__kc_err(e, ERR_INVALID, f, v, where, "name: %s", name ? "must not contain '='" : "required");
			goto out;
		}
		size_t n = strlen(name) + (value ? strlen(value) : 0) + 2;
		if (!(c->env[i] = malloc(n))) {
			rc = err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
			goto out;
		}
		snprintf(c->env[i], n, "%s=%s", name, value ? value : "");
	}
	*out = c;
	c = NULL;
out:
	api__exec_config_free(c);
	return rc;
}

/* ---------- exec credential plugins ---------- */

void api__exec_result_release(struct api__exec_result *r)
{
	if (!r)
		return;
	if (r->token)
		memset(r->token, 0, strlen(r->token));
	if (r->key_data)
		memset(r->key_data, 0, r->key_len);
	free(r->token);
	free(r->cert_data);
	free(r->key_data);
	memset(r, 0, sizeof(*r));
}

/* KUBERNETES_EXEC_INFO: the ExecCredential the plugin reads (spec.interactive false: no TTY). */
static int exec_info(const char *api_version, char **out, struct err *e)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g)
		return err_set(e, ERR_NOMEM, "exec plugin: out of memory");
	yajl_gen_map_open(g);
	yajl_gen_string(g, (const unsigned char *)"apiVersion", 10);
	yajl_gen_string(g, (const unsigned char *)api_version, strlen(api_version));
	yajl_gen_string(g, (const unsigned char *)"kind", 4);
	yajl_gen_string(g, (const unsigned char *)"ExecCredential", 14);
	yajl_gen_string(g, (const unsigned char *)"spec", 4);
	yajl_gen_map_open(g);
	yajl_gen_string(g, (const unsigned char *)"interactive", 11);
	yajl_gen_bool(g, 0);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
	const unsigned char *buf = NULL;
	size_t len = 0;
	int rc = 0;
	yajl_gen_get_buf(g, &buf, &len);
	size_t n = len + sizeof("KUBERNETES_EXEC_INFO=");
	if (!(*out = malloc(n)))
		rc = err_set(e, ERR_NOMEM, "exec plugin: out of memory");
	else
		snprintf(*out, n, "KUBERNETES_EXEC_INFO=%.*s", (int)len, (const char *)buf);
	yajl_gen_free(g);
	return rc;
}

/* The environment of the plugin: ours, minus names the config sets, plus the config's env. */
static char **exec_env(const struct api_exec_config *x, char *info)
{
	size_t ne = 0, nx = 0;
	while (environ && environ[ne])
		ne++;
	while (x->env && x->env[nx])
		nx++;
	char **v = calloc(ne + nx + 2, sizeof(char *));
	if (!v)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < ne; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool overridden = klen == strlen("KUBERNETES_EXEC_INFO") && !strncmp(environ[i], "KUBERNETES_EXEC_INFO", klen);
		for (size_t j = 0; j < nx && !overridden; j++)
			overridden = !strncmp(x->env[j], environ[i], klen) && x->env[j][klen] == '=';
		if (!overridden)
			v[n++] = environ[i];
	}
	for (size_t j = 0; j < nx; j++)
		v[n++] = x->env[j];
	v[n++] = info;
	v[n] = NULL;
	return v;
}

/* The string of a yajl value known to be a string (yajl_tree_get with yajl_t_string). */
static const char *jstr(yajl_val v)
{
	return v && YAJL_IS_STRING(v) && v->u.string ? v->u.string : "";
}

static int exec_parse(const struct api_exec_config *x, const char *out, struct api__exec_result *r, struct err *e)
{
	char ebuf[256];
	int rc = 0;
	yajl_val root = yajl_tree_parse(out, ebuf, sizeof(ebuf));
	if (!root || !YAJL_IS_OBJECT(root)) {
		rc = err_set(e, ERR_INVALID, "exec plugin %s: output is not a JSON ExecCredential: %s", x->command,
			     root ? "not an object" : ebuf);
		goto out;
	}
	static const char *const kind_p[] = {"kind", NULL}, *const ver_p[] = {"apiVersion", NULL},
				 *const st_p[] = {"status", NULL}, *const tok_p[] = {"token", NULL},
				 *const cert_p[] = {"clientCertificateData", NULL}, *const key_p[] = {"clientKeyData", NULL},
				 *const exp_p[] = {"expirationTimestamp", NULL};
	yajl_val kind = yajl_tree_get(root, (const char **)kind_p, yajl_t_string);
	yajl_val ver = yajl_tree_get(root, (const char **)ver_p, yajl_t_string);
	if (!kind || strcmp(jstr(kind), "ExecCredential")) {
		rc = err_set(e, ERR_INVALID, "exec plugin %s: kind: expected ExecCredential", x->command);
		goto out;
	}
	if (!ver || strcmp(jstr(ver), x->api_version)) {
		rc = err_set(e, ERR_INVALID, "exec plugin %s: apiVersion: plugin returned \"%s\", configured \"%s\"", x->command,
			     ver ? jstr(ver) : "", x->api_version);
		goto out;
	}
	yajl_val st = yajl_tree_get(root, (const char **)st_p, yajl_t_object);
	if (!st) {
		rc = err_set(e, ERR_INVALID, "exec plugin %s: status: required", x->command);
		goto out;
	}
	yajl_val tok = yajl_tree_get(st, (const char **)tok_p, yajl_t_string);
	yajl_val cert = yajl_tree_get(st, (const char **)cert_p, yajl_t_string);
	yajl_val key = yajl_tree_get(st, (const char **)key_p, yajl_t_string);
	yajl_val exp = yajl_tree_get(st, (const char **)exp_p, yajl_t_string);
	const char *ts = tok ? jstr(tok) : NULL, *cs = cert ? jstr(cert) : NULL,
		   *ks = key ? jstr(key) : NULL;
	if (ts && !*ts)
		ts = NULL;
	if (cs && !*cs)
		cs = NULL;
	if (ks && !*ks)
		ks = NULL;
	if (!cs != !ks) {
		rc = err_set(e, ERR_INVALID, "exec plugin %s: status: clientCertificateData and clientKeyData must both be set",
			     x->command);
		goto out;
	}
	if (!ts && !cs) {
		rc = err_set(e, ERR_INVALID, "exec plugin %s: status: token or clientCertificateData required", x->command);
		goto out;
	}
	if (exp && *jstr(exp) && api_parse_time(jstr(exp), &r->expiry_us)) {
		rc = err_set(e, ERR_INVALID, "exec plugin %s: status.expirationTimestamp: invalid time \"%s\"", x->command,
			     jstr(exp));
		goto out;
	}
	bool ok = true;
	r->token = api__strdup(ts, &ok);
	r->cert_data = api__strdup(cs, &ok);
	r->key_data = api__strdup(ks, &ok);
	r->cert_len = cs ? strlen(cs) : 0;
	r->key_len = ks ? strlen(ks) : 0;
	if (!ok)
		rc = err_set(e, ERR_NOMEM, "exec plugin %s: out of memory", x->command);
out:
	yajl_tree_free(root);
	if (rc)
		api__exec_result_release(r);
	return rc;
}

int api__exec_run(const struct api_exec_config *x, struct api__exec_result *r, struct err *e)
{
	int rc = 0, pfd[2] = {-1, -1}, status = 0;
	char *info = NULL, **envp = NULL, **argv = NULL;
	struct strbuf b = {0};
	pid_t pid = -1;
	bool fa_ok = false;
	posix_spawn_file_actions_t fa;
	memset(r, 0, sizeof(*r));
	if ((rc = exec_info(x->api_version, &info, e)))
		goto out;
	size_t na = 0;
	while (x->args && x->args[na])
		na++;
	argv = calloc(na + 2, sizeof(char *));
	envp = exec_env(x, info);
	if (!argv || !envp) {
		rc = err_set(e, ERR_NOMEM, "exec plugin %s: out of memory", x->command);
		goto out;
	}
	argv[0] = x->command;
	for (size_t i = 0; i < na; i++)
		argv[i + 1] = x->args[i];
	if (pipe2(pfd, O_CLOEXEC)) {
		rc = err_set(e, ERR_IO, "exec plugin %s: pipe: %s", x->command, strerror(errno));
		goto out;
	}
	if (posix_spawn_file_actions_init(&fa)) {
		rc = err_set(e, ERR_NOMEM, "exec plugin %s: out of memory", x->command);
		goto out;
	}
	fa_ok = true;
	/* stdin: nothing (not interactive); stdout: the credential; stderr: ours, as client-go. */
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	int se = posix_spawnp(&pid, x->command, &fa, NULL, argv, envp);
	if (se) {
		pid = -1;
		rc = err_set(e, ERR_IO, "exec plugin %s: cannot run: %s", x->command, strerror(se));
		goto out;
	}
	close(pfd[1]);
	pfd[1] = -1;
	int64_t deadline = api_now_ns() + (int64_t)EXEC_TIMEOUT_MS * 1000000;
	for (;;) {
		int64_t left_ms = (deadline - api_now_ns()) / 1000000;
		if (left_ms <= 0) {
			rc = err_set(e, ERR_TIMEOUT, "exec plugin %s: no credential within %d s", x->command, EXEC_TIMEOUT_MS / 1000);
			kill(pid, SIGKILL);
			goto out;
		}
		struct pollfd p = {.fd = pfd[0], .events = POLLIN};
		int pr = poll(&p, 1, (int)left_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		char chunk[4096];
		ssize_t n = read(pfd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (!strbuf_add_max(&b, chunk, (size_t)n, EXEC_MAX_OUTPUT)) {
			rc = err_set(e, ERR_INVALID, "exec plugin %s: output larger than %u bytes (or out of memory)", x->command,
				     EXEC_MAX_OUTPUT);
			kill(pid, SIGKILL);
			goto out;
		}
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = err_set(e, ERR_IO, "exec plugin %s: waitpid: %s", x->command, strerror(errno));
			pid = -1;
			goto out;
		}
	}
	pid = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		rc = err_set(e, ERR_IO, "exec plugin %s: %s %d", x->command,
			     WIFEXITED(status) ? "exited with status" : "killed by signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		goto out;
	}
	rc = exec_parse(x, b.data ? b.data : "", r, e);
out:
	if (pid > 0) /* our own child, killed above on timeout or oversize: reap it */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (b.data)
		memset(b.data, 0, b.len);
	strbuf_release(&b);
	free(argv);
	free(envp);
	free(info);
	return rc;
}

