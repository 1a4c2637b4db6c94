/* Internal to config/: the YAML decoder core, position bookkeeping and helpers shared by the
 * KubeSchedulerConfiguration decoder, the plugin-args decoder, the Policy mapper, validation
 * and the writer. Not part of the public API. */
#ifndef CSCHED_CFG_INTERNAL_H
#define CSCHED_CFG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "config/config.h"

#define CFG_PATH_MAX 256

/* Where each decoded field came from, by field path ("profiles[0].plugins.score"), so that
 * validation, which runs on the decoded struct, can name line and column. */
struct cfg_mark {
	char *path; /* malloc'd */
	uint32_t line, col; /* 1-based */
};

struct cfg_marks {
	struct cfg_mark *items;
	size_t n, cap;
};

void cfg_marks_release(struct cfg_marks *m);
/* The mark of path or of its nearest recorded ancestor; false when none is recorded. */
bool cfg_marks_find(const struct cfg_marks *m, const char *path, uint32_t *line, uint32_t *col);

/* Validation context: messages become "file:line:col: path: msg" when file and marks are
 * known, "path: msg" otherwise. */
struct cfg_vctx {
	const char *file;              /* NULL = no positions */
	const struct cfg_marks *marks; /* NULL = no positions */
	struct err *e;
};

int cfg_verr(const struct cfg_vctx *v, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Formats a field path into buf; a path longer than the buffer is cut (messages only). */
void cfg_pathf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Decoder over one libyaml document. */
struct cfg_dec {
	const char *file;
	yaml_document_t *doc;
	struct arena *arena;
	struct err *e;
	struct cfg_marks *marks;
	char path[CFG_PATH_MAX];
	size_t plen;
	bool icase; /* match keys case-insensitively (legacy Policy) */
};

/* Parses buf into doc; on a syntax error fills e with "name:line:col: <libyaml problem>". */
int cfg_yaml_parse(const char *name, const char *buf, size_t len, yaml_document_t *doc, struct err *e);

/* Error at node n (its start mark) for the current path. */
int dec_err(struct cfg_dec *d, yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Path stack: push returns the previous length for dec_pop. */
size_t dec_push_key(struct cfg_dec *d, const char *key);
size_t dec_push_index(struct cfg_dec *d, size_t i);
void dec_pop(struct cfg_dec *d, size_t saved);
/* Records the current path at node n. */
int dec_mark(struct cfg_dec *d, yaml_node_t *n);

bool dec_is_null(const yaml_node_t *n);
bool dec_key_is(const struct cfg_dec *d, const char *key, const char *want);

typedef int (*dec_field_fn)(struct cfg_dec *d, const char *key, yaml_node_t *value, void *ctx);
typedef int (*dec_item_fn)(struct cfg_dec *d, size_t index, yaml_node_t *item, void *ctx);

/* Calls fn for each key of mapping n with the path extended by the key and the value marked.
 * Null values are skipped (as absent, like Go's decoding into pointers). A null n is an empty
 * (or absent) n is an empty mapping. Duplicate keys and non-scalar keys are errors. */
int dec_map(struct cfg_dec *d, yaml_node_t *n, dec_field_fn fn, void *ctx);
/* Length of sequence n (0 for null), or an error when n is not a sequence. */
int dec_seq_len(struct cfg_dec *d, yaml_node_t *n, size_t *len);
int dec_seq(struct cfg_dec *d, yaml_node_t *n, dec_item_fn fn, void *ctx);
int dec_unknown(struct cfg_dec *d, const char *key, yaml_node_t *value);

int dec_str(struct cfg_dec *d, yaml_node_t *n, const char **out);  /* arena copy */
int dec_istr(struct cfg_dec *d, yaml_node_t *n, const char **out); /* interned */
int dec_bool(struct cfg_dec *d, yaml_node_t *n, bool *out);
int dec_int(struct cfg_dec *d, yaml_node_t *n, int64_t min, int64_t max, int64_t *out);
int dec_i32(struct cfg_dec *d, yaml_node_t *n, int32_t *out);
int dec_float(struct cfg_dec *d, yaml_node_t *n, double *out);
int dec_duration(struct cfg_dec *d, yaml_node_t *n, int64_t *ns);
int dec_base64(struct cfg_dec *d, yaml_node_t *n, const unsigned char **out, size_t *len);
/* A sequence of strings, interned. */
int dec_istr_list(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, const char ***out);

/* Name checks as apimachinery's IsQualifiedName / IsValidLabelValue; return NULL when valid or
 * a static message. */
const char *cfg_check_qualified_name(const char *s);
const char *cfg_check_label_value(const char *s);
const char *cfg_check_dns_subdomain(const char *s);

/* Extenders (shared by the v1 decoder and the Policy decoder, which sets d->icase and
 * legacy: "enableHttps" and httpTimeout in nanoseconds). */
int cfg_decode_extenders(struct cfg_dec *d, yaml_node_t *n, bool legacy, struct config *cfg);

/* Plugin args: defaults, decoding of one pluginConfig[].args, validation, writing. */
void cfg_args_set_defaults(struct cfg_plugin_args *a);
int cfg_args_decode(struct cfg_dec *d, yaml_node_t *n, enum cfg_args_kind kind, struct cfg_plugin_args *a);
int cfg_args_validate(const struct cfg_vctx *v, const char *path, enum cfg_args_kind kind,
		      const struct cfg_plugin_args *a);
/* Upstream's validateFunctionShape (utilization strictly increasing in 0..100, score 0..10). */
/* Decode a list of {name, weight} (an unset weight is 1) or {utilization, score} into arena memory;
 * shared by pluginConfig args and the legacy Policy's requestedToCapacityRatioArguments. */
int cfg_dec_resources(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_resource_weight **out);
int cfg_dec_shape(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_shape_point **out);
int cfg_check_shape(const struct cfg_vctx *v, const char *path, const struct cfg_shape_point *pts, uint32_t n);
const char *cfg_args_kind_plugin(enum cfg_args_kind kind); /* "NodeResourcesFit" */
const char *cfg_args_kind_name(enum cfg_args_kind kind);   /* "NodeResourcesFitArgs" */
void cfg_args_write(FILE *f, int indent, enum cfg_args_kind kind, const struct cfg_plugin_args *a);

/* Plugins: upstream's mergePlugins against csched's defaults, checks of one profile's sets,
 * and the framework's expansion into effective lists. */
int cfg_plugins_merge_defaults(struct arena *a, struct cfg_plugins *p);
int cfg_plugins_check_sets(const struct cfg_vctx *v, const char *profile_path, const struct cfg_plugins *p);
int cfg_profile_expand(struct arena *a, const struct cfg_vctx *v, const char *profile_path,
		       struct cfg_profile *prof);
/* The profile's pluginConfig list completed with defaults for its plugins (upstream's
 * setDefaults_KubeSchedulerProfile). */
void cfg_profile_default_plugin_config(struct cfg_profile *prof);

/* Whole-config steps shared by the two loaders. */
void cfg_set_defaults(struct config *cfg);
int cfg_finish(struct config *cfg, const struct cfg_vctx *v);

/* The Policy decoder (policy.c). */
int cfg_policy_decode(struct cfg_dec *d, yaml_node_t *root, struct config *cfg);

/* Writer helpers. */
void cfg_write_indent(FILE *f, int indent);
void cfg_write_str(FILE *f, const char *s);

#endif
