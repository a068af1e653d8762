// Package refs reads and moves the branch: its head, the landing ref
// update (a strict compare-and-swap with GraphQL updateRefs where GitHub
// has it, else the REST fast-forward), tags moved with it, and the reads
// that settle a ref write whose reply was lost.
package refs

import (
	"log/slog"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// Config is what Refs needs of the committer's options.
type Config struct {
	Repo            string // owner/name, for messages
	Logger          *slog.Logger
	LandingGrace    time.Duration // see internal/landing
	FastForwardOnly bool          // never updateRefs: every move is a REST fast-forward
}

// Refs reads and moves the refs of one repository.
type Refs struct {
	rest *rest.Client
	gql  *ghgraphql.Client
	cfg  Config
	swap refSwap
}

// New returns the Refs of the repository rc and gql send to.
func New(rc *rest.Client, gql *ghgraphql.Client, cfg Config) *Refs {
	return &Refs{rest: rc, gql: gql, cfg: cfg}
}

// refSwap is the state of the strict ref update.
type refSwap struct {
	mu   sync.Mutex
	id   string // the repository's node ID, read once
	off  bool   // GitHub has no updateRefs: every move is a REST fast-forward
	said bool   // the debug log said so
}
