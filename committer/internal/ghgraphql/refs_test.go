package ghgraphql

import (
	"errors"
	"testing"
)

func TestNamesRef(t *testing.T) {
	for _, tc := range []struct {
		msg, ref string
		want     bool
	}{
		{"Reference refs/heads/main is at 1 but expected 2.", "refs/heads/main", true},
		{"Reference refs/heads/main.", "refs/heads/main", true},
		{"Reference refs/heads/main2 is at 1.", "refs/heads/main", false},
		{"Reference refs/heads/main/x is at 1.", "refs/heads/main", false},
		{"Reference refs/tags/v1.2 already exists.", "refs/tags/v1", false},
		{"Reference refs/tags/v1.2 already exists.", "refs/tags/v1.2", true},
		{"Reference xrefs/heads/main is at 1.", "refs/heads/main", false},
		{"\"refs/heads/main\": stale", "refs/heads/main", true},
		{"Something went wrong.", "refs/heads/main", false},
	} {
		if got := NamesRef(tc.msg, tc.ref); got != tc.want {
			t.Errorf("NamesRef(%q, %q) = %v, want %v", tc.msg, tc.ref, got, tc.want)
		}
	}
}

func TestIsUnavailable(t *testing.T) {
	hidden := &Errors{Errors: []Error{
		{Message: "Field 'updateRefs' doesn't exist on type 'Mutation'", Extensions: map[string]any{"code": "undefinedField"}},
		{Message: "UpdateRefsInput isn't a defined input type (on $input)", Extensions: map[string]any{"code": "variableRequiresValidType"}},
	}}
	if !IsUnavailable(hidden) || !IsUnavailable(&HTTPError{Status: 404}) {
		t.Fatal("a hidden preview or a missing endpoint is not unavailable")
	}
	for _, err := range []error{
		&Errors{Errors: []Error{{Type: TypeStaleData, Message: "Reference refs/heads/main is at 1"}}},
		&Errors{Errors: []Error{hidden.Errors[0], {Type: "INTERNAL", Message: "boom"}}},
		&HTTPError{Status: 502},
		&NoReplyError{Op: "updateRefs", Mutation: true, Err: errors.New("connection reset")},
	} {
		if IsUnavailable(err) {
			t.Errorf("%v is unavailable: the mutation may have been applied or refused", err)
		}
	}
}
