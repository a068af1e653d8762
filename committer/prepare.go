package committer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// prepared is a validated change set with every put's blob SHA computed.
type prepared struct {
	ops   []op
	pres  []precondition
	syncs []preparedSync
}

type preparedSync struct {
	dir   string
	files []preparedFile
}

type preparedFile struct {
	rel  string
	mode Mode
	src  *source
}

// prepare validates cs as a whole and hashes its content, before any
// request. Errors are *kind.Cause (kind ErrInvalid) or plain causes.
func prepare(cs *ChangeSet) (*prepared, error) {
	if cs == nil {
		return nil, errors.New("change set must not be nil")
	}
	if err := ValidateMessage(cs.Message); err != nil {
		return nil, err
	}
	if cs.Len() == 0 {
		return nil, errors.New("change set is empty: nothing to commit")
	}
	for _, s := range []struct {
		role string
		sig  *Signature
	}{{"author", cs.Author}, {"committer", cs.Committer}} {
		if s.sig != nil {
			if err := s.sig.Validate(); err != nil {
				return nil, fmt.Errorf("%s: %w", s.role, err)
			}
		}
	}
	p := &prepared{pres: cs.pres}
	for _, o := range cs.ops {
		o, err := prepareOp(o)
		if err != nil {
			return nil, err
		}
		p.ops = append(p.ops, o)
	}
	if err := checkPreconditions(cs.pres); err != nil {
		return nil, err
	}
	claims := newClaims()
	for _, s := range cs.syncs {
		ps, err := prepareSync(s, claims)
		if err != nil {
			return nil, err
		}
		p.syncs = append(p.syncs, ps)
	}
	if err := claimAll(claims, p.ops); err != nil {
		return nil, err
	}
	return p, nil
}

// prepareOp validates one operation and hashes a put's content.
func prepareOp(o op) (op, error) {
	if err := ValidatePath(o.path); err != nil {
		return o, invalidPath(o.path, err)
	}
	switch o.kind {
	case opPut:
		if err := o.mode.check(); err != nil {
			return o, invalidPath(o.path, err)
		}
		if err := validateEntry(o.path, o.mode); err != nil {
			return o, invalidPath(o.path, err)
		}
		if o.src == nil {
			return o, invalidPath(o.path, errors.New("no content"))
		}
		src := *o.src
		if err := src.hash(); err != nil {
			return o, invalidPath(o.path, err)
		}
		o.src = &src
	case opEdit:
		if o.edit == nil {
			return o, invalidPath(o.path, errors.New("edit function must not be nil"))
		}
	}
	return o, nil
}

func checkPreconditions(pres []precondition) error {
	seen := map[string]bool{}
	for _, pre := range pres {
		if err := ValidatePath(pre.path); err != nil {
			return invalidPath(pre.path, err)
		}
		if seen[pre.path] {
			return invalidPath(pre.path, errors.New("more than one precondition on this path"))
		}
		seen[pre.path] = true
		if pre.anyOf != nil {
			if len(pre.anyOf) == 0 {
				return invalidPath(pre.path, errors.New("ExpectOneOf needs at least one state"))
			}
			for _, st := range pre.anyOf {
				if st != "" && !isSHA(st) {
					return invalidPath(pre.path, fmt.Errorf("expected blob SHA %q is not 40 lowercase hex digits", st))
				}
			}
			continue
		}
		if !pre.absent && !isSHA(pre.sha) {
			return invalidPath(pre.path, fmt.Errorf("expected blob SHA %q is not 40 lowercase hex digits", pre.sha))
		}
	}
	return nil
}

// prepareSync validates a sync and its files, and hashes their content.
func prepareSync(s syncDir, claims *claims) (preparedSync, error) {
	dir, err := syncRoot(s.dir)
	if err != nil {
		return preparedSync{}, err
	}
	if err := claims.add(dir, opPut, true); err != nil {
		return preparedSync{}, invalidPath(dir, err)
	}
	ps := preparedSync{dir: dir}
	seen := map[string]bool{}
	for _, f := range s.files {
		full := path.Join(dir, f.Path)
		if err := ValidatePath(f.Path); err != nil {
			return ps, invalidPath(full, err)
		}
		if err := f.Mode.check(); err != nil {
			return ps, invalidPath(full, err)
		}
		if err := validateEntry(full, f.Mode); err != nil {
			return ps, invalidPath(full, err)
		}
		if seen[f.Path] {
			return ps, invalidPath(full, errors.New("listed twice in the synced files"))
		}
		seen[f.Path] = true
		src := f.source()
		if err := src.hash(); err != nil {
			return ps, invalidPath(full, err)
		}
		ps.files = append(ps.files, preparedFile{rel: f.Path, mode: f.Mode, src: src})
	}
	if err := checkFileDirClash(ps.files); err != nil {
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
		return "", &kind.Cause{Path: d, Kind: ErrInvalid, Hint: `pass "." to sync onto the repository root`,
			Err: fmt.Errorf(`sync directory %q: want a repository directory, or "." for the root`, d)}
	}
	dir := strings.TrimSuffix(d, "/")
	if err := ValidatePath(dir); err != nil {
		return "", invalidPath(dir, err)
	}
	return dir, nil
}

func invalidPath(p string, err error) error {
	return &kind.Cause{Path: p, Kind: ErrInvalid, Err: err}
}

// smallFile is the size up to which local files are held in memory.
const smallFile = 256 << 10

// hash computes the blob SHA (and size) of the content, reading it once.
func (s *source) hash() error {
	if s.inMemory() {
		s.size = int64(len(s.data))
		if s.size > MaxFileSize {
			return fmt.Errorf("%d bytes is over GitHub's 100 MB file limit", s.size)
		}
		s.sha = BlobSHA(s.data)
		return nil
	}
	if s.local != "" {
		if err := checkNotInGit(s.local); err != nil {
			return err
		}
		dest, err := resolveLocal(s.local, true)
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
		s.size = info.Size()
		if s.size <= smallFile {
			// Small files are read now: they can go inline in the tree
			// request, and the content cannot change under the commit.
			data, err := os.ReadFile(s.local)
			if err != nil {
				return fmt.Errorf("local file: %w", err)
			}
			s.data, s.local = data, ""
			return s.hash()
		}
	}
	if s.size < 0 {
		return errors.New("size must not be negative")
	}
	if s.size > MaxFileSize {
		return fmt.Errorf("%d bytes is over GitHub's 100 MB file limit", s.size)
	}
	rc, err := s.reader()
	if err != nil {
		return fmt.Errorf("open content: %w", err)
	}
	defer rc.Close()
	sha, err := blobSHAReader(rc, s.size)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("content is not %d bytes long as declared (changed while committing?)", s.size)
		}
		return fmt.Errorf("read content: %w", err)
	}
	s.sha = sha
	return nil
}

// claims tracks the paths a change set writes, to refuse two operations on
// one path and a path that is both a file and a directory. A Delete may pair
// with Puts at or under its path (the path is replaced: it ends holding
// exactly those puts); every other double claim is refused. Each check costs
// O(depth of the path).
type claims struct {
	files   map[string]opKind // written paths: puts and edits
	dirs    map[string]bool   // synced directories ("" = root)
	under   map[string]string // every ancestor directory of a claim -> that claim
	edits   map[string]string // every ancestor of an edit -> that edit
	deletes map[string]bool
	delUp   map[string]string // every ancestor of a delete -> that delete
}

func newClaims() *claims {
	return &claims{files: map[string]opKind{}, dirs: map[string]bool{}, under: map[string]string{},
		edits: map[string]string{}, deletes: map[string]bool{}, delUp: map[string]string{}}
}

func ancestors(p string) []string {
	var out []string
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// add claims p for a put or an edit (kind) or, with isDir, a sync.
func (c *claims) add(p string, kind opKind, isDir bool) error {
	if _, ok := c.files[p]; ok || c.dirs[p] {
		return errors.New("more than one operation on this path")
	}
	if c.dirs[""] {
		return errors.New("the repository root is synced; sync owns every path")
	}
	if p == "" && (len(c.files) > 0 || len(c.dirs) > 0) {
		return errors.New("syncing the repository root leaves no path for other operations")
	}
	for _, a := range ancestors(p) {
		if _, ok := c.files[a]; ok {
			return fmt.Errorf("is both a file and a directory in this change set (%q is written as a file)", a)
		}
		if c.dirs[a] {
			return fmt.Errorf("is inside the synced directory %q; sync owns everything under it", a)
		}
	}
	if other, ok := c.under[p]; ok {
		if isDir {
			return fmt.Errorf("synced directory contains %q, which another operation writes", other)
		}
		return fmt.Errorf("is both a file and a directory in this change set (%q is under it)", other)
	}
	if isDir {
		c.dirs[p] = true
	} else {
		c.files[p] = kind
	}
	for _, a := range ancestors(p) {
		if _, ok := c.under[a]; !ok {
			c.under[a] = p
		}
		if _, ok := c.edits[a]; !ok && !isDir && kind == opEdit {
			c.edits[a] = p
		}
	}
	return nil
}

// addDelete claims p for a Delete, after every other claim is in. A Delete
// pairs with Puts at or under p; it may not overlap an edit, a sync, or
// another Delete.
func (c *claims) addDelete(p string) error {
	if c.deletes[p] {
		return errors.New("deleted more than once in this change set")
	}
	if k, ok := c.files[p]; ok && k == opEdit {
		return errors.New("both edited and deleted in this change set")
	}
	if c.dirs[p] || c.dirs[""] {
		return errors.New("is also synced; sync already deletes what the local files lack")
	}
	if other, ok := c.delUp[p]; ok {
		return fmt.Errorf("overlaps another Delete in this change set (%q is under it)", other)
	}
	if e, ok := c.edits[p]; ok {
		return fmt.Errorf("deletes %q, which this change set edits", e)
	}
	for _, a := range ancestors(p) {
		if c.deletes[a] {
			return fmt.Errorf("overlaps another Delete in this change set (%q is deleted)", a)
		}
		if _, ok := c.files[a]; ok {
			return fmt.Errorf("is under %q, which this change set writes as a file", a)
		}
		if c.dirs[a] {
			return fmt.Errorf("is inside the synced directory %q; sync owns everything under it", a)
		}
	}
	if _, ok := c.under[p]; ok {
		for d := range c.dirs {
			if strings.HasPrefix(d, p+"/") {
				return fmt.Errorf("contains the synced directory %q", d)
			}
		}
	}
	c.deletes[p] = true
	for _, a := range ancestors(p) {
		if _, ok := c.delUp[a]; !ok {
			c.delUp[a] = p
		}
	}
	return nil
}

func checkFileDirClash(files []preparedFile) error {
	set := map[string]bool{}
	for _, f := range files {
		set[f.rel] = true
	}
	for _, f := range files {
		for d := path.Dir(f.rel); d != "."; d = path.Dir(d) {
			if set[d] {
				return errors.New(d)
			}
		}
	}
	return nil
}

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// claimAll claims the paths of ops: puts and edits first, then deletes, so
// that a Delete pairs with Puts whatever their order in the change set.
func claimAll(c *claims, ops []op) error {
	for _, o := range ops {
		if o.kind != opDelete {
			if err := c.add(o.path, o.kind, false); err != nil {
				return invalidPath(o.path, err)
			}
		}
	}
	for _, o := range ops {
		if o.kind == opDelete {
			if err := c.addDelete(o.path); err != nil {
				return invalidPath(o.path, err)
			}
		}
	}
	return nil
}
