// Package auth is a stand-in (see tools/traefik/standin/README.md).
package auth

import common "github.com/nrdcg/oci-go-sdk/common/v1065"

// InstancePrincipalConfigurationProviderForRegion always fails.
func InstancePrincipalConfigurationProviderForRegion(common.Region) (common.ConfigurationProvider, error) {
	return nil, common.ErrUnavailable
}
