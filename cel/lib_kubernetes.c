/* The Kubernetes CEL environment (k8s.io/apiserver pkg/cel/environment/base.go, v0.37.2): the
 * libraries it adds on top of the standard library, optionals and cel.bind (which every
 * cel_env has). Each library registers itself from its cel/lib_<name>.c; this table is the
 * one place that assembles them. Cross-type numeric comparisons (CrossTypeNumericComparisons)
 * are the evaluator's behaviour in every environment. */
#include <stddef.h>

#include "cel_internal.h"
#include "common/macros.h"

typedef int (*cel_lib_register_fn)(struct cel_env *env, struct err *e);

static const cel_lib_register_fn kubernetes_libs[] = {
	cel_lib_quantity_register,
	cel_lib_semver_register,
	cel_lib_sets_register,
	cel_lib_lists_register,
	cel_lib_strings_register,
	cel_lib_regex_register,
	cel_lib_net_register,
	cel_lib_url_register,
	cel_lib_named_format_register,
	NULL, /* the table's end; libraries are listed before it */
};

int cel_env_add_kubernetes(struct cel_env *env, struct err *e)
{
	for (size_t i = 0; i < ARRAY_SIZE(kubernetes_libs) && kubernetes_libs[i]; i++) {
		int rc = kubernetes_libs[i](env, e);
		if (rc != 0)
			return rc;
	}
	return 0;
}
