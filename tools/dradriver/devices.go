package main

import (
	"crypto/sha256"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

const (
	gpuModel      = "garhwal-fake-gpu"
	driverVersion = "1.0.0"
	gpuMemory     = "16Gi"
)

// gpu is one fake device: its DRA name, index and a UUID stable per node and index.
type gpu struct {
	name  string
	index int
	uuid  string
}

func fakeGPUs(node string, n int) []gpu {
	out := make([]gpu, n)
	for i := range out {
		h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", node, i)))
		out[i] = gpu{
			name:  fmt.Sprintf("gpu-%d", i),
			index: i,
			uuid:  fmt.Sprintf("GPU-%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16]),
		}
	}
	return out
}

// sliceDevices: the attributes garhwal's Python GPU driver publishes, plus the driver
// version as a version attribute (what driver_runtime_management selectors compare).
func sliceDevices(gpus []gpu) []resourceapi.Device {
	out := make([]resourceapi.Device, 0, len(gpus))
	for _, g := range gpus {
		out = append(out, resourceapi.Device{
			Name: g.name,
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"type":          {StringValue: ptr.To("gpu")},
				"index":         {IntValue: ptr.To(int64(g.index))},
				"uuid":          {StringValue: ptr.To(g.uuid)},
				"model":         {StringValue: ptr.To(gpuModel)},
				"driverVersion": {VersionValue: ptr.To(driverVersion)},
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				"memory": {Value: resource.MustParse(gpuMemory)},
			},
		})
	}
	return out
}
