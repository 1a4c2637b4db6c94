/* The volume kinds' decoders (apiclient/decode_pv.c, decode_storage.c, the PVC fields of
 * decode_pvc.c and the volume sources of decode_pod.c): PersistentVolumes, StorageClasses,
 * CSINodes, CSIDrivers, VolumeAttachments and CSIStorageCapacities as upstream's volume plugins
 * read them (volumebinding, volumezone, nodevolumelimits; component-helpers' FindMatchingVolume;
 * csi-translation-lib). Hand-written objects, each field in the shape the apiserver serves it
 * (k8s.io/api v0.37 json tags), and fixtures captured from a real kube-apiserver v1.37.2 in JSON
 * and protobuf from one server state (tests/fixtures/api/volumes/capture.sh), which must decode
 * to the same objects (a canonical dump of every decoded field compared) and to the values the
 * manifests (tests/fixtures/api/manifests/volumes.yaml) and the server's defaults give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "apiclient/api_types.h"
#include "apiclient/informer.h"
#include "apiclient/pb_internal.h"
#include "common/intern.h"
#include "testutil.h"

#define I(s) intern_str(s)

#define DECODE(type, json)                                                            \
	({                                                                            \
		struct err e_ = { 0 };                                                \
		struct type *o_ = type##_decode_json((json), strlen(json), &e_);      \
		if (!o_)                                                              \
			fail_msg("%s: %s", #type, e_.msg);                            \
		o_;                                                                   \
	})

static void test_pv_csi_bound(void **state)
{
	(void)state;
	static const char *json =
		"{\"kind\":\"PersistentVolume\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"pv-a\",\"uid\":\"u1\","
		"\"resourceVersion\":\"42\",\"labels\":{\"topology.kubernetes.io/zone\":\"zone-a\"},"
		"\"annotations\":{\"pv.kubernetes.io/bound-by-controller\":\"yes\"}},"
		"\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadWriteOnce\",\"ReadWriteOncePod\",\"Bogus\"],"
		"\"storageClassName\":\"fast\",\"volumeMode\":\"Block\",\"volumeAttributesClassName\":\"gold\","
		"\"claimRef\":{\"kind\":\"PersistentVolumeClaim\",\"namespace\":\"ns\",\"name\":\"data\",\"uid\":\"c1\"},"
		"\"csi\":{\"driver\":\"ebs.csi.aws.com\",\"volumeHandle\":\"vol-1\",\"fsType\":\"ext4\",\"readOnly\":true},"
		"\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":"
		"\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":[\"zone-a\",\"zone-b\"]}]}]}}},"
		"\"status\":{\"phase\":\"Bound\"}}";
	struct api_pv *p = DECODE(api_pv, json);
	assert_ptr_equal(p->meta.name, I("pv-a"));
	assert_string_equal(p->meta.namespace, "");
	assert_string_equal(p->meta.resource_version, "42");
	assert_ptr_equal(api_labels_get(&p->meta.labels, I("topology.kubernetes.io/zone")), I("zone-a"));
	assert_int_equal(p->meta.annotations.n, 1);
	assert_string_equal(p->meta.annotations.items[0].key, "pv.kubernetes.io/bound-by-controller");
	assert_true(p->has_capacity_storage);
	assert_int_equal(p->capacity_storage, 1073741824);
	assert_int_equal(p->access_modes, API_ACCESS_RWO | API_ACCESS_RWOP);
	assert_ptr_equal(p->storage_class_name, I("fast"));
	assert_ptr_equal(p->volume_mode, I("Block"));
	assert_string_equal(p->volume_attributes_class_name, "gold");
	assert_true(p->has_claim_ref);
	assert_string_equal(p->claim_ref.namespace, "ns");
	assert_string_equal(p->claim_ref.name, "data");
	assert_string_equal(p->claim_ref.uid, "c1");
	assert_int_equal(p->source.kind, API_PV_CSI);
	assert_ptr_equal(p->source.driver, I("ebs.csi.aws.com"));
	assert_string_equal(p->source.volume_handle, "vol-1");
	assert_string_equal(p->source.fs_type, "ext4");
	assert_true(p->source.read_only);
	assert_null(p->source.volume_id);
	assert_non_null(p->node_affinity);
	assert_true(p->node_affinity->has_required);
	assert_int_equal(p->node_affinity->n_required, 1);
	assert_int_equal(p->node_affinity->required[0].n_exprs, 1);
	assert_ptr_equal(p->node_affinity->required[0].exprs[0].key, I("topology.kubernetes.io/zone"));
	assert_int_equal(p->node_affinity->required[0].exprs[0].op, API_OP_IN);
	assert_int_equal(p->node_affinity->required[0].exprs[0].n_values, 2);
	assert_ptr_equal(p->node_affinity->required[0].exprs[0].values[1], I("zone-b"));
	assert_int_equal(p->node_affinity->n_preferred, 0);
	assert_ptr_equal(p->phase, I("Bound"));
	assert_false(p->meta.being_deleted);
	assert_ptr_equal(api_pv_ref(p), p);
	api_pv_unref(p);
	api_pv_unref(p);
	api_pv_unref(NULL);
	assert_null(api_pv_ref(NULL));
}

/* Absent fields: no claimRef, no node affinity (or one without required), no class, no mode. */
static void test_pv_absent(void **state)
{
	(void)state;
	struct api_pv *p = DECODE(api_pv, "{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":\"2026-11-28T00:00:00Z\"},"
					  "\"spec\":{\"hostPath\":{\"path\":\"/x\"},\"nodeAffinity\":{}}}");
	assert_false(p->has_capacity_storage);
	assert_int_equal(p->capacity_storage, 0);
	assert_int_equal(p->access_modes, 0);
	assert_ptr_equal(p->storage_class_name, I(""));
	assert_null(p->volume_mode);
	assert_null(p->volume_attributes_class_name);
	assert_false(p->has_claim_ref);
	assert_null(p->node_affinity);
	assert_int_equal(p->source.kind, API_PV_OTHER);
	assert_ptr_equal(p->phase, I(""));
	assert_true(p->meta.being_deleted);
	api_pv_unref(p);
	/* required present with no terms: has_required, matches no node upstream */
	p = DECODE(api_pv, "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"nodeAffinity\":{\"required\":{}}}}");
	assert_non_null(p->node_affinity);
	assert_true(p->node_affinity->has_required);
	assert_int_equal(p->node_affinity->n_required, 0);
	api_pv_unref(p);
}

/* The in-tree sources csi-translation-lib translates, with the fields it reads. */
static void test_pv_in_tree_sources(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		enum api_pv_source_kind kind;
		const char *volume_id;
		int32_t partition;
	} t[] = {
		{ "\"gcePersistentDisk\":{\"pdName\":\"disk-1\",\"partition\":2,\"fsType\":\"xfs\"}", API_PV_GCE_PD, "disk-1", 2 },
		{ "\"awsElasticBlockStore\":{\"volumeID\":\"aws://us-east-1a/vol-1\"}", API_PV_AWS_EBS, "aws://us-east-1a/vol-1", 0 },
		{ "\"azureDisk\":{\"diskName\":\"d\",\"diskURI\":\"/sub/d\",\"kind\":\"Managed\"}", API_PV_AZURE_DISK, "/sub/d", 0 },
		{ "\"azureFile\":{\"secretName\":\"azure-storage-account-acct-secret\",\"shareName\":\"share\"}",
		  API_PV_AZURE_FILE, "share", 0 },
		{ "\"cinder\":{\"volumeID\":\"c-1\"}", API_PV_CINDER, "c-1", 0 },
		{ "\"vsphereVolume\":{\"volumePath\":\"[ds] v.vmdk\"}", API_PV_VSPHERE, "[ds] v.vmdk", 0 },
		{ "\"portworxVolume\":{\"volumeID\":\"px-1\"}", API_PV_PORTWORX, "px-1", 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char json[512];
		snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"p\"},\"spec\":{%s}}", t[i].spec);
		struct api_pv *p = DECODE(api_pv, json);
		assert_int_equal(p->source.kind, t[i].kind);
		assert_string_equal(p->source.volume_id, t[i].volume_id);
		assert_int_equal(p->source.partition, t[i].partition);
		assert_null(p->source.driver);
		if (t[i].kind == API_PV_AZURE_DISK) {
			assert_string_equal(p->source.disk_name, "d");
			assert_string_equal(p->source.azure_kind, "Managed");
		}
		if (t[i].kind == API_PV_AZURE_FILE) {
			assert_string_equal(p->source.secret_name, "azure-storage-account-acct-secret");
			assert_null(p->source.secret_namespace);
		}
		if (t[i].kind == API_PV_GCE_PD)
			assert_string_equal(p->source.fs_type, "xfs");
		api_pv_unref(p);
	}
}

static void test_pvc_fields(void **state)
{
	(void)state;
	struct api_pvc *p = DECODE(
		api_pvc,
		"{\"metadata\":{\"name\":\"data\",\"namespace\":\"ns\",\"uid\":\"c1\",\"resourceVersion\":\"7\","
		"\"annotations\":{\"volume.kubernetes.io/selected-node\":\"n1\"}},"
		"\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"1500M\"}},"
		"\"selector\":{\"matchLabels\":{\"tier\":\"db\"}},\"storageClassName\":\"\",\"volumeMode\":\"Filesystem\","
		"\"volumeAttributesClassName\":\"gold\"},\"status\":{\"phase\":\"Pending\"}}");
	assert_true(p->has_request_storage);
	assert_int_equal(p->request_storage, 1500000000);
	assert_non_null(p->selector);
	assert_ptr_equal(api_labels_get(&p->selector->match_labels, I("tier")), I("db"));
	assert_ptr_equal(p->storage_class_name, I(""));
	assert_ptr_equal(p->volume_mode, I("Filesystem"));
	assert_string_equal(p->volume_attributes_class_name, "gold");
	assert_string_equal(p->meta.uid, "c1");
	assert_string_equal(p->meta.resource_version, "7");
	assert_int_equal(p->meta.annotations.n, 1);
	assert_string_equal(p->meta.annotations.items[0].value, "n1");
	api_pvc_unref(p);
	p = DECODE(api_pvc, "{\"metadata\":{\"name\":\"d\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":"
			    "{\"cpu\":\"1\"}},\"selector\":null,\"volumeMode\":null}}");
	assert_false(p->has_request_storage);
	assert_null(p->selector);
	assert_null(p->storage_class_name);
	assert_null(p->volume_mode);
	assert_null(p->volume_attributes_class_name);
	api_pvc_unref(p);
}

static void test_storage_class(void **state)
{
	(void)state;
	struct api_storage_class *sc = DECODE(
		api_storage_class,
		"{\"kind\":\"StorageClass\",\"apiVersion\":\"storage.k8s.io/v1\",\"metadata\":{\"name\":\"wffc\"},"
		"\"provisioner\":\"pd.csi.storage.gke.io\",\"parameters\":{\"type\":\"pd-ssd\"},\"reclaimPolicy\":\"Delete\","
		"\"volumeBindingMode\":\"WaitForFirstConsumer\",\"allowedTopologies\":[{\"matchLabelExpressions\":["
		"{\"key\":\"topology.kubernetes.io/zone\",\"values\":[\"a\",\"b\"]},{\"key\":\"k\",\"values\":[\"v\"]}]}]}");
	assert_ptr_equal(sc->meta.name, I("wffc"));
	assert_ptr_equal(sc->provisioner, I("pd.csi.storage.gke.io"));
	assert_int_equal(sc->volume_binding_mode, API_BINDING_WAIT_FOR_FIRST_CONSUMER);
	assert_int_equal(sc->n_allowed_topologies, 1);
	assert_int_equal(sc->allowed_topologies[0].n_exprs, 2);
	assert_ptr_equal(sc->allowed_topologies[0].exprs[0].key, I("topology.kubernetes.io/zone"));
	assert_int_equal(sc->allowed_topologies[0].exprs[0].op, API_OP_IN);
	assert_int_equal(sc->allowed_topologies[0].exprs[0].n_values, 2);
	assert_ptr_equal(sc->allowed_topologies[0].exprs[1].values[0], I("v"));
	assert_ptr_equal(api_storage_class_ref(sc), sc);
	api_storage_class_unref(sc);
	api_storage_class_unref(sc);
	static const struct {
		const char *mode;
		enum api_binding_mode want;
		bool has;
	} modes[] = { { "", API_BINDING_IMMEDIATE, false },
		      { ",\"volumeBindingMode\":\"Immediate\"", API_BINDING_IMMEDIATE, true },
		      { ",\"volumeBindingMode\":null", API_BINDING_IMMEDIATE, false },
		      { ",\"volumeBindingMode\":\"Later\"", API_BINDING_UNKNOWN, true } };
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char json[256];
		snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"s\"},\"provisioner\":\"p\"%s}", modes[i].mode);
		sc = DECODE(api_storage_class, json);
		assert_int_equal(sc->volume_binding_mode, modes[i].want);
		assert_int_equal(sc->has_volume_binding_mode, modes[i].has);
		assert_int_equal(sc->n_allowed_topologies, 0);
		api_storage_class_unref(sc);
	}
}

static void test_csinode(void **state)
{
	(void)state;
	struct api_csinode *n = DECODE(
		api_csinode,
		"{\"metadata\":{\"name\":\"node-1\",\"annotations\":{\"storage.alpha.kubernetes.io/migrated-plugins\":"
		"\"kubernetes.io/aws-ebs,kubernetes.io/gce-pd\"}},\"spec\":{\"drivers\":[{\"name\":\"ebs.csi.aws.com\","
		"\"nodeID\":\"i-1\",\"topologyKeys\":[\"topology.ebs.csi.aws.com/zone\"],\"allocatable\":{\"count\":25}},"
		"{\"name\":\"hostpath.csi.k8s.io\",\"nodeID\":\"node-1\",\"topologyKeys\":null}]}}");
	assert_ptr_equal(n->meta.name, I("node-1"));
	assert_int_equal(n->meta.annotations.n, 1);
	assert_string_equal(n->meta.annotations.items[0].value, "kubernetes.io/aws-ebs,kubernetes.io/gce-pd");
	assert_int_equal(n->n_drivers, 2);
	assert_ptr_equal(n->drivers[0].name, I("ebs.csi.aws.com"));
	assert_string_equal(n->drivers[0].node_id, "i-1");
	assert_int_equal(n->drivers[0].n_topology_keys, 1);
	assert_ptr_equal(n->drivers[0].topology_keys[0], I("topology.ebs.csi.aws.com/zone"));
	assert_true(n->drivers[0].has_allocatable_count);
	assert_int_equal(n->drivers[0].allocatable_count, 25);
	assert_ptr_equal(n->drivers[1].name, I("hostpath.csi.k8s.io"));
	assert_int_equal(n->drivers[1].n_topology_keys, 0);
	assert_false(n->drivers[1].has_allocatable_count);
	assert_ptr_equal(api_csinode_ref(n), n);
	api_csinode_unref(n);
	api_csinode_unref(n);
}

static void test_csidriver(void **state)
{
	(void)state;
	struct api_csidriver *c = DECODE(api_csidriver,
					 "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"attachRequired\":false,"
					 "\"storageCapacity\":true,\"preventPodSchedulingIfMissing\":true}}");
	assert_ptr_equal(c->meta.name, I("d"));
	assert_true(c->has_attach_required);
	assert_false(c->attach_required);
	assert_true(c->has_storage_capacity);
	assert_true(c->storage_capacity);
	assert_true(c->has_prevent_pod_scheduling_if_missing);
	assert_true(c->prevent_pod_scheduling_if_missing);
	api_csidriver_unref(c);
	c = DECODE(api_csidriver, "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"storageCapacity\":null}}");
	assert_false(c->has_attach_required);
	assert_true(c->attach_required);
	assert_false(c->has_storage_capacity);
	assert_false(c->storage_capacity);
	assert_false(c->has_prevent_pod_scheduling_if_missing);
	assert_ptr_equal(api_csidriver_ref(c), c);
	api_csidriver_unref(c);
	api_csidriver_unref(c);
}

static void test_volume_attachment(void **state)
{
	(void)state;
	struct api_volume_attachment *va = DECODE(
		api_volume_attachment,
		"{\"metadata\":{\"name\":\"csi-123\"},\"spec\":{\"attacher\":\"ebs.csi.aws.com\",\"nodeName\":\"node-1\","
		"\"source\":{\"persistentVolumeName\":\"pv-a\"}},\"status\":{\"attached\":true}}");
	assert_ptr_equal(va->attacher, I("ebs.csi.aws.com"));
	assert_ptr_equal(va->node_name, I("node-1"));
	assert_string_equal(va->pv_name, "pv-a");
	assert_true(va->attached);
	api_volume_attachment_unref(va);
	va = DECODE(api_volume_attachment, "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"attacher\":\"a\",\"nodeName\":\"n\","
					   "\"source\":{\"inlineVolumeSpec\":{}}}}");
	assert_null(va->pv_name);
	assert_false(va->attached);
	assert_ptr_equal(api_volume_attachment_ref(va), va);
	api_volume_attachment_unref(va);
	api_volume_attachment_unref(va);
}

static void test_csi_storage_capacity(void **state)
{
	(void)state;
	struct api_csi_storage_capacity *c = DECODE(
		api_csi_storage_capacity,
		"{\"metadata\":{\"name\":\"csisc-1\",\"namespace\":\"kube-system\"},\"storageClassName\":\"fast\","
		"\"nodeTopology\":{\"matchLabels\":{\"topology.hostpath.csi/node\":\"node-1\"}},\"capacity\":\"10Gi\","
		"\"maximumVolumeSize\":\"5Gi\"}");
	assert_ptr_equal(c->meta.namespace, I("kube-system"));
	assert_ptr_equal(c->storage_class_name, I("fast"));
	assert_non_null(c->node_topology);
	assert_ptr_equal(api_labels_get(&c->node_topology->match_labels, I("topology.hostpath.csi/node")), I("node-1"));
	assert_true(c->has_capacity);
	assert_int_equal(c->capacity, 10737418240LL);
	assert_true(c->has_maximum_volume_size);
	assert_int_equal(c->maximum_volume_size, 5368709120LL);
	api_csi_storage_capacity_unref(c);
	c = DECODE(api_csi_storage_capacity, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},"
					     "\"storageClassName\":\"s\",\"capacity\":null}");
	assert_null(c->node_topology);
	assert_false(c->has_capacity);
	assert_false(c->has_maximum_volume_size);
	assert_ptr_equal(api_csi_storage_capacity_ref(c), c);
	api_csi_storage_capacity_unref(c);
	api_csi_storage_capacity_unref(c);
}

/* The pod volume sources NodeVolumeLimits and VolumeBinding read. */
static void test_pod_volume_sources(void **state)
{
	(void)state;
	struct api_pod *p = DECODE(
		api_pod,
		"{\"metadata\":{\"name\":\"web-0\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\"}],"
		"\"volumes\":[{\"name\":\"scratch\",\"ephemeral\":{\"volumeClaimTemplate\":{\"spec\":{}}}},"
		"{\"name\":\"inline\",\"csi\":{\"driver\":\"secrets-store.csi.k8s.io\",\"readOnly\":true}},"
		"{\"name\":\"az\",\"azureDisk\":{\"diskName\":\"d\",\"diskURI\":\"/sub/d\"}},"
		"{\"name\":\"af\",\"azureFile\":{\"secretName\":\"s\",\"shareName\":\"share\"}},"
		"{\"name\":\"ci\",\"cinder\":{\"volumeID\":\"c-1\"}},"
		"{\"name\":\"vs\",\"vsphereVolume\":{\"volumePath\":\"[ds] v.vmdk\"}},"
		"{\"name\":\"px\",\"portworxVolume\":{\"volumeID\":\"px-1\"}},"
		"{\"name\":\"cm\",\"configMap\":{\"name\":\"x\"}}]}}");
	assert_int_equal(p->n_volumes, 8);
	assert_int_equal(p->volumes[0].kind, API_VOLUME_EPHEMERAL);
	assert_string_equal(p->volumes[0].claim_name, "web-0-scratch");
	assert_int_equal(p->volumes[1].kind, API_VOLUME_CSI);
	assert_ptr_equal(p->volumes[1].csi_driver, I("secrets-store.csi.k8s.io"));
	assert_true(p->volumes[1].read_only);
	assert_int_equal(p->volumes[2].kind, API_VOLUME_AZURE_DISK);
	assert_string_equal(p->volumes[2].volume_id, "/sub/d");
	assert_int_equal(p->volumes[3].kind, API_VOLUME_AZURE_FILE);
	assert_string_equal(p->volumes[3].volume_id, "share");
	assert_string_equal(p->volumes[3].secret_name, "s");
	assert_int_equal(p->volumes[4].kind, API_VOLUME_CINDER);
	assert_string_equal(p->volumes[4].volume_id, "c-1");
	assert_int_equal(p->volumes[5].kind, API_VOLUME_VSPHERE);
	assert_string_equal(p->volumes[5].volume_id, "[ds] v.vmdk");
	assert_int_equal(p->volumes[6].kind, API_VOLUME_PORTWORX);
	assert_string_equal(p->volumes[6].volume_id, "px-1");
	assert_int_equal(p->volumes[7].kind, API_VOLUME_OTHER);
	assert_true(p->volumes[7].config_map_or_secret);
	assert_null(p->volumes[7].csi_driver);
	api_pod_unref(p);
}

/* ---------- fixtures, JSON and protobuf ---------- */

#define VFIX "tests/fixtures/api/volumes/"

static void dump_meta(FILE *f, const struct api_meta *m)
{
	fprintf(f, "meta %s/%s uid=%s rv=%s created=%lld deleting=%d\n", m->namespace, m->name, m->uid,
		m->resource_version, (long long)m->creation_timestamp, m->being_deleted);
	for (uint32_t i = 0; i < m->labels.n; i++)
		fprintf(f, " label %s=%s\n", m->labels.items[i].key, m->labels.items[i].value);
	for (uint32_t i = 0; i < m->annotations.n; i++)
		fprintf(f, " annotation %s=%s\n", m->annotations.items[i].key, m->annotations.items[i].value);
	for (uint32_t i = 0; i < m->n_owner_refs; i++)
		fprintf(f, " owner %s %s\n", m->owner_refs[i].kind, m->owner_refs[i].name);
}

static void dump_reqs(FILE *f, uint32_t n, const struct api_requirement *r)
{
	for (uint32_t i = 0; i < n; i++) {
		fprintf(f, "  req %s %d", r[i].key, (int)r[i].op);
		for (uint32_t k = 0; k < r[i].n_values; k++)
			fprintf(f, " %s", r[i].values[k]);
		fputc('\n', f);
	}
}

static void dump_selector(FILE *f, const char *what, const struct api_label_selector *sel)
{
	if (!sel) {
		fprintf(f, "%s none\n", what);
		return;
	}
	fprintf(f, "%s\n", what);
	for (uint32_t i = 0; i < sel->match_labels.n; i++)
		fprintf(f, "  %s=%s\n", sel->match_labels.items[i].key, sel->match_labels.items[i].value);
	dump_reqs(f, sel->n_exprs, sel->exprs);
}

#define S(x) ((x) ? (x) : "(null)")

/* Every decoded field of obj (of kind) as text. */
static char *dump(enum api_kind kind, const void *obj)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	switch (kind) {
	case API_KIND_PV: {
		const struct api_pv *p = obj;
		dump_meta(f, &p->meta);
		fprintf(f, "cap %d:%lld modes %u class %s mode %s vac %s phase %s\n", p->has_capacity_storage,
			(long long)p->capacity_storage, p->access_modes, p->storage_class_name, S(p->volume_mode),
			S(p->volume_attributes_class_name), p->phase);
		fprintf(f, "claimRef %d %s/%s %s\n", p->has_claim_ref, S(p->claim_ref.namespace), S(p->claim_ref.name),
			S(p->claim_ref.uid));
		const struct api_pv_source *o = &p->source;
		fprintf(f, "source %d %s %s %s %s %s %s %s %s %d %d\n", (int)o->kind, S(o->driver), S(o->volume_handle),
			S(o->volume_id), S(o->disk_name), S(o->azure_kind), S(o->secret_name), S(o->secret_namespace),
			S(o->fs_type), o->partition, o->read_only);
		if (p->node_affinity)
			for (uint32_t i = 0; i < p->node_affinity->n_required; i++) {
				fprintf(f, " term %u\n", i);
				dump_reqs(f, p->node_affinity->required[i].n_exprs, p->node_affinity->required[i].exprs);
				dump_reqs(f, p->node_affinity->required[i].n_fields, p->node_affinity->required[i].fields);
			}
		break;
	}
	case API_KIND_PVC: {
		const struct api_pvc *p = obj;
		dump_meta(f, &p->meta);
		fprintf(f, "modes %u volume %s class %s phase %s req %d:%lld mode %s vac %s\n", p->access_modes,
			p->volume_name, S(p->storage_class_name), p->phase, p->has_request_storage,
			(long long)p->request_storage, S(p->volume_mode), S(p->volume_attributes_class_name));
		dump_selector(f, "selector", p->selector);
		break;
	}
	case API_KIND_STORAGE_CLASS: {
		const struct api_storage_class *sc = obj;
		dump_meta(f, &sc->meta);
		fprintf(f, "provisioner %s mode %d:%d\n", sc->provisioner, sc->has_volume_binding_mode,
			(int)sc->volume_binding_mode);
		for (uint32_t i = 0; i < sc->n_allowed_topologies; i++)
			dump_reqs(f, sc->allowed_topologies[i].n_exprs, sc->allowed_topologies[i].exprs);
		break;
	}
	case API_KIND_CSINODE: {
		const struct api_csinode *c = obj;
		dump_meta(f, &c->meta);
		for (uint32_t i = 0; i < c->n_drivers; i++) {
			fprintf(f, "driver %s %s %d:%d", c->drivers[i].name, c->drivers[i].node_id,
				c->drivers[i].has_allocatable_count, c->drivers[i].allocatable_count);
			for (uint32_t k = 0; k < c->drivers[i].n_topology_keys; k++)
				fprintf(f, " %s", c->drivers[i].topology_keys[k]);
			fputc('\n', f);
		}
		break;
	}
	case API_KIND_CSIDRIVER: {
		const struct api_csidriver *c = obj;
		dump_meta(f, &c->meta);
		fprintf(f, "attach %d:%d capacity %d:%d prevent %d:%d\n", c->has_attach_required, c->attach_required,
			c->has_storage_capacity, c->storage_capacity, c->has_prevent_pod_scheduling_if_missing,
			c->prevent_pod_scheduling_if_missing);
		break;
	}
	case API_KIND_VOLUME_ATTACHMENT: {
		const struct api_volume_attachment *va = obj;
		dump_meta(f, &va->meta);
		fprintf(f, "attacher %s node %s pv %s attached %d\n", va->attacher, va->node_name, S(va->pv_name),
			va->attached);
		break;
	}
	default: {
		const struct api_csi_storage_capacity *c = obj;
		dump_meta(f, &c->meta);
		fprintf(f, "class %s cap %d:%lld max %d:%lld\n", c->storage_class_name, c->has_capacity,
			(long long)c->capacity, c->has_maximum_volume_size, (long long)c->maximum_volume_size);
		dump_selector(f, "topology", c->node_topology);
		break;
	}
	}
	fclose(f);
	return s;
}

static void *decode_kind(enum api_kind kind, const struct yajl_val_s *v, struct err *e)
{
	switch (kind) {
	case API_KIND_PV:
		return api_pv_decode(v, e);
	case API_KIND_PVC:
		return api_pvc_decode(v, e);
	case API_KIND_STORAGE_CLASS:
		return api_storage_class_decode(v, e);
	case API_KIND_CSINODE:
		return api_csinode_decode(v, e);
	case API_KIND_CSIDRIVER:
		return api_csidriver_decode(v, e);
	case API_KIND_VOLUME_ATTACHMENT:
		return api_volume_attachment_decode(v, e);
	default:
		return api_csi_storage_capacity_decode(v, e);
	}
}

static void unref_kind(enum api_kind kind, void *o)
{
	switch (kind) {
	case API_KIND_PV:
		api_pv_unref(o);
		break;
	case API_KIND_PVC:
		api_pvc_unref(o);
		break;
	case API_KIND_STORAGE_CLASS:
		api_storage_class_unref(o);
		break;
	case API_KIND_CSINODE:
		api_csinode_unref(o);
		break;
	case API_KIND_CSIDRIVER:
		api_csidriver_unref(o);
		break;
	case API_KIND_VOLUME_ATTACHMENT:
		api_volume_attachment_unref(o);
		break;
	default:
		api_csi_storage_capacity_unref(o);
	}
}

/* The fixture name (.json and .pb) decoded both ways: the same dump; the JSON object returned. */
static void *fixture_both(enum api_kind kind, const char *name)
{
	char path[256], ebuf[256] = "";
	size_t jl, pl;
	struct err e = { 0 };
	snprintf(path, sizeof(path), VFIX "%s.json", name);
	char *json = testutil_read_source_file(path, &jl);
	snprintf(path, sizeof(path), VFIX "%s.pb", name);
	char *pb = testutil_read_source_file(path, &pl);
	struct api__json *j = api__json_new();
	struct api__pb *p = api__pb_new();
	yajl_val a = NULL, b = NULL;
	assert_int_equal(api__json_parse(j, json, jl, &a, ebuf, sizeof(ebuf)), 0);
	assert_true(api__pb_magic(pb, pl));
	if (api__pb_body(p, kind, pb, pl, NULL, NULL, &b, ebuf, sizeof(ebuf)))
		fail_msg("%s: %s", name, ebuf);
	void *oa = decode_kind(kind, a, &e);
	if (!oa)
		fail_msg("%s.json: %s", name, e.msg);
	void *ob = decode_kind(kind, b, &e);
	if (!ob)
		fail_msg("%s.pb: %s", name, e.msg);
	char *da = dump(kind, oa), *db = dump(kind, ob);
	if (strcmp(da, db))
		fail_msg("%s: JSON and protobuf differ:\n%s\n---\n%s", name, da, db);
	free(da);
	free(db);
	unref_kind(kind, ob);
	api__pb_free(p);
	api__json_free(j);
	free(json);
	free(pb);
	return oa;
}

static void test_fixture_pvs(void **state)
{
	(void)state;
	struct api_pv *p = fixture_both(API_KIND_PV, "pv-csi");
	assert_ptr_equal(p->meta.name, I("pv-csi"));
	assert_string_equal(p->meta.uid, "a3147317-a3c3-4cef-8896-7963a5f65dad");
	assert_string_equal(p->meta.resource_version, "225");
	assert_ptr_equal(api_labels_get(&p->meta.labels, I("topology.kubernetes.io/zone")), I("zone-a"));
	assert_int_equal(p->capacity_storage, 10737418240LL);
	assert_int_equal(p->access_modes, API_ACCESS_RWOP);
	assert_ptr_equal(p->storage_class_name, I("fast"));
	assert_ptr_equal(p->volume_mode, I("Block"));
	assert_int_equal(p->source.kind, API_PV_CSI);
	assert_ptr_equal(p->source.driver, I("ebs.csi.aws.com"));
	assert_string_equal(p->source.volume_handle, "vol-0123");
	assert_true(p->source.read_only);
	assert_int_equal(p->node_affinity->n_required, 2);
	assert_int_equal(p->node_affinity->required[1].exprs[0].op, API_OP_NOT_IN);
	assert_ptr_equal(p->phase, I("Available"));
	assert_false(p->has_claim_ref);
	api_pv_unref(p);

	p = fixture_both(API_KIND_PV, "pv-gce");
	assert_int_equal(p->capacity_storage, 1500000000);
	assert_ptr_equal(p->storage_class_name, I(""));
	assert_ptr_equal(p->volume_mode, I("Filesystem")); /* the apiserver's default */
	assert_true(p->has_claim_ref);
	assert_string_equal(p->claim_ref.name, "data-0");
	assert_string_equal(p->claim_ref.uid, "6b3f3a52-0000-4000-8000-000000000001");
	assert_int_equal(p->source.kind, API_PV_GCE_PD);
	assert_string_equal(p->source.volume_id, "disk-1");
	assert_int_equal(p->source.partition, 1);
	assert_string_equal(p->source.fs_type, "xfs");
	assert_null(p->node_affinity);
	assert_ptr_equal(p->phase, I("Bound"));
	api_pv_unref(p);

	p = fixture_both(API_KIND_PV, "pv-ebs");
	assert_int_equal(p->access_modes, API_ACCESS_RWX | API_ACCESS_ROX);
	assert_ptr_equal(p->storage_class_name, I(""));
	assert_int_equal(p->meta.annotations.n, 1);
	assert_string_equal(p->meta.annotations.items[0].value, "slow");
	assert_int_equal(p->source.kind, API_PV_AWS_EBS);
	assert_string_equal(p->source.volume_id, "aws://us-east-1a/vol-0abc");
	assert_ptr_equal(p->phase, I("Pending")); /* set on create */
	api_pv_unref(p);

	p = fixture_both(API_KIND_PV, "pv-azure");
	assert_int_equal(p->source.kind, API_PV_AZURE_DISK);
	assert_string_equal(p->source.disk_name, "d1");
	assert_string_equal(p->source.azure_kind, "Managed");
	assert_string_equal(p->source.volume_id,
			    "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d1");
	api_pv_unref(p);
}

static void test_fixture_pvcs(void **state)
{
	(void)state;
	struct api_pvc *p = fixture_both(API_KIND_PVC, "pvc-data");
	assert_string_equal(p->meta.uid, "5297c6c5-e5b5-43f6-a36c-4ff22106c10e");
	assert_int_equal(p->request_storage, 1073741824);
	assert_ptr_equal(p->storage_class_name, I("fast"));
	assert_ptr_equal(p->volume_mode, I("Filesystem"));
	assert_non_null(p->selector);
	assert_int_equal(p->selector->n_exprs, 1);
	assert_string_equal(p->meta.annotations.items[0].key, "volume.kubernetes.io/selected-node");
	assert_ptr_equal(p->phase, I("Pending"));
	api_pvc_unref(p);
	p = fixture_both(API_KIND_PVC, "pvc-plain");
	assert_int_equal(p->access_modes, API_ACCESS_RWOP);
	assert_int_equal(p->request_storage, 104857600);
	assert_ptr_equal(p->storage_class_name, I("standard")); /* DefaultStorageClass admission */
	assert_null(p->selector);
	assert_ptr_equal(p->volume_mode, I("Filesystem"));
	api_pvc_unref(p);
}

static void test_fixture_storage(void **state)
{
	(void)state;
	struct api_storage_class *sc = fixture_both(API_KIND_STORAGE_CLASS, "sc-fast");
	assert_ptr_equal(sc->provisioner, I("ebs.csi.aws.com"));
	assert_int_equal(sc->volume_binding_mode, API_BINDING_WAIT_FOR_FIRST_CONSUMER);
	assert_int_equal(sc->n_allowed_topologies, 1);
	assert_int_equal(sc->allowed_topologies[0].exprs[0].n_values, 2);
	api_storage_class_unref(sc);
	sc = fixture_both(API_KIND_STORAGE_CLASS, "sc-standard");
	assert_int_equal(sc->volume_binding_mode, API_BINDING_IMMEDIATE); /* the server's default */
	assert_true(sc->has_volume_binding_mode);
	assert_int_equal(sc->n_allowed_topologies, 0);
	api_storage_class_unref(sc);

	struct api_csinode *cn = fixture_both(API_KIND_CSINODE, "csinode");
	assert_int_equal(cn->n_drivers, 2);
	assert_int_equal(cn->drivers[0].allocatable_count, 25);
	assert_true(cn->drivers[0].has_allocatable_count);
	assert_false(cn->drivers[1].has_allocatable_count);
	assert_string_equal(cn->meta.annotations.items[0].value, "kubernetes.io/aws-ebs,kubernetes.io/gce-pd");
	api_csinode_unref(cn);

	struct api_csidriver *cd = fixture_both(API_KIND_CSIDRIVER, "csidriver-ebs");
	assert_true(cd->attach_required && cd->storage_capacity);
	assert_true(cd->has_prevent_pod_scheduling_if_missing); /* defaulted to false by the server */
	assert_false(cd->prevent_pod_scheduling_if_missing);
	api_csidriver_unref(cd);
	cd = fixture_both(API_KIND_CSIDRIVER, "csidriver-hostpath");
	assert_true(cd->has_attach_required);
	assert_false(cd->attach_required);
	assert_true(cd->has_storage_capacity); /* defaulted to false */
	assert_false(cd->storage_capacity);
	api_csidriver_unref(cd);

	struct api_volume_attachment *va = fixture_both(API_KIND_VOLUME_ATTACHMENT, "va");
	assert_ptr_equal(va->attacher, I("ebs.csi.aws.com"));
	assert_ptr_equal(va->node_name, I("node-1"));
	assert_string_equal(va->pv_name, "pv-csi");
	assert_true(va->attached);
	api_volume_attachment_unref(va);

	struct api_csi_storage_capacity *c = fixture_both(API_KIND_CSI_STORAGE_CAPACITY, "csc-zone-a");
	assert_ptr_equal(c->meta.namespace, I("kube-system"));
	assert_int_equal(c->capacity, 107374182400LL);
	assert_int_equal(c->maximum_volume_size, 17592186044416LL);
	assert_non_null(c->node_topology);
	api_csi_storage_capacity_unref(c);
	c = fixture_both(API_KIND_CSI_STORAGE_CAPACITY, "csc-none");
	assert_null(c->node_topology);
	assert_false(c->has_capacity);
	assert_false(c->has_maximum_volume_size);
	api_csi_storage_capacity_unref(c);
}

struct list_items {
	enum api_kind kind;
	char *dump[8];
	size_t n;
};

static int list_item(void *ctx, yajl_val item)
{
	struct list_items *it = ctx;
	struct err e = { 0 };
	assert_true(it->n < 8);
	void *o = decode_kind(it->kind, item, &e);
	if (!o)
		fail_msg("item %zu: %s", it->n, e.msg);
	it->dump[it->n++] = dump(it->kind, o);
	unref_kind(it->kind, o);
	return 0;
}

/* LIST pages item by item, as the informer reads them: the same objects both ways. */
static void test_fixture_lists(void **state)
{
	(void)state;
	static const struct {
		enum api_kind kind;
		const char *name;
		size_t want;
	} t[] = { { API_KIND_PV, "pvlist", 4 }, { API_KIND_CSI_STORAGE_CAPACITY, "csclist", 2 } };
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char path[256], ebuf[256] = "";
		size_t jl, pl;
		snprintf(path, sizeof(path), VFIX "%s.json", t[i].name);
		char *json = testutil_read_source_file(path, &jl);
		snprintf(path, sizeof(path), VFIX "%s.pb", t[i].name);
		char *pb = testutil_read_source_file(path, &pl);
		struct api__json *j = api__json_new();
		struct api__pb *p = api__pb_new();
		struct list_items a = { .kind = t[i].kind }, b = { .kind = t[i].kind };
		yajl_val ra = NULL, rb = NULL;
		assert_int_equal(api__json_begin(j, list_item, &a), 0);
		assert_int_equal(api__json_feed(j, json, jl, ebuf, sizeof(ebuf)), 0);
		assert_int_equal(api__json_end(j, &ra, ebuf, sizeof(ebuf)), 0);
		if (api__pb_body(p, t[i].kind, pb, pl, list_item, &b, &rb, ebuf, sizeof(ebuf)))
			fail_msg("%s: %s", t[i].name, ebuf);
		assert_int_equal(a.n, t[i].want);
		assert_int_equal(b.n, t[i].want);
		for (size_t k = 0; k < a.n; k++) {
			assert_string_equal(a.dump[k], b.dump[k]);
			free(a.dump[k]);
			free(b.dump[k]);
		}
		api__pb_free(p);
		api__json_free(j);
		free(json);
		free(pb);
	}
}

#define PV "{\"metadata\":{\"name\":\"pv\"},"
#define PVW "persistentvolume pv: "

/* Bad input: NULL with an error naming the object and the field, never a crash. */
static void test_errors(void **state)
{
	(void)state;
	static const struct {
		int kind; /* 0 pv, 1 pvc, 2 storageclass, 3 csinode, 4 csidriver, 5 va, 6 capacity */
		const char *json, *msg;
	} t[] = {
		{ 0, "{\"metadata\":", "persistentvolume: invalid JSON: parse error: premature EOF" },
		{ 0, PV "\"spec\":[]}", PVW "spec: expected object, got array" },
		{ 0, PV "\"spec\":{\"capacity\":{\"storage\":\"lots\"}}}",
		  PVW "spec.capacity.storage: invalid quantity \"lots\": must be [+-]digits[.digits][suffix]" },
		{ 0, PV "\"spec\":{\"capacity\":[]}}", PVW "spec.capacity: expected object, got array" },
		{ 0, PV "\"spec\":{\"accessModes\":\"ReadWriteOnce\"}}", PVW "spec.accessModes: expected array, got string" },
		{ 0, PV "\"spec\":{\"storageClassName\":1}}", PVW "spec.storageClassName: expected string, got number" },
		{ 0, PV "\"spec\":{\"claimRef\":{\"uid\":5}}}", PVW "spec.claimRef.uid: expected string, got number" },
		{ 0, PV "\"spec\":{\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":2}]}]}}}}",
		  PVW "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: expected string, got number" },
		{ 0, PV "\"spec\":{\"csi\":{\"driver\":\"d\",\"volumeHandle\":[]}}}",
		  PVW "spec.csi.volumeHandle: expected string, got array" },
		{ 0, PV "\"spec\":{\"gcePersistentDisk\":{\"pdName\":\"p\",\"partition\":\"1\"}}}",
		  PVW "spec.gcePersistentDisk.partition: expected integer, got string" },
		{ 0, PV "\"spec\":{\"azureDisk\":{\"readOnly\":\"yes\"}}}", PVW "spec.azureDisk.readOnly: expected boolean, got string" },
		{ 0, PV "\"status\":{\"phase\":3}}", PVW "status.phase: expected string, got number" },
		{ 1, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"resources\":{\"requests\":{\"storage\":true}}}}",
		  "persistentvolumeclaim ns/c: spec.resources.requests.storage: expected quantity string, got boolean" },
		{ 1, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"selector\":{\"matchLabels\":[]}}}",
		  "persistentvolumeclaim ns/c: spec.selector.matchLabels: expected object, got array" },
		{ 1, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"spec\":{\"volumeMode\":{}}}",
		  "persistentvolumeclaim ns/c: spec.volumeMode: expected string, got object" },
		{ 2, "{\"metadata\":{\"name\":\"s\"},\"provisioner\":[]}", "storageclass s: provisioner: expected string, got array" },
		{ 2, "{\"metadata\":{\"name\":\"s\"},\"allowedTopologies\":[{\"matchLabelExpressions\":[{\"key\":\"k\",\"values\":\"v\"}]}]}",
		  "storageclass s: allowedTopologies[0].matchLabelExpressions[0].values: expected array, got string" },
		{ 3, "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"drivers\":[{\"name\":\"d\",\"allocatable\":{\"count\":-1.5}}]}}",
		  "csinode n: spec.drivers[0].allocatable.count: invalid integer -1.5" },
		{ 3, "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"drivers\":{}}}", "csinode n: spec.drivers: expected array, got object" },
		{ 4, "{\"metadata\":{\"name\":\"d\"},\"spec\":{\"storageCapacity\":\"true\"}}",
		  "csidriver d: spec.storageCapacity: expected boolean, got string" },
		{ 5, "{\"metadata\":{\"name\":\"v\"},\"spec\":{\"source\":{\"persistentVolumeName\":1}}}",
		  "volumeattachment v: spec.source.persistentVolumeName: expected string, got number" },
		{ 5, "{\"metadata\":{\"name\":\"v\"},\"status\":{\"attached\":1}}",
		  "volumeattachment v: status.attached: expected boolean, got number" },
		{ 6, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"maximumVolumeSize\":\"1.2.3\"}",
		  "csistoragecapacity ns/c: maximumVolumeSize: invalid quantity \"1.2.3\": must be [+-]digits[.digits][suffix]" },
		{ 6, "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\"},\"nodeTopology\":[]}",
		  "csistoragecapacity ns/c: nodeTopology: expected object, got array" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct err e = { 0 };
		const char *j = t[i].json;
		size_t n = strlen(j);
		void *o = NULL;
		switch (t[i].kind) {
		case 0: o = api_pv_decode_json(j, n, &e); break;
		case 1: o = api_pvc_decode_json(j, n, &e); break;
		case 2: o = api_storage_class_decode_json(j, n, &e); break;
		case 3: o = api_csinode_decode_json(j, n, &e); break;
		case 4: o = api_csidriver_decode_json(j, n, &e); break;
		case 5: o = api_volume_attachment_decode_json(j, n, &e); break;
		default: o = api_csi_storage_capacity_decode_json(j, n, &e); break;
		}
		if (o)
			fail_msg("case %zu decoded: %s", i, j);
		if (strcmp(e.msg, t[i].msg))
			fail_msg("case %zu:\n got  %s\n want %s", i, e.msg, t[i].msg);
		assert_int_equal(e.code, ERR_INVALID);
	}
	struct err e = { 0 };
	assert_null(api_pv_decode(NULL, &e));
	assert_string_equal(e.msg, "persistentvolume: expected object, got nothing");
	assert_null(api_csi_storage_capacity_decode(NULL, &e));
	assert_string_equal(e.msg, "csistoragecapacity: expected object, got nothing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pv_csi_bound),
		cmocka_unit_test(test_pv_absent),
		cmocka_unit_test(test_pv_in_tree_sources),
		cmocka_unit_test(test_pvc_fields),
		cmocka_unit_test(test_storage_class),
		cmocka_unit_test(test_csinode),
		cmocka_unit_test(test_csidriver),
		cmocka_unit_test(test_volume_attachment),
		cmocka_unit_test(test_csi_storage_capacity),
		cmocka_unit_test(test_pod_volume_sources),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fixture_pvs),
		cmocka_unit_test(test_fixture_pvcs),
		cmocka_unit_test(test_fixture_storage),
		cmocka_unit_test(test_fixture_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
