package hdf5

import (
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// watchdog stops a fuzz worker that spends over 30 s on one input (a
// hang), saving the input and every goroutine's stack in the temporary
// directory as hdf5_hang.h5 and hdf5_hang.txt.
func watchdog(data []byte) *time.Timer {
	return time.AfterFunc(30*time.Second, func() {
		dir := os.TempDir()
		os.WriteFile(filepath.Join(dir, "hdf5_hang.h5"), data, 0o644)
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		os.WriteFile(filepath.Join(dir, "hdf5_hang.txt"), buf[:n], 0o644)
		panic("hdf5: fuzz input took over 30 s (saved as hdf5_hang.h5 in " + dir + ")")
	})
}
