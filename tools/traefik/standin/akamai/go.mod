module github.com/akamai/AkamaiOPEN-edgegrid-golang/v13

go 1.26.0
