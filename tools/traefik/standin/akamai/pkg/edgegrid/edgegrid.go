// Package edgegrid is a stand-in (see tools/traefik/standin/README.md): no credentials load.
package edgegrid

import "errors"

// Config holds what lego's edgedns provider sets.
type Config struct {
	MaxBody    int
	AccountKey string
}

// Validate always fails: the stand-in has no credentials.
func (c *Config) Validate() error {
	return errors.New("akamai edgegrid is not built into garhwal's traefik")
}

// Option configures a Config.
type Option func(*Config) error

// New always fails: the stand-in has no Akamai client.
func New(_ ...Option) (*Config, error) {
	return nil, errors.New("akamai edgegrid is not built into garhwal's traefik")
}

// WithEnv is accepted and ignored.
func WithEnv(bool) Option { return func(*Config) error { return nil } }

// WithFile is accepted and ignored.
func WithFile(string) Option { return func(*Config) error { return nil } }

// WithSection is accepted and ignored.
func WithSection(string) Option { return func(*Config) error { return nil } }
