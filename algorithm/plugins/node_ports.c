/* NodePorts (PreFilter, Filter): the host ports a pod asks for must be free on the node. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <stdlib.h>
#include <string.h>

#define REASON "node(s) didn't have free ports for the requested pod ports"

struct ports_state {
	uint32_t n;
	const struct api_container_port **ports;
};

struct collect {
	struct fw_cycle *c;
	struct ports_state *s;
	uint32_t cap;
	bool oom;
};

static bool collect_port(void *ctx, const struct api_container_port *p)
{
	struct collect *k = ctx;
	if (k->s->n == k->cap) {
		uint32_t cap = k->cap ? k->cap * 2 : 4;
		const struct api_container_port **np = fw_cycle_alloc(k->c, cap * sizeof(*np));
		if (!np) {
			k->oom = true;
			return false;
		}
		if (k->s->n)
			memcpy(np, k->s->ports, k->s->n * sizeof(*np));
		k->s->ports = np;
		k->cap = cap;
	}
	k->s->ports[k->s->n++] = p;
	return true;
}

static bool count_port(void *ctx, const struct api_container_port *p)
{
	(void)p;
	(*(uint32_t *)ctx)++;
	return true;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	uint32_t n = 0;
	fw_pod_host_ports(pod, count_port, &n);
	if (!n)
		return FW_SKIP;
	struct ports_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s)
		return fw_status_set(st, FW_ERROR, "NodePorts: out of memory");
	struct collect k = { c, s, 0, false };
	fw_pod_host_ports(pod, collect_port, &k);
	if (k.oom)
		return fw_status_set(st, FW_ERROR, "NodePorts: out of memory");
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)pod;
	const struct ports_state *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR, "reading \"PreFilterNodePorts\" from cycleState: not found");
	for (uint32_t i = 0; i < s->n; i++)
		if (fw_ports_conflict(ni, s->ports[i]->host_ip, s->ports[i]->protocol, s->ports[i]->host_port))
			return fw_status_set(st, FW_UNSCHEDULABLE, REASON);
	return FW_SUCCESS;
}

struct port_conflict {
	const struct api_pod *pod;
	bool conflict;
};

static bool wanted_matches(void *ctx, const struct api_container_port *used)
{
	struct port_conflict *k = ctx;
	const struct fw_names *nm = fw_names();
	const char *ip = used->host_ip && used->host_ip[0] ? used->host_ip : nm->any_ip;
	const char *proto = used->protocol && used->protocol[0] ? used->protocol : nm->tcp;
	struct node_port np = { ip, proto, used->host_port };
	struct node_info tmp;
	memset(&tmp, 0, sizeof(tmp));
	tmp.n_ports = 1;
	tmp.ports = &np;
	/* does any port of k->pod conflict with this one used port? */
	for (uint32_t i = 0; i < k->pod->n_containers && !k->conflict; i++) {
		const struct api_container *c = &k->pod->containers[i];
		for (uint32_t j = 0; j < c->n_ports; j++)
			if (c->ports[j].host_port > 0 &&
			    fw_ports_conflict(&tmp, c->ports[j].host_ip, c->ports[j].protocol, c->ports[j].host_port))
				k->conflict = true;
	}
	for (uint32_t i = 0; i < k->pod->n_init_containers && !k->conflict; i++) {
		const struct api_container *c = &k->pod->init_containers[i];
		if (!c->restart_policy_always)
			continue;
		for (uint32_t j = 0; j < c->n_ports; j++)
			if (c->ports[j].host_port > 0 &&
			    fw_ports_conflict(&tmp, c->ports[j].host_ip, c->ports[j].protocol, c->ports[j].host_port))
				k->conflict = true;
	}
	return !k->conflict;
}

/* Queue when a deleted pod that was assigned or nominated held a host port the pod wants. */
static enum queue_hint pod_deleted(const void *pl, const struct api_pod *pod, const void *old_obj,
				const void *new_obj)
{
	(void)pl;
	(void)new_obj;
	const struct api_pod *deleted = old_obj;
	if (!deleted)
		return QUEUE_HINT_ERROR; /* upstream: unexpected objects -> Queue with an error */
	if ((!deleted->node_name || !deleted->node_name[0]) &&
	    (!deleted->nominated_node_name || !deleted->nominated_node_name[0]))
		return QUEUE_HINT_SKIP;
	struct port_conflict k = { pod, false };
	fw_pod_host_ports(deleted, wanted_matches, &k);
	return k.conflict ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_ASSIGNED_POD, .actions = QUEUE_ACT_DELETE }, pod_deleted },
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD }, NULL },
};

const struct fw_plugin fw_plugin_node_ports = {
	.name = "NodePorts",
	.args_kind = CFG_ARGS_NONE,
	.pre_filter = pre_filter,
	.filter = filter,
	FW_EVENTS(events),
};
