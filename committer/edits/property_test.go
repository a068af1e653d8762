package edits

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer"

	"go.yaml.in/yaml/v3"
)

const manifests = `# rendered by helm
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api   # the service
  labels: {app: api, tier: "backend"}
spec:
  replicas: 2

  template:
    spec:
      containers:
      - name: api
        image: ghcr.io/acme/api:1.0
        env:
        - name: MODE
          value: 'prod'
        - {name: DEBUG, value: "false"}
---
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  ports:
    - port: 80
      targetPort: 8080
`

var samples = map[string]string{"values": values, "manifests": manifests, "kustomization": kustomization}

// leaves lists the keys of every scalar in a YAML document tree.
func leaves(n *yaml.Node, prefix string, out *[]string) {
	esc := strings.NewReplacer(`\`, `\\`, `.`, `\.`)
	join := func(s string) string {
		if prefix == "" {
			return s
		}
		return prefix + "." + s
	}
	switch n.Kind {
	case yaml.DocumentNode:
		leaves(n.Content[0], prefix, out)
	case yaml.MappingNode:
		for j := 0; j+1 < len(n.Content); j += 2 {
			leaves(n.Content[j+1], join(esc.Replace(n.Content[j].Value)), out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			leaves(c, join(fmt.Sprint(i)), out)
		}
	case yaml.ScalarNode:
		*out = append(*out, prefix)
	}
}

func sampleKeys(t testing.TB, src string) []string {
	var keys []string
	dec := yaml.NewDecoder(strings.NewReader(src))
	for d := 0; ; d++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			break
		}
		var ks []string
		leaves(&n, "", &ks)
		for _, k := range ks {
			keys = append(keys, fmt.Sprintf("@%d.%s", d, k))
		}
	}
	if len(keys) == 0 {
		t.Fatal("no keys")
	}
	return keys
}

var valuePieces = []string{"1.2.3", "v2", "true", "null", "~", "42", "-7", "0x1f", "1e3", "a b", "x: y", "# not a comment",
	"it's", `say "hi"`, "ünïcode", "line\nbreak", "trailing\n", " lead", "[x]", "{a: b}", "a,b", "*star", "&amp", "!tag",
	"@at", "%pct", "`tick", "-", "?", ":", "|", ">", "", "yes", "1_000", "sha256:0123abcd", "ghcr.io/acme/api:1.0", "\t", "\\"}

func randomValue(r *rand.Rand) string {
	var b strings.Builder
	for n := 1 + r.Intn(2); n > 0; n-- {
		b.WriteString(valuePieces[r.Intn(len(valuePieces))])
	}
	return b.String()
}

// checkSet sets k to v in src and checks the result against the input with
// the YAML parser alone: it parses, k reads back as v, every other value is
// as it was, and the bytes outside one region are the input's.
func checkSet(t *testing.T, src, k, v string, str bool) {
	t.Helper()
	var opts []Option
	if str {
		opts = append(opts, AsString())
	}
	out, err := SetBytes(YAML, []byte(src), k, v, opts...)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("set %q=%q: %v is not an *Error", k, v, err)
		}
		if errors.Is(err, errMultiLinePlain) || strings.Contains(err.Error(), "is not an index into it") {
			return
		}
		t.Fatalf("set %q=%q: %v", k, v, err)
	}
	before, after := decodeDocs(t, src), decodeDocs(t, string(out))
	if len(before) != len(after) {
		t.Fatalf("set %q=%q: %d documents became %d", k, v, len(before), len(after))
	}
	kk, _ := parseKey(k)
	node := findNode(t, string(out), kk)
	if node == nil || node.Kind != yaml.ScalarNode || node.Value != v {
		t.Fatalf("set %q=%q: reads back %v\n%s", k, v, node, out)
	}
	old := findNode(t, src, kk)
	if (str || old != nil && old.ShortTag() == "!!str") && node.ShortTag() != "!!str" {
		t.Fatalf("set %q=%q: reads back as %s, want a string", k, v, node.ShortTag())
	}
	var oldv any
	if old != nil {
		oldv, _ = get(before[kk.doc], kk.segs)
		after[kk.doc] = with(after[kk.doc], kk.segs, oldv)
	}
	if old != nil && !reflect.DeepEqual(before, after) {
		t.Fatalf("set %q=%q: other values changed:\n%s", k, v, out)
	}
	// One region changed: the common prefix and suffix cover the rest.
	p := 0
	for p < len(src) && p < len(out) && src[p] == out[p] {
		p++
	}
	s := 0
	for s < len(src)-p && s < len(out)-p && src[len(src)-1-s] == out[len(out)-1-s] {
		s++
	}
	region := src[p : len(src)-s]
	if old != nil && old.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 && strings.Contains(region, "\n") {
		t.Fatalf("set %q=%q: the change spans lines of the input: %q\n%s", k, v, region, out)
	}
	if old != nil && strings.Contains(region, "#") && !strings.Contains(old.Value, "#") {
		t.Fatalf("set %q=%q: a comment changed: %q", k, v, region)
	}
	if old == nil && region != "" {
		t.Fatalf("set %q=%q (new): input bytes changed: %q", k, v, region)
	}
}

func decodeDocs(t *testing.T, src string) []any {
	docs, err := decodeAll(YAML, []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return docs
}

func findNode(_ *testing.T, src string, k key) *yaml.Node {
	dec := yaml.NewDecoder(strings.NewReader(src))
	for d := 0; ; d++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			return nil
		}
		if d != k.doc {
			continue
		}
		cur := n.Content[0]
		for _, seg := range k.segs {
			switch cur.Kind {
			case yaml.MappingNode:
				j := mapIndex(cur, seg)
				if j < 0 {
					return nil
				}
				cur = cur.Content[j+1]
			case yaml.SequenceNode:
				i, _ := index(seg)
				if i >= len(cur.Content) {
					return nil
				}
				cur = cur.Content[i]
			default:
				return nil
			}
		}
		return cur
	}
}

func TestSetYAMLProperty(t *testing.T) {
	r := rand.New(rand.NewSource(26))
	for name, src := range samples {
		keys := sampleKeys(t, src)
		t.Run(name, func(t *testing.T) {
			for i := 0; i < 400; i++ {
				k := keys[r.Intn(len(keys))]
				if r.Intn(4) == 0 { // a new key beside or under an existing one
					k = strings.TrimSuffix(k, "."+lastSeg(k)) + ".new" + fmt.Sprint(r.Intn(3))
				}
				checkSet(t, src, k, randomValue(r), r.Intn(3) == 0)
			}
		})
	}
}

func lastSeg(k string) string { return k[strings.LastIndex(k, ".")+1:] }

func FuzzSetYAML(f *testing.F) {
	f.Add(0, "v2", false)
	f.Add(3, "a: b # c", true)
	f.Add(7, "x\ny", false)
	keys := sampleKeys(f, values)
	f.Fuzz(func(t *testing.T, i int, v string, str bool) {
		if i < 0 {
			i = -i
		}
		if !utf8.ValidString(v) {
			if _, err := SetBytes(YAML, []byte(values), keys[i%len(keys)], v); !errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("invalid UTF-8: err = %v", err)
			}
			return
		}
		checkSet(t, values, keys[i%len(keys)], v, str)
	})
}

// FuzzEditYAMLDocument edits arbitrary documents: an edit never panics, and
// either fails with an *Error or returns a document in which the key reads
// back and nothing else changed.
func FuzzEditYAMLDocument(f *testing.F) {
	for _, src := range samples {
		f.Add(src, "@0.image.tag", "v2", false)
		f.Add(src, "@0.spec.replicas", "3", true)
		f.Add(src, "@0.images.0.newTag", "x: y", false)
	}
	f.Add("a:\n- b\n- c: |\n    d\n", "@0.a.1.c", "e\nf\n", false)
	f.Add("? complex\n: value\nk: {a: [1, 2]}\n", "@0.k.a.1", "9", false)
	f.Fuzz(func(t *testing.T, src, k, v string, unset bool) {
		if len(src) > 4096 {
			return
		}
		var out []byte
		var err error
		if unset {
			out, err = UnsetBytes(YAML, []byte(src), k)
		} else {
			out, err = SetBytes(YAML, []byte(src), k, v)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		kk, _ := parseKey(k)
		before, err1 := decodeAll(YAML, []byte(src))
		after, err2 := decodeAll(YAML, out)
		if err1 != nil || err2 != nil {
			t.Fatalf("decode: %v / %v\n%q\n%q", err1, err2, src, out)
		}
		if unset {
			if len(before) == 0 {
				return
			}
			before[kk.doc] = without(before[kk.doc], kk.segs)
			if isEmptyMap(after[kk.doc]) && before[kk.doc] == nil {
				after[kk.doc] = nil
			}
		} else {
			n := findNode(t, string(out), kk)
			if n == nil || n.Value != v {
				t.Fatalf("set %q=%q does not read back:\n%q\n%q", k, v, src, out)
			}
			if len(before) == 0 {
				return
			}
			if old, ok := get(before[kk.doc], kk.segs); ok {
				after[kk.doc] = with(after[kk.doc], kk.segs, old)
			} else {
				return // created: verify() compares what it can
			}
		}
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("%q on %q changed more:\n%q", k, src, out)
		}
	})
}
