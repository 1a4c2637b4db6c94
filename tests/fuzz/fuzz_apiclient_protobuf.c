/* Fuzz target for the protobuf wire format (apiclient/protobuf.c). Byte 0 picks the kind (pods,
 * nodes, persistentvolumeclaims, persistentvolumes, storageclasses, csinodes, csidrivers,
 * volumeattachments, csistoragecapacities, resourceclaims, resourceslices, deviceclasses,
 * devicetaintrules: bits 0-6 modulo 13) and, by its bit 7, the input's form: a response body ("k8s\0" +
 * runtime.Unknown: an object, a List whose items are decoded one by one, or a Status), decoded
 * as an informer's LIST page would be; or a protobuf watch stream (4-byte length-prefixed
 * metav1.WatchEvent frames) fed through the transport's frame splitter (api__stream_write with
 * a protobuf stream) into the informer's event handler (api__inf_watch_frame), once whole and
 * once in 1..64-byte pieces (byte 1 seeds them), whose outcomes must be equal, else abort. No
 * input may crash, leak or read out of bounds. tests/CMakeLists.txt builds it as
 * unit_fuzz_apiclient_protobuf (replay over tests/fuzz/corpus/apiclient_protobuf) and, with
 * libFuzzer, as the fuzzer fuzz_apiclient_protobuf. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/client_internal.h"
#include "apiclient/informer_internal.h"
#include "apiclient/pb_internal.h"
#include "common/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
	struct api_informer *inf;
	unsigned long events;
	int rc;
	struct err e;
};

static int on_frame(void *ctx, char *frame, size_t len)
{
	struct run *r = ctx;
	r->rc = api__inf_watch_frame(r->inf, frame, len, &r->events, &r->e);
	return r->rc;
}

static void feed(struct run *r, const char *body, size_t len, unsigned seed)
{
	struct api_conn c;
	memset(&c, 0, sizeof(c));
	c.on_line = on_frame;
	c.line_ctx = r;
	c.framed = true;
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

static struct api_client *client(void)
{
	static struct api_client *c;
	if (!c) {
		struct api_config cfg = {0};
		struct err e = {0};
		cfg.server = strdup("https://127.0.0.1:1"); /* never contacted */
		cfg.protobuf = true;
		log_set_verbosity(-1);
		log_set_fd(-1);
		if (!cfg.server || !(c = api_client_new(&cfg, &e)))
			abort();
	}
	return c;
}

struct items {
	enum api_kind kind;
	size_t n;
};

static int on_item(void *ctx, yajl_val item)
{
	struct items *it = ctx;
	struct err e = {0};
	it->n++;
	switch (it->kind) {
	case API_KIND_POD:
		api_pod_unref(api_pod_decode(item, &e));
		break;
	case API_KIND_NODE:
		api_node_unref(api_node_decode(item, &e));
		break;
	case API_KIND_PV:
		api_pv_unref(api_pv_decode(item, &e));
		break;
	case API_KIND_STORAGE_CLASS:
		api_storage_class_unref(api_storage_class_decode(item, &e));
		break;
	case API_KIND_CSINODE:
		api_csinode_unref(api_csinode_decode(item, &e));
		break;
	case API_KIND_CSIDRIVER:
		api_csidriver_unref(api_csidriver_decode(item, &e));
		break;
	case API_KIND_VOLUME_ATTACHMENT:
		api_volume_attachment_unref(api_volume_attachment_decode(item, &e));
		break;
	case API_KIND_CSI_STORAGE_CAPACITY:
		api_csi_storage_capacity_unref(api_csi_storage_capacity_decode(item, &e));
		break;
	case API_KIND_RESOURCE_CLAIM:
		api_resource_claim_unref(api_resource_claim_decode(item, &e));
		break;
	case API_KIND_RESOURCE_SLICE:
		api_resource_slice_unref(api_resource_slice_decode(item, &e));
		break;
	case API_KIND_DEVICE_CLASS:
		api_device_class_unref(api_device_class_decode(item, &e));
		break;
	case API_KIND_DEVICE_TAINT_RULE:
		api_device_taint_rule_unref(api_device_taint_rule_decode(item, &e));
		break;
	default:
		api_pvc_unref(api_pvc_decode(item, &e));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* appended kinds keep the seeds' byte 0 meaning what it did */
	static const enum api_kind kinds[] = {API_KIND_POD,	      API_KIND_NODE,	  API_KIND_PVC,
					      API_KIND_PV,	      API_KIND_STORAGE_CLASS, API_KIND_CSINODE,
					      API_KIND_CSIDRIVER,     API_KIND_VOLUME_ATTACHMENT,
					      API_KIND_CSI_STORAGE_CAPACITY, API_KIND_RESOURCE_CLAIM,
					      API_KIND_RESOURCE_SLICE, API_KIND_DEVICE_CLASS, API_KIND_DEVICE_TAINT_RULE};
	static struct api__pb *pb;
	if (size < 2)
		return 0;
	enum api_kind kind = kinds[(data[0] & 0x7f) % (sizeof(kinds) / sizeof(kinds[0]))];
	const char *body = (const char *)data + 2;
	size_t len = size - 2;
	if (!(data[0] & 0x80)) {
		if (!pb && !(pb = api__pb_new()))
			abort();
		struct items it = {.kind = kind};
		yajl_val root = NULL;
		char ebuf[256];
		int rc = api__pb_body(pb, kind, body, len, on_item, &it, &root, ebuf, sizeof(ebuf));
		if (rc == 0 && !root)
			abort();
		if (rc == 0 && !it.n)
			on_item(&it, root); /* a single object */
		if (rc && rc != ERR_INVALID && rc != ERR_NOMEM)
			abort();
		if (rc == ERR_INVALID && strncmp(ebuf, "protobuf: ", 10))
			abort(); /* every error says what */
		return 0;
	}
	struct run whole = {0}, chunked = {0};
	whole.inf = api_informer_new(client(), kind, NULL, NULL, &whole.e);
	chunked.inf = api_informer_new(client(), kind, NULL, NULL, &chunked.e);
	if (whole.inf && chunked.inf) {
		feed(&whole, body, len, 0);
		feed(&chunked, body, len, data[1] | 1u << 8);
		struct api_informer_stats sa, sb;
		api_informer_stats(whole.inf, &sa);
		api_informer_stats(chunked.inf, &sb);
		if (whole.rc != chunked.rc || whole.events != chunked.events ||
		    api_informer_len(whole.inf) != api_informer_len(chunked.inf) || sa.added != sb.added ||
		    sa.deleted != sb.deleted || sa.decode_errors != sb.decode_errors) {
			fprintf(stderr, "protobuf watch: whole and chunked streams differ\n");
			abort();
		}
	}
	api_informer_free(whole.inf);
	api_informer_free(chunked.inf);
	return 0;
}
