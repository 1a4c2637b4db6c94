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

#include "kubeconfig_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/rfc3339.h"

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

#define KC_NOMEM(f, e) err_set(e, ERR_NOMEM, "%s: out of memory", (f)->path)

/* command, apiVersion and interactiveMode of an exec section, checked as client-go does. */
static int exec_check(struct kc_file *f, yaml_node_t *x, const char *field, const char **cmd, const char **ver,
		      struct err *e)
{
	const char *mode = NULL;
	bool cluster_info = false;
	int rc;
	if ((rc = api__kc_str(f, x, "command", field, cmd, e)) || (rc = api__kc_str(f, x, "apiVersion", field, ver, e)) ||
	    (rc = api__kc_str(f, x, "interactiveMode", field, &mode, e)))
		return rc;
	if (!*cmd)
		return api__kc_err(e, ERR_INVALID, f, x, field, "command: required");
	if (!*ver)
		return api__kc_err(e, ERR_INVALID, f, x, field, "apiVersion: required");
	if (strcmp(*ver, "client.authentication.k8s.io/v1") && strcmp(*ver, "client.authentication.k8s.io/v1beta1"))
		return api__kc_err(e, ERR_UNSUPPORTED, f, api__kc_get(f, x, "apiVersion"), field,
				   "apiVersion: \"%s\" is not supported (client.authentication.k8s.io/v1 or v1beta1)", *ver);
	if (mode && strcmp(mode, "Never") && strcmp(mode, "IfAvailable")) {
		bool always = !strcmp(mode, "Always");
		return api__kc_err(e, always ? ERR_UNSUPPORTED : ERR_INVALID, f, api__kc_get(f, x, "interactiveMode"), field,
				   "interactiveMode: \"%s\": %s", mode,
				   always ? "the scheduler has no terminal for an interactive plugin"
					  : "expected Never, IfAvailable or Always");
	}
	if ((rc = api__kc_bool(f, x, "provideClusterInfo", field, &cluster_info, e)))
		return rc;
	if (cluster_info)
		LOG_WARN("%s: %s: provideClusterInfo is not supported; the plugin runs without cluster information", f->path,
			 field);
	return 0;
}

/* The sequence under key (NULL when absent) and its length; what names the expected items. */
static int exec_seq(struct kc_file *f, yaml_node_t *x, const char *field, const char *key, const char *what,
		    yaml_node_t **seq, size_t *n, struct err *e)
{
	*seq = api__kc_get(f, x, key);
	*n = 0;
	if (!*seq)
		return 0;
	if ((*seq)->type != YAML_SEQUENCE_NODE)
		return api__kc_err(e, ERR_INVALID, f, *seq, field, "%s: expected a list of %s", key, what);
	*n = (size_t)((*seq)->data.sequence.items.top - (*seq)->data.sequence.items.start);
	return 0;
}

/* args[i] -> *out (malloc'd). */
static int exec_arg(struct kc_file *f, yaml_node_t *args, size_t i, const char *field, char **out, struct err *e)
{
	yaml_node_t *a = api__kc_node(f, args->data.sequence.items.start[i]);
	if (!a || a->type != YAML_SCALAR_NODE)
		return api__kc_err(e, ERR_INVALID, f, a, field, "args[%zu]: expected a string", i);
	if (!(*out = strdup((const char *)a->data.scalar.value)))
		return KC_NOMEM(f, e);
	return 0;
}

/* env[i] ({name, value}) -> "name=value" in *out (malloc'd). */
static int exec_env_item(struct kc_file *f, yaml_node_t *env, size_t i, const char *field, char **out,
			 struct err *e)
{
	yaml_node_t *v = api__kc_node(f, env->data.sequence.items.start[i]);
	char where[ERR_MSG_MAX];
	const char *name = NULL, *value = NULL;
	int rc;
	if (snprintf(where, sizeof(where), "%s.env[%zu]", field, i) >= (int)sizeof(where))
		where[sizeof(where) - 1] = 0; /* a cut field path still names the place */
	if (!v || v->type != YAML_MAPPING_NODE)
		return api__kc_err(e, ERR_INVALID, f, v, where, "expected a mapping with name and value");
	if ((rc = api__kc_str(f, v, "name", where, &name, e)) || (rc = api__kc_str(f, v, "value", where, &value, e)))
		return rc;
	if (!name || strchr(name, '='))
		return api__kc_err(e, ERR_INVALID, f, v, where, "name: %s", name ? "must not contain '='" : "required");
	size_t n = strlen(name) + (value ? strlen(value) : 0) + 2;
	if (!(*out = malloc(n)))
		return KC_NOMEM(f, e);
	snprintf(*out, n, "%s=%s", name, value ? value : "");
	return 0;
}

/* args and env of an exec section into c->args and c->env (NULL-terminated). */
static int exec_lists(struct kc_file *f, yaml_node_t *x, const char *field, struct api_exec_config *c,
		      struct err *e)
{
	yaml_node_t *args, *env;
	size_t na, ne;
	int rc;
	if ((rc = exec_seq(f, x, field, "args", "strings", &args, &na, e)) ||
	    (rc = exec_seq(f, x, field, "env", "{name, value}", &env, &ne, e)))
		return rc;
	c->args = calloc(na + 1, sizeof(char *));
	c->env = calloc(ne + 1, sizeof(char *));
	if (!c->args || !c->env)
		return KC_NOMEM(f, e);
	for (size_t i = 0; i < na && !rc; i++)
		rc = exec_arg(f, args, i, field, &c->args[i], e);
	for (size_t i = 0; i < ne && !rc; i++)
		rc = exec_env_item(f, env, i, field, &c->env[i], e);
	return rc;
}

int api__kc_exec(struct kc_file *f, yaml_node_t *x, const char *field, struct api_exec_config **out, struct err *e)
{
	int rc = 0;
	bool ok = true;
	const char *cmd = NULL, *ver = NULL;
	struct api_exec_config *c = calloc(1, sizeof(*c));
	if (!c)
		return KC_NOMEM(f, e);
	if (x->type != YAML_MAPPING_NODE) {
		rc = api__kc_err(e, ERR_INVALID, f, x, field, "expected a mapping");
		goto out;
	}
	if ((rc = exec_check(f, x, field, &cmd, &ver, e)))
		goto out;
	/* client-go resolves a command with a path separator against the kubeconfig's directory,
	 * and leaves a bare name to $PATH. */
	c->command = strchr(cmd, '/') ? api__kc_resolve_path(f->dir, cmd) : strdup(cmd);
	c->api_version = api__strdup(ver, &ok);
	if (!c->command || !ok) {
		rc = KC_NOMEM(f, e);
		goto out;
	}
	if ((rc = exec_lists(f, x, field, c, e)))
		goto out;
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

/* A string under key of obj; NULL when absent or empty. */
static const char *exec_field(yajl_val obj, const char *key)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(obj, path, yajl_t_string);
	const char *s = v ? jstr(v) : NULL;
	return s && *s ? s : NULL;
}

/* kind and apiVersion of the ExecCredential; its status object in *st. */
static int exec_check_output(const struct api_exec_config *x, yajl_val root, yajl_val *st, struct err *e)
{
	static const char *const kind_p[] = {"kind", NULL}, *const ver_p[] = {"apiVersion", NULL},
				 *const st_p[] = {"status", NULL};
	yajl_val kind = yajl_tree_get(root, (const char **)kind_p, yajl_t_string);
	yajl_val ver = yajl_tree_get(root, (const char **)ver_p, yajl_t_string);
	if (!kind || strcmp(jstr(kind), "ExecCredential"))
		return err_set(e, ERR_INVALID, "exec plugin %s: kind: expected ExecCredential", x->command);
	if (!ver || strcmp(jstr(ver), x->api_version))
		return err_set(e, ERR_INVALID, "exec plugin %s: apiVersion: plugin returned \"%s\", configured \"%s\"",
			       x->command, ver ? jstr(ver) : "", x->api_version);
	if (!(*st = yajl_tree_get(root, (const char **)st_p, yajl_t_object)))
		return err_set(e, ERR_INVALID, "exec plugin %s: status: required", x->command);
	return 0;
}

/* The credential of an ExecCredential's status into r. */
static int exec_status(const struct api_exec_config *x, yajl_val st, struct api__exec_result *r, struct err *e)
{
	const char *ts = exec_field(st, "token"), *cs = exec_field(st, "clientCertificateData"),
		   *ks = exec_field(st, "clientKeyData"), *exp = exec_field(st, "expirationTimestamp");
	if (!cs != !ks)
		return err_set(e, ERR_INVALID, "exec plugin %s: status: clientCertificateData and clientKeyData must both be set",
			       x->command);
	if (!ts && !cs)
		return err_set(e, ERR_INVALID, "exec plugin %s: status: token or clientCertificateData required", x->command);
	if (exp && !rfc3339_parse(exp, &r->expiry_us))
		return err_set(e, ERR_INVALID, "exec plugin %s: status.expirationTimestamp: invalid time \"%s\"", x->command,
			       exp);
	bool ok = true;
	r->token = api__strdup(ts, &ok);
	r->cert_data = api__strdup(cs, &ok);
	r->key_data = api__strdup(ks, &ok);
	r->cert_len = cs ? strlen(cs) : 0;
	r->key_len = ks ? strlen(ks) : 0;
	return ok ? 0 : err_set(e, ERR_NOMEM, "exec plugin %s: out of memory", x->command);
}

static int exec_parse(const struct api_exec_config *x, const char *out, struct api__exec_result *r, struct err *e)
{
	char ebuf[256];
	int rc = 0;
	yajl_val st = NULL, root = yajl_tree_parse(out, ebuf, sizeof(ebuf));
	if (!root || !YAJL_IS_OBJECT(root))
		rc = err_set(e, ERR_INVALID, "exec plugin %s: output is not a JSON ExecCredential: %s", x->command,
			     root ? "not an object" : ebuf);
	else if (!(rc = exec_check_output(x, root, &st, e)))
		rc = exec_status(x, st, r, e);
	yajl_tree_free(root);
	if (rc)
		api__exec_result_release(r);
	return rc;
}

/* Starts the plugin with stdout on a pipe: *pid and *rfd (the read end, close-on-exec). */
static int exec_spawn(const struct api_exec_config *x, pid_t *pid, int *rfd, struct err *e)
{
	int rc = 0, pfd[2] = {-1, -1};
	char *info = NULL, **envp = NULL, **argv = NULL;
	bool fa_ok = false;
	posix_spawn_file_actions_t fa;
	size_t na = 0;
	if ((rc = exec_info(x->api_version, &info, e)))
		goto out;
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
	int se = posix_spawnp(pid, x->command, &fa, NULL, argv, envp);
	if (se) {
		*pid = -1;
		rc = err_set(e, ERR_IO, "exec plugin %s: cannot run: %s", x->command, strerror(se));
		goto out;
	}
	*rfd = pfd[0];
	pfd[0] = -1;
out:
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(argv);
	free(envp);
	free(info);
	return rc;
}

static int exec_timeout_ms(const struct api_exec_config *x)
{
	return x->timeout_ms > 0 ? x->timeout_ms : EXEC_TIMEOUT_MS;
}

/* Reads the plugin's stdout to its end into b, by the deadline and within EXEC_MAX_OUTPUT. */
static int exec_read(const struct api_exec_config *x, int fd, int64_t deadline, struct strbuf *b, struct err *e)
{
	for (;;) {
		int64_t left_ms = (deadline - mono_ns()) / NSEC_PER_MSEC;
		if (left_ms <= 0)
			return err_set(e, ERR_TIMEOUT, "exec plugin %s: no credential within %.1f s", x->command,
				       exec_timeout_ms(x) / 1000.0);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, (int)left_ms) <= 0) /* EINTR or not ready yet */
			continue;
		char chunk[4096];
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (!strbuf_add_max(b, chunk, (size_t)n, EXEC_MAX_OUTPUT))
			return err_set(e, ERR_INVALID, "exec plugin %s: output larger than %u bytes (or out of memory)",
				       x->command, EXEC_MAX_OUTPUT);
	}
}

/* Reaps the plugin by the deadline (one that closed its output may still run): an error unless it
 * exited with status 0. *reaped is false when it is still running at the deadline. */
static int exec_wait(const struct api_exec_config *x, pid_t pid, int64_t deadline, bool *reaped, struct err *e)
{
	int status = 0;
	int64_t nap = NSEC_PER_MSEC;
	*reaped = false;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			*reaped = true; /* not a child of ours any more: nothing to reap */
			return err_set(e, ERR_IO, "exec plugin %s: waitpid: %s", x->command, strerror(errno));
		}
		if (mono_ns() >= deadline)
			return err_set(e, ERR_TIMEOUT, "exec plugin %s: did not exit within %.1f s", x->command,
				       exec_timeout_ms(x) / 1000.0);
		sleep_ns(nap);
		if (nap < 50 * NSEC_PER_MSEC)
			nap *= 2;
	}
	*reaped = true;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return err_set(e, ERR_IO, "exec plugin %s: %s %d", x->command,
			       WIFEXITED(status) ? "exited with status" : "killed by signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

int api__exec_run(const struct api_exec_config *x, struct api__exec_result *r, struct err *e)
{
	int rc, fd = -1, status;
	struct strbuf b = STRBUF_INIT;
	pid_t pid = -1;
	bool reaped;
	int64_t deadline = mono_ns() + (int64_t)exec_timeout_ms(x) * NSEC_PER_MSEC;
	memset(r, 0, sizeof(*r));
	if ((rc = exec_spawn(x, &pid, &fd, e)))
		goto out;
	if ((rc = exec_read(x, fd, deadline, &b, e))) {
		kill(pid, SIGKILL); /* reaped below */
		goto out;
	}
	rc = exec_wait(x, pid, deadline, &reaped, e);
	if (reaped)
		pid = -1;
	else
		kill(pid, SIGKILL); /* reaped below */
	if (!rc)
		rc = exec_parse(x, b.data ? b.data : "", r, e);
out:
	if (pid > 0) /* our own child, killed above on timeout or oversize: reap it */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (fd >= 0)
		close(fd);
	if (b.data)
		memset(b.data, 0, b.len);
	strbuf_release(&b);
	return rc;
}
