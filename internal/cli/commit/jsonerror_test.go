package commit

import (
	"strings"
	"testing"
)

func TestWantsJSON(t *testing.T) {
	for args, want := range map[string]bool{
		"commit --json --bogus":     true,
		"commit --bogus --json":     true,
		"commit --json=true -x":     true,
		"commit --json=false --bad": false,
		"commit -- --json":          false,
		"fake-github --json":        false,
		"commit --jsonx":            false,
	} {
		if got := WantsJSON(strings.Fields(args)); got != want {
			t.Errorf("WantsJSON(%q) = %t, want %t", args, got, want)
		}
	}
}
