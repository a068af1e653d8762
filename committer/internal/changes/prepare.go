package changes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/lfs"
	"github.com/ghcommitter/ghcommitter/committer/internal/localfs"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Prepared is a validated change set with every put's blob SHA computed.
type Prepared struct {
	Ops   []Op
	Pres  []Precondition
	Syncs []PreparedSync
	LFS   bool // see Set.LFS
}

// PreparedSync is a validated sync: its directory ("" for the root) and files.
type PreparedSync struct {
	Dir   string
	Files []PreparedFile
}

// PreparedFile is one file of a PreparedSync, relative to its directory.
type PreparedFile struct {
	Rel  string
	Mode string
	Src  *Source
}

// Prepare validates a change set as a whole (its message, author and
// committer, nil when unset, and set) and hashes its content, before any
// request. Errors are *kind.Cause (kind.Invalid) or plain causes.
func Prepare(message string, author, committer *object.Signature, set *Set) (*Prepared, error) {
	if err := ValidateMessage(message); err != nil {
		return nil, err
	}
	if set.Len() == 0 {
		return nil, errors.New("change set is empty: nothing to commit")
	}
	for _, s := range []struct {
		role string
		sig  *object.Signature
	}{{"author", author}, {"committer", committer}} {
		if s.sig != nil {
			if err := ValidateSignature(*s.sig); err != nil {
				return nil, fmt.Errorf("%s: %w", s.role, err)
			}
		}
	}
	p := &Prepared{Pres: set.Pres, LFS: set.LFS}
	limit := int64(MaxFileSize)
	if set.LFS {
		limit = lfs.MaxObjectSize
	}
	for _, o := range set.Ops {
		o, err := prepareOp(o, limit)
		if err != nil {
			return nil, err
		}
		p.Ops = append(p.Ops, o)
	}
	if err := checkPreconditions(set.Pres); err != nil {
		return nil, err
	}
	claims := newClaims()
	for _, s := range set.Syncs {
		ps, err := prepareSync(s, claims, limit)
		if err != nil {
			return nil, err
		}
		p.Syncs = append(p.Syncs, ps)
	}
	if err := claimAll(claims, p.Ops); err != nil {
		return nil, err
	}
	return p, nil
}

// prepareOp validates one operation and hashes a put's content.
func prepareOp(o Op, limit int64) (Op, error) {
	if err := ValidatePath(o.Path); err != nil {
		return o, invalidPath(o.Path, err)
	}
	switch o.Kind {
	case OpPut:
		if err := checkMode(o.Mode); err != nil {
			return o, invalidPath(o.Path, err)
		}
		if err := ValidateEntry(o.Path, o.Mode); err != nil {
			return o, invalidPath(o.Path, err)
		}
		if o.Src == nil {
			return o, invalidPath(o.Path, errors.New("no content"))
		}
		src := *o.Src
		if err := src.hash(limit); err != nil {
			return o, invalidPath(o.Path, err)
		}
		o.Src = &src
	case OpEdit:
		if o.Edit == nil {
			return o, invalidPath(o.Path, errors.New("edit function must not be nil"))
		}
	}
	return o, nil
}

func checkPreconditions(pres []Precondition) error {
	seen := map[string]bool{}
	for _, pre := range pres {
		if err := ValidatePath(pre.Path); err != nil {
			return invalidPath(pre.Path, err)
		}
		if seen[pre.Path] {
			return invalidPath(pre.Path, errors.New("more than one precondition on this path"))
		}
		seen[pre.Path] = true
		if pre.AnyOf != nil {
			if len(pre.AnyOf) == 0 {
				return invalidPath(pre.Path, errors.New("ExpectOneOf needs at least one state"))
			}
			for _, st := range pre.AnyOf {
				if st != "" && !object.IsSHA(st) {
					return invalidPath(pre.Path, fmt.Errorf("expected blob SHA %q is not 40 lowercase hex digits", st))
				}
			}
			continue
		}
		if !pre.Absent && !object.IsSHA(pre.SHA) {
			return invalidPath(pre.Path, fmt.Errorf("expected blob SHA %q is not 40 lowercase hex digits", pre.SHA))
		}
	}
	return nil
}

// prepareSync validates a sync and its files, and hashes their content.
func prepareSync(s SyncDir, claims *claims, limit int64) (PreparedSync, error) {
	dir, err := syncRoot(s.Dir)
	if err != nil {
		return PreparedSync{}, err
	}
	if err := claims.add(dir, OpPut, true); err != nil {
		return PreparedSync{}, invalidPath(dir, err)
	}
	ps := PreparedSync{Dir: dir}
	seen := map[string]bool{}
	for _, f := range s.Files {
		full := path.Join(dir, f.Path)
		if err := ValidatePath(f.Path); err != nil {
			return ps, invalidPath(full, err)
		}
		if err := checkMode(f.Mode); err != nil {
			return ps, invalidPath(full, err)
		}
		if err := ValidateEntry(full, f.Mode); err != nil {
			return ps, invalidPath(full, err)
		}
		if seen[f.Path] {
			return ps, invalidPath(full, errors.New("listed twice in the synced files"))
		}
		seen[f.Path] = true
		src := FileSource(f)
		if err := src.hash(limit); err != nil {
			return ps, invalidPath(full, err)
		}
		ps.Files = append(ps.Files, PreparedFile{Rel: f.Path, Mode: f.Mode, Src: src})
	}
	if err := checkFileDirClash(ps.Files); err != nil {
		return ps, invalidPath(path.Join(dir, err.Error()), errors.New("is both a file and a directory in the synced files"))
	}
	return ps, nil
}

// syncRoot validates a Sync's directory and returns it as the plan holds
// it: "" for the root, which only "." names. "", "/" and "./" are refused:
// each is what a path built from an empty variable looks like (dir, "/"+dir,
// "./"+dir), and a sync onto the root deletes every other file on the
// branch, so it must be asked for by its one name. One trailing "/" of a
// named directory is dropped ("deploy/" is "deploy").
func syncRoot(d string) (string, error) {
	if d == "." {
		return "", nil
	}
	if strings.Trim(d, "/") == "" || strings.TrimRight(d, "/") == "." {
		return "", &kind.Cause{Path: d, Kind: kind.Invalid, Hint: `pass "." to sync onto the repository root`,
			Err: fmt.Errorf(`sync directory %q: want a repository directory, or "." for the root`, d)}
	}
	dir := strings.TrimSuffix(d, "/")
	if err := ValidatePath(dir); err != nil {
		return "", invalidPath(dir, err)
	}
	return dir, nil
}

func invalidPath(p string, err error) error {
	return &kind.Cause{Path: p, Kind: kind.Invalid, Err: err}
}

// smallFile is the size up to which local files are held in memory.
const smallFile = 256 << 10

// hash computes the blob SHA (and size) of the content, reading it once;
// content over limit bytes is refused.
func (s *Source) hash(limit int64) error {
	if s.InMemory() {
		s.Size = int64(len(s.Data))
		if s.Size > limit {
			return sizeError(s.Size, limit)
		}
		s.SHA = BlobSHA(s.Data)
		return nil
	}
	if s.local != "" {
		if err := s.loadLocal(); err != nil {
			return err
		}
		if s.InMemory() {
			return s.hash(limit)
		}
	}
	if s.Size < 0 {
		return errors.New("size must not be negative")
	}
	if s.Size > limit {
		return sizeError(s.Size, limit)
	}
	rc, err := s.Reader()
	if err != nil {
		return fmt.Errorf("open content: %w", err)
	}
	defer rc.Close()
	sha, err := blobSHAReader(rc, s.Size)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("content is not %d bytes long as declared (changed while committing?)", s.Size)
		}
		return fmt.Errorf("read content: %w", err)
	}
	s.SHA = sha
	return nil
}

// loadLocal checks and resolves a local file's path and reads its size;
// a small file is read into memory.
func (s *Source) loadLocal() error {
	if err := localfs.CheckNotInGit(s.local); err != nil {
		return err
	}
	dest, err := localfs.ResolveLocal(s.local, true)
	if err != nil {
		return fmt.Errorf("local file: %w", err)
	}
	s.local = dest
	info, err := os.Stat(dest)
	if err != nil {
		return fmt.Errorf("local file: %w", err)
	}
	if info.IsDir() {
		return fmt.Errorf("local file %s is a directory, want a file", s.local)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("local file %s is not a regular file", s.local)
	}
	s.Size = info.Size()
	if s.Size <= smallFile {
		// Small files are read now: they can go inline in the tree
		// request, and the content cannot change under the commit.
		data, err := os.ReadFile(s.local)
		if err != nil {
			return fmt.Errorf("local file: %w", err)
		}
		s.Data, s.local = data, ""
	}
	return nil
}

func checkFileDirClash(files []PreparedFile) error {
	set := map[string]bool{}
	for _, f := range files {
		set[f.Rel] = true
	}
	for _, f := range files {
		for d := path.Dir(f.Rel); d != "."; d = path.Dir(d) {
			if set[d] {
				return errors.New(d)
			}
		}
	}
	return nil
}

// claimAll claims the paths of ops: puts and edits first, then deletes, so
// that a Delete pairs with Puts whatever their order in the change set.
func claimAll(c *claims, ops []Op) error {
	for _, o := range ops {
		if o.Kind != OpDelete {
			if err := c.add(o.Path, o.Kind, false); err != nil {
				return invalidPath(o.Path, err)
			}
		}
	}
	for _, o := range ops {
		if o.Kind == OpDelete {
			if err := c.addDelete(o.Path); err != nil {
				return invalidPath(o.Path, err)
			}
		}
	}
	return nil
}
