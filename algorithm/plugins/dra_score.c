/* NodeResourcesFit's and NodeResourcesBalancedAllocation's scoring of extended resources backed
 * by DRA (DRAExtendedResource; upstream v1.37.2 noderesources/resource_allocation.go
 * getDRAPreScoredParams, calculateDRAExtendedResourceAllocatableRequest,
 * calculateDRAResourceTotals, deviceMatchesClass): on a node that does not advertise such a
 * resource, its allocatable is the number of devices the backing DeviceClass matches among the
 * ResourceSlices available on the node, and its requested amount the number of those devices
 * already allocated (plus the pod's request).
 *
 * Upstream evaluates the class selectors per node and device inside Score, keeping the devices
 * that matched in a cache for the plugin's lifetime; here PreScore evaluates them once per device
 * (fw_dra_scores_new) and Score only adds up, per node, the devices of the slices (or, with
 * per-device node selection, the devices) available there: the slices published for a node by
 * name are summed per node name beforehand, so a node tests only the allNodes, node-selector and
 * per-device slices besides its own sums. A device whose check fails (a CEL
 * compile or runtime error, an attribute that does not convert) fails upstream's whole
 * calculation on the nodes it is available on, which then score the resource as a device-plugin
 * resource the node lacks (not at all): fw_dra_scores_node returns false there.
 *
 * DESIGN (threads). Built and freed on the scheduler thread (PreScore, the cycle's release);
 * read only by Score on the worker pool. */
#include <stdlib.h>
#include <string.h>

#include "algorithm/framework.h"
#include "common/pmap.h"
#include "dra_internal.h"
#include "plugin_helpers.h"

/* upstream cel.NewCache(10, ...) of NewFit */
#define CEL_CACHE_SIZE 10

enum { DEV_MATCH = 1, DEV_ALLOCATED = 2, DEV_ERROR = 4 };

/* What the slices published for one node name hold for a class. */
struct dra_node_sum {
	int64_t match, alloc;
	bool err;
};

/* One backed resource: its class and what it makes of each device. */
struct dra_score_class {
	struct api_device_class *class; /* a reference */
	uint8_t *dev;                   /* per device (by the scores' dev_off): DEV_* */
	uint32_t *n_match, *n_alloc;    /* per slice: devices matching, and allocated among them */
	bool *err;                      /* per slice: some device's check failed */
	/* the sums of the slices the scores' by_name takes, per node name (interned) -> an entry
	 * of sums, so that a node's Score does not walk every node's slices */
	struct pmap by_node;
	struct dra_node_sum *sums;
	uint32_t n_sums;
};

struct fw_dra_scores {
	uint32_t n_slices;
	struct api_resource_slice **slices; /* references */
	uint32_t *dev_off;                  /* per slice: its first device's index */
	uint32_t n_dev;
	/* The slices outside the classes' by_node (all nodes, a node selector, per-device node
	 * selection): each is tested on every node. */
	uint32_t n_other;
	uint32_t *other;
	uint32_t n;
	struct dra_score_class *cls;
};

void fw_dra_scores_free(struct fw_dra_scores *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n; i++) {
		struct dra_score_class *k = &d->cls[i];
		api_device_class_unref(k->class);
		free(k->dev);
		free(k->n_match);
		free(k->n_alloc);
		free(k->err);
		pmap_release(&k->by_node);
		free(k->sums);
	}
	free(d->other);
	free(d->cls);
	for (uint32_t i = 0; i < d->n_slices; i++)
		api_resource_slice_unref(d->slices[i]);
	free(d->slices);
	free(d->dev_off);
	free(d);
}

static int collect_slice(void *arg, const struct api_resource_slice *s)
{
	struct fw_dra_scores *d = arg;
	if ((d->n_slices & (d->n_slices - 1)) == 0) { /* 0, 1, 2, 4, ...: grow to twice */
		void *v = realloc(d->slices, (d->n_slices ? 2 * d->n_slices : 1) * sizeof(*d->slices));
		if (!v)
			return ERR_NOMEM;
		d->slices = v;
	}
	d->slices[d->n_slices++] = api_resource_slice_ref((struct api_resource_slice *)s);
	return 0;
}

/* upstream deviceMatchesClass for the devices of every slice: k->dev, with the per-slice sums.
 * The device is bound as upstream binds it there (cel.Device{Driver, Attributes, Capacity}:
 * allowMultipleAllocations reads false). 0 or ERR_NOMEM with e. */
static int eval_class(struct fw_dra_scores *d, struct dra_score_class *k, struct dra_cel_cache *cc, struct err *e)
{
	const struct api_device_class *dc = k->class;
	struct dra_slice_views **views = NULL;
	struct dra_cel_eval *ev = NULL;
	int rc = 0;
	if (dc->n_selectors) {
		views = calloc(d->n_slices ? d->n_slices : 1, sizeof(*views));
		if (!views || !(ev = dra_cel_eval_new(cc))) {
			rc = err_set(e, ERR_NOMEM, "DRA extended resource scoring: out of memory");
			goto out;
		}
		if ((rc = dra_cel_views_acquire(cc, d->slices, d->n_slices, views, e)) < 0)
			goto out;
	}
	for (uint32_t si = 0; si < d->n_slices; si++) {
		const struct api_resource_slice *s = d->slices[si];
		for (uint32_t j = 0; j < s->n_devices; j++) {
			const struct api_dra_device *dev = &s->devices[j];
			uint8_t f = 0;
			if (!dc->n_selectors) {
				f = DEV_MATCH; /* upstream's fast path: a class without selectors takes every device */
			} else {
				struct err me = { 0 };
				enum dra_result r;
				if (dev->allow_multiple_allocations) {
					/* bound with allowMultipleAllocations false: not the views' binding */
					struct api_dra_device copy = *dev;
					copy.allow_multiple_allocations = false;
					struct dra_bound_device *own = dra_bound_device_new(s->driver, &copy, &me);
					if (!own && me.code == ERR_NOMEM) {
						rc = err_set(e, ERR_NOMEM, "DRA extended resource scoring: out of memory");
						goto out;
					}
					r = own ? dra_bound_device_matches(cc, ev, own, s, dev, dc->selectors, dc->n_selectors,
									   &me)
						: DRA_ERROR;
					dra_bound_device_free(own);
				} else {
					r = dra_slice_views_matches(cc, ev, views[si], j, dc->selectors, dc->n_selectors, &me);
				}
				if (r == DRA_ERROR && me.code == ERR_NOMEM) {
					rc = err_set(e, ERR_NOMEM, "DRA extended resource scoring: out of memory");
					goto out;
				}
				f = r == DRA_ALLOCATED ? DEV_MATCH : r == DRA_ERROR ? DEV_ERROR : 0;
			}
			k->dev[d->dev_off[si] + j] = f;
		}
	}
out:
	for (uint32_t si = 0; views && si < d->n_slices; si++)
		dra_slice_views_unref(views[si]);
	free(views);
	dra_cel_eval_free(ev);
	return rc;
}

/* Whether slice s is on exactly the nodes named its nodeName (upstream's slice-level test
 * then only compares names): summed per node name in PreScore. */
static bool by_name(const struct api_resource_slice *s)
{
	return !s->per_device_node_selection && !s->all_nodes && s->node_name && s->node_name[0];
}

int fw_dra_scores_new(const struct fw_pl *pl, struct dra_cel_cache *cc, struct api_device_class *const *classes,
		      uint32_t n, struct fw_dra_scores **out, struct err *e)
{
	struct fw_dra_scores *d = calloc(1, sizeof(*d));
	struct dra_allocated_state *st = NULL;
	int rc = 0;
	*out = NULL;
	if (!d || !(d->cls = calloc(n ? n : 1, sizeof(*d->cls))))
		goto nomem;
	for (uint32_t i = 0; i < n; i++)
		d->cls[d->n++].class = api_device_class_ref(classes[i]);
	/* upstream GatherAllocatedState and ListWithDeviceTaintRules (taints do not count here) */
	if (!(st = dra_gather_allocated_for(pl, e)))
		goto fail;
	if (fw_each_resource_slice(pl, collect_slice, d) < 0)
		goto nomem;
	if (!(d->dev_off = calloc(d->n_slices ? d->n_slices : 1, sizeof(*d->dev_off))))
		goto nomem;
	if (!(d->other = calloc(d->n_slices ? d->n_slices : 1, sizeof(*d->other))))
		goto nomem;
	for (uint32_t si = 0; si < d->n_slices; si++) {
		d->dev_off[si] = d->n_dev;
		d->n_dev += d->slices[si]->n_devices;
		if (!by_name(d->slices[si]))
			d->other[d->n_other++] = si;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		struct dra_score_class *k = &d->cls[i];
		k->dev = calloc(d->n_dev ? d->n_dev : 1, 1);
		k->n_match = calloc(d->n_slices ? d->n_slices : 1, sizeof(*k->n_match));
		k->n_alloc = calloc(d->n_slices ? d->n_slices : 1, sizeof(*k->n_alloc));
		k->err = calloc(d->n_slices ? d->n_slices : 1, sizeof(*k->err));
		k->sums = calloc(d->n_slices ? d->n_slices : 1, sizeof(*k->sums));
		pmap_init(&k->by_node);
		if (!k->dev || !k->n_match || !k->n_alloc || !k->err || !k->sums)
			goto nomem;
		if ((rc = eval_class(d, k, cc, e)) < 0)
			goto fail;
		for (uint32_t si = 0; si < d->n_slices; si++) {
			const struct api_resource_slice *s = d->slices[si];
			for (uint32_t j = 0; j < s->n_devices; j++) {
				uint8_t *f = &k->dev[d->dev_off[si] + j];
				if (!(*f & DEV_MATCH)) {
					k->err[si] |= (*f & DEV_ERROR) != 0;
					continue;
				}
				/* upstream structured.IsDeviceAllocated */
				if (dra_allocated_state_any(st, s->driver, s->pool_name, s->devices[j].name))
					*f |= DEV_ALLOCATED;
				k->n_match[si]++;
				k->n_alloc[si] += (*f & DEV_ALLOCATED) != 0;
			}
			if (!by_name(s))
				continue;
			bool added;
			void **slot = pmap_ref(&k->by_node, s->node_name, &added);
			if (!slot)
				goto nomem;
			if (added)
				*slot = &k->sums[k->n_sums++];
			struct dra_node_sum *sum = *slot;
			sum->match += k->n_match[si];
			sum->alloc += k->n_alloc[si];
			sum->err |= k->err[si];
		}
	}
	dra_allocated_state_free(st);
	*out = d;
	return 0;
nomem:
	err_set(e, ERR_NOMEM, "DRA extended resource scoring: out of memory");
fail:
	dra_allocated_state_free(st);
	fw_dra_scores_free(d);
	return ERR_NOMEM;
}

/* upstream calculateDRAResourceTotals' slice-level test: a slice for another node, or whose node
 * selector the node fails, is left out; a slice for every node, for this one, or for none named is
 * in. */
static bool slice_on_node(const struct api_resource_slice *s, const struct node_info *ni)
{
	const char *nn = s->node_name ? s->node_name : "";
	bool other = strcmp(nn, ni->name) != 0;
	if (!s->all_nodes && other && s->node_selector)
		return dra_node_matches(ni->node, nn, false, s->node_selector);
	return s->all_nodes || !nn[0] || !other;
}

/* ... and its per-device test (perDeviceNodeSelection). */
static bool device_on_node(const struct api_dra_device *dev, const struct node_info *ni)
{
	if (dev->all_nodes || (dev->node_name && dev->node_name[0] && strcmp(dev->node_name, ni->name) == 0))
		return true;
	return dev->node_selector && dra_node_matches(ni->node, dev->node_name, dev->all_nodes, dev->node_selector);
}

bool fw_dra_scores_node(const struct fw_dra_scores *d, uint32_t i, const struct node_info *ni, int64_t *capacity,
			int64_t *allocated)
{
	const struct dra_score_class *k = &d->cls[i];
	int64_t cap = 0, alloc = 0;
	*capacity = *allocated = 0;
	/* node names are interned: the slices published for this node by name */
	const struct dra_node_sum *own = pmap_get(&k->by_node, ni->name);
	if (own) {
		if (own->err)
			return false;
		cap = own->match;
		alloc = own->alloc;
	}
	for (uint32_t oi = 0; oi < d->n_other; oi++) {
		uint32_t si = d->other[oi];
		const struct api_resource_slice *s = d->slices[si];
		if (!s->per_device_node_selection) {
			if (!slice_on_node(s, ni))
				continue;
			if (k->err[si])
				return false;
			cap += k->n_match[si];
			alloc += k->n_alloc[si];
			continue;
		}
		const uint8_t *f = &k->dev[d->dev_off[si]];
		for (uint32_t j = 0; j < s->n_devices; j++) {
			if (!f[j] || !device_on_node(&s->devices[j], ni))
				continue;
			if (f[j] & DEV_ERROR)
				return false;
			cap++;
			alloc += (f[j] & DEV_ALLOCATED) != 0;
		}
	}
	*capacity = cap;
	*allocated = alloc;
	return true;
}

static void dra_scores_release(void *arg)
{
	fw_dra_scores_free(arg);
}

int fw_dra_scores_attach(const struct fw_pl *pl, struct dra_cel_cache *cc, struct fw_cycle *c, struct fw_pod_res_refs *s)
{
	struct api_device_class **classes = fw_cycle_alloc(c, (s->n ? s->n : 1) * sizeof(*classes));
	uint32_t n = 0;
	int rc = 0;
	if (!classes)
		return ERR_NOMEM;
	for (uint32_t i = 0; i < s->n; i++) {
		struct fw_res_ref *r = &s->res[i];
		if (r->kind != FW_RES_SCALAR || !fw_is_dra_extended_resource(r->name) ||
		    !(classes[n] = fw_extended_resource_class(pl, r->name)))
			continue;
		r->dra = (int32_t)n++;
	}
	if (!n)
		return 0;
	struct fw_dra_scores *d;
	struct err e = { 0 };
	rc = fw_dra_scores_new(pl, cc, classes, n, &d, &e);
	for (uint32_t i = 0; i < n; i++)
		api_device_class_unref(classes[i]);
	if (rc < 0)
		return rc;
	if (fw_cycle_on_release(c, dra_scores_release, d) < 0) {
		fw_dra_scores_free(d);
		return ERR_NOMEM;
	}
	s->dra = d;
	return 0;
}

int fw_dra_scoring_cache(const char *const *names, uint32_t n, struct dra_cel_cache **out, struct err *e)
{
	*out = NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (!fw_is_dra_extended_resource(names[i]))
			continue;
		if (!(*out = dra_cel_cache_new(CEL_CACHE_SIZE)))
			return err_set(e, ERR_NOMEM, "out of memory");
		break;
	}
	return 0;
}

bool fw_pl_scores_device_resources(const struct fw_pl *pl)
{
	uint32_t n = 0;
	const struct cfg_resource_weight *r = NULL;
	if (pl->plugin == &fw_plugin_node_resources_fit && pl->args) {
		const struct cfg_fit_args *a = pl->args;
		n = a->n_resources;
		r = a->resources;
	} else if (pl->plugin == &fw_plugin_balanced_allocation && pl->args) {
		const struct cfg_balanced_args *a = pl->args;
		n = a->n_resources;
		r = a->resources;
	}
	for (uint32_t i = 0; i < n; i++)
		if (r[i].name && fw_is_dra_extended_resource(r[i].name))
			return true;
	return false; /* the defaults, cpu and memory, are not */
}
