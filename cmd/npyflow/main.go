// Command npyflow converts NumPy .npy/.npz data to and from Arrow, Parquet
// and Arrow IPC, and runs conversion jobs described in YAML.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fmt.Fprintln(os.Stderr, "npyflow: not implemented yet")
	return 2
}
