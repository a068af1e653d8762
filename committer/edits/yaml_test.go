package edits

import (
	"errors"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
)

const values = `# Default values for api.
# This is a YAML-formatted file.

replicaCount: 1   # keep it small

image:
    repository: "ghcr.io/acme/api"
    # Overrides the image tag.
    tag: "1.20"
    pullPolicy: IfNotPresent

example.com/version: v1

containers:
  - name: api
    image: 'api:1.0'
  - name: sidecar
    image: envoy:1.2
args: [--port, "8080"]
annotations: {}
empty:
notes: |
  line one
  line two
enabled: true
`

// lineDiff returns the lines of a and b that differ, for messages.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, "-"+x, "+"+y)
		}
	}
	return strings.Join(out, "\n")
}

func TestSetYAMLChangesOnlyTheValue(t *testing.T) {
	cases := []struct {
		key, value string
		opts       []Option
		from, to   string // the one line that changes
	}{
		{"image.tag", "1.21", nil, `    tag: "1.20"`, `    tag: "1.21"`},
		{"image.repository", "ghcr.io/acme/api2", nil, `    repository: "ghcr.io/acme/api"`, `    repository: "ghcr.io/acme/api2"`},
		{"image.pullPolicy", "Always", nil, `    pullPolicy: IfNotPresent`, `    pullPolicy: Always`},
		{"image.pullPolicy", "1.5", nil, `    pullPolicy: IfNotPresent`, `    pullPolicy: "1.5"`}, // a string stays a string
		{"replicaCount", "3", nil, `replicaCount: 1   # keep it small`, `replicaCount: 3   # keep it small`},
		{"replicaCount", "3", []Option{AsString()}, `replicaCount: 1   # keep it small`, `replicaCount: "3"   # keep it small`},
		{`example\.com/version`, "v2", nil, `example.com/version: v1`, `example.com/version: v2`},
		{"containers.0.image", "api:2.0", nil, `    image: 'api:1.0'`, `    image: 'api:2.0'`},
		{"containers.1.image", "envoy:1.3", nil, `    image: envoy:1.2`, `    image: envoy:1.3`},
		{"containers.1.image", "it's: here", nil, `    image: envoy:1.2`, `    image: "it's: here"`},
		{"args.1", "9090", nil, `args: [--port, "8080"]`, `args: [--port, "9090"]`},
		{"args.0", "a,b", nil, `args: [--port, "8080"]`, `args: ["a,b", "8080"]`},
		{"enabled", "false", nil, `enabled: true`, `enabled: false`},
		{"empty", "x", nil, `empty:`, `empty: x`},
		{"annotations.team", "core", nil, `annotations: {}`, `annotations: {team: core}`},
	}
	for _, c := range cases {
		t.Run(c.key+"="+c.value, func(t *testing.T) {
			out, err := SetBytes(YAML, []byte(values), c.key, c.value, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(values, c.from+"\n", c.to+"\n", 1)
			if want == values {
				t.Fatalf("bad case: %q not in the sample", c.from)
			}
			if string(out) != want {
				t.Fatalf("diff (want, got):\n%s", lineDiff(want, string(out)))
			}
		})
	}
}

func TestSetYAMLBlockScalar(t *testing.T) {
	out, err := SetBytes(YAML, []byte(values), "notes", "first\nsecond\nthird\n")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(values, "notes: |\n  line one\n  line two\n", "notes: |\n  first\n  second\n  third\n", 1)
	if string(out) != want {
		t.Fatalf("diff:\n%s", lineDiff(want, string(out)))
	}
}

func TestSetYAMLNewKeys(t *testing.T) {
	cases := []struct {
		key, value string
		opts       []Option
		after, add string // the new lines come right after the line after
	}{
		{"image.digest", "sha256:abc", nil, "    pullPolicy: IfNotPresent\n", "    digest: sha256:abc\n"},
		{"image.labels.team", "core", nil, "    pullPolicy: IfNotPresent\n", "    labels:\n        team: core\n"},
		{"image.version", "1.20", []Option{AsString()}, "    pullPolicy: IfNotPresent\n", "    version: \"1.20\"\n"},
		{"image.version", "1.20", nil, "    pullPolicy: IfNotPresent\n", "    version: 1.20\n"},
		{"containers.1.port", "80", nil, "    image: envoy:1.2\n", "    port: 80\n"},
		{"service.port", "80", nil, "enabled: true\n", "service:\n    port: 80\n"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			out, err := SetBytes(YAML, []byte(values), c.key, c.value, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(values, c.after, c.after+c.add, 1)
			if string(out) != want {
				t.Fatalf("diff (want, got):\n%s", lineDiff(want, string(out)))
			}
		})
	}
}

func TestSetYAMLMustExist(t *testing.T) {
	_, err := SetBytes(YAML, []byte(values), "image.digest", "x", MustExist())
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("err = %v, want ErrNotFound and ErrInvalid", err)
	}
	if _, err := Set(YAML, "a", "b", MustExist())(nil, false); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("absent file: err = %v", err)
	}
}

func TestSetYAMLRefused(t *testing.T) {
	cases := []struct{ src, key, why string }{
		{values, "image.tag.major", "is a scalar"},
		{values, "replicaCount.x", "is a scalar"},
		{values, "containers.name", "not an index"},
		{values, "containers.5.name", "out of range"},
		{values, "image", "not a scalar"},
		{values, "containers.2", "out of range"},
		{values, "image..tag", "empty"},
		{"a: [1\n", "a", "not valid YAML"},
		{"a: &x 1\nb: *x\n", "b", "alias"},
		{"a: &x 1\nb: *x\n", "a", "anchored"},
		{"base: &b\n  x: 1\nother: *b\n", "base.x", "anchored"},
		{"a: 1\n---\nb: 2\n", "@2.b", "2 documents"},
		{"just a string\n", "a", "scalar"},
		{"a: b\n", "x.0.y", "number"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			out, err := SetBytes(YAML, []byte(c.src), c.key, "v")
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, committer.ErrInvalid) || out != nil {
				t.Fatalf("got %q, %v; want an *Error", out, err)
			}
			if !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), c.key) {
				t.Fatalf("err = %v, want it to name the key and say %q", err, c.why)
			}
		})
	}
}

func TestSetYAMLDocuments(t *testing.T) {
	src := "# first\na: 1\n---\n# second\na: 1\nb: [x]\n...\n---\nc: 3\n"
	out, err := SetBytes(YAML, []byte(src), "a", "2")
	if err != nil || string(out) != strings.Replace(src, "a: 1", "a: 2", 1) {
		t.Fatalf("@0 default: %q, %v", out, err)
	}
	out, err = SetBytes(YAML, []byte(src), "@1.a", "2")
	if err != nil || string(out) != "# first\na: 1\n---\n# second\na: 2\nb: [x]\n...\n---\nc: 3\n" {
		t.Fatalf("@1: %q, %v", out, err)
	}
	out, err = SetBytes(YAML, []byte(src), "@2.d", "4")
	if err != nil || string(out) != src+"d: 4\n" {
		t.Fatalf("@2 new key: %q, %v", out, err)
	}
	out, err = SetBytes(YAML, []byte("\"@x\": 1\n"), `\@x`, "2")
	if err != nil || string(out) != "\"@x\": 2\n" {
		t.Fatalf(`\@: %q, %v`, out, err)
	}
}

func TestSetYAMLEmptyAndAbsent(t *testing.T) {
	out, err := Set(YAML, "image.tag", "v1")(nil, false)
	if err != nil || string(out) != "image:\n  tag: v1\n" {
		t.Fatalf("absent: %q, %v", out, err)
	}
	out, err = SetBytes(YAML, []byte("# nothing yet\n"), "a", "b")
	if err != nil || string(out) != "# nothing yet\na: b\n" {
		t.Fatalf("comment only: %q, %v", out, err)
	}
	out, err = SetBytes(YAML, []byte("a: 1"), "b", "2")
	if err != nil || string(out) != "a: 1\nb: 2\n" {
		t.Fatalf("no final newline: %q, %v", out, err)
	}
}

func TestUnsetYAML(t *testing.T) {
	cases := []struct{ key, from, to string }{
		{"image.tag", "    # Overrides the image tag.\n    tag: \"1.20\"\n", "    # Overrides the image tag.\n"},
		{"replicaCount", "replicaCount: 1   # keep it small\n", ""},
		{"notes", "notes: |\n  line one\n  line two\n", ""},
		{"containers.0", "  - name: api\n    image: 'api:1.0'\n", ""},
		{"containers.1.name", "  - name: sidecar\n    image: envoy:1.2\n", "  - image: envoy:1.2\n"},
		{"containers.0.image", "    image: 'api:1.0'\n", ""},
		{"nothere", "", ""},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			out, err := UnsetBytes(YAML, []byte(values), c.key)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(values, c.from, c.to, 1)
			if string(out) != want {
				t.Fatalf("diff (want, got):\n%s", lineDiff(want, string(out)))
			}
		})
	}
	out, err := UnsetBytes(YAML, []byte("a:\n  b: 1\nc: 2\n"), "a.b")
	if err != nil || string(out) != "a:\n  {}\nc: 2\n" {
		t.Fatalf("only key: %q, %v", out, err)
	}
	if _, err := UnsetBytes(YAML, []byte(values), "nothere", MustExist()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("must exist: %v", err)
	}
	if _, err := UnsetBytes(YAML, []byte(values), "args.0"); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("flow: %v", err)
	}
}

func TestYAMLCRLF(t *testing.T) {
	src := "# c\r\nimage:\r\n  tag: \"1.20\"\r\n"
	out, err := SetBytes(YAML, []byte(src), "image.tag", "1.21")
	if err != nil || string(out) != "# c\r\nimage:\r\n  tag: \"1.21\"\r\n" {
		t.Fatalf("%q, %v", out, err)
	}
	out, err = SetBytes(YAML, []byte(src), "image.digest", "sha256:1")
	if err != nil || string(out) != src+"  digest: sha256:1\r\n" {
		t.Fatalf("%q, %v", out, err)
	}
	out, err = SetImage(Image{Name: "api", NewTag: "2"})([]byte("images:\r\n- name: x\r\n"), true)
	if err != nil || string(out) != "images:\r\n- name: x\r\n- name: api\r\n  newTag: \"2\"\r\n" {
		t.Fatalf("%q, %v", out, err)
	}
}
