package resolve

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Auto-merge and the merge queue in GraphQL: enablePullRequestAutoMerge,
// disablePullRequestAutoMerge, enqueuePullRequest, dequeuePullRequest;
// PullRequest.autoMergeRequest, isInMergeQueue, mergeQueueEntry;
// Repository.mergeQueue. The state is state.AutoMerge and state.Queue.

// gqlMap is an object whose fields were read under the repository's lock.
type gqlMap struct {
	typ string
	m   map[string]any
}

func (g gqlMap) TypeName() string { return g.typ }

func (g gqlMap) Field(x *graphql.Exec, name string, args map[string]any) (any, error) {
	if v, ok := g.m[name]; ok {
		if f, ok := v.(func(*graphql.Exec, map[string]any) (any, error)); ok {
			return f(x, args) // a connection, read when asked
		}
		return v, nil
	}
	return nil, graphql.Unserved(g.typ, name)
}

func dateTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// pullMutation runs fn on the pull request of input field key under the
// repository's write lock.
func (s *Env) pullMutation(in map[string]any, key string, fn func(rp *state.Repo, p *state.Pull) (graphql.Object, *state.MergeRefusal)) (graphql.Object, error) {
	id, _ := in[key].(string)
	rp, num := s.pullFromID(id)
	notFound := graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
	if rp == nil {
		return nil, notFound
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if num < 1 || num > len(rp.Pulls) {
		return nil, notFound
	}
	out, e := fn(rp, rp.Pulls[num-1])
	if e != nil {
		if e.Status == http.StatusInternalServerError {
			return nil, graphql.Errorf("", msgGraphQLGaveUp)
		}
		return nil, graphql.Errorf("UNPROCESSABLE", e.Message)
	}
	return out, nil
}

func (s *Env) enableAutoMerge(x *graphql.Exec, in map[string]any) (graphql.Object, error) {
	str := func(k string) *string {
		if v, ok := in[k].(string); ok {
			return &v
		}
		return nil
	}
	am := state.AutoMerge{Method: "merge", Title: str("commitHeadline"), Message: str("commitBody"),
		By: wire.IdentOf(x.R), Enabled: s.Now()}
	if m := str("mergeMethod"); m != nil {
		am.Method = strings.ToLower(*m)
	}
	if e := str("authorEmail"); e != nil {
		am.AuthorEmail = *e
	}
	expected := ""
	if e := str("expectedHeadOid"); e != nil {
		expected = *e
	}
	return s.pullMutation(in, "pullRequestId", func(rp *state.Repo, p *state.Pull) (graphql.Object, *state.MergeRefusal) {
		if e := rp.EnableAutoMerge(p, am, expected); e != nil {
			return nil, e
		}
		return pullPayload("EnablePullRequestAutoMergePayload", rp, p, am.By, in), nil
	})
}

func (s *Env) disableAutoMerge(x *graphql.Exec, in map[string]any) (graphql.Object, error) {
	return s.pullMutation(in, "pullRequestId", func(rp *state.Repo, p *state.Pull) (graphql.Object, *state.MergeRefusal) {
		p.AutoMerge = nil
		return pullPayload("DisablePullRequestAutoMergePayload", rp, p, wire.IdentOf(x.R), in), nil
	})
}

func pullPayload(typ string, rp *state.Repo, p *state.Pull, by state.Identity, in map[string]any) graphql.Object {
	return gqlMap{typ: typ, m: map[string]any{"clientMutationId": in["clientMutationId"],
		"pullRequest": gqlPull{rp: rp, p: p}, "actor": gqlAccount{typ: "User", login: by.Login, id: by.UserID}}}
}

func (s *Env) enqueuePull(x *graphql.Exec, in map[string]any) (graphql.Object, error) {
	expected, _ := in["expectedHeadOid"].(string)
	jump, _ := in["jump"].(bool)
	return s.pullMutation(in, "pullRequestId", func(rp *state.Repo, p *state.Pull) (graphql.Object, *state.MergeRefusal) {
		if e := rp.Enqueue(p, wire.IdentOf(x.R), expected, jump, s.Now()); e != nil {
			return nil, e
		}
		rp.Settle(s.Now()) // it may build, or merge, at once
		return gqlMap{typ: "EnqueuePullRequestPayload", m: map[string]any{"clientMutationId": in["clientMutationId"],
			"mergeQueueEntry": queueEntryOf(x, rp, p)}}, nil
	})
}

func (s *Env) dequeuePull(x *graphql.Exec, in map[string]any) (graphql.Object, error) {
	return s.pullMutation(in, "id", func(rp *state.Repo, p *state.Pull) (graphql.Object, *state.MergeRefusal) {
		entry := queueEntryOf(x, rp, p)
		if e := rp.Dequeue(p, s.Now()); e != nil {
			return nil, e
		}
		return gqlMap{typ: "DequeuePullRequestPayload", m: map[string]any{"clientMutationId": in["clientMutationId"],
			"mergeQueueEntry": entry}}, nil
	})
}

// queueEntryOf is p's MergeQueueEntry, or nil. Caller holds rp.Mu.
func queueEntryOf(x *graphql.Exec, rp *state.Repo, p *state.Pull) any {
	e, pos := rp.QueueOf(p)
	if e == nil {
		return nil
	}
	var head, base any
	if e.Built {
		if c, ok := rp.Commits[e.Tip]; ok {
			head = gqlCommit{rp: rp, c: c}
		}
		if c, ok := rp.Commits[e.On]; ok {
			base = gqlCommit{rp: rp, c: c}
		}
	}
	return gqlMap{typ: "MergeQueueEntry", m: map[string]any{
		"id":         wire.NodeID("MQE", rp.FullName()+"#"+strconv.Itoa(p.Number)),
		"enqueuedAt": dateTime(e.Enqueued), "enqueuer": gqlAccount{typ: "User", login: e.By.Login, id: e.By.UserID},
		"estimatedTimeToMerge": nil, "jump": e.Jump, "position": pos, "solo": false,
		"state": rp.EntryState(e), "pullRequest": gqlPull{rp: rp, p: p}, "headCommit": head, "baseCommit": base,
		"mergeQueue": mergeQueueOf(x, rp, p.Base),
	}}
}

// mergeQueueOf is the MergeQueue of branch, or nil when no rule asks for
// one. Caller holds rp.Mu.
func mergeQueueOf(x *graphql.Exec, rp *state.Repo, branch string) any {
	if rp.QueueRule(branch) == nil {
		return nil
	}
	u := wire.RepoHTMLURL(rp, x.R) + "/queue/" + branch
	return gqlMap{typ: "MergeQueue", m: map[string]any{
		"id": wire.NodeID("MQ", rp.FullName()+":"+branch), "url": u, "resourcePath": "/" + rp.FullName() + "/queue/" + branch,
		"nextEntryEstimatedTimeToMerge": nil, "configuration": nil,
		"entries": gqlQueueEntries{rp: rp, branch: branch}.connection,
	}}
}

// gqlQueueEntries is MergeQueue.entries, read when asked.
type gqlQueueEntries struct {
	rp     *state.Repo
	branch string
}

func (g gqlQueueEntries) connection(x *graphql.Exec, args map[string]any) (any, error) {
	g.rp.Mu.RLock()
	var nodes []graphql.Object
	if q := g.rp.Queues[g.branch]; q != nil {
		for _, e := range q.Entries {
			if m, ok := queueEntryOf(x, g.rp, e.Pull).(graphql.Object); ok {
				nodes = append(nodes, m)
			}
		}
	}
	g.rp.Mu.RUnlock()
	return newConnection("MergeQueueEntryConnection", "entries", plumbing.ComputeHash(plumbing.BlobObject, []byte("mq:"+g.branch)), nodes, args)
}

// autoMergeField answers the auto-merge and queue fields of a pull
// request; ok is false for the others. Caller holds rp.Mu.
func (g gqlPull) autoMergeField(x *graphql.Exec, name string) (v any, ok bool) {
	rp, p := g.rp, g.p
	switch name {
	case "autoMergeRequest":
		am := p.AutoMerge
		if am == nil {
			return nil, true
		}
		var email any
		if am.AuthorEmail != "" {
			email = am.AuthorEmail
		}
		return gqlMap{typ: "AutoMergeRequest", m: map[string]any{"authorEmail": email,
			"commitBody": strPtr(am.Message), "commitHeadline": strPtr(am.Title), "enabledAt": dateTime(am.Enabled),
			"enabledBy":   gqlAccount{typ: "User", login: am.By.Login, id: am.By.UserID},
			"mergeMethod": strings.ToUpper(am.Method), "pullRequest": g}}, true
	case "statusCheckRollup":
		return statusRollup(x, rp, rp.PullHead(p)), true // rollup.go
	case "isInMergeQueue":
		e, _ := rp.QueueOf(p)
		return e != nil, true
	case "mergeQueueEntry":
		return queueEntryOf(x, rp, p), true
	case "mergeQueue":
		return mergeQueueOf(x, rp, p.Base), true
	}
	return nil, false
}

func strPtr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func (s *Env) autoMergeMutation(x *graphql.Exec, name string, in map[string]any) (graphql.Object, error) {
	switch name {
	case "enablePullRequestAutoMerge":
		return s.enableAutoMerge(x, in)
	case "disablePullRequestAutoMerge":
		return s.disableAutoMerge(x, in)
	case "enqueuePullRequest":
		return s.enqueuePull(x, in)
	}
	return s.dequeuePull(x, in)
}
