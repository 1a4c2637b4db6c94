/* The differential test's DRA material (resource.k8s.io/v1): DeviceClasses with CEL selectors,
 * ResourceSlices (node-local, allNodes, nodeSelector, a pool whose shared counters are in a
 * slice of their own), ResourceClaims already allocated to devices (partially allocated
 * clusters), DeviceTaintRules, and the pending pod's claims (direct and from a template) with
 * selectors, counts, allocationMode All, firstAvailable lists, matchAttribute /
 * distinctAttribute constraints, adminAccess and tolerations of device taints. Drawn from a fifth
 * PRNG stream (g->d), only in the DRA seeds (GEN_DRA_SEED0 on, gen.h), so that every other seed's
 * state stays byte-identical. Objects are written as the API server serves them after defaulting
 * (allocationMode and count explicit, timeAdded on taints, UIDs set). See README.md. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t drnd(struct gen *g)
{
	uint64_t z = (g->d += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
int gen_d_int(struct gen *g, int n) { return n <= 1 ? 0 : (int)(drnd(g) % (uint64_t)n); }
bool gen_d_pct(struct gen *g, int pct) { return gen_d_int(g, 100) < pct; }
#define DPICK(g, arr) ((arr)[gen_d_int((g), (int)(sizeof(arr) / sizeof((arr)[0])))])

#define GPU "gpu.example.com"
#define NIC "nic.example.com"

/* A published device, as the generator remembers it for allocated claims. */
struct dev {
	const char *driver;
	char pool[40], name[32];
	int node; /* -1: not node-local (allNodes or a node selector) */
	bool gpu;
	bool shared; /* allowMultipleAllocations, with consumable bandwidth */
};
#define MAX_DEVS 160

struct dra {
	struct gen *g;
	int n_devs;
	struct dev devs[MAX_DEVS];
	const char *ns; /* the pending pod's namespace */
	bool ext_class;  /* the DeviceClass backing example.com/gpu is in the state */
};

static void add_obj(struct gen *g, enum gen_dra_kind k, struct strbuf *sb)
{
	if (g->n_dra_objs < GEN_MAX_DRA_OBJS) {
		g->dra_kind[g->n_dra_objs] = k;
		g->dra_objs[g->n_dra_objs++] = strbuf_detach(sb, NULL);
	} else {
		strbuf_release(sb);
	}
}

static void remember(struct dra *d, const char *driver, const char *pool, const char *name, int node, bool gpu)
{
	if (d->n_devs == MAX_DEVS)
		return;
	struct dev *v = &d->devs[d->n_devs++];
	v->driver = driver;
	snprintf(v->pool, sizeof(v->pool), "%s", pool);
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->node = node;
	v->gpu = gpu;
	v->shared = false;
}

/* A device taint (NoSchedule, NoExecute or None) on 12% of the devices. */
static void put_device_taint(struct gen *g, struct strbuf *sb)
{
	if (!gen_d_pct(g, 12))
		return;
	static const char *const effects[] = { "NoSchedule", "NoSchedule", "NoExecute", "None" };
	static const char *const keys[] = { GPU "/unhealthy", "example.com/maintenance" };
	strbuf_addf(sb, ",\"taints\":[{\"key\":\"%s\",\"value\":\"%s\",\"effect\":\"%s\",\"timeAdded\":\"2026-01-01T00:00:00Z\"}]",
		    DPICK(g, keys), gen_d_pct(g, 70) ? "true" : "soon", DPICK(g, effects));
}

/* A GPU device's attributes and capacity: model, index, ecc, driverVersion (a version), the
 * cross-driver example.com/numa, memory and cores; driverVersion absent on 3% (a selector
 * reading it then fails at run time). */
static void put_gpu(struct gen *g, struct strbuf *sb, const char *name, int index, int mem_gi, bool counters,
		    const char *counter_set, int counter_gi)
{
	static const char *const models[] = { "a100", "h100", "l4", "h200" };
	static const char *const versions[] = { "1.2.0", "1.10.0", "2.0.0", "1.5.0" };
	strbuf_addf(sb, "{\"name\":\"%s\",\"attributes\":{", name);
	if (!gen_d_pct(g, 3))
		strbuf_addf(sb, "\"driverVersion\":{\"version\":\"%s\"},", DPICK(g, versions));
	strbuf_addf(sb, "\"ecc\":{\"bool\":%s},\"example.com/numa\":{\"int\":%d},\"index\":{\"int\":%d},"
			"\"model\":{\"string\":\"%s\"}}",
		    gen_d_pct(g, 70) ? "true" : "false", gen_d_int(g, 2), index, DPICK(g, models));
	strbuf_addf(sb, ",\"capacity\":{\"cores\":{\"value\":\"%d\"},\"memory\":{\"value\":\"%dGi\"}}", 32 * (1 + gen_d_int(g, 4)),
		    mem_gi);
	if (counters)
		strbuf_addf(sb, ",\"consumesCounters\":[{\"counterSet\":\"%s\",\"counters\":{\"memory\":{\"value\":\"%dGi\"}}}]",
			    counter_set, counter_gi);
	put_device_taint(g, sb);
	strbuf_puts(sb, "}");
}

static void put_nic(struct gen *g, struct strbuf *sb, const char *name)
{
	static const int speeds[] = { 10, 25, 100 };
	strbuf_addf(sb, "{\"name\":\"%s\",\"attributes\":{\"example.com/numa\":{\"int\":%d},\"speed\":{\"int\":%d},"
			"\"sriov\":{\"bool\":%s}}",
		    name, gen_d_int(g, 2), DPICK(g, speeds), gen_d_pct(g, 50) ? "true" : "false");
	put_device_taint(g, sb);
	strbuf_puts(sb, "}");
}

static void slice_head(struct strbuf *sb, const char *name, const char *driver, const char *pool, int count)
{
	strbuf_addf(sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"%s\","
			"\"uid\":\"uid-slice-%s\"},\"spec\":{\"driver\":\"%s\",\"pool\":{\"name\":\"%s\",\"generation\":1,"
			"\"resourceSliceCount\":%d},",
		    name, name, driver, pool, count);
}

/* The slices: per node (80%) a GPU slice of 1-4 devices (or, 25% of them, a partitionable GPU:
 * a whole device and two halves consuming one counter set, published in a second slice of the
 * pool), per node (45%) a NIC slice; an allNodes NIC pool (40%) and a GPU pool for the nodes of
 * zone-a (30%). */
static void gen_slices(struct dra *d)
{
	struct gen *g = d->g;
	for (int i = 0; i < g->n_nodes; i++) {
		const char *node = g->node_names[i];
		if (gen_d_pct(g, 80)) {
			struct strbuf sb = STRBUF_INIT;
			char name[40];
			bool part = gen_d_pct(g, 25);
			snprintf(name, sizeof(name), "%s-gpu", node);
			slice_head(&sb, name, GPU, node, part ? 2 : 1);
			strbuf_addf(&sb, "\"nodeName\":\"%s\",\"devices\":[", node);
			if (part) {
				int mem = gen_d_pct(g, 50) ? 40 : 80;
				put_gpu(g, &sb, "gpu-0", 0, mem, true, "gpu-0-counters", mem);
				strbuf_puts(&sb, ",");
				put_gpu(g, &sb, "gpu-0-a", 0, mem / 2, true, "gpu-0-counters", mem / 2);
				strbuf_puts(&sb, ",");
				put_gpu(g, &sb, "gpu-0-b", 0, mem / 2, true, "gpu-0-counters", mem / 2);
				remember(d, GPU, node, "gpu-0", i, true);
				remember(d, GPU, node, "gpu-0-a", i, true);
				remember(d, GPU, node, "gpu-0-b", i, true);
			} else {
				int n = 1 + gen_d_int(g, 4);
				static const int mems[] = { 16, 40, 40, 80 };
				for (int k = 0; k < n; k++) {
					char dn[16];
					snprintf(dn, sizeof(dn), "gpu-%d", k);
					strbuf_puts(&sb, k ? "," : "");
					put_gpu(g, &sb, dn, k, DPICK(g, mems), false, NULL, 0);
					remember(d, GPU, node, dn, i, true);
				}
			}
			strbuf_puts(&sb, "]}}");
			add_obj(g, GEN_DRA_SLICE, &sb);
			if (part) {
				struct strbuf cs = STRBUF_INIT;
				snprintf(name, sizeof(name), "%s-gpu-counters", node);
				slice_head(&cs, name, GPU, node, 2);
				/* the counter set as large as the whole device: the halves and the whole
				 * exclude each other */
				strbuf_addf(&cs, "\"nodeName\":\"%s\",\"sharedCounters\":[{\"name\":\"gpu-0-counters\","
						 "\"counters\":{\"memory\":{\"value\":\"%dGi\"}}}]}}",
					    node, gen_d_pct(g, 85) ? 80 : 40);
				add_obj(g, GEN_DRA_SLICE, &cs);
			}
		}
		if (gen_d_pct(g, 45)) {
			struct strbuf sb = STRBUF_INIT;
			char name[40];
			snprintf(name, sizeof(name), "%s-nic", node);
			slice_head(&sb, name, NIC, node, 1);
			strbuf_addf(&sb, "\"nodeName\":\"%s\",\"devices\":[", node);
			int n = 1 + gen_d_int(g, 2);
			for (int k = 0; k < n; k++) {
				char dn[16];
				snprintf(dn, sizeof(dn), "nic-%d", k);
				strbuf_puts(&sb, k ? "," : "");
				put_nic(g, &sb, dn);
				remember(d, NIC, node, dn, i, false);
			}
			strbuf_puts(&sb, "]}}");
			add_obj(g, GEN_DRA_SLICE, &sb);
		}
	}
	if (gen_d_pct(g, 40)) {
		struct strbuf sb = STRBUF_INIT;
		slice_head(&sb, "fabric", NIC, "fabric", 1);
		strbuf_puts(&sb, "\"allNodes\":true,\"devices\":[");
		int n = 1 + gen_d_int(g, 2);
		for (int k = 0; k < n; k++) {
			char dn[16];
			snprintf(dn, sizeof(dn), "fab-%d", k);
			strbuf_puts(&sb, k ? "," : "");
			put_nic(g, &sb, dn);
			remember(d, NIC, "fabric", dn, -1, false);
		}
		strbuf_puts(&sb, "]}}");
		add_obj(g, GEN_DRA_SLICE, &sb);
	}
	/* DRAConsumableCapacity: NICs that several claims share (allowMultipleAllocations), each
	 * taking some of their bandwidth (requestPolicy: a default and a valid range with a step, or
	 * valid values; or none), on a node or on every node (30%) */
	if (gen_d_pct(g, 30)) {
		struct strbuf sb = STRBUF_INIT;
		bool all = gen_d_pct(g, 35);
		int node = gen_d_int(g, g->n_nodes);
		char name[40];
		snprintf(name, sizeof(name), "shared-%s", all ? "all" : g->node_names[node]);
		slice_head(&sb, name, NIC, name, 1);
		if (all)
			strbuf_puts(&sb, "\"allNodes\":true,\"devices\":[");
		else
			strbuf_addf(&sb, "\"nodeName\":\"%s\",\"devices\":[", g->node_names[node]);
		int n = 1 + gen_d_int(g, 2);
		static const char *const policies[] = {
			",\"requestPolicy\":{\"default\":\"1Gi\",\"validRange\":{\"min\":\"1Gi\",\"step\":\"1Gi\"}}",
			",\"requestPolicy\":{\"default\":\"2Gi\",\"validValues\":[\"2Gi\",\"4Gi\",\"8Gi\"]}",
			",\"requestPolicy\":{\"default\":\"500Mi\",\"validRange\":{\"min\":\"500Mi\",\"max\":\"6Gi\"}}",
			"",
		};
		for (int k = 0; k < n; k++) {
			char dn[16];
			snprintf(dn, sizeof(dn), "vnic-%d", k);
			strbuf_addf(&sb, "%s{\"name\":\"%s\",\"allowMultipleAllocations\":true,\"attributes\":{"
					 "\"example.com/numa\":{\"int\":%d},\"speed\":{\"int\":100},\"sriov\":{\"bool\":true}},"
					 "\"capacity\":{\"bandwidth\":{\"value\":\"%dGi\"%s}}}",
				    k ? "," : "", dn, gen_d_int(g, 2), 8 + 4 * gen_d_int(g, 2), DPICK(g, policies));
			remember(d, NIC, name, dn, all ? -1 : node, false);
			d->devs[d->n_devs - 1].shared = true;
		}
		strbuf_puts(&sb, "]}}");
		add_obj(g, GEN_DRA_SLICE, &sb);
	}
	/* perDeviceNodeSelection: a GPU pool whose devices each name their node (nodeName, a node
	 * selector on the zone, or allNodes) (15%) */
	if (gen_d_pct(g, 15)) {
		struct strbuf sb = STRBUF_INIT;
		slice_head(&sb, "per-device", GPU, "per-device", 1);
		strbuf_puts(&sb, "\"perDeviceNodeSelection\":true,\"devices\":[");
		int n = 1 + gen_d_int(g, 3);
		for (int k = 0; k < n; k++) {
			char dn[16];
			snprintf(dn, sizeof(dn), "pgpu-%d", k);
			strbuf_puts(&sb, k ? "," : "");
			put_gpu(g, &sb, dn, 20 + k, 40, false, NULL, 0);
			sb.len--; /* reopen the device object for its node selection */
			sb.data[sb.len] = '\0';
			int how = gen_d_int(g, 4), node = gen_d_int(g, g->n_nodes);
			if (how < 2)
				strbuf_addf(&sb, ",\"nodeName\":\"%s\"}", g->node_names[node]);
			else if (how == 2)
				strbuf_puts(&sb, ",\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":"
						 "\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":[\"zone-b\"]}]}]}}");
			else
				strbuf_puts(&sb, ",\"allNodes\":true}");
			remember(d, GPU, "per-device", dn, how < 2 ? node : -1, true);
		}
		strbuf_puts(&sb, "]}}");
		add_obj(g, GEN_DRA_SLICE, &sb);
	}
	if (gen_d_pct(g, 30)) {
		struct strbuf sb = STRBUF_INIT;
		slice_head(&sb, "zone-a-gpus", GPU, "zone-a-gpus", 1);
		strbuf_puts(&sb, "\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":"
				 "\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":[\"zone-a\"]}]}]},\"devices\":[");
		int n = 1 + gen_d_int(g, 2);
		for (int k = 0; k < n; k++) {
			char dn[16];
			snprintf(dn, sizeof(dn), "zgpu-%d", k);
			strbuf_puts(&sb, k ? "," : "");
			put_gpu(g, &sb, dn, 10 + k, 80, false, NULL, 0);
			remember(d, GPU, "zone-a-gpus", dn, -1, true);
		}
		strbuf_puts(&sb, "]}}");
		add_obj(g, GEN_DRA_SLICE, &sb);
	}
}

/* The DeviceClasses (each present in 99% of the states, so that a claim may name a missing one):
 * per driver, GPUs with >= 40Gi (quantity compareTo), GPUs of a newer driver (semver; a device
 * without driverVersion makes it fail at run time), any device, and one that backs the extended
 * resource example.com/gpu (DRAExtendedResource) in 15% of the states. */
static void gen_classes(struct dra *d)
{
	struct gen *g = d->g;
	static const struct {
		const char *name, *selector;
	} classes[] = {
		{ GPU, "device.driver == \\\"" GPU "\\\"" },
		{ NIC, "device.driver == \\\"" NIC "\\\"" },
		{ "big-gpu", "device.driver == \\\"" GPU "\\\" && device.capacity[\\\"" GPU
			     "\\\"].memory.compareTo(quantity(\\\"40Gi\\\")) >= 0" },
		{ "new-gpu", "device.driver == \\\"" GPU "\\\" && device.attributes[\\\"" GPU
			     "\\\"].driverVersion.isGreaterThan(semver(\\\"1.5.0\\\"))" },
		{ "any-device", NULL },
	};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (!gen_d_pct(g, 99))
			continue;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"%s\","
				 "\"uid\":\"uid-class-%s\"},\"spec\":{",
			    classes[i].name, classes[i].name);
		if (classes[i].selector)
			strbuf_addf(&sb, "\"selectors\":[{\"cel\":{\"expression\":\"%s\"}}]", classes[i].selector);
		strbuf_puts(&sb, "}}");
		add_obj(g, GEN_DRA_CLASS, &sb);
	}
	/* DRAExtendedResource: pods asking for example.com/gpu get it through the special claim
	 * on nodes that do not advertise it. Where the configuration scores example.com/gpu, the
	 * class has no selectors: upstream's BalancedAllocation then counts the devices without CEL
	 * (with a selector it dereferences its nil CEL cache and the scheduler panics), so both
	 * NodeResourcesFit's and BalancedAllocation's scoring of the DRA-backed resource compare. */
	if (gen_d_pct(g, 15)) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_puts(&sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"gpu-ext\","
				 "\"uid\":\"uid-class-gpu-ext\"},\"spec\":{");
		if (!strstr(g->config, "example.com/gpu"))
			strbuf_puts(&sb, "\"selectors\":[{\"cel\":{\"expression\":\"device.driver == \\\"" GPU "\\\"\"}}],");
		strbuf_puts(&sb, "\"extendedResourceName\":\"example.com/gpu\"}}");
		add_obj(g, GEN_DRA_CLASS, &sb);
		d->ext_class = true;
	}
}

/* A DeviceTaintRule (8% of the states) tainting one device, a pool or a whole driver. */
static void gen_taint_rules(struct dra *d)
{
	struct gen *g = d->g;
	if (!d->n_devs || !gen_d_pct(g, 8))
		return;
	const struct dev *v = &d->devs[gen_d_int(g, d->n_devs)];
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceTaintRule\",\"metadata\":{\"name\":\"rule-0\","
			 "\"uid\":\"uid-rule-0\"},\"spec\":{\"deviceSelector\":{\"driver\":\"%s\"",
		    v->driver);
	int scope = gen_d_int(g, 3);
	if (scope >= 1)
		strbuf_addf(&sb, ",\"pool\":\"%s\"", v->pool);
	if (scope == 2)
		strbuf_addf(&sb, ",\"device\":\"%s\"", v->name);
	strbuf_addf(&sb, "},\"taint\":{\"key\":\"example.com/maintenance\",\"value\":\"true\",\"effect\":\"%s\","
			 "\"timeAdded\":\"2026-01-01T00:00:00Z\"}}}",
		    gen_d_pct(g, 75) ? "NoSchedule" : "NoExecute");
	add_obj(g, GEN_DRA_TAINT_RULE, &sb);
}

/* A node selector as the allocator writes it for a node-local device (matchFields on the node's
 * name). */
static void put_alloc_node_selector(struct strbuf *sb, const char *node)
{
	strbuf_addf(sb, ",\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\","
			"\"operator\":\"In\",\"values\":[\"%s\"]}]}]}",
		    node);
}

/* The claims already allocated (55% of the states: 1-4 of them, in default or other), each to a
 * published device (or, 5%, to one no slice publishes), reserved for a bound pod of the device's
 * node (or for none); one of them may be an admin-access allocation, which blocks nothing. The
 * pending pod may share one (its_claim). */
static int gen_allocated(struct dra *d, char names[][32])
{
	struct gen *g = d->g;
	if (!d->n_devs || !gen_d_pct(g, 55))
		return 0;
	int n = 1 + gen_d_int(g, 4), made = 0;
	for (int k = 0; k < n; k++) {
		const struct dev *v = &d->devs[gen_d_int(g, d->n_devs)];
		bool ghost = gen_d_pct(g, 5);
		bool admin = gen_d_pct(g, 8);
		const char *ns = gen_d_pct(g, 20) ? "other" : d->ns;
		struct strbuf sb = STRBUF_INIT;
		snprintf(names[made], 32, "used-%d", k);
		strbuf_addf(&sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"used-%d\","
				 "\"namespace\":\"%s\",\"uid\":\"uid-claim-used-%d\",\"finalizers\":[\"resource.kubernetes.io/delete-protection\"]},"
				 "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"r0\",\"exactly\":{\"deviceClassName\":\"%s\","
				 "\"allocationMode\":\"ExactCount\",\"count\":1%s}}]}},",
			    k, ns, k, v->driver, admin ? ",\"adminAccess\":true" : "");
		char share[120] = "";
		if (v->shared) /* one share of the device, with the bandwidth it took */
			snprintf(share, sizeof(share),
				 ",\"shareID\":\"7c8b5c1e-0000-4000-8000-00000000000%d\",\"consumedCapacity\":{\"bandwidth\":\"%dGi\"}", k,
				 2 + 2 * gen_d_int(g, 3));
		strbuf_addf(&sb, "\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"r0\",\"driver\":\"%s\","
				 "\"pool\":\"%s\",\"device\":\"%s\"%s%s}]}",
			    v->driver, v->pool, ghost ? "gone-0" : v->name, admin ? ",\"adminAccess\":true" : "", share);
		if (v->node >= 0)
			put_alloc_node_selector(&sb, g->node_names[v->node]);
		strbuf_puts(&sb, ",\"allocationTimestamp\":\"2026-01-01T00:00:00Z\"}");
		/* reserved for a pod bound to the device's node (any bound pod of a shared device) */
		int holder = -1;
		for (int i = 0; i < g->n_pods && holder < 0; i++) {
			char at[40];
			snprintf(at, sizeof(at), "\"nodeName\":\"%s\"", v->node >= 0 ? g->node_names[v->node] : "");
			if ((v->node < 0 || strstr(g->pods[i], at)) && gen_d_pct(g, 60))
				holder = i;
		}
		char pname[32], puid[48];
		const char *m = holder >= 0 ? strstr(g->pods[holder], "\"metadata\":{\"name\":\"") : NULL;
		const char *u = holder >= 0 ? strstr(g->pods[holder], "\"uid\":\"") : NULL;
		if (m && u && sscanf(m + 20, "%31[^\"]", pname) == 1 && sscanf(u + 7, "%47[^\"]", puid) == 1)
			strbuf_addf(&sb, ",\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"%s\",\"uid\":\"%s\"}]", pname, puid);
		strbuf_puts(&sb, "}}");
		add_obj(g, GEN_DRA_CLAIM, &sb);
		if (!strcmp(ns, d->ns))
			made++;
	}
	return made;
}

/* Request selectors by the driver their class selects (NULL: any). The last of each list may
 * fail at run time on some devices (a missing attribute). */
static const char *const gpu_selectors[] = {
	"device.attributes[\\\"" GPU "\\\"].model == \\\"a100\\\"",
	"device.capacity[\\\"" GPU "\\\"].memory.isGreaterThan(quantity(\\\"20Gi\\\"))",
	"device.attributes[\\\"example.com\\\"].numa == 0",
	"device.attributes[\\\"" GPU "\\\"].ecc",
	"device.attributes[\\\"" GPU "\\\"].model.startsWith(\\\"h\\\")",
	"device.attributes[\\\"" GPU "\\\"].index < 2",
	"device.capacity[\\\"" GPU "\\\"].cores.compareTo(quantity(\\\"64\\\")) >= 0",
	"device.attributes[\\\"" GPU "\\\"].driverVersion.major() >= 2",
};
static const char *const nic_selectors[] = {
	"device.attributes[\\\"" NIC "\\\"].speed >= 25",
	"device.attributes[\\\"" NIC "\\\"].sriov",
	"device.attributes[\\\"example.com\\\"].numa == 1",
};
static const char *const any_selectors[] = {
	"device.driver == \\\"" NIC "\\\"",
	"device.driver != \\\"" NIC "\\\"",
	"\\\"" GPU "\\\" in device.attributes",
};

static const char *const gpu_classes[] = { GPU, GPU, GPU, "big-gpu", "new-gpu", "any-device" };

/* One ExactDeviceRequest or DeviceSubRequest body (without its name): class, selectors,
 * allocationMode and count, adminAccess, tolerations. */
static void put_device_request(struct gen *g, struct strbuf *sb, bool sub)
{
	const char *cls = gen_d_pct(g, 2) ? "missing-class" : gen_d_pct(g, 30) ? NIC : DPICK(g, gpu_classes);
	strbuf_addf(sb, "\"deviceClassName\":\"%s\"", cls);
	int nsel = gen_d_pct(g, 45) ? 1 + gen_d_pct(g, 25) : 0;
	if (nsel) {
		strbuf_puts(sb, ",\"selectors\":[");
		for (int i = 0; i < nsel; i++) {
			const char *s = !strcmp(cls, NIC)	 ? DPICK(g, nic_selectors)
					: !strcmp(cls, "any-device") ? DPICK(g, any_selectors)
								     : DPICK(g, gpu_selectors);
			strbuf_addf(sb, "%s{\"cel\":{\"expression\":\"%s\"}}", i ? "," : "", s);
		}
		strbuf_puts(sb, "]");
	}
	int m = gen_d_int(g, 100);
	if (m < 7)
		strbuf_puts(sb, ",\"allocationMode\":\"All\"");
	else
		strbuf_addf(sb, ",\"allocationMode\":\"ExactCount\",\"count\":%d", m < 80 ? 1 : m < 97 ? 2 : 3);
	if (!sub && gen_d_pct(g, 6))
		strbuf_puts(sb, ",\"adminAccess\":true");
	/* bandwidth from a shareable NIC (DRAConsumableCapacity); other devices have none: the
	 * request then cannot use them */
	if (!strcmp(cls, NIC) && gen_d_pct(g, 30)) {
		static const char *const bw[] = { "1Gi", "2Gi", "3Gi", "4Gi", "1500Mi", "8Gi" };
		strbuf_addf(sb, ",\"capacity\":{\"requests\":{\"bandwidth\":\"%s\"}}", DPICK(g, bw));
	}
	if (gen_d_pct(g, 22)) {
		static const char *const tols[] = {
			"{\"key\":\"" GPU "/unhealthy\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}",
			"{\"key\":\"" GPU "/unhealthy\",\"operator\":\"Equal\",\"value\":\"true\"}",
			"{\"operator\":\"Exists\"}",
			"{\"key\":\"example.com/maintenance\",\"operator\":\"Exists\",\"effect\":\"NoExecute\"}",
			"{\"key\":\"example.com/maintenance\",\"operator\":\"Equal\",\"value\":\"true\",\"effect\":\"NoSchedule\"}",
		};
		strbuf_addf(sb, ",\"tolerations\":[%s]", DPICK(g, tols));
	}
}

/* A claim for the pending pod: 1-2 requests (exactly, or firstAvailable with 2-3 subrequests),
 * and sometimes a constraint: matchAttribute on the cross-driver example.com/numa or the GPU
 * model, distinctAttribute on the GPU index or numa, over all requests or some. */
static void put_claim_spec(struct gen *g, struct strbuf *sb)
{
	int nreq = gen_d_pct(g, 30) ? 2 : 1;
	strbuf_puts(sb, "\"spec\":{\"devices\":{\"requests\":[");
	bool fa[2] = { false, false };
	for (int r = 0; r < nreq; r++) {
		strbuf_addf(sb, "%s{\"name\":\"r%d\",", r ? "," : "", r);
		if ((fa[r] = gen_d_pct(g, 25))) {
			int ns = 2 + gen_d_pct(g, 30);
			strbuf_puts(sb, "\"firstAvailable\":[");
			for (int s = 0; s < ns; s++) {
				strbuf_addf(sb, "%s{\"name\":\"s%d\",", s ? "," : "", s);
				put_device_request(g, sb, true);
				strbuf_puts(sb, "}");
			}
			strbuf_puts(sb, "]}");
		} else {
			strbuf_puts(sb, "\"exactly\":{");
			put_device_request(g, sb, false);
			strbuf_puts(sb, "}}");
		}
	}
	strbuf_puts(sb, "]");
	if (gen_d_pct(g, 35)) {
		static const char *const match[] = { "example.com/numa", "example.com/numa", GPU "/model" };
		static const char *const distinct[] = { GPU "/index", "example.com/numa" };
		strbuf_puts(sb, ",\"constraints\":[{");
		if (nreq == 2 && gen_d_pct(g, 40))
			strbuf_addf(sb, "\"requests\":[\"r0\",\"%s\"],", fa[1] && gen_d_pct(g, 50) ? "r1/s0" : "r1");
		else if (gen_d_pct(g, 20))
			strbuf_puts(sb, "\"requests\":[\"r0\"],");
		if (gen_d_pct(g, 65))
			strbuf_addf(sb, "\"matchAttribute\":\"%s\"}]", DPICK(g, match));
		else
			strbuf_addf(sb, "\"distinctAttribute\":\"%s\"}]", DPICK(g, distinct));
	}
	strbuf_puts(sb, "}}");
}

/* The pending pod's claims (1-2, 5% 3): its own unallocated claims (claim-K), a claim made from a
 * template (status.resourceClaimStatuses names it; owned by the pod), a claim already allocated
 * to another pod (shared), a missing one (3%). Inserts spec.resourceClaims and, for the template,
 * status.resourceClaimStatuses into g->pod. */
static void gen_pod_claims(struct dra *d, char used[][32], int n_used)
{
	struct gen *g = d->g;
	int n = gen_d_pct(g, 5) ? 3 : 1 + gen_d_pct(g, 25);
	struct strbuf rc = STRBUF_INIT, st = STRBUF_INIT;
	for (int k = 0; k < n; k++) {
		int kind = gen_d_int(g, 100);
		strbuf_addf(&rc, "{\"name\":\"c%d\",", k);
		if (kind < 3) {
			strbuf_puts(&rc, "\"resourceClaimName\":\"missing-claim\"}");
		} else if (kind < 15 && n_used) {
			strbuf_addf(&rc, "\"resourceClaimName\":\"%s\"}", used[gen_d_int(g, n_used)]);
		} else if (kind < 30) {
			char name[32];
			snprintf(name, sizeof(name), "p-c%d-x7k2q", k);
			strbuf_puts(&rc, "\"resourceClaimTemplateName\":\"tmpl\"}");
			strbuf_addf(&st, "%s{\"name\":\"c%d\",\"resourceClaimName\":\"%s\"}", st.len ? "," : "", k, name);
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"%s\","
					 "\"namespace\":\"%s\",\"uid\":\"uid-claim-%s\",\"annotations\":{\"resource.kubernetes.io/pod-claim-name\":"
					 "\"c%d\"},\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"name\":\"p\",\"uid\":\"uid-p\","
					 "\"controller\":true,\"blockOwnerDeletion\":true}]},",
				    name, d->ns, name, k);
			put_claim_spec(g, &sb);
			strbuf_puts(&sb, "}");
			add_obj(g, GEN_DRA_CLAIM, &sb);
		} else {
			strbuf_addf(&rc, "\"resourceClaimName\":\"claim-%d\"}", k);
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"claim-%d\","
					 "\"namespace\":\"%s\",\"uid\":\"uid-claim-%d\"},",
				    k, d->ns, k);
			put_claim_spec(g, &sb);
			strbuf_puts(&sb, "}");
			add_obj(g, GEN_DRA_CLAIM, &sb);
		}
		strbuf_puts(&rc, k + 1 < n ? "," : "");
	}
	/* spec.resourceClaims first in spec; the template claims' names in status */
	struct strbuf pod = STRBUF_INIT;
	const char *spec = strstr(g->pod, "\"spec\":{");
	size_t head = (size_t)(spec - g->pod) + strlen("\"spec\":{");
	strbuf_addf(&pod, "%.*s\"resourceClaims\":[%s],%s", (int)head, g->pod, rc.data, g->pod + head);
	if (st.len) {
		const char *status = strstr(pod.data, "\"status\":{");
		struct strbuf p2 = STRBUF_INIT;
		if (status) {
			size_t h2 = (size_t)(status - pod.data) + strlen("\"status\":{");
			strbuf_addf(&p2, "%.*s\"resourceClaimStatuses\":[%s],%s", (int)h2, pod.data, st.data, pod.data + h2);
		} else { /* {...,"spec":{...}} -> {...,"spec":{...},"status":{...}} */
			strbuf_addf(&p2, "%.*s,\"status\":{\"resourceClaimStatuses\":[%s]}}", (int)(pod.len - 1), pod.data, st.data);
		}
		strbuf_release(&pod);
		pod = p2;
	}
	free(g->pod);
	g->pod = strbuf_detach(&pod, NULL);
	strbuf_release(&rc);
	strbuf_release(&st);
}

/* In 75% of the DRA states the pending pod is a small one (100m cpu, 64Mi, mostly tolerating
 * every node taint) instead of the first stream's, so that DynamicResources decides most nodes'
 * fate; the others keep the first stream's pod, for DRA beside every other plugin. */
static void small_pod(struct gen *g)
{
	if (!gen_d_pct(g, 75))
		return;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"%s\","
			 "\"uid\":\"uid-p\"},\"spec\":{\"schedulerName\":\"default-scheduler\",\"containers\":[{\"name\":\"c0\","
			 "\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"cpu\":\"100m\","
			 "\"memory\":\"64Mi\"}}}]",
		    gen_d_pct(g, 15) ? "prod" : "default");
	if (gen_d_pct(g, 75))
		strbuf_puts(&sb, ",\"tolerations\":[{\"operator\":\"Exists\"}]");
	strbuf_puts(&sb, "}}");
	free(g->pod);
	g->pod = strbuf_detach(&sb, NULL);
}

/* Where the class backing example.com/gpu exists, the small pending pod asks for 1-2 of them in
 * 60% of the states (in 30% of those an init container too, 1-3), so that the special claim is
 * built, allocated beside the pod's own claims and compared with the oracle's, and where the
 * configuration scores example.com/gpu (scoringStrategy and BalancedAllocation resources), the
 * devices behind it are scored (gen_classes leaves that class without selectors). */
static void ext_requests(struct dra *d)
{
	struct gen *g = d->g;
	/* small_pod's one container, whose requests end with its memory */
	const char *mem = strstr(g->pod, "\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]");
	if (!d->ext_class || !mem || !gen_d_pct(g, 60))
		return;
	mem += strlen("\"cpu\":\"100m\",");
	struct strbuf sb = STRBUF_INIT;
	/* after the requests object: limits equal to the requests (an extended resource cannot be
	 * overcommitted, the API server insists) */
	size_t head = (size_t)(mem - g->pod) + strlen("\"memory\":\"64Mi\"");
	int n = 1 + gen_d_int(g, 2);
	if (gen_d_pct(g, 30)) {
		const char *c = strstr(g->pod, "\"containers\":[");
		size_t ch = (size_t)(c - g->pod);
		int k = 1 + gen_d_int(g, 3);
		strbuf_addf(&sb, "%.*s\"initContainers\":[{\"name\":\"i0\",\"image\":\"registry.k8s.io/pause:3.10\","
				 "\"resources\":{\"requests\":{\"example.com/gpu\":\"%d\"},\"limits\":{\"example.com/gpu\":\"%d\"}}}],"
				 "%.*s,\"example.com/gpu\":\"%d\"},\"limits\":{\"example.com/gpu\":\"%d\"%s",
			    (int)ch, g->pod, k, k, (int)(head - ch), g->pod + ch, n, n, g->pod + head);
	} else {
		strbuf_addf(&sb, "%.*s,\"example.com/gpu\":\"%d\"},\"limits\":{\"example.com/gpu\":\"%d\"%s", (int)head,
			    g->pod, n, n, g->pod + head);
	}
	free(g->pod);
	g->pod = strbuf_detach(&sb, NULL);
}

void gen_dra(struct gen *g)
{
	struct dra d = { .g = g };
	small_pod(g);
	const char *at = strstr(g->pod, "\"namespace\":\"");
	d.ns = at && !strncmp(at + 13, "prod\"", 5) ? "prod" : "default";
	gen_classes(&d);
	ext_requests(&d);
	gen_slices(&d);
	gen_taint_rules(&d);
	char used[4][32];
	int n_used = gen_allocated(&d, used);
	gen_pod_claims(&d, used, n_used);
}
