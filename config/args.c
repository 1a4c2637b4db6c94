/* pluginConfig[].args: the table of args types and what every type shares: the apiVersion /
 * kind header, resource and shape lists, and the writer helpers. Each type's decoding (strict),
 * upstream's v1 defaults (defaults.go), validation (validation_pluginargs.go) and writing live
 * together in one struct cfg_args_type (args_resources.c, args_affinity.c, args_other.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "cfg_internal.h"

/* Indexed by enum cfg_args_kind. */
static const struct cfg_args_type *const types[CFG_ARGS_COUNT] = {
	[CFG_ARGS_FIT] = &cfg_args_fit,
	[CFG_ARGS_BALANCED] = &cfg_args_balanced,
	[CFG_ARGS_NODE_AFFINITY] = &cfg_args_node_affinity,
	[CFG_ARGS_INTER_POD_AFFINITY] = &cfg_args_inter_pod_affinity,
	[CFG_ARGS_TOPOLOGY_SPREAD] = &cfg_args_topology_spread,
	[CFG_ARGS_PREEMPTION] = &cfg_args_preemption,
	[CFG_ARGS_VOLUME_BINDING] = &cfg_args_volume_binding,
	[CFG_ARGS_DYNAMIC_RESOURCES] = &cfg_args_dynamic_resources,
};

const struct cfg_args_type *cfg_args_type_of(enum cfg_args_kind kind)
{
	return (unsigned)kind < CFG_ARGS_COUNT ? types[kind] : NULL;
}

enum cfg_args_kind cfg_args_type_kind(const struct cfg_args_type *t)
{
	return t ? t->kind : CFG_ARGS_NONE;
}

const char *cfg_args_type_name(const struct cfg_args_type *t)
{
	return t ? t->name : "";
}

const void *cfg_args_member(const struct cfg_args_type *t, const struct cfg_plugin_args *a)
{
	return t && a ? (const char *)a + t->offset : NULL;
}

static void *member(const struct cfg_args_type *t, struct cfg_plugin_args *a)
{
	return (char *)a + t->offset;
}

/* Upstream's defaultResourceSpec: cpu and memory, weight 1. Interned on first use. */
static struct cfg_resource_weight default_resources[2];

struct cfg_resource_weight *cfg_default_resource_spec(void)
{
	if (!default_resources[0].name) {
		default_resources[0] = (struct cfg_resource_weight){ intern_str("cpu"), 1 };
		default_resources[1] = (struct cfg_resource_weight){ intern_str("memory"), 1 };
	}
	return default_resources;
}

void cfg_args_set_defaults(struct cfg_plugin_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int k = 0; k < CFG_ARGS_COUNT; k++)
		if (types[k]->set_defaults)
			types[k]->set_defaults(member(types[k], a));
}

int cfg_args_nomem(struct cfg_dec *d)
{
	return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
}

/* ---------- decoding ---------- */

static int type_meta(struct cfg_dec *d, const char *key, yaml_node_t *v, struct cfg_args_ctx *c, bool *handled)
{
	const char *s = NULL;
	*handled = true;
	if (dec_key_is(d, key, "apiVersion")) {
		int rc = dec_str(d, v, &s);
		if (!rc && strcmp(s, CFG_API_VERSION) != 0)
			rc = dec_err(d, v, "args for plugin %s must have apiVersion %s, got \"%s\"", c->plugin,
				     CFG_API_VERSION, s);
		return rc;
	}
	if (dec_key_is(d, key, "kind")) {
		int rc = dec_str(d, v, &s);
		if (!rc && strcmp(s, c->type->name) != 0)
			rc = dec_err(d, v, "args for plugin %s were not of type %s, got %s", c->plugin, c->type->name, s);
		return rc;
	}
	*handled = false;
	return 0;
}

static int args_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	bool handled;
	int rc = type_meta(d, key, v, c, &handled);
	if (handled)
		return rc;
	return c->type->field(d, key, v, c);
}

int cfg_args_decode(struct cfg_dec *d, yaml_node_t *n, const char *plugin, const struct cfg_args_type *t,
		    struct cfg_plugin_args *a)
{
	struct cfg_args_ctx c = { .plugin = plugin, .type = t, .args = member(t, a) };
	/* Explicit args replace the defaults of their own kind only. */
	struct cfg_plugin_args fresh;
	cfg_args_set_defaults(&fresh);
	memcpy(c.args, member(t, &fresh), t->size);
	int rc = dec_map(d, n, args_field, &c);
	if (!rc && t->finish)
		rc = t->finish(d, &c);
	return rc;
}

void *cfg_dec_array(struct cfg_dec *d, yaml_node_t *n, size_t size, dec_item_fn fn, uint32_t *count, int *rc)
{
	size_t len;
	void *items = NULL;
	*count = 0;
	if ((*rc = dec_seq_len(d, n, &len)))
		return NULL;
	if (len && !(items = arena_alloc(d->arena, len * size))) {
		*rc = cfg_args_nomem(d);
		return NULL;
	}
	if ((*rc = dec_seq(d, n, fn, items)))
		return NULL;
	*count = (uint32_t)len;
	return items;
}

static int resource_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_resource_weight *r = ctx;
	if (dec_key_is(d, key, "name"))
		return dec_istr(d, v, &r->name);
	if (dec_key_is(d, key, "weight"))
		return dec_int(d, v, INT64_MIN, INT64_MAX, &r->weight);
	return dec_unknown(d, key, v);
}

static int resource_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct cfg_resource_weight *r = (struct cfg_resource_weight *)ctx + i;
	r->name = intern_str("");
	int rc = dec_map(d, item, resource_field, r);
	/* v1 defaulting: an unset weight is 1. */
	if (!rc && r->weight == 0)
		r->weight = 1;
	return rc;
}

int cfg_dec_resources(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_resource_weight **out)
{
	int rc;
	*out = cfg_dec_array(d, n, sizeof(**out), resource_item, count, &rc);
	return rc;
}

static int shape_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_shape_point *p = ctx;
	if (dec_key_is(d, key, "utilization"))
		return dec_i32(d, v, &p->utilization);
	if (dec_key_is(d, key, "score"))
		return dec_i32(d, v, &p->score);
	return dec_unknown(d, key, v);
}

static int shape_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct cfg_shape_point *pts = ctx;
	return dec_map(d, item, shape_field, &pts[i]);
}

int cfg_dec_shape(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct cfg_shape_point **out)
{
	int rc;
	*out = cfg_dec_array(d, n, sizeof(**out), shape_item, count, &rc);
	return rc;
}

/* ---------- validation ---------- */

int cfg_args_validate(const struct cfg_vctx *v, const char *path, enum cfg_args_kind kind,
		      const struct cfg_plugin_args *a)
{
	const struct cfg_args_type *t = cfg_args_type_of(kind);
	return t ? t->validate(v, path, cfg_args_member(t, a)) : 0;
}

int cfg_check_shape(const struct cfg_vctx *v, const char *path, const struct cfg_shape_point *pts, uint32_t n)
{
	char p[CFG_PATH_MAX];
	if (n == 0)
		return cfg_verr(v, path, "Required value: at least one point must be specified");
	for (uint32_t i = 1; i < n; i++) {
		if (pts[i - 1].utilization >= pts[i].utilization) {
			cfg_pathf(p, sizeof(p), "%s[%u].utilization", path, i);
			return cfg_verr(v, p, "Invalid value: %d: values must be sorted in increasing order", pts[i].utilization);
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (pts[i].utilization < 0 || pts[i].utilization > 100) {
			cfg_pathf(p, sizeof(p), "%s[%u].utilization", path, i);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 100]", pts[i].utilization);
		}
		if (pts[i].score < 0 || pts[i].score > 10) {
			cfg_pathf(p, sizeof(p), "%s[%u].score", path, i);
			return cfg_verr(v, p, "Invalid value: %d: not in valid range [0, 10]", pts[i].score);
		}
	}
	return 0;
}

/* ---------- writing ---------- */

void cfg_args_write(FILE *f, int ind, enum cfg_args_kind kind, const struct cfg_plugin_args *a)
{
	const struct cfg_args_type *t = cfg_args_type_of(kind);
	if (!t)
		return;
	cfg_write_key(f, ind, "apiVersion");
	fprintf(f, " %s\n", CFG_API_VERSION);
	cfg_write_key(f, ind, "kind");
	fprintf(f, " %s\n", t->name);
	t->write(f, ind, cfg_args_member(t, a));
}

void cfg_write_key(FILE *f, int ind, const char *key)
{
	cfg_write_indent(f, ind);
	fprintf(f, "%s:", key);
}

bool cfg_write_list_key(FILE *f, int ind, const char *key, uint32_t n)
{
	if (!n)
		return false;
	cfg_write_key(f, ind, key);
	fputc('\n', f);
	return true;
}

void cfg_write_item(FILE *f, int ind, const char *prefix, const char *s)
{
	cfg_write_indent(f, ind);
	fputs(prefix, f);
	cfg_write_str(f, s);
	fputc('\n', f);
}

void cfg_write_resources(FILE *f, int ind, const char *key, const struct cfg_resource_weight *r, uint32_t n)
{
	if (!cfg_write_list_key(f, ind, key, n))
		return;
	for (uint32_t i = 0; i < n; i++) {
		cfg_write_item(f, ind, "- name: ", r[i].name);
		cfg_write_indent(f, ind + 2);
		fprintf(f, "weight: %" PRId64 "\n", r[i].weight);
	}
}

void cfg_write_strs(FILE *f, int ind, const char *key, const char *const *s, uint32_t n)
{
	if (!cfg_write_list_key(f, ind, key, n))
		return;
	for (uint32_t i = 0; i < n; i++)
		cfg_write_item(f, ind, "- ", s[i]);
}
