package committer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Engine is the GitHub API a commit is made through. See docs/engines.md
// for what each can carry and what it costs.
type Engine int

const (
	// EngineGitData builds the commit from Git Data objects (create tree,
	// create commit) and moves the branch with a fast-forward ref update:
	// three writes per attempt. It carries every change set: modes,
	// symlinks, submodules, directory deletes, large files, a chosen
	// author, your own signature. The default.
	EngineGitData Engine = iota
	// EngineGraphQL commits with GraphQL createCommitOnBranch: one write per
	// attempt, pinned to the head read (expectedHeadOid). Plain files
	// (mode 100644) only, up to MaxGraphQLBytes per commit, no chosen author
	// or committer, no signer of your own: GitHub signs the commit, so it
	// shows as Verified for any token.
	EngineGraphQL
	// EngineContents commits through the contents API (PUT or DELETE
	// contents/{path}): one write per attempt, one plain file of at most
	// MaxContentsFileBytes, guarded by the file's blob SHA and built by
	// GitHub on the branch's head at the time of the write. It cannot pin
	// a head (ExpectHead is ErrInvalid). GitHub signs these commits too.
	EngineContents
	// EngineAuto picks, on each attempt, the engine with the fewest writes
	// that carries the change set exactly: contents for one plain file
	// (or one file delete), GraphQL for plain files, Git Data otherwise.
	EngineAuto
)

// MaxGraphQLBytes is the largest GraphQL commit (file contents once
// base64-encoded, plus paths) that EngineGraphQL sends and EngineAuto
// picks GraphQL for: GitHub fails payloads around 40 MB.
const MaxGraphQLBytes = 25 << 20

// MaxContentsFileBytes is the largest file EngineContents writes and
// EngineAuto picks the contents API for (GitHub documents 1 MB as the
// limit of its contents API's reads, and its writes time out above it).
const MaxContentsFileBytes = 1 << 20

var engineNames = [...]string{"git-data", "graphql", "contents", "auto"}

// String returns the engine's name as the CLI's --engine spells it.
func (e Engine) String() string {
	if e < 0 || int(e) >= len(engineNames) {
		return fmt.Sprintf("Engine(%d)", int(e))
	}
	return engineNames[e]
}

// ParseEngine reads an engine's name: git-data, graphql, contents or auto.
func ParseEngine(s string) (Engine, error) {
	for i, n := range engineNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Engine(i), nil
		}
	}
	return 0, fmt.Errorf("unknown engine %q: want one of %s", s, strings.Join(engineNames[:], ", "))
}

// WithEngine makes the commit (or every commit of a Queue) through engine.
// An engine that cannot carry a change set exactly refuses it with
// ErrInvalid before any write, naming what it cannot carry; what is known
// only on the branch (an edit's output, the mode of a file already there)
// is refused after reading the head and still before any write. A Queue
// takes EngineGitData or, with Squash, EngineGraphQL. With EngineAuto,
// an attempt that ends up on Git Data because of what the head holds (an
// executable file's edit, a directory delete) builds on what it resolved
// to choose: edit functions run once per attempt on every engine. The
// default is EngineGitData.
func WithEngine(engine Engine) CommitOption {
	return func(o *commitOptions) error {
		if engine < EngineGitData || engine > EngineAuto {
			return fmt.Errorf("unknown engine %d", int(engine))
		}
		o.engine = engine
		return nil
	}
}

// staticRefusal says why engine cannot carry u under co, from what is
// known before any request; nil when it may (subject to the checks after
// the head is read).
func (c *Committer) staticRefusal(engine Engine, u *unit, co commitOptions) error {
	if engine == EngineGitData || engine == EngineAuto {
		return nil
	}
	name := engine.String()
	switch {
	case co.tag.name != "":
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
