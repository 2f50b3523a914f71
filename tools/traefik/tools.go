//go:build tools

// Package tools pins upstream Traefik (github.com/traefik/traefik/v3), whose command
// build.sh compiles into the traefik binary: the local cluster's Gateway API implementation.
package tools

import _ "github.com/traefik/traefik/v3/cmd/traefik"
