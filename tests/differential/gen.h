/* The differential test's generator of small random cluster states (gen.c). */
#ifndef CSCHED_TESTS_DIFFERENTIAL_GEN_H
#define CSCHED_TESTS_DIFFERENTIAL_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strbuf.h"

#define GEN_MAX_NODES 12
#define GEN_MAX_PODS 40
#define GEN_MAX_CTRS 8
#define GEN_MAX_PVCS 8
#define GEN_MAX_NOMINATED 3

/* One state: each object is a malloc'd JSON string (gen_release frees them). */
struct gen {
	uint64_t s; /* PRNG state */
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
};

/* Fills g with the state of seed (deterministic on every platform). */
void gen_state(struct gen *g, uint64_t seed);
void gen_release(struct gen *g);
/* The oracle's input: {"config", "nodes", "pods", "pvcs", "pod"} on one line ("pods" holds the
 * bound pods, then the nominated ones). Caller frees. */
char *gen_state_json(const struct gen *g);
/* Appends s as a JSON string literal. */
void gen_json_str(struct strbuf *sb, const char *s);

#endif
