// Command oracle runs one scheduling cycle of the UPSTREAM kube-scheduler
// (k8s.io/kubernetes v1.37.2) on a cluster state given as JSON and prints, as
// JSON, what upstream decides: every node's Filter status, every feasible
// node's per-plugin scores, the best nodes, and the exact FailedScheduling
// message (FitError.Error() with the PostFilter/preemption message).
//
// Nothing here re-implements scheduling logic. The scheduler is built by
// scheduler.New (as kube-scheduler's app does; it builds each profile with
// frameworkruntime.NewFramework and the in-tree registry) on a fake clientset
// and a started, synced informer factory; the snapshot is filled by the
// scheduler's own informer handlers and cache (Cache.UpdateSnapshot), exactly as
// at the start of a scheduling cycle. See README.md.
//
// Usage: oracle [-v N] [-feature-gates A=true,...] [input.json|-]
//
//	oracle -jsonl [...] < states.jsonl: one state per input line, one compact output line per
//	state in the same order (an input that fails gives {"error": "..."} on its line).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
)

// kinds maps an input list key to its object type and whether it is namespaced.
var kinds = map[string]struct {
	new        func() runtime.Object
	namespaced bool
}{
	"nodes":                  {func() runtime.Object { return &v1.Node{} }, false},
	"pods":                   {func() runtime.Object { return &v1.Pod{} }, true},
	"namespaces":             {func() runtime.Object { return &v1.Namespace{} }, false},
	"pvcs":                   {func() runtime.Object { return &v1.PersistentVolumeClaim{} }, true},
	"pvs":                    {func() runtime.Object { return &v1.PersistentVolume{} }, false},
	"services":               {func() runtime.Object { return &v1.Service{} }, true},
	"replicationControllers": {func() runtime.Object { return &v1.ReplicationController{} }, true},
	"replicaSets":            {func() runtime.Object { return &appsv1.ReplicaSet{} }, true},
	"statefulSets":           {func() runtime.Object { return &appsv1.StatefulSet{} }, true},
	"storageClasses":         {func() runtime.Object { return &storagev1.StorageClass{} }, false},
	"csiNodes":               {func() runtime.Object { return &storagev1.CSINode{} }, false},
	"csiDrivers":             {func() runtime.Object { return &storagev1.CSIDriver{} }, false},
	"csiStorageCapacities":   {func() runtime.Object { return &storagev1.CSIStorageCapacity{} }, true},
	"pdbs":                   {func() runtime.Object { return &policyv1.PodDisruptionBudget{} }, true},
	"priorityClasses":        {func() runtime.Object { return &schedulingv1.PriorityClass{} }, false},
	"resourceClaims":         {func() runtime.Object { return &resourcev1.ResourceClaim{} }, true},
	"resourceSlices":         {func() runtime.Object { return &resourcev1.ResourceSlice{} }, false},
	"deviceClasses":          {func() runtime.Object { return &resourcev1.DeviceClass{} }, false},
	"deviceTaintRules":       {func() runtime.Object { return &resourcev1.DeviceTaintRule{} }, false},
}

type statusOut struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
}

type nodeOut struct {
	Filter statusOut        `json:"filter"`
	Raw    map[string]int64 `json:"raw,omitempty"`    // Score() output per plugin, before normalization and weight
	Scores map[string]int64 `json:"scores,omitempty"` // normalized * weight, per plugin
	Total  *int64           `json:"total,omitempty"`
	// For a pod with ResourceClaims, on a feasible node: what upstream's Reserve would record
	// there (the allocation its Filter computed for the node), per claim name; Reserve's failure
	// in AllocationError.
	Allocation      map[string]*allocationOut `json:"allocation,omitempty"`
	AllocationError string                    `json:"allocationError,omitempty"`
}

// device is one allocated device of a claim (status.allocation.devices.results[]).
type device struct {
	Request     string `json:"request"`
	Driver      string `json:"driver"`
	Pool        string `json:"pool"`
	Device      string `json:"device"`
	AdminAccess bool   `json:"adminAccess,omitempty"`
	// DRAConsumableCapacity: whether the result is a share (its shareID is random, so only its
	// presence), and the capacity it consumes (quantities as their String())
	Shared           bool              `json:"shared,omitempty"`
	ConsumedCapacity map[string]string `json:"consumedCapacity,omitempty"`
}

// allocationOut is one claim's allocation result: its devices in upstream's order and its node
// selector (compact JSON of the v1.NodeSelector, "" when absent).
type allocationOut struct {
	Devices      []device `json:"devices"`
	NodeSelector string   `json:"nodeSelector,omitempty"`
}

// candidateOut is one preemption candidate of upstream's DryRunPreemption.
type candidateOut struct {
	Victims       []string `json:"victims"` // namespace/name, sorted
	PDBViolations int64    `json:"pdbViolations"`
}

type output struct {
	Profile              string              `json:"profile"`
	PreEnqueue           *statusOut          `json:"preenqueue,omitempty"` // set: upstream would not even attempt the pod
	PreFilter            *statusOut          `json:"prefilter,omitempty"`
	Nodes                map[string]*nodeOut `json:"nodes"`
	Feasible             []string            `json:"feasible"`
	Best                 []string            `json:"best"`
	Selected             string              `json:"selected,omitempty"` // upstream's own pick (random among ties)
	Reason               string              `json:"reason,omitempty"`   // PodScheduled=False reason: Unschedulable | SchedulerError
	Message              string              `json:"message,omitempty"`
	UnschedulablePlugins []string            `json:"unschedulablePlugins,omitempty"`
	PostFilter           *statusOut          `json:"postfilter,omitempty"`
	NominatedNode        string              `json:"nominatedNode,omitempty"`
	Victims              []string            `json:"victims,omitempty"`     // deleted: the candidate's victims not already terminating
	Bound                string              `json:"bound,omitempty"`       // node that Reserve and PreBind ran for
	Allocations          map[string][]device `json:"allocations,omitempty"` // the pod's claims after PreBind: claim name -> devices
	BindStatus           *statusOut          `json:"bindStatus,omitempty"`  // set when Reserve or PreBind failed
	Warnings             []string            `json:"warnings,omitempty"`

	// Every node DryRunPreemption finds a candidate on (all potential nodes below
	// minCandidateNodesAbsolute), and the candidates SelectCandidate may return (upstream breaks the
	// last tie in Go map order): set when preemption nominated a node.
	Candidates     map[string]candidateOut `json:"candidates,omitempty"`
	PreemptionBest []string                `json:"preemptionBest,omitempty"`
}

func toStatus(s *fwk.Status) statusOut {
	if s == nil {
		return statusOut{Code: fwk.Success.String()}
	}
	return statusOut{Code: s.Code().String(), Plugin: s.Plugin(), Reasons: s.Reasons()}
}

func main() {
	verbosity := flag.Int("v", -1, "klog verbosity on stderr (default: logs discarded)")
	jsonl := flag.Bool("jsonl", false, "batch: one input state per stdin line, one compact output line per state")
	jobs := flag.Int("j", 8, "with -jsonl: states run at once (a run mostly waits for informer syncs)")
	gates := flag.String("feature-gates", "", "kube-scheduler feature gates, e.g. GenericWorkload=true (default: v1.37.2 defaults)")
	flag.Parse()
	if *gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
			fail(err)
		}
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if *verbosity >= 0 {
		_ = fs.Set("v", strconv.Itoa(*verbosity))
	} else {
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
	}
	if *jsonl {
		if err := runLines(os.Stdin, os.Stdout, max(*jobs, 1)); err != nil {
			fail(err)
		}
		return
	}
	in := io.Reader(os.Stdin)
	if p := flag.Arg(0); p != "" && p != "-" {
		f, err := os.Open(p)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		in = f
	}
	out, err := run(in)
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(out)
}

// runLines is the batch mode: the process start (~0.2 s) is paid once for many states. Each
// line goes through run exactly as a single input file would (every run builds its own
// clientset, informers and scheduler, so runs share nothing but read-only globals); the output
// has the same fields, without indentation, one line per input line, in input order. A run
// spends most of its ~0.1 s waiting for informer caches to sync, so jobs of them overlap.
func runLines(r io.Reader, w io.Writer, jobs int) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	results := make(chan chan []byte, jobs)
	sem := make(chan struct{}, jobs)
	done := make(chan error, 1)
	go func() { // the writer: results in input order
		var werr error
		for ch := range results {
			if b := <-ch; werr == nil {
				_, werr = bw.Write(b)
			}
		}
		done <- werr
	}()
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		line := bytes.Clone(sc.Bytes())
		ch := make(chan []byte, 1)
		results <- ch
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			ch <- runLine(line)
		}()
	}
	close(results)
	werr := <-done
	if err := sc.Err(); err != nil {
		return err
	}
	return werr
}

// runLine runs one state and returns its compact output line ({"error": ...} when it fails).
func runLine(line []byte) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	out, err := run(bytes.NewReader(line))
	if err != nil {
		_ = enc.Encode(struct {
			Error string `json:"error"`
		}{err.Error()})
	} else if err := enc.Encode(out); err != nil {
		buf.Reset()
		_ = enc.Encode(struct {
			Error string `json:"error"`
		}{err.Error()})
	}
	return buf.Bytes()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "oracle:", err)
	os.Exit(1)
}

// decodeObj decodes one object, applies the API server's defaulting (what it
// does on create) and fills namespace and UID the way the API server would.
func decodeObj(raw json.RawMessage, obj runtime.Object, namespaced bool) error {
	if err := json.Unmarshal(raw, obj); err != nil {
		return err
	}
	return finishObj(obj, namespaced)
}

func finishObj(obj runtime.Object, namespaced bool) error {
	legacyscheme.Scheme.Default(obj)
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if namespaced && m.GetNamespace() == "" {
		m.SetNamespace("default")
	}
	if m.GetUID() == "" {
		m.SetUID(types.UID(fmt.Sprintf("%T/%s/%s", obj, m.GetNamespace(), m.GetName())))
	}
	return nil
}

// apiCheck reports why the API server would reject a pod or node (the
// scheduler never sees such objects, so the oracle's answer for them is moot).
func apiCheck(obj runtime.Object) string {
	var errs field.ErrorList
	var err error
	switch o := obj.(type) {
	case *v1.Pod:
		var p core.Pod
		if err = legacyscheme.Scheme.Convert(o, &p, nil); err == nil {
			errs = corevalidation.ValidatePodCreate(&p, podutil.GetValidationOptionsFromPodSpecAndMeta(&p.Spec, nil, &p.ObjectMeta, nil))
		}
	case *v1.Node:
		var n core.Node
		if err = legacyscheme.Scheme.Convert(o, &n, nil); err == nil {
			errs = corevalidation.ValidateNode(&n)
		}
	}
	if err == nil {
		err = errs.ToAggregate()
	}
	if err == nil {
		return ""
	}
	m, _ := meta.Accessor(obj)
	return fmt.Sprintf("%T %s/%s would be rejected by the API server: %v", obj, m.GetNamespace(), m.GetName(), err)
}

// loadConfig decodes a KubeSchedulerConfiguration (YAML or JSON, as a string or
// an inline object) like kube-scheduler's --config; upstream defaults if absent.
func loadConfig(raw json.RawMessage) (*config.KubeSchedulerConfiguration, error) {
	var cfg *config.KubeSchedulerConfiguration
	if len(raw) == 0 || string(raw) == "null" {
		var err error
		if cfg, err = latest.Default(); err != nil {
			return nil, err
		}
	} else {
		data := []byte(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			data = []byte(s)
		}
		obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		var ok bool
		if cfg, ok = obj.(*config.KubeSchedulerConfiguration); !ok {
			return nil, fmt.Errorf("config: got %s, want KubeSchedulerConfiguration", gvk)
		}
		cfg.TypeMeta.APIVersion = gvk.GroupVersion().String()
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

func run(in io.Reader) (*output, error) {
	var top map[string]json.RawMessage
	if err := json.NewDecoder(in).Decode(&top); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	cfg, err := loadConfig(top["config"])
	if err != nil {
		return nil, err
	}
	pod := &v1.Pod{}
	if len(top["pod"]) == 0 {
		return nil, errors.New(`input: "pod" is required`)
	}
	if err := decodeObj(top["pod"], pod, true); err != nil {
		return nil, fmt.Errorf("pod: %w", err)
	}
	if pod.Spec.NodeName != "" {
		return nil, errors.New("pod: spec.nodeName must be empty for the pod to schedule")
	}
	objs := []runtime.Object{pod}
	var warnings []string
	if w := apiCheck(pod); w != "" {
		warnings = append(warnings, w)
	}
	var bindTo string
	if raw, ok := top["bindTo"]; ok {
		if err := json.Unmarshal(raw, &bindTo); err != nil {
			return nil, fmt.Errorf("bindTo: %w", err)
		}
	}
	for key, raw := range top {
		if key == "config" || key == "pod" || key == "bindTo" {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		for i, item := range items {
			var obj runtime.Object
			if key == "objects" { // any typed object with apiVersion and kind
				if obj, _, err = clientscheme.Codecs.UniversalDeserializer().Decode(item, nil, nil); err == nil {
					err = finishObj(obj, false) // namespace: as given
				}
				if err != nil {
					return nil, fmt.Errorf("objects[%d]: %w", i, err)
				}
			} else {
				k, ok := kinds[key]
				if !ok {
					return nil, fmt.Errorf("input: unknown key %q", key)
				}
				obj = k.new()
				if err := decodeObj(item, obj, k.namespaced); err != nil {
					return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
				}
			}
			// kube-scheduler's pod informer lists with status.phase!=Succeeded,
			// status.phase!=Failed; the fake clientset ignores field selectors.
			if p, ok := obj.(*v1.Pod); ok && (p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed) {
				continue
			}
			if w := apiCheck(obj); w != "" {
				warnings = append(warnings, w)
			}
			objs = append(objs, obj)
		}
	}
	out, err := schedule(cfg, pod, objs, bindTo)
	if out != nil {
		out.Warnings = append(warnings, out.Warnings...)
	}
	return out, err
}

func schedule(cfg *config.KubeSchedulerConfiguration, pod *v1.Pod, objs []runtime.Object, bindTo string) (*output, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)

	client := fake.NewClientset()
	for _, obj := range objs {
		if err := client.Tracker().Add(obj); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex
	var deleted []string // victims deleted by preemption
	client.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteAction)
		mu.Lock()
		deleted = append(deleted, d.GetNamespace()+"/"+d.GetName())
		mu.Unlock()
		return false, nil, nil
	})
	informerFactory := scheduler.NewInformerFactory(client, 0, nil)
	snapshot := internalcache.NewEmptySnapshot()
	noEvents := func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
	sched, err := scheduler.New(ctx, client, informerFactory, nil, noEvents,
		scheduler.WithComponentConfigVersion(cfg.TypeMeta.APIVersion),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithPodMaxBackoffSeconds(cfg.PodMaxBackoffSeconds),
		scheduler.WithPodInitialBackoffSeconds(cfg.PodInitialBackoffSeconds),
		scheduler.WithExtenders(cfg.Extenders...),
		scheduler.WithParallelism(cfg.Parallelism),
		scheduler.WithNodeInfoSnapshot(snapshot),
	)
	if err != nil {
		return nil, fmt.Errorf("scheduler.New: %w", err)
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		return nil, err
	}
	if sched.APIDispatcher != nil {
		sched.APIDispatcher.Run(logger)
		defer sched.APIDispatcher.Close()
	}
	// As at the start of every scheduling cycle (schedulingCycle).
	if err := sched.Cache.UpdateSnapshot(logger, snapshot); err != nil {
		return nil, err
	}
	schedFwk, ok := sched.Profiles[pod.Spec.SchedulerName]
	if !ok {
		return nil, fmt.Errorf("no profile for schedulerName %q", pod.Spec.SchedulerName)
	}
	podInfo, _ := framework.NewPodInfo(pod)
	qpi := &framework.QueuedPodInfo{PodInfo: podInfo, PodSignature: schedFwk.SignPod(ctx, pod)}
	newState := func() *framework.CycleState {
		s := framework.NewCycleState()
		s.Write(framework.PodsToActivateKey, framework.NewPodsToActivate())
		return s
	}

	out := &output{Profile: schedFwk.ProfileName(), Nodes: map[string]*nodeOut{}, Feasible: []string{}, Best: []string{}}
	// PreEnqueue (e.g. schedulingGates) keeps a pod out of the active queue;
	// reported, then the cycle runs anyway.
	for _, pl := range schedFwk.PreEnqueuePlugins() {
		if st := pl.PreEnqueue(ctx, pod); !st.IsSuccess() {
			ps := toStatus(st.WithPlugin(pl.Name()))
			out.PreEnqueue = &ps
			break
		}
	}
	allNodes, err := snapshot.NodeInfos().List()
	if err != nil {
		return nil, err
	}

	// Part 1: every node's fate, by the steps of findNodesThatFitPod and
	// prioritizeNodes, but on ALL nodes (no numFeasibleNodesToFind cut, no
	// nominated-node shortcut).
	state := newState()
	preRes, s, unschedPlugins := schedFwk.RunPreFilterPlugins(ctx, state, pod)
	var feasible []fwk.NodeInfo
	if !s.IsSuccess() {
		ps := toStatus(s)
		out.PreFilter = &ps
		for _, ni := range allNodes {
			out.Nodes[ni.Node().Name] = &nodeOut{Filter: ps}
		}
	} else {
		for _, ni := range allNodes {
			name := ni.Node().Name
			var st *fwk.Status
			if !preRes.AllNodes() && !preRes.NodeNames.Has(name) {
				st = fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(unschedPlugins)))
			} else {
				st = schedFwk.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
			}
			out.Nodes[name] = &nodeOut{Filter: toStatus(st)}
			if st.IsSuccess() {
				feasible = append(feasible, ni)
				out.Feasible = append(out.Feasible, name)
			}
		}
	}
	slices.Sort(out.Feasible)
	// Upstream skips scoring when only one node is feasible; the oracle still
	// reports its scores (informational) and names it best.
	if len(feasible) > 0 && schedFwk.HasScorePlugins() {
		if st := schedFwk.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			out.Warnings = append(out.Warnings, "PreScore: "+st.Message())
		} else if scores, st := schedFwk.RunScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			out.Warnings = append(out.Warnings, "Score: "+st.Message())
		} else {
			for _, ns := range scores {
				n := out.Nodes[ns.Name]
				n.Raw, n.Scores, n.Total = map[string]int64{}, map[string]int64{}, &ns.TotalScore
				for _, ps := range ns.RawScores {
					n.Raw[ps.Name] = ps.Score
				}
				for _, ps := range ns.Scores {
					n.Scores[ps.Name] = ps.Score
				}
			}
		}
	}
	// The allocation upstream's Reserve records on each feasible node (DynamicResources' Reserve
	// takes the node's allocation from its Filter's state and signals it as in flight), read back
	// from the DRA manager, then Unreserve (which drops the in-flight allocation again).
	if len(pod.Spec.ResourceClaims) > 0 {
		for _, ni := range feasible {
			nodeAllocation(ctx, schedFwk, state, pod, ni.Node().Name, out.Nodes[ni.Node().Name])
		}
	}
	best := int64(-1 << 63)
	for _, name := range out.Feasible {
		t := int64(1) // prioritizeNodes: 1 for every node when nothing scores
		if n := out.Nodes[name]; n.Total != nil {
			t = *n.Total
		}
		if t > best {
			best, out.Best = t, []string{name}
		} else if t == best {
			out.Best = append(out.Best, name)
		}
	}

	// Part 2: upstream's own decision, by schedulingAlgorithm's steps:
	// SchedulePod, then on a FitError the PostFilter plugins (preemption),
	// whose message becomes part of FitError.Error().
	state = newState()
	res, err := sched.SchedulePod(ctx, schedFwk, state, qpi)
	var fitErr *framework.FitError
	switch {
	case err == nil:
		out.Selected = res.SuggestedHost
	case errors.As(err, &fitErr):
		out.Reason = string(v1.PodReasonUnschedulable)
		out.UnschedulablePlugins = sets.List(fitErr.Diagnosis.UnschedulablePlugins)
		if schedFwk.HasPostFilterPlugins() {
			// an error here (a Filter erring) ends the real PostFilter the same way, which then
			// nominates nothing: no candidates are reported
			// For a pod with claims the dry run comes after the real PostFilter: its Filter calls
			// (SelectVictimsOnNode) would mark claims unavailable in DynamicResources' cycle
			// state, which that plugin's PostFilter, ordered before DefaultPreemption, never sees
			// from preemption in a real cycle.
			var dry *dryRun
			claims := len(pod.Spec.ResourceClaims) > 0
			if !claims {
				dry, _ = dryRunPreemption(ctx, cfg, schedFwk, state, pod, fitErr.Diagnosis.NodeToStatus)
			}
			r, st := schedFwk.RunPostFilterPlugins(ctx, state, pod, fitErr.Diagnosis.NodeToStatus)
			if claims {
				dry, _ = dryRunPreemption(ctx, cfg, schedFwk, state, pod, fitErr.Diagnosis.NodeToStatus)
			}
			fitErr.Diagnosis.PostFilterMsg = st.Message()
			ps := toStatus(st)
			out.PostFilter = &ps
			if r != nil && r.NominatingInfo != nil && r.Mode() == fwk.ModeOverride {
				out.NominatedNode = r.NominatedNodeName
				out.Victims = waitVictims(st.Message(), dry.deletes(r.NominatedNodeName), &mu, &deleted)
				if dry != nil && r.NominatedNodeName != "" {
					out.Candidates, out.PreemptionBest = dry.report(ctx, r.NominatedNodeName)
					// the executor deletes the victims not already terminating (actuatePodPreemption)
					c, ok := out.Candidates[r.NominatedNodeName]
					for _, v := range out.Victims {
						ok = ok && slices.Contains(c.Victims, v)
					}
					if !ok {
						out.Warnings = append(out.Warnings, fmt.Sprintf("preemption deleted %v on %s, the dry run found %v",
							out.Victims, r.NominatedNodeName, c.Victims))
					}
				}
			}
		}
		out.Message = fitErr.Error()
	case errors.Is(err, scheduler.ErrNoNodesAvailable):
		out.Reason, out.Message = string(v1.PodReasonUnschedulable), err.Error()
	default:
		out.Reason, out.Message = string(v1.PodReasonSchedulerError), err.Error()
	}
	// A Filter error ends SchedulePod while the all-nodes pass records it and goes on: no
	// disagreement then.
	filterErr := false
	for _, n := range out.Nodes {
		filterErr = filterErr || n.Filter.Code == fwk.Error.String()
	}
	if (err == nil) != (len(out.Feasible) > 0) && !(err != nil && fitErr == nil && filterErr) {
		out.Warnings = append(out.Warnings, fmt.Sprintf("SchedulePod and the all-nodes pass disagree: %d feasible, err=%v", len(out.Feasible), err))
	}

	// Part 3: Reserve and PreBind on the chosen node (bindTo when it is feasible, else upstream's own
	// pick), with the all-nodes state of part 1, so that plugins that write (DynamicResources,
	// VolumeBinding) show what they would write; the pod's claims are read back from the clientset.
	host := out.Selected
	if bindTo != "" {
		if !slices.Contains(out.Feasible, bindTo) {
			out.Warnings = append(out.Warnings, fmt.Sprintf("bindTo %q is not feasible; using %q", bindTo, host))
		} else {
			host = bindTo
		}
	}
	// Only for pods with claims or when asked: PreBind of VolumeBinding waits for a PV controller
	// that the fake clientset does not have (bounded here at 10 s).
	if host != "" && (len(pod.Spec.ResourceClaims) > 0 || bindTo != "") {
		out.Bound = host
		bctx, bcancel := context.WithTimeout(ctx, 10*time.Second)
		defer bcancel()
		st := schedFwk.RunReservePluginsReserve(bctx, state, pod, host)
		if st.IsSuccess() {
			st = schedFwk.RunPreBindPlugins(bctx, state, pod, host)
		}
		if !st.IsSuccess() {
			ps := toStatus(st)
			out.BindStatus = &ps
		}
		out.Allocations = podAllocations(ctx, client, pod)
	}
	return out, nil
}

// nodeAllocation runs the Reserve plugins on node with the all-nodes pass's state, records the
// pending (in-flight) allocation of each of the pod's claims that Reserve signalled, and runs
// Unreserve.
func nodeAllocation(ctx context.Context, f framework.Framework, state *framework.CycleState, pod *v1.Pod, node string, n *nodeOut) {
	st := f.RunReservePluginsReserve(ctx, state, pod, node)
	if !st.IsSuccess() {
		n.AllocationError = st.Message()
	}
	names := map[string]string{}
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.ResourceClaimName != nil {
			names[s.Name] = *s.ResourceClaimName
		}
	}
	claims := f.SharedDRAManager().ResourceClaims()
	for _, rc := range pod.Spec.ResourceClaims {
		name := names[rc.Name]
		if rc.ResourceClaimName != nil {
			name = *rc.ResourceClaimName
		}
		claim, err := claims.Get(pod.Namespace, name)
		if err != nil {
			continue
		}
		a := claims.GetPendingAllocation(claim.UID)
		if a == nil {
			continue
		}
		if n.Allocation == nil {
			n.Allocation = map[string]*allocationOut{}
		}
		ao := &allocationOut{Devices: []device{}}
		for _, r := range a.Devices.Results {
			dv := device{Request: r.Request, Driver: r.Driver, Pool: r.Pool, Device: r.Device,
				AdminAccess: r.AdminAccess != nil && *r.AdminAccess, Shared: r.ShareID != nil}
			for k, q := range r.ConsumedCapacity {
				if dv.ConsumedCapacity == nil {
					dv.ConsumedCapacity = map[string]string{}
				}
				dv.ConsumedCapacity[string(k)] = q.String()
			}
			ao.Devices = append(ao.Devices, dv)
		}
		if a.NodeSelector != nil {
			b, _ := json.Marshal(a.NodeSelector)
			ao.NodeSelector = string(b)
		}
		n.Allocation[name] = ao
	}
	f.RunReservePluginsUnreserve(ctx, state, pod, node)
}

// podAllocations reads the pod's ResourceClaims back from the clientset: claim name -> devices.
func podAllocations(ctx context.Context, client *fake.Clientset, pod *v1.Pod) map[string][]device {
	names := map[string]string{}
	for _, st := range pod.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil {
			names[st.Name] = *st.ResourceClaimName
		}
	}
	res := map[string][]device{}
	for _, rc := range pod.Spec.ResourceClaims {
		name := names[rc.Name]
		if rc.ResourceClaimName != nil {
			name = *rc.ResourceClaimName
		}
		if name == "" {
			continue
		}
		claim, err := client.ResourceV1().ResourceClaims(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil || claim.Status.Allocation == nil {
			res[name] = []device{}
			continue
		}
		for _, r := range claim.Status.Allocation.Devices.Results {
			res[name] = append(res[name], device{Request: r.Request, Driver: r.Driver, Pool: r.Pool, Device: r.Device})
		}
	}
	if len(res) == 0 {
		return nil
	}
	return res
}

var victimsRe = regexp.MustCompile(`preempting (\d+) victims`)

// waitVictims collects the pods that (async) preemption deletes through the fake
// clientset, waiting for want of them (< 0: as many as the PostFilter message announces) at
// most 3s.
func waitVictims(msg string, want int, mu *sync.Mutex, deleted *[]string) []string {
	if m := victimsRe.FindStringSubmatch(msg); m != nil && want < 0 {
		want, _ = strconv.Atoi(m[1])
	}
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		got := slices.Clone(*deleted)
		mu.Unlock()
		if len(got) >= want || time.Now().After(deadline) {
			slices.Sort(got)
			return got
		}
	}
}

// dryRun is upstream's DefaultPreemption candidate search, run by the oracle itself next to the
// real PostFilter (which picks one candidate and actuates it).
type dryRun struct {
	ev         *preemption.Evaluator
	candidates []preemption.Candidate
}

// dryRunPreemption builds a second DefaultPreemption plugin (defaultpreemption.New with the
// profile's args, on the same framework handle) and runs its Evaluator's exported steps as
// Evaluator.findCandidates does (the pod re-read from the lister, the nodes whose status is
// Unschedulable, the PDB lister's PDBs), with offset 0 and every potential node as the number
// of candidates: below minCandidateNodesAbsolute (100) nodes upstream also tries them all, and
// the offset only changes the order of the candidates. Nothing is actuated. nil when the
// profile has no DefaultPreemption.
func dryRunPreemption(ctx context.Context, cfg *config.KubeSchedulerConfiguration, f framework.Framework,
	state fwk.CycleState, pod *v1.Pod, m *framework.NodeToStatus) (*dryRun, error) {
	var args runtime.Object
	for _, p := range cfg.Profiles {
		if p.SchedulerName != f.ProfileName() {
			continue
		}
		for _, pc := range p.PluginConfig {
			if pc.Name == defaultpreemption.Name {
				args = pc.Args
			}
		}
	}
	if args == nil {
		return nil, nil
	}
	pl, err := defaultpreemption.New(ctx, args, f, feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate))
	if err != nil {
		return nil, err
	}
	ev := pl.Evaluator
	if pod, err = ev.PodLister.Pods(pod.Namespace).Get(pod.Name); err != nil {
		return nil, err
	}
	potential, err := m.NodesForStatusCode(f.SnapshotSharedLister().NodeInfos(), fwk.Unschedulable)
	if err != nil || len(potential) == 0 {
		return &dryRun{ev: ev}, err
	}
	pdbs, err := ev.PdbLister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	cands, _, err := ev.DryRunPreemption(ctx, state, pod, potential, pdbs, 0, int32(len(potential)))
	return &dryRun{ev: ev, candidates: cands}, err
}

// deletes is how many pods the executor deletes for the candidate on node: its victims not
// already terminating (actuatePodPreemption skips those); -1 when unknown.
func (d *dryRun) deletes(node string) int {
	if d == nil {
		return -1
	}
	for _, c := range d.candidates {
		if c.Name() == node {
			n := 0
			for _, p := range c.Victims().Pods {
				if p.DeletionTimestamp == nil {
					n++
				}
			}
			return n
		}
	}
	return -1
}

// report gives every candidate's victims and the candidates upstream's SelectCandidate may pick
// besides chosen (the node the real PostFilter nominated): SelectCandidate ends in
// pickOneNodeForPreemption, whose last tie-break is the first of a Go map's keys, so a candidate
// c is as good as chosen when SelectCandidate on the two of them returns c at least once in
// tries runs (with c inserted first it comes back with probability >= 1/8 a run under Go's
// map iteration, so a tie is missed with probability < (7/8)^256; a worse one never comes back).
func (d *dryRun) report(ctx context.Context, chosen string) (map[string]candidateOut, []string) {
	const tries = 256
	out := map[string]candidateOut{}
	var won preemption.Candidate
	for _, c := range d.candidates {
		var vs []string
		for _, p := range c.Victims().Pods {
			vs = append(vs, p.Namespace+"/"+p.Name)
		}
		slices.Sort(vs)
		out[c.Name()] = candidateOut{Victims: vs, PDBViolations: c.Victims().NumPDBViolations}
		if c.Name() == chosen {
			won = c
		}
	}
	best := []string{chosen}
	for _, c := range d.candidates {
		if won == nil || c.Name() == chosen {
			continue
		}
		for i := 0; i < tries; i++ {
			if d.ev.SelectCandidate(ctx, []preemption.Candidate{c, won}).Name() == c.Name() {
				best = append(best, c.Name())
				break
			}
		}
	}
	slices.Sort(best)
	return out, best
}
