package committer

import (
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// staticRefusal says why engine cannot carry u under co, from what is
// known before any request; nil when it may (subject to the checks after
// the head is read).
func (c *Committer) staticRefusal(engine Engine, u *unit, co commitOptions) error {
	if engine == EngineGitData || engine == EngineAuto {
		return nil
	}
	name := engine.String()
	switch {
	case co.tag.Name != "":
		return fmt.Errorf("the %s engine cannot move a tag with the branch: a tag needs the git-data engine (or auto)", name)
	case u.cs.OmitEditID:
		return fmt.Errorf("the %s engine settles a lost reply by the commit's %s trailer: OmitEditID cannot be used with it", name, EditIDTrailer)
	case c.o.signer != nil:
		return fmt.Errorf("the %s engine cannot carry a signature of your own (GitHub signs its commits): use the git-data engine", name)
	}
	if err := modeRefusal(name, u.p); err != nil {
		return err
	}
	if engine == EngineGraphQL {
		if u.cs.Author != nil || u.cs.Committer != nil {
			return errors.New("the graphql engine cannot set an author or committer (GitHub uses the token's identity): use the git-data or contents engine")
		}
		return nil
	}
	return contentsStaticRefusal(u.p, co)
}

func modeRefusal(name string, p *changes.Prepared) error {
	for _, o := range p.Ops {
		if o.Kind == changes.OpPut && o.Mode != object.ModeFile {
			return &kind.Cause{Path: o.Path, Kind: ErrInvalid, Err: fmt.Errorf("the %s engine writes plain files (mode 100644) only, not mode %s: use the git-data engine", name, o.Mode)}
		}
	}
	for _, s := range p.Syncs {
		for _, f := range s.Files {
			if f.Mode != object.ModeFile {
				return &kind.Cause{Path: s.Dir + "/" + f.Rel, Kind: ErrInvalid, Err: fmt.Errorf("the %s engine writes plain files (mode 100644) only, not mode %s: use the git-data engine", name, f.Mode)}
			}
		}
	}
	return nil
}

func contentsStaticRefusal(p *changes.Prepared, co commitOptions) error {
	switch {
	case co.expectHead != "":
		return errors.New("the contents engine cannot pin the branch's head (GitHub builds the commit on whatever head it finds): ExpectHead needs the graphql or git-data engine")
	case len(p.Syncs) > 0:
		return errors.New("the contents engine writes one file per commit and cannot carry a directory sync: use the graphql or git-data engine")
	case len(p.Ops) != 1:
		return fmt.Errorf("the contents engine writes one file per commit, and the change set has %d operations: use the graphql or git-data engine", len(p.Ops))
	}
	for _, pre := range p.Pres {
		if pre.Path != p.Ops[0].Path {
			return &kind.Cause{Path: pre.Path, Kind: ErrInvalid, Err: errors.New("the contents engine can only guard the file it writes: a precondition on another path needs the graphql or git-data engine")}
		}
	}
	return nil
}

// autoCandidates lists the one-write engines auto may pick for u, best
// first, from what is known before any request.
func (c *Committer) autoCandidates(u *unit, co commitOptions) []Engine {
	var out []Engine
	for _, e := range []Engine{EngineContents, EngineGraphQL} {
		if c.staticRefusal(e, u, co) == nil {
			out = append(out, e)
		}
	}
	return out
}

// engineGate refuses, before any request, a change set the chosen engine
// cannot carry, and gives the one-write engines the Edit-Id trailer they
// settle a lost reply by: the change set's own, even when its message
// already holds one.
func (c *Committer) engineGate(op, branch string, u *unit, co commitOptions) error {
	if err := c.staticRefusal(co.engine, u, co); err != nil {
		return c.fail(op, branch, ErrInvalid, err)
	}
	if co.engine != EngineGitData && !u.cs.OmitEditID && u.editID == "" {
		u.editID = changes.NewEditID()
		u.message = changes.WithEditID(u.message, u.editID)
	}
	return nil
}

// queueEngine says why a Queue cannot commit through co's engine, or nil.
// A chained batch keeps each change set's message and author, which
// GraphQL cannot set, and the contents API writes one file per commit.
func queueEngine(co commitOptions) error {
	switch co.engine {
	case EngineGitData:
		return nil
	case EngineGraphQL:
		if !co.squash {
			return errors.New("a chained Queue keeps each change set's message and author, which the graphql engine cannot set: use Squash with it")
		}
		return nil
	}
	return fmt.Errorf("a Queue commits through the git-data engine, or the graphql engine with Squash, not the %s engine", co.engine)
}
