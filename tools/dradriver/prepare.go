package main

import (
	"context"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/klog/v2"
)

type driver struct {
	name    string
	pool    string
	devices []gpu
	cdi     cdiSpecs
	fatal   context.CancelCauseFunc
}

var _ kubeletplugin.DRAPlugin = (*driver)(nil)

// PrepareResourceClaims writes one CDI spec per claim holding only the claim's GPUs of
// this driver and pool; the kubelet hands their CDI ids to the runtime for the containers
// that reference the claim. Idempotent: the spec is rewritten whole.
func (d *driver) PrepareResourceClaims(ctx context.Context, claims []*resourceapi.ResourceClaim) (map[types.UID]kubeletplugin.PrepareResult, error) {
	out := make(map[types.UID]kubeletplugin.PrepareResult, len(claims))
	for _, claim := range claims {
		out[claim.UID] = d.prepare(ctx, claim)
	}
	return out, nil
}

func (d *driver) prepare(ctx context.Context, claim *resourceapi.ResourceClaim) kubeletplugin.PrepareResult {
	byName := make(map[string]gpu, len(d.devices))
	for _, g := range d.devices {
		byName[g.name] = g
	}
	var picked []gpu
	var results []kubeletplugin.Device
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.Driver != d.name || r.Pool != d.pool {
			continue // another driver's device, or another node's pool
		}
		g, ok := byName[r.Device]
		if !ok {
			return kubeletplugin.PrepareResult{Err: fmt.Errorf("claim %s: unknown device %s", claim.UID, r.Device)}
		}
		picked = append(picked, g)
		results = append(results, kubeletplugin.Device{
			Requests: []string{r.Request}, PoolName: r.Pool, DeviceName: r.Device,
			CDIDeviceIDs: []string{d.cdi.deviceID(claim.UID, g)},
		})
	}
	if err := d.cdi.write(claim.UID, picked); err != nil {
		return kubeletplugin.PrepareResult{Err: err}
	}
	klog.FromContext(ctx).Info("prepared", "claim", klog.KObj(claim), "devices", len(picked))
	return kubeletplugin.PrepareResult{Devices: results}
}

// UnprepareResourceClaims removes each claim's CDI spec; a missing one is already done.
func (d *driver) UnprepareResourceClaims(ctx context.Context, claims []kubeletplugin.NamespacedObject) (map[types.UID]error, error) {
	out := make(map[types.UID]error, len(claims))
	for _, c := range claims {
		out[c.UID] = d.cdi.remove(c.UID)
		klog.FromContext(ctx).Info("unprepared", "claim", c.NamespacedName, "err", out[c.UID])
	}
	return out, nil
}

func (d *driver) WatchHealthStatus(context.Context, chan<- kubeletplugin.DeviceHealthReport) error {
	return kubeletplugin.ErrHealthNotSupported
}
