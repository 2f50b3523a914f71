package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The stub's series, named like an inference server's (vLLM's vllm:* counters are the
// model): one counter, one histogram and one gauge, as the ai_service_metrics MUST asks.
const (
	requestsName = "garhwal_inference_requests_total"
	latencyName  = "garhwal_inference_request_duration_seconds"
	inFlightName = "garhwal_inference_requests_in_flight"
)

// inference serves POST /v1/completions (an OpenAI-style completion of a fixed text) and
// /metrics in the Prometheus text format. Each answer names its pod (the hostname) in
// X-Garhwal-Pod, so a gateway's split can be counted by backend. GARHWAL_INFERENCE_NO_COUNT=1 leaves the request
// counter untouched: a server that lies, for proving the conformance test can fail.
func inference(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("inference PORT")
	}
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: requestsName, Help: "Completion requests answered.",
	}, []string{"model", "code"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: latencyName, Help: "Time to answer a completion request.",
		Buckets: []float64{0.001, 0.005, 0.025, 0.1, 0.5, 2.5},
	}, []string{"model"})
	inFlight := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: inFlightName, Help: "Completion requests being answered now.",
	})
	reg.MustRegister(requests, latency, inFlight)
	count := os.Getenv("GARHWAL_INFERENCE_NO_COUNT") != "1"
	pod, _ := os.Hostname()

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/v1/completions", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("X-Garhwal-Pod", pod)
		inFlight.Inc()
		defer inFlight.Dec()
		start := time.Now()
		var req struct {
			Model  string `json:"model"`
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			if count {
				requests.WithLabelValues("", "400").Inc()
			}
			http.Error(w, "want a JSON body with model and prompt", http.StatusBadRequest)
			return
		}
		text := "stub completion of " + fmt.Sprint(len(strings.Fields(req.Prompt))) + " words"
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"object": "text_completion", "model": req.Model,
			"choices": []map[string]any{{"index": 0, "text": text, "finish_reason": "stop"}},
		})
		if count {
			requests.WithLabelValues(req.Model, "200").Inc()
		}
		latency.WithLabelValues(req.Model).Observe(time.Since(start).Seconds())
	})
	go waitThenExit()
	return http.ListenAndServe(":"+args[0], mux)
}
