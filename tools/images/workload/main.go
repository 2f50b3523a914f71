// Command workload is the one static binary of garhwal's test images; the first argument
// names the behaviour:
//
//	sleep                     block until SIGTERM (the default when none is given)
//	serve PORT [READY_AFTER]  HTTP: /healthz at once, /ready 200 once READY_AFTER (a Go
//	                          duration) has passed since start, 503 before
//	load CPU_MILLI MEM_MIB    burn about CPU_MILLI millicores and hold MEM_MIB MiB
//	counter FILE              write an increasing count to FILE every 100ms (checkpoints)
//	cat PATH...               print files (what a test reads from inside the pod)
//	inference PORT            a stub inference server: POST /v1/completions, and /metrics
//	                          (a counter, a histogram and a gauge; inference.go)
package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		args = []string{"sleep"}
	}
	var err error
	switch args[0] {
	case "sleep":
		waitForSignal()
	case "serve":
		err = serve(args[1:])
	case "load":
		err = load(args[1:])
	case "counter":
		err = counter(args[1:])
	case "cat":
		err = cat(args[1:])
	case "inference":
		err = inference(args[1:])
	default:
		err = fmt.Errorf("unknown behaviour %q (sleep, serve, load, counter, cat, inference)", args[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "workload:", err)
		os.Exit(2)
	}
}

func waitForSignal() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	<-sigs
}

func serve(args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("serve PORT [READY_AFTER]")
	}
	readyAfter := time.Duration(0)
	if len(args) > 1 {
		d, err := time.ParseDuration(args[1])
		if err != nil {
			return fmt.Errorf("READY_AFTER: %w", err)
		}
		readyAfter = d
	}
	start := time.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		if time.Since(start) < readyAfter {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	go waitThenExit()
	return http.ListenAndServe(":"+args[0], mux)
}

func waitThenExit() {
	waitForSignal()
	os.Exit(0)
}

func load(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("load CPU_MILLI MEM_MIB")
	}
	milli, err := strconv.Atoi(args[0])
	if err != nil || milli < 0 {
		return fmt.Errorf("CPU_MILLI: %q is not a non-negative integer", args[0])
	}
	mib, err := strconv.Atoi(args[1])
	if err != nil || mib < 0 {
		return fmt.Errorf("MEM_MIB: %q is not a non-negative integer", args[1])
	}
	held := make([]byte, mib<<20)
	for i := 0; i < len(held); i += 4096 { // touch every page so it is resident
		held[i] = 1
	}
	go waitThenExit()
	const slice = 10 * time.Millisecond
	busy := slice * time.Duration(milli) / 1000
	for { // a duty cycle per 10ms slice, one core at most
		end := time.Now().Add(busy)
		for time.Now().Before(end) {
		}
		time.Sleep(slice - busy)
		held[0]++
	}
}

func counter(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("counter FILE")
	}
	go waitThenExit()
	for n := 0; ; n++ {
		if err := os.WriteFile(args[0], []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func cat(paths []string) error {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.Stdout.Write(b)
	}
	return nil
}
