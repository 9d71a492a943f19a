package shard

import (
	"context"
	"sync"
	"time"

	"github.com/npyflow/npyflow/shardrun"
)

// Fingerprint is a file's fingerprint ([shardrun.Fingerprint]) and
// modification time.
type Fingerprint struct {
	Sum     string
	ModTime time.Time
}

// fingerprintWorkers is how many files Fingerprints reads at once (each
// costs a few round trips on an object store).
const fingerprintWorkers = 16

// Fingerprints fingerprints the files named by paths, each file once
// (paths may repeat: the parts of one archive) and several at a time;
// known gives fingerprints already taken (from a frozen plan), by path.
// The result's element i is paths[i]'s. Cancelling ctx stops it with
// ctx's error; otherwise the first failure, in paths' order, is returned.
func Fingerprints(ctx context.Context, paths []string, known map[string]Fingerprint) ([]Fingerprint, error) {
	var todo []string
	got := map[string]Fingerprint{}
	for _, p := range paths {
		if _, ok := known[p]; ok {
			continue
		}
		if _, ok := got[p]; !ok {
			got[p] = Fingerprint{}
			todo = append(todo, p)
		}
	}
	fps := make([]Fingerprint, len(todo))
	errs := make([]error, len(todo))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for w := 0; w < min(fingerprintWorkers, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= len(todo) || ctx.Err() != nil {
					return
				}
				s, mt, err := shardrun.Fingerprint(ctx, todo[k])
				fps[k], errs[k] = Fingerprint{Sum: s, ModTime: mt}, err
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for k, p := range todo {
		got[p] = fps[k]
	}
	out := make([]Fingerprint, len(paths))
	for i, p := range paths {
		if f, ok := known[p]; ok {
			out[i] = f
		} else {
			out[i] = got[p]
		}
	}
	return out, nil
}
