/* The extension-point runners the scheduler's loop and binder call (upstream
 * frameworkImpl.RunPreEnqueuePlugins, RunPostFilterPlugins, RunReservePlugins... ): each runs the
 * profile's plugins of one point in order, records the point's and (sampled cycles) each plugin's
 * duration, and turns a plugin's failure into the status upstream reports. */
#include "framework_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------- Extension-point runners ---------- */

enum fw_code fw_run_pre_enqueue(const struct fw_profile *p, const struct api_pod *pod, struct fw_status *st)
{
	for (uint32_t i = 0; i < p->n_points[CFG_EP_PRE_ENQUEUE]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_PRE_ENQUEUE][i];
		fw_status_reset(st);
		enum fw_code code = pl->plugin->pre_enqueue(pl, pod, st);
		if (code != FW_SUCCESS) {
			st->code = code;
			st->plugin = pl->plugin->name;
			return code;
		}
	}
	fw_status_reset(st);
	return FW_SUCCESS;
}

/* A non-rejection failure becomes an Error status naming the point and plugin. */
static enum fw_code as_error(struct fw_status *st, const char *what, const char *plugin)
{
	char msg[FW_STATUS_TEXT_MAX];
	fw_status_message(st, msg, sizeof(msg));
	fw_status_setf(st, FW_ERROR, "running %s plugin \"%s\": %s", what, plugin, msg);
	st->plugin = plugin;
	return FW_ERROR;
}

static enum fw_code run_post_filter(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				    struct fw_diagnosis *d, struct fw_post_filter_result *out, struct fw_status *st)
{
	char msg[FW_STATUS_TEXT_MAX];
	struct fw_status acc;
	const char *rejector = NULL;
	fw_status_reset(&acc);
	acc.code = FW_UNSCHEDULABLE;
	out->nominated_node_name = NULL;
	for (uint32_t i = 0; i < p->n_points[CFG_EP_POST_FILTER]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_POST_FILTER][i];
		struct fw_post_filter_result r = { NULL };
		fw_status_reset(st);
		int64_t t0 = fw_plugin_clock(c);
		enum fw_code code = pl->plugin->post_filter(pl, c, pod, d, &r, st);
		fw_cycle_record_plugin(c, pl, FW_EP_POST_FILTER, code, t0);
		st->code = code;
		/* upstream: Diagnosis.PostFilterMsg = the returned status' message, whatever its code
		 * (schedule_one.go); its FitError ends with it */
		if (code == FW_SUCCESS || !fw_code_is_rejected(code))
			snprintf(d->post_filter_msg, sizeof(d->post_filter_msg), "%s",
				 fw_status_message(st, msg, sizeof(msg)));
		if (code == FW_SUCCESS) {
			*out = r;
			return FW_SUCCESS;
		}
		if (code == FW_UNSCHEDULABLE_AND_UNRESOLVABLE) {
			st->plugin = pl->plugin->name;
			snprintf(d->post_filter_msg, sizeof(d->post_filter_msg), "%s",
				 fw_status_message(st, msg, sizeof(msg)));
			*out = r;
			return code;
		}
		if (code != FW_UNSCHEDULABLE)
			return as_error(st, "PostFilter", pl->plugin->name);
		if (r.nominated_node_name) /* upstream: a result whose mode is not Noop */
			*out = r;
		for (const char *s = fw_status_reason_next(st, NULL); s; s = fw_status_reason_next(st, s))
			fw_status_add_reason(&acc, s);
		if (!rejector)
			rejector = pl->plugin->name;
	}
	*st = acc;
	st->plugin = rejector;
	if (rejector)
		snprintf(d->post_filter_msg, sizeof(d->post_filter_msg), "%s", fw_status_message(st, msg, sizeof(msg)));
	return FW_UNSCHEDULABLE;
}

enum fw_code fw_run_post_filter(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				struct fw_diagnosis *d, struct fw_post_filter_result *out, struct fw_status *st)
{
	int64_t t = fw_now_ns();
	enum fw_code code = run_post_filter(p, c, pod, d, out, st);
	fw_cycle_record_ep(c, FW_EP_POST_FILTER, code, t);
	return code;
}

/* The points whose plugins act on the chosen node (Reserve, PreBind, Bind), as a table: which
 * codes let the next plugin run, whether Success ends the point, and the result when every plugin
 * passed. */
struct node_op_point {
	enum cfg_ext_point ep;
	enum fw_ep timing;
	const char *what;  /* "running <what> plugin" */
	size_t fn;         /* offsetof the fw_node_op_fn in struct fw_plugin */
	bool skip_passes;  /* Skip lets the next plugin run */
	bool success_ends; /* Success ends the point (Bind: the first binder to act wins) */
	enum fw_code all_passed;
};

static const struct node_op_point reserve_point = {
	CFG_EP_RESERVE, FW_EP_RESERVE, "Reserve", offsetof(struct fw_plugin, reserve), false, false, FW_SUCCESS,
};
static const struct node_op_point pre_bind_point = {
	CFG_EP_PRE_BIND, FW_EP_PRE_BIND, "PreBind", offsetof(struct fw_plugin, pre_bind), true, false, FW_SUCCESS,
};
/* every bind plugin skipped: upstream reports this as Skip */
static const struct node_op_point bind_point = {
	CFG_EP_BIND, FW_EP_BIND, "Bind", offsetof(struct fw_plugin, bind), true, true, FW_SKIP,
};

static enum fw_code run_node_op_plugins(const struct fw_profile *p, struct fw_cycle *c, const struct node_op_point *pt,
					const struct api_pod *pod, const char *node_name, struct fw_status *st)
{
	for (uint32_t i = 0; i < p->n_points[pt->ep]; i++) {
		const struct fw_pl *pl = p->points[pt->ep][i];
		fw_node_op_fn fn = *(const fw_node_op_fn *)(const void *)((const char *)pl->plugin + pt->fn);
		fw_status_reset(st);
		int64_t t0 = fw_plugin_clock(c);
		enum fw_code code = fn(pl, c, pod, node_name, st);
		fw_cycle_record_plugin(c, pl, pt->timing, code, t0);
		st->code = code;
		if ((code == FW_SUCCESS && !pt->success_ends) || (code == FW_SKIP && pt->skip_passes))
			continue;
		st->plugin = pl->plugin->name;
		if (code == FW_SUCCESS || fw_code_is_rejected(code))
			return code;
		return as_error(st, pt->what, pl->plugin->name);
	}
	fw_status_set(st, pt->all_passed, NULL);
	return pt->all_passed;
}

static enum fw_code run_node_op(const struct fw_profile *p, struct fw_cycle *c, const struct node_op_point *pt,
				const struct api_pod *pod, const char *node_name, struct fw_status *st)
{
	int64_t t = fw_now_ns();
	enum fw_code code = run_node_op_plugins(p, c, pt, pod, node_name, st);
	fw_cycle_record_ep(c, pt->timing, code, t);
	return code;
}

enum fw_code fw_run_reserve(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			    const char *node_name, struct fw_status *st)
{
	return run_node_op(p, c, &reserve_point, pod, node_name, st);
}

enum fw_code fw_run_pre_bind(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			     const char *node_name, struct fw_status *st)
{
	return run_node_op(p, c, &pre_bind_point, pod, node_name, st);
}

enum fw_code fw_run_bind(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			 const char *node_name, struct fw_status *st)
{
	return run_node_op(p, c, &bind_point, pod, node_name, st);
}

void fw_run_unreserve(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		      const char *node_name)
{
	int64_t t = fw_now_ns();
	for (uint32_t i = p->n_points[CFG_EP_RESERVE]; i-- > 0;) {
		const struct fw_pl *pl = p->points[CFG_EP_RESERVE][i];
		if (pl->plugin->unreserve) {
			int64_t t0 = fw_plugin_clock(c);
			pl->plugin->unreserve(pl, c, pod, node_name);
			fw_cycle_record_plugin(c, pl, FW_EP_UNRESERVE, FW_SUCCESS, t0);
		}
	}
	fw_cycle_record_ep(c, FW_EP_UNRESERVE, FW_SUCCESS, t);
}

static enum fw_code run_permit(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			       const char *node_name, int64_t *timeout_ms, struct fw_status *st)
{
	bool wait = false;
	int64_t min_timeout = INT64_MAX;
	for (uint32_t i = 0; i < p->n_points[CFG_EP_PERMIT]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_PERMIT][i];
		int64_t t = 0;
		fw_status_reset(st);
		int64_t t0 = fw_plugin_clock(c);
		enum fw_code code = pl->plugin->permit(pl, c, pod, node_name, &t, st);
		fw_cycle_record_plugin(c, pl, FW_EP_PERMIT, code, t0);
		st->code = code;
		if (code == FW_SUCCESS)
			continue;
		st->plugin = pl->plugin->name;
		if (fw_code_is_rejected(code))
			return code;
		if (code == FW_WAIT) {
			wait = true;
			if (t < min_timeout)
				min_timeout = t;
			continue;
		}
		return as_error(st, "Permit", pl->plugin->name);
	}
	fw_status_reset(st);
	if (wait) {
		st->code = FW_WAIT;
		*timeout_ms = min_timeout;
		return FW_WAIT;
	}
	*timeout_ms = 0;
	return FW_SUCCESS;
}

enum fw_code fw_run_permit(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			   const char *node_name, int64_t *timeout_ms, struct fw_status *st)
{
	int64_t t = fw_now_ns();
	enum fw_code code = run_permit(p, c, pod, node_name, timeout_ms, st);
	fw_cycle_record_ep(c, FW_EP_PERMIT, code, t);
	return code;
}

void fw_run_post_bind(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		      const char *node_name)
{
	struct fw_status st;
	int64_t t = fw_now_ns();
	for (uint32_t i = 0; i < p->n_points[CFG_EP_POST_BIND]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_POST_BIND][i];
		fw_status_reset(&st);
		int64_t t0 = fw_plugin_clock(c);
		pl->plugin->post_bind(pl, c, pod, node_name, &st);
		fw_cycle_record_plugin(c, pl, FW_EP_POST_BIND, FW_SUCCESS, t0);
	}
	fw_cycle_record_ep(c, FW_EP_POST_BIND, FW_SUCCESS, t);
}
