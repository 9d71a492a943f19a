package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// MkdirAll makes dir and its missing parents (mode 0777 less the umask)
// and returns the directories it made, parents first, so that a writer
// that gives up can remove them again (in reverse order) when they are
// still empty. A directory made concurrently by another process counts
// as existing.
func MkdirAll(dir string) (made []string, err error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o777); err != nil {
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}
