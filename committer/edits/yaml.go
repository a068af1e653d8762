package edits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlDoc is a parsed YAML file.
type yamlDoc struct {
	t    *text
	docs []*yaml.Node // document nodes
}

func parseYAML(src []byte) (*yamlDoc, error) {
	d := &yamlDoc{t: newText(src)}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not valid YAML: %w", err)
		}
		d.docs = append(d.docs, &n)
	}
	return d, nil
}

// step is one level of the walk from a document's root to a key.
type step struct {
	coll *yaml.Node // the mapping or sequence
	i    int        // index of the key node (mapping) or item (sequence) in coll.Content
}

// walk follows k from document root as far as it exists. It returns the
// steps taken and the node reached; found is the number of segments that
// exist (len(k.segs) when the whole key does).
func walk(root *yaml.Node, k key) (steps []step, n *yaml.Node, found int, err error) {
	aliased := map[*yaml.Node]bool{}
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			aliased[n.Alias] = true
		}
		for _, c := range n.Content {
			mark(c)
		}
	}
	mark(root)
	shared := func(n *yaml.Node, at string) error {
		if aliased[n] {
			return fmt.Errorf("%s is anchored (&%s) and used elsewhere (*%s): editing it would change those too", orRoot(at), n.Anchor, n.Anchor)
		}
		return nil
	}
	n = root
	for i, seg := range k.segs {
		if err := shared(n, k.upTo(i)); err != nil {
			return nil, nil, 0, err
		}
		switch n.Kind {
		case yaml.AliasNode:
			return nil, nil, 0, fmt.Errorf("%s is an alias (*%s); edit the anchored node instead", k.upTo(i), n.Value)
		case yaml.MappingNode:
			j := mapIndex(n, seg)
			if j < 0 {
				return steps, n, i, nil
			}
			steps = append(steps, step{n, j})
			n = n.Content[j+1]
		case yaml.SequenceNode:
			x, ok := index(seg)
			if !ok {
				return nil, nil, 0, fmt.Errorf("%s is a sequence: %q is not an index into it", orRoot(k.upTo(i)), seg)
			}
			if x >= len(n.Content) {
				return nil, nil, 0, fmt.Errorf("%s has %d entries: index %d is out of range", orRoot(k.upTo(i)), len(n.Content), x)
			}
			steps = append(steps, step{n, x})
			n = n.Content[x]
		default:
			if i == 0 {
				return nil, nil, 0, fmt.Errorf("the document is a scalar, not a mapping")
			}
			return nil, nil, 0, fmt.Errorf("%s is a scalar: the key runs through it", k.upTo(i))
		}
	}
	if n.Kind == yaml.AliasNode {
		return nil, nil, 0, fmt.Errorf("it is an alias (*%s); edit the anchored node instead", n.Value)
	}
	if err := shared(n, k.upTo(len(k.segs))); err != nil {
		return nil, nil, 0, err
	}
	return steps, n, len(k.segs), nil
}

func orRoot(s string) string {
	if s == "" {
		return "the document"
	}
	return s
}

func mapIndex(m *yaml.Node, seg string) int {
	for j := 0; j+1 < len(m.Content); j += 2 {
		if kn := m.Content[j]; kn.Kind == yaml.ScalarNode && kn.Value == seg {
			return j
		}
	}
	return -1
}

// setYAML sets k to v in src.
func setYAML(src []byte, k key, v string, o options) ([]byte, error) {
	d, err := parseYAML(src)
	if err != nil {
		return nil, err
	}
	root, err := d.root(k)
	if err != nil {
		return nil, err
	}
	if root == nil { // an empty file: write the key from the top
		if o.mustExist {
			return nil, errNotFound
		}
		block, err := d.newBlock(k.segs, v, o, 0)
		if err != nil {
			return nil, err
		}
		out := append(bytes.Clone(src), "\n"...)
		if len(bytes.TrimSpace(src)) == 0 {
			out = nil
		} else if src[len(src)-1] == '\n' {
			out = out[:len(out)-1]
		}
		return append(out, block...), nil
	}
	steps, n, found, err := walk(root, k)
	if err != nil {
		return nil, err
	}
	if found == len(k.segs) {
		return d.replace(steps, n, v, o)
	}
	if o.mustExist {
		return nil, errNotFound
	}
	return d.insert(n, k.segs[found:], v, o)
}

var errNotFound = errors.New("not found (and must exist)")

// root returns the root node of the document k addresses; nil for an
// empty file.
func (d *yamlDoc) root(k key) (*yaml.Node, error) {
	if len(d.docs) == 0 || (len(d.docs) == 1 && isEmptyDoc(d.docs[0])) {
		if k.doc > 0 {
			return nil, fmt.Errorf("the file has no document @%d (it is empty)", k.doc)
		}
		return nil, nil
	}
	if k.doc >= len(d.docs) {
		return nil, fmt.Errorf("the file has %d documents: @%d is not one (the first is @0)", len(d.docs), k.doc)
	}
	doc := d.docs[k.doc]
	if isEmptyDoc(doc) {
		return nil, fmt.Errorf("document @%d is empty", k.doc)
	}
	return doc.Content[0], nil
}

func isEmptyDoc(doc *yaml.Node) bool {
	if len(doc.Content) == 0 {
		return true
	}
	r := doc.Content[0]
	return r.Kind == yaml.ScalarNode && r.ShortTag() == "!!null" && r.Value == "" && r.Style == 0
}

// replace changes the scalar n (reached by steps) to v, changing only its
// bytes.
func (d *yamlDoc) replace(steps []step, n *yaml.Node, v string, o options) ([]byte, error) {
	if n.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("it is a %s, not a scalar: set a key under it", kindName(n))
	}
	last := steps[len(steps)-1]
	flow := last.coll.Style&yaml.FlowStyle != 0
	parent := last.coll.Column - 1
	if last.coll.Kind == yaml.MappingNode {
		parent = last.coll.Content[last.i].Column - 1
	}
	if n.ShortTag() == "!!null" && n.Value == "" && n.Style == 0 && last.coll.Kind == yaml.MappingNode {
		// "key:" with no value: write one after the colon.
		at, err := d.afterColon(last.coll.Content[last.i])
		if err != nil {
			return nil, err
		}
		return splice(d.t.src, at, at, " "+renderScalar(v, stylePlain, o.str, flow)), nil
	}
	start, end, err := d.t.scalarExtent(n, parent)
	if err != nil {
		return nil, err
	}
	str := o.str || n.ShortTag() == "!!str"
	style := styleOf(n)
	var repl string
	if style == styleLiteral {
		rest := string(d.t.src[start:d.t.lineEnd(d.t.lineOf(start))])
		if i := strings.IndexAny(rest, " #"); i >= 0 {
			rest = rest[i:]
		} else {
			rest = ""
		}
		indent := parent + d.unit()
		if l := d.t.lineOf(start) + 1; l < d.t.lines() && !d.t.blank(l) && d.t.indent(l) > parent {
			indent = d.t.indent(l)
		}
		var ok bool
		if repl, ok = renderBlock(v, indent, rest); !ok {
			repl = doubleQuoted(v)
		}
	} else {
		repl = renderScalar(v, style, str, flow)
	}
	return splice(d.t.src, start, end, repl), nil
}

// afterColon returns the offset just past the ":" that follows key node kn.
func (d *yamlDoc) afterColon(kn *yaml.Node) (int, error) {
	_, e, err := d.t.scalarExtent(kn, 0)
	if err != nil {
		return 0, err
	}
	for e < len(d.t.src) && d.t.src[e] == ' ' {
		e++
	}
	if e >= len(d.t.src) || d.t.src[e] != ':' {
		return 0, errors.New("cannot find the colon after its key")
	}
	return e + 1, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.AliasNode:
		return "alias"
	}
	return "scalar"
}

// unit is the file's indentation step: the first nested block mapping's
// indentation under its parent key; 2 when there is none.
func (d *yamlDoc) unit() int {
	var find func(n *yaml.Node) int
	find = func(n *yaml.Node) int {
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for j := 0; j+1 < len(n.Content); j += 2 {
				kn, vn := n.Content[j], n.Content[j+1]
				if vn.Kind == yaml.MappingNode && vn.Style&yaml.FlowStyle == 0 && len(vn.Content) > 0 && vn.Content[0].Column > kn.Column {
					return vn.Content[0].Column - kn.Column
				}
			}
		}
		for _, c := range n.Content {
			if u := find(c); u > 0 {
				return u
			}
		}
		return 0
	}
	for _, doc := range d.docs {
		if u := find(doc); u > 0 {
			return u
		}
	}
	return 2
}

// newBlock renders segs (all missing) and v as block mapping lines at
// indentation indent, each line ending in "\n".
func (d *yamlDoc) newBlock(segs []string, v string, o options, indent int) (string, error) {
	var b strings.Builder
	unit := d.unit()
	for i, seg := range segs {
		if _, num := index(seg); num {
			return "", fmt.Errorf("segment %q is a number: a missing sequence entry is not created", seg)
		}
		b.WriteString(strings.Repeat(" ", indent+i*unit))
		b.WriteString(renderScalar(seg, stylePlain, true, false))
		b.WriteByte(':')
		if i == len(segs)-1 {
			b.WriteString(" " + renderScalar(v, stylePlain, o.str, false))
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// newFlow renders segs (all missing) and v as a flow mapping's entry.
func newFlow(segs []string, v string, o options) (string, error) {
	s := renderScalar(v, stylePlain, o.str, true)
	for i := len(segs) - 1; i >= 0; i-- {
		if _, num := index(segs[i]); num {
			return "", fmt.Errorf("segment %q is a number: a missing sequence entry is not created", segs[i])
		}
		s = renderScalar(segs[i], stylePlain, true, true) + ": " + s
		if i > 0 {
			s = "{" + s + "}"
		}
	}
	return s, nil
}

// insert adds the missing segs under mapping m.
func (d *yamlDoc) insert(m *yaml.Node, segs []string, v string, o options) ([]byte, error) {
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("cannot create %q under a %s", segs[0], kindName(m))
	}
	src := d.t.src
	if m.Style&yaml.FlowStyle != 0 {
		entry, err := newFlow(segs, v, o)
		if err != nil {
			return nil, err
		}
		open := d.t.offset(m.Line, m.Column)
		end, err := flowEnd(src, open)
		if err != nil {
			return nil, err
		}
		if len(m.Content) > 0 {
			entry = ", " + entry
			at := end - 1
			for at > open && (src[at-1] == ' ' || src[at-1] == '\n') {
				at--
			}
			return splice(src, at, at, entry), nil
		}
		return splice(src, open, end, "{"+entry+"}"), nil
	}
	if len(m.Content) == 0 {
		return nil, errors.New("cannot find where the mapping is")
	}
	indent := m.Content[0].Column - 1
	block, err := d.newBlock(segs, v, o, indent)
	if err != nil {
		return nil, err
	}
	at := d.pairEnd(m, len(m.Content)-2)
	if at > 0 && src[at-1] != '\n' {
		block = "\n" + block
	}
	return splice(src, at, at, block), nil
}

// pairEnd returns the offset just past the last line of the mapping entry
// whose key is m.Content[j]: its key's line and every following line that
// is more indented (or an indentless sequence under it), but not the blank
// and comment lines after its last content line.
func (d *yamlDoc) pairEnd(m *yaml.Node, j int) int {
	kn := m.Content[j]
	n := kn.Column - 1
	t := d.t
	first := t.lineOf(t.offset(kn.Line, kn.Column))
	last := first
	if vn := m.Content[j+1]; vn.Kind == yaml.ScalarNode && vn.Line > 0 {
		// A quoted or plain value over several lines: they are its own.
		if s, e, err := t.scalarExtent(vn, n); err == nil && s >= t.starts[first] {
			last = max(last, t.lineOf(max(e-1, s)))
		}
	}
	for l := last + 1; l < t.lines(); l++ {
		if t.blank(l) || t.comment(l) {
			continue
		}
		ind := t.indent(l)
		line := t.line(l)
		if ind > n || (ind == n && line[ind] == '-' && (len(line) == ind+1 || line[ind+1] == ' ')) {
			if bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) {
				break
			}
			last = l
			continue
		}
		break
	}
	return t.next(last)
}

// flowEnd returns the offset just past the flow collection opening at open.
func flowEnd(src []byte, open int) (int, error) {
	depth := 0
	for i := open; i < len(src); i++ {
		switch src[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(src); i++ {
				if src[i] == '\'' {
					if i+1 < len(src) && src[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
		case '#':
			if i > 0 && (src[i-1] == ' ' || src[i-1] == '\n') {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			}
		}
	}
	return 0, errors.New("cannot find the end of a flow collection")
}

// unsetYAML deletes k from src.
func unsetYAML(src []byte, k key, o options) ([]byte, error) {
	d, err := parseYAML(src)
	if err != nil {
		return nil, err
	}
	root, err := d.root(k)
	if err != nil {
		return nil, err
	}
	if root == nil {
		if o.mustExist {
			return nil, errNotFound
		}
		return src, nil
	}
	steps, _, found, err := walk(root, k)
	if err != nil {
		return nil, err
	}
	if found < len(k.segs) {
		if o.mustExist {
			return nil, errNotFound
		}
		return src, nil
	}
	last := steps[len(steps)-1]
	if last.coll.Style&yaml.FlowStyle != 0 {
		return nil, fmt.Errorf("it is in a flow collection ({...} or [...]), which --unset does not edit")
	}
	if last.coll.Kind == yaml.MappingNode {
		return d.deletePair(last.coll, last.i), nil
	}
	return d.deleteItem(last.coll, last.i)
}

// deletePair removes the entry of block mapping m whose key is Content[j].
func (d *yamlDoc) deletePair(m *yaml.Node, j int) []byte {
	t := d.t
	kn := m.Content[j]
	ko := t.offset(kn.Line, kn.Column)
	n := kn.Column - 1
	end := d.pairEnd(m, j)
	start := ko
	if t.onlySpaceBefore(ko) {
		start = t.starts[t.lineOf(ko)]
	}
	if len(m.Content) == 2 { // the only entry: the mapping stays, empty
		repl := "{}\n"
		if start == t.starts[t.lineOf(ko)] {
			repl = strings.Repeat(" ", n) + repl
		}
		if end == len(t.src) && (end == 0 || t.src[end-1] != '\n') {
			repl = strings.TrimSuffix(repl, "\n")
		}
		return splice(t.src, start, end, repl)
	}
	if start == ko && end < len(t.src) { // "- key: v": the next key moves up
		l := t.lineOf(end)
		if !t.blank(l) && !t.comment(l) && t.indent(l) == n {
			end += n
		}
	}
	return splice(t.src, start, end, "")
}

// deleteItem removes entry x of block sequence s.
func (d *yamlDoc) deleteItem(s *yaml.Node, x int) ([]byte, error) {
	t := d.t
	item := s.Content[x]
	dash := t.offset(item.Line, item.Column) - 1
	for dash >= 0 && t.src[dash] == ' ' {
		dash--
	}
	if dash < 0 || t.src[dash] != '-' {
		return nil, errors.New("cannot find its sequence entry's dash")
	}
	n := dash - t.starts[t.lineOf(dash)]
	first := t.lineOf(dash)
	last := first
	for l := first + 1; l < t.lines(); l++ {
		if t.blank(l) || t.comment(l) {
			continue
		}
		if t.indent(l) > n {
			last = l
			continue
		}
		break
	}
	start, end := dash, t.next(last)
	if t.onlySpaceBefore(dash) {
		start = t.starts[first]
	}
	if len(s.Content) == 1 {
		repl := strings.Repeat(" ", n+2) + "[]\n"
		if start == dash {
			repl = "[]\n"
		}
		return splice(t.src, start, end, repl), nil
	}
	return splice(t.src, start, end, ""), nil
}
