/* Protobuf text format reader (textproto.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textproto.h"

struct tp {
	const char *s;
	size_t n, i;
	char *err;
	size_t errcap;
	bool failed;
};

static void tp_fail(struct tp *p, const char *what)
{
	if (p->failed)
		return;
	p->failed = true;
	int line = 1, col = 1;
	for (size_t k = 0; k < p->i && k < p->n; k++) {
		if (p->s[k] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(p->err, p->errcap, "%d:%d: %s", line, col, what);
}

static void ws(struct tp *p)
{
	while (p->i < p->n) {
		char c = p->s[p->i];
		if (c == '#') {
			while (p->i < p->n && p->s[p->i] != '\n')
				p->i++;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';') {
			p->i++;
		} else {
			break;
		}
	}
}

static bool ident_char(char c)
{
	return c == '_' || c == '.' || c == '-' || c == '+' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static struct tp_node *new_node(void) { return calloc(1, sizeof(struct tp_node)); }

static bool add_kid(struct tp_node *m, struct tp_node *k)
{
	struct tp_node **nk = realloc(m->kids, (m->nkids + 1) * sizeof(*nk));
	if (!nk)
		return false;
	m->kids = nk;
	m->kids[m->nkids++] = k;
	return true;
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t put_utf8(char *b, unsigned c)
{
	if (c < 0x80) { b[0] = (char)c; return 1; }
	if (c < 0x800) { b[0] = (char)(0xc0 | (c >> 6)); b[1] = (char)(0x80 | (c & 0x3f)); return 2; }
	if (c < 0x10000) { b[0] = (char)(0xe0 | (c >> 12)); b[1] = (char)(0x80 | ((c >> 6) & 0x3f)); b[2] = (char)(0x80 | (c & 0x3f)); return 3; }
	b[0] = (char)(0xf0 | (c >> 18)); b[1] = (char)(0x80 | ((c >> 12) & 0x3f)); b[2] = (char)(0x80 | ((c >> 6) & 0x3f)); b[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* One or more adjacent quoted strings, decoded (C escapes as protobuf's text format has them). */
static bool read_string(struct tp *p, struct tp_node *nd)
{
	size_t cap = 64, len = 0;
	char *out = malloc(cap);
	if (!out)
		return false;
	while (p->i < p->n && (p->s[p->i] == '"' || p->s[p->i] == '\'')) {
		char q = p->s[p->i++];
		while (p->i < p->n && p->s[p->i] != q) {
			if (len + 8 > cap) {
				cap *= 2;
				char *no = realloc(out, cap);
				if (!no) {
					free(out);
					return false;
				}
				out = no;
			}
			char c = p->s[p->i++];
			if (c == '\n') {
				free(out);
				tp_fail(p, "newline in string");
				return false;
			}
			if (c != '\\') {
				out[len++] = c;
				continue;
			}
			if (p->i >= p->n)
				break;
			char e = p->s[p->i++];
			switch (e) {
			case 'n': out[len++] = '\n'; break;
			case 't': out[len++] = '\t'; break;
			case 'r': out[len++] = '\r'; break;
			case 'a': out[len++] = '\a'; break;
			case 'b': out[len++] = '\b'; break;
			case 'f': out[len++] = '\f'; break;
			case 'v': out[len++] = '\v'; break;
			case '?': out[len++] = '?'; break;
			case 'x': case 'X': {
				int v = 0, k = 0;
				while (k < 2 && p->i < p->n && hexv(p->s[p->i]) >= 0)
					v = v * 16 + hexv(p->s[p->i++]), k++;
				out[len++] = (char)v;
				break;
			}
			case 'u': case 'U': {
				int need = e == 'u' ? 4 : 8;
				unsigned v = 0;
				for (int k = 0; k < need && p->i < p->n; k++)
					v = v * 16 + (unsigned)hexv(p->s[p->i++]);
				len += put_utf8(out + len, v);
				break;
			}
			default:
				if (e >= '0' && e <= '7') {
					int v = e - '0', k = 1;
					while (k < 3 && p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '7')
						v = v * 8 + (p->s[p->i++] - '0'), k++;
					out[len++] = (char)v;
				} else {
					out[len++] = e; /* \\ \' \" */
				}
			}
		}
		if (p->i >= p->n) {
			free(out);
			tp_fail(p, "unterminated string");
			return false;
		}
		p->i++;
		ws(p);
	}
	out[len] = '\0';
	nd->sval = out;
	nd->slen = len;
	nd->quoted = true;
	return true;
}

static bool read_fields(struct tp *p, struct tp_node *m, char close);

/* A value after "name:" or a message after "name". */
static bool read_value(struct tp *p, struct tp_node *nd)
{
	ws(p);
	if (p->i >= p->n) {
		tp_fail(p, "value expected");
		return false;
	}
	char c = p->s[p->i];
	if (c == '{' || c == '<') {
		p->i++;
		nd->is_msg = true;
		return read_fields(p, nd, c == '{' ? '}' : '>');
	}
	if (c == '"' || c == '\'')
		return read_string(p, nd);
	size_t st = p->i;
	while (p->i < p->n && ident_char(p->s[p->i]))
		p->i++;
	if (p->i == st) {
		tp_fail(p, "value expected");
		return false;
	}
	nd->sval = strndup(p->s + st, p->i - st);
	nd->slen = p->i - st;
	return nd->sval != NULL;
}

static bool read_fields(struct tp *p, struct tp_node *m, char close)
{
	for (;;) {
		ws(p);
		if (p->i >= p->n) {
			if (close) {
				tp_fail(p, "unexpected end of input");
				return false;
			}
			return true;
		}
		if (close && p->s[p->i] == close) {
			p->i++;
			return true;
		}
		size_t st = p->i;
		char *name;
		if (p->s[p->i] == '[') {
			while (p->i < p->n && p->s[p->i] != ']')
				p->i++;
			if (p->i >= p->n) {
				tp_fail(p, "unterminated [name]");
				return false;
			}
			p->i++;
			name = strndup(p->s + st, p->i - st);
		} else {
			while (p->i < p->n && ident_char(p->s[p->i]))
				p->i++;
			if (p->i == st) {
				tp_fail(p, "field name expected");
				return false;
			}
			name = strndup(p->s + st, p->i - st);
		}
		if (!name)
			return false;
		ws(p);
		bool colon = false;
		if (p->i < p->n && p->s[p->i] == ':') {
			colon = true;
			p->i++;
			ws(p);
		}
		if (colon && p->i < p->n && p->s[p->i] == '[') {
			/* repeated: name: [v, v] */
			p->i++;
			for (;;) {
				ws(p);
				if (p->i < p->n && p->s[p->i] == ']') {
					p->i++;
					break;
				}
				struct tp_node *k = new_node();
				if (!k || !(k->name = strdup(name)) || !add_kid(m, k)) {
					tp_free(k);
					free(name);
					return false;
				}
				if (!read_value(p, k)) {
					free(name);
					return false;
				}
			}
			free(name);
			continue;
		}
		struct tp_node *k = new_node();
		if (!k || !add_kid(m, k)) {
			free(k);
			free(name);
			return false;
		}
		k->name = name;
		if (!read_value(p, k))
			return false;
	}
}

struct tp_node *tp_parse(const char *text, size_t len, char *err, size_t errcap)
{
	struct tp p = { text, len, 0, err, errcap, false };
	struct tp_node *root = new_node();
	if (!root)
		return NULL;
	root->is_msg = true;
	if (!read_fields(&p, root, 0)) {
		if (!p.failed)
			snprintf(err, errcap, "out of memory");
		tp_free(root);
		return NULL;
	}
	return root;
}

void tp_free(struct tp_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nkids; i++)
		tp_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n->sval);
	free(n);
}

const struct tp_node *tp_get(const struct tp_node *n, const char *name)
{
	for (size_t i = 0; n && i < n->nkids; i++)
		if (strcmp(n->kids[i]->name, name) == 0)
			return n->kids[i];
	return NULL;
}
