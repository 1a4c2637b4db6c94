/* NodeResourcesFitArgs and NodeResourcesBalancedAllocationArgs: decoding, upstream's v1 defaults,
 * validation and writing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cfg_internal.h"

static const char *const scoring_names[] = { "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio" };

/* ---------- NodeResourcesFitArgs ---------- */

static void fit_defaults(void *args)
{
	struct cfg_fit_args *f = args;
	f->scoring_type = CFG_SCORING_LEAST_ALLOCATED;
	f->n_resources = 2;
	f->resources = cfg_default_resource_spec();
}

static int rtcr_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_fit_args *f = c->args;
	if (dec_key_is(d, key, "shape"))
		return cfg_dec_shape(d, v, &f->n_shape, &f->shape);
	return dec_unknown(d, key, v);
}

static int strategy_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_fit_args *f = c->args;
	if (dec_key_is(d, key, "type")) {
		const char *s = NULL;
		int rc = dec_str(d, v, &s);
		if (rc)
			return rc;
		for (size_t i = 0; i < 3; i++) {
			if (strcmp(s, scoring_names[i]) == 0) {
				f->scoring_type = (enum cfg_scoring_type)i;
				c->has_type = true;
				return 0;
			}
		}
		return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"", s);
	}
	if (dec_key_is(d, key, "resources"))
		return cfg_dec_resources(d, v, &f->n_resources, &f->resources);
	if (dec_key_is(d, key, "requestedToCapacityRatio")) {
		c->has_rtcr = true;
		return dec_map(d, v, rtcr_field, c);
	}
	return dec_unknown(d, key, v);
}

static int fit_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_fit_args *f = c->args;
	if (dec_key_is(d, key, "ignoredResources"))
		return dec_istr_list(d, v, &f->n_ignored_resources, &f->ignored_resources);
	if (dec_key_is(d, key, "ignoredResourceGroups"))
		return dec_istr_list(d, v, &f->n_ignored_resource_groups, &f->ignored_resource_groups);
	if (dec_key_is(d, key, "scoringStrategy")) {
		c->has_strategy = true;
		c->strategy_node = v;
		/* An explicit strategy starts from nothing: v1 defaulting fills only resources. */
		f->n_resources = 0;
		f->resources = NULL;
		return dec_map(d, v, strategy_field, c);
	}
	return dec_unknown(d, key, v);
}

static int fit_finish(struct cfg_dec *d, struct cfg_args_ctx *c)
{
	struct cfg_fit_args *f = c->args;
	if (!c->has_strategy)
		return 0;
	size_t saved = dec_push_key(d, "scoringStrategy");
	int rc = 0;
	if (!c->has_type)
		rc = dec_err(d, c->strategy_node, "type: Unsupported value: \"\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"");
	else if (f->scoring_type == CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO && !c->has_rtcr)
		rc = dec_err(d, c->strategy_node, "requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio");
	else if (f->scoring_type != CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO && c->has_rtcr)
		rc = dec_err(d, c->strategy_node, "requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio");
	dec_pop(d, saved);
	if (!rc && f->n_resources == 0) {
		f->n_resources = 2;
		f->resources = cfg_default_resource_spec();
	}
	return rc;
}

static int check_names(const struct cfg_vctx *v, const char *path, const char *field, const char *const *names,
		       uint32_t n, bool group)
{
	char p[CFG_PATH_MAX];
	for (uint32_t i = 0; i < n; i++) {
		cfg_pathf(p, sizeof(p), "%s.%s[%u]", path, field, i);
		if (group && strchr(names[i], '/'))
			return cfg_verr(v, p, "Invalid value: \"%s\": resource group name can't contain '/'", names[i]);
		const char *m = cfg_check_qualified_name(names[i]);
		if (m)
			return cfg_verr(v, p, "Invalid value: \"%s\": %s", names[i], m);
	}
	return 0;
}

static int fit_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct cfg_fit_args *f = args;
	char p[CFG_PATH_MAX];
	int rc;
	if ((rc = check_names(v, path, "ignoredResources", f->ignored_resources, f->n_ignored_resources, false)) ||
	    (rc = check_names(v, path, "ignoredResourceGroups", f->ignored_resource_groups, f->n_ignored_resource_groups,
			      true)))
		return rc;
	for (uint32_t i = 0; i < f->n_resources; i++) {
		if (f->resources[i].weight <= 0 || f->resources[i].weight > 100) {
			cfg_pathf(p, sizeof(p), "%s.scoringStrategy.resources[%u].weight", path, i);
			return cfg_verr(v, p, "Invalid value: %" PRId64 ": resource weight of %s not in valid range (0, 100]",
					f->resources[i].weight, f->resources[i].name);
		}
	}
	/* Names are not checked (nor duplicates): upstream validateResources checks weights only. */
	if (f->scoring_type == CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO) {
		cfg_pathf(p, sizeof(p), "%s.scoringStrategy.requestedToCapacityRatio.shape", path);
		return cfg_check_shape(v, p, f->shape, f->n_shape);
	}
	return 0;
}

static void fit_write(FILE *f, int ind, const void *args)
{
	const struct cfg_fit_args *fa = args;
	cfg_write_strs(f, ind, "ignoredResources", fa->ignored_resources, fa->n_ignored_resources);
	cfg_write_strs(f, ind, "ignoredResourceGroups", fa->ignored_resource_groups, fa->n_ignored_resource_groups);
	cfg_write_key(f, ind, "scoringStrategy");
	fputc('\n', f);
	cfg_write_key(f, ind + 2, "type");
	fprintf(f, " %s\n", scoring_names[fa->scoring_type]);
	cfg_write_resources(f, ind + 2, "resources", fa->resources, fa->n_resources);
	if (fa->scoring_type != CFG_SCORING_REQUESTED_TO_CAPACITY_RATIO)
		return;
	cfg_write_key(f, ind + 2, "requestedToCapacityRatio");
	fputc('\n', f);
	cfg_write_key(f, ind + 4, "shape");
	fputs(fa->n_shape ? "\n" : " []\n", f);
	for (uint32_t i = 0; i < fa->n_shape; i++) {
		cfg_write_indent(f, ind + 4);
		fprintf(f, "- utilization: %d\n", fa->shape[i].utilization);
		cfg_write_indent(f, ind + 6);
		fprintf(f, "score: %d\n", fa->shape[i].score);
	}
}

const struct cfg_args_type cfg_args_fit = {
	.kind = CFG_ARGS_FIT,
	.name = "NodeResourcesFitArgs",
	CFG_ARGS_MEMBER(fit),
	.set_defaults = fit_defaults,
	.field = fit_field,
	.finish = fit_finish,
	.validate = fit_validate,
	.write = fit_write,
};

/* ---------- NodeResourcesBalancedAllocationArgs ---------- */

static void balanced_defaults(void *args)
{
	struct cfg_balanced_args *b = args;
	b->n_resources = 2;
	b->resources = cfg_default_resource_spec();
}

static int balanced_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_balanced_args *b = c->args;
	if (dec_key_is(d, key, "resources"))
		return cfg_dec_resources(d, v, &b->n_resources, &b->resources);
	return dec_unknown(d, key, v);
}

static int balanced_finish(struct cfg_dec *d, struct cfg_args_ctx *c)
{
	(void)d;
	struct cfg_balanced_args *b = c->args;
	if (b->n_resources == 0)
		balanced_defaults(b);
	return 0;
}

static int balanced_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct cfg_balanced_args *b = args;
	char p[CFG_PATH_MAX];
	/* upstream ValidateNodeResourcesBalancedAllocationArgs: per resource, a duplicate name, then a
	 * weight other than 1; names themselves are not checked. */
	for (uint32_t i = 0; i < b->n_resources; i++) {
		for (uint32_t j = 0; j < i; j++) {
			if (b->resources[j].name == b->resources[i].name) { /* interned */
				cfg_pathf(p, sizeof(p), "%s.resources[%u].name", path, i);
				return cfg_verr(v, p, "Duplicate value: \"%s\"", b->resources[i].name);
			}
		}
		if (b->resources[i].weight != 1) {
			cfg_pathf(p, sizeof(p), "%s.resources[%u].weight", path, i);
			return cfg_verr(v, p, "Invalid value: %" PRId64 ": must be 1", b->resources[i].weight);
		}
	}
	return 0;
}

static void balanced_write(FILE *f, int ind, const void *args)
{
	const struct cfg_balanced_args *b = args;
	cfg_write_resources(f, ind, "resources", b->resources, b->n_resources);
}

const struct cfg_args_type cfg_args_balanced = {
	.kind = CFG_ARGS_BALANCED,
	.name = "NodeResourcesBalancedAllocationArgs",
	CFG_ARGS_MEMBER(balanced),
	.set_defaults = balanced_defaults,
	.field = balanced_field,
	.finish = balanced_finish,
	.validate = balanced_validate,
	.write = balanced_write,
};
