/* Kubernetes' protobuf wire format -> yajl trees (contract in pb_internal.h).
 *
 * DESIGN
 * The informers decode every object from the tree the JSON parser builds (decode*.c). Rather than
 * a second decoder per type, a protobuf object is turned into that same tree, generically, from
 * the descriptors protoc-c generates out of the pinned generated.proto files (CMakeLists.txt):
 * Kubernetes' proto field names are its JSON names. The bytes are walked directly with the
 * descriptors (no protobuf_c_message_unpack: no malloc per field, and every length is checked
 * against the buffer here), into an arena reset per object, as json.c does.
 *
 * What JSON spells differently: resource.Quantity (a message holding a string) is a string;
 * metav1.Time and MicroTime (seconds + nanos) are RFC 3339 strings as the apiserver writes them
 * (null for the zero time, which the Go encoder writes as an empty message); IntOrString is a
 * number or a string; map<> fields (repeated key/value entries) are objects; bytes are base64;
 * the embedded structs that JSON inlines (Volume.volumeSource, Probe.handler, ...) are merged into
 * their parent; runtime.RawExtension reads as the JSON its raw bytes hold (DRA's opaque
 * parameters). The fields json.c
 * skips are skipped here too (api__json_skip_list). Go writes non-pointer fields even when empty
 * ("" , 0, {}), which JSON's omitempty leaves out: the decoders read both alike (tests/unit/
 * test_apiclient_protobuf.c compares the decoded objects of the same server state in both
 * formats).
 *
 * Envelopes (apimachinery runtime/serializer/protobuf): a body is "k8s\0" + runtime.Unknown
 * {typeMeta{apiVersion, kind}, raw, contentEncoding, contentType} whose raw is the object; a watch
 * stream is frames of a 4-byte big-endian length + metav1.WatchEvent{type, object: RawExtension
 * {raw: "k8s\0" + Unknown}} (pkg/util/framer, apis/meta/v1/watch.go). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <protobuf-c/protobuf-c.h>

#include "k8s.io/api/apps/v1/generated.pb-c.h"
#include "k8s.io/api/core/v1/generated.pb-c.h"
#include "k8s.io/api/policy/v1/generated.pb-c.h"
#include "k8s.io/api/resource/v1/generated.pb-c.h"
#include "k8s.io/api/storage/v1/generated.pb-c.h"
#include "k8s.io/apimachinery/pkg/api/resource/generated.pb-c.h"
#include "k8s.io/apimachinery/pkg/apis/meta/v1/generated.pb-c.h"
#include "k8s.io/apimachinery/pkg/runtime/generated.pb-c.h"
#include "k8s.io/apimachinery/pkg/util/intstr/generated.pb-c.h"

#include "pb_internal.h"
#include "common/arena.h"
#include "common/macros.h"

#define PB_ARENA 8192
#define PB_ARENA_KEEP_MAX (256 * 1024)
/* Kubernetes' types nest a few levels; anything deeper is not one of them. */
#define PB_MAX_DEPTH 64

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

struct pbent {
	const char *key;
	yajl_val v;
};

struct api__pb {
	struct arena *a;
	struct pbent *ents; /* (key, value) of the messages being built, innermost last */
	size_t n_ents, cap_ents;
	uint32_t *scr; /* per message being built: count and entry slot of each field */
	size_t n_scr, cap_scr;
	unsigned depth;
	int rc;
	char why[160];
};

static struct yajl_val_s v_true = {.type = yajl_t_true}, v_false = {.type = yajl_t_false},
			 v_null = {.type = yajl_t_null};

struct api__pb *api__pb_new(void)
{
	return calloc(1, sizeof(struct api__pb)); /* the arena: reset, on first use */
}

void api__pb_free(struct api__pb *p)
{
	if (!p)
		return;
	arena_free(p->a);
	free(p->ents);
	free(p->scr);
	free(p);
}

bool api__pb_magic(const void *buf, size_t len)
{
	return len >= 4 && memcmp(buf, "k8s\0", 4) == 0;
}

/* ---------- errors and the arena ---------- */

__attribute__((format(printf, 2, 3))) static int fail(struct api__pb *p, const char *fmt, ...)
{
	if (p->rc)
		return p->rc;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	p->rc = ERR_INVALID;
	return p->rc;
}

static int nomem(struct api__pb *p)
{
	if (!p->rc) {
		snprintf(p->why, sizeof(p->why), "out of memory");
		p->rc = ERR_NOMEM;
	}
	return p->rc;
}

/* Readies the arena for an object: made on first use (most of csched's ~20 informers watch
 * kinds a cluster may have none of), reset, or replaced by one sized for the last object. */
static int reset(struct api__pb *p)
{
	if (!p->a && !(p->a = arena_new(PB_ARENA)))
		return nomem(p);
	if (arena_overflowed(p->a)) {
		size_t need = arena_footprint(p->a);
		struct arena *n = arena_new(need <= PB_ARENA_KEEP_MAX ? need : PB_ARENA);
		if (!n)
			return nomem(p);
		arena_free(p->a);
		p->a = n;
	}
	arena_reset(p->a);
	p->n_ents = p->n_scr = 0;
	p->depth = 0;
	p->rc = 0;
	p->why[0] = '\0';
	return 0;
}

static int finish(struct api__pb *p, int rc, char *errbuf, size_t errsize)
{
	if (rc && errbuf && errsize)
		snprintf(errbuf, errsize, "protobuf: %s", p->why[0] ? p->why : "invalid");
	return rc;
}

static yajl_val new_value(struct api__pb *p, yajl_type t)
{
	yajl_val v = arena_alloc(p->a, sizeof(*v));
	if (!v) {
		nomem(p);
		return NULL;
	}
	memset(v, 0, sizeof(*v));
	v->type = t;
	return v;
}

static yajl_val new_string(struct api__pb *p, const char *s, size_t len)
{
	yajl_val v = new_value(p, yajl_t_string);
	if (v && !(v->u.string = arena_strndup(p->a, s, len))) {
		nomem(p);
		return NULL;
	}
	return v;
}

/* A number as json.c makes it from the same digits. */
static yajl_val new_int(struct api__pb *p, long long i)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%lld", i);
	yajl_val v = new_value(p, yajl_t_number);
	if (!v || !(v->u.number.r = arena_strndup(p->a, buf, (size_t)n))) {
		nomem(p);
		return NULL;
	}
	v->u.number.i = i;
	v->u.number.d = (double)i;
	v->u.number.flags = YAJL_NUMBER_INT_VALID | YAJL_NUMBER_DOUBLE_VALID;
	return v;
}

static yajl_val new_uint(struct api__pb *p, unsigned long long u)
{
	if (u <= (unsigned long long)LLONG_MAX)
		return new_int(p, (long long)u);
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%llu", u);
	yajl_val v = new_value(p, yajl_t_number);
	if (!v || !(v->u.number.r = arena_strndup(p->a, buf, (size_t)n))) {
		nomem(p);
		return NULL;
	}
	v->u.number.d = (double)u;
	v->u.number.flags = YAJL_NUMBER_DOUBLE_VALID;
	return v;
}

static yajl_val new_double(struct api__pb *p, double d)
{
	char buf[40];
	int n = snprintf(buf, sizeof(buf), "%.17g", d);
	yajl_val v = new_value(p, yajl_t_number);
	if (!v || !(v->u.number.r = arena_strndup(p->a, buf, (size_t)n))) {
		nomem(p);
		return NULL;
	}
	v->u.number.d = d;
	v->u.number.flags = YAJL_NUMBER_DOUBLE_VALID;
	return v;
}

/* ---------- the wire ---------- */

struct rd {
	const uint8_t *p, *end;
};

static bool rd_varint(struct rd *r, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return false;
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false; /* more than 10 bytes */
}

static bool rd_fixed(struct rd *r, unsigned n, uint64_t *out)
{
	if ((size_t)(r->end - r->p) < n)
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	*out = v;
	return true;
}

static bool rd_len(struct rd *r, struct rd *sub)
{
	uint64_t n;
	if (!rd_varint(r, &n) || n > (uint64_t)(r->end - r->p))
		return false;
	sub->p = r->p;
	sub->end = r->p + n;
	r->p += n;
	return true;
}

/* One field's tag and value (the value's bytes: a varint/fixed value in u, a length-delimited
 * one in sub). false: truncated or a wire type protobuf does not have here (groups). */
struct field {
	uint32_t id;
	unsigned wt;
	uint64_t u;
	struct rd sub;
};

static bool rd_field(struct rd *r, struct field *f)
{
	uint64_t tag;
	if (!rd_varint(r, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
		return false;
	f->id = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	switch (f->wt) {
	case WT_VARINT:
		return rd_varint(r, &f->u);
	case WT_I64:
		return rd_fixed(r, 8, &f->u);
	case WT_I32:
		return rd_fixed(r, 4, &f->u);
	case WT_LEN:
		return rd_len(r, &f->sub);
	default:
		return false;
	}
}

static unsigned wire_type_of(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return WT_I64;
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return WT_I32;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return WT_LEN;
	default:
		return WT_VARINT;
	}
}

/* ---------- values ---------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static yajl_val new_base64(struct api__pb *p, const uint8_t *s, size_t n)
{
	size_t out = (n + 2) / 3 * 4;
	char *o = arena_alloc(p->a, out + 1), *q = o;
	yajl_val v = new_value(p, yajl_t_string);
	if (!o || !v) {
		nomem(p);
		return NULL;
	}
	for (size_t i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
		*q++ = b64[w >> 18 & 63];
		*q++ = b64[w >> 12 & 63];
		*q++ = i + 1 < n ? b64[w >> 6 & 63] : '=';
		*q++ = i + 2 < n ? b64[w & 63] : '=';
	}
	*q = '\0';
	v->u.string = o;
	return v;
}

/* A scalar field's value (f's wire type already checked, or one element of a packed run). */
static yajl_val scalar(struct api__pb *p, const ProtobufCFieldDescriptor *fd, uint64_t u)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_BOOL:
		return u ? &v_true : &v_false;
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_ENUM:
	case PROTOBUF_C_TYPE_SFIXED32:
		return new_int(p, (int32_t)(uint32_t)u);
	case PROTOBUF_C_TYPE_SINT32:
		return new_int(p, (int32_t)((uint32_t)(u >> 1) ^ (0u - (uint32_t)(u & 1))));
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return new_int(p, (uint32_t)u);
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return new_int(p, (long long)u);
	case PROTOBUF_C_TYPE_SINT64:
		return new_int(p, (long long)((u >> 1) ^ (0 - (u & 1))));
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return new_uint(p, u);
	case PROTOBUF_C_TYPE_FLOAT: {
		uint32_t w = (uint32_t)u;
		float f;
		memcpy(&f, &w, sizeof(f));
		return new_double(p, f);
	}
	case PROTOBUF_C_TYPE_DOUBLE: {
		double d;
		memcpy(&d, &u, sizeof(d));
		return new_double(p, d);
	}
	default:
		fail(p, "field %s: not a scalar", fd->name);
		return NULL;
	}
}

static int message(struct api__pb *p, const ProtobufCMessageDescriptor *d, struct rd r, const char *key,
		   yajl_val *out);

/* metav1.Time / MicroTime: {seconds, nanos} -> RFC 3339 in UTC (Time: whole seconds, as
 * metav1.Time.MarshalJSON; MicroTime: 6 decimals); the empty message is the zero time: null. */
static int time_value(struct api__pb *p, struct rd r, bool micro, yajl_val *out)
{
	int64_t secs = 0, nanos = 0;
	bool any = false;
	struct field f = {0};
	while (r.p < r.end) {
		if (!rd_field(&r, &f))
			return fail(p, "truncated Time");
		if (f.id == 1 && f.wt == WT_VARINT)
			secs = (int64_t)f.u, any = true;
		else if (f.id == 2 && f.wt == WT_VARINT)
			nanos = (int32_t)(uint32_t)f.u, any = true;
	}
	if (!any) {
		*out = &v_null;
		return 0;
	}
	/* Go refuses to encode years outside [0, 9999] in JSON */
	if (secs < -62167219200LL || secs > 253402300799LL || nanos < 0 || nanos > 999999999)
		return fail(p, "Time out of range");
	time_t t = (time_t)secs;
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return fail(p, "Time out of range");
	char buf[96];
	if (micro)
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(nanos / 1000));
	else
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	*out = new_string(p, buf, strlen(buf));
	return *out ? 0 : p->rc;
}

/* resource.Quantity {string} -> its string ("0" when absent, as the zero Quantity marshals). */
static int quantity_value(struct api__pb *p, struct rd r, yajl_val *out)
{
	struct field f = {0};
	const char *s = "0";
	size_t n = 1;
	while (r.p < r.end) {
		if (!rd_field(&r, &f))
			return fail(p, "truncated Quantity");
		if (f.id == 1 && f.wt == WT_LEN) {
			s = (const char *)f.sub.p;
			n = (size_t)(f.sub.end - f.sub.p);
		}
	}
	*out = new_string(p, s, n);
	return *out ? 0 : p->rc;
}

/* intstr.IntOrString {type, intVal, strVal} -> a number (type 0) or a string (type 1). */
static int int_or_string_value(struct api__pb *p, struct rd r, yajl_val *out)
{
	struct field f = {0};
	uint64_t type = 0;
	int32_t iv = 0;
	const char *s = "";
	size_t n = 0;
	while (r.p < r.end) {
		if (!rd_field(&r, &f))
			return fail(p, "truncated IntOrString");
		if (f.id == 1 && f.wt == WT_VARINT)
			type = f.u;
		else if (f.id == 2 && f.wt == WT_VARINT)
			iv = (int32_t)(uint32_t)f.u;
		else if (f.id == 3 && f.wt == WT_LEN) {
			s = (const char *)f.sub.p;
			n = (size_t)(f.sub.end - f.sub.p);
		}
	}
	*out = type == 1 ? new_string(p, s, n) : new_int(p, iv);
	return *out ? 0 : p->rc;
}

/* A copy of the yajl tree v (malloc'd by yajl_tree_parse) in the arena, numbers with their text. */
static yajl_val copy_tree(struct api__pb *p, const struct yajl_val_s *v, int depth)
{
	if (depth > PB_MAX_DEPTH) {
		fail(p, "RawExtension: nested deeper than %d", PB_MAX_DEPTH);
		return NULL;
	}
	switch (v->type) {
	case yajl_t_string:
		return new_string(p, v->u.string, strlen(v->u.string));
	case yajl_t_true:
		return &v_true;
	case yajl_t_false:
		return &v_false;
	case yajl_t_null:
		return &v_null;
	default:
		break;
	}
	yajl_val c = new_value(p, v->type);
	if (!c)
		return NULL;
	if (v->type == yajl_t_number) {
		c->u.number = v->u.number;
		if (!(c->u.number.r = arena_strdup(p->a, v->u.number.r))) {
			nomem(p);
			return NULL;
		}
		return c;
	}
	size_t n = v->type == yajl_t_object ? v->u.object.len : v->u.array.len;
	yajl_val *vals = n ? arena_alloc(p->a, n * sizeof(*vals)) : NULL;
	const char **keys = n && v->type == yajl_t_object ? arena_alloc(p->a, n * sizeof(*keys)) : NULL;
	if (n && (!vals || (v->type == yajl_t_object && !keys))) {
		nomem(p);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct yajl_val_s *src = v->type == yajl_t_object ? v->u.object.values[i] : v->u.array.values[i];
		if (!(vals[i] = copy_tree(p, src, depth + 1)))
			return NULL;
		if (keys && !(keys[i] = arena_strdup(p->a, v->u.object.keys[i]))) {
			nomem(p);
			return NULL;
		}
	}
	if (v->type == yajl_t_object) {
		c->u.object.keys = keys;
		c->u.object.values = vals;
		c->u.object.len = n;
	} else {
		c->u.array.values = vals;
		c->u.array.len = n;
	}
	return c;
}

/* runtime.RawExtension{raw 1}: the JSON its raw bytes hold (a DRA configuration's opaque
 * parameters, which the apiserver keeps as JSON and JSON clients read as that object); no raw:
 * null. */
static int raw_extension_value(struct api__pb *p, struct rd r, yajl_val *out)
{
	struct rd raw = { NULL, NULL };
	struct field f = { 0 };
	*out = &v_null;
	while (r.p < r.end) {
		if (!rd_field(&r, &f))
			return fail(p, "RawExtension: truncated or invalid field");
		if (f.id == 1 && f.wt == WT_LEN)
			raw = f.sub;
	}
	if (!raw.p || raw.p == raw.end)
		return 0;
	char ebuf[128];
	char *text = strndup((const char *)raw.p, (size_t)(raw.end - raw.p));
	if (!text)
		return nomem(p);
	yajl_val v = yajl_tree_parse(text, ebuf, sizeof(ebuf));
	free(text);
	if (!v)
		return fail(p, "RawExtension: not JSON: %s", ebuf);
	yajl_val c = copy_tree(p, v, 0);
	yajl_tree_free(v);
	if (!c)
		return p->rc ? p->rc : nomem(p);
	*out = c;
	return 0;
}

static bool is_map_entry(const ProtobufCMessageDescriptor *d)
{
	size_t nl = strlen(d->name);
	return d->n_fields == 2 && nl > 5 && !strcmp(d->name + nl - 5, "Entry") && d->fields[0].id == 1 &&
	       !strcmp(d->fields[0].name, "key") && d->fields[1].id == 2 && !strcmp(d->fields[1].name, "value");
}

/* Embedded Go structs that JSON inlines into their parent (json:"" in k8s.io/api's types.go). */
static bool inlined(const ProtobufCFieldDescriptor *fd)
{
	static const char *const names[] = {"volumeSource", "persistentVolumeSource", "localObjectReference",
					    "handler", "ephemeralContainerCommon",
					    "deviceConfiguration" /* resource/v1: DeviceConfiguration inlined in the configurations */};
	if (fd->type != PROTOBUF_C_TYPE_MESSAGE)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(fd->name, names[i]))
			return true;
	return false;
}

/* A length-delimited value of field fd (a string, bytes or a message). */
static int len_value(struct api__pb *p, const ProtobufCFieldDescriptor *fd, struct rd sub, yajl_val *out)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_STRING:
		*out = new_string(p, (const char *)sub.p, (size_t)(sub.end - sub.p));
		return *out ? 0 : p->rc;
	case PROTOBUF_C_TYPE_BYTES:
		*out = new_base64(p, sub.p, (size_t)(sub.end - sub.p));
		return *out ? 0 : p->rc;
	default:
		return message(p, fd->descriptor, sub, fd->name, out);
	}
}

/* One key/value entry of a map field into the object m (its keys/values have room). */
static int map_entry(struct api__pb *p, const ProtobufCMessageDescriptor *ed, struct rd r, yajl_val m)
{
	struct field f = {0};
	struct rd key = {(const uint8_t *)"", (const uint8_t *)""};
	yajl_val v = NULL;
	const ProtobufCFieldDescriptor *vd = &ed->fields[1];
	while (r.p < r.end) {
		if (!rd_field(&r, &f))
			return fail(p, "truncated %s", ed->name);
		if (f.id == 1) {
			if (f.wt != WT_LEN || ed->fields[0].type != PROTOBUF_C_TYPE_STRING)
				return fail(p, "%s: key is not a string", ed->name);
			key = f.sub;
		} else if (f.id == 2) {
			if (f.wt != wire_type_of(vd->type))
				return fail(p, "%s.value: wrong wire type %u", ed->name, f.wt);
			int rc = f.wt == WT_LEN ? len_value(p, vd, f.sub, &v) : ((v = scalar(p, vd, f.u)) ? 0 : p->rc);
			if (rc)
				return rc;
		}
	}
	if (!v) {
		/* an absent value is its zero value */
		if (vd->type == PROTOBUF_C_TYPE_MESSAGE) {
			struct rd empty = {key.p, key.p};
			int rc = len_value(p, vd, empty, &v);
			if (rc)
				return rc;
		} else if (vd->type == PROTOBUF_C_TYPE_STRING || vd->type == PROTOBUF_C_TYPE_BYTES) {
			v = new_string(p, "", 0);
		} else {
			v = scalar(p, vd, 0);
		}
		if (!v)
			return p->rc ? p->rc : nomem(p);
	}
	char *k = arena_strndup(p->a, (const char *)key.p, (size_t)(key.end - key.p));
	if (!k)
		return nomem(p);
	m->u.object.keys[m->u.object.len] = k;
	m->u.object.values[m->u.object.len++] = v;
	return 0;
}

static int push_ent(struct api__pb *p, const char *key, yajl_val v)
{
	if (p->n_ents == p->cap_ents) {
		size_t cap = p->cap_ents ? p->cap_ents * 2 : 256;
		struct pbent *e = realloc(p->ents, cap * sizeof(*e));
		if (!e)
			return nomem(p);
		p->ents = e;
		p->cap_ents = cap;
	}
	p->ents[p->n_ents++] = (struct pbent){key, v};
	return 0;
}

/* Number of elements in a packed run of scalars of type t. */
static bool packed_count(ProtobufCType t, struct rd r, size_t *n)
{
	size_t len = (size_t)(r.end - r.p);
	switch (wire_type_of(t)) {
	case WT_I64:
		*n = len / 8;
		return len % 8 == 0;
	case WT_I32:
		*n = len / 4;
		return len % 4 == 0;
	default:
		*n = 0;
		for (const uint8_t *q = r.p; q < r.end; q++)
			*n += !(*q & 0x80);
		return len == 0 || !(r.end[-1] & 0x80);
	}
}

static bool packable(const ProtobufCFieldDescriptor *fd)
{
	return fd->label == PROTOBUF_C_LABEL_REPEATED && wire_type_of(fd->type) != WT_LEN;
}

/* The message of type d in r -> an object, as JSON has it (see DESIGN). key: the field it sits
 * under (for the skip rules). */
static int message(struct api__pb *p, const ProtobufCMessageDescriptor *d, struct rd r, const char *key,
		   yajl_val *out)
{
	if (d == &k8s__io__apimachinery__pkg__api__resource__quantity__descriptor)
		return quantity_value(p, r, out);
	if (d == &k8s__io__apimachinery__pkg__apis__meta__v1__time__descriptor)
		return time_value(p, r, false, out);
	if (d == &k8s__io__apimachinery__pkg__apis__meta__v1__micro_time__descriptor)
		return time_value(p, r, true, out);
	if (d == &k8s__io__apimachinery__pkg__util__intstr__int_or_string__descriptor)
		return int_or_string_value(p, r, out);
	if (d == &k8s__io__apimachinery__pkg__runtime__raw_extension__descriptor)
		return raw_extension_value(p, r, out);
	if (++p->depth > PB_MAX_DEPTH)
		return fail(p, "%s: nested deeper than %d", d->name, PB_MAX_DEPTH);

	const void *skip = key ? api__json_skip_list(key, strlen(key)) : NULL;
	size_t first = p->n_ents, scr = p->n_scr, nf = d->n_fields;
	/* scratch: per field, its count (first pass), then the entry holding its array/map */
	if (p->n_scr + 2 * nf > p->cap_scr) {
		size_t cap = p->cap_scr ? p->cap_scr : 256;
		while (cap < p->n_scr + 2 * nf)
			cap *= 2;
		uint32_t *s = realloc(p->scr, cap * sizeof(*s));
		if (!s)
			return nomem(p);
		p->scr = s;
		p->cap_scr = cap;
	}
	memset(p->scr + scr, 0, 2 * nf * sizeof(*p->scr));
	p->n_scr += 2 * nf;

	/* first pass: check the wire and count the elements of repeated fields */
	struct rd q = r;
	struct field f = {0};
	while (q.p < q.end) {
		if (!rd_field(&q, &f))
			return fail(p, "%s: truncated or invalid field", d->name);
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, f.id);
		if (!fd)
			continue; /* unknown to this version: ignored, as Go does */
		size_t n = 1;
		if (f.wt == WT_LEN && packable(fd)) {
			if (!packed_count(fd->type, f.sub, &n))
				return fail(p, "%s.%s: invalid packed field", d->name, fd->name);
		} else if (f.wt != wire_type_of(fd->type)) {
			return fail(p, "%s.%s: wrong wire type %u", d->name, fd->name, f.wt);
		}
		size_t i = (size_t)(fd - d->fields);
		if (p->scr[scr + i] + n > UINT32_MAX / 2)
			return fail(p, "%s.%s: too many elements", d->name, fd->name);
		p->scr[scr + i] += (uint32_t)n;
	}

	/* second pass: the values */
	q = r;
	while (q.p < q.end) {
		rd_field(&q, &f); /* checked above */
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(d, f.id);
		if (!fd || (skip && api__json_skip_has(skip, fd->name, strlen(fd->name))))
			continue;
		size_t i = (size_t)(fd - d->fields);
		int rc = 0;
		if (fd->label != PROTOBUF_C_LABEL_REPEATED) {
			yajl_val v = NULL;
			if (inlined(fd)) /* its fields are the parent's: the parent's skip rules */
				rc = message(p, fd->descriptor, f.sub, key, &v);
			else if (f.wt == WT_LEN)
				rc = len_value(p, fd, f.sub, &v);
			else if (!(v = scalar(p, fd, f.u)))
				rc = p->rc;
			if (rc)
				return rc;
			if (inlined(fd) && YAJL_IS_OBJECT(v)) {
				for (size_t k = 0; k < v->u.object.len; k++)
					if ((rc = push_ent(p, v->u.object.keys[k], v->u.object.values[k])))
						return rc;
				continue;
			}
			/* a repeated occurrence of a singular field: the last one wins, as in Go */
			bool replaced = false;
			for (size_t k = first; k < p->n_ents; k++)
				if (p->ents[k].key == fd->name) {
					p->ents[k].v = v;
					replaced = true;
				}
			if (!replaced && (rc = push_ent(p, fd->name, v)))
				return rc;
			continue;
		}
		bool map = fd->type == PROTOBUF_C_TYPE_MESSAGE && is_map_entry(fd->descriptor);
		uint32_t *slot = &p->scr[scr + nf + i];
		if (!*slot) {
			uint32_t cnt = p->scr[scr + i];
			yajl_val c = new_value(p, map ? yajl_t_object : yajl_t_array);
			if (!c)
				return p->rc;
			if (map) {
				c->u.object.keys = arena_alloc(p->a, cnt * sizeof(*c->u.object.keys));
				c->u.object.values = arena_alloc(p->a, cnt * sizeof(*c->u.object.values));
				if (!c->u.object.keys || !c->u.object.values)
					return nomem(p);
			} else if (!(c->u.array.values = arena_alloc(p->a, cnt * sizeof(*c->u.array.values)))) {
				return nomem(p);
			}
			if ((rc = push_ent(p, fd->name, c)))
				return rc;
			*slot = (uint32_t)(p->n_ents - first); /* 1-based */
		}
		yajl_val c = p->ents[first + *slot - 1].v;
		if (map) {
			rc = map_entry(p, fd->descriptor, f.sub, c);
		} else if (f.wt == WT_LEN && packable(fd)) {
			struct rd e = f.sub;
			while (!rc && e.p < e.end) {
				uint64_t u = 0;
				unsigned wt = wire_type_of(fd->type);
				bool ok = wt == WT_I64 ? rd_fixed(&e, 8, &u) : wt == WT_I32 ? rd_fixed(&e, 4, &u) : rd_varint(&e, &u);
				yajl_val v = ok ? scalar(p, fd, u) : NULL;
				if (!v)
					return ok ? p->rc : fail(p, "%s.%s: invalid packed field", d->name, fd->name);
				c->u.array.values[c->u.array.len++] = v;
			}
		} else {
			yajl_val v = NULL;
			if (f.wt == WT_LEN)
				rc = len_value(p, fd, f.sub, &v);
			else if (!(v = scalar(p, fd, f.u)))
				rc = p->rc;
			if (!rc)
				c->u.array.values[c->u.array.len++] = v;
		}
		if (rc)
			return rc;
	}

	yajl_val o = new_value(p, yajl_t_object);
	size_t n = p->n_ents - first;
	if (!o)
		return p->rc;
	if (n) {
		o->u.object.keys = arena_alloc(p->a, n * sizeof(*o->u.object.keys));
		o->u.object.values = arena_alloc(p->a, n * sizeof(*o->u.object.values));
		if (!o->u.object.keys || !o->u.object.values)
			return nomem(p);
		for (size_t k = 0; k < n; k++) {
			o->u.object.keys[k] = p->ents[first + k].key;
			o->u.object.values[k] = p->ents[first + k].v;
		}
	}
	o->u.object.len = n;
	p->n_ents = first;
	p->n_scr = scr;
	p->depth--;
	*out = o;
	return 0;
}

/* ---------- envelopes ---------- */

/* The list and object descriptors of an informer's kind. */
static const ProtobufCMessageDescriptor *list_desc(enum api_kind kind)
{
	switch (kind) {
	case API_KIND_POD:
		return &k8s__io__api__core__v1__pod_list__descriptor;
	case API_KIND_NODE:
		return &k8s__io__api__core__v1__node_list__descriptor;
	case API_KIND_PVC:
		return &k8s__io__api__core__v1__persistent_volume_claim_list__descriptor;
	case API_KIND_NAMESPACE:
		return &k8s__io__api__core__v1__namespace_list__descriptor;
	case API_KIND_SERVICE:
		return &k8s__io__api__core__v1__service_list__descriptor;
	case API_KIND_RC:
		return &k8s__io__api__core__v1__replication_controller_list__descriptor;
	case API_KIND_REPLICASET:
		return &k8s__io__api__apps__v1__replica_set_list__descriptor;
	case API_KIND_STATEFULSET:
		return &k8s__io__api__apps__v1__stateful_set_list__descriptor;
	case API_KIND_PDB:
		return &k8s__io__api__policy__v1__pod_disruption_budget_list__descriptor;
	case API_KIND_PV:
		return &k8s__io__api__core__v1__persistent_volume_list__descriptor;
	case API_KIND_STORAGE_CLASS:
		return &k8s__io__api__storage__v1__storage_class_list__descriptor;
	case API_KIND_CSINODE:
		return &k8s__io__api__storage__v1__csinode_list__descriptor;
	case API_KIND_CSIDRIVER:
		return &k8s__io__api__storage__v1__csidriver_list__descriptor;
	case API_KIND_VOLUME_ATTACHMENT:
		return &k8s__io__api__storage__v1__volume_attachment_list__descriptor;
	case API_KIND_CSI_STORAGE_CAPACITY:
		return &k8s__io__api__storage__v1__csistorage_capacity_list__descriptor;
	case API_KIND_RESOURCE_CLAIM:
		return &k8s__io__api__resource__v1__resource_claim_list__descriptor;
	case API_KIND_RESOURCE_SLICE:
		return &k8s__io__api__resource__v1__resource_slice_list__descriptor;
	case API_KIND_DEVICE_CLASS:
		return &k8s__io__api__resource__v1__device_class_list__descriptor;
	case API_KIND_DEVICE_TAINT_RULE:
		return &k8s__io__api__resource__v1__device_taint_rule_list__descriptor;
	default:
		return NULL;
	}
}

bool api__pb_kind_known(enum api_kind kind)
{
	return list_desc(kind) != NULL;
}

/* A List's items field (number 2 in every k8s List) and its element type. */
static const ProtobufCFieldDescriptor *items_field(const ProtobufCMessageDescriptor *ld)
{
	const ProtobufCFieldDescriptor *fd = ld ? protobuf_c_message_descriptor_get_field(ld, 2) : NULL;
	return fd && fd->type == PROTOBUF_C_TYPE_MESSAGE && !strcmp(fd->name, "items") ? fd : NULL;
}

struct unknown {
	struct rd kind, raw;
};

/* "k8s\0" + runtime.Unknown{typeMeta{apiVersion 1, kind 2} 1, raw 2, contentEncoding 3,
 * contentType 4} (apimachinery runtime/serializer/protobuf). */
static int unwrap(struct api__pb *p, const uint8_t *buf, size_t len, struct unknown *u)
{
	if (!api__pb_magic(buf, len))
		return fail(p, "missing the k8s\\0 prefix");
	struct rd r = {buf + 4, buf + len};
	struct field f = {0};
	memset(u, 0, sizeof(*u));
	bool have_raw = false;
	while (r.p < r.end) {
		if (!rd_field(&r, &f))
			return fail(p, "runtime.Unknown: truncated or invalid field");
		if (f.id == 1 && f.wt == WT_LEN) {
			struct field g = {0};
			struct rd t = f.sub;
			while (t.p < t.end) {
				if (!rd_field(&t, &g))
					return fail(p, "runtime.Unknown.typeMeta: truncated or invalid field");
				if (g.id == 2 && g.wt == WT_LEN)
					u->kind = g.sub;
			}
		} else if (f.id == 2 && f.wt == WT_LEN) {
			u->raw = f.sub;
			have_raw = true;
		} else if (f.id == 3 && f.wt == WT_LEN && f.sub.end > f.sub.p) {
			return fail(p, "runtime.Unknown: contentEncoding %.*s not supported", (int)(f.sub.end - f.sub.p),
				    (const char *)f.sub.p);
		} else if (f.id <= 4 && f.wt != WT_LEN) {
			return fail(p, "runtime.Unknown: wrong wire type %u", f.wt);
		}
	}
	if (!have_raw)
		return fail(p, "runtime.Unknown without raw");
	return 0;
}

static bool kind_is(const struct unknown *u, const char *k)
{
	size_t n = (size_t)(u->kind.end - u->kind.p);
	return u->kind.p && strlen(k) == n && memcmp(u->kind.p, k, n) == 0;
}

/* A List: items to on_item one by one (each in a fresh arena), the rest -> *root. */
static int list(struct api__pb *p, const ProtobufCMessageDescriptor *ld, struct rd r, api__json_item_fn on_item,
		void *ctx, yajl_val *root)
{
	const ProtobufCFieldDescriptor *items = items_field(ld);
	struct field f = {0};
	struct rd meta = {NULL, NULL};
	while (r.p < r.end) {
		if (!rd_field(&r, &f))
			return fail(p, "%s: truncated or invalid field", ld->name);
		if (f.id == 1) {
			if (f.wt != WT_LEN)
				return fail(p, "%s.metadata: wrong wire type %u", ld->name, f.wt);
			meta = f.sub;
		} else if (f.id == 2) {
			if (f.wt != WT_LEN)
				return fail(p, "%s.items: wrong wire type %u", ld->name, f.wt);
			yajl_val item;
			int rc = reset(p);
			if (!rc)
				rc = message(p, items->descriptor, f.sub, NULL, &item);
			if (!rc)
				rc = on_item(ctx, item);
			if (rc)
				return rc;
		}
	}
	int rc = reset(p);
	if (rc)
		return rc;
	yajl_val m = &v_null, o = new_value(p, yajl_t_object);
	if (!o)
		return p->rc;
	const ProtobufCFieldDescriptor *md = protobuf_c_message_descriptor_get_field(ld, 1);
	if (meta.p && (rc = message(p, md->descriptor, meta, "metadata", &m)))
		return rc;
	o->u.object.keys = arena_alloc(p->a, sizeof(*o->u.object.keys));
	o->u.object.values = arena_alloc(p->a, sizeof(*o->u.object.values));
	if (!o->u.object.keys || !o->u.object.values)
		return nomem(p);
	o->u.object.keys[0] = "metadata";
	o->u.object.values[0] = m;
	o->u.object.len = 1;
	*root = o;
	return 0;
}

/* An object (raw of an Unknown) of the informer's kind, or a Status. */
static int object(struct api__pb *p, enum api_kind kind, const struct unknown *u, yajl_val *out)
{
	const ProtobufCMessageDescriptor *d;
	if (kind_is(u, "Status"))
		d = &k8s__io__apimachinery__pkg__apis__meta__v1__status__descriptor;
	else {
		const ProtobufCFieldDescriptor *items = items_field(list_desc(kind));
		if (!items)
			return fail(p, "no protobuf type for this informer");
		d = items->descriptor;
	}
	return message(p, d, u->raw, NULL, out);
}

int api__pb_body(struct api__pb *p, enum api_kind kind, const void *buf, size_t len, api__json_item_fn on_item,
		 void *ctx, yajl_val *root, char *errbuf, size_t errsize)
{
	struct unknown u;
	*root = NULL;
	int rc = reset(p);
	if (!rc)
		rc = unwrap(p, buf, len, &u);
	if (!rc) {
		size_t kl = (size_t)(u.kind.end - u.kind.p);
		if (on_item && kl > 4 && !memcmp(u.kind.end - 4, "List", 4)) {
			const ProtobufCMessageDescriptor *ld = list_desc(kind);
			if (!items_field(ld))
				rc = fail(p, "no protobuf type for this informer");
			else
				rc = list(p, ld, u.raw, on_item, ctx, root);
		} else {
			rc = object(p, kind, &u, root);
		}
	}
	if (rc && !p->rc) /* on_item's own code: its message is its own */
		return rc;
	return finish(p, rc, errbuf, errsize);
}

/* metav1.WatchEvent{type 1, object 2: RawExtension{raw 1}}. */
int api__pb_watch_event(struct api__pb *p, enum api_kind kind, const void *frame, size_t len, yajl_val *root,
			char *errbuf, size_t errsize)
{
	struct rd r = {frame, (const uint8_t *)frame + len}, type = {NULL, NULL}, raw = {NULL, NULL};
	struct field f = {0};
	*root = NULL;
	int rc = reset(p);
	while (!rc && r.p < r.end) {
		if (!rd_field(&r, &f))
			rc = fail(p, "WatchEvent: truncated or invalid field");
		else if (f.id == 1 && f.wt == WT_LEN)
			type = f.sub;
		else if (f.id == 2 && f.wt == WT_LEN) {
			struct rd x = f.sub;
			struct field g = {0};
			while (!rc && x.p < x.end) {
				if (!rd_field(&x, &g))
					rc = fail(p, "WatchEvent.object: truncated or invalid field");
				else if (g.id == 1 && g.wt == WT_LEN)
					raw = g.sub;
			}
		} else if (f.id <= 2)
			rc = fail(p, "WatchEvent: wrong wire type %u", f.wt);
	}
	if (!rc && (!type.p || !raw.p))
		rc = fail(p, "WatchEvent without type or object");
	struct unknown u;
	yajl_val obj = NULL, t = NULL, o = NULL;
	if (!rc)
		rc = unwrap(p, raw.p, (size_t)(raw.end - raw.p), &u);
	if (!rc)
		rc = object(p, kind, &u, &obj);
	if (!rc && (!(t = new_string(p, (const char *)type.p, (size_t)(type.end - type.p))) ||
		    !(o = new_value(p, yajl_t_object))))
		rc = p->rc;
	if (!rc) {
		o->u.object.keys = arena_alloc(p->a, 2 * sizeof(*o->u.object.keys));
		o->u.object.values = arena_alloc(p->a, 2 * sizeof(*o->u.object.values));
		if (!o->u.object.keys || !o->u.object.values)
			rc = nomem(p);
	}
	if (!rc) {
		o->u.object.keys[0] = "type";
		o->u.object.values[0] = t;
		o->u.object.keys[1] = "object";
		o->u.object.values[1] = obj;
		o->u.object.len = 2;
		*root = o;
	}
	return finish(p, rc, errbuf, errsize);
}
