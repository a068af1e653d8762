package turns_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns"
)

// TestInProcessQueues: a second writer of the same key waits for the first
// and is told it queued; a writer of another key does not wait.
func TestInProcessQueues(t *testing.T) {
	key := turns.Key{API: "https://api.example/", Repository: "o/r", Branch: t.Name()}
	first, err := turns.InProcess().Take(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if first.Queued() {
		t.Fatal("the first writer queued")
	}
	other := key
	other.Branch += "-other"
	o, err := turns.InProcess().Take(context.Background(), other)
	if err != nil {
		t.Fatalf("another branch waited: %v", err)
	}
	o.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := turns.InProcess().Take(ctx, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second writer while the first holds the turn: %v, want the deadline", err)
	}
	got := make(chan turns.Turn, 1)
	go func() {
		second, err := turns.InProcess().Take(context.Background(), key)
		if err != nil {
			t.Error(err)
		}
		got <- second
	}()
	time.Sleep(20 * time.Millisecond)
	first.Release()
	select {
	case second := <-got:
		if second == nil || !second.Queued() {
			t.Fatal("the second writer did not say it queued")
		}
		second.Release()
	case <-time.After(10 * time.Second):
		t.Fatal("the second writer never got its turn")
	}
}

// TestFilesKeepTheirLocksInTheDirectory: Files makes its directory
// private and keeps one lock file per key there; InProcess and Files("")
// create nothing.
func TestFilesKeepTheirLocksInTheDirectory(t *testing.T) {
	dir := t.TempDir() + "/turns"
	ft, err := turns.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := turns.Key{API: "https://api.example/", Repository: "o/r", Branch: t.Name()}
	turn, err := ft.Take(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	turn.Release()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("lock directory holds %v (%v), want one lock file", entries, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("lock directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	if _, err := turns.Files(""); err != nil {
		t.Fatal(err)
	}
}

// TestKeysNeverShare: keys whose fields differ only in where a separator
// would fall are different keys.
func TestKeysNeverShare(t *testing.T) {
	a := turns.Key{API: "a", Repository: "b/c", Branch: "d"}
	b := turns.Key{API: "a", Repository: "b", Branch: "c/d"}
	if a.String() == b.String() {
		t.Fatal("two keys share a string")
	}
}
