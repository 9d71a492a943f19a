package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/npyflow/npyflow/internal/atomicfile"
)

func Example() {
	dir, _ := os.MkdirTemp("", "atomicfile")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "result.txt")

	f, err := atomicfile.Create(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close() // removes the temporary file unless committed
	fmt.Fprintln(f, "all or nothing")
	if err := f.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	ents, _ := os.ReadDir(dir)
	fmt.Println(len(ents), "file in the directory")
	// Output:
	// all or nothing
	// 1 file in the directory
}
