package edits

import (
	"bytes"
	"unicode/utf8"
)

// text is a file's bytes with an index of its lines, to turn the line and
// column of a parsed node into a byte offset and to look at whole lines.
type text struct {
	src    []byte
	starts []int // byte offset of each line's first byte
}

func newText(src []byte) *text {
	t := &text{src: src, starts: []int{0}}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			t.starts = append(t.starts, i+1)
		}
	}
	return t
}

func (t *text) lines() int { return len(t.starts) }

// offset returns the byte offset of 1-based line and 1-based column, the
// column counted in characters as the YAML parser counts them.
func (t *text) offset(line, col int) int {
	if line < 1 || line > len(t.starts) {
		return len(t.src)
	}
	o := t.starts[line-1]
	for c := 1; c < col && o < len(t.src) && t.src[o] != '\n'; c++ {
		_, w := utf8.DecodeRune(t.src[o:])
		o += w
	}
	return o
}

// lineOf returns the 0-based line holding offset o.
func (t *text) lineOf(o int) int {
	lo, hi := 0, len(t.starts)-1
	for lo < hi {
		m := (lo + hi + 1) / 2
		if t.starts[m] <= o {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// line returns 0-based line l without its line break.
func (t *text) line(l int) []byte {
	s := t.starts[l]
	e := t.lineEnd(l)
	return bytes.TrimRight(t.src[s:e], "\r")
}

// lineEnd returns the offset of line l's "\n" (or the end of the file).
func (t *text) lineEnd(l int) int {
	if i := bytes.IndexByte(t.src[t.starts[l]:], '\n'); i >= 0 {
		return t.starts[l] + i
	}
	return len(t.src)
}

// next returns the offset just past line l's "\n" (the end of the file for
// the last line).
func (t *text) next(l int) int {
	e := t.lineEnd(l)
	if e < len(t.src) {
		return e + 1
	}
	return e
}

// indent counts line l's leading spaces.
func (t *text) indent(l int) int {
	b := t.line(l)
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

// blank reports whether line l holds only white space.
func (t *text) blank(l int) bool {
	return len(bytes.TrimSpace(t.line(l))) == 0
}

// comment reports whether line l holds only a comment.
func (t *text) comment(l int) bool {
	b := bytes.TrimSpace(t.line(l))
	return len(b) > 0 && b[0] == '#'
}

// onlySpaceBefore reports whether only spaces precede offset o on its line.
func (t *text) onlySpaceBefore(o int) bool {
	for i := t.starts[t.lineOf(o)]; i < o; i++ {
		if t.src[i] != ' ' {
			return false
		}
	}
	return true
}

// splice returns src with [start, end) replaced by repl.
func splice(src []byte, start, end int, repl string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(repl))
	out = append(out, src[:start]...)
	out = append(out, repl...)
	return append(out, src[end:]...)
}
