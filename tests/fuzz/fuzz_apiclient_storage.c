/* Fuzz target for the volume kinds' JSON decoders (what their informers decode every LIST item
 * and watch event with): byte 0 picks the kind (modulo 6: PersistentVolume, StorageClass,
 * CSINode, CSIDriver, VolumeAttachment, CSIStorageCapacity), the rest is the object. What decodes
 * must have every field it promises readable (ASan/valgrind check the reads); an error must name
 * the kind. Built as unit_fuzz_apiclient_storage (replay over tests/fuzz/corpus/apiclient_storage)
 * and, with libFuzzer, as the fuzzer fuzz_apiclient_storage. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t len0(const char *s)
{
	return s ? strlen(s) : 0;
}

static size_t meta_len(const struct api_meta *m)
{
	size_t n = strlen(m->name) + strlen(m->namespace) + len0(m->resource_version);
	for (uint32_t i = 0; i < m->labels.n; i++)
		n += strlen(m->labels.items[i].key) + strlen(m->labels.items[i].value);
	for (uint32_t i = 0; i < m->annotations.n; i++)
		n += strlen(m->annotations.items[i].key) + strlen(m->annotations.items[i].value);
	return n;
}

static size_t reqs_len(uint32_t n, const struct api_requirement *r)
{
	size_t t = 0;
	for (uint32_t i = 0; i < n; i++) {
		t += strlen(r[i].key);
		for (uint32_t k = 0; k < r[i].n_values; k++)
			t += strlen(r[i].values[k]);
	}
	return t;
}

static size_t selector_len(const struct api_label_selector *s)
{
	if (!s)
		return 0;
	size_t n = reqs_len(s->n_exprs, s->exprs);
	for (uint32_t i = 0; i < s->match_labels.n; i++)
		n += strlen(s->match_labels.items[i].key) + strlen(s->match_labels.items[i].value);
	return n;
}

static const char *const kind_names[] = { "persistentvolume", "storageclass", "csinode",
					  "csidriver", "volumeattachment", "csistoragecapacity" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *json = (const char *)data + 1;
	size_t len = size - 1;
	struct err e = { 0 };
	size_t n = 0;
	int kind = data[0] % 6;
	bool ok = true;
	switch (kind) {
	case 0: {
		struct api_pv *p = api_pv_decode_json(json, len, &e);
		if ((ok = p)) {
			n = meta_len(&p->meta) + strlen(p->storage_class_name) + len0(p->volume_mode) +
			    len0(p->volume_attributes_class_name) + strlen(p->phase) + len0(p->source.driver) +
			    len0(p->source.volume_handle) + len0(p->source.volume_id) + len0(p->source.disk_name) +
			    len0(p->source.azure_kind) + len0(p->source.secret_name) + len0(p->source.secret_namespace) +
			    len0(p->source.fs_type);
			if (p->has_claim_ref)
				n += strlen(p->claim_ref.namespace) + strlen(p->claim_ref.name) + strlen(p->claim_ref.uid);
			for (uint32_t i = 0; p->node_affinity && i < p->node_affinity->n_required; i++)
				n += reqs_len(p->node_affinity->required[i].n_exprs, p->node_affinity->required[i].exprs) +
				     reqs_len(p->node_affinity->required[i].n_fields, p->node_affinity->required[i].fields);
		}
		api_pv_unref(p);
		break;
	}
	case 1: {
		struct api_storage_class *sc = api_storage_class_decode_json(json, len, &e);
		if ((ok = sc)) {
			n = meta_len(&sc->meta) + strlen(sc->provisioner);
			for (uint32_t i = 0; i < sc->n_allowed_topologies; i++)
				n += reqs_len(sc->allowed_topologies[i].n_exprs, sc->allowed_topologies[i].exprs);
		}
		api_storage_class_unref(sc);
		break;
	}
	case 2: {
		struct api_csinode *c = api_csinode_decode_json(json, len, &e);
		if ((ok = c)) {
			n = meta_len(&c->meta);
			for (uint32_t i = 0; i < c->n_drivers; i++) {
				n += strlen(c->drivers[i].name) + strlen(c->drivers[i].node_id);
				for (uint32_t k = 0; k < c->drivers[i].n_topology_keys; k++)
					n += strlen(c->drivers[i].topology_keys[k]);
			}
		}
		api_csinode_unref(c);
		break;
	}
	case 3: {
		struct api_csidriver *c = api_csidriver_decode_json(json, len, &e);
		if ((ok = c))
			n = meta_len(&c->meta) + c->attach_required + c->storage_capacity;
		api_csidriver_unref(c);
		break;
	}
	case 4: {
		struct api_volume_attachment *va = api_volume_attachment_decode_json(json, len, &e);
		if ((ok = va))
			n = meta_len(&va->meta) + strlen(va->attacher) + strlen(va->node_name) + len0(va->pv_name);
		api_volume_attachment_unref(va);
		break;
	}
	default: {
		struct api_csi_storage_capacity *c = api_csi_storage_capacity_decode_json(json, len, &e);
		if ((ok = c))
			n = meta_len(&c->meta) + strlen(c->storage_class_name) + selector_len(c->node_topology);
		api_csi_storage_capacity_unref(c);
		break;
	}
	}
	if (n == SIZE_MAX)
		abort();
	/* every error names the kind it decoded */
	if (!ok && strncmp(e.msg, kind_names[kind], strlen(kind_names[kind])))
		abort();
	return 0;
}
