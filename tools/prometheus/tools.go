//go:build tools

// Package tools pins upstream Prometheus (github.com/prometheus/prometheus), whose server
// command build.sh compiles into the prometheus binary.
package tools

import _ "github.com/prometheus/prometheus/cmd/prometheus"
