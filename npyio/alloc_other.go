//go:build !linux

package npyio

func adviseHuge([]byte) {}
