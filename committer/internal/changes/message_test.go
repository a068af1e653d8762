package changes

import "testing"

// TestOwnEditID: a commit's own Edit-Id is the last Edit-Id line, in
// exactly ghcommitter's spelling, of the trailer block that ends the
// message; anything else is the caller's text.
func TestOwnEditID(t *testing.T) {
	const k = EditIDTrailer + ": "
	for _, tc := range []struct{ msg, want string }{
		{"m\n\n" + k + "aa\n", "aa"},
		{"m\n\n" + k + "aa", "aa"},
		{"m\n\n" + k + "aa\n" + k + "bb\n", "bb"},
		{"m\n\nSigned-off-by: J <j@example.com>\n" + k + "bb\n", "bb"},
		{"m\n\n" + k + "aa\nSigned-off-by: J <j@example.com>\n", "aa"},
		{"m\n\n" + k + "aa\n\nbody after it\n", ""},
		{"m\n\nghcommitter-edit-id: aa\n", ""},
		{"m\n\n" + k + "aa\n\nghcommitter-edit-id: bb\n", ""},
		{k + "aa", ""}, // a subject, not a trailer block
		{"m", ""},
		{"", ""},
	} {
		if got := OwnEditID(tc.msg); got != tc.want {
			t.Errorf("ownEditID(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	for _, msg := range []string{"m", "m\n\nbody", "m\n\n" + k + "copied\n", "m\n\n" + k + "copied\n\ntext", k + "copied", "m\n\nA: 1\n"} {
		id := NewEditID()
		got := WithEditID(msg, id)
		if OwnEditID(got) != id || !HasOwnEditID(got, id) || HasOwnEditID(got, "copied") {
			t.Errorf("withEditID(%q) = %q: own Edit-Id %q, want %q", msg, got, OwnEditID(got), id)
		}
	}
	if HasOwnEditID("m\n\n"+k+"\n", "") {
		t.Error("an empty id matched")
	}
}

func TestWithoutEditID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"promote s1", "promote s1"},
		{"promote s1\n\n" + EditIDTrailer + ": 0123456789abcdef\n", "promote s1"},
		{"promote s1\n\nbody\n\nSigned-off-by: a <a@b>\n" + EditIDTrailer + ": 01\n", "promote s1\n\nbody\n\nSigned-off-by: a <a@b>"},
		// Not ours: an Edit-Id in the body, or before another trailer.
		{"promote\n\n" + EditIDTrailer + ": 01 is in the text\n\nmore", "promote\n\n" + EditIDTrailer + ": 01 is in the text\n\nmore"},
		{"x\n\n" + EditIDTrailer + ": 01\nSigned-off-by: a <a@b>", "x\n\nSigned-off-by: a <a@b>"},
	} {
		if got := WithoutEditID(c.in); got != c.want {
			t.Errorf("WithoutEditID(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := WithoutEditID(WithEditID(c.want, NewEditID())); c.want != "" && got != c.want {
			t.Errorf("WithoutEditID(WithEditID(%q)) = %q", c.want, got)
		}
	}
}
