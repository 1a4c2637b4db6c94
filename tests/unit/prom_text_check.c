/* The Prometheus text format checker of prom_text_check.h. */
#include "prom_text_check.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool prom_fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool prom_fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return false;
}

static bool prom_name_start(char c, bool colon)
{
	return isalpha((unsigned char)c) || c == '_' || (colon && c == ':');
}

static bool prom_name_char(char c, bool colon)
{
	return isalnum((unsigned char)c) || c == '_' || (colon && c == ':');
}

/* Reads a metric (colon) or label name at *p into out. */
static bool prom_read_name(const char **p, char *out, size_t size, bool colon)
{
	size_t n = 0;
	if (!prom_name_start(**p, colon))
		return false;
	while (prom_name_char(**p, colon)) {
		if (n + 1 >= size)
			return false;
		out[n++] = *(*p)++;
	}
	out[n] = '\0';
	return true;
}

/* Go's ParseFloat forms: decimal/exponent numbers, NaN, +Inf, -Inf, Inf. */
static bool prom_read_float(const char **p, double *v)
{
	const char *s = *p;
	size_t n = strcspn(s, " \t");
	char tok[64];
	if (n == 0 || n >= sizeof tok)
		return false;
	memcpy(tok, s, n);
	tok[n] = '\0';
	if (strcmp(tok, "NaN") == 0) {
		*v = NAN;
	} else if (strcmp(tok, "+Inf") == 0 || strcmp(tok, "Inf") == 0) {
		*v = INFINITY;
	} else if (strcmp(tok, "-Inf") == 0) {
		*v = -INFINITY;
	} else {
		for (size_t i = 0; i < n; i++)
			if (!strchr("0123456789.eE+-", tok[i]))
				return false;
		char *end;
		*v = strtod(tok, &end);
		if (*end)
			return false;
	}
	*p = s + n;
	return true;
}

/* ---------- one sample line ---------- */

/* The quoted label value at *p (after =") into lv, through the closing quote. */
static bool prom_read_label_value(const char **p, char *lv, size_t size, const char *line, char *why, size_t n)
{
	size_t k = 0;
	while (**p != '"') {
		char c = *(*p)++;
		if (c == '\0' || c == '\n')
			return prom_fail(why, n, "unterminated label value in \"%s\"", line);
		if (c == '\\') {
			c = *(*p)++;
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return prom_fail(why, n, "bad escape \\%c in \"%s\"", c, line);
		}
		if (k + 1 >= size)
			return prom_fail(why, n, "label value too long in \"%s\"", line);
		lv[k++] = c;
	}
	lv[k] = '\0';
	(*p)++;
	return true;
}

/* One name="value" pair at *p, appended to s's labels. */
static bool prom_read_label(const char **p, struct prom_sample *s, const char *line, char *why, size_t n)
{
	if (s->nlabels == PROM_MAX_LABELS)
		return prom_fail(why, n, "too many labels in \"%s\"", line);
	char *ln = s->lname[s->nlabels], *lv = s->lval[s->nlabels];
	if (!prom_read_name(p, ln, sizeof s->lname[0], false))
		return prom_fail(why, n, "bad label name in \"%s\"", line);
	if (strncmp(ln, "__", 2) == 0)
		return prom_fail(why, n, "reserved label name %s", ln);
	for (int i = 0; i < s->nlabels; i++)
		if (strcmp(s->lname[i], ln) == 0)
			return prom_fail(why, n, "duplicate label %s in \"%s\"", ln, line);
	if ((*p)[0] != '=' || (*p)[1] != '"')
		return prom_fail(why, n, "expected =\" after %s in \"%s\"", ln, line);
	*p += 2;
	if (!prom_read_label_value(p, lv, sizeof s->lval[0], line, why, n))
		return false;
	s->nlabels++;
	return true;
}

/* The {...} label set at *p (at '{'), through the closing brace. */
static bool prom_read_labels(const char **p, struct prom_sample *s, const char *line, char *why, size_t n)
{
	(*p)++;
	while (**p != '}') {
		if (!prom_read_label(p, s, line, why, n))
			return false;
		if (**p == ',')
			(*p)++;
		else if (**p != '}')
			return prom_fail(why, n, "expected , or } in \"%s\"", line);
	}
	(*p)++;
	return true;
}

/* The optional timestamp (an integer) after the value, then the end of the line. */
static bool prom_read_line_end(const char *p, const char *line, char *why, size_t n)
{
	if (*p == ' ') {
		p++;
		if (*p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return prom_fail(why, n, "bad timestamp in \"%s\"", line);
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p)
		return prom_fail(why, n, "trailing characters in \"%s\"", line);
	return true;
}

bool prom_parse_sample(const char *line, struct prom_sample *s, char *why, size_t n)
{
	const char *p = line;
	memset(s, 0, sizeof *s);
	if (!prom_read_name(&p, s->name, sizeof s->name, true))
		return prom_fail(why, n, "bad metric name in \"%s\"", line);
	if (*p == '{' && !prom_read_labels(&p, s, line, why, n))
		return false;
	if (*p != ' ')
		return prom_fail(why, n, "expected a space before the value in \"%s\"", line);
	p++;
	if (!prom_read_float(&p, &s->value))
		return prom_fail(why, n, "bad value in \"%s\"", line);
	return prom_read_line_end(p, line, why, n);
}

const char *prom_label(const struct prom_sample *s, const char *name)
{
	for (int i = 0; i < s->nlabels; i++)
		if (strcmp(s->lname[i], name) == 0)
			return s->lval[i];
	return NULL;
}

/* ---------- the whole text ---------- */

/* Canonical label set (without le), for grouping a histogram's series. */
static void prom_series_key(const struct prom_sample *s, char *out, size_t size)
{
	size_t len = 0;
	out[0] = '\0';
	for (int i = 0; i < s->nlabels; i++)
		if (strcmp(s->lname[i], "le") != 0 && len < size)
			len += (size_t)snprintf(out + len, size - len, "%s=%s\x1f", s->lname[i], s->lval[i]);
}

static bool prom_has_suffix(const char *s, const char *fam, const char *suffix)
{
	size_t n = strlen(fam);
	return strncmp(s, fam, n) == 0 && strcmp(s + n, suffix) == 0;
}

#define PROM_MAX_FAMILIES 256

/* What prom_check_text knows after the lines read so far. */
struct prom_checker {
	char seen[PROM_MAX_FAMILIES][160];
	int nseen, samples, lineno;
	char fam[160], help_for[160], type[16];
	bool fam_has_samples;
	/* histogram series state */
	char key[1024];
	double last_le, last_bucket;
	bool in_series, saw_inf, saw_sum;
	char *why;
	size_t n;
};

/* name starts a family, or continues the current one before its samples. */
static bool prom_enter_family(struct prom_checker *ck, const char *name)
{
	if (strcmp(name, ck->fam) == 0) {
		if (ck->fam_has_samples)
			return prom_fail(ck->why, ck->n, "line %d: HELP/TYPE of %s after its samples", ck->lineno, name);
		return true;
	}
	for (int i = 0; i < ck->nseen; i++)
		if (strcmp(ck->seen[i], name) == 0)
			return prom_fail(ck->why, ck->n, "line %d: family %s appears twice", ck->lineno, name);
	if (ck->nseen == PROM_MAX_FAMILIES)
		return prom_fail(ck->why, ck->n, "too many families");
	snprintf(ck->seen[ck->nseen++], sizeof ck->seen[0], "%s", name);
	snprintf(ck->fam, sizeof ck->fam, "%s", name);
	ck->type[0] = '\0';
	ck->help_for[0] = '\0';
	ck->fam_has_samples = false;
	return true;
}

static bool prom_check_help(struct prom_checker *ck, const char *name, const char *text)
{
	if (ck->help_for[0])
		return prom_fail(ck->why, ck->n, "line %d: second HELP for %s", ck->lineno, name);
	snprintf(ck->help_for, sizeof ck->help_for, "%s", name);
	for (const char *q = text; *q; q++)
		if (*q == '\\' && q[1] != '\\' && q[1] != 'n')
			return prom_fail(ck->why, ck->n, "line %d: bad escape in HELP", ck->lineno);
		else if (*q == '\\')
			q++;
	return true;
}

static bool prom_check_type(struct prom_checker *ck, const char *name, const char *type)
{
	static const char *const types[] = { "counter", "gauge", "histogram", "summary", "untyped" };
	bool known = false;
	if (ck->type[0])
		return prom_fail(ck->why, ck->n, "line %d: second TYPE for %s", ck->lineno, name);
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		known |= strcmp(type, types[i]) == 0;
	if (!known)
		return prom_fail(ck->why, ck->n, "line %d: unknown type \"%s\"", ck->lineno, type);
	snprintf(ck->type, sizeof ck->type, "%s", type);
	return true;
}

/* A comment line: HELP and TYPE are checked, other comments ignored. */
static bool prom_check_comment(struct prom_checker *ck, const char *buf)
{
	char name[160];
	bool is_help = strncmp(buf, "# HELP ", 7) == 0, is_type = strncmp(buf, "# TYPE ", 7) == 0;
	if (!is_help && !is_type)
		return true; /* a plain comment */
	const char *p = buf + 7;
	if (!prom_read_name(&p, name, sizeof name, true) || *p != ' ')
		return prom_fail(ck->why, ck->n, "line %d: bad name in \"%s\"", ck->lineno, buf);
	p++;
	if (ck->in_series)
		return prom_fail(ck->why, ck->n, "line %d: histogram series of %s ends without _count", ck->lineno,
				 ck->fam);
	if (!prom_enter_family(ck, name))
		return false;
	return is_help ? prom_check_help(ck, name, p) : prom_check_type(ck, name, p);
}

static bool prom_check_bucket(struct prom_checker *ck, const struct prom_sample *s, const char *k)
{
	const char *le = prom_label(s, "le");
	double lev;
	const char *q = le;
	if (!le || !prom_read_float(&q, &lev) || *q)
		return prom_fail(ck->why, ck->n, "line %d: bucket without a numeric le", ck->lineno);
	if (!ck->in_series) {
		if (ck->saw_sum)
			return prom_fail(ck->why, ck->n, "line %d: series of %s has _sum without _count", ck->lineno,
					 ck->fam);
		ck->in_series = true;
		ck->saw_inf = false;
		ck->last_le = -INFINITY;
		ck->last_bucket = 0;
		snprintf(ck->key, sizeof ck->key, "%s", k);
	} else if (strcmp(ck->key, k) != 0) {
		return prom_fail(ck->why, ck->n, "line %d: buckets of two series interleave in %s", ck->lineno, ck->fam);
	}
	if (ck->saw_inf)
		return prom_fail(ck->why, ck->n, "line %d: bucket after le=\"+Inf\"", ck->lineno);
	if (!(lev > ck->last_le))
		return prom_fail(ck->why, ck->n, "line %d: le %s not increasing", ck->lineno, le);
	if (s->value < ck->last_bucket)
		return prom_fail(ck->why, ck->n, "line %d: buckets not cumulative (%g < %g)", ck->lineno, s->value,
				 ck->last_bucket);
	ck->last_le = lev;
	ck->last_bucket = s->value;
	ck->saw_inf = isinf(lev) && lev > 0;
	return true;
}

/* _sum and _count close a series: both come after its +Inf bucket. */
static bool prom_check_series_end(struct prom_checker *ck, const struct prom_sample *s, const char *k, bool count)
{
	if (!ck->in_series || !ck->saw_inf || strcmp(ck->key, k) != 0)
		return prom_fail(ck->why, ck->n, "line %d: %s before the series' +Inf bucket", ck->lineno,
				 count ? "_count" : "_sum");
	if (!count) {
		ck->saw_sum = true;
		return true;
	}
	if (s->value != ck->last_bucket)
		return prom_fail(ck->why, ck->n, "line %d: _count %g != +Inf bucket %g", ck->lineno, s->value,
				 ck->last_bucket);
	ck->in_series = false;
	ck->saw_sum = false;
	return true;
}

static bool prom_check_histogram_sample(struct prom_checker *ck, const struct prom_sample *s)
{
	char k[1024];
	prom_series_key(s, k, sizeof k);
	if (prom_has_suffix(s->name, ck->fam, "_bucket"))
		return prom_check_bucket(ck, s, k);
	if (prom_has_suffix(s->name, ck->fam, "_sum"))
		return prom_check_series_end(ck, s, k, false);
	if (prom_has_suffix(s->name, ck->fam, "_count"))
		return prom_check_series_end(ck, s, k, true);
	return prom_fail(ck->why, ck->n, "line %d: sample %s inside histogram %s", ck->lineno, s->name, ck->fam);
}

static bool prom_check_sample(struct prom_checker *ck, const char *buf)
{
	struct prom_sample s;
	char reason[512];
	if (!prom_parse_sample(buf, &s, reason, sizeof reason))
		return prom_fail(ck->why, ck->n, "line %d: %s", ck->lineno, reason);
	ck->samples++;
	if (!ck->type[0] || !ck->help_for[0])
		return prom_fail(ck->why, ck->n, "line %d: sample %s without HELP and TYPE before it", ck->lineno,
				 s.name);
	ck->fam_has_samples = true;
	if (strcmp(ck->type, "histogram") == 0)
		return prom_check_histogram_sample(ck, &s);
	if (strcmp(s.name, ck->fam) != 0)
		return prom_fail(ck->why, ck->n, "line %d: sample %s inside family %s", ck->lineno, s.name, ck->fam);
	if (strcmp(ck->type, "counter") == 0 && !(s.value >= 0))
		return prom_fail(ck->why, ck->n, "line %d: negative counter %s", ck->lineno, s.name);
	return true;
}

/* Copies the line at *text into buf and moves *text past its newline. */
static bool prom_next_line(struct prom_checker *ck, const char **text, char *buf, size_t size)
{
	const char *nl = strchr(*text, '\n');
	if (!nl)
		return prom_fail(ck->why, ck->n, "line %d: text does not end with a newline", ck->lineno + 1);
	size_t len = (size_t)(nl - *text);
	if (len >= size)
		return prom_fail(ck->why, ck->n, "line %d: too long", ck->lineno + 1);
	memcpy(buf, *text, len);
	buf[len] = '\0';
	*text = nl + 1;
	ck->lineno++;
	return true;
}

bool prom_check_text(const char *text, char *why, size_t n, int *nsamples)
{
	struct prom_checker *ck = calloc(1, sizeof(*ck));
	bool ok = ck != NULL;
	if (!ok)
		return prom_fail(why, n, "out of memory");
	ck->why = why;
	ck->n = n;
	ck->last_le = -INFINITY;
	const char *line = text;
	while (ok && *line) {
		char buf[2048];
		ok = prom_next_line(ck, &line, buf, sizeof buf);
		if (ok && buf[0])
			ok = buf[0] == '#' ? prom_check_comment(ck, buf) : prom_check_sample(ck, buf);
	}
	if (ok && ck->in_series)
		ok = prom_fail(why, n, "histogram %s ends without _count", ck->fam);
	if (ok && nsamples)
		*nsamples = ck->samples;
	free(ck);
	return ok;
}

/* Whether s has exactly the "k=v" pairs as labels. */
static bool prom_labels_are(const struct prom_sample *s, const char *const *pairs, int npairs)
{
	if (s->nlabels != npairs)
		return false;
	for (int i = 0; i < npairs; i++) {
		const char *eq = strchr(pairs[i], '=');
		char k[64];
		snprintf(k, sizeof k, "%.*s", (int)(eq - pairs[i]), pairs[i]);
		const char *v = prom_label(s, k);
		if (!v || strcmp(v, eq + 1) != 0)
			return false;
	}
	return true;
}

bool prom_find(const char *text, const char *name, const char *const *pairs, int npairs, double *value)
{
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[2048];
		if (len < sizeof buf && line[0] != '#') {
			memcpy(buf, line, len);
			buf[len] = '\0';
			struct prom_sample s;
			char why[256];
			if (prom_parse_sample(buf, &s, why, sizeof why) && strcmp(s.name, name) == 0 &&
			    prom_labels_are(&s, pairs, npairs)) {
				*value = s.value;
				return true;
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return false;
}
