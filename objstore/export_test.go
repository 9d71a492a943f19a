package objstore

import "sync/atomic"

// CountFetched starts counting the bytes read from GET bodies and returns
// the counter (tests of ranged reads).
func CountFetched() *atomic.Int64 {
	if fetched == nil {
		fetched = new(atomic.Int64)
	}
	return fetched
}
