/* NodeVolumeLimits (PreFilter, Filter; upstream plugins/nodevolumelimits csi.go, utils.go): a
 * node's CSINode says, per CSI driver, how many volumes the node can attach (allocatable.count);
 * the node's attached unique volumes of a driver (its pods' PVCs, generic ephemeral claims and
 * migrated in-tree inline volumes, plus its VolumeAttachments) and the pod's new ones must not
 * exceed it.
 *
 * A volume is counted as "driver/volumeHandle". A PVC bound to a CSI PV gives the PV's driver and
 * handle; one bound to a migratable in-tree PV (GCE PD, AWS EBS, Azure Disk, Cinder, Portworx) the
 * CSI driver and handle csi-translation-lib translates it to; an unbound one (or one whose PV is
 * missing) its StorageClass's provisioner (translated the same way) and a per-plugin-instance
 * random handle prefix with the claim's namespace/name, so it never equals a real handle. Upstream
 * v1.37.2's isCSIMigrationOn is "the node has a CSINode and the plugin is one of those five":
 * the migrated-plugins annotation is no longer read, and Azure File and vSphere volumes are never
 * counted (but still make PreFilter run Filter, as upstream).
 *
 * Feature gates at their v1.37.2 defaults: VolumeLimitScaling (beta, on): a new volume's CSIDriver
 * with preventPodSchedulingIfMissing rejects a node whose CSINode lacks the driver;
 * InPlacePodVerticalScalingSchedulerPreemption (alpha, off): no deferred-resize skip.
 *
 * Filter runs on the worker pool: it reads the listers (any thread) and keeps its per-node sets in
 * malloc'd memory freed before it returns. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#define REASON_MAX_VOLUME_COUNT "node(s) exceed max volume count"

/* csi-translation-lib's in-tree plugins and the CSI drivers they migrate to. */
struct migration {
	enum api_volume_kind inline_kind;
	enum api_pv_source_kind pv_kind;
	const char *in_tree; /* plugin name (a StorageClass provisioner) */
	const char *csi;     /* CSI driver name */
	bool migration_on;   /* upstream isCSIMigrationOn's switch */
};

static const struct migration migrations[] = {
	{ API_VOLUME_GCE_PD, API_PV_GCE_PD, "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", true },
	{ API_VOLUME_AWS_EBS, API_PV_AWS_EBS, "kubernetes.io/aws-ebs", "ebs.csi.aws.com", true },
	{ API_VOLUME_CINDER, API_PV_CINDER, "kubernetes.io/cinder", "cinder.csi.openstack.org", true },
	{ API_VOLUME_AZURE_DISK, API_PV_AZURE_DISK, "kubernetes.io/azure-disk", "disk.csi.azure.com", true },
	{ API_VOLUME_AZURE_FILE, API_PV_AZURE_FILE, "kubernetes.io/azure-file", "file.csi.azure.com", false },
	{ API_VOLUME_VSPHERE, API_PV_VSPHERE, "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", false },
	{ API_VOLUME_PORTWORX, API_PV_PORTWORX, "kubernetes.io/portworx-volume", "pxd.portworx.com", true },
};

/* IsInlineMigratable: the in-tree plugin of an inline volume, or NULL. */
static const struct migration *inline_migration(const struct api_volume *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(migrations); i++)
		if (migrations[i].inline_kind == v->kind)
			return &migrations[i];
	return NULL;
}

static const struct migration *pv_migration(const struct api_pv *pv)
{
	for (size_t i = 0; i < ARRAY_SIZE(migrations); i++)
		if (migrations[i].pv_kind == pv->source.kind)
			return &migrations[i];
	return NULL;
}

/* IsMigratableIntreePluginByName */
static const struct migration *provisioner_migration(const char *provisioner)
{
	for (size_t i = 0; i < ARRAY_SIZE(migrations); i++)
		if (!strcmp(migrations[i].in_tree, provisioner))
			return &migrations[i];
	return NULL;
}

/* upstream utils.go isCSIMigrationOn */
static bool migration_on(const struct api_csinode *csinode, const struct migration *m)
{
	return csinode && m && m->migration_on;
}

/* ---------- strings ---------- */

/* A growable string; oom sticks. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	if (b->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap : 128;
		while (cap <= b->len + (size_t)n)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s) {
			b->oom = true;
			return;
		}
		s[b->len] = '\0';
		b->s = s;
		b->cap = cap;
	}
}

static void sb_release(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

static const char *annotation(const struct api_meta *m, const char *key)
{
	for (uint32_t i = 0; i < m->annotations.n; i++)
		if (!strcmp(m->annotations.items[i].key, key))
			return m->annotations.items[i].value;
	return NULL;
}

static const char *label(const struct api_meta *m, const char *key)
{
	for (uint32_t i = 0; i < m->labels.n; i++)
		if (!strcmp(m->labels.items[i].key, key))
			return m->labels.items[i].value;
	return NULL;
}

/* ---------- csi-translation-lib volume handles ---------- */

/* Why a translation failed; "" = it did not. */
struct terr {
	char msg[384];
};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* plugins.KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/<id>", "aws:///<id>" or a bare id; the
 * URL's path (unescaped, '/' trimmed both ends) must match ^vol-[^/]*$. Writes the id to out. */
static int ebs_volume_id(const char *id, const char *why_prefix, struct sbuf *out, struct terr *te)
{
	if (strncmp(id, "aws://", 6)) {
		sb_add(out, "%s", id);
		return 0;
	}
	/* url.Parse: the fragment, then the query go; the authority runs to the first '/' */
	const char *rest = id + 6;
	size_t end = strcspn(rest, "#");
	size_t q = strcspn(rest, "?");
	if (q < end)
		end = q;
	size_t slash = strcspn(rest, "/");
	if (slash > end)
		slash = end;
	char path[512];
	size_t n = 0;
	for (size_t i = slash; i < end; i++) {
		int c = (unsigned char)rest[i];
		if (c == '%') {
			int h = i + 2 < end ? hexval(rest[i + 1]) : -1, l = h >= 0 ? hexval(rest[i + 2]) : -1;
			if (h < 0 || l < 0) {
				size_t k = end - i < 3 ? end - i : 3;
				snprintf(te->msg, sizeof(te->msg),
					 "%sInvalid disk name (%s): parse \"%s\": invalid URL escape \"%.*s\"", why_prefix, id,
					 id, (int)k, rest + i);
				return -1;
			}
			c = h * 16 + l;
			i += 2;
		}
		if (n + 1 < sizeof(path))
			path[n++] = (char)c;
	}
	path[n] = '\0';
	char *p = path;
	while (*p == '/')
		p++;
	size_t len = strlen(p);
	while (len && p[len - 1] == '/')
		p[--len] = '\0';
	if (strncmp(p, "vol-", 4) || strchr(p, '/')) {
		snprintf(te->msg, sizeof(te->msg), "%sInvalid format for AWS volume (%s)", why_prefix, id);
		return -1;
	}
	sb_add(out, "%s", p);
	return 0;
}

/* gceGetRegionFromZones: every zone {locale}-{region}-{zone}, one region among them. */
static int gce_region(const char *zones, struct sbuf *out, struct terr *te)
{
	const char *z = zones, *region = NULL;
	size_t region_len = 0;
	for (;;) {
		const char *e = strstr(z, "__");
		size_t zl = e ? (size_t)(e - z) : strlen(z);
		const char *d1 = memchr(z, '-', zl);
		const char *d2 = d1 ? memchr(d1 + 1, '-', zl - (size_t)(d1 + 1 - z)) : NULL;
		if (!d2 || memchr(d2 + 1, '-', zl - (size_t)(d2 + 1 - z))) {
			snprintf(te->msg, sizeof(te->msg),
				 "zone in unexpected format, expected: {locale}-{region}-{zone}, got: %.*s", (int)zl, z);
			return -1;
		}
		size_t rl = (size_t)(d2 - z);
		if (region && (rl != region_len || memcmp(region, z, rl))) {
			snprintf(te->msg, sizeof(te->msg), "multiple or no regions gotten from zones");
			return -1;
		}
		region = z;
		region_len = rl;
		if (!e)
			break;
		z = e + 2;
	}
	sb_add(out, "%.*s", (int)region_len, region);
	return 0;
}

/* TranslateInTreeInlineVolumeToCSI's volume handle (the driver is m->csi). */
static int translate_inline(const struct api_volume *v, const struct migration *m, struct sbuf *out,
			    struct terr *te)
{
	switch (m->inline_kind) {
	case API_VOLUME_GCE_PD:
		sb_add(out, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/%s", v->pd_name ? v->pd_name : "");
		return 0;
	case API_VOLUME_AWS_EBS:
		return ebs_volume_id(v->volume_id ? v->volume_id : "", "failed to translate Kubernetes ID to EBS Volume ID ",
				     out, te);
	case API_VOLUME_AZURE_DISK:
		if (v->azure_kind && strcasecmp(v->azure_kind, "Managed")) {
			snprintf(te->msg, sizeof(te->msg), "kind(%s) is not supported in csi migration", v->azure_kind);
			return -1;
		}
		sb_add(out, "%s", v->volume_id ? v->volume_id : "");
		return 0;
	default: /* Cinder, Portworx (Azure File and vSphere are never counted); their volume id */
		sb_add(out, "%s", v->volume_id ? v->volume_id : "");
		return 0;
	}
}

/* TranslateInTreePVToCSI's volume handle (the driver is m->csi). */
static int translate_pv(const struct api_pv *pv, const struct migration *m, struct sbuf *out, struct terr *te)
{
	const char *id = pv->source.volume_id ? pv->source.volume_id : "";
	switch (m->pv_kind) {
	case API_PV_GCE_PD: {
		/* the beta zone label first, then the GA one; "__" separates a regional disk's zones */
		const char *zones = label(&pv->meta, "failure-domain.beta.kubernetes.io/zone");
		if (!zones || !*zones)
			zones = label(&pv->meta, "topology.kubernetes.io/zone");
		if (!zones)
			zones = "";
		if (!strstr(zones, "__")) {
			sb_add(out, "projects/UNSPECIFIED/zones/%s/disks/%s", *zones ? zones : "UNSPECIFIED", id);
			return 0;
		}
		sb_add(out, "projects/UNSPECIFIED/regions/");
		if (gce_region(zones, out, te))
			return -1;
		sb_add(out, "/disks/%s", id);
		return 0;
	}
	case API_PV_AWS_EBS:
		return ebs_volume_id(id, "", out, te);
	case API_PV_AZURE_DISK:
		if (pv->source.azure_kind && strcasecmp(pv->source.azure_kind, "Managed")) {
			snprintf(te->msg, sizeof(te->msg), "kind(%s) is not supported in csi migration",
				 pv->source.azure_kind);
			return -1;
		}
		sb_add(out, "%s", id);
		return 0;
	default: /* Cinder, Portworx */
		sb_add(out, "%s", id);
		return 0;
	}
}

/* ---------- volume sets ---------- */

/* upstream's map[volumeUniqueName]driverName: key "driver/handle" and driver copied into one
 * string buffer (a lister's object is only borrowed, and an interned name may go with it). */
struct vset {
	uint32_t n, cap;
	struct ventry {
		size_t key;    /* offsets in strs */
		size_t driver;
	} *e;
	struct sbuf strs;
	bool oom;
};

static const char *vset_key(const struct vset *s, uint32_t i)
{
	return s->strs.s + s->e[i].key;
}

/* Valid until the set is next added to. */
static const char *vset_driver(const struct vset *s, uint32_t i)
{
	return s->strs.s + s->e[i].driver;
}

static int64_t vset_find(const struct vset *s, const char *key)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (!strcmp(vset_key(s, i), key))
			return i;
	return -1;
}

/* result[driver/handle] = driver */
static void vset_put(struct vset *s, const char *driver, const char *handle)
{
	size_t start = s->strs.len;
	sb_add(&s->strs, "%s/%s", driver, handle);
	if (s->strs.oom) {
		s->oom = true;
		return;
	}
	s->strs.len++; /* keep the NUL: keys and drivers are back to back */
	if (vset_find(s, s->strs.s + start) >= 0) {
		s->strs.len = start;
		return;
	}
	size_t drv = s->strs.len;
	sb_add(&s->strs, "%s", driver);
	if (s->strs.oom) {
		s->oom = true;
		return;
	}
	s->strs.len++;
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 8;
		struct ventry *e = realloc(s->e, cap * sizeof(*e));
		if (!e) {
			s->oom = true;
			return;
		}
		s->e = e;
		s->cap = cap;
	}
	s->e[s->n].key = start;
	s->e[s->n].driver = drv;
	s->n++;
}

static void vset_remove(struct vset *s, uint32_t i)
{
	s->e[i] = s->e[--s->n];
}

static void vset_release(struct vset *s)
{
	free(s->e);
	sb_release(&s->strs);
	memset(s, 0, sizeof(*s));
}

/* ---------- plugin ---------- */

/* What init stores: the random prefix of the StorageClass-based volume handles. */
struct nvl {
	char prefix[33];
};

/* rand.String(32): letters and digits without vowels and look-alikes. */
static int init(struct fw_pl *pl, struct err *e)
{
	static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
	struct nvl *n = calloc(1, sizeof(*n));
	if (!n)
		return err_set(e, -1, "NodeVolumeLimits: out of memory");
	unsigned char r[32];
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)n;
		for (size_t i = 0; i < sizeof(r); i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			r[i] = (unsigned char)(x >> 56);
		}
	}
	for (size_t i = 0; i < 32; i++)
		n->prefix[i] = alphabet[r[i] % (sizeof(alphabet) - 1)];
	pl->priv = n;
	return 0;
}

static void release(struct fw_pl *pl)
{
	free(pl->priv);
	pl->priv = NULL;
}

/* Why filter_attachable failed. */
enum fa_result {
	FA_OK,
	FA_NOT_FOUND, /* a new pod's PVC does not exist: UnschedulableAndUnresolvable */
	FA_ERROR,     /* Error */
};

/* upstream getCSIDriverInfoFromSC */
static void driver_from_sc(const struct fw_pl *pl, const struct api_csinode *csinode, const struct api_pvc *pvc,
			   struct vset *out)
{
	/* GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName */
	const char *sc_name = annotation(&pvc->meta, "volume.beta.kubernetes.io/storage-class");
	if (!sc_name)
		sc_name = pvc->storage_class_name ? pvc->storage_class_name : "";
	if (!*sc_name)
		return; /* no class: immediate binding, bound before scheduling */
	struct api_storage_class *sc = fw_get_storage_class(pl, sc_name);
	if (!sc)
		return;
	const struct nvl *n = pl->priv;
	char handle[512];
	snprintf(handle, sizeof(handle), "%s-%s/%s", n->prefix, pvc->meta.namespace, pvc->meta.name);
	const struct migration *m = provisioner_migration(sc->provisioner);
	if (m) {
		if (migration_on(csinode, m))
			vset_put(out, m->csi, handle);
	} else if (*sc->provisioner) {
		vset_put(out, sc->provisioner, handle);
	}
	api_storage_class_unref(sc);
}

/* upstream getCSIDriverInfo: the claim's CSI driver and handle, added to out. */
static void driver_from_pvc(const struct fw_pl *pl, const struct api_csinode *csinode, const struct api_pvc *pvc,
			    struct vset *out)
{
	if (!pvc->volume_name || !*pvc->volume_name) {
		driver_from_sc(pl, csinode, pvc, out);
		return;
	}
	struct api_pv *pv = fw_get_pv(pl, pvc->volume_name);
	if (!pv) {
		/* deleted, or the claim is pre-bound to a PV not created yet */
		driver_from_sc(pl, csinode, pvc, out);
		return;
	}
	if (pv->source.kind == API_PV_CSI) {
		if (pv->source.driver && *pv->source.driver && pv->source.volume_handle && *pv->source.volume_handle)
			vset_put(out, pv->source.driver, pv->source.volume_handle);
		api_pv_unref(pv);
		return;
	}
	const struct migration *m = pv_migration(pv);
	if (m && migration_on(csinode, m)) {
		struct sbuf h = { 0 };
		struct terr te = { { 0 } };
		if (!translate_pv(pv, m, &h, &te) && !h.oom && h.s && *h.s)
			vset_put(out, m->csi, h.s);
		else if (h.oom)
			out->oom = true;
		sb_release(&h);
	}
	api_pv_unref(pv);
}

/* upstream checkAttachableInlineVolume */
static enum fa_result inline_volume(const struct api_csinode *csinode, const struct api_volume *v, struct vset *out,
				    struct fw_status *st)
{
	const struct migration *m = inline_migration(v);
	if (!m || !migration_on(csinode, m))
		return FA_OK;
	struct sbuf h = { 0 };
	struct terr te = { { 0 } };
	enum fa_result r = FA_OK;
	if (translate_inline(v, m, &h, &te)) {
		fw_status_setf(st, FW_ERROR, "converting volume(%s) from inline to csi: %s", v->name, te.msg);
		r = FA_ERROR;
	} else if (h.oom) {
		out->oom = true;
	} else {
		vset_put(out, m->csi, h.s ? h.s : "");
	}
	sb_release(&h);
	return r;
}

/* ephemeral.VolumeIsForPod: the claim is in the pod's namespace and the pod is its controller. */
static bool claim_is_for_pod(const struct api_pvc *pvc, const struct api_pod *pod)
{
	if (strcmp(pvc->meta.namespace, pod->meta.namespace))
		return false;
	for (uint32_t i = 0; i < pvc->meta.n_owner_refs; i++)
		if (pvc->meta.owner_refs[i].controller)
			return pvc->meta.owner_refs[i].uid && pod->meta.uid &&
			       !strcmp(pvc->meta.owner_refs[i].uid, pod->meta.uid);
	return false;
}

/* upstream filterAttachableVolumes: pod's attachable volumes into out. */
static enum fa_result filter_attachable(const struct fw_pl *pl, const struct api_pod *pod,
					const struct api_csinode *csinode, bool new_pod, struct vset *out,
					struct fw_status *st)
{
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		bool ephemeral = v->kind == API_VOLUME_EPHEMERAL;
		if (v->kind != API_VOLUME_PVC && !ephemeral) {
			enum fa_result r = inline_volume(csinode, v, out, st);
			if (r != FA_OK)
				return r;
			continue;
		}
		const char *name = v->claim_name ? v->claim_name : "";
		if (!*name) {
			fw_status_set(st, FW_ERROR, "PersistentVolumeClaim had no name");
			return FA_ERROR;
		}
		struct api_pvc *pvc = fw_get_pvc(pl, pod->meta.namespace, name);
		if (!pvc) {
			if (!new_pod)
				continue; /* may not belong to the running pod: not counted */
			fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
				       "looking up PVC %s/%s: persistentvolumeclaim \"%s\" not found", pod->meta.namespace,
				       name, name);
			return FA_NOT_FOUND;
		}
		if (ephemeral && !claim_is_for_pod(pvc, pod)) {
			fw_status_setf(st, FW_ERROR, "PVC %s/%s was not created for pod %s/%s (pod is not owner)",
				       pvc->meta.namespace, pvc->meta.name, pod->meta.namespace, pod->meta.name);
			api_pvc_unref(pvc);
			return FA_ERROR;
		}
		driver_from_pvc(pl, csinode, pvc, out);
		api_pvc_unref(pvc);
	}
	return FA_OK;
}

/* A driver's count. */
struct dcount {
	const char *driver;
	int64_t n;
};

struct dcounts {
	uint32_t n, cap;
	struct dcount *d;
	bool oom;
};

static void dc_add(struct dcounts *c, const char *driver, int64_t k)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (!strcmp(c->d[i].driver, driver)) {
			c->d[i].n += k;
			return;
		}
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 4;
		struct dcount *d = realloc(c->d, cap * sizeof(*d));
		if (!d) {
			c->oom = true;
			return;
		}
		c->d = d;
		c->cap = cap;
	}
	c->d[c->n++] = (struct dcount){ driver, k };
}

static int64_t dc_get(const struct dcounts *c, const char *driver)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (!strcmp(c->d[i].driver, driver))
			return c->d[i].n;
	return 0;
}

/* upstream checkCSIDriverOnNode: false only when the driver's CSIDriver opts in to
 * preventPodSchedulingIfMissing and the node's CSINode does not list the driver. */
static bool driver_on_node(const struct fw_pl *pl, const char *driver, const struct api_csinode *csinode)
{
	struct api_csidriver *d = fw_get_csidriver(pl, driver);
	if (!d)
		return true; /* maybe not a CSI driver: allowed */
	bool opt_in = d->has_prevent_pod_scheduling_if_missing && d->prevent_pod_scheduling_if_missing;
	api_csidriver_unref(d);
	if (!opt_in)
		return true;
	if (!csinode)
		return false;
	for (uint32_t i = 0; i < csinode->n_drivers; i++)
		if (!strcmp(csinode->drivers[i].name, driver))
			return true;
	return false;
}

/* upstream getNodeVolumeAttachmentInfo: the node's VolumeAttachments of CSI PVs. */
struct va_walk {
	const struct fw_pl *pl;
	const char *node;
	struct vset *out;
};

static int va_one(void *arg, const struct api_volume_attachment *va)
{
	struct va_walk *w = arg;
	if (strcmp(va->node_name, w->node) || !*va->attacher || !va->pv_name)
		return 0;
	struct api_pv *pv = fw_get_pv(w->pl, va->pv_name);
	if (!pv)
		return 0;
	if (pv->source.kind == API_PV_CSI)
		vset_put(w->out, va->attacher, pv->source.volume_handle ? pv->source.volume_handle : "");
	api_pv_unref(pv);
	return 0;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)pl;
	(void)c;
	(void)out;
	(void)st;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		if (v->kind == API_VOLUME_PVC || v->kind == API_VOLUME_EPHEMERAL || inline_migration(v))
			return FW_SUCCESS;
	}
	return FW_SKIP;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)c;
	if (pod->n_volumes == 0)
		return FW_SUCCESS;
	enum fw_code code = FW_SUCCESS;
	struct vset new_vols = { 0 }, attached = { 0 }, vas = { 0 };
	struct dcounts limits = { 0 }, counts = { 0 }, new_counts = { 0 };
	struct api_csinode *csinode = fw_get_csinode(pl, ni->name);

	enum fa_result r = filter_attachable(pl, pod, csinode, true, &new_vols, st);
	if (r != FA_OK) {
		code = st->code;
		goto out;
	}
	if (new_vols.oom)
		goto oom;
	if (new_vols.n == 0)
		goto out;

	/* VolumeLimitScaling */
	for (uint32_t i = 0; i < new_vols.n; i++)
		if (!driver_on_node(pl, vset_driver(&new_vols, i), csinode)) {
			code = fw_status_setf(st, FW_UNSCHEDULABLE, "%s CSI driver is not installed on the node",
					      vset_driver(&new_vols, i));
			goto out;
		}

	/* upstream getVolumeLimits: a map, the last entry of a name wins */
	for (uint32_t i = 0; csinode && i < csinode->n_drivers; i++)
		if (csinode->drivers[i].has_allocatable_count) {
			const char *d = csinode->drivers[i].name;
			dc_add(&limits, d, csinode->drivers[i].allocatable_count - dc_get(&limits, d));
		}
	if (limits.oom)
		goto oom;
	if (limits.n == 0)
		goto out; /* no limits on this node */

	for (uint32_t k = 0; k < ni->n_pods; k++) {
		r = filter_attachable(pl, ni->pods[k].pod, csinode, false, &attached, st);
		if (r != FA_OK) {
			code = st->code = FW_ERROR; /* upstream AsStatus(err) */
			goto out;
		}
	}
	if (attached.oom)
		goto oom;
	for (uint32_t i = 0; i < attached.n; i++) {
		/* a volume used by several pods counts once */
		int64_t j = vset_find(&new_vols, vset_key(&attached, i));
		if (j >= 0)
			vset_remove(&new_vols, (uint32_t)j);
		dc_add(&counts, vset_driver(&attached, i), 1);
	}

	struct va_walk w = { pl, ni->name, &vas };
	fw_each_volume_attachment(pl, ni->name, va_one, &w);
	if (vas.oom)
		goto oom;
	for (uint32_t i = 0; i < vas.n; i++)
		if (vset_find(&attached, vset_key(&vas, i)) < 0) /* not already counted from a pod */
			dc_add(&counts, vset_driver(&vas, i), 1);

	for (uint32_t i = 0; i < new_vols.n; i++)
		dc_add(&new_counts, vset_driver(&new_vols, i), 1);
	if (counts.oom || new_counts.oom)
		goto oom;
	for (uint32_t i = 0; i < new_counts.n; i++) {
		bool limited = false;
		int64_t max = 0;
		for (uint32_t j = 0; j < limits.n && !limited; j++)
			if (!strcmp(limits.d[j].driver, new_counts.d[i].driver)) {
				limited = true;
				max = limits.d[j].n;
			}
		if (limited && dc_get(&counts, new_counts.d[i].driver) + new_counts.d[i].n > max) {
			code = fw_status_set(st, FW_UNSCHEDULABLE, REASON_MAX_VOLUME_COUNT);
			goto out;
		}
	}
	goto out;
oom:
	code = fw_status_set(st, FW_ERROR, "NodeVolumeLimits: out of memory");
out:
	vset_release(&new_vols);
	vset_release(&attached);
	vset_release(&vas);
	free(limits.d);
	free(counts.d);
	free(new_counts.d);
	api_csinode_unref(csinode);
	return code;
}

/* ---------- queueing hints ---------- */

/* upstream isSchedulableAfterCSINodeUpdated: a driver's allocatable count went up (absent = 0). */
static enum queue_hint csinode_updated(const void *pl, const struct api_pod *pod, const void *old_obj,
				       const void *new_obj)
{
	(void)pl;
	(void)pod;
	const struct api_csinode *o = old_obj, *n = new_obj;
	if (!o || !n)
		return QUEUE_HINT_ERROR;
	for (uint32_t i = 0; i < n->n_drivers; i++) {
		const struct api_csinode_driver *d = &n->drivers[i];
		int64_t old_limit = 0, new_limit = d->has_allocatable_count ? d->allocatable_count : 0;
		/* the last entry of a name wins, as upstream's map */
		for (uint32_t j = 0; j < o->n_drivers; j++)
			if (!strcmp(o->drivers[j].name, d->name))
				old_limit = o->drivers[j].has_allocatable_count ? o->drivers[j].allocatable_count : 0;
		if (new_limit > old_limit)
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

/* upstream isSchedulableAfterAssignedPodDeleted: the deleted pod was on (or nominated to) a node
 * and had a PVC, ephemeral or migratable inline volume. */
static enum queue_hint pod_deleted(const void *pl, const struct api_pod *pod, const void *old_obj,
				   const void *new_obj)
{
	(void)pl;
	(void)pod;
	(void)new_obj;
	const struct api_pod *d = old_obj;
	if (!d)
		return QUEUE_HINT_ERROR;
	if (d->n_volumes == 0)
		return QUEUE_HINT_SKIP;
	if ((!d->node_name || !*d->node_name) && (!d->nominated_node_name || !*d->nominated_node_name))
		return QUEUE_HINT_SKIP;
	for (uint32_t i = 0; i < d->n_volumes; i++) {
		const struct api_volume *v = &d->volumes[i];
		if (v->kind == API_VOLUME_PVC || v->kind == API_VOLUME_EPHEMERAL || inline_migration(v))
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

/* upstream isSchedulableAfterPVCAdded: a claim the pod names (PVC or generic ephemeral) appeared. */
static enum queue_hint pvc_added(const void *pl, const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	(void)pl;
	(void)old_obj;
	const struct api_pvc *pvc = new_obj;
	if (!pvc)
		return QUEUE_HINT_ERROR;
	if (strcmp(pvc->meta.namespace, pod->meta.namespace))
		return QUEUE_HINT_SKIP;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		if ((v->kind == API_VOLUME_PVC || v->kind == API_VOLUME_EPHEMERAL) && v->claim_name &&
		    !strcmp(v->claim_name, pvc->meta.name))
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

/* upstream isSchedulableAfterVolumeAttachmentDeleted: the pod has a PVC, or a migratable inline
 * volume whose CSI driver is the attachment's attacher (a failed translation: Queue with an error). */
static enum queue_hint va_deleted(const void *pl, const struct api_pod *pod, const void *old_obj,
				  const void *new_obj)
{
	(void)pl;
	(void)new_obj;
	const struct api_volume_attachment *va = old_obj;
	if (!va)
		return QUEUE_HINT_ERROR;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		if (v->kind == API_VOLUME_PVC)
			return QUEUE_HINT_QUEUE;
		const struct migration *m = inline_migration(v);
		if (!m)
			continue;
		struct sbuf h = { 0 };
		struct terr te = { { 0 } };
		int rc = translate_inline(v, m, &h, &te);
		sb_release(&h);
		if (rc)
			return QUEUE_HINT_ERROR;
		if (!strcmp(va->attacher, m->csi))
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

/* upstream v1.37 EventsToRegister */
static const struct queue_event_hint events[] = {
	/* no hint: any new CSINode may make a pod rejected for its CSI volumes schedulable */
	{ { .resource = QUEUE_RES_CSI_NODE, .actions = QUEUE_ACT_ADD }, NULL },
	{ { .resource = QUEUE_RES_CSI_NODE, .actions = QUEUE_ACT_UPDATE }, csinode_updated },
	{ { .resource = QUEUE_RES_ASSIGNED_POD, .actions = QUEUE_ACT_DELETE }, pod_deleted },
	{ { .resource = QUEUE_RES_PERSISTENT_VOLUME_CLAIM, .actions = QUEUE_ACT_ADD }, pvc_added },
	{ { .resource = QUEUE_RES_VOLUME_ATTACHMENT, .actions = QUEUE_ACT_DELETE }, va_deleted },
};

const struct fw_plugin fw_plugin_node_volume_limits = {
	.name = "NodeVolumeLimits",
	.args_kind = CFG_ARGS_NONE,
	.init = init,
	.release = release,
	.pre_filter = pre_filter,
	.filter = filter,
	FW_EVENTS(events),
};
