/* The differential test's generator of small random cluster states (gen.c). */
#ifndef CSCHED_TESTS_DIFFERENTIAL_GEN_H
#define CSCHED_TESTS_DIFFERENTIAL_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strbuf.h"

#define GEN_MAX_NODES 12
#define GEN_MAX_PODS 96
#define GEN_MAX_CTRS 8
#define GEN_MAX_PVCS 8
#define GEN_MAX_NOMINATED 3
#define GEN_MAX_NAMESPACES 4
#define GEN_MAX_OWNERS 12
#define GEN_POD_LABEL_KINDS 4
#define GEN_MAX_PDBS 4
#define GEN_MAX_VOL_OBJS 48
#define GEN_MAX_DRA_OBJS 64
/* Seeds from here on are DRA states (the fifth stream, g->d): a seed range of their own, so that
 * the DRA material never changes the other seeds' states (nor their expected outputs). */
#define GEN_DRA_SEED0 1000000u

/* The kinds of object whose pod selector PodTopologySpread's system defaults read (the values
 * are apiclient's enum api_selector_kind). */
enum gen_owner_kind { GEN_SERVICE, GEN_RC, GEN_RS, GEN_SS };

/* One state: each object is a malloc'd JSON string (gen_release frees them). */
/* The volume objects of struct gen's vol_objs, in the oracle's input keys' order. */
enum gen_vol_kind { GEN_VOL_PV, GEN_VOL_SC, GEN_VOL_CSINODE, GEN_VOL_CSIDRIVER, GEN_VOL_VA, GEN_VOL_KINDS };
/* The DRA objects of struct gen's dra_objs, in the oracle's input keys' order. */
enum gen_dra_kind { GEN_DRA_CLASS, GEN_DRA_SLICE, GEN_DRA_CLAIM, GEN_DRA_TAINT_RULE, GEN_DRA_KINDS };

struct gen {
	uint64_t s; /* PRNG state */
	/* A second PRNG stream for the pod-topology material (pod labels and (anti-)affinity,
	 * spread constraints, namespaces, owners, topology node labels), drawn only when the
	 * registry implements InterPodAffinity or PodTopologySpread (topo): without them every
	 * state stays byte-identical to the generator before them, and with them the first stream's
	 * draws (every older field) stay as they were. */
	uint64_t t;
	bool topo;
	/* A third stream for the preemption material (pod priorities and preemptionPolicy, start
	 * times, pods terminating by preemption, PodDisruptionBudgets), drawn only when the registry
	 * implements DefaultPreemption (preempt), for the same reason. */
	uint64_t p;
	bool preempt;
	int pend_nom;   /* node index the pending pod is nominated to (status.nominatedNodeName), -1: none */
	int node_pod_k; /* index of the bound pod being generated among its node's */
	int n_fillers, filler_idx[GEN_MAX_PODS]; /* preempt: the filler pods' indices (names f<idx>) */
	bool guarded;   /* preempt: the bound pods outrank the pending pod, only filler pods are victims */
	int node_cpu_m[GEN_MAX_NODES], node_mem_mi[GEN_MAX_NODES]; /* capacity (for preempt's filler pods) */
	int pod_labels[GEN_POD_LABEL_KINDS]; /* of the pod being generated: value index, -1 = absent */
	bool pod_level_resources;
	bool host_network;  /* of the pod being generated: containerPort == hostPort */
	bool scratch_mount; /* of the pod being generated: it has the emptyDir volume "scratch" */
	uint64_t used_ports[10240 / 64]; /* hostPorts of the pod being generated */
	int n_ctr, ctr_cpu[GEN_MAX_CTRS], ctr_mem[GEN_MAX_CTRS]; /* the pod's regular containers */
	char *config;                    /* KubeSchedulerConfiguration YAML */
	int n_nodes, n_pods;
	char node_names[GEN_MAX_NODES][16];
	char *nodes[GEN_MAX_NODES];
	char *pods[GEN_MAX_PODS]; /* bound pods */
	int n_nominated;
	char *nominated[GEN_MAX_NOMINATED]; /* pending pods with status.nominatedNodeName */
	int n_pvcs;
	char *pvcs[GEN_MAX_PVCS]; /* PersistentVolumeClaims (the oracle's "pvcs", csched's PVC lister) */
	char *pod;                /* the pod to schedule */
	int n_namespaces;
	char *namespaces[GEN_MAX_NAMESPACES]; /* Namespace objects (labels for namespaceSelector) */
	int n_owners;
	char *owners[GEN_MAX_OWNERS]; /* Services, RCs, ReplicaSets, StatefulSets */
	enum gen_owner_kind owner_kind[GEN_MAX_OWNERS];
	int n_pdbs;
	char *pdbs[GEN_MAX_PDBS]; /* policy/v1 PodDisruptionBudgets (preempt) */
	/* A fourth stream for the volume material (PersistentVolumes of the bound PVCs with zone and
	 * region labels and various sources, the StorageClass "standard", CSINodes, CSIDrivers,
	 * VolumeAttachments, more claims on the pending pod), drawn only when the registry implements
	 * VolumeZone or NodeVolumeLimits (vol), for the same reason. */
	uint64_t v;
	bool vol;
	int n_vol_objs;
	char *vol_objs[GEN_MAX_VOL_OBJS];
	enum gen_vol_kind vol_kind[GEN_MAX_VOL_OBJS];
	/* A fifth stream for the DRA material (gen_dra.c: DeviceClasses, ResourceSlices,
	 * ResourceClaims, DeviceTaintRules, the pending pod's claims), drawn only in the DRA seeds
	 * (dra: seed >= GEN_DRA_SEED0, or DIFFERENTIAL_DRA=1), so that the other seeds' states
	 * never change with it; their configuration has DynamicResources as the registry has it,
	 * the DRA states' always. */
	uint64_t d;
	bool dra;
	int n_dra_objs;
	char *dra_objs[GEN_MAX_DRA_OBJS];
	enum gen_dra_kind dra_kind[GEN_MAX_DRA_OBJS];
};

/* Fills g with the state of seed (deterministic on every platform). */
void gen_state(struct gen *g, uint64_t seed);
void gen_release(struct gen *g);
/* The oracle's input: {"config", "nodes", "pods", "pvcs", "pod"} on one line ("pods" holds the
 * bound pods, then the nominated ones), with "namespaces", "services", "replicationControllers",
 * "replicaSets", "statefulSets" when g->topo, "pdbs" when g->preempt, and "pvs", "storageClasses",
 * "csiNodes", "csiDrivers" and "objects" (VolumeAttachments) when g->vol, "deviceClasses",
 * "resourceSlices", "resourceClaims", "deviceTaintRules" when g->dra. Caller frees. */
char *gen_state_json(const struct gen *g);
/* gen_dra.c: the DRA material of a DRA state (after the pending pod, whose claims it adds). */
void gen_dra(struct gen *g);
/* The fifth stream's draws (gen_dra.c): a number below n; true with pct percent. */
int gen_d_int(struct gen *g, int n);
bool gen_d_pct(struct gen *g, int pct);
/* Appends s as a JSON string literal. */
void gen_json_str(struct strbuf *sb, const char *s);

#endif
