/* The value model: constructors, lists and maps, equality, ordering, UTF-8, type names. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "eval_internal.h"

cel_value cel_null(void) { return (cel_value){ .kind = CEL_NULL }; }
cel_value cel_bool(bool b) { cel_value v = { .kind = CEL_BOOL }; v.b = b; return v; }
cel_value cel_int(int64_t i) { cel_value v = { .kind = CEL_INT }; v.i = i; return v; }
cel_value cel_uint(uint64_t u) { cel_value v = { .kind = CEL_UINT }; v.u = u; return v; }
cel_value cel_double(double d) { cel_value v = { .kind = CEL_DOUBLE }; v.d = d; return v; }

cel_value cel_string(const char *s, size_t len)
{
	cel_value v = { .kind = CEL_STRING, .n = (uint32_t)len };
	v.s = s;
	return v;
}

cel_value cel_bytes(const void *p, size_t len)
{
	cel_value v = { .kind = CEL_BYTES, .n = (uint32_t)len };
	v.s = p;
	return v;
}

cel_value cel_timestamp(int64_t seconds, uint32_t nanos)
{
	cel_value v = { .kind = CEL_TIMESTAMP, .n = nanos };
	v.i = seconds;
	return v;
}

cel_value cel_duration(int64_t nanos) { cel_value v = { .kind = CEL_DURATION }; v.i = nanos; return v; }

/* ---- types ---- */

static const struct cel_type kind_types[CEL_KIND_COUNT] = {
	[CEL_NULL] = { "null_type", CEL_NULL },
	[CEL_BOOL] = { "bool", CEL_BOOL },
	[CEL_INT] = { "int", CEL_INT },
	[CEL_UINT] = { "uint", CEL_UINT },
	[CEL_DOUBLE] = { "double", CEL_DOUBLE },
	[CEL_STRING] = { "string", CEL_STRING },
	[CEL_BYTES] = { "bytes", CEL_BYTES },
	[CEL_LIST] = { "list", CEL_LIST },
	[CEL_MAP] = { "map", CEL_MAP },
	[CEL_TYPE] = { "type", CEL_TYPE },
	[CEL_TIMESTAMP] = { "google.protobuf.Timestamp", CEL_TIMESTAMP },
	[CEL_DURATION] = { "google.protobuf.Duration", CEL_DURATION },
	[CEL_OPTIONAL] = { "optional_type", CEL_OPTIONAL },
	[CEL_OBJECT] = { "object", CEL_OBJECT },
	[CEL_ERROR] = { "*types.Err", CEL_ERROR },
};
const struct cel_type cel_type_type = { "type", CEL_TYPE };

const struct cel_type *cel_type_of_kind(enum cel_kind k)
{
	return k < CEL_KIND_COUNT ? &kind_types[k] : NULL;
}

const char *cel_kind_name(enum cel_kind k)
{
	return k < CEL_KIND_COUNT ? kind_types[k].name : "unknown";
}

const char *cel_type_name(const struct cel_type *t) { return t->name; }

const char *cel_value_type_name(cel_value v)
{
	if (v.kind == CEL_OBJECT)
		return v.obj->type->type.name;
	return cel_kind_name(v.kind);
}

const char *cel_error_message(cel_value v) { return v.kind == CEL_ERROR ? v.s : ""; }

/* ---- UTF-8 ---- */

int32_t cel_utf8_next(const char *s, size_t len, size_t *i)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k = *i;
	if (k >= len)
		return -1;
	uint32_t c = p[k];
	if (c < 0x80) {
		*i = k + 1;
		return (int32_t)c;
	}
	int need;
	uint32_t min;
	if ((c & 0xe0) == 0xc0) { need = 1; c &= 0x1f; min = 0x80; }
	else if ((c & 0xf0) == 0xe0) { need = 2; c &= 0x0f; min = 0x800; }
	else if ((c & 0xf8) == 0xf0) { need = 3; c &= 0x07; min = 0x10000; }
	else return -1;
	if (k + (size_t)need >= len)
		return -1;
	for (int j = 1; j <= need; j++) {
		if ((p[k + j] & 0xc0) != 0x80)
			return -1;
		c = (c << 6) | (p[k + j] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -1;
	*i = k + 1 + (size_t)need;
	return (int32_t)c;
}

bool cel_utf8_valid(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if (cel_utf8_next(s, len, &i) < 0)
			return false;
	}
	return true;
}

/* Code points = bytes - continuation bytes (10xxxxxx), eight bytes at a time: a byte is a
 * continuation byte when its bit 7 is set and bit 6 clear. */
size_t cel_utf8_count(const char *s, size_t len)
{
	size_t cont = 0, i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		/* one bit per continuation byte at bit 0 of its byte, summed into the top byte by a
		 * multiplication (no popcount instruction needed) */
		uint64_t y = ((x & ~(x << 1)) & 0x8080808080808080ull) >> 7;
		cont += (size_t)((y * 0x0101010101010101ull) >> 56);
	}
	for (; i < len; i++)
		cont += ((unsigned char)s[i] & 0xc0) == 0x80;
	return len - cont;
}

size_t cel_utf8_put(char *buf, uint32_t c)
{
	unsigned char *b = (unsigned char *)buf;
	if (c < 0x80) {
		b[0] = (unsigned char)c;
		return 1;
	}
	if (c < 0x800) {
		b[0] = (unsigned char)(0xc0 | (c >> 6));
		b[1] = (unsigned char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		b[0] = (unsigned char)(0xe0 | (c >> 12));
		b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (c & 0x3f));
		return 3;
	}
	b[0] = (unsigned char)(0xf0 | (c >> 18));
	b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
	b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
	b[3] = (unsigned char)(0x80 | (c & 0x3f));
	return 4;
}

/* ---- numbers across kinds ---- */

/* -1, 0, 1 for a vs b; 2 when unordered (NaN). */
static int cmp_int_uint(int64_t a, uint64_t b)
{
	if (a < 0)
		return -1;
	return (uint64_t)a < b ? -1 : (uint64_t)a > b;
}

static int cmp_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		return 2;
	return a < b ? -1 : a > b;
}

static int cmp_int_double(int64_t a, double b)
{
	if (isnan(b))
		return 2;
	/* cel-go compareDoubleInt: beyond the int range (as doubles) first, then as doubles */
	if (b < -9223372036854775808.0)
		return 1;
	if (b > 9223372036854775808.0)
		return -1;
	return cmp_double((double)a, b);
}

static int cmp_uint_double(uint64_t a, double b)
{
	if (isnan(b))
		return 2;
	if (b < 0)
		return 1;
	if (b > 18446744073709551616.0)
		return -1;
	return cmp_double((double)a, b);
}

static bool is_num(uint8_t k) { return k == CEL_INT || k == CEL_UINT || k == CEL_DOUBLE; }

static int cmp_num(cel_value a, cel_value b)
{
	switch (a.kind * 16 + b.kind) {
	case CEL_INT * 16 + CEL_INT: return a.i < b.i ? -1 : a.i > b.i;
	case CEL_UINT * 16 + CEL_UINT: return a.u < b.u ? -1 : a.u > b.u;
	case CEL_DOUBLE * 16 + CEL_DOUBLE: return cmp_double(a.d, b.d);
	case CEL_INT * 16 + CEL_UINT: return cmp_int_uint(a.i, b.u);
	case CEL_UINT * 16 + CEL_INT: return -cmp_int_uint(b.i, a.u);
	case CEL_INT * 16 + CEL_DOUBLE: return cmp_int_double(a.i, b.d);
	case CEL_DOUBLE * 16 + CEL_INT: { int c = cmp_int_double(b.i, a.d); return c == 2 ? 2 : -c; }
	case CEL_UINT * 16 + CEL_DOUBLE: return cmp_uint_double(a.u, b.d);
	case CEL_DOUBLE * 16 + CEL_UINT: { int c = cmp_uint_double(b.u, a.d); return c == 2 ? 2 : -c; }
	}
	return 2;
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
	size_t m = an < bn ? an : bn;
	int c = m ? memcmp(a, b, m) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

int cel_value_compare(cel_value a, cel_value b, int *cmp)
{
	if (is_num(a.kind) && is_num(b.kind)) {
		*cmp = cmp_num(a, b);
		return 0;
	}
	if (a.kind != b.kind)
		return -1;
	switch (a.kind) {
	case CEL_BOOL:
		*cmp = a.b < b.b ? -1 : a.b > b.b;
		return 0;
	case CEL_STRING: /* UTF-8 byte order is code point order */
	case CEL_BYTES:
		*cmp = cmp_bytes(a.s, a.n, b.s, b.n);
		return 0;
	case CEL_TIMESTAMP:
		*cmp = a.i != b.i ? (a.i < b.i ? -1 : 1) : (a.n < b.n ? -1 : a.n > b.n);
		return 0;
	case CEL_DURATION:
		*cmp = a.i < b.i ? -1 : a.i > b.i;
		return 0;
	case CEL_OBJECT:
		if (a.obj->type != b.obj->type || !a.obj->type->compare)
			return -1;
		{
			int c = a.obj->type->compare(a.obj, b.obj);
			*cmp = c < 0 ? -1 : c > 0;
		}
		return 0;
	}
	return -1;
}

bool cel_value_equal(cel_value a, cel_value b)
{
	if (is_num(a.kind) && is_num(b.kind))
		return cmp_num(a, b) == 0;
	if (a.kind != b.kind)
		return false;
	switch (a.kind) {
	case CEL_NULL:
		return true;
	case CEL_BOOL:
		return a.b == b.b;
	case CEL_STRING:
	case CEL_BYTES:
		return a.n == b.n && (a.n == 0 || memcmp(a.s, b.s, a.n) == 0);
	case CEL_TIMESTAMP:
		return a.i == b.i && a.n == b.n;
	case CEL_DURATION:
		return a.i == b.i;
	case CEL_TYPE:
		return a.type == b.type || strcmp(a.type->name, b.type->name) == 0;
	case CEL_OPTIONAL:
		if (!a.opt || !b.opt)
			return a.opt == b.opt;
		return cel_value_equal(*a.opt, *b.opt);
	case CEL_OBJECT:
		return a.obj->type == b.obj->type && a.obj->type->equal(a.obj, b.obj);
	case CEL_LIST:
		if (a.list->n != b.list->n)
			return false;
		for (uint32_t i = 0; i < a.list->n; i++)
			if (!cel_value_equal(a.list->items[i], b.list->items[i]))
				return false;
		return true;
	case CEL_MAP:
		if (a.map->n != b.map->n)
			return false;
		for (uint32_t i = 0; i < a.map->n; i++) {
			cel_value bv;
			if (!cel_map_find(b.map, a.map->keys[i], &bv) || !cel_value_equal(a.map->vals[i], bv))
				return false;
		}
		return true;
	}
	return false;
}

/* ---- lists ---- */

struct cel_list *cel_list_new(size_t n)
{
	if (n > UINT32_MAX)
		return NULL;
	struct cel_list *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->items = calloc(n ? n : 1, sizeof(cel_value));
	if (!l->items) {
		free(l);
		return NULL;
	}
	l->n = (uint32_t)n;
	l->cap = (uint32_t)(n ? n : 1);
	return l;
}

int cel_list_set(struct cel_list *l, size_t i, cel_value v)
{
	if (i >= l->n)
		return ERR_INVALID;
	l->items[i] = v;
	return 0;
}

cel_value cel_list_value(const struct cel_list *l)
{
	cel_value v = { .kind = CEL_LIST };
	v.list = l;
	return v;
}

void cel_list_free(struct cel_list *l)
{
	if (!l)
		return;
	free(l->items);
	free(l);
}

size_t cel_list_size(const struct cel_list *l) { return l->n; }
cel_value cel_list_get(const struct cel_list *l, size_t i) { return l->items[i]; }

/* ---- maps ---- */

static bool key_kind_ok(uint8_t k) { return k == CEL_BOOL || k == CEL_INT || k == CEL_UINT || k == CEL_STRING; }

/* Keys equal under CEL: 1 == 1u; strings by bytes. (Double keys never get stored.) */
static bool key_equal(cel_value a, cel_value b)
{
	if (a.kind == CEL_STRING)
		return b.kind == CEL_STRING && a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
	if (a.kind == CEL_BOOL)
		return b.kind == CEL_BOOL && a.b == b.b;
	if ((a.kind == CEL_INT || a.kind == CEL_UINT) && (b.kind == CEL_INT || b.kind == CEL_UINT))
		return cmp_num(a, b) == 0;
	return false;
}

static uint32_t key_hash(cel_value k)
{
	uint64_t h;
	switch (k.kind) {
	case CEL_STRING:
		h = 1469598103934665603ull;
		for (uint32_t i = 0; i < k.n; i++)
			h = (h ^ (unsigned char)k.s[i]) * 1099511628211ull;
		break;
	case CEL_BOOL:
		h = k.b ? 0x9e3779b97f4a7c15ull : 0x7f4a7c159e3779b9ull;
		break;
	default: /* int and uint of one value hash alike: negative ints are never equal to a uint */
		h = (uint64_t)k.i * 0x9e3779b97f4a7c15ull;
		break;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* Normalizes a lookup key: an integral double finds int/uint keys (cel-spec heterogeneous
 * equality); false when no key can equal it. */
static bool lookup_key(cel_value *k)
{
	if (k->kind == CEL_DOUBLE) {
		double d = k->d;
		if (d != d || d != trunc(d))
			return false;
		if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
			*k = cel_int((int64_t)d);
			return true;
		}
		if (d >= 0 && d < 18446744073709551616.0) {
			*k = cel_uint((uint64_t)d);
			return true;
		}
		return false;
	}
	if (k->kind == CEL_UINT && k->u <= INT64_MAX)
		*k = cel_int((int64_t)k->u); /* for the hash: int and uint keys of a value hash alike */
	return key_kind_ok(k->kind);
}

static int64_t map_index_of(const struct cel_map *m, cel_value k)
{
	if (!m->index) {
		if (k.kind == CEL_STRING) {
			/* the common case (attribute names): length and first byte before memcmp */
			for (uint32_t i = 0; i < m->n; i++) {
				const cel_value *e = &m->keys[i];
				if (e->kind == CEL_STRING && e->n == k.n &&
				    (k.n == 0 || (e->s[0] == k.s[0] && memcmp(e->s, k.s, k.n) == 0)))
					return i;
			}
			return -1;
		}
		for (uint32_t i = 0; i < m->n; i++)
			if (key_equal(m->keys[i], k))
				return i;
		return -1;
	}
	uint32_t h = key_hash(k);
	for (uint32_t p = h & m->mask;; p = (p + 1) & m->mask) {
		uint32_t e = m->index[p];
		if (!e)
			return -1;
		if (key_equal(m->keys[e - 1], k))
			return e - 1;
	}
}

bool cel_map_find(const struct cel_map *m, cel_value key, cel_value *val)
{
	if (!lookup_key(&key))
		return false;
	int64_t i = map_index_of(m, key);
	if (i < 0)
		return false;
	if (val)
		*val = m->vals[i];
	return true;
}

size_t cel_map_size(const struct cel_map *m) { return m->n; }

void cel_map_set_default(struct cel_map *m, cel_value v)
{
	m->dflt = v;
	m->has_dflt = true;
}

void cel_map_entry(const struct cel_map *m, size_t i, cel_value *key, cel_value *val)
{
	if (key)
		*key = m->keys[i];
	if (val)
		*val = m->vals[i];
}

cel_value cel_map_value(const struct cel_map *m)
{
	cel_value v = { .kind = CEL_MAP };
	v.map = m;
	return v;
}

/* Inserts entry i into the index (which has room). */
static void index_insert(struct cel_map *m, uint32_t i)
{
	cel_value k = m->keys[i];
	lookup_key(&k);
	for (uint32_t p = key_hash(k) & m->mask;; p = (p + 1) & m->mask)
		if (!m->index[p]) {
			m->index[p] = i + 1;
			return;
		}
}

/* The index size for n entries: a power of two at least 2n. */
static uint32_t index_slots(uint32_t n)
{
	uint32_t s = 16;
	while (s < 2 * n)
		s *= 2;
	return s;
}

struct cel_map *cel_map_new(size_t capacity)
{
	if (capacity > UINT32_MAX / 4)
		return NULL;
	struct cel_map *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cap = (uint32_t)(capacity ? capacity : 4);
	m->keys = malloc(m->cap * sizeof(cel_value));
	m->vals = malloc(m->cap * sizeof(cel_value));
	if (!m->keys || !m->vals) {
		cel_map_free(m);
		return NULL;
	}
	return m;
}

void cel_map_free(struct cel_map *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	free(m->index);
	free(m);
}

int cel_map_put(struct cel_map *m, cel_value key, cel_value val)
{
	cel_value k = key;
	if (!key_kind_ok(key.kind) || !lookup_key(&k))
		return ERR_INVALID;
	int64_t i = map_index_of(m, k);
	if (i >= 0) {
		m->vals[i] = val;
		return 0;
	}
	if (m->n == m->cap) {
		uint32_t cap = m->cap * 2;
		cel_value *nk = realloc(m->keys, cap * sizeof(cel_value));
		if (!nk)
			return ERR_NOMEM;
		m->keys = nk;
		cel_value *nv = realloc(m->vals, cap * sizeof(cel_value));
		if (!nv)
			return ERR_NOMEM;
		m->vals = nv;
		m->cap = cap;
	}
	m->keys[m->n] = key;
	m->vals[m->n] = val;
	m->n++;
	if (m->n > CEL_MAP_LINEAR && (!m->index || m->n * 2 > m->mask + 1)) {
		uint32_t slots = index_slots(m->n);
		uint32_t *idx = calloc(slots, sizeof(uint32_t));
		if (!idx) {
			m->n--;
			return ERR_NOMEM;
		}
		free(m->index);
		m->index = idx;
		m->mask = slots - 1;
		for (uint32_t j = 0; j < m->n; j++)
			index_insert(m, j);
	} else if (m->index) {
		index_insert(m, m->n - 1);
	}
	return 0;
}

/* ---- maps built inside an evaluation (arena memory) ---- */

struct cel_map *cel_new_map(struct cel_eval *ev, size_t capacity)
{
	if (capacity > UINT32_MAX / 4)
		return NULL;
	struct cel_map *m = cel_alloc(ev, sizeof(*m));
	if (!m)
		return NULL;
	uint32_t cap = (uint32_t)(capacity ? capacity : 1);
	m->keys = cel_alloc(ev, cap * sizeof(cel_value));
	m->vals = cel_alloc(ev, cap * sizeof(cel_value));
	if (!m->keys || !m->vals)
		return NULL;
	if (cap > CEL_MAP_LINEAR) {
		uint32_t slots = index_slots(cap);
		m->index = cel_alloc(ev, slots * sizeof(uint32_t));
		if (!m->index)
			return NULL;
		m->mask = slots - 1;
	}
	m->cap = 0; /* arena memory: never freed, never grown past the capacity asked for */
	return m;
}

int cel_map_add(struct cel_eval *ev, struct cel_map *m, cel_value key, cel_value val)
{
	(void)ev;
	cel_value k = key;
	if (!key_kind_ok(key.kind) || !lookup_key(&k))
		return ERR_INVALID;
	int64_t i = map_index_of(m, k);
	if (i >= 0) {
		m->vals[i] = val;
		return 0;
	}
	m->keys[m->n] = key;
	m->vals[m->n] = val;
	m->n++;
	if (m->index)
		index_insert(m, m->n - 1);
	return 0;
}

/* ---- formatting ---- */

struct fmt {
	char *buf;
	size_t cap, len;
};

static void fput(struct fmt *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, f->len++)
		if (f->len + 1 < f->cap)
			f->buf[f->len] = s[i];
}

static void fputs_(struct fmt *f, const char *s) { fput(f, s, strlen(s)); }

static void fprintf_(struct fmt *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fprintf_(struct fmt *f, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		fput(f, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void fquote(struct fmt *f, const char *s, size_t n, bool bytes)
{
	fputs_(f, bytes ? "b\"" : "\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			fput(f, e, 2);
		} else if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
			fprintf_(f, "\\x%02x", c);
		} else {
			fput(f, (const char *)&c, 1);
		}
	}
	fputs_(f, "\"");
}

static void fvalue(struct fmt *f, cel_value v, int depth)
{
	if (depth > 64) {
		fputs_(f, "...");
		return;
	}
	switch (v.kind) {
	case CEL_NULL: fputs_(f, "null"); break;
	case CEL_BOOL: fputs_(f, v.b ? "true" : "false"); break;
	case CEL_INT: fprintf_(f, "%" PRId64, v.i); break;
	case CEL_UINT: fprintf_(f, "%" PRIu64 "u", v.u); break;
	case CEL_DOUBLE: fprintf_(f, "%.17g", v.d); break;
	case CEL_STRING: fquote(f, v.s, v.n, false); break;
	case CEL_BYTES: fquote(f, v.s, v.n, true); break;
	case CEL_TYPE: fputs_(f, v.type->name); break;
	case CEL_TIMESTAMP: fprintf_(f, "timestamp(%" PRId64 "s+%" PRIu32 "ns)", v.i, v.n); break;
	case CEL_DURATION: fprintf_(f, "duration(%" PRId64 "ns)", v.i); break;
	case CEL_ERROR: fputs_(f, "error: "); fputs_(f, v.s); break;
	case CEL_OPTIONAL:
		if (!v.opt) {
			fputs_(f, "optional.none()");
		} else {
			fputs_(f, "optional.of(");
			fvalue(f, *v.opt, depth + 1);
			fputs_(f, ")");
		}
		break;
	case CEL_OBJECT:
		if (v.obj->type->format) {
			char tmp[256];
			size_t n = v.obj->type->format(v.obj, tmp, sizeof(tmp));
			fput(f, tmp, n < sizeof(tmp) ? n : sizeof(tmp) - 1);
		} else {
			fputs_(f, v.obj->type->type.name);
		}
		break;
	case CEL_LIST:
		fputs_(f, "[");
		for (uint32_t i = 0; i < v.list->n; i++) {
			if (i)
				fputs_(f, ", ");
			fvalue(f, v.list->items[i], depth + 1);
		}
		fputs_(f, "]");
		break;
	case CEL_MAP:
		fputs_(f, "{");
		for (uint32_t i = 0; i < v.map->n; i++) {
			if (i)
				fputs_(f, ", ");
			fvalue(f, v.map->keys[i], depth + 1);
			fputs_(f, ": ");
			fvalue(f, v.map->vals[i], depth + 1);
		}
		fputs_(f, "}");
		break;
	}
}

size_t cel_value_format(cel_value v, char *buf, size_t cap)
{
	struct fmt f = { buf, cap, 0 };
	fvalue(&f, v, 0);
	if (cap)
		buf[f.len < cap ? f.len : cap - 1] = '\0';
	return f.len;
}
