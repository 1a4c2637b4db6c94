/* A pod's requests as upstream v1.37.2 counts them (component-helpers/resource/helpers.go
 * PodRequests, framework/types.go PodInfo.CalculateResource): pod-level resources (hugepages,
 * partial pod-level requests, non-zero defaults) and in-place resize (max of spec, allocated and
 * actuated while a resize is in progress), and how the cache follows a resize. Expected values
 * are upstream's test tables (file and test named per table) or the oracle's (cited per case). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "cache/cache.h"
#include "cache/node_info.h"
#include "cache/snapshot.h"
#include "common/intern.h"
#include "testobj.h"

#define MI (1024LL * 1024)
#define GI (1024LL * MI)
#define MB 1000000LL
#define GB 1000000000LL

/* status members: one container status / the PodResizePending condition */
#define CS_ACT(name, req) "{\"name\":\"" name "\",\"resources\":{\"requests\":{" req "}}}"
#define CS_ALLOC_ACT(name, alloc, req) \
	"{\"name\":\"" name "\",\"allocatedResources\":{" alloc "},\"resources\":{\"requests\":{" req "}}}"
#define CS_ALLOC(name, alloc) "{\"name\":\"" name "\",\"allocatedResources\":{" alloc "}}"
#define RESIZE_PENDING(reason) \
	"\"conditions\":[{\"type\":\"PodResizePending\",\"status\":\"True\",\"reason\":\"" reason "\"}]"

struct res_case {
	const char *name;
	struct tobj_pod pod;
	enum node_res_kind kind;
	int64_t cpu, mem, eph;
	const char *sc[3]; /* scalar resources expected (exactly these) */
	int64_t sc_v[3];
};

static void check_cases(const struct res_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct res_case *tc = &cases[i];
		struct api_pod *p = tobj_pod(&tc->pod);
		struct node_res r;
		assert_int_equal(node_res_of_pod(p, tc->kind, &r), 0);
		uint32_t n_sc = 0;
		while (n_sc < 3 && tc->sc[n_sc])
			n_sc++;
		if (r.cpu != tc->cpu || r.memory != tc->mem || r.ephemeral_storage != tc->eph || r.n_scalar != n_sc)
			fail_msg("%s: got cpu %lld mem %lld eph %lld, %u scalar; want %lld %lld %lld, %u", tc->name,
				 (long long)r.cpu, (long long)r.memory, (long long)r.ephemeral_storage, r.n_scalar,
				 (long long)tc->cpu, (long long)tc->mem, (long long)tc->eph, n_sc);
		for (uint32_t k = 0; k < n_sc; k++) {
			int64_t got = node_res_scalar(&r, intern_str(tc->sc[k]));
			if (got != tc->sc_v[k])
				fail_msg("%s: %s: got %lld want %lld", tc->name, tc->sc[k], (long long)got,
					 (long long)tc->sc_v[k]);
		}
		node_res_release(&r);
		api_pod_unref(p);
	}
}

/* ---------- pod-level resources ---------- */

/* helpers_test.go TestPodLevelResourceRequests (SkipPodLevelResources false: PodLevelResources is
 * on in v1.37). Pod-level limits of the rows are left out: PodRequests does not read them. */
static void test_pod_level_requests(void **state)
{
	(void)state;
	static const struct res_case cases[] = {
		{ "nil", { .containers_json = "[]" }, NODE_RES_REQUESTS, 0, 0, 0, { 0 }, { 0 } },
		{ "pod level memory resource with SkipPodLevelResources false",
		  { .containers_json = "[]", .pod_req = "memory=2Mi" }, NODE_RES_REQUESTS, 0, 2 * MI, 0, { 0 }, { 0 } },
		{ "pod level memory and container level cpu resources with SkipPodLevelResources false",
		  { .containers = { { .req = "cpu=2m" } }, .pod_req = "memory=2Mi" }, NODE_RES_REQUESTS, 2, 2 * MI, 0,
		  { 0 }, { 0 } },
		/* storage is no resource the scheduler counts (framework.Resource.Add ignores it) */
		{ "pod level unsupported resources set at pod-level with SkipPodLevelResources false",
		  { .containers = { { .req = "memory=3Mi" } }, .pod_req = "storage=2Mi" }, NODE_RES_REQUESTS, 0, 3 * MI,
		  0, { 0 }, { 0 } },
		{ "both container-level and pod-level resources set with SkipPodLevelResources false",
		  { .containers = { { .req = "memory=3Mi,cpu=2m" } }, .pod_req = "memory=6Mi,cpu=8m" },
		  NODE_RES_REQUESTS, 8, 6 * MI, 0, { 0 }, { 0 } },
		{ "container-level resources, init and sidecar container set with SkipPodLevelResources false",
		  { .containers = { { .req = "memory=3Mi,cpu=2m" } },
		    .inits = { { .name = "s", .req = "memory=5Mi,cpu=4m", .sidecar = true },
			       { .name = "i", .req = "memory=6Mi,cpu=8m" } } },
		  NODE_RES_REQUESTS, 12, 11 * MI, 0, { 0 }, { 0 } },
		{ "pod-level resources, container-level resources, init and sidecar container set with "
		  "SkipPodLevelResources false",
		  { .containers = { { .req = "memory=3Mi,cpu=2m" } },
		    .inits = { { .name = "s", .req = "memory=5Mi,cpu=4m", .sidecar = true },
			       { .name = "i", .req = "memory=6Mi,cpu=8m" } },
		    .pod_req = "memory=15Mi,cpu=18m" },
		  NODE_RES_REQUESTS, 18, 15 * MI, 0, { 0 }, { 0 } },
		{ "pod-level resources, hugepage request/limit single page size",
		  { .containers_json = "[]", .pod_req = "memory=10Mi,hugepages-2Mi=2Mi" }, NODE_RES_REQUESTS, 0,
		  10 * MI, 0, { "hugepages-2Mi" }, { 2 * MI } },
		{ "pod-level resources, hugepage request/limit multiple page sizes",
		  { .containers_json = "[]", .pod_req = "cpu=1,hugepages-2Mi=2Mi,hugepages-1Gi=1Gi" }, NODE_RES_REQUESTS,
		  1000, 0, 0, { "hugepages-2Mi", "hugepages-1Gi" }, { 2 * MI, GI } },
		{ "pod-level resources, container-level resources, hugepage request/limit single page size",
		  { .containers = { { .req = "hugepages-2Mi=6Mi", .lim = "hugepages-2Mi=6Mi" } },
		    .pod_req = "cpu=1,hugepages-2Mi=10Mi" },
		  NODE_RES_REQUESTS, 1000, 0, 0, { "hugepages-2Mi" }, { 10 * MI } },
		{ "pod-level resources, container-level resources, hugepage request/limit multiple page sizes",
		  { .containers = { { .req = "cpu=1,hugepages-1Gi=2Gi", .lim = "hugepages-1Gi=2Gi" } },
		    .pod_req = "cpu=1,hugepages-2Mi=10Mi,hugepages-1Gi=2Gi" },
		  NODE_RES_REQUESTS, 1000, 0, 0, { "hugepages-2Mi", "hugepages-1Gi" }, { 10 * MI, 2 * GI } },
		{ "pod-level resources, container-level resources, hugepage request/limit multiple page sizes between "
		  "pod-level and container-level",
		  { .containers = { { .req = "memory=4Mi,hugepages-1Gi=1Gi", .lim = "hugepages-1Gi=1Gi" } },
		    .pod_req = "cpu=1,hugepages-2Mi=10Mi" },
		  NODE_RES_REQUESTS, 1000, 4 * MI, 0, { "hugepages-2Mi", "hugepages-1Gi" }, { 10 * MI, GI } },
	};
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* types_test.go TestPodInfoCalculateResources, pod-level rows (PodLevelResources on): Resource is
 * NODE_RES_REQUESTS, Non0CPU/Non0Mem NODE_RES_NONZERO. mem500M, cpu1200m... are upstream's. */
static void test_pod_level_nonzero(void **state)
{
	(void)state;
#define TWO_EMPTY .containers = { { .req = "" } }, .inits = { { .name = "i", .req = "" } }
	static const struct res_case cases[] = {
		{ "1X container and 1X init container with pod-level requests",
		  { .containers = { { .req = "cpu=500m,memory=500M" } }, .inits = { { .name = "i", .req = "cpu=500m,memory=500M" } },
		    .pod_req = "cpu=1200m,memory=1200M" },
		  NODE_RES_NONZERO, 1200, 1200 * MB, 0, { 0 }, { 0 } },
		{ "1X container and 1X sidecar container with pod-level requests",
		  { .containers = { { .req = "cpu=500m,memory=500M" } },
		    .inits = { { .name = "s", .req = "cpu=500m,memory=500M", .sidecar = true } },
		    .pod_req = "cpu=1200m,memory=1200M" },
		  NODE_RES_NONZERO, 1200, 1200 * MB, 0, { 0 }, { 0 } },
		{ "1X container with pod-level memory requests (Resource)", { TWO_EMPTY, .pod_req = "memory=1200M" },
		  NODE_RES_REQUESTS, 0, 1200 * MB, 0, { 0 }, { 0 } },
		{ "1X container with pod-level memory requests (Non0)", { TWO_EMPTY, .pod_req = "memory=1200M" },
		  NODE_RES_NONZERO, 100, 1200 * MB, 0, { 0 }, { 0 } },
		{ "1X container with pod-level cpu requests (Resource)", { TWO_EMPTY, .pod_req = "cpu=500m" },
		  NODE_RES_REQUESTS, 500, 0, 0, { 0 }, { 0 } },
		{ "1X container with pod-level cpu requests (Non0)", { TWO_EMPTY, .pod_req = "cpu=500m" },
		  NODE_RES_NONZERO, 500, 200 * MI, 0, { 0 }, { 0 } },
		{ "1X container unsupported resources and pod-level supported resources (Resource)",
		  { .containers = { { .req = "ephemeral-storage=800M" } },
		    .inits = { { .name = "i", .req = "ephemeral-storage=500M" } }, .pod_req = "cpu=500m" },
		  NODE_RES_REQUESTS, 500, 0, 800 * MB, { 0 }, { 0 } },
		{ "1X container unsupported resources and pod-level supported resources (Non0)",
		  { .containers = { { .req = "ephemeral-storage=800M" } },
		    .inits = { { .name = "i", .req = "ephemeral-storage=500M" } }, .pod_req = "cpu=500m" },
		  NODE_RES_NONZERO, 500, 200 * MI, 800 * MB, { 0 }, { 0 } },
	};
#undef TWO_EMPTY
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* NodeResourcesFit's Score takes the pod's request without pod level and status (NewFit sets the
 * feature flags on Fit, not on its embedded resourceAllocationScorer), defaults per container. */
static void test_fit_score_request(void **state)
{
	(void)state;
	static const struct res_case cases[] = {
		/* oracle: node n1 allocatable cpu 4 / memory 4Gi, no pods; pending pod with
		 * spec.resources.requests cpu 2, containers c1 {memory 1Gi} and c2 {}: NodeResourcesFit
		 * raw 82 = ((4000-200)*100/4000 + (4096Mi-1224Mi)*100/4096Mi)/2 = (95+70)/2: cpu 2*100m,
		 * memory 1Gi+200Mi (with the pod level it would be 2000m: 50) */
		{ "pod-level requests ignored by the Fit score",
		  { .containers = { { .name = "c1", .req = "memory=1Gi" }, { .name = "c2" } }, .pod_req = "cpu=2" },
		  NODE_RES_FIT_SCORE, 200, GI + 200 * MI, 0, { 0 }, { 0 } },
		/* while NodeInfo's non-zero rule keeps the pod level (same pod, types.go CalculateResource) */
		{ "pod-level requests kept by NodeInfo",
		  { .containers = { { .name = "c1", .req = "memory=1Gi" }, { .name = "c2" } }, .pod_req = "cpu=2" },
		  NODE_RES_NONZERO, 2000, GI, 0, { 0 }, { 0 } },
		/* helpers_test.go TestPodResourceRequests "resized, infeasible, but don't use status":
		 * the Fit score and PreFilter (computePodResourceRequest) read no status */
		{ "resized, infeasible, but don't use status (Fit score)",
		  { .containers = { { .name = "container-1", .req = "cpu=4" } },
		    .status = RESIZE_PENDING("Infeasible") ",\"containerStatuses\":[" CS_ACT("container-1", "\"cpu\":\"2\"") "]" },
		  NODE_RES_FIT_SCORE, 4000, 200 * MI, 0, { 0 }, { 0 } },
		{ "resized, infeasible, but don't use status (PreFilter)",
		  { .containers = { { .name = "container-1", .req = "cpu=4" } },
		    .status = RESIZE_PENDING("Infeasible") ",\"containerStatuses\":[" CS_ACT("container-1", "\"cpu\":\"2\"") "]" },
		  NODE_RES_SPEC, 4000, 0, 0, { 0 }, { 0 } },
	};
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* ---------- in-place resize ---------- */

static void test_resize_requests(void **state)
{
	(void)state;
	static const struct res_case cases[] = {
		/* helpers_test.go TestPodResourceRequests, UseStatusResources rows (container statuses
		 * only: the pod-level status maps are absent, so they are aggregated per container) */
		{ "resized, infeasible",
		  { .containers = { { .name = "container-1", .req = "cpu=4" } },
		    .status = RESIZE_PENDING("Infeasible") ",\"containerStatuses\":[" CS_ACT("container-1", "\"cpu\":\"2\"") "]" },
		  NODE_RES_REQUESTS, 2000, 0, 0, { 0 }, { 0 } },
		{ "resized, infeasible & in-progress",
		  { .containers = { { .name = "container-1", .req = "cpu=6" } },
		    .status = RESIZE_PENDING("Infeasible") ",\"containerStatuses\":[" CS_ALLOC_ACT(
			    "container-1", "\"cpu\":\"4\"", "\"cpu\":\"2\"") "]" },
		  NODE_RES_REQUESTS, 4000, 0, 0, { 0 }, { 0 } },
		{ "resized, no resize status",
		  { .containers = { { .name = "container-1", .req = "cpu=4" } },
		    .status = "\"containerStatuses\":[" CS_ACT("container-1", "\"cpu\":\"2\"") "]" },
		  NODE_RES_REQUESTS, 4000, 0, 0, { 0 }, { 0 } },
		{ "resized: per-resource 3-way maximum",
		  { .containers = { { .name = "container-1", .req = "cpu=30m,memory=20M,ephemeral-storage=10G" } },
		    .status = "\"containerStatuses\":[" CS_ALLOC_ACT(
			    "container-1", "\"cpu\":\"20m\",\"memory\":\"10M\",\"ephemeral-storage\":\"30G\"",
			    "\"cpu\":\"10m\",\"memory\":\"30M\",\"ephemeral-storage\":\"20G\"") "]" },
		  NODE_RES_REQUESTS, 30, 30 * MB, 30 * GB, { 0 }, { 0 } },
		{ "resized, restartable init container, infeasible",
		  { .containers_json = "[]", .inits = { { .name = "restartable-init-1", .req = "cpu=4", .sidecar = true } },
		    .status = RESIZE_PENDING("Infeasible") ",\"initContainerStatuses\":[" CS_ACT(
			    "restartable-init-1", "\"cpu\":\"2\"") "]" },
		  NODE_RES_REQUESTS, 2000, 0, 0, { 0 }, { 0 } },
		{ "resized, restartable init container, no resize status",
		  { .containers_json = "[]", .inits = { { .name = "restartable-init-1", .req = "cpu=4", .sidecar = true } },
		    .status = "\"initContainerStatuses\":[" CS_ACT("restartable-init-1", "\"cpu\":\"2\"") "]" },
		  NODE_RES_REQUESTS, 4000, 0, 0, { 0 }, { 0 } },
		{ "aggregate request resolves max of sums instead of sum of maxes",
		  { .containers = { { .name = "c1", .req = "cpu=1" }, { .name = "c2", .req = "cpu=2" } },
		    .status = "\"containerStatuses\":[" CS_ALLOC("c1", "\"cpu\":\"2\"") "," CS_ALLOC("c2", "\"cpu\":\"1\"") "]" },
		  NODE_RES_REQUESTS, 3000, 0, 0, { 0 }, { 0 } },
		/* the same rows with the pod-level status maps populatePodStatusResourcesForTest adds
		 * (sums of the container statuses), read as InPlacePodLevelResourcesVerticalScaling does */
		{ "resized, infeasible & in-progress (pod-level status)",
		  { .containers = { { .name = "container-1", .req = "cpu=6" } },
		    .status = RESIZE_PENDING("Infeasible") ",\"containerStatuses\":[" CS_ALLOC_ACT(
			    "container-1", "\"cpu\":\"4\"", "\"cpu\":\"2\"") "],"
			    "\"allocatedResources\":{\"cpu\":\"4\"},\"resources\":{\"requests\":{\"cpu\":\"2\"}}" },
		  NODE_RES_REQUESTS, 4000, 0, 0, { 0 }, { 0 } },
		{ "resized: per-resource 3-way maximum (pod-level status)",
		  { .containers = { { .name = "container-1", .req = "cpu=30m,memory=20M,ephemeral-storage=10G" } },
		    .status = "\"containerStatuses\":[" CS_ALLOC_ACT(
			    "container-1", "\"cpu\":\"20m\",\"memory\":\"10M\",\"ephemeral-storage\":\"30G\"",
			    "\"cpu\":\"10m\",\"memory\":\"30M\",\"ephemeral-storage\":\"20G\"") "],"
			      "\"allocatedResources\":{\"cpu\":\"20m\",\"memory\":\"10M\",\"ephemeral-storage\":\"30G\"},"
			      "\"resources\":{\"requests\":{\"cpu\":\"10m\",\"memory\":\"30M\",\"ephemeral-storage\":\"20G\"}}" },
		  NODE_RES_REQUESTS, 30, 30 * MB, 30 * GB, { 0 }, { 0 } },
		/* helpers_test.go TestPodRequestsAndLimitsVerticalScalingWrappers */
		{ "pod level requests/limits with PLR vertical scaling enabled and status populated",
		  { .containers = { { .name = "c1", .req = "cpu=1", .lim = "cpu=2" } }, .pod_req = "cpu=2",
		    .status = "\"allocatedResources\":{\"cpu\":\"3\"},\"resources\":{\"requests\":{\"cpu\":\"3.5\"},"
			      "\"limits\":{\"cpu\":\"5\"}}" },
		  NODE_RES_REQUESTS, 3500, 0, 0, { 0 }, { 0 } },
		{ "pod level requests/limits with PLR vertical scaling enabled and infeasible resize",
		  { .containers = { { .name = "c1", .req = "cpu=1", .lim = "cpu=2" } }, .pod_req = "cpu=10",
		    .status = RESIZE_PENDING("Infeasible") ",\"allocatedResources\":{\"cpu\":\"3\"},"
			      "\"resources\":{\"requests\":{\"cpu\":\"4\"},\"limits\":{\"cpu\":\"8\"}}" },
		  NODE_RES_REQUESTS, 4000, 0, 0, { 0 }, { 0 } },
		/* types_test.go TestCalculatePodResourcesWithResize (Resource = Non0 in every row) */
		{ "Pod with pod-level resources no pending resize",
		  { .containers = { { .name = "c1", .req = "cpu=500m,memory=500M" } }, .pod_req = "cpu=700m,memory=500M",
		    .status = "\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"500M\"}},\"containerStatuses\":[" CS_ACT(
			    "c1", "\"cpu\":\"700m\",\"memory\":\"500M\"") "]" },
		  NODE_RES_NONZERO, 700, 500 * MB, 0, { 0 }, { 0 } },
		{ "Pod with resize in progress",
		  { .containers = { { .name = "c1", .req = "cpu=500m,memory=500M" } },
		    .status = "\"conditions\":[{\"type\":\"PodResizeInProgress\",\"status\":\"True\"}],"
			      "\"containerStatuses\":[" CS_ACT("c1", "\"cpu\":\"500m\",\"memory\":\"500M\"") "]" },
		  NODE_RES_NONZERO, 500, 500 * MB, 0, { 0 }, { 0 } },
		{ "Pod with deferred resize",
		  { .containers = { { .name = "c1", .req = "cpu=700m,memory=800M" } },
		    .status = RESIZE_PENDING("Deferred") ",\"containerStatuses\":[" CS_ACT(
			    "c1", "\"cpu\":\"500m\",\"memory\":\"500M\"") "]" },
		  NODE_RES_REQUESTS, 700, 800 * MB, 0, { 0 }, { 0 } },
		{ "Pod with pod-level resources and with deferred resize",
		  { .containers = { { .name = "c1", .req = "cpu=500m,memory=500M" } }, .pod_req = "cpu=700m,memory=800M",
		    .status = RESIZE_PENDING("Deferred") ",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"500M\"}},"
			      "\"containerStatuses\":[" CS_ACT("c1", "\"cpu\":\"500m\",\"memory\":\"500M\"") "]" },
		  NODE_RES_NONZERO, 700, 800 * MB, 0, { 0 }, { 0 } },
		{ "Pod with infeasible resize",
		  { .containers = { { .name = "c1", .req = "cpu=700m,memory=800M" } },
		    .status = RESIZE_PENDING("Infeasible") ",\"containerStatuses\":[" CS_ACT(
			    "c1", "\"cpu\":\"500m\",\"memory\":\"500M\"") "]" },
		  NODE_RES_NONZERO, 500, 500 * MB, 0, { 0 }, { 0 } },
		{ "Pod with sider container and no pending resize",
		  { .containers = { { .name = "c1", .req = "cpu=500m,memory=500M" } },
		    .inits = { { .name = "i1", .req = "cpu=700m,memory=800M" },
			       { .name = "s1", .req = "cpu=700m,memory=800M", .sidecar = true } },
		    .status = "\"containerStatuses\":[" CS_ACT("c1", "\"cpu\":\"500m\",\"memory\":\"500M\"") "],"
			      "\"initContainerStatuses\":[" CS_ACT("i1", "\"cpu\":\"700m\",\"memory\":\"800M\"") "," CS_ACT(
				      "s1", "\"cpu\":\"700m\",\"memory\":\"800M\"") "]" },
		  NODE_RES_NONZERO, 1200, 1300 * MB, 0, { 0 }, { 0 } },
	};
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* A resize down as the kubelet reports it, step by step, through the cache's update path: the
 * node counts max(spec, allocated, actuated) (helpers.go AggregateContainerRequests), so only the
 * last step frees cpu, and only that step is a scale-down (events.go extractPodScaleDown, which
 * uses the same PodRequests). The second step is the oracle's: a bound pod with spec cpu 500m,
 * allocatedResources and resources.requests cpu 1 on a 4-cpu node leaves a 3500m pod "Insufficient
 * cpu" (1000m counted). */
static void test_resize_cache_update(void **state)
{
	(void)state;
#define STEP(spec_cpu, alloc_cpu, act_cpu)                                                               \
	TOBJ_POD(.name = "r", .node = "n1", .containers = { { .name = "c1", .req = "cpu=" spec_cpu } },  \
		 .status = "\"phase\":\"Running\",\"containerStatuses\":[" CS_ALLOC_ACT(                   \
			 "c1", "\"cpu\":\"" alloc_cpu "\"", "\"cpu\":\"" act_cpu "\"") "]")
	struct api_pod *steps[] = {
		STEP("1", "1", "1"),	  /* running at 1 cpu */
		STEP("500m", "1", "1"),   /* resize requested (spec) */
		STEP("500m", "500m", "1"), /* allocated by the kubelet */
		STEP("500m", "500m", "500m"), /* actuated: done */
	};
#undef STEP
	static const int64_t want_cpu[] = { 1000, 1000, 1000, 500 };
	static const bool want_down[] = { false, false, false, true };
	struct cache *c = cache_new();
	struct snapshot *s = snapshot_new();
	struct err e = { 0 };
	struct api_node *n = TOBJ_NODE(.name = "n1", .uid = "n1", .alloc = "cpu=4,memory=8Gi,pods=110");
	assert_int_equal(cache_add_node(c, n, &e), 0);
	api_node_unref(n);
	assert_int_equal(cache_add_pod(c, steps[0], &e), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (i > 0) {
			bool down = node_res_scaled_down(steps[i - 1], steps[i]);
			if (down != want_down[i])
				fail_msg("step %zu: scaled down %d, want %d", i, down, want_down[i]);
			assert_int_equal(cache_update_pod(c, steps[i - 1], steps[i], &e), 0);
		}
		assert_int_equal(cache_update_snapshot(c, s, &e), 0);
		const struct node_info *ni = snapshot_get(s, "n1");
		if (ni->requested.cpu != want_cpu[i] || ni->nonzero_cpu != want_cpu[i])
			fail_msg("step %zu: node requests cpu %lld (non-zero %lld), want %lld", i,
				 (long long)ni->requested.cpu, (long long)ni->nonzero_cpu, (long long)want_cpu[i]);
	}
	/* a resize up counts at once (spec above status), and is no scale-down */
	struct api_pod *up = TOBJ_POD(.name = "r", .node = "n1", .containers = { { .name = "c1", .req = "cpu=2" } },
				      .status = "\"containerStatuses\":[" CS_ALLOC_ACT("c1", "\"cpu\":\"500m\"",
										"\"cpu\":\"500m\"") "]");
	assert_false(node_res_scaled_down(steps[3], up));
	assert_int_equal(cache_update_pod(c, steps[3], up, &e), 0);
	assert_int_equal(cache_update_snapshot(c, s, &e), 0);
	assert_int_equal(snapshot_get(s, "n1")->requested.cpu, 2000);
	api_pod_unref(up);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		api_pod_unref(steps[i]);
	snapshot_free(s);
	cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_level_requests),
		cmocka_unit_test(test_pod_level_nonzero),
		cmocka_unit_test(test_fit_score_request),
		cmocka_unit_test(test_resize_requests),
		cmocka_unit_test(test_resize_cache_update),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
