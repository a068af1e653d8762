package changes

import (
	"errors"
	"io"
	"path"

	"github.com/ghcommitter/ghcommitter/committer/internal/lfs"
)

// KnownBytes is the size of the content p puts that is known before any
// request (edits and files not yet read count as nothing).
func (p *Prepared) KnownBytes() int64 {
	var n int64
	for _, o := range p.Ops {
		if o.Src != nil && o.Src.Size > 0 {
			n += o.Src.Size
		}
	}
	for _, s := range p.Syncs {
		for _, f := range s.Files {
			if f.Src != nil && f.Src.Size > 0 {
				n += f.Src.Size
			}
		}
	}
	return n
}

// Lookups are the paths resolving p asks the base tree about, directories
// above them aside: every operation's path, every precondition's and every
// synced directory (whose files its listing answers).
func (p *Prepared) Lookups() []string {
	var out []string
	for _, o := range p.Ops {
		out = append(out, o.Path)
	}
	for _, pre := range p.Pres {
		out = append(out, pre.Path)
	}
	for _, s := range p.Syncs {
		out = append(out, s.Dir)
	}
	if p.LFS {
		out = append(out, p.attributeLookups()...)
	}
	return out
}

// attributeLookups are the .gitattributes files that decide whether p's
// puts and edits go through Git LFS (see lfs.AttributePaths): the same
// query answers them, with their text.
func (p *Prepared) attributeLookups() []string {
	seen := map[string]bool{}
	var out []string
	add := func(file string) {
		for _, a := range lfs.AttributePaths(file) {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	for _, o := range p.Ops {
		if o.Kind != OpDelete {
			add(o.Path)
		}
	}
	for _, s := range p.Syncs {
		add(path.Join(s.Dir, "f"))
	}
	return out
}

// Texts lists the paths whose content the change set reads (its edits),
// so that looking them up can bring their content along (see
// ghgraphql.Paths).
func (p *Prepared) Texts() []string {
	var out []string
	for _, o := range p.Ops {
		if o.Kind == OpEdit {
			out = append(out, o.Path)
		}
	}
	return out
}

// Source finds the source of the file p writes at full, nil when none.
func (p *Prepared) Source(full string) *Source {
	for _, o := range p.Ops {
		if o.Kind == OpPut && o.Path == full {
			return o.Src
		}
	}
	for _, s := range p.Syncs {
		for _, f := range s.Files {
			if path.Join(s.Dir, f.Rel) == full {
				return f.Src
			}
		}
	}
	return nil
}

// Read reads the content of the file p writes at full.
func (p *Prepared) Read(full string) ([]byte, error) {
	s := p.Source(full)
	if s == nil {
		return nil, errors.New("content not found")
	}
	rc, err := s.Reader()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, s.Size))
}

// CommitMessage is the message of the commit made for a change set: its
// message, with an EditIDTrailer of its own (id, "" when none) when p has
// edit functions or preconditions and omitEditID is false.
func CommitMessage(message string, omitEditID bool, p *Prepared) (msg, id string) {
	if omitEditID {
		return message, ""
	}
	need := len(p.Pres) > 0
	for _, o := range p.Ops {
		need = need || o.Kind == OpEdit
	}
	if !need {
		return message, ""
	}
	id = NewEditID()
	return WithEditID(message, id), id
}
