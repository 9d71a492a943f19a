package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/npyflow/npyflow/internal/storage"
	"github.com/npyflow/npyflow/internal/storage/storagetest"
	"github.com/npyflow/npyflow/shardrun"
)

// TestShardMissingInput: with a frozen plan, an input that disappears
// fails only the shard it belongs to, with a message naming the input
// and the shard; the other shards never look at it and finish; the
// commit refuses while that shard has not. On a local filesystem the
// input put back as it was (same bytes, same mtime) lets the shard
// resume and commit the run. In a bucket an object written again has a
// new last-modified time, so the shard refuses it as changed since
// planning.
func TestShardMissingInput(t *testing.T) {
	t.Run("local", func(t *testing.T) { checkMissingInput(t, t.TempDir()) })
	t.Run("bucket", func(t *testing.T) {
		storagetest.NewMem("memtest")
		checkMissingInput(t, fmt.Sprintf("memtest://bkt-missing/t-%d", time.Now().UnixNano()))
	})
}

func checkMissingInput(t *testing.T, base string) {
	ctx := context.Background()
	sj := planShardJob(t, base)
	// The last input of shard 1 (its first is read before it).
	var victim FrozenInput
	for _, in := range sj.fp.Inputs {
		if in.Shard == 1 {
			victim = in
		}
	}
	data, err := storage.ReadFile(ctx, victim.Path, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if err := storage.Remove(ctx, victim.Path); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		sum, err := sj.run(t, i, &ShardOptions{Resume: true}, false)
		if i != 1 {
			if err != nil {
				t.Fatalf("shard %d failed for another shard's input: %v", i, err)
			}
			if sum.Shard.Committed != nil {
				t.Fatalf("shard %d committed without shard 1", i)
			}
			continue
		}
		var ie *shardrun.InputError
		want := fmt.Sprintf("shard 1/4: planned input %s: ", storage.Redact(victim.Path))
		if !errors.As(err, &ie) || ie.Shard.Index != 1 || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("shard 1: %v; want %q...", err, want)
		}
	}
	runDir := shardrun.Join(sj.fp.StateDir, sj.fp.ID)
	if _, err := shardrun.CommitRun(ctx, runDir, &shardrun.CommitOptions{Expect: sj.fp.Expected()}); err == nil ||
		!strings.Contains(err.Error(), "no manifest from shard(s) 1 of 4") {
		t.Fatalf("commit without shard 1: %v", err)
	}
	if err := storage.WriteFile(ctx, victim.Path, data); err != nil {
		t.Fatal(err)
	}
	if storage.Scheme(base) != "" {
		_, err := sj.run(t, 1, &ShardOptions{Resume: true}, false)
		if !errors.Is(err, shardrun.ErrChanged) || !strings.Contains(err.Error(), "shard 1/4: planned input "+storage.Redact(victim.Path)+": changed since planning") {
			t.Fatalf("shard 1 with the object written again: %v", err)
		}
		return
	}
	if err := os.Chtimes(victim.Path, victim.ModTime, victim.ModTime); err != nil {
		t.Fatal(err)
	}
	sum, err := sj.run(t, 1, &ShardOptions{Resume: true}, false)
	if err != nil || sum.Shard.Committed == nil || sum.Shard.Committed.Inputs != 12 {
		t.Fatalf("shard 1 with its input back: %+v, %v", sum, err)
	}
	got, _ := readDataset(t, sj.ds)
	compareAgg(t, "after the input came back", got, sj.want)
}
