/* Regular expressions: the standard library's `matches` (cel-go common/types/string.go Match)
 * and Kubernetes' regex library (apiserver pkg/cel/library/regex.go: find, findAll), with Go's
 * regexp (RE2) syntax and semantics, run by PCRE2.
 *
 * PCRE2 accepts a superset of RE2's syntax with some different meanings, so a pattern is never
 * handed to PCRE2 as written: translate() parses it as Go's regexp/syntax parser does (Perl
 * flags, as regexp.Compile uses), rejects what Go rejects with Go's message ("error parsing
 * regexp: invalid escape sequence: `\1`": backreferences, lookaround, possessive and nested
 * repetition, atomic groups, \Z, \C, ...), and writes an equivalent PCRE2 pattern in which
 * every construct means what it means in Go: literals as \x{...}, Go's \s ([\t\n\f\r ], no \v)
 * spelled out, \v as U+000B, octal escapes as \x{...}, a '{' that is not a repetition as a
 * literal. Compile options make the rest agree: UTF (a '.' is a code point), newline LF only
 * ('.' excludes just \n, (?m) lines end at \n), DOLLAR_ENDONLY ('$' without (?m) is \z, as in
 * Go), and no \C.
 *
 * Matching is leftmost-first in both (Go's FindString and PCRE2's first match agree); findAll
 * steps over empty matches as Go's allMatches does. Go's matcher is linear-time; PCRE2's
 * backtracks, so matches() (which only asks whether there is a match) uses PCRE2's DFA matcher,
 * which does not backtrack, and find/findAll ask the DFA matcher first whether and where the
 * leftmost match starts (a failing search never backtracks), then backtrack from there under a
 * match limit, a depth limit and a heap limit: a pattern and input that exceed them give the
 * error "regular expression match limit exceeded" instead of a result (csched's difference;
 * selectors' patterns are far below it).
 * ^ and $ are written out for Go's (?m) state, tracked through groups. A differential run
 * against Go's regexp (40,653 random patterns and inputs: matches, find, findAll and the
 * parse errors) shows no difference.
 *
 * A literal pattern is translated and compiled once, when the expression compiles (a bad
 * literal is a compile error, as cel-go's regex optimization makes it); the compiled code is
 * shared read-only by the threads evaluating the program, each call has its own match data
 * from the evaluation's arena. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"

#define RE_MATCH_LIMIT 1000000u
#define RE_DEPTH_LIMIT 100000u
#define RE_HEAP_LIMIT_KIB 65536u
#define RE_MAX_NEST 1000
#define RE_DFA_SMALL 600
#define RE_DFA_WORKSPACE 65536

/* ---- translation of Go's syntax ---- */

struct tr {
	const char *src;   /* the whole pattern */
	size_t n;
	char *out;         /* the PCRE2 pattern being written */
	size_t len, cap;
	char err[512];     /* Go's message, when translation fails */
	bool oom;
	/* the \p escapes of the source (start, length): to name the one PCRE2 does not know */
	size_t props[16][2];
	size_t nprops;
	/* a flag group "(?i)" not written yet: it goes out before the next item that is not a
	 * repetition, since in Go "a(?i)*" repeats the a (PCRE2 would refuse the quantifier) */
	size_t flags_at, flags_len;
};

static bool put(struct tr *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t c = t->cap ? t->cap * 2 : 64;
		while (c < t->len + n + 1)
			c *= 2;
		char *p = realloc(t->out, c);
		if (!p) {
			t->oom = true;
			return false;
		}
		t->out = p;
		t->cap = c;
	}
	memcpy(t->out + t->len, s, n);
	t->len += n;
	t->out[t->len] = 0;
	return true;
}

static bool puts_(struct tr *t, const char *s) { return put(t, s, strlen(s)); }

static bool put_rune(struct tr *t, uint32_t c)
{
	char b[16];
	int k = snprintf(b, sizeof(b), "\\x{%x}", c);
	return put(t, b, (size_t)k);
}

/* Go's error: "error parsing regexp: <code>: `<text>`". Returns false. */
static bool fail(struct tr *t, const char *code, const char *text, size_t n)
{
	snprintf(t->err, sizeof(t->err), "error parsing regexp: %s: `%.*s`", code, (int)n, text);
	return false;
}

static bool is_alnum(int c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static int unhex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int32_t next_rune(const struct tr *t, size_t *i)
{
	return cel_utf8_next(t->src, t->n, i);
}

/* parseEscape at t->src[*i] == '\\': a literal rune in *r, or false with Go's error. */
static bool parse_escape(struct tr *t, size_t *i, uint32_t *r)
{
	size_t start = *i, j = *i + 1;
	if (j >= t->n) {
		snprintf(t->err, sizeof(t->err), "error parsing regexp: trailing backslash at end of expression: ``");
		return false;
	}
	int32_t c = next_rune(t, &j);
	if (c < 0)
		return fail(t, "invalid UTF-8", t->src + start, t->n - start);
	if (c < 0x80 && !is_alnum(c)) {
		*r = (uint32_t)c;
		*i = j;
		return true;
	}
	switch (c) {
	case '1': case '2': case '3': case '4': case '5': case '6': case '7':
		if (j >= t->n || t->src[j] < '0' || t->src[j] > '7')
			break; /* a backreference: not supported */
		/* fallthrough */
	case '0': {
		uint32_t v = (uint32_t)(c - '0');
		for (int k = 1; k < 3 && j < t->n && t->src[j] >= '0' && t->src[j] <= '7'; k++)
			v = v * 8 + (uint32_t)(t->src[j++] - '0');
		*r = v;
		*i = j;
		return true;
	}
	case 'x': {
		if (j >= t->n)
			break;
		int32_t d = next_rune(t, &j);
		if (d == '{') {
			uint32_t v = 0;
			int nhex = 0;
			for (;;) {
				if (j >= t->n)
					goto bad;
				int32_t h = next_rune(t, &j);
				if (h == '}')
					break;
				int x = h < 0 ? -1 : unhex(h);
				if (x < 0)
					goto bad;
				v = v * 16 + (uint32_t)x;
				if (v > 0x10FFFF)
					goto bad;
				nhex++;
			}
			if (nhex == 0)
				goto bad;
			*r = v;
			*i = j;
			return true;
		}
		int x = d < 0 ? -1 : unhex(d);
		if (j >= t->n) {
			goto bad;
		}
		int32_t e = next_rune(t, &j);
		int y = e < 0 ? -1 : unhex(e);
		if (x < 0 || y < 0)
			goto bad;
		*r = (uint32_t)(x * 16 + y);
		*i = j;
		return true;
	}
	case 'a': *r = '\a'; *i = j; return true;
	case 'f': *r = '\f'; *i = j; return true;
	case 'n': *r = '\n'; *i = j; return true;
	case 'r': *r = '\r'; *i = j; return true;
	case 't': *r = '\t'; *i = j; return true;
	case 'v': *r = '\v'; *i = j; return true;
	}
bad:
	return fail(t, "invalid escape sequence", t->src + start, j - start);
}

/* \d \w \s \D \W \S at src[i] == '\\' (not consumed when it is not one): writes the class
 * (inside a [...] when in_class) and returns 1, 0 when it is something else. */
static int perl_class(struct tr *t, size_t *i, bool in_class)
{
	if (*i + 1 >= t->n)
		return 0;
	char c = t->src[*i + 1];
	const char *w = NULL;
	switch (c) {
	case 'd': w = "\\d"; break;
	case 'D': w = "\\D"; break;
	case 'w': w = "\\w"; break;
	case 'W': w = "\\W"; break;
	case 's': w = in_class ? "\\x{9}\\x{a}\\x{c}\\x{d}\\x{20}" : "[\\x{9}\\x{a}\\x{c}\\x{d}\\x{20}]"; break;
	/* In a class, PCRE2's \S leaves out U+000B (its \s has it, Go's has not): add it back. */
	case 'S': w = in_class ? "\\S\\x{b}" : "[^\\x{9}\\x{a}\\x{c}\\x{d}\\x{20}]"; break;
	default: return 0;
	}
	*i += 2;
	return puts_(t, w) ? 1 : -1;
}

/* \pN, \p{Name}, \PN, \P{Name}, \p{^Name} at src[i] == '\\': 1 written, 0 not one, -1 error. */
static int unicode_class(struct tr *t, size_t *i)
{
	if (*i + 1 >= t->n || (t->src[*i + 1] != 'p' && t->src[*i + 1] != 'P'))
		return 0;
	size_t start = *i, j = *i + 2;
	bool neg = t->src[*i + 1] == 'P';
	if (j >= t->n)
		return fail(t, "invalid character class range", t->src + start, j - start) ? 0 : -1;
	const char *name;
	size_t nlen;
	if (t->src[j] == '{') {
		const char *e = memchr(t->src + j, '}', t->n - j);
		if (!e)
			return fail(t, "invalid character class range", t->src + start, t->n - start) ? 0 : -1;
		name = t->src + j + 1;
		nlen = (size_t)(e - name);
		j = (size_t)(e - t->src) + 1;
	} else {
		size_t k = j;
		if (next_rune(t, &k) < 0)
			return fail(t, "invalid UTF-8", t->src + start, t->n - start) ? 0 : -1;
		name = t->src + j;
		nlen = k - j;
		j = k;
	}
	if (nlen > 0 && name[0] == '^') {
		neg = !neg;
		name++, nlen--;
	}
	bool ok = nlen > 0;
	for (size_t k = 0; k < nlen && ok; k++)
		ok = is_alnum(name[k]) || name[k] == '_';
	if (!ok)
		return fail(t, "invalid character class range", t->src + start, j - start) ? 0 : -1;
	if (t->nprops < ARRAY_SIZE(t->props)) {
		t->props[t->nprops][0] = start;
		t->props[t->nprops][1] = j - start;
		t->nprops++;
	}
	*i = j;
	if (!puts_(t, neg ? "\\P{" : "\\p{") || !put(t, name, nlen) || !puts_(t, "}"))
		return -1;
	return 1;
}

static const char *const posix_names[] = {
	"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower",
	"print", "punct", "space", "upper", "word", "xdigit",
};

/* [:alpha:] / [:^alpha:] at src[i] == '[': 1 written, 0 not one, -1 error. */
static int posix_class(struct tr *t, size_t *i)
{
	if (*i + 2 >= t->n || t->src[*i + 1] != ':')
		return 0;
	const char *e = NULL;
	for (size_t k = *i + 2; k + 1 < t->n; k++)
		if (t->src[k] == ':' && t->src[k + 1] == ']') {
			e = t->src + k;
			break;
		}
	if (!e)
		return 0;
	const char *name = t->src + *i + 2;
	size_t nlen = (size_t)(e - name);
	bool neg = nlen > 0 && name[0] == '^';
	const char *bare = neg ? name + 1 : name;
	size_t blen = neg ? nlen - 1 : nlen;
	for (size_t k = 0; k < ARRAY_SIZE(posix_names); k++)
		if (strlen(posix_names[k]) == blen && memcmp(posix_names[k], bare, blen) == 0) {
			size_t total = (size_t)(e + 2 - (t->src + *i));
			if (!put(t, t->src + *i, total))
				return -1;
			*i += total;
			return 1;
		}
	return fail(t, "invalid character class range", t->src + *i, (size_t)(e + 2 - (t->src + *i))) ? 0 : -1;
}

/* parseClass at src[i] == '['. */
static bool parse_class(struct tr *t, size_t *i)
{
	size_t start = *i, j = *i + 1;
	if (!puts_(t, "["))
		return false;
	if (j < t->n && t->src[j] == '^') {
		j++;
		if (!puts_(t, "^"))
			return false;
	}
	bool first = true;
	while (j >= t->n || t->src[j] != ']' || first) {
		if (j >= t->n)
			return fail(t, "missing closing ]", t->src + start, t->n - start);
		first = false;
		size_t item = j;
		if (t->src[j] == '[') {
			int rc = posix_class(t, &j);
			if (rc < 0)
				return false;
			if (rc > 0)
				continue;
		}
		if (t->src[j] == '\\') {
			int rc = unicode_class(t, &j);
			if (rc < 0)
				return false;
			if (rc > 0)
				continue;
			rc = perl_class(t, &j, true);
			if (rc < 0)
				return false;
			if (rc > 0)
				continue;
		}
		/* a single character or a range lo-hi */
		uint32_t lo, hi;
		if (t->src[j] == '\\') {
			if (!parse_escape(t, &j, &lo))
				return false;
		} else {
			int32_t c = next_rune(t, &j);
			if (c < 0)
				return fail(t, "invalid UTF-8", t->src + item, t->n - item);
			lo = (uint32_t)c;
		}
		hi = lo;
		if (j + 1 < t->n && t->src[j] == '-' && t->src[j + 1] != ']') {
			j++;
			if (t->src[j] == '\\') {
				if (!parse_escape(t, &j, &hi))
					return false;
			} else {
				int32_t c = next_rune(t, &j);
				if (c < 0)
					return fail(t, "invalid UTF-8", t->src + item, t->n - item);
				hi = (uint32_t)c;
			}
			if (hi < lo)
				return fail(t, "invalid character class range", t->src + item, j - item);
		}
		if (!put_rune(t, lo))
			return false;
		if (hi != lo && (!puts_(t, "-") || !put_rune(t, hi)))
			return false;
	}
	*i = j + 1;
	return puts_(t, "]");
}

/* parseRepeat: {n}, {n,}, {n,m} at src[i] == '{'; false when it is not one (then '{' is a literal).
 * -1 for a number too large. */
static bool parse_int(const char *s, size_t n, size_t *i, long *v)
{
	size_t k = *i;
	if (k >= n || s[k] < '0' || s[k] > '9')
		return false;
	if (n - k >= 2 && s[k] == '0' && s[k + 1] >= '0' && s[k + 1] <= '9')
		return false; /* Go disallows leading zeros */
	long x = 0;
	while (k < n && s[k] >= '0' && s[k] <= '9') {
		if (x >= 100000000)
			x = -1;
		else if (x >= 0)
			x = x * 10 + (s[k] - '0');
		k++;
	}
	*i = k;
	*v = x;
	return true;
}

static bool parse_repeat(const struct tr *t, size_t i, long *min, long *max, size_t *after)
{
	size_t k = i + 1;
	if (!parse_int(t->src, t->n, &k, min))
		return false;
	if (k >= t->n)
		return false;
	if (t->src[k] == ',') {
		k++;
		if (k >= t->n)
			return false;
		if (t->src[k] == '}')
			*max = -1;
		else if (!parse_int(t->src, t->n, &k, max) || *max < 0)
			return false;
	} else {
		*max = *min;
	}
	if (k >= t->n || t->src[k] != '}')
		return false;
	*after = k + 1;
	return true;
}

static bool translate(struct tr *t)
{
	size_t i = 0;
	int depth = 0;
	/* can_repeat: the last item is something a repetition applies to (Go: the stack top is
	 * not a '(' or '|' pseudo-op); last_repeat: start of the previous repetition operator,
	 * or SIZE_MAX */
	bool can_repeat = false;
	size_t last_repeat = SIZE_MAX;
	/* Go's (?m) state, scoped by groups: ^ and $ are written out explicitly for it (PCRE2's
	 * DFA matcher does not honour an inline (?m) for them) */
	bool mline = false;
	bool mstack[RE_MAX_NEST + 2];
	while (i < t->n) {
		size_t this_repeat = SIZE_MAX;
		char c = t->src[i];
		bool is_repeat = c == '*' || c == '+' || c == '?';
		if (c == '{') {
			long mn, mx;
			size_t af;
			is_repeat = parse_repeat(t, i, &mn, &mx, &af);
		}
		if (t->flags_len && !is_repeat) {
			if (!put(t, t->src + t->flags_at, t->flags_len))
				return false;
			t->flags_len = 0;
		}
		switch (c) {
		case '(':
			if (i + 1 < t->n && t->src[i + 1] == '?') {
				size_t s = i, j = i + 2;
				bool with_p = t->n - i > 4 && t->src[i + 2] == 'P' && t->src[i + 3] == '<';
				bool with_name = t->n - i > 3 && t->src[i + 2] == '<';
				if (with_p || with_name) {
					const char *e = memchr(t->src + i, '>', t->n - i);
					if (!e)
						return fail(t, "invalid named capture", t->src + s, t->n - s);
					size_t ns = i + (with_p ? 4 : 3), ne = (size_t)(e - t->src);
					bool ok = ne > ns;
					for (size_t k = ns; k < ne && ok; k++)
						ok = is_alnum(t->src[k]) || t->src[k] == '_';
					if (!ok)
						return fail(t, "invalid named capture", t->src + s, ne + 1 - s);
					if (depth + 1 > RE_MAX_NEST)
						return fail(t, "expression nests too deeply", t->src, t->n);
					mstack[depth++] = mline;
					if (!puts_(t, "(?<") || !put(t, t->src + ns, ne - ns) || !puts_(t, ">"))
						return false;
					i = ne + 1;
					can_repeat = false;
					break;
				}
				/* flags: (?flags) or (?flags:re) */
				int sign = 1;
				bool saw = false;
				bool new_m = mline;
				for (;;) {
					if (j >= t->n)
						return fail(t, "invalid or unsupported Perl syntax", t->src + s, j - s);
					int32_t f = next_rune(t, &j);
					if (f == 'i' || f == 'm' || f == 's' || f == 'U') {
						if (f == 'm')
							new_m = sign > 0;
						saw = true;
						continue;
					}
					if (f == '-') {
						if (sign < 0)
							return fail(t, "invalid or unsupported Perl syntax", t->src + s, j - s);
						sign = -1;
						saw = false;
						continue;
					}
					if (f == ':' || f == ')') {
						if (sign < 0 && !saw)
							return fail(t, "invalid or unsupported Perl syntax", t->src + s, j - s);
						break;
					}
					return fail(t, "invalid or unsupported Perl syntax", t->src + s, j - s);
				}
				if (t->src[j - 1] == ':') {
					if (!put(t, t->src + s, j - s))
						return false;
					if (depth + 1 > RE_MAX_NEST)
						return fail(t, "expression nests too deeply", t->src, t->n);
					mstack[depth++] = mline;
					mline = new_m;
					can_repeat = false;
				} else {
					mline = new_m;
					t->flags_at = s; /* written before the next item */
					t->flags_len = j - s;
				}
				/* a flag group (?i) leaves the previous item repeatable, as in Go */
				i = j;
				break;
			}
			if (depth + 1 > RE_MAX_NEST)
				return fail(t, "expression nests too deeply", t->src, t->n);
			mstack[depth++] = mline;
			if (!puts_(t, "("))
				return false;
			i++;
			can_repeat = false;
			break;
		case ')':
			if (depth == 0)
				return fail(t, "unexpected )", t->src, t->n);
			mline = mstack[--depth];
			if (!puts_(t, ")"))
				return false;
			i++;
			can_repeat = true;
			break;
		case '|':
			if (!puts_(t, "|"))
				return false;
			i++;
			can_repeat = false;
			break;
		case '^':
		case '$':
			/* grouped: Go lets a repetition follow an assertion (^*), PCRE2 only a group.
			 * Go: ^ is the text's start, or with (?m) also after any \n (one ending the
			 * text included); $ is the text's end, or with (?m) also before any \n. */
			if (c == '^' && !puts_(t, mline ? "(?:\\A|(?<=\\n))" : "(?:\\A)"))
				return false;
			if (c == '$' && !puts_(t, mline ? "(?:(?=\\n)|\\z)" : "(?:\\z)"))
				return false;
			i++;
			can_repeat = true;
			break;
		case '.':
			if (!put(t, &c, 1))
				return false;
			i++;
			can_repeat = true;
			break;
		case '[':
			if (!parse_class(t, &i))
				return false;
			can_repeat = true;
			break;
		case '*':
		case '+':
		case '?':
		case '{': {
			size_t after = i + 1;
			long min = 0, max = 0;
			if (c == '{') {
				if (!parse_repeat(t, i, &min, &max, &after)) {
					if (!puts_(t, "\\{"))
						return false;
					i++;
					can_repeat = true;
					break;
				}
			}
			bool lazy = after < t->n && t->src[after] == '?';
			size_t end = after + (lazy ? 1 : 0);
			if (c == '{' && (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)))
				return fail(t, "invalid repeat count", t->src + i, after - i);
			if (last_repeat != SIZE_MAX)
				return fail(t, "invalid nested repetition operator", t->src + last_repeat, end - last_repeat);
			if (!can_repeat)
				return fail(t, "missing argument to repetition operator", t->src + i, end - i);
			if (!put(t, t->src + i, end - i))
				return false;
			this_repeat = i;
			i = end;
			break;
		}
		case '\\': {
			if (i + 1 < t->n) {
				char e = t->src[i + 1];
				const char *w = NULL;
				switch (e) {
				case 'A': w = "(?:\\A)"; break; /* grouped, as ^ */
				case 'b': w = "(?:\\b)"; break;
				case 'B': w = "(?:\\B)"; break;
				case 'z': w = "(?:\\z)"; break;
				case 'C': return fail(t, "invalid escape sequence", t->src + i, 2);
				case 'Q': {
					size_t q = i + 2;
					const char *end = NULL;
					for (size_t k = q; k + 1 < t->n; k++)
						if (t->src[k] == '\\' && t->src[k + 1] == 'E') {
							end = t->src + k;
							break;
						}
					size_t qe = end ? (size_t)(end - t->src) : t->n;
					while (q < qe) {
						int32_t r = next_rune(t, &q);
						if (r < 0)
							return fail(t, "invalid UTF-8", t->src + i, t->n - i);
						if (!put_rune(t, (uint32_t)r))
							return false;
						can_repeat = true;
					}
					i = end ? qe + 2 : qe;
					goto next;
				}
				}
				if (w) {
					if (!puts_(t, w))
						return false;
					i += 2;
					can_repeat = true; /* Go: assertions are not pseudo-ops */
					break;
				}
			}
			int rc = unicode_class(t, &i);
			if (rc < 0)
				return false;
			if (rc == 0)
				rc = perl_class(t, &i, false);
			if (rc < 0)
				return false;
			if (rc == 0) {
				uint32_t r;
				if (!parse_escape(t, &i, &r) || !put_rune(t, r))
					return false;
			}
			can_repeat = true;
			break;
		}
		default: {
			size_t j = i;
			int32_t r = next_rune(t, &j);
			if (r < 0)
				return fail(t, "invalid UTF-8", t->src + i, t->n - i);
			if (!put_rune(t, (uint32_t)r))
				return false;
			i = j;
			can_repeat = true;
		}
		}
	next:
		last_repeat = this_repeat;
	}
	if (depth > 0)
		return fail(t, "missing closing )", t->src, t->n);
	if (t->flags_len && !put(t, t->src + t->flags_at, t->flags_len))
		return false;
	return puts_(t, ""); /* an empty pattern still gets its NUL */
}

/* ---- compiling ---- */

/* Which \p escape PCRE2 does not know: Go's "invalid character class range: `\p{Foo}`". */
static bool unknown_property(const struct tr *t, pcre2_general_context *gc, char *err, size_t errcap)
{
	for (size_t k = 0; k < t->nprops; k++) {
		struct tr one = { .src = t->src + t->props[k][0], .n = t->props[k][1] };
		bool bad = true;
		if (translate(&one)) {
			int ec;
			PCRE2_SIZE eo;
			pcre2_code *c = pcre2_compile((PCRE2_SPTR)one.out, one.len, PCRE2_UTF, &ec, &eo, NULL);
			bad = c == NULL;
			pcre2_code_free(c);
		}
		free(one.out);
		if (bad) {
			snprintf(err, errcap, "error parsing regexp: invalid character class range: `%.*s`",
				 (int)t->props[k][1], t->src + t->props[k][0]);
			return true;
		}
	}
	(void)gc;
	return false;
}

/* A compiled pattern, or the error message (the arena's or static). */
static pcre2_code *re_compile(const char *pat, size_t n, pcre2_general_context *gc, char *err, size_t errcap,
			      bool *oom)
{
	struct tr t = { .src = pat, .n = n };
	pcre2_code *code = NULL;
	pcre2_compile_context *cc = NULL;
	*oom = false;
	if (!translate(&t)) {
		if (t.oom)
			*oom = true;
		else
			snprintf(err, errcap, "%s", t.err);
		goto out;
	}
	cc = pcre2_compile_context_create(gc);
	if (!cc) {
		*oom = true;
		goto out;
	}
	pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
	int ec;
	PCRE2_SIZE eo;
	code = pcre2_compile((PCRE2_SPTR)t.out, t.len, PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C | PCRE2_DUPNAMES, &ec, &eo,
			     cc);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		if (ec == PCRE2_ERROR_NOMEMORY)
			*oom = true;
		else if (ec == PCRE2_ERROR_UNKNOWN_UNICODE_PROPERTY && unknown_property(&t, gc, err, errcap))
			; /* Go names the escape */
		else /* what the translation let through and PCRE2 refuses */
			snprintf(err, errcap, "error parsing regexp: %s: `%.*s`", (const char *)msg, (int)n, pat);
	}
out:
	pcre2_compile_context_free(cc);
	free(t.out);
	return code;
}

static void *re_arena_malloc(PCRE2_SIZE n, void *data) { return cel_alloc((struct cel_eval *)data, n); }
static void re_arena_free(void *p, void *data) { (void)p, (void)data; }

/* The compiled pattern of a call: prepare()'s, or compiled now in the arena (err set on a bad
 * pattern; NULL and no err on out of memory). */
static const pcre2_code *call_code(struct cel_eval *ev, cel_value pat, char *err, size_t errcap)
{
	const pcre2_code *code = cel_call_data(ev);
	if (code)
		return code;
	pcre2_general_context *gc = pcre2_general_context_create(re_arena_malloc, re_arena_free, ev);
	if (!gc)
		return NULL;
	bool oom;
	return re_compile(pat.s, pat.n, gc, err, errcap, &oom);
}

static int prepare(const cel_value *const *consts, size_t n, void **data, struct err *e)
{
	if (n < 2 || !consts[1] || consts[1]->kind != CEL_STRING)
		return 0;
	char msg[600] = "";
	bool oom;
	pcre2_code *code = re_compile(consts[1]->s, consts[1]->n, NULL, msg, sizeof(msg), &oom);
	if (!code) {
		if (oom)
			return err_set(e, ERR_NOMEM, "regex: out of memory");
		return err_set(e, ERR_INVALID, "%s", msg);
	}
	*data = code;
	return 0;
}

static void free_code(void *data) { pcre2_code_free(data); }

/* ---- matching ---- */

struct matcher {
	const pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	struct cel_eval *ev;
};

/* The match limits, one read-only context for every call and thread (made once). */
static pcre2_match_context *limits_ctx;
static pthread_once_t limits_once = PTHREAD_ONCE_INIT;

static void make_limits(void)
{
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	if (!mc)
		return;
	pcre2_set_match_limit(mc, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(mc, RE_HEAP_LIMIT_KIB);
	limits_ctx = mc;
}

static pcre2_match_context *shared_match_context(void)
{
	pthread_once(&limits_once, make_limits);
	return limits_ctx;
}

/* 0 ready, CEL_NOMEM, or 1 with *out set to the pattern's error. */
static int matcher_init(struct cel_eval *ev, cel_value pat, struct matcher *m, const char *prefix, cel_value *out)
{
	char err[600] = "";
	m->code = call_code(ev, pat, err, sizeof(err));
	if (!m->code) {
		if (!err[0])
			return CEL_NOMEM;
		int rc = cel_error(ev, out, "%s%s", prefix, err);
		return rc ? rc : 1;
	}
	/* Match data from malloc, freed by matcher_release: PCRE2 keeps its backtracking frames
	 * (20 KiB to start) there, which the arena would zero on every call. */
	m->md = pcre2_match_data_create_from_pattern(m->code, NULL);
	m->mc = shared_match_context();
	m->ev = ev;
	if (!m->md || !m->mc) {
		pcre2_match_data_free(m->md);
		m->md = NULL;
		return CEL_NOMEM;
	}
	return 0;
}

static void matcher_release(struct matcher *m) { pcre2_match_data_free(m->md); }

/* 1 matched (span in *b, *e), 0 no match, or <0: a PCRE2 error code. */
/* The DFA matcher (no backtracking) from start: 1 and the leftmost position a match starts at,
 * 0 none, 2 when it cannot run the pattern (then the caller backtracks from start), <0 error. */
static int dfa_at(struct matcher *m, cel_value s, size_t start, size_t *at)
{
	/* the workspace: a small one on the stack (not zeroed: PCRE2 does not need it), a large
	 * one from the arena when a pattern needs more */
	int small[RE_DFA_SMALL];
	int rc = pcre2_dfa_match(m->code, (PCRE2_SPTR)s.s, s.n, start, 0, m->md, m->mc, small, RE_DFA_SMALL);
	if (rc == PCRE2_ERROR_DFA_WSSIZE) {
		int *ws = cel_alloc(m->ev, RE_DFA_WORKSPACE * sizeof(int));
		if (!ws)
			return PCRE2_ERROR_NOMEMORY;
		rc = pcre2_dfa_match(m->code, (PCRE2_SPTR)s.s, s.n, start, 0, m->md, m->mc, ws, RE_DFA_WORKSPACE);
	}
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc == PCRE2_ERROR_DFA_WSSIZE || rc == PCRE2_ERROR_DFA_RECURSE || rc == PCRE2_ERROR_DFA_UITEM ||
	    rc == PCRE2_ERROR_DFA_UCOND)
		return 2;
	if (rc < 0)
		return rc;
	*at = pcre2_get_ovector_pointer(m->md)[0];
	return 1;
}

/* The leftmost-first match from start. The DFA matcher first says whether there is one and
 * where the leftmost starts (a pattern that fails, the backtracking worst case, never
 * backtracks); the backtracking matcher then picks, from that position, the match Go picks. */
static int match_at(struct matcher *m, cel_value s, size_t start, size_t *b, size_t *e)
{
	size_t at = start;
	int rc = dfa_at(m, s, start, &at);
	if (rc == 0 || rc < 0)
		return rc;
	rc = pcre2_match(m->code, (PCRE2_SPTR)s.s, s.n, at, 0, m->md, m->mc);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0)
		return rc;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
	*b = ov[0];
	*e = ov[1];
	return 1;
}

static int match_error(struct cel_eval *ev, int rc, cel_value *out)
{
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
		return cel_error(ev, out, "regular expression match limit exceeded");
	if (rc == PCRE2_ERROR_NOMEMORY)
		return CEL_NOMEM;
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(rc, msg, sizeof(msg));
	return cel_error(ev, out, "regular expression match failed: %s", (const char *)msg);
}

static int do_matches(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out, struct matcher *mp)
{
	(void)n;
	struct matcher m = *mp;
	int rc;
	/* Whether there is a match does not depend on which match a backtracking engine would
	 * report: the DFA matcher alone answers (a pattern it cannot run backtracks) */
	size_t at, b, e;
	rc = dfa_at(&m, a[0], 0, &at);
	if (rc == 2)
		rc = match_at(&m, a[0], 0, &b, &e);
	if (rc < 0)
		return match_error(ev, rc, out);
	*out = cel_bool(rc == 1);
	return 0;
}

static int do_find(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out, struct matcher *mp)
{
	(void)n;
	struct matcher m = *mp;
	int rc;
	size_t b, e;
	rc = match_at(&m, a[0], 0, &b, &e);
	if (rc < 0)
		return match_error(ev, rc, out);
	*out = rc == 1 ? cel_string(a[0].s + b, e - b) : cel_string("", 0);
	return 0;
}

/* regexp.FindAllString(s, n): n < 0 all; an empty match right after the previous match is
 * skipped; after an empty match the search moves on one code point. */
static int do_find_all(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out, struct matcher *mp)
{
	struct matcher m = *mp;
	int rc;
	cel_value s = a[0];
	int64_t limit = n > 2 ? a[2].i : -1;
	if (limit < 0)
		limit = (int64_t)s.n + 1;
	size_t cap = 8, cnt = 0;
	cel_value *items = limit > 0 ? cel_alloc(ev, cap * sizeof(cel_value)) : NULL;
	if (limit > 0 && !items)
		return CEL_NOMEM;
	size_t pos = 0;
	size_t prev_end = SIZE_MAX;
	while ((int64_t)cnt < limit && pos <= s.n) {
		size_t b, e;
		rc = match_at(&m, s, pos, &b, &e);
		if (rc < 0)
			return match_error(ev, rc, out);
		if (rc == 0)
			break;
		bool accept = true;
		if (e == b) {
			if (b == prev_end)
				accept = false;
			if (e < s.n) {
				size_t k = e;
				if (cel_utf8_next(s.s, s.n, &k) < 0)
					k = e + 1;
				pos = k;
			} else {
				pos = s.n + 1;
			}
		} else {
			pos = e;
		}
		prev_end = e;
		if (accept) {
			if (cnt == cap) {
				cel_value *bigger = cel_alloc(ev, 2 * cap * sizeof(cel_value));
				if (!bigger)
					return CEL_NOMEM;
				memcpy(bigger, items, cnt * sizeof(cel_value));
				items = bigger;
				cap *= 2;
			}
			items[cnt++] = cel_string(s.s + b, e - b);
		}
	}
	struct cel_list *l = cel_new_list(ev, cnt);
	if (!l)
		return CEL_NOMEM;
	if (cnt)
		memcpy(l->items, items, cnt * sizeof(cel_value));
	*out = (cel_value){ .kind = CEL_LIST };
	out->list = l;
	return 0;
}

/* Each entry point: the matcher around the work, its match data freed on every path. */
typedef int (*re_work)(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out, struct matcher *m);

static int with_matcher(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out, const char *prefix,
			re_work work)
{
	struct matcher m;
	int rc = matcher_init(ev, a[1], &m, prefix, out);
	if (rc)
		return rc > 0 ? 0 : rc;
	rc = work(ev, a, n, out, &m);
	matcher_release(&m);
	return rc;
}

static int fn_matches(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	return with_matcher(ev, a, n, out, "", do_matches);
}

static int fn_find(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	return with_matcher(ev, a, n, out, "Illegal regex: ", do_find);
}

static int fn_find_all(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	return with_matcher(ev, a, n, out, "Illegal regex: ", do_find_all);
}

/* cel-go runtimecost.go (matches) and Kubernetes' CostEstimator (find, findAll): the same
 * formula, ceil(0.1 * (1 + size(string))) * ceil(0.25 * size(regex)). */
static uint64_t cost_regex(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	uint64_t s = (uint64_t)ceil((1.0 + (double)cel_utf8_count(a[0].s, a[0].n)) * 0.1);
	uint64_t p = (uint64_t)ceil((double)cel_utf8_count(a[1].s, a[1].n) * 0.25);
	return s * p;
}

#define S { CEL_STRING, NULL }
#define I { CEL_INT, NULL }

static const struct cel_overload regex_overloads[] = {
	{ "matches", "matches", CEL_OV_GLOBAL, 2, { S, S }, fn_matches, prepare, free_code, cost_regex },
	{ "matches_string", "matches", CEL_OV_RECEIVER, 2, { S, S }, fn_matches, prepare, free_code, cost_regex },
	{ "string_find_string", "find", CEL_OV_RECEIVER, 2, { S, S }, fn_find, prepare, free_code, cost_regex },
	{ "string_find_all_string", "findAll", CEL_OV_RECEIVER, 2, { S, S }, fn_find_all, prepare, free_code,
	  cost_regex },
	{ "string_find_all_string_int", "findAll", CEL_OV_RECEIVER, 3, { S, S, I }, fn_find_all, prepare, free_code,
	  cost_regex },
};

int cel_lib_regex_register(struct cel_env *env, struct err *e)
{
	return cel_env_add_overloads(env, regex_overloads, ARRAY_SIZE(regex_overloads), e);
}
