#!/usr/bin/env python3
"""Compares the requests csched made (CSCHED_API_TRACE files: "METHOD PATH" lines, written by the
csched binaries the integration tests run) with the RBAC rules of manifests/rbac.yaml.

  tests/rbac/check.py RBAC_YAML TRACE_FILE...

Each request becomes (verb, apiGroup, resource[/subresource]) as the apiserver's RequestInfo
resolver derives it (k8s.io/apiserver pkg/endpoints/request/requestinfo.go: GET on a collection
is list, with watch=1/true watch; GET on a name get; POST create; PUT update; PATCH patch; DELETE
delete or deletecollection). Fails (exit 1) when a request is not granted by a rule, or a rule
grants a (verb, group, resource) that no request used: the manifest grants exactly what csched
calls. Non-resource paths every authenticated user may read (system:discovery,
system:public-info-viewer) need no rule. Rules with resourceNames are checked for the triple;
the lease's name is the Deployment's --leader-elect-resource-name (manifests/kustomization.yaml
replaces the Role's resourceNames with it). A list the informers' fallback needs counts as used
when a streaming list (a watch with sendInitialEvents=true, authorized as watch) was made on the
same resource: a server that refuses streaming lists, or a stream cut during its initial events,
gets a paged LIST instead (apiclient/informer.c). Likewise a get counts as used on a resource in
CONFLICT_REREAD when a patch was made on it."""
import sys
import urllib.parse

import yaml

PUBLIC = ("/version", "/healthz", "/livez", "/readyz", "/api", "/apis", "/openapi")


def request_triple(method, path):
    u = urllib.parse.urlsplit(path)
    q = urllib.parse.parse_qs(u.query)
    parts = [p for p in u.path.split("/") if p]
    if parts[:1] == ["api"] and len(parts) >= 2:
        group, rest = "", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 3:
        group, rest = parts[1], parts[3:]
    else:
        return None  # a non-resource path
    if rest[:1] == ["namespaces"] and len(rest) >= 3:
        rest = rest[2:]  # namespaces/NS/RESOURCE...
    if not rest:
        return None
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else None
    if len(rest) > 2:
        resource += "/" + rest[2]
    watch = q.get("watch", ["0"])[0] in ("1", "true")
    verb = {
        "GET": "get" if name else ("watch" if watch else "list"),
        "POST": "create",
        "PUT": "update",
        "PATCH": "patch",
        "DELETE": "delete" if name else "deletecollection",
    }[method]
    return (verb, group, resource)


# Roles the apiserver bootstraps that a manifest may bind instead of defining its own (upstream
# plugin/pkg/auth/authorizer/rbac/bootstrappolicy policy.go and namespace_policy.go, v1.37.2), for
# delegated authentication and authorization: (verb, group, resource) each grants.
BOOTSTRAP = {
    "system:auth-delegator": [("create", "authentication.k8s.io", "tokenreviews"),
                              ("create", "authorization.k8s.io", "subjectaccessreviews")],
    "extension-apiserver-authentication-reader": [("get", "", "configmaps"), ("list", "", "configmaps"),
                                                  ("watch", "", "configmaps")],
}


def granted(rbac_yaml):
    """(verb, group, resource) -> where granted, for the roles the file defines; the bootstrap
    roles it binds; problems (a binding to a role neither defined nor known)."""
    docs = [d for d in yaml.safe_load_all(open(rbac_yaml)) if d]
    out, bound, problems = {}, set(), []
    defined = {d["metadata"]["name"] for d in docs if d.get("kind") in ("ClusterRole", "Role")}
    for doc in docs:
        if doc.get("kind") in ("ClusterRoleBinding", "RoleBinding"):
            ref = doc["roleRef"]["name"]
            if ref in BOOTSTRAP:
                bound.add(ref)
            elif ref not in defined:
                problems.append("%s %s binds %s, which is neither in the file nor a known bootstrap role" %
                                (doc["kind"], doc["metadata"]["name"], ref))
        if doc.get("kind") not in ("ClusterRole", "Role"):
            continue
        for rule in doc.get("rules", []):
            for g in rule.get("apiGroups", []):
                for r in rule.get("resources", []):
                    for v in rule.get("verbs", []):
                        out.setdefault((v, g, r), []).append(
                            "%s %s%s" % (doc["kind"], doc["metadata"]["name"],
                                         " resourceNames %s" % rule["resourceNames"] if rule.get("resourceNames") else ""))
    return out, bound, problems


# Resources whose writes carry a resourceVersion precondition and, on a 409 conflict, re-read the
# object with a GET before retrying (scheduler/dra_writes.c, as upstream's retry.RetryOnConflict
# around the claim update): a patch on one counts its get as used, since a conflict cannot be
# provoked on purpose in the integration tests.
CONFLICT_REREAD = {("resource.k8s.io", "resourceclaims")}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    grants, bound, problems = granted(sys.argv[1])
    used, public, lines = {}, set(), 0
    for f in sys.argv[2:]:
        try:
            text = open(f).read()
        except FileNotFoundError:
            text = ""  # no csched binary ran
        for line in text.splitlines(True):
            method, _, path = line.rstrip("\n").partition(" ")
            lines += 1
            t = request_triple(method, path)
            if t is None:
                public.add(urllib.parse.urlsplit(path).path)
                continue
            used.setdefault(t, path)
            if t[0] == "watch" and "sendInitialEvents=true" in path:
                used.setdefault(("list", t[1], t[2]), path + " (its paged LIST fallback)")
            if t[0] == "patch" and t[1:] in CONFLICT_REREAD:
                used.setdefault(("get", t[1], t[2]), path + " (the re-read after a 409 conflict)")
    bad = len(problems)
    for p in problems:
        print("rbac: " + p)
    by_bootstrap = {t: name for name in bound for t in BOOTSTRAP[name]}
    if not lines:
        print("rbac: no request recorded (did the integration tests run csched with CSCHED_API_TRACE?)")
        return 1
    for p in sorted(public):
        if not p.startswith(PUBLIC):
            print("rbac: non-resource path %s has no rule" % p)
            bad += 1
    for t in sorted(used):
        if t not in grants and t not in by_bootstrap:
            print("rbac: used but not granted: %s %s %s (e.g. %s)" % (t[0], t[1] or '""', t[2], used[t]))
            bad += 1
    for t in sorted(grants):
        if t not in used:
            print("rbac: granted but never used: %s %s %s (%s)" % (t[0], t[1] or '""', t[2], "; ".join(grants[t])))
            bad += 1
    for name in sorted(bound):
        if not any(t in used for t in BOOTSTRAP[name]):
            print("rbac: bound but never used: bootstrap role %s" % name)
            bad += 1
    for t in sorted(used):
        print("rbac: used %-6s %-22s %s" % (t[0], t[1] or '""', t[2]))
    print("rbac: %d requests, %d (verb, group, resource) used, %d granted, %d problems" %
          (lines, len(used), len(grants), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
