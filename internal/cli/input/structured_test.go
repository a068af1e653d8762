package input

import "testing"

func TestCutKey(t *testing.T) {
	for _, c := range []struct{ in, key, value string }{
		{"a.b=c", "a.b", "c"},
		{`a\=b=c=d`, `a\=b`, "c=d"},
		{`a\\=b`, `a\\`, "b"},
		{"a=", "a", ""},
	} {
		k, v, ok := cutKey(c.in)
		if !ok || k != c.key || v != c.value {
			t.Errorf("cutKey(%q) = %q, %q, %v", c.in, k, v, ok)
		}
	}
}
