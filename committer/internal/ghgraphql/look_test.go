package ghgraphql

import (
	"testing"
	"time"
)

// RefLook.Since counts the commits between a head seen before and the
// branch's head as the look saw it; a head older than the look's list is
// at least LookHistory behind, and no look says nothing.
func TestRefLookSince(t *testing.T) {
	l := &RefLook{Branch: "main"}
	if n, ok := l.Since("a"); ok || n != 0 {
		t.Errorf("no look: %d, %v; want 0, false", n, ok)
	}
	l.record("c", []string{"c", "b", "a"}, time.Now())
	for _, tc := range []struct {
		oid  string
		n    int
		okay bool
	}{{"c", 0, true}, {"b", 1, true}, {"A", 2, true}, {"z", LookHistory, false}} {
		if n, ok := l.Since(tc.oid); n != tc.n || ok != tc.okay {
			t.Errorf("Since(%q) = %d, %v; want %d, %v", tc.oid, n, ok, tc.n, tc.okay)
		}
	}
}
