// cel_go: the CEL selector micro-benchmark of tests/bench/cel_selectors.c run through upstream's
// DRA CEL code (k8s.io/dynamic-resource-allocation/cel, the code kube-scheduler v1.37.2 uses):
// the same selectors, compiled once, matched against the same 10,000 devices with
// CompilationResult.DeviceMatches. Prints ns per evaluation, the matches and the runtime cost of
// the evaluation against device 3 (which passes every clause).
//
//	go run . [ROUNDS]   (from this directory; modules from the pinned module cache)
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

const domain = "test-driver.cdi.k8s.io"

var selectors = []string{
	`device.driver == "test-driver.cdi.k8s.io"`,
	`device.driver == "no-such-driver.cdi.k8s.io"`,
	`device.attributes["test-driver.cdi.k8s.io"].driverVersion.major() >= 1 && ` +
		`device.capacity["test-driver.cdi.k8s.io"].memory.isGreaterThan(quantity("1Mi"))`,
	`device.driver == "test-driver.cdi.k8s.io" && ` +
		`device.attributes["test-driver.cdi.k8s.io"].model == "a100" && ` +
		`device.attributes["test-driver.cdi.k8s.io"].family.startsWith("amp") && ` +
		`device.attributes["test-driver.cdi.k8s.io"].index >= 2 && ` +
		`device.attributes["test-driver.cdi.k8s.io"].healthy && ` +
		`device.attributes["test-driver.cdi.k8s.io"].cores > 64 && ` +
		`device.attributes["test-driver.cdi.k8s.io"].numa in [0, 1] && ` +
		`device.attributes["test-driver.cdi.k8s.io"].driverVersion.isGreaterThan(semver("1.0.0")) && ` +
		`device.capacity["test-driver.cdi.k8s.io"].memory.compareTo(quantity("40Gi")) >= 0 && ` +
		`device.capacity["test-driver.cdi.k8s.io"].slices.isLessThan(quantity("8"))`,
	// comprehensions and library calls, for runtime cost parity
	`device.attributes["test-driver.cdi.k8s.io"].exists(k, k.startsWith("zzz")) == false && ` +
		`device.attributes.all(d, d.size() > 0)`,
	`device.attributes["test-driver.cdi.k8s.io"].filter(k, k.size() > 4).map(k, k.upperAscii()).size() >= 3 && ` +
		`device.attributes["test-driver.cdi.k8s.io"].model.matches("^a[0-9]+$")`,
	`cel.bind(a, device.attributes["test-driver.cdi.k8s.io"], a.index + a.cores > 50 && ` +
		`[a.numa, a.index].exists_one(v, v == 0) || a.uuid.split("-").size() == 3)`,
}

func main() {
	rounds := 20
	if len(os.Args) > 1 {
		rounds, _ = strconv.Atoi(os.Args[1])
	}
	// cel_go ROUNDS EXPR...: time the given expressions instead of the built-in selectors
	if len(os.Args) > 2 {
		selectors = os.Args[2:]
	}
	const ndev = 10000
	models := []string{"a100", "h100", "t4"}
	devs := make([]cel.Device, ndev)
	for i := range devs {
		family := "hopper"
		if i%2 == 1 {
			family = "ampere"
		}
		version := "0.9.0"
		if i%7 != 0 {
			version = "1.2.3"
		}
		mem := "16Gi"
		if i%2 == 1 {
			mem = "80Gi"
		}
		slices := "4"
		if (i/4)%2 == 1 {
			slices = "16"
		}
		q := func(s string) resourceapi.DeviceCapacity { return resourceapi.DeviceCapacity{Value: resource.MustParse(s)} }
		devs[i] = cel.Device{
			Driver:                   domain,
			AllowMultipleAllocations: ptr.To(false),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"model":         {StringValue: ptr.To(models[i%3])},
				"family":        {StringValue: ptr.To(family)},
				"index":         {IntValue: ptr.To(int64(i % 8))},
				"healthy":       {BoolValue: ptr.To(i%5 != 0)},
				"cores":         {IntValue: ptr.To(int64(32 + (i%4)*32))},
				"numa":          {IntValue: ptr.To(int64(i % 3))},
				"driverVersion": {VersionValue: ptr.To(version)},
				"uuid":          {StringValue: ptr.To("gpu-0000-0000")},
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				"memory": q(mem),
				"slices": q(slices),
			},
		}
	}
	compiler := cel.GetCompiler(cel.Features{})
	ctx := context.Background()
	for _, sel := range selectors {
		res := compiler.CompileCELExpression(sel, cel.Options{})
		if res.Error != nil {
			fmt.Fprintf(os.Stderr, "compile %s: %v\n", sel, res.Error)
			os.Exit(1)
		}
		matches, errs := 0, 0
		var cost uint64
		if _, details, err := res.DeviceMatches(ctx, devs[3]); err == nil && details != nil && details.ActualCost() != nil {
			cost = *details.ActualCost()
		}
		t0 := time.Now()
		for r := 0; r < rounds; r++ {
			for i := range devs {
				ok, _, err := res.DeviceMatches(ctx, devs[i])
				if r == 0 {
					if ok {
						matches++
					}
					if err != nil {
						errs++
					}
				}
			}
		}
		ns := float64(time.Since(t0).Nanoseconds()) / float64(rounds*ndev)
		short := sel
		if len(short) > 60 {
			short = short[:60] + "..."
		}
		fmt.Printf("%8.1f ns/eval  %5d/%d match  %d errors  cost %d  %s\n", ns, matches, ndev, errs, cost, short)
	}
}
