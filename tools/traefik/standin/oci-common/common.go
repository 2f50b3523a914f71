// Package common is a stand-in (see tools/traefik/standin/README.md).
package common

import (
	"crypto/rsa"
	"errors"
)

// ErrUnavailable is what every stand-in call returns.
var ErrUnavailable = errors.New("oracle cloud dns is not built into garhwal's traefik")

// Region is an OCI region name.
type Region string

// AuthenticationType names how a provider authenticates.
type AuthenticationType string

// The authentication types lego's provider names.
const (
	UnknownAuthenticationType AuthenticationType = "unknown"
	InstancePrincipal         AuthenticationType = "instance_principal"
	UserPrincipal             AuthenticationType = "user_principal"
)

// AuthConfig describes a provider's authentication.
type AuthConfig struct{ AuthType AuthenticationType }

// ConfigurationProvider supplies OCI credentials.
type ConfigurationProvider interface {
	KeyID() (string, error)
	Region() (string, error)
}

// PrivateKeyFromBytesWithPassword always fails.
func PrivateKeyFromBytesWithPassword(_, _ []byte) (*rsa.PrivateKey, error) {
	return nil, ErrUnavailable
}

type none struct{}

func (none) KeyID() (string, error)  { return "", ErrUnavailable }
func (none) Region() (string, error) { return "", ErrUnavailable }

// CustomProfileSessionTokenConfigProvider returns a provider whose every call fails.
func CustomProfileSessionTokenConfigProvider(_, _ string) ConfigurationProvider { return none{} }
