/* config/: every validation and decoding error, with its exact message, file, line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "algorithm/framework.h"
#include "config/config.h"
#include "config/cfg_internal.h"

#define H "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
#define FIT_ARGS H "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"

struct error_case {
	const char *name;
	const char *doc;
	const char *want;
};

static const struct error_case config_cases[] = {
	{ "wrong apiVersion", "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
	  "t.yaml:1:13: apiVersion: unsupported apiVersion \"kubescheduler.config.k8s.io/v1beta3\": csched reads kubescheduler.config.k8s.io/v1 only" },
	{ "wrong kind", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
	  "t.yaml:2:7: kind: unsupported kind \"Policy\": want KubeSchedulerConfiguration" },
	{ "missing apiVersion", "kind: KubeSchedulerConfiguration\n",
	  "t.yaml:1:1: apiVersion: Required value: want kubescheduler.config.k8s.io/v1" },
	{ "missing kind", "apiVersion: kubescheduler.config.k8s.io/v1\n",
	  "t.yaml:1:1: kind: Required value: want KubeSchedulerConfiguration" },
	{ "unknown top-level field", H "parallelizm: 4\n", "t.yaml:3:14: parallelizm: unknown field \"parallelizm\"" },
	{ "unknown nested field", H "leaderElection:\n  leaderElect: true\n  leaseDurashun: 15s\n",
	  "t.yaml:5:18: leaderElection.leaseDurashun: unknown field \"leaseDurashun\"" },
	{ "unknown field in a plugin", H "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        wieght: 2\n",
	  "t.yaml:8:17: profiles[0].plugins.score.enabled[0].wieght: unknown field \"wieght\"" },
	{ "unknown extension point", H "profiles:\n- plugins:\n    scoring: {}\n",
	  "t.yaml:5:14: profiles[0].plugins.scoring: unknown field \"scoring\"" },
	{ "duplicate field", H "parallelism: 4\nparallelism: 5\n", "t.yaml:4:1: parallelism: duplicate field \"parallelism\"" },
	{ "integer expected", H "parallelism: many\n", "t.yaml:3:14: parallelism: expected an integer, got \"many\"" },
	{ "quoted integer", H "parallelism: \"4\"\n", "t.yaml:3:14: parallelism: expected an integer, got \"4\"" },
	{ "int32 overflow", H "parallelism: 3000000000\n",
	  "t.yaml:3:14: parallelism: 3000000000 is out of range [-2147483648, 2147483647]" },
	{ "boolean expected", H "delayCacheUntilActive: yes\n",
	  "t.yaml:3:24: delayCacheUntilActive: expected a boolean (true or false), got \"yes\"" },
	{ "string expected", H "profiles:\n- schedulerName: 42\n", "t.yaml:4:18: profiles[0].schedulerName: expected a string, got 42" },
	{ "mapping expected", H "leaderElection: true\n", "t.yaml:3:17: leaderElection: expected a mapping, got a scalar" },
	{ "sequence expected", H "profiles: {}\n", "t.yaml:3:11: profiles: expected a sequence, got a mapping" },
	{ "parallelism zero", H "parallelism: 0\n",
	  "t.yaml:3:14: parallelism: Invalid value: 0: should be an integer value greater than zero" },
	{ "percentageOfNodesToScore out of range", H "percentageOfNodesToScore: 101\n",
	  "t.yaml:3:27: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]" },
	{ "profile percentageOfNodesToScore out of range", H "profiles:\n- percentageOfNodesToScore: -1\n",
	  "t.yaml:4:29: profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]" },
	{ "initial backoff zero", H "podInitialBackoffSeconds: 0\n",
	  "t.yaml:3:27: podInitialBackoffSeconds: Invalid value: 0: must be greater than 0" },
	{ "max backoff below initial", H "podInitialBackoffSeconds: 20\n",
	  /* upstream validation.go ValidateKubeSchedulerConfiguration (oracle: its output on this file) */
	  "t.yaml:1:1: podMaxBackoffSeconds: Invalid value: 10: must be greater than or equal to PodInitialBackoffSeconds" },
	{ "max backoff below initial, both given", H "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n",
	  "t.yaml:4:23: podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to PodInitialBackoffSeconds" },
	{ "score weight zero",
	  H "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n      - name: NodeAffinity\n        weight: 0\n",
	  "t.yaml:9:17: profiles[0].plugins.score.enabled[1].weight: must be in the range 1..100, got 0" },
	{ "score weight too big", H "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: ImageLocality\n        weight: 101\n",
	  "t.yaml:8:17: profiles[0].plugins.multiPoint.enabled[0].weight: must be in the range 1..100, got 101" },
	{ "plugin without name", H "profiles:\n- plugins:\n    filter:\n      enabled:\n      - weight: 1\n",
	  "t.yaml:7:9: profiles[0].plugins.filter.enabled[0]: name: Required value" },
	{ "unknown plugin", H "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Foo\n",
	  "t.yaml:7:9: profiles[0].plugins.filter.enabled[0]: unknown plugin \"Foo\"" },
	{ "unknown plugin disabled", H "profiles:\n- plugins:\n    filter:\n      disabled:\n      - name: NodeAffinty\n",
	  "t.yaml:7:9: profiles[0].plugins.filter.disabled[0]: unknown plugin \"NodeAffinty\"" },
	/* upstream ValidateDynamicResourcesArgs with v1.37's gates (both fields allowed) */
	{ "dynamic resources negative filterTimeout",
	  H "profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args:\n      filterTimeout: -1s\n",
	  "t.yaml:7:22: profiles[0].pluginConfig[0].args.filterTimeout: Invalid value: \"-1s\": must be zero or positive" },
	{ "dynamic resources bindingTimeout below a second",
	  H "profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args:\n      bindingTimeout: 500ms\n",
	  "t.yaml:7:23: profiles[0].pluginConfig[0].args.bindingTimeout: Invalid value: \"500ms\": must be at least 1 second" },
	{ "dynamic resources unknown field",
	  H "profiles:\n- pluginConfig:\n  - name: DynamicResources\n    args:\n      filterTimeoutSeconds: 1\n",
	  "t.yaml:7:29: profiles[0].pluginConfig[0].args.filterTimeoutSeconds: unknown field \"filterTimeoutSeconds\"" },
	{ "plugin at a point it does not implement", H "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeName\n",
	  "t.yaml:7:9: profiles[0].plugins.score.enabled[0]: plugin \"NodeName\" does not extend ScorePlugin plugin" },
	{ "plugin twice at a point", H "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeName\n      - name: NodeName\n",
	  "t.yaml:8:9: profiles[0].plugins.filter.enabled[1]: plugin \"NodeName\" already registered as \"FilterPlugin\"" },
	{ "plugin twice in multiPoint", H "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: NodeName\n      - name: NodeName\n",
	  "t.yaml:8:9: profiles[0].plugins.multiPoint.enabled[1]: plugin \"NodeName\" is enabled more than once (first at enabled[0])" },
	{ "removed plugin", H "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: EBSLimits\n",
	  "t.yaml:7:9: profiles[0].plugins.filter.enabled[0]: \"EBSLimits\": was invalid in version \"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")" },
	{ "duplicate schedulerName", H "profiles:\n- schedulerName: a\n- schedulerName: a\n",
	  /* upstream field.Duplicate(..., profilesPath.Index(idx).Child("schedulerName")): a *field.Path
	   * as the value, which json.Marshal renders as {} (oracle: ValidateKubeSchedulerConfiguration
	   * on this file) */
	  "t.yaml:5:18: profiles[1].schedulerName: Duplicate value: {}" },
	{ "schedulerName required with several profiles", H "profiles:\n- schedulerName: a\n- percentageOfNodesToScore: 5\n",
	  "t.yaml:5:3: profiles[1].schedulerName: Required value" },
	{ "different queueSort", H "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      disabled:\n      - name: '*'\n",
	  /* upstream validateCommonQueueSort: the set as JSON (oracle: ValidateKubeSchedulerConfiguration) */
	  "t.yaml:8:7: profiles[1].plugins.queueSort: Invalid value: {\"Enabled\":null,\"Disabled\":[{\"Name\":\"*\",\"Weight\":0}]}: must be the same for all profiles" },
	{ "different queueSort, enabled and disabled",
	  H "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled:\n      - name: PrioritySort\n        weight: 3\n      disabled:\n      - name: PrioritySort\n      - name: '*'\n",
	  "t.yaml:8:7: profiles[1].plugins.queueSort: Invalid value: {\"Enabled\":[{\"Name\":\"PrioritySort\",\"Weight\":3}],\"Disabled\":[{\"Name\":\"PrioritySort\",\"Weight\":0},{\"Name\":\"*\",\"Weight\":0}]}: must be the same for all profiles" },
	/* upstream checks a profile's percentageOfNodesToScore before its name against the earlier
	 * ones (oracle: both errors, this one first) */
	{ "profile percentage before a duplicate name",
	  H "profiles:\n- schedulerName: a\n- schedulerName: a\n  percentageOfNodesToScore: 101\n",
	  "t.yaml:6:29: profiles[1].percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]" },
	{ "no queue sort plugin", H "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: PrioritySort\n",
	  "t.yaml:5:5: profiles[0].plugins: only one queue sort plugin required for profile with scheduler name \"csched\", but got 0" },
	{ "no bind plugin", H "profiles:\n- plugins:\n    bind:\n      disabled:\n      - name: DefaultBinder\n",
	  "t.yaml:5:5: profiles[0].plugins: at least one bind plugin is needed for profile with scheduler name \"csched\"" },
	{ "leaseDuration not above renewDeadline", H "leaderElection:\n  leaseDuration: 10s\n",
	  "t.yaml:4:18: leaderElection.leaseDuration: Invalid value: \"10s\": LeaseDuration must be greater than RenewDeadline (10s)" },
	{ "renewDeadline not above retryPeriod*1.2", H "leaderElection:\n  renewDeadline: 2s\n",
	  "t.yaml:4:18: leaderElection.renewDeadline: Invalid value: \"2s\": renewDeadline must be greater than retryPeriod*JitterFactor (2s*1.2 = 2.4s)" },
	{ "negative retryPeriod", H "leaderElection:\n  retryPeriod: -1s\n",
	  "t.yaml:4:16: leaderElection.retryPeriod: Invalid value: \"-1s\": must be greater than zero" },
	{ "leader election checks skipped when disabled", H "leaderElection:\n  leaderElect: false\n  leaseDuration: 1s\n  resourceLock: endpoints\nparallelism: -2\n",
	  "t.yaml:7:14: parallelism: Invalid value: -2: should be an integer value greater than zero" },
	{ "duration without unit", H "leaderElection:\n  retryPeriod: 2\n",
	  "t.yaml:4:16: leaderElection.retryPeriod: invalid duration \"2\" (want a Go duration such as \"15s\", \"1m30s\" or \"500ms\")" },
	{ "resourceLock", H "leaderElection:\n  resourceLock: endpoints\n",
	  "t.yaml:4:17: leaderElection.resourceLock: Invalid value: \"endpoints\": resourceLock value must be \"leases\"" },
	{ "negative burst", H "clientConnection:\n  burst: -1\n",
	  "t.yaml:4:10: clientConnection.burst: Invalid value: -1: must be non-negative" },
	{ "qps not a number", H "clientConnection:\n  qps: fast\n", "t.yaml:4:8: clientConnection.qps: expected a number, got \"fast\"" },
	{ "extender without urlPrefix", H "extenders:\n- filterVerb: f\n", "t.yaml:4:3: extenders[0].urlPrefix: Required value" },
	{ "prioritize extender without weight", H "extenders:\n- urlPrefix: http://x\n  prioritizeVerb: p\n",
	  "t.yaml:4:3: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it" },
	{ "two bind extenders", H "extenders:\n- urlPrefix: http://a\n  bindVerb: b\n- urlPrefix: http://b\n  bindVerb: b\n",
	  "t.yaml:4:1: extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can implement bind" },
	{ "extender managed resource not extended", H "extenders:\n- urlPrefix: http://a\n  managedResources:\n  - name: cpu\n",
	  "t.yaml:6:11: extenders[0].managedResources[0].name: Invalid value: \"cpu\": is an invalid extended resource name" },
	{ "extender managed resource duplicate", H "extenders:\n- urlPrefix: http://a\n  managedResources:\n  - name: a.com/x\n  - name: a.com/x\n",
	  "t.yaml:7:11: extenders[0].managedResources[1].name: Invalid value: \"a.com/x\": duplicate extender managed resource name" },
	{ "extender bad base64", H "extenders:\n- urlPrefix: http://a\n  tlsConfig:\n    caData: abc\n",
	  "t.yaml:6:13: extenders[0].tlsConfig.caData: illegal base64 data: length 3 is not a multiple of 4" },
	{ "extender enableHttps is the legacy spelling", H "extenders:\n- urlPrefix: http://a\n  enableHttps: true\n",
	  "t.yaml:5:16: extenders[0].enableHttps: unknown field \"enableHttps\"" },
	{ "fit resource weight", FIT_ARGS "      scoringStrategy:\n        type: LeastAllocated\n        resources:\n        - name: cpu\n          weight: 101\n",
	  "t.yaml:11:19: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]" },
	/* upstream TestValidateFitArgs "multi invalid resources": weights 0 and 101, the first reported
	 * (csched stops at the first error). */
	{ "fit resource weights", FIT_ARGS "      scoringStrategy:\n        type: LeastAllocated\n        resources:\n        - name: cpu\n          weight: -1\n        - name: memory\n          weight: 101\n",
	  "t.yaml:11:19: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of cpu not in valid range (0, 100]" },
	{ "fit scoring type", FIT_ARGS "      scoringStrategy:\n        type: Foo\n",
	  "t.yaml:8:15: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"Foo\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"" },
	{ "fit scoring type missing", FIT_ARGS "      scoringStrategy:\n        resources: []\n",
	  "t.yaml:8:9: profiles[0].pluginConfig[0].args.scoringStrategy: type: Unsupported value: \"\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"" },
	{ "fit RTCR without shape", FIT_ARGS "      scoringStrategy:\n        type: RequestedToCapacityRatio\n",
	  "t.yaml:8:9: profiles[0].pluginConfig[0].args.scoringStrategy: requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio" },
	{ "fit RTCR args with another type", FIT_ARGS "      scoringStrategy:\n        type: LeastAllocated\n        requestedToCapacityRatio:\n          shape: []\n",
	  "t.yaml:8:9: profiles[0].pluginConfig[0].args.scoringStrategy: requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio" },
	{ "fit RTCR empty shape", FIT_ARGS "      scoringStrategy:\n        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape: []\n",
	  "t.yaml:10:18: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified" },
	{ "fit RTCR shape not increasing",
	  FIT_ARGS "      scoringStrategy:\n        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape:\n          - utilization: 50\n            score: 1\n          - utilization: 50\n            score: 2\n",
	  "t.yaml:13:26: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 50: values must be sorted in increasing order" },
	{ "fit RTCR score above 10",
	  FIT_ARGS "      scoringStrategy:\n        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape:\n          - utilization: 0\n            score: 11\n",
	  "t.yaml:12:20: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]" },
	{ "fit RTCR utilization above 100",
	  FIT_ARGS "      scoringStrategy:\n        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape:\n          - utilization: 101\n            score: 1\n",
	  "t.yaml:11:26: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]" },
	{ "fit ignoredResourceGroups with a slash", FIT_ARGS "      ignoredResourceGroups: [example.com/x]\n",
	  "t.yaml:7:31: profiles[0].pluginConfig[0].args.ignoredResourceGroups[0]: Invalid value: \"example.com/x\": resource group name can't contain '/'" },
	{ "args kind mismatch", FIT_ARGS "      kind: NodeAffinityArgs\n",
	  "t.yaml:7:13: profiles[0].pluginConfig[0].args.kind: args for plugin NodeResourcesFit were not of type NodeResourcesFitArgs, got NodeAffinityArgs" },
	{ "args apiVersion mismatch", FIT_ARGS "      apiVersion: kubescheduler.config.k8s.io/v1beta3\n",
	  "t.yaml:7:19: profiles[0].pluginConfig[0].args.apiVersion: args for plugin NodeResourcesFit must have apiVersion kubescheduler.config.k8s.io/v1, got \"kubescheduler.config.k8s.io/v1beta3\"" },
	{ "args unknown field", FIT_ARGS "      scoringStrategyy: {}\n",
	  "t.yaml:7:25: profiles[0].pluginConfig[0].args.scoringStrategyy: unknown field \"scoringStrategyy\"" },
	{ "pluginConfig duplicate", H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: NodeAffinity\n",
	  "t.yaml:6:5: profiles[0].pluginConfig[1]: Duplicate value: \"NodeAffinity\"" },
	{ "pluginConfig unknown plugin", H "profiles:\n- pluginConfig:\n  - name: MyPlugin\n    args: {}\n",
	  "t.yaml:5:11: profiles[0].pluginConfig[0]: unknown plugin \"MyPlugin\"" },
	{ "pluginConfig args for a plugin without args", H "profiles:\n- pluginConfig:\n  - name: ImageLocality\n    args:\n      foo: 1\n",
	  "t.yaml:7:7: profiles[0].pluginConfig[0].args: plugin ImageLocality takes no args" },
	{ "balanced weight must be 1", H "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - name: cpu\n        weight: 2\n",
	  "t.yaml:9:17: profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 2: must be 1" },
	{ "balanced duplicate resource", H "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - name: cpu\n      - name: cpu\n",
	  "t.yaml:9:15: profiles[0].pluginConfig[0].args.resources[1].name: Duplicate value: \"cpu\"" },
	/* upstream ValidateNodeResourcesBalancedAllocationArgs checks each resource in turn, its name
	 * (duplicate) then its weight: resources[0].weight comes before resources[1].name. */
	{ "balanced weight before a later duplicate", H "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - name: cpu\n        weight: 2\n      - name: cpu\n",
	  "t.yaml:9:17: profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 2: must be 1" },
	{ "node affinity operator",
	  H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: zone\n              operator: Near\n",
	  /* NodeAffinity rows: oracle, upstream ValidateKubeSchedulerConfiguration on the same file
	   * (ValidateNodeAffinityArgs: component-helpers nodeaffinity, apimachinery labels.NewRequirement) */
	  "t.yaml:12:25: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Near\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"" },
	{ "node affinity In without values",
	  H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: zone\n              operator: In\n",
	  "t.yaml:11:15: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty" },
	{ "node affinity In with an empty list", H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: zone\n              operator: In\n              values: []\n",
	  "t.yaml:13:23: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty" },
	{ "node affinity Exists with values", H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: zone\n              operator: Exists\n              values: [a]\n",
	  "t.yaml:13:23: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: [\"a\"]: values set must be empty for exists and does not exist" },
	{ "node affinity Lt with two values", H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: cores\n              operator: Lt\n              values: [\"1\", \"2\"]\n",
	  "t.yaml:13:23: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' operators, exactly one value is required" },
	{ "node affinity Gt not an integer",
	  H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: cores\n              operator: Gt\n              values: [\"x\"]\n",
	  "t.yaml:13:24: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer" },
	{ "node affinity field selector values",
	  H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution:\n        - weight: 5\n          preference:\n            matchFields:\n            - key: metadata.name\n              operator: In\n              values: [a, b]\n",
	  "t.yaml:9:11: profiles[0].pluginConfig[0].args.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values: Invalid value: [\"a\",\"b\"]: must have one element" },
	/* labels.NewRequirement: the key's and each value's messages (oracle; several are joined with
	 * "; ", but such messages outgrow struct err's 512 bytes) */
	{ "node affinity key", H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: -zone\n              operator: Exists\n",
	  "t.yaml:11:20: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: \"-zone\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')" },
	{ "node affinity value", H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n          nodeSelectorTerms:\n          - matchExpressions:\n            - key: zone\n              operator: In\n              values: [\"-a\"]\n",
	  "t.yaml:13:24: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0][zone]: Invalid value: \"-a\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')" },
	/* metav1validation.ValidateLabelName: one error per message, the first shown (oracle) */
	{ "topology spread key", H "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: \"-zone\"\n        whenUnsatisfiable: DoNotSchedule\n",
	  "t.yaml:10:22: profiles[0].pluginConfig[0].args.defaultConstraints[0].topologyKey: Invalid value: \"-zone\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')" },
	{ "node affinity field selector operator before its values",
	  H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution:\n        - weight: 5\n          preference:\n            matchFields:\n            - key: metadata.name\n              operator: Exists\n",
	  "t.yaml:9:11: profiles[0].pluginConfig[0].args.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].operator: Unsupported value: \"Exists\": supported values: \"In\", \"NotIn\"" },
	{ "node affinity podAffinity is not node affinity",
	  H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        podAffinity: {}\n",
	  "t.yaml:8:22: profiles[0].pluginConfig[0].args.addedAffinity.podAffinity: unknown field \"podAffinity\"" },
	{ "topology spread System with constraints",
	  H "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: System\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: DoNotSchedule\n",
	  "t.yaml:7:23: profiles[0].pluginConfig[0].args.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty" },
	{ "topology spread labelSelector forbidden",
	  H "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: DoNotSchedule\n        labelSelector: {}\n",
	  "t.yaml:12:24: profiles[0].pluginConfig[0].args.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod" },
	{ "topology spread maxSkew",
	  H "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - topologyKey: zone\n        whenUnsatisfiable: DoNotSchedule\n",
	  "t.yaml:9:9: profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)" },
	{ "topology spread duplicate constraint",
	  H "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n      - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
	  "t.yaml:10:9: profiles[0].pluginConfig[0].args.defaultConstraints[1]: Duplicate value: \"{zone, DoNotSchedule}\"" },
	{ "inter-pod affinity weight", H "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: 101\n",
	  "t.yaml:7:30: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]" },
	{ "preemption both zero",
	  H "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 0\n      minCandidateNodesAbsolute: 0\n",
	  "t.yaml:7:36: profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute" },
	{ "preemption percentage", H "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 200\n",
	  "t.yaml:7:36: profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 200: not in valid range [0, 100]" },
	{ "volume binding negative timeout", H "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      bindTimeoutSeconds: -1\n",
	  "t.yaml:7:27: profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value" },
	/* StorageCapacityScoring is on in v1.37: the shape is validated as upstream's
	 * validateFunctionShape (an empty one is defaulted, see test_config) */
	{ "volume binding shape score", H "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      shape:\n      - utilization: 0\n        score: 11\n",
	  "t.yaml:9:16: profiles[0].pluginConfig[0].args.shape[0].score: Invalid value: 11: not in valid range [0, 10]" },
	{ "volume binding shape not increasing",
	  H "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      shape:\n      - utilization: 50\n        score: 1\n      - utilization: 50\n        score: 2\n",
	  "t.yaml:10:22: profiles[0].pluginConfig[0].args.shape[1].utilization: Invalid value: 50: values must be sorted in increasing order" },
};

static const struct error_case policy_cases[] = {
	{ "wrong kind", "kind: KubeSchedulerConfiguration\napiVersion: v1\n",
	  "t.yaml:1:7: kind: unsupported kind \"KubeSchedulerConfiguration\": want Policy" },
	{ "wrong apiVersion", "kind: Policy\napiVersion: v2\n", "t.yaml:2:13: apiVersion: unsupported apiVersion \"v2\": want v1" },
	{ "unknown field", "kind: Policy\napiVersion: v1\npredicate: []\n", "t.yaml:3:12: predicate: unknown field \"predicate\"" },
	{ "unknown predicate", "kind: Policy\napiVersion: v1\npredicates:\n- name: Foo\n",
	  "t.yaml:4:9: predicates[0].name: predicate type not found for \"Foo\"" },
	{ "predicate removed upstream", "kind: Policy\napiVersion: v1\npredicates:\n- name: HostName\n- name: CheckServiceAffinity\n",
	  "t.yaml:5:9: predicates[1].name: predicate \"CheckServiceAffinity\" is not supported by csched: its ServiceAffinity plugin was removed upstream in v1.23" },
	{ "predicate for a removed cloud plugin", "kind: Policy\napiVersion: v1\npredicates:\n- name: MaxEBSVolumeCount\n",
	  "t.yaml:4:9: predicates[0].name: predicate \"MaxEBSVolumeCount\" is not supported by csched: its EBSLimits plugin was removed upstream in v1.32 (use MaxCSIVolumeCountPred)" },
	{ "predicate argument", "kind: Policy\napiVersion: v1\npredicates:\n- name: zone\n  argument:\n    labelsPresence:\n      labels: [zone]\n      presence: true\n",
	  "t.yaml:7:7: predicates[0].argument.labelsPresence: the labelsPresence argument (NodeLabel) is not supported by csched (its plugin was removed upstream in v1.23)" },
	{ "duplicate predicate", "kind: Policy\napiVersion: v1\npredicates:\n- name: HostName\n- name: HostName\n",
	  "t.yaml:5:9: predicates[1].name: duplicate predicate name HostName" },
	{ "duplicate priority", "kind: Policy\napiVersion: v1\npriorities:\n- name: EqualPriority\n  weight: 1\n- name: EqualPriority\n  weight: 2\n",
	  "t.yaml:6:9: priorities[1].name: duplicate priority name EqualPriority" },
	/* (no priority maps to a plugin csched lacks once InterPodAffinity and PodTopologySpread are in) */
	{ "priority removed upstream", "kind: Policy\napiVersion: v1\npriorities:\n- name: NodePreferAvoidPodsPriority\n  weight: 10\n",
	  "t.yaml:4:9: priorities[0].name: priority \"NodePreferAvoidPodsPriority\" is not supported by csched: its NodePreferAvoidPods plugin was removed upstream in v1.24" },
	{ "unknown priority", "kind: Policy\napiVersion: v1\npriorities:\n- name: RequestedToCapacityRatioPriority\n  weight: 1\n",
	  "t.yaml:4:9: priorities[0].name: priority type not found for \"RequestedToCapacityRatioPriority\" (it needs argument.requestedToCapacityRatioArguments)" },
	{ "priority weight zero", "kind: Policy\napiVersion: v1\npriorities:\n- name: ImageLocalityPriority\n  weight: 0\n",
	  "t.yaml:5:11: priorities[0].weight: must be in the range 1..100, got 0" },
	{ "priority without weight", "kind: Policy\napiVersion: v1\npriorities:\n- name: ImageLocalityPriority\n",
	  "t.yaml:4:3: priorities[0]: weight: priority ImageLocalityPriority should have a positive weight applied to it" },
	{ "least and most requested together",
	  "kind: Policy\napiVersion: v1\npriorities:\n- name: LeastRequestedPriority\n  weight: 1\n- name: MostRequestedPriority\n  weight: 1\n",
	  "t.yaml:6:9: priorities[1].name: priority \"MostRequestedPriority\" cannot be combined with LeastRequestedPriority: both map to NodeResourcesFit's single scoringStrategy" },
	{ "RTCR shape", "kind: Policy\napiVersion: v1\npriorities:\n- name: rtcr\n  weight: 1\n  argument:\n    requestedToCapacityRatioArguments:\n      shape:\n      - utilization: 10\n        score: 20\n",
	  "t.yaml:10:16: priorities[0].argument.requestedToCapacityRatioArguments.shape[0].score: Invalid value: 20: not in valid range [0, 10]" },
	{ "hardPodAffinitySymmetricWeight", "kind: Policy\napiVersion: v1\nhardPodAffinitySymmetricWeight: 101\n",
	  "t.yaml:3:33: hardPodAffinitySymmetricWeight: Invalid value: 101: not in valid range [0-100]" },
	{ "alwaysCheckAllPredicates", "kind: Policy\napiVersion: v1\nalwaysCheckAllPredicates: true\n",
	  "t.yaml:3:27: alwaysCheckAllPredicates: alwaysCheckAllPredicates: true is not supported by csched (filters stop at a node's first failure, as in KubeSchedulerConfiguration)" },
	{ "legacy extender httpTimeout is nanoseconds", "kind: Policy\napiVersion: v1\nextenders:\n- urlPrefix: http://a\n  httpTimeout: 5s\n",
	  "t.yaml:5:16: extenders[0].httpTimeout: expected an integer, got \"5s\"" },
	{ "legacy extender weight", "{\"kind\":\"Policy\",\"apiVersion\":\"v1\",\"extenders\":[{\"urlPrefix\":\"http://a\",\"prioritizeVerb\":\"p\"}]}",
	  "t.yaml:1:49: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it" },
};

/* Resource lists upstream accepts: ValidateNodeResourcesFitArgs (validateResources) checks only
 * weights, ValidateNodeResourcesBalancedAllocationArgs only duplicates and weights; neither
 * validates a resource's name (upstream validation_pluginargs.go; no TestValidateFitArgs row
 * rejects a name or a repeated resource). */
static const char *const accepted_docs[] = {
	FIT_ARGS "      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: -cpu\n",
	FIT_ARGS "      scoringStrategy:\n        type: LeastAllocated\n        resources:\n        - name: cpu\n        - name: cpu\n          weight: 3\n",
	H "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - name: -cpu\n      - name: example.com/a/b\n",
	/* oracle (ValidateKubeSchedulerConfiguration): NodeResourcesFitArgs are not validated with the
	 * configuration (validation.go's validatePluginConfig keys them "NodeResourcesFitArgs"), only by
	 * NewFit: a profile without the plugin never builds it */
	H "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: NodeResourcesFit\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n"
	  "      scoringStrategy:\n        type: LeastAllocated\n        resources:\n        - name: cpu\n          weight: 101\n",
	/* oracle (ValidateKubeSchedulerConfiguration): NewPreferredSchedulingTerms checks no weight
	 * and skips a term of weight 0, even a broken one */
	H "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      addedAffinity:\n        preferredDuringSchedulingIgnoredDuringExecution:\n"
	  "        - weight: 0\n          preference:\n            matchExpressions:\n            - key: zone\n              operator: In\n"
	  "        - weight: 200\n          preference:\n            matchExpressions:\n            - key: zone\n              operator: Exists\n"
	  "        - weight: -3\n          preference:\n            matchFields:\n            - key: spec.anything\n              operator: In\n              values: [a]\n",
};

static void test_accepted_resources(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < sizeof(accepted_docs) / sizeof(accepted_docs[0]); i++) {
		struct config c;
		struct err e = { 0 };
		int rc = config_load_buffer(&c, fw_registry(), "t.yaml", accepted_docs[i], strlen(accepted_docs[i]), &e);
		if (rc != 0) {
			print_error("accepted_docs[%zu]: rc %d: %s\n", i, rc, e.msg);
			failures++;
		}
		config_free(&c);
	}
	assert_int_equal(failures, 0);
}

/* apimachinery validate/content messages, several joined with "; " as labels.NewRequirement
 * joins them (oracle: ValidateKubeSchedulerConfiguration on a NodeAffinityArgs key
 * "Example.com/" and a value of 71 characters starting with '-'). */
static void test_label_messages(void **state)
{
	(void)state;
	char buf[1024];
	const char *name_re = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
			      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
			      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
	char want[1024];
	snprintf(want, sizeof(want),
		 "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
		 "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
		 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'); name part must be "
		 "non-empty; name part %s",
		 name_re);
	assert_string_equal(cfg_check_label_key("Example.com/", buf, sizeof(buf)), want);
	snprintf(want, sizeof(want),
		 "a valid label key %s with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')", name_re);
	assert_string_equal(cfg_check_label_key("a/b/c", buf, sizeof(buf)), want);
	assert_null(cfg_check_label_key("example.com/My_Name.1", buf, sizeof(buf)));
	/* ValidateLabelName's first error */
	assert_string_equal(cfg_check_qualified_name("Example.com/"),
			    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
			    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
			    "'example.com', regex used for validation is "
			    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
	assert_string_equal(cfg_check_label_value("-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", buf,
						  sizeof(buf)),
			    "must be no more than 63 bytes; a valid label must be an empty string or consist of "
			    "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
			    "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
			    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
	assert_null(cfg_check_label_value("", buf, sizeof(buf)));
}

static void run(const struct error_case *cases, size_t n, bool policy)
{
	int failures = 0;
	for (size_t i = 0; i < n; i++) {
		struct config c;
		struct err e = { 0 };
		int rc = policy ? config_load_policy_buffer(&c, fw_registry(), "t.yaml", cases[i].doc, strlen(cases[i].doc), &e)
				: config_load_buffer(&c, fw_registry(), "t.yaml", cases[i].doc, strlen(cases[i].doc), &e);
		if (rc != ERR_INVALID || strcmp(e.msg, cases[i].want) != 0) {
			print_error("%s: rc %d\n  got: %s\n want: %s\n", cases[i].name, rc, e.msg, cases[i].want);
			failures++;
		}
		config_free(&c);
	}
	assert_int_equal(failures, 0);
}

static void test_config_errors(void **state)
{
	(void)state;
	run(config_cases, sizeof(config_cases) / sizeof(config_cases[0]), false);
}

static void test_policy_errors(void **state)
{
	(void)state;
	run(policy_cases, sizeof(policy_cases) / sizeof(policy_cases[0]), true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_policy_errors),
		cmocka_unit_test(test_accepted_resources),
		cmocka_unit_test(test_label_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
