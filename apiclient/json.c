/* JSON text -> yajl_val trees in arenas, through yajl's streaming parser (contract in
 * api_internal.h).
 *
 * DESIGN
 * yajl_tree_parse mallocs every value, key and container array, so one 1.7 KB Pod event costs
 * ~150 mallocs and as many frees, and a 500-item LIST page is a tree of ~75,000 allocations
 * alive at once beside its 850 KB body. Here the callbacks of yajl_parse build the same
 * struct yajl_val_s layout (decode.c and yajl_tree_get read it unchanged) into an arena that is
 * reset per document: containers are assembled on a stack of (key, value) entries and copied
 * into the arena once complete, so nothing is allocated per value besides the arena bump.
 *
 * Subtrees that csched never reads are skipped while parsing (nothing is built for them): see
 * skip_rules. managedFields alone is about a third of a Pod as the apiserver returns it.
 *
 * A streamed LIST hands each element of the top-level "items" array to a callback as soon as its
 * closing bracket is parsed, from a second arena reset after each element, so a page of any size
 * takes one object's memory and can be decoded while the rest of the body is still arriving.
 *
 * Not thread-safe: one struct api__json per thread (each informer owns one). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "api_internal.h"
#include "common/macros.h"
#include "common/arena.h"

#define JSON_STR_(x) #x
#define JSON_STR(x) JSON_STR_(x)

/* Go's encoding/json (and so the apiserver's decoder) refuses documents nested deeper than this;
 * without a bound, 16 MB of "[" made csched allocate ~900 MB of frames. */
#define JSON_MAX_DEPTH 10000

#define JSON_DOC_ARENA 4096
#define JSON_ITEM_ARENA 8192
/* An arena that needed more than its first block is replaced by one whose first block holds
 * what the document needed, up to this size, so that parsing a steady stream of similar events
 * does not malloc and free the same extra blocks for each one. */
#define JSON_ARENA_KEEP_MAX (256 * 1024)

struct jkey {
	const char *s;
	size_t len;
};

struct jent {
	const char *key; /* NULL in arrays */
	yajl_val v;
};

struct jframe {
	bool is_map;
	bool items;          /* the streamed top-level "items" array */
	size_t first;        /* its first entry on the entry stack */
	const char *key;     /* the key it sits under (an array's element maps inherit it) */
	size_t key_len;
	const char *pending; /* maps: the key of the value being parsed */
	size_t pending_len;
	const struct jkey *skip; /* maps: keys whose values are not built (see skip_rules), or NULL */
};

struct api__json {
	yajl_handle h;
	struct arena *doc;  /* everything outside the streamed items */
	struct arena *item; /* the current streamed item */
	struct jent *ents;
	size_t n_ents, cap_ents;
	struct jframe *frames;
	size_t n_frames, cap_frames;
	yajl_val root;
	unsigned skip;  /* > 0: inside a skipped value (its nesting depth) */
	bool skip_next; /* the value about to start is skipped */
	api__json_item_fn on_item;
	void *item_ctx;
	int rc; /* why a callback stopped the parser: ERR_NOMEM, ERR_INVALID or on_item's code */
	const char *why; /* with ERR_INVALID: the message */
};

static struct yajl_val_s v_true = { .type = yajl_t_true }, v_false = { .type = yajl_t_false },
			 v_null = { .type = yajl_t_null };

/* ---------- skipped fields ----------
 * Fields of Pods, Nodes and watch events that decode.c does not read, by the key of the enclosing
 * map; an element map of an array counts as under the array's key (a container is under
 * "containers"). Keep in sync with decode.c: a field listed here reads as absent there. */
#define LIT(s) { s, sizeof(s) - 1 }
static const struct jkey skip_metadata[] = { LIT("managedFields"), { NULL, 0 } };
static const struct jkey skip_status[] = {
	LIT("ephemeralContainerStatuses"), LIT("podIPs"), LIT("hostIPs"), LIT("nodeInfo"), LIT("daemonEndpoints"),
	LIT("addresses"), LIT("volumesAttached"), LIT("volumesInUse"), LIT("runtimeHandlers"), LIT("features"),
	LIT("config"), { NULL, 0 },
};
static const struct jkey skip_container[] = {
	LIT("env"), LIT("envFrom"), LIT("volumeDevices"), LIT("livenessProbe"),
	LIT("readinessProbe"), LIT("startupProbe"), LIT("lifecycle"), LIT("command"), LIT("args"),
	LIT("securityContext"), { NULL, 0 },
};
/* of a volume mount only bindMountOptions is read (NodeDeclaredFeatures) */
static const struct jkey skip_volume_mount[] = {
	LIT("name"), LIT("mountPath"), LIT("subPath"), LIT("subPathExpr"), LIT("mountPropagation"),
	LIT("readOnly"), LIT("recursiveReadOnly"), { NULL, 0 },
};
/* container statuses: only name, allocatedResources and resources are read (in-place resize) */
static const struct jkey skip_container_status[] = {
	LIT("state"), LIT("lastState"), LIT("image"), LIT("imageID"), LIT("containerID"), LIT("volumeMounts"),
	LIT("allocatedResourcesStatus"), LIT("user"), { NULL, 0 },
};
static const struct {
	struct jkey parent;
	const struct jkey *keys;
} skip_rules[] = {
	{ LIT("metadata"), skip_metadata }, { LIT("status"), skip_status },	      { LIT("containers"), skip_container },
	{ LIT("initContainers"), skip_container }, { LIT("ephemeralContainers"), skip_container },
	{ LIT("volumeMounts"), skip_volume_mount },
	{ LIT("containerStatuses"), skip_container_status }, { LIT("initContainerStatuses"), skip_container_status },
};
#undef LIT

static bool str_is(const char *s, size_t len, const char *lit)
{
	return s && strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static bool key_is(const char *s, size_t len, const struct jkey *k)
{
	return k->len == len && memcmp(s, k->s, len) == 0;
}

/* The keys skipped in a map that sits under key (once per map, not per key). */
static const struct jkey *skip_list(const char *key, size_t len)
{
	if (!key)
		return NULL;
	/* objects kept whole for HTTP extenders (api_keep_json): only metadata.managedFields is
	 * skipped, which upstream's informers drop too (scheduler.go: "Dropping
	 * `.metadata.managedFields` to improve memory usage") */
	if (__atomic_load_n(&api__keep_json, __ATOMIC_RELAXED))
		return key_is(key, len, &skip_rules[0].parent) ? skip_rules[0].keys : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(skip_rules); i++)
		if (key_is(key, len, &skip_rules[i].parent))
			return skip_rules[i].keys;
	return NULL;
}

static bool skipped(const struct jframe *f, const unsigned char *key, size_t len)
{
	for (const struct jkey *k = f->skip; k && k->s; k++)
		if (key_is((const char *)key, len, k))
			return true;
	return false;
}

/* The same rules for protobuf.c, which builds the same trees from the binary format. */
const void *api__json_skip_list(const char *key, size_t len)
{
	return skip_list(key, len);
}

bool api__json_skip_has(const void *list, const char *key, size_t len)
{
	for (const struct jkey *k = list; k && k->s; k++)
		if (key_is(key, len, k))
			return true;
	return false;
}

/* ---------- building ---------- */

/* Makes *a ready for a document: made on first use (an informer reading protobuf parses JSON
 * only for an error's Status, if ever: ~20 informers x 12 KB), reset, or replaced by one sized
 * for what the last document needed. */
static int arena_refit(struct arena **a, size_t dflt)
{
	if (!*a)
		return (*a = arena_new(dflt)) ? 0 : ERR_NOMEM;
	if (arena_overflowed(*a)) {
		size_t need = arena_footprint(*a);
		struct arena *n = arena_new(need <= JSON_ARENA_KEEP_MAX ? need : dflt);
		if (!n)
			return ERR_NOMEM;
		arena_free(*a);
		*a = n;
	}
	arena_reset(*a);
	return 0;
}

static struct arena *cur_arena(const struct api__json *j)
{
	return j->n_frames >= 2 && j->frames[1].items ? j->item : j->doc;
}

static yajl_val new_value(struct api__json *j, yajl_type t)
{
	yajl_val v = arena_alloc(cur_arena(j), sizeof(*v));
	if (!v) {
		j->rc = ERR_NOMEM;
		return NULL;
	}
	v->type = t;
	return v;
}

/* Attaches a finished value to its parent (or makes it the root, or streams it). 0 stops. */
static int attach(struct api__json *j, yajl_val v)
{
	if (!v)
		return 0;
	if (!j->n_frames) {
		j->root = v;
		return 1;
	}
	struct jframe *f = &j->frames[j->n_frames - 1];
	if (f->items) {
		int rc = j->on_item(j->item_ctx, v);
		if (!rc)
			rc = arena_refit(&j->item, JSON_ITEM_ARENA);
		if (rc) {
			j->rc = rc;
			return 0;
		}
		return 1;
	}
	if (j->n_ents == j->cap_ents) {
		size_t cap = j->cap_ents ? j->cap_ents * 2 : 256;
		struct jent *e = realloc(j->ents, cap * sizeof(*e));
		if (!e) {
			j->rc = ERR_NOMEM;
			return 0;
		}
		j->ents = e;
		j->cap_ents = cap;
	}
	j->ents[j->n_ents++] = (struct jent){ f->is_map ? f->pending : NULL, v };
	f->pending = NULL;
	return 1;
}

/* A container opens one level deeper than the limit allows: stops the parser with an error. */
static bool too_deep(struct api__json *j)
{
	if (j->n_frames + j->skip < JSON_MAX_DEPTH)
		return false;
	j->rc = ERR_INVALID;
	j->why = "exceeded max depth of " JSON_STR(JSON_MAX_DEPTH);
	return true;
}

/* A scalar or the start of a container: false when it is skipped (and consumed). */
static bool take_value(struct api__json *j, bool container)
{
	if (j->skip) {
		if (container)
			j->skip++;
		return false;
	}
	if (j->skip_next) {
		j->skip_next = false;
		if (container)
			j->skip = 1;
		return false;
	}
	return true;
}

static int on_null(void *ctx)
{
	struct api__json *j = ctx;
	return take_value(j, false) ? attach(j, &v_null) : 1;
}

static int on_boolean(void *ctx, int b)
{
	struct api__json *j = ctx;
	return take_value(j, false) ? attach(j, b ? &v_true : &v_false) : 1;
}

/* As yajl_tree: i is valid when the text is an integer that fits in a long long (including
 * LLONG_MIN, which encoding/json reads and yajl_tree did not), d when strtod reads all of it. */
static int on_number(void *ctx, const char *s, size_t len)
{
	struct api__json *j = ctx;
	if (!take_value(j, false))
		return 1;
	yajl_val v = new_value(j, yajl_t_number);
	if (!v || !(v->u.number.r = arena_strndup(cur_arena(j), s, len))) {
		j->rc = ERR_NOMEM;
		return 0;
	}
	const char *p = v->u.number.r;
	bool neg = *p == '-', ok = true;
	unsigned long long mag = 0, lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	p += neg;
	if (!*p)
		ok = false;
	for (; *p && ok; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9 || mag > (lim - d) / 10)
			ok = false;
		else
			mag = mag * 10 + d;
	}
	if (ok) {
		v->u.number.i = neg ? (long long)(0 - mag) : (long long)mag;
		v->u.number.flags = YAJL_NUMBER_INT_VALID;
	}
	char *end;
	errno = 0;
	v->u.number.d = strtod(v->u.number.r, &end);
	if (errno == 0 && !*end)
		v->u.number.flags |= YAJL_NUMBER_DOUBLE_VALID;
	return attach(j, v);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct api__json *j = ctx;
	if (!take_value(j, false))
		return 1;
	yajl_val v = new_value(j, yajl_t_string);
	if (!v || !(v->u.string = arena_strndup(cur_arena(j), (const char *)s, len))) {
		j->rc = ERR_NOMEM;
		return 0;
	}
	return attach(j, v);
}

static int push_frame(struct api__json *j, bool is_map)
{
	if (j->n_frames == j->cap_frames) {
		size_t cap = j->cap_frames ? j->cap_frames * 2 : 32;
		struct jframe *f = realloc(j->frames, cap * sizeof(*f));
		if (!f) {
			j->rc = ERR_NOMEM;
			return 0;
		}
		j->frames = f;
		j->cap_frames = cap;
	}
	struct jframe nf = { .is_map = is_map, .first = j->n_ents };
	if (j->n_frames) {
		const struct jframe *parent = &j->frames[j->n_frames - 1];
		nf.key = parent->is_map ? parent->pending : parent->key;
		nf.key_len = parent->is_map ? parent->pending_len : parent->key_len;
		/* the top-level "items" array of a streamed document */
		nf.items = j->on_item && !is_map && j->n_frames == 1 && parent->is_map && str_is(nf.key, nf.key_len, "items");
		if (is_map)
			nf.skip = skip_list(nf.key, nf.key_len);
	}
	j->frames[j->n_frames++] = nf;
	return 1;
}

static int on_start_map(void *ctx)
{
	struct api__json *j = ctx;
	if (too_deep(j))
		return 0;
	return take_value(j, true) ? push_frame(j, true) : 1;
}

static int on_start_array(void *ctx)
{
	struct api__json *j = ctx;
	if (too_deep(j))
		return 0;
	return take_value(j, true) ? push_frame(j, false) : 1;
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len)
{
	struct api__json *j = ctx;
	if (j->skip)
		return 1;
	struct jframe *f = &j->frames[j->n_frames - 1];
	if (skipped(f, key, len)) {
		j->skip_next = true;
		return 1;
	}
	if (!(f->pending = arena_strndup(cur_arena(j), (const char *)key, len))) {
		j->rc = ERR_NOMEM;
		return 0;
	}
	f->pending_len = len;
	return 1;
}

/* Pops the top frame into a finished object or array and attaches it. */
static int end_container(struct api__json *j)
{
	if (j->skip) {
		j->skip--;
		return 1;
	}
	struct jframe f = j->frames[j->n_frames - 1];
	size_t n = j->n_ents - f.first;
	yajl_val v = NULL;
	if (f.items) {
		/* the streamed items were handed out: the array stays empty (in the document's arena:
		 * the items' arena is for items only) */
		if ((v = arena_alloc(j->doc, sizeof(*v))))
			v->type = yajl_t_array;
	} else if (f.is_map) {
		v = new_value(j, yajl_t_object);
		if (v && n) {
			struct arena *a = cur_arena(j);
			v->u.object.keys = arena_alloc(a, n * sizeof(*v->u.object.keys));
			v->u.object.values = arena_alloc(a, n * sizeof(*v->u.object.values));
			if (!v->u.object.keys || !v->u.object.values)
				v = NULL;
			for (size_t i = 0; v && i < n; i++) {
				v->u.object.keys[i] = j->ents[f.first + i].key;
				v->u.object.values[i] = j->ents[f.first + i].v;
			}
		}
		if (v)
			v->u.object.len = n;
	} else {
		v = new_value(j, yajl_t_array);
		if (v && n) {
			v->u.array.values = arena_alloc(cur_arena(j), n * sizeof(*v->u.array.values));
			if (!v->u.array.values)
				v = NULL;
			for (size_t i = 0; v && i < n; i++)
				v->u.array.values[i] = j->ents[f.first + i].v;
		}
		if (v)
			v->u.array.len = n;
	}
	if (!v) {
		j->rc = ERR_NOMEM;
		return 0;
	}
	/* popped only now: the value above was allocated in the frame's own arena */
	j->n_ents = f.first;
	j->n_frames--;
	return attach(j, v);
}

static int on_end_map(void *ctx)
{
	return end_container(ctx);
}

static int on_end_array(void *ctx)
{
	return end_container(ctx);
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

/* ---------- public (internal) API ---------- */

struct api__json *api__json_new(void)
{
	return calloc(1, sizeof(struct api__json)); /* the arenas: api__json_begin */
}

void api__json_free(struct api__json *j)
{
	if (!j)
		return;
	if (j->h)
		yajl_free(j->h);
	arena_free(j->doc);
	arena_free(j->item);
	free(j->ents);
	free(j->frames);
	free(j);
}

int api__json_begin(struct api__json *j, api__json_item_fn on_item, void *ctx)
{
	if (j->h)
		yajl_free(j->h);
	j->h = NULL;
	if (arena_refit(&j->doc, JSON_DOC_ARENA) || arena_refit(&j->item, JSON_ITEM_ARENA))
		return ERR_NOMEM;
	j->n_ents = j->n_frames = 0;
	j->root = NULL;
	j->skip = 0;
	j->skip_next = false;
	j->on_item = on_item;
	j->item_ctx = ctx;
	j->rc = 0;
	j->why = NULL;
	if (!(j->h = yajl_alloc(&callbacks, NULL, j)))
		return ERR_NOMEM;
	yajl_config(j->h, yajl_allow_comments, 1); /* as yajl_tree_parse */
	/* Strings are not checked for UTF-8: the apiserver's encoder never writes invalid UTF-8, Go's
	 * decoders would accept it anyway (as U+FFFD), and checking was a third of parsing a Pod. */
	yajl_config(j->h, yajl_dont_validate_strings, 1);
	return 0;
}

/* The code of a failed yajl call: the callback's reason, or ERR_INVALID with yajl's message. */
static int parse_failed(struct api__json *j, yajl_status st, const char *buf, size_t len, char *errbuf,
			size_t errsize)
{
	if (st == yajl_status_client_canceled && j->rc) {
		if (j->why && errbuf && errsize)
			snprintf(errbuf, errsize, "%s", j->why);
		return j->rc;
	}
	if (errbuf && errsize) {
		unsigned char *msg = yajl_get_error(j->h, 1, (const unsigned char *)buf, len);
		snprintf(errbuf, errsize, "%s", msg ? (const char *)msg : "parse error");
		if (msg)
			yajl_free_error(j->h, msg);
	}
	return ERR_INVALID;
}

int api__json_feed(struct api__json *j, const char *buf, size_t len, char *errbuf, size_t errsize)
{
	if (!j->h)
		return ERR_INVALID;
	yajl_status st = yajl_parse(j->h, (const unsigned char *)buf, len);
	return st == yajl_status_ok ? 0 : parse_failed(j, st, buf, len, errbuf, errsize);
}

int api__json_end(struct api__json *j, yajl_val *root, char *errbuf, size_t errsize)
{
	*root = NULL;
	if (!j->h)
		return ERR_INVALID;
	yajl_status st = yajl_complete_parse(j->h);
	if (st != yajl_status_ok)
		return parse_failed(j, st, "", 0, errbuf, errsize);
	if (!j->root) {
		if (errbuf && errsize)
			snprintf(errbuf, errsize, "empty document");
		return ERR_INVALID;
	}
	*root = j->root;
	return 0;
}

int api__json_parse(struct api__json *j, const char *text, size_t len, yajl_val *root, char *errbuf, size_t errsize)
{
	int rc;
	*root = NULL;
	if ((rc = api__json_begin(j, NULL, NULL)))
		return rc;
	if ((rc = api__json_feed(j, text, len, errbuf, errsize)))
		return rc;
	return api__json_end(j, root, errbuf, errsize);
}
