// Package gitmodel computes git object IDs for a model of a branch's files
// with go-git's object encoding, independently of both the library and the
// fake, for tests that check them against each other.
package gitmodel

import (
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// File is one file of the model.
type File struct {
	Content []byte
	Mode    string // "100644", "100755" or "120000"
}

// EmptyTree is the SHA of git's empty tree.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

type dir struct {
	files map[string]File
	dirs  map[string]*dir
}

func newDir() *dir { return &dir{files: map[string]File{}, dirs: map[string]*dir{}} }

// TreeSHA returns the SHA of the root tree holding files (slash-separated
// paths), as git would write it.
func TreeSHA(files map[string]File) (string, error) {
	root := newDir()
	for p, f := range files {
		d := root
		segs := strings.Split(p, "/")
		for _, s := range segs[:len(segs)-1] {
			if d.dirs[s] == nil {
				d.dirs[s] = newDir()
			}
			d = d.dirs[s]
		}
		d.files[segs[len(segs)-1]] = f
	}
	h, err := write(memory.NewStorage(), root)
	return h.String(), err
}

func write(st *memory.Storage, d *dir) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	for name, f := range d.files {
		m, err := filemode.New(f.Mode)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		blob := st.NewEncodedObject()
		blob.SetType(plumbing.BlobObject)
		w, _ := blob.Writer()
		_, _ = w.Write(f.Content)
		_ = w.Close()
		h, err := st.SetEncodedObject(blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: m, Hash: h})
	}
	for name, sub := range d.dirs {
		h, err := write(st, sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// git orders entries by name, a directory's name as if it ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	obj := st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}
