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
	const struct cfg_registry *reg;
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

/* Name checks as apimachinery's validate/content (IsDNS1123Subdomain, IsLabelKey alias
 * IsQualifiedName, IsLabelValue), messages byte for byte; NULL when valid.
 * cfg_check_qualified_name: the first message (a static string), as field errors made one per
 * message (metav1validation.ValidateLabelName) show first. cfg_check_label_key/_value: every
 * message joined by "; " into buf, as labels.NewRequirement reports them. */
const char *cfg_check_dns_subdomain(const char *s);
const char *cfg_check_qualified_name(const char *s);
const char *cfg_check_label_key(const char *s, char *buf, size_t size);
const char *cfg_check_label_value(const char *s, char *buf, size_t size);

/* Extenders (shared by the v1 decoder and the Policy decoder, which sets d->icase and
 * legacy: "enableHttps" and httpTimeout in nanoseconds). */
int cfg_decode_extenders(struct cfg_dec *d, yaml_node_t *n, bool legacy, struct config *cfg);
int cfg_validate_extenders(const struct cfg_vctx *v, const struct config *cfg);

/* ---------- Plugin args (args.c and one file per group of args types) ---------- */

/* Decoding state of one args mapping, shared by its type's callbacks. */
struct cfg_args_ctx {
	const char *plugin; /* the pluginConfig name, for messages */
	const struct cfg_args_type *type;
	void *args; /* the type's member of struct cfg_plugin_args */
	/* presence, for defaulting and presence-dependent checks */
	bool has_strategy, has_type, has_rtcr;
	yaml_node_t *strategy_node;
};

/* One args type: a behaviour table, as redis' dictType. Adding an args type = one instance and
 * its row in args.c's table. */
struct cfg_args_type {
	enum cfg_args_kind kind;
	const char *name; /* "NodeResourcesFitArgs" */
	size_t offset;    /* of its member in struct cfg_plugin_args */
	size_t size;      /* of that member */
	void (*set_defaults)(void *args); /* upstream's v1 defaults; NULL = all zero */
	/* One key of the args mapping other than apiVersion/kind (ctx: struct cfg_args_ctx). */
	dec_field_fn field;
	/* Optional, after the mapping: defaults that depend on which keys were present. */
	int (*finish)(struct cfg_dec *d, struct cfg_args_ctx *c);
	int (*validate)(const struct cfg_vctx *v, const char *path, const void *args);
	/* The fields after apiVersion and kind. */
	void (*write)(FILE *f, int indent, const void *args);
};

/* Designated initialisers of offset and size for member m. */
#define CFG_ARGS_MEMBER(m) .offset = offsetof(struct cfg_plugin_args, m), .size = sizeof(((struct cfg_plugin_args *)0)->m)

extern const struct cfg_args_type cfg_args_fit, cfg_args_balanced;                /* args_resources.c */
extern const struct cfg_args_type cfg_args_node_affinity;                         /* args_affinity.c */
extern const struct cfg_args_type cfg_args_inter_pod_affinity, cfg_args_topology_spread, cfg_args_preemption,
	cfg_args_volume_binding, cfg_args_dynamic_resources;                       /* args_other.c */

void cfg_args_set_defaults(struct cfg_plugin_args *a);
/* Decodes one pluginConfig[].args of type t for plugin into its member of a. */
int cfg_args_decode(struct cfg_dec *d, yaml_node_t *n, const char *plugin, const struct cfg_args_type *t,
		    struct cfg_plugin_args *a);
int cfg_args_validate(const struct cfg_vctx *v, const char *path, enum cfg_args_kind kind,
		      const struct cfg_plugin_args *a);
/* Writes kind's args (apiVersion, kind, fields) at indent. */
void cfg_args_write(FILE *f, int indent, enum cfg_args_kind kind, const struct cfg_plugin_args *a);
int cfg_args_nomem(struct cfg_dec *d);
/* Upstream's defaultResourceSpec (cpu 1, memory 1), static. */
struct cfg_resource_weight *cfg_default_resource_spec(void);
/* Sequence n decoded into a zeroed arena array of size-byte items, fn(d, i, item, array) on
 * each. Returns the array (NULL when empty or on error) with its length in *count; *rc is 0 or
 * the error. */
void *cfg_dec_array(struct cfg_dec *d, yaml_node_t *n, size_t size, dec_item_fn fn, uint32_t *count, int *rc);
/* Decode a list of {name, weight} (an unset weight is 1) or {utilization, score} into arena memory;
 * shared by pluginConfig args and the legacy Policy's requestedToCapacityRatioArguments. */
int cfg_dec_resources(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_resource_weight **out);
int cfg_dec_shape(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_shape_point **out);
/* Upstream's validateFunctionShape (utilization strictly increasing in 0..100, score 0..10). */
int cfg_check_shape(const struct cfg_vctx *v, const char *path, const struct cfg_shape_point *pts, uint32_t n);
/* "key:" at indent (no newline); the lists write "key:" and one "- " line per item, nothing when empty. */
void cfg_write_key(FILE *f, int indent, const char *key);
/* "key:" and a newline before a list of n items; false (nothing written) when n is 0. */
bool cfg_write_list_key(FILE *f, int indent, const char *key, uint32_t n);
/* prefix then s quoted as needed, on its own line at indent ("- name: x"). */
void cfg_write_item(FILE *f, int indent, const char *prefix, const char *s);
void cfg_write_resources(FILE *f, int indent, const char *key, const struct cfg_resource_weight *r, uint32_t n);
void cfg_write_strs(FILE *f, int indent, const char *key, const char *const *s, uint32_t n);

/* Plugins: upstream's mergePlugins against csched's defaults, checks of one profile's sets,
 * and the framework's expansion into effective lists. */
int cfg_plugins_merge_defaults(struct arena *a, const struct cfg_registry *reg, struct cfg_plugins *p);
int cfg_plugins_check_sets(const struct cfg_vctx *v, const struct cfg_registry *reg, const char *profile_path,
			   const struct cfg_plugins *p);
int cfg_profile_expand(struct arena *a, const struct cfg_vctx *v, const struct cfg_registry *reg,
		       const char *profile_path, struct cfg_profile *prof);
/* The profile's pluginConfig list completed with defaults for its plugins (upstream's
 * setDefaults_KubeSchedulerProfile). */
void cfg_profile_default_plugin_config(const struct cfg_registry *reg, struct cfg_profile *prof);
/* The pluginConfig name of args kind (the plugin taking it), "" when none. */
const char *cfg_registry_args_plugin(const struct cfg_registry *reg, enum cfg_args_kind kind);
/* Plugins upstream removed from v1 (validation.go's invalidPluginsByVersion). */
bool cfg_plugin_removed(const char *name);

/* Whole-config steps shared by the two loaders. */
void cfg_set_defaults(struct config *cfg);
int cfg_finish(struct config *cfg, const struct cfg_vctx *v);

/* The Policy decoder (policy.c). */
int cfg_policy_decode(struct cfg_dec *d, yaml_node_t *root, struct config *cfg);

/* Writer helpers. */
void cfg_write_indent(FILE *f, int indent);
void cfg_write_str(FILE *f, const char *s);

#endif
