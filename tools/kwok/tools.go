//go:build tools

// Package tools pins the KWOK controller that build.sh compiles.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
