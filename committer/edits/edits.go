package edits

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer"
)

// Format is a file's syntax.
type Format int

const (
	// YAML files: a multi-document file's first document unless the key
	// begins with "@N.".
	YAML Format = iota
	// JSON files.
	JSON
)

func (f Format) String() string {
	if f == JSON {
		return "JSON"
	}
	return "YAML"
}

// FormatOf picks the format by file extension: ".json" (any case) is JSON,
// anything else YAML.
func FormatOf(p string) Format {
	if strings.EqualFold(path.Ext(p), ".json") {
		return JSON
	}
	return YAML
}

// Option changes how an edit applies.
type Option func(*options)

type options struct {
	mustExist bool
	str       bool
}

// MustExist makes the edit fail unless the key is already there (for Set)
// or still there (for Unset). The default creates a missing key, and
// ignores a missing key to unset.
func MustExist() Option { return func(o *options) { o.mustExist = true } }

// AsString writes the value as a string whatever it looks like ("1.20",
// "true", "null" stay strings). The default keeps an existing string a
// string and otherwise infers the type from the literal, as YAML does
// (JSON: a number, true, false, null, or else a string).
func AsString() Option { return func(o *options) { o.str = true } }

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Error is an edit that cannot apply to the file's content: the content is
// not valid YAML or JSON, the key runs through a scalar, a key that must
// exist is missing. It matches committer.ErrInvalid with errors.Is, so a
// commit it aborts is reported as invalid input; nothing is written.
type Error struct {
	Op  string // "set", "unset", "set image"
	Key string // the key, as given
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %q: %v", e.Op, e.Key, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes an *Error match committer.ErrInvalid.
func (e *Error) Is(target error) bool { return target == committer.ErrInvalid }

// ErrNotFound is the cause of an *Error from a key that must exist but is
// missing.
var ErrNotFound = errNotFound

// Set returns an edit function that sets key to value in a file of format f,
// changing only the bytes of the value (or, for a new key, adding its
// lines). It runs on the file's current content at every attempt. An absent
// file is created holding the key, unless MustExist is given.
func Set(f Format, key, value string, opts ...Option) committer.EditFunc {
	o := collect(opts)
	return func(old []byte, exists bool) ([]byte, error) {
		if !exists && o.mustExist {
			return nil, &Error{Op: "set", Key: key, Err: errors.New("the file does not exist (and the key must)")}
		}
		return SetBytes(f, old, key, value, opts...)
	}
}

// Unset returns an edit function that deletes key, with its lines, from a
// file of format f. A missing key is left alone unless MustExist is given;
// a missing file is an error.
func Unset(f Format, key string, opts ...Option) committer.EditFunc {
	return func(old []byte, exists bool) ([]byte, error) {
		if !exists {
			return nil, &Error{Op: "unset", Key: key, Err: errors.New("the file does not exist")}
		}
		return UnsetBytes(f, old, key, opts...)
	}
}

// SetBytes sets key to value in src: what Set's edit function does. A
// UTF-8 byte-order mark at the start of src is kept.
func SetBytes(f Format, src []byte, key, value string, opts ...Option) ([]byte, error) {
	return keepBOM(src, func(src []byte) ([]byte, error) { return setBytes(f, src, key, value, opts) })
}

func setBytes(f Format, src []byte, key, value string, opts []Option) ([]byte, error) {
	o := collect(opts)
	k, err := parseKey(key)
	if err == nil && f == JSON && k.doc != 0 {
		err = errors.New("a JSON file has one document: no @N selector")
	}
	if err == nil && !utf8.ValidString(value) {
		err = errors.New("the value is not valid UTF-8")
	}
	var out []byte
	if err == nil {
		out, err = lf(src, func(src []byte) ([]byte, error) {
			if f == JSON {
				return setJSON(src, k, value, o)
			}
			return setYAML(src, k, value, o)
		})
	}
	if err == nil {
		err = verify(f, src, out, k, &value, o)
	}
	if err != nil {
		return nil, &Error{Op: "set", Key: key, Err: err}
	}
	return out, nil
}

// UnsetBytes deletes key from src: what Unset's edit function does. A
// UTF-8 byte-order mark at the start of src is kept.
func UnsetBytes(f Format, src []byte, key string, opts ...Option) ([]byte, error) {
	return keepBOM(src, func(src []byte) ([]byte, error) { return unsetBytes(f, src, key, opts) })
}

func unsetBytes(f Format, src []byte, key string, opts []Option) ([]byte, error) {
	o := collect(opts)
	k, err := parseKey(key)
	if err == nil && f == JSON && k.doc != 0 {
		err = errors.New("a JSON file has one document: no @N selector")
	}
	var out []byte
	if err == nil {
		out, err = lf(src, func(src []byte) ([]byte, error) {
			if f == JSON {
				return unsetJSON(src, k, o)
			}
			return unsetYAML(src, k, o)
		})
	}
	if err == nil {
		err = verify(f, src, out, k, nil, o)
	}
	if err != nil {
		return nil, &Error{Op: "unset", Key: key, Err: err}
	}
	return out, nil
}

// Chain returns an edit function applying fns in order, each to the
// previous one's output: several edits of one file in one change set.
func Chain(fns ...committer.EditFunc) committer.EditFunc {
	return func(old []byte, exists bool) ([]byte, error) {
		cur := old
		for _, fn := range fns {
			out, err := fn(cur, exists)
			if err != nil {
				return nil, err
			}
			cur, exists = out, true
		}
		return cur, nil
	}
}

// ValidKey reports what is wrong with key for a file of format f, if
// anything, without any content: check keys before committing.
func ValidKey(f Format, key string) error {
	k, err := parseKey(key)
	if err == nil && f == JSON && k.doc != 0 {
		err = errors.New("a JSON file has one document: no @N selector")
	}
	if err != nil {
		return &Error{Op: "key", Key: key, Err: err}
	}
	return nil
}

// lf runs edit on src with "\n" line ends: a file whose every line ends in
// "\r\n" is edited as "\n" and turned back, so new lines get the file's
// line ends too.
func lf(src []byte, edit func([]byte) ([]byte, error)) ([]byte, error) {
	crlf := bytes.Contains(src, []byte("\r\n")) && bytes.Count(src, []byte("\n")) == bytes.Count(src, []byte("\r\n"))
	if !crlf {
		return edit(src)
	}
	out, err := edit(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")))
	if err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n")), nil
}

// bom is the UTF-8 byte-order mark.
var bom = []byte("\ufeff")

// keepBOM runs edit on src without a leading byte-order mark, and puts the
// mark back on its output.
func keepBOM(src []byte, edit func([]byte) ([]byte, error)) ([]byte, error) {
	rest, ok := bytes.CutPrefix(src, bom)
	out, err := edit(rest)
	if err != nil || !ok {
		return out, err
	}
	return append(bytes.Clone(bom), out...), nil
}
