package edits

import (
	"fmt"
	"strings"
	"testing"

	yaml3 "go.yaml.in/yaml/v3"
	yaml2 "gopkg.in/yaml.v2"
)

// yaml11Strings are strings that YAML 1.1 readers (go-yaml v2, PyYAML,
// Psych) or 1.2 readers read as something else when written plain.
var yaml11Strings = []string{
	"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
	"true", "True", "TRUE", "false", "False", "FALSE",
	"on", "On", "ON", "off", "Off", "OFF",
	"~", "null", "Null", "NULL", "<<", "=",
	"1:20", "190:20:30", "-1:20", "190:20:30.15", "1:20.5",
	"0b1010", "-0b1_0", "0777", "+0777", "0o17", "0x1F", "0x_1f", "-0xff",
	"0", "-0", "+12", "1_000", "1,000", "12e3", "1e-3", "1.5e+3", "-1.5",
	".5", "1.", "+.inf", ".Inf", "-.INF", ".nan", ".NaN",
	"2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "2002-1-1",
}

// yaml11Plain are strings every reader reads as themselves: they stay plain.
var yaml11PlainOK = []string{"v1", "api", "latest", "1.2.3", "1.2.3-rc1", "10.0.1", "v1.20", "sha-0777", "yess", "onion", "nope", "~x", "a=b", "1:2:x", "dev_1", "NaN", "Inf", "infinity"}

// readBack is what go-yaml v2 and v3 read as the value of tag in doc.
func readBack(t *testing.T, doc []byte) (v2, v3 any) {
	t.Helper()
	var m2 map[string]any
	if err := yaml2.Unmarshal(doc, &m2); err != nil {
		t.Fatalf("go-yaml v2 cannot read\n%s: %v", doc, err)
	}
	var m3 map[string]any
	if err := yaml3.Unmarshal(doc, &m3); err != nil {
		t.Fatalf("go-yaml v3 cannot read\n%s: %v", doc, err)
	}
	return m2["tag"], m3["tag"]
}

// Setting a string to a value YAML 1.1 would resolve as a boolean, a null
// or a number quotes it: go-yaml v2 (YAML 1.1) and v3 (1.2) both read the
// string back. Strings no reader takes for anything else stay plain.
func TestSetStringReadsBackInYAML11(t *testing.T) {
	for _, src := range []string{"tag: v1\n", "tag: 'v1'\n", "other: 1\n", "tag:\n", "{tag: v1}\n", "a: [x]\ntag: v1 # c\n"} {
		for _, v := range append(append([]string{}, yaml11Strings...), yaml11PlainOK...) {
			t.Run(fmt.Sprintf("%q=%q", src, v), func(t *testing.T) {
				out, err := SetBytes(YAML, []byte(src), "tag", v, AsString())
				if err != nil {
					t.Fatal(err)
				}
				v2, v3 := readBack(t, out)
				if v2 != v || v3 != v {
					t.Errorf("set tag=%q wrote\n%s\ngo-yaml v2 reads %#v, v3 reads %#v", v, out, v2, v3)
				}
				plain := strings.Contains(string(out), "tag: "+v+"\n") || strings.Contains(string(out), "tag: "+v+" ") || strings.Contains(string(out), "tag: "+v+"}")
				if src == "tag: v1\n" && plain == contains(yaml11Strings, v) {
					t.Errorf("set tag=%q wrote\n%s", v, out)
				}
			})
		}
	}
	// Without AsString, a value YAML 1.2 reads as a string is still one
	// for 1.1 readers: "on" stays the string "on".
	for _, v := range []string{"on", "yes", "y", "off", "NO", "1:20", "0777"} {
		out, err := SetBytes(YAML, []byte("tag: v1\n"), "tag", v)
		if err != nil {
			t.Fatal(err)
		}
		if v2, v3 := readBack(t, out); v2 != v || v3 != v {
			t.Errorf("set tag=%q wrote\n%s\ngo-yaml v2 reads %#v, v3 reads %#v", v, out, v2, v3)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A file that starts with a UTF-8 byte-order mark is edited, and keeps it.
func TestSetKeepsByteOrderMark(t *testing.T) {
	const bom = "\ufeff"
	for _, src := range []string{bom + "tag: v1\nother: x\n", bom + "# c\r\ntag: v1\r\n", bom + "tag: v1"} {
		out, err := SetBytes(YAML, []byte(src), "tag", "v2")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if want := strings.Replace(src, "v1", "v2", 1); string(out) != want {
			t.Errorf("set in %q wrote %q, want %q", src, out, want)
		}
		out, err = UnsetBytes(YAML, []byte(src), "tag")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if !strings.HasPrefix(string(out), bom) || strings.Contains(string(out), "tag") {
			t.Errorf("unset in %q wrote %q", src, out)
		}
	}
	out, err := SetBytes(JSON, []byte(bom+`{"tag": "v1"}`+"\n"), "tag", "v2")
	if err != nil || string(out) != bom+`{"tag": "v2"}`+"\n" {
		t.Errorf("JSON with a byte-order mark: %q, %v", out, err)
	}
	// A kustomization with one: --set-image.
	out, err = SetImage(Image{Name: "api", NewTag: "v2"})([]byte(bom+"images:\n- name: api\n  newTag: v1\n"), true)
	if err != nil || string(out) != bom+"images:\n- name: api\n  newTag: v2\n" {
		t.Errorf("kustomization with a byte-order mark: %q, %v", out, err)
	}
}
