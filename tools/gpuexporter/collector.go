package main

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/prometheus/client_golang/prometheus"
)

var labels = []string{"gpu", "UUID", "device", "modelName", "Hostname", "pci_bus_id"}

// metric is one dcgm-exporter field: its name, help and how it is read from a device.
type metric struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
	read func(nvml.Device) (float64, nvml.Return)
}

func gauge(name, help string, read func(nvml.Device) (float64, nvml.Return)) metric {
	return metric{prometheus.NewDesc(name, help, labels, nil), prometheus.GaugeValue, read}
}

const mib = 1 << 20

// memory reads the v2 memory info, which reports the driver's reservation apart (as
// dcgm's FB_USED, FB_FREE and FB_RESERVED do).
func memory(d nvml.Device) (nvml.Memory_v2, nvml.Return) {
	return d.GetMemoryInfo_v2()
}

// The dcgm-exporter default counters this exporter serves (dcgm's field names and units).
var metrics = []metric{
	gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", func(d nvml.Device) (float64, nvml.Return) {
		u, r := d.GetUtilizationRates()
		return float64(u.Gpu), r
	}),
	gauge("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", func(d nvml.Device) (float64, nvml.Return) {
		u, r := d.GetUtilizationRates()
		return float64(u.Memory), r
	}),
	gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", func(d nvml.Device) (float64, nvml.Return) {
		m, r := memory(d)
		return float64(m.Used / mib), r
	}),
	gauge("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", func(d nvml.Device) (float64, nvml.Return) {
		m, r := memory(d)
		return float64(m.Free / mib), r
	}),
	gauge("DCGM_FI_DEV_FB_RESERVED", "Framebuffer memory reserved (in MiB).", func(d nvml.Device) (float64, nvml.Return) {
		m, r := memory(d)
		return float64(m.Reserved / mib), r
	}),
	gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", func(d nvml.Device) (float64, nvml.Return) {
		t, r := d.GetTemperature(nvml.TEMPERATURE_GPU)
		return float64(t), r
	}),
	gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", func(d nvml.Device) (float64, nvml.Return) {
		p, r := d.GetPowerUsage()
		return float64(p) / 1000, r
	}),
	gauge("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", func(d nvml.Device) (float64, nvml.Return) {
		c, r := d.GetClockInfo(nvml.CLOCK_SM)
		return float64(c), r
	}),
	gauge("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", func(d nvml.Device) (float64, nvml.Return) {
		c, r := d.GetClockInfo(nvml.CLOCK_MEM)
		return float64(c), r
	}),
	{prometheus.NewDesc("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ).", labels, nil),
		prometheus.CounterValue, func(d nvml.Device) (float64, nvml.Return) {
			e, r := d.GetTotalEnergyConsumption()
			return float64(e), r
		}},
}

// collector reads every GPU at each scrape. A GPU NVML cannot read (lost, or any error)
// has no series in that scrape, as dcgm-exporter drops a GPU it cannot read; the others
// are still served.
type collector struct {
	lib      nvml.Interface
	hostname string
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range metrics {
		ch <- m.desc
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	count, ret := c.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		ch <- prometheus.NewInvalidMetric(metrics[0].desc, fmt.Errorf("nvml device count: %s", c.lib.ErrorString(ret)))
		return
	}
	for i := 0; i < count; i++ {
		dev, ret := c.lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			continue
		}
		values, ok := c.deviceLabels(dev, i)
		if !ok {
			continue
		}
		for _, m := range metrics {
			if v, ret := m.read(dev); ret == nvml.SUCCESS {
				ch <- prometheus.MustNewConstMetric(m.desc, m.kind, v, values...)
			}
		}
	}
}

// deviceLabels: gpu (the index), UUID, device (nvidia<minor>), modelName, Hostname,
// pci_bus_id; false when the device cannot be identified (a lost GPU).
func (c *collector) deviceLabels(dev nvml.Device, index int) ([]string, bool) {
	uuid, r1 := dev.GetUUID()
	name, r2 := dev.GetName()
	minor, r3 := dev.GetMinorNumber()
	pci, r4 := dev.GetPciInfo()
	for _, r := range []nvml.Return{r1, r2, r3, r4} {
		if r != nvml.SUCCESS {
			return nil, false
		}
	}
	return []string{fmt.Sprint(index), uuid, fmt.Sprintf("nvidia%d", minor), name, c.hostname, cString(pci.BusId[:])}, true
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
