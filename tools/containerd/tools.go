//go:build tools

// Package tools pins containerd 2 (the CRI runtime of the real nodes) that tools/node/build.sh compiles.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
