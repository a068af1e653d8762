package committer

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/google/go-github/v66/github"
)

// Option configures a Committer. Options validate their input: New returns
// the first option error.
type Option func(*options) error

// Backoff returns how long to wait before attempt number attempt (2, 3, …)
// after a lost race for the branch; lost is how long the attempt that lost
// took, from reading the head to the refused ref update.
type Backoff func(attempt int, lost time.Duration) time.Duration

type options struct {
	maxAttempts int
	backoff     Backoff
	logger      *slog.Logger
	sleep       func(ctx context.Context, d time.Duration) error
	inlineLimit int64
	concurrency int
	signer      github.MessageSigner
	progress    func(uploaded int64)
}

func defaultOptions() options {
	return options{
		maxAttempts: 10,
		backoff:     AdaptiveBackoff(50*time.Millisecond, 10*time.Second),
		logger:      slog.New(discardHandler{}),
		sleep:       sleepContext,
		inlineLimit: 256 << 10,
		concurrency: 4,
	}
}

// WithMaxAttempts bounds the attempts one commit makes (each attempt reads
// the head, builds on it and tries to move the branch). The default is 10.
func WithMaxAttempts(n int) Option {
	return func(o *options) error {
		if n < 1 || n > 1000 {
			return fmt.Errorf("max attempts must be between 1 and 1000, got %d", n)
		}
		o.maxAttempts = n
		return nil
	}
}

// WithBackoff sets the wait between attempts after a lost race. The default
// is AdaptiveBackoff(50ms, 30s).
func WithBackoff(b Backoff) Option {
	return func(o *options) error {
		if b == nil {
			return fmt.Errorf("backoff must not be nil")
		}
		o.backoff = b
		return nil
	}
}

// WithLogger logs each attempt, request step and wait at debug level. The
// default discards logs. Nothing is ever logged above debug level.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return fmt.Errorf("logger must not be nil")
		}
		o.logger = l
		return nil
	}
}

// WithSleep replaces how the committer waits between attempts, for tests
// that must not sleep. sleep must return ctx.Err() when ctx ends first. The
// default waits on a timer.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) error {
		if sleep == nil {
			return fmt.Errorf("sleep must not be nil")
		}
		o.sleep = sleep
		return nil
	}
}

// WithInlineLimit sets the largest text file sent inline in the create-tree
// request; larger files, and any file that is not valid UTF-8, are uploaded
// as blobs first (once, whatever the number of attempts). The default is
// 256 KiB. 0 uploads every file as a blob.
func WithInlineLimit(n int64) Option {
	return func(o *options) error {
		if n < 0 || n > 1<<20 {
			return fmt.Errorf("inline limit must be between 0 and 1 MiB, got %d", n)
		}
		o.inlineLimit = n
		return nil
	}
}

// WithConcurrency bounds the blob uploads and tree reads one commit runs at
// once. The default is 4.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n < 1 || n > 64 {
			return fmt.Errorf("concurrency must be between 1 and 64, got %d", n)
		}
		o.concurrency = n
		return nil
	}
}

// WithSigner signs every commit with s (for example an OpenPGP key) through
// go-github's commit signer; the signature is stored in the commit's gpgsig
// header. The default sends no signature. Signing requires an author.
func WithSigner(s github.MessageSigner) Option {
	return func(o *options) error {
		if s == nil {
			return fmt.Errorf("signer must not be nil")
		}
		o.signer = s
		return nil
	}
}

// WithProgress calls fn after each blob upload with the number of bytes it
// carried, for progress displays. fn may be called from several goroutines
// at once. The default reports nothing.
func WithProgress(fn func(uploaded int64)) Option {
	return func(o *options) error {
		o.progress = fn
		return nil
	}
}

// ExponentialBackoff waits a random duration between 0 and
// min(max, base·2^(attempt-2)) before attempt ("full jitter"), so writers that
// collided spread out instead of colliding again.
func ExponentialBackoff(base, max time.Duration) Backoff {
	return func(attempt int, _ time.Duration) time.Duration {
		return fullJitter(base, max, attempt)
	}
}

// AdaptiveBackoff is ExponentialBackoff whose base is the duration of the
// attempt that lost (at least min): writers collide for as long as an
// attempt takes, so that is the unit to spread them by, whether requests
// take 25ms (a local fake) or a second (GitHub under load). Tuned by
// measurement (BENCHMARKS.md): 16 and 64 separate processes all land within
// the default 10 attempts.
func AdaptiveBackoff(min, max time.Duration) Backoff {
	return func(attempt int, lost time.Duration) time.Duration {
		return fullJitter(maxDuration(min, lost), max, attempt)
	}
}

func fullJitter(base, max time.Duration, attempt int) time.Duration {
	if attempt < 2 || base <= 0 {
		return 0
	}
	ceil := base
	for i := 2; i < attempt && ceil < max; i++ {
		ceil *= 2
	}
	if ceil > max {
		ceil = max
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
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

// CommitOption adjusts one commit.
type CommitOption func(*commitOptions)

type commitOptions struct {
	createFrom string
	expectHead string
}

// CreateBranchFrom creates the branch from ref (a branch name or a commit
// SHA) when it does not exist. The new branch points straight at the new
// commit, built on ref's head. If another writer creates the branch first,
// the commit is built on the branch it finds. By default a missing branch is
// an ErrNotFound error.
func CreateBranchFrom(ref string) CommitOption {
	return func(o *commitOptions) { o.createFrom = ref }
}

// ExpectHead makes the commit a strict compare-and-swap: it lands only if the
// branch's head is sha when read; otherwise it fails with ErrConflict and
// commits nothing. Without it, the commit is rebuilt on whatever head it
// finds. (GitHub's ref update only checks that the move is a fast-forward, so
// a branch reset backwards to an ancestor of the head read still accepts it;
// ExpectHead closes that gap for callers that pin what they built on.)
func ExpectHead(sha string) CommitOption {
	return func(o *commitOptions) { o.expectHead = sha }
}

type discardHandler struct{}

func (discardHandler) Enabled(context.Context, slog.Level) bool  { return false }
func (discardHandler) Handle(context.Context, slog.Record) error { return nil }
func (h discardHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h discardHandler) WithGroup(string) slog.Handler           { return h }
