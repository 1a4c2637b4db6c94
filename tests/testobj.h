/* Builders of the model objects tests need (apiclient/api_types.h): pods and nodes, with their
 * containers, resources, ports, labels, selectors, affinity, taints, tolerations, images and
 * volumes. Unit tests, bench programs and integration tests share them.
 *
 * A builder renders a v1 manifest (JSON) from a spec and decodes it with api_*_decode_json, so a
 * built object is exactly what the decoder makes of that manifest (interned strings, defaults).
 * tobj_*_manifest gives the manifest itself (e.g. to POST it to an API server).
 *
 * Specs are plain structs written with designated initialisers; every field is optional:
 *
 *	struct api_pod *p = TOBJ_POD(.node = "n1", .containers = { { .req = "cpu=100m,memory=1Gi" } });
 *	struct api_node *n = TOBJ_NODE(.name = "n1", .alloc = "cpu=4,memory=32Gi,pods=110",
 *				       .labels = "zone=a", .taints = "dedicated=gpu:NoSchedule");
 *
 * Compact syntaxes (items separated by commas):
 *   resources    "cpu=100m,memory=1Gi,example.com/gpu=2"  (quantities as in a manifest; "" = {})
 *   labels       "k=v,k2=v2"
 *   taints       "key=value:Effect" or "key:Effect" (kubectl taint syntax)
 *   tolerations  "key=value:Effect" (Equal), "key:Effect" (Exists), ":Effect" (Exists, every key);
 *                the Effect may be left out (every effect): ":" tolerates every taint
 *   ports        "[PROTO/[IP/]]HOSTPORT[:CONTAINERPORT]": "80" (hostPort = containerPort = 80),
 *                "8080:80", "0:80" (containerPort 80 only), "UDP/10.0.0.1/53:80"
 *   images       "name|alias=sizeBytes", e.g. "nginx:1.25|docker.io/library/nginx:1.25=60000000"
 *   gates        "a,b" (schedulingGates names)
 *   pvcs         "claim1,claim2" (persistentVolumeClaim volumes v0, v1...)
 *   node affinity  required nodeSelectorTerms: requirements "key Op v1,v2" (Op as in the API:
 *                In, NotIn, Exists, DoesNotExist, Gt, Lt), ";" between the requirements of a
 *                term (ANDed), "|" between terms (ORed); metadata.name requirements are
 *                matchFields, the others matchExpressions:
 *                "zone In a,b; gpu Exists | metadata.name In node1"
 * Anything else goes in as raw JSON members (.spec, .status) or arrays (*_json).
 *
 * Ownership: every builder returns an object holding one reference, owned by the caller, dropped
 * with api_pod_unref / api_node_unref. A manifest is malloc'd; the caller frees it.
 * Errors (a spec that does not decode) are bugs in the test: the builder prints the manifest and
 * the decoder's message and aborts. */
#ifndef CSCHED_TESTOBJ_H
#define CSCHED_TESTOBJ_H

#include <stdbool.h>
#include <stdint.h>

#include "apiclient/api_types.h"

#define TOBJ_MAX_CONTAINERS 4

struct tobj_container {
	const char *name;  /* "c" */
	const char *image; /* "i" */
	const char *req;   /* resources.requests; NULL = no requests key */
	const char *lim;   /* resources.limits; NULL = no limits key */
	const char *ports; /* NULL = no ports */
	bool sidecar;      /* restartPolicy Always (init containers) */
};

struct tobj_pod {
	const char *name;   /* default "p<N>", N counting every pod built with a default name */
	const char *ns;     /* "default" */
	const char *uid;    /* "uid-<name>" */
	const char *rv;     /* metadata.resourceVersion; none when NULL */
	const char *labels;
	const char *node;      /* spec.nodeName */
	const char *scheduler; /* spec.schedulerName */
	const char *priority;  /* spec.priority as written ("10", "-5"); none when NULL */
	/* Containers: the first n_containers entries, or those up to the first all-empty one when
	 * n_containers is 0; no entry at all = one container {"name":"c","image":"i"}.
	 * containers_json (a JSON array, "[]" = none) replaces them. */
	struct tobj_container containers[TOBJ_MAX_CONTAINERS];
	uint32_t n_containers;
	const char *containers_json;
	struct tobj_container inits[TOBJ_MAX_CONTAINERS]; /* counted like containers; none by default */
	uint32_t n_inits;
	const char *inits_json;
	const char *overhead;      /* resources */
	const char *pod_req;       /* spec.resources.requests (pod-level resources) */
	const char *node_selector; /* labels */
	const char *tolerations;
	const char *affinity;      /* the spec.affinity object, raw JSON */
	const char *node_affinity; /* required node affinity (instead of affinity) */
	const char *gates;
	const char *pvcs;
	const char *spec;      /* more spec members, raw JSON ("\"hostNetwork\":true") */
	const char *nominated; /* status.nominatedNodeName */
	const char *status;    /* more status members, raw JSON */
};

/* A spec.affinity object requiring the nodeSelectorTerms terms (a JSON array literal). */
#define TOBJ_NODE_AFFINITY(terms) \
	"{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":" terms "}}}"

/* A spec.affinity object: required anti-affinity to every pod (no selector) in the topology key. */
#define TOBJ_POD_ANTI_AFFINITY(topology_key) \
	"{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"topologyKey\":\"" \
	topology_key "\"}]}}"

struct tobj_node {
	const char *name; /* default "n<N>" */
	const char *uid;  /* none when NULL */
	const char *labels;
	const char *cap;   /* status.capacity; none when NULL */
	const char *alloc; /* status.allocatable; none when NULL */
	const char *taints;
	const char *images;
	bool unschedulable;
	bool ready; /* a Ready=True condition */
	const char *spec;   /* more spec members, raw JSON */
	const char *status; /* more status members, raw JSON */
};

/* s NULL = every default (a pod "p<N>" with one container, a bare node "n<N>"). */
struct api_pod *tobj_pod(const struct tobj_pod *s);
struct api_node *tobj_node(const struct tobj_node *s);
#define TOBJ_POD(...) tobj_pod(&(struct tobj_pod){ __VA_ARGS__ })
#define TOBJ_NODE(...) tobj_node(&(struct tobj_node){ __VA_ARGS__ })

/* The v1 manifests the builders decode (apiVersion and kind included); malloc'd. */
char *tobj_pod_manifest(const struct tobj_pod *s);
char *tobj_node_manifest(const struct tobj_node *s);

/* Objects from whole manifests (printf format), for cases written as upstream's JSON. */
struct api_pod *tobj_pod_json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct api_node *tobj_node_json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Objects from the manifests in tests/fixtures/api (name: "pod_rich.json"). */
struct api_pod *tobj_pod_fixture(const char *name);
struct api_node *tobj_node_fixture(const char *name);

#endif
