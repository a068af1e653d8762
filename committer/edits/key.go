package edits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// key is a parsed key: the document it addresses (YAML only) and its
// segments, unescaped.
type key struct {
	text string // as given, for messages
	doc  int    // 0-based document index of a multi-document YAML file
	segs []string
}

// parseKey parses a key in Kargo's (sjson-like) syntax: segments separated
// by ".", a backslash makes the next character literal ("\." is a dot inside
// a segment, "\\" a backslash). A first segment "@N" (N a number) selects
// the N-th document (from 0) of a multi-document YAML file; write "\@" for a
// key that really begins with "@".
func parseKey(s string) (key, error) {
	k := key{text: s}
	if s == "" {
		return k, errors.New("empty key")
	}
	var segs []string
	var b strings.Builder
	escapedFirst := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				return k, errors.New("ends in a lone backslash (write \\\\ for a backslash)")
			}
			if len(segs) == 0 && b.Len() == 0 {
				escapedFirst = true
			}
			i++
			b.WriteByte(s[i])
		case c == '.':
			segs = append(segs, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	segs = append(segs, b.String())
	for i, sg := range segs {
		if sg == "" {
			return k, fmt.Errorf("segment %d is empty (write \\. for a literal dot)", i+1)
		}
	}
	if !escapedFirst && strings.HasPrefix(segs[0], "@") {
		n, err := strconv.Atoi(segs[0][1:])
		if err != nil || n < 0 || segs[0][1:] != strconv.Itoa(n) {
			return k, fmt.Errorf("%q: a document selector is @ and a number from 0 (write \\@ for a key that begins with @)", segs[0])
		}
		if len(segs) == 1 {
			return k, fmt.Errorf("%q selects a document but names no key in it", segs[0])
		}
		k.doc, segs = n, segs[1:]
	}
	k.segs = segs
	return k, nil
}

// index reports whether seg is a sequence index, and which.
func index(seg string) (int, bool) {
	n, err := strconv.Atoi(seg)
	if err != nil || n < 0 || strconv.Itoa(n) != seg {
		return 0, false
	}
	return n, true
}

// upTo renders the first n segments of k, escaped, for messages.
func (k key) upTo(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.NewReplacer(`\`, `\\`, `.`, `\.`).Replace(k.segs[i])
	}
	return strings.Join(parts, ".")
}
