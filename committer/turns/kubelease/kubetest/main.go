package kubetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// dirPrefix names a run's temporary directory, followed by its pid.
const dirPrefix = "ghcommitter-kubetest-"

// shared is the server Main started for the package's tests.
var shared *Server

// Main runs a test binary's tests against one server for them all:
//
//	func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }
//
// Without the binaries it runs the tests with no server (Shared skips
// them), or fails when KUBETEST_REQUIRE=1.
func Main(m *testing.M) int {
	s, err := Start(context.Background())
	// A port chosen free can be taken before the server binds it: try
	// again with others.
	for try := 1; try < 3 && err != nil && !errors.Is(err, ErrNoBinaries); try++ {
		fmt.Fprintf(os.Stderr, "kubetest: starting again: %v\n", err)
		s, err = Start(context.Background())
	}
	switch {
	case errors.Is(err, ErrNoBinaries) && os.Getenv(EnvRequire) != "1":
		return m.Run()
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Stop()
	shared = s
	return m.Run()
}

// Shared is the server Main started; without one it skips t (or fails it
// when KUBETEST_REQUIRE=1).
func Shared(t testing.TB) *Server {
	t.Helper()
	if shared == nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatal("kubetest: no API server (TestMain must call kubetest.Main)")
		}
		t.Skip(ErrNoBinaries)
	}
	return shared
}

// Namespace is Shared(t).Namespace with a name from t's, failing t on error.
func Namespace(t testing.TB) string {
	t.Helper()
	s := Shared(t)
	name := strings.ToLower(t.Name())
	name = strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, name)
	if len(name) > 40 {
		name = name[:40]
	}
	ns, err := s.Namespace(t.Context(), strings.Trim(name, "-"))
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// sweepStaleDirs removes the temporary directories of runs whose process is
// gone (one that panicked or was killed before it could clean up).
func sweepStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		rest := strings.TrimPrefix(filepath.Base(d), dirPrefix)
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(d)
		}
	}
}
