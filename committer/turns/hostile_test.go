//go:build unix

package turns

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/machinedir"
)

// takeOrHang takes key's turn in dir, failing the test when Take does not
// return (a hang, not a slow run: the wait it is given is short).
func takeOrHang(t *testing.T, ts engine, key string) *outcome {
	t.Helper()
	done := make(chan *outcome, 1)
	go func() { done <- ts.taken(context.Background(), key) }()
	select {
	case turn := <-done:
		return turn
	case <-time.After(20 * time.Second):
		t.Fatal("Take hangs")
		return nil
	}
}

// TestDirOthersCanWriteIsRefused: a lock directory that other users may
// write into, or that another user owns, is not used: the writer races.
func TestDirOthersCanWriteIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "turns")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	got := takeOrHang(t, engine{dir: dir, maxWait: time.Second}, "k")
	got.Release()
	if got.Granted || got.Err == nil {
		t.Fatalf("granted %v, err %v in a directory of mode 0777", got.Granted, got.Err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Fatalf("files made in it: %v", names)
	}
	if os.Geteuid() != 0 {
		return
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if got := takeOrHang(t, engine{dir: dir, maxWait: time.Second}, "k"); got.Granted || got.Err == nil {
		t.Fatalf("granted %v, err %v in another user's directory", got.Granted, got.Err)
	}
}

// TestPlantedLockFilesAreRefused: a symbolic link at a lock file's name is
// not followed (no file appears where it points), and a FIFO there does
// not hang the writer: it races.
func TestPlantedLockFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "planted")
	if err := os.Symlink(target, filepath.Join(dir, lockName("link"))); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, lockName("fifo")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"link", "fifo"} {
		got := takeOrHang(t, engine{dir: dir, maxWait: time.Second}, key)
		got.Release()
		if got.Granted || got.Err == nil || errors.Is(got.Err, context.DeadlineExceeded) {
			t.Errorf("%s: granted %v, err %v", key, got.Granted, got.Err)
		}
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("a file was made where the planted link points")
	}
}

// TestPruneDeletesOnlyIdleUnheldLockFiles: Prune deletes lock files idle
// for pruneIdle that nobody holds; it keeps a held one (another process
// waits on it), a fresh one, and every file not named like a lock file.
func TestPruneDeletesOnlyIdleUnheldLockFiles(t *testing.T) {
	dir := t.TempDir()
	_, end := hold(t, dir, "held")
	defer end()
	old := time.Now().Add(-2 * pruneIdle)
	want := map[string]bool{lockName("held"): true, lockName("idle"): false, lockName("fresh"): true, "package.json": true, "abc.lock": true}
	for name := range want {
		p := filepath.Join(dir, name)
		if name != lockName("held") {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if name != lockName("fresh") {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	d, err := machinedir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close() }()
	if n := pruneDir(d, time.Now()); n != 1 {
		t.Errorf("pruned %d files, want 1", n)
	}
	for name, kept := range want {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
	// The held turn still holds: its file was not swapped for a new one.
	if got := (engine{dir: dir, maxWait: 50 * time.Millisecond}).taken(context.Background(), "held"); got.Granted {
		got.Release()
		t.Fatal("granted a turn another process holds")
	}
}
