//go:build !race

package pipeline

// raceEnabled: see race_on_test.go.
const raceEnabled = false
