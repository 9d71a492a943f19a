module github.com/npyflow/npyflow

go 1.26.8

require (
	github.com/apache/arrow-go/v18 v18.8.0
	github.com/klauspost/compress v1.20.3
)
