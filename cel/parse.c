/* The CEL parser (cel-spec langdef.md "Syntax"; cel-go parser/): a hand-written lexer and a
 * recursive-descent parser for the grammar
 *
 *   Expr           = ConditionalOr ["?" ConditionalOr ":" Expr] ;
 *   ConditionalOr  = [ConditionalOr "||"] ConditionalAnd ;
 *   ConditionalAnd = [ConditionalAnd "&&"] Relation ;
 *   Relation       = [Relation Relop] Addition ;        Relop = < <= >= > == != in
 *   Addition       = [Addition ("+" | "-")] Multiplication ;
 *   Multiplication = [Multiplication ("*" | "/" | "%")] Unary ;
 *   Unary          = Member | "!" {"!"} Member | "-" {"-"} Member ;
 *   Member         = Primary | Member "." ["?"] SELECTOR ["(" [ExprList] ")"]
 *                  | Member "[" ["?"] Expr "]" ;
 *   Primary        = ["."] IDENT ["(" [ExprList] ")"] | "(" Expr ")"
 *                  | "[" [ListElems] [","] "]" | "{" [MapInits] [","] "}"
 *                  | ["."] SELECTOR {"." SELECTOR} "{" [FieldInits] [","] "}" | LITERAL ;
 *
 * with the macros (has, all, exists, exists_one, map, filter, the two-variable comprehensions,
 * optMap/optFlatMap, cel.bind) expanded here as cel-go's parser does. An even number of '!' or
 * '-' cancels out (cel-go VisitLogicalNot/VisitNegate); a '-' directly before a numeric literal
 * is part of the literal, so -9223372036854775808 is an int. Nesting is limited to 250 levels
 * (cel-go's default maxRecursionDepth) so that no input can exhaust the stack. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "eval_internal.h"

#define MAX_DEPTH 250
#define MAX_ARGS 4096

enum tok {
	T_EOF, T_INT, T_UINT, T_DOUBLE, T_STRING, T_BYTES, T_IDENT, T_TRUE, T_FALSE, T_NULL, T_IN,
	T_QUESTION, T_COLON, T_OR, T_AND, T_NOT, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_PLUS, T_MINUS,
	T_STAR, T_SLASH, T_PERCENT, T_DOT, T_COMMA, T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET,
	T_LBRACE, T_RBRACE, T_QUOTED_IDENT, T_ERROR
};

struct token {
	enum tok t;
	size_t pos, len;
};

struct parser {
	struct arena *a;
	const char *src;
	size_t n;
	size_t pos; /* lexer position */
	struct token tok; /* current token */
	bool macros;
	int depth;
	struct err *e;
	bool failed;
};

static void line_col(const char *src, size_t pos, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < pos && src[i]; i++) {
		if (src[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)src[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

static void *fail_at(struct parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void *fail_at(struct parser *p, size_t pos, const char *fmt, ...)
{
	if (p->failed)
		return NULL;
	p->failed = true;
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int line, col;
	line_col(p->src, pos, &line, &col);
	err_set(p->e, ERR_INVALID, "%d:%d: %s", line, col, msg);
	return NULL;
}

/* ---- lexer ---- */

static bool is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static void skip_space(struct parser *p)
{
	for (;;) {
		while (p->pos < p->n && (p->src[p->pos] == ' ' || p->src[p->pos] == '\t' || p->src[p->pos] == '\n' ||
					 p->src[p->pos] == '\r' || p->src[p->pos] == '\f'))
			p->pos++;
		if (p->pos + 1 < p->n && p->src[p->pos] == '/' && p->src[p->pos + 1] == '/') {
			while (p->pos < p->n && p->src[p->pos] != '\n')
				p->pos++;
			continue;
		}
		return;
	}
}

/* Length of a string literal's body starting at the quote at s[i] (triple or single); 0 when
 * unterminated. */
static size_t lex_quoted(struct parser *p, size_t i, bool raw)
{
	const char *s = p->src;
	char q = s[i];
	bool triple = i + 2 < p->n && s[i + 1] == q && s[i + 2] == q;
	size_t j = i + (triple ? 3 : 1);
	while (j < p->n) {
		char c = s[j];
		if (c == '\\' && !raw) {
			j += 2;
			continue;
		}
		if (triple) {
			if (c == q && j + 2 < p->n && s[j + 1] == q && s[j + 2] == q)
				return j + 3 - i;
		} else {
			if (c == '\n' || c == '\r')
				return 0;
			if (c == q)
				return j + 1 - i;
		}
		j++;
	}
	return 0;
}

static void next(struct parser *p)
{
	skip_space(p);
	struct token t = { T_EOF, p->pos, 0 };
	const char *s = p->src;
	size_t i = p->pos;
	if (i >= p->n) {
		p->tok = t;
		return;
	}
	char c = s[i];
	/* string and bytes literals, with r/b prefixes in either order */
	{
		size_t k = i;
		bool raw = false, bytes = false;
		for (int m = 0; m < 2 && k < p->n; m++) {
			if ((s[k] == 'r' || s[k] == 'R') && !raw)
				raw = true, k++;
			else if ((s[k] == 'b' || s[k] == 'B') && !bytes)
				bytes = true, k++;
			else
				break;
		}
		if (k < p->n && (s[k] == '"' || s[k] == '\'')) {
			size_t len = lex_quoted(p, k, raw);
			if (!len) {
				t.t = T_ERROR;
				t.len = 1;
				p->tok = t;
				return;
			}
			t.t = bytes ? T_BYTES : T_STRING;
			t.len = k - i + len;
			p->pos = i + t.len;
			p->tok = t;
			return;
		}
	}
	if (is_ident_start(c)) {
		size_t j = i;
		while (j < p->n && (is_ident_start(s[j]) || is_digit(s[j])))
			j++;
		t.len = j - i;
		t.t = T_IDENT;
		if (t.len == 4 && !memcmp(s + i, "true", 4))
			t.t = T_TRUE;
		else if (t.len == 5 && !memcmp(s + i, "false", 5))
			t.t = T_FALSE;
		else if (t.len == 4 && !memcmp(s + i, "null", 4))
			t.t = T_NULL;
		else if (t.len == 2 && !memcmp(s + i, "in", 2))
			t.t = T_IN;
		p->pos = j;
		p->tok = t;
		return;
	}
	if (is_digit(c) || (c == '.' && i + 1 < p->n && is_digit(s[i + 1]))) {
		size_t j = i;
		bool dbl = false;
		if (c == '0' && j + 1 < p->n && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
			j += 2;
			while (j < p->n && is_hex(s[j]))
				j++;
		} else {
			while (j < p->n && is_digit(s[j]))
				j++;
			if (j + 1 < p->n && s[j] == '.' && is_digit(s[j + 1])) {
				dbl = true;
				j++;
				while (j < p->n && is_digit(s[j]))
					j++;
			}
			if (j < p->n && (s[j] == 'e' || s[j] == 'E')) {
				size_t k = j + 1;
				if (k < p->n && (s[k] == '+' || s[k] == '-'))
					k++;
				if (k < p->n && is_digit(s[k])) {
					dbl = true;
					while (k < p->n && is_digit(s[k]))
						k++;
					j = k;
				}
			}
		}
		t.t = dbl ? T_DOUBLE : T_INT;
		if (!dbl && j < p->n && (s[j] == 'u' || s[j] == 'U')) {
			t.t = T_UINT;
			j++;
		}
		t.len = j - i;
		p->pos = j;
		p->tok = t;
		return;
	}
	if (c == '`') {
		/* a backtick-quoted field name (cel-spec "quoted field names"): letters, digits, '_',
		 * '.', '-', '/' and ' ' */
		size_t j = i + 1;
		while (j < p->n && s[j] != '`' && (is_ident_start(s[j]) || is_digit(s[j]) || s[j] == '.' ||
						    s[j] == '-' || s[j] == '/' || s[j] == ' '))
			j++;
		if (j < p->n && s[j] == '`' && j > i + 1) {
			t.t = T_QUOTED_IDENT;
			t.len = j + 1 - i;
			p->pos = j + 1;
			p->tok = t;
			return;
		}
	}
	t.len = 1;
	char d = i + 1 < p->n ? s[i + 1] : '\0';
	switch (c) {
	case '?': t.t = T_QUESTION; break;
	case ':': t.t = T_COLON; break;
	case '|': if (d == '|') { t.t = T_OR; t.len = 2; } else t.t = T_ERROR; break;
	case '&': if (d == '&') { t.t = T_AND; t.len = 2; } else t.t = T_ERROR; break;
	case '!': if (d == '=') { t.t = T_NE; t.len = 2; } else t.t = T_NOT; break;
	case '=': if (d == '=') { t.t = T_EQ; t.len = 2; } else t.t = T_ERROR; break;
	case '<': if (d == '=') { t.t = T_LE; t.len = 2; } else t.t = T_LT; break;
	case '>': if (d == '=') { t.t = T_GE; t.len = 2; } else t.t = T_GT; break;
	case '+': t.t = T_PLUS; break;
	case '-': t.t = T_MINUS; break;
	case '*': t.t = T_STAR; break;
	case '/': t.t = T_SLASH; break;
	case '%': t.t = T_PERCENT; break;
	case '.': t.t = T_DOT; break;
	case ',': t.t = T_COMMA; break;
	case '(': t.t = T_LPAREN; break;
	case ')': t.t = T_RPAREN; break;
	case '[': t.t = T_LBRACKET; break;
	case ']': t.t = T_RBRACKET; break;
	case '{': t.t = T_LBRACE; break;
	case '}': t.t = T_RBRACE; break;
	default: t.t = T_ERROR; break;
	}
	p->pos = i + t.len;
	p->tok = t;
}

static const char *tok_text(struct parser *p, char *buf, size_t cap)
{
	if (p->tok.t == T_EOF)
		return "<EOF>";
	size_t n = p->tok.len < cap - 3 ? p->tok.len : cap - 3;
	snprintf(buf, cap, "'%.*s'", (int)n, p->src + p->tok.pos);
	return buf;
}

static void *syntax_error(struct parser *p, const char *what)
{
	char b[64];
	if (p->tok.t == T_ERROR)
		return fail_at(p, p->tok.pos, "Syntax error: token recognition error at: %s", tok_text(p, b, sizeof(b)));
	return fail_at(p, p->tok.pos, "Syntax error: %s %s", what, tok_text(p, b, sizeof(b)));
}

static bool expect(struct parser *p, enum tok t, const char *what)
{
	if (p->tok.t != t) {
		char m[64];
		snprintf(m, sizeof(m), "mismatched input, expecting %s:", what);
		syntax_error(p, m);
		return false;
	}
	next(p);
	return true;
}

/* ---- nodes ---- */

static struct cel_node *node(struct parser *p, enum cel_node_kind k, size_t pos, size_t nargs)
{
	struct cel_node *nd = arena_alloc(p->a, sizeof(*nd));
	if (!nd)
		return fail_at(p, pos, "out of memory");
	nd->kind = (uint8_t)k;
	nd->pos = (uint32_t)pos;
	nd->slot = -1;
	if (nargs) {
		nd->args = arena_alloc(p->a, nargs * sizeof(*nd->args));
		if (!nd->args)
			return fail_at(p, pos, "out of memory");
		nd->nargs = (uint16_t)nargs;
	}
	return nd;
}

static struct cel_node *node2(struct parser *p, enum cel_node_kind k, size_t pos, struct cel_node *a,
			      struct cel_node *b)
{
	struct cel_node *nd = node(p, k, pos, b ? 2 : 1);
	if (!nd)
		return NULL;
	nd->args[0] = a;
	if (b)
		nd->args[1] = b;
	return nd;
}

static char *dup_name(struct parser *p, const char *s, size_t n)
{
	char *r = arena_strndup(p->a, s, n);
	if (!r)
		fail_at(p, p->tok.pos, "out of memory");
	return r;
}

/* ---- literals ---- */

static struct cel_node *lit_number(struct parser *p, bool neg)
{
	struct token t = p->tok;
	char buf[400];
	if (t.len + 2 > sizeof(buf))
		return fail_at(p, t.pos, "invalid %s literal", t.t == T_DOUBLE ? "double" : "int");
	size_t k = 0;
	if (neg)
		buf[k++] = '-';
	memcpy(buf + k, p->src + t.pos, t.len);
	k += t.len;
	buf[k] = '\0';
	struct cel_node *nd = node(p, CEL_N_CONST, t.pos, 0);
	if (!nd)
		return NULL;
	char *end;
	errno = 0;
	if (t.t == T_DOUBLE) {
		nd->val = cel_double(strtod(buf, &end));
		if (*end)
			return fail_at(p, t.pos, "invalid double literal");
	} else if (t.t == T_UINT) {
		buf[k - 1] = '\0';
		const char *d = buf;
		int base = 10;
		if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
			d += 2;
			base = 16;
		}
		unsigned long long v = strtoull(d, &end, base);
		if (*end || errno || !*d)
			return fail_at(p, t.pos, "invalid uint literal");
		nd->val = cel_uint(v);
	} else {
		const char *d = buf + (neg ? 1 : 0);
		int base = 10;
		if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) {
			d += 2;
			base = 16;
		}
		/* strconv.ParseInt(sign + digits, base, 64) */
		unsigned long long v = strtoull(d, &end, base);
		if (*end || errno || !*d || d[0] == '-' || d[0] == '+' || (!neg && v > INT64_MAX) ||
		    (neg && v > (unsigned long long)INT64_MAX + 1))
			return fail_at(p, t.pos, "invalid int literal");
		nd->val = cel_int(neg ? (int64_t)(0 - v) : (int64_t)v);
	}
	next(p);
	return nd;
}

static int hexval(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

/* cel-go parser/unescape.go */
static struct cel_node *lit_string(struct parser *p)
{
	struct token t = p->tok;
	const char *s = p->src + t.pos;
	size_t n = t.len;
	bool raw = false, bytes = t.t == T_BYTES;
	while (*s != '"' && *s != '\'') {
		if (*s == 'r' || *s == 'R')
			raw = true;
		s++;
		n--;
	}
	size_t ql = (n >= 6 && s[1] == s[0] && s[2] == s[0]) ? 3 : 1;
	const char *b = s + ql;
	size_t bn = n - 2 * ql;
	char *out = arena_alloc(p->a, bn + 1);
	if (!out)
		return fail_at(p, t.pos, "out of memory");
	size_t o = 0;
	for (size_t i = 0; i < bn;) {
		char c = b[i];
		if (c == '\r') { /* newline normalization: \r\n and \r -> \n */
			out[o++] = '\n';
			i += (i + 1 < bn && b[i + 1] == '\n') ? 2 : 1;
			continue;
		}
		if (c != '\\' || raw) {
			out[o++] = c;
			i++;
			continue;
		}
		if (i + 1 >= bn)
			return fail_at(p, t.pos, "Syntax error: unable to unescape string, found '\\' as last character");
		char e = b[i + 1];
		i += 2;
		uint32_t v;
		switch (e) {
		case 'a': out[o++] = '\a'; continue;
		case 'b': out[o++] = '\b'; continue;
		case 'f': out[o++] = '\f'; continue;
		case 'n': out[o++] = '\n'; continue;
		case 'r': out[o++] = '\r'; continue;
		case 't': out[o++] = '\t'; continue;
		case 'v': out[o++] = '\v'; continue;
		case '\\': case '\'': case '"': case '`': case '?': out[o++] = e; continue;
		case 'x': case 'X': case 'u': case 'U': {
			size_t need = (e == 'x' || e == 'X') ? 2 : e == 'u' ? 4 : 8;
			if ((e == 'u' || e == 'U') && bytes)
				return fail_at(p, t.pos, "Syntax error: unable to unescape string");
			if (i + need > bn)
				return fail_at(p, t.pos, "Syntax error: unable to unescape string");
			v = 0;
			for (size_t j = 0; j < need; j++) {
				if (!is_hex(b[i + j]))
					return fail_at(p, t.pos, "Syntax error: unable to unescape string");
				v = v << 4 | (uint32_t)hexval(b[i + j]);
			}
			i += need;
			if (bytes && need == 2) {
				out[o++] = (char)v;
				continue;
			}
			break;
		}
		case '0': case '1': case '2': case '3':
			if (i + 2 > bn || b[i] < '0' || b[i] > '7' || b[i + 1] < '0' || b[i + 1] > '7')
				return fail_at(p, t.pos, "Syntax error: unable to unescape octal sequence in string");
			v = (uint32_t)(e - '0') * 64 + (uint32_t)(b[i] - '0') * 8 + (uint32_t)(b[i + 1] - '0');
			i += 2;
			if (bytes) {
				out[o++] = (char)v;
				continue;
			}
			break;
		default:
			return fail_at(p, t.pos, "Syntax error: unable to unescape string");
		}
		if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
			return fail_at(p, t.pos, "Syntax error: invalid unicode code point");
		/* the escape's text is at least as long as its UTF-8 encoding, so out has room */
		o += cel_utf8_put(out + o, v);
	}
	out[o] = '\0';
	if (!bytes && !cel_utf8_valid(out, o))
		return fail_at(p, t.pos, "Syntax error: invalid UTF-8 in string literal");
	struct cel_node *nd = node(p, CEL_N_CONST, t.pos, 0);
	if (!nd)
		return NULL;
	nd->val = bytes ? cel_bytes(out, o) : cel_string(out, o);
	next(p);
	return nd;
}

/* ---- grammar ---- */

static struct cel_node *expr(struct parser *p);

static bool reserved(const char *s, size_t n)
{
	static const char *const words[] = { "as", "break", "const", "continue", "else", "for", "function", "if",
					     "import", "let", "loop", "package", "namespace", "return", "var",
					     "void", "while" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
			return true;
	return false;
}

/* Parses "(" [args] ")" after the '(' was seen; the arguments go to a temporary array. */
static struct cel_node **call_args(struct parser *p, size_t *nargs)
{
	struct cel_node *tmp[64];
	struct cel_node **args = tmp;
	size_t n = 0, cap = 64;
	next(p); /* ( */
	if (p->tok.t != T_RPAREN) {
		for (;;) {
			struct cel_node *a = expr(p);
			if (!a)
				return NULL;
			if (n == cap) {
				if (cap >= MAX_ARGS)
					return fail_at(p, p->tok.pos, "too many arguments");
				struct cel_node **na = arena_alloc(p->a, 2 * cap * sizeof(*na));
				if (!na)
					return fail_at(p, p->tok.pos, "out of memory");
				memcpy(na, args, n * sizeof(*na));
				args = na;
				cap *= 2;
			}
			args[n++] = a;
			if (p->tok.t != T_COMMA)
				break;
			next(p);
		}
	}
	if (!expect(p, T_RPAREN, "')'"))
		return NULL;
	struct cel_node **r = arena_alloc(p->a, (n ? n : 1) * sizeof(*r));
	if (!r)
		return fail_at(p, p->tok.pos, "out of memory");
	memcpy(r, args, n * sizeof(*r));
	*nargs = n;
	return r;
}

static const char *simple_name(struct cel_node *n)
{
	return n->kind == CEL_N_IDENT && !(n->flags & CEL_NF_ROOT) ? n->name : NULL;
}

/* Macro expansion (cel-go parser/macro.go and ext/comprehensions.go); NULL result with
 * p->failed unset means "not a macro". */
static struct cel_node *macro(struct parser *p, size_t pos, const char *name, struct cel_node *target,
			      struct cel_node **args, size_t n, bool *is_macro)
{
	*is_macro = false;
	if (!p->macros)
		return NULL;
	if (!target) {
		if (strcmp(name, "has") == 0 && n == 1) {
			*is_macro = true;
			if (args[0]->kind != CEL_N_SELECT || (args[0]->flags & CEL_NF_OPT))
				return fail_at(p, pos, "invalid argument to has() macro");
			args[0]->kind = CEL_N_HAS;
			return args[0];
		}
		return NULL;
	}
	if (strcmp(name, "bind") == 0 && n == 3 && simple_name(target) && strcmp(target->name, "cel") == 0) {
		*is_macro = true;
		if (!simple_name(args[0]))
			return fail_at(p, args[0]->pos, "cel.bind() variable names must be simple identifiers");
		struct cel_node *nd = node(p, CEL_N_BIND, pos, 2);
		struct cel_comp *c = arena_alloc(p->a, sizeof(*c));
		if (!nd || !c)
			return fail_at(p, pos, "out of memory");
		c->v1 = args[0]->name;
		nd->comp = c;
		nd->args[0] = args[1];
		nd->args[1] = args[2];
		return nd;
	}
	if ((strcmp(name, "optMap") == 0 || strcmp(name, "optFlatMap") == 0) && n == 2) {
		*is_macro = true;
		if (!simple_name(args[0]))
			return fail_at(p, args[0]->pos, "%s() variable name must be a simple identifier", name);
		struct cel_node *nd = node(p, CEL_N_OPTMAP, pos, 2);
		struct cel_comp *c = arena_alloc(p->a, sizeof(*c));
		if (!nd || !c)
			return fail_at(p, pos, "out of memory");
		c->v1 = args[0]->name;
		nd->comp = c;
		nd->args[0] = target;
		nd->args[1] = args[1];
		if (name[3] == 'F')
			nd->flags |= CEL_NF_FLAT;
		return nd;
	}
	if (strcmp(name, "sortBy") == 0 && n == 2) {
		/* cel-go ext/lists.go sortByMacro: cel.bind(@__sortBy_input__, target,
		 * @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key))) */
		*is_macro = true;
		if (!simple_name(args[0]))
			return fail_at(p, args[0]->pos, "sortBy(var, ...) variable name must be a simple identifier");
		switch (target->kind) {
		case CEL_N_LIST: case CEL_N_IDENT: case CEL_N_SELECT: case CEL_N_CALL: case CEL_N_MACRO:
			break;
		default:
			return fail_at(p, target->pos,
				       "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
		}
		static const char input[] = "@__sortBy_input__";
		struct cel_node *in1 = node(p, CEL_N_IDENT, pos, 0), *in2 = node(p, CEL_N_IDENT, pos, 0);
		struct cel_node *mp = node(p, CEL_N_MACRO, pos, 0), *keys = node(p, CEL_N_CALL, pos, 2);
		struct cel_node *bind = node(p, CEL_N_BIND, pos, 2);
		struct cel_comp *mc = arena_alloc(p->a, sizeof(*mc)), *bc = arena_alloc(p->a, sizeof(*bc));
		if (!in1 || !in2 || !mp || !keys || !bind || !mc || !bc)
			return fail_at(p, pos, "out of memory");
		in1->name = in2->name = input;
		in1->name_len = in2->name_len = sizeof(input) - 1;
		mc->macro = CEL_M_MAP;
		mc->v1 = args[0]->name;
		mc->range = in2;
		mc->expr = args[1];
		mp->comp = mc;
		keys->name = "@sortByAssociatedKeys";
		keys->name_len = (uint32_t)strlen(keys->name);
		keys->flags |= CEL_NF_RECV;
		keys->args[0] = in1;
		keys->args[1] = mp;
		bc->v1 = input;
		bind->comp = bc;
		bind->args[0] = target;
		bind->args[1] = keys;
		return bind;
	}
	int m = -1;
	size_t vars = 1;
	bool pred_opt = false;
	if (strcmp(name, "all") == 0 && (n == 2 || n == 3)) m = CEL_M_ALL, vars = n - 1;
	else if (strcmp(name, "exists") == 0 && (n == 2 || n == 3)) m = CEL_M_EXISTS, vars = n - 1;
	else if (strcmp(name, "exists_one") == 0 && (n == 2 || n == 3)) m = CEL_M_EXISTS_ONE, vars = n - 1;
	else if (strcmp(name, "existsOne") == 0 && (n == 2 || n == 3)) m = CEL_M_EXISTS_ONE, vars = n - 1;
	else if (strcmp(name, "map") == 0 && (n == 2 || n == 3)) m = CEL_M_MAP, pred_opt = n == 3;
	else if (strcmp(name, "filter") == 0 && n == 2) m = CEL_M_FILTER;
	else if (strcmp(name, "transformList") == 0 && (n == 3 || n == 4)) m = CEL_M_TRANSFORM_LIST, vars = 2, pred_opt = n == 4;
	else if (strcmp(name, "transformMap") == 0 && (n == 3 || n == 4)) m = CEL_M_TRANSFORM_MAP, vars = 2, pred_opt = n == 4;
	else if (strcmp(name, "transformMapEntry") == 0 && (n == 3 || n == 4)) m = CEL_M_TRANSFORM_MAP_ENTRY, vars = 2, pred_opt = n == 4;
	if (m < 0)
		return NULL;
	*is_macro = true;
	for (size_t i = 0; i < vars; i++)
		if (!simple_name(args[i]))
			return fail_at(p, args[i]->pos, "argument must be a simple name");
	struct cel_node *nd = node(p, CEL_N_MACRO, pos, 0);
	struct cel_comp *c = arena_alloc(p->a, sizeof(*c));
	if (!nd || !c)
		return fail_at(p, pos, "out of memory");
	c->macro = (uint8_t)m;
	c->v1 = args[0]->name;
	c->v2 = vars == 2 ? args[1]->name : NULL;
	if (c->v2 && strcmp(c->v1, c->v2) == 0)
		return fail_at(p, args[1]->pos, "duplicate variable name: %s", c->v2);
	c->range = target;
	switch (m) {
	case CEL_M_ALL: case CEL_M_EXISTS: case CEL_M_EXISTS_ONE: case CEL_M_FILTER:
		c->pred = args[vars];
		break;
	default:
		if (pred_opt) {
			c->pred = args[vars];
			c->expr = args[vars + 1];
		} else {
			c->expr = args[vars];
		}
	}
	nd->comp = c;
	return nd;
}

static struct cel_node *call(struct parser *p, size_t pos, const char *name, struct cel_node *target)
{
	size_t n = 0;
	struct cel_node **args = call_args(p, &n);
	if (!args)
		return NULL;
	bool is_macro;
	struct cel_node *m = macro(p, pos, name, target, args, n, &is_macro);
	if (is_macro || p->failed)
		return m;
	size_t total = n + (target ? 1 : 0);
	if (total > 0xffff)
		return fail_at(p, pos, "too many arguments");
	struct cel_node *nd = node(p, CEL_N_CALL, pos, total);
	if (!nd)
		return NULL;
	nd->name = name;
	nd->name_len = (uint32_t)strlen(name);
	if (target) {
		nd->flags |= CEL_NF_RECV;
		nd->args[0] = target;
	}
	if (n)
		memcpy(nd->args + (target ? 1 : 0), args, n * sizeof(*args));
	return nd;
}

/* List elements and map entries; "[?x" marks optional elements. */
static struct cel_node *aggregate(struct parser *p, bool map)
{
	size_t pos = p->tok.pos;
	enum tok close = map ? T_RBRACE : T_RBRACKET;
	next(p);
	struct cel_node *tmp[64];
	struct cel_node **items = tmp;
	uint8_t opt_tmp[64];
	uint8_t *opts = opt_tmp;
	size_t n = 0, cap = 64;
	while (p->tok.t != close) {
		bool opt = false;
		if (p->tok.t == T_QUESTION) {
			opt = true;
			next(p);
		}
		struct cel_node *k = expr(p), *v = NULL;
		if (!k)
			return NULL;
		if (map) {
			if (!expect(p, T_COLON, "':'"))
				return NULL;
			if (!(v = expr(p)))
				return NULL;
		}
		if (n + 2 > cap) {
			if (cap >= MAX_ARGS * 4)
				return fail_at(p, pos, "too many elements");
			struct cel_node **ni = arena_alloc(p->a, 2 * cap * sizeof(*ni));
			uint8_t *no = arena_alloc(p->a, 2 * cap);
			if (!ni || !no)
				return fail_at(p, pos, "out of memory");
			memcpy(ni, items, n * sizeof(*ni));
			memcpy(no, opts, n);
			items = ni;
			opts = no;
			cap *= 2;
		}
		opts[n] = opt;
		items[n++] = k;
		if (map) {
			opts[n] = 0;
			items[n++] = v;
		}
		if (p->tok.t != T_COMMA)
			break;
		next(p);
	}
	if (!expect(p, close, map ? "'}'" : "']'"))
		return NULL;
	if (n > 0xffff)
		return fail_at(p, pos, "too many elements");
	struct cel_node *nd = node(p, map ? CEL_N_MAP : CEL_N_LIST, pos, n);
	if (!nd)
		return NULL;
	if (n)
		memcpy(nd->args, items, n * sizeof(*items));
	for (size_t i = 0; i < n; i++) {
		if (!opts[i])
			continue;
		if (!nd->optmask) {
			nd->optmask = arena_alloc(p->a, (n / 64 + 1) * sizeof(uint64_t));
			if (!nd->optmask)
				return fail_at(p, pos, "out of memory");
		}
		nd->optmask[i / 64] |= 1ull << (i % 64);
	}
	return nd;
}

/* Name{field: value, ...}: message construction, parsed so that the resolver can reject it with
 * a clear error (csched's CEL has no protobuf message types). */
static struct cel_node *struct_lit(struct parser *p, size_t pos, const char *name)
{
	next(p); /* { */
	while (p->tok.t != T_RBRACE) {
		if (p->tok.t == T_QUESTION)
			next(p);
		if (p->tok.t != T_IDENT && p->tok.t != T_IN && p->tok.t != T_TRUE && p->tok.t != T_FALSE &&
		    p->tok.t != T_NULL)
			return syntax_error(p, "mismatched input, expecting IDENTIFIER:");
		next(p);
		if (!expect(p, T_COLON, "':'"))
			return NULL;
		if (!expr(p))
			return NULL;
		if (p->tok.t != T_COMMA)
			break;
		next(p);
	}
	if (!expect(p, T_RBRACE, "'}'"))
		return NULL;
	struct cel_node *nd = node(p, CEL_N_STRUCT, pos, 0);
	if (nd)
		nd->name = name;
	return nd;
}

static struct cel_node *primary(struct parser *p)
{
	size_t pos = p->tok.pos;
	switch (p->tok.t) {
	case T_INT: case T_UINT: case T_DOUBLE:
		return lit_number(p, false);
	case T_STRING: case T_BYTES:
		return lit_string(p);
	case T_TRUE: case T_FALSE: case T_NULL: {
		struct cel_node *nd = node(p, CEL_N_CONST, pos, 0);
		if (!nd)
			return NULL;
		nd->val = p->tok.t == T_NULL ? cel_null() : cel_bool(p->tok.t == T_TRUE);
		next(p);
		return nd;
	}
	case T_LPAREN: {
		next(p);
		struct cel_node *e = expr(p);
		if (!e || !expect(p, T_RPAREN, "')'"))
			return NULL;
		return e;
	}
	case T_LBRACKET:
		return aggregate(p, false);
	case T_LBRACE:
		return aggregate(p, true);
	case T_DOT:
	case T_IDENT: {
		bool root = false;
		if (p->tok.t == T_DOT) {
			root = true;
			next(p);
			if (p->tok.t != T_IDENT)
				return syntax_error(p, "mismatched input, expecting IDENTIFIER:");
			pos = p->tok.pos;
		}
		const char *s = p->src + p->tok.pos;
		size_t n = p->tok.len;
		if (reserved(s, n))
			return fail_at(p, pos, "reserved identifier: %.*s", (int)n, s);
		char *name = dup_name(p, s, n);
		if (!name)
			return NULL;
		next(p);
		if (p->tok.t == T_LPAREN) {
			if (root) {
				/* .f(x): a call of the root-scoped function f */
				struct cel_node *c = call(p, pos, name, NULL);
				if (c && c->kind == CEL_N_CALL)
					c->flags |= CEL_NF_ROOT;
				return c;
			}
			return call(p, pos, name, NULL);
		}
		struct cel_node *nd = node(p, CEL_N_IDENT, pos, 0);
		if (!nd)
			return NULL;
		nd->name = name;
		nd->name_len = (uint32_t)n;
		if (root)
			nd->flags |= CEL_NF_ROOT;
		return nd;
	}
	default:
		return syntax_error(p, "mismatched input");
	}
}

/* The qualified name a select chain of identifiers spells ("a.b.c"), for Name{...}. */
static char *qualified(struct parser *p, struct cel_node *n)
{
	char buf[512];
	size_t len = 0;
	struct cel_node *parts[64];
	int k = 0;
	while (n->kind == CEL_N_SELECT && !(n->flags & CEL_NF_OPT) && k < 63) {
		parts[k++] = n;
		n = n->args[0];
	}
	if (n->kind != CEL_N_IDENT)
		return NULL;
	len = (size_t)snprintf(buf, sizeof(buf), "%s", n->name);
	while (k-- > 0 && len < sizeof(buf))
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, ".%s", parts[k]->name);
	return dup_name(p, buf, len < sizeof(buf) ? len : sizeof(buf) - 1);
}

static struct cel_node *member(struct parser *p)
{
	struct cel_node *m = primary(p);
	int chain = 0;
	while (m) {
		size_t pos = p->tok.pos;
		/* a chain of selections and indexes nests the tree as deeply as parentheses would:
		 * the same limit (the resolver and the evaluator recurse along it) */
		if ((p->tok.t == T_DOT || p->tok.t == T_LBRACKET) && ++chain + p->depth > MAX_DEPTH)
			return fail_at(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
		if (p->tok.t == T_DOT) {
			next(p);
			bool opt = false;
			if (p->tok.t == T_QUESTION) {
				opt = true;
				next(p);
			}
			bool quoted = p->tok.t == T_QUOTED_IDENT;
			if (p->tok.t != T_IDENT && !quoted)
				return syntax_error(p, "mismatched input, expecting IDENTIFIER:");
			char *name = quoted ? dup_name(p, p->src + p->tok.pos + 1, p->tok.len - 2)
					    : dup_name(p, p->src + p->tok.pos, p->tok.len);
			size_t nlen = quoted ? p->tok.len - 2 : p->tok.len;
			if (!name)
				return NULL;
			next(p);
			if (p->tok.t == T_LPAREN && !opt && !quoted) {
				if (++p->depth > MAX_DEPTH)
					return fail_at(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
				m = call(p, pos, name, m);
				p->depth--;
				continue;
			}
			struct cel_node *nd = node(p, CEL_N_SELECT, pos, 1);
			if (!nd)
				return NULL;
			nd->args[0] = m;
			nd->name = name;
			nd->name_len = (uint32_t)nlen;
			if (opt)
				nd->flags |= CEL_NF_OPT;
			m = nd;
		} else if (p->tok.t == T_LBRACKET) {
			next(p);
			bool opt = false;
			if (p->tok.t == T_QUESTION) {
				opt = true;
				next(p);
			}
			struct cel_node *i = expr(p);
			if (!i || !expect(p, T_RBRACKET, "']'"))
				return NULL;
			m = node2(p, CEL_N_INDEX, pos, m, i);
			if (m && opt)
				m->flags |= CEL_NF_OPT;
		} else if (p->tok.t == T_LBRACE && (m->kind == CEL_N_IDENT || m->kind == CEL_N_SELECT)) {
			char *name = qualified(p, m);
			if (!name)
				return syntax_error(p, "mismatched input");
			m = struct_lit(p, pos, name);
		} else {
			break;
		}
	}
	return m;
}

static struct cel_node *unary(struct parser *p)
{
	size_t pos = p->tok.pos;
	if (++p->depth > MAX_DEPTH)
		return fail_at(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
	struct cel_node *r;
	if (p->tok.t == T_NOT || p->tok.t == T_MINUS) {
		enum tok op = p->tok.t;
		int count = 0;
		while (p->tok.t == op) {
			count++;
			next(p);
		}
		struct cel_node *m;
		if (op == T_MINUS && (p->tok.t == T_INT || p->tok.t == T_DOUBLE) && p->tok.pos == p->pos - p->tok.len &&
		    count % 2 == 1) {
			/* "-" LITERAL: a negative literal (cel-go grammar literal: sign=MINUS? NUM_INT),
			 * then member selections on it */
			count--;
			m = lit_number(p, true);
			r = m;
			goto done;
		}
		m = member(p);
		if (!m)
			return NULL;
		r = count % 2 ? node2(p, op == T_NOT ? CEL_N_NOT : CEL_N_NEG, pos, m, NULL) : m;
	} else {
		r = member(p);
	}
done:
	p->depth--;
	return r;
}

static struct cel_node *binary_level(struct parser *p, int level);

/* Operator tables by precedence level (lowest first after ||, &&). */
static int op_level(enum tok t)
{
	switch (t) {
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE: case T_IN: return 0;
	case T_PLUS: case T_MINUS: return 1;
	case T_STAR: case T_SLASH: case T_PERCENT: return 2;
	default: return -1;
	}
}

static enum cel_node_kind op_kind(enum tok t)
{
	switch (t) {
	case T_EQ: return CEL_N_EQ;
	case T_NE: return CEL_N_NE;
	case T_LT: return CEL_N_LT;
	case T_LE: return CEL_N_LE;
	case T_GT: return CEL_N_GT;
	case T_GE: return CEL_N_GE;
	case T_IN: return CEL_N_IN;
	case T_PLUS: return CEL_N_ADD;
	case T_MINUS: return CEL_N_SUB;
	case T_STAR: return CEL_N_MUL;
	case T_SLASH: return CEL_N_DIV;
	default: return CEL_N_MOD;
	}
}

static struct cel_node *binary_level(struct parser *p, int level)
{
	if (level > 2)
		return unary(p);
	struct cel_node *l = binary_level(p, level + 1);
	int chain = 0;
	while (l && op_level(p->tok.t) == level) {
		size_t pos = p->tok.pos;
		enum tok op = p->tok.t;
		next(p);
		if (++chain > MAX_DEPTH)
			return fail_at(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
		struct cel_node *r = binary_level(p, level + 1);
		if (!r)
			return NULL;
		l = node2(p, op_kind(op), pos, l, r);
	}
	return l;
}

static struct cel_node *logic(struct parser *p, enum tok op)
{
	struct cel_node *l = op == T_OR ? logic(p, T_AND) : binary_level(p, 0);
	int chain = 0;
	while (l && p->tok.t == op) {
		size_t pos = p->tok.pos;
		next(p);
		if (++chain > MAX_DEPTH)
			return fail_at(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
		struct cel_node *r = op == T_OR ? logic(p, T_AND) : binary_level(p, 0);
		if (!r)
			return NULL;
		l = node2(p, op == T_OR ? CEL_N_OR : CEL_N_AND, pos, l, r);
	}
	return l;
}

static struct cel_node *expr(struct parser *p)
{
	size_t pos = p->tok.pos;
	if (++p->depth > MAX_DEPTH)
		return fail_at(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
	struct cel_node *c = logic(p, T_OR);
	if (c && p->tok.t == T_QUESTION) {
		size_t qpos = p->tok.pos;
		next(p);
		struct cel_node *t = logic(p, T_OR);
		if (!t || !expect(p, T_COLON, "':'"))
			return NULL;
		struct cel_node *f = expr(p);
		if (!f)
			return NULL;
		struct cel_node *nd = node(p, CEL_N_COND, qpos, 3);
		if (!nd)
			return NULL;
		nd->args[0] = c;
		nd->args[1] = t;
		nd->args[2] = f;
		c = nd;
	}
	p->depth--;
	return c;
}

struct cel_node *cel_parse(struct arena *a, const char *src, size_t len, bool macros, struct err *e)
{
	struct parser p = { .a = a, .src = src, .n = len, .macros = macros, .e = e };
	next(&p);
	struct cel_node *r = expr(&p);
	if (r && p.tok.t != T_EOF) {
		char b[64];
		return fail_at(&p, p.tok.pos, "Syntax error: extraneous input %s expecting <EOF>", tok_text(&p, b, sizeof(b)));
	}
	if (!r && !p.failed)
		err_set(e, ERR_INVALID, "1:1: Syntax error: empty expression");
	return p.failed ? NULL : r;
}
