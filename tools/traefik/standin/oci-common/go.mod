module github.com/nrdcg/oci-go-sdk/common/v1065

go 1.26.0
