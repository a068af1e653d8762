package edits

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

const configs = `{
  "name": "api",
  "image": {"tag": "1.20", "replicas": 2, "pull": null},
  "ports": [80, {"name": "https", "port": 443}],
  "nested": {
      "deep": {
          "on": true
      }
  },
  "empty": {}
}
`

func jsonLeaves(x any, prefix string, out *[]string) {
	esc := strings.NewReplacer(`\`, `\\`, `.`, `\.`)
	join := func(s string) string {
		if prefix == "" {
			return s
		}
		return prefix + "." + s
	}
	switch c := x.(type) {
	case map[string]any:
		for k, v := range c {
			jsonLeaves(v, join(esc.Replace(k)), out)
		}
	case []any:
		for i, v := range c {
			jsonLeaves(v, join(fmt.Sprint(i)), out)
		}
	default:
		*out = append(*out, prefix)
	}
}

// TestSetJSONProperty sets random values at every leaf and beside it: the
// output is JSON, the key reads back, every other value is unchanged, and
// for an existing key only one region of bytes, within a line, changed.
func TestSetJSONProperty(t *testing.T) {
	var tree any
	if err := json.Unmarshal([]byte(configs), &tree); err != nil {
		t.Fatal(err)
	}
	var keys []string
	jsonLeaves(tree, "", &keys)
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 600; i++ {
		k := keys[r.Intn(len(keys))]
		isNew := r.Intn(3) == 0
		if isNew {
			if i := strings.LastIndex(k, "."); i >= 0 {
				k = k[:i+1] + "new" + fmt.Sprint(r.Intn(2))
			} else {
				k = "new" + fmt.Sprint(r.Intn(2))
			}
		}
		v, str := randomValue(r), r.Intn(2) == 0
		var opts []Option
		if str {
			opts = append(opts, AsString())
		}
		out, err := SetBytes(JSON, []byte(configs), k, v, opts...)
		if err != nil {
			if strings.Contains(err.Error(), "not an index") || strings.Contains(err.Error(), "under an array") {
				continue // a new key under an array
			}
			t.Fatalf("set %q=%q: %v", k, v, err)
		}
		var before, after any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&after); err != nil {
			t.Fatalf("set %q=%q: not JSON: %v\n%s", k, v, err, out)
		}
		dec = json.NewDecoder(strings.NewReader(configs))
		dec.UseNumber()
		_ = dec.Decode(&before)
		kk, _ := parseKey(k)
		got, ok := get(after, kk.segs)
		if !ok || fmt.Sprint(got) != v && !(got == nil && v == "null") {
			t.Fatalf("set %q=%q: reads back %v\n%s", k, v, got, out)
		}
		if s, isStr := got.(string); str && (!isStr || s != v) {
			t.Fatalf("set %q=%q: reads back %#v, want a string", k, v, got)
		}
		if old, ok := get(before, kk.segs); ok {
			after = with(after, kk.segs, old)
		} else {
			after = without(after, kk.segs)
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("set %q=%q: other values changed:\n%s", k, v, out)
		}
		p := 0
		for p < len(configs) && p < len(out) && configs[p] == out[p] {
			p++
		}
		s := 0
		for s < len(configs)-p && s < len(out)-p && configs[len(configs)-1-s] == out[len(out)-1-s] {
			s++
		}
		if region := configs[p : len(configs)-s]; !isNew && strings.Contains(region, "\n") {
			t.Fatalf("set %q=%q: changed bytes span lines: %q", k, v, region)
		}
	}
}

// TestUnsetYAMLProperty unsets every leaf of the samples: the rest of the
// document is unchanged and the output parses.
func TestUnsetYAMLProperty(t *testing.T) {
	for name, src := range samples {
		for _, k := range sampleKeys(t, src) {
			out, err := UnsetBytes(YAML, []byte(src), k)
			if err != nil {
				if strings.Contains(err.Error(), "flow collection") {
					continue
				}
				t.Fatalf("%s: unset %q: %v", name, k, err)
			}
			before, after := decodeDocs(t, src), decodeDocs(t, string(out))
			kk, _ := parseKey(k)
			before[kk.doc] = without(before[kk.doc], kk.segs)
			if b, a := before[kk.doc], after[kk.doc]; isEmptyMap(a) && b == nil {
				after[kk.doc] = nil
			}
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("%s: unset %q changed more:\n%s", name, k, out)
			}
		}
	}
}

// FuzzEditJSONDocument: a JSON edit never panics; it fails with an *Error
// or leaves valid JSON in which the key reads back.
func FuzzEditJSONDocument(f *testing.F) {
	f.Add(configs, "image.tag", "v2", false)
	f.Add(configs, "ports.1.port", "8443", true)
	f.Add(`{"a":[{"b":{}}]}`, "a.0.b.c", "x", false)
	f.Add(`[1, 2, {"x": null}]`, "2.x", "true", false)
	f.Fuzz(func(t *testing.T, src, k, v string, unset bool) {
		var out []byte
		var err error
		if unset {
			out, err = UnsetBytes(JSON, []byte(src), k)
		} else {
			out, err = SetBytes(JSON, []byte(src), k, v)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if !json.Valid(out) && len(bytes.TrimSpace(out)) > 0 {
			t.Fatalf("not JSON: %q", out)
		}
	})
}
