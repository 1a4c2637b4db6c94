/* Per-node counts of matching pods kept across cycles (count_cache.h). */
#include "count_cache.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"

struct fw_node_count {
	uint64_t generation;
	int64_t n;
};

static bool clause_matches(const struct fw_pod_clause *c, const struct api_pod *p)
{
	if (!c->any_ns) {
		uint32_t i = 0;
		while (i < c->n_ns && c->ns[i] != p->meta.namespace)
			i++;
		if (i == c->n_ns)
			return false;
	}
	return api_label_selector_matches(c->sel, &p->meta.labels);
}

bool fw_pod_match(const struct fw_pod_match *m, const struct api_pod *p)
{
	if (!m->n || (m->skip_deleting && p->meta.being_deleted))
		return false;
	for (uint32_t i = 0; i < m->n; i++)
		if (!clause_matches(&m->c[i], p))
			return false;
	return true;
}

int64_t fw_pod_match_count(const struct fw_pod_match *m, const struct node_info *ni)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!m->c[i].sel)
			return 0; /* labels.Nothing() */
	int64_t n = 0;
	for (uint32_t i = 0; m->n && i < ni->n_pods; i++)
		n += fw_pod_match(m, ni->pods[i].pod);
	return n;
}

/* ---------- the slots' keys: copies of a predicate, with references on its strings ---------- */

/* memcmp(...) == 0 that allows NULL for 0 bytes (an empty array in the model is NULL). */
static bool same_n(const void *a, const void *b, size_t bytes)
{
	return !bytes || !memcmp(a, b, bytes);
}

static bool sel_eq(const struct api_label_selector *a, const struct api_label_selector *b)
{
	if (!a || !b)
		return a == b;
	if (a->match_labels.n != b->match_labels.n || a->n_exprs != b->n_exprs ||
	    !same_n(a->match_labels.items, b->match_labels.items, a->match_labels.n * sizeof(*a->match_labels.items)))
		return false;
	for (uint32_t i = 0; i < a->n_exprs; i++) {
		const struct api_requirement *x = &a->exprs[i], *y = &b->exprs[i];
		if (x->key != y->key || x->op != y->op || x->n_values != y->n_values ||
		    !same_n(x->values, y->values, x->n_values * sizeof(*x->values)))
			return false;
	}
	return true;
}

static bool key_eq(const struct fw_count_slot *s, const struct fw_pod_match *m)
{
	if (!s->c || s->n != m->n || s->skip_deleting != m->skip_deleting)
		return false;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct fw_pod_clause *x = &s->c[i], *y = &m->c[i];
		if (x->any_ns != y->any_ns || x->n_ns != y->n_ns || !same_n(x->ns, y->ns, x->n_ns * sizeof(*x->ns)) ||
		    !sel_eq(x->sel, y->sel))
			return false;
	}
	return true;
}

/* Calls fn on every string the predicate holds (fn: intern_ref or intern_release). */
static void key_strings(const struct fw_pod_clause *c, uint32_t n, void (*fn)(const char *))
{
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < c[i].n_ns; j++)
			fn(c[i].ns[j]);
		const struct api_label_selector *s = c[i].sel;
		for (uint32_t j = 0; s && j < s->match_labels.n; j++) {
			fn(s->match_labels.items[j].key);
			fn(s->match_labels.items[j].value);
		}
		for (uint32_t j = 0; s && j < s->n_exprs; j++) {
			fn(s->exprs[j].key);
			for (uint32_t k = 0; k < s->exprs[j].n_values; k++)
				fn(s->exprs[j].values[k]);
		}
	}
}

static void ref_one(const char *s)
{
	intern_ref(s);
}

/* A bump allocator over one block (so that a key is one malloc). */
struct bump {
	char *p;
	size_t used;
};

static void *bump(struct bump *b, size_t size)
{
	size_t at = (b->used + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	b->used = at + size;
	return b->p ? b->p + at : NULL;
}

/* Lays out the copy of m's clauses in b (sizing only while b->p is NULL). */
/* memcpy that allows src == NULL for 0 bytes (an empty array in the model is NULL; memcpy from
 * NULL is undefined even then). */
static void copy_n(void *dst, const void *src, size_t bytes)
{
	if (bytes)
		memcpy(dst, src, bytes);
}

static struct fw_pod_clause *key_copy(struct bump *b, const struct fw_pod_match *m)
{
	struct fw_pod_clause *c = bump(b, m->n * sizeof(*c));
	for (uint32_t i = 0; i < m->n; i++) {
		const struct fw_pod_clause *x = &m->c[i];
		const char **ns = bump(b, x->n_ns * sizeof(*ns));
		struct api_label_selector *sel = x->sel ? bump(b, sizeof(*sel)) : NULL;
		struct api_kv *kv = NULL;
		struct api_requirement *ex = NULL;
		if (x->sel) {
			kv = bump(b, x->sel->match_labels.n * sizeof(*kv));
			ex = bump(b, x->sel->n_exprs * sizeof(*ex));
		}
		if (b->p) {
			copy_n(ns, x->ns, x->n_ns * sizeof(*ns));
			c[i] = (struct fw_pod_clause){ ns, x->n_ns, x->any_ns, sel };
		}
		if (!x->sel)
			continue;
		if (b->p) {
			copy_n(kv, x->sel->match_labels.items, x->sel->match_labels.n * sizeof(*kv));
			*sel = (struct api_label_selector){ { x->sel->match_labels.n, kv }, x->sel->n_exprs, ex };
		}
		for (uint32_t j = 0; j < x->sel->n_exprs; j++) {
			const struct api_requirement *r = &x->sel->exprs[j];
			const char **v = bump(b, r->n_values * sizeof(*v));
			if (b->p) {
				copy_n(v, r->values, r->n_values * sizeof(*v));
				ex[j] = (struct api_requirement){ r->key, r->op, r->n_values, v };
			}
		}
	}
	return c;
}

static void slot_clear(struct fw_count_slot *s)
{
	const void *k;
	void *v;
	for (size_t it = 0; pmap_next(&s->by_node, &it, &k, &v);)
		free(v);
	pmap_clear(&s->by_node);
}

/* Empties s and gives back its key's references (the slot is then unused). */
static void slot_drop(struct fw_count_slot *s)
{
	slot_clear(s);
	if (s->c)
		key_strings(s->c, s->n, intern_release);
	free(s->c);
	s->c = NULL;
	s->n = 0;
}

static int slot_set_key(struct fw_count_slot *s, const struct fw_pod_match *m)
{
	struct bump b = { 0 };
	key_copy(&b, m);
	if (!(b.p = malloc(b.used ? b.used : 1)))
		return ERR_NOMEM;
	b.used = 0;
	s->c = key_copy(&b, m);
	s->n = m->n;
	s->skip_deleting = m->skip_deleting;
	key_strings(s->c, s->n, ref_one);
	return 0;
}

void fw_count_cache_begin(struct fw_count_cache *cc)
{
	cc->round++;
}

struct fw_count_slot *fw_count_cache_slot(struct fw_count_cache *cc, const struct fw_pod_match *m, uint32_t n_nodes)
{
	struct fw_count_slot *s = NULL, *lru = NULL;
	for (size_t i = 0; i < FW_COUNT_CACHE_SLOTS && !s; i++) {
		struct fw_count_slot *x = &cc->slots[i];
		if (key_eq(x, m))
			s = x;
		else if (x->used != cc->round && (!lru || x->used < lru->used))
			lru = x;
	}
	if (!s) {
		if (!lru)
			return NULL; /* every slot is counting for this round */
		s = lru;
		slot_drop(s);
		if (slot_set_key(s, m) < 0)
			return NULL;
	} else if (pmap_len(&s->by_node) > 2 * (size_t)n_nodes + 64) {
		slot_clear(s); /* entries of node_infos gone from the snapshot */
	}
	s->used = cc->round;
	return s;
}

int64_t fw_count_cache_count(struct fw_count_slot *s, const struct fw_pod_match *m, const struct node_info *ni)
{
	void **v = s && ni->generation ? pmap_ref(&s->by_node, ni, NULL) : NULL;
	if (!v)
		return fw_pod_match_count(m, ni);
	struct fw_node_count *e = *v;
	if (!e) {
		if (!(e = malloc(sizeof(*e))))
			return fw_pod_match_count(m, ni); /* the slot stays NULL: retried next time */
		*e = (struct fw_node_count){ 0, 0 };
		*v = e;
	}
	if (e->generation != ni->generation)
		*e = (struct fw_node_count){ ni->generation, fw_pod_match_count(m, ni) };
	return e->n;
}

void fw_count_cache_release(struct fw_count_cache *cc)
{
	for (size_t i = 0; i < FW_COUNT_CACHE_SLOTS; i++) {
		slot_drop(&cc->slots[i]);
		pmap_release(&cc->slots[i].by_node);
	}
}
