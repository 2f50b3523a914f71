//go:build tools

// Package tools pins karpenter's KWOK cloud provider (sigs.k8s.io/karpenter/kwok), which
// build.sh compiles into the karpenter binary.
package tools

import _ "sigs.k8s.io/karpenter/kwok"
