//go:build !linux

package main

import "errors"

func ipcToNPYMmapOut(args []string) (result, error) {
	return result{}, errPending{errors.New("the mapped-output prototype is Linux only")}
}
