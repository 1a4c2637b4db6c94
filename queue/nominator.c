/* Nominated pods (upstream nominator): pods preemption nominated to a node. */
#include "queue_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/log.h"

/* ---------- Nominator ---------- */

void queue__nom_delete_locked(struct queue *q, const char *uid)
{
	struct nom *n = map_del(&q->nominated, uid);
	if (n) {
		api_pod_unref(n->pod);
		intern_release(n->node_name);
		free(n);
	}
}

/* upstream addNominatedPodUnlocked: node_name NULL = the pod's status.nominatedNodeName. */
void queue__nominate_locked(struct queue *q, struct api_pod *pod, const char *node_name)
{
	const char *nn = node_name ? node_name : pod->nominated_node_name;
	/* referenced before the old entry goes: node_name may be the old entry's own */
	nn = nn && nn[0] ? intern_ref(nn) : NULL;
	queue__nom_delete_locked(q, pod->meta.uid);
	if (!nn)
		return;
	struct nom *n = malloc(sizeof(*n));
	if (!n || map_put(&q->nominated, pod->meta.uid, n, NULL) < 0) {
		free(n);
		intern_release(nn);
		LOG_ERROR("queue: out of memory nominating pod %s/%s", pod->meta.namespace, pod->meta.name);
		return;
	}
	n->pod = api_pod_ref(pod);
	n->node_name = nn;
}

/* upstream updateNominatedPod: keep an in-memory nomination across updates that carry none. */
void queue__nomination_update_locked(struct queue *q, const struct api_pod *old_pod, struct api_pod *new_pod)
{
	const char *keep = NULL;
	if ((!old_pod || !old_pod->nominated_node_name || !old_pod->nominated_node_name[0]) &&
	    (!new_pod->nominated_node_name || !new_pod->nominated_node_name[0])) {
		struct nom *n = map_get(&q->nominated, new_pod->meta.uid);
		if (n)
			keep = n->node_name;
	}
	queue__nominate_locked(q, new_pod, keep);
}

/* ---------- Nominated pods ---------- */

int queue_add_nominated_pod(struct queue *q, struct api_pod *pod, const char *node_name, struct err *e)
{
	if (!queue__pod_ok(pod))
		return err_set(e, ERR_INVALID, "queue_add_nominated_pod: pod without a UID");
	const char *nn = NULL;
	if (node_name && !(nn = intern_acquire(node_name, strlen(node_name)))) /* canonical; the entry takes its own */
		return err_set(e, ERR_NOMEM, "queue_add_nominated_pod: out of memory");
	pthread_mutex_lock(&q->lock);
	queue__nominate_locked(q, pod, nn);
	pthread_mutex_unlock(&q->lock);
	intern_release(nn);
	return 0;
}

void queue_delete_nominated_pod(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return;
	pthread_mutex_lock(&q->lock);
	queue__nom_delete_locked(q, pod_uid);
	pthread_mutex_unlock(&q->lock);
}

int queue_nominated_pods(struct queue *q, const char *node_name, int32_t min_priority, const char *exclude_uid,
			 struct queue_nominated **out, uint32_t *n, struct err *e)
{
	int rc = 0;
	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&q->lock);
	size_t total = map_len(&q->nominated);
	if (!total)
		goto out;
	struct queue_nominated *v = malloc(total * sizeof(*v));
	if (!v) {
		rc = err_set(e, ERR_NOMEM, "queue_nominated_pods: out of memory");
		goto out;
	}
	const char *k;
	void *val;
	uint32_t cnt = 0;
	for (size_t it = 0; map_next(&q->nominated, &it, &k, &val);) {
		const struct nom *nm = val;
		if (node_name && strcmp(nm->node_name, node_name) != 0)
			continue;
		if (nm->pod->priority < min_priority || (exclude_uid && strcmp(nm->pod->meta.uid, exclude_uid) == 0))
			continue;
		v[cnt++] = (struct queue_nominated){ intern_ref(nm->node_name), api_pod_ref(nm->pod) };
	}
	if (cnt) {
		*out = v;
		*n = cnt;
	} else {
		free(v);
	}
out:
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void queue_nominated_release(struct queue_nominated *v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++) {
		api_pod_unref(v[i].pod);
		intern_release(v[i].node_name);
	}
	free(v);
}

const char *queue_nominated_node(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return NULL;
	pthread_mutex_lock(&q->lock);
	const struct nom *nm = map_get(&q->nominated, pod_uid);
	const char *nn = nm ? nm->node_name : NULL;
	pthread_mutex_unlock(&q->lock);
	return nn;
}
