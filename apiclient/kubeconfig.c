/* Kubeconfig files (libyaml): follows client-go's clientcmd. The context (given, else
 * current-context) names a cluster and a user; relative paths are resolved against the directory
 * of the file that holds the entry; with several files ($KUBECONFIG=a:b) the first file that sets
 * a value wins. Every error names the file, the field ("users[0].user.client-certificate-data")
 * and, when the YAML parser knows it, line:column. Credential sources are in kubeconfig_creds.c,
 * exec credential plugins in kubeconfig_exec.c. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pwd.h>
#include <strings.h>
#include <yaml.h>

#include "kubeconfig_internal.h"
#include "yaml_internal.h"
#include "common/log.h"
#include "common/macros.h"

#define KC_MAX_FILE (16u << 20)      /* a kubeconfig larger than this is not a kubeconfig */

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
	api__exec_config_free(c->exec);
	free(c->namespace);
	free(c->user_agent);
	memset(c, 0, sizeof(*c));
}

/* "dir/p" unless p is absolute. */
char *api__kc_resolve_path(const char *dir, const char *p)
{
	if (p[0] == '/' || !dir || !*dir)
		return strdup(p);
	size_t n = strlen(dir) + strlen(p) + 2;
	char *r = malloc(n);
	if (r)
		snprintf(r, n, "%s/%s", dir, p);
	return r;
}

/* ---------- the kubeconfig document ---------- */

/* Contract in kubeconfig_internal.h. */
int api__kc_err(struct err *e, int code, const struct kc_file *f, const yaml_node_t *n, const char *field,
		const char *fmt, ...)
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

yaml_node_t *api__kc_node(struct kc_file *f, yaml_node_item_t i)
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
yaml_node_t *api__kc_get(struct kc_file *f, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = api__kc_node(f, p->key);
		if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key)) {
			yaml_node_t *v = api__kc_node(f, p->value);
			return v && !scalar_is_null(v) ? v : NULL;
		}
	}
	return NULL;
}

/* A string field: *out is NULL when absent, "" is reported as absent too. */
int api__kc_str(struct kc_file *f, yaml_node_t *map, const char *key, const char *prefix, const char **out,
		  struct err *e)
{
	*out = NULL;
	yaml_node_t *v = api__kc_get(f, map, key);
	if (!v)
		return 0;
	if (v->type != YAML_SCALAR_NODE)
		return api__kc_err(e, ERR_INVALID, f, v, prefix, "%s: expected a string", key);
	if (v->data.scalar.value[0])
		*out = (const char *)v->data.scalar.value;
	return 0;
}

int api__kc_bool(struct kc_file *f, yaml_node_t *map, const char *key, const char *prefix, bool *out,
		   struct err *e)
{
	*out = false;
	yaml_node_t *v = api__kc_get(f, map, key);
	if (!v)
		return 0;
	static const char *const yes[] = {"true", "yes", "on", "y"}, *const no[] = {"false", "no", "off", "n"};
	if (v->type == YAML_SCALAR_NODE) {
		const char *s = (const char *)v->data.scalar.value;
		for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
			if (!strcasecmp(s, yes[i])) {
				*out = true;
				return 0;
			}
			if (!strcasecmp(s, no[i]))
				return 0;
		}
	}
	return api__kc_err(e, ERR_INVALID, f, v, prefix, "%s: expected true or false", key);
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
		rc = api__yaml_load_error(e, &parser, path);
		goto out;
	}
	f->loaded = true;
	f->root = yaml_document_get_root_node(&f->doc);
	if (f->root && scalar_is_null(f->root))
		f->root = NULL;
	if (f->root && f->root->type != YAML_MAPPING_NODE) {
		rc = api__kc_err(e, ERR_INVALID, f, f->root, "", "expected a mapping (apiVersion, kind, clusters, ...)");
		goto out;
	}
	/* client-go decodes the whole file: a section of the wrong type is an error wherever it is. */
	static const char *const lists[] = {"clusters", "users", "contexts"};
	for (size_t i = 0; i < 3; i++) {
		yaml_node_t *l = api__kc_get(f, f->root, lists[i]);
		if (l && l->type != YAML_SEQUENCE_NODE) {
			rc = api__kc_err(e, ERR_INVALID, f, l, lists[i], "expected a list");
			goto out;
		}
	}
	const char *kind = NULL;
	if ((rc = api__kc_str(f, f->root, "kind", "", &kind, e)))
		goto out;
	if (kind && strcmp(kind, "Config")) {
		rc = api__kc_err(e, ERR_INVALID, f, api__kc_get(f, f->root, "kind"), "kind", "expected \"Config\", got \"%s\"", kind);
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
		yaml_node_t *l = api__kc_get(f, f->root, list);
		if (!l)
			continue;
		size_t idx = 0;
		for (yaml_node_item_t *it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++, idx++) {
			yaml_node_t *item = api__kc_node(f, *it);
			char where[64];
			snprintf(where, sizeof(where), "%s[%zu]", list, idx);
			if (!item || item->type != YAML_MAPPING_NODE)
				return api__kc_err(e, ERR_INVALID, f, item, where, "expected a mapping with name and %s", inner);
			const char *n = NULL;
			int rc = api__kc_str(f, item, "name", where, &n, e);
			if (rc)
				return rc;
			if (!n || strcmp(n, name))
				continue;
			snprintf(field, fsize, "%s.%s", where, inner);
			yaml_node_t *v = api__kc_get(f, item, inner);
			if (!v)
				return api__kc_err(e, ERR_INVALID, f, item, field, "required");
			if (v->type != YAML_MAPPING_NODE)
				return api__kc_err(e, ERR_INVALID, f, v, field, "expected a mapping");
			*file = f;
			*node = v;
			return 0;
		}
	}
	return 0;
}

static int kc_user(struct kc_file *f, yaml_node_t *u, const char *field, struct api_config *c, struct err *e)
{
	int rc;
	const char *token = NULL, *token_file = NULL, *username = NULL;
	if (api__kc_get(f, u, "auth-provider"))
		return api__kc_err(e, ERR_UNSUPPORTED, f, api__kc_get(f, u, "auth-provider"), field,
			      "auth-provider: not supported (removed from client-go in 1.26): use an exec credential plugin");
	if ((rc = api__kc_str(f, u, "username", field, &username, e)))
		return rc;
	if (username)
		return api__kc_err(e, ERR_UNSUPPORTED, f, api__kc_get(f, u, "username"), field,
			      "username/password: basic authentication is not supported by kube-apiserver");
	if ((rc = api__kc_pem(f, u, field, "client-certificate", "client-certificate-data", &c->cert_file, &c->cert_data,
			 &c->cert_data_len, e)) ||
	    (rc = api__kc_pem(f, u, field, "client-key", "client-key-data", &c->key_file, &c->key_data, &c->key_data_len, e)))
		return rc;
	bool has_cert = c->cert_file || c->cert_data, has_key = c->key_file || c->key_data;
	if (has_cert != has_key)
		return api__kc_err(e, ERR_INVALID, f, u, field, "%s",
			      has_cert ? "client-key or client-key-data: required with a client certificate"
				       : "client-certificate or client-certificate-data: required with a client key");
	if ((rc = api__kc_str(f, u, "token", field, &token, e)) || (rc = api__kc_str(f, u, "tokenFile", field, &token_file, e)))
		return rc;
	if (token && !(c->token = strdup(token)))
		return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
	if (token_file) {
		if (!(c->token_file = api__kc_resolve_path(f->dir, token_file)))
			return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
		/* client-go reads it at load time: a missing file is a configuration error. */
		char *t = NULL;
		struct err fe = {0};
		if ((rc = api__read_file(c->token_file, KC_MAX_TOKEN, &t, NULL, &fe)))
			return api__kc_err(e, rc, f, api__kc_get(f, u, "tokenFile"), field, "tokenFile: %s", fe.msg);
		memset(t, 0, strlen(t));
		free(t);
	}
	yaml_node_t *x = api__kc_get(f, u, "exec");
	if (x) {
		char xf[ERR_MSG_MAX];
		if (snprintf(xf, sizeof(xf), "%s.exec", field) >= (int)sizeof(xf))
			xf[sizeof(xf) - 1] = 0; /* a cut field path still names the place */
		if ((rc = api__kc_exec(f, x, xf, &c->exec, e)))
			return rc;
	}
	return 0;
}

static int kc_cluster(struct kc_file *f, yaml_node_t *cl, const char *field, struct api_config *c, struct err *e)
{
	int rc;
	const char *server = NULL;
	if ((rc = api__kc_str(f, cl, "server", field, &server, e)))
		return rc;
	if (!server)
		return api__kc_err(e, ERR_INVALID, f, cl, field, "server: required");
	if (!(c->server = strdup(server)))
		return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
	if ((rc = api__kc_pem(f, cl, field, "certificate-authority", "certificate-authority-data", &c->ca_file, &c->ca_data,
			 &c->ca_data_len, e)))
		return rc;
	if ((rc = api__kc_bool(f, cl, "insecure-skip-tls-verify", field, &c->insecure_skip_tls_verify, e)))
		return rc;
	if (c->insecure_skip_tls_verify && (c->ca_file || c->ca_data))
		return api__kc_err(e, ERR_INVALID, f, api__kc_get(f, cl, "insecure-skip-tls-verify"), field,
			      "insecure-skip-tls-verify: not allowed together with a certificate authority");
	const char *sni = NULL, *proxy = NULL;
	if ((rc = api__kc_str(f, cl, "tls-server-name", field, &sni, e)) || (rc = api__kc_str(f, cl, "proxy-url", field, &proxy, e)))
		return rc;
	if (sni || proxy)
		return api__kc_err(e, ERR_UNSUPPORTED, f, api__kc_get(f, cl, sni ? "tls-server-name" : "proxy-url"), field,
			      "%s: not supported by csched", sni ? "tls-server-name" : "proxy-url (use $HTTPS_PROXY)");
	return 0;
}

static int kc_build(struct kc *k, const char *context, struct api_config *out, struct err *e)
{
	int rc = 0;
	struct api_config c = {0};
	api__config_defaults(&c);
	const char *ctx_name = context && *context ? context : NULL;
	struct kc_file *cf = NULL;
	if (!ctx_name) {
		for (size_t i = 0; i < k->n && !ctx_name; i++) {
			if ((rc = api__kc_str(&k->f[i], k->f[i].root, "current-context", "", &ctx_name, e)))
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
	if ((rc = api__kc_str(cf, ctx, "cluster", field, &cluster, e)) || (rc = api__kc_str(cf, ctx, "user", field, &user, e)) ||
	    (rc = api__kc_str(cf, ctx, "namespace", field, &ns, e)))
		goto out;
	if (!cluster) {
		rc = api__kc_err(e, ERR_INVALID, cf, ctx, field, "cluster: required");
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
		rc = api__kc_err(e, ERR_INVALID, cf, api__kc_get(cf, ctx, "cluster"), field, "cluster: no cluster named \"%s\" in clusters",
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
			rc = api__kc_err(e, ERR_INVALID, cf, api__kc_get(cf, ctx, "user"), field, "user: no user named \"%s\" in users", user);
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

