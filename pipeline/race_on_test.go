//go:build race

package pipeline

// raceEnabled: the race detector makes sync.Pool drop some of what is
// put back, so tests that count pooled buffers cannot count exactly.
const raceEnabled = true
