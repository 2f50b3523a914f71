package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// smi prints what NVML shows a container, as `nvidia-smi -q` would: the driver and CUDA
// versions and each visible GPU. The image carries no NVML library: it is found only where
// the runtime injected one (the DRA driver's CDI spec for a claiming container). The
// report also goes to /dev/termination-log, so the pod's status carries it to the API.
func smi() int {
	report, err := smiReport(nvml.New())
	if err != nil {
		report = "error=" + err.Error() + "\n"
	}
	fmt.Print(report)
	if f, ferr := os.OpenFile("/dev/termination-log", os.O_WRONLY|os.O_TRUNC, 0); ferr == nil {
		_, _ = f.WriteString(report)
		_ = f.Close()
	}
	if err != nil {
		return 1
	}
	return 0
}

func smiReport(lib nvml.Interface) (string, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return "", fmt.Errorf("nvml init: %s", lib.ErrorString(ret))
	}
	defer lib.Shutdown()
	var b strings.Builder
	version, ret := lib.SystemGetDriverVersion()
	if ret != nvml.SUCCESS {
		return "", fmt.Errorf("driver version: %s", lib.ErrorString(ret))
	}
	cuda, ret := lib.SystemGetCudaDriverVersion()
	if ret != nvml.SUCCESS {
		return "", fmt.Errorf("cuda version: %s", lib.ErrorString(ret))
	}
	fmt.Fprintf(&b, "driver_version=%s\ncuda_version=%d.%d\n", version, cuda/1000, cuda%1000/10)
	count, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return "", fmt.Errorf("device count: %s", lib.ErrorString(ret))
	}
	for i := 0; i < count; i++ {
		dev, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return "", fmt.Errorf("device %d: %s", i, lib.ErrorString(ret))
		}
		uuid, _ := dev.GetUUID()
		fmt.Fprintf(&b, "gpu=%d uuid=%s\n", i, uuid)
	}
	return b.String(), nil
}
