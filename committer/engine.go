package committer

import (
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
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
const MaxGraphQLBytes = 25 << 20 // the same as internal/engine's (TestEngineLimits)

// MaxContentsFileBytes is the largest file EngineContents writes and
// EngineAuto picks the contents API for (GitHub documents 1 MB as the
// limit of its contents API's reads, and its writes time out above it).
const MaxContentsFileBytes = 1 << 20 // the same as internal/engine's (TestEngineLimits)

// engines holds each Engine's implementation (internal/engine), in the
// enum's order; Auto's Order is the one-write engines it picks among, best
// first.
var engines = [...]engine.Engine{
	EngineGitData:  engine.GitData{},
	EngineGraphQL:  engine.GraphQL{},
	EngineContents: engine.Contents{},
	EngineAuto:     engine.Auto{Order: []engine.Writer{engine.Contents{}, engine.GraphQL{}}, Else: engine.GitData{}},
}

// impl is e's implementation; e must be valid (WithEngine checks).
func (e Engine) impl() engine.Engine { return engines[e] }

// String returns the engine's name as the CLI's --engine spells it.
func (e Engine) String() string {
	if e < 0 || int(e) >= len(engines) {
		return fmt.Sprintf("Engine(%d)", int(e))
	}
	return engines[e].Name()
}

// ParseEngine reads an engine's name: git-data, graphql, contents or auto.
func ParseEngine(s string) (Engine, error) {
	names := make([]string, len(engines))
	for i, e := range engines {
		names[i] = e.Name()
		if strings.EqualFold(strings.TrimSpace(s), names[i]) {
			return Engine(i), nil
		}
	}
	return 0, fmt.Errorf("unknown engine %q: want one of %s", s, strings.Join(names, ", "))
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
		if engine < 0 || int(engine) >= len(engines) {
			return fmt.Errorf("unknown engine %d", int(engine))
		}
		o.engine = engine
		return nil
	}
}
