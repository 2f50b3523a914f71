package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// gpu is one device as the node's NVML library reports it.
type gpu struct {
	name   string // the DRA device name, gpu-<index>
	index  int
	uuid   string
	model  string
	busID  string
	memory uint64 // bytes
	minor  int
}

// inventory is what the node's driver reports: its version, the CUDA version it
// supports and its GPUs.
type inventory struct {
	driverVersion string
	cudaVersion   int // NVML's form: 12040 is 12.4
	gpus          []gpu
}

// nvmlInventory enumerates the GPUs through NVML (go-nvml dlopens the library), the way
// NVIDIA's DRA driver does; on a garhwal node the library is garhwal's NVML with the node's
// GPU profile, which the GPU health agent and the metrics exporter read too.
func nvmlInventory(library string) (inventory, error) {
	lib := nvml.New(nvml.WithLibraryPath(library))
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return inventory{}, fmt.Errorf("nvml init (%s): %s", library, lib.ErrorString(ret))
	}
	defer lib.Shutdown()
	version, ret := lib.SystemGetDriverVersion()
	if ret != nvml.SUCCESS {
		return inventory{}, fmt.Errorf("nvml driver version: %s", lib.ErrorString(ret))
	}
	cuda, ret := lib.SystemGetCudaDriverVersion()
	if ret != nvml.SUCCESS {
		return inventory{}, fmt.Errorf("nvml cuda version: %s", lib.ErrorString(ret))
	}
	count, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return inventory{}, fmt.Errorf("nvml device count: %s", lib.ErrorString(ret))
	}
	inv := inventory{driverVersion: version, cudaVersion: cuda}
	for i := 0; i < count; i++ {
		g, err := readGPU(lib, i)
		if err != nil {
			return inventory{}, fmt.Errorf("nvml device %d: %w", i, err)
		}
		inv.gpus = append(inv.gpus, g)
	}
	return inv, nil
}

func readGPU(lib nvml.Interface, i int) (gpu, error) {
	dev, ret := lib.DeviceGetHandleByIndex(i)
	if ret != nvml.SUCCESS {
		return gpu{}, fmt.Errorf("handle: %s", lib.ErrorString(ret))
	}
	uuid, ret := dev.GetUUID()
	if ret != nvml.SUCCESS {
		return gpu{}, fmt.Errorf("uuid: %s", lib.ErrorString(ret))
	}
	model, ret := dev.GetName()
	if ret != nvml.SUCCESS {
		return gpu{}, fmt.Errorf("name: %s", lib.ErrorString(ret))
	}
	pci, ret := dev.GetPciInfo()
	if ret != nvml.SUCCESS {
		return gpu{}, fmt.Errorf("pci info: %s", lib.ErrorString(ret))
	}
	mem, ret := dev.GetMemoryInfo()
	if ret != nvml.SUCCESS {
		return gpu{}, fmt.Errorf("memory: %s", lib.ErrorString(ret))
	}
	minor, ret := dev.GetMinorNumber()
	if ret != nvml.SUCCESS {
		return gpu{}, fmt.Errorf("minor: %s", lib.ErrorString(ret))
	}
	return gpu{
		name: fmt.Sprintf("gpu-%d", i), index: i, uuid: uuid, model: model,
		busID: cString(pci.BusId[:]), memory: mem.Total, minor: minor,
	}, nil
}

// cString is the NUL-terminated prefix of a C char array.
func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// semverOf turns a driver version such as 550.163.01 into the semantic version a DRA
// version attribute must hold (no leading zeros, three parts): 550.163.1.
func semverOf(v string) (string, error) {
	parts := strings.Split(v, ".")
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	if len(parts) > 3 {
		return "", fmt.Errorf("driver version %q has more than three parts", v)
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return "", fmt.Errorf("driver version %q: part %q is not a number", v, p)
		}
		parts[i] = strconv.FormatUint(n, 10)
	}
	return strings.Join(parts, "."), nil
}

// pcieBusID writes NVML's bus id (00000000:18:00.0) as NVIDIA's DRA driver publishes it:
// lower case, a 4-digit PCI domain (0000:18:00.0).
func pcieBusID(nvmlID string) string {
	id := strings.ToLower(nvmlID)
	if len(id) == len("00000000:18:00.0") && strings.HasPrefix(id, "0000") {
		id = id[4:]
	}
	return id
}

// sliceDevices: the attributes garhwal's Python GPU driver publishes (type, index, uuid,
// model), NVIDIA's DRA driver's names for the product and PCI bus id, and the driver and
// CUDA versions as version attributes (what driver_runtime_management selectors compare);
// the memory as capacity.
func sliceDevices(inv inventory) ([]resourceapi.Device, error) {
	version, err := semverOf(inv.driverVersion)
	if err != nil {
		return nil, err
	}
	// NVML_CUDA_DRIVER_VERSION_MAJOR/MINOR: major*1000 + minor*10
	cuda := fmt.Sprintf("%d.%d.0", inv.cudaVersion/1000, inv.cudaVersion%1000/10)
	out := make([]resourceapi.Device, 0, len(inv.gpus))
	for _, g := range inv.gpus {
		out = append(out, resourceapi.Device{
			Name: g.name,
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"type":              {StringValue: ptr.To("gpu")},
				"index":             {IntValue: ptr.To(int64(g.index))},
				"uuid":              {StringValue: ptr.To(g.uuid)},
				"model":             {StringValue: ptr.To(g.model)},
				"productName":       {StringValue: ptr.To(g.model)},
				"pcieBusID":         {StringValue: ptr.To(pcieBusID(g.busID))},
				"driverVersion":     {VersionValue: ptr.To(version)},
				"cudaDriverVersion": {VersionValue: ptr.To(cuda)},
			},
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
				"memory": {Value: *resource.NewQuantity(int64(g.memory), resource.BinarySI)},
			},
		})
	}
	return out, nil
}
