package tree

import (
	"bytes"
	"context"
	"fmt"
	"path"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/lfs"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// LFS is the repository's Git LFS storage, as resolution uses it.
type LFS interface {
	// Upload stores the objects of ups that storage does not hold yet.
	Upload(ctx context.Context, ups []lfs.Upload) error
	// Download reads the object o (at most limit bytes).
	Download(ctx context.Context, o lfs.Object, limit int64) ([]byte, error)
}

// routeLFS turns each put of a path that the .gitattributes files of the
// view (and of the change set itself) route through Git LFS into the
// pointer file of its content, whose object is then uploaded before the
// tree (see Finish); a put whose content already is a valid pointer is
// committed as it is (a checkout made without git-lfs). Other puts over
// the blob limit are refused here, before any write.
func (rs *resolution) routeLFS(ctx context.Context) error {
	attrs := map[string][]byte{}
	for i, pt := range rs.puts {
		viaLFS := false
		if rs.rv.LFS != nil && pt.mode != object.ModeSymlink {
			var err error
			if viaLFS, err = rs.isLFS(ctx, pt.path, attrs); err != nil {
				return err
			}
		}
		if !viaLFS {
			if pt.src.Size > int64(rs.rv.MaxFileSize) {
				return &kind.Cause{Path: pt.path, Kind: kind.Invalid, Hint: "route the path through Git LFS in .gitattributes to commit it as a pointer",
					Err: fmt.Errorf("%d bytes is over GitHub's 100 MB file limit", pt.src.Size)}
			}
			continue
		}
		if pt.src.InMemory() {
			if _, ok := lfs.ParsePointer(pt.src.Data); ok {
				continue // a pointer already: committed as it is
			}
		}
		obj, err := pt.src.LFSObject()
		if err != nil {
			return &kind.Cause{Path: pt.path, Kind: kind.Invalid, Err: fmt.Errorf("hash for Git LFS: %w", err)}
		}
		ptr := lfs.Pointer(obj.OID, obj.Size)
		src := changes.BytesSource(ptr)
		src.SHA = changes.BlobSHA(ptr)
		rs.puts[i].src = src
		if e, ok, err := rs.v.Get(ctx, pt.path); err != nil {
			return err
		} else if ok && e.SHA == src.SHA {
			continue // the pointer is there already: nothing to store
		}
		rs.r.LFS = append(rs.r.LFS, lfs.Upload{Object: obj, Open: pt.src.Reader})
	}
	return nil
}

// StoreLFS stores the Git LFS objects of r's pointers (r.LFS) that
// storage does not hold yet: before any write that lands them.
func (rv *Resolver) StoreLFS(ctx context.Context, r *Resolved) error {
	if len(r.LFS) == 0 || rv.LFS == nil {
		return nil
	}
	return rv.LFS.Upload(ctx, r.LFS)
}

// isLFS reports whether the attributes on the view route p through LFS.
// attrs caches the .gitattributes files read (nil content: none).
func (rs *resolution) isLFS(ctx context.Context, p string, attrs map[string][]byte) (bool, error) {
	var rules lfs.Rules
	for _, ap := range lfs.AttributePaths(p) {
		data, ok := attrs[ap]
		if !ok {
			var err error
			if data, err = rs.attributes(ctx, ap); err != nil {
				return false, err
			}
			attrs[ap] = data
		}
		dir := path.Dir(ap)
		if dir == "." {
			dir = ""
		}
		rules.Add(dir, data)
	}
	return rules.IsLFS(p), nil
}

// attributes is the content of the .gitattributes file at ap: the change
// set's own put of it when it has one (as git add reads the work tree's),
// else the view's; nil when there is none or it is not a regular file.
func (rs *resolution) attributes(ctx context.Context, ap string) ([]byte, error) {
	for _, pt := range rs.puts {
		if pt.path == ap && pt.mode != object.ModeSymlink && pt.src.InMemory() {
			return pt.src.Data, nil
		}
	}
	e, ok, err := rs.v.Get(ctx, ap)
	if err != nil || !ok || e.Type != object.TypeBlob || e.Mode == object.ModeSymlink {
		return nil, err
	}
	data, err := rs.v.Content(ctx, ap, e)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ap, err)
	}
	return bytes.Clone(data), nil
}

// lfsContent is the content an edit of p sees: old itself, or, where old
// is a pointer on a path routed through LFS, the object it names, read
// from LFS storage.
func (rs *resolution) lfsContent(ctx context.Context, p string, old []byte) ([]byte, error) {
	if rs.rv.LFS == nil {
		return old, nil
	}
	obj, ok := lfs.ParsePointer(old)
	if !ok {
		return old, nil
	}
	viaLFS, err := rs.isLFS(ctx, p, map[string][]byte{})
	if err != nil || !viaLFS {
		return old, err
	}
	data, err := rs.rv.LFS.Download(ctx, obj, int64(rs.rv.MaxEditSize()))
	if err != nil {
		return nil, &kind.Cause{Path: p, Err: fmt.Errorf("read the Git LFS object the pointer names: %w", err)}
	}
	return data, nil
}

// MaxEditSize is the largest content an edit function is given or may
// make: the blob limit, or with LFS the largest object held in memory.
func (rv *Resolver) MaxEditSize() int {
	if rv.LFS != nil {
		return max(rv.MaxFileSize, maxLFSEdit)
	}
	return rv.MaxFileSize
}

// maxLFSEdit bounds the LFS objects an edit reads into memory.
const maxLFSEdit = 1 << 30

// editSizeError refuses an edit's result of n bytes: over the blob limit,
// or with lfs over what an edit of an LFS path may make (a result over
// the blob limit on another path is refused with the puts, see routeLFS).
func editSizeError(n int, lfs bool) error {
	if lfs {
		return fmt.Errorf("edit result of %d bytes is over the %d bytes an edit may make", n, maxLFSEdit)
	}
	return fmt.Errorf("edit result of %d bytes is over GitHub's 100 MB file limit", n)
}
