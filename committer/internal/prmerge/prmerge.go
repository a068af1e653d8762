// Package prmerge closes the pull-request loop after the change landed on
// the head branch and its pull request is open: it merges the pull
// request at once (GraphQL mergePullRequest), enables auto-merge
// (enablePullRequestAutoMerge) or adds it to the base branch's merge queue
// (enqueuePullRequest), each pinned to the head commit the change made
// (expectedHeadOid: a head that moved is never merged blindly), and it
// waits for the merge.
//
// Its writes go through the Committer's one HTTP client, so the
// credential's write pacer spaces them with every other write of the
// process; it sends each once (a lost reply is settled by reading the pull
// request, never by sending it again). Waiting reads the pull request with
// conditional GETs (the client's ETag cache: a 304 costs none of the
// primary rate limit) at growing, jittered intervals, and, paced the same,
// a GraphQL read of what REST does not show (the required checks, the
// merge-queue entry). Every error is a *kind.Cause: the package committer
// makes its *Error of it.
package prmerge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// Mode is what is asked of the open pull request.
type Mode int

// The modes.
const (
	None  Mode = iota // nothing: only Wait, if set
	Now               // merge it at once
	Auto              // enable auto-merge
	Queue             // add it to the merge queue
)

// Request is what to do once the pull request is open.
type Request struct {
	Mode Mode
	// Method is "merge", "squash" or "rebase"; "" picks the first the
	// repository and its rules allow, preferring squash.
	Method string
	// Wait is how long to wait for the merge; 0 does not wait.
	Wait time.Duration
	// Progress, when set, hears each change of what is waited for.
	Progress func(Progress)
	// Rebuild rebuilds a stale pull request (see rebuild) through
	// Env.Rebuild.
	Rebuild bool
}

// Progress is one step of a wait, for a person to read.
type Progress struct {
	Number int
	Waited time.Duration // since the wait started
	Detail string        // "waiting for checks", "queued (AWAITING_CHECKS)", ...
}

// How a pull request merged (Outcome.Via).
const (
	ViaNow   = "merge-now"
	ViaAuto  = "auto-merge"
	ViaQueue = "merge-queue"
	ViaOther = "other" // merged while waited for, by someone or something else
)

// Outcome is what became of the pull request.
type Outcome struct {
	// Merged is true once the pull request is merged; Commit is then the
	// merge commit (for a squash or a rebase, the commit on the base
	// branch that merged it) and Via how it merged.
	Merged bool   `json:"merged"`
	Commit string `json:"merge_commit,omitempty"`
	Via    string `json:"merged_via,omitempty"`
	// Method is the merge method asked for (merge-now, auto-merge); ""
	// for the merge queue, which uses its own.
	Method string `json:"merge_method,omitempty"`
	// AutoMerge: this call enabled auto-merge. Queued: it added the pull
	// request to the merge queue.
	AutoMerge bool `json:"auto_merge,omitempty"`
	Queued    bool `json:"queued,omitempty"`
	// Note says what was done instead of what was asked, when anything
	// was (auto-merge asked of a pull request already mergeable).
	Note string `json:"note,omitempty"`
	// Rebuilds counts the rebuilds of the stale pull request (see
	// rebuild); Head is then the head commit the last one made.
	Rebuilds int    `json:"rebuilds,omitempty"`
	Head     string `json:"head,omitempty"`
	// refused: the refusals of the merge asked for while waiting (see retry).
	refused int
	// rebuiltOn: the base's head the last rebuild was made on.
	rebuiltOn string
	// queue: the merge goes through the merge queue (Queue), whether this
	// call queued it or auto-merge will.
	queue bool
}

// Env is what the package sends through.
type Env struct {
	REST        *rest.Client
	GQL         *ghgraphql.Client
	Owner, Repo string
	// Sleep waits between the reads of a wait (the Committer's).
	Sleep func(ctx context.Context, d time.Duration) error
	// Rebuild commits the change set to the head branch again, re-run on
	// the base's head baseHead (tree baseTree), as a commit whose parents
	// are [baseHead, old], moving the branch only from old; it returns
	// the new head. Ours tells the change set's commits by their message.
	Rebuild func(ctx context.Context, old, baseHead, baseTree string) (string, error)
	Ours    func(message string) bool
}

// Target is the open pull request and the head commit it must merge.
type Target struct {
	Number int
	Base   string
	Head   string // the head branch's commit the change made (expectedHeadOid)
}

// Run does req to the pull request t and, with req.Wait, waits for its
// merge. The outcome is returned with the error too, saying what was done.
func Run(ctx context.Context, env Env, t Target, req Request) (*Outcome, error) {
	out := &Outcome{}
	if req.Mode == None && req.Wait == 0 {
		return out, nil
	}
	in, err := readInfo(ctx, env, t, req.Mode)
	if err != nil {
		return out, err
	}
	if in.Merged {
		out.Merged, out.Commit, out.Via = true, in.MergeCommit, ViaOther
		return out, nil
	}
	if in.State != "OPEN" {
		return out, &kind.Cause{Kind: kind.PullClosed, Err: fmt.Errorf("pull request #%d is %s", t.Number, lower(in.State)),
			Hint: "the change is on the head branch; reopen the pull request, or run again to open a new one"}
	}
	if req.Rebuild && stale(in.MergeState) {
		if in, err = rebuilt(ctx, env, &t, req, in.HeadOid, out); err != nil {
			return out, err
		}
		if req.Progress != nil {
			req.Progress(Progress{Number: t.Number, Detail: rebuiltDetail(&t, out)})
		}
	}
	err = act(ctx, env, t, req, in, out)
	if err != nil && (req.Mode == Now || req.Mode == Auto) && req.Wait > 0 && waitable(err) {
		out.refused, err = 1, nil // asked again once GitHub allows it (see retry)
	}
	if err != nil || out.Merged || req.Wait == 0 {
		return out, err
	}
	return out, wait(ctx, env, &t, req, in.ID, out)
}

// act sends the write req.Mode asks for.
func act(ctx context.Context, env Env, t Target, req Request, in *info, out *Outcome) error {
	switch req.Mode {
	case Now:
		return mergeNow(ctx, env, t, req, in, out)
	case Auto:
		return autoMerge(ctx, env, t, req, in, out)
	case Queue:
		return enqueue(ctx, env, t, in, out)
	}
	return nil
}

// pickMethod is req.Method, or the first method the repository and the
// base branch's rules allow, preferring squash.
func pickMethod(ctx context.Context, env Env, t Target, req Request, in *info) (string, error) {
	if req.Method != "" {
		return req.Method, nil
	}
	rules, err := env.REST.MergeRules(ctx, t.Base)
	if err != nil {
		return "", fmt.Errorf("read the rules of %s for their merge methods: %w", t.Base, err)
	}
	ruled := rules.Methods
	for _, m := range []string{"squash", "merge", "rebase"} {
		if in.allows(m) && (ruled == nil || slices.Contains(ruled, m)) {
			return m, nil
		}
	}
	return "", &kind.Cause{Kind: kind.Invalid, Err: fmt.Errorf("no merge method is allowed both by the repository and by the rules of %s", t.Base)}
}

// ErrNoQueue is the cause of Queue's refusal where the base branch has no
// merge queue.
var ErrNoQueue = errors.New("the base branch has no merge queue")

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
