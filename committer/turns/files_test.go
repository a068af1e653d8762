package turns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMain lets the test binary hold a turn as another process: with
// TURNS_HOLD=dir:key it takes key's turn, prints "held", and keeps it until
// its stdin closes (or it is killed).
func TestMain(m *testing.M) {
	if v := os.Getenv("TURNS_HOLD"); v != "" {
		dir, key, _ := strings.Cut(v, ":")
		t := engine{dir: dir}.taken(context.Background(), key)
		if !t.Granted {
			fmt.Println("refused:", t.Err)
			os.Exit(1)
		}
		fmt.Println("held")
		_, _ = os.Stdin.Read(make([]byte, 1))
		t.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// outcome is a take's outcome, in one value for the tests.
type outcome struct {
	*grant
	Granted, Queued bool
	Waited          time.Duration
	Err             error
}

// Release releases the turn, if one was granted.
func (o *outcome) Release() {
	if o.grant != nil {
		o.grant.Release()
	}
}

// taken is take, with its outcome in one value.
func (ts engine) taken(ctx context.Context, key string) *outcome {
	start := time.Now()
	g, err := ts.take(ctx, key)
	o := &outcome{grant: g, Granted: g != nil, Waited: time.Since(start), Err: err}
	if g != nil {
		o.Queued = g.Queued()
	}
	return o
}

// needFiles skips a test of turns between processes where there are none
// (systems other than Unix: see machinedir).
func needFiles(tb testing.TB) {
	tb.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		tb.Skip("turns between processes need a Unix system")
	}
}

// hold starts another process holding key's turn in dir; closing the
// returned pipe ends its turn.
func hold(t *testing.T, dir, key string) (*exec.Cmd, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TURNS_HOLD="+dir+":"+key)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if n, err := out.Read(buf); err != nil || string(buf[:n]) != "held\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("holder said %q, %v", buf[:n], err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, func() { _ = in.Close() }
}

func TestOneTurnAtATime(t *testing.T) {
	needFiles(t)
	dir := t.TempDir()
	var in, most atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				turn := engine{dir: dir}.taken(context.Background(), "k")
				if !turn.Granted {
					t.Errorf("not granted: %v", turn.Err)
					return
				}
				n := in.Add(1)
				for m := most.Load(); n > m; m = most.Load() {
					if most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(time.Millisecond)
				in.Add(-1)
				turn.Release()
				turn.Release() // twice is harmless
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d writers held the turn at once", most.Load())
	}
	if n := len(local.m); n != 0 {
		t.Errorf("%d keys left in the process's registry", n)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 || files[0].Name() != lockName("k") {
		t.Errorf("lock directory holds %v, want the one file %s", files, lockName("k"))
	}
	if fi, err := os.Stat(filepath.Join(dir, lockName("k"))); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 0 {
		t.Errorf("lock file: %v, %v: want an empty file of mode 0600", fi, err)
	}
}

func TestOtherKeysDoNotWait(t *testing.T) {
	needFiles(t)
	dir := t.TempDir()
	a := engine{dir: dir}.taken(context.Background(), "a")
	defer a.Release()
	if lockName("a") == lockName("b") {
		t.Fatal("pick keys of different files")
	}
	// A wait for a's turn would run out and not be granted.
	b := engine{dir: dir, maxWait: 200 * time.Millisecond}.taken(context.Background(), "b")
	defer b.Release()
	if !b.Granted {
		t.Fatalf("b waited for a's turn: %v", b.Err)
	}
	if a.Queued || b.Queued {
		t.Errorf("queued: a %v, b %v; nobody held either turn before", a.Queued, b.Queued)
	}
	// A writer of this process that comes while a holds the turn queues.
	done := make(chan *outcome)
	go func() { done <- engine{dir: dir}.taken(context.Background(), "a") }()
	time.Sleep(20 * time.Millisecond)
	a.Release()
	a2 := <-done
	defer a2.Release()
	if !a2.Granted || !a2.Queued {
		t.Errorf("the second writer of a: granted %v, queued %v; want both", a2.Granted, a2.Queued)
	}
}

func TestAnotherProcessHoldsTheTurn(t *testing.T) {
	needFiles(t)
	dir := t.TempDir()
	_, end := hold(t, dir, "k")
	// While the other process holds it, the wait runs out and the writer
	// races.
	got := engine{dir: dir, maxWait: 100 * time.Millisecond}.taken(context.Background(), "k")
	if got.Granted || !errors.Is(got.Err, context.DeadlineExceeded) {
		t.Fatalf("granted %v, err %v while another process holds the turn", got.Granted, got.Err)
	}
	got.Release()
	// Once it lets go, the turn comes.
	done := make(chan *outcome)
	go func() { done <- engine{dir: dir, maxWait: 10 * time.Second}.taken(context.Background(), "k") }()
	time.Sleep(50 * time.Millisecond)
	select {
	case turn := <-done:
		t.Fatalf("granted %v while the other process still holds the turn", turn.Granted)
	default:
	}
	end()
	turn := <-done
	defer turn.Release()
	if !turn.Granted || !turn.Queued {
		t.Fatalf("after the holder ended: granted %v, queued %v (%v); want both", turn.Granted, turn.Queued, turn.Err)
	}
}

func TestKilledHolderReleases(t *testing.T) {
	needFiles(t)
	dir := t.TempDir()
	cmd, _ := hold(t, dir, "k")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	turn := engine{dir: dir, maxWait: 10 * time.Second}.taken(context.Background(), "k")
	defer turn.Release()
	if !turn.Granted {
		t.Fatalf("after the holder was killed: not granted (%v)", turn.Err)
	}
}

func TestCancelledWaitReturns(t *testing.T) {
	needFiles(t)
	dir := t.TempDir()
	_, _ = hold(t, dir, "k")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	got := engine{dir: dir}.taken(ctx, "k")
	if got.Granted || !errors.Is(got.Err, context.Canceled) {
		t.Fatalf("granted %v, err %v after ctx ended", got.Granted, got.Err)
	}
	// Within the process too: a second writer behind a held turn.
	first := engine{}.taken(context.Background(), "p")
	defer first.Release()
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if got := (engine{}).taken(ctx, "p"); got.Granted || !errors.Is(got.Err, context.Canceled) {
		t.Fatalf("in-process: granted %v, err %v after ctx ended", got.Granted, got.Err)
	}
}

func TestUnusableDirRaces(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got := engine{dir: filepath.Join(file, "turns")}.taken(context.Background(), "k")
	if got.Granted || got.Err == nil {
		t.Fatalf("granted %v, err %v with a directory under a file", got.Granted, got.Err)
	}
	got.Release()
	// The process's own queue is left free.
	again := engine{}.taken(context.Background(), "k")
	defer again.Release()
	if !again.Granted {
		t.Fatalf("in-process turn not granted after a failed one: %v", again.Err)
	}
}

func TestDirIsPrivate(t *testing.T) {
	needFiles(t)
	dir := filepath.Join(t.TempDir(), "a", "turns")
	turn := engine{dir: dir}.taken(context.Background(), "k")
	defer turn.Release()
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("lock directory: %v, %v: want mode 0700", fi, err)
	}
}

// TestFileNamesNeverCollide: distinct keys never share a lock file (a
// commit never waits behind another repository's branch), and no name
// holds a path separator.
func TestFileNamesNeverCollide(t *testing.T) {
	seen := map[string]bool{}
	for i := range 100000 {
		f := lockName(fmt.Sprint("https://api.github.com/\x00acme/mono\x00stage-", i))
		if !isLockName(f) || strings.ContainsAny(f, "/\\") {
			t.Fatalf("file name %q", f)
		}
		if seen[f] {
			t.Fatalf("two keys share the lock file %s", f)
		}
		seen[f] = true
	}
}

func BenchmarkTake(b *testing.B) {
	needFiles(b)
	dir := b.TempDir()
	for b.Loop() {
		engine{dir: dir}.taken(context.Background(), "k").Release()
	}
}
