package state

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/gitobj"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
)

// Merging pull requests (PUT pulls/{n}/merge, GraphQL mergePullRequest):
// the commits GitHub writes, the refusals, and the base branch moved
// through the rules as any write. The commits are GitHub's: committed by
// GitHub's web flow and signed by it; a merge commit is authored by the
// user merging, a squash commit by the pull request's author, rebased
// commits keep their authors.

// MergeInput is one merge request.
type MergeInput struct {
	Method         string  // merge, squash or rebase
	SHA            string  // the head the caller expects (REST sha, expectedHeadOid); "" for any
	Title, Message *string // commit_title, commit_message (commitHeadline, commitBody)
	By             Identity
	Now            time.Time
}

// MergeRefusal is why a merge did not happen: a REST status (405, 409,
// 422) and GitHub's message.
type MergeRefusal struct {
	Status  int
	Message string
}

// Messages of refused merges. msgNotMergeable and msgHeadModified are
// GitHub's (its OpenAPI description's examples for 405 and 409); the merge
// commit one of methodNotAllowed was seen in a real reply
// (bazelbuild/continuous-integration#2178), the squash and rebase ones
// follow it and are guesses, as are msgDraft and msgNoRebase.
const (
	msgNotMergeable = "Pull Request is not mergeable"
	msgHeadModified = "Head branch was modified. Review and try the merge again."
	msgDraft        = "Pull Request is still a draft"
	msgNoRebase     = "This branch can't be rebased"
)

var methodNotAllowed = map[string]string{
	"merge":  "Merge commits are not allowed on this repository.",
	"squash": "Squash merges are not allowed on this repository.",
	"rebase": "Rebase merges are not allowed on this repository.",
}

// PullHead is the pull request's head commit: its branch's tip while it is
// open and the branch exists, else the head it last had. Caller holds Mu.
func (rp *Repo) PullHead(p *Pull) plumbing.Hash {
	if p.State == "open" {
		if h, ok := rp.Refs["refs/heads/"+p.Head]; ok {
			return h
		}
	}
	return plumbing.NewHash(p.HeadSHA)
}

// MergePull merges pull request p as in asks, or says why not. Caller
// holds Mu for writing.
func (rp *Repo) MergePull(p *Pull, in MergeInput) *MergeRefusal {
	refuse := func(status int, msg string) *MergeRefusal { return &MergeRefusal{Status: status, Message: msg} }
	baseRef := "refs/heads/" + p.Base
	head, okHead := rp.Refs["refs/heads/"+p.Head]
	base, okBase := rp.Refs[baseRef]
	switch {
	case p.State != "open" || !okHead || !okBase:
		return refuse(http.StatusMethodNotAllowed, msgNotMergeable)
	case in.SHA != "" && !strings.EqualFold(in.SHA, head.String()):
		return refuse(http.StatusConflict, msgHeadModified)
	case p.Draft:
		return refuse(http.StatusMethodNotAllowed, msgDraft)
	case !rp.Merge.Allows(in.Method):
		return refuse(http.StatusMethodNotAllowed, methodNotAllowed[in.Method])
	case rp.IsAncestor(head, base):
		return refuse(http.StatusMethodNotAllowed, msgNotMergeable) // nothing to merge (a guess)
	}
	m := rp.MergeFiles(base, head)
	if len(m.Conflicts) > 0 {
		return refuse(http.StatusMethodNotAllowed, msgNotMergeable)
	}
	newHead, ok, err := rp.mergeCommits(p, in, base, head, m)
	if err != nil {
		return refuse(http.StatusInternalServerError, "Server Error")
	}
	if !ok {
		return refuse(http.StatusMethodNotAllowed, msgNoRebase)
	}
	ch := rules.Change{Ref: baseRef, Old: base, New: newHead,
		Pull: &rules.PullMerge{Head: head, Behind: !rp.IsAncestor(base, head), Method: in.Method}}
	if e := Refusal(rp, in.By, ch); e != nil {
		return refuse(http.StatusMethodNotAllowed, e.RestMessage(false))
	}
	rp.SetRef(baseRef, newHead, false, in.Now)
	now := in.Now
	p.State, p.Closed, p.MergedAt, p.Updated = "closed", &now, &now, now
	p.MergeCommit, p.MergedBy = newHead.String(), in.By
	p.HeadSHA, p.BaseSHA = head.String(), base.String()
	if rp.Merge.DeleteBranchOnMerge && rp.mayDeleteHead(p, head, in.By) {
		rp.SetRef("refs/heads/"+p.Head, plumbing.ZeroHash, false, in.Now)
	}
	return nil
}

// mayDeleteHead reports whether delete_branch_on_merge deletes p's head
// branch: not the default branch, not one a rule keeps from deletion, not
// one an open pull request merges into (the last two are guesses). Caller
// holds Mu.
func (rp *Repo) mayDeleteHead(p *Pull, head plumbing.Hash, by Identity) bool {
	if p.Head == rp.DefaultBranch || Refusal(rp, by, rules.Change{Ref: "refs/heads/" + p.Head, Old: head}) != nil {
		return false
	}
	for _, o := range rp.Pulls {
		if o.State == "open" && o.Base == p.Head {
			return false
		}
	}
	return true
}

// mergeCommits writes the commit(s) of the merge and returns the base
// branch's new tip; ok is false when a rebase conflicts. Caller holds Mu
// for writing.
func (rp *Repo) mergeCommits(p *Pull, in MergeInput, base, head plumbing.Hash, m Merged) (plumbing.Hash, bool, error) {
	commits := rp.pullCommits(base, head)
	switch in.Method {
	case "rebase":
		return rp.rebaseCommits(base, commits, in.Now)
	case "squash":
		tree, err := rp.writeFiles(m.Files)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		title, body := rp.squashMessage(p, commits)
		c := &object.Commit{Author: object.Signature{Name: p.User.Name, Email: p.User.Email, When: in.Now},
			Message: commitMessage(in, title, body), TreeHash: tree, ParentHashes: []plumbing.Hash{base}}
		h, err := rp.putGitHubCommit(c, in.Now)
		return h, err == nil, err
	}
	tree, err := rp.writeFiles(m.Files)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	title := "Merge pull request #" + strconv.Itoa(p.Number) + " from " + p.HeadOwner + "/" + p.Head
	c := &object.Commit{Author: object.Signature{Name: in.By.Name, Email: in.By.Email, When: in.Now},
		Message: commitMessage(in, title, p.Title), TreeHash: tree, ParentHashes: []plumbing.Hash{base, head}}
	h, err := rp.putGitHubCommit(c, in.Now)
	return h, err == nil, err
}

// commitMessage is title and body, each replaced by the caller's when
// given, separated by a blank line (the title alone when the body is
// empty).
func commitMessage(in MergeInput, title, body string) string {
	if in.Title != nil && *in.Title != "" {
		title = *in.Title
	}
	if in.Message != nil {
		body = *in.Message
	}
	if body == "" {
		return title
	}
	return title + "\n\n" + body
}

// squashMessage is GitHub's default squash title and body (the
// repository defaults COMMIT_OR_PR_TITLE and COMMIT_MESSAGES): one
// commit's own title and body, else the pull request's title and each
// commit's message as a "* " item; the title ends in " (#N)".
func (rp *Repo) squashMessage(p *Pull, commits []plumbing.Hash) (string, string) {
	suffix := " (#" + strconv.Itoa(p.Number) + ")"
	if len(commits) == 1 {
		title, body, _ := strings.Cut(strings.TrimRight(rp.Commits[commits[0]].Message, "\n"), "\n")
		return title + suffix, strings.TrimLeft(body, "\n")
	}
	items := make([]string, 0, len(commits))
	for _, h := range commits {
		items = append(items, "* "+strings.TrimRight(rp.Commits[h].Message, "\n"))
	}
	return p.Title + suffix, strings.Join(items, "\n\n")
}

// pullCommits are the commits head brings that base does not have,
// parents first. Caller holds Mu.
func (rp *Repo) pullCommits(base, head plumbing.Hash) []plumbing.Hash {
	known := rp.Reachable(base)
	var out []plumbing.Hash
	for h := range rp.Reachable(head) {
		if _, ok := rp.Commits[h]; ok && !known[h] {
			out = append(out, h)
		}
	}
	rp.SortOldestFirst(out)
	return out
}

// rebaseCommits replays commits on base as GitHub's web flow commits,
// each keeping its author and message; ok is false when the rebase
// conflicts. Caller holds Mu for writing.
func (rp *Repo) rebaseCommits(base plumbing.Hash, commits []plumbing.Hash, now time.Time) (plumbing.Hash, bool, error) {
	tip := base
	ok, err := rp.replay(base, commits, func(c *object.Commit, files map[string]object.TreeEntry) error {
		tree, err := rp.writeFiles(files)
		if err != nil {
			return err
		}
		nc := &object.Commit{Author: c.Author, Message: c.Message, TreeHash: tree, ParentHashes: []plumbing.Hash{tip}}
		tip, err = rp.putGitHubCommit(nc, now)
		return err
	})
	return tip, ok, err
}

// replay replays commits (merge commits dropped, as git rebase does) on
// base, path by path: a path a commit changes must still hold what the
// commit's parent had, or already what the commit has, else the replay
// conflicts (ok false). step, when not nil, gets each commit and the files
// it leaves. Caller holds Mu (for writing when step writes).
func (rp *Repo) replay(base plumbing.Hash, commits []plumbing.Hash, step func(*object.Commit, map[string]object.TreeEntry) error) (bool, error) {
	cur := rp.commitFiles(base)
	for _, h := range commits {
		c := rp.Commits[h]
		if len(c.ParentHashes) > 1 {
			continue
		}
		var before map[string]object.TreeEntry
		if len(c.ParentHashes) == 1 {
			before = rp.commitFiles(c.ParentHashes[0])
		}
		next, conflicts := threeWay(before, cur, rp.commitFiles(h))
		if len(conflicts) > 0 {
			return false, nil
		}
		if step != nil {
			if err := step(c, next); err != nil {
				return false, err
			}
		}
		cur = next
	}
	return true, nil
}

// writeFiles writes the tree of files. Caller holds Mu for writing.
func (rp *Repo) writeFiles(files map[string]object.TreeEntry) (plumbing.Hash, error) {
	b := gitobj.NewTreeBuilder(&rp.Store, plumbing.ZeroHash)
	for p, e := range files {
		b.Set(p, e.Mode, e.Hash)
	}
	return b.Write()
}

// putGitHubCommit stores c committed and signed by GitHub's web flow.
// Caller holds Mu for writing.
func (rp *Repo) putGitHubCommit(c *object.Commit, now time.Time) (plumbing.Hash, error) {
	c.Committer = sign.WebFlowCommitter(now)
	return rp.PutSignedCommit(c, now)
}
