package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cdispec "tags.cncf.io/container-device-interface/specs-go"
)

// A claim's spec holds only its own GPUs: the isolation the conformance test checks live.
func TestSpecHoldsOnlyTheClaimsDevices(t *testing.T) {
	c := cdiSpecs{dir: t.TempDir()}
	gpus := testGPUs(2)
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
	if err := c.write("uid-2", testGPUs(1)); err != nil {
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

// testGPUs: n devices as NVML would list them (the uuids only need to differ).
func testGPUs(n int) []gpu {
	out := make([]gpu, n)
	for i := range out {
		out[i] = gpu{name: fmt.Sprintf("gpu-%d", i), index: i, uuid: fmt.Sprintf("GPU-test-%d", i)}
	}
	return out
}

// NVML's driver version (550.163.01) becomes a semantic version (no leading zeros).
func TestSemverOfDriverVersions(t *testing.T) {
	for in, want := range map[string]string{"550.163.01": "550.163.1", "560.35": "560.35.0", "1.0.0": "1.0.0"} {
		if got, err := semverOf(in); err != nil || got != want {
			t.Errorf("semverOf(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"550.x.1", "1.2.3.4", ""} {
		if got, err := semverOf(bad); err == nil {
			t.Errorf("semverOf(%q) = %q, want an error", bad, got)
		}
	}
}

func TestPcieBusIDIsNvidiasForm(t *testing.T) {
	if got := pcieBusID("00000000:2A:00.0"); got != "0000:2a:00.0" {
		t.Fatalf("pcieBusID = %q", got)
	}
}

// A claim's spec also carries the driver stack: the NVML library and the node's profile,
// read-only, and the claim's GPUs as the only ones NVML may show.
func TestSpecInjectsTheDriverStackForTheClaimsGPUs(t *testing.T) {
	c := cdiSpecs{dir: t.TempDir(), stack: driverStack{
		libraryDir: "/usr/lib/garhwal-nvml", profile: "/etc/garhwal/nvml/profile.conf", state: "/etc/garhwal/nvml/state.conf",
	}}
	s := c.spec("uid-1", testGPUs(3)[1:])
	env := strings.Join(s.ContainerEdits.Env, " ")
	if !strings.Contains(env, "GARHWAL_NVML_VISIBLE=GPU-test-1,GPU-test-2") || !strings.Contains(env, "LD_LIBRARY_PATH=/usr/lib/garhwal-nvml") {
		t.Fatalf("env: %v", s.ContainerEdits.Env)
	}
	if len(s.ContainerEdits.Mounts) != 2 || s.ContainerEdits.Mounts[1].HostPath != "/etc/garhwal/nvml" {
		t.Fatalf("mounts: %+v", s.ContainerEdits.Mounts)
	}
	for _, m := range s.ContainerEdits.Mounts {
		if m.Options[0] != "ro" {
			t.Fatalf("mount %s is not read-only", m.HostPath)
		}
	}
}
