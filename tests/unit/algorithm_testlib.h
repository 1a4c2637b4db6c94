/* Helpers shared by the algorithm unit tests: node_infos, a profile with chosen plugins (pods and
 * nodes come from testobj.h). Header-only (each test program includes it once). */
#ifndef CSCHED_ALGORITHM_TESTLIB_H
#define CSCHED_ALGORITHM_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "algorithm/framework_internal.h"
#include "common/intern.h"
#include "testobj.h"

/* A node_info for node (reference taken) with pods added (references taken). */
static inline void tl_node_info(struct node_info *ni, struct api_node *node, struct api_pod **pods, size_t n)
{
	struct err e = { 0 };
	node_info_init(ni, node->meta.name);
	ni->node = api_node_ref(node);
	for (size_t i = 0; i < n; i++)
		if (node_info_add_pod(ni, pods[i], &e) < 0)
			fail_msg("node_info_add_pod: %s", e.msg);
}

static inline int tl_image_cmp(const void *a, const void *b)
{
	const char *x = ((const struct node_image *)a)->name, *y = ((const struct node_image *)b)->name;
	return x < y ? -1 : x > y;
}

/* Sets the node_info's images (name, size, num_nodes), sorted as node_info_image expects. */
static inline void tl_set_images(struct node_info *ni, const struct node_image *imgs, uint32_t n)
{
	free(ni->images);
	ni->images = calloc(n ? n : 1, sizeof(*ni->images));
	assert_non_null(ni->images);
	for (uint32_t i = 0; i < n; i++) {
		ni->images[i] = imgs[i];
		ni->images[i].name = intern_str(imgs[i].name);
	}
	qsort(ni->images, n, sizeof(*ni->images), tl_image_cmp);
	ni->n_images = n;
}

/* A profile running the named plugins at the given points (plus PrioritySort and DefaultBinder,
 * which every profile needs). points: NULL-terminated names per point, weights for score. */
struct tl_profile_spec {
	const char *pre_filter[8], *filter[8], *pre_score[8], *score[8];
	int32_t score_weight[8];
	const char *post_filter[4], *reserve[4], *permit[4], *pre_bind[4], *post_bind[4], *pre_enqueue[4];
	bool has_pct;
	int32_t pct;
	const struct cfg_plugin_args *args;
	const struct fw_extender *extenders; /* HTTP extenders (test_algorithm_extenders.c) */
	uint32_t n_extenders;
	const struct fw_listers *listers; /* NULL = no stores */
	void (*ext_prioritize_all)(void *ctx, struct fw_cycle *c, const struct api_pod *pod,
				   const struct node_info *const *nodes, uint32_t n, const struct fw_extender *const *xs,
				   uint32_t nx, struct fw_ext_prio_result *out, int *rcs, struct err *errs);
};

struct tl_lists {
	struct cfg_plugin items[CFG_EP_COUNT][8];
};

static inline void tl_fill(struct fw_profile_config *pc, struct tl_lists *l, enum cfg_ext_point ep,
			   const char *const *names, const int32_t *weights)
{
	uint32_t n = 0;
	for (; names && n < 8 && names[n]; n++)
		l->items[ep][n] = (struct cfg_plugin){ names[n], weights ? weights[n] : 0 };
	pc->points[ep].n = n;
	pc->points[ep].items = l->items[ep];
}

static inline struct fw_profile *tl_profile(const struct tl_profile_spec *s, struct fw_pool *pool)
{
	static const char *const qs[] = { "PrioritySort", NULL }, *const bind[] = { "DefaultBinder", NULL };
	struct fw_profile_config pc;
	struct tl_lists l;
	memset(&pc, 0, sizeof(pc));
	memset(&l, 0, sizeof(l));
	pc.scheduler_name = "test";
	pc.has_percentage_of_nodes_to_score = s->has_pct;
	pc.percentage_of_nodes_to_score = s->pct;
	pc.args = s->args;
	tl_fill(&pc, &l, CFG_EP_QUEUE_SORT, qs, NULL);
	tl_fill(&pc, &l, CFG_EP_BIND, bind, NULL);
	tl_fill(&pc, &l, CFG_EP_PRE_ENQUEUE, s->pre_enqueue, NULL);
	tl_fill(&pc, &l, CFG_EP_PRE_FILTER, s->pre_filter, NULL);
	tl_fill(&pc, &l, CFG_EP_FILTER, s->filter, NULL);
	tl_fill(&pc, &l, CFG_EP_POST_FILTER, s->post_filter, NULL);
	tl_fill(&pc, &l, CFG_EP_PRE_SCORE, s->pre_score, NULL);
	tl_fill(&pc, &l, CFG_EP_SCORE, s->score, s->score_weight);
	tl_fill(&pc, &l, CFG_EP_RESERVE, s->reserve, NULL);
	tl_fill(&pc, &l, CFG_EP_PERMIT, s->permit, NULL);
	tl_fill(&pc, &l, CFG_EP_PRE_BIND, s->pre_bind, NULL);
	tl_fill(&pc, &l, CFG_EP_POST_BIND, s->post_bind, NULL);
	struct fw_profile_options o = { .pool = pool, .extenders = s->extenders, .n_extenders = s->n_extenders,
					.ext_prioritize_all = s->ext_prioritize_all };
	if (s->listers)
		o.listers = *s->listers;
	struct err e = { 0 };
	struct fw_profile *p = fw_profile_new(&pc, &o, &e);
	if (!p)
		fail_msg("fw_profile_new: %s", e.msg);
	return p;
}

/* The instance of plugin name in p (any point). */
static inline const struct fw_pl *tl_pl(const struct fw_profile *p, const char *name)
{
	for (uint32_t i = 0; i < p->n_pl; i++)
		if (strcmp(p->pls[i].plugin->name, name) == 0)
			return &p->pls[i];
	fail_msg("plugin %s not in profile", name);
	return NULL;
}

/* Up to 8 nodes (cpu 4, 16Gi, 110 pods, taints in testobj.h syntax or NULL) as a node list. */
struct tl_cluster {
	uint32_t n;
	struct api_node *nodes[8];
	struct node_info nis[8];
	const struct node_info *ptrs[8];
	struct fw_node_list list;
};

static inline void tl_cluster_add(struct tl_cluster *cl, const char *name, const char *taints)
{
	uint32_t i = cl->n++;
	cl->nodes[i] = TOBJ_NODE(.name = name, .alloc = "cpu=4,memory=16Gi,pods=110", .taints = taints);
	tl_node_info(&cl->nis[i], cl->nodes[i], NULL, 0);
	cl->ptrs[i] = &cl->nis[i];
	cl->list.n = cl->n;
	cl->list.nodes = cl->ptrs;
}

static inline void tl_cluster_release(struct tl_cluster *cl)
{
	for (uint32_t i = 0; i < cl->n; i++) {
		node_info_release(&cl->nis[i]);
		api_node_unref(cl->nodes[i]);
	}
	cl->n = 0;
}

#endif
