package edits

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// jnode is a JSON value and where its bytes are.
type jnode struct {
	kind       byte // '{', '[', '"', or 'x' for a number, true, false, null
	start, end int
	members    []jmember // '{'
	items      []*jnode  // '['
}

type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

type jparser struct {
	src []byte
	i   int
}

func parseJSON(src []byte) (*jnode, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, nil
	}
	if !json.Valid(src) {
		var x any
		err := json.Unmarshal(src, &x)
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	p := &jparser{src: src}
	p.space()
	if p.i == len(src) {
		return nil, nil
	}
	return p.value()
}

func (p *jparser) space() {
	for p.i < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.i]) >= 0 {
		p.i++
	}
}

// value parses one value; the input is known to be valid JSON.
func (p *jparser) value() (*jnode, error) {
	n := &jnode{start: p.i}
	switch c := p.src[p.i]; c {
	case '{':
		n.kind = '{'
		p.i++
		p.space()
		for p.src[p.i] != '}' {
			ks := p.i
			kn, _ := p.value()
			var k string
			if err := json.Unmarshal(p.src[kn.start:kn.end], &k); err != nil {
				return nil, err
			}
			p.space()
			p.i++ // ':'
			p.space()
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, jmember{key: k, keyStart: ks, val: v})
			p.space()
			if p.src[p.i] == ',' {
				p.i++
				p.space()
			}
		}
		p.i++
	case '[':
		n.kind = '['
		p.i++
		p.space()
		for p.src[p.i] != ']' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
			p.space()
			if p.src[p.i] == ',' {
				p.i++
				p.space()
			}
		}
		p.i++
	case '"':
		n.kind = '"'
		for p.i++; p.src[p.i] != '"'; p.i++ {
			if p.src[p.i] == '\\' {
				p.i++
			}
		}
		p.i++
	default:
		n.kind = 'x'
		for p.i < len(p.src) && strings.IndexByte(",]} \t\r\n", p.src[p.i]) < 0 {
			p.i++
		}
	}
	n.end = p.i
	return n, nil
}

// jsonValue renders v: a literal (number, true, false, null) when it is one
// and str is not set, else a string.
func jsonValue(v string, str bool) string {
	if !str {
		var x any
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&x); err == nil && !dec.More() && strings.TrimSpace(v) == v {
			switch x.(type) {
			case json.Number, bool, nil:
				return v
			}
		}
	}
	return jsonString(v)
}

func jsonString(v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

func jwalk(root *jnode, k key) (path []*jnode, n *jnode, found int, err error) {
	n = root
	for i, seg := range k.segs {
		switch n.kind {
		case '{':
			j := -1
			for m := range n.members {
				if n.members[m].key == seg {
					j = m
				}
			}
			if j < 0 {
				return path, n, i, nil
			}
			path = append(path, n)
			n = n.members[j].val
		case '[':
			x, ok := index(seg)
			if !ok {
				return nil, nil, 0, fmt.Errorf("%s is an array: %q is not an index into it", orRoot(k.upTo(i)), seg)
			}
			if x >= len(n.items) {
				return nil, nil, 0, fmt.Errorf("%s has %d entries: index %d is out of range", orRoot(k.upTo(i)), len(n.items), x)
			}
			path = append(path, n)
			n = n.items[x]
		default:
			if i == 0 {
				return nil, nil, 0, errors.New("the file is a single value, not an object")
			}
			return nil, nil, 0, fmt.Errorf("%s is a scalar: the key runs through it", k.upTo(i))
		}
	}
	return path, n, len(k.segs), nil
}

// jsonStyle is how the file lays out objects: the colon's spacing and the
// indentation step.
type jsonStyle struct {
	colon string
	unit  string
}

func styleOfJSON(src []byte, root *jnode) jsonStyle {
	st := jsonStyle{colon: ": ", unit: "  "}
	var find func(n *jnode) bool
	find = func(n *jnode) bool {
		// The first object (the root, or the first reached through arrays)
		// sets both, by its first member.
		if len(n.members) > 0 {
			m := n.members[0]
			ke := m.keyStart + len(jsonString(m.key))
			if ke <= m.val.start {
				st.colon = string(src[ke:m.val.start])
				if i := strings.IndexByte(st.colon, '\n'); i >= 0 {
					st.colon = ": "
				}
			}
			t := newText(src)
			if pl, ml := t.lineOf(n.start), t.lineOf(m.keyStart); ml > pl {
				if d := t.indent(ml) - t.indent(pl); d > 0 {
					st.unit = string(src[t.starts[ml] : t.starts[ml]+d])
				}
			}
			return true
		}
		for _, it := range n.items {
			if find(it) {
				return true
			}
		}
		return false
	}
	if root != nil {
		find(root)
	}
	return st
}

func setJSON(src []byte, k key, v string, o options) ([]byte, error) {
	root, err := parseJSON(src)
	if err != nil {
		return nil, err
	}
	st := styleOfJSON(src, root)
	if root == nil {
		if o.mustExist {
			return nil, errNotFound
		}
		body, err := jsonNew(k.segs, v, o, st, st.unit)
		if err != nil {
			return nil, err
		}
		return []byte("{\n" + st.unit + body + "\n}\n"), nil
	}
	_, n, found, err := jwalk(root, k)
	if err != nil {
		return nil, err
	}
	if found == len(k.segs) {
		switch n.kind {
		case '{', '[':
			return nil, fmt.Errorf("it is an %s, not a scalar: set a key under it", map[byte]string{'{': "object", '[': "array"}[n.kind])
		case '"':
			return splice(src, n.start, n.end, jsonString(v)), nil
		}
		return splice(src, n.start, n.end, jsonValue(v, o.str)), nil
	}
	if o.mustExist {
		return nil, errNotFound
	}
	if n.kind != '{' {
		return nil, fmt.Errorf("cannot create %q under an array", k.segs[found])
	}
	for _, seg := range k.segs[found:] {
		if _, num := index(seg); num {
			return nil, fmt.Errorf("segment %q is a number: a missing array entry is not created", seg)
		}
	}
	t := newText(src)
	base := string(src[t.starts[t.lineOf(n.start)] : t.starts[t.lineOf(n.start)]+t.indent(t.lineOf(n.start))])
	if len(n.members) == 0 {
		body, err := jsonNew(k.segs[found:], v, o, st, base+st.unit)
		if err != nil {
			return nil, err
		}
		return splice(src, n.start, n.end, "{\n"+base+st.unit+body+"\n"+base+"}"), nil
	}
	first := n.members[0].keyStart
	sep := string(src[n.start+1 : first]) // the layout before each member
	var body string
	if i := strings.LastIndexByte(sep, '\n'); i >= 0 {
		body, err = jsonNew(k.segs[found:], v, o, st, sep[i+1:])
	} else {
		// An object on one line: the new member, and any object under it,
		// on that line too.
		sep, body, err = " ", jsonInline(k.segs[found:], v, o, st), nil
	}
	if err != nil {
		return nil, err
	}
	last := n.members[len(n.members)-1].val.end
	return splice(src, last, last, ","+sep+body), nil
}

// jsonNew renders a new member for the missing segs, nested objects
// indented from indent.
func jsonNew(segs []string, v string, o options, st jsonStyle, indent string) (string, error) {
	if _, num := index(segs[0]); num {
		return "", fmt.Errorf("segment %q is a number: a missing array entry is not created", segs[0])
	}
	if len(segs) == 1 {
		return jsonString(segs[0]) + st.colon + jsonValue(v, o.str), nil
	}
	inner, err := jsonNew(segs[1:], v, o, st, indent+st.unit)
	if err != nil {
		return "", err
	}
	return jsonString(segs[0]) + st.colon + "{\n" + indent + st.unit + inner + "\n" + indent + "}", nil
}

// jsonInline renders a new member on one line.
func jsonInline(segs []string, v string, o options, st jsonStyle) string {
	out := jsonValue(v, o.str)
	for i := len(segs) - 1; i >= 0; i-- {
		out = jsonString(segs[i]) + st.colon + out
		if i > 0 {
			out = "{" + out + "}"
		}
	}
	return out
}

func unsetJSON(src []byte, k key, o options) ([]byte, error) {
	root, err := parseJSON(src)
	if err != nil {
		return nil, err
	}
	if root == nil {
		if o.mustExist {
			return nil, errNotFound
		}
		return src, nil
	}
	path, _, found, err := jwalk(root, k)
	if err != nil {
		return nil, err
	}
	if found < len(k.segs) {
		if o.mustExist {
			return nil, errNotFound
		}
		return src, nil
	}
	parent := path[len(path)-1]
	last := k.segs[len(k.segs)-1]
	// starts[i] is where entry i begins, ends[i] where its value ends.
	var starts, ends []int
	j := -1
	if parent.kind == '{' {
		for m, mem := range parent.members {
			starts, ends = append(starts, mem.keyStart), append(ends, mem.val.end)
			if mem.key == last {
				j = m
			}
		}
	} else {
		j, _ = index(last)
		for _, it := range parent.items {
			starts, ends = append(starts, it.start), append(ends, it.end)
		}
	}
	switch {
	case len(starts) == 1:
		return splice(src, parent.start+1, parent.end-1, ""), nil
	case j > 0:
		return splice(src, ends[j-1], ends[j], ""), nil
	default:
		return splice(src, starts[0], starts[1], ""), nil
	}
}
