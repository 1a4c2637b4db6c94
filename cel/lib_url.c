/* Kubernetes' URL library (apiserver pkg/cel/library/urls.go; type kubernetes.URL): url(),
 * isURL, getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery.
 *
 * url() accepts what Go's url.ParseRequestURI accepts (an absolute URL or an absolute path)
 * and then holds url.Parse's result; this file is a port of the parts of Go's net/url those
 * use (parse, parseAuthority, parseHost, unescape/escape with their encoding modes,
 * EscapedPath, Hostname, Port, Query, String), with Go's error messages
 * ("URL parse error during conversion from string: parse \"x\": invalid URI for request").
 * Two URLs are equal when their String() forms are, as upstream compares them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"
#include "lib_internal.h"

enum enc { ENC_PATH = 1, ENC_PATH_SEGMENT, ENC_HOST, ENC_ZONE, ENC_USER_PASSWORD, ENC_QUERY_COMPONENT, ENC_FRAGMENT };

struct str {
	const char *p;
	size_t n;
};

struct url {
	struct cel_object hdr;
	struct str scheme, opaque, username, password, host, path, raw_path, raw_query, fragment, raw_fragment;
	bool has_user, has_password, force_query, omit_host;
};

static bool url_equal(const struct cel_object *a, const struct cel_object *b);
static size_t url_format(const struct cel_object *o, char *buf, size_t cap);

static const struct cel_object_type url_type = { { "kubernetes.URL", CEL_OBJECT }, url_equal, NULL, url_format };

/* ---- Go's encoding rules (net/url gen_encoding_table.go shouldEscape) ---- */

static bool should_escape(unsigned char c, enum enc mode)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return false;
	if (mode == ENC_HOST || mode == ENC_ZONE) {
		switch (c) {
		case '!': case '$': case '&': case '\'': case '(': case ')': case '*': case '+': case ',': case ';':
		case '=': case ':': case '[': case ']': case '<': case '>': case '"':
			return false;
		}
	}
	switch (c) {
	case '-': case '_': case '.': case '~':
		return false;
	case '$': case '&': case '+': case ',': case '/': case ':': case ';': case '=': case '?': case '@':
		switch (mode) {
		case ENC_PATH: return c == '?';
		case ENC_PATH_SEGMENT: return c == '/' || c == ';' || c == ',' || c == '?';
		case ENC_USER_PASSWORD: return c == '@' || c == '/' || c == '?' || c == ':';
		case ENC_QUERY_COMPONENT: return true;
		case ENC_FRAGMENT: return false;
		default: break;
		}
	}
	if (mode == ENC_FRAGMENT && (c == '!' || c == '(' || c == ')' || c == '*'))
		return false;
	return true;
}

static bool ishex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

static unsigned unhex(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	return (unsigned)(c - 'A' + 10);
}

/* A message in the arena: prefix + Go-quoted s. NULL on out of memory. */
static const char *quoted_msg(struct cel_eval *ev, const char *prefix, const char *s, size_t n, const char *suffix)
{
	const char *q = cel_lib_go_quote(ev, s, n);
	if (!q)
		return NULL;
	size_t len = strlen(prefix) + strlen(q) + strlen(suffix) + 1;
	char *m = cel_alloc(ev, len);
	if (m)
		snprintf(m, len, "%s%s%s", prefix, q, suffix);
	return m;
}

/* unescape: 0 with *out, -1 with *err (NULL err: out of memory). */
static int unescape(struct cel_eval *ev, struct str s, enum enc mode, struct str *out, const char **err)
{
	size_t n = 0;
	bool has_plus = false;
	for (size_t i = 0; i < s.n;) {
		char c = s.p[i];
		if (c == '%') {
			n++;
			if (i + 2 >= s.n || !ishex(s.p[i + 1]) || !ishex(s.p[i + 2])) {
				size_t k = s.n - i > 3 ? 3 : s.n - i;
				*err = quoted_msg(ev, "invalid URL escape ", s.p + i, k, "");
				return -1;
			}
			if (mode == ENC_HOST && unhex(s.p[i + 1]) < 8 && memcmp(s.p + i, "%25", 3) != 0) {
				*err = quoted_msg(ev, "invalid URL escape ", s.p + i, 3, "");
				return -1;
			}
			if (mode == ENC_ZONE) {
				unsigned char v = (unsigned char)(unhex(s.p[i + 1]) << 4 | unhex(s.p[i + 2]));
				if (memcmp(s.p + i, "%25", 3) != 0 && v != ' ' && should_escape(v, ENC_HOST)) {
					*err = quoted_msg(ev, "invalid URL escape ", s.p + i, 3, "");
					return -1;
				}
			}
			i += 3;
		} else if (c == '+') {
			has_plus = mode == ENC_QUERY_COMPONENT;
			i++;
		} else {
			if ((mode == ENC_HOST || mode == ENC_ZONE) && (unsigned char)c < 0x80 &&
			    should_escape((unsigned char)c, mode)) {
				*err = quoted_msg(ev, "invalid character ", s.p + i, 1, " in host name");
				return -1;
			}
			i++;
		}
	}
	if (n == 0 && !has_plus) {
		*out = s;
		return 0;
	}
	char *t = cel_alloc(ev, s.n + 1);
	if (!t) {
		*err = NULL;
		return -1;
	}
	size_t k = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '%') {
			t[k++] = (char)(unhex(s.p[i + 1]) << 4 | unhex(s.p[i + 2]));
			i += 2;
		} else if (s.p[i] == '+') {
			t[k++] = mode == ENC_QUERY_COMPONENT ? ' ' : '+';
		} else {
			t[k++] = s.p[i];
		}
	}
	*out = (struct str){ t, k };
	return 0;
}

/* escape: false on out of memory. */
static bool escape(struct cel_eval *ev, struct str s, enum enc mode, struct str *out)
{
	size_t hex = 0, spaces = 0;
	for (size_t i = 0; i < s.n; i++)
		if (should_escape((unsigned char)s.p[i], mode)) {
			if (s.p[i] == ' ' && mode == ENC_QUERY_COMPONENT)
				spaces++;
			else
				hex++;
		}
	if (hex == 0 && spaces == 0) {
		*out = s;
		return true;
	}
	char *t = cel_alloc(ev, s.n + 2 * hex + 1);
	if (!t)
		return false;
	size_t k = 0;
	static const char upper[] = "0123456789ABCDEF";
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (c == ' ' && mode == ENC_QUERY_COMPONENT) {
			t[k++] = '+';
		} else if (should_escape(c, mode)) {
			t[k++] = '%';
			t[k++] = upper[c >> 4];
			t[k++] = upper[c & 15];
		} else {
			t[k++] = (char)c;
		}
	}
	*out = (struct str){ t, k };
	return true;
}

static bool str_eq(struct str a, struct str b) { return a.n == b.n && memcmp(a.p, b.p, a.n) == 0; }

static const char *memrchr_c(const char *s, size_t n, char c)
{
	for (size_t i = n; i-- > 0;)
		if (s[i] == c)
			return s + i;
	return NULL;
}

static bool valid_optional_port(struct str p)
{
	if (p.n == 0)
		return true;
	if (p.p[0] != ':')
		return false;
	for (size_t i = 1; i < p.n; i++)
		if (p.p[i] < '0' || p.p[i] > '9')
			return false;
	return true;
}

/* parseHost */
static int parse_host(struct cel_eval *ev, struct str scheme, struct str host, struct str *out, const char **err)
{
	const char *ob = memrchr_c(host.p, host.n, '[');
	if (ob && ob > host.p) {
		*err = "invalid IP-literal";
		return -1;
	}
	if (ob == host.p && host.n > 0) {
		const char *cb = memrchr_c(host.p, host.n, ']');
		if (!cb) {
			*err = "missing ']' in host";
			return -1;
		}
		struct str colon_port = { cb + 1, (size_t)(host.p + host.n - (cb + 1)) };
		if (!valid_optional_port(colon_port)) {
			*err = quoted_msg(ev, "invalid port ", colon_port.p, colon_port.n, " after host");
			return -1;
		}
		struct str name = { host.p + 1, (size_t)(cb - host.p - 1) }, uname;
		const char *z = NULL;
		for (size_t i = 0; i + 3 <= name.n; i++)
			if (memcmp(name.p + i, "%25", 3) == 0) {
				z = name.p + i;
				break;
			}
		if (z) {
			struct str hp, zp;
			if (unescape(ev, (struct str){ name.p, (size_t)(z - name.p) }, ENC_HOST, &hp, err) ||
			    unescape(ev, (struct str){ z, (size_t)(name.p + name.n - z) }, ENC_ZONE, &zp, err))
				return -1;
			char *j = cel_alloc(ev, hp.n + zp.n + 1);
			if (!j) {
				*err = NULL;
				return -1;
			}
			memcpy(j, hp.p, hp.n);
			memcpy(j + hp.n, zp.p, zp.n);
			uname = (struct str){ j, hp.n + zp.n };
		} else if (unescape(ev, name, ENC_HOST, &uname, err)) {
			return -1;
		}
		char m[512];
		bool v6;
		if (!cel_lib_parse_addr(uname.p, uname.n, &v6, m, sizeof(m))) {
			size_t len = strlen(m) + 16;
			char *mm = cel_alloc(ev, len);
			if (mm)
				snprintf(mm, len, "invalid host: %s", m);
			*err = mm;
			return -1;
		}
		if (!v6) {
			*err = "invalid IP-literal";
			return -1;
		}
		struct str ucp;
		if (unescape(ev, colon_port, ENC_HOST, &ucp, err))
			return -1;
		char *j = cel_alloc(ev, uname.n + ucp.n + 3);
		if (!j) {
			*err = NULL;
			return -1;
		}
		size_t k = 0;
		j[k++] = '[';
		memcpy(j + k, uname.p, uname.n);
		k += uname.n;
		j[k++] = ']';
		memcpy(j + k, ucp.p, ucp.n);
		k += ucp.n;
		*out = (struct str){ j, k };
		return 0;
	}
	const char *first = memchr(host.p, ':', host.n);
	if (first) {
		const char *last = memrchr_c(host.p, host.n, ':');
		const char *i = first;
		bool http = (scheme.n == 4 && memcmp(scheme.p, "http", 4) == 0) ||
			    (scheme.n == 5 && memcmp(scheme.p, "https", 5) == 0);
		if (last != first && !http)
			i = last;
		struct str colon_port = { i, (size_t)(host.p + host.n - i) };
		if (!valid_optional_port(colon_port)) {
			*err = quoted_msg(ev, "invalid port ", colon_port.p, colon_port.n, " after host");
			return -1;
		}
	}
	return unescape(ev, host, ENC_HOST, out, err);
}

static bool valid_userinfo(struct str s)
{
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (strchr("-._:~!$&'()*+,;=%@", c) && c)
			continue;
		return false;
	}
	return true;
}

/* url.parse: 0, or -1 with *err (NULL: out of memory). */
static int parse(struct cel_eval *ev, struct str raw, bool via_request, struct url *u, const char **err)
{
	for (size_t i = 0; i < raw.n; i++)
		if ((unsigned char)raw.p[i] < ' ' || raw.p[i] == 0x7f) {
			*err = "net/url: invalid control character in URL";
			return -1;
		}
	if (raw.n == 0 && via_request) {
		*err = "empty url";
		return -1;
	}
	if (raw.n == 1 && raw.p[0] == '*') {
		u->path = raw;
		return 0;
	}
	struct str rest = raw;
	/* getScheme */
	for (size_t i = 0; i < raw.n; i++) {
		char c = raw.p[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			continue;
		if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
			if (i == 0)
				break;
			continue;
		}
		if (c == ':') {
			if (i == 0) {
				*err = "missing protocol scheme";
				return -1;
			}
			char *lower = cel_alloc(ev, i + 1);
			if (!lower) {
				*err = NULL;
				return -1;
			}
			for (size_t k = 0; k < i; k++)
				lower[k] = (char)(raw.p[k] >= 'A' && raw.p[k] <= 'Z' ? raw.p[k] - 'A' + 'a' : raw.p[k]);
			u->scheme = (struct str){ lower, i };
			rest = (struct str){ raw.p + i + 1, raw.n - i - 1 };
		}
		break;
	}
	size_t qmarks = 0;
	for (size_t i = 0; i < rest.n; i++)
		qmarks += rest.p[i] == '?';
	if (rest.n > 0 && rest.p[rest.n - 1] == '?' && qmarks == 1) {
		u->force_query = true;
		rest.n--;
	} else {
		const char *q = memchr(rest.p, '?', rest.n);
		if (q) {
			u->raw_query = (struct str){ q + 1, (size_t)(rest.p + rest.n - q - 1) };
			rest.n = (size_t)(q - rest.p);
		}
	}
	bool slash = rest.n > 0 && rest.p[0] == '/';
	if (!slash) {
		if (u->scheme.n) {
			u->opaque = rest;
			return 0;
		}
		if (via_request) {
			*err = "invalid URI for request";
			return -1;
		}
		const char *sl = memchr(rest.p, '/', rest.n);
		size_t seg = sl ? (size_t)(sl - rest.p) : rest.n;
		if (memchr(rest.p, ':', seg)) {
			*err = "first path segment in URL cannot contain colon";
			return -1;
		}
	}
	bool dslash = rest.n >= 2 && rest.p[0] == '/' && rest.p[1] == '/';
	bool tslash = rest.n >= 3 && dslash && rest.p[2] == '/';
	if ((u->scheme.n || (!via_request && !tslash)) && dslash) {
		struct str auth = { rest.p + 2, rest.n - 2 };
		const char *sl = memchr(auth.p, '/', auth.n);
		if (sl) {
			rest = (struct str){ sl, (size_t)(auth.p + auth.n - sl) };
			auth.n = (size_t)(sl - auth.p);
		} else {
			rest = (struct str){ auth.p + auth.n, 0 };
		}
		/* parseAuthority */
		const char *at = memrchr_c(auth.p, auth.n, '@');
		struct str hostpart = at ? (struct str){ at + 1, (size_t)(auth.p + auth.n - at - 1) } : auth;
		if (parse_host(ev, u->scheme, hostpart, &u->host, err))
			return -1;
		if (at) {
			struct str ui = { auth.p, (size_t)(at - auth.p) };
			if (!valid_userinfo(ui)) {
				*err = "net/url: invalid userinfo";
				return -1;
			}
			u->has_user = true;
			const char *colon = memchr(ui.p, ':', ui.n);
			if (!colon) {
				if (unescape(ev, ui, ENC_USER_PASSWORD, &u->username, err))
					return -1;
			} else {
				if (unescape(ev, (struct str){ ui.p, (size_t)(colon - ui.p) }, ENC_USER_PASSWORD, &u->username,
					     err) ||
				    unescape(ev, (struct str){ colon + 1, (size_t)(ui.p + ui.n - colon - 1) },
					     ENC_USER_PASSWORD, &u->password, err))
					return -1;
				u->has_password = true;
			}
		}
	} else if (u->scheme.n && slash) {
		u->omit_host = true;
	}
	/* setPath */
	struct str path, esc;
	if (unescape(ev, rest, ENC_PATH, &path, err))
		return -1;
	u->path = path;
	if (!escape(ev, path, ENC_PATH, &esc)) {
		*err = NULL;
		return -1;
	}
	u->raw_path = str_eq(esc, rest) ? (struct str){ "", 0 } : rest;
	return 0;
}

static bool valid_encoded(struct str s, enum enc mode)
{
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (strchr("!$&'()*+,;=:@[]%", c) && c)
			continue;
		if (should_escape(c, mode))
			return false;
	}
	return true;
}

/* EscapedPath / EscapedFragment */
static bool escaped(struct cel_eval *ev, struct str raw, struct str plain, enum enc mode, struct str *out)
{
	if (raw.n && valid_encoded(raw, mode)) {
		struct str p;
		const char *err;
		if (unescape(ev, raw, mode, &p, &err) == 0 && str_eq(p, plain)) {
			*out = raw;
			return true;
		}
	}
	if (mode == ENC_PATH && plain.n == 1 && plain.p[0] == '*') {
		*out = plain;
		return true;
	}
	return escape(ev, plain, mode, out);
}

/* URL.String() into a growing arena buffer. */
struct sb {
	struct cel_eval *ev;
	char *p;
	size_t n, cap;
	bool oom;
};

static void sb_put(struct sb *b, struct str s)
{
	if (b->oom)
		return;
	if (b->n + s.n + 1 > b->cap) {
		size_t c = (b->n + s.n + 1) * 2;
		char *np = cel_alloc(b->ev, c);
		if (!np) {
			b->oom = true;
			return;
		}
		if (b->n)
			memcpy(np, b->p, b->n);
		b->p = np;
		b->cap = c;
	}
	memcpy(b->p + b->n, s.p, s.n);
	b->n += s.n;
	b->p[b->n] = 0;
}

static void sb_puts(struct sb *b, const char *s) { sb_put(b, (struct str){ s, strlen(s) }); }

static bool url_string(struct cel_eval *ev, const struct url *u, struct str *out)
{
	struct sb b = { .ev = ev };
	struct str t;
	sb_puts(&b, "");
	if (u->scheme.n) {
		sb_put(&b, u->scheme);
		sb_puts(&b, ":");
	}
	if (u->opaque.n) {
		sb_put(&b, u->opaque);
	} else {
		if (u->scheme.n || u->host.n || u->has_user) {
			if (!(u->omit_host && u->host.n == 0 && !u->has_user)) {
				if (u->host.n || u->path.n || u->has_user)
					sb_puts(&b, "//");
				if (u->has_user) {
					if (!escape(ev, u->username, ENC_USER_PASSWORD, &t))
						return false;
					sb_put(&b, t);
					if (u->has_password) {
						sb_puts(&b, ":");
						if (!escape(ev, u->password, ENC_USER_PASSWORD, &t))
							return false;
						sb_put(&b, t);
					}
					sb_puts(&b, "@");
				}
				if (u->host.n) {
					if (!escape(ev, u->host, ENC_HOST, &t))
						return false;
					sb_put(&b, t);
				}
			}
		}
		struct str path;
		if (!escaped(ev, u->raw_path, u->path, ENC_PATH, &path))
			return false;
		if (path.n && path.p[0] != '/' && u->host.n)
			sb_puts(&b, "/");
		if (b.n == 0) {
			const char *sl = memchr(path.p, '/', path.n);
			size_t seg = sl ? (size_t)(sl - path.p) : path.n;
			if (memchr(path.p, ':', seg))
				sb_puts(&b, "./");
		}
		sb_put(&b, path);
	}
	if (u->force_query || u->raw_query.n) {
		sb_puts(&b, "?");
		sb_put(&b, u->raw_query);
	}
	if (u->fragment.n) {
		sb_puts(&b, "#");
		if (!escaped(ev, u->raw_fragment, u->fragment, ENC_FRAGMENT, &t))
			return false;
		sb_put(&b, t);
	}
	if (b.oom)
		return false;
	*out = (struct str){ b.p, b.n };
	return true;
}

/* ---- the object type: equality and format need an arena: they use a private one ---- */

static bool url_equal(const struct cel_object *a, const struct cel_object *b)
{
	struct cel_eval *ev = cel_eval_new();
	if (!ev)
		return false;
	struct str x, y;
	bool eq = url_string(ev, (const struct url *)a, &x) && url_string(ev, (const struct url *)b, &y) && str_eq(x, y);
	cel_eval_free(ev);
	return eq;
}

static size_t url_format(const struct cel_object *o, char *buf, size_t cap)
{
	struct cel_eval *ev = cel_eval_new();
	struct str s = { "", 0 };
	if (ev)
		url_string(ev, (const struct url *)o, &s);
	size_t n = (size_t)snprintf(buf, cap, "url(\"%.*s\")", (int)s.n, s.p);
	cel_eval_free(ev);
	return n;
}

/* url.ParseRequestURI for other libraries (lib_internal.h): NULL when s parses, else Go's
 * error text ("parse \"x\": invalid URI for request") in the arena. */
const char *cel_lib_parse_request_uri(struct cel_eval *ev, const char *s, size_t n, bool *oom)
{
	struct url u = { 0 };
	const char *e = NULL;
	*oom = false;
	if (parse(ev, (struct str){ s, n }, true, &u, &e) == 0)
		return NULL;
	const char *m = e ? quoted_msg(ev, "parse ", s, n, ": ") : NULL;
	char *mm = NULL;
	if (m) {
		size_t len = strlen(m) + strlen(e) + 1;
		mm = cel_alloc(ev, len);
		if (mm)
			snprintf(mm, len, "%s%s", m, e);
	}
	*oom = mm == NULL;
	return mm;
}

/* ---- functions ---- */

/* stringToUrl: ParseRequestURI, then Parse (which cuts the fragment). */
static int to_url(struct cel_eval *ev, cel_value s, struct url **out, const char **err)
{
	struct str raw = { s.s, s.n };
	struct url *u = cel_alloc(ev, sizeof(*u));
	if (!u) {
		*err = NULL;
		return -1;
	}
	const char *e = NULL;
	if (parse(ev, raw, true, u, &e)) {
		*err = e ? quoted_msg(ev, "URL parse error during conversion from string: parse ", raw.p, raw.n, ": ") : NULL;
		if (*err && e) {
			size_t n = strlen(*err) + strlen(e) + 1;
			char *m = cel_alloc(ev, n);
			if (m)
				snprintf(m, n, "%s%s", *err, e);
			*err = m;
		}
		return -1;
	}
	memset(u, 0, sizeof(*u));
	const char *hash = memchr(raw.p, '#', raw.n);
	struct str head = hash ? (struct str){ raw.p, (size_t)(hash - raw.p) } : raw;
	struct str whole = head;
	int rc = parse(ev, head, false, u, &e);
	if (rc == 0 && hash && raw.n - (size_t)(hash - raw.p) > 1) {
		struct str frag = { hash + 1, raw.n - (size_t)(hash - raw.p) - 1 }, esc;
		whole = raw;
		rc = unescape(ev, frag, ENC_FRAGMENT, &u->fragment, &e);
		if (rc == 0) {
			if (!escape(ev, u->fragment, ENC_FRAGMENT, &esc)) {
				e = NULL;
				rc = -1;
			} else {
				u->raw_fragment = str_eq(esc, frag) ? (struct str){ "", 0 } : frag;
			}
		}
	}
	if (rc) {
		const char *m = e ? quoted_msg(ev, "URL parse error during conversion from string: parse ", whole.p, whole.n, ": ")
				  : NULL;
		if (m) {
			size_t n = strlen(m) + strlen(e) + 1;
			char *mm = cel_alloc(ev, n);
			if (mm)
				snprintf(mm, n, "%s%s", m, e);
			m = mm;
		}
		*err = m;
		return -1;
	}
	u->hdr.type = &url_type;
	*out = u;
	return 0;
}

static int fn_url(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct url *u;
	const char *err;
	if (to_url(ev, a[0], &u, &err))
		return err ? cel_error(ev, out, "%s", err) : CEL_NOMEM;
	*out = cel_object_value(&u->hdr);
	return 0;
}

static int fn_is_url(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct url u = { 0 };
	const char *err = NULL;
	int rc = parse(ev, (struct str){ a[0].s, a[0].n }, true, &u, &err);
	if (rc && !err)
		return CEL_NOMEM;
	*out = cel_bool(rc == 0);
	return 0;
}

#define U(v) ((const struct url *)(v).obj)

static int fn_scheme(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_string(U(a[0])->scheme.p ? U(a[0])->scheme.p : "", U(a[0])->scheme.n);
	return 0;
}

static int fn_host(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_string(U(a[0])->host.p ? U(a[0])->host.p : "", U(a[0])->host.n);
	return 0;
}

/* splitHostPort */
static void split_host_port(struct str hp, struct str *host, struct str *port)
{
	*host = hp;
	*port = (struct str){ "", 0 };
	const char *c = hp.n ? memrchr_c(hp.p, hp.n, ':') : NULL;
	if (c && valid_optional_port((struct str){ c, (size_t)(hp.p + hp.n - c) })) {
		*host = (struct str){ hp.p, (size_t)(c - hp.p) };
		*port = (struct str){ c + 1, (size_t)(hp.p + hp.n - c - 1) };
	}
	if (host->n >= 2 && host->p[0] == '[' && host->p[host->n - 1] == ']')
		*host = (struct str){ host->p + 1, host->n - 2 };
}

static int fn_hostname(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	struct str h, p;
	split_host_port(U(a[0])->host, &h, &p);
	*out = cel_string(h.p ? h.p : "", h.n);
	return 0;
}

static int fn_port(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	struct str h, p;
	split_host_port(U(a[0])->host, &h, &p);
	*out = cel_string(p.p ? p.p : "", p.n);
	return 0;
}

static int fn_escaped_path(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct str p;
	if (!escaped(ev, U(a[0])->raw_path, U(a[0])->path, ENC_PATH, &p))
		return CEL_NOMEM;
	*out = cel_string(p.p ? p.p : "", p.n);
	return 0;
}

/* u.Query(): ParseQuery, keeping the pairs that parse (Go ignores the error); at most 10,000
 * parameters (Go's urlmaxqueryparams default), else none. */
static int fn_query(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct str q = U(a[0])->raw_query;
	size_t amps = 1;
	for (size_t i = 0; i < q.n; i++)
		amps += q.p[i] == '&';
	struct cel_map *m = cel_new_map(ev, amps <= 10000 ? amps : 0);
	if (!m)
		return CEL_NOMEM;
	/* values per key, collected first (a key's list grows as Go appends) */
	struct kv {
		struct str k, v;
	} *pairs = amps <= 10000 ? cel_alloc(ev, amps * sizeof(*pairs)) : NULL;
	size_t np = 0;
	if (amps <= 10000 && !pairs)
		return CEL_NOMEM;
	for (size_t i = 0; amps <= 10000 && i <= q.n && q.n;) {
		const char *amp = memchr(q.p + i, '&', q.n - i);
		size_t end = amp ? (size_t)(amp - q.p) : q.n;
		struct str key = { q.p + i, end - i };
		i = end + 1;
		if (memchr(key.p, ';', key.n) || key.n == 0) {
			if (!amp)
				break;
			continue;
		}
		const char *eq = memchr(key.p, '=', key.n);
		struct str k = eq ? (struct str){ key.p, (size_t)(eq - key.p) } : key;
		struct str v = eq ? (struct str){ eq + 1, (size_t)(key.p + key.n - eq - 1) } : (struct str){ "", 0 };
		const char *err;
		struct str uk, uv;
		if (unescape(ev, k, ENC_QUERY_COMPONENT, &uk, &err) == 0 && unescape(ev, v, ENC_QUERY_COMPONENT, &uv, &err) == 0)
			pairs[np++] = (struct kv){ uk, uv };
		else if (!err)
			return CEL_NOMEM;
		if (!amp)
			break;
	}
	for (size_t i = 0; i < np; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = str_eq(pairs[j].k, pairs[i].k);
		if (seen)
			continue;
		size_t cnt = 0;
		for (size_t j = i; j < np; j++)
			cnt += str_eq(pairs[j].k, pairs[i].k);
		struct cel_list *l = cel_new_list(ev, cnt);
		if (!l)
			return CEL_NOMEM;
		size_t k = 0;
		for (size_t j = i; j < np; j++)
			if (str_eq(pairs[j].k, pairs[i].k))
				l->items[k++] = cel_string(pairs[j].v.p, pairs[j].v.n);
		cel_value lv = { .kind = CEL_LIST };
		lv.list = l;
		if (cel_map_add(ev, m, cel_string(pairs[i].k.p, pairs[i].k.n), lv))
			return CEL_NOMEM;
	}
	*out = (cel_value){ .kind = CEL_MAP };
	out->map = m;
	return 0;
}

/* cost.go: url() ceil(0.1 * size); the accessors 1 */
static uint64_t cost_parse(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)ceil((double)cel_utf8_count(a[0].s, a[0].n) * 0.1);
}

#define S { CEL_STRING, NULL }
#define UR { CEL_OBJECT, &url_type }
#define R CEL_OV_RECEIVER

static const struct cel_overload url_overloads[] = {
	{ "string_to_url", "url", CEL_OV_GLOBAL, 1, { S }, fn_url, NULL, NULL, cost_parse },
	{ "url_get_scheme", "getScheme", R, 1, { UR }, fn_scheme, NULL, NULL, NULL },
	{ "url_get_host", "getHost", R, 1, { UR }, fn_host, NULL, NULL, NULL },
	{ "url_get_hostname", "getHostname", R, 1, { UR }, fn_hostname, NULL, NULL, NULL },
	{ "url_get_port", "getPort", R, 1, { UR }, fn_port, NULL, NULL, NULL },
	{ "url_get_escaped_path", "getEscapedPath", R, 1, { UR }, fn_escaped_path, NULL, NULL, NULL },
	{ "url_get_query", "getQuery", R, 1, { UR }, fn_query, NULL, NULL, NULL },
	{ "is_url_string", "isURL", CEL_OV_GLOBAL, 1, { S }, fn_is_url, NULL, NULL, NULL },
};

int cel_lib_url_register(struct cel_env *env, struct err *e)
{
	int rc = cel_env_add_type(env, &url_type, e);
	if (rc != 0)
		return rc;
	return cel_env_add_overloads(env, url_overloads, ARRAY_SIZE(url_overloads), e);
}
