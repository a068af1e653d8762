// Package edits holds ready committer.EditFuncs for structured files: set or
// unset a key of a YAML or JSON file, and set an image in a kustomization's
// images: list. Like any edit function they run on the file's content at the
// head each attempt builds on, so concurrent writers setting different keys
// of one file all land. Package committer does not import this one: a
// program that does not use it links no YAML or JSON editing code.
//
// # Keys
//
// Keys use Kargo's (sjson-like) syntax: segments separated by ".", a
// backslash makes the next character literal ("example\.com/version" is one
// segment, "\\" a backslash), and a number indexes a sequence
// ("containers.0.image"). In a YAML file of several documents, a key
// addresses the first document unless its first segment is "@N", the N-th
// document counted from 0 ("@1.spec.replicas"); write "\@" for a key that
// begins with "@".
//
// # What changes
//
// Setting an existing scalar changes only that scalar's bytes: comments,
// blank lines, indentation, key order, quoting and document separators stay
// as they were. The scalar keeps its style (plain, 'single', "double", or a
// literal block) and a string stays a string (tag: "1.20" becomes
// tag: "1.21"); a value its style cannot hold is written double-quoted.
// A non-string scalar, and a new key, get the type the literal has in YAML
// 1.2 (3 is a number, true a boolean); AsString makes them strings. A
// string is written plain only when YAML 1.1 readers (PyYAML, go-yaml v2)
// read it back as that string too: on, yes, y, NO, 1:20, 0777 or 1.2.3 are
// quoted. A leading UTF-8 byte-order mark is kept. A missing key is
// created with its missing parents under the mapping it belongs to, with
// the file's indentation, after the mapping's last entry (a flow mapping
// {...} gets it inside the braces); MustExist refuses instead. Missing
// sequence entries are not created. Unset removes the key's lines; the last
// key of a mapping leaves {} behind.
//
// SetImage and ParseImage follow `kustomize edit set image` (v5), which
// kustomizeoracle/, a module of its own, checks against kustomize's code;
// only the entry's lines change, where kustomize rewrites the file.
//
// JSON files keep their key order, indentation and spacing: a new member
// goes after the object's last one, laid out as its siblings are.
//
// Every edit is checked before it is returned: the output must parse, the
// key must read back as the value, and every other value of the file must be
// unchanged. An edit that cannot apply — the content is not valid YAML or
// JSON, the key runs through a scalar, a key that must exist is missing — is
// an *Error, which matches committer.ErrInvalid: the commit fails and
// nothing is written.
package edits
