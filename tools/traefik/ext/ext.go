// Package ext stands in for traefik's nested dynamic/ext module, which its module zip leaves
// out (a nested module) and the proxy does not serve: traefik embeds these two structs, by
// value, in its dynamic HTTP configuration and routers. Nothing in the open-source build
// reads a field of them, so empty structs suffice.
package ext

// HTTP is embedded in traefik's dynamic.HTTPConfiguration.
type HTTP struct{}

// Router is embedded in traefik's dynamic.Router.
type Router struct{}
