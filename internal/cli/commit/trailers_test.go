package commit

import (
	"testing"
)

func TestWithTrailers(t *testing.T) {
	for _, tc := range []struct {
		msg   string
		lines []string
		want  string
	}{
		{"subject", nil, "subject"},
		{"subject", []string{"A: 1"}, "subject\n\nA: 1\n"},
		{"subject\n\nbody text\n", []string{"A: 1", "B: 2"}, "subject\n\nbody text\n\nA: 1\nB: 2\n"},
		{"subject\n\nbody\n\nCo-authored-by: X <x@example.com>\n", []string{"A: 1"}, "subject\n\nbody\n\nCo-authored-by: X <x@example.com>\nA: 1\n"},
		{"subject\n\nSigned-off-by: J <j@example.com>", []string{"Signed-off-by: J <j@example.com>"}, "subject\n\nSigned-off-by: J <j@example.com>\n"},
		// A subject that looks like a trailer is not a trailer block.
		{"Fix: the thing", []string{"A: 1"}, "Fix: the thing\n\nA: 1\n"},
	} {
		if got := withTrailers(tc.msg, tc.lines); got != tc.want {
			t.Errorf("withTrailers(%q, %q) = %q, want %q", tc.msg, tc.lines, got, tc.want)
		}
	}
}

func TestParseTrailer(t *testing.T) {
	for in, want := range map[string]string{
		"Reviewed-by=Jane <j@example.com>": "Reviewed-by: Jane <j@example.com>",
		"Ticket: ABC-1":                    "Ticket: ABC-1",
		" Key = v=w ":                      "Key: v=w",
	} {
		if got, err := parseTrailer(in); err != nil || got != want {
			t.Errorf("parseTrailer(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"novalue", "=v", "K=", "Bad Key=v", "K=a\nEvil: x", "K_x=v"} {
		if got, err := parseTrailer(bad); err == nil {
			t.Errorf("parseTrailer(%q) = %q, want an error", bad, got)
		}
	}
}
