// Command gpuexporter serves a node's GPU metrics in the Prometheus text format, named and
// labelled as NVIDIA's dcgm-exporter names them (DCGM_FI_DEV_*; gpu, UUID, device,
// modelName, Hostname, pci_bus_id). Each scrape reads the GPUs through NVML (go-nvml
// dlopens the library), so the series follow the devices' state. On a garhwal real node
// the library is garhwal's NVML with the node's GPU profile, the same devices the node's
// DRA driver publishes; the exporter runs as a DaemonSet pod, found by Prometheus.
// `gpuexporter smi` instead prints what NVML shows the container (smi.go).
package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "smi" {
		os.Exit(smi())
	}
	listen := flag.String("listen", ":9400", "address to serve /metrics on (dcgm-exporter's port)")
	library := flag.String("nvml-library", "libnvidia-ml.so.1", "the NVML library to read the GPUs from")
	hostname := flag.String("hostname", os.Getenv("NODE_NAME"), "the Hostname label (the node name)")
	flag.Parse()
	if err := run(*listen, *library, *hostname); err != nil {
		fmt.Fprintln(os.Stderr, "gpuexporter:", err)
		os.Exit(1)
	}
}

func run(listen, library, hostname string) error {
	if hostname == "" {
		return errors.New("--hostname (or NODE_NAME) is required")
	}
	lib := nvml.New(nvml.WithLibraryPath(library))
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return fmt.Errorf("nvml init (%s): %s", library, lib.ErrorString(ret))
	}
	defer lib.Shutdown()
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{lib: lib, hostname: hostname})
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	server := &http.Server{Addr: listen, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(os.Stderr, "gpuexporter: serving %s for %s\n", listen, hostname)
	return server.ListenAndServe()
}
