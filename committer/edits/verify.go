package edits

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// verify checks an edit's output against its input as data: the output
// parses, the key holds the value (set) or is gone (unset), and nothing
// else changed. It guards the byte splicing: an edit that would change
// anything else fails instead of being written.
func verify(f Format, src, out []byte, k key, v *string, o options) error {
	before, err := decodeAll(f, src)
	if err != nil {
		return err
	}
	after, err := decodeAll(f, out)
	if err != nil {
		return fmt.Errorf("internal error: the edited file does not parse (%w); nothing was written", err)
	}
	if len(before) == 0 {
		before = []any{nil}
	}
	bad := errors.New("internal error: the edit would change more than the key; nothing was written")
	if len(before) != len(after) || k.doc >= len(after) {
		return bad
	}
	b, a := before[k.doc], after[k.doc]
	if v != nil {
		if err := readsBack(f, out, k, *v, o); err != nil {
			return err
		}
		if old, ok := get(b, k.segs); ok {
			a = with(a, k.segs, old)
		} else {
			f := 0
			for ; f < len(k.segs); f++ {
				if _, ok := get(b, k.segs[:f+1]); !ok {
					break
				}
			}
			a = without(a, k.segs[:f+1])
		}
	} else {
		parentSeq := false // unsetting an entry moves the next one up
		if p, ok := get(a, k.segs[:len(k.segs)-1]); ok {
			_, parentSeq = p.([]any)
		}
		if _, ok := get(a, k.segs); ok && !parentSeq {
			return bad
		}
		b = without(b, k.segs)
	}
	if b == nil && isEmptyMap(a) {
		a = nil
	}
	if !reflect.DeepEqual(b, a) {
		return bad
	}
	for i := range before {
		if i != k.doc && !reflect.DeepEqual(before[i], after[i]) {
			return bad
		}
	}
	return nil
}

func isEmptyMap(x any) bool {
	m, ok := x.(map[string]any)
	return ok && len(m) == 0
}

// readsBack checks that the key holds v in out (a string when it must be).
func readsBack(f Format, out []byte, k key, v string, o options) error {
	wrong := fmt.Errorf("internal error: the key would not read back as %q; nothing was written", v)
	if f == JSON {
		var x any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&x); err != nil {
			return wrong
		}
		got, ok := get(x, k.segs)
		if !ok {
			return wrong
		}
		switch g := got.(type) {
		case string:
			if g == v {
				return nil
			}
		case json.Number:
			if !o.str && string(g) == v {
				return nil
			}
		case bool, nil:
			if !o.str && jsonLiteral(g) == v {
				return nil
			}
		}
		return wrong
	}
	d, err := parseYAML(out)
	if err != nil {
		return wrong
	}
	root, err := d.root(k)
	if err != nil || root == nil {
		return wrong
	}
	_, n, found, err := walk(root, k)
	if err != nil || found != len(k.segs) || n.Kind != yaml.ScalarNode || n.Value != v {
		return wrong
	}
	if o.str && n.ShortTag() != "!!str" {
		return wrong
	}
	return nil
}

func jsonLiteral(x any) string {
	if x == nil {
		return "null"
	}
	return fmt.Sprint(x)
}

func decodeAll(f Format, src []byte) ([]any, error) {
	if f == JSON {
		if len(bytes.TrimSpace(src)) == 0 {
			return nil, nil
		}
		var x any
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.UseNumber()
		if err := dec.Decode(&x); err != nil {
			return nil, fmt.Errorf("not valid JSON: %w", err)
		}
		if dec.More() {
			return nil, errors.New("not valid JSON: more than one value")
		}
		return []any{x}, nil
	}
	var docs []any
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var x any
		err := dec.Decode(&x)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("not valid YAML: %w", err)
		}
		docs = append(docs, x)
	}
}

// get returns the value at segs in a decoded tree.
func get(x any, segs []string) (any, bool) {
	for _, s := range segs {
		switch c := x.(type) {
		case map[string]any:
			v, ok := c[s]
			if !ok {
				return nil, false
			}
			x = v
		case []any:
			i, ok := index(s)
			if !ok || i >= len(c) {
				return nil, false
			}
			x = c[i]
		default:
			return nil, false
		}
	}
	return x, true
}

// with returns x with the value at segs (which exists) replaced by v.
func with(x any, segs []string, v any) any {
	if len(segs) == 0 {
		return v
	}
	switch c := x.(type) {
	case map[string]any:
		c[segs[0]] = with(c[segs[0]], segs[1:], v)
	case []any:
		if i, ok := index(segs[0]); ok && i < len(c) {
			c[i] = with(c[i], segs[1:], v)
		}
	}
	return x
}

// without returns x with the value at segs removed.
func without(x any, segs []string) any {
	if len(segs) == 0 {
		return nil
	}
	switch c := x.(type) {
	case map[string]any:
		if len(segs) == 1 {
			delete(c, segs[0])
		} else if v, ok := c[segs[0]]; ok {
			c[segs[0]] = without(v, segs[1:])
		}
	case []any:
		if i, ok := index(segs[0]); ok && i < len(c) {
			if len(segs) == 1 {
				return append(c[:i:i], c[i+1:]...)
			}
			c[i] = without(c[i], segs[1:])
		}
	}
	return x
}
