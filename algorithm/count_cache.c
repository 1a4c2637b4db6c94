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

static void domains_free(struct fw_domains *d)
{
	intern_release_n((const char *const *)d->keys, d->n_keys);
	free(d->keys);
	free(d->pos);
	free(d->totals);
	pmap_release(&d->index);
	free(d);
}

/* Empties s and gives back its key's references (the slot is then unused). */
static void slot_drop(struct fw_count_slot *s)
{
	slot_clear(s);
	for (struct fw_domains *d = s->domains, *next; d; d = next) {
		next = d->next;
		domains_free(d);
	}
	s->domains = NULL;
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
		s->id = ++cc->ids;
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

/* ---------- totals per topology domain ---------- */

struct fw_domain_pos {
	const struct node_info *ni; /* NULL: nothing counted here */
	uint64_t generation;
	const char *value; /* NULL: the node did not count */
	int64_t n;
};

const struct fw_domain_total *fw_domains_get(const struct fw_domains *d, const char *value)
{
	intptr_t i = (intptr_t)pmap_get(&d->index, value);
	return i && d->totals[i - 1].nodes > 0 ? &d->totals[i - 1] : NULL;
}

/* value's total, created at zero when absent; NULL on out of memory. */
static struct fw_domain_total *domains_total(struct fw_domains *d, const char *value)
{
	bool added;
	void **v = pmap_ref(&d->index, value, &added);
	if (!v)
		return NULL;
	if (!added)
		return &d->totals[(intptr_t)*v - 1];
	if (d->n_totals == d->cap_totals) {
		uint32_t cap = d->cap_totals ? 2 * d->cap_totals : 8;
		struct fw_domain_total *t = realloc(d->totals, cap * sizeof(*t));
		if (!t) {
			*v = NULL; /* (a NULL value reads as absent: fw_domains_get, the next domains_total) */
			return NULL;
		}
		d->totals = t, d->cap_totals = cap;
	}
	d->totals[d->n_totals] = (struct fw_domain_total){ value, 0, 0 };
	*v = (void *)(intptr_t)++d->n_totals;
	return &d->totals[d->n_totals - 1];
}

/* Forgets every contribution and total (the next update counts every node). */
static int domains_reset(struct fw_domains *d, uint32_t n_pos)
{
	pmap_clear(&d->index);
	d->n_totals = 0;
	if (n_pos != d->n_pos) {
		free(d->pos);
		d->n_pos = 0;
		if (!(d->pos = calloc(n_pos ? n_pos : 1, sizeof(*d->pos))))
			return ERR_NOMEM;
		d->n_pos = n_pos;
	} else {
		memset(d->pos, 0, n_pos * sizeof(*d->pos));
	}
	return 0;
}

static bool domains_is(const struct fw_domains *d, const char *const *keys, uint32_t n_keys, uint32_t key,
		       bool require_all, const char *empty)
{
	return d->n_keys == n_keys && d->key == key && d->require_all == require_all && d->empty == empty &&
	       !memcmp(d->keys, keys, n_keys * sizeof(*keys));
}

static struct fw_domains *domains_new(const char *const *keys, uint32_t n_keys, uint32_t key, bool require_all,
				      const char *empty)
{
	struct fw_domains *d = calloc(1, sizeof(*d));
	if (!d || !(d->keys = malloc((n_keys ? n_keys : 1) * sizeof(*d->keys)))) {
		free(d);
		return NULL;
	}
	copy_n(d->keys, keys, n_keys * sizeof(*keys));
	intern_ref_n(keys, n_keys);
	d->n_keys = n_keys, d->key = key, d->require_all = require_all, d->empty = empty;
	pmap_init(&d->index);
	return d;
}

/* The value ni counts under in d, NULL when it does not count. */
static const char *domains_value(const struct fw_domains *d, const struct node_info *ni)
{
	if (!ni->node)
		return NULL;
	const struct api_labels *l = &ni->node->meta.labels;
	for (uint32_t i = 0; d->require_all && i < d->n_keys; i++)
		if (!api_labels_get(l, d->keys[i]))
			return NULL;
	const char *v = api_labels_get(l, d->keys[d->key]);
	return v ? v : d->empty;
}

struct fw_domains *fw_count_cache_domains(struct fw_count_cache *cc, struct fw_count_slot *s,
					  const struct fw_pod_match *m, const char *const *keys, uint32_t n_keys,
					  uint32_t key, bool require_all, const char *empty,
					  const struct fw_node_list *nodes)
{
	struct fw_domains *d = NULL, *lru = NULL, **lru_at = NULL;
	uint32_t held = 0;
	for (struct fw_domains **at = &s->domains; *at && !d; at = &(*at)->next, held++) {
		if (domains_is(*at, keys, n_keys, key, require_all, empty))
			d = *at;
		else if ((*at)->used != cc->round && (!lru || (*at)->used < lru->used))
			lru = *at, lru_at = at;
	}
	if (!d) {
		if (held >= FW_DOMAINS_PER_SLOT) {
			if (!lru)
				return NULL;
			*lru_at = lru->next;
			domains_free(lru);
		}
		if (!(d = domains_new(keys, n_keys, key, require_all, empty)))
			return NULL;
		d->next = s->domains;
		s->domains = d;
	}
	d->used = cc->round;
	uint32_t n = nodes ? nodes->n : 0;
	/* a list of another length, or values of nodes long gone piling up: count every node anew */
	if ((n != d->n_pos || pmap_len(&d->index) > 2 * (size_t)n + 64) && domains_reset(d, n) < 0)
		goto nomem;
	for (uint32_t k = 0; k < n; k++) {
		const struct node_info *ni = nodes->nodes[k];
		struct fw_domain_pos *p = &d->pos[k];
		if (p->ni == ni && p->generation == ni->generation && ni->generation)
			continue;
		if (p->value) {
			struct fw_domain_total *t = domains_total(d, p->value);
			if (!t)
				goto nomem;
			t->nodes--;
			t->sum -= p->n;
		}
		*p = (struct fw_domain_pos){ ni, ni->generation, domains_value(d, ni), 0 };
		if (!p->value)
			continue;
		struct fw_domain_total *t = domains_total(d, p->value);
		if (!t)
			goto nomem;
		p->n = fw_count_cache_count(s, m, ni);
		t->nodes++;
		t->sum += p->n;
	}
	return d;
nomem:
	/* the contributions may no longer add up: start over next time */
	domains_reset(d, 0);
	d->n_pos = UINT32_MAX;
	return NULL;
}

void fw_count_cache_release(struct fw_count_cache *cc)
{
	for (size_t i = 0; i < FW_COUNT_CACHE_SLOTS; i++) {
		slot_drop(&cc->slots[i]);
		pmap_release(&cc->slots[i].by_node);
	}
}
