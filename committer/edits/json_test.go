package edits

import (
	"errors"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
)

const config = `{
    "name": "api",
    "image": {
        "tag": "1.20",
        "replicas": 2
    },
    "example.com/version": "v1",
    "ports": [80, 443],
    "debug": false,
    "extra": {}
}
`

func TestSetJSON(t *testing.T) {
	cases := []struct {
		key, value string
		opts       []Option
		from, to   string
	}{
		{"image.tag", "1.21", nil, `"tag": "1.20"`, `"tag": "1.21"`},
		{"image.replicas", "3", nil, `"replicas": 2`, `"replicas": 3`},
		{"image.replicas", "3", []Option{AsString()}, `"replicas": 2`, `"replicas": "3"`},
		{"image.replicas", "three", nil, `"replicas": 2`, `"replicas": "three"`},
		{`example\.com/version`, `v"2"`, nil, `"example.com/version": "v1"`, `"example.com/version": "v\"2\""`},
		{"ports.1", "8443", nil, `[80, 443]`, `[80, 8443]`},
		{"debug", "true", nil, `"debug": false`, `"debug": true`},
		{"image.digest", "sha256:1", nil, `        "replicas": 2` + "\n", `        "replicas": 2,` + "\n" + `        "digest": "sha256:1"` + "\n"},
		{"service.port", "80", nil, `    "extra": {}` + "\n", `    "extra": {},` + "\n" + `    "service": {` + "\n        \"port\": 80\n    }\n"},
		{"extra.a", "b", nil, `"extra": {}`, "\"extra\": {\n        \"a\": \"b\"\n    }"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			out, err := SetBytes(JSON, []byte(config), c.key, c.value, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(config, c.from, c.to, 1)
			if want == config {
				t.Fatalf("bad case")
			}
			if string(out) != want {
				t.Fatalf("diff (want, got):\n%s", lineDiff(want, string(out)))
			}
		})
	}
	out, err := Set(JSON, "a.b", "1")(nil, false)
	if err != nil || string(out) != "{\n  \"a\": {\n    \"b\": 1\n  }\n}\n" {
		t.Fatalf("absent: %q %v", out, err)
	}
}

func TestUnsetJSON(t *testing.T) {
	cases := []struct{ key, from, to string }{
		{"name", "\n    \"name\": \"api\",", ""},
		{"image.replicas", ",\n        \"replicas\": 2", ""},
		{"ports.0", "80, ", ""},
		{"extra", ",\n    \"extra\": {}", ""},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			out, err := UnsetBytes(JSON, []byte(config), c.key)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(config, c.from, c.to, 1)
			if c.key == "name" {
				want = strings.Replace(config, "    \"name\": \"api\",\n", "", 1)
			}
			if string(out) != want {
				t.Fatalf("diff (want, got):\n%s", lineDiff(want, string(out)))
			}
		})
	}
}

func TestJSONRefused(t *testing.T) {
	for _, c := range []struct{ src, key string }{
		{config, "name.x"}, {config, "image"}, {config, "ports.9"}, {`{"a": 1,}`, "a"}, {config, "@1.name"}, {config, "ports.x"},
	} {
		out, err := SetBytes(JSON, []byte(c.src), c.key, "v")
		if !errors.Is(err, committer.ErrInvalid) || out != nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%q: %q, %v", c.key, out, err)
		}
	}
	if _, err := SetBytes(JSON, []byte(config), "nothere", "v", MustExist()); !errors.Is(err, ErrNotFound) {
		t.Errorf("must exist: %v", err)
	}
}

func TestSetJSONOneLine(t *testing.T) {
	out, err := SetBytes(JSON, []byte(`{"a": {"b": 1}, "c": [1]}`), "a.d.e", "x")
	if err != nil || string(out) != `{"a": {"b": 1, "d": {"e": "x"}}, "c": [1]}` {
		t.Fatalf("%s, %v", out, err)
	}
	out, err = SetBytes(JSON, []byte(`{"a":1}`), "b", "2")
	if err != nil || string(out) != `{"a":1, "b":2}` {
		t.Fatalf("%s, %v", out, err)
	}
	if _, err := SetBytes(JSON, []byte(`{"a":1}`), "b.0", "2"); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("numeric new segment: %v", err)
	}
}
