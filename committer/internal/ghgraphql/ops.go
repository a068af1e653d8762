package ghgraphql

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
)

// Head is a branch's head commit and its tree.
type Head struct {
	Commit string // the head commit's oid
	Tree   string // its tree's oid
	RefID  string // the Ref's node ID (CommittableBranch.id)
}

const queryHead = `query BranchHead($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) {
      id
      target { oid ... on Commit { tree { oid } } }
    }
  }
}`

// BranchHead reads a branch's head commit and tree in one request. found is
// false when the branch does not exist (or the repository is empty); a
// missing repository is an *Errors with NOT_FOUND.
func (c *Client) BranchHead(ctx context.Context, owner, name, branch string) (h Head, found bool, err error) {
	var out struct {
		Repository *struct {
			Ref *struct {
				ID     string `json:"id"`
				Target struct {
					OID  string `json:"oid"`
					Tree *struct {
						OID string `json:"oid"`
					} `json:"tree"`
				} `json:"target"`
			} `json:"ref"`
		} `json:"repository"`
	}
	vars := map[string]any{"owner": owner, "name": name, "ref": "refs/heads/" + branch}
	if err := c.Do(ctx, "BranchHead", false, queryHead, vars, &out); err != nil {
		return Head{}, false, err
	}
	if out.Repository == nil || out.Repository.Ref == nil {
		return Head{}, false, nil
	}
	ref := out.Repository.Ref
	if ref.Target.Tree == nil {
		return Head{}, false, fmt.Errorf("GitHub GraphQL BranchHead: %s/%s@%s does not point at a commit", owner, name, branch)
	}
	return Head{Commit: ref.Target.OID, Tree: ref.Target.Tree.OID, RefID: ref.ID}, true, nil
}

// Addition is a file to add or replace: always a regular file.
type Addition struct {
	Path     string
	Contents []byte
}

// CommitInput is createCommitOnBranch's input.
type CommitInput struct {
	Owner, Name, Branch string
	ExpectedHead        string // the branch must point here, else STALE_DATA
	Headline, Body      string
	Additions           []Addition
	Deletions           []string // each must exist at ExpectedHead
}

// EncodedSize is the size of the input's file contents once base64-encoded,
// the bulk of the request (GitHub fails payloads around 40 MB).
func (in CommitInput) EncodedSize() int {
	n := 0
	for _, a := range in.Additions {
		n += base64.StdEncoding.EncodedLen(len(a.Contents)) + len(a.Path)
	}
	for _, d := range in.Deletions {
		n += len(d)
	}
	return n
}

// Commit is what createCommitOnBranch made.
type Commit struct {
	OID  string `json:"oid"`
	URL  string `json:"url"`
	Tree struct {
		OID string `json:"oid"`
	} `json:"tree"` // asked for in the mutation, so that no read follows it
}

const mutationCommit = `mutation CreateCommitOnBranch($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url tree { oid } } }
}`

// CreateCommitOnBranch commits in.Additions and in.Deletions on the branch
// in one write. On a moved branch it returns an error for which IsStale is
// true and nothing was committed; after a *NoReplyError the commit may have
// landed (see SettleChild).
func (c *Client) CreateCommitOnBranch(ctx context.Context, in CommitInput) (Commit, error) {
	adds := make([]map[string]any, 0, len(in.Additions))
	for _, a := range in.Additions {
		adds = append(adds, map[string]any{"path": a.Path, "contents": base64.StdEncoding.EncodeToString(a.Contents)})
	}
	dels := make([]map[string]any, 0, len(in.Deletions))
	for _, d := range in.Deletions {
		dels = append(dels, map[string]any{"path": d})
	}
	msg := map[string]any{"headline": in.Headline}
	if in.Body != "" {
		msg["body"] = in.Body
	}
	vars := map[string]any{"input": map[string]any{
		"branch":          map[string]any{"repositoryNameWithOwner": in.Owner + "/" + in.Name, "branchName": in.Branch},
		"expectedHeadOid": in.ExpectedHead,
		"message":         msg,
		"fileChanges":     map[string]any{"additions": adds, "deletions": dels},
	}}
	var out struct {
		CreateCommitOnBranch *struct {
			Commit *Commit `json:"commit"`
		} `json:"createCommitOnBranch"`
	}
	if err := c.Do(ctx, "createCommitOnBranch", true, mutationCommit, vars, &out); err != nil {
		return Commit{}, err
	}
	if out.CreateCommitOnBranch == nil || out.CreateCommitOnBranch.Commit == nil || out.CreateCommitOnBranch.Commit.OID == "" {
		return Commit{}, fmt.Errorf("GitHub GraphQL createCommitOnBranch: reply without a commit")
	}
	return *out.CreateCommitOnBranch.Commit, nil
}

// Outcome is what SettleChild found.
type Outcome int

// The outcomes SettleChild reports.
const (
	Unknown   Outcome = iota // the search could not decide
	Landed                   // the commit is on the branch
	NotLanded                // the commit is certainly not on the branch
)

func (o Outcome) String() string {
	return [...]string{"unknown", "landed", "not landed"}[o]
}

const queryHistory = `query History($owner: String!, $name: String!, $ref: String!, $first: Int!, $after: String, $path: String) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) {
      target { ... on Commit {
        history(first: $first, after: $after, path: $path) {
          pageInfo { hasNextPage endCursor }
          nodes { oid message committedDate parents(first: 1) { nodes { oid } } }
        }
      } }
    }
  }
}`

// HistoryCommit is one commit of a branch's history.
type HistoryCommit struct {
	OID           string
	Message       string
	CommittedDate string // RFC 3339, GitHub's clock for the commits it makes
	FirstParent   string // "" for a root commit
}

type historyPage struct {
	Repository *struct {
		Ref *struct {
			Target struct {
				History *struct {
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
					Nodes []struct {
						OID           string `json:"oid"`
						Message       string `json:"message"`
						CommittedDate string `json:"committedDate"`
						Parents       struct {
							Nodes []struct {
								OID string `json:"oid"`
							} `json:"nodes"`
						} `json:"parents"`
					} `json:"nodes"`
				} `json:"history"`
			} `json:"target"`
		} `json:"ref"`
	} `json:"repository"`
}

// History reads one page (at most 100) of the commits reachable from a
// branch's head, newest first as git log lists them; with path, only the
// commits that change it. next is the cursor of the following page, "" at
// the end. found is false when the branch does not exist.
func (c *Client) History(ctx context.Context, owner, name, branch, path string, first int, after string) (page []HistoryCommit, next string, found bool, err error) {
	var out historyPage
	vars := map[string]any{"owner": owner, "name": name, "ref": "refs/heads/" + branch,
		"first": min(max(first, 1), 100), "after": nil, "path": nil}
	if after != "" {
		vars["after"] = after
	}
	if path != "" {
		vars["path"] = path
	}
	if err := c.Do(ctx, "History", false, queryHistory, vars, &out); err != nil {
		return nil, "", false, err
	}
	if out.Repository == nil || out.Repository.Ref == nil || out.Repository.Ref.Target.History == nil {
		return nil, "", false, nil
	}
	h := out.Repository.Ref.Target.History
	for _, n := range h.Nodes {
		hc := HistoryCommit{OID: n.OID, Message: n.Message, CommittedDate: n.CommittedDate}
		if len(n.Parents.Nodes) > 0 {
			hc.FirstParent = n.Parents.Nodes[0].OID
		}
		page = append(page, hc)
	}
	if h.PageInfo.HasNextPage && len(h.Nodes) > 0 {
		next = h.PageInfo.EndCursor
	}
	return page, next, true, nil
}

// Scope says which commits of the first-parent chain Settle accepts.
type Scope int

const (
	// ChildOf accepts only parent's child on the first-parent chain, as a
	// createCommitOnBranch made on parent can only be.
	ChildOf Scope = iota
	// Since accepts any commit from the head down to parent (a contents-API
	// commit is built on whatever head GitHub found).
	Since
)

// Settle decides whether a commit made on parent whose reply was lost
// landed, by its message (match: the library matches its Edit-Id
// trailer). It follows the branch's first-parent chain from the head,
// reading at most maxCommits commits: Landed (with its oid) when a commit
// within scope matches, NotLanded when parent is reached (or, for ChildOf,
// parent's child is another writer's) without one, Unknown when the chain
// does not reach parent within the bound (or the branch is gone).
func (c *Client) Settle(ctx context.Context, owner, name, branch, parent string, scope Scope, match func(message string) bool, maxCommits int) (string, Outcome, error) {
	w := chain{parent: parent, scope: scope, match: match, firstParent: map[string]string{}, message: map[string]string{}}
	var after string
	for read := 0; read < maxCommits; {
		page, next, found, err := c.History(ctx, owner, name, branch, "", maxCommits-read, after)
		if err != nil || !found {
			return "", Unknown, err
		}
		for _, n := range page {
			if w.head == "" {
				w.head = n.OID
			}
			w.message[n.OID], w.firstParent[n.OID] = n.Message, n.FirstParent
		}
		read += len(page)
		if oid, o, done := w.walk(); done {
			return oid, o, nil
		}
		if next == "" {
			return "", Unknown, nil
		}
		after = next
	}
	return "", Unknown, nil
}

// chain is the first-parent chain read so far: each commit's first
// parent ("" for a root) and message.
type chain struct {
	head, parent string
	scope        Scope
	match        func(string) bool
	firstParent  map[string]string
	message      map[string]string
}

// walk follows first parents from the head as far as they are known: done
// once the outcome is decided.
func (w *chain) walk() (string, Outcome, bool) {
	for cur := w.head; ; {
		if cur == "" || strings.EqualFold(cur, w.parent) {
			return "", NotLanded, true // parent (or the root) reached without a match
		}
		msg, known := w.message[cur]
		if !known {
			return "", Unknown, false
		}
		p := w.firstParent[cur]
		switch {
		case w.scope == Since && w.match(msg):
			return cur, Landed, true
		case w.scope == ChildOf && strings.EqualFold(p, w.parent):
			if w.match(msg) {
				return cur, Landed, true
			}
			return "", NotLanded, true
		case w.scope == ChildOf && p == "":
			return "", Unknown, true // a root: parent is not on the chain
		}
		cur = p
	}
}
