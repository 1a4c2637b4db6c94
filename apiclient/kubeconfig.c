/* Configuration: kubeconfig files (libyaml), in-cluster service-account configuration, and exec
 * credential plugins (client.authentication.k8s.io/v1 and v1beta1).
 *
 * Follows client-go's clientcmd: the context (given, else current-context) names a cluster and
 * a user; relative paths are resolved against the directory of the file that holds the entry;
 * with several files ($KUBECONFIG=a:b) the first file that sets a value wins. Every error names
 * the file, the field ("users[0].user.client-certificate-data") and, when the YAML parser knows
 * it, line:column. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "common/base64.h"
#include "common/log.h"

extern char **environ;

#define KC_MAX_FILE (16u << 20)      /* a kubeconfig larger than this is not a kubeconfig */
#define KC_MAX_TOKEN (1u << 20)
#define EXEC_MAX_OUTPUT (4u << 20)
#define EXEC_TIMEOUT_MS 60000         /* a plugin that hangs must not hang the scheduler */
#define SA_DIR_DEFAULT "/var/run/secrets/kubernetes.io/serviceaccount"

/* ---------- small helpers ---------- */

char *api__strdup(const char *s, bool *ok)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*ok = false;
	return d;
}

int api__read_file(const char *path, size_t max, char **out, size_t *len, struct err *e)
{
	*out = NULL;
	if (len)
		*len = 0;
	int rc = 0;
	struct strbuf b = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	char chunk[8192];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (!strbuf_add_max(&b, chunk, (size_t)n, max)) {
			rc = b.len + (size_t)n > max ? err_set(e, ERR_INVALID, "%s: larger than %zu bytes", path, max)
						     : err_set(e, ERR_NOMEM, "%s: out of memory", path);
			goto out;
		}
	}
	if (!strbuf_add_max(&b, "", 0, max)) { /* an empty file still gets its NUL */
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	*out = b.data;
	if (len)
		*len = b.len;
	b.data = NULL;
out:
	close(fd);
	strbuf_release(&b);
	return rc;
}

int api__base64_decode(const char *in, size_t in_len, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	unsigned char *d = malloc(base64_decoded_max(in_len) + 1);
	if (!d)
		return ERR_NOMEM;
	if (!base64_decode(in, in_len, BASE64_LENIENT, d, len, NULL)) {
		free(d);
		return ERR_INVALID;
	}
	d[*len] = '\0';
	*out = (char *)d;
	return 0;
}

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static void exec_config_free(struct api_exec_config *x)
{
	if (!x)
		return;
	free(x->command);
	strv_free(x->args);
	strv_free(x->env);
	free(x->api_version);
	free(x);
}

void api_config_release(struct api_config *c)
{
	if (!c)
		return;
	free(c->server);
	free(c->ca_file);
	free(c->ca_data);
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_data);
	if (c->key_data) /* private key bytes: do not leave them in freed memory */
		memset(c->key_data, 0, c->key_data_len);
	free(c->key_data);
	if (c->token)
		memset(c->token, 0, strlen(c->token));
	free(c->token);
	free(c->token_file);
	exec_config_free(c->exec);
	free(c->namespace);
	free(c->user_agent);
	memset(c, 0, sizeof(*c));
}

static void config_defaults(struct api_config *c)
{
	c->connect_timeout_ms = 10000;
	c->request_timeout_ms = 60000;
}

/* "dir/p" unless p is absolute. */
static char *resolve_path(const char *dir, const char *p)
{
	if (p[0] == '/' || !dir || !*dir)
		return strdup(p);
	size_t n = strlen(dir) + strlen(p) + 2;
	char *r = malloc(n);
	if (r)
		snprintf(r, n, "%s/%s", dir, p);
	return r;
}

static char *trim_dup(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* ---------- the kubeconfig document ---------- */

struct kc_file {
	char *path;
	char *dir; /* for relative paths */
	yaml_document_t doc;
	yaml_node_t *root; /* mapping, or NULL for an empty file */
	bool loaded;
};

struct kc {
	struct kc_file *f;
	size_t n;
};

/* Formats "PATH:LINE:COL: FIELD: message" (line:col when the node is known). A message that
 * starts with "key: " names a field under FIELD and extends the path ("users[0].user" and
 * "token: expected a string" give "users[0].user.token: expected a string"). field "" is the
 * top level of the file. */
__attribute__((format(printf, 6, 7))) static int kc_err(struct err *e, int code, const struct kc_file *f,
							 const yaml_node_t *n, const char *field, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX], where[64] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t k = strspn(msg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_[]");
	const char *sep = k && msg[k] == ':' && msg[k + 1] == ' ' && *field ? "." : *field ? ": " : "";
	if (n)
		snprintf(where, sizeof(where), ":%zu:%zu", n->start_mark.line + 1, n->start_mark.column + 1);
	return err_set(e, code, "%s%s: %s%s%s", f->path, where, field, sep, msg);
}

static yaml_node_t *kc_node(struct kc_file *f, yaml_node_item_t i)
{
	return yaml_document_get_node(&f->doc, i);
}

static bool scalar_is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL");
}

/* The value under key in a mapping, NULL when absent or null. */
static yaml_node_t *kc_get(struct kc_file *f, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = kc_node(f, p->key);
		if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key)) {
			yaml_node_t *v = kc_node(f, p->value);
			return v && !scalar_is_null(v) ? v : NULL;
		}
	}
	return NULL;
}

/* A string field: *out is NULL when absent, "" is reported as absent too. */
static int kc_str(struct kc_file *f, yaml_node_t *map, const char *key, const char *prefix, const char **out,
		  struct err *e)
{
	*out = NULL;
	yaml_node_t *v = kc_get(f, map, key);
	if (!v)
		return 0;
	if (v->type != YAML_SCALAR_NODE)
		return kc_err(e, ERR_INVALID, f, v, prefix, "%s: expected a string", key);
	if (v->data.scalar.value[0])
		*out = (const char *)v->data.scalar.value;
	return 0;
}

static int kc_bool(struct kc_file *f, yaml_node_t *map, const char *key, const char *prefix, bool *out,
		   struct err *e)
{
	*out = false;
	yaml_node_t *v = kc_get(f, map, key);
	if (!v)
		return 0;
	static const char *const yes[] = {"true", "yes", "on", "y"}, *const no[] = {"false", "no", "off", "n"};
	if (v->type == YAML_SCALAR_NODE) {
		const char *s = (const char *)v->data.scalar.value;
		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
			if (!strcasecmp(s, yes[i])) {
				*out = true;
				return 0;
			}
			if (!strcasecmp(s, no[i]))
				return 0;
		}
	}
	return kc_err(e, ERR_INVALID, f, v, prefix, "%s: expected true or false", key);
}

static int kc_load_file(struct kc_file *f, const char *path, struct err *e)
{
	int rc;
	char *text = NULL;
	size_t len = 0;
	yaml_parser_t parser;
	bool parser_ok = false;
	f->path = strdup(path);
	char *slash = f->path ? strrchr(f->path, '/') : NULL;
	f->dir = !f->path ? NULL : slash ? strndup(f->path, slash == f->path ? 1 : (size_t)(slash - f->path)) : strdup(".");
	if (!f->path || !f->dir)
		return err_set(e, ERR_NOMEM, "%s: out of memory", path);
	if ((rc = api__read_file(path, KC_MAX_FILE, &text, &len, e)))
		goto out;
	if (!yaml_parser_initialize(&parser)) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	parser_ok = true;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &f->doc)) {
		const char *problem = parser.problem ? parser.problem : "invalid YAML";
		if (parser.context)
			rc = err_set(e, ERR_INVALID, "%s:%zu:%zu: invalid YAML: %s %s", path, parser.problem_mark.line + 1,
				     parser.problem_mark.column + 1, parser.context, problem);
		else
			rc = err_set(e, ERR_INVALID, "%s:%zu:%zu: invalid YAML: %s", path, parser.problem_mark.line + 1,
				     parser.problem_mark.column + 1, problem);
		goto out;
	}
	f->loaded = true;
	f->root = yaml_document_get_root_node(&f->doc);
	if (f->root && scalar_is_null(f->root))
		f->root = NULL;
	if (f->root && f->root->type != YAML_MAPPING_NODE) {
		rc = kc_err(e, ERR_INVALID, f, f->root, "", "expected a mapping (apiVersion, kind, clusters, ...)");
		goto out;
	}
	/* client-go decodes the whole file: a section of the wrong type is an error wherever it is. */
	static const char *const lists[] = {"clusters", "users", "contexts"};
	for (size_t i = 0; i < 3; i++) {
		yaml_node_t *l = kc_get(f, f->root, lists[i]);
		if (l && l->type != YAML_SEQUENCE_NODE) {
			rc = kc_err(e, ERR_INVALID, f, l, lists[i], "expected a list");
			goto out;
		}
	}
	const char *kind = NULL;
	if ((rc = kc_str(f, f->root, "kind", "", &kind, e)))
		goto out;
	if (kind && strcmp(kind, "Config")) {
		rc = kc_err(e, ERR_INVALID, f, kc_get(f, f->root, "kind"), "kind", "expected \"Config\", got \"%s\"", kind);
		goto out;
	}
out:
	if (parser_ok)
		yaml_parser_delete(&parser);
	free(text);
	return rc;
}

static void kc_release(struct kc *k)
{
	for (size_t i = 0; i < k->n; i++) {
		if (k->f[i].loaded)
			yaml_document_delete(&k->f[i].doc);
		free(k->f[i].path);
		free(k->f[i].dir);
	}
	free(k->f);
	k->f = NULL;
	k->n = 0;
}

/* The entry of list (clusters/users/contexts) whose name is name, in the first file that has one:
 * *inner is its `inner` mapping (cluster/user/context), *field receives "list[i].inner". */
static int kc_find(struct kc *k, const char *list, const char *inner, const char *name, struct kc_file **file,
		   yaml_node_t **node, char *field, size_t fsize, struct err *e)
{
	*node = NULL;
	*file = NULL;
	for (size_t fi = 0; fi < k->n; fi++) {
		struct kc_file *f = &k->f[fi];
		yaml_node_t *l = kc_get(f, f->root, list);
		if (!l)
			continue;
		size_t idx = 0;
		for (yaml_node_item_t *it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++, idx++) {
			yaml_node_t *item = kc_node(f, *it);
			char where[64];
			snprintf(where, sizeof(where), "%s[%zu]", list, idx);
			if (!item || item->type != YAML_MAPPING_NODE)
				return kc_err(e, ERR_INVALID, f, item, where, "expected a mapping with name and %s", inner);
			const char *n = NULL;
			int rc = kc_str(f, item, "name", where, &n, e);
			if (rc)
				return rc;
			if (!n || strcmp(n, name))
				continue;
			snprintf(field, fsize, "%s.%s", where, inner);
			yaml_node_t *v = kc_get(f, item, inner);
			if (!v)
				return kc_err(e, ERR_INVALID, f, item, field, "required");
			if (v->type != YAML_MAPPING_NODE)
				return kc_err(e, ERR_INVALID, f, v, field, "expected a mapping");
			*file = f;
			*node = v;
			return 0;
		}
	}
	return 0;
}

/* A PEM field: base64 data (key-data) or a file (key), never both. Fills *data or *file. */
static int kc_pem(struct kc_file *f, yaml_node_t *m, const char *field, const char *file_key, const char *data_key,
		  char **file, char **data, size_t *data_len, struct err *e)
{
	const char *fv = NULL, *dv = NULL;
	int rc;
	if ((rc = kc_str(f, m, file_key, field, &fv, e)) || (rc = kc_str(f, m, data_key, field, &dv, e)))
		return rc;
	if (fv && dv)
		return kc_err(e, ERR_INVALID, f, kc_get(f, m, file_key), field, "%s and %s are both set: use one", file_key,
			      data_key);
	if (dv) {
		rc = api__base64_decode(dv, strlen(dv), data, data_len);
		if (rc == ERR_NOMEM)
			return err_set(e, rc, "%s: out of memory", f->path);
		if (rc)
			return kc_err(e, ERR_INVALID, f, kc_get(f, m, data_key), field, "%s: invalid base64", data_key);
		if (!strstr(*data, "-----BEGIN ")) {
			free(*data);
			*data = NULL;
			return kc_err(e, ERR_INVALID, f, kc_get(f, m, data_key), field, "%s: not PEM data (no -----BEGIN line)",
				      data_key);
		}
	}
	if (fv) {
		*file = resolve_path(f->dir, fv);
		if (!*file)
			return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
		if (access(*file, R_OK))
			return kc_err(e, ERR_IO, f, kc_get(f, m, file_key), field, "%s: %s: %s", file_key, *file,
				      strerror(errno));
	}
	return 0;
}

static int kc_exec(struct kc_file *f, yaml_node_t *x, const char *field, struct api_exec_config **out, struct err *e)
{
	int rc = 0;
	bool ok = true;
	const char *cmd = NULL, *ver = NULL, *mode = NULL;
	struct api_exec_config *c = calloc(1, sizeof(*c));
	if (!c)
		return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
	if (x->type != YAML_MAPPING_NODE) {
		rc = kc_err(e, ERR_INVALID, f, x, field, "expected a mapping");
		goto out;
	}
	if ((rc = kc_str(f, x, "command", field, &cmd, e)) || (rc = kc_str(f, x, "apiVersion", field, &ver, e)) ||
	    (rc = kc_str(f, x, "interactiveMode", field, &mode, e)))
		goto out;
	if (!cmd) {
		rc = kc_err(e, ERR_INVALID, f, x, field, "command: required");
		goto out;
	}
	if (!ver) {
		rc = kc_err(e, ERR_INVALID, f, x, field, "apiVersion: required");
		goto out;
	}
	if (strcmp(ver, "client.authentication.k8s.io/v1") && strcmp(ver, "client.authentication.k8s.io/v1beta1")) {
		rc = kc_err(e, ERR_UNSUPPORTED, f, kc_get(f, x, "apiVersion"), field,
			    "apiVersion: \"%s\" is not supported (client.authentication.k8s.io/v1 or v1beta1)", ver);
		goto out;
	}
	if (mode && strcmp(mode, "Never") && strcmp(mode, "IfAvailable")) {
		rc = kc_err(e, strcmp(mode, "Always") ? ERR_INVALID : ERR_UNSUPPORTED, f, kc_get(f, x, "interactiveMode"),
			    field, "interactiveMode: \"%s\": %s", mode,
			    strcmp(mode, "Always") ? "expected Never, IfAvailable or Always"
						   : "the scheduler has no terminal for an interactive plugin");
		goto out;
	}
	bool cluster_info = false;
	if ((rc = kc_bool(f, x, "provideClusterInfo", field, &cluster_info, e)))
		goto out;
	if (cluster_info)
		LOG_WARN("%s: %s: provideClusterInfo is not supported; the plugin runs without cluster information", f->path,
			 field);
	/* client-go resolves a command with a path separator against the kubeconfig's directory,
	 * and leaves a bare name to $PATH. */
	c->command = strchr(cmd, '/') ? resolve_path(f->dir, cmd) : strdup(cmd);
	c->api_version = api__strdup(ver, &ok);
	if (!c->command || !ok) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
		goto out;
	}
	yaml_node_t *args = kc_get(f, x, "args"), *env = kc_get(f, x, "env");
	if (args && args->type != YAML_SEQUENCE_NODE) {
		rc = kc_err(e, ERR_INVALID, f, args, field, "args: expected a list of strings");
		goto out;
	}
	if (env && env->type != YAML_SEQUENCE_NODE) {
		rc = kc_err(e, ERR_INVALID, f, env, field, "env: expected a list of {name, value}");
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
		yaml_node_t *a = kc_node(f, args->data.sequence.items.start[i]);
		if (!a || a->type != YAML_SCALAR_NODE) {
			rc = kc_err(e, ERR_INVALID, f, a, field, "args[%zu]: expected a string", i);
			goto out;
		}
		if (!(c->args[i] = strdup((const char *)a->data.scalar.value))) {
			rc = err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
			goto out;
		}
	}
	for (size_t i = 0; i < ne; i++) {
		yaml_node_t *v = kc_node(f, env->data.sequence.items.start[i]);
		char where[ERR_MSG_MAX];
		if (snprintf(where, sizeof(where), "%s.env[%zu]", field, i) >= (int)sizeof(where))
			where[sizeof(where) - 1] = 0; /* a cut field path still names the place */
		const char *name = NULL, *value = NULL;
		if (!v || v->type != YAML_MAPPING_NODE) {
			rc = kc_err(e, ERR_INVALID, f, v, where, "expected a mapping with name and value");
			goto out;
		}
		if ((rc = kc_str(f, v, "name", where, &name, e)) || (rc = kc_str(f, v, "value", where, &value, e)))
			goto out;
		if (!name || strchr(name, '=')) {
			rc = kc_err(e, ERR_INVALID, f, v, where, "name: %s", name ? "must not contain '='" : "required");
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
	exec_config_free(c);
	return rc;
}

static int kc_user(struct kc_file *f, yaml_node_t *u, const char *field, struct api_config *c, struct err *e)
{
	int rc;
	const char *token = NULL, *token_file = NULL, *username = NULL;
	if (kc_get(f, u, "auth-provider"))
		return kc_err(e, ERR_UNSUPPORTED, f, kc_get(f, u, "auth-provider"), field,
			      "auth-provider: not supported (removed from client-go in 1.26): use an exec credential plugin");
	if ((rc = kc_str(f, u, "username", field, &username, e)))
		return rc;
	if (username)
		return kc_err(e, ERR_UNSUPPORTED, f, kc_get(f, u, "username"), field,
			      "username/password: basic authentication is not supported by kube-apiserver");
	if ((rc = kc_pem(f, u, field, "client-certificate", "client-certificate-data", &c->cert_file, &c->cert_data,
			 &c->cert_data_len, e)) ||
	    (rc = kc_pem(f, u, field, "client-key", "client-key-data", &c->key_file, &c->key_data, &c->key_data_len, e)))
		return rc;
	bool has_cert = c->cert_file || c->cert_data, has_key = c->key_file || c->key_data;
	if (has_cert != has_key)
		return kc_err(e, ERR_INVALID, f, u, field, "%s",
			      has_cert ? "client-key or client-key-data: required with a client certificate"
				       : "client-certificate or client-certificate-data: required with a client key");
	if ((rc = kc_str(f, u, "token", field, &token, e)) || (rc = kc_str(f, u, "tokenFile", field, &token_file, e)))
		return rc;
	if (token && !(c->token = strdup(token)))
		return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
	if (token_file) {
		if (!(c->token_file = resolve_path(f->dir, token_file)))
			return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
		/* client-go reads it at load time: a missing file is a configuration error. */
		char *t = NULL;
		struct err fe = {0};
		if ((rc = api__read_file(c->token_file, KC_MAX_TOKEN, &t, NULL, &fe)))
			return kc_err(e, rc, f, kc_get(f, u, "tokenFile"), field, "tokenFile: %s", fe.msg);
		memset(t, 0, strlen(t));
		free(t);
	}
	yaml_node_t *x = kc_get(f, u, "exec");
	if (x) {
		char xf[ERR_MSG_MAX];
		if (snprintf(xf, sizeof(xf), "%s.exec", field) >= (int)sizeof(xf))
			xf[sizeof(xf) - 1] = 0; /* a cut field path still names the place */
		if ((rc = kc_exec(f, x, xf, &c->exec, e)))
			return rc;
	}
	return 0;
}

static int kc_cluster(struct kc_file *f, yaml_node_t *cl, const char *field, struct api_config *c, struct err *e)
{
	int rc;
	const char *server = NULL;
	if ((rc = kc_str(f, cl, "server", field, &server, e)))
		return rc;
	if (!server)
		return kc_err(e, ERR_INVALID, f, cl, field, "server: required");
	if (!(c->server = strdup(server)))
		return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
	if ((rc = kc_pem(f, cl, field, "certificate-authority", "certificate-authority-data", &c->ca_file, &c->ca_data,
			 &c->ca_data_len, e)))
		return rc;
	if ((rc = kc_bool(f, cl, "insecure-skip-tls-verify", field, &c->insecure_skip_tls_verify, e)))
		return rc;
	if (c->insecure_skip_tls_verify && (c->ca_file || c->ca_data))
		return kc_err(e, ERR_INVALID, f, kc_get(f, cl, "insecure-skip-tls-verify"), field,
			      "insecure-skip-tls-verify: not allowed together with a certificate authority");
	const char *sni = NULL, *proxy = NULL;
	if ((rc = kc_str(f, cl, "tls-server-name", field, &sni, e)) || (rc = kc_str(f, cl, "proxy-url", field, &proxy, e)))
		return rc;
	if (sni || proxy)
		return kc_err(e, ERR_UNSUPPORTED, f, kc_get(f, cl, sni ? "tls-server-name" : "proxy-url"), field,
			      "%s: not supported by csched", sni ? "tls-server-name" : "proxy-url (use $HTTPS_PROXY)");
	return 0;
}

static int kc_build(struct kc *k, const char *context, struct api_config *out, struct err *e)
{
	int rc = 0;
	struct api_config c = {0};
	config_defaults(&c);
	const char *ctx_name = context && *context ? context : NULL;
	struct kc_file *cf = NULL;
	if (!ctx_name) {
		for (size_t i = 0; i < k->n && !ctx_name; i++) {
			if ((rc = kc_str(&k->f[i], k->f[i].root, "current-context", "", &ctx_name, e)))
				goto out;
		}
		if (!ctx_name) {
			rc = err_set(e, ERR_INVALID, "%s: current-context: not set and no context given", k->f[0].path);
			goto out;
		}
	}
	char field[160], cfield[160], ufield[160];
	yaml_node_t *ctx = NULL;
	if ((rc = kc_find(k, "contexts", "context", ctx_name, &cf, &ctx, field, sizeof(field), e)))
		goto out;
	if (!ctx) {
		rc = err_set(e, ERR_INVALID, "%s: contexts: no context named \"%s\"", k->f[0].path, ctx_name);
		goto out;
	}
	const char *cluster = NULL, *user = NULL, *ns = NULL;
	if ((rc = kc_str(cf, ctx, "cluster", field, &cluster, e)) || (rc = kc_str(cf, ctx, "user", field, &user, e)) ||
	    (rc = kc_str(cf, ctx, "namespace", field, &ns, e)))
		goto out;
	if (!cluster) {
		rc = kc_err(e, ERR_INVALID, cf, ctx, field, "cluster: required");
		goto out;
	}
	if (ns && !(c.namespace = strdup(ns))) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", cf->path);
		goto out;
	}
	struct kc_file *clf = NULL;
	yaml_node_t *cl = NULL;
	if ((rc = kc_find(k, "clusters", "cluster", cluster, &clf, &cl, cfield, sizeof(cfield), e)))
		goto out;
	if (!cl) {
		rc = kc_err(e, ERR_INVALID, cf, kc_get(cf, ctx, "cluster"), field, "cluster: no cluster named \"%s\" in clusters",
			    cluster);
		goto out;
	}
	if ((rc = kc_cluster(clf, cl, cfield, &c, e)))
		goto out;
	if (user) {
		struct kc_file *uf = NULL;
		yaml_node_t *u = NULL;
		if ((rc = kc_find(k, "users", "user", user, &uf, &u, ufield, sizeof(ufield), e)))
			goto out;
		if (!u) {
			rc = kc_err(e, ERR_INVALID, cf, kc_get(cf, ctx, "user"), field, "user: no user named \"%s\" in users", user);
			goto out;
		}
		if ((rc = kc_user(uf, u, ufield, &c, e)))
			goto out;
	}
	*out = c;
	memset(&c, 0, sizeof(c));
out:
	api_config_release(&c);
	return rc;
}

/* Loads the files (missing ones skipped when skip_missing, as client-go does for $KUBECONFIG). */
static int kc_load(const char *const *paths, size_t n, bool skip_missing, const char *context, struct api_config *out,
		   struct err *e)
{
	int rc = 0;
	struct kc k = {0};
	memset(out, 0, sizeof(*out));
	k.f = calloc(n ? n : 1, sizeof(*k.f));
	if (!k.f)
		return err_set(e, ERR_NOMEM, "kubeconfig: out of memory");
	for (size_t i = 0; i < n; i++) {
		if (skip_missing && access(paths[i], F_OK) && errno == ENOENT)
			continue;
		k.n++;
		if ((rc = kc_load_file(&k.f[k.n - 1], paths[i], e)))
			goto out;
	}
	if (k.n == 0) {
		rc = err_set(e, ERR_IO, "%s: %s", n ? paths[0] : "kubeconfig", strerror(ENOENT));
		goto out;
	}
	rc = kc_build(&k, context, out, e);
out:
	kc_release(&k);
	return rc;
}

int api_config_load_kubeconfig(struct api_config *out, const char *path, const char *context, struct err *e)
{
	if (!path || !*path) {
		memset(out, 0, sizeof(*out));
		return err_set(e, ERR_INVALID, "kubeconfig: no path given");
	}
	return kc_load(&path, 1, false, context, out, e);
}

/* ---------- in-cluster ---------- */

int api_config_in_cluster(struct api_config *out, const char *dir, struct err *e)
{
	int rc = 0;
	struct api_config c = {0};
	char *ns = NULL, *tok = NULL;
	char path[PATH_MAX];
	memset(out, 0, sizeof(*out));
	config_defaults(&c);
	if (!dir)
		dir = SA_DIR_DEFAULT;
	const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
	if (!host || !*host || !port || !*port)
		return err_set(e, ERR_INVALID,
			       "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
	size_t n = strlen(host) + strlen(port) + 16;
	if (!(c.server = malloc(n))) {
		rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
		goto out;
	}
	/* net.JoinHostPort: an IPv6 address needs brackets. */
	snprintf(c.server, n, strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);
	snprintf(path, sizeof(path), "%s/token", dir);
	if ((rc = api__read_file(path, KC_MAX_TOKEN, &tok, NULL, e))) {
		err_prefix(e, "in-cluster configuration: service-account token");
		goto out;
	}
	if (!(c.token_file = strdup(path))) {
		rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/ca.crt", dir);
	if (access(path, R_OK) == 0) {
		if (!(c.ca_file = strdup(path))) {
			rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
			goto out;
		}
	} else {
		/* client-go logs this and verifies against the system's roots. */
		LOG_ERROR("in-cluster configuration: expected a CA in %s: %s", path, strerror(errno));
	}
	const char *pod_ns = getenv("POD_NAMESPACE");
	if (pod_ns && *pod_ns) {
		c.namespace = strdup(pod_ns);
	} else {
		snprintf(path, sizeof(path), "%s/namespace", dir);
		struct err ne = {0};
		if (api__read_file(path, 4096, &ns, NULL, &ne) == 0 && (c.namespace = trim_dup(ns)) && !*c.namespace) {
			free(c.namespace);
			c.namespace = NULL;
		}
		if (!c.namespace)
			c.namespace = strdup("default");
	}
	if (!c.namespace) {
		rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
		goto out;
	}
	*out = c;
	memset(&c, 0, sizeof(c));
out:
	if (tok)
		memset(tok, 0, strlen(tok));
	free(tok);
	free(ns);
	api_config_release(&c);
	return rc;
}

int api_config_load_default(struct api_config *out, const char *kubeconfig, const char *context, struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (kubeconfig && *kubeconfig)
		return api_config_load_kubeconfig(out, kubeconfig, context, e);
	const char *env = getenv("KUBECONFIG");
	if (env && *env) {
		char *list = strdup(env), *save = NULL;
		const char **paths = calloc(strlen(env) / 2 + 2, sizeof(char *));
		size_t n = 0;
		int rc;
		if (!list || !paths) {
			rc = err_set(e, ERR_NOMEM, "$KUBECONFIG: out of memory");
		} else {
			for (char *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save))
				paths[n++] = p;
			rc = n ? kc_load(paths, n, true, context, out, e)
			       : err_set(e, ERR_INVALID, "$KUBECONFIG=\"%s\": no file named", env);
			if (rc == ERR_IO && n > 1)
				err_prefix(e, "$KUBECONFIG: none of the files exists");
		}
		free(paths);
		free(list);
		return rc;
	}
	struct err ice = {0};
	int irc = 0;
	if (getenv("KUBERNETES_SERVICE_HOST") && getenv("KUBERNETES_SERVICE_PORT")) {
		irc = api_config_in_cluster(out, NULL, &ice);
		if (irc == 0)
			return 0;
	}
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.kube/config", home ? home : "");
	if (home && access(path, F_OK) == 0)
		return api_config_load_kubeconfig(out, path, context, e);
	if (irc)
		return err_set(e, irc, "%s (and no %s)", ice.msg, path);
	return err_set(e, ERR_INVALID,
		       "no configuration: no --kubeconfig, no $KUBECONFIG, not in a cluster, and no %s", path);
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
