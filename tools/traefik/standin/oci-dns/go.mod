module github.com/nrdcg/oci-go-sdk/dns/v1065

go 1.26.0

require github.com/nrdcg/oci-go-sdk/common/v1065 v1065.124.2
