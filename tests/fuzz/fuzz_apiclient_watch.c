/* Fuzz target for the informer's watch-event stream: the bytes after the first two are a watch
 * response body (JSON events, one a line, as the apiserver streams them), fed through the
 * transport's line splitter (api__stream_write, what libcurl's write callback calls) into the
 * informer's event handler (api__inf_watch_line) with an empty store. Byte 0 picks the kind (pods,
 * nodes, persistentvolumeclaims), byte 1 seeds the chunking: the body goes once whole and once in
 * pieces of 1..64 bytes to two informers, whose outcomes must be equal (return code, events,
 * store keys and resourceVersions, counters, last resourceVersion), else abort: a chunk boundary
 * must never change what an event means. tests/CMakeLists.txt builds it as
 * unit_fuzz_apiclient_watch (replay over tests/fuzz/corpus/apiclient_watch) and, with libFuzzer,
 * as the fuzzer fuzz_apiclient_watch. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/client_internal.h"
#include "apiclient/informer_internal.h"
#include "common/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
	struct api_informer *inf;
	unsigned long events;
	int rc;
	struct err e;
};

static int on_line(void *ctx, char *line, size_t len)
{
	struct run *r = ctx;
	r->rc = api__inf_watch_line(r->inf, line, len, &r->events, &r->e);
	return r->rc;
}

/* Feeds body to r->inf in pieces (whole when seed is 0) as the transport would. */
static void feed(struct run *r, const char *body, size_t len, unsigned seed)
{
	struct api_conn c;
	memset(&c, 0, sizeof(c));
	c.on_line = on_line;
	c.line_ctx = r;
	uint32_t x = seed * 2654435761u + 1;
	for (size_t off = 0; off < len;) {
		size_t n = len - off;
		if (seed) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			size_t k = 1 + x % 64;
			n = n < k ? n : k;
		}
		if (!api__stream_write(&c, body + off, n))
			break;
		off += n;
	}
	strbuf_release(&c.body);
}

static const struct api_meta *meta_of(enum api_kind kind, const void *obj)
{
	switch (kind) {
	case API_KIND_POD: return &((const struct api_pod *)obj)->meta;
	case API_KIND_NODE: return &((const struct api_node *)obj)->meta;
	default: return &((const struct api_pvc *)obj)->meta;
	}
}

struct digest {
	enum api_kind kind;
	uint64_t sum; /* order-independent: the store is a hash map */
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

static void digest_obj(void *ctx, void *obj)
{
	struct digest *d = ctx;
	const struct api_meta *m = meta_of(d->kind, obj);
	uint64_t h = hash_str(hash_str(hash_str(14695981039346656037ull, m->namespace), m->name),
			      m->resource_version);
	d->sum += h * 0x9e3779b97f4a7c15ull | 1;
}

static void compare(const struct run *a, const struct run *b, enum api_kind kind)
{
	struct api_informer_stats sa, sb;
	struct digest da = {.kind = kind}, db = {.kind = kind};
	api_informer_stats(a->inf, &sa);
	api_informer_stats(b->inf, &sb);
	api_informer_foreach(a->inf, digest_obj, &da);
	api_informer_foreach(b->inf, digest_obj, &db);
	const char *rva = sa.last_resource_version ? sa.last_resource_version : "";
	const char *rvb = sb.last_resource_version ? sb.last_resource_version : "";
	if (a->rc != b->rc || a->events != b->events || da.sum != db.sum ||
	    api_informer_len(a->inf) != api_informer_len(b->inf) || sa.added != sb.added ||
	    sa.updated != sb.updated || sa.deleted != sb.deleted || sa.bookmarks != sb.bookmarks ||
	    sa.decode_errors != sb.decode_errors || strcmp(rva, rvb)) {
		fprintf(stderr, "watch: whole and chunked streams differ: rc %d/%d events %lu/%lu objects %zu/%zu "
				"rv %s/%s\n",
			a->rc, b->rc, a->events, b->events, api_informer_len(a->inf), api_informer_len(b->inf), rva,
			rvb);
		abort();
	}
}

static struct api_client *client(void)
{
	static struct api_client *c;
	if (!c) {
		struct api_config cfg = {0};
		struct err e = {0};
		cfg.server = strdup("https://127.0.0.1:1"); /* never contacted */
		log_set_verbosity(-1);
		log_set_fd(-1); /* events the informer skips are logged: not the fuzzer's output */
		if (!cfg.server || !(c = api_client_new(&cfg, &e)))
			abort();
	}
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum api_kind kinds[] = {API_KIND_POD, API_KIND_NODE, API_KIND_PVC};
	if (size < 2)
		return 0;
	enum api_kind kind = kinds[data[0] % 3];
	unsigned seed = data[1] | 1u << 8;
	const char *body = (const char *)data + 2;
	size_t len = size - 2;
	struct run whole = {0}, chunked = {0};
	whole.inf = api_informer_new(client(), kind, NULL, NULL, &whole.e);
	chunked.inf = api_informer_new(client(), kind, NULL, NULL, &chunked.e);
	if (whole.inf && chunked.inf) {
		feed(&whole, body, len, 0);
		feed(&chunked, body, len, seed);
		compare(&whole, &chunked, kind);
	}
	api_informer_free(whole.inf);
	api_informer_free(chunked.inf);
	return 0;
}
