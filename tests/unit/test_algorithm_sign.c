/* OpportunisticBatching's scheduling signatures (algorithm/sign.c, config_profile_sign_mask): two
 * pods sign equal in csched iff upstream's framework SignPod gives them equal signatures.
 *
 * upstream: tests/fixtures/batching/signpods (scheduler.New with the fixture's config, then the
 * profile's SignPod, as the scheduling queue signs) on tests/fixtures/batching/sign_*.json; per
 * pod, sign_*.out holds the index of the first pod with an equal signature, -1 when unsigned. The
 * pods port upstream's signer tables (kube-scheduler framework/signers_test.go TestHostPortsSigner
 * "multiple containers, unsorted host ports, duplicates", TestTolerationsSigner "multiple
 * tolerations, unsorted", TestNodeAffinitySigner "nil affinity", "empty affinity", "affinity
 * unsorted", TestVolumesSigner "only ignored volumes (ConfigMap, Secret)") and add the cases
 * csched's decoder must tell apart (toleration operator "" and "Equal", tolerations of equal key
 * and value in either order, absent and empty nodeAffinity, the inferred NodeDeclaredFeatures).
 *
 * Volumes (sign_mp vol-*): upstream signs json.Marshal of each source but configMap and secret
 * (VolumesSigner); the pods carry projected service-account token volumes (equal, and differing in
 * audience, expirationSeconds, path, defaultMode, field order), emptyDir (null sizeLimit, sizeLimit,
 * medium, twice), hostPath, PVC, downwardAPI, CSI ephemeral (attribute order), generic ephemeral,
 * and pods differing only in volume names or order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "algorithm/framework_internal.h"
#include "config/config.h"
#include "testutil.h"

#define MAX_PODS 128

#define HEAD "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"

static void check(const char *name, const char *yaml)
{
	char path[256], err[256];
	size_t len;
	struct err e = { 0 };
	static struct config cfg;
	memset(&cfg, 0, sizeof(cfg));
	if (config_load_buffer(&cfg, fw_registry(), name, yaml, strlen(yaml), &e) < 0)
		fail_msg("config: %s", e.msg);
	uint32_t mask = config_profile_sign_mask(&cfg.profiles[0], fw_registry());
	assert_true(mask & CFG_SIGN_ON);

	snprintf(path, sizeof(path), "tests/fixtures/batching/%s.json", name);
	char *json = testutil_read_source_file(path, &len);
	assert_non_null(json);
	yajl_val root = yajl_tree_parse(json, err, sizeof(err));
	if (!root)
		fail_msg("%s: %s", path, err);
	snprintf(path, sizeof(path), "tests/fixtures/batching/%s.out", name);
	char *out = testutil_read_source_file(path, &len);
	assert_non_null(out);
	static const char *pods_path[] = { "pods", NULL };
	yajl_val pods = yajl_tree_get(root, pods_path, yajl_t_array);
	assert_non_null(pods);
	assert_true(pods->u.array.len <= MAX_PODS);

	static struct fw_sig sigs[MAX_PODS];
	bool is_signed[MAX_PODS];
	char *line = out;
	int failures = 0;
	for (size_t i = 0; i < pods->u.array.len; i++) {
		struct api_pod *pod = api_pod_decode(pods->u.array.values[i], &e);
		if (!pod)
			fail_msg("pod %zu: %s", i, e.msg);
		memset(&sigs[i], 0, sizeof(sigs[i]));
		is_signed[i] = fw_sign_pod(mask, NULL, pod, &sigs[i]);
		int got = -1;
		for (size_t j = 0; is_signed[i] && j <= i; j++)
			if (is_signed[j] && fw_sig_equal(&sigs[j], &sigs[i])) {
				got = (int)j;
				break;
			}
		int want;
		char pname[64];
		assert_int_equal(sscanf(line, "%d %63s", &want, pname), 2);
		assert_string_equal(pname, pod->meta.name);
		if (got != want) {
			print_error("%s: pod %s: class %d, upstream %d\n", name, pname, got, want);
			failures++;
		}
		line = strchr(line, '\n') + 1;
		api_pod_unref(pod);
	}
	for (size_t i = 0; i < pods->u.array.len; i++)
		fw_sig_release(&sigs[i]);
	yajl_tree_free(root);
	free(json);
	free(out);
	config_free(&cfg);
	assert_int_equal(failures, 0);
}

/* PodTopologySpread disabled at multiPoint: every other default plugin signs */
static void test_sign_multipoint(void **state)
{
	(void)state;
	check("sign_mp", HEAD "  plugins:\n    multiPoint:\n      disabled:\n      - name: PodTopologySpread\n");
}

/* defaultingType List without default constraints: PodTopologySpread refuses pods with
 * topologySpreadConstraints ("spread": -1) */
static void test_sign_list(void **state)
{
	(void)state;
	check("sign_list", HEAD "  pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n");
}

/* InterPodAffinity and NodeAffinity off too: labels, pod (anti-)affinity, node affinity and
 * nodeSelector leave the signature */
static void test_sign_no_interpod_nodeaffinity(void **state)
{
	(void)state;
	check("sign_no_ipa_na", HEAD "  plugins:\n    multiPoint:\n      disabled:\n      - name: PodTopologySpread\n      - name: InterPodAffinity\n      - name: NodeAffinity\n");
}

/* A profile upstream signs no pod of (PodTopologySpread's system default constraints): mask 0,
 * every pod unsigned. */
static void test_sign_default_profile_off(void **state)
{
	(void)state;
	static struct config cfg;
	struct err e = { 0 };
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(config_load_buffer(&cfg, fw_registry(), "default", HEAD, strlen(HEAD), &e), 0);
	assert_int_equal(config_profile_sign_mask(&cfg.profiles[0], fw_registry()), 0);
	config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_multipoint),
		cmocka_unit_test(test_sign_list),
		cmocka_unit_test(test_sign_no_interpod_nodeaffinity),
		cmocka_unit_test(test_sign_default_profile_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
