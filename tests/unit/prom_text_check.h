/* A small, independent checker of the Prometheus text exposition format (version 0.0.4), shared
 * by tests/unit/test_scheduler_metrics.c and tests/integration/test_scheduler_production.c.
 * Header-only (static functions) so each test program includes its own copy.
 *
 * It enforces: every line is a "# HELP name text", "# TYPE name type", another comment, or a
 * sample `name{label="value",...} value [timestamp]` with the grammar's names, escapes and
 * floats; a family's HELP and TYPE come before its samples, TYPE at most once per family, and a
 * family's samples are contiguous; histogram samples are name_bucket (with le), name_sum and
 * name_count; within a series the le bounds increase, bucket counts never decrease, the last
 * bucket is le="+Inf", and _count equals it. */
#ifndef CSCHED_TEST_PROM_TEXT_CHECK_H
#define CSCHED_TEST_PROM_TEXT_CHECK_H

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROM_MAX_LABELS 8

struct prom_sample {
	char name[160];
	int nlabels;
	char lname[PROM_MAX_LABELS][64];
	char lval[PROM_MAX_LABELS][256];
	double value;
};

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

static bool prom_parse_sample(const char *line, struct prom_sample *s, char *why, size_t n)
{
	const char *p = line;
	memset(s, 0, sizeof *s);
	if (!prom_read_name(&p, s->name, sizeof s->name, true))
		return prom_fail(why, n, "bad metric name in \"%s\"", line);
	if (*p == '{') {
		p++;
		while (*p != '}') {
			if (s->nlabels == PROM_MAX_LABELS)
				return prom_fail(why, n, "too many labels in \"%s\"", line);
			char *ln = s->lname[s->nlabels], *lv = s->lval[s->nlabels];
			if (!prom_read_name(&p, ln, sizeof s->lname[0], false))
				return prom_fail(why, n, "bad label name in \"%s\"", line);
			if (strncmp(ln, "__", 2) == 0)
				return prom_fail(why, n, "reserved label name %s", ln);
			for (int i = 0; i < s->nlabels; i++)
				if (strcmp(s->lname[i], ln) == 0)
					return prom_fail(why, n, "duplicate label %s in \"%s\"", ln, line);
			if (p[0] != '=' || p[1] != '"')
				return prom_fail(why, n, "expected =\" after %s in \"%s\"", ln, line);
			p += 2;
			size_t k = 0;
			while (*p != '"') {
				char c = *p++;
				if (c == '\0' || c == '\n')
					return prom_fail(why, n, "unterminated label value in \"%s\"", line);
				if (c == '\\') {
					c = *p++;
					if (c == 'n')
						c = '\n';
					else if (c != '\\' && c != '"')
						return prom_fail(why, n, "bad escape \\%c in \"%s\"", c, line);
				}
				if (k + 1 >= sizeof s->lval[0])
					return prom_fail(why, n, "label value too long in \"%s\"", line);
				lv[k++] = c;
			}
			lv[k] = '\0';
			p++;
			s->nlabels++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				return prom_fail(why, n, "expected , or } in \"%s\"", line);
		}
		p++;
	}
	if (*p != ' ')
		return prom_fail(why, n, "expected a space before the value in \"%s\"", line);
	p++;
	if (!prom_read_float(&p, &s->value))
		return prom_fail(why, n, "bad value in \"%s\"", line);
	if (*p == ' ') { /* optional timestamp: an integer */
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

static const char *prom_label(const struct prom_sample *s, const char *name)
{
	for (int i = 0; i < s->nlabels; i++)
		if (strcmp(s->lname[i], name) == 0)
			return s->lval[i];
	return NULL;
}

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

/* Returns true when text is valid; else false with the reason in why. *nsamples (if not NULL)
 * receives the number of sample lines. */
static bool prom_check_text(const char *text, char *why, size_t n, int *nsamples)
{
	static char seen[PROM_MAX_FAMILIES][160];
	int nseen = 0, samples = 0;
	char fam[160] = "", help_for[160] = "", type[16] = "";
	bool fam_has_samples = false;
	/* histogram series state */
	char key[1024] = "";
	double last_le = -INFINITY, last_bucket = 0;
	bool in_series = false, saw_inf = false, saw_sum = false;

	const char *line = text;
	int lineno = 0;
	while (*line) {
		const char *nl = strchr(line, '\n');
		if (!nl)
			return prom_fail(why, n, "line %d: text does not end with a newline", lineno + 1);
		char buf[2048];
		size_t len = (size_t)(nl - line);
		if (len >= sizeof buf)
			return prom_fail(why, n, "line %d: too long", lineno + 1);
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl + 1;
		lineno++;
		if (len == 0)
			continue;
		if (buf[0] == '#') {
			char name[160];
			const char *p = buf + 2;
			bool is_help = strncmp(buf, "# HELP ", 7) == 0, is_type = strncmp(buf, "# TYPE ", 7) == 0;
			if (!is_help && !is_type)
				continue; /* a plain comment */
			p = buf + 7;
			if (!prom_read_name(&p, name, sizeof name, true) || *p != ' ')
				return prom_fail(why, n, "line %d: bad name in \"%s\"", lineno, buf);
			p++;
			if (in_series)
				return prom_fail(why, n, "line %d: histogram series of %s ends without _count", lineno, fam);
			if (strcmp(name, fam) != 0) { /* a new family begins */
				for (int i = 0; i < nseen; i++)
					if (strcmp(seen[i], name) == 0)
						return prom_fail(why, n, "line %d: family %s appears twice", lineno, name);
				if (nseen == PROM_MAX_FAMILIES)
					return prom_fail(why, n, "too many families");
				snprintf(seen[nseen++], sizeof seen[0], "%s", name);
				snprintf(fam, sizeof fam, "%s", name);
				type[0] = '\0';
				help_for[0] = '\0';
				fam_has_samples = false;
			} else if (fam_has_samples) {
				return prom_fail(why, n, "line %d: HELP/TYPE of %s after its samples", lineno, name);
			}
			if (is_help) {
				if (help_for[0])
					return prom_fail(why, n, "line %d: second HELP for %s", lineno, name);
				snprintf(help_for, sizeof help_for, "%s", name);
				for (const char *q = p; *q; q++)
					if (*q == '\\' && q[1] != '\\' && q[1] != 'n')
						return prom_fail(why, n, "line %d: bad escape in HELP", lineno);
					else if (*q == '\\')
						q++;
			} else {
				if (type[0])
					return prom_fail(why, n, "line %d: second TYPE for %s", lineno, name);
				if (strcmp(p, "counter") && strcmp(p, "gauge") && strcmp(p, "histogram") &&
				    strcmp(p, "summary") && strcmp(p, "untyped"))
					return prom_fail(why, n, "line %d: unknown type \"%s\"", lineno, p);
				snprintf(type, sizeof type, "%s", p);
			}
			continue;
		}
		struct prom_sample s;
		char reason[512];
		if (!prom_parse_sample(buf, &s, reason, sizeof reason))
			return prom_fail(why, n, "line %d: %s", lineno, reason);
		samples++;
		if (!type[0] || !help_for[0])
			return prom_fail(why, n, "line %d: sample %s without HELP and TYPE before it", lineno, s.name);
		fam_has_samples = true;
		if (strcmp(type, "histogram") != 0) {
			if (strcmp(s.name, fam) != 0)
				return prom_fail(why, n, "line %d: sample %s inside family %s", lineno, s.name, fam);
			if (strcmp(type, "counter") == 0 && !(s.value >= 0))
				return prom_fail(why, n, "line %d: negative counter %s", lineno, s.name);
			continue;
		}
		char k[1024];
		prom_series_key(&s, k, sizeof k);
		if (prom_has_suffix(s.name, fam, "_bucket")) {
			const char *le = prom_label(&s, "le");
			double lev;
			const char *q = le;
			if (!le || !prom_read_float(&q, &lev) || *q)
				return prom_fail(why, n, "line %d: bucket without a numeric le", lineno);
			if (!in_series) {
				if (saw_sum)
					return prom_fail(why, n, "line %d: series of %s has _sum without _count", lineno, fam);
				in_series = true;
				saw_inf = false;
				last_le = -INFINITY;
				last_bucket = 0;
				snprintf(key, sizeof key, "%s", k);
			} else if (strcmp(key, k) != 0) {
				return prom_fail(why, n, "line %d: buckets of two series interleave in %s", lineno, fam);
			}
			if (saw_inf)
				return prom_fail(why, n, "line %d: bucket after le=\"+Inf\"", lineno);
			if (!(lev > last_le))
				return prom_fail(why, n, "line %d: le %s not increasing", lineno, le);
			if (s.value < last_bucket)
				return prom_fail(why, n, "line %d: buckets not cumulative (%g < %g)", lineno, s.value,
						 last_bucket);
			last_le = lev;
			last_bucket = s.value;
			saw_inf = isinf(lev) && lev > 0;
		} else if (prom_has_suffix(s.name, fam, "_sum")) {
			if (!in_series || !saw_inf || strcmp(key, k) != 0)
				return prom_fail(why, n, "line %d: _sum before the series' +Inf bucket", lineno);
			saw_sum = true;
		} else if (prom_has_suffix(s.name, fam, "_count")) {
			if (!in_series || !saw_inf || strcmp(key, k) != 0)
				return prom_fail(why, n, "line %d: _count before the series' +Inf bucket", lineno);
			if (s.value != last_bucket)
				return prom_fail(why, n, "line %d: _count %g != +Inf bucket %g", lineno, s.value,
						 last_bucket);
			in_series = false;
			saw_sum = false;
		} else {
			return prom_fail(why, n, "line %d: sample %s inside histogram %s", lineno, s.name, fam);
		}
	}
	if (in_series)
		return prom_fail(why, n, "histogram %s ends without _count", fam);
	if (nsamples)
		*nsamples = samples;
	return true;
}

/* Value of the sample `name` whose labels are exactly the given "k=v" pairs (in any order).
 * Returns false when absent. */
static bool prom_find(const char *text, const char *name, const char *const *pairs, int npairs, double *value)
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
			    s.nlabels == npairs) {
				bool all = true;
				for (int i = 0; i < npairs && all; i++) {
					const char *eq = strchr(pairs[i], '=');
					char k[64];
					snprintf(k, sizeof k, "%.*s", (int)(eq - pairs[i]), pairs[i]);
					const char *v = prom_label(&s, k);
					all = v && strcmp(v, eq + 1) == 0;
				}
				if (all) {
					*value = s.value;
					return true;
				}
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return false;
}

#endif
