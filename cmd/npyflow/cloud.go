//go:build !nocloud

package main

// The object-store backends (s3://, gs://, azblob://, https:// paths).
// Their SDKs cost about 45 MB of resident memory and some milliseconds at
// every start; `go build -tags nocloud ./cmd/npyflow` leaves them out for
// a lean binary that handles local paths only.
import _ "github.com/npyflow/npyflow/objstore"
