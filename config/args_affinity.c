/* NodeAffinityArgs (addedAffinity: node affinity's required and preferred terms): decoding,
 * validation and writing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "cfg_internal.h"

/* ---------- decoding ---------- */

static const char *const op_names[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };

struct req_ctx {
	struct api_requirement *r;
	yaml_node_t *op_node;
	bool has_op;
};

static int req_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct req_ctx *c = ctx;
	if (dec_key_is(d, key, "key"))
		return dec_istr(d, v, &c->r->key);
	if (dec_key_is(d, key, "operator")) {
		const char *s = NULL;
		int rc = dec_str(d, v, &s);
		if (rc)
			return rc;
		for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
			if (strcmp(s, op_names[i]) == 0) {
				c->r->op = (enum api_op)i;
				c->has_op = true;
				return 0;
			}
		}
		return dec_err(d, v, "Unsupported value: \"%s\": supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \"Lt\", \"NotIn\"", s);
	}
	if (dec_key_is(d, key, "values"))
		return dec_istr_list(d, v, &c->r->n_values, &c->r->values);
	return dec_unknown(d, key, v);
}

static int req_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct req_ctx c = { .r = (struct api_requirement *)ctx + i };
	c.r->key = intern_str("");
	int rc = dec_map(d, item, req_field, &c);
	if (rc)
		return rc;
	if (!c.has_op)
		return dec_err(d, item, "operator: Unsupported value: \"\": supported values: \"DoesNotExist\", \"Exists\", \"Gt\", \"In\", \"Lt\", \"NotIn\"");
	return 0;
}

static int dec_reqs(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, struct api_requirement **out)
{
	int rc;
	*out = cfg_dec_array(d, n, sizeof(**out), req_item, count, &rc);
	return rc;
}

static int term_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_node_selector_term *t = ctx;
	if (dec_key_is(d, key, "matchExpressions"))
		return dec_reqs(d, v, &t->n_exprs, &t->exprs);
	if (dec_key_is(d, key, "matchFields"))
		return dec_reqs(d, v, &t->n_fields, &t->fields);
	return dec_unknown(d, key, v);
}

static int term_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct api_node_selector_term *terms = ctx;
	return dec_map(d, item, term_field, &terms[i]);
}

static int selector_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_node_affinity *na = ctx;
	if (dec_key_is(d, key, "nodeSelectorTerms")) {
		int rc;
		na->required = cfg_dec_array(d, v, sizeof(*na->required), term_item, &na->n_required, &rc);
		return rc;
	}
	return dec_unknown(d, key, v);
}

struct pref_ctx {
	struct api_preferred_node_term *p;
	bool has_weight;
};

static int pref_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct pref_ctx *c = ctx;
	if (dec_key_is(d, key, "weight")) {
		c->has_weight = true;
		return dec_i32(d, v, &c->p->weight);
	}
	if (dec_key_is(d, key, "preference"))
		return dec_map(d, v, term_field, &c->p->term);
	return dec_unknown(d, key, v);
}

static int pref_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct api_preferred_node_term *prefs = ctx;
	struct pref_ctx c = { .p = &prefs[i] };
	return dec_map(d, item, pref_field, &c);
}

static int affinity_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct api_node_affinity *na = ctx;
	if (dec_key_is(d, key, "requiredDuringSchedulingIgnoredDuringExecution")) {
		na->has_required = true;
		return dec_map(d, v, selector_field, na);
	}
	if (dec_key_is(d, key, "preferredDuringSchedulingIgnoredDuringExecution")) {
		int rc;
		na->preferred = cfg_dec_array(d, v, sizeof(*na->preferred), pref_item, &na->n_preferred, &rc);
		return rc;
	}
	return dec_unknown(d, key, v);
}

static int node_affinity_field(struct cfg_dec *d, const char *key, yaml_node_t *v, void *ctx)
{
	struct cfg_args_ctx *c = ctx;
	struct cfg_node_affinity_args *a = c->args;
	if (dec_key_is(d, key, "addedAffinity")) {
		struct api_node_affinity *na = arena_alloc(d->arena, sizeof(*na));
		if (!na)
			return cfg_args_nomem(d);
		a->added_affinity = na;
		return dec_map(d, v, affinity_field, na);
	}
	return dec_unknown(d, key, v);
}

/* ---------- validation ---------- */

static int check_requirements(const struct cfg_vctx *v, const char *path, const struct api_requirement *r,
			      uint32_t n, bool fields)
{
	char p[CFG_PATH_MAX];
	for (uint32_t i = 0; i < n; i++) {
		const struct api_requirement *q = &r[i];
		if (fields) {
			if (q->n_values != 1) {
				cfg_pathf(p, sizeof(p), "%s[%u].values", path, i);
				return cfg_verr(v, p, "Invalid value: %u values: must have one element", q->n_values);
			}
			if (q->op != API_OP_IN && q->op != API_OP_NOT_IN) {
				cfg_pathf(p, sizeof(p), "%s[%u].operator", path, i);
				return cfg_verr(v, p, "Unsupported value: \"%s\": supported values: \"In\", \"NotIn\"", op_names[q->op]);
			}
			continue;
		}
		cfg_pathf(p, sizeof(p), "%s[%u].key", path, i);
		const char *m = cfg_check_qualified_name(q->key);
		if (m)
			return cfg_verr(v, p, "Invalid value: \"%s\": %s", q->key, m);
		cfg_pathf(p, sizeof(p), "%s[%u].values", path, i);
		switch (q->op) {
		case API_OP_IN:
		case API_OP_NOT_IN:
			if (q->n_values == 0)
				return cfg_verr(v, p, "Required value: for 'in', 'notin' operators, values set can't be empty");
			break;
		case API_OP_EXISTS:
		case API_OP_DOES_NOT_EXIST:
			if (q->n_values != 0)
				return cfg_verr(v, p, "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
			break;
		case API_OP_GT:
		case API_OP_LT:
			if (q->n_values != 1)
				return cfg_verr(v, p, "Required value: for 'Gt', 'Lt' operators, exactly one value is required");
			{
				char *end;
				(void)strtoll(q->values[0], &end, 10);
				if (!q->values[0][0] || *end)
					return cfg_verr(v, p, "Invalid value: \"%s\": for 'Gt', 'Lt' operators, the value must be an integer",
							q->values[0]);
			}
			break;
		default:
			cfg_pathf(p, sizeof(p), "%s[%u].operator", path, i);
			return cfg_verr(v, p, "Unsupported value");
		}
		for (uint32_t j = 0; j < q->n_values; j++) {
			m = cfg_check_label_value(q->values[j]);
			if (m) {
				cfg_pathf(p, sizeof(p), "%s[%u].values[%u]", path, i, j);
				return cfg_verr(v, p, "Invalid value: \"%s\": %s", q->values[j], m);
			}
		}
	}
	return 0;
}

static int check_term(const struct cfg_vctx *v, const char *path, const struct api_node_selector_term *t)
{
	char p[CFG_PATH_MAX];
	cfg_pathf(p, sizeof(p), "%s.matchExpressions", path);
	int rc = check_requirements(v, p, t->exprs, t->n_exprs, false);
	if (rc)
		return rc;
	cfg_pathf(p, sizeof(p), "%s.matchFields", path);
	return check_requirements(v, p, t->fields, t->n_fields, true);
}

static int node_affinity_validate(const struct cfg_vctx *v, const char *path, const void *args)
{
	const struct api_node_affinity *na = ((const struct cfg_node_affinity_args *)args)->added_affinity;
	char p[CFG_PATH_MAX];
	int rc;
	if (!na)
		return 0;
	for (uint32_t i = 0; i < na->n_required; i++) {
		cfg_pathf(p, sizeof(p), "%s.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%u]",
			 path, i);
		if ((rc = check_term(v, p, &na->required[i])))
			return rc;
	}
	for (uint32_t i = 0; i < na->n_preferred; i++) {
		cfg_pathf(p, sizeof(p), "%s.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%u]", path, i);
		if (na->preferred[i].weight < 1 || na->preferred[i].weight > 100) {
			char wp[CFG_PATH_MAX + 8];
			cfg_pathf(wp, sizeof(wp), "%s.weight", p);
			return cfg_verr(v, wp, "Invalid value: %d: must be in the range 1-100", na->preferred[i].weight);
		}
		char tp[CFG_PATH_MAX + 16];
		cfg_pathf(tp, sizeof(tp), "%s.preference", p);
		if ((rc = check_term(v, tp, &na->preferred[i].term)))
			return rc;
	}
	return 0;
}

/* ---------- writing ---------- */

static void w_reqs(FILE *f, int ind, const char *key, const struct api_requirement *r, uint32_t n)
{
	if (!cfg_write_list_key(f, ind, key, n))
		return;
	for (uint32_t i = 0; i < n; i++) {
		cfg_write_item(f, ind, "- key: ", r[i].key);
		cfg_write_indent(f, ind + 2);
		fprintf(f, "operator: %s\n", (unsigned)r[i].op < 6 ? op_names[r[i].op] : "Unknown");
		cfg_write_strs(f, ind + 2, "values", r[i].values, r[i].n_values);
	}
}

static void w_term(FILE *f, int ind, const struct api_node_selector_term *t)
{
	if (!t->n_exprs && !t->n_fields) {
		fputs(" {}\n", f);
		return;
	}
	fputc('\n', f);
	w_reqs(f, ind, "matchExpressions", t->exprs, t->n_exprs);
	w_reqs(f, ind, "matchFields", t->fields, t->n_fields);
}

static void node_affinity_write(FILE *f, int ind, const void *args)
{
	const struct api_node_affinity *na = ((const struct cfg_node_affinity_args *)args)->added_affinity;
	if (!na)
		return;
	cfg_write_key(f, ind, "addedAffinity");
	if (!na->has_required && !na->n_preferred) {
		fputs(" {}\n", f);
		return;
	}
	fputc('\n', f);
	if (na->has_required) {
		cfg_write_key(f, ind + 2, "requiredDuringSchedulingIgnoredDuringExecution");
		fputc('\n', f);
		cfg_write_key(f, ind + 4, "nodeSelectorTerms");
		fputs(na->n_required ? "\n" : " []\n", f);
		for (uint32_t i = 0; i < na->n_required; i++) {
			cfg_write_indent(f, ind + 4);
			fputs("-", f);
			w_term(f, ind + 6, &na->required[i]);
		}
	}
	if (na->n_preferred) {
		cfg_write_key(f, ind + 2, "preferredDuringSchedulingIgnoredDuringExecution");
		fputc('\n', f);
		for (uint32_t i = 0; i < na->n_preferred; i++) {
			cfg_write_indent(f, ind + 2);
			fprintf(f, "- weight: %d\n", na->preferred[i].weight);
			cfg_write_key(f, ind + 4, "preference");
			w_term(f, ind + 6, &na->preferred[i].term);
		}
	}
}

const struct cfg_args_type cfg_args_node_affinity = {
	.kind = CFG_ARGS_NODE_AFFINITY,
	.name = "NodeAffinityArgs",
	CFG_ARGS_MEMBER(node_affinity),
	.field = node_affinity_field,
	.validate = node_affinity_validate,
	.write = node_affinity_write,
};
