package commit

import (
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

func TestMergeFlagsParse(t *testing.T) {
	// --wait takes no value: a path after it stays a path.
	f, code := parseCommit(t, "-m", "m", "--pull-request", "-b", "h", "--merge-now", "--wait", "a.txt")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !f.merge.now || !f.merge.wait || f.merge.waitTimeout != defaultWaitTimeout || strings.Join(f.paths, ",") != "a.txt" {
		t.Errorf("parsed %+v, paths %v", f.merge, f.paths)
	}
	f, code = parseCommit(t, "-m", "m", "--pull-request", "--auto-merge", "--merge-method", "rebase", "--wait", "--wait-timeout", "2m", "x")
	if code != 0 || !f.merge.autoMerge || f.merge.method != "rebase" || f.merge.waitTimeout != 2*time.Minute {
		t.Errorf("exit %d, parsed %+v", code, f.merge)
	}
	for _, bad := range [][]string{
		{"--merge-now", "x"}, // no --pull-request
		{"--wait", "x"},      // no --pull-request
		{"--pull-request", "--merge-now", "--auto-merge", "x"}, // two ways
		{"--pull-request", "--merge-queue", "--merge-method", "squash", "x"},
		{"--pull-request", "--merge-now", "--merge-method", "ff", "x"},
		{"--pull-request", "--wait-timeout", "1m", "x"}, // no --wait
		{"--pull-request", "--wait", "--wait-timeout", "0s", "x"},
		{"--pull-request", "--merge-now", "--dry-run", "x"},
	} {
		if f, code := parseCommit(t, append([]string{"-m", "m"}, bad...)...); code != cmdutil.ExitUsage || f != nil {
			t.Errorf("%v: exit %d (runF called: %t), want 2 before running", bad, code, f != nil)
		}
	}
}
