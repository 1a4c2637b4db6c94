/* The stores the volume plugins read beyond PVCs (upstream's PersistentVolume, StorageClass,
 * CSINode, CSIDriver, VolumeAttachment and CSIStorageCapacity listers) and the cluster events
 * their informers send to the queue (upstream eventhandlers.go buildEvtResHandler).
 *
 * An informer exists only for the kinds a profile's plugins need: those whose listers the plugin's
 * upstream constructor takes (volumebinding New, volumezone New, nodevolumelimits NewCSI) and those
 * a plugin registers events for (upstream starts an informer for every kind in the union of
 * EventsToRegister). Upstream also always creates the CSINode informer for its SharedCSIManager;
 * csched creates it only when a plugin reads CSINodes, so a profile without volume plugins watches
 * none of these kinds (and needs no RBAC for them).
 *
 * DESIGN: the informers' own stores answer get-by-name. Two walks are by an index upstream keeps
 * too: PVs by class (the PV assume cache's storage-class index, ListPVs) and VolumeAttachments by
 * node (NodeVolumeLimits' va.spec.nodename indexer). The handlers, on the informer threads, keep
 * those indexes (guarded by lock) and then move pods in the queue; lister callers (scheduler,
 * pool, binder threads) read them. The lock is a leaf: nothing is called while it is held but
 * the caller's callback, which must not call a lister (struct fw_listers). */
#include "sched_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/log.h"
#include "common/map.h"
#include "common/macros.h"

/* The informer slots, in start order. */
enum { V_PV, V_SC, V_CSINODE, V_CSIDRIVER, V_VA, V_CSC, V_COUNT };

static const enum api_kind v_kinds[V_COUNT] = { API_KIND_PV,	    API_KIND_STORAGE_CLASS,
						API_KIND_CSINODE,   API_KIND_CSIDRIVER,
						API_KIND_VOLUME_ATTACHMENT, API_KIND_CSI_STORAGE_CAPACITY };
static const uint32_t v_resources[V_COUNT] = { QUEUE_RES_PERSISTENT_VOLUME, QUEUE_RES_STORAGE_CLASS,
					       QUEUE_RES_CSI_NODE,	    QUEUE_RES_CSI_DRIVER,
					       QUEUE_RES_VOLUME_ATTACHMENT, QUEUE_RES_CSI_STORAGE_CAPACITY };

/* Objects of one index key, referenced. */
struct obj_list {
	uint32_t n, cap;
	void **items;
};

struct sched_volumes {
	struct api_informer *inf[V_COUNT]; /* NULL: the kind is not needed */
	struct queue *queue;               /* where events go; NULL: nowhere (tests) */
	/* told of every delete (sched_volumes_set_delete_hook); set before the informers start */
	void (*deleted)(void *ctx, uint32_t resource, const void *obj);
	void *deleted_ctx;
	struct handler_ctx {
		struct sched_volumes *v;
		int slot;
	} hctx[V_COUNT];
	pthread_mutex_t lock; /* guards pv_by_class and va_by_node; a leaf lock */
	struct map pv_by_class; /* pinned class name -> struct obj_list * of struct api_pv */
	struct map va_by_node;  /* pinned node name -> struct obj_list * of struct api_volume_attachment */
};

/* ---------- which kinds ---------- */

/* The listers each plugin's upstream constructor takes (beyond PVCs, which csched always has). */
static const struct {
	const char *plugin;
	unsigned kinds;
} lister_needs[] = {
	{ "VolumeBinding", SCHED_VOL_PV | SCHED_VOL_STORAGE_CLASS | SCHED_VOL_CSINODE | SCHED_VOL_CSIDRIVER |
				   SCHED_VOL_CSI_STORAGE_CAPACITY },
	{ "VolumeZone", SCHED_VOL_PV | SCHED_VOL_STORAGE_CLASS },
	{ "NodeVolumeLimits", SCHED_VOL_PV | SCHED_VOL_STORAGE_CLASS | SCHED_VOL_CSINODE | SCHED_VOL_CSIDRIVER |
				      SCHED_VOL_VOLUME_ATTACHMENT },
};

unsigned sched_volume_kinds_of(const struct fw_plugin *p)
{
	unsigned kinds = 0;
	for (size_t i = 0; i < ARRAY_SIZE(lister_needs); i++)
		if (!strcmp(p->name, lister_needs[i].plugin))
			kinds |= lister_needs[i].kinds;
	for (uint32_t i = 0; i < p->n_events; i++)
		for (int k = 0; k < V_COUNT; k++)
			if (p->events[i].event.resource == v_resources[k])
				kinds |= 1u << k;
	return kinds;
}

unsigned sched_volume_kinds(const struct scheduler *s)
{
	unsigned kinds = 0;
	for (uint32_t i = 0; i < s->n_profiles; i++) {
		if (!s->profiles[i].fw)
			continue;
		for (int ep = 0; ep < CFG_EP_COUNT; ep++) {
			uint32_t n = 0;
			const struct fw_pl *const *pls = fw_profile_plugins(s->profiles[i].fw, (enum cfg_ext_point)ep, &n);
			for (uint32_t j = 0; j < n; j++)
				kinds |= sched_volume_kinds_of(pls[j]->plugin);
		}
	}
	return kinds;
}

/* ---------- indexes ---------- */

/* upstream GetPersistentVolumeClass: the beta annotation wins over spec.storageClassName. */
static const char *pv_class(const struct api_pv *pv)
{
	for (uint32_t i = 0; i < pv->meta.annotations.n; i++)
		if (!strcmp(pv->meta.annotations.items[i].key, "volume.beta.kubernetes.io/storage-class"))
			return pv->meta.annotations.items[i].value;
	return pv->storage_class_name;
}

static const char *index_key(int slot, const void *obj)
{
	return slot == V_PV ? pv_class(obj) : ((const struct api_volume_attachment *)obj)->node_name;
}

static void obj_unref(int slot, void *obj)
{
	if (slot == V_PV)
		api_pv_unref(obj);
	else
		api_volume_attachment_unref(obj);
}

static void index_remove_locked(struct sched_volumes *v, int slot, const void *obj)
{
	struct map *m = slot == V_PV ? &v->pv_by_class : &v->va_by_node;
	const char *key = intern_find(index_key(slot, obj));
	struct obj_list *l = key ? map_get(m, key) : NULL;
	const char *name = slot == V_PV ? ((const struct api_pv *)obj)->meta.name
					: ((const struct api_volume_attachment *)obj)->meta.name;
	for (uint32_t i = 0; l && i < l->n; i++) {
		const char *iname = slot == V_PV ? ((const struct api_pv *)l->items[i])->meta.name
						 : ((const struct api_volume_attachment *)l->items[i])->meta.name;
		if (strcmp(iname, name))
			continue;
		obj_unref(slot, l->items[i]);
		l->items[i] = l->items[--l->n];
		return;
	}
}

static void index_add_locked(struct sched_volumes *v, int slot, void *obj)
{
	struct map *m = slot == V_PV ? &v->pv_by_class : &v->va_by_node;
	/* the key outlives the objects that brought it: pinned (classes and nodes are few) */
	const char *key = intern_str(index_key(slot, obj));
	struct obj_list *l = key ? map_get(m, key) : NULL;
	if (!key)
		goto nomem;
	if (!l) {
		if (!(l = calloc(1, sizeof(*l))) || map_put(m, key, l, NULL) < 0) {
			free(l);
			goto nomem;
		}
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 4;
		void **items = realloc(l->items, cap * sizeof(*items));
		if (!items)
			goto nomem;
		l->items = items;
		l->cap = cap;
	}
	l->items[l->n++] = slot == V_PV ? (void *)api_pv_ref(obj) : (void *)api_volume_attachment_ref(obj);
	return;
nomem:
	LOG_ERROR("%s index: out of memory adding %s", slot == V_PV ? "PersistentVolume" : "VolumeAttachment",
		  slot == V_PV ? ((const struct api_pv *)obj)->meta.name
			       : ((const struct api_volume_attachment *)obj)->meta.name);
}

/* ---------- handlers ---------- */

static bool indexed(int slot)
{
	return slot == V_PV || slot == V_VA;
}

static void move(struct sched_volumes *v, int slot, uint32_t actions, const void *old_obj, const void *new_obj)
{
	struct queue_event ev = { v_resources[slot], actions, NULL };
	if (v->queue)
		queue_move_on_event(v->queue, &ev, old_obj, new_obj, NULL, NULL);
}

static void on_add(void *ctx, void *obj)
{
	struct handler_ctx *h = ctx;
	if (indexed(h->slot)) {
		pthread_mutex_lock(&h->v->lock);
		index_add_locked(h->v, h->slot, obj);
		pthread_mutex_unlock(&h->v->lock);
	}
	move(h->v, h->slot, QUEUE_ACT_ADD, NULL, obj);
}

static void on_update(void *ctx, void *old_obj, void *new_obj)
{
	struct handler_ctx *h = ctx;
	if (indexed(h->slot)) {
		pthread_mutex_lock(&h->v->lock);
		index_remove_locked(h->v, h->slot, old_obj);
		index_add_locked(h->v, h->slot, new_obj);
		pthread_mutex_unlock(&h->v->lock);
	}
	move(h->v, h->slot, QUEUE_ACT_UPDATE, old_obj, new_obj);
}

static void on_delete(void *ctx, void *obj)
{
	struct handler_ctx *h = ctx;
	if (indexed(h->slot)) {
		pthread_mutex_lock(&h->v->lock);
		index_remove_locked(h->v, h->slot, obj);
		pthread_mutex_unlock(&h->v->lock);
	}
	move(h->v, h->slot, QUEUE_ACT_DELETE, obj, NULL);
	if (h->v->deleted)
		h->v->deleted(h->v->deleted_ctx, v_resources[h->slot], obj);
}

void sched_volumes_set_delete_hook(struct sched_volumes *v, void (*fn)(void *ctx, uint32_t resource, const void *obj),
				   void *ctx)
{
	v->deleted = fn;
	v->deleted_ctx = ctx;
}

/* ---------- lifecycle ---------- */

struct sched_volumes *sched_volumes_new(struct api_client *c, unsigned kinds, struct queue *q, struct err *e)
{
	struct sched_volumes *v = calloc(1, sizeof(*v));
	if (!v) {
		err_set(e, ERR_NOMEM, "sched_volumes_new: out of memory");
		return NULL;
	}
	pthread_mutex_init(&v->lock, NULL);
	map_init(&v->pv_by_class);
	map_init(&v->va_by_node);
	v->queue = q;
	for (int i = 0; i < V_COUNT; i++) {
		if (!(kinds & (1u << i)))
			continue;
		v->hctx[i] = (struct handler_ctx){ v, i };
		struct api_informer_handlers h = { on_add, on_update, on_delete, NULL, &v->hctx[i] };
		struct api_informer_options o = { .shared_connection = true };
		if (!(v->inf[i] = api_informer_new(c, v_kinds[i], &o, &h, e))) {
			sched_volumes_free(v);
			return NULL;
		}
	}
	return v;
}

int sched_volumes_start(struct sched_volumes *v, struct err *e)
{
	for (int i = 0; v && i < V_COUNT; i++) {
		int rc = v->inf[i] ? api_informer_start(v->inf[i], e) : 0;
		if (rc < 0) {
			while (i-- > 0)
				if (v->inf[i])
					api_informer_stop(v->inf[i]);
			return rc;
		}
	}
	return 0;
}

void sched_volumes_stop(struct sched_volumes *v)
{
	for (int i = V_COUNT - 1; v && i >= 0; i--)
		if (v->inf[i])
			api_informer_stop(v->inf[i]);
}

static void index_free(struct map *m, int slot)
{
	const char *k;
	void *val;
	for (size_t it = 0; map_next(m, &it, &k, &val);) {
		struct obj_list *l = val;
		for (uint32_t j = 0; j < l->n; j++)
			obj_unref(slot, l->items[j]);
		free(l->items);
		free(l);
	}
	map_release(m);
}

void sched_volumes_free(struct sched_volumes *v)
{
	if (!v)
		return;
	for (int i = V_COUNT - 1; i >= 0; i--)
		api_informer_free(v->inf[i]);
	index_free(&v->pv_by_class, V_PV);
	index_free(&v->va_by_node, V_VA);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

bool sched_volumes_synced(const struct sched_volumes *v)
{
	for (int i = 0; v && i < V_COUNT; i++)
		if (v->inf[i] && !api_informer_synced(v->inf[i]))
			return false;
	return true;
}

bool sched_volumes_wait_synced(struct sched_volumes *v, long timeout_ms)
{
	int64_t deadline = api_now_ns() + (int64_t)timeout_ms * 1000000LL;
	for (int i = 0; v && i < V_COUNT; i++) {
		long left = (long)((deadline - api_now_ns()) / 1000000LL);
		if (v->inf[i] && !api_informer_wait_synced(v->inf[i], left > 0 ? left : 0))
			return false;
	}
	return true;
}

/* csched simulate: each needed kind's items of a v1 List dump, through the handlers (indexes and
 * queue events) as a LIST would deliver them. */
int sched_volumes_load(struct sched_volumes *v, const char *json, size_t len, struct err *e)
{
	size_t loaded;
	for (int i = 0; v && i < V_COUNT; i++) {
		int rc = v->inf[i] ? api_informer_load_list(v->inf[i], json, len, &loaded, e) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

struct api_informer *sched_volumes_informer(const struct sched_volumes *v, enum api_kind kind)
{
	for (int i = 0; v && i < V_COUNT; i++)
		if (v_kinds[i] == kind)
			return v->inf[i];
	return NULL;
}

/* ---------- listers (struct fw_listers) ---------- */

static void *get(void *ctx, int slot, const char *ns, const char *name)
{
	const struct scheduler *s = ctx;
	struct api_informer *inf = s->volumes ? s->volumes->inf[slot] : NULL;
	return inf && name ? api_informer_get(inf, ns, name) : NULL;
}

struct api_pv *sched_pv_lister(void *sched, const char *name)
{
	return get(sched, V_PV, NULL, name);
}

struct api_storage_class *sched_storage_class_lister(void *sched, const char *name)
{
	return get(sched, V_SC, NULL, name);
}

struct api_csinode *sched_csinode_lister(void *sched, const char *name)
{
	return get(sched, V_CSINODE, NULL, name);
}

struct api_csidriver *sched_csidriver_lister(void *sched, const char *name)
{
	return get(sched, V_CSIDRIVER, NULL, name);
}

/* A typed callback behind the untyped walks: call invokes fn with obj as its type. */
struct each_ctx {
	int (*call)(const struct each_ctx *c, const void *obj);
	union {
		int (*pv)(void *arg, const struct api_pv *pv);
		int (*va)(void *arg, const struct api_volume_attachment *va);
		int (*csc)(void *arg, const struct api_csi_storage_capacity *c);
	} fn;
	void *arg;
	int rc;
};

static int call_pv(const struct each_ctx *c, const void *obj)
{
	return c->fn.pv(c->arg, obj);
}

static int call_va(const struct each_ctx *c, const void *obj)
{
	return c->fn.va(c->arg, obj);
}

static int call_csc(const struct each_ctx *c, const void *obj)
{
	return c->fn.csc(c->arg, obj);
}

static void each_one(void *ctx, void *obj)
{
	struct each_ctx *c = ctx;
	if (!c->rc)
		c->rc = c->call(c, obj);
}

/* Every object of slot's store, or (key != NULL) those of the index's key; the first non-zero
 * answer stops the walk and is returned. */
static int each(void *sched, int slot, const char *key, struct each_ctx *c)
{
	const struct scheduler *s = sched;
	struct sched_volumes *v = s->volumes;
	if (!v || !v->inf[slot])
		return 0;
	if (!key) {
		api_informer_foreach(v->inf[slot], each_one, c);
		return c->rc;
	}
	const char *ik = intern_find(key);
	if (!ik)
		return 0; /* not interned: no object has it */
	pthread_mutex_lock(&v->lock);
	const struct obj_list *l = map_get(slot == V_PV ? &v->pv_by_class : &v->va_by_node, ik);
	for (uint32_t i = 0; l && i < l->n && !c->rc; i++)
		c->rc = c->call(c, l->items[i]);
	pthread_mutex_unlock(&v->lock);
	return c->rc;
}

int sched_pv_each(void *sched, const char *class_name, int (*fn)(void *arg, const struct api_pv *pv), void *arg)
{
	struct each_ctx c = { .call = call_pv, .fn.pv = fn, .arg = arg };
	return each(sched, V_PV, class_name, &c);
}

int sched_volume_attachment_each(void *sched, const char *node_name,
				 int (*fn)(void *arg, const struct api_volume_attachment *va), void *arg)
{
	struct each_ctx c = { .call = call_va, .fn.va = fn, .arg = arg };
	return each(sched, V_VA, node_name, &c);
}

int sched_csi_storage_capacity_each(void *sched, int (*fn)(void *arg, const struct api_csi_storage_capacity *c),
				    void *arg)
{
	struct each_ctx c = { .call = call_csc, .fn.csc = fn, .arg = arg };
	return each(sched, V_CSC, NULL, &c);
}
