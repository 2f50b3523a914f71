// Package auth is garhwal's stand-in for traefik's go-http-auth fork (containous), which
// the module proxy here does not serve: just what traefik's basicAuth and digestAuth
// middlewares name. Every check fails, so those middlewares answer 401 to every request;
// garhwal's traefik configures neither.
package auth

import "net/http"

// SecretProvider returns a user's stored secret for a realm ("" when unknown).
type SecretProvider func(user, realm string) string

// BasicAuth is the basic-auth challenge a middleware sends.
type BasicAuth struct {
	Realm   string
	Secrets SecretProvider
}

// RequireAuth answers 401 with a basic challenge.
func (a *BasicAuth) RequireAuth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("WWW-Authenticate", `Basic realm="`+a.Realm+`"`)
	http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
}

// CheckSecret never matches: no password is accepted.
func CheckSecret(_, _ string) bool { return false }

// DigestAuth is the digest-auth challenge a middleware sends.
type DigestAuth struct {
	Realm   string
	Secrets SecretProvider
}

// NewDigestAuthenticator returns a DigestAuth for realm.
func NewDigestAuthenticator(realm string, secrets SecretProvider) *DigestAuth {
	return &DigestAuth{Realm: realm, Secrets: secrets}
}

// CheckAuth authenticates no one.
func (a *DigestAuth) CheckAuth(_ *http.Request) (string, *string) { return "", nil }

// RequireAuth answers 401.
func (a *DigestAuth) RequireAuth(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
}

// RequireAuthStale answers 401.
func (a *DigestAuth) RequireAuthStale(w http.ResponseWriter, r *http.Request) { a.RequireAuth(w, r) }

// DigestAuthParams parses nothing: no digest credentials are read.
func DigestAuthParams(_ string) map[string]string { return map[string]string{} }
