/* Unit tests for cache/: PodRequests, node_info bookkeeping, assume/confirm/forget, ghost nodes,
 * ports, images (and their hash index), incremental snapshots, the node tree and the
 * zone-interleaved node order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "cache/cache_internal.h"
#include "cache/snapshot.h"
#include "common/intern.h"
#include "testobj.h"

#define MI (1024LL * 1024)

/* ---------- builders ---------- */

/* A pod with one container requesting req (testobj.h syntax, NULL = none) on node (NULL = unassigned). */
static struct api_pod *mkpod(const char *name, const char *node, const char *req)
{
	return TOBJ_POD(.name = name, .node = node, .containers = { { .req = req } });
}

/* A node of 4 cpus, 32Gi, 110 pods, in region/zone (NULL = no label), with images of 100Mi, 200Mi... */
static struct api_node *mknode(const char *name, const char *region, const char *zone, const char *const *images,
			       uint32_t n_images)
{
	char labels[256], imgs[16384];
	snprintf(labels, sizeof(labels), "%s%s%s%s%s", region ? "topology.kubernetes.io/region=" : "",
		 region ? region : "", region && zone ? "," : "", zone ? "topology.kubernetes.io/zone=" : "",
		 zone ? zone : "");
	size_t off = 0;
	for (uint32_t i = 0; i < n_images; i++)
		off += (size_t)snprintf(imgs + off, sizeof(imgs) - off, "%s%s=%lld", i ? "," : "", images[i],
					(long long)(i + 1) * 100 * MI);
	return TOBJ_NODE(.name = name, .uid = name, .labels = labels[0] ? labels : NULL,
			 .alloc = "cpu=4,memory=32Gi,pods=110", .images = n_images ? imgs : NULL);
}

static void add_node(struct cache *c, struct api_node *n)
{
	struct err e = { 0 };
	assert_int_equal(cache_add_node(c, n, &e), 0);
	api_node_unref(n);
}

static void update(struct cache *c, struct snapshot *s)
{
	struct err e = { 0 };
	int rc = cache_update_snapshot(c, s, &e);
	if (rc)
		fail_msg("cache_update_snapshot: %s", e.msg);
}

/* ---------- PodRequests ---------- */

static void test_pod_requests(void **state)
{
	(void)state;
	static const struct {
		const char *desc;
		struct tobj_pod spec;
		int64_t cpu, mem, nz_cpu, nz_mem;
	} cases[] = {
		{ "no requests: zero, defaults for non-zero", { .n_containers = 1 }, 0, 0, 100, 200 * MI },
		{ "two containers add up",
		  { .containers = { { .req = "cpu=100m,memory=1000Mi" }, { .req = "cpu=200m,memory=2000Mi" } } }, 300,
		  3000 * MI, 300, 3000 * MI },
		{ "defaults per container where the key is missing",
		  { .containers = { { .req = "memory=1000Mi" }, { .req = "cpu=200m" } } }, 200, 1000 * MI, 300, 1200 * MI },
		{ "an explicit zero stays zero", { .containers = { { .req = "cpu=0,memory=0" } } }, 0, 0, 0, 0 },
		{ "init container larger than the app",
		  { .containers = { { .req = "cpu=100m,memory=1000Mi" } }, .inits = { { .req = "cpu=500m,memory=500Mi" } } },
		  500, 1000 * MI, 500, 1000 * MI },
		{ "sidecar then init: init runs beside the sidecar",
		  { .containers = { { .req = "cpu=100m" } },
		    .inits = { { .req = "cpu=50m", .sidecar = true }, { .req = "cpu=200m" } } },
		  250, 0, 250, 400 * MI }, /* memory: app 200Mi + sidecar 200Mi defaults */
		{ "init then sidecar: the sidecar is not counted under the init",
		  { .containers = { { .req = "cpu=100m" } },
		    .inits = { { .req = "cpu=200m" }, { .req = "cpu=50m", .sidecar = true } } },
		  200, 0, 200, 400 * MI },
		{ "sidecars accumulate",
		  { .containers = { { .req = "cpu=100m,memory=100Mi" } },
		    .inits = { { .req = "cpu=10m,memory=10Mi", .sidecar = true },
			       { .req = "cpu=20m,memory=20Mi", .sidecar = true }, { .req = "cpu=100m,memory=50Mi" } } },
		  130, 130 * MI, 130, 130 * MI },
		{ "overhead is added",
		  { .containers = { { .req = "cpu=100m,memory=1000Mi" } }, .overhead = "cpu=10m,memory=100Mi" },
		  110, 1100 * MI, 110, 1100 * MI },
		{ "pod-level requests override",
		  { .containers = { { .req = "cpu=100m,memory=1000Mi" } }, .pod_req = "cpu=1000m" },
		  1000, 1000 * MI, 1000, 1000 * MI },
		{ "pod-level cpu only: memory defaults per container", { .n_containers = 2, .pod_req = "cpu=500m" },
		  500, 0, 500, 400 * MI },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct api_pod *p = tobj_pod(&cases[i].spec);
		struct node_res r, nz;
		assert_int_equal(node_res_of_pod(p, NODE_RES_REQUESTS, &r), 0);
		assert_int_equal(node_res_of_pod(p, NODE_RES_NONZERO, &nz), 0);
		if (r.cpu != cases[i].cpu || r.memory != cases[i].mem || nz.cpu != cases[i].nz_cpu ||
		    nz.memory != cases[i].nz_mem)
			fail_msg("%s: got %lld/%lld nz %lld/%lld, want %lld/%lld nz %lld/%lld", cases[i].desc,
				 (long long)r.cpu, (long long)r.memory, (long long)nz.cpu, (long long)nz.memory,
				 (long long)cases[i].cpu, (long long)cases[i].mem, (long long)cases[i].nz_cpu,
				 (long long)cases[i].nz_mem);
		node_res_release(&r);
		node_res_release(&nz);
		api_pod_unref(p);
	}
}

static void test_scalar_resources(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		bool scalar;
	} names[] = {
		{ "cpu", false },
		{ "memory", false },
		{ "pods", false },
		{ "foo", false },
		{ "example.com/gpu", true },
		{ "nvidia.com/gpu", true },
		{ "kubernetes.io/batch-foo", true },
		{ "hugepages-2Mi", true },
		{ "attachable-volumes-aws-ebs", true },
		{ "requests.example.com/gpu", false },
		{ "example.com/a/b", false },
		{ "Example.com/gpu", false },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (node_res_is_scalar_name(names[i].name) != names[i].scalar)
			fail_msg("%s: want scalar=%d", names[i].name, names[i].scalar);

	struct api_pod *p = TOBJ_POD(.name = "g", .containers = { { .req = "cpu=100m,example.com/gpu=2" }, { .req = "foo=5" },
								  { .req = "example.com/gpu=1" } },
				     .inits = { { .req = "hugepages-2Mi=4Mi" } });
	struct node_res r;
	assert_int_equal(node_res_of_pod(p, NODE_RES_REQUESTS, &r), 0);
	assert_int_equal(r.n_scalar, 2);
	assert_int_equal(node_res_scalar(&r, intern_str("example.com/gpu")), 3);
	assert_int_equal(node_res_scalar(&r, intern_str("hugepages-2Mi")), 4 * MI);
	assert_int_equal(node_res_scalar(&r, intern_str("foo")), 0);
	node_res_release(&r);

	/* scale-down detection (UpdatePodScaleDown) */
	struct api_pod *smaller = mkpod("g", NULL, "cpu=50m"), *bigger = mkpod("g", NULL, "cpu=500m");
	assert_true(node_res_scaled_down(p, smaller)); /* cpu lowered, gpu removed */
	assert_false(node_res_scaled_down(smaller, bigger));
	assert_true(node_res_scaled_down(bigger, smaller));
	api_pod_unref(smaller);
	api_pod_unref(bigger);
	api_pod_unref(p);
}

/* ---------- node_info ---------- */

static void test_node_info_ports_and_counts(void **state)
{
	(void)state;
	struct node_info ni;
	struct err e = { 0 };
	node_info_init(&ni, intern_str("n"));
	struct api_pod *web = TOBJ_POD(.name = "web", .node = "n",
				       .containers = { { .req = "cpu=100m,memory=100Mi", .ports = "8080:80" } });
	struct api_pod *dns = TOBJ_POD(.name = "dns", .node = "n", .affinity = TOBJ_POD_ANTI_AFFINITY("kubernetes.io/hostname"),
				       .containers = { { .req = "cpu=200m", .ports = "UDP/10.0.0.1/53:80" } },
				       .inits = { { .sidecar = true, .ports = "9090:80" } });
	assert_int_equal(node_info_add_pod(&ni, web, &e), 0);
	assert_int_equal(node_info_add_pod(&ni, dns, &e), 0);
	assert_int_equal(ni.n_pods, 2);
	assert_int_equal(ni.requested.cpu, 300);
	assert_int_equal(ni.requested.memory, 100 * MI);
	/* web 100Mi; dns: app and sidecar without memory get 200Mi each */
	assert_int_equal(ni.nonzero_memory, 500 * MI);
	assert_int_equal(ni.n_pods_with_affinity, 1);
	assert_int_equal(ni.n_pods_with_required_anti_affinity, 1);
	static const struct {
		const char *ip, *proto;
		int32_t port;
	} want[] = { { "0.0.0.0", "TCP", 8080 }, { "0.0.0.0", "TCP", 9090 }, { "10.0.0.1", "UDP", 53 } };
	assert_int_equal(ni.n_ports, 3);
	for (size_t i = 0; i < 3; i++) {
		bool found = false;
		for (uint32_t j = 0; j < ni.n_ports; j++)
			found |= ni.ports[j].ip == intern_str(want[i].ip) && ni.ports[j].protocol == intern_str(want[i].proto) &&
				 ni.ports[j].port == want[i].port;
		if (!found)
			fail_msg("port %s/%s/%d missing", want[i].ip, want[i].proto, want[i].port);
	}
	/* a deep copy is independent */
	struct node_info cp = { 0 };
	assert_int_equal(node_info_copy(&cp, &ni, &e), 0);
	assert_int_equal(node_info_remove_pod(&ni, dns, &e), 0);
	assert_int_equal(node_info_remove_pod(&ni, dns, &e), ERR_NOT_FOUND);
	assert_int_equal(ni.n_pods, 1);
	assert_int_equal(ni.n_ports, 1);
	assert_int_equal(ni.requested.cpu, 100);
	assert_int_equal(ni.n_pods_with_required_anti_affinity, 0);
	assert_int_equal(cp.n_pods, 2);
	assert_int_equal(cp.n_ports, 3);
	assert_int_equal(cp.requested.cpu, 300);
	node_info_release(&cp);
	node_info_release(&ni);
	api_pod_unref(web);
	api_pod_unref(dns);
}

/* ---------- cache ---------- */

static void test_assume_confirm_forget(void **state)
{
	(void)state;
	struct cache *c = cache_new();
	struct err e = { 0 };
	add_node(c, mknode("n1", NULL, NULL, NULL, 0));
	add_node(c, mknode("n2", NULL, NULL, NULL, 0));
	struct snapshot *s = snapshot_new();
	struct api_pod *p = mkpod("p", NULL, "cpu=500m,memory=100Mi");

	assert_int_equal(cache_assume_pod(c, p, "n1", &e), 0);
	assert_true(cache_is_assumed(c, p->meta.uid));
	assert_int_equal(cache_assume_pod(c, p, "n1", &e), ERR_CONFLICT);
	update(c, s);
	assert_int_equal(snapshot_get(s, "n1")->requested.cpu, 500);
	assert_int_equal(cache_forget_pod(c, p, "n2", &e), ERR_INVALID); /* another node */
	assert_int_equal(cache_finish_binding(c, p, &e), 0);
	assert_int_equal(cache_forget_pod(c, p, "n1", &e), 0);
	assert_false(cache_is_assumed(c, p->meta.uid));
	assert_int_equal(cache_forget_pod(c, p, "n1", &e), 0); /* gone already: nothing to do */
	update(c, s);
	assert_int_equal(snapshot_get(s, "n1")->requested.cpu, 0);

	/* assumed on n1, bound (informer add) on n2: moved and confirmed */
	assert_int_equal(cache_assume_pod(c, p, "n1", &e), 0);
	struct api_pod *bound = mkpod("p", "n2", "cpu=500m,memory=100Mi");
	assert_int_equal(cache_add_pod(c, bound, &e), 0);
	assert_false(cache_is_assumed(c, p->meta.uid));
	assert_int_equal(cache_add_pod(c, bound, &e), ERR_CONFLICT);
	update(c, s);
	assert_int_equal(snapshot_get(s, "n1")->n_pods, 0);
	assert_int_equal(snapshot_get(s, "n2")->n_pods, 1);
	assert_ptr_equal(snapshot_get(s, "n2")->pods[0].pod, bound);
	assert_int_equal(cache_forget_pod(c, bound, "n2", &e), ERR_INVALID); /* not assumed any more */

	/* update and remove of an added pod */
	struct api_pod *bigger = mkpod("p", "n2", "cpu=900m,memory=100Mi");
	assert_int_equal(cache_update_pod(c, bound, bigger, &e), 0);
	struct api_pod *elsewhere = mkpod("p", "n1", "cpu=900m,memory=100Mi");
	assert_int_equal(cache_update_pod(c, bigger, elsewhere, &e), ERR_INVALID);
	update(c, s);
	assert_int_equal(snapshot_get(s, "n2")->requested.cpu, 900);
	struct cache_counts cnt;
	cache_counts(c, &cnt);
	assert_int_equal(cnt.pods, 1);
	assert_int_equal(cnt.assumed_pods, 0);
	assert_int_equal(cache_remove_pod(c, bigger, &e), 0);
	assert_int_equal(cache_remove_pod(c, bigger, &e), ERR_NOT_FOUND);
	assert_int_equal(cache_update_pod(c, bigger, bigger, &e), ERR_NOT_FOUND);
	update(c, s);
	assert_int_equal(snapshot_get(s, "n2")->requested.cpu, 0);

	/* an assumed pod cannot be updated */
	assert_int_equal(cache_assume_pod(c, p, "n1", &e), 0);
	assert_int_equal(cache_update_pod(c, p, elsewhere, &e), ERR_CONFLICT);
	cache_counts(c, &cnt);
	assert_int_equal(cnt.assumed_pods, 1);

	api_pod_unref(p);
	api_pod_unref(bound);
	api_pod_unref(bigger);
	api_pod_unref(elsewhere);
	snapshot_free(s);
	cache_free(c);
}

static void test_ghost_nodes(void **state)
{
	(void)state;
	struct cache *c = cache_new();
	struct snapshot *s = snapshot_new();
	struct err e = { 0 };
	add_node(c, mknode("n1", NULL, NULL, NULL, 0));
	struct api_pod *p = mkpod("p", NULL, "cpu=100m,memory=0"), *q = mkpod("q", "n1", "cpu=100m,memory=0");
	/* assumed onto an unknown node: a ghost entry, not in the snapshot */
	assert_int_equal(cache_assume_pod(c, p, "ghost", &e), 0);
	update(c, s);
	struct cache_counts cnt;
	cache_counts(c, &cnt);
	assert_int_equal(cnt.nodes, 2);
	assert_int_equal(snapshot_num_nodes(s), 1);
	assert_null(snapshot_get(s, "ghost"));
	/* the node shows up: the entry keeps the pod */
	add_node(c, mknode("ghost", NULL, NULL, NULL, 0));
	update(c, s);
	assert_int_equal(snapshot_num_nodes(s), 2);
	assert_int_equal(snapshot_get(s, "ghost")->n_pods, 1);

	/* a deleted node with pods stays as a ghost until its pods go */
	assert_int_equal(cache_add_pod(c, q, &e), 0);
	struct api_node *n1 = mknode("n1", NULL, NULL, NULL, 0);
	assert_int_equal(cache_remove_node(c, n1, &e), 0);
	assert_int_equal(cache_remove_node(c, n1, &e), ERR_NOT_FOUND);
	update(c, s);
	assert_int_equal(snapshot_num_nodes(s), 1);
	assert_null(snapshot_get(s, "n1"));
	cache_counts(c, &cnt);
	assert_int_equal(cnt.nodes, 2);
	assert_int_equal(cache_remove_pod(c, q, &e), 0);
	cache_counts(c, &cnt);
	assert_int_equal(cnt.nodes, 1);
	/* a node without pods goes at once */
	struct api_node *g = mknode("ghost", NULL, NULL, NULL, 0);
	assert_int_equal(cache_forget_pod(c, p, "ghost", &e), 0);
	assert_int_equal(cache_remove_node(c, g, &e), 0);
	cache_counts(c, &cnt);
	assert_int_equal(cnt.nodes, 0);
	update(c, s);
	assert_int_equal(snapshot_num_nodes(s), 0);
	api_node_unref(n1);
	api_node_unref(g);
	api_pod_unref(p);
	api_pod_unref(q);
	snapshot_free(s);
	cache_free(c);
}

static void test_images(void **state)
{
	(void)state;
	struct cache *c = cache_new();
	struct snapshot *s = snapshot_new();
	struct err e = { 0 };
	/* upstream backend/cache/cache.go addNodeImageStates: keys are the names as the node reports
	 * them (no ":latest"), the size is the first node's; NumNodes is counted when a NodeInfo is
	 * cloned into the snapshot (framework/types.go SnapshotConcrete -> ImageStateSummary.Snapshot) */
	static const char *const a_imgs[] = { "nginx", "registry.io:5000/app", "busybox:1.36" };
	static const char *const b_imgs[] = { "busybox:1.36", "nginx:latest", "redis@sha256:abc" };
	add_node(c, mknode("a", NULL, NULL, a_imgs, 3));
	add_node(c, mknode("b", NULL, NULL, b_imgs, 3));
	add_node(c, mknode("c", NULL, NULL, NULL, 0));
	update(c, s);
	static const struct {
		const char *node, *image;
		int num_nodes; /* -1 = absent */
		int64_t size;
	} want[] = {
		{ "a", "busybox:1.36", 2, 300 * MI },
		{ "b", "busybox:1.36", 2, 300 * MI }, /* size from the first node seen (b reports 100 Mi) */
		{ "a", "nginx", 1, 100 * MI },
		{ "a", "nginx:latest", -1, 0 },       /* the node's names are not normalised */
		{ "b", "nginx:latest", 1, 200 * MI },
		{ "b", "nginx", -1, 0 },
		{ "a", "registry.io:5000/app", 1, 200 * MI },
		{ "a", "registry.io:5000/app:latest", -1, 0 },
		{ "b", "redis@sha256:abc", 1, 300 * MI },
		{ "c", "busybox:1.36", -1, 0 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct node_image *img = node_info_image(snapshot_get(s, want[i].node), intern_str(want[i].image));
		if (want[i].num_nodes < 0) {
			if (img)
				fail_msg("%s on %s: want absent", want[i].image, want[i].node);
			continue;
		}
		if (!img || img->num_nodes != (uint32_t)want[i].num_nodes || img->size_bytes != want[i].size)
			fail_msg("%s on %s: %p", want[i].image, want[i].node, (const void *)img);
	}
	/* b goes: a did not change, so its copy keeps the count of its last copy (upstream's
	 * UpdateSnapshot clones only the nodes whose generation moved) */
	struct api_node *b = mknode("b", NULL, NULL, NULL, 0);
	assert_int_equal(cache_remove_node(c, b, &e), 0);
	update(c, s);
	assert_int_equal(node_info_image(snapshot_get(s, "a"), intern_str("busybox:1.36"))->num_nodes, 2);
	/* a pod change on a copies a again: its counts are taken afresh */
	struct snapshot_stats before, after;
	snapshot_stats(s, &before);
	struct api_pod *p = mkpod("p", "a", "cpu=1m,memory=1");
	assert_int_equal(cache_add_pod(c, p, &e), 0);
	update(c, s);
	snapshot_stats(s, &after);
	assert_int_equal(after.node_copies, before.node_copies + 1);
	assert_int_equal(node_info_image(snapshot_get(s, "a"), intern_str("busybox:1.36"))->num_nodes, 1);
	/* a reports new sizes for the same names (busybox 100 Mi, nginx 200 Mi, app 300 Mi) while d
	 * also has nginx: upstream's UpdateNode removes a's image states and adds them again, so the
	 * images only a has take the new sizes and nginx keeps the first one (100 Mi) */
	/* a name listed twice by one node: the first entry's size (100 Mi, not 200 Mi) */
	static const char *const e_imgs[] = { "dup:1", "dup:1", "x:1", "dup:1", "y:1", "dup:1" };
	add_node(c, mknode("e", NULL, NULL, e_imgs, 6));
	update(c, s);
	assert_int_equal(node_info_image(snapshot_get(s, "e"), intern_str("dup:1"))->size_bytes, 100 * MI);
	assert_int_equal(node_info_image(snapshot_get(s, "e"), intern_str("dup:1"))->num_nodes, 1);
	static const char *const d_imgs[] = { "nginx" };
	static const char *const a2_imgs[] = { "busybox:1.36", "nginx", "registry.io:5000/app" };
	add_node(c, mknode("d", NULL, NULL, d_imgs, 1));
	add_node(c, mknode("a", NULL, NULL, a2_imgs, 3));
	update(c, s);
	static const struct {
		const char *image;
		uint32_t num_nodes;
		int64_t size;
	} resized[] = { { "busybox:1.36", 1, 100 * MI }, { "nginx", 2, 100 * MI }, { "registry.io:5000/app", 1, 300 * MI } };
	for (size_t i = 0; i < sizeof(resized) / sizeof(resized[0]); i++) {
		const struct node_image *img = node_info_image(snapshot_get(s, "a"), intern_str(resized[i].image));
		if (!img || img->num_nodes != resized[i].num_nodes || img->size_bytes != resized[i].size)
			fail_msg("%s on a after the update: %u nodes, %lld bytes", resized[i].image, img ? img->num_nodes : 0,
				 img ? (long long)img->size_bytes : -1LL);
	}
	api_node_unref(b);
	api_pod_unref(p);
	snapshot_free(s);
	cache_free(c);
}

/* The image index: every lookup through it agrees with a search of the sorted array, on the
 * cache's node_info and on a snapshot clone; an index that no longer matches the images (set by
 * hand, as tests do) is not used. */
static void test_image_index(void **state)
{
	(void)state;
	enum { N = 300 };
	static char names[N][32];
	const char *imgs[N];
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "img%d:v%d", i, i % 7);
		imgs[i] = names[i];
	}
	struct cache *c = cache_new();
	struct snapshot *s = snapshot_new();
	add_node(c, mknode("big", NULL, NULL, imgs, N));
	add_node(c, mknode("one", NULL, NULL, imgs, 1));
	add_node(c, mknode("none", NULL, NULL, NULL, 0));
	update(c, s);
	const struct node_info *big = snapshot_get(s, "big");
	assert_int_equal(big->n_images, N);
	/* the clone carries its own index over its own array */
	assert_non_null(big->image_slots);
	assert_ptr_equal(big->image_slots_for, big->images);
	assert_true(big->image_slots_mask + 1 >= 2 * N);
	for (int i = 0; i < N; i++) {
		const struct node_image *img = node_info_image(big, intern_str(names[i]));
		if (!img || img->name != intern_str(names[i]) || img->size_bytes != (int64_t)(i + 1) * 100 * MI)
			fail_msg("image %s: %p", names[i], (const void *)img);
	}
	static const struct {
		const char *node, *image;
		bool present;
	} cases[] = {
		{ "big", "img0:v0", true },      { "big", "img299:v5", true }, { "big", "img299:v6", false },
		{ "big", "img300:v6", false },   { "big", "img1", false },     { "one", "img0:v0", true },
		{ "one", "img1:v1", false },     { "none", "img0:v0", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct node_info *ni = snapshot_get(s, cases[i].node);
		const struct node_image *img = node_info_image(ni, intern_str(cases[i].image));
		if ((img != NULL) != cases[i].present)
			fail_msg("%s on %s: got %p", cases[i].image, cases[i].node, (const void *)img);
	}
	/* a copy of a copy, reusing arrays, still agrees */
	struct node_info copy = { 0 };
	struct err e = { 0 };
	assert_int_equal(node_info_copy(&copy, snapshot_get(s, "one"), &e), 0);
	assert_int_equal(node_info_copy(&copy, big, &e), 0);
	assert_ptr_equal(copy.image_slots_for, copy.images);
	for (int i = 0; i < N; i += 7)
		assert_ptr_equal(node_info_image(&copy, intern_str(names[i]))->name, intern_str(names[i]));
	assert_null(node_info_image(&copy, intern_str("img1")));
	/* images replaced by hand (sorted array, no index): found by binary search, not through
	 * the stale index */
	struct node_image *hand = calloc(2, sizeof(*hand));
	assert_non_null(hand);
	hand[0] = (struct node_image){ intern_str("hand-a:1"), 5, 1 };
	hand[1] = (struct node_image){ intern_str("hand-b:1"), 6, 1 };
	if (hand[1].name < hand[0].name) {
		struct node_image t = hand[0];
		hand[0] = hand[1];
		hand[1] = t;
	}
	free(copy.images);
	copy.images = hand;
	copy.n_images = 2;
	assert_non_null(node_info_image(&copy, intern_str("hand-a:1")));
	assert_non_null(node_info_image(&copy, intern_str("hand-b:1")));
	assert_null(node_info_image(&copy, intern_str(names[0])));
	/* rebuilt for the new array, the index finds them too */
	assert_int_equal(node_info_index_images(&copy), 0);
	assert_ptr_equal(copy.image_slots_for, copy.images);
	assert_int_equal(node_info_image(&copy, intern_str("hand-b:1"))->size_bytes, 6);
	assert_null(node_info_image(&copy, intern_str(names[0])));
	node_info_release(&copy);
	snapshot_free(s);
	cache_free(c);
}

/* ---------- node tree ---------- */

/* The node tree on its own: duplicates within a zone are ignored (also once the zone is large),
 * the same name may sit in two zones while a node moves, removal keeps the order and drops an
 * emptied zone. Ops: "+zone/name" adds, "-zone/name" removes (rc < 0 expected when the line ends
 * in "!"). */
static void test_node_tree(void **state)
{
	(void)state;
	static const struct {
		const char *desc;
		const char *ops[12];
		const char *want;
		uint32_t num;
	} cases[] = {
		{ "round robin over zones in first-seen order", { "+A/a1", "+A/a2", "+B/b1", "+A/a3", "+C/c1" },
		  "a1,b1,c1,a2,a3", 5 },
		{ "duplicate in the same zone is ignored", { "+A/a1", "+A/a2", "+A/a1", "+B/b1", "+B/b1" }, "a1,b1,a2", 3 },
		{ "same name in two zones (a node moving) counts twice", { "+A/x", "+B/x", "-A/x" }, "x", 1 },
		{ "remove keeps the order of the others", { "+A/a1", "+A/a2", "+A/a3", "-A/a2" }, "a1,a3", 2 },
		{ "removed then added again goes last", { "+A/a1", "+A/a2", "-A/a1", "+A/a1" }, "a2,a1", 2 },
		{ "emptied zone dropped; re-created last", { "+A/a1", "+B/b1", "-A/a1", "+C/c1", "+A/a2" }, "b1,c1,a2", 3 },
		{ "remove from the wrong zone or twice fails", { "+A/a1", "-B/a1!", "-A/a1", "-A/a1!", "-A/zz!" }, "", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct node_tree t = { 0 };
		const char *region = intern_str("r");
		for (size_t k = 0; k < 12 && cases[i].ops[k]; k++) {
			const char *op = cases[i].ops[k];
			char zone[16], name[16];
			size_t len = strlen(op);
			bool fails = op[len - 1] == '!';
			const char *slash = strchr(op, '/');
			snprintf(zone, sizeof(zone), "%.*s", (int)(slash - op - 1), op + 1);
			snprintf(name, sizeof(name), "%.*s", (int)(len - (size_t)(slash - op) - 1 - fails), slash + 1);
			int rc = op[0] == '+' ? node_tree_add(&t, region, intern_str(zone), intern_str(name))
					      : node_tree_remove(&t, region, intern_str(zone), intern_str(name));
			if (fails ? rc >= 0 : rc < 0)
				fail_msg("%s: op %s returned %d", cases[i].desc, op, rc);
		}
		const char *list[16];
		uint32_t n = node_tree_list(&t, list);
		char got[128] = "";
		for (uint32_t k = 0; k < n; k++) {
			if (k)
				strcat(got, ",");
			strcat(got, list[k]);
		}
		if (strcmp(got, cases[i].want) != 0 || t.num_nodes != cases[i].num || n != cases[i].num)
			fail_msg("%s: got %s (%u nodes), want %s (%u)", cases[i].desc, got, t.num_nodes, cases[i].want,
				 cases[i].num);
		node_tree_release(&t);
	}

	/* A large zone: every name once, in insertion order, however often it is added again. */
	enum { N = 20000 };
	struct node_tree t = { 0 };
	const char *region = intern_str("r"), *za = intern_str("A"), *zb = intern_str("B");
	const char **names = calloc(N, sizeof(*names));
	const char **list = calloc(N, sizeof(*list));
	assert_non_null(names);
	assert_non_null(list);
	for (int i = 0; i < N; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "node-%d", i);
		names[i] = intern_str(buf);
		assert_int_equal(node_tree_add(&t, region, i % 2 ? zb : za, names[i]), 0);
	}
	for (int i = N - 1; i >= 0; i -= 3)
		assert_int_equal(node_tree_add(&t, region, i % 2 ? zb : za, names[i]), 0);
	assert_int_equal(t.num_nodes, N);
	assert_int_equal(node_tree_list(&t, list), N);
	for (int i = 0; i < N; i++)
		assert_ptr_equal(list[i], names[i]); /* A, B alternate exactly as they were added */
	/* remove every other node of zone A, then add them back: they go to the end of A */
	for (int i = 0; i < N; i += 4)
		assert_int_equal(node_tree_remove(&t, region, za, names[i]), 0);
	assert_int_equal(t.num_nodes, N - N / 4);
	for (int i = 0; i < N; i += 4)
		assert_int_equal(node_tree_add(&t, region, za, names[i]), 0);
	assert_int_equal(t.num_nodes, N);
	assert_int_equal(node_tree_list(&t, list), N);
	assert_ptr_equal(list[0], names[2]);      /* A now starts with node-2 */
	assert_ptr_equal(list[1], names[1]);      /* B unchanged */
	assert_ptr_equal(list[N - 2], names[N - 4]); /* the last re-added A node */
	free(names);
	free(list);
	node_tree_release(&t);
}

/* Only changed node_infos are copied; the node list is rebuilt only on node add/remove. */
static void test_snapshot_generations(void **state)
{
	(void)state;
	enum { N = 5000 };
	struct cache *c = cache_new();
	struct snapshot *s = snapshot_new();
	struct err e = { 0 };
	char name[32];
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "node-%d", i);
		add_node(c, mknode(name, "r", i % 2 ? "z1" : "z2", NULL, 0));
	}
	update(c, s);
	struct snapshot_stats st;
	snapshot_stats(s, &st);
	assert_int_equal(snapshot_num_nodes(s), N);
	assert_int_equal(st.node_copies, N);
	assert_int_equal(st.list_rebuilds, 1);

	static const struct {
		const char *desc;
		int op; /* 0 nothing, 1 assume, 2 forget, 3 add node, 4 remove node, 5 affinity pod */
		uint64_t copies, rebuilds;
		uint32_t nodes, with_affinity, with_anti;
	} steps[] = {
		{ "no change", 0, 0, 0, N, 0, 0 },
		{ "one pod assumed", 1, 1, 0, N, 0, 0 },
		{ "forgotten", 2, 1, 0, N, 0, 0 },
		{ "node added", 3, 1, 1, N + 1, 0, 0 },
		{ "node removed", 4, 0, 1, N, 0, 0 },
		{ "anti-affinity pod: lists rebuilt, not the node list", 5, 1, 0, N, 1, 1 },
	};
	struct api_pod *p = mkpod("p", NULL, "cpu=100m,memory=0");
	struct api_pod *aff = TOBJ_POD(.name = "aff", .containers = { { .req = "cpu=100m,memory=0" } },
				       .affinity = TOBJ_POD_ANTI_AFFINITY("kubernetes.io/hostname"));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct snapshot_stats before;
		snapshot_stats(s, &before);
		struct api_node *extra = NULL;
		switch (steps[i].op) {
		case 1:
			assert_int_equal(cache_assume_pod(c, p, "node-7", &e), 0);
			break;
		case 2:
			assert_int_equal(cache_forget_pod(c, p, "node-7", &e), 0);
			break;
		case 3:
			add_node(c, mknode("extra", "r", "z3", NULL, 0));
			break;
		case 4:
			extra = mknode("extra", "r", "z3", NULL, 0);
			assert_int_equal(cache_remove_node(c, extra, &e), 0);
			api_node_unref(extra);
			break;
		case 5:
			assert_int_equal(cache_assume_pod(c, aff, "node-9", &e), 0);
			break;
		}
		update(c, s);
		snapshot_stats(s, &st);
		if (st.node_copies - before.node_copies != steps[i].copies ||
		    st.list_rebuilds - before.list_rebuilds != steps[i].rebuilds)
			fail_msg("%s: %llu copies, %llu rebuilds", steps[i].desc,
				 (unsigned long long)(st.node_copies - before.node_copies),
				 (unsigned long long)(st.list_rebuilds - before.list_rebuilds));
		assert_int_equal(snapshot_num_nodes(s), steps[i].nodes);
		assert_int_equal(snapshot_num_have_pods_with_affinity(s), steps[i].with_affinity);
		assert_int_equal(snapshot_num_have_pods_with_required_anti_affinity(s), steps[i].with_anti);
	}
	assert_string_equal(snapshot_have_pods_with_required_anti_affinity(s)[0]->name, "node-9");
	struct cache_counts cnt;
	cache_counts(c, &cnt);
	assert_int_equal(snapshot_generation(s), cnt.generation);
	api_pod_unref(p);
	api_pod_unref(aff);
	snapshot_free(s);
	cache_free(c);
}

static void test_zone_order(void **state)
{
	(void)state;
	static const struct {
		const char *desc;
		struct {
			const char *name, *region, *zone;
		} nodes[6];
		const char *want;
	} cases[] = {
		{ "A=[a1,a2,a3], B=[b1]",
		  { { "a1", "r", "A" }, { "a2", "r", "A" }, { "b1", "r", "B" }, { "a3", "r", "A" } },
		  "a1,b1,a2,a3" },
		{ "zones in first-seen order",
		  { { "b1", "r", "B" }, { "a1", "r", "A" }, { "a2", "r", "A" }, { "b2", "r", "B" }, { "c1", "r", "C" } },
		  "b1,a1,c1,b2,a2" },
		{ "region is part of the key",
		  { { "x1", "r1", "A" }, { "y1", "r2", "A" }, { "x2", "r1", "A" } },
		  "x1,y1,x2" },
		{ "no labels: one zone", { { "n1", NULL, NULL }, { "n2", NULL, NULL } }, "n1,n2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cache *c = cache_new();
		struct snapshot *s = snapshot_new();
		for (size_t j = 0; j < 6 && cases[i].nodes[j].name; j++)
			add_node(c, mknode(cases[i].nodes[j].name, cases[i].nodes[j].region, cases[i].nodes[j].zone, NULL, 0));
		update(c, s);
		char got[128] = "";
		for (uint32_t j = 0; j < snapshot_num_nodes(s); j++) {
			if (j)
				strcat(got, ",");
			strcat(got, snapshot_node_at(s, j)->name);
		}
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s: got %s, want %s", cases[i].desc, got, cases[i].want);
		snapshot_free(s);
		cache_free(c);
	}

	/* a node changing zone moves; the beta label wins over the GA one */
	struct cache *c = cache_new();
	struct snapshot *s = snapshot_new();
	struct err e = { 0 };
	add_node(c, mknode("a1", "r", "A", NULL, 0));
	add_node(c, mknode("a2", "r", "A", NULL, 0));
	add_node(c, mknode("b1", "r", "B", NULL, 0));
	update(c, s);
	assert_string_equal(snapshot_node_at(s, 1)->name, "b1");
	struct api_node *moved = mknode("a1", "r", "B", NULL, 0);
	assert_int_equal(cache_update_node(c, NULL, moved, &e), 0);
	update(c, s);
	/* A=[a2], B=[b1,a1] */
	assert_string_equal(snapshot_node_at(s, 0)->name, "a2");
	assert_string_equal(snapshot_node_at(s, 1)->name, "b1");
	assert_string_equal(snapshot_node_at(s, 2)->name, "a1");
	struct api_node *beta = mknode("a2", "r", "A", NULL, 0);
	beta->meta.labels.items[beta->meta.labels.n++] =
		(struct api_kv){ intern_str("failure-domain.beta.kubernetes.io/zone"), intern_str("B") };
	assert_int_equal(cache_update_node(c, NULL, beta, &e), 0);
	update(c, s);
	/* B=[b1,a1,a2] */
	assert_string_equal(snapshot_node_at(s, 2)->name, "a2");
	assert_ptr_equal(snapshot_get(s, "a2")->node, beta);
	api_node_unref(moved);
	api_node_unref(beta);
	snapshot_free(s);
	cache_free(c);
}

/* Informer threads and the scheduler thread at once (run under TSan). */
struct churn {
	struct cache *c;
	int id;
};

static void *churn_thread(void *arg)
{
	struct churn *ch = arg;
	struct err e = { 0 };
	char name[32];
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "t%d-p%d", ch->id, i);
		struct api_pod *p = mkpod(name, NULL, "cpu=10m,memory=10");
		if (cache_assume_pod(ch->c, p, i % 2 ? "n1" : "n2", &e) == 0 && i % 3 == 0)
			cache_forget_pod(ch->c, p, i % 2 ? "n1" : "n2", &e);
		api_pod_unref(p);
	}
	return NULL;
}

static void test_concurrent_updates(void **state)
{
	(void)state;
	struct cache *c = cache_new();
	struct snapshot *s = snapshot_new();
	add_node(c, mknode("n1", NULL, NULL, NULL, 0));
	add_node(c, mknode("n2", NULL, NULL, NULL, 0));
	struct churn ch[2] = { { c, 0 }, { c, 1 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn_thread, &ch[i]), 0);
	for (int i = 0; i < 50; i++)
		update(c, s);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	update(c, s);
	uint32_t pods = snapshot_get(s, "n1")->n_pods + snapshot_get(s, "n2")->n_pods;
	struct cache_counts cnt;
	cache_counts(c, &cnt);
	assert_int_equal(pods, cnt.pods);
	assert_int_equal(cnt.pods, 2 * (200 - 67));
	assert_int_equal(snapshot_get(s, "n1")->requested.cpu + snapshot_get(s, "n2")->requested.cpu, 10 * pods);
	snapshot_free(s);
	cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_requests),
		cmocka_unit_test(test_scalar_resources),
		cmocka_unit_test(test_node_info_ports_and_counts),
		cmocka_unit_test(test_assume_confirm_forget),
		cmocka_unit_test(test_ghost_nodes),
		cmocka_unit_test(test_images),
		cmocka_unit_test(test_image_index),
		cmocka_unit_test(test_node_tree),
		cmocka_unit_test(test_snapshot_generations),
		cmocka_unit_test(test_zone_order),
		cmocka_unit_test(test_concurrent_updates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
