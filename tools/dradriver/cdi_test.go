package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	cdispec "tags.cncf.io/container-device-interface/specs-go"
)

// A claim's spec holds only its own GPUs: the isolation the conformance test checks live.
func TestSpecHoldsOnlyTheClaimsDevices(t *testing.T) {
	c := cdiSpecs{dir: t.TempDir()}
	gpus := fakeGPUs("node-a", 2)
	if err := c.write("uid-1", gpus[1:]); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.path("uid-1"))
	if err != nil {
		t.Fatal(err)
	}
	var s cdispec.Spec
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Kind != "garhwal.dev/gpu" || len(s.Devices) != 1 || s.Devices[0].Name != "uid-1-gpu-1" {
		t.Fatalf("spec: %+v", s)
	}
	e := s.Devices[0].ContainerEdits
	if len(e.Env) != 1 || e.Env[0] != "GARHWAL_GPU_1="+gpus[1].uuid {
		t.Fatalf("env: %v", e.Env)
	}
	if len(e.DeviceNodes) != 1 || e.DeviceNodes[0].Path != "/dev/garhwal-gpu1" {
		t.Fatalf("device nodes: %+v", e.DeviceNodes)
	}
	if got := c.deviceID("uid-1", gpus[1]); got != "garhwal.dev/gpu=uid-1-gpu-1" {
		t.Fatalf("CDI id %q", got)
	}
}

func TestRemoveIsIdempotent(t *testing.T) {
	c := cdiSpecs{dir: t.TempDir()}
	if err := c.write("uid-2", fakeGPUs("n", 1)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := c.remove("uid-2"); err != nil {
			t.Fatal(err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(c.dir, "*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

func TestUUIDsAreStablePerNodeAndDistinct(t *testing.T) {
	a, b := fakeGPUs("n", 2), fakeGPUs("n", 2)
	if a[0].uuid != b[0].uuid || a[0].uuid == a[1].uuid || fakeGPUs("m", 1)[0].uuid == a[0].uuid {
		t.Fatalf("uuids: %v %v", a, b)
	}
}
