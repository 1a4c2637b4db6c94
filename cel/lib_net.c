/* IP addresses and CIDR prefixes: Kubernetes' ip and cidr libraries (apiserver
 * pkg/cel/library/ip.go, cidr.go; types net.IP and net.CIDR), which cel-go's network extension
 * (ext/network.go, what cel-spec's network_ext tests exercise) mirrors function for function.
 * Where the two differ, Kubernetes wins: the parse error messages (cidr() wraps its message in
 * "network address parse error during conversion from string: " twice, as upstream does), and
 * no cidr isMask().
 *
 * Parsing, printing and the address predicates are Go's net/netip (ParseAddr, ParsePrefix,
 * Addr.String with RFC 5952 "::" compression, IsGlobalUnicast, ...), with Go's error messages;
 * zones and IPv4-mapped IPv6 addresses are rejected as the libraries reject them (with
 * cel_env_options.spec_semantics, cel-spec's network_ext: an IPv4-mapped address is its IPv4
 * address). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cel_internal.h"
#include "common/macros.h"
#include "lib_internal.h"

struct addr {
	bool v6;
	uint8_t b[16]; /* IPv4: b[0..4) */
};

struct ip {
	struct cel_object hdr;
	struct addr a;
};

struct cidr {
	struct cel_object hdr;
	struct addr a;  /* as written (not masked) */
	int bits;
};

static bool ip_equal(const struct cel_object *x, const struct cel_object *y);
static size_t ip_format(const struct cel_object *o, char *buf, size_t cap);
static bool cidr_equal(const struct cel_object *x, const struct cel_object *y);
static size_t cidr_format(const struct cel_object *o, char *buf, size_t cap);

static const struct cel_object_type ip_type = { { "net.IP", CEL_OBJECT }, ip_equal, NULL, ip_format };
static const struct cel_object_type cidr_type = { { "net.CIDR", CEL_OBJECT }, cidr_equal, NULL, cidr_format };

/* ---- net/netip ---- */

/* A message being built (fixed size: inputs longer than fit are cut in the message only). */
struct msg {
	char s[768];
};

/* strconv.Quote into m at its end. */
static void quote_into(struct msg *m, const char *s, size_t n)
{
	size_t len = strlen(m->s);
	if (len + 8 >= sizeof(m->s))
		return; /* full: the message is cut here */
	char *w = m->s + len, *end = m->s + sizeof(m->s) - 8;
	*w++ = '"';
	/* each byte writes at most 4 ("\\xNN"): stop while that still fits before end */
	for (size_t i = 0; i < n && w + 4 < end; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*w++ = '\\';
			*w++ = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			w += snprintf(w, (size_t)(end - w), "\\x%02x", c);
		} else {
			*w++ = (char)c; /* UTF-8 passes through (Go keeps printable runes) */
		}
	}
	*w++ = '"';
	*w = 0;
}

static void cat(struct msg *m, const char *s)
{
	size_t len = strlen(m->s);
	snprintf(m->s + len, sizeof(m->s) - len, "%s", s);
}

/* parseAddrError: ParseAddr("in"): msg [(at "at")]. Returns false. */
static bool addr_err(struct msg *m, const char *in, size_t n, const char *what, const char *at, size_t atn)
{
	m->s[0] = 0;
	cat(m, "ParseAddr(");
	quote_into(m, in, n);
	cat(m, "): ");
	cat(m, what);
	if (at && atn) {
		cat(m, " (at ");
		quote_into(m, at, atn);
		cat(m, ")");
	}
	return false;
}

static bool parse_v4_fields(const char *in, size_t inn, size_t off, size_t end, uint8_t *fields, struct msg *m)
{
	const char *s = in + off;
	size_t n = end - off;
	int val = 0, pos = 0, dig = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (dig == 1 && val == 0)
				return addr_err(m, in, inn, "IPv4 field has octet with leading zero", NULL, 0);
			val = val * 10 + (s[i] - '0');
			dig++;
			if (val > 255)
				return addr_err(m, in, inn, "IPv4 field has value >255", NULL, 0);
		} else if (s[i] == '.') {
			if (i == 0 || i == n - 1 || s[i - 1] == '.')
				return addr_err(m, in, inn, "IPv4 field must have at least one digit", s + i, n - i);
			if (pos == 3)
				return addr_err(m, in, inn, "IPv4 address too long", NULL, 0);
			fields[pos++] = (uint8_t)val;
			val = 0;
			dig = 0;
		} else {
			return addr_err(m, in, inn, "unexpected character", s + i, n - i);
		}
	}
	if (pos < 3)
		return addr_err(m, in, inn, "IPv4 address too short", NULL, 0);
	fields[3] = (uint8_t)val;
	return true;
}

/* ParseAddr. *has_zone: a %zone followed the address (IPv6 only). */
static bool parse_addr(const char *in, size_t inn, struct addr *a, bool *has_zone, struct msg *m)
{
	memset(a, 0, sizeof(*a));
	*has_zone = false;
	size_t k;
	for (k = 0; k < inn; k++) {
		if (in[k] == '.')
			return parse_v4_fields(in, inn, 0, inn, a->b, m);
		if (in[k] == ':')
			break;
		if (in[k] == '%')
			return addr_err(m, in, inn, "missing IPv6 address", NULL, 0);
	}
	if (k == inn)
		return addr_err(m, in, inn, "unable to parse IP", NULL, 0);
	/* parseIPv6 */
	a->v6 = true;
	const char *s = in;
	size_t n = inn, zone_len = 0;
	const char *pct = memchr(in, '%', inn);
	if (pct) {
		n = (size_t)(pct - in);
		zone_len = inn - n - 1;
		if (zone_len == 0)
			return addr_err(m, in, inn, "zone must be a non-empty string", NULL, 0);
		*has_zone = true;
	}
	uint8_t *ip = a->b;
	int ellipsis = -1;
	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		ellipsis = 0;
		s += 2, n -= 2;
		if (n == 0)
			return true;
	}
	int i = 0;
	while (i < 16) {
		size_t off = 0;
		uint32_t acc = 0;
		for (; off < n; off++) {
			char c = s[off];
			if (c >= '0' && c <= '9')
				acc = (acc << 4) + (uint32_t)(c - '0');
			else if (c >= 'a' && c <= 'f')
				acc = (acc << 4) + (uint32_t)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				acc = (acc << 4) + (uint32_t)(c - 'A' + 10);
			else
				break;
			if (off > 3)
				return addr_err(m, in, inn, "each group must have 4 or less digits", s, n);
			if (acc > 0xffff)
				return addr_err(m, in, inn, "IPv6 field has value >=2^16", s, n);
		}
		if (off == 0)
			return addr_err(m, in, inn, "each colon-separated field must have at least one digit", s, n);
		if (off < n && s[off] == '.') {
			if (ellipsis < 0 && i != 12)
				return addr_err(m, in, inn,
						"embedded IPv4 address must replace the final 2 fields of the address", s, n);
			if (i + 4 > 16)
				return addr_err(m, in, inn,
						"too many hex fields to fit an embedded IPv4 at the end of the address", s, n);
			size_t end = inn - (zone_len ? zone_len + 1 : 0);
			if (!parse_v4_fields(in, inn, end - n, end, ip + i, m))
				return false;
			n = 0;
			i += 4;
			break;
		}
		ip[i] = (uint8_t)(acc >> 8);
		ip[i + 1] = (uint8_t)acc;
		i += 2;
		s += off, n -= off;
		if (n == 0)
			break;
		if (s[0] != ':')
			return addr_err(m, in, inn, "unexpected character, want colon", s, n);
		if (n == 1)
			return addr_err(m, in, inn, "colon must be followed by more characters", s, n);
		s++, n--;
		if (s[0] == ':') {
			if (ellipsis >= 0)
				return addr_err(m, in, inn, "multiple :: in address", s, n);
			ellipsis = i;
			s++, n--;
			if (n == 0)
				break;
		}
	}
	if (n != 0)
		return addr_err(m, in, inn, "trailing garbage after address", s, n);
	if (i < 16) {
		if (ellipsis < 0)
			return addr_err(m, in, inn, "address string too short", NULL, 0);
		int shift = 16 - i;
		for (int j = i - 1; j >= ellipsis; j--)
			ip[j + shift] = ip[j];
		memset(ip + ellipsis, 0, (size_t)shift);
	} else if (ellipsis >= 0) {
		return addr_err(m, in, inn, "the :: must expand to at least one field of zeros", NULL, 0);
	}
	return true;
}

static bool is_4in6(const struct addr *a)
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return a->v6 && memcmp(a->b, pre, 12) == 0;
}

static uint16_t u16(const struct addr *a, int i) { return (uint16_t)(a->b[2 * i] << 8 | a->b[2 * i + 1]); }

/* Addr.String (no zones here: they are rejected). */
static size_t addr_string(const struct addr *a, char *buf, size_t cap)
{
	if (!a->v6)
		return (size_t)snprintf(buf, cap, "%u.%u.%u.%u", a->b[0], a->b[1], a->b[2], a->b[3]);
	if (is_4in6(a))
		return (size_t)snprintf(buf, cap, "::ffff:%u.%u.%u.%u", a->b[12], a->b[13], a->b[14], a->b[15]);
	int zs = 255, ze = 255;
	for (int i = 0; i < 8; i++) {
		int j = i;
		while (j < 8 && u16(a, j) == 0)
			j++;
		if (j - i >= 2 && j - i > ze - zs)
			zs = i, ze = j;
	}
	char tmp[64];
	size_t len = 0;
	for (int i = 0; i < 8; i++) {
		if (i == zs) {
			tmp[len++] = ':';
			tmp[len++] = ':';
			i = ze;
			if (i >= 8)
				break;
		} else if (i > 0) {
			tmp[len++] = ':';
		}
		len += (size_t)snprintf(tmp + len, sizeof(tmp) - len, "%x", u16(a, i));
	}
	tmp[len] = 0;
	return (size_t)snprintf(buf, cap, "%s", tmp);
}

static bool addr_eq(const struct addr *x, const struct addr *y)
{
	return x->v6 == y->v6 && memcmp(x->b, y->b, x->v6 ? 16 : 4) == 0;
}

static int nbits(const struct addr *a) { return a->v6 ? 128 : 32; }

static void mask(struct addr *a, int bits)
{
	int n = a->v6 ? 16 : 4;
	for (int i = 0; i < n; i++) {
		int keep = bits - i * 8;
		if (keep >= 8)
			continue;
		a->b[i] &= keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
	}
}

/* Prefix.Contains */
static bool prefix_contains(const struct cidr *c, const struct addr *ip)
{
	if (c->a.v6 != ip->v6)
		return false;
	struct addr x = *ip, p = c->a;
	mask(&x, c->bits);
	mask(&p, c->bits);
	return addr_eq(&x, &p);
}

/* Prefix.Overlaps */
static bool prefix_overlaps(const struct cidr *p, const struct cidr *o)
{
	if (p->a.v6 != o->a.v6)
		return false;
	int minb = p->bits < o->bits ? p->bits : o->bits;
	if (minb == 0)
		return true;
	struct addr x = p->a, y = o->a;
	mask(&x, minb);
	mask(&y, minb);
	return addr_eq(&x, &y);
}

static bool is_multicast(const struct addr *a) { return a->v6 ? a->b[0] == 0xff : (a->b[0] & 0xf0) == 0xe0; }

/* The v4 view of an address (Unmap of a 4in6 one); returns whether it is v4 then. */
static bool as4(const struct addr *a, uint8_t v4[4])
{
	if (!a->v6) {
		memcpy(v4, a->b, 4);
		return true;
	}
	if (is_4in6(a)) {
		memcpy(v4, a->b + 12, 4);
		return true;
	}
	return false;
}

static bool is_loopback(const struct addr *a)
{
	uint8_t v4[4];
	if (as4(a, v4))
		return v4[0] == 127;
	static const uint8_t one[16] = { [15] = 1 };
	return memcmp(a->b, one, 16) == 0;
}

static bool is_link_local_unicast(const struct addr *a)
{
	uint8_t v4[4];
	if (as4(a, v4))
		return v4[0] == 169 && v4[1] == 254;
	return (u16(a, 0) & 0xffc0) == 0xfe80;
}

static bool is_link_local_multicast(const struct addr *a)
{
	uint8_t v4[4];
	if (as4(a, v4))
		return v4[0] == 224 && v4[1] == 0 && v4[2] == 0;
	return (u16(a, 0) & 0xff0f) == 0xff02;
}

static bool is_unspecified(const struct addr *a)
{
	static const uint8_t zero[16];
	return memcmp(a->b, zero, a->v6 ? 16 : 4) == 0;
}

static bool is_global_unicast(const struct addr *a)
{
	uint8_t v4[4];
	struct addr u = *a;
	if (as4(a, v4)) {
		u.v6 = false;
		memcpy(u.b, v4, 4);
		memset(u.b + 4, 0, 12);
		static const uint8_t bcast[4] = { 255, 255, 255, 255 };
		if (is_unspecified(&u) || memcmp(v4, bcast, 4) == 0)
			return false;
	}
	if (u.v6 && is_unspecified(&u))
		return false;
	return !is_loopback(&u) && !is_multicast(&u) && !is_link_local_unicast(&u);
}

/* netip.ParseAddr for other libraries (lib_internal.h). */
bool cel_lib_parse_addr(const char *s, size_t n, bool *v6, char *msg, size_t cap)
{
	struct addr a;
	bool zone;
	struct msg m;
	if (!parse_addr(s, n, &a, &zone, &m)) {
		snprintf(msg, cap, "%s", m.s);
		return false;
	}
	*v6 = a.v6;
	return true;
}

/* ---- the libraries' parsing ---- */

/* parseIPAddr (ip.go): the error message in m. spec: cel-spec's network_ext, which rejects
 * the dotted form ip('::ffff:192.168.0.1') (parse_invalid_ipv4_in_ipv6) but takes the hex form
 * as the IPv4 address, ip('::ffff:c0a8:1') == ip('192.168.0.1') (ipv4_equals_ipv6): so a mapped
 * address written without a dot is unmapped (netip's Addr.Unmap) instead of rejected. */
static bool parse_ip(const char *s, size_t n, struct addr *a, struct msg *m, bool spec)
{
	bool zone;
	struct msg inner;
	if (!parse_addr(s, n, a, &zone, &inner)) {
		m->s[0] = 0;
		cat(m, "IP Address ");
		quote_into(m, s, n);
		cat(m, " parse error during conversion from string: ");
		cat(m, inner.s);
		return false;
	}
	if (zone) {
		m->s[0] = 0;
		cat(m, "IP address ");
		quote_into(m, s, n);
		cat(m, " with zone value is not allowed");
		return false;
	}
	if (is_4in6(a) && spec && !memchr(s, '.', n)) {
		uint8_t v4[4];
		memcpy(v4, a->b + 12, 4);
		memset(a, 0, sizeof(*a));
		memcpy(a->b, v4, 4);
		return true;
	}
	if (is_4in6(a)) {
		m->s[0] = 0;
		cat(m, "IPv4-mapped IPv6 address ");
		quote_into(m, s, n);
		cat(m, " is not allowed");
		return false;
	}
	return true;
}

/* strconv.Atoi for the prefix length: false when not a (possibly signed) decimal int. */
static bool go_atoi(const char *s, size_t n, long long *v)
{
	size_t i = 0;
	bool neg = false;
	if (n > 0 && (s[0] == '+' || s[0] == '-'))
		neg = s[i++] == '-';
	if (i == n)
		return false;
	long long x = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (x > (INT64_MAX - (s[i] - '0')) / 10)
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = neg ? -x : x;
	return true;
}

/* parseCIDR (cidr.go) over netip.ParsePrefix: the message in m. */
static bool parse_cidr(const char *s, size_t n, struct cidr *c, struct msg *m)
{
	struct msg inner;
	const char *what = NULL;
	const char *slash = NULL;
	for (size_t i = n; i-- > 0;)
		if (s[i] == '/') {
			slash = s + i;
			break;
		}
	bool zone = false;
	struct msg addrm;
	if (!slash) {
		what = "no '/'";
	} else if (!parse_addr(s, (size_t)(slash - s), &c->a, &zone, &addrm)) {
		what = addrm.s;
	} else if (c->a.v6 && zone) {
		what = "IPv6 zones cannot be present in a prefix";
	} else {
		const char *bs = slash + 1;
		size_t bn = n - (size_t)(bs - s);
		long long bits;
		if ((bn > 1 && (bs[0] < '1' || bs[0] > '9')) || !go_atoi(bs, bn, &bits)) {
			struct msg q = { "" };
			cat(&q, "bad bits after slash: ");
			quote_into(&q, bs, bn);
			memcpy(addrm.s, q.s, sizeof(addrm.s));
			what = addrm.s;
		} else if (bits < 0 || bits > nbits(&c->a)) {
			what = "prefix length out of range";
		} else {
			c->bits = (int)bits;
		}
	}
	if (what) {
		inner.s[0] = 0;
		cat(&inner, "netip.ParsePrefix(");
		quote_into(&inner, s, n);
		cat(&inner, "): ");
		cat(&inner, what);
		m->s[0] = 0;
		cat(m, "network address parse error during conversion from string: ");
		cat(m, inner.s);
		return false;
	}
	if (is_4in6(&c->a)) {
		m->s[0] = 0;
		cat(m, "IPv4-mapped IPv6 address ");
		quote_into(m, s, n);
		cat(m, " is not allowed");
		return false;
	}
	return true;
}

/* ---- object types ---- */

static bool ip_equal(const struct cel_object *x, const struct cel_object *y)
{
	return addr_eq(&((const struct ip *)x)->a, &((const struct ip *)y)->a);
}

static size_t ip_format(const struct cel_object *o, char *buf, size_t cap)
{
	char s[64];
	addr_string(&((const struct ip *)o)->a, s, sizeof(s));
	return (size_t)snprintf(buf, cap, "ip(\"%s\")", s);
}

static bool cidr_equal(const struct cel_object *x, const struct cel_object *y)
{
	const struct cidr *a = (const struct cidr *)x, *b = (const struct cidr *)y;
	return a->bits == b->bits && addr_eq(&a->a, &b->a);
}

static size_t cidr_string(const struct cidr *c, char *buf, size_t cap)
{
	char s[64];
	addr_string(&c->a, s, sizeof(s));
	return (size_t)snprintf(buf, cap, "%s/%d", s, c->bits);
}

static size_t cidr_format(const struct cel_object *o, char *buf, size_t cap)
{
	char s[80];
	cidr_string((const struct cidr *)o, s, sizeof(s));
	return (size_t)snprintf(buf, cap, "cidr(\"%s\")", s);
}

static int new_ip(struct cel_eval *ev, const struct addr *a, cel_value *out)
{
	struct ip *p = cel_alloc(ev, sizeof(*p));
	if (!p)
		return CEL_NOMEM;
	p->hdr.type = &ip_type;
	p->a = *a;
	*out = cel_object_value(&p->hdr);
	return 0;
}

static int new_cidr(struct cel_eval *ev, const struct cidr *c, cel_value *out)
{
	struct cidr *p = cel_alloc(ev, sizeof(*p));
	if (!p)
		return CEL_NOMEM;
	*p = *c;
	p->hdr.type = &cidr_type;
	*out = cel_object_value(&p->hdr);
	return 0;
}

#define IPA(v) (&((const struct ip *)(v).obj)->a)
#define CIDRA(v) ((const struct cidr *)(v).obj)

/* ---- ip ---- */

static int fn_ip(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct addr ad;
	struct msg m;
	if (!parse_ip(a[0].s, a[0].n, &ad, &m, cel_eval_spec_semantics(ev)))
		return cel_error(ev, out, "%s", m.s);
	return new_ip(ev, &ad, out);
}

static int fn_is_ip(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct addr ad;
	struct msg m;
	*out = cel_bool(parse_ip(a[0].s, a[0].n, &ad, &m, cel_eval_spec_semantics(ev)));
	return 0;
}

static int fn_is_canonical(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct addr ad;
	struct msg m;
	if (!parse_ip(a[0].s, a[0].n, &ad, &m, cel_eval_spec_semantics(ev)))
		return cel_error(ev, out, "%s", m.s);
	char s[64];
	size_t len = addr_string(&ad, s, sizeof(s));
	*out = cel_bool(len == a[0].n && memcmp(s, a[0].s, len) == 0);
	return 0;
}

static int fn_ip_string(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	char s[64];
	size_t len = addr_string(IPA(a[0]), s, sizeof(s));
	return cel_new_string(ev, s, len, out);
}

static int fn_family(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(IPA(a[0])->v6 ? 6 : 4);
	return 0;
}

#define PRED(name, test)                                                                       \
	static int name(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)     \
	{                                                                                      \
		(void)ev, (void)n;                                                             \
		*out = cel_bool(test(IPA(a[0])));                                             \
		return 0;                                                                      \
	}
PRED(fn_is_unspecified, is_unspecified)
PRED(fn_is_loopback, is_loopback)
PRED(fn_is_link_local_multicast, is_link_local_multicast)
PRED(fn_is_link_local_unicast, is_link_local_unicast)
PRED(fn_is_global_unicast, is_global_unicast)

/* ---- cidr ---- */

static int fn_cidr(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct cidr c = { 0 };
	struct msg m;
	if (!parse_cidr(a[0].s, a[0].n, &c, &m))
		return cel_error(ev, out, "network address parse error during conversion from string: %s", m.s);
	return new_cidr(ev, &c, out);
}

static int fn_is_cidr(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	struct cidr c = { 0 };
	struct msg m;
	*out = cel_bool(parse_cidr(a[0].s, a[0].n, &c, &m));
	return 0;
}

static int fn_cidr_string(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	char s[80];
	size_t len = cidr_string(CIDRA(a[0]), s, sizeof(s));
	return cel_new_string(ev, s, len, out);
}

static int fn_contains_ip(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct addr ad;
	if (a[1].kind == CEL_STRING) {
		/* cidrContainsIP(arg, stringToIP(other)) answers a failed parse with
		 * MaybeNoSuchOverloadErr(arg): the parse error is lost */
		struct msg m;
		if (!parse_ip(a[1].s, a[1].n, &ad, &m, cel_eval_spec_semantics(ev)))
			return cel_error(ev, out, "no such overload");
	} else {
		ad = *IPA(a[1]);
	}
	*out = cel_bool(prefix_contains(CIDRA(a[0]), &ad));
	return 0;
}

static int fn_contains_cidr(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct cidr c = { 0 };
	if (a[1].kind == CEL_STRING) {
		struct msg m;
		if (!parse_cidr(a[1].s, a[1].n, &c, &m))
			return cel_error(ev, out, "network address parse error during conversion from string: %s", m.s);
	} else {
		c = *CIDRA(a[1]);
	}
	const struct cidr *p = CIDRA(a[0]);
	*out = cel_bool(prefix_overlaps(p, &c) && p->bits <= c.bits);
	return 0;
}

static int fn_cidr_ip(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	return new_ip(ev, &CIDRA(a[0])->a, out);
}

static int fn_masked(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)n;
	struct cidr c = *CIDRA(a[0]);
	mask(&c.a, c.bits);
	return new_cidr(ev, &c, out);
}

static int fn_prefix_length(struct cel_eval *ev, const cel_value *a, size_t n, cel_value *out)
{
	(void)ev, (void)n;
	*out = cel_int(CIDRA(a[0])->bits);
	return 0;
}

/* ---- Kubernetes' CostEstimator (library/cost.go) ---- */

static uint64_t ceil_tenth(uint64_t size, double f) { return (uint64_t)ceil((double)size * f * 0.1); }

static uint64_t cost_parse(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return ceil_tenth(cel_utf8_count(a[0].s, a[0].n), 1);
}

static uint64_t cost_canonical(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	return (uint64_t)ceil((double)cel_utf8_count(a[0].s, a[0].n) * 2 * 0.1);
}

/* actualSize of a net.CIDR: its prefix length in bytes, ceil(bits / 8) (apiserver cel/cidr.go Size) */
static uint64_t cidr_size(const cel_value *v) { return (uint64_t)(CIDRA(*v)->bits + 7) / 8; }

/* containsIP: ceil((cidrSize + cidrSize) * 0.1), + ceil(0.1 * size) to parse a string */
static uint64_t cost_contains_ip(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	uint64_t cs = cidr_size(&a[0]);
	uint64_t c = (uint64_t)ceil((double)(cs + cs) * 0.1);
	if (a[1].kind == CEL_STRING)
		c += ceil_tenth(cel_utf8_count(a[1].s, a[1].n), 1);
	return c;
}

/* containsCIDR: that + ceil(cidrSize * 0.1) + 1 (masking the base prefix) */
static uint64_t cost_contains_cidr(const cel_value *a, size_t n, const cel_value *r)
{
	(void)n, (void)r;
	uint64_t cs = cidr_size(&a[0]);
	uint64_t c = (uint64_t)ceil((double)(cs + cs) * 0.1) + (uint64_t)ceil((double)cs * 0.1) + 1;
	if (a[1].kind == CEL_STRING)
		c += ceil_tenth(cel_utf8_count(a[1].s, a[1].n), 1);
	return c;
}

#define S { CEL_STRING, NULL }
#define IP { CEL_OBJECT, &ip_type }
#define CI { CEL_OBJECT, &cidr_type }
#define R CEL_OV_RECEIVER
#define G CEL_OV_GLOBAL

static const struct cel_overload net_overloads[] = {
	{ "string_to_ip", "ip", G, 1, { S }, fn_ip, NULL, NULL, cost_parse },
	{ "ip_family", "family", R, 1, { IP }, fn_family, NULL, NULL, NULL },
	{ "ip_is_canonical", "ip.isCanonical", G, 1, { S }, fn_is_canonical, NULL, NULL, cost_canonical },
	{ "ip_is_unspecified", "isUnspecified", R, 1, { IP }, fn_is_unspecified, NULL, NULL, NULL },
	{ "ip_is_loopback", "isLoopback", R, 1, { IP }, fn_is_loopback, NULL, NULL, NULL },
	{ "ip_is_link_local_multicast", "isLinkLocalMulticast", R, 1, { IP }, fn_is_link_local_multicast, NULL, NULL,
	  NULL },
	{ "ip_is_link_local_unicast", "isLinkLocalUnicast", R, 1, { IP }, fn_is_link_local_unicast, NULL, NULL, NULL },
	{ "ip_is_global_unicast", "isGlobalUnicast", R, 1, { IP }, fn_is_global_unicast, NULL, NULL, NULL },
	{ "is_ip", "isIP", G, 1, { S }, fn_is_ip, NULL, NULL, cost_parse },
	{ "ip_to_string", "string", G, 1, { IP }, fn_ip_string, NULL, NULL, NULL },
	{ "string_to_cidr", "cidr", G, 1, { S }, fn_cidr, NULL, NULL, cost_parse },
	{ "cidr_contains_ip_string", "containsIP", R, 2, { CI, S }, fn_contains_ip, NULL, NULL, cost_contains_ip },
	{ "cidr_contains_ip_ip", "containsIP", R, 2, { CI, IP }, fn_contains_ip, NULL, NULL, cost_contains_ip },
	{ "cidr_contains_cidr_string", "containsCIDR", R, 2, { CI, S }, fn_contains_cidr, NULL, NULL,
	  cost_contains_cidr },
	{ "cidr_contains_cidr", "containsCIDR", R, 2, { CI, CI }, fn_contains_cidr, NULL, NULL, cost_contains_cidr },
	{ "cidr_ip", "ip", R, 1, { CI }, fn_cidr_ip, NULL, NULL, NULL },
	{ "cidr_prefix_length", "prefixLength", R, 1, { CI }, fn_prefix_length, NULL, NULL, NULL },
	{ "cidr_masked", "masked", R, 1, { CI }, fn_masked, NULL, NULL, NULL },
	{ "is_cidr", "isCIDR", G, 1, { S }, fn_is_cidr, NULL, NULL, cost_parse },
	{ "cidr_to_string", "string", G, 1, { CI }, fn_cidr_string, NULL, NULL, NULL },
};

int cel_lib_net_register(struct cel_env *env, struct err *e)
{
	int rc = cel_env_add_type(env, &ip_type, e);
	if (rc == 0)
		rc = cel_env_add_type(env, &cidr_type, e);
	if (rc != 0)
		return rc;
	return cel_env_add_overloads(env, net_overloads, ARRAY_SIZE(net_overloads), e);
}
