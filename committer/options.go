package committer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns"
)

// Option configures a Committer. Options validate their input: New returns
// the first option error.
type Option func(*options) error

type options struct {
	httpClient *http.Client
	// observer receives every Event (WithObserver).
	observer    func(Event)
	maxAttempts int
	backoff     Backoff
	// logger is the HTTP client's (ghclient.WithLogger, from
	// ghclient.ConfigOf), else one that discards.
	logger *slog.Logger
	// sleep is how the commit loop waits between attempts; the package's
	// tests replace it.
	sleep       func(ctx context.Context, d time.Duration) error
	inlineLimit int64
	concurrency int
	signer      Signer
	// graphqlURL is the client's GraphQL endpoint (ghclient.WithGraphQLURL,
	// from ghclient.ConfigOf), "" when derived from its base URL.
	graphqlURL string
	// secondaryFloor is the least wait after a secondary rate limit that
	// came without Retry-After (GitHub's docs: at least a minute): New
	// takes it from the HTTP client (ghclient.ConfigOf).
	secondaryFloor time.Duration
	landingGrace   time.Duration
	editGrace      time.Duration // WithBatchEditGrace
	// process names the coordinator registry a committer's commits go
	// through: "" is the process's own. Tests give a writer that must not
	// wait for another (it runs inside that one's request) a registry of
	// its own, as if it ran in another process.
	process string
	// fastForwardOnly moves branches by REST fast-forward only (see
	// WithFastForwardRefUpdates).
	fastForwardOnly bool
	// maxLimitWait is the longest rate-limit wait the HTTP client accepts
	// (ghclient.RateLimits.MaxWait, from ghclient.ConfigOf): a write
	// refused with a longer one ends the work at once, as a read does.
	maxLimitWait time.Duration
	// turns are the writers' turns at a branch (WithTurns, WithTurnDir);
	// nil: none (WithoutTurns).
	turns turns.Turns
	// turnWait bounds a commit's waits for turns, over all its attempts
	// (turns.DefaultMaxWait when 0); tests shorten it.
	turnWait     time.Duration
	noLFS        bool              // WithUploads
	lfsTransport http.RoundTripper // WithUploads
}

func defaultOptions() options {
	return options{
		maxAttempts: 10,
		backoff:     AdaptiveBackoff(50*time.Millisecond, 10*time.Second),
		logger:      slog.New(discardHandler{}),
		sleep:       sleepContext,
		inlineLimit: 256 << 10,
		concurrency: 4,

		landingGrace: DefaultLandingGrace,
		editGrace:    DefaultBatchEditGrace,
		turns:        turns.InProcess(),
	}
}

// WithHTTPClient sends every request through hc, which carries the
// caller's authentication (a token transport, a GitHub App transport, or the
// *http.Client of any go-github client: client.Client()), proxy and tracing.
// The client alone owns the API's base URL, the GraphQL endpoint, the
// logger and the rate-limit handling: a client made by ghclient.Wrap or
// ghclient.NewHTTPClient is used as it is, with what its options set
// (ghclient.WithBaseURL, ghclient.WithGraphQLURL, ghclient.WithLogger,
// ghclient.WithRateLimits); any other client is wrapped with
// ghclient.Wrap and its defaults, for https://api.github.com/ (so for
// another API, or a go-github client's BaseURL, wrap it first:
// ghclient.Wrap(gh.Client(), gh.BaseURL.String())). The default is an
// *http.Client with no authentication, for https://api.github.com/.
//
// Commits of one credential to a branch are batched, and share one write
// pacer, however many clients carry it: clients built one per caller over
// oauth2's transport (oauth2.NewClient) are one credential by their
// token, over ghinstallation's by their App installation. For any other
// authenticating transport, name its credential with
// ghclient.Wrap(hc, baseURL, ghclient.WithCredential(name)); unnamed, each
// such transport value is a credential of its own.
func WithHTTPClient(hc *http.Client) Option {
	return func(o *options) error {
		if hc == nil {
			return fmt.Errorf("HTTP client must not be nil")
		}
		o.httpClient = hc
		return nil
	}
}

// WithFastForwardRefUpdates moves branches with REST's fast-forward
// update (PATCH git/refs, force=false) only, never with GraphQL updateRefs:
// for a GitHub Enterprise Server or a proxy that does not serve it. A
// fast-forward check is not a compare-and-swap: after someone resets the
// branch backwards to an ancestor of the head a commit was built on, the
// update still lands and brings back the commits the reset removed, and
// ExpectHead is checked when the head is read only. The default is a
// strict compare-and-swap: updateRefs with beforeOid = the head the commit
// was built on, falling back to the fast-forward by itself where GitHub
// has no updateRefs.
func WithFastForwardRefUpdates() Option {
	return func(o *options) error {
		o.fastForwardOnly = true
		return nil
	}
}

// WithObserver calls fn for each event of a commit's life: each attempt,
// each lost race for the branch, each rate-limit wait and write-pacer wait
// (also those the HTTP layer makes a request do before sending it), and
// the landing (see Event), so a program can count and trace them. Calls
// of one Committer never overlap, but may come from any goroutine working
// on the commit (parallel uploads; a batch runs on the coordinator's
// goroutine); fn must not block, nor commit to the branch itself. When
// change sets of several Committers land in one batch (see Commit), each
// one's fn sees the batch's events. The progress events come through fn
// too: EventUpload after each blob upload (Done of Total blobs, Bytes of
// TotalBytes) and EventTree after each create-tree request (Done of Total
// for the tree being built), for progress displays; they name the
// Repository, not the Branch or Attempt. The default observes nothing.
func WithObserver(fn func(Event)) Option {
	return func(o *options) error {
		if fn == nil {
			return fmt.Errorf("observer must not be nil")
		}
		o.observer = fn
		return nil
	}
}

// WithRetries sets how many attempts one commit makes and how long it
// waits between them after a lost race. Each attempt reads the head,
// builds on it and tries to move the branch; an attempt that found the
// branch moved again before sending any write is made again without
// counting, up to maxAttempts times more. Running out is an ErrConflict,
// or an ErrRateLimited when GitHub's rate limit refused the last attempt.
// maxAttempts must be between 1 and 1000, or 0 for the default, 10; a nil
// b keeps the default wait, AdaptiveBackoff(50ms, 10s).
//
// After a lost race the commit waits b's wait. Git Data, whose attempt
// sends three writes, listens while it waits: after each step of at least
// the lost attempt's duration (a slot) it reads the branch's ref
// (conditionally: an unchanged ref costs a 304); a step in which the
// branch moved counts a third of its time and as contention seen
// (Contention.Landed), and the attempt starts only after a quiet step, so
// that writers that share nothing but the branch take turns at it; after
// 16 steps, or four quiet slots, it starts. A one-write engine (GraphQL,
// contents, auto) looks just before its one write; in a wait over eight
// slots it reads the ref once, four in, and starts if the branch has not
// moved since. On a busy branch (its head
// committed by another writer within the last 10 seconds, as GitHub's
// reply dates it) and after a lost race, an attempt looks at the branch
// again before its writes and alongside its commit, and stops before a
// write that would be spent for nothing; the first attempt on a busy
// branch first waits b's wait for Contention{Attempt: 1}.
func WithRetries(maxAttempts int, b Backoff) Option {
	return func(o *options) error {
		if maxAttempts < 0 || maxAttempts > 1000 {
			return fmt.Errorf("max attempts must be between 1 and 1000 (0: the default), got %d", maxAttempts)
		}
		if maxAttempts > 0 {
			o.maxAttempts = maxAttempts
		}
		if b != nil {
			o.backoff = b
		}
		return nil
	}
}

// DefaultLandingGrace is how long a landing write already sent is waited
// for after the caller's context ends: GitHub Actions, for one, sends
// SIGKILL about 10 seconds after SIGINT.
const DefaultLandingGrace = 5 * time.Second

// WithLandingGrace sets how long a landing write (the ref update or branch
// creation of the Git Data engine, the GraphQL mutation, the contents write,
// the first commit of an empty repository) that was already sent when the
// context ended is still waited for: its reply decides the outcome. Once
// sent, a landing write is not cancelled with the context, because GitHub
// may apply it anyway; when no reply comes within d, the branch is read
// (for at most d/2 more) and the commit is reported landed, not landed when
// that is proven (the write was never sent, or the branch moved past
// without it), or ErrUnknownOutcome. A write not yet sent when the context
// ends is not sent. d must be positive; the default is DefaultLandingGrace.
func WithLandingGrace(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("landing grace %v: must be positive", d)
		}
		o.landingGrace = d
		return nil
	}
}

// Uploads tunes how a commit sends file contents (WithUploads). A zero
// field keeps its default.
type Uploads struct {
	// InlineLimit is the largest text file sent inline in the create-tree
	// request; larger files, and any file that is not valid UTF-8, are
	// uploaded as blobs first (once, whatever the number of attempts). It
	// must be at most 1 MiB; a negative InlineLimit uploads every file as
	// a blob. The default is 256 KiB.
	InlineLimit int64
	// Parallelism bounds the uploads one commit, or one batch of change
	// sets, sends at once: its blob uploads, and the create-tree requests
	// of a batch whose trees are built side by side. Reads are not bounded
	// by it. It is not the HTTP client's cap on the requests in flight for
	// the repository (ghclient.WithConcurrency), which every request of
	// every commit shares and which still applies beneath it. It must be
	// at most 64. The default is 4.
	Parallelism int
	// NoLFS commits the bytes of paths that the branch's .gitattributes
	// routes through Git LFS (filter=lfs) as they are. The default commits
	// a pointer file there and stores the content in LFS storage.
	NoLFS bool
	// LFSTransport carries the requests to LFS storage (the hrefs of the
	// batch API's replies), which get only the headers the reply gives,
	// never the HTTP client's credentials. The default is a clone of
	// http.DefaultTransport.
	LFSTransport http.RoundTripper
}

// WithUploads sets how a commit sends file contents (see Uploads). The
// default is Uploads{}.
func WithUploads(u Uploads) Option {
	return func(o *options) error {
		if u.InlineLimit > 1<<20 {
			return fmt.Errorf("inline limit must be at most 1 MiB (negative: none), got %d", u.InlineLimit)
		}
		if u.Parallelism < 0 || u.Parallelism > 64 {
			return fmt.Errorf("upload parallelism must be between 1 and 64 (0: the default), got %d", u.Parallelism)
		}
		switch {
		case u.InlineLimit < 0:
			o.inlineLimit = 0
		case u.InlineLimit > 0:
			o.inlineLimit = u.InlineLimit
		}
		if u.Parallelism > 0 {
			o.concurrency = u.Parallelism
		}
		o.noLFS, o.lfsTransport = u.NoLFS, u.LFSTransport
		return nil
	}
}

// Signer signs a commit: it reads the commit's payload (its git encoding
// without the signature) from r and writes an armored signature to w.
// openpgp.NewSigner (package committer/openpgp, an OpenPGP key) and
// sshsign.NewSigner (package committer/sshsign, an SSH key, as git's
// gpg.format=ssh) return one; a go-github MessageSigner is one too.
type Signer interface {
	Sign(w io.Writer, r io.Reader) error
}

// WithSigner signs every commit with s (an OpenPGP or SSH key); the
// signature is stored in the commit's gpgsig header. The default sends no
// signature. Signing requires an author (ChangeSet.Author). The first commit
// of an empty repository goes through the contents API, which takes no
// signature: GitHub signs that one itself.
func WithSigner(s Signer) Option {
	return func(o *options) error {
		if s == nil {
			return fmt.Errorf("signer must not be nil")
		}
		o.signer = s
		return nil
	}
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (h discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h discardHandler) WithGroup(string) slog.Handler           { return h }

// DefaultBatchEditGrace is how long a batch waits for one of its change
// sets' edit functions (see WithBatchEditGrace).
const DefaultBatchEditGrace = 10 * time.Second

// WithBatchEditGrace bounds how long a batch waits for an edit function of
// this Committer's change sets while others share the batch: one that has
// not returned d after it was called takes its change set out of the
// batch, with an error wrapping ErrEditTooSlow, and the others land; its
// result, when it comes, is discarded. A change set alone (a Commit that
// found the branch idle) runs on its caller's context, unbounded. d must
// be positive; the default is DefaultBatchEditGrace.
func WithBatchEditGrace(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("batch edit grace %v: must be positive", d)
		}
		o.editGrace = d
		return nil
	}
}

// WithTurns makes every attempt of a commit first wait for its turn at
// the branch from t (see package committer/turns): writers that share t
// and start at once then land one after another instead of racing and
// spending writes on lost attempts. The key is the API, the repository and
// the branch (turns.Key). A turn is an optimization only: writers that do
// not share t still race, and the compare-and-swap ref update keeps every
// guarantee. A commit waits for turns at most a minute in all, over all its
// attempts (a holder may be stuck); then, or when t refuses a turn, it
// races as before. Dry runs (Plan) take no turn. t must not be nil; the
// default is turns.InProcess(): the writers of this process take turns,
// and nothing is kept outside it.
func WithTurns(t turns.Turns) Option {
	return func(o *options) error {
		if t == nil {
			return fmt.Errorf("turns must not be nil (WithoutTurns races without them)")
		}
		o.turns = t
		return nil
	}
}

// WithTurnDir makes the writers of one machine take turns at a branch
// through lock files in dir: WithTurns(turns.Files(dir)), whose doc says
// what the directory must be and what is kept in it (the ghcommitter
// command passes turns.DefaultDir(), ghcommitter/turns in the user's cache
// directory). "" keeps the turns within the process (turns.InProcess).
// The default writes no file.
func WithTurnDir(dir string) Option {
	return func(o *options) error {
		t, err := turns.Files(dir)
		if err != nil {
			return fmt.Errorf("turn directory %q: %w", dir, err)
		}
		o.turns = t
		return nil
	}
}

// WithoutTurns makes every attempt race for the branch without waiting for
// the other writers (see WithTurns).
func WithoutTurns() Option {
	return func(o *options) error {
		o.turns = nil
		return nil
	}
}
