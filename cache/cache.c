/* DESIGN: the scheduler cache (upstream backend/cache/cache.go, v1.34).
 *
 * One mutex (struct cache.lock) guards everything in struct cache. It is a leaf lock: nothing is
 * called with it held except node_info arithmetic, the map and the node tree (all in this module)
 * and logging. Informer threads add/update/remove nodes and pods, the scheduler thread assumes
 * pods and refreshes its snapshot, binder threads finish or forget. Every call holds the lock for
 * memory work only.
 *
 * Nodes: one cache_node per name in `nodes`, each with its live node_info. Every change stamps
 * ++generation on the node_info and moves it to the head of a recency list, so that
 * cache_update_snapshot walks from the head and stops at the first node_info the snapshot has
 * already seen: with 5000 nodes and one change, it copies one node_info. The node tree (zone
 * order) changes only on node add/update/remove; it has its own generation so that the snapshot
 * rebuilds its list only when it moved. Image node counts are taken when a node_info is copied,
 * as upstream's snapshot does: a node that did not change keeps the counts of its last copy.
 *
 * Pods: `pods` maps UID -> cache_pod (the object, the node it is counted on, assumed or not). */
#include "cache/cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"
#include "common/intern.h"
#include "common/log.h"

struct cache_node {
	struct node_info info; /* live copy; info.node NULL for a ghost */
	struct cache_node *prev, *next; /* recency list, most recently changed first */
	bool in_tree;
	const char *region, *zone; /* the tree zone it was added under */
};

struct cache_pod {
	struct api_pod *pod;   /* referenced */
	const char *node_name; /* interned: the node it is counted on */
	bool assumed;
	bool binding_finished;
};

/* Image state across the cluster: nodes listing the (normalised) name. */
struct cache_image {
	int64_t size; /* from the first node seen */
	uint32_t num_nodes;
};

struct cache {
	/* Guards every field below. Leaf lock (see DESIGN). */
	pthread_mutex_t lock;
	struct map nodes; /* name -> struct cache_node */
	struct cache_node *head;
	struct map pods; /* uid -> struct cache_pod */
	uint32_t n_assumed;
	struct node_tree tree;
	uint64_t tree_generation; /* bumped when the tree's order may have changed */
	struct map images;        /* normalised image name -> struct cache_image */
	uint64_t generation;
};

struct cache *cache_new(void)
{
	struct cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		return NULL;
	}
	map_init(&c->nodes);
	map_init(&c->pods);
	map_init(&c->images);
	/* generations unique across the caches of the process (2^40 changes each), so that a
	 * node_info's (address, generation) names one content even when a cache is freed and another
	 * one reuses its addresses: plugins keep per-node results keyed by them */
	static _Atomic uint64_t generation_base;
	c->generation = atomic_fetch_add(&generation_base, UINT64_C(1) << 40);
	return c;
}

void cache_free(struct cache *c)
{
	if (!c)
		return;
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&c->nodes, &it, &k, &v);) {
		struct cache_node *n = v;
		node_info_release(&n->info);
		free(n);
	}
	for (size_t it = 0; map_next(&c->pods, &it, &k, &v);) {
		struct cache_pod *cp = v;
		api_pod_unref(cp->pod);
		intern_release(cp->node_name);
		free(cp);
	}
	for (size_t it = 0; map_next(&c->images, &it, &k, &v);)
		free(v);
	map_release(&c->nodes);
	map_release(&c->pods);
	map_release(&c->images);
	node_tree_release(&c->tree);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* ---------- Recency list ---------- */

static void list_unlink(struct cache *c, struct cache_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	if (n->next)
		n->next->prev = n->prev;
	if (c->head == n)
		c->head = n->next;
	n->prev = n->next = NULL;
}

/* The node changed: new generation, head of the list. Caller holds c->lock. */
static void touch_locked(struct cache *c, struct cache_node *n)
{
	n->info.generation = ++c->generation;
	if (c->head == n)
		return;
	list_unlink(c, n);
	n->next = c->head;
	if (c->head)
		c->head->prev = n;
	c->head = n;
}

static struct cache_node *node_get_or_create_locked(struct cache *c, const char *name)
{
	struct cache_node *n = map_get(&c->nodes, name);
	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	node_info_init(&n->info, name);
	if (map_put(&c->nodes, name, n, NULL) < 0) {
		free(n);
		return NULL;
	}
	return n;
}

/* Drops an entry with neither a Node object nor pods. Caller holds c->lock. */
static void node_delete_locked(struct cache *c, struct cache_node *n)
{
	list_unlink(c, n);
	map_del(&c->nodes, n->info.name);
	node_info_release(&n->info);
	free(n);
	c->generation++; /* the cache changed, though no snapshot node did */
}

/* ---------- Images ---------- */

/* By name pointer, then by position in the node's list (build_images keeps it in num_nodes). */
static int image_ptr_cmp(const void *a, const void *b)
{
	const struct node_image *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->num_nodes < y->num_nodes ? -1 : x->num_nodes > y->num_nodes;
}

/* The node's distinct image names as the node reports them (upstream addNodeImageStates keys
 * them unchanged: only the pod's names are normalised, by ImageLocality), sorted by pointer
 * (sizes from the node). */
static int build_images(const struct api_node *node, struct node_image **out, uint32_t *n_out)
{
	uint32_t total = 0, n = 0;
	*out = NULL;
	*n_out = 0;
	for (uint32_t i = 0; i < node->n_images; i++)
		total += node->images[i].n_names;
	if (!total)
		return 0;
	struct node_image *v = malloc(total * sizeof(*v));
	if (!v)
		return ERR_NOMEM;
	for (uint32_t i = 0; i < node->n_images; i++) {
		for (uint32_t j = 0; j < node->images[i].n_names; j++) {
			const char *name = node->images[i].names[j];
			if (name) {
				v[n] = (struct node_image){ name, node->images[i].size_bytes, n };
				n++;
			}
		}
	}
	qsort(v, n, sizeof(*v), image_ptr_cmp);
	uint32_t u = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!u || v[u - 1].name != v[i].name)
			v[u++] = v[i]; /* a name listed twice: the first entry's size, as upstream */
	for (uint32_t i = 0; i < u; i++)
		v[i].num_nodes = 0;
	*out = v;
	*n_out = u;
	return 0;
}

static bool same_image_names(const struct node_image *a, uint32_t na, const struct node_image *b, uint32_t nb)
{
	if (na != nb)
		return false;
	for (uint32_t i = 0; i < na; i++)
		if (a[i].name != b[i].name)
			return false;
	return true;
}

static void images_release_locked(struct cache *c, const struct node_image *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct cache_image *st = map_get(&c->images, v[i].name);
		if (st && --st->num_nodes == 0)
			free(map_del(&c->images, v[i].name));
	}
}

/* Counts the node's images (a new state takes the entry's size). */
static int images_acquire_locked(struct cache *c, struct node_image *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct cache_image *st = map_get(&c->images, v[i].name);
		if (!st) {
			st = calloc(1, sizeof(*st));
			if (!st || map_put(&c->images, v[i].name, st, NULL) < 0) {
				free(st);
				images_release_locked(c, v, i);
				return ERR_NOMEM;
			}
			st->size = v[i].size_bytes;
		}
		st->num_nodes++;
	}
	return 0;
}

/* ---------- Nodes ---------- */

/* Gives entry n the Node object `node`: zone placement, image states, generation. */
static int set_node_locked(struct cache *c, struct cache_node *n, struct api_node *node, struct err *e)
{
	const char *region, *zone;
	struct node_image *imgs = NULL;
	uint32_t n_imgs = 0;
	int rc = build_images(node, &imgs, &n_imgs);
	if (rc < 0)
		goto out;
	bool same_images = n->info.node && same_image_names(imgs, n_imgs, n->info.images, n->info.n_images);
	if (!same_images && (rc = images_acquire_locked(c, imgs, n_imgs)) < 0)
		goto out;

	node_tree_zone_of(node, &region, &zone);
	if (!n->in_tree || n->region != region || n->zone != zone) {
		if ((rc = node_tree_add(&c->tree, region, zone, n->info.name)) < 0) {
			if (!same_images)
				images_release_locked(c, imgs, n_imgs);
			goto out;
		}
		if (n->in_tree)
			node_tree_remove(&c->tree, n->region, n->zone, n->info.name);
		n->in_tree = true;
		n->region = region;
		n->zone = zone;
		c->tree_generation++;
	}

	if (!same_images) {
		images_release_locked(c, n->info.images, n->info.n_images);
		free(n->info.images);
		n->info.images = imgs;
		n->info.n_images = n_imgs;
		imgs = NULL;
		/* out of memory only costs speed: node_info_image falls back to binary search */
		(void)node_info_index_images(&n->info);
	}
	/* Sizes. Upstream removes the node's image states and adds them again on every update: an
	 * image no other node has takes the size the node reports now, one that others have keeps
	 * the size of the node that first reported it. (imgs, when kept, lists the same names in the
	 * same order, with the reported sizes.) */
	for (uint32_t i = 0; i < n->info.n_images; i++) {
		struct cache_image *st = map_get(&c->images, n->info.images[i].name);
		int64_t reported = same_images ? imgs[i].size_bytes : n->info.images[i].size_bytes;
		if (st && st->num_nodes == 1)
			st->size = reported;
		n->info.images[i].size_bytes = st ? st->size : reported;
	}
	if (n->info.node != node) {
		api_node_unref(n->info.node);
		n->info.node = api_node_ref(node);
	}
	touch_locked(c, n);
out:
	free(imgs);
	if (rc < 0)
		err_set(e, rc, "cache: node %s: out of memory", n->info.name);
	return rc;
}

int cache_add_node(struct cache *c, struct api_node *node, struct err *e)
{
	if (!node || !node->meta.name)
		return err_set(e, ERR_INVALID, "cache_add_node: node without a name");
	pthread_mutex_lock(&c->lock);
	int rc;
	struct cache_node *n = node_get_or_create_locked(c, node->meta.name);
	if (!n)
		rc = err_set(e, ERR_NOMEM, "cache: adding node %s: out of memory", node->meta.name);
	else if ((rc = set_node_locked(c, n, node, e)) < 0 && !n->info.node && !n->info.n_pods)
		node_delete_locked(c, n);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int cache_update_node(struct cache *c, const struct api_node *old_node, struct api_node *new_node, struct err *e)
{
	(void)old_node; /* the cache's own copy says where the node was */
	return cache_add_node(c, new_node, e);
}

int cache_remove_node(struct cache *c, const struct api_node *node, struct err *e)
{
	if (!node || !node->meta.name)
		return err_set(e, ERR_INVALID, "cache_remove_node: node without a name");
	int rc = 0;
	pthread_mutex_lock(&c->lock);
	struct cache_node *n = map_get(&c->nodes, node->meta.name);
	if (!n || !n->info.node) {
		rc = err_set(e, ERR_NOT_FOUND, "cache: removing node %s: not found", node->meta.name);
		goto out;
	}
	images_release_locked(c, n->info.images, n->info.n_images);
	free(n->info.images);
	n->info.images = NULL;
	n->info.n_images = 0;
	if (n->in_tree) { /* before the node goes: its labels hold region and zone */
		node_tree_remove(&c->tree, n->region, n->zone, n->info.name);
		n->in_tree = false;
		c->tree_generation++;
	}
	api_node_unref(n->info.node);
	n->info.node = NULL;
	/* pods' deletions come from another watch and may arrive later: keep a ghost meanwhile */
	if (n->info.n_pods)
		touch_locked(c, n);
	else
		node_delete_locked(c, n);
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* ---------- Pods ---------- */

static int add_pod_locked(struct cache *c, struct api_pod *pod, const char *node_name, bool assumed,
			  struct err *e)
{
	struct cache_pod *cp = NULL;
	bool created = !map_get(&c->nodes, node_name);
	struct cache_node *n = node_get_or_create_locked(c, node_name);
	int rc = ERR_NOMEM;
	if (!n || !(cp = calloc(1, sizeof(*cp))))
		goto out;
	if ((rc = node_info_add_pod(&n->info, pod, e)) < 0)
		goto out;
	cp->pod = api_pod_ref(pod);
	cp->node_name = intern_ref(node_name);
	cp->assumed = assumed;
	if (map_put(&c->pods, pod->meta.uid, cp, NULL) < 0) {
		node_info_remove_pod(&n->info, pod, NULL);
		api_pod_unref(cp->pod);
		intern_release(cp->node_name);
		rc = ERR_NOMEM;
		goto out;
	}
	cp = NULL;
	if (assumed)
		c->n_assumed++;
	touch_locked(c, n);
	rc = 0;
out:
	free(cp);
	if (rc < 0) {
		if (n && created && !n->info.node && !n->info.n_pods)
			node_delete_locked(c, n);
		if (rc == ERR_NOMEM)
			err_set(e, rc, "cache: adding pod %s/%s to node %s: out of memory", pod->meta.namespace,
				pod->meta.name, node_name);
	}
	return rc;
}

static void remove_pod_locked(struct cache *c, struct cache_pod *cp)
{
	struct cache_node *n = map_get(&c->nodes, cp->node_name);
	if (!n || node_info_remove_pod(&n->info, cp->pod, NULL) < 0) {
		LOG_ERROR("cache: pod %s/%s not counted on node %s", cp->pod->meta.namespace, cp->pod->meta.name,
			  cp->node_name);
	} else if (!n->info.node && !n->info.n_pods) {
		node_delete_locked(c, n);
	} else {
		touch_locked(c, n);
	}
	map_del(&c->pods, cp->pod->meta.uid);
	if (cp->assumed)
		c->n_assumed--;
	api_pod_unref(cp->pod);
	intern_release(cp->node_name);
	free(cp);
}

static bool pod_ok(const struct api_pod *pod)
{
	return pod && pod->meta.uid && pod->meta.uid[0];
}

int cache_assume_pod(struct cache *c, struct api_pod *pod, const char *node_name, struct err *e)
{
	if (!pod_ok(pod) || !node_name || !node_name[0])
		return err_set(e, ERR_INVALID, "cache_assume_pod: pod without a UID or empty node name");
	const char *nn = intern_acquire(node_name, strlen(node_name)); /* canonical; the entry takes its own */
	if (!nn)
		return err_set(e, ERR_NOMEM, "cache_assume_pod: out of memory");
	int rc;
	pthread_mutex_lock(&c->lock);
	if (map_get(&c->pods, pod->meta.uid))
		rc = err_set(e, ERR_CONFLICT, "cache: pod %s/%s (uid %s) is in the cache, so can't be assumed",
			     pod->meta.namespace, pod->meta.name, pod->meta.uid);
	else
		rc = add_pod_locked(c, pod, nn, true, e);
	pthread_mutex_unlock(&c->lock);
	intern_release(nn);
	return rc;
}

int cache_finish_binding(struct cache *c, const struct api_pod *pod, struct err *e)
{
	if (!pod_ok(pod))
		return err_set(e, ERR_INVALID, "cache_finish_binding: pod without a UID");
	pthread_mutex_lock(&c->lock);
	struct cache_pod *cp = map_get(&c->pods, pod->meta.uid);
	if (cp && cp->assumed)
		cp->binding_finished = true;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

int cache_forget_pod(struct cache *c, const struct api_pod *pod, const char *node_name, struct err *e)
{
	if (!pod_ok(pod) || !node_name)
		return err_set(e, ERR_INVALID, "cache_forget_pod: pod without a UID or no node name");
	int rc = 0;
	pthread_mutex_lock(&c->lock);
	struct cache_pod *cp = map_get(&c->pods, pod->meta.uid);
	if (!cp)
		goto out; /* already gone from the cache: nothing to undo */
	if (strcmp(cp->node_name, node_name) != 0) {
		rc = err_set(e, ERR_INVALID, "cache: pod %s/%s was assumed on %s but assigned to %s",
			     pod->meta.namespace, pod->meta.name, node_name, cp->node_name);
		goto out;
	}
	if (!cp->assumed) {
		rc = err_set(e, ERR_INVALID, "cache: pod %s/%s is not assumed, so it cannot be forgotten",
			     pod->meta.namespace, pod->meta.name);
		goto out;
	}
	remove_pod_locked(c, cp);
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int cache_add_pod(struct cache *c, struct api_pod *pod, struct err *e)
{
	if (!pod_ok(pod) || !pod->node_name || !pod->node_name[0])
		return err_set(e, ERR_INVALID, "cache_add_pod: pod without a UID or node name");
	int rc = 0;
	pthread_mutex_lock(&c->lock);
	struct cache_pod *cp = map_get(&c->pods, pod->meta.uid);
	if (cp && cp->assumed) {
		/* confirmation of an assumed pod: count the informer's object, where it was bound */
		if (cp->node_name != pod->node_name)
			LOG_INFO("cache: pod %s/%s was added to node %s, not the assumed %s", pod->meta.namespace,
				 pod->meta.name, pod->node_name, cp->node_name);
		remove_pod_locked(c, cp);
		rc = add_pod_locked(c, pod, pod->node_name, false, e);
	} else if (!cp) {
		rc = add_pod_locked(c, pod, pod->node_name, false, e);
	} else {
		rc = err_set(e, ERR_CONFLICT, "cache: pod %s/%s was already in added state", pod->meta.namespace,
			     pod->meta.name);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int cache_update_pod(struct cache *c, const struct api_pod *old_pod, struct api_pod *new_pod, struct err *e)
{
	(void)old_pod; /* the cached copy is what is counted */
	if (!pod_ok(new_pod))
		return err_set(e, ERR_INVALID, "cache_update_pod: pod without a UID");
	int rc = 0;
	pthread_mutex_lock(&c->lock);
	struct cache_pod *cp = map_get(&c->pods, new_pod->meta.uid);
	if (!cp) {
		rc = err_set(e, ERR_NOT_FOUND, "cache: pod %s/%s is not added to scheduler cache, so cannot be updated",
			     new_pod->meta.namespace, new_pod->meta.name);
	} else if (cp->assumed) {
		rc = err_set(e, ERR_CONFLICT, "cache: assumed pod %s/%s should not be updated", new_pod->meta.namespace,
			     new_pod->meta.name);
	} else if (cp->node_name != new_pod->node_name) {
		rc = err_set(e, ERR_INVALID, "cache: pod %s/%s updated on node %s, but was added to %s",
			     new_pod->meta.namespace, new_pod->meta.name, new_pod->node_name, cp->node_name);
	} else {
		const char *node_name = cp->node_name;
		remove_pod_locked(c, cp);
		rc = add_pod_locked(c, new_pod, node_name, false, e);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int cache_remove_pod(struct cache *c, const struct api_pod *pod, struct err *e)
{
	if (!pod_ok(pod))
		return err_set(e, ERR_INVALID, "cache_remove_pod: pod without a UID");
	int rc = 0;
	pthread_mutex_lock(&c->lock);
	struct cache_pod *cp = map_get(&c->pods, pod->meta.uid);
	if (!cp) {
		rc = err_set(e, ERR_NOT_FOUND, "cache: pod %s/%s is not found in scheduler cache, so cannot be removed",
			     pod->meta.namespace, pod->meta.name);
	} else {
		if (pod->node_name && pod->node_name[0] && cp->node_name != pod->node_name)
			LOG_ERROR("cache: pod %s/%s removed from node %s but was counted on %s", pod->meta.namespace,
				  pod->meta.name, pod->node_name, cp->node_name);
		remove_pod_locked(c, cp);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

bool cache_is_assumed(struct cache *c, const char *pod_uid)
{
	if (!pod_uid)
		return false;
	pthread_mutex_lock(&c->lock);
	struct cache_pod *cp = map_get(&c->pods, pod_uid);
	bool assumed = cp && cp->assumed;
	pthread_mutex_unlock(&c->lock);
	return assumed;
}

const char *cache_assumed_node(struct cache *c, const char *pod_uid)
{
	if (!pod_uid)
		return NULL;
	pthread_mutex_lock(&c->lock);
	struct cache_pod *cp = map_get(&c->pods, pod_uid);
	const char *node = cp && cp->assumed ? intern_ref(cp->node_name) : NULL; /* outlives the entry */
	pthread_mutex_unlock(&c->lock);
	return node;
}

void cache_counts(struct cache *c, struct cache_counts *out)
{
	pthread_mutex_lock(&c->lock);
	out->nodes = (uint32_t)map_len(&c->nodes);
	out->pods = (uint32_t)map_len(&c->pods);
	out->assumed_pods = c->n_assumed;
	out->generation = c->generation;
	pthread_mutex_unlock(&c->lock);
}

/* ---------- Snapshot ---------- */

/* num_nodes of every image of ni from the cluster-wide states. Caller holds c->lock. */
static void fill_image_counts_locked(const struct cache *c, struct node_info *ni)
{
	for (uint32_t i = 0; i < ni->n_images; i++) {
		const struct cache_image *st = map_get(&c->images, ni->images[i].name);
		ni->images[i].num_nodes = st ? st->num_nodes : 0;
	}
}

/* Rebuilds the affinity lists (and, when all, the node list in tree order). */
static int rebuild_lists_locked(const struct cache *c, struct snapshot *s, bool all)
{
	uint32_t n = c->tree.num_nodes;
	if (all) {
		if (n > s->cap_list) {
			const struct node_info **l = realloc(s->list, n * sizeof(*l));
			const struct node_info **a = l ? realloc(s->aff, n * sizeof(*a)) : NULL;
			const struct node_info **x = a ? realloc(s->anti, n * sizeof(*x)) : NULL;
			if (l)
				s->list = l;
			if (a)
				s->aff = a;
			if (x)
				s->anti = x;
			if (!x)
				return ERR_NOMEM;
			s->cap_list = n;
		}
		const char **names = malloc((n ? n : 1) * sizeof(*names));
		if (!names)
			return ERR_NOMEM;
		uint32_t got = node_tree_list(&c->tree, names);
		s->n_list = 0;
		for (uint32_t i = 0; i < got; i++) {
			const struct node_info *ni = map_get(&s->infos, names[i]);
			if (ni)
				s->list[s->n_list++] = ni;
			else
				LOG_ERROR("snapshot: node %s is in the node tree but not in the snapshot", names[i]);
		}
		free(names);
		s->tree_generation = c->tree_generation;
		s->stats.list_rebuilds++;
	}
	s->n_aff = s->n_anti = 0;
	for (uint32_t i = 0; i < s->n_list; i++) {
		const struct node_info *ni = s->list[i];
		if (ni->n_pods_with_affinity)
			s->aff[s->n_aff++] = ni;
		if (ni->n_pods_with_required_anti_affinity)
			s->anti[s->n_anti++] = ni;
	}
	return 0;
}

int cache_update_snapshot(struct cache *c, struct snapshot *s, struct err *e)
{
	int rc = 0;
	pthread_mutex_lock(&c->lock);
	if (s->owner != c || s->stale) {
		snapshot_clear_(s);
		s->owner = c;
	}
	bool update_all = s->tree_generation != c->tree_generation || !s->list;
	bool update_aff = false;

	for (struct cache_node *n = c->head; n && n->info.generation > s->generation; n = n->next) {
		if (!n->info.node)
			continue; /* ghosts never enter a snapshot */
		struct node_info *ni = map_get(&s->infos, n->info.name);
		if (!ni) {
			if (!(ni = calloc(1, sizeof(*ni))) || map_put(&s->infos, n->info.name, ni, NULL) < 0) {
				free(ni);
				rc = ERR_NOMEM;
				goto out;
			}
			update_all = true;
		}
		bool had_aff = ni->n_pods_with_affinity > 0, had_anti = ni->n_pods_with_required_anti_affinity > 0;
		if ((rc = node_info_copy(ni, &n->info, e)) < 0)
			goto out;
		/* upstream's clone (NodeInfo.SnapshotConcrete -> ImageStateSummary.Snapshot) counts
		 * each image's nodes now; an unchanged node keeps the counts of its last copy */
		fill_image_counts_locked(c, ni);
		s->stats.node_copies++;
		if (had_aff != (ni->n_pods_with_affinity > 0) || had_anti != (ni->n_pods_with_required_anti_affinity > 0))
			update_aff = true;
	}
	s->generation = c->generation;

	/* nodes deleted since: their clones go (ghost entries of the cache are not nodes) */
	if (map_len(&s->infos) > c->tree.num_nodes) {
		const char *k;
		void *v;
		for (size_t it = 0; map_next(&s->infos, &it, &k, &v);) {
			struct cache_node *n = map_get(&c->nodes, k);
			if (n && n->info.node)
				continue;
			map_del(&s->infos, k);
			node_info_release(v);
			free(v);
		}
		update_all = true;
	}
	if (update_all || update_aff)
		if ((rc = rebuild_lists_locked(c, s, update_all)) < 0)
			goto out;
	if (s->n_list != c->tree.num_nodes) {
		LOG_ERROR("snapshot: %u nodes listed but the node tree has %u; rebuilding", s->n_list, c->tree.num_nodes);
		s->stale = true;
		rc = err_set(e, ERR_INVALID, "snapshot state is not consistent: %u listed, %u in the node tree",
			     s->n_list, c->tree.num_nodes);
	}
out:
	if (rc == ERR_NOMEM) {
		s->stale = true;
		err_set(e, rc, "cache_update_snapshot: out of memory");
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void cache_foreach_key(struct cache *c, void (*on_node)(void *ctx, const char *name),
		       void (*on_pod)(void *ctx, const char *uid), void *ctx)
{
	const char *k;
	void *v;
	pthread_mutex_lock(&c->lock);
	for (size_t it = 0; on_node && map_next(&c->nodes, &it, &k, &v);)
		on_node(ctx, k);
	for (size_t it = 0; on_pod && map_next(&c->pods, &it, &k, &v);)
		on_pod(ctx, k);
	pthread_mutex_unlock(&c->lock);
}
