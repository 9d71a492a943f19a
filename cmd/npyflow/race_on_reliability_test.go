//go:build linux && race

package main

// The race detector's shadow memory counts against the children's limits:
// under -race they get more room.
const (
	raceData = 4 << 30
	raceRSS  = 4
)
