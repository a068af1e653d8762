//go:build unix

package ghclient

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// fullDiskEnv makes the test binary a process that cannot write files
// (RLIMIT_FSIZE 0, as `ulimit -f 0` or a full disk) and records one write
// in the machine's state under the directory it names.
const fullDiskEnv = "GHCLIENT_TEST_FULL_DISK"

func init() { testChildren[fullDiskEnv] = fullDiskChild }

func fullDiskChild() {
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{}); err != nil {
		panic(err)
	}
	s := &shared{primaryUntil: map[string]time.Time{}, file: openMachineFile(os.Getenv(fullDiskEnv), credentialKey("api.github.com", "token"), 1)}
	if s.file == nil {
		panic("no machine file")
	}
	s.admit(time.Now(), paceConfig{perMinute: 80, burst: 8, minute: time.Minute})
}

// TestMachineFailedWriteKeepsWindows: a process that cannot write (a full
// disk) leaves the Retry-After window another process was told: the file
// is replaced whole or not at all, never truncated.
func TestMachineFailedWriteKeepsWindows(t *testing.T) {
	a, b, dir := twoProcesses(t)
	until := time.Now().Add(20 * time.Second).Round(0)
	a.begin()
	a.secondaryUntil = until
	a.end(true)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the process that cannot write: %v: %s", err, out)
	}
	if got, _ := b.blockedUntil("core"); !got.Equal(until) {
		t.Fatalf("after a failed write, b is blocked until %v, want %v (a's window)", got, until)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(names) != 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// TestMachineDirOthersCanWriteIsRefused: a directory other users may write
// into (or that another user owns) is not used: the process keeps its
// state alone.
func TestMachineDirOthersCanWriteIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "limits")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if f := openMachineFile(dir, "k", 1); f != nil {
		t.Fatal("a state file in a directory of mode 0777")
	}
	if os.Geteuid() == 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if f := openMachineFile(dir, "k", 1); f != nil {
			t.Fatal("a state file in another user's directory")
		}
	}
}

// TestMachineFilesAreNotFollowed: a symbolic link at the state file or at
// its lock is not written through, and a FIFO there does not hang the
// process: it keeps its state alone.
func TestMachineFilesAreNotFollowed(t *testing.T) {
	p := paceConfig{perMinute: 80, burst: 8, minute: time.Minute}
	for _, tc := range []struct{ name, ext string }{
		{"symlink", ".json"}, {"symlink", ".lock"}, {"fifo", ".json"}, {"fifo", ".lock"},
	} {
		t.Run(tc.name+tc.ext, func(t *testing.T) {
			a, _, dir := twoProcesses(t)
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte("mine\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(t.TempDir(), "planted")
			at := filepath.Join(dir, a.file.name[:len(a.file.name)-len(".json")]+tc.ext)
			var err error
			switch {
			case tc.name == "fifo":
				err = syscall.Mkfifo(at, 0o600)
			case tc.ext == ".json":
				err = os.Symlink(victim, at)
			default:
				err = os.Symlink(target, at)
			}
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan time.Time)
			now := time.Now()
			go func() { done <- a.admit(now, p) }()
			select {
			case got := <-done:
				if got.After(now) {
					t.Errorf("held back %v", got.Sub(now))
				}
			case <-time.After(20 * time.Second): // a hang, not a slow run
				t.Fatal("admit hangs on a planted file")
			}
			if data, _ := os.ReadFile(victim); string(data) != "mine\n" {
				t.Errorf("the file the link names now holds %q", data)
			}
			if _, err := os.Lstat(target); err == nil {
				t.Error("a file was made where the planted link points")
			}
		})
	}
}
