/* Decoding of the pod status fields in-place resize reads (containerStatuses[] and
 * initContainerStatuses[] allocatedResources and resources.requests, the pod-level
 * status.allocatedResources and status.resources), with "present" kept apart from "empty" as
 * upstream's nil checks need (component-helpers/resource/helpers.go). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apiclient/api_types.h"
#include "common/intern.h"
#include "testobj.h"

/* A container status as a v1.37 kubelet writes it (fields csched skips included). */
#define KUBELET_CS(name, extra)                                                                                   \
	"{\"name\":\"" name "\",\"state\":{\"running\":{\"startedAt\":\"2026-11-25T10:00:00Z\"}},"                 \
	"\"lastState\":{},\"ready\":true,\"restartCount\":0,\"image\":\"docker.io/library/nginx:1.27\","           \
	"\"imageID\":\"docker.io/library/nginx@sha256:0123\",\"containerID\":\"containerd://abc\",\"started\":true," \
	"\"volumeMounts\":[{\"name\":\"kube-api-access\",\"mountPath\":\"/var/run/secrets\",\"readOnly\":true}],"   \
	"\"user\":{\"linux\":{\"uid\":0,\"gid\":0}}" extra "}"

static void test_resize_status_decoded(void **state)
{
	(void)state;
	struct api_pod *p = TOBJ_POD(
		.name = "r", .node = "n1", .containers = { { .name = "app", .req = "cpu=500m" }, { .name = "log" } },
		.inits = { { .name = "side", .req = "cpu=100m", .sidecar = true } },
		.status = "\"phase\":\"Running\","
			  "\"conditions\":[{\"type\":\"PodResizeInProgress\",\"status\":\"True\"},"
			  "{\"type\":\"PodResizePending\",\"status\":\"True\",\"reason\":\"Infeasible\",\"message\":\"m\"}],"
			  "\"containerStatuses\":[" KUBELET_CS("app", ",\"allocatedResources\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
						    "\"resources\":{\"requests\":{\"cpu\":\"750m\"},\"limits\":{\"cpu\":\"2\"}}") ","
			  KUBELET_CS("log", ",\"resources\":{\"limits\":{\"cpu\":\"1\"}}") "],"
			  "\"initContainerStatuses\":[" KUBELET_CS("side", ",\"allocatedResources\":{}") "],"
			  "\"allocatedResources\":{\"cpu\":\"1100m\",\"hugepages-2Mi\":\"2Mi\"},"
			  "\"resources\":{\"limits\":{\"cpu\":\"3\"}}");
	assert_int_equal(p->n_container_statuses, 2);
	const struct api_container_status *app = &p->container_statuses[0], *log = &p->container_statuses[1];
	assert_ptr_equal(app->name, intern_str("app"));
	assert_true(app->has_allocated && app->has_actual);
	assert_int_equal(app->allocated.cpu, 1000);
	assert_int_equal(app->allocated.memory, 1 << 30);
	assert_int_equal(app->actual.cpu, 750);
	assert_false(app->actual.has_memory);
	/* resources without requests: actuated requests absent (containerActuatedRequests' nil check) */
	assert_ptr_equal(log->name, intern_str("log"));
	assert_false(log->has_allocated);
	assert_false(log->has_actual);
	/* an empty map is present (non-nil in Go) */
	assert_int_equal(p->n_init_container_statuses, 1);
	assert_true(p->init_container_statuses[0].has_allocated);
	assert_false(p->init_container_statuses[0].allocated.has_cpu);
	/* pod level: status.resources present without requests */
	const struct api_pod_resize_status *rs = p->status_resources;
	assert_non_null(rs);
	assert_true(rs->has_allocated);
	assert_int_equal(rs->allocated.cpu, 1100);
	assert_int_equal(api_resources_scalar(&rs->allocated, intern_str("hugepages-2Mi")), 2 << 20);
	assert_false(rs->has_requests);
	assert_int_equal(p->n_conditions, 2);
	assert_string_equal(p->conditions[1].reason, "Infeasible");
	api_pod_unref(p);

	/* nothing reported (a pending pod) */
	p = TOBJ_POD(.name = "q");
	assert_int_equal(p->n_container_statuses, 0);
	assert_int_equal(p->n_init_container_statuses, 0);
	assert_null(p->status_resources);
	api_pod_unref(p);

	/* allocatedResources alone is never read (upstream needs status.resources): not kept */
	p = TOBJ_POD(.name = "a", .status = "\"allocatedResources\":{\"cpu\":\"1\"}");
	assert_null(p->status_resources);
	api_pod_unref(p);
}

static void test_resize_status_errors(void **state)
{
	(void)state;
	static const struct {
		const char *status, *msg;
	} cases[] = {
		{ "\"containerStatuses\":[{\"name\":\"c\",\"allocatedResources\":{\"cpu\":\"x\"}}]",
		  "pod default/bad: status.containerStatuses[0].allocatedResources.cpu: invalid quantity \"x\"" },
		{ "\"resources\":{\"requests\":[]}", "pod default/bad: status.resources.requests: expected object, got array" },
		{ "\"resources\":{},\"allocatedResources\":\"1\"",
		  "pod default/bad: status.allocatedResources: expected object, got string" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tobj_pod s = { .name = "bad", .status = cases[i].status };
		char *m = tobj_pod_manifest(&s);
		struct err e = { 0 };
		struct api_pod *p = api_pod_decode_json(m, strlen(m), &e);
		if (p || strncmp(e.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("case %zu: got %s \"%s\", want \"%s\"", i, p ? "a pod" : "error", e.msg, cases[i].msg);
		api_pod_unref(p);
		free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resize_status_decoded),
		cmocka_unit_test(test_resize_status_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
