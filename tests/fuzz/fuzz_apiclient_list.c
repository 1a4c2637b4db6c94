/* Fuzz target for the informer's LIST page parser: json.c's streaming parser handing each element
 * of "items" to a callback as it completes (api__json_begin/feed/end, as the informer parses a
 * page while it arrives), each element decoded as the informer does. Byte 0 picks the kind (pods,
 * nodes, persistentvolumeclaims), byte 1 seeds the chunking, the rest is the page body. It is
 * parsed three ways: streamed whole, streamed in pieces of 1..64 bytes, and as one tree
 * (api__json_parse, items left in it). The items seen (decoded or not, namespace/name/
 * resourceVersion), the result and the page's metadata.resourceVersion and continue token must be
 * the same all three ways, else abort. tests/CMakeLists.txt builds it as unit_fuzz_apiclient_list
 * (replay over tests/fuzz/corpus/apiclient_list) and, with libFuzzer, as fuzz_apiclient_list. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct page {
	int kind; /* 0 pods, 1 nodes, 2 PVCs */
	size_t items, decoded;
	uint64_t sum; /* of the decoded items' keys and resourceVersions, in order */
	int rc;
	uint64_t meta; /* hash of metadata.resourceVersion and metadata.continue */
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;
}

static int on_item(void *ctx, yajl_val item)
{
	struct page *pg = ctx;
	struct err e;
	const struct api_meta *m = NULL;
	void *obj = NULL;
	pg->items++;
	switch (pg->kind) {
	case 0: {
		struct api_pod *p = api_pod_decode(item, &e);
		m = p ? &p->meta : NULL, obj = p;
		break;
	}
	case 1: {
		struct api_node *n = api_node_decode(item, &e);
		m = n ? &n->meta : NULL, obj = n;
		break;
	}
	default: {
		struct api_pvc *c = api_pvc_decode(item, &e);
		m = c ? &c->meta : NULL, obj = c;
		break;
	}
	}
	pg->sum = pg->sum * 31 + 7;
	if (m) {
		pg->decoded++;
		pg->sum = hash_str(hash_str(hash_str(pg->sum, m->namespace), m->name), m->resource_version);
	}
	if (pg->kind == 0)
		api_pod_unref(obj);
	else if (pg->kind == 1)
		api_node_unref(obj);
	else
		api_pvc_unref(obj);
	return 0;
}

static void page_meta(struct page *pg, yajl_val root)
{
	static const char *rv_path[] = { "metadata", "resourceVersion", NULL };
	static const char *cont_path[] = { "metadata", "continue", NULL };
	yajl_val rv = yajl_tree_get(root, rv_path, yajl_t_string);
	yajl_val cont = yajl_tree_get(root, cont_path, yajl_t_string);
	pg->meta = hash_str(hash_str(1, rv ? YAJL_GET_STRING(rv) : "-"), cont ? YAJL_GET_STRING(cont) : "-");
}

/* Streams body into j in pieces (whole when seed is 0). */
static void stream(struct api__json *j, struct page *pg, const char *body, size_t len, unsigned seed)
{
	char ebuf[256];
	yajl_val root = NULL;
	uint32_t x = seed * 2654435761u + 1;
	if ((pg->rc = api__json_begin(j, on_item, pg)))
		return;
	for (size_t off = 0; off < len && !pg->rc;) {
		size_t n = len - off;
		if (seed) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			size_t k = 1 + x % 64;
			n = n < k ? n : k;
		}
		pg->rc = api__json_feed(j, body + off, n, ebuf, sizeof(ebuf));
		off += n;
	}
	if (!pg->rc)
		pg->rc = api__json_end(j, &root, ebuf, sizeof(ebuf));
	if (!pg->rc)
		page_meta(pg, root);
}

/* The whole body as one tree; its "items" decoded in order. */
static void tree(struct api__json *j, struct page *pg, const char *body, size_t len)
{
	static const char *items_path[] = { "items", NULL };
	char ebuf[256];
	yajl_val root = NULL;
	if ((pg->rc = api__json_parse(j, body, len, &root, ebuf, sizeof(ebuf))))
		return;
	yajl_val items = yajl_tree_get(root, items_path, yajl_t_any);
	/* Streaming hands over the elements of a top-level "items" array only. */
	if (YAJL_IS_OBJECT(root) && items && YAJL_IS_ARRAY(items))
		for (size_t i = 0; i < items->u.array.len; i++)
			on_item(pg, items->u.array.values[i]);
	page_meta(pg, root);
}

static void compare(const char *what, const struct page *a, const struct page *b)
{
	if (a->rc != b->rc || (!a->rc && (a->items != b->items || a->decoded != b->decoded || a->sum != b->sum ||
					  a->meta != b->meta))) {
		fprintf(stderr, "list: streamed whole and %s differ: rc %d/%d items %zu/%zu decoded %zu/%zu\n", what,
			a->rc, b->rc, a->items, b->items, a->decoded, b->decoded);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct api__json *j;
	if (size < 2)
		return 0;
	if (!j && !(j = api__json_new()))
		return 0;
	int kind = data[0] % 3;
	const char *body = (const char *)data + 2;
	size_t len = size - 2;
	struct page whole = { .kind = kind }, chunked = { .kind = kind }, as_tree = { .kind = kind };
	stream(j, &whole, body, len, 0);
	stream(j, &chunked, body, len, data[1] | 1u << 8);
	compare("chunked", &whole, &chunked);
	tree(j, &as_tree, body, len);
	/* A document the tree parser refuses may still have streamed some items before the error;
	 * a document whose "items" is not where streaming looks for it is not comparable. */
	if (!whole.rc && !as_tree.rc)
		compare("as one tree", &whole, &as_tree);
	return 0;
}
