/* InterPodAffinity (algorithm/plugins/inter_pod_affinity.c): cases carried over from upstream's
 * plugins/interpodaffinity/{filtering,scoring,plugin}_test.go (v1.37.2), each citing its test and
 * case name. Upstream's defaultNamespace "" is "default" here (only equality of namespaces matters).
 *
 * Pod (anti-)affinity is written in a compact form (aff()):
 *   terms separated by ";", each "KIND SELECTOR @TOPOLOGYKEY [ns=a,b] [nss=SELECTOR]" where KIND is
 *   A / N (required affinity / anti-affinity) or PA<w> / PN<w> (preferred, weight w); SELECTOR is
 *   "{}" (empty), "-" (none) or requirements "key Op v1,v2" joined by "&" (Op In, NotIn, Exists,
 *   DoesNotExist), e.g. "A service In securityscan,value2 @region; PN5 foo Exists @zone nss={}". */
#include "algorithm_testlib.h"

#include "algorithm/cycle_internal.h"
#include "cache/cache.h"
#include "cache/snapshot.h"
#include "config/config.h"

#define R_AFF "node(s) didn't match pod affinity rules"
#define R_ANTI "node(s) didn't match pod anti-affinity rules"
#define R_EXIST "node(s) didn't satisfy existing pods anti-affinity rules"

/* ---------- the affinity DSL ---------- */

static void cat(char *out, size_t size, const char *s)
{
	size_t n = strlen(out);
	snprintf(out + n, size - n, "%s", s);
}

static void quoted_list(char *out, size_t size, const char *csv)
{
	char tmp[256];
	snprintf(tmp, sizeof(tmp), "%s", csv);
	cat(out, size, "[");
	int i = 0;
	for (char *sv, *v = strtok_r(tmp, ",", &sv); v; v = strtok_r(NULL, ",", &sv), i++) {
		cat(out, size, i ? ",\"" : "\"");
		cat(out, size, v);
		cat(out, size, "\"");
	}
	cat(out, size, "]");
}

/* "k Op v1,v2 & k2 Exists" -> a LabelSelector object */
static void selector_json(char *out, size_t size, const char *sel)
{
	if (!strcmp(sel, "{}")) {
		cat(out, size, "{}");
		return;
	}
	char tmp[256];
	snprintf(tmp, sizeof(tmp), "%s", sel);
	cat(out, size, "{\"matchExpressions\":[");
	int i = 0;
	for (char *sv, *r = strtok_r(tmp, "&", &sv); r; r = strtok_r(NULL, "&", &sv), i++) {
		char k[64] = "", op[32] = "", vals[128] = "";
		if (sscanf(r, " %63s %31s %127s", k, op, vals) < 2)
			fail_msg("bad requirement \"%s\"", r);
		if (i)
			cat(out, size, ",");
		cat(out, size, "{\"key\":\"");
		cat(out, size, k);
		cat(out, size, "\",\"operator\":\"");
		cat(out, size, op);
		cat(out, size, "\"");
		if (vals[0]) {
			cat(out, size, ",\"values\":");
			quoted_list(out, size, vals);
		}
		cat(out, size, "}");
	}
	cat(out, size, "]}");
}

/* One term "SELECTOR @KEY [ns=..] [nss=..]" -> a PodAffinityTerm object. */
static void term_json(char *out, size_t size, const char *spec)
{
	char sel[256] = "", rest[256] = "";
	const char *at = strchr(spec, '@');
	if (!at)
		fail_msg("term without @topologyKey: \"%s\"", spec);
	snprintf(sel, sizeof(sel), "%.*s", (int)(at - spec), spec);
	for (size_t n = strlen(sel); n && sel[n - 1] == ' '; n--)
		sel[n - 1] = '\0';
	snprintf(rest, sizeof(rest), "%s", at + 1);
	char key[64] = "";
	if (rest[0] != ' ')
		sscanf(rest, "%63s", key);
	cat(out, size, "{");
	const char *s = sel;
	while (*s == ' ')
		s++;
	if (strcmp(s, "-")) {
		cat(out, size, "\"labelSelector\":");
		selector_json(out, size, s);
		cat(out, size, ",");
	}
	cat(out, size, "\"topologyKey\":\"");
	cat(out, size, key);
	cat(out, size, "\"");
	const char *ns = strstr(rest, " ns="), *nss = strstr(rest, " nss=");
	if (ns) {
		char v[128];
		sscanf(ns + 4, "%127s", v);
		cat(out, size, ",\"namespaces\":");
		quoted_list(out, size, v);
	}
	if (nss) {
		cat(out, size, ",\"namespaceSelector\":");
		selector_json(out, size, nss + 5);
	}
	cat(out, size, "}");
}

/* The spec.affinity JSON of spec (see the top); static storage, a few in rotation. */
static const char *aff(const char *spec)
{
	static char ring[8][4096];
	static int next;
	char *out = ring[next++ % 8];
	char lists[4][2048] = { "", "", "", "" }; /* A, N, PA, PN */
	char tmp[2048];
	snprintf(tmp, sizeof(tmp), "%s", spec);
	for (char *sv, *t = strtok_r(tmp, ";", &sv); t; t = strtok_r(NULL, ";", &sv)) {
		while (*t == ' ')
			t++;
		int k, w = 0;
		const char *body;
		if (t[0] == 'P') {
			k = t[1] == 'A' ? 2 : 3;
			w = atoi(t + 2);
			body = strchr(t, ' ');
		} else {
			k = t[0] == 'A' ? 0 : 1;
			body = t + 1;
		}
		char one[1024] = "";
		if (k >= 2) {
			snprintf(one, sizeof(one), "{\"weight\":%d,\"podAffinityTerm\":", w);
			term_json(one, sizeof(one), body);
			cat(one, sizeof(one), "}");
		} else {
			term_json(one, sizeof(one), body);
		}
		if (lists[k][0])
			cat(lists[k], sizeof(lists[k]), ",");
		cat(lists[k], sizeof(lists[k]), one);
	}
	out[0] = '\0';
	cat(out, 4096, "{");
	for (int kind = 0; kind < 2; kind++) {
		const char *req = lists[kind], *pref = lists[kind + 2];
		if (!req[0] && !pref[0])
			continue;
		if (strlen(out) > 1)
			cat(out, 4096, ",");
		cat(out, 4096, kind ? "\"podAntiAffinity\":{" : "\"podAffinity\":{");
		if (req[0]) {
			cat(out, 4096, "\"requiredDuringSchedulingIgnoredDuringExecution\":[");
			cat(out, 4096, req);
			cat(out, 4096, "]");
		}
		if (pref[0]) {
			cat(out, 4096, req[0] ? "," : "");
			cat(out, 4096, "\"preferredDuringSchedulingIgnoredDuringExecution\":[");
			cat(out, 4096, pref);
			cat(out, 4096, "]");
		}
		cat(out, 4096, "}");
	}
	cat(out, 4096, "}");
	return out;
}

/* ---------- the fake Namespace lister ---------- */

struct nss {
	uint32_t n;
	struct api_namespace *items[8];
};

static struct api_namespace *get_ns(void *ctx, const char *name)
{
	const struct nss *l = ctx;
	for (uint32_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i]->meta.name, name))
			return api_namespace_ref(l->items[i]);
	return NULL;
}

static int each_ns(void *ctx, int (*fn)(void *arg, const struct api_namespace *ns), void *arg)
{
	const struct nss *l = ctx;
	for (uint32_t i = 0; i < l->n; i++) {
		int rc = fn(arg, l->items[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* "name:k=v,k2=v2 name2: ..." */
static void nss_init(struct nss *l, const char *spec)
{
	char tmp[512];
	l->n = 0;
	if (!spec)
		return;
	snprintf(tmp, sizeof(tmp), "%s", spec);
	for (char *sv, *t = strtok_r(tmp, " ", &sv); t; t = strtok_r(NULL, " ", &sv)) {
		char *colon = strchr(t, ':');
		char json[512], labels[256] = "";
		*colon = '\0';
		char *lv = colon + 1;
		int i = 0;
		for (char *sv2, *kv = strtok_r(lv, ",", &sv2); kv; kv = strtok_r(NULL, ",", &sv2), i++) {
			char *eq = strchr(kv, '=');
			*eq = '\0';
			size_t n = strlen(labels);
			snprintf(labels + n, sizeof(labels) - n, "%s\"%s\":\"%s\"", i ? "," : "", kv, eq + 1);
		}
		snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"%s\",\"uid\":\"u-%s\",\"labels\":{%s}}}", t, t,
			 labels);
		struct err e = { 0 };
		struct api_namespace *ns = api_namespace_decode_json(json, strlen(json), &e);
		if (!ns)
			fail_msg("namespace: %s", e.msg);
		l->items[l->n++] = ns;
	}
}

static void nss_release(struct nss *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		api_namespace_unref(l->items[i]);
	l->n = 0;
}

/* upstream scoring_test.go's namespaces (also used by the filtering tests) */
#define UPSTREAM_NAMESPACES \
	"subteam1.team1:team=team1 subteam2.team1:team=team1 subteam1.team2:team=team2 subteam2.team2:team=team2"

/* ---------- running the plugin ---------- */

struct env {
	struct nss ns;
	struct cfg_plugin_args args;
	struct fw_profile *p;
	struct fw_cycle *c;
	const struct fw_pl *pl;
	uint32_t n_nodes;
	struct node_info nis[8];
	const struct node_info *ptrs[8];
	struct fw_node_list list;
};

static void env_init(struct env *v, const char *namespaces, int32_t hard_weight, bool ignore_preferred)
{
	static const char *const ipa[] = { "InterPodAffinity", NULL }, *const qs[] = { "PrioritySort", NULL },
				 *const bind[] = { "DefaultBinder", NULL };
	static const int32_t w[] = { 1 };
	memset(v, 0, sizeof(*v));
	nss_init(&v->ns, namespaces);
	v->args.inter_pod_affinity.hard_pod_affinity_weight = hard_weight;
	v->args.inter_pod_affinity.ignore_preferred_terms_of_existing_pods = ignore_preferred;
	struct fw_profile_config pc;
	struct tl_lists ls;
	memset(&pc, 0, sizeof(pc));
	memset(&ls, 0, sizeof(ls));
	pc.scheduler_name = "test";
	pc.args = &v->args;
	tl_fill(&pc, &ls, CFG_EP_QUEUE_SORT, qs, NULL);
	tl_fill(&pc, &ls, CFG_EP_BIND, bind, NULL);
	tl_fill(&pc, &ls, CFG_EP_PRE_FILTER, ipa, NULL);
	tl_fill(&pc, &ls, CFG_EP_FILTER, ipa, NULL);
	tl_fill(&pc, &ls, CFG_EP_PRE_SCORE, ipa, NULL);
	tl_fill(&pc, &ls, CFG_EP_SCORE, ipa, w);
	struct fw_profile_options o = { .listers = { .ns = get_ns, .ns_each = each_ns, .ctx = &v->ns } };
	struct err e = { 0 };
	v->p = fw_profile_new(&pc, &o, &e);
	if (!v->p)
		fail_msg("fw_profile_new: %s", e.msg);
	v->c = fw_cycle_new(v->p);
	assert_non_null(v->c);
	v->pl = tl_pl(v->p, "InterPodAffinity");
}

/* The snapshot: nodes "name:k=v,k2=v2" (space separated) with the pods (NULL-terminated) whose
 * spec.nodeName names them; references to the pods are dropped here. */
static void env_nodes(struct env *v, const char *nodes, struct api_pod **pods)
{
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s", nodes);
	for (char *sv, *t = strtok_r(tmp, " ", &sv); t; t = strtok_r(NULL, " ", &sv)) {
		char *colon = strchr(t, ':');
		const char *labels = "";
		if (colon) {
			*colon = '\0';
			labels = colon + 1;
		}
		struct api_node *n = TOBJ_NODE(.name = t, .labels = labels);
		struct api_pod *on[16];
		size_t k = 0;
		for (size_t i = 0; pods && pods[i]; i++)
			if (!strcmp(pods[i]->node_name, t))
				on[k++] = pods[i];
		tl_node_info(&v->nis[v->n_nodes], n, on, k);
		v->ptrs[v->n_nodes] = &v->nis[v->n_nodes];
		v->n_nodes++;
		api_node_unref(n);
	}
	for (size_t i = 0; pods && pods[i]; i++)
		api_pod_unref(pods[i]);
	v->list.n = v->n_nodes;
	v->list.nodes = v->ptrs;
	fw_cycle_reset(v->c);
	v->c->nodes = &v->list;
}

static void env_release(struct env *v)
{
	for (uint32_t i = 0; i < v->n_nodes; i++)
		node_info_release(&v->nis[i]);
	fw_cycle_free(v->c);
	fw_profile_free(v->p);
	nss_release(&v->ns);
}

static enum fw_code run_pre_filter(struct env *v, const struct api_pod *pod, char *msg, size_t size)
{
	struct fw_status st;
	struct fw_node_names names = { .all = true };
	fw_status_reset(&st);
	enum fw_code code = v->pl->plugin->pre_filter(v->pl, v->c, pod, &names, &st);
	fw_status_message(&st, msg, size);
	return code;
}

static enum fw_code run_filter(struct env *v, const struct api_pod *pod, uint32_t node, char *msg, size_t size)
{
	struct fw_status st;
	fw_status_reset(&st);
	enum fw_code code = v->pl->plugin->filter(v->pl, v->c, pod, &v->nis[node], &st);
	fw_status_message(&st, msg, size);
	return code;
}

/* A filtering case: PreFilter's code (Success, Skip), then each node's Filter code and reason
 * ("" for Success), "C:reason" codes U (Unschedulable) and X (UnschedulableAndUnresolvable). */
struct fcase {
	const char *name;
	struct api_pod *pod;
	struct api_pod *pods[6];
	const char *nodes;
	enum fw_code pre_filter;
	const char *want[4];
};

static void check_fcase(const struct fcase *tc, const char *namespaces)
{
	struct env v;
	char msg[512];
	env_init(&v, namespaces, 1, false);
	env_nodes(&v, tc->nodes, (struct api_pod **)tc->pods);
	enum fw_code code = run_pre_filter(&v, tc->pod, msg, sizeof(msg));
	if (code != tc->pre_filter)
		fail_msg("%s: PreFilter got %s \"%s\", want %s", tc->name, fw_code_str(code), msg,
			 fw_code_str(tc->pre_filter));
	for (uint32_t i = 0; code == FW_SUCCESS && i < v.n_nodes; i++) {
		const char *w = tc->want[i] ? tc->want[i] : "";
		enum fw_code want = !w[0] ? FW_SUCCESS : w[0] == 'U' ? FW_UNSCHEDULABLE : FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
		const char *want_msg = w[0] ? w + 2 : "";
		enum fw_code got = run_filter(&v, tc->pod, i, msg, sizeof(msg));
		if (got != want || strcmp(msg, want_msg))
			fail_msg("%s: node %u: Filter got %s \"%s\", want %s \"%s\"", tc->name, i, fw_code_str(got), msg,
				 fw_code_str(want), want_msg);
	}
	api_pod_unref(tc->pod);
	env_release(&v);
}

#define P(...) TOBJ_POD(.ns = "default", __VA_ARGS__)
#define U_ANTI "U:" R_ANTI
#define U_EXIST "U:" R_EXIST
#define X_AFF "X:" R_AFF

/* upstream filtering_test.go TestRequiredAffinitySingleNode */
static void test_required_affinity_single_node(void **state)
{
	(void)state;
	const char *node1 = "node1:region=r1,zone=z11";
#define POD() P(.labels = "service=securityscan", .node = "node1")
	const struct fcase cases[] = {
		{ "A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
		  P(.name = "x"), { NULL }, node1, FW_SKIP, { NULL } },
		{ "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
		  P(.labels = "security=S1", .affinity = aff("A service In securityscan,value2 @region")), { POD() }, node1,
		  FW_SUCCESS, { "" } },
		{ "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
		  P(.labels = "security=S1", .affinity = aff("A service NotIn securityscan3,value3 @region")), { POD() },
		  node1, FW_SUCCESS, { "" } },
		{ "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
		  P(.labels = "security=S1", .affinity = aff("A service In securityscan,value2 @ ns=DiffNameSpace")),
		  { TOBJ_POD(.ns = "ns", .labels = "service=securityscan", .node = "node1") }, node1, FW_SUCCESS,
		  { X_AFF } },
		{ "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
		  P(.labels = "service=securityscan", .affinity = aff("A service In antivirusscan,value2 @")), { POD() },
		  node1, FW_SUCCESS, { X_AFF } },
		{ "satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
		  P(.labels = "security=S1",
		    .affinity = aff("A service Exists & wrongkey DoesNotExist @region;"
				    "A service In securityscan & service NotIn WrongValue @region")),
		  { POD() }, node1, FW_SUCCESS, { "" } },
		{ "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
		  P(.labels = "security=S1",
		    .affinity = aff("A service Exists & wrongkey DoesNotExist @region;"
				    "A service In securityscan2 & service NotIn WrongValue @region")),
		  { POD() }, node1, FW_SUCCESS, { X_AFF } },
		{ "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
		  P(.labels = "security=S1",
		    .affinity = aff("A service In securityscan,value2 @region; N service In antivirusscan,value2 @node")),
		  { POD() }, node1, FW_SUCCESS, { "" } },
		{ "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
		  P(.labels = "security=S1",
		    .affinity = aff("A service In securityscan,value2 @region; N service In antivirusscan,value2 @node")),
		  { P(.node = "node1", .labels = "service=securityscan",
		      .affinity = aff("N service In antivirusscan,value2 @node")) },
		  node1, FW_SUCCESS, { "" } },
		{ "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
		  P(.labels = "security=S1",
		    .affinity = aff("A service In securityscan,value2 @region; N service In securityscan,value2 @zone")),
		  { POD() }, node1, FW_SUCCESS, { U_ANTI } },
		{ "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
		  P(.labels = "service=securityscan",
		    .affinity = aff("A service In securityscan,value2 @region; N service In antivirusscan,value2 @node")),
		  { P(.labels = "service=securityscan", .node = "node1",
		      .affinity = aff("N service In securityscan,value2 @zone")) },
		  node1, FW_SUCCESS, { U_EXIST } },
		{ "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
		  P(.labels = "service=securityscan", .affinity = aff("A service NotIn securityscan,value2 @region")),
		  { P(.labels = "service=securityscan", .node = "node2") }, node1, FW_SUCCESS, { X_AFF } },
		{ "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
		  P(.labels = "service=securityscan"),
		  { P(.node = "node1", .labels = "service=securityscan",
		      .affinity = aff("N service In securityscan,value2 @zone")) },
		  node1, FW_SUCCESS, { U_EXIST } },
		{ "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
		  P(.labels = "service=securityscan"),
		  { P(.node = "node1", .labels = "service=securityscan",
		      .affinity = aff("N service NotIn securityscan,value2 @zone")) },
		  node1, FW_SKIP, { NULL } },
		{ "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
		  P(.labels = "service=securityscan", .affinity = aff("N service Exists @region; N security Exists @region")),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff("N security Exists @zone")) }, node1,
		  FW_SUCCESS, { U_ANTI } },
		{ "PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
		  P(.labels = "service=securityscan", .affinity = aff("N service Exists @zone; N security Exists @zone")),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff("N security Exists @zone")) }, node1,
		  FW_SUCCESS, { U_ANTI } },
		{ "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
		  P(.labels = "security=S1", .affinity = aff("N security Exists @zone")),
		  { P(.node = "node1", .labels = "service=securityscan",
		      .affinity = aff("N service Exists @zone; N security Exists @zone")) },
		  node1, FW_SUCCESS, { U_EXIST } },
		{ "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
		  P(.labels = "abc=,xyz=", .affinity = aff("N abc Exists @zone; N def Exists @zone")),
		  { P(.node = "node1", .labels = "def=,xyz=", .affinity = aff("N abc Exists @zone; N def Exists @zone")) },
		  node1, FW_SUCCESS, { U_ANTI } },
		{ "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
		  P(.labels = "def=,xyz=", .affinity = aff("N abc Exists @zone; N def Exists @zone")),
		  { P(.node = "node1", .labels = "abc=,xyz=", .affinity = aff("N abc Exists @zone; N def Exists @zone")) },
		  node1, FW_SUCCESS, { U_ANTI } },
		{ "affinity with NamespaceSelector",
		  P(.labels = "security=S1", .affinity = aff("A service In securityscan,value2 @region nss=team In team1")),
		  { TOBJ_POD(.ns = "subteam1.team1", .labels = "service=securityscan", .node = "node1") }, node1,
		  FW_SUCCESS, { "" } },
		{ "affinity with non-matching NamespaceSelector",
		  P(.labels = "security=S1", .affinity = aff("A service In securityscan,value2 @region nss=team In team1")),
		  { TOBJ_POD(.ns = "subteam1.team2", .labels = "service=securityscan", .node = "node1") }, node1,
		  FW_SUCCESS, { X_AFF } },
		{ "anti-affinity with matching NamespaceSelector",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1",
			   .affinity = aff("N service In securityscan,value2 @zone nss=team In team1")),
		  { TOBJ_POD(.ns = "subteam2.team1", .labels = "service=securityscan", .node = "node1") }, node1,
		  FW_SUCCESS, { U_ANTI } },
		{ "anti-affinity with matching all NamespaceSelector",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1",
			   .affinity = aff("N service In securityscan,value2 @zone nss={}")),
		  { TOBJ_POD(.ns = "subteam2.team1", .labels = "service=securityscan", .node = "node1") }, node1,
		  FW_SUCCESS, { U_ANTI } },
		{ "anti-affinity with non-matching NamespaceSelector",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1",
			   .affinity = aff("N service In securityscan,value2 @zone nss=team In team1")),
		  { TOBJ_POD(.ns = "subteam1.team2", .labels = "service=securityscan", .node = "node1") }, node1,
		  FW_SUCCESS, { "" } },
	};
#undef POD
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_fcase(&cases[i], UPSTREAM_NAMESPACES);
}

/* upstream filtering_test.go TestRequiredAffinityMultipleNodes */
static void test_required_affinity_multiple_nodes(void **state)
{
	(void)state;
	const char *china3 = "node1:region=China node2:region=China,az=az1 node3:region=India";
	const char *abc3 = "nodeA:region=China nodeB:region=China,az=az1 nodeC:region=India";
	const char *rzh = "nodeA:region=r1,zone=z1,hostname=nodeA nodeB:region=r1,zone=z2,hostname=nodeB";
	const char *rzh_same = "nodeA:region=r1,zone=z1,hostname=nodeA nodeB:region=r1,zone=z1,hostname=nodeB";
	const struct fcase cases[] = {
		{ "A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
		  P(.affinity = aff("A foo In bar @region")), { P(.name = "p1", .node = "node1", .labels = "foo=bar") },
		  china3, FW_SUCCESS, { "", "", X_AFF } },
		{ "The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
		  P(.labels = "foo=bar,service=securityscan", .affinity = aff("A foo In bar @zone; A service In securityscan @zone")),
		  { P(.name = "p1", .node = "nodeA", .labels = "foo=bar") }, "nodeA:zone=az1,hostname=h1 nodeB:zone=az2,hostname=h2",
		  FW_SUCCESS, { "", "" } },
		{ "The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
		  P(.labels = "foo=bar,service=securityscan", .affinity = aff("A foo In bar @zone; A service In securityscan @zone")),
		  { P(.name = "p1", .node = "nodeA", .labels = "foo=bar") },
		  "nodeA:zoneLabel=az1,hostname=h1 nodeB:zoneLabel=az2,hostname=h2", FW_SUCCESS, { X_AFF, X_AFF } },
		{ "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
		  P(.affinity = aff("N foo In abc @region")), { P(.node = "nodeA", .labels = "foo=abc") },
		  "nodeA:region=r1,hostname=nodeA nodeB:region=r1,hostname=nodeB", FW_SUCCESS, { U_ANTI, U_ANTI } },
		{ "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
		  P(.affinity = aff("N foo In abc @region; N service In securityscan @zone")),
		  { P(.node = "nodeA", .labels = "foo=abc,service=securityscan") },
		  "nodeA:region=r1,zone=z1,hostname=nodeA nodeB:region=r1,zone=z2,hostname=nodeB", FW_SUCCESS,
		  { U_ANTI, U_ANTI } },
		{ "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
		  P(.affinity = aff("N foo In abc @region")), { P(.node = "nodeA", .labels = "foo=abc") }, abc3, FW_SUCCESS,
		  { U_ANTI, U_ANTI, "" } },
		{ "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
		  TOBJ_POD(.ns = "NS1", .labels = "foo=123", .affinity = aff("N foo In bar @region")),
		  { TOBJ_POD(.node = "nodeA", .ns = "NS1", .labels = "foo=bar"),
		    TOBJ_POD(.node = "nodeC", .ns = "NS2", .affinity = aff("N foo In 123 @region")) },
		  abc3, FW_SUCCESS, { U_ANTI, U_ANTI, "" } },
		{ "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
		  P(.labels = "foo="), { P(.node = "nodeA", .affinity = aff("N foo Exists @invalid-node-label")) }, rzh_same,
		  FW_SKIP, { NULL } },
		{ "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
		  P(.node = "nodeA", .affinity = aff("N foo Exists @invalid-node-label")), { P(.node = "nodeA", .labels = "foo=") },
		  rzh_same, FW_SUCCESS, { "", "" } },
		{ "Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
		  P(.labels = "foo=,bar="),
		  { P(.node = "nodeA", .affinity = aff("N foo Exists @zone")), P(.node = "nodeA", .affinity = aff("N bar Exists @region")) },
		  rzh, FW_SUCCESS, { U_EXIST, U_EXIST } },
		{ "Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
		  P(.affinity = aff("N foo Exists @zone; N bar Exists @region")),
		  { P(.node = "nodeA", .labels = "foo="), P(.node = "nodeB", .labels = "bar=") }, rzh, FW_SUCCESS,
		  { U_ANTI, U_ANTI } },
		{ "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
		  P(.labels = "foo=,bar="), { P(.node = "nodeA", .affinity = aff("N foo Exists @invalid-node-label; N bar Exists @zone")) },
		  rzh, FW_SUCCESS, { U_EXIST, "" } },
		{ "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
		  P(.affinity = aff("N foo Exists @invalid-node-label; N bar Exists @zone")),
		  { P(.name = "podA", .node = "nodeA", .labels = "foo=,bar=") }, rzh, FW_SUCCESS, { U_ANTI, "" } },
		{ "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
		  P(.labels = "foo=,bar="), { P(.node = "nodeA", .affinity = aff("N foo Exists @region; N bar Exists @zone")) },
		  rzh, FW_SUCCESS, { U_EXIST, U_EXIST } },
		{ "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
		  P(.affinity = aff("N foo Exists @region; N bar Exists @zone")), { P(.node = "nodeA", .labels = "foo=,bar=") },
		  rzh, FW_SUCCESS, { U_ANTI, U_ANTI } },
		{ "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
		  P(.labels = "foo=,bar="),
		  { P(.node = "nodeA", .affinity = aff("N foo Exists @zone; N labelA Exists @zone")),
		    P(.node = "nodeB", .affinity = aff("N bar Exists @zone; N labelB Exists @zone")) },
		  "nodeA:region=r1,zone=z1,hostname=nodeA nodeB:region=r1,zone=z2,hostname=nodeB nodeC:region=r1,zone=z3,hostname=nodeC",
		  FW_SUCCESS, { U_EXIST, U_EXIST, "" } },
		{ "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
		  P(.affinity = aff("A foo Exists @region; A bar Exists @zone")),
		  { P(.name = "pod1", .node = "nodeA", .labels = "foo=,bar=") }, rzh_same, FW_SUCCESS, { "", "" } },
		{ "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
		  P(.affinity = aff("A foo Exists @region; A bar Exists @zone")),
		  { P(.name = "pod1", .node = "nodeA", .labels = "foo="), P(.name = "pod2", .node = "nodeB", .labels = "bar=") },
		  rzh, FW_SUCCESS, { X_AFF, X_AFF } },
		{ "Test incoming pod's host-scoped affinity (fast path)",
		  P(.affinity = aff("A foo Exists @kubernetes.io/hostname")), { P(.name = "pod1", .node = "nodeA", .labels = "foo=") },
		  "nodeA:kubernetes.io/hostname=nodeA nodeB:kubernetes.io/hostname=nodeB", FW_SUCCESS, { "", X_AFF } },
	};
	(void)china3;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_fcase(&cases[i], NULL);
}

/* ---------- scoring ---------- */

/* A scoring case: PreScore's code, then (Success) the normalised scores of the nodes. */
struct scase {
	const char *name;
	struct api_pod *pod;
	struct api_pod *pods[8];
	const char *nodes;
	int32_t hard_weight;
	bool ignore_preferred;
	enum fw_code pre_score;
	int64_t want[5];
};

static void check_scase(const struct scase *tc)
{
	struct env v;
	struct fw_status st;
	char msg[256];
	env_init(&v, UPSTREAM_NAMESPACES, tc->hard_weight, tc->ignore_preferred);
	env_nodes(&v, tc->nodes, (struct api_pod **)tc->pods);
	fw_status_reset(&st);
	enum fw_code code = v.pl->plugin->pre_score(v.pl, v.c, tc->pod, v.ptrs, v.n_nodes, &st);
	if (code != tc->pre_score)
		fail_msg("%s: PreScore got %s \"%s\", want %s", tc->name, fw_code_str(code),
			 fw_status_message(&st, msg, sizeof(msg)), fw_code_str(tc->pre_score));
	if (code == FW_SUCCESS) {
		struct fw_node_score ns[8];
		for (uint32_t i = 0; i < v.n_nodes; i++) {
			fw_status_reset(&st);
			ns[i].ni = v.ptrs[i];
			assert_int_equal(v.pl->plugin->score(v.pl, v.c, tc->pod, v.ptrs[i], &ns[i].score, &st), FW_SUCCESS);
		}
		fw_status_reset(&st);
		assert_int_equal(v.pl->plugin->normalize_score(v.pl, v.c, tc->pod, ns, v.n_nodes, &st), FW_SUCCESS);
		for (uint32_t i = 0; i < v.n_nodes; i++)
			if (ns[i].score != tc->want[i])
				fail_msg("%s: node %u scored %lld, want %lld", tc->name, i, (long long)ns[i].score,
					 (long long)tc->want[i]);
	}
	api_pod_unref(tc->pod);
	env_release(&v);
}

/* upstream scoring_test.go TestPreferredAffinity's affinities */
#define STAY_S1_REGION "PA5 security In S1 @region"
#define STAY_S2_REGION "PA6 security In S2 @region"
#define AFFINITY3 "PA8 security NotIn S1 & security In S2 @region; PA2 security Exists & wrongkey DoesNotExist @region"
#define HARD_AFFINITY "A security In S1,value2 @region; A security Exists & wrongkey DoesNotExist @region"
#define AWAY_S1_AZ "PN5 security In S1 @az"
#define AWAY_S2_AZ "PN5 security In S2 @az"
#define STAY_S1_AWAY_S2 "PA8 security In S1 @region; PN5 security In S2 @az"
#define AFF_NS_SEL "PA5 security In S1 @region ns=subteam2.team2 nss=team In team1"
#define ANTI_NS_SEL "PN5 security In S1 @region ns=subteam2.team2 nss=team In team1"
#define AFF_NEG_NS_SEL "PA5 security In S1 @region nss=team NotIn team1"
#define ANTI_NEG_NS_SEL "PN5 security In S1 @region nss=team NotIn team1"

/* upstream scoring_test.go TestPreferredAffinity */
static void test_preferred_affinity(void **state)
{
	(void)state;
	const char *cia = "node1:region=China node2:region=India node3:az=az1";
#define S1(n) P(.node = n, .labels = "security=S1")
#define S2(n) P(.node = n, .labels = "security=S2")
#define NSP(ns_, n) TOBJ_POD(.ns = ns_, .node = n, .labels = "security=S1")
	const struct scase cases[] = {
		{ "all nodes are same priority as Affinity is nil", P(.labels = "security=S1"), { NULL }, cia, 1, false, FW_SKIP,
		  { 0 } },
		{ "Affinity: pod that matches topology key & pods in nodes will get high score comparing to otherswhich doesn't match either pods in nodes or in topology key",
		  P(.labels = "security=S1", .affinity = aff(STAY_S1_REGION)), { S1("node1"), S2("node2"), S1("node3") }, cia, 1,
		  false, FW_SUCCESS, { 100, 0, 0 } },
		{ "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
		  P(.affinity = aff(STAY_S1_REGION)), { S1("node1") }, "node1:region=China node2:region=China,az=az1 node3:region=India",
		  1, false, FW_SUCCESS, { 100, 100, 0 } },
		{ "Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
		  P(.labels = "security=S1", .affinity = aff(STAY_S2_REGION)),
		  { S2("node1"), S2("node1"), S2("node2"), S2("node3"), S2("node4"), S2("node5") },
		  "node1:region=China node2:region=India node3:region=China node4:region=China node5:region=India", 1, false,
		  FW_SUCCESS, { 100, 0, 100, 100, 0 } },
		{ "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
		  P(.labels = "security=S1", .affinity = aff(AFFINITY3)), { S1("node1"), S2("node2"), S1("node3") }, cia, 1, false,
		  FW_SUCCESS, { 20, 100, 0 } },
		{ "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
		  P(.labels = "security=S2"),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff(STAY_S1_REGION)),
		    P(.node = "node2", .labels = "security=S2", .affinity = aff(STAY_S2_REGION)) },
		  cia, 1, false, FW_SUCCESS, { 0, 100, 0 } },
		{ "Affinity symmetry with namespace selector", TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1"),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff(AFF_NS_SEL)),
		    P(.node = "node2", .labels = "security=S2", .affinity = aff(STAY_S2_REGION)) },
		  cia, 1, false, FW_SUCCESS, { 100, 0, 0 } },
		{ "AntiAffinity symmetry with namespace selector", TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1"),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff(ANTI_NS_SEL)),
		    P(.node = "node2", .labels = "security=S2", .affinity = aff(STAY_S2_REGION)) },
		  cia, 1, false, FW_SUCCESS, { 0, 100, 100 } },
		{ "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
		  P(.labels = "security=S1"),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff(HARD_AFFINITY)),
		    P(.node = "node2", .labels = "security=S2", .affinity = aff(HARD_AFFINITY)) },
		  cia, 1, false, FW_SUCCESS, { 100, 100, 0 } },
		{ "Anti Affinity: pod that does not match existing pods in node will get high score ",
		  P(.labels = "security=S1", .affinity = aff(AWAY_S1_AZ)), { S1("node1"), S2("node2") },
		  "node1:az=az1 node2:region=China", 1, false, FW_SUCCESS, { 0, 100 } },
		{ "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
		  P(.labels = "security=S1", .affinity = aff(AWAY_S1_AZ)), { S1("node1"), S1("node2") },
		  "node1:az=az1 node2:region=China", 1, false, FW_SUCCESS, { 0, 100 } },
		{ "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
		  P(.labels = "security=S1", .affinity = aff(AWAY_S1_AZ)), { S1("node1"), S1("node1"), S2("node2") },
		  "node1:az=az1 node2:region=India", 1, false, FW_SUCCESS, { 0, 100 } },
		{ "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
		  P(.labels = "security=S2"),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff(AWAY_S2_AZ)),
		    P(.node = "node2", .labels = "security=S2", .affinity = aff(AWAY_S1_AZ)) },
		  "node1:az=az1 node2:az=az2", 1, false, FW_SUCCESS, { 0, 100 } },
		{ "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
		  P(.labels = "security=S1", .affinity = aff(STAY_S1_AWAY_S2)), { S1("node1"), S1("node2") },
		  "node1:region=China node2:az=az1", 1, false, FW_SUCCESS, { 100, 0 } },
		{ "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
		  P(.labels = "security=S1", .affinity = aff(STAY_S1_AWAY_S2)),
		  { S1("node1"), S1("node1"), S1("node2"), S1("node3"), S1("node3"), S1("node4"), S1("node5") },
		  "node1:region=China,az=az1 node2:region=India node3:region=China node4:region=China node5:region=India", 1,
		  false, FW_SUCCESS, { 100, 0, 100, 100, 0 } },
		{ "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
		  P(.labels = "security=S1", .affinity = aff(STAY_S1_AWAY_S2)),
		  { S1("node1"), S2("node2"), P(.node = "node3", .affinity = aff(STAY_S1_AWAY_S2)),
		    P(.node = "node4", .affinity = aff(AWAY_S1_AZ)) },
		  "node1:region=China node2:az=az1 node3:region=India node4:az=az2", 1, false, FW_SUCCESS, { 100, 0, 100, 0 } },
		{ "Avoid panic when partial nodes in a topology don't have pods with affinity", P(.labels = "security=S1"),
		  { S1("node1"), P(.node = "node2", .affinity = aff(STAY_S1_AWAY_S2)) }, "node1:region=China node2:region=China", 1,
		  false, FW_SUCCESS, { 0, 0 } },
		{ "Affinity with pods matching NamespaceSelector",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1", .affinity = aff(AFF_NS_SEL)),
		  { NSP("subteam1.team1", "node1"), NSP("subteam1.team1", "node1"), NSP("subteam1.team2", "node1"),
		    NSP("subteam2.team1", "node2") },
		  "node1:region=China node2:region=India", 1, false, FW_SUCCESS, { 100, 0 } },
		{ "Affinity with pods matching both NamespaceSelector and Namespaces fields",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1", .affinity = aff(AFF_NS_SEL)),
		  { NSP("subteam1.team1", "node1"), NSP("subteam1.team1", "node1"), NSP("subteam2.team2", "node1"),
		    NSP("subteam2.team1", "node2") },
		  "node1:region=China node2:region=India", 1, false, FW_SUCCESS, { 100, 0 } },
		{ "Affinity with pods matching NamespaceSelector (anti-affinity)",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1", .affinity = aff(ANTI_NS_SEL)),
		  { NSP("subteam1.team1", "node1"), NSP("subteam1.team1", "node1"), NSP("subteam1.team2", "node1"),
		    NSP("subteam2.team1", "node2") },
		  "node1:region=China node2:region=India", 1, false, FW_SUCCESS, { 0, 100 } },
		{ "Affinity with pods matching both NamespaceSelector and Namespaces fields (anti-affinity)",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1", .affinity = aff(ANTI_NS_SEL)),
		  { NSP("subteam1.team1", "node1"), NSP("subteam1.team1", "node1"), NSP("subteam2.team2", "node1"),
		    NSP("subteam2.team1", "node2") },
		  "node1:region=China node2:region=India", 1, false, FW_SUCCESS, { 0, 100 } },
		{ "Affinity with pods correctly enforcing negative NamespaceSelector",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1", .affinity = aff(AFF_NEG_NS_SEL)),
		  { NSP("subteam1.team1", "node1"), NSP("subteam1.team1", "node1"), NSP("subteam1.team2", "node2") },
		  "node1:region=China node2:region=India", 1, false, FW_SUCCESS, { 0, 100 } },
		{ "AntiAffinity with pods correctly enforcing negative NamespaceSelector",
		  TOBJ_POD(.ns = "subteam1.team1", .labels = "security=S1", .affinity = aff(ANTI_NEG_NS_SEL)),
		  { NSP("subteam1.team1", "node1"), NSP("subteam1.team1", "node1"), NSP("subteam1.team2", "node2") },
		  "node1:region=China node2:region=India", 1, false, FW_SUCCESS, { 100, 0 } },
		{ "Ignore preferred terms of existing pods", P(.labels = "security=S2"),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff(STAY_S1_AWAY_S2)),
		    P(.node = "node2", .labels = "security=S2", .affinity = aff(STAY_S2_REGION)) },
		  "node1:region=China node2:region=India", 1, true, FW_SKIP, { 0 } },
		{ "Do not ignore preferred terms of existing pods", P(.labels = "security=S2"),
		  { P(.node = "node1", .labels = "security=S1", .affinity = aff(STAY_S1_AWAY_S2)),
		    P(.node = "node2", .labels = "security=S2", .affinity = aff(STAY_S2_REGION)) },
		  "node1:region=China node2:region=India", 1, false, FW_SUCCESS, { 0, 100 } },
	};
#undef S1
#undef S2
#undef NSP
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_scase(&cases[i]);
}

/* upstream scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight (its "" namespace
 * is "default" here) */
static void test_preferred_affinity_hard_weight(void **state)
{
	(void)state;
	const char *cia = "node1:region=China node2:region=India node3:az=az1";
#define HARD "A service In S1 @region ns=default,subteam2.team2 nss=team In team1"
#define EX(n) P(.node = n, .affinity = aff(HARD))
	const struct scase cases[] = {
		{ "with default weight", P(.labels = "service=S1"), { EX("node1"), EX("node2") }, cia, 1, false, FW_SUCCESS,
		  { 100, 100, 0 } },
		{ "with zero weight", P(.labels = "service=S1"), { EX("node1"), EX("node2") }, cia, 0, false, FW_SKIP, { 0 } },
		{ "with no matching namespace", TOBJ_POD(.ns = "subteam1.team2", .labels = "service=S1"),
		  { EX("node1"), EX("node2") }, cia, 1, false, FW_SKIP, { 0 } },
		{ "with matching NamespaceSelector", TOBJ_POD(.ns = "subteam1.team1", .labels = "service=S1"),
		  { EX("node1"), EX("node2") }, cia, 1, false, FW_SUCCESS, { 100, 100, 0 } },
		{ "with matching Namespaces", TOBJ_POD(.ns = "subteam2.team2", .labels = "service=S1"),
		  { EX("node1"), EX("node2") }, cia, 1, false, FW_SUCCESS, { 100, 100, 0 } },
	};
#undef HARD
#undef EX
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_scase(&cases[i]);
}

/* ---------- queueing hints ---------- */

static queue_hint_fn hint_for(uint32_t resource)
{
	const struct fw_plugin *pl = fw_registry_lookup("InterPodAffinity");
	assert_non_null(pl);
	for (uint32_t i = 0; i < pl->n_events; i++)
		if (pl->events[i].event.resource == resource)
			return pl->events[i].hint;
	fail_msg("no event for resource %u", resource);
	return NULL;
}

/* upstream plugin_test.go Test_isSchedulableAfterPodChange */
static void test_hint_pod_change(void **state)
{
	(void)state;
	queue_hint_fn h = hint_for(QUEUE_RES_ASSIGNED_POD);
#define AFF_SVC "A service In securityscan,value2 @region"
#define ANTI_SVC "N service In securityscan,value2 @region"
#define TWO_ANTI "N service In securityscan @region; N app In web @region"
#define PP(a) P(.uid = "p", .name = "p", .affinity = aff(a))
#define O(...) P(.uid = "other", __VA_ARGS__)
	const struct {
		const char *name;
		struct api_pod *pod, *old_pod, *new_pod;
		enum queue_hint want;
	} cases[] = {
		{ "add a pod which matches the pod affinity", PP(AFF_SVC), NULL,
		  O(.node = "fake-node", .labels = "service=securityscan"), QUEUE_HINT_QUEUE },
		{ "add an un-scheduled pod", PP(AFF_SVC), NULL, O(.labels = "service=securityscan"), QUEUE_HINT_SKIP },
		{ "add a pod which doesn't match the pod affinity", PP(AFF_SVC), NULL, O(.node = "fake-node", .labels = "aaa=a"),
		  QUEUE_HINT_SKIP },
		{ "update a pod from non-match to match pod affinity", PP(AFF_SVC), O(.node = "fake-node", .labels = "aaa=a"),
		  O(.node = "fake-node", .labels = "service=securityscan"), QUEUE_HINT_QUEUE },
		{ "the updating pod matches target pod's affinity both before and after label changes", PP(AFF_SVC),
		  O(.node = "fake-node", .labels = "service=value2"), O(.node = "fake-node", .labels = "service=securityscan"),
		  QUEUE_HINT_SKIP },
		{ "update an un-scheduled pod", PP(AFF_SVC), O(.labels = "aaa=a"), O(.labels = "service=securityscan"),
		  QUEUE_HINT_SKIP },
		{ "update a pod from match to non-match the pod affinity", PP(AFF_SVC),
		  O(.node = "fake-node", .labels = "service=securityscan"), O(.node = "fake-node", .labels = "aaa=a"),
		  QUEUE_HINT_SKIP },
		{ "update a pod from match to non-match pod's affinity - multiple terms case",
		  PP("A aaa Exists @hostname; A bbb Exists @hostname"), O(.node = "fake-node", .labels = "aaa=a"),
		  O(.node = "fake-node", .labels = "service=securityscan"), QUEUE_HINT_SKIP },
		{ "update a pod from non-match to match pod's affinity - multiple terms case",
		  PP("A aaa Exists @hostname; A bbb Exists @hostname"), O(.node = "fake-node", .labels = "aaa=a"),
		  O(.node = "fake-node", .labels = "aaa=,bbb="), QUEUE_HINT_QUEUE },
		{ "modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity", PP(ANTI_SVC),
		  O(.node = "fake-node", .labels = "service=securityscan"), O(.node = "fake-node", .labels = "service=aaaa"),
		  QUEUE_HINT_QUEUE },
		{ "modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity",
		  PP(ANTI_SVC), O(.node = "fake-node", .labels = "service=bbb"),
		  O(.node = "fake-node", .labels = "service=securityscan"), QUEUE_HINT_SKIP },
		{ "delete a pod which doesn't match pod's anti-affinity", PP(ANTI_SVC), O(.node = "fake-node", .labels = "aaa=a"),
		  NULL, QUEUE_HINT_SKIP },
		{ "delete a pod which matches pod's anti-affinity", PP(ANTI_SVC),
		  O(.node = "fake-node", .labels = "service=securityscan"), NULL, QUEUE_HINT_QUEUE },
		{ "delete a pod with anti-affinity that matches pending pod", P(.name = "p", .labels = "service=securityscan"),
		  P(.node = "fake-node", .affinity = aff(ANTI_SVC)), NULL, QUEUE_HINT_QUEUE },
		{ "delete a pod with anti-affinity that doesn't match pending pod", P(.name = "p", .labels = "service=foo"),
		  P(.node = "fake-node", .affinity = aff(ANTI_SVC)), NULL, QUEUE_HINT_SKIP },
		{ "delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't match pending pod",
		  P(.name = "p", .labels = "service=foo", .affinity = aff(ANTI_SVC)),
		  P(.node = "fake-node", .labels = "service=foo", .affinity = aff(ANTI_SVC)), NULL, QUEUE_HINT_SKIP },
		{ "delete a nominated pod which doesn't match pod's anti-affinity", P(.name = "p", .affinity = aff(ANTI_SVC)),
		  P(.nominated = "fake-node", .labels = "aaa=a"), NULL, QUEUE_HINT_SKIP },
		{ "delete a nominated pod which matches pod's anti-affinity", P(.name = "p", .affinity = aff(ANTI_SVC)),
		  P(.nominated = "fake-node", .labels = "service=securityscan"), NULL, QUEUE_HINT_QUEUE },
		{ "modify pod label to change it from matching only one of target pod's anti-affinity terms to matching none",
		  PP(TWO_ANTI), O(.node = "fake-node", .labels = "service=securityscan,app=bar"),
		  O(.node = "fake-node", .labels = "service=foo,app=bar"), QUEUE_HINT_QUEUE },
		{ "modify pod label but it still matches one of target pod's anti-affinity terms", PP(TWO_ANTI),
		  O(.node = "fake-node", .labels = "service=securityscan,app=bar"),
		  O(.node = "fake-node", .labels = "service=foo,app=web"), QUEUE_HINT_SKIP },
		{ "delete a pod which matches only one of target pod's anti-affinity terms", PP(TWO_ANTI),
		  O(.node = "fake-node", .labels = "service=securityscan"), NULL, QUEUE_HINT_QUEUE },
		{ "delete a pod with anti-affinity that matches pending pod on only one term",
		  P(.name = "p", .labels = "service=securityscan"), O(.node = "fake-node", .affinity = aff(TWO_ANTI)), NULL,
		  QUEUE_HINT_QUEUE },
	};
#undef PP
#undef O
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum queue_hint got = h(NULL, cases[i].pod, cases[i].old_pod, cases[i].new_pod);
		if (got != cases[i].want)
			fail_msg("%s: got %d, want %d", cases[i].name, got, cases[i].want);
		api_pod_unref(cases[i].pod);
		api_pod_unref(cases[i].old_pod);
		api_pod_unref(cases[i].new_pod);
	}
	/* upstream Test_isSchedulableAfterTargetPodUpdateLabel: always Queue */
	queue_hint_fn t = hint_for(QUEUE_RES_TARGET_POD);
	struct api_pod *p = P(.name = "p", .labels = "a=b");
	assert_true(t == NULL || t(NULL, p, p, p) == QUEUE_HINT_QUEUE);
	api_pod_unref(p);
}

/* upstream plugin_test.go Test_isSchedulableAfterNodeChange */
static void test_hint_node_change(void **state)
{
	(void)state;
	queue_hint_fn h = hint_for(QUEUE_RES_NODE);
#define AFF_Z "A service In securityscan,value2 @zone"
#define ANTI_Z "N another In label @zone"
#define N(l) TOBJ_NODE(.name = "node-a", .labels = l)
	const struct {
		const char *name;
		const char *pod_aff;
		struct api_node *old_node, *new_node;
		enum queue_hint want;
	} cases[] = {
		{ "add a new node with matched pod affinity topologyKey", AFF_Z, NULL, N("zone=zone1"), QUEUE_HINT_QUEUE },
		{ "add a new node without matched topologyKey", "A service In securityscan,value2 @region", NULL, N("zone=zone1"),
		  QUEUE_HINT_SKIP },
		{ "update node label but not topologyKey", AFF_Z, N("aaa=a"), N("aaa=b"), QUEUE_HINT_SKIP },
		{ "update node label that isn't related to the pod affinity", AFF_Z, N("zone=zone1"),
		  N("zone=zone1,unrelated-label=unrelated"), QUEUE_HINT_SKIP },
		{ "update node with different affinity topologyKey value", AFF_Z, N("zone=zone1"), N("zone=zone2"),
		  QUEUE_HINT_QUEUE },
		{ "update node to have the affinity topology label", AFF_Z, N("aaa=a"), N("zone=zone1"), QUEUE_HINT_QUEUE },
		{ "add a new node with matched pod anti-affinity topologyKey", ANTI_Z, NULL, N("zone=zone1"), QUEUE_HINT_QUEUE },
		{ "add a new node without matched pod anti-affinity topologyKey", ANTI_Z, NULL, N(""), QUEUE_HINT_QUEUE },
		{ "update node label that isn't related to the pod anti-affinity", ANTI_Z, N("zone=zone1"),
		  N("zone=zone1,unrelated-label=unrelated"), QUEUE_HINT_SKIP },
		{ "update node with different anti-affinity topologyKey value", ANTI_Z, N("zone=zone1"), N("zone=zone2"),
		  QUEUE_HINT_QUEUE },
		{ "update node to have the anti-affinity topology label", ANTI_Z, N("aaa=a"), N("zone=zone1"), QUEUE_HINT_SKIP },
		{ "update node label not to have anti-affinity topology label", ANTI_Z, N("zone=zone1"), N("aaa=a"),
		  QUEUE_HINT_QUEUE },
	};
#undef N
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct api_pod *pod = P(.name = "p", .affinity = aff(cases[i].pod_aff));
		enum queue_hint got = h(NULL, pod, cases[i].old_node, cases[i].new_node);
		if (got != cases[i].want)
			fail_msg("%s: got %d, want %d", cases[i].name, got, cases[i].want);
		api_pod_unref(pod);
		api_node_unref(cases[i].old_node);
		api_node_unref(cases[i].new_node);
	}
}

/* upstream plugin.go EventsToRegister */
static void test_events(void **state)
{
	(void)state;
	const struct fw_plugin *pl = fw_registry_lookup("InterPodAffinity");
	assert_int_equal(pl->n_events, 3);
	assert_int_equal(pl->events[0].event.resource, QUEUE_RES_ASSIGNED_POD);
	assert_int_equal(pl->events[0].event.actions, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_POD_LABEL | QUEUE_ACT_DELETE);
	assert_int_equal(pl->events[1].event.resource, QUEUE_RES_TARGET_POD);
	assert_int_equal(pl->events[1].event.actions, QUEUE_ACT_UPDATE_POD_LABEL);
	assert_int_equal(pl->events[2].event.resource, QUEUE_RES_NODE);
	assert_int_equal(pl->events[2].event.actions, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL);
}

/* ---------- nominated pods ---------- */

/* upstream filtering.go AddPod (updateWithPod, +1) through RunFilterPluginsWithNominatedPods: a
 * pod nominated to a node counts there, for the pod's anti-affinity and affinity and with its own
 * required anti-affinity, as upstream's TestPreFilterStateAddRemovePod checks on the counts;
 * nodes without nominated pods see the state PreFilter built. */
static void test_nominated_pods(void **state)
{
	(void)state;
	const char *nodes = "nodeA:region=r1,zone=z1 nodeB:region=r2,zone=z2";
	const struct {
		const char *name;
		struct api_pod *pod, *nominated;
		enum fw_code want[2];
		const char *msg[2];
	} cases[] = {
		{ "a nominated pod matching the pod's anti-affinity rejects its node's region",
		  P(.name = "pending", .labels = "foo=bar", .affinity = aff("N foo In bar,buzz @region")),
		  P(.name = "nom", .labels = "foo=bar", .nominated = "nodeA"), { FW_UNSCHEDULABLE, FW_SUCCESS },
		  { R_ANTI, "" } },
		{ "a nominated pod whose anti-affinity matches the pod rejects its node",
		  P(.name = "pending", .labels = "foo=bar", .affinity = aff("A foo In bar @region")),
		  P(.name = "nom", .labels = "x=y", .nominated = "nodeA", .affinity = aff("N foo In bar @zone")),
		  { FW_UNSCHEDULABLE, FW_SUCCESS }, { R_EXIST, "" } },
		/* upstream's second pass (without the nominated pods) must pass too: a nominated pod
		 * never satisfies affinity on its own */
		{ "a nominated pod matching the pod's affinity does not satisfy it",
		  P(.name = "pending", .labels = "x=y", .affinity = aff("A foo In bar @region")),
		  P(.name = "nom", .labels = "foo=bar", .nominated = "nodeA"),
		  { FW_UNSCHEDULABLE_AND_UNRESOLVABLE, FW_UNSCHEDULABLE_AND_UNRESOLVABLE }, { R_AFF, R_AFF } },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct env v;
		char msg[256];
		env_init(&v, NULL, 1, false);
		env_nodes(&v, nodes, NULL);
		assert_int_equal(run_pre_filter(&v, cases[i].pod, msg, sizeof(msg)), FW_SUCCESS);
		struct fw_nominated_pod np = { intern_str("nodeA"), cases[i].nominated };
		struct fw_nominated nom = { 1, &np };
		struct err e = { 0 };
		assert_int_equal(fw_prepare_nominated(v.c, cases[i].pod, &nom, &e), 0);
		for (uint32_t k = 0; k < 2; k++) {
			struct fw_status st;
			fw_status_reset(&st);
			enum fw_code got = fw_run_filters_with_nominated(v.p, v.c, cases[i].pod, &v.nis[k], &st);
			fw_status_message(&st, msg, sizeof(msg));
			if (got != cases[i].want[k] || strcmp(msg, cases[i].msg[k]))
				fail_msg("%s: node %u: got %s \"%s\", want %s \"%s\"", cases[i].name, k, fw_code_str(got), msg,
					 fw_code_str(cases[i].want[k]), cases[i].msg[k]);
		}
		api_pod_unref(cases[i].pod);
		api_pod_unref(cases[i].nominated);
		env_release(&v);
	}
}

/* ---------- SignPod ---------- */

/* The signature mask of a profile with PodTopologySpread off (so that upstream signs at all) and
 * args for InterPodAffinity. */
static uint32_t sign_mask(const char *ipa_args)
{
	char yaml[1024];
	struct config cfg;
	struct err e = { 0 };
	snprintf(yaml, sizeof(yaml),
		 "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		 "- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      disabled:\n"
		 "      - name: PodTopologySpread\n%s",
		 ipa_args);
	if (config_load_buffer(&cfg, fw_registry(), "t.yaml", yaml, strlen(yaml), &e) < 0)
		fail_msg("config: %s", e.msg);
	uint32_t mask = config_profile_sign_mask(&cfg.profiles[0], fw_registry());
	config_free(&cfg);
	return mask;
}

static bool sign_equal(uint32_t mask, const struct api_pod *a, const struct api_pod *b)
{
	struct fw_sig sa = { 0 }, sb = { 0 };
	assert_true(fw_sign_pod(mask, NULL, a, &sa));
	assert_true(fw_sign_pod(mask, NULL, b, &sb));
	bool eq = fw_sig_equal(&sa, &sb);
	fw_sig_release(&sa);
	fw_sig_release(&sb);
	return eq;
}

/* upstream plugin.go SignPod: pods with pod (anti-)affinity are not signable; the labels are a
 * fragment unless ignorePreferredTermsOfExistingPods */
static void test_sign_pod(void **state)
{
	(void)state;
	uint32_t def = sign_mask("");
	uint32_t ign = sign_mask("  pluginConfig:\n  - name: InterPodAffinity\n    args:\n"
				 "      ignorePreferredTermsOfExistingPods: true\n");
	struct api_pod *a = P(.name = "a", .labels = "app=x"), *b = P(.name = "b", .labels = "app=y");
	struct api_pod *aff_pod = P(.name = "c", .affinity = aff("PA1 app In x @zone"));
	struct api_pod *anti_pod = P(.name = "d", .affinity = aff("N app In x @zone"));
	struct fw_sig sg = { 0 };
	assert_false(sign_equal(def, a, b));
	assert_true(sign_equal(ign, a, b));
	assert_false(fw_sign_pod(def, NULL, aff_pod, &sg));
	fw_sig_release(&sg);
	assert_false(fw_sign_pod(ign, NULL, anti_pod, &sg));
	fw_sig_release(&sg);
	api_pod_unref(a);
	api_pod_unref(b);
	api_pod_unref(aff_pod);
	api_pod_unref(anti_pod);
}

/* upstream scoring.go getPreScoreState: Score and NormalizeScore without PreScore's state fail
 * (a profile that enables Score but not PreScore), even after PreFilter wrote its own */
static void test_score_without_pre_score(void **state)
{
	(void)state;
	struct env v;
	char msg[256];
	struct fw_status st;
	env_init(&v, NULL, 1, false);
	env_nodes(&v, "node1:zone=a", NULL);
	struct api_pod *pod = P(.name = "p", .affinity = aff("N app In x @zone"));
	assert_int_equal(run_pre_filter(&v, pod, msg, sizeof(msg)), FW_SUCCESS);
	int64_t sc = -1;
	fw_status_reset(&st);
	assert_int_equal(v.pl->plugin->score(v.pl, v.c, pod, v.ptrs[0], &sc, &st), FW_ERROR);
	assert_string_equal(fw_status_message(&st, msg, sizeof(msg)),
			    "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found");
	api_pod_unref(pod);
	env_release(&v);
}

/* oracle (/work/shared/oracle on the same state: nodes n1 zone=a,region=r1, n2 zone=b,region=r1,
 * n3 zone=c,region=r2, n4 unlabelled; namespaces default, team-a (team=a), team-b (team=b)):
 * namespaceSelector on the incoming pod's terms (unrolled), on existing pods' terms (matched
 * against the incoming pod's namespace labels; {} = every namespace), the symmetric required
 * affinity at hardPodAffinityWeight 1. Oracle: Filter n1 Success, n2 Unschedulable (anti), n3
 * Unschedulable (existing), n4 UnschedulableAndUnresolvable; scores raw -3 7 0 0, normalised
 * 0 100 30 30. */
static void test_oracle_namespaces(void **state)
{
	(void)state;
	const char *nodes = "n1:zone=a,region=r1 n2:zone=b,region=r1 n3:zone=c,region=r2 n4:";
	const char *namespaces = "default:x=y team-a:team=a team-b:team=b";
	const struct fcase f = {
		"oracle: filter with namespaces and namespaceSelector",
		TOBJ_POD(.ns = "default", .labels = "app=web",
			 .affinity = aff("A app In db @region ns=team-a,team-b; N app In web @zone nss=team In b")),
		{ TOBJ_POD(.ns = "team-a", .labels = "app=db", .node = "n1"),
		  TOBJ_POD(.ns = "team-b", .labels = "app=web", .node = "n2"),
		  TOBJ_POD(.ns = "team-a", .labels = "app=db", .node = "n3", .affinity = aff("N app In web @zone nss={}")),
		  TOBJ_POD(.ns = "default", .labels = "app=web", .node = "n4") },
		nodes,
		FW_SUCCESS,
		{ "", U_ANTI, U_EXIST, X_AFF },
	};
	check_fcase(&f, namespaces);

	struct env v;
	struct fw_status st;
	env_init(&v, namespaces, 1, false);
	struct api_pod *pods[] = {
		TOBJ_POD(.ns = "team-a", .labels = "app=db", .node = "n1", .affinity = aff("PN10 app In web @zone nss={}")),
		TOBJ_POD(.ns = "default", .labels = "app=cache", .node = "n2", .affinity = aff("A app In web @region")),
		TOBJ_POD(.ns = "team-b", .labels = "app=web", .node = "n3"),
		TOBJ_POD(.ns = "team-b", .labels = "app=db", .node = "n2", .affinity = aff("PA7 app Exists @region nss=team In a")),
		NULL,
	};
	env_nodes(&v, nodes, pods);
	struct api_pod *pod = TOBJ_POD(.ns = "default", .labels = "app=web",
				       .affinity = aff("PA3 app In db @region nss=team Exists; PN5 app In web @zone"));
	fw_status_reset(&st);
	assert_int_equal(v.pl->plugin->pre_score(v.pl, v.c, pod, v.ptrs, v.n_nodes, &st), FW_SUCCESS);
	static const int64_t raw[] = { -3, 7, 0, 0 }, norm[] = { 0, 100, 30, 30 };
	struct fw_node_score ns[4];
	for (uint32_t i = 0; i < 4; i++) {
		ns[i].ni = v.ptrs[i];
		fw_status_reset(&st);
		assert_int_equal(v.pl->plugin->score(v.pl, v.c, pod, v.ptrs[i], &ns[i].score, &st), FW_SUCCESS);
		assert_int_equal(ns[i].score, raw[i]);
	}
	fw_status_reset(&st);
	assert_int_equal(v.pl->plugin->normalize_score(v.pl, v.c, pod, ns, 4, &st), FW_SUCCESS);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(ns[i].score, norm[i]);
	api_pod_unref(pod);
	env_release(&v);
}

/* The snapshot's have-pods-with-(anti-)affinity lists (fw_node_list_from_snapshot), as the
 * scheduler runs the plugin. oracle (nodeA, nodeB zone=z1, nodeC zone=z2; e1 on nodeA with
 * required anti-affinity app In web @zone, e2 on nodeC app=db preferring app In web @zone weight
 * 4, e3 on nodeB without affinity; the pod app=web without affinity): Filter nodeA and nodeB
 * Unschedulable (existing pods anti-affinity), nodeC Success with raw score 4. */
static void test_snapshot_lists(void **state)
{
	(void)state;
	struct cache *cache = cache_new();
	struct snapshot *snap = snapshot_new();
	struct err e = { 0 };
	const char *names[] = { "nodeA", "nodeB", "nodeC" }, *zones[] = { "zone=z1", "zone=z1", "zone=z2" };
	for (int i = 0; i < 3; i++) {
		struct api_node *n = TOBJ_NODE(.name = names[i], .labels = zones[i]);
		assert_int_equal(cache_add_node(cache, n, &e), 0);
		api_node_unref(n);
	}
	struct api_pod *pods[] = {
		P(.name = "e1", .labels = "app=x", .node = "nodeA", .affinity = aff("N app In web @zone")),
		P(.name = "e2", .labels = "app=db", .node = "nodeC", .affinity = aff("PA4 app In web @zone")),
		P(.name = "e3", .labels = "app=db", .node = "nodeB"),
	};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(cache_add_pod(cache, pods[i], &e), 0);
		api_pod_unref(pods[i]);
	}
	assert_int_equal(cache_update_snapshot(cache, snap, &e), 0);
	struct env v;
	env_init(&v, NULL, 1, false);
	struct fw_node_list list;
	fw_node_list_from_snapshot(snap, &list);
	assert_true(list.has_pod_lists);
	assert_int_equal(list.n_with_affinity, 2);
	assert_int_equal(list.n_with_required_anti, 1);
	fw_cycle_reset(v.c);
	v.c->nodes = &list;
	struct api_pod *pod = P(.name = "p", .labels = "app=web");
	char msg[256];
	struct fw_status st;
	assert_int_equal(run_pre_filter(&v, pod, msg, sizeof(msg)), FW_SUCCESS);
	int64_t raw[3];
	for (uint32_t i = 0; i < 3; i++) {
		const struct node_info *ni = snapshot_get(snap, names[i]);
		fw_status_reset(&st);
		enum fw_code code = v.pl->plugin->filter(v.pl, v.c, pod, ni, &st);
		assert_int_equal(code, i < 2 ? FW_UNSCHEDULABLE : FW_SUCCESS);
		if (i < 2)
			assert_string_equal(fw_status_message(&st, msg, sizeof(msg)), R_EXIST);
	}
	fw_status_reset(&st);
	assert_int_equal(v.pl->plugin->pre_score(v.pl, v.c, pod, list.nodes, list.n, &st), FW_SUCCESS);
	for (uint32_t i = 0; i < 3; i++) {
		fw_status_reset(&st);
		assert_int_equal(v.pl->plugin->score(v.pl, v.c, pod, snapshot_get(snap, names[i]), &raw[i], &st),
				 FW_SUCCESS);
		assert_int_equal(raw[i], i < 2 ? 0 : 4);
	}
	api_pod_unref(pod);
	env_release(&v);
	snapshot_free(snap);
	cache_free(cache);
}

/* ---------- counts of the incoming pod's terms kept across cycles (count_cache) ----------
 * One profile schedules over a real cache and snapshot while pods are added, removed, relabelled,
 * assumed and forgotten; every cycle must see the counts of the current state, not the counts the
 * cache kept from an earlier cycle. Expected values by hand from upstream v1.37.2 interpodaffinity:
 * filtering.go satisfyPodAntiAffinity (a node fails when its pair of a required anti-affinity term
 * counts a matching pod), satisfyPodAffinity (every term's pair counts one; no pod matches anywhere
 * and the pod does not match itself: UnschedulableAndUnresolvable), scoring.go processTerm (a
 * preferred term adds weight times the matching pods to the node's pair; raw Score is the sum;
 * PreScore skips when no pair was recorded). Nodes n1 (host=n1, zone=z1), n2 (host=n2, zone=z1). */

struct cc_env {
	struct env v;
	struct cache *cache;
	struct snapshot *snap;
	struct api_pod *anti, *affinity, *soft;
};

static void cc_env_init(struct cc_env *x)
{
	struct err e = { 0 };
	env_init(&x->v, NULL, 1, false);
	x->cache = cache_new();
	x->snap = snapshot_new();
	const char *names[] = { "n1", "n2" }, *labels[] = { "host=n1,zone=z1", "host=n2,zone=z1" };
	for (int i = 0; i < 2; i++) {
		struct api_node *n = TOBJ_NODE(.name = names[i], .labels = labels[i]);
		assert_int_equal(cache_add_node(x->cache, n, &e), 0);
		api_node_unref(n);
	}
	x->anti = P(.name = "in-anti", .labels = "app=in", .affinity = aff("N app In x @host"));
	x->affinity = P(.name = "in-aff", .labels = "app=in", .affinity = aff("A app In x @host"));
	x->soft = P(.name = "in-soft", .labels = "app=in", .affinity = aff("PA5 app In x @host; PN3 app In x @zone"));
}

static void cc_env_free(struct cc_env *x)
{
	api_pod_unref(x->anti);
	api_pod_unref(x->affinity);
	api_pod_unref(x->soft);
	env_release(&x->v);
	snapshot_free(x->snap);
	cache_free(x->cache);
}

static void cc_add(struct cc_env *x, struct api_pod *p)
{
	struct err e = { 0 };
	assert_int_equal(cache_add_pod(x->cache, p, &e), 0);
	api_pod_unref(p);
}

/* One cycle of pod over the snapshot: PreFilter, then each node's Filter code ("" fits, else the
 * U:/X: reason as check_fcase). */
static void cc_filter(struct cc_env *x, const char *step, const struct api_pod *pod, const char *want[2])
{
	struct err e = { 0 };
	char msg[256];
	struct fw_node_list list;
	assert_int_equal(cache_update_snapshot(x->cache, x->snap, &e), 0);
	fw_node_list_from_snapshot(x->snap, &list);
	fw_cycle_reset(x->v.c);
	x->v.c->nodes = &list;
	enum fw_code code = run_pre_filter(&x->v, pod, msg, sizeof(msg));
	if (code != FW_SUCCESS)
		fail_msg("%s: PreFilter got %s \"%s\"", step, fw_code_str(code), msg);
	for (int i = 0; i < 2; i++) {
		const struct node_info *ni = snapshot_get(x->snap, intern_str(i ? "n2" : "n1"));
		struct fw_status st;
		fw_status_reset(&st);
		code = x->v.pl->plugin->filter(x->v.pl, x->v.c, pod, ni, &st);
		fw_status_message(&st, msg, sizeof(msg));
		const char *w = want[i];
		enum fw_code wc = !w[0] ? FW_SUCCESS : w[0] == 'U' ? FW_UNSCHEDULABLE : FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
		if (code != wc || strcmp(msg, w[0] ? w + 2 : ""))
			fail_msg("%s: n%d: Filter got %s \"%s\", want \"%s\"", step, i + 1, fw_code_str(code), msg, w);
	}
}

/* One cycle of x->soft: PreScore's code and, on Success, the raw scores of n1, n2. */
static void cc_score(struct cc_env *x, const char *step, enum fw_code want_code, int64_t want1, int64_t want2)
{
	struct err e = { 0 };
	struct fw_node_list list;
	struct fw_status st;
	assert_int_equal(cache_update_snapshot(x->cache, x->snap, &e), 0);
	fw_node_list_from_snapshot(x->snap, &list);
	fw_cycle_reset(x->v.c);
	x->v.c->nodes = &list;
	fw_status_reset(&st);
	enum fw_code code = x->v.pl->plugin->pre_score(x->v.pl, x->v.c, x->soft, list.nodes, list.n, &st);
	if (code != want_code)
		fail_msg("%s: PreScore got %s, want %s", step, fw_code_str(code), fw_code_str(want_code));
	for (int i = 0; code == FW_SUCCESS && i < 2; i++) {
		int64_t raw;
		fw_status_reset(&st);
		assert_int_equal(x->v.pl->plugin->score(x->v.pl, x->v.c, x->soft,
							 snapshot_get(x->snap, intern_str(i ? "n2" : "n1")), &raw, &st),
				 FW_SUCCESS);
		if (raw != (i ? want2 : want1))
			fail_msg("%s: n%d scored %lld, want %lld", step, i + 1, (long long)raw, (long long)(i ? want2 : want1));
	}
}

/* matching pods (app=x) on n1, n2 -> what each incoming pod must see */
static void cc_check(struct cc_env *x, const char *step, int on1, int on2)
{
	const char *anti[2] = { on1 ? U_ANTI : "", on2 ? U_ANTI : "" };
	const char *affinity[2] = { on1 ? "" : X_AFF, on2 ? "" : X_AFF };
	cc_filter(x, step, x->anti, anti);
	cc_filter(x, step, x->affinity, affinity);
	/* PA5 per host, PN3 per zone (both nodes in z1: -3 per matching pod of the zone) */
	if (!on1 && !on2)
		cc_score(x, step, FW_SKIP, 0, 0);
	else
		cc_score(x, step, FW_SUCCESS, 5 * on1 - 3 * (on1 + on2), 5 * on2 - 3 * (on1 + on2));
}

static void test_count_cache_pod_changes(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct cc_env x;
	cc_env_init(&x);
	cc_check(&x, "empty", 0, 0);
	cc_add(&x, P(.name = "p1", .labels = "app=x", .node = "n1"));
	cc_check(&x, "p1 on n1", 1, 0);
	cc_check(&x, "no change", 1, 0);
	cc_add(&x, P(.name = "p2", .labels = "app=x", .node = "n2"));
	cc_check(&x, "p2 added on n2", 1, 1);
	struct api_pod *old = P(.name = "p2", .labels = "app=x", .node = "n2"),
		       *relabelled = P(.name = "p2", .labels = "app=y", .node = "n2");
	assert_int_equal(cache_update_pod(x.cache, old, relabelled, &e), 0);
	cc_check(&x, "p2 relabelled app=y", 1, 0);
	struct api_pod *p1 = P(.name = "p1", .labels = "app=x", .node = "n1");
	assert_int_equal(cache_remove_pod(x.cache, p1, &e), 0);
	cc_check(&x, "p1 removed", 0, 0);
	assert_int_equal(cache_update_pod(x.cache, relabelled, old, &e), 0);
	cc_check(&x, "p2 relabelled app=x again", 0, 1);
	/* a pod of another namespace matches no term (the terms' namespace is the pod's: default) */
	cc_add(&x, TOBJ_POD(.ns = "other", .name = "q1", .labels = "app=x", .node = "n1"));
	cc_check(&x, "q1 (namespace other) on n1", 0, 1);
	/* an assumed pod counts as well (the scheduler's own placements) */
	struct api_pod *p3 = P(.name = "p3", .labels = "app=x");
	assert_int_equal(cache_assume_pod(x.cache, p3, "n1", &e), 0);
	cc_check(&x, "p3 assumed on n1", 1, 1);
	assert_int_equal(cache_forget_pod(x.cache, p3, "n1", &e), 0);
	cc_check(&x, "p3 forgotten", 0, 1);
	api_pod_unref(old);
	api_pod_unref(relabelled);
	api_pod_unref(p1);
	api_pod_unref(p3);
	cc_env_free(&x);
}

/* More distinct terms in one PreFilter than the cache has slots: each keeps its own counts (a
 * slot taken in this cycle is not handed to a later term). Terms 1-8 app In a1..a8 @host, term 9
 * app In a9 @zone; a pod app=a1 on n1: n1 fails (its host pair counts it), n2 fits (no pod app=a9
 * in zone z1). */
static void test_count_cache_many_terms(void **state)
{
	(void)state;
	struct cc_env x;
	cc_env_init(&x);
	struct api_pod *nine = P(.name = "in-nine", .labels = "app=in",
				 .affinity = aff("N app In a1 @host; N app In a2 @host; N app In a3 @host; "
						 "N app In a4 @host; N app In a5 @host; N app In a6 @host; "
						 "N app In a7 @host; N app In a8 @host; N app In a9 @zone"));
	cc_add(&x, P(.name = "p1", .labels = "app=a1", .node = "n1"));
	const char *want[2] = { U_ANTI, "" };
	cc_filter(&x, "first cycle", nine, want);
	cc_filter(&x, "second cycle", nine, want);
	api_pod_unref(nine);
	cc_env_free(&x);
}

/* Two existing pods on n1 whose preferred terms cancel (+3 affinity, -3 anti-affinity to app=web
 * per host): upstream scoring.go processExistingPod adds both to the pair (host, n1), which exists
 * with 0, so PreScore succeeds (topologyScore not empty) and every raw score is 0 (csched sums a
 * node's updates per key before recording them: the pair must stay). */
static void test_existing_terms_cancel(void **state)
{
	(void)state;
	struct env v;
	struct fw_status st;
	env_init(&v, NULL, 1, false);
	struct api_pod *pods[] = { P(.name = "e1", .node = "n1", .affinity = aff("PA3 app In web @host")),
				   P(.name = "e2", .node = "n1", .affinity = aff("PN3 app In web @host")), NULL };
	env_nodes(&v, "n1:host=n1 n2:host=n2", pods);
	struct api_pod *pod = P(.name = "p", .labels = "app=web");
	fw_status_reset(&st);
	assert_int_equal(v.pl->plugin->pre_score(v.pl, v.c, pod, v.ptrs, v.n_nodes, &st), FW_SUCCESS);
	for (uint32_t i = 0; i < v.n_nodes; i++) {
		int64_t raw = -1;
		fw_status_reset(&st);
		assert_int_equal(v.pl->plugin->score(v.pl, v.c, pod, v.ptrs[i], &raw, &st), FW_SUCCESS);
		assert_int_equal(raw, 0);
	}
	api_pod_unref(pod);
	env_release(&v);
}

/* PreScore's topologyScore kept across cycles (agg_*) and the existing pods' matched terms per
 * node (own_slot): pods with preferred anti-affinity to color=yellow per host, weight 1, as
 * SchedulingPreferredPodAntiAffinity. Expected by hand from upstream v1.37.2 scoring.go: the
 * incoming pod's term adds -1 per matching pod to the node's host pair (processTerm), each
 * existing pod whose own term matches the incoming pod adds -1 to its node's host pair
 * (processExistingPod); raw Score is the node's pair. Every cycle must see the current pods,
 * node labels and incoming pod, whichever cycle the sums were kept from. */
static void test_existing_terms_kept(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct cc_env x;
	cc_env_init(&x);
	api_pod_unref(x.soft);
	struct api_pod *yellow = P(.name = "in-y", .labels = "color=yellow", .affinity = aff("PN1 color In yellow @host")),
		       *blue = P(.name = "in-b", .labels = "color=blue", .affinity = aff("PN1 color In yellow @host"));
	x.soft = yellow;
	cc_score(&x, "empty", FW_SKIP, 0, 0);
	cc_add(&x, P(.name = "e1", .labels = "color=yellow", .node = "n1", .affinity = aff("PN1 color In yellow @host")));
	/* e1 matches the incoming term and e1's term matches the incoming pod */
	cc_score(&x, "e1 on n1", FW_SUCCESS, -2, 0);
	cc_score(&x, "no change", FW_SUCCESS, -2, 0);
	/* e2 (blue): only its term counts */
	cc_add(&x, P(.name = "e2", .labels = "color=blue", .node = "n2", .affinity = aff("PN1 color In yellow @host")));
	cc_score(&x, "e2 (blue) on n2", FW_SUCCESS, -2, -1);
	/* a blue incoming pod: the existing terms (color In yellow) do not match it */
	x.soft = blue;
	cc_score(&x, "blue incoming pod", FW_SUCCESS, -1, 0);
	x.soft = yellow;
	cc_score(&x, "yellow again", FW_SUCCESS, -2, -1);
	struct api_pod *e1 = P(.name = "e1", .labels = "color=yellow", .node = "n1");
	assert_int_equal(cache_remove_pod(x.cache, e1, &e), 0);
	cc_score(&x, "e1 removed", FW_SUCCESS, 0, -1);
	/* a second pod with the term on n2, whose sums were kept: -1 (e2) - 2 (e4) */
	cc_add(&x, P(.name = "e4", .labels = "color=yellow", .node = "n2", .affinity = aff("PN1 color In yellow @host")));
	cc_score(&x, "e4 on n2", FW_SUCCESS, 0, -3);
	/* the blue pod in between: the yellow pod's kept sums must still follow the changes below */
	x.soft = blue;
	cc_score(&x, "blue pod, e4 on n2", FW_SUCCESS, 0, -1);
	x.soft = yellow;
	struct api_pod *e4 = P(.name = "e4", .labels = "color=yellow", .node = "n2");
	assert_int_equal(cache_remove_pod(x.cache, e4, &e), 0);
	api_pod_unref(e4);
	/* n2 relabelled host=n1: its pair moves, both nodes read (host, n1) */
	struct api_node *old = TOBJ_NODE(.name = "n2", .labels = "host=n2,zone=z1"),
			*moved = TOBJ_NODE(.name = "n2", .labels = "host=n1,zone=z1");
	assert_int_equal(cache_update_node(x.cache, old, moved, &e), 0);
	cc_score(&x, "n2 relabelled host=n1", FW_SUCCESS, -1, -1);
	assert_int_equal(cache_update_node(x.cache, moved, old, &e), 0);
	cc_score(&x, "n2 back to host=n2", FW_SUCCESS, 0, -1);
	/* a third node joins with a yellow pod with the term: the list grows */
	struct api_node *n3 = TOBJ_NODE(.name = "n3", .labels = "host=n3,zone=z1");
	assert_int_equal(cache_add_node(x.cache, n3, &e), 0);
	cc_add(&x, P(.name = "e3", .labels = "color=yellow", .node = "n3", .affinity = aff("PN1 color In yellow @host")));
	cc_score(&x, "n3 with e3", FW_SUCCESS, 0, -1);
	x.soft = NULL;
	api_pod_unref(e1);
	api_node_unref(old);
	api_node_unref(moved);
	api_node_unref(n3);
	api_pod_unref(blue);
	api_pod_unref(yellow);
	cc_env_free(&x);
}

/* PreFilter's existing pods' required anti-affinity counts kept across cycles (own_slot's
 * anti_by_node): existing pods with required anti-affinity to color=yellow per host or zone.
 * Expected by hand from upstream v1.37.2 filtering.go getExistingAntiAffinityCounts (an existing
 * pod's term matching the incoming pod, namespace as the term's owner's when none is listed, adds
 * one to its node's pair) and satisfyExistingPodsAntiAffinity (a node whose pair counts one fails
 * with the existing-anti-affinity reason); PreFilter skips when nothing was counted and the pod has
 * no required terms. Every cycle must see the current pods and node labels (generation) and its
 * own pod (namespace, labels), whichever cycle the counts were kept from. */
static void ex_check(struct cc_env *x, const char *step, const struct api_pod *pod, const char *w1, const char *w2)
{
	struct err e = { 0 };
	char msg[256];
	struct fw_node_list list;
	assert_int_equal(cache_update_snapshot(x->cache, x->snap, &e), 0);
	fw_node_list_from_snapshot(x->snap, &list);
	fw_cycle_reset(x->v.c);
	x->v.c->nodes = &list;
	enum fw_code code = run_pre_filter(&x->v, pod, msg, sizeof(msg));
	bool none = !w1[0] && !w2[0];
	if (code != (none ? FW_SKIP : FW_SUCCESS))
		fail_msg("%s: PreFilter got %s \"%s\", want %s", step, fw_code_str(code), msg,
			 none ? "Skip" : "Success");
	if (code == FW_SUCCESS) {
		const char *want[2] = { w1, w2 };
		for (int i = 0; i < 2; i++) {
			const struct node_info *ni = snapshot_get(x->snap, intern_str(i ? "n2" : "n1"));
			struct fw_status st;
			fw_status_reset(&st);
			code = x->v.pl->plugin->filter(x->v.pl, x->v.c, pod, ni, &st);
			fw_status_message(&st, msg, sizeof(msg));
			enum fw_code wc = want[i][0] ? FW_UNSCHEDULABLE : FW_SUCCESS;
			if (code != wc || strcmp(msg, want[i][0] ? want[i] + 2 : ""))
				fail_msg("%s: n%d: Filter got %s \"%s\", want \"%s\"", step, i + 1, fw_code_str(code),
					 msg, want[i]);
		}
	}
}

static void test_existing_anti_kept(void **state)
{
	(void)state;
	struct err e = { 0 };
	struct cc_env x;
	cc_env_init(&x);
	struct api_pod *yellow = P(.name = "in-y", .labels = "color=yellow"),
		       *blue = P(.name = "in-b", .labels = "color=blue"),
		       *other = TOBJ_POD(.ns = "other", .name = "in-o", .labels = "color=yellow");
	ex_check(&x, "empty", yellow, "", "");
	cc_add(&x, P(.name = "e1", .node = "n1", .affinity = aff("N color In yellow @host")));
	ex_check(&x, "e1 on n1", yellow, U_EXIST, "");
	ex_check(&x, "no change", yellow, U_EXIST, "");
	/* other labels or another namespace: e1's term (namespace default) does not match */
	ex_check(&x, "blue incoming pod", blue, "", "");
	ex_check(&x, "yellow pod of namespace other", other, "", "");
	ex_check(&x, "yellow again", yellow, U_EXIST, "");
	cc_add(&x, P(.name = "e2", .node = "n2", .affinity = aff("N color In yellow @host")));
	ex_check(&x, "e2 on n2", yellow, U_EXIST, U_EXIST);
	ex_check(&x, "blue, e2 on n2", blue, "", "");
	struct api_pod *e1 = P(.name = "e1", .node = "n1", .affinity = aff("N color In yellow @host"));
	assert_int_equal(cache_remove_pod(x.cache, e1, &e), 0);
	ex_check(&x, "e1 removed", yellow, "", U_EXIST);
	/* n2 relabelled host=n1: its pair moves to (host, n1), which n1 reads too */
	struct api_node *old = TOBJ_NODE(.name = "n2", .labels = "host=n2,zone=z1"),
			*moved = TOBJ_NODE(.name = "n2", .labels = "host=n1,zone=z1");
	assert_int_equal(cache_update_node(x.cache, old, moved, &e), 0);
	ex_check(&x, "n2 relabelled host=n1", yellow, U_EXIST, U_EXIST);
	assert_int_equal(cache_update_node(x.cache, moved, old, &e), 0);
	ex_check(&x, "n2 back to host=n2", yellow, "", U_EXIST);
	/* a zone term on n1 (both nodes in z1), then five keys on n1 (more than a node keeps) */
	cc_add(&x, P(.name = "e3", .node = "n1", .affinity = aff("N color In yellow @zone")));
	ex_check(&x, "e3 (zone) on n1", yellow, U_EXIST, U_EXIST);
	ex_check(&x, "e3 kept", yellow, U_EXIST, U_EXIST);
	cc_add(&x, P(.name = "e5", .node = "n1",
		     .affinity = aff("N color In yellow @k1; N color In yellow @k2; N color In yellow @k3; "
				     "N color In yellow @k4; N color In blue @host")));
	ex_check(&x, "e5 (five keys) on n1", blue, U_EXIST, "");
	ex_check(&x, "e5 walked again", blue, U_EXIST, "");
	ex_check(&x, "yellow with e5", yellow, U_EXIST, U_EXIST);
	ex_check(&x, "yellow with e5 again", yellow, U_EXIST, U_EXIST);
	struct api_pod *e3 = P(.name = "e3", .node = "n1", .affinity = aff("N color In yellow @zone"));
	assert_int_equal(cache_remove_pod(x.cache, e3, &e), 0);
	ex_check(&x, "e3 removed", yellow, "", U_EXIST);
	api_pod_unref(e1);
	api_pod_unref(e3);
	api_node_unref(old);
	api_node_unref(moved);
	api_pod_unref(yellow);
	api_pod_unref(blue);
	api_pod_unref(other);
	cc_env_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_required_affinity_single_node),
		cmocka_unit_test(test_required_affinity_multiple_nodes),
		cmocka_unit_test(test_preferred_affinity),
		cmocka_unit_test(test_preferred_affinity_hard_weight),
		cmocka_unit_test(test_hint_pod_change),
		cmocka_unit_test(test_hint_node_change),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_nominated_pods),
		cmocka_unit_test(test_sign_pod),
		cmocka_unit_test(test_score_without_pre_score),
		cmocka_unit_test(test_oracle_namespaces),
		cmocka_unit_test(test_snapshot_lists),
		cmocka_unit_test(test_count_cache_pod_changes),
		cmocka_unit_test(test_count_cache_many_terms),
		cmocka_unit_test(test_existing_terms_cancel),
		cmocka_unit_test(test_existing_terms_kept),
		cmocka_unit_test(test_existing_anti_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
