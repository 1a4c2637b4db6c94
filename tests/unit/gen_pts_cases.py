#!/usr/bin/env python3
# Usage: tests/unit/gen_pts_cases.py $(go env GOMODCACHE)/k8s.io/kubernetes@v1.37.2/pkg/scheduler/framework/plugins/podtopologyspread > tests/unit/pts_cases.h
"""Converts upstream podtopologyspread test tables (v1.37.2 filtering_test.go TestSingleConstraint,
TestMultipleConstraints; scoring_test.go TestPodTopologySpreadScore; plugin_test.go's three queueing-hint tables) into a C table of JSON objects
and expected values. Cases using a builder this converter does not know are left out (listed on stderr)."""
import json, re, sys

src_dir = sys.argv[1]

# ---------- tokenizer / parser of Go expressions ----------
TOK = re.compile(r'\s*(?:(//[^\n]*)|("(?:[^"\\]|\\.)*")|(`[^`]*`)|([A-Za-z_][A-Za-z_0-9]*)|(-?\d+)|(.))', re.S)

def tokenize(s):
    out = []
    for m in TOK.finditer(s):
        if m.group(1):
            continue
        if m.group(2): out.append(('str', json.loads(m.group(2))))
        elif m.group(3): out.append(('str', m.group(3)[1:-1]))
        elif m.group(4): out.append(('id', m.group(4)))
        elif m.group(5): out.append(('num', int(m.group(5))))
        elif m.group(6) and not m.group(6).isspace(): out.append(('p', m.group(6)))
    return out

class P:
    def __init__(self, toks): self.t = toks; self.i = 0
    def peek(self, k=0): return self.t[self.i + k] if self.i + k < len(self.t) else ('eof', None)
    def take(self): tok = self.t[self.i]; self.i += 1; return tok
    def expect(self, v):
        tok = self.take()
        if tok[1] != v: raise ValueError('expected %r got %r' % (v, tok))
    def expr(self):
        tok = self.peek()
        if tok == ('p', '&'):
            self.take(); return ('addr', self.expr())
        if tok[0] in ('str', 'num'):
            self.take(); return (tok[0], tok[1])
        if tok == ('p', '['):  # []T{...} or map
            self.take(); self.expect(']'); typ = self.typename(); return ('lit', typ, self.braces())
        if tok[0] == 'id' and tok[1] == 'map':
            self.take(); self.expect('['); k = self.typename(); self.expect(']'); v = self.typename()
            return ('map', self.braces())
        if tok[0] == 'id' and tok[1] == 'func':
            raise ValueError('func literal')
        # identifier chain
        name = self.take()[1]
        node = ('id', name)
        while True:
            t = self.peek()
            if t == ('p', '.'):
                self.take(); nm = self.take()[1]
                if self.peek() == ('p', '(') or self.peek() == ('p', '['):
                    node = ('sel', node, nm)
                else:
                    node = ('sel', node, nm)
            elif t == ('p', '['):  # generic instantiation
                self.take(); self.typename(); self.expect(']')
            elif t == ('p', '('):
                self.take(); args = []
                while self.peek() != ('p', ')'):
                    args.append(self.expr())
                    if self.peek() == ('p', ','): self.take()
                self.expect(')'); node = ('call', node, args)
            elif t == ('p', '{') and node[0] in ('id', 'sel') and self.is_type(node):
                node = ('lit', node, self.braces())
            else:
                return node
    def is_type(self, node):
        # composite literal of a qualified type: v1.Taint{...}, appsv1.ReplicaSet{...}
        n = node
        while n[0] == 'sel': n = n[1]
        return node[0] == 'sel' and node[2][0].isupper() and n[1] in ('v1', 'appsv1', 'metav1', 'fwk')
    def typename(self):
        parts = []
        while True:
            t = self.peek()
            if t == ('p', '*') or t == ('p', '.') or t[0] == 'id':
                parts.append(str(self.take()[1]))
            elif t == ('p', '['):
                self.take(); self.expect(']'); parts.append('[]')
            else:
                return ''.join(parts)
    def braces(self):
        self.expect('{'); items = []
        while self.peek() != ('p', '}'):
            # key: value or value
            if self.peek()[0] in ('id', 'str') and self.peek(1) == ('p', ':'):
                k = self.take()[1]; self.take(); items.append((k, self.expr()))
            elif self.peek() == ('p', '{'):
                items.append((None, ('lit', None, self.braces())))
            else:
                items.append((None, self.expr()))
            if self.peek() == ('p', ','): self.take()
        self.expect('}'); return items

# ---------- interpretation ----------
CONST = {'v1.LabelHostname': 'kubernetes.io/hostname', 'v1.LabelTopologyZone': 'topology.kubernetes.io/zone',
         'v1.DoNotSchedule': 'DoNotSchedule', 'v1.ScheduleAnyway': 'ScheduleAnyway',
         'v1.TaintNodeUnschedulable': 'node.kubernetes.io/unschedulable', 'v1.TaintEffectNoSchedule': 'NoSchedule',
         'v1.NodeInclusionPolicyHonor': 'Honor', 'v1.NodeInclusionPolicyIgnore': 'Ignore',
         'v1.TolerationOpExists': 'Exists', 'v1.TolerationOpEqual': 'Equal'}
class Unknown(Exception): pass

def dotted(n):
    if n[0] == 'id': return n[1]
    if n[0] == 'sel': return dotted(n[1]) + '.' + n[2]
    raise Unknown(repr(n))

def chain(n):
    """flatten call chain into (root, [(method,args)])"""
    calls = []
    while n[0] == 'call' and n[1][0] == 'sel':
        calls.append((n[1][2], n[2])); n = n[1][1]
    calls.reverse()
    return n, calls

def val(n, env):
    k = n[0]
    if k in ('str', 'num'): return n[1]
    if k == 'addr': return val(n[1], env)
    if k in ('id', 'sel'):
        d = dotted(n)
        if d == 'nil': return None
        if d == 'true': return True
        if d == 'false': return False
        if d in CONST: return CONST[d]
        if d in env: return env[d]
        raise Unknown(d)
    if k == 'map':
        return {val(a, env) if isinstance(a, tuple) else a: val(b, env) for a, b in n[1]}
    if k == 'lit':
        typ = n[1]
        if typ in ('string', 'int32', '*v1.Node', '*v1.Pod', 'v1.Taint', 'v1.Toleration', 'runtime.Object'):
            return [val(v, env) if v[0] != 'lit' else struct(v, env) for _, v in n[2]]
        return struct(n, env)
    if k == 'call':
        root, calls = chain(n)
        if root[0] == 'call':
            # a call whose receiver is a call: ptr.To[int32](2) etc.
            pass
        return builder(n, env)
    raise Unknown(repr(n))

def struct(n, env):
    out = {}
    for key, v in n[2]:
        if key is None: raise Unknown('positional struct')
        out[key] = val(v, env) if v[0] != 'lit' or v[1] is not None else struct(v, env)
    return out

def builder(n, env):
    # ptr.To(x) / ptr.To[int32](x)
    if n[1] in (('sel', ('id', 'ptr'), 'To'),):
        return val(n[2][0], env)
    # find the root Make*()
    calls = []
    m = n
    while m[0] == 'call' and m[1][0] == 'sel' and not (m[1][1][0] == 'id' and m[1][1][1] == 'st'):
        calls.append((m[1][2], m[2])); m = m[1][1]
    calls.reverse()
    if m[0] != 'call': raise Unknown('builder root %r' % (m,))
    mk = m[1][2]
    if mk == 'MakePod': obj = {'metadata': {'name': '', 'namespace': 'default', 'uid': ''}, 'spec': {}}
    elif mk == 'MakeNode': obj = {'metadata': {'name': ''}, 'spec': {}, 'status': {}}
    elif mk == 'MakeLabelSelector': obj = {}
    else: raise Unknown(mk)
    for meth, args in calls:
        a = [val(x, env) if x[0] != 'lit' or x[1] is not None else struct(x, env) for x in args]
        if meth == 'Obj': continue
        if mk == 'MakeLabelSelector':
            if meth == 'Exists': obj.setdefault('matchExpressions', []).append({'key': a[0], 'operator': 'Exists'})
            elif meth == 'NotExist': obj.setdefault('matchExpressions', []).append({'key': a[0], 'operator': 'DoesNotExist'})
            elif meth in ('In', 'NotIn'): obj.setdefault('matchExpressions', []).append({'key': a[0], 'operator': meth, 'values': a[1]})
            elif meth == 'Label': obj.setdefault('matchLabels', {})[a[0]] = a[1]
            else: raise Unknown(meth)
            continue
        md, spec = obj['metadata'], obj['spec']
        if meth == 'Name': md['name'] = a[0]; md['uid'] = a[0] if mk == 'MakePod' else md.get('uid', '')
        elif meth == 'UID':
            md['uid'] = a[0]
            if not md['name']: md['name'] = a[0]
        elif meth == 'Namespace': md['namespace'] = a[0]
        elif meth == 'Label': md.setdefault('labels', {})[a[0]] = a[1]
        elif meth == 'Node': spec['nodeName'] = a[0]
        elif meth == 'NominatedNodeName': obj.setdefault('status', {})['nominatedNodeName'] = a[0]
        elif meth == 'Terminating': md['deletionTimestamp'] = '2024-01-01T00:00:00Z'
        elif meth == 'NodeSelector': spec['nodeSelector'] = a[0]
        elif meth in ('NodeAffinityIn', 'NodeAffinityNotIn'):
            if len(a) > 2 and a[2] != 'NodeSelectorTypeMatchExpressions': raise Unknown('affinity type')
            spec['affinity'] = {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [
                {'matchExpressions': [{'key': a[0], 'operator': 'In' if meth == 'NodeAffinityIn' else 'NotIn', 'values': a[1]}]}]}}}
        elif meth == 'Toleration':
            spec.setdefault('tolerations', []).append({'key': a[0], 'operator': 'Exists'})
        elif meth == 'Tolerations':
            spec['tolerations'] = [{k[0].lower() + k[1:]: v for k, v in t.items()} for t in a[0]]
        elif meth == 'Taints':
            spec['taints'] = [{k[0].lower() + k[1:]: v for k, v in t.items()} for t in a[0]]
        elif meth == 'OwnerReference':
            gvk = a[1]
            md['ownerReferences'] = [{'apiVersion': gvk['apiVersion'], 'kind': gvk['kind'], 'name': a[0], 'uid': 'u-' + a[0], 'controller': True}]
        elif meth == 'SpreadConstraint':
            c = {'maxSkew': a[0], 'topologyKey': a[1], 'whenUnsatisfiable': a[2]}
            if a[3] is not None: c['labelSelector'] = a[3]
            if a[4] is not None: c['minDomains'] = a[4]
            if a[5] is not None: c['nodeAffinityPolicy'] = a[5]
            if a[6] is not None: c['nodeTaintsPolicy'] = a[6]
            if a[7] is not None: c['matchLabelKeys'] = a[7]
            spec.setdefault('topologySpreadConstraints', []).append(c)
        else: raise Unknown(meth)
    return obj

ENV_BASE = {}

def setup_env():
    env = {}
    for k, v in CONST.items(): env[k] = v
    env['fooSelector'] = {'matchExpressions': [{'key': 'foo', 'operator': 'Exists'}]}
    env['barSelector'] = {'matchExpressions': [{'key': 'bar', 'operator': 'Exists'}]}
    env['ignorePolicy'] = 'Ignore'; env['honorPolicy'] = 'Honor'
    env['taints'] = [{'Key': 'node.kubernetes.io/unschedulable', 'Value': '', 'Effect': 'NoSchedule'}]
    env['fwk.Success'] = 'FW_SUCCESS'; env['fwk.Unschedulable'] = 'FW_UNSCHEDULABLE'
    env['fwk.UnschedulableAndUnresolvable'] = 'FW_UNSCHEDULABLE_AND_UNRESOLVABLE'
    env['st.NodeSelectorTypeMatchExpressions'] = 'NodeSelectorTypeMatchExpressions'
    env['fwk.Queue'] = 'QUEUE_HINT_QUEUE'; env['fwk.QueueSkip'] = 'QUEUE_HINT_SKIP'
    return env

def gvk_hack(src):
    # appsv1.SchemeGroupVersion.WithKind("ReplicaSet") -> a literal
    src = re.sub(r'appsv1\.SchemeGroupVersion\.WithKind\("(\w+)"\)', r'map[string]string{"apiVersion": "apps/v1", "kind": "\1"}', src)
    src = re.sub(r'v1\.SchemeGroupVersion\.WithKind\("(\w+)"\)', r'map[string]string{"apiVersion": "v1", "kind": "\1"}', src)
    return src

def test_cases(path, func):
    s = open(path).read()
    start = s.index('func %s(' % func)
    body_start = s.index('}{', start) + 1  # tests := []struct{...}{
    # find matching brace
    depth = 0; i = body_start
    while True:
        if s[i] == '{': depth += 1
        elif s[i] == '}':
            depth -= 1
            if depth == 0: break
        i += 1
    table = gvk_hack(s[body_start:i + 1])
    p = P(tokenize(table))
    items = p.braces()
    return [it[1] for it in items]

def convert(func, path, kind):
    out = []
    env = setup_env()
    for lit in test_cases(path, func):
        fields = dict(lit[2])
        name = fields['name'][1]
        try:
            c = {'name': name}
            c['pod'] = val(fields['pod'], env)
            c['nodes'] = val(fields['nodes'], env) if 'nodes' in fields else []
            c['existing'] = val(fields['existingPods'], env) if 'existingPods' in fields else []
            c['failed'] = val(fields['failedNodes'], env) if 'failedNodes' in fields else []
            incl = val(fields['enableNodeInclusionPolicy'], env) if 'enableNodeInclusionPolicy' in fields else False
            mlk = val(fields['enableMatchLabelKeys'], env) if 'enableMatchLabelKeys' in fields else False
            cs = c['pod']['spec'].get('topologySpreadConstraints', [])
            if not incl and any('nodeAffinityPolicy' in x or 'nodeTaintsPolicy' in x for x in cs):
                raise Unknown('needs NodeInclusionPolicy off')
            if kind == 'score' and not mlk and any('matchLabelKeys' in x for x in cs):
                raise Unknown('needs MatchLabelKeys off')
            if 'objs' in fields:
                objs = []
                for o in val(fields['objs'], env):
                    raise Unknown('objs')
                c['objs'] = objs
            if kind == 'filter':
                c['want'] = val(fields['wantStatusCode'], env)
            else:
                c['want'] = [(dict(x[2])['Name'][1], dict(x[2])['Score'][1]) for _, x in fields['want'][2]]
            out.append(c)
        except (Unknown, ValueError, KeyError) as e:
            sys.stderr.write('skipped %s %r: %s\n' % (func, name, e))
    return out

def convert_hints(func, path, old, new):
    out = []
    env = setup_env()
    for lit in test_cases(path, func):
        fields = dict(lit[2])
        name = fields['name'][1]
        try:
            if 'expectedErr' in fields: raise Unknown('expectedErr')
            c = {'name': name, 'pod': val(fields['pod'], env),
                 'old': val(fields[old], env) if old in fields else None,
                 'new': val(fields[new], env) if new in fields else None,
                 'want': val(fields['expectedHint'], env)}
            out.append(c)
        except (Unknown, ValueError, KeyError) as e:
            sys.stderr.write('skipped %s %r: %s\n' % (func, name, e))
    return out

def emit_hints(cases, var, src):
    print('/* %s */' % src)
    print('static const struct pts_hint_case %s[] = {' % var)
    for c in cases:
        j = lambda o: 'NULL' if o is None else cstr(json.dumps(o, separators=(',', ':')))
        print('\t{ %s,\n\t  %s,\n\t  %s,\n\t  %s,\n\t  %s },' % (cstr(c['name']), j(c['pod']), j(c['old']), j(c['new']), c['want']))
    print('};')

def cstr(s):
    return json.dumps(s)

def emit(cases, kind, var, src):
    print('/* %s */' % src)
    print('static const struct pts_%s_case %s[] = {' % (kind, var))
    for c in cases:
        print('\t{ %s,' % cstr(c['name']))
        print('\t  %s,' % cstr(json.dumps(c['pod'], separators=(',', ':'))))
        for f in ('nodes', 'existing', 'failed'):
            if kind == 'filter' and f == 'failed': continue
            print('\t  { %s },' % ', '.join([cstr(json.dumps(o, separators=(',', ':'))) for o in c[f]] + ['NULL']))
        if kind == 'filter':
            print('\t  { %s } },' % ', '.join('{ %s, %s }' % (cstr(k), v) for k, v in c['want'].items()))
        else:
            print('\t  { %s } },' % ', '.join('{ %s, %d }' % (cstr(k), v) for k, v in c['want']))
    print('};')

f = src_dir + '/filtering_test.go'; sc = src_dir + '/scoring_test.go'
print('/* Generated by tests/unit/gen_pts_cases.py from upstream v1.37.2 pkg/scheduler/framework/plugins/podtopologyspread\n * test tables (each case keeps its upstream name); do not edit by hand. */')
emit(convert('TestSingleConstraint', f, 'filter'), 'filter', 'single_constraint_cases', 'filtering_test.go TestSingleConstraint')
emit(convert('TestMultipleConstraints', f, 'filter'), 'filter', 'multiple_constraints_cases', 'filtering_test.go TestMultipleConstraints')
emit(convert('TestPodTopologySpreadScore', sc, 'score'), 'score', 'score_cases', 'scoring_test.go TestPodTopologySpreadScore')
pt = src_dir + '/plugin_test.go'
emit_hints(convert_hints('Test_isSchedulableAfterNodeChange', pt, 'oldNode', 'newNode'), 'node_change_cases', 'plugin_test.go Test_isSchedulableAfterNodeChange')
emit_hints(convert_hints('Test_isSchedulableAfterAssignedPodChange', pt, 'oldPod', 'newPod'), 'assigned_pod_change_cases', 'plugin_test.go Test_isSchedulableAfterAssignedPodChange')
emit_hints(convert_hints('Test_isSchedulableAfterTargetPodChange', pt, 'oldPod', 'newPod'), 'target_pod_change_cases', 'plugin_test.go Test_isSchedulableAfterTargetPodChange')
