// Package dns is a stand-in (see tools/traefik/standin/README.md): every call fails.
package dns

import (
	"context"
	"errors"

	"github.com/akamai/AkamaiOPEN-edgegrid-golang/v13/pkg/session"
)

var errUnavailable = errors.New("akamai edgedns is not built into garhwal's traefik")

// Error is an API error.
type Error struct{ StatusCode int }

func (e *Error) Error() string { return "akamai dns error" }

// GetRecordRequest names a record.
type GetRecordRequest struct{ Zone, Name, RecordType string }

// GetRecordResponse is a record.
type GetRecordResponse struct {
	Name, RecordType string
	TTL              int
	Active           bool
	Target           []string
}

// RecordBody is a record to write.
type RecordBody struct {
	Name, RecordType string
	TTL              *int
	Active           bool
	Target           []string
}

// RecordLock serialises writes to a record.
type RecordLock struct{}

// CreateRecordRequest creates a record.
type CreateRecordRequest struct {
	Record  *RecordBody
	Zone    string
	RecLock *RecordLock
}

// UpdateRecordRequest updates a record.
type UpdateRecordRequest struct {
	Record *RecordBody
	Zone   string
}

// DeleteRecordRequest deletes a record.
type DeleteRecordRequest struct {
	Zone, Name, RecordType string
	RecLock                *RecordLock
}

// DNS is the client.
type DNS interface {
	GetRecord(context.Context, GetRecordRequest) (*GetRecordResponse, error)
	CreateRecord(context.Context, CreateRecordRequest) error
	UpdateRecord(context.Context, UpdateRecordRequest) error
	DeleteRecord(context.Context, DeleteRecordRequest) error
}

type client struct{}

// Client returns a client whose every call fails.
func Client(session.Session) DNS { return client{} }

func (client) GetRecord(context.Context, GetRecordRequest) (*GetRecordResponse, error) {
	return nil, errUnavailable
}
func (client) CreateRecord(context.Context, CreateRecordRequest) error { return errUnavailable }
func (client) UpdateRecord(context.Context, UpdateRecordRequest) error { return errUnavailable }
func (client) DeleteRecord(context.Context, DeleteRecordRequest) error { return errUnavailable }
