//go:build tools

// Package tools pins upstream's scheduler_perf harness, whose benchmark test binaries
// (misc, dra, podgroup/gangscheduling) tools/schedperf/build.sh compiles.
package tools

import _ "k8s.io/kubernetes/test/integration/scheduler_perf"
