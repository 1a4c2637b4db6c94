/* YAML decoding core for config/: libyaml's document API keeps each node's start mark, so every
 * error names line and column; paths are tracked as the decoder descends; decoded positions are
 * recorded so validation can point at the field it complains about. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/arena.h"
#include "common/array.h"
#include "common/base64.h"
#include "common/intern.h"
#include "cfg_internal.h"

/* ---------- marks ---------- */

void cfg_marks_release(struct cfg_marks *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->items[i].path);
	free(m->items);
	m->items = NULL;
	m->n = m->cap = 0;
}

static int marks_add(struct cfg_marks *m, const char *path, uint32_t line, uint32_t col)
{
	if (ARRAY_RESERVE(m->items, m->n, m->cap, 64) < 0)
		return ERR_NOMEM;
	char *p = strdup(path);
	if (!p)
		return ERR_NOMEM;
	m->items[m->n++] = (struct cfg_mark){ .path = p, .line = line, .col = col };
	return 0;
}

/* Strips the last ".key" or "[i]" component; false at the root. */
static bool path_parent(char *path)
{
	size_t n = strlen(path);
	if (n == 0)
		return false;
	if (path[n - 1] == ']') {
		char *lb = strrchr(path, '[');
		if (lb) {
			*lb = '\0';
			return true;
		}
	}
	char *dot = strrchr(path, '.');
	char *lb = strrchr(path, '[');
	char *cut = dot > lb ? dot : lb;
	if (cut)
		*cut = '\0';
	else
		path[0] = '\0';
	return true;
}

bool cfg_marks_find(const struct cfg_marks *m, const char *path, uint32_t *line, uint32_t *col)
{
	if (!m)
		return false;
	char buf[CFG_PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		for (size_t i = 0; i < m->n; i++) {
			if (strcmp(m->items[i].path, buf) == 0) {
				*line = m->items[i].line;
				*col = m->items[i].col;
				return true;
			}
		}
		if (!path_parent(buf))
			return false;
	}
}

int cfg_verr(const struct cfg_vctx *v, const char *path, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	uint32_t line, col;
	const char *sep = path[0] ? ": " : "";
	if (v->file && cfg_marks_find(v->marks, path, &line, &col))
		return err_set(v->e, ERR_INVALID, "%s:%u:%u: %s%s%s", v->file, line, col, path, sep, msg);
	if (v->file)
		return err_set(v->e, ERR_INVALID, "%s: %s%s%s", v->file, path, sep, msg);
	return err_set(v->e, ERR_INVALID, "%s%s%s", path, sep, msg);
}

void cfg_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* ---------- parsing ---------- */

int cfg_yaml_parse(const char *name, const char *buf, size_t len, yaml_document_t *doc, struct err *e)
{
	yaml_parser_t parser;
	int rc = 0;
	if (!yaml_parser_initialize(&parser))
		return err_set(e, ERR_NOMEM, "%s: cannot initialise the YAML parser", name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, doc)) {
		if (parser.error == YAML_MEMORY_ERROR) {
			rc = err_set(e, ERR_NOMEM, "%s: out of memory while parsing", name);
		} else if (parser.error == YAML_READER_ERROR) {
			/* Encoding errors carry a byte offset, not a mark: derive line and column. */
			size_t line = 1, col = 1;
			for (size_t i = 0; i < parser.problem_offset && i < len; i++) {
				if (buf[i] == '\n') {
					line++;
					col = 1;
				} else {
					col++;
				}
			}
			rc = err_set(e, ERR_INVALID, "%s:%zu:%zu: invalid YAML: %s", name, line, col,
				     parser.problem ? parser.problem : "invalid input");
		} else {
			yaml_mark_t m = parser.problem_mark;
			rc = err_set(e, ERR_INVALID, "%s:%zu:%zu: invalid YAML: %s%s%s", name, m.line + 1,
				     m.column + 1, parser.problem ? parser.problem : "syntax error",
				     parser.context ? " " : "", parser.context ? parser.context : "");
		}
		goto out;
	}
	/* A second document is not part of a configuration file: refuse it rather than
	 * silently ignore it. */
	yaml_document_t next;
	if (!yaml_parser_load(&parser, &next)) {
		yaml_mark_t m = parser.problem_mark;
		rc = err_set(e, ERR_INVALID, "%s:%zu:%zu: invalid YAML: %s", name, m.line + 1, m.column + 1,
			     parser.problem ? parser.problem : "syntax error");
		yaml_document_delete(doc);
		goto out;
	}
	bool more = yaml_document_get_root_node(&next) != NULL;
	yaml_mark_t m = next.start_mark;
	yaml_document_delete(&next);
	if (more) {
		rc = err_set(e, ERR_INVALID, "%s:%zu:%zu: more than one YAML document; a configuration file holds one",
			     name, m.line + 1, m.column + 1);
		yaml_document_delete(doc);
	}
out:
	yaml_parser_delete(&parser);
	return rc;
}

/* ---------- paths and errors ---------- */

int dec_err(struct cfg_dec *d, yaml_node_t *n, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t line = n ? n->start_mark.line + 1 : 1, col = n ? n->start_mark.column + 1 : 1;
	if (d->plen)
		return err_set(d->e, ERR_INVALID, "%s:%zu:%zu: %s: %s", d->file, line, col, d->path, msg);
	return err_set(d->e, ERR_INVALID, "%s:%zu:%zu: %s", d->file, line, col, msg);
}

size_t dec_push_key(struct cfg_dec *d, const char *key)
{
	size_t saved = d->plen;
	int n = snprintf(d->path + d->plen, sizeof(d->path) - d->plen, "%s%s", d->plen ? "." : "", key);
	if (n > 0)
		d->plen = d->plen + (size_t)n < sizeof(d->path) ? d->plen + (size_t)n : sizeof(d->path) - 1;
	return saved;
}

size_t dec_push_index(struct cfg_dec *d, size_t i)
{
	size_t saved = d->plen;
	int n = snprintf(d->path + d->plen, sizeof(d->path) - d->plen, "[%zu]", i);
	if (n > 0)
		d->plen = d->plen + (size_t)n < sizeof(d->path) ? d->plen + (size_t)n : sizeof(d->path) - 1;
	return saved;
}

void dec_pop(struct cfg_dec *d, size_t saved)
{
	d->plen = saved;
	d->path[saved] = '\0';
}

int dec_mark(struct cfg_dec *d, yaml_node_t *n)
{
	if (!d->marks)
		return 0;
	if (marks_add(d->marks, d->path, (uint32_t)n->start_mark.line + 1, (uint32_t)n->start_mark.column + 1))
		return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
	return 0;
}

/* ---------- node kinds ---------- */

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool plain(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE || n->data.scalar.style == YAML_ANY_SCALAR_STYLE;
}

bool dec_is_null(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE || !plain(n))
		return false;
	const char *s = scalar(n);
	return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
	       strcmp(s, "NULL") == 0;
}

static const char *node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a sequence";
	case YAML_SCALAR_NODE:
		return "a scalar";
	default:
		return "nothing";
	}
}

bool dec_key_is(const struct cfg_dec *d, const char *key, const char *want)
{
	return d->icase ? strcasecmp(key, want) == 0 : strcmp(key, want) == 0;
}

int dec_map(struct cfg_dec *d, yaml_node_t *n, dec_field_fn fn, void *ctx)
{
	if (!n || dec_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return dec_err(d, n, "expected a mapping, got %s", node_kind(n));
	yaml_node_pair_t *start = n->data.mapping.pairs.start, *top = n->data.mapping.pairs.top;
	for (yaml_node_pair_t *p = start; p < top; p++) {
		yaml_node_t *k = yaml_document_get_node(d->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(d->doc, p->value);
		if (!k || k->type != YAML_SCALAR_NODE)
			return dec_err(d, k ? k : n, "mapping keys must be strings");
		const char *key = scalar(k);
		for (yaml_node_pair_t *q = start; q < p; q++) {
			yaml_node_t *k2 = yaml_document_get_node(d->doc, q->key);
			if (k2 && k2->type == YAML_SCALAR_NODE && dec_key_is(d, scalar(k2), key)) {
				size_t saved = dec_push_key(d, key);
				int rc = dec_err(d, k, "duplicate field \"%s\"", key);
				dec_pop(d, saved);
				return rc;
			}
		}
		size_t saved = dec_push_key(d, key);
		int rc = dec_mark(d, v ? v : k);
		if (!rc && v && !dec_is_null(v))
			rc = fn(d, key, v, ctx);
		dec_pop(d, saved);
		if (rc)
			return rc;
	}
	return 0;
}

int dec_seq_len(struct cfg_dec *d, yaml_node_t *n, size_t *len)
{
	*len = 0;
	if (!n || dec_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return dec_err(d, n, "expected a sequence, got %s", node_kind(n));
	*len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	return 0;
}

int dec_seq(struct cfg_dec *d, yaml_node_t *n, dec_item_fn fn, void *ctx)
{
	size_t len;
	int rc = dec_seq_len(d, n, &len);
	if (rc || len == 0)
		return rc;
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *item = yaml_document_get_node(d->doc, n->data.sequence.items.start[i]);
		size_t saved = dec_push_index(d, i);
		rc = item ? dec_mark(d, item) : dec_err(d, n, "missing item");
		if (!rc)
			rc = fn(d, i, item, ctx);
		dec_pop(d, saved);
		if (rc)
			return rc;
	}
	return 0;
}

int dec_unknown(struct cfg_dec *d, const char *key, yaml_node_t *value)
{
	(void)value;
	return dec_err(d, value, "unknown field \"%s\"", key);
}

/* ---------- scalars ---------- */

static bool looks_like_bool(const char *s)
{
	return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE") || !strcmp(s, "false") ||
	       !strcmp(s, "False") || !strcmp(s, "FALSE");
}

static bool parse_i64(const char *s, int64_t *out)
{
	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static bool looks_like_number(const char *s)
{
	if (!*s)
		return false;
	char *end;
	errno = 0;
	(void)strtod(s, &end);
	return *end == '\0' && !isspace((unsigned char)*s);
}

static int want_scalar(struct cfg_dec *d, yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE)
		return dec_err(d, n, "expected %s, got %s", what, node_kind(n));
	return 0;
}

int dec_str(struct cfg_dec *d, yaml_node_t *n, const char **out)
{
	int rc = want_scalar(d, n, "a string");
	if (rc)
		return rc;
	const char *s = scalar(n);
	/* A plain number or boolean is not a string in the JSON model upstream decodes into. */
	if (plain(n) && (looks_like_bool(s) || looks_like_number(s)))
		return dec_err(d, n, "expected a string, got %s", s);
	char *copy = arena_strndup(d->arena, s, n->data.scalar.length);
	if (!copy)
		return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
	if (strlen(copy) != n->data.scalar.length)
		return dec_err(d, n, "strings must not contain NUL characters");
	*out = copy;
	return 0;
}

int dec_istr(struct cfg_dec *d, yaml_node_t *n, const char **out)
{
	const char *s = NULL;
	int rc = dec_str(d, n, &s);
	if (rc)
		return rc;
	*out = intern_str(s);
	if (!*out)
		return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
	return 0;
}

int dec_bool(struct cfg_dec *d, yaml_node_t *n, bool *out)
{
	int rc = want_scalar(d, n, "a boolean");
	if (rc)
		return rc;
	const char *s = scalar(n);
	if (!plain(n) || !looks_like_bool(s))
		return dec_err(d, n, "expected a boolean (true or false), got \"%s\"", s);
	*out = s[0] == 't' || s[0] == 'T';
	return 0;
}

int dec_int(struct cfg_dec *d, yaml_node_t *n, int64_t min, int64_t max, int64_t *out)
{
	int rc = want_scalar(d, n, "an integer");
	if (rc)
		return rc;
	const char *s = scalar(n);
	int64_t v;
	if (!plain(n) || !parse_i64(s, &v))
		return dec_err(d, n, "expected an integer, got \"%s\"", s);
	if (v < min || v > max)
		return dec_err(d, n, "%s is out of range [%" PRId64 ", %" PRId64 "]", s, min, max);
	*out = v;
	return 0;
}

int dec_i32(struct cfg_dec *d, yaml_node_t *n, int32_t *out)
{
	int64_t v = 0;
	int rc = dec_int(d, n, INT32_MIN, INT32_MAX, &v);
	if (!rc)
		*out = (int32_t)v;
	return rc;
}

int dec_float(struct cfg_dec *d, yaml_node_t *n, double *out)
{
	int rc = want_scalar(d, n, "a number");
	if (rc)
		return rc;
	const char *s = scalar(n);
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!plain(n) || !*s || *end || errno || !isfinite(v))
		return dec_err(d, n, "expected a number, got \"%s\"", s);
	*out = v;
	return 0;
}

int dec_duration(struct cfg_dec *d, yaml_node_t *n, int64_t *ns)
{
	int rc = want_scalar(d, n, "a duration string");
	if (rc)
		return rc;
	const char *s = scalar(n);
	if (cfg_duration_parse(s, ns))
		return dec_err(d, n, "invalid duration \"%s\" (want a Go duration such as \"15s\", \"1m30s\" or \"500ms\")", s);
	return 0;
}

int dec_base64(struct cfg_dec *d, yaml_node_t *n, const unsigned char **out, size_t *len)
{
	int rc = want_scalar(d, n, "a base64 string");
	if (rc)
		return rc;
	const char *s = scalar(n);
	size_t slen = n->data.scalar.length, bad;
	unsigned char *buf = arena_alloc(d->arena, base64_decoded_max(slen));
	if (!buf)
		return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
	/* Go's encoding/json decodes []byte with StdEncoding: padded, no whitespace. */
	if (slen % 4)
		return dec_err(d, n, "illegal base64 data: length %zu is not a multiple of 4", slen);
	if (!base64_decode(s, slen, BASE64_STRICT, buf, len, &bad))
		return dec_err(d, n, "illegal base64 data at input byte %zu", bad);
	*out = buf;
	return 0;
}

struct istr_list {
	const char **items;
};

static int istr_item(struct cfg_dec *d, size_t i, yaml_node_t *item, void *ctx)
{
	struct istr_list *l = ctx;
	return dec_istr(d, item, &l->items[i]);
}

int dec_istr_list(struct cfg_dec *d, yaml_node_t *n, uint32_t *count, const char ***out)
{
	size_t len;
	int rc = dec_seq_len(d, n, &len);
	if (rc)
		return rc;
	struct istr_list l = { .items = len ? arena_alloc(d->arena, len * sizeof(char *)) : NULL };
	if (len && !l.items)
		return err_set(d->e, ERR_NOMEM, "%s: out of memory", d->file);
	rc = dec_seq(d, n, istr_item, &l);
	if (rc)
		return rc;
	*count = (uint32_t)len;
	*out = l.items;
	return 0;
}

/* ---------- Go durations ---------- */

int cfg_duration_parse(const char *s, int64_t *ns)
{
	static const struct {
		const char *unit;
		int64_t scale;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 }, { "\xce\xbcs", 1000 },
		{ "ms", 1000000 }, { "s", 1000000000LL }, { "m", 60000000000LL }, { "h", 3600000000000LL },
	};
	const char *p = s;
	bool neg = false;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (strcmp(p, "0") == 0) {
		*ns = 0;
		return 0;
	}
	if (!*p)
		return ERR_INVALID;
	long double total = 0;
	while (*p) {
		if (!isdigit((unsigned char)*p) && *p != '.')
			return ERR_INVALID;
		const char *num = p;
		bool digits = false;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits = true;
		}
		if (*p == '.') {
			p++;
			while (isdigit((unsigned char)*p)) {
				p++;
				digits = true;
			}
		}
		if (!digits)
			return ERR_INVALID;
		char nb[64];
		size_t nl = (size_t)(p - num);
		if (nl >= sizeof(nb))
			return ERR_INVALID;
		memcpy(nb, num, nl);
		nb[nl] = '\0';
		long double v = strtold(nb, NULL);
		size_t best = 0, bestlen = 0;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t ul = strlen(units[i].unit);
			if (strncmp(p, units[i].unit, ul) == 0 && ul > bestlen) {
				best = i;
				bestlen = ul;
			}
		}
		if (!bestlen)
			return ERR_INVALID; /* Go requires a unit on every number but "0" */
		p += bestlen;
		total += v * (long double)units[best].scale;
		if (total > (long double)INT64_MAX)
			return ERR_INVALID;
	}
	int64_t v = (int64_t)(total + 0.5L);
	*ns = neg ? -v : v;
	return 0;
}

/* Formats v/10^prec with trailing zeros of the fraction dropped, like Go's fmtFrac + fmtInt. */
static size_t fmt_frac(char *out, uint64_t v, int prec, uint64_t *rest)
{
	char tmp[32];
	size_t n = 0;
	bool print = false;
	for (int i = 0; i < prec; i++) {
		unsigned digit = (unsigned)(v % 10);
		print = print || digit != 0;
		if (print)
			tmp[n++] = (char)('0' + digit);
		v /= 10;
	}
	size_t o = 0;
	if (print) {
		out[o++] = '.';
		while (n)
			out[o++] = tmp[--n];
	}
	*rest = v;
	return o;
}

const char *cfg_duration_format(int64_t ns, char *buf, size_t size)
{
	bool neg = ns < 0;
	uint64_t u = neg ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	char frac[32];
	uint64_t rest;
	if (u == 0) {
		snprintf(buf, size, "0s");
		return buf;
	}
	if (u < 1000000000ULL) {
		const char *unit;
		int prec;
		if (u < 1000) {
			unit = "ns";
			prec = 0;
		} else if (u < 1000000) {
			unit = "\xc2\xb5s";
			prec = 3;
		} else {
			unit = "ms";
			prec = 6;
		}
		size_t fl = fmt_frac(frac, u, prec, &rest);
		frac[fl] = '\0';
		snprintf(buf, size, "%s%" PRIu64 "%s%s", neg ? "-" : "", rest, frac, unit);
		return buf;
	}
	size_t fl = fmt_frac(frac, u, 9, &rest);
	frac[fl] = '\0';
	uint64_t secs = rest % 60, mins = rest / 60 % 60, hours = rest / 3600;
	if (hours)
		snprintf(buf, size, "%s%" PRIu64 "h%" PRIu64 "m%" PRIu64 "%ss", neg ? "-" : "", hours, mins, secs, frac);
	else if (mins)
		snprintf(buf, size, "%s%" PRIu64 "m%" PRIu64 "%ss", neg ? "-" : "", mins, secs, frac);
	else
		snprintf(buf, size, "%s%" PRIu64 "%ss", neg ? "-" : "", secs, frac);
	return buf;
}

/* ---------- names ---------- */

static bool alnum(char c)
{
	return isalnum((unsigned char)c);
}

/* apimachinery's validate/content messages (RegexError with its examples, MaxLenError). */
#define NAME_RE_MSG                                                                                             \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " \
	"character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "                 \
	"'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define DNS_SUBDOMAIN_RE_MSG                                                                                   \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must " \
	"start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "         \
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ */
static bool name_part_matches(const char *s, size_t n)
{
	if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ */
static bool dns_subdomain_matches(const char *s, size_t n)
{
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (i == start || !isalnum((unsigned char)s[start]) || !isalnum((unsigned char)s[i - 1]))
				return false;
			start = i + 1;
			continue;
		}
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	}
	return true;
}

/* content.IsLabelKey (IsQualifiedName): its messages in its order into m; returns how many. */
static int label_key_msgs(const char *s, const char *m[4])
{
	int n = 0;
	const char *slash = strchr(s, '/');
	const char *name = s;
	if (slash) {
		if (strchr(slash + 1, '/')) {
			m[0] = "a valid label key " NAME_RE_MSG " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
			return 1;
		}
		size_t pl = (size_t)(slash - s);
		if (pl == 0) {
			m[n++] = "prefix part must be non-empty";
		} else {
			if (pl > 253)
				m[n++] = "prefix part must be no more than 253 bytes";
			if (!dns_subdomain_matches(s, pl))
				m[n++] = "prefix part " DNS_SUBDOMAIN_RE_MSG;
		}
		name = slash + 1;
	}
	size_t nl = strlen(name);
	if (nl == 0)
		m[n++] = "name part must be non-empty";
	else if (nl > 63)
		m[n++] = "name part must be no more than 63 bytes";
	if (!name_part_matches(name, nl))
		m[n++] = "name part " NAME_RE_MSG;
	return n;
}

/* Joins msgs with "; " (as labels.validateLabelKey does) into buf. */
static const char *join_msgs(const char *const *msgs, int n, char *buf, size_t size)
{
	if (n == 0)
		return NULL;
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "; " : "", msgs[i]);
	return buf;
}

const char *cfg_check_dns_subdomain(const char *s)
{
	size_t n = strlen(s);
	if (n > 253)
		return "must be no more than 253 bytes";
	return dns_subdomain_matches(s, n) ? NULL : DNS_SUBDOMAIN_RE_MSG;
}

const char *cfg_check_qualified_name(const char *s)
{
	const char *m[4];
	return label_key_msgs(s, m) ? m[0] : NULL;
}

const char *cfg_check_label_key(const char *s, char *buf, size_t size)
{
	const char *m[4];
	return join_msgs(m, label_key_msgs(s, m), buf, size);
}

const char *cfg_check_label_value(const char *s, char *buf, size_t size)
{
	const char *m[2];
	int n = 0;
	size_t len = strlen(s);
	if (len > 63)
		m[n++] = "must be no more than 63 bytes";
	if (len && !name_part_matches(s, len))
		m[n++] = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
			 "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
			 "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
	return join_msgs(m, n, buf, size);
}

/* ---------- writer helpers ---------- */

void cfg_write_indent(FILE *f, int indent)
{
	for (int i = 0; i < indent; i++)
		fputc(' ', f);
}

/* Double-quoted YAML scalar: valid YAML and JSON string syntax for every input. */
void cfg_write_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}
