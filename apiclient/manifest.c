/* Manifest files as kubectl reads them (-f FILE): JSON as it is, or YAML converted to JSON the way
 * sigs.k8s.io/yaml's YAMLToJSON does (go-yaml v2 underneath, so YAML 1.1 scalars: yes/no/on/off/y/n
 * are booleans), one document after another ("---"). The result is JSON the existing decoders read. */
#include "apiclient/api_client.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <yajl/yajl_gen.h>

#include "yaml_internal.h"

#define MF_MAX_DEPTH 1000

struct mf {
	const char *name;
	yaml_document_t *doc;
	yajl_gen g;
	unsigned char *busy; /* per node: being emitted (an anchor inside its own value) */
	size_t decode, alias; /* nodes emitted, and of those inside an alias's expansion */
	int alias_depth;
	struct err *e;
};

static int mf_err(struct mf *m, const yaml_node_t *n, const char *fmt, const char *arg)
{
	char msg[256];
	snprintf(msg, sizeof(msg), fmt, arg);
	return err_set(m->e, ERR_INVALID, "%s:%zu:%zu: %s", m->name, n->start_mark.line + 1, n->start_mark.column + 1, msg);
}

static bool is_plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE || n->data.scalar.style == YAML_ANY_SCALAR_STYLE;
}

/* go-yaml v2's base-0 integer (strconv.ParseInt/ParseUint after dropping '_'): 0x, 0o, 0b, leading 0
 * octal. *neg and *mag hold sign and magnitude. */
static bool parse_int(const char *s, bool *neg, unsigned long long *mag)
{
	*neg = false;
	if (*s == '+' || *s == '-')
		*neg = *s++ == '-';
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
		base = 8, s += 2;
	else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	else if (s[0] == '0' && s[1])
		base = 8, s += 1;
	if (!*s)
		return false;
	unsigned long long v = 0;
	for (; *s; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : 99;
		if (d >= base || v > (~0ULL - (unsigned)d) / (unsigned)base)
			return false;
		v = v * (unsigned)base + (unsigned)d;
	}
	*mag = v;
	return true;
}

/* go-yaml v2's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool float_syntax(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	size_t id = strspn(s, "0123456789");
	s += id;
	if (*s == '.') {
		size_t fd = strspn(s + 1, "0123456789");
		if (!id && !fd)
			return false;
		s += 1 + fd;
	} else if (!id)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		size_t ed = strspn(s, "0123456789");
		if (!ed)
			return false;
		s += ed;
	}
	return !*s;
}

/* Go's encoding/json float64: shortest digits that round-trip, 'f' form but 'e' below 1e-6 or from
 * 1e21 on, exponent without a leading zero. */
static void go_json_float(double f, char *out, size_t size)
{
	char buf[64];
	int p;
	for (p = 1; p < 17; p++) {
		snprintf(buf, sizeof(buf), "%.*e", p - 1, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*e", p - 1, f);
	double a = fabs(f);
	if (a != 0 && (a < 1e-6 || a >= 1e21)) {
		char *x = strchr(buf, 'e');
		int exp = atoi(x + 1);
		size_t ml = (size_t)(x - buf);
		if (ml + 8 > size)
			ml = size > 8 ? size - 8 : 0;
		memcpy(out, buf, ml);
		snprintf(out + ml, size - ml, "e%c%d", exp < 0 ? '-' : '+', abs(exp) % 1000);
		return;
	}
	/* digits and exponent from the %e form, laid out as %f */
	char digits[32];
	size_t nd = 0;
	const char *s = buf;
	bool neg = *s == '-';
	if (neg)
		s++;
	for (; *s && *s != 'e'; s++)
		if (*s != '.')
			digits[nd++] = *s;
	digits[nd] = 0;
	int exp = atoi(s + 1);
	char *o = out;
	size_t left = size;
#define PUT(c) do { if (left > 1) { *o++ = (c); left--; } } while (0)
	if (neg)
		PUT('-');
	if (exp < 0) {
		PUT('0');
		PUT('.');
		for (int i = -1; i > exp; i--)
			PUT('0');
		for (size_t i = 0; i < nd; i++)
			PUT(digits[i]);
	} else {
		for (int i = 0; i <= exp; i++)
			PUT((size_t)i < nd ? digits[i] : '0');
		if ((size_t)exp + 1 < nd) {
			PUT('.');
			for (size_t i = (size_t)exp + 1; i < nd; i++)
				PUT(digits[i]);
		}
	}
#undef PUT
	*o = 0;
}

/* s as go-yaml v2 takes a float (its float pattern; ParseFloat's value, an overflow such as 1e400
 * refused, an underflow rounded) written as JSON into out; false: it stays a string. */
static bool as_float(const char *s, char *out, size_t size)
{
	if (!float_syntax(s))
		return false;
	errno = 0;
	double d = strtod(s, NULL);
	if (errno == ERANGE && fabs(d) >= 1)
		return false;
	go_json_float(d, out, size);
	return true;
}

enum mf_kind { MF_STR, MF_NULL, MF_BOOL, MF_NUM, MF_NAN, MF_MERGE };

/* Resolves a scalar as go-yaml v2's resolve() does; for MF_NUM out holds the JSON number. */
static enum mf_kind resolve(const yaml_node_t *n, char *out, size_t size, bool *b)
{
	const char *in = (const char *)n->data.scalar.value;
	if (!is_plain(n)) /* quoted, literal or folded: a string */
		return MF_STR;
	static const char *const t[] = { "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON" };
	static const char *const f[] = { "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF" };
	static const char *const z[] = { "", "~", "null", "Null", "NULL" };
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++)
		if (!strcmp(in, t[i]) || !strcmp(in, f[i])) {
			*b = !strcmp(in, t[i]);
			return MF_BOOL;
		}
	for (size_t i = 0; i < sizeof(z) / sizeof(*z); i++)
		if (!strcmp(in, z[i]))
			return MF_NULL;
	if (!strcmp(in, "<<"))
		return MF_MERGE;
	static const char *const sp[] = { ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
					  "-.inf", "-.Inf", "-.INF" };
	for (size_t i = 0; i < sizeof(sp) / sizeof(*sp); i++)
		if (!strcmp(in, sp[i])) {
			snprintf(out, size, "%s", i < 3 ? "NaN" : i < 9 ? "+Inf" : "-Inf");
			return MF_NAN;
		}
	if (*in == '.')
		return as_float(in, out, size) ? MF_NUM : MF_STR;
	if (!(*in == '+' || *in == '-' || (*in >= '0' && *in <= '9')))
		return MF_STR;
	char plainv[128];
	size_t k = 0;
	for (const char *s = in; *s && k + 1 < sizeof(plainv); s++)
		if (*s != '_')
			plainv[k++] = *s;
	plainv[k] = 0;
	if (strlen(in) >= sizeof(plainv))
		return MF_STR;
	bool neg;
	unsigned long long mag;
	if (parse_int(plainv, &neg, &mag)) {
		if (neg && mag > 9223372036854775808ULL)
			return MF_STR;
		if (neg && *plainv == '-' && mag)
			snprintf(out, size, "-%llu", mag);
		else if (!neg && *plainv == '+' && mag > 9223372036854775807ULL)
			return MF_STR; /* ParseUint takes no sign */
		else
			snprintf(out, size, "%llu", mag);
		return MF_NUM;
	}
	return as_float(plainv, out, size) ? MF_NUM : MF_STR;
}

struct mf_entry {
	char *key;
	yaml_node_t *value;
};

struct mf_map {
	struct mf_entry *v;
	size_t n, cap;
};

static int emit(struct mf *m, yaml_node_t *n, int depth);

static int map_set(struct mf *m, struct mf_map *mm, const char *key, yaml_node_t *value)
{
	for (size_t i = 0; i < mm->n; i++)
		if (!strcmp(mm->v[i].key, key)) {
			mm->v[i].value = value; /* a later key wins, as in go-yaml's map */
			return 0;
		}
	if (mm->n == mm->cap) {
		size_t nc = mm->cap ? mm->cap * 2 : 8;
		struct mf_entry *nv = realloc(mm->v, nc * sizeof(*nv));
		if (!nv)
			return err_set(m->e, ERR_NOMEM, "%s: out of memory", m->name);
		mm->v = nv;
		mm->cap = nc;
	}
	if (!(mm->v[mm->n].key = strdup(key)))
		return err_set(m->e, ERR_NOMEM, "%s: out of memory", m->name);
	mm->v[mm->n++].value = value;
	return 0;
}

static int collect(struct mf *m, struct mf_map *mm, yaml_node_t *n, int depth);

/* "<<": a mapping, or a sequence of mappings of which the earlier take precedence. */
static int merge(struct mf *m, struct mf_map *mm, yaml_node_t *v, int depth)
{
	if (v->type == YAML_MAPPING_NODE)
		return collect(m, mm, v, depth + 1);
	if (v->type != YAML_SEQUENCE_NODE)
		return mf_err(m, v, "%smap merge requires map or sequence of maps as the value", "");
	for (yaml_node_item_t *it = v->data.sequence.items.top; it > v->data.sequence.items.start; it--) {
		yaml_node_t *x = yaml_document_get_node(m->doc, it[-1]);
		if (!x || x->type != YAML_MAPPING_NODE)
			return mf_err(m, v, "%smap merge requires map or sequence of maps as the value", "");
		int rc = collect(m, mm, x, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

static int collect(struct mf *m, struct mf_map *mm, yaml_node_t *n, int depth)
{
	if (depth > MF_MAX_DEPTH)
		return mf_err(m, n, "%sexceeded max depth of 1000", "");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(m->doc, p->key), *v = yaml_document_get_node(m->doc, p->value);
		if (!k || !v)
			return mf_err(m, n, "%sinvalid mapping", "");
		if (k->type != YAML_SCALAR_NODE)
			return mf_err(m, k, "unsupported map key of type %s", k->type == YAML_MAPPING_NODE ? "map" : "sequence");
		char num[64];
		bool b = false;
		const char *key = (const char *)k->data.scalar.value;
		int rc;
		switch (resolve(k, num, sizeof(num), &b)) {
		case MF_MERGE:
			if ((rc = merge(m, mm, v, depth)))
				return rc;
			continue;
		case MF_NULL:
			return mf_err(m, k, "%sunsupported map key: null", "");
		case MF_BOOL:
			key = b ? "true" : "false";
			break;
		case MF_NUM:
		case MF_NAN:
			key = num; /* a number key is its JSON spelling */
			break;
		case MF_STR:
			break;
		}
		if ((rc = map_set(m, mm, key, v)))
			return rc;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct mf_entry *)a)->key, ((const struct mf_entry *)b)->key);
}

#define G(x) do { if ((x) != yajl_gen_status_ok) { rc = err_set(m->e, ERR_NOMEM, "%s: JSON generation failed", m->name); goto out; } } while (0)

static int emit(struct mf *m, yaml_node_t *n, int depth)
{
	int rc = 0;
	struct mf_map mm = { 0 };
	size_t idx = (size_t)(n - m->doc->nodes.start);
	if (depth > MF_MAX_DEPTH)
		return mf_err(m, n, "%sexceeded max depth of 1000", "");
	if (m->busy[idx])
		return mf_err(m, n, "%sanchor value contains itself", "");
	/* go-yaml v2's billion-laughs guard: aliases may not dominate a large document */
	m->decode++;
	if (m->alias_depth > 0)
		m->alias++;
	if (m->decode > 1000 && m->alias > 100) {
		double ratio = m->decode <= 400000 ? 0.99 : m->decode >= 4000000 ? 0.10
			: 0.99 - 0.89 * ((double)(m->decode - 400000) / 3600000.0);
		if ((double)m->alias / (double)m->decode > ratio)
			return mf_err(m, n, "%sdocument contains excessive aliasing", "");
	}
	m->busy[idx] = 1;
	switch (n->type) {
	case YAML_SCALAR_NODE: {
		char num[64];
		bool b = false;
		switch (resolve(n, num, sizeof(num), &b)) {
		case MF_NULL:
			G(yajl_gen_null(m->g));
			break;
		case MF_BOOL:
			G(yajl_gen_bool(m->g, b));
			break;
		case MF_NUM:
			G(yajl_gen_number(m->g, num, strlen(num)));
			break;
		case MF_NAN:
			rc = mf_err(m, n, "json: unsupported value: %s", num);
			goto out;
		case MF_STR:
		case MF_MERGE:
			G(yajl_gen_string(m->g, n->data.scalar.value, n->data.scalar.length));
			break;
		}
		break;
	}
	case YAML_SEQUENCE_NODE:
		G(yajl_gen_array_open(m->g));
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			yaml_node_t *x = yaml_document_get_node(m->doc, *it);
			int via_alias = x < n; /* an alias points back at an earlier node */
			m->alias_depth += via_alias;
			rc = emit(m, x, depth + 1);
			m->alias_depth -= via_alias;
			if (rc)
				goto out;
		}
		G(yajl_gen_array_close(m->g));
		break;
	case YAML_MAPPING_NODE:
		if ((rc = collect(m, &mm, n, depth)))
			goto out;
		if (mm.n > 1) /* encoding/json sorts map keys; an empty map has no array (qsort of NULL) */
			qsort(mm.v, mm.n, sizeof(*mm.v), cmp_entry);
		G(yajl_gen_map_open(m->g));
		for (size_t i = 0; i < mm.n; i++) {
			G(yajl_gen_string(m->g, (const unsigned char *)mm.v[i].key, strlen(mm.v[i].key)));
			int via_alias = mm.v[i].value < n;
			m->alias_depth += via_alias;
			rc = emit(m, mm.v[i].value, depth + 1);
			m->alias_depth -= via_alias;
			if (rc)
				goto out;
		}
		G(yajl_gen_map_close(m->g));
		break;
	default:
		rc = mf_err(m, n, "%sempty node", "");
		goto out;
	}
out:
	m->busy[idx] = 0;
	for (size_t i = 0; i < mm.n; i++)
		free(mm.v[i].key);
	free(mm.v);
	return rc;
}

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);
		if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* One object of document doc (item > 0: the List's item-th): of kind `kind` when one is asked for. */
static int emit_object(struct mf *m, yaml_node_t *n, unsigned doc, size_t item, const char *kind)
{
	if (kind) {
		const char *k = scalar(map_get(m->doc, n, "kind"));
		const char *name = scalar(map_get(m->doc, map_get(m->doc, n, "metadata"), "name"));
		if (!k || strcmp(k, kind)) {
			if (item)
				return err_set(m->e, ERR_INVALID, "%s:%zu:%zu: document %u, item %zu: %s%s%s%s: only kind %s is accepted here", m->name,
				       n->start_mark.line + 1, n->start_mark.column + 1, doc, item, k ? "kind " : "no kind",
				       k ? k : "", name ? " " : "", name ? name : "", kind);
			return err_set(m->e, ERR_INVALID, "%s:%zu:%zu: document %u: %s%s%s%s: only kind %s is accepted here", m->name,
				       n->start_mark.line + 1, n->start_mark.column + 1, doc, k ? "kind " : "no kind", k ? k : "",
				       name ? " " : "", name ? name : "", kind);
		}
	}
	return emit(m, n, 1);
}

static int yaml_to_list(const char *name, const char *text, size_t len, const char *kind, yajl_gen g, struct err *e)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	bool doc_ok = false;
	int rc = 0;
	unsigned ndoc = 0;
	if (!yaml_parser_initialize(&parser))
		return err_set(e, ERR_NOMEM, "%s: out of memory", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	struct mf m = { .name = name, .doc = &doc, .g = g, .e = e };
#undef G
#define G(x) do { if ((x) != yajl_gen_status_ok) { rc = err_set(e, ERR_NOMEM, "%s: JSON generation failed", name); goto out; } } while (0)
	G(yajl_gen_map_open(g));
	G(yajl_gen_string(g, (const unsigned char *)"apiVersion", 10));
	G(yajl_gen_string(g, (const unsigned char *)"v1", 2));
	G(yajl_gen_string(g, (const unsigned char *)"kind", 4));
	G(yajl_gen_string(g, (const unsigned char *)"List", 4));
	G(yajl_gen_string(g, (const unsigned char *)"items", 5));
	G(yajl_gen_array_open(g));
	for (;;) {
		if (!yaml_parser_load(&parser, &doc)) {
			rc = api__yaml_load_error(e, &parser, name);
			goto out;
		}
		doc_ok = true;
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		if (!root) /* the end of the stream */
			break;
		ndoc++;
		size_t nn = (size_t)(doc.nodes.top - doc.nodes.start);
		free(m.busy);
		if (!(m.busy = calloc(nn ? nn : 1, 1))) {
			rc = err_set(e, ERR_NOMEM, "%s: out of memory", name);
			goto out;
		}
		m.decode = m.alias = 0;
		m.alias_depth = 0;
		const char *rk = scalar(map_get(&doc, root, "kind"));
		yaml_node_t *items = map_get(&doc, root, "items");
		if (root->type == YAML_SCALAR_NODE && is_plain(root) && (!*root->data.scalar.value || !strcmp((const char *)root->data.scalar.value, "null") || !strcmp((const char *)root->data.scalar.value, "~"))) {
			/* an empty document, as kubectl skips it */
		} else if (root->type != YAML_MAPPING_NODE) {
			rc = mf_err(&m, root, "document %s: not an object (a mapping with apiVersion and kind)", "");
			goto out;
		} else if (rk && strlen(rk) >= 4 && !strcmp(rk + strlen(rk) - 4, "List") && items && items->type == YAML_SEQUENCE_NODE) {
			/* kubectl flattens a List's items into the objects it reads */
			size_t i = 0;
			for (yaml_node_item_t *it = items->data.sequence.items.start; it < items->data.sequence.items.top; it++) {
				yaml_node_t *x = yaml_document_get_node(&doc, *it);
				if ((rc = emit_object(&m, x, ndoc, ++i, kind)))
					goto out;
			}
		} else if ((rc = emit_object(&m, root, ndoc, 0, kind))) {
			goto out;
		}
		yaml_document_delete(&doc);
		doc_ok = false;
	}
	G(yajl_gen_array_close(g));
	G(yajl_gen_map_close(g));
out:
	if (doc_ok)
		yaml_document_delete(&doc);
	free(m.busy);
	yaml_parser_delete(&parser);
	return rc;
}
#undef G

int api__yaml_load_error(struct err *e, const yaml_parser_t *parser, const char *name)
{
	const char *problem = parser->problem ? parser->problem : "invalid YAML";
	size_t line = parser->problem_mark.line + 1, col = parser->problem_mark.column + 1;
	if (parser->context)
		return err_set(e, ERR_INVALID, "%s:%zu:%zu: invalid YAML: %s %s", name, line, col, parser->context, problem);
	return err_set(e, ERR_INVALID, "%s:%zu:%zu: invalid YAML: %s", name, line, col, problem);
}

int api_manifest_to_json(const char *name, const char *text, size_t len, const char *kind, char **out, size_t *out_len,
			 struct err *e)
{
	int rc = 0;
	*out = NULL;
	*out_len = 0;
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
		i++;
	if (i < len && text[i] == '{') { /* JSON, as kubectl's YAMLOrJSONDecoder sniffs it */
		if (!(*out = malloc(len + 1)))
			return err_set(e, ERR_NOMEM, "%s: out of memory", name);
		memcpy(*out, text, len);
		(*out)[len] = 0;
		*out_len = len;
		return 0;
	}
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g)
		return err_set(e, ERR_NOMEM, "%s: out of memory", name);
	if ((rc = yaml_to_list(name, text, len, kind, g, e)))
		goto out;
	const unsigned char *buf;
	size_t blen;
	yajl_gen_get_buf(g, &buf, &blen);
	if (!(*out = malloc(blen + 1))) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", name);
		goto out;
	}
	memcpy(*out, buf, blen);
	(*out)[blen] = 0;
	*out_len = blen;
out:
	yajl_gen_free(g);
	return rc;
}
