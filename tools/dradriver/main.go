// Command dradriver is garhwal's DRA driver for real nodes: a kubelet plugin (through
// k8s.io/dynamic-resource-allocation's kubeletplugin helper) that publishes one
// ResourceSlice of the node's GPUs, read through NVML, and prepares each claim with a CDI spec giving
// the claiming container only its allocated GPUs (an env var and a /dev node per GPU).
// It runs in the node container beside the kubelet, with the node's own credentials (the
// Node authorizer lets a node write its own slices and read its pods' claims).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"syscall"

	"k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/klog/v2"
)

func main() {
	var (
		kubeconfig = flag.String("kubeconfig", "", "the node's kubeconfig")
		nodeName   = flag.String("node-name", "", "the node this plugin serves")
		driverName = flag.String("driver-name", "gpu.kubelet.garhwal.dev", "the DRA driver name")
		library    = flag.String("nvml-library", "libnvidia-ml.so.1", "the NVML library the node's GPUs are read from")
		cdiDir     = flag.String("cdi-dir", "/var/run/cdi", "where claim CDI specs are written (a containerd cdi_spec_dir)")
	)
	klog.InitFlags(nil)
	flag.Parse()
	if err := run(*kubeconfig, *nodeName, *driverName, *cdiDir, *library); err != nil {
		fmt.Fprintln(os.Stderr, "dradriver:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, nodeName, driverName, cdiDir, library string) error {
	if nodeName == "" {
		return errors.New("--node-name is required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The helper listens in these dirs but does not make them; the kubelet makes only the
	// registry dir, and only once it runs.
	for _, dir := range []string{kubeletplugin.KubeletRegistryDir, path.Join(kubeletplugin.KubeletPluginsDir, driverName)} {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return err
		}
	}
	inv, err := nvmlInventory(library)
	if err != nil {
		return err
	}
	devices, err := sliceDevices(inv)
	if err != nil {
		return err
	}
	stack := driverStack{
		libraryDir: filepath.Dir(library), profile: os.Getenv("GARHWAL_NVML_PROFILE"), state: os.Getenv("GARHWAL_NVML_STATE"),
	}
	if !filepath.IsAbs(library) {
		stack = driverStack{} // a library found by the loader's search: nothing to mount
	}
	d := &driver{name: driverName, pool: nodeName, devices: inv.gpus, cdi: cdiSpecs{dir: cdiDir, stack: stack}, fatal: cancel}
	helper, err := kubeletplugin.Start(ctx, d,
		kubeletplugin.DriverName(driverName),
		kubeletplugin.NodeName(nodeName),
		kubeletplugin.KubeClient(client),
		kubeletplugin.HealthService(false), // health reaches taints through the GPU agent instead
	)
	if err != nil {
		return fmt.Errorf("start kubelet plugin: %w", err)
	}
	defer helper.Stop()
	pool := resourceslice.Pool{Slices: []resourceslice.Slice{{Devices: devices}}}
	if err := helper.PublishResources(ctx, resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{nodeName: pool}}); err != nil {
		return fmt.Errorf("publish ResourceSlice: %w", err)
	}
	klog.InfoS("serving", "driver", driverName, "node", nodeName, "gpus", len(inv.gpus), "driverVersion", inv.driverVersion)
	<-ctx.Done()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return nil
}

// HandleError logs background errors; a non-recoverable one (e.g. a slice the apiserver
// refuses) ends the process so the failure shows instead of a silent half-published node.
func (d *driver) HandleError(ctx context.Context, err error, msg string) {
	runtime.HandleErrorWithContext(ctx, err, msg)
	if !errors.Is(err, kubeletplugin.ErrRecoverable) {
		d.fatal(fmt.Errorf("%s: %w", msg, err))
	}
}
