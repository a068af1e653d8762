package edits

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// scalarStart returns the offset of a scalar's first byte, past any tag or
// anchor written before it (they are kept).
func (t *text) scalarStart(n *yaml.Node) int {
	o := t.offset(n.Line, n.Column)
	for o < len(t.src) && (t.src[o] == '!' || t.src[o] == '&') {
		for o < len(t.src) && t.src[o] != ' ' && t.src[o] != '\n' {
			o++
		}
		for o < len(t.src) && t.src[o] == ' ' {
			o++
		}
	}
	return o
}

var errMultiLinePlain = errors.New("its value is a plain scalar over several lines, which cannot be edited in place; quote it")

// scalarExtent returns where a scalar's bytes are: [start, end). parent is
// the indentation of the collection holding it (for block scalars).
func (t *text) scalarExtent(n *yaml.Node, parent int) (int, int, error) {
	s := t.scalarStart(n)
	src := t.src
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := s + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return s, i + 1, nil
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := s + 1; i < len(src); i++ {
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return s, i + 1, nil
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		l := t.lineOf(s)
		end := t.lineEnd(l)
		for m := l + 1; m < t.lines(); m++ {
			if t.blank(m) {
				continue
			}
			if t.indent(m) <= parent {
				break
			}
			end = t.lineEnd(m)
		}
		return s, end, nil
	default:
		if strings.HasPrefix(string(src[s:]), n.Value) {
			e := s + len(n.Value)
			if e == len(src) || strings.ContainsRune(" \t\r\n,]}#:", rune(src[e])) {
				return s, e, nil
			}
		}
		return 0, 0, errMultiLinePlain
	}
	return 0, 0, errors.New("cannot find the end of its quoted value")
}

// scalarStyle is how a new or replaced scalar is written.
type scalarStyle int

const (
	stylePlain scalarStyle = iota
	styleSingle
	styleDouble
	styleLiteral
)

func styleOf(n *yaml.Node) scalarStyle {
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		return styleDouble
	case n.Style&yaml.SingleQuotedStyle != 0:
		return styleSingle
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return styleLiteral
	}
	return stylePlain
}

// resolvePlain returns the tag v resolves to written as a plain scalar, or
// ok false when v cannot be written plain (in a flow collection when flow).
func resolvePlain(v string, flow bool) (tag string, ok bool) {
	if v == "" || strings.TrimSpace(v) != v || strings.ContainsAny(v, "\n\r\t\x00") ||
		strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return "", false
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(v[0])) && !(len(v) > 1 && strings.ContainsRune("-?:", rune(v[0])) && v[1] != ' ') {
		return "", false
	}
	if flow && strings.ContainsAny(v, ",[]{}") {
		return "", false
	}
	for _, r := range v {
		if !unicode.IsPrint(r) {
			return "", false
		}
	}
	doc := "k: " + v
	if flow {
		doc = "{k: " + v + "}"
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil || len(n.Content) != 1 ||
		n.Content[0].Kind != yaml.MappingNode || len(n.Content[0].Content) != 2 {
		return "", false
	}
	got := n.Content[0].Content[1]
	if got.Kind != yaml.ScalarNode || got.Value != v {
		return "", false
	}
	return got.ShortTag(), true
}

func singleQuoted(v string) (string, bool) {
	for _, r := range v {
		if r == '\n' || r == '\r' || !unicode.IsPrint(r) {
			return "", false
		}
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'", true
}

// doubleQuoted writes v as a YAML double-quoted scalar: Go's escapes are all
// YAML escapes.
func doubleQuoted(v string) string { return strconv.Quote(v) }

// renderScalar writes v in style, falling back to a double-quoted string
// where the style cannot hold v or would not read back as a string when
// str is set. It reports whether the result is a string.
func renderScalar(v string, style scalarStyle, str, flow bool) string {
	switch style {
	case stylePlain:
		// A string is written plain only when YAML 1.1 readers read it
		// back as that string too.
		if tag, ok := resolvePlain(v, flow); ok && (tag == "!!str" && !yaml11NotString(v) || tag != "!!str" && !str) {
			return v
		}
	case styleSingle:
		if s, ok := singleQuoted(v); ok {
			return s
		}
	}
	return doubleQuoted(v)
}

// renderBlock writes v as a literal block scalar whose lines are indented
// by indent, keeping the rest of the original header line (a comment).
// ok is false when v cannot be a literal block (it starts with a space).
func renderBlock(v string, indent int, headerRest string) (string, bool) {
	if strings.TrimRight(v, "\n") == "" || v[0] == ' ' || v[0] == '\n' {
		return "", false
	}
	for _, r := range v {
		if r != '\n' && !unicode.IsPrint(r) {
			return "", false
		}
	}
	body := strings.TrimRight(v, "\n")
	chomp := "|+"
	switch len(v) - len(body) {
	case 0:
		chomp = "|-"
	case 1:
		chomp = "|"
	}
	var b strings.Builder
	b.WriteString(chomp + headerRest)
	pad := strings.Repeat(" ", indent)
	lines := strings.Split(body, "\n")
	if chomp == "|+" {
		lines = append(lines, make([]string, len(v)-len(body)-1)...)
	}
	for _, l := range lines {
		b.WriteByte('\n')
		if l != "" {
			b.WriteString(pad + l)
		}
	}
	return b.String(), true
}
