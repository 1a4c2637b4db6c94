/* NodeInfo arithmetic: upstream's PodRequests (component-helpers/resource/helpers.go), the
 * NodeInfo add/remove bookkeeping (framework/types.go) and deep copies for snapshots. */
#include "cache/node_info.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/intern.h"

#define DEFAULT_MILLI_CPU 100               /* schedutil.DefaultMilliCPURequest */
#define DEFAULT_MEMORY (200 * 1024 * 1024)  /* schedutil.DefaultMemoryRequest */

static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static const char *name_any_ip, *name_tcp;

static void names_init(void)
{
	name_any_ip = intern_str("0.0.0.0");
	name_tcp = intern_str("TCP");
}

/* ---------- Resource names ---------- */

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* DNS-1123 subdomain: lowercase alphanumerics, '-' and '.', alphanumeric at both ends. */
static bool is_dns_subdomain(const char *s, size_t len)
{
	if (len == 0 || len > 253)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
		if (!ok)
			return false;
	}
	return is_alnum(s[0]) && is_alnum(s[len - 1]);
}

/* The name part of a qualified name: [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63. */
static bool is_qualified_name_part(const char *s, size_t len)
{
	if (len == 0 || len > 63 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* validation.IsQualifiedName("requests." + name) for a name holding exactly one '/'. */
static bool is_quota_qualified(const char *name)
{
	const char *slash = strchr(name, '/');
	if (!slash || strchr(slash + 1, '/'))
		return false;
	char prefix[300];
	size_t plen = (size_t)(slash - name);
	if (plen + 9 >= sizeof(prefix))
		return false;
	memcpy(prefix, "requests.", 9);
	memcpy(prefix + 9, name, plen);
	return is_dns_subdomain(prefix, plen + 9) && is_qualified_name_part(slash + 1, strlen(slash + 1));
}

bool node_res_is_scalar_name(const char *name)
{
	if (!name)
		return false;
	if (strncmp(name, "hugepages-", 10) == 0 || strncmp(name, "attachable-volumes-", 19) == 0)
		return true;
	if (strstr(name, "kubernetes.io/"))
		return true; /* prefixed native resource */
	if (!strchr(name, '/'))
		return false; /* native, unprefixed: cpu, memory, pods, ... */
	if (strncmp(name, "requests.", 9) == 0)
		return false;
	return is_quota_qualified(name);
}

/* ---------- PodRequests ---------- */

/* A ResourceList being aggregated: presence matters (defaults, pod-level overrides, max). */
struct rl {
	int64_t cpu, mem, eph;
	bool has_cpu, has_mem, has_eph;
	uint32_t n;
	size_t cap;
	struct api_resource *sc; /* scalar names only */
};

/* Which defaults a container gets where its requests lack the key (NonMissingContainerRequests). */
struct nonmissing {
	bool cpu, mem;
};

static void rl_release(struct rl *r)
{
	free(r->sc);
	memset(r, 0, sizeof(*r));
}

static struct api_resource *rl_slot(struct rl *r, const char *name, bool create)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->sc[i].name == name)
			return &r->sc[i];
	if (!create)
		return NULL;
	if (ARRAY_RESERVE(r->sc, r->n, r->cap, 4) < 0)
		return NULL;
	r->sc[r->n] = (struct api_resource){ name, 0 };
	return &r->sc[r->n++];
}

static int rl_add_scalar(struct rl *r, const char *name, int64_t v)
{
	struct api_resource *s = rl_slot(r, name, true);
	if (!s)
		return ERR_NOMEM;
	s->value += v;
	return 0;
}

/* d += r (a nil list when r is NULL), with nm's defaults for what r lacks (applyNonMissing). */
static int rl_add_res(struct rl *d, const struct api_resources *r, const struct nonmissing *nm)
{
	static const struct api_resources nil;
	if (!r)
		r = &nil;
	if (r->has_cpu) {
		d->cpu += r->cpu;
		d->has_cpu = true;
	} else if (nm && nm->cpu) {
		d->cpu += DEFAULT_MILLI_CPU;
		d->has_cpu = true;
	}
	if (r->has_memory) {
		d->mem += r->memory;
		d->has_mem = true;
	} else if (nm && nm->mem) {
		d->mem += DEFAULT_MEMORY;
		d->has_mem = true;
	}
	if (r->has_ephemeral_storage) {
		d->eph += r->ephemeral_storage;
		d->has_eph = true;
	}
	for (uint32_t i = 0; i < r->n_scalar; i++) {
		if (!node_res_is_scalar_name(r->scalar[i].name))
			continue;
		if (rl_add_scalar(d, r->scalar[i].name, r->scalar[i].value) < 0)
			return ERR_NOMEM;
	}
	return 0;
}

static int rl_add(struct rl *d, const struct rl *s)
{
	d->cpu += s->cpu;
	d->mem += s->mem;
	d->eph += s->eph;
	d->has_cpu |= s->has_cpu;
	d->has_mem |= s->has_mem;
	d->has_eph |= s->has_eph;
	for (uint32_t i = 0; i < s->n; i++)
		if (rl_add_scalar(d, s->sc[i].name, s->sc[i].value) < 0)
			return ERR_NOMEM;
	return 0;
}

/* upstream maxResourceList: every key of s, taking the larger value (absent keys are taken). */
static int rl_max(struct rl *d, const struct rl *s)
{
	if (s->has_cpu && (!d->has_cpu || s->cpu > d->cpu)) {
		d->cpu = s->cpu;
		d->has_cpu = true;
	}
	if (s->has_mem && (!d->has_mem || s->mem > d->mem)) {
		d->mem = s->mem;
		d->has_mem = true;
	}
	if (s->has_eph && (!d->has_eph || s->eph > d->eph)) {
		d->eph = s->eph;
		d->has_eph = true;
	}
	for (uint32_t i = 0; i < s->n; i++) {
		bool existed = rl_slot(d, s->sc[i].name, false) != NULL;
		struct api_resource *x = rl_slot(d, s->sc[i].name, true);
		if (!x)
			return ERR_NOMEM;
		if (!existed || s->sc[i].value > x->value)
			x->value = s->sc[i].value;
	}
	return 0;
}

/* The list empty again (keeps the scalar array for reuse). */
static void rl_clear(struct rl *r)
{
	r->cpu = r->mem = r->eph = 0;
	r->has_cpu = r->has_mem = r->has_eph = false;
	r->n = 0;
}

static bool is_hugepages(const char *name)
{
	return strncmp(name, "hugepages-", 10) == 0;
}

/* upstream IsPodLevelRequestsSet: spec.resources.requests names cpu, memory or hugepages-*
 * (IsSupportedPodLevelResource). */
static bool pod_level_requests_set(const struct api_pod *p)
{
	const struct api_resources *r = &p->pod_requests;
	if (r->has_cpu || r->has_memory)
		return true;
	for (uint32_t i = 0; i < r->n_scalar; i++)
		if (is_hugepages(r->scalar[i].name))
			return true;
	return false;
}

/* upstream IsPodResizeInfeasible: the PodResizePending condition says Infeasible. */
static bool resize_infeasible(const struct api_pod *p)
{
	for (uint32_t i = 0; i < p->n_conditions; i++)
		if (p->conditions[i].type && strcmp(p->conditions[i].type, "PodResizePending") == 0)
			return p->conditions[i].reason && strcmp(p->conditions[i].reason, "Infeasible") == 0;
	return false;
}

/* upstream findContainerStatus: containerStatuses first, then initContainerStatuses. */
static const struct api_container_status *find_status(const struct api_pod *p, const char *name)
{
	for (uint32_t i = 0; i < p->n_container_statuses; i++)
		if (p->container_statuses[i].name == name)
			return &p->container_statuses[i];
	for (uint32_t i = 0; i < p->n_init_container_statuses; i++)
		if (p->init_container_statuses[i].name == name)
			return &p->init_container_statuses[i];
	return NULL;
}

/* Which list of a container counts (upstream containerSpecRequests, containerAllocatedRequests,
 * containerActuatedRequests). */
enum which { W_SPEC, W_ALLOCATED, W_ACTUATED };

/* The container's list; NULL is a nil list (an infeasible resize with nothing reported). */
static const struct api_resources *container_list(const struct api_pod *p, const struct api_container *c,
						  enum which w, bool infeasible)
{
	if (w == W_SPEC)
		return &c->requests;
	const struct api_container_status *cs = find_status(p, c->name);
	if (w == W_ACTUATED && cs && cs->has_actual)
		return &cs->actual;
	if (cs && cs->has_allocated)
		return &cs->allocated;
	return infeasible ? NULL : &c->requests;
}

/* upstream aggregateContainerResourcesByFn: app containers and sidecars add up, an init container
 * runs beside the sidecars started before it, and the pod needs the largest of those. */
static int aggregate(const struct api_pod *p, enum which w, bool infeasible, const struct nonmissing *nm,
		     struct rl *out)
{
	struct rl side = { 0 }, init_max = { 0 }, cur = { 0 };
	int rc = ERR_NOMEM;
	for (uint32_t i = 0; i < p->n_containers; i++)
		if (rl_add_res(out, container_list(p, &p->containers[i], w, infeasible), nm) < 0)
			goto out;
	for (uint32_t i = 0; i < p->n_init_containers; i++) {
		const struct api_container *ic = &p->init_containers[i];
		rl_clear(&cur);
		if (rl_add_res(&cur, container_list(p, ic, w, infeasible), nm) < 0)
			goto out;
		if (ic->restart_policy_always) {
			/* a sidecar runs alongside the app containers and every later init container */
			if (rl_add(out, &cur) < 0 || rl_add(&side, &cur) < 0 || rl_max(&init_max, &side) < 0)
				goto out;
		} else {
			if (rl_add(&cur, &side) < 0 || rl_max(&init_max, &cur) < 0)
				goto out;
		}
	}
	rc = rl_max(out, &init_max);
out:
	rl_release(&side);
	rl_release(&init_max);
	rl_release(&cur);
	return rc;
}

/* Whether the kubelet reported anything that can make the status-aware requests differ from the
 * spec's (with none, allocated = actuated = spec for every container). */
static bool has_resize_status(const struct api_pod *p)
{
	return p->n_container_statuses || p->n_init_container_statuses || p->status_resources ||
	       resize_infeasible(p);
}

/* upstream AggregateContainerRequests with UseStatusResources and
 * InPlacePodLevelResourcesVerticalScalingEnabled (both on by default in v1.37): the larger of
 * spec, allocated and actuated requests per resource; an infeasible resize drops the spec. */
static int aggregate_with_status(const struct api_pod *p, const struct nonmissing *nm, struct rl *out)
{
	struct rl alloc = { 0 }, act = { 0 };
	bool infeasible = resize_infeasible(p);
	int rc = ERR_NOMEM;
	if (!infeasible && aggregate(p, W_SPEC, false, nm, out) < 0)
		goto out;
	const struct api_pod_resize_status *rs = p->status_resources;
	if (rs && rs->has_allocated && rs->has_requests) {
		/* pod-level status maps already hold the aggregate (no defaults applied to them) */
		if (rl_add_res(&alloc, &rs->allocated, NULL) < 0 || rl_add_res(&act, &rs->requests, NULL) < 0)
			goto out;
	} else if (aggregate(p, W_ALLOCATED, infeasible, nm, &alloc) < 0 ||
		   aggregate(p, W_ACTUATED, infeasible, nm, &act) < 0) {
		goto out;
	}
	/* max(spec, actuated, allocated), or max(actuated, allocated) when infeasible */
	rc = rl_max(out, &act) < 0 || rl_max(out, &alloc) < 0 ? ERR_NOMEM : 0;
out:
	rl_release(&alloc);
	rl_release(&act);
	return rc;
}

/* upstream applyPodLevelResources: the pod level's cpu, memory and hugepages-* replace the
 * containers' aggregate; what it does not set stays the aggregate. */
static int apply_pod_level(struct rl *out, const struct rl *pl)
{
	if (pl->has_cpu) {
		out->cpu = pl->cpu;
		out->has_cpu = true;
	}
	if (pl->has_mem) {
		out->mem = pl->mem;
		out->has_mem = true;
	}
	for (uint32_t i = 0; i < pl->n; i++) {
		if (!is_hugepages(pl->sc[i].name))
			continue;
		struct api_resource *x = rl_slot(out, pl->sc[i].name, true);
		if (!x)
			return ERR_NOMEM;
		x->value = pl->sc[i].value;
	}
	return 0;
}

/* The pod level's effective requests: spec.resources.requests, or with status resources
 * (upstream effectivePodLevelResources) the larger of it (left out when the resize is
 * infeasible), status.resources.requests and status.allocatedResources. */
static int pod_level(const struct api_pod *p, bool use_status, struct rl *pl)
{
	const struct api_pod_resize_status *rs = p->status_resources;
	if (!use_status || !rs)
		return rl_add_res(pl, &p->pod_requests, NULL);
	struct rl tmp = { 0 };
	int rc = ERR_NOMEM;
	if (!resize_infeasible(p) && rl_add_res(pl, &p->pod_requests, NULL) < 0)
		goto out;
	if (rs->has_requests && (rl_add_res(&tmp, &rs->requests, NULL) < 0 || rl_max(pl, &tmp) < 0))
		goto out;
	rl_clear(&tmp);
	if (rs->has_allocated && (rl_add_res(&tmp, &rs->allocated, NULL) < 0 || rl_max(pl, &tmp) < 0))
		goto out;
	rc = 0;
out:
	rl_release(&tmp);
	return rc;
}

/* upstream PodRequests(pod, {UseStatusResources: use_status, SkipPodLevelResources: !pod_lvl,
 * NonMissingContainerRequests: nm}), overhead included. */
static int pod_requests(const struct api_pod *p, bool use_status, bool pod_lvl, const struct nonmissing *nm,
			struct rl *out)
{
	struct rl pl = { 0 };
	int rc = ERR_NOMEM;
	memset(out, 0, sizeof(*out));
	if (use_status && has_resize_status(p))
		rc = aggregate_with_status(p, nm, out);
	else
		rc = aggregate(p, W_SPEC, false, nm, out);
	if (rc < 0)
		goto out;
	rc = ERR_NOMEM;
	if (pod_lvl && pod_level_requests_set(p) && (pod_level(p, use_status, &pl) < 0 || apply_pod_level(out, &pl) < 0))
		goto out;
	if (rl_add_res(out, &p->overhead, NULL) < 0)
		goto out;
	rc = 0;
out:
	rl_release(&pl);
	if (rc < 0)
		rl_release(out);
	return rc;
}

/* PodLevelResources (beta) is on in v1.37, so the pod level counts except where noted. */
static int pod_requests_rl(const struct api_pod *p, enum node_res_kind kind, struct rl *out)
{
	static const struct nonmissing all = { true, true };
	switch (kind) {
	case NODE_RES_SPEC:
		return pod_requests(p, false, true, NULL, out);
	case NODE_RES_FIT_SCORE:
		/* Fit's embedded resourceAllocationScorer is built without the feature flags (NewFit
		 * sets them on Fit only), so its calculatePodResourceRequest skips the pod level and
		 * the status: containers only, 100m / 200Mi for each lacking them */
		return pod_requests(p, false, false, &all, out);
	case NODE_RES_NONZERO:
		break;
	case NODE_RES_REQUESTS:
	default:
		return pod_requests(p, true, true, NULL, out);
	}
	/* NodeInfo's non-zero requests (CalculateResource, getNonMissingContainerRequests): with
	 * pod-level requests, defaults only for what neither the pod level nor a container requests */
	int rc = pod_requests(p, true, true, NULL, out);
	if (rc < 0)
		return rc;
	struct nonmissing nm = all;
	if (pod_level_requests_set(p)) {
		nm.cpu = !out->has_cpu;
		nm.mem = !out->has_mem;
		if (!nm.cpu && !nm.mem)
			return 0;
	}
	rl_release(out);
	return pod_requests(p, true, true, &nm, out);
}

int node_res_of_pod(const struct api_pod *p, enum node_res_kind kind, struct node_res *out)
{
	struct rl r;
	memset(out, 0, sizeof(*out));
	int rc = pod_requests_rl(p, kind, &r);
	if (rc < 0)
		return rc;
	out->cpu = r.cpu;
	out->memory = r.mem;
	out->ephemeral_storage = r.eph;
	if (r.n) {
		out->scalar = r.sc; /* hand over the array */
		out->n_scalar = r.n;
	} else {
		free(r.sc);
	}
	return 0;
}

void node_res_release(struct node_res *r)
{
	if (!r)
		return;
	free(r->scalar);
	r->scalar = NULL;
	r->n_scalar = 0;
}

int64_t node_res_scalar(const struct node_res *r, const char *interned_name)
{
	for (uint32_t i = 0; i < r->n_scalar; i++)
		if (r->scalar[i].name == interned_name)
			return r->scalar[i].value;
	return 0;
}

bool node_res_scaled_down(const struct api_pod *old_pod, const struct api_pod *new_pod)
{
	struct rl o, n;
	bool down = true; /* out of memory: say yes, a spurious requeue is harmless */
	if (pod_requests(old_pod, true, true, NULL, &o) < 0)
		return true;
	if (pod_requests(new_pod, true, true, NULL, &n) < 0)
		goto out_o;
	down = (o.has_cpu && (!n.has_cpu || o.cpu > n.cpu)) || (o.has_mem && (!n.has_mem || o.mem > n.mem)) ||
	       (o.has_eph && (!n.has_eph || o.eph > n.eph));
	for (uint32_t i = 0; !down && i < o.n; i++) {
		const struct api_resource *x = rl_slot(&n, o.sc[i].name, false);
		down = !x || o.sc[i].value > x->value;
	}
	rl_release(&n);
out_o:
	rl_release(&o);
	return down;
}

/* ---------- NodeInfo ---------- */

void node_info_init(struct node_info *ni, const char *interned_name)
{
	memset(ni, 0, sizeof(*ni));
	ni->name = intern_ref(interned_name); /* snapshots' copies outlive the node's own name */
}

static void node_pod_clear(struct node_pod *np)
{
	api_pod_unref(np->pod);
	node_res_release(&np->req);
	memset(np, 0, sizeof(*np));
}

void node_info_release(struct node_info *ni)
{
	if (!ni)
		return;
	for (uint32_t i = 0; i < ni->n_pods; i++)
		node_pod_clear(&ni->pods[i]);
	free(ni->pods);
	free(ni->requested.scalar);
	free(ni->ports);
	free(ni->images);
	free(ni->image_slots);
	api_node_unref(ni->node);
	intern_release(ni->name);
	memset(ni, 0, sizeof(*ni));
}

static bool pod_with_affinity(const struct api_pod *p)
{
	return p->affinity.pod_affinity || p->affinity.pod_anti_affinity;
}

static bool pod_with_required_anti_affinity(const struct api_pod *p)
{
	return p->affinity.pod_anti_affinity && p->affinity.pod_anti_affinity->n_required > 0;
}

static int32_t port_index(const struct node_info *ni, const char *ip, const char *proto, int32_t port)
{
	for (uint32_t i = 0; i < ni->n_ports; i++)
		if (ni->ports[i].port == port && ni->ports[i].ip == ip && ni->ports[i].protocol == proto)
			return (int32_t)i;
	return -1;
}

/* Host ports of a pod (upstream GetHostPorts: restartable init containers, then containers). */
typedef int (*port_fn)(struct node_info *ni, const struct api_container_port *cp);

static int for_each_host_port(struct node_info *ni, const struct api_pod *p, port_fn fn)
{
	for (uint32_t i = 0; i < p->n_init_containers; i++) {
		const struct api_container *c = &p->init_containers[i];
		if (!c->restart_policy_always)
			continue;
		for (uint32_t j = 0; j < c->n_ports; j++)
			if (c->ports[j].host_port > 0 && fn(ni, &c->ports[j]) < 0)
				return ERR_NOMEM;
	}
	for (uint32_t i = 0; i < p->n_containers; i++) {
		const struct api_container *c = &p->containers[i];
		for (uint32_t j = 0; j < c->n_ports; j++)
			if (c->ports[j].host_port > 0 && fn(ni, &c->ports[j]) < 0)
				return ERR_NOMEM;
	}
	return 0;
}

static void sanitize_port(const struct api_container_port *cp, const char **ip, const char **proto)
{
	pthread_once(&names_once, names_init);
	*ip = cp->host_ip && cp->host_ip[0] ? cp->host_ip : name_any_ip;
	*proto = cp->protocol && cp->protocol[0] ? cp->protocol : name_tcp;
}

static int port_add(struct node_info *ni, const struct api_container_port *cp)
{
	const char *ip, *proto;
	sanitize_port(cp, &ip, &proto);
	if (port_index(ni, ip, proto, cp->host_port) >= 0)
		return 0; /* a set, as upstream's HostPortInfo */
	if (ni->n_ports == ni->cap_ports) {
		uint32_t cap = ni->cap_ports ? ni->cap_ports * 2 : 4;
		struct node_port *np = realloc(ni->ports, cap * sizeof(*np));
		if (!np)
			return ERR_NOMEM;
		ni->ports = np;
		ni->cap_ports = cap;
	}
	ni->ports[ni->n_ports++] = (struct node_port){ ip, proto, cp->host_port };
	return 0;
}

static int port_remove(struct node_info *ni, const struct api_container_port *cp)
{
	const char *ip, *proto;
	sanitize_port(cp, &ip, &proto);
	int32_t i = port_index(ni, ip, proto, cp->host_port);
	if (i >= 0)
		ni->ports[i] = ni->ports[--ni->n_ports];
	return 0;
}

/* Makes sure every scalar name of src has a slot in dst (new ones at 0), so that adding values
 * afterwards cannot fail. A failure leaves only harmless zero entries behind. */
static int res_reserve_names(struct node_res *dst, const struct node_res *src)
{
	for (uint32_t i = 0; i < src->n_scalar; i++) {
		uint32_t j = 0;
		while (j < dst->n_scalar && dst->scalar[j].name != src->scalar[i].name)
			j++;
		if (j < dst->n_scalar)
			continue;
		struct api_resource *sc = realloc(dst->scalar, (dst->n_scalar + 1) * sizeof(*sc));
		if (!sc)
			return ERR_NOMEM;
		dst->scalar = sc;
		dst->scalar[dst->n_scalar++] = (struct api_resource){ src->scalar[i].name, 0 };
	}
	return 0;
}

/* dst += sign * src for names already reserved in dst. */
static void res_add_reserved(struct node_res *dst, const struct node_res *src, int64_t sign)
{
	dst->cpu += sign * src->cpu;
	dst->memory += sign * src->memory;
	dst->ephemeral_storage += sign * src->ephemeral_storage;
	for (uint32_t i = 0; i < src->n_scalar; i++)
		for (uint32_t j = 0; j < dst->n_scalar; j++)
			if (dst->scalar[j].name == src->scalar[i].name) {
				dst->scalar[j].value += sign * src->scalar[i].value;
				break;
			}
}

int32_t node_info_pod_index(const struct node_info *ni, const char *uid)
{
	for (uint32_t i = 0; i < ni->n_pods; i++)
		if (ni->pods[i].pod->meta.uid == uid)
			return (int32_t)i;
	return -1;
}

int node_info_add_pod(struct node_info *ni, struct api_pod *pod, struct err *e)
{
	struct node_pod np = { 0 };
	struct node_res nz = { 0 };
	uint32_t n_ports = ni->n_ports;
	int rc = ERR_NOMEM;

	if (ni->n_pods == ni->cap_pods) {
		uint32_t cap = ni->cap_pods ? ni->cap_pods * 2 : 8;
		struct node_pod *pods = realloc(ni->pods, cap * sizeof(*pods));
		if (!pods)
			goto out;
		ni->pods = pods;
		ni->cap_pods = cap;
	}
	if (node_res_of_pod(pod, NODE_RES_REQUESTS, &np.req) < 0 || node_res_of_pod(pod, NODE_RES_NONZERO, &nz) < 0)
		goto out;
	/* ports are appended at the end: a failure truncates back to n_ports */
	if (for_each_host_port(ni, pod, port_add) < 0 || res_reserve_names(&ni->requested, &np.req) < 0) {
		ni->n_ports = n_ports;
		goto out;
	}
	res_add_reserved(&ni->requested, &np.req, 1);
	np.pod = api_pod_ref(pod);
	np.nonzero_cpu = nz.cpu;
	np.nonzero_memory = nz.memory;
	ni->pods[ni->n_pods++] = np;
	memset(&np, 0, sizeof(np)); /* ni owns it now */
	ni->nonzero_cpu += nz.cpu;
	ni->nonzero_memory += nz.memory;
	if (pod_with_affinity(pod))
		ni->n_pods_with_affinity++;
	if (pod_with_required_anti_affinity(pod))
		ni->n_pods_with_required_anti_affinity++;
	rc = 0;
out:
	if (rc < 0)
		err_set(e, rc, "node %s: adding pod %s/%s: out of memory", ni->name ? ni->name : "?",
			pod->meta.namespace, pod->meta.name);
	node_res_release(&np.req);
	node_res_release(&nz);
	return rc;
}

int node_info_remove_pod(struct node_info *ni, const struct api_pod *pod, struct err *e)
{
	int32_t i = node_info_pod_index(ni, pod->meta.uid);
	if (i < 0)
		return err_set(e, ERR_NOT_FOUND, "node %s: no pod %s/%s (uid %s)", ni->name ? ni->name : "?",
			       pod->meta.namespace, pod->meta.name, pod->meta.uid);
	struct node_pod *np = &ni->pods[i];
	const struct api_pod *p = np->pod; /* the counted copy decides what to release */
	res_add_reserved(&ni->requested, &np->req, -1);
	ni->nonzero_cpu -= np->nonzero_cpu;
	ni->nonzero_memory -= np->nonzero_memory;
	if (pod_with_affinity(p))
		ni->n_pods_with_affinity--;
	if (pod_with_required_anti_affinity(p))
		ni->n_pods_with_required_anti_affinity--;
	for_each_host_port(ni, p, port_remove);
	node_pod_clear(np);
	ni->pods[i] = ni->pods[--ni->n_pods];
	return 0;
}

/* dst's array holds at least dst->n_scalar entries: reuse it when src fits. */
static int copy_res(struct node_res *dst, const struct node_res *src)
{
	struct api_resource *sc = dst->scalar;
	if (src->n_scalar > dst->n_scalar) {
		sc = realloc(dst->scalar, src->n_scalar * sizeof(*sc));
		if (!sc)
			return ERR_NOMEM;
	}
	dst->cpu = src->cpu;
	dst->memory = src->memory;
	dst->ephemeral_storage = src->ephemeral_storage;
	dst->scalar = sc;
	dst->n_scalar = src->n_scalar;
	if (src->n_scalar)
		memcpy(dst->scalar, src->scalar, src->n_scalar * sizeof(*sc));
	return 0;
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	void *p = realloc(*arr, need * elem);
	if (!p)
		return ERR_NOMEM;
	*arr = p;
	*cap = need;
	return 0;
}

/* dst's images are a copy of src's: the same index fits them (slots hold positions). */
static int copy_image_index(struct node_info *dst, const struct node_info *src)
{
	bool valid = src->image_slots && src->image_slots_for == src->images && src->image_slots_n == src->n_images;
	if (!valid) {
		dst->image_slots_for = NULL;
		return 0;
	}
	size_t n = (size_t)src->image_slots_mask + 1;
	if (!dst->image_slots || dst->image_slots_mask != src->image_slots_mask) {
		uint32_t *slots = realloc(dst->image_slots, n * sizeof(*slots));
		if (!slots) {
			dst->image_slots_for = NULL;
			return ERR_NOMEM;
		}
		dst->image_slots = slots;
		dst->image_slots_mask = src->image_slots_mask;
	}
	memcpy(dst->image_slots, src->image_slots, n * sizeof(*dst->image_slots));
	dst->image_slots_n = dst->n_images;
	dst->image_slots_for = dst->images;
	return 0;
}

/* Fibonacci hashing of the pointer: interned names are distinct addresses. */
static inline uint32_t image_hash(const char *name)
{
	return (uint32_t)(((uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 32);
}

int node_info_index_images(struct node_info *ni)
{
	ni->image_slots_for = NULL;
	if (!ni->n_images)
		return 0;
	uint32_t cap = 8;
	while (cap < 2 * ni->n_images) /* load factor at most 1/2: short probes */
		cap *= 2;
	if (!ni->image_slots || ni->image_slots_mask + 1 != cap) {
		uint32_t *slots = realloc(ni->image_slots, cap * sizeof(*slots));
		if (!slots)
			return ERR_NOMEM;
		ni->image_slots = slots;
		ni->image_slots_mask = cap - 1;
	}
	memset(ni->image_slots, 0, cap * sizeof(*ni->image_slots));
	for (uint32_t i = 0; i < ni->n_images; i++) {
		uint32_t h = image_hash(ni->images[i].name) & ni->image_slots_mask;
		while (ni->image_slots[h])
			h = (h + 1) & ni->image_slots_mask;
		ni->image_slots[h] = i + 1;
	}
	ni->image_slots_n = ni->n_images;
	ni->image_slots_for = ni->images;
	return 0;
}

int node_info_copy(struct node_info *dst, const struct node_info *src, struct err *e)
{
	uint32_t cap_images = dst->images ? dst->n_images : 0;
	/* drop what dst counted; keep its arrays for reuse */
	for (uint32_t i = 0; i < dst->n_pods; i++)
		node_pod_clear(&dst->pods[i]);
	dst->n_pods = 0;
	dst->n_ports = 0;
	if (src->node != dst->node) {
		api_node_unref(dst->node);
		dst->node = api_node_ref(src->node);
	}
	if (dst->name != src->name) {
		intern_release(dst->name);
		dst->name = intern_ref(src->name);
	}
	if (grow((void **)&dst->pods, &dst->cap_pods, src->n_pods, sizeof(*dst->pods)) < 0 ||
	    grow((void **)&dst->ports, &dst->cap_ports, src->n_ports, sizeof(*dst->ports)) < 0 ||
	    copy_res(&dst->requested, &src->requested) < 0)
		goto nomem;
	if (src->n_images > cap_images || !dst->images) {
		free(dst->images);
		dst->images = NULL;
		dst->n_images = 0;
		if (src->n_images && !(dst->images = malloc(src->n_images * sizeof(*dst->images))))
			goto nomem;
	}
	dst->n_images = src->n_images;
	if (src->n_images)
		memcpy(dst->images, src->images, src->n_images * sizeof(*dst->images));
	if (copy_image_index(dst, src) < 0)
		goto nomem;
	for (uint32_t i = 0; i < src->n_pods; i++) {
		struct node_pod *d = &dst->pods[i];
		const struct node_pod *s = &src->pods[i];
		*d = (struct node_pod){ api_pod_ref(s->pod), { 0 }, s->nonzero_cpu, s->nonzero_memory };
		dst->n_pods = i + 1;
		if (copy_res(&d->req, &s->req) < 0)
			goto nomem;
	}
	if (src->n_ports)
		memcpy(dst->ports, src->ports, src->n_ports * sizeof(*dst->ports));
	dst->n_ports = src->n_ports;
	dst->n_pods_with_affinity = src->n_pods_with_affinity;
	dst->n_pods_with_required_anti_affinity = src->n_pods_with_required_anti_affinity;
	dst->nonzero_cpu = src->nonzero_cpu;
	dst->nonzero_memory = src->nonzero_memory;
	dst->generation = src->generation;
	return 0;
nomem:
	/* leave dst releasable and visibly stale (generation 0 forces a later copy) */
	dst->generation = 0;
	return err_set(e, ERR_NOMEM, "copying node_info %s: out of memory", src->name ? src->name : "?");
}

static int image_cmp(const void *key, const void *elem)
{
	const char *k = key;
	const char *n = ((const struct node_image *)elem)->name;
	return k < n ? -1 : k > n ? 1 : 0;
}

const struct node_image *node_info_image(const struct node_info *ni, const char *interned_name)
{
	if (!ni->n_images || !interned_name)
		return NULL;
	if (ni->image_slots_for == ni->images && ni->image_slots_n == ni->n_images) {
		for (uint32_t h = image_hash(interned_name) & ni->image_slots_mask;; h = (h + 1) & ni->image_slots_mask) {
			uint32_t s = ni->image_slots[h];
			if (!s)
				return NULL;
			if (ni->images[s - 1].name == interned_name)
				return &ni->images[s - 1];
		}
	}
	return bsearch(interned_name, ni->images, ni->n_images, sizeof(*ni->images), image_cmp);
}

const struct api_resources node_info_no_resources_;
