// Package session is a stand-in (see tools/traefik/standin/README.md).
package session

import "errors"

// Session is an Akamai API session; the stand-in never makes one.
type Session interface{}

// Option configures a session.
type Option func() error

// New always fails.
func New(_ ...Option) (Session, error) {
	return nil, errors.New("akamai session is not built into garhwal's traefik")
}

// WithSigner is accepted and ignored.
func WithSigner(any) Option { return func() error { return nil } }
