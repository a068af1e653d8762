package localfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEscapes: a link's target text, read lexically from where the link
// is, leaves the tree when it is absolute or climbs above the top.
func TestEscapes(t *testing.T) {
	for _, tc := range []struct {
		rel, target string
		want        bool
	}{
		{"a", "b", false},
		{"a/l", "../b", false},
		{"a/l", "../../b", true},
		{"l", "..", true},
		{"l", "/etc/passwd", true},
		{"a/b/l", "../../c/./d", false},
		{"a/l", "x/../../..", true},
	} {
		if got := escapes(tc.rel, tc.target); got != tc.want {
			t.Errorf("escapes(%q, %q) = %v, want %v", tc.rel, tc.target, got, tc.want)
		}
	}
}

// TestResolvePath: an absolute link target inside the root is followed;
// one outside it, a .git component on the way, or a loop is refused; a
// missing component ends the walk on disk.
func TestResolvePath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"in": filepath.Join(root, "d"), "out": os.TempDir(), "git": ".GIT/config", "loop1": "loop2", "loop2": "loop1"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	for rel, want := range map[string]string{"in/x": filepath.Join(root, "d", "x"), "missing/../y": filepath.Join(root, "y")} {
		if got, err := resolvePath(root, rel); err != nil || got != want {
			t.Errorf("resolvePath(%q) = %q, %v; want %q", rel, got, err, want)
		}
	}
	for rel, want := range map[string]string{"out": "leads outside", "git": ".git entry", "loop1": "too many levels", "..": "leads outside"} {
		if _, err := resolvePath(root, rel); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("resolvePath(%q): %v, want an error containing %q", rel, err, want)
		}
	}
}
