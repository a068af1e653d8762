package resolve

import (
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// statusCheckRollup of a commit (Commit.statusCheckRollup, and
// PullRequest.statusCheckRollup of its head): the latest commit status of
// each context and the latest check run of each name, and their combined
// state: FAILURE if one failed (status error or failure; run concluded
// failure, cancelled, timed_out, action_required or startup_failure),
// else PENDING if one has not finished, else SUCCESS; null when there is
// none (GitHub's StatusCheckRollup and StatusState).

// statusRollup is h's StatusCheckRollup, or nil. Caller holds rp.Mu.
func statusRollup(x *graphql.Exec, rp *state.Repo, h plumbing.Hash) any {
	statuses, runs := rp.LatestStatuses(h), rp.LatestRuns(h)
	if len(statuses)+len(runs) == 0 {
		return nil
	}
	var nodes []graphql.Object
	failed, pending := false, false
	for _, st := range statuses {
		failed = failed || st.State == "error" || st.State == "failure"
		pending = pending || st.State == "pending"
		nodes = append(nodes, statusContextObj(st))
	}
	for _, cr := range runs {
		switch {
		case cr.Status != "completed":
			pending = true
		case cr.Conclusion != "success" && cr.Conclusion != "neutral" && cr.Conclusion != "skipped":
			failed = true
		}
		nodes = append(nodes, checkRunObj(x, rp, cr))
	}
	st := "SUCCESS"
	if failed {
		st = "FAILURE"
	} else if pending {
		st = "PENDING"
	}
	var commit any
	if c, ok := rp.Commits[h]; ok {
		commit = gqlCommit{rp: rp, c: c}
	}
	contexts := func(_ *graphql.Exec, args map[string]any) (any, error) {
		conn, err := newConnection("StatusCheckRollupContextConnection", "contexts", plumbing.ComputeHash(plumbing.BlobObject, []byte("rollup:"+h.String())), nodes, args)
		if err != nil {
			return nil, err
		}
		return rollupConn{Object: conn, checks: len(runs), statuses: len(statuses)}, nil
	}
	return gqlMap{typ: "StatusCheckRollup", m: map[string]any{"id": wire.NodeID("SCR", rp.FullName()+":"+h.String()),
		"state": st, "commit": commit, "contexts": contexts}}
}

// rollupConn adds the counts of StatusCheckRollupContextConnection.
type rollupConn struct {
	graphql.Object
	checks, statuses int
}

func (c rollupConn) Field(x *graphql.Exec, name string, args map[string]any) (any, error) {
	switch name {
	case "checkRunCount":
		return c.checks, nil
	case "statusContextCount":
		return c.statuses, nil
	}
	return c.Object.Field(x, name, args)
}

func statusContextObj(st *state.CommitStatus) graphql.Object {
	opt := nilIfEmpty
	return gqlMap{typ: "StatusContext", m: map[string]any{"id": wire.NodeID("SC", strconv.FormatInt(st.ID, 10)),
		"context": st.Context, "state": strings.ToUpper(st.State), "description": opt(st.Description), "targetUrl": opt(st.Target),
		"createdAt": dateTime(st.Created), "creator": gqlAccount{typ: "User", login: st.Creator.Login, id: st.Creator.UserID}}}
}

func checkRunObj(x *graphql.Exec, rp *state.Repo, cr *state.CheckRun) graphql.Object {
	var concl, completed any
	if cr.Conclusion != "" {
		concl = strings.ToUpper(cr.Conclusion)
	}
	if cr.Completed != nil {
		completed = dateTime(*cr.Completed)
	}
	id := strconv.FormatInt(cr.ID, 10)
	u := wire.RepoHTMLURL(rp, x.R) + "/runs/" + id
	return gqlMap{typ: "CheckRun", m: map[string]any{"id": wire.NodeID("CR", rp.FullName()+":"+id), "databaseId": cr.ID,
		"name": cr.Name, "status": strings.ToUpper(cr.Status), "conclusion": concl, "startedAt": dateTime(cr.Started),
		"completedAt": completed, "detailsUrl": nilIfEmpty(cr.DetailsURL), "externalId": nilIfEmpty(cr.ExternalID),
		"url": u, "permalink": u, "title": nilIfEmpty(cr.Title), "summary": nilIfEmpty(cr.Summary), "text": nil}}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
