package committer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/prmerge"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
)

// CommitOption adjusts a commit: one Commit, Plan or CommitPullRequest
// call, or every commit of a Queue (NewQueue). An option that has no
// meaning for the call it is given to is refused with an ErrInvalid
// *Error before any request: Squash and WithMaxBatch everywhere but
// NewQueue; ExpectHead, Tag and WithPullRequestOnProtected by NewQueue
// (as is an engine a Queue cannot use, see NewQueue); Tag together with
// WithPullRequestOnProtected anywhere. CommitPullRequest passes its
// options on to Commit (with CreateBranchFrom(base) first).
type CommitOption func(*commitOptions) error

type commitOptions struct {
	createFrom string
	expectHead string
	squash     bool
	maxBatch   int    // 0: the default
	engine     Engine // EngineGitData unless WithEngine
	tag        refs.Tag
	// onProtected: WithPullRequestOnProtected.
	onProtected *onProtected
	// rebuild: the base's head a pull request's head branch is rebuilt on
	// (see rebuildOnto).
	rebuild *onto
}

// onto is a commit and its tree.
type onto struct{ head, tree string }

// rebuildOnto re-runs the change set on the commit head (tree tree) of
// a pull request's base, instead of on the branch's head, and makes the
// commit's parents [head, the branch's head]: a fast-forward of the
// branch, as GitHub's "Update branch" merge commit is. Only with
// ExpectHead and the git-data engine (see rebuildFor).
func rebuildOnto(head, tree string) CommitOption {
	return func(o *commitOptions) error { o.rebuild = &onto{head, tree}; return nil }
}

// alone reports whether a commit with these options must land by itself,
// never batched with other change sets: it pins the head (ExpectHead) or
// moves a tag with the branch (Tag).
func (co commitOptions) alone() bool {
	return co.expectHead != "" || co.tag.Name != "" || co.rebuild != nil
}

// CreateBranchFrom creates the branch from ref (a branch name or a commit
// SHA) when it does not exist (or when its name only redirects to another
// branch, as GitHub's does after a rename). The new branch points straight
// at the new commit, built on ref's head. If another writer creates the
// branch first, the commit is built on the branch it finds. By default a
// missing branch is an ErrNotFound error.
func CreateBranchFrom(ref string) CommitOption {
	return func(o *commitOptions) error { o.createFrom = ref; return nil }
}

// ExpectHead makes the commit land only on the head sha: when the branch's
// head is not sha, it fails with ErrConflict and commits nothing. Without
// it, the commit is rebuilt on whatever head it finds. On the git-data and
// graphql engines the head is pinned at the write too (updateRefs'
// beforeOid, createCommitOnBranch's expectedHeadOid), so it holds even if
// the branch moves, or is reset backwards, after the read; on git-data's
// REST fallback (GitHub without updateRefs, WithFastForwardRefUpdates) it
// is checked when the head is read only. It has no meaning for a Queue.
func ExpectHead(sha string) CommitOption {
	return func(o *commitOptions) error { o.expectHead = sha; return nil }
}

// Squash lands each batch of a Queue as one commit whose message lists the
// batch's messages. The default chains one commit per change set. It has
// no meaning for a single commit.
func Squash() CommitOption {
	return func(o *commitOptions) error { o.squash = true; return nil }
}

// WithMaxBatch bounds the change sets a Queue lands with one ref update.
// The default is 64, as for the batches of concurrent Commit calls, and
// fewer while the credential's write pacer is busy: a batch then carries
// the change sets whose writes the pacer sends within 15 seconds (at least
// 5), so that a change set lands after the writes of those before it, not
// after a whole long batch's. WithMaxBatch sets the bound exactly.
func WithMaxBatch(n int) CommitOption {
	return func(o *commitOptions) error {
		if n < 1 || n > 1000 {
			return fmt.Errorf("max batch must be between 1 and 1000, got %d", n)
		}
		o.maxBatch = n
		return nil
	}
}

// onProtected is WithPullRequestOnProtected's: where a refused commit goes.
type onProtected struct {
	head string // "": generated from the message
	pr   PullRequestOptions
}

// WithPullRequestOnProtected turns a refusal by a pull-request rule
// (ErrProtected with Error.Rule "pull_request") into a pull request: the
// same change set is committed to the branch head, created from the
// protected branch, and a pull request from head into it is opened, as
// CommitPullRequest does. The Result is then head's commit, with
// PullRequest set. An empty head is generated from the change set's
// message ("ghcommitter/" and 12 hex digits of its SHA-256), so a re-run
// reuses the pull request. A refusal by any other rule is returned as it
// is. The default returns every refusal.
func WithPullRequestOnProtected(head string, pr PullRequestOptions) CommitOption {
	return func(o *commitOptions) error {
		if head != "" {
			if err := ValidateBranch(head); err != nil {
				return err
			}
		}
		if err := pr.checkMerge(); err != nil {
			return err
		}
		o.onProtected = &onProtected{head: head, pr: pr}
		return nil
	}
}

// protectedHead is the head branch of WithPullRequestOnProtected's pull
// request for a change set with message.
func (o *onProtected) protectedHead(message string) string {
	if o.head != "" {
		return o.head
	}
	sum := sha256.Sum256([]byte(message))
	return "ghcommitter/" + hex.EncodeToString(sum[:])[:12]
}

// A tag on the landed commit, moved in the same updateRefs call as the
// branch: a release never has a branch without its tag, nor a tag on a
// commit that lost the race. On the REST fallback (GitHub without
// updateRefs) the tag is created right after the branch moved: not
// atomic there.

// TagSpec is the tag of Tag.
type TagSpec struct {
	// Name is the tag's name, without "refs/tags/".
	Name string
	// Message makes the tag an annotated tag object with this message (one
	// more write per attempt: POST git/tags). "" makes a lightweight tag.
	Message string
	// Force lets the tag move when it already exists, which is otherwise
	// refused with ErrConflict, with nothing moved.
	Force bool
}

// Tag points the tag t.Name at the landed commit, in the same ref update
// that moves the branch (GraphQL updateRefs: both refs move or neither).
// A tagged commit goes through the git-data engine (auto picks it; an
// explicit graphql or contents engine is ErrInvalid), is not batched with
// other change sets, and a Queue refuses it. Where GitHub has no
// updateRefs, the tag is created right after the branch moved (REST),
// which is not atomic. A change set the branch already holds (a no-op)
// creates no tag. The default is no tag.
func Tag(t TagSpec) CommitOption {
	return func(o *commitOptions) error {
		if t.Name == "" && (t.Message != "" || t.Force) {
			return errors.New("tag: a message or Force needs the tag's name")
		}
		if err := validateTagName(t.Name); err != nil {
			return err
		}
		if t.Message != "" && strings.TrimSpace(t.Message) == "" {
			return errors.New("tag message must not be blank")
		}
		o.tag.Name, o.tag.Message, o.tag.Force = t.Name, t.Message, t.Force
		return nil
	}
}

// validateTagName refuses what git check-ref-format refuses in a tag name
// (the branch rules, with the tag's own wording).
func validateTagName(name string) error {
	if strings.HasPrefix(name, "refs/") {
		return fmt.Errorf("tag %q: give the name without \"refs/tags/\"", name)
	}
	if err := ValidateBranch(name); err != nil {
		return fmt.Errorf("tag name: %s", strings.TrimPrefix(err.Error(), "branch "))
	}
	return nil
}

// PullRequestOptions describes the pull request CommitPullRequest opens.
type PullRequestOptions struct {
	// Title defaults to the first line of the change set's message.
	Title string
	// Body defaults to the rest of the change set's message.
	Body string
	// Draft opens the pull request as a draft. The default is ready for
	// review. It has no effect on a pull request that is already open.
	Draft bool
	// Labels, Reviewers (user logins) and Assignees are added to the pull
	// request, opened or reused, when it does not have them yet; none is
	// ever removed.
	Labels, Reviewers, Assignees []string
	// KeepTitle and KeepBody keep a reused pull request's title and body
	// as they are (a person may have edited them). By default they follow
	// each commit: Title and Body, or the message's defaults.
	KeepTitle, KeepBody bool
	// Merge is what is done once the pull request is open or updated:
	// MergeNow merges it at once, MergeAuto enables auto-merge, MergeQueue
	// adds it to the base branch's merge queue; each is pinned to the head
	// commit this call made (expectedHeadOid), so a head that moved since
	// is never merged. The default, MergeNone, leaves it open.
	Merge MergeMode
	// MergeMethod is "merge", "squash" or "rebase", for MergeNow and
	// MergeAuto. The default is the first the repository and the base
	// branch's rules allow, preferring squash.
	MergeMethod string
	// Wait, when positive, waits up to Wait for the pull request to merge,
	// reading it with conditional GETs (a 304 costs none of the primary
	// rate limit) and a GraphQL read of its checks and queue entry, at
	// intervals growing from 1 s to 15 s. Not merged in time, closed,
	// removed from the merge queue and a failed required check are errors
	// of their own kinds (ErrMergeTimeout, ErrPullRequestClosed,
	// ErrDequeued, ErrCheckFailed), returned with the result. The default,
	// 0, does not wait.
	Wait time.Duration
	// OnWait, when set, hears each change of what Wait waits for.
	OnWait func(MergeProgress)
	// NoRebuild leaves a stale pull request as it is. By default, when a
	// merge or a wait is asked for and the pull request conflicts with
	// its base (GitHub's mergeStateStatus DIRTY) or is behind it where the
	// rules require it to be up to date (BEHIND), on this call or while
	// waiting, it is rebuilt: a new commit on the head branch whose tree
	// is the change set re-run on the base's head (edit functions on the
	// fresh content, preconditions checked there) and whose parents are
	// [the base's head, the head branch's head] — a fast-forward, as
	// GitHub's "Update branch" makes a merge commit, moved with the same
	// compare-and-swap as any commit, through the git-data engine (GraphQL
	// makes no merge commit). Auto-merge, the queue entry or the merge is
	// then asked again, pinned to the new head. When the head branch holds
	// commits this change set did not make (another writer pushed to it:
	// any commit whose message is not the change set's, the Edit-Id
	// trailer aside), or the change set no longer applies on the base's
	// head (a failed precondition), nothing is rebuilt: the error is
	// ErrPullRequestStale and the pull request is left as it is.
	NoRebuild bool
}

// MergeMode is what CommitPullRequest does with the open pull request
// (PullRequestOptions.Merge).
type MergeMode = prmerge.Mode

// The merge modes.
const (
	MergeNone  = prmerge.None
	MergeNow   = prmerge.Now
	MergeAuto  = prmerge.Auto
	MergeQueue = prmerge.Queue
)

// MergeProgress is one step of PullRequestOptions.Wait.
type MergeProgress = prmerge.Progress

// checkMerge refuses merge options that cannot work, before any request.
func (pr PullRequestOptions) checkMerge() error {
	switch {
	case pr.Merge < MergeNone || pr.Merge > MergeQueue:
		return fmt.Errorf("unknown merge mode %d", pr.Merge)
	case pr.MergeMethod != "" && pr.MergeMethod != "merge" && pr.MergeMethod != "squash" && pr.MergeMethod != "rebase":
		return fmt.Errorf("merge method %q: want merge, squash or rebase", pr.MergeMethod)
	case pr.MergeMethod != "" && pr.Merge != MergeNow && pr.Merge != MergeAuto:
		return errors.New("MergeMethod needs MergeNow or MergeAuto (a merge queue uses its own method)")
	case pr.Wait < 0:
		return fmt.Errorf("wait %s must not be negative", pr.Wait)
	case pr.Draft && pr.Merge != MergeNone:
		return errors.New("a draft pull request cannot be merged: drop Draft or Merge")
	}
	return nil
}

// PullRequestResult describes the commit CommitPullRequest made and the pull
// request it proposes.
type PullRequestResult struct {
	Commit *Result `json:"commit"`
	// Number and URL (the pull request's html_url) identify the pull request.
	// Number is 0 when none was opened: the change set was a no-op and head
	// holds no commit that base lacks, so there is nothing to propose.
	Number int    `json:"number"`
	URL    string `json:"url"`
	// Created is true when this call opened the pull request, false when one
	// was already open from head to base and was reused.
	Created bool `json:"created"`
	// Operation is PullRequestCreated, PullRequestUpdated or
	// PullRequestUnchanged; "" when Number is 0.
	Operation string `json:"operation,omitempty"`
	// Merge is what became of the pull request when PullRequestOptions
	// asked for a merge or a wait; nil otherwise, and when none was opened.
	Merge *MergeOutcome `json:"merge,omitempty"`
}
