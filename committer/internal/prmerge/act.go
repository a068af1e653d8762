package prmerge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// info is what the merge needs to know of the pull request and its
// repository, read in one GraphQL query.
type info struct {
	ID          string
	State       string // OPEN, CLOSED, MERGED
	Merged      bool
	MergeCommit string
	HeadOid     string
	MergeState  string // mergeStateStatus: CLEAN, BLOCKED, BEHIND, UNKNOWN, ...
	methods     map[string]bool
	autoAllowed bool
	hasQueue    bool
}

func (in *info) allows(method string) bool { return in.methods[method] }

type oid struct {
	Oid string `json:"oid"`
}

// The documents of readInfo, one per mode: each is checked against
// GitHub's schema (ghgraphql's TestLibraryDocumentsValidAgainstGitHubSchema
// finds every operation literal of the library).
const (
	infoQuery = `query($owner:String!,$name:String!,$n:Int!){repository(owner:$owner,name:$name){
mergeCommitAllowed squashMergeAllowed rebaseMergeAllowed
pullRequest(number:$n){id state merged headRefOid mergeStateStatus mergeCommit{oid}}}}`
	infoQueryAuto = `query($owner:String!,$name:String!,$n:Int!,$base:String!){repository(owner:$owner,name:$name){
mergeCommitAllowed squashMergeAllowed rebaseMergeAllowed autoMergeAllowed mergeQueue(branch:$base){id}
pullRequest(number:$n){id state merged headRefOid mergeStateStatus mergeCommit{oid}}}}`
	infoQueryQueue = `query($owner:String!,$name:String!,$n:Int!,$base:String!){repository(owner:$owner,name:$name){
mergeCommitAllowed squashMergeAllowed rebaseMergeAllowed autoMergeAllowed mergeQueue(branch:$base){id}
pullRequest(number:$n){id state merged headRefOid mergeStateStatus mergeCommit{oid}}}}`
)

// readInfo reads the pull request, the repository's merge methods and,
// for the mode that needs it, whether auto-merge is allowed or the base
// branch has a merge queue.
func readInfo(ctx context.Context, env Env, t Target, mode Mode) (*info, error) {
	vars := map[string]any{"owner": env.Owner, "name": env.Repo, "n": t.Number}
	q := infoQuery
	switch mode {
	case Auto:
		q = infoQueryAuto
		vars["base"] = t.Base
	case Queue:
		q = infoQueryQueue
		vars["base"] = t.Base
	}
	var reply struct {
		Repository struct {
			MergeCommitAllowed, SquashMergeAllowed, RebaseMergeAllowed, AutoMergeAllowed bool
			MergeQueue                                                                   *struct{ ID string }
			PullRequest                                                                  *struct {
				ID, State, HeadRefOid, MergeStateStatus string
				Merged                                  bool
				MergeCommit                             *oid
			}
		}
	}
	if err := env.GQL.Do(ctx, "read pull request", false, q, vars, &reply); err != nil {
		return nil, fmt.Errorf("read pull request #%d: %w", t.Number, err)
	}
	r := reply.Repository
	p := r.PullRequest
	if p == nil {
		return nil, kind.Of(kind.NotFound, fmt.Errorf("pull request #%d not found", t.Number))
	}
	in := &info{ID: p.ID, State: p.State, Merged: p.Merged, HeadOid: p.HeadRefOid, MergeState: p.MergeStateStatus,
		methods:     map[string]bool{"merge": r.MergeCommitAllowed, "squash": r.SquashMergeAllowed, "rebase": r.RebaseMergeAllowed},
		autoAllowed: r.AutoMergeAllowed, hasQueue: r.MergeQueue != nil}
	if p.MergeCommit != nil {
		in.MergeCommit = p.MergeCommit.Oid
	}
	return in, nil
}

// mergeNow merges the pull request at once (mergePullRequest with
// expectedHeadOid). See
// https://docs.github.com/graphql/reference/mutations#mergepullrequest.
func mergeNow(ctx context.Context, env Env, t Target, req Request, in *info, out *Outcome) error {
	method, err := pickMethod(ctx, env, t, req, in)
	if err != nil {
		return err
	}
	out.Method = method
	const q = `mutation($id:ID!,$head:GitObjectID!,$m:PullRequestMergeMethod!){mergePullRequest(input:{pullRequestId:$id,expectedHeadOid:$head,mergeMethod:$m}){pullRequest{merged mergeCommit{oid}}}}`
	var reply struct {
		MergePullRequest struct {
			PullRequest struct {
				Merged      bool
				MergeCommit *oid
			}
		}
	}
	err = env.GQL.Do(ctx, "merge pull request", true, q, map[string]any{"id": in.ID, "head": t.Head, "m": strings.ToUpper(method)}, &reply)
	var nr *ghgraphql.NoReplyError
	if errors.As(err, &nr) {
		return settle(ctx, env, t, out, ViaNow, err)
	}
	if err != nil {
		return refused(t, "merge", err, "merge it once its requirements are met, or use auto-merge to merge it when they are")
	}
	p := reply.MergePullRequest.PullRequest
	if p.Merged && p.MergeCommit != nil {
		out.Merged, out.Commit, out.Via = true, p.MergeCommit.Oid, ViaNow
		return nil
	}
	return settle(ctx, env, t, out, ViaNow, errors.New("mergePullRequest answered without a merge commit"))
}

// autoMerge enables auto-merge (enablePullRequestAutoMerge with
// expectedHeadOid). A pull request that is already mergeable has nothing
// to wait for, and GitHub refuses auto-merge there: it is merged at once
// instead, and Note says so. See
// https://docs.github.com/graphql/reference/mutations#enablepullrequestautomerge.
func autoMerge(ctx context.Context, env Env, t Target, req Request, in *info, out *Outcome) error {
	if !in.autoAllowed {
		return &kind.Cause{Kind: kind.Invalid, Err: fmt.Errorf("auto-merge is not allowed in %s/%s", env.Owner, env.Repo),
			Hint: "the change is on the head branch and the pull request is open; turn on \"Allow auto-merge\" in the repository's settings, or merge it at once"}
	}
	// Into a merge queue, auto-merge queues the pull request once it is
	// ready, clean or not; elsewhere GitHub refuses it on a clean one.
	if mergeable(in.MergeState) && !in.hasQueue {
		return mergeInstead(ctx, env, t, req, in, out)
	}
	method, err := pickMethod(ctx, env, t, req, in)
	if err != nil {
		return err
	}
	out.Method = method
	err = enableAuto(ctx, env, t, in, method, out)
	if err == nil {
		return nil
	}
	// Refused: the checks may have passed since the read (GitHub refuses
	// auto-merge on a clean pull request). Read again, and merge at once
	// if there is nothing left to wait for.
	if again, rerr := readInfo(ctx, env, t, Auto); rerr == nil && again.State == "OPEN" && mergeable(again.MergeState) && !again.hasQueue {
		return mergeInstead(ctx, env, t, req, again, out)
	}
	return err
}

// mergeable: a merge state with nothing to wait for, where GitHub refuses
// auto-merge (clean, or unstable: only checks that are not required fail).
func mergeable(state string) bool {
	return state == "CLEAN" || state == "HAS_HOOKS" || state == "UNSTABLE"
}

// mergeInstead merges a pull request that auto-merge was asked for and that
// has nothing to wait for, and says so in Note.
func mergeInstead(ctx context.Context, env Env, t Target, req Request, in *info, out *Outcome) error {
	out.Note = fmt.Sprintf("pull request #%d was already mergeable, with nothing to wait for: merged it at once instead of enabling auto-merge", t.Number)
	return mergeNow(ctx, env, t, req, in, out)
}

// enableAuto sends enablePullRequestAutoMerge with expectedHeadOid and
// method ("": GitHub's default, which a merge queue ignores).
func enableAuto(ctx context.Context, env Env, t Target, in *info, method string, out *Outcome) error {
	vars := map[string]any{"id": in.ID, "head": t.Head}
	q := enableAutoQuery
	if method != "" {
		vars["m"], q = strings.ToUpper(method), enableAutoMethodQuery
	}
	err := env.GQL.Do(ctx, "enable auto-merge", true, q, vars, nil)
	var nr *ghgraphql.NoReplyError
	if err != nil && !errors.As(err, &nr) {
		return refused(t, "enable auto-merge on", err, "merge it yourself, or check the repository's auto-merge setting and the branch's rules")
	}
	out.AutoMerge = true // a lost reply: the wait reads what became of it
	return nil
}

// enableAuto's documents: without a method (GitHub's default, which a
// merge queue ignores), and with one.
const (
	enableAutoQuery       = `mutation($id:ID!,$head:GitObjectID!){enablePullRequestAutoMerge(input:{pullRequestId:$id,expectedHeadOid:$head}){pullRequest{merged}}}`
	enableAutoMethodQuery = `mutation($id:ID!,$head:GitObjectID!,$m:PullRequestMergeMethod!){enablePullRequestAutoMerge(input:{pullRequestId:$id,expectedHeadOid:$head,mergeMethod:$m}){pullRequest{merged}}}`
)

// enqueue adds the pull request to the base branch's merge queue
// (enqueuePullRequest with expectedHeadOid). GitHub refuses to queue a pull
// request whose own requirements (its checks) have not passed yet: then,
// where the repository allows auto-merge, auto-merge is enabled instead,
// which queues it once they pass ("merge when ready"), and Note says so.
// See https://docs.github.com/graphql/reference/mutations#enqueuepullrequest.
func enqueue(ctx context.Context, env Env, t Target, in *info, out *Outcome) error {
	if !in.hasQueue {
		return &kind.Cause{Kind: kind.Invalid, Err: fmt.Errorf("%s: %w", t.Base, ErrNoQueue),
			Hint: "the change is on the head branch and the pull request is open; merge it with merge-now or auto-merge, or require a merge queue on " + t.Base}
	}
	whenReady := func() error {
		out.Note = fmt.Sprintf("pull request #%d was not ready for the merge queue (its checks had not passed): enabled auto-merge, which queues it once they do", t.Number)
		return enableAuto(ctx, env, t, in, "", out)
	}
	out.queue = true
	if in.autoAllowed && !checksPassed(ctx, env, t, in.ID) {
		return whenReady() // no write GitHub would refuse
	}
	const q = `mutation($id:ID!,$head:GitObjectID!){enqueuePullRequest(input:{pullRequestId:$id,expectedHeadOid:$head}){mergeQueueEntry{id}}}`
	err := env.GQL.Do(ctx, "enqueue pull request", true, q, map[string]any{"id": in.ID, "head": t.Head}, nil)
	var nr *ghgraphql.NoReplyError
	switch {
	case err == nil || errors.As(err, &nr):
		out.Queued = true // a lost reply: the wait reads what became of it
		return nil
	case in.autoAllowed && whenReady() == nil:
		return nil
	}
	out.Note = ""
	return refused(t, "add to the merge queue", err, "add it to the queue yourself once its requirements are met")
}

// checksPassed reports whether every check the base branch's rules
// require has passed on the pull request's head; true when that cannot be
// read (enqueuing then says).
func checksPassed(ctx context.Context, env Env, t Target, id string) bool {
	rules, err := env.REST.MergeRules(ctx, t.Base)
	if err != nil {
		return true
	}
	required := map[string]bool{}
	for _, c := range rules.Checks {
		required[c] = true
	}
	w, err := readWait(ctx, env, id, required)
	if err != nil {
		return true
	}
	passed := map[string]bool{}
	for _, c := range w.checks {
		if c.Required && (c.Verdict == "SUCCESS" || c.Verdict == "NEUTRAL" || c.Verdict == "SKIPPED") {
			passed[c.Name] = true
		}
	}
	return len(passed) == len(required)
}

// settle reads the pull request after a merge whose reply was lost or
// unclear: merged, or an unknown outcome (never sent again).
func settle(ctx context.Context, env Env, t Target, out *Outcome, via string, cause error) error {
	st, err := env.REST.PullState(ctx, t.Number)
	if err == nil && st.Merged {
		out.Merged, out.Commit, out.Via = true, st.MergeCommit, via
		return nil
	}
	return &kind.Cause{Kind: kind.UnknownOutcome, Err: fmt.Errorf("merge pull request #%d: %w", t.Number, cause),
		Hint: "read the pull request before merging it again"}
}

// refused is the error of a merge write GitHub refused.
func refused(t Target, what string, err error, todo string) error {
	return &kind.Cause{Err: fmt.Errorf("%s pull request #%d: %w", what, t.Number, err),
		Hint: "the change is on the head branch and the pull request is open; " + todo}
}
