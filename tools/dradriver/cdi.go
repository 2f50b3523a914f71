package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	cdispec "tags.cncf.io/container-device-interface/specs-go"
)

const (
	cdiVendor = "garhwal.dev"
	cdiClass  = "gpu"
	// Every fake GPU node is a char device with /dev/null's numbers: a real device node
	// that runc creates and the device cgroup allows, harmless to open.
	fakeDeviceHost = "/dev/null"
)

// cdiSpecs keeps one spec file per prepared claim. Device names carry the claim UID so a
// runtime's cached spec is never mistaken for a later claim's.
type cdiSpecs struct {
	dir   string
	stack driverStack
}

// driverStack is what a claiming container gets besides its devices, as NVIDIA's
// container toolkit injects the driver's user-space libraries: the NVML library's folder
// and the node's GPU profile, read-only, with the variables that point NVML at them and
// the list of the claim's GPUs, so NVML in the container sees those and no others.
type driverStack struct {
	libraryDir string // holds libnvidia-ml.so.1
	profile    string // GARHWAL_NVML_PROFILE
	state      string // GARHWAL_NVML_STATE
}

func (s driverStack) edits(gpus []gpu) cdispec.ContainerEdits {
	if s.libraryDir == "" {
		return cdispec.ContainerEdits{}
	}
	uuids := make([]string, 0, len(gpus))
	for _, g := range gpus {
		uuids = append(uuids, g.uuid)
	}
	ro := []string{"ro", "nosuid", "nodev", "bind"}
	mounts := []*cdispec.Mount{{HostPath: s.libraryDir, ContainerPath: s.libraryDir, Options: ro}}
	seen := map[string]bool{s.libraryDir: true}
	for _, f := range []string{s.profile, s.state} {
		if dir := filepath.Dir(f); f != "" && !seen[dir] {
			seen[dir] = true
			mounts = append(mounts, &cdispec.Mount{HostPath: dir, ContainerPath: dir, Options: ro})
		}
	}
	return cdispec.ContainerEdits{
		Env: []string{
			"LD_LIBRARY_PATH=" + s.libraryDir,
			"GARHWAL_NVML_PROFILE=" + s.profile,
			"GARHWAL_NVML_STATE=" + s.state,
			"GARHWAL_NVML_VISIBLE=" + strings.Join(uuids, ","),
		},
		Mounts: mounts,
	}
}

func (c cdiSpecs) path(claim types.UID) string {
	return filepath.Join(c.dir, fmt.Sprintf("%s-%s_%s.json", cdiVendor, cdiClass, claim))
}

func (c cdiSpecs) deviceName(claim types.UID, g gpu) string {
	return fmt.Sprintf("%s-%s", claim, g.name)
}

func (c cdiSpecs) deviceID(claim types.UID, g gpu) string {
	return fmt.Sprintf("%s/%s=%s", cdiVendor, cdiClass, c.deviceName(claim, g))
}

// EnvName is the variable a claiming container gets per GPU (GARHWAL_GPU_<index>=<uuid>).
func envName(g gpu) string { return fmt.Sprintf("GARHWAL_GPU_%d", g.index) }

// DevPath is the device node a claiming container gets per GPU.
func devPath(g gpu) string { return fmt.Sprintf("/dev/garhwal-gpu%d", g.index) }

func (c cdiSpecs) spec(claim types.UID, gpus []gpu) cdispec.Spec {
	s := cdispec.Spec{Version: "0.6.0", Kind: cdiVendor + "/" + cdiClass, ContainerEdits: c.stack.edits(gpus)}
	for _, g := range gpus {
		s.Devices = append(s.Devices, cdispec.Device{
			Name: c.deviceName(claim, g),
			ContainerEdits: cdispec.ContainerEdits{
				Env: []string{envName(g) + "=" + g.uuid},
				DeviceNodes: []*cdispec.DeviceNode{{
					Path: devPath(g), HostPath: fakeDeviceHost, Type: "c", Permissions: "rw",
				}},
			},
		})
	}
	return s
}

// write replaces the claim's spec atomically (rename), so the runtime never reads half.
func (c cdiSpecs) write(claim types.UID, gpus []gpu) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c.spec(claim, gpus), "", "  ")
	if err != nil {
		return err
	}
	final := c.path(claim)
	tmp := strings.TrimSuffix(final, ".json") + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, final)
}

func (c cdiSpecs) remove(claim types.UID) error {
	if err := os.Remove(c.path(claim)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
