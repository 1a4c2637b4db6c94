/* Internals shared by the kubeconfig files of apiclient: kubeconfig.c (the document),
 * kubeconfig_creds.c (credential sources), kubeconfig_exec.c (exec plugins). */
#ifndef CSCHED_API_KUBECONFIG_INTERNAL_H
#define CSCHED_API_KUBECONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "api_internal.h"

#define KC_MAX_TOKEN (1u << 20) /* a token file larger than this is not a token */

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
 * top level of the file. Returns code. */
int api__kc_err(struct err *e, int code, const struct kc_file *f, const yaml_node_t *n, const char *field,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));
yaml_node_t *api__kc_node(struct kc_file *f, yaml_node_item_t i);
/* The value under key in a mapping, NULL when absent or null. */
yaml_node_t *api__kc_get(struct kc_file *f, yaml_node_t *map, const char *key);
/* A string field: *out is NULL when absent, "" is reported as absent too. */
int api__kc_str(struct kc_file *f, yaml_node_t *map, const char *key, const char *prefix, const char **out,
		struct err *e);
int api__kc_bool(struct kc_file *f, yaml_node_t *map, const char *key, const char *prefix, bool *out,
		 struct err *e);
/* "dir/p" unless p is absolute; malloc'd, NULL on out of memory. */
char *api__kc_resolve_path(const char *dir, const char *p);

/* A PEM field: base64 data (key-data) or a file (key), never both. Fills *data or *file. */
int api__kc_pem(struct kc_file *f, yaml_node_t *m, const char *field, const char *file_key, const char *data_key,
		char **file, char **data, size_t *data_len, struct err *e);

/* users[].user.exec -> *out (malloc'd; api__exec_config_free). */
int api__kc_exec(struct kc_file *f, yaml_node_t *x, const char *field, struct api_exec_config **out,
		 struct err *e);
void api__exec_config_free(struct api_exec_config *x);

static inline void api__config_defaults(struct api_config *c)
{
	c->connect_timeout_ms = 10000;
	c->request_timeout_ms = 60000;
}

#endif
