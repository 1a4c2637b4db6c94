/* NodeAffinityArgs (addedAffinity: node affinity's required and preferred terms): decoding,
 * validation and writing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/intern.h"
#include "common/strbuf.h"
#include "cfg_internal.h"

/* ---------- decoding ---------- */

static const char *const op_names[] = { "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" };
/* upstream nodeaffinity's validSelectorOperators, in its order */
#define SUPPORTED_OPS "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""

/* values given as an empty list, told apart from values absent (upstream renders []string{} as
 * [] and nil as null in its messages). */
static const char *empty_values[1];

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
		return dec_err(d, v, "Unsupported value: \"%s\": supported values: " SUPPORTED_OPS, s);
	}
	if (dec_key_is(d, key, "values")) {
		int rc = dec_istr_list(d, v, &c->r->n_values, &c->r->values);
		if (!rc && !c->r->n_values && !dec_is_null(v))
			c->r->values = empty_values;
		return rc;
	}
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
		return dec_err(d, item, "operator: Unsupported value: \"\": supported values: " SUPPORTED_OPS);
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

/* A string as encoding/json writes it. */
static void json_str(struct strbuf *sb, const char *s)
{
	strbuf_puts(sb, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			strbuf_addf(sb, "\\%c", *c);
		else if (*c == '\n')
			strbuf_puts(sb, "\\n");
		else if (*c == '\r')
			strbuf_puts(sb, "\\r");
		else if (*c == '\t')
			strbuf_puts(sb, "\\t");
		else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&')
			strbuf_addf(sb, "\\u%04x", *c);
		else if (c[0] == 0xe2 && c[1] == 0x80 && (c[2] == 0xa8 || c[2] == 0xa9)) { /* U+2028, U+2029 */
			strbuf_addf(sb, "\\u202%c", c[2] == 0xa8 ? '8' : '9');
			c += 2;
		} else
			strbuf_add(sb, c, 1);
	}
	strbuf_puts(sb, "\"");
}

/* "Invalid value: <values as JSON>: detail" at path, as field.Invalid renders a []string. */
static int invalid_values(const struct cfg_vctx *v, const char *path, const struct api_requirement *q,
			  const char *detail)
{
	struct strbuf sb = STRBUF_INIT;
	if (!q->values) {
		strbuf_puts(&sb, "null");
	} else {
		strbuf_puts(&sb, "[");
		for (uint32_t i = 0; i < q->n_values; i++) {
			if (i)
				strbuf_puts(&sb, ",");
			json_str(&sb, q->values[i]);
		}
		strbuf_puts(&sb, "]");
	}
	int rc = sb.oom ? err_set(v->e, ERR_NOMEM, "out of memory")
			: cfg_verr(v, path, "Invalid value: %s: %s", sb.data, detail);
	strbuf_release(&sb);
	return rc;
}

/* upstream labels.NewRequirement, as nodeSelectorRequirementsAsSelector calls it: the key, the
 * values the operator needs, then each value (its path keyed by the label key). */
static int check_expression(const struct cfg_vctx *v, const char *path, const struct api_requirement *q)
{
	char p[CFG_PATH_MAX + 300];
	cfg_pathf(p, sizeof(p), "%s.key", path);
	char mb[1024];
	const char *m = cfg_check_label_key(q->key, mb, sizeof(mb));
	if (m)
		return cfg_verr(v, p, "Invalid value: \"%s\": %s", q->key, m);
	cfg_pathf(p, sizeof(p), "%s.values", path);
	switch (q->op) {
	case API_OP_IN:
	case API_OP_NOT_IN:
		if (q->n_values == 0)
			return invalid_values(v, p, q, "for 'in', 'notin' operators, values set can't be empty");
		break;
	case API_OP_EXISTS:
	case API_OP_DOES_NOT_EXIST:
		if (q->n_values != 0)
			return invalid_values(v, p, q, "values set must be empty for exists and does not exist");
		break;
	case API_OP_GT:
	case API_OP_LT:
		if (q->n_values != 1)
			return invalid_values(v, p, q, "for 'Gt', 'Lt' operators, exactly one value is required");
		for (uint32_t j = 0; j < q->n_values; j++) {
			char *end;
			errno = 0;
			(void)strtoll(q->values[j], &end, 10);
			char c0 = q->values[j][0]; /* strconv.ParseInt takes no leading space */
			if (!((c0 >= '0' && c0 <= '9') || c0 == '+' || c0 == '-') || *end || errno) {
				cfg_pathf(p, sizeof(p), "%s.values[%u]", path, j);
				return cfg_verr(v, p, "Invalid value: \"%s\": for 'Gt', 'Lt' operators, the value must be an integer",
						q->values[j]);
			}
		}
		break;
	default:
		cfg_pathf(p, sizeof(p), "%s.operator", path);
		return cfg_verr(v, p, "Unsupported value: supported values: " SUPPORTED_OPS);
	}
	for (uint32_t j = 0; j < q->n_values; j++) {
		m = cfg_check_label_value(q->values[j], mb, sizeof(mb));
		if (m) {
			cfg_pathf(p, sizeof(p), "%s.values[%u][%s]", path, j, q->key);
			return cfg_verr(v, p, "Invalid value: \"%s\": %s", q->values[j], m);
		}
	}
	return 0;
}

/* upstream nodeSelectorRequirementsAsFieldSelector: In or NotIn with exactly one value; the key
 * is not checked. */
static int check_field(const struct cfg_vctx *v, const char *path, const struct api_requirement *q)
{
	char p[CFG_PATH_MAX + 16];
	if (q->op != API_OP_IN && q->op != API_OP_NOT_IN) {
		cfg_pathf(p, sizeof(p), "%s.operator", path);
		return cfg_verr(v, p, "Unsupported value: \"%s\": supported values: \"In\", \"NotIn\"",
				(unsigned)q->op < 6 ? op_names[q->op] : "");
	}
	if (q->n_values != 1) {
		cfg_pathf(p, sizeof(p), "%s.values", path);
		return invalid_values(v, p, q, "must have one element");
	}
	return 0;
}

/* upstream newNodeSelectorTerm under path: matchExpressions, then matchFields. */
static int check_term(const struct cfg_vctx *v, const char *path, const struct api_node_selector_term *t)
{
	char p[CFG_PATH_MAX];
	int rc;
	for (uint32_t i = 0; i < t->n_exprs; i++) {
		cfg_pathf(p, sizeof(p), "%s.matchExpressions[%u]", path, i);
		if ((rc = check_expression(v, p, &t->exprs[i])))
			return rc;
	}
	for (uint32_t i = 0; i < t->n_fields; i++) {
		cfg_pathf(p, sizeof(p), "%s.matchFields[%u]", path, i);
		if ((rc = check_field(v, p, &t->fields[i])))
			return rc;
	}
	return 0;
}

/* upstream ValidateNodeAffinityArgs: NewNodeSelector on the required terms, then
 * NewPreferredSchedulingTerms, which skips a term of weight 0 or without requirements, checks
 * no weight, and names a term's requirements without ".preference". */
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
		const struct api_preferred_node_term *t = &na->preferred[i];
		if (!t->weight || (!t->term.n_exprs && !t->term.n_fields))
			continue;
		cfg_pathf(p, sizeof(p), "%s.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%u]", path, i);
		if ((rc = check_term(v, p, &t->term)))
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
