// Package lfs is Git LFS as a commit without a clone needs it: the pointer
// file (spec v1), the .gitattributes rules that route a path through LFS,
// and a client of the batch API (basic transfer) that uploads and
// downloads objects. See https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md
// and docs/api/batch.md there.
package lfs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Version is the spec URL of the pointer format written.
const Version = "https://git-lfs.github.com/spec/v1"

// MaxPointerSize is the largest file read as a pointer: the spec's bound.
const MaxPointerSize = 1024

// MaxObjectSize is the largest object a commit sends to LFS storage:
// GitHub's largest LFS file limit (5 GB, GitHub Enterprise Cloud; 2 GB on
// Free and Pro, which GitHub refuses in its batch reply). See
// https://docs.github.com/repositories/working-with-files/managing-large-files/about-git-large-file-storage
const MaxObjectSize = 5 << 30

// Pointer is the pointer file of an object: git lfs pointer's bytes.
func Pointer(oid string, size int64) []byte {
	return []byte("version " + Version + "\noid sha256:" + oid + "\nsize " + strconv.FormatInt(size, 10) + "\n")
}

// Object names an LFS object: its SHA-256 (64 lowercase hex digits) and
// size.
type Object struct {
	OID  string `json:"oid"`
	Size int64  `json:"size"`
}

// Hash reads r to its end and returns its object.
func Hash(r io.Reader) (Object, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return Object{}, err
	}
	return Object{OID: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// ParsePointer reads data as a pointer file (spec v1: a version line
// first, then keys in sorted order, each line "key value\n", an oid of
// sha256 and a size); ok is false when it is not one.
func ParsePointer(data []byte) (obj Object, ok bool) {
	if len(data) > MaxPointerSize || !bytes.HasSuffix(data, []byte("\n")) {
		return Object{}, false
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 3 || lines[0] != "version "+Version && lines[0] != "version https://hawser.github.com/spec/v1" {
		return Object{}, false
	}
	prev, haveOID, haveSize := "", false, false
	for _, l := range lines[1:] {
		k, v, found := strings.Cut(l, " ")
		if !found || !validKey(k) || k <= prev || v == "" {
			return Object{}, false
		}
		prev = k
		switch k {
		case "oid":
			hexOID, isSHA := strings.CutPrefix(v, "sha256:")
			if !isSHA || !IsOID(hexOID) {
				return Object{}, false
			}
			obj.OID, haveOID = hexOID, true
		case "size":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || strconv.FormatInt(n, 10) != v {
				return Object{}, false
			}
			obj.Size, haveSize = n, true
		}
	}
	return obj, haveOID && haveSize
}

// validKey reports whether k is a pointer key: [a-z0-9.-]+, not "version".
func validKey(k string) bool {
	if k == "" || k == "version" {
		return false
	}
	for _, c := range k {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// IsOID reports whether s is a SHA-256 in 64 lowercase hex digits.
func IsOID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// String is "oid (size bytes)", for messages.
func (o Object) String() string { return fmt.Sprintf("%s (%d bytes)", o.OID, o.Size) }
