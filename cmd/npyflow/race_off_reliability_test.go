//go:build linux && !race

package main

const (
	raceData = 0 // no extra data limit
	raceRSS  = 1 // RSS limit multiplier
)
