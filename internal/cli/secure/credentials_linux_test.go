package secure

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestEnvBounds: env_start and env_end are fields 50 and 51 of
// /proc/PID/stat, counted after the command name, whatever it holds.
func TestEnvBounds(t *testing.T) {
	stat := func(comm string) []byte {
		f := []string{"4242", "(" + comm + ")"}
		for n := 3; n <= 52; n++ {
			f = append(f, strconv.Itoa(n*1000)) // field n holds n*1000
		}
		return []byte(strings.Join(f, " ") + "\n")
	}
	for _, comm := range []string{"ghcommitter", "a b", "x) 1 2 (y", ") )", "(", "tab\there"} {
		start, end, err := envBounds(stat(comm))
		if err != nil || start != 50000 || end != 51000 {
			t.Errorf("comm %q: %d, %d, %v; want 50000, 51000", comm, start, end, err)
		}
	}
	for _, bad := range []string{"", "4242 ghcommitter S 1", "4242 (a) S 1 2 3", string(stat("a"))[:200]} {
		if _, _, err := envBounds([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	zero := bytes.Replace(stat("a"), []byte(" 50000 "), []byte(" 0 "), 1)
	if _, _, err := envBounds(zero); err == nil {
		t.Error("env_start 0 (an unreadable stat): no error")
	}
}

// TestEnvBoundsMatchEnviron: the bounds read from this process's stat
// delimit, in /proc/self/mem, exactly what /proc/self/environ shows (the
// argv fields 48 and 49 would delimit /proc/self/cmdline instead).
func TestEnvBoundsMatchEnviron(t *testing.T) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	start, end, err := envBounds(stat)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, int64(start)); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(block, want) {
		t.Errorf("memory at %#x..%#x is not the environment block:\n%s", start, end, fmt.Sprintf("%.200q", block))
	}
}
