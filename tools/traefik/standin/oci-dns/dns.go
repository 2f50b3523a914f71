// Package dns is a stand-in (see tools/traefik/standin/README.md): every call fails.
package dns

import (
	"context"
	"net/http"

	common "github.com/nrdcg/oci-go-sdk/common/v1065"
)

// RecordOperationOperationEnum is a patch operation.
type RecordOperationOperationEnum string

// RecordOperationOperationRemove removes a record.
const RecordOperationOperationRemove RecordOperationOperationEnum = "REMOVE"

// RecordOperation is one patch item.
type RecordOperation struct {
	Domain, Rdata, Rtype, RecordHash *string
	Ttl                              *int
	IsProtected                      *bool
	Operation                        RecordOperationOperationEnum
}

// PatchDomainRecordsDetails holds the patch items.
type PatchDomainRecordsDetails struct{ Items []RecordOperation }

// PatchDomainRecordsRequest patches a domain's records.
type PatchDomainRecordsRequest struct {
	CompartmentId, ZoneNameOrId, Domain *string
	PatchDomainRecordsDetails           PatchDomainRecordsDetails
}

// PatchDomainRecordsResponse is a patch's answer.
type PatchDomainRecordsResponse struct{}

// GetDomainRecordsRequest lists a domain's records.
type GetDomainRecordsRequest struct{ ZoneNameOrId, Domain, CompartmentId, Rtype *string }

// Record is one record.
type Record struct{ Rdata, RecordHash *string }

// GetDomainRecordsResponse lists records.
type GetDomainRecordsResponse struct {
	OpcTotalItems *int
	Items         []Record
}

// DnsClient is the client; every call fails.
type DnsClient struct{ HTTPClient *http.Client }

// NewDnsClientWithConfigurationProvider returns a client whose every call fails.
func NewDnsClientWithConfigurationProvider(common.ConfigurationProvider) (DnsClient, error) {
	return DnsClient{}, nil
}

// PatchDomainRecords always fails.
func (DnsClient) PatchDomainRecords(context.Context, PatchDomainRecordsRequest) (PatchDomainRecordsResponse, error) {
	return PatchDomainRecordsResponse{}, common.ErrUnavailable
}

// GetDomainRecords always fails.
func (DnsClient) GetDomainRecords(context.Context, GetDomainRecordsRequest) (GetDomainRecordsResponse, error) {
	return GetDomainRecordsResponse{}, common.ErrUnavailable
}
