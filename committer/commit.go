package committer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v66/github"
)

// Commit applies cs to branch as one new commit and moves the branch to it
// by fast-forward, never by force.
//
// Each attempt reads the branch's head, resolves cs against the head's tree
// (re-running edit functions on the content there), creates the tree and the
// commit, and updates the ref with force=false. When another writer moved the
// branch first (GitHub answers 422), it waits (see WithBackoff) and tries
// again on the new head, up to WithMaxAttempts attempts; running out is an
// ErrConflict. When the ref update gets no answer (timeout, reset, 5xx), it
// reads the ref back: if it holds the new commit, the commit landed. The ref
// update is never re-sent blindly, so a change set lands at most once.
//
// cs is validated as a whole before any request; an invalid change set is an
// ErrInvalid error and nothing is sent. A failed precondition is an
// ErrConflict and nothing is committed. When the branch already holds the
// change set's content, no commit is made and Result.NoOp is true.
func (c *Committer) Commit(ctx context.Context, branch string, cs *ChangeSet, opts ...CommitOption) (*Result, error) {
	const op = "commit to"
	co, p, err := c.begin(op, branch, cs, opts)
	if err != nil {
		return nil, err
	}
	return c.run(ctx, branch, cs, p, co)
}

// landed remembers a commit this call made, in case it turns out to have
// landed after all.
type landed struct {
	parent, tree string
	changes      []FileChange
	created      bool
}

func (c *Committer) run(ctx context.Context, branch string, cs *ChangeSet, p *prepared, co commitOptions) (*Result, error) {
	const op = "commit to"
	log := c.o.logger.With("repo", c.Repository(), "branch", branch)
	ours := map[string]landed{}
	result := func(commit string, l landed, attempts int) *Result {
		r := &Result{Repository: c.Repository(), Branch: branch, Commit: commit, Parent: l.parent, Tree: l.tree,
			Attempts: attempts, Files: l.changes, CreatedBranch: l.created, Changed: []string{}}
		for _, f := range l.changes {
			if f.Action != Unchanged {
				r.Changed = append(r.Changed, f.Path)
			}
		}
		return r
	}
	message := commitMessage(cs, p)
	var (
		lastHead  string
		bootstrap string
		bootTried bool
		wait      time.Duration // at least this long before the next attempt
		lost      time.Duration // how long the last lost attempt took
		unsettled []string      // our commits whose ref update had no clear answer
	)
	for attempt := 1; attempt <= c.o.maxAttempts; attempt++ {
		if attempt > 1 {
			d := max(c.o.backoff(attempt, lost), wait)
			wait = 0
			log.DebugContext(ctx, "backing off", "attempt", attempt, "wait", d)
			if err := c.o.sleep(ctx, d); err != nil {
				return nil, c.attemptsErr(op, branch, err, lastHead, attempt-1)
			}
		}
		log.DebugContext(ctx, "attempt", "attempt", attempt)
		started := time.Now()
		head, tree, err := c.readHead(ctx, branch)
		creating := false
		switch {
		case errors.Is(err, errBranchMissing):
			if co.createFrom == "" {
				return nil, c.missingBranch(op, branch)
			}
			head, tree, err = c.resolveBase(ctx, co.createFrom)
			if err != nil {
				return nil, c.fail(op, branch, nil, err)
			}
			creating = true
		case errors.Is(err, errEmptyRepo):
			if bootTried {
				return nil, c.fail(op, branch, nil, errors.New("repository is still empty after bootstrapping it"))
			}
			bootTried = true
			sha, err := c.bootstrap(ctx, branch, cs, p)
			if err != nil {
				return nil, c.fail(op, branch, nil, err)
			}
			if sha == "" {
				return &Result{Repository: c.Repository(), Branch: branch, Attempts: attempt, NoOp: true, Changed: []string{}}, nil
			}
			if sha != "-" {
				bootstrap = sha
			}
			attempt-- // the bootstrap is not a lost race
			continue
		case err != nil:
			return nil, c.fail(op, branch, nil, err)
		}
		if l, ok := ours[head]; ok {
			log.DebugContext(ctx, "our earlier commit is the head", "commit", head)
			return result(head, l, attempt), nil
		}
		// A ref update that had no clear answer may have landed after all,
		// and been built on since: never land the change set twice.
		for _, sha := range unsettled {
			in, err := c.landedIn(ctx, head, sha, ours[sha].parent)
			if err != nil {
				return nil, c.fail(op, branch, nil, err)
			}
			if in {
				log.DebugContext(ctx, "our earlier commit landed", "commit", sha, "head", head)
				return result(sha, ours[sha], attempt), nil
			}
		}
		if co.expectHead != "" && head != co.expectHead {
			e := c.fail(op, branch, ErrConflict, fmt.Errorf("head is %s, expected %s", short(head), short(co.expectHead)))
			e.Head = head
			return nil, e
		}
		lastHead = head
		res, err := c.resolve(ctx, newView(c, tree), p, false)
		if err != nil {
			e := c.fail(op, branch, nil, err)
			e.Head, e.Attempts = head, attempt
			return nil, e
		}
		noop := func() (*Result, error) {
			r := result(head, landed{parent: head, tree: tree}, attempt)
			r.Parent = ""
			r.NoOp = true
			if bootstrap != "" {
				r.NoOp, r.Bootstrapped = false, true
				r.Changed = nil
				for _, f := range res.changes {
					r.Changed = append(r.Changed, f.Path)
				}
			}
			return r, nil
		}
		if len(res.entries) == 0 && !creating {
			return noop()
		}
		if len(res.entries) == 0 {
			// Nothing to commit on a new branch: create it at its base.
			won, _, err := c.createRef(ctx, branch, head, "")
			if err != nil {
				return nil, c.fail(op, branch, nil, err)
			}
			if won {
				r, _ := noop()
				r.CreatedBranch = true
				return r, nil
			}
			continue
		}
		if err := c.upload(ctx, res.uploads); err != nil {
			return nil, c.fail(op, branch, nil, err)
		}
		newTree := tree
		if len(res.entries) > 0 {
			t, _, err := c.client.Git.CreateTree(ctx, c.owner, c.repo, tree, res.entries)
			if err != nil {
				return nil, c.fail(op, branch, nil, fmt.Errorf("create tree: %w", err))
			}
			newTree = t.GetSHA()
		}
		if newTree == tree {
			if creating {
				won, _, err := c.createRef(ctx, branch, head, "")
				if err != nil {
					return nil, c.fail(op, branch, nil, err)
				}
				if !won {
					continue
				}
				r, _ := noop()
				r.CreatedBranch = true
				return r, nil
			}
			return noop()
		}
		commit, err := c.createCommit(ctx, cs, message, head, newTree)
		if err != nil {
			return nil, c.fail(op, branch, nil, fmt.Errorf("create commit: %w", err))
		}
		l := landed{parent: head, tree: newTree, changes: res.changes, created: creating}
		ours[commit] = l
		var won, ambiguous bool
		if creating {
			won, ambiguous, err = c.createRef(ctx, branch, commit, head)
		} else {
			won, ambiguous, err = c.moveRef(ctx, branch, commit, head)
		}
		if ambiguous && !won {
			unsettled = append(unsettled, commit)
		}
		var re *refusedError
		if errors.As(err, &re) {
			log.DebugContext(ctx, "ref update refused by a rate limit", "wait", re.wait)
			wait = re.wait
			continue
		}
		if err != nil {
			e := c.fail(op, branch, nil, err)
			e.Head, e.Attempts = head, attempt
			return nil, e
		}
		if won {
			log.DebugContext(ctx, "landed", "commit", commit, "attempt", attempt)
			return result(commit, l, attempt), nil
		}
		lost = time.Since(started)
		log.DebugContext(ctx, "lost the race for the branch", "attempt", attempt, "head", head, "took", lost)
	}
	e := c.fail(op, branch, ErrConflict, fmt.Errorf("another writer moved the branch on each of %d attempts", c.o.maxAttempts))
	e.Head, e.Attempts = lastHead, c.o.maxAttempts
	e.Hint = "raise the attempt limit or spread the writers out"
	return nil, e
}

func (c *Committer) attemptsErr(op, branch string, err error, head string, attempts int) *Error {
	e := c.fail(op, branch, nil, err)
	e.Head, e.Attempts = head, attempts
	return e
}

func (c *Committer) createCommit(ctx context.Context, cs *ChangeSet, message, parent, tree string) (string, error) {
	commit := &github.Commit{
		Message: github.String(message),
		Tree:    &github.Tree{SHA: github.String(tree)},
		Parents: []*github.Commit{{SHA: github.String(parent)}},
	}
	if parent == "" {
		commit.Parents = nil
	}
	commit.Author = toAuthor(cs.Author)
	commit.Committer = toAuthor(cs.Committer)
	var opts *github.CreateCommitOptions
	if c.o.signer != nil {
		if commit.Author == nil {
			return "", errors.New("signing a commit needs an author")
		}
		if commit.Author.Date == nil {
			commit.Author.Date = &github.Timestamp{Time: time.Now().Truncate(time.Second)}
		}
		if commit.Committer == nil {
			cp := *commit.Author
			commit.Committer = &cp
		}
		if commit.Committer.Date == nil {
			commit.Committer.Date = commit.Author.Date
		}
		opts = &github.CreateCommitOptions{Signer: c.o.signer}
	}
	got, _, err := c.client.Git.CreateCommit(ctx, c.owner, c.repo, commit, opts)
	if err != nil {
		return "", err
	}
	return got.GetSHA(), nil
}

func toAuthor(s *Signature) *github.CommitAuthor {
	if s == nil {
		return nil
	}
	a := &github.CommitAuthor{Name: github.String(s.Name), Email: github.String(s.Email)}
	if !s.Date.IsZero() {
		a.Date = &github.Timestamp{Time: s.Date}
	}
	return a
}
