package resolve

import (
	"container/heap"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

type gqlCommit struct {
	rp *state.Repo
	c  *object.Commit
}

func (gqlCommit) TypeName() string { return "Commit" }

func (g gqlCommit) Field(x *graphql.Exec, name string, args map[string]any) (any, error) {
	rp, c := g.rp, g.c
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if v, ok := gitObjectField(x, rp, c.Hash, "C", name); ok {
		return v, nil
	}
	head, body, _ := strings.Cut(c.Message, "\n")
	switch name {
	case "statusCheckRollup":
		return statusRollup(x, rp, c.Hash), nil // rollup.go
	case "message":
		return c.Message, nil
	case "messageHeadline":
		return head, nil
	case "messageBody":
		return strings.TrimLeft(body, "\n"), nil
	case "url":
		return wire.RepoHTMLURL(rp, x.R) + "/commit/" + c.Hash.String(), nil
	case "resourcePath":
		return "/" + rp.FullName() + "/commit/" + c.Hash.String(), nil
	case "tree":
		return gqlTree{rp: rp, oid: c.TreeHash}, nil
	case "committedDate":
		return c.Committer.When.UTC().Format(time.RFC3339), nil
	case "authoredDate":
		return c.Author.When.UTC().Format(time.RFC3339), nil
	case "author":
		return gqlActor{sig: c.Author}, nil
	case "committer":
		return gqlActor{sig: c.Committer}, nil
	case "signature":
		return gqlSignatureLocked(rp, c), nil
	case "file":
		p, _ := args["path"].(string)
		return gqlFileLocked(rp, c, p), nil
	case "parents":
		var ps []graphql.Object
		for _, p := range c.ParentHashes {
			if pc, ok := rp.Commits[p]; ok {
				ps = append(ps, gqlCommit{rp: rp, c: pc})
			}
		}
		return newConnection("CommitConnection", "parents", c.Hash, ps, args)
	case "history":
		p, _ := args["path"].(string)
		return newConnection("CommitHistoryConnection", "history", c.Hash, logLocked(rp, c.Hash, strings.Trim(p, "/")), args)
	}
	return nil, graphql.Unserved("Commit", name)
}

// logLocked lists the commits reachable from start in git log's default
// order (newest committer date first, ties in the order found), keeping
// only commits that change path when path is set. Caller holds mu.
func logLocked(rp *state.Repo, start plumbing.Hash, path string) []graphql.Object {
	var out []graphql.Object
	q := &commitQueue{}
	seen := map[plumbing.Hash]bool{start: true}
	if c, ok := rp.Commits[start]; ok {
		heap.Push(q, queued{c: c})
	}
	for seq := 1; q.Len() > 0; seq++ {
		c := heap.Pop(q).(queued).c
		if path == "" || rp.ChangesPath(c, path) {
			out = append(out, gqlCommit{rp: rp, c: c})
		}
		for _, p := range c.ParentHashes {
			if pc, ok := rp.Commits[p]; ok && !seen[p] {
				seen[p] = true
				heap.Push(q, queued{c: pc, seq: seq})
			}
		}
	}
	return out
}

type queued struct {
	c   *object.Commit
	seq int
}

type commitQueue []queued

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if ti, tj := q[i].c.Committer.When, q[j].c.Committer.When; !ti.Equal(tj) {
		return ti.After(tj)
	}
	return q[i].seq < q[j].seq
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(v any)   { *q = append(*q, v.(queued)) }
func (q *commitQueue) Pop() any {
	old := *q
	v := old[len(old)-1]
	*q = old[:len(old)-1]
	return v
}

// gqlConn is a page of a connection (CommitConnection, CommitHistoryConnection).
type gqlConn struct {
	typ      string
	nodes    []graphql.Object
	cursors  []string
	total    int
	next     bool
	previous bool
}

// newConnection pages all by first/after or last/before, as GitHub does,
// with at most 100 records and one of first or last required.
func newConnection(typ, field string, anchor plumbing.Hash, all []graphql.Object, args map[string]any) (graphql.Object, error) {
	first, hasFirst := graphql.ArgInt(args, "first")
	last, hasLast := graphql.ArgInt(args, "last")
	if !hasFirst && !hasLast {
		return nil, graphql.Errorf("MISSING_PAGINATION_BOUNDARIES", "You must provide a `first` or `last` value to properly paginate the `"+field+"` connection.")
	}
	for _, b := range []struct {
		n    int64
		set  bool
		name string
	}{{first, hasFirst, "first"}, {last, hasLast, "last"}} {
		if b.set && (b.n < 0 || b.n > graphqlMaxRecords) {
			return nil, graphql.Errorf("EXCESSIVE_PAGINATION", "Requesting "+strconv.FormatInt(b.n, 10)+" records on the `"+field+"` connection exceeds the `"+b.name+"` limit of 100 records.")
		}
	}
	lo, hi := 0, len(all)
	if a, ok := args["after"].(string); ok {
		lo = max(lo, cursorIndex(anchor, a)+1)
	}
	if b, ok := args["before"].(string); ok {
		if i := cursorIndex(anchor, b); i >= 0 {
			hi = min(hi, i)
		}
	}
	lo = min(lo, hi)
	if hasFirst && hi-lo > int(first) {
		hi = lo + int(first)
	}
	if hasLast && hi-lo > int(last) {
		lo = hi - int(last)
	}
	c := &gqlConn{typ: typ, nodes: all[lo:hi], total: len(all), next: hi < len(all), previous: lo > 0}
	for i := lo; i < hi; i++ {
		c.cursors = append(c.cursors, makeCursor(anchor, i))
	}
	return c, nil
}

func makeCursor(anchor plumbing.Hash, i int) string {
	return base64.StdEncoding.EncodeToString([]byte(anchor.String() + " " + strconv.Itoa(i)))
}

// cursorIndex decodes a cursor of this connection; -1 if it is not one.
func cursorIndex(anchor plumbing.Hash, cur string) int {
	b, err := base64.StdEncoding.DecodeString(cur)
	if err != nil {
		return -1
	}
	a, n, ok := strings.Cut(string(b), " ")
	i, err := strconv.Atoi(n)
	if !ok || a != anchor.String() || err != nil {
		return -1
	}
	return i
}

func (c *gqlConn) TypeName() string { return c.typ }

func (c *gqlConn) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "nodes":
		return c.nodes, nil
	case "edges":
		edges := make([]graphql.Object, len(c.nodes))
		for i, n := range c.nodes {
			edges[i] = gqlEdge{typ: strings.TrimSuffix(c.typ, "Connection") + "Edge", node: n, cursor: c.cursors[i]}
		}
		return edges, nil
	case "totalCount":
		return c.total, nil
	case "pageInfo":
		p := gqlPageInfo{next: c.next, previous: c.previous}
		if len(c.cursors) > 0 {
			p.start, p.end = c.cursors[0], c.cursors[len(c.cursors)-1]
		}
		return p, nil
	}
	return nil, graphql.Unserved(c.typ, name)
}

type gqlEdge struct {
	typ    string // CommitEdge, RefEdge, ...
	node   graphql.Object
	cursor string
}

func (e gqlEdge) TypeName() string {
	if e.typ == "CommitHistoryEdge" || e.typ == "" {
		return "CommitEdge" // CommitHistoryConnection's edges are CommitEdges
	}
	return e.typ
}

func (e gqlEdge) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "node":
		return e.node, nil
	case "cursor":
		return e.cursor, nil
	}
	return nil, graphql.Unserved(e.TypeName(), name)
}

type gqlPageInfo struct {
	start, end     string
	next, previous bool
}

func (gqlPageInfo) TypeName() string { return "PageInfo" }

func (p gqlPageInfo) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	orNil := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	switch name {
	case "startCursor":
		return orNil(p.start), nil
	case "endCursor":
		return orNil(p.end), nil
	case "hasNextPage":
		return p.next, nil
	case "hasPreviousPage":
		return p.previous, nil
	}
	return nil, graphql.Unserved("PageInfo", name)
}

// gqlSignatureLocked is Commit.signature: nil for an unsigned commit.
// Caller holds mu.
func gqlSignatureLocked(rp *state.Repo, c *object.Commit) graphql.Object {
	if c.PGPSignature == "" {
		return nil
	}
	return gqlSignature{c: c, v: rp.Verif[c.Hash]}
}

type gqlSignature struct {
	c *object.Commit
	v sign.Verification
}

func (gqlSignature) TypeName() string { return "GpgSignature" }

func (g gqlSignature) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "email":
		return g.c.Committer.Email, nil
	case "isValid":
		return g.v.Verified, nil
	case "keyId":
		return nil, nil
	case "payload":
		return sign.CommitPayload(g.c), nil
	case "signature":
		return g.c.PGPSignature, nil
	case "state":
		if g.v.Verified {
			return "VALID", nil
		}
		return strings.ToUpper(g.v.Reason), nil
	case "verifiedAt":
		if g.v.VerifiedAt == nil {
			return nil, nil
		}
		return *g.v.VerifiedAt, nil
	case "wasSignedByGitHub":
		return g.v.Verified && g.c.Committer.Email == sign.WebFlowEmail, nil
	}
	return nil, graphql.Unserved("GpgSignature", name)
}
