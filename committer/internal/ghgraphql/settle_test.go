package ghgraphql

import "testing"

// TestChainWalk checks both scopes of the one settle walk on a chain
// h -> b -> a -> p (first parents), where only the message of "a" is ours.
func TestChainWalk(t *testing.T) {
	fp := map[string]string{"h": "b", "b": "a", "a": "p", "p": "r", "r": ""}
	msg := map[string]string{"h": "x", "b": "x", "a": "ours", "p": "x", "r": "x"}
	ours := func(m string) bool { return m == "ours" }
	for _, tc := range []struct {
		scope        Scope
		head, parent string
		known        []string // commits read so far
		want         Outcome
		oid          string
		done         bool
	}{
		{ChildOf, "h", "p", []string{"h", "b", "a", "p"}, Landed, "a", true},
		{ChildOf, "h", "a", []string{"h", "b", "a"}, NotLanded, "", true}, // a's child b is another writer's
		{ChildOf, "h", "h", nil, NotLanded, "", true},                     // parent is the head
		{ChildOf, "h", "p", []string{"h", "b"}, Unknown, "", false},       // not read far enough
		{ChildOf, "h", "zz", []string{"h", "b", "a", "p", "r"}, Unknown, "", true},
		{Since, "h", "p", []string{"h", "b", "a"}, Landed, "a", true},
		{Since, "h", "a", []string{"h", "b", "a"}, NotLanded, "", true}, // a is the parent: not ours
		{Since, "h", "zz", []string{"h", "b", "a"}, Landed, "a", true},
		{Since, "h", "p", []string{"h"}, Unknown, "", false},
	} {
		w := chain{head: tc.head, parent: tc.parent, scope: tc.scope, match: ours, firstParent: map[string]string{}, message: map[string]string{}}
		for _, k := range tc.known {
			w.firstParent[k], w.message[k] = fp[k], msg[k]
		}
		oid, o, done := w.walk()
		if o != tc.want || oid != tc.oid || done != tc.done {
			t.Errorf("scope %d head %s parent %s known %v: got %s %v %v, want %s %v %v", tc.scope, tc.head, tc.parent, tc.known, oid, o, done, tc.oid, tc.want, tc.done)
		}
	}
}
