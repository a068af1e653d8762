package prmerge

import (
	"context"
	"errors"
	"fmt"
)

// waitRead is what the wait's GraphQL read gives: what REST does not show
// of the pull request.
type waitRead struct {
	Merged      bool
	MergeCommit string
	MergeState  string
	QueueState  string // the merge-queue entry's state; "" when none
	AutoMerge   bool
	checks      []check
}

// check is one check run or commit status of the head's rollup.
type check struct {
	Name     string
	Required bool
	Verdict  string // a CheckRun's conclusion ("" while it runs) or a StatusContext's state
}

// failedStates are the verdicts of a failed check: a check run's
// conclusions and a commit status's states.
var failedStates = map[string]bool{"FAILURE": true, "ERROR": true, "CANCELLED": true, "TIMED_OUT": true,
	"ACTION_REQUIRED": true, "STARTUP_FAILURE": true}

// failedRequired names a required check that failed, or "".
func (w *waitRead) failedRequired() string {
	for _, c := range w.checks {
		if c.Required && failedStates[c.Verdict] {
			return c.Name
		}
	}
	return ""
}

// waitingFor says what the merge waits for.
func (w *waitRead) waitingFor(out *Outcome) string {
	pending := 0
	for _, c := range w.checks {
		if c.Required && (c.Verdict == "" || c.Verdict == "PENDING" || c.Verdict == "EXPECTED") {
			pending++
		}
	}
	switch {
	case w.QueueState != "":
		return "in the merge queue (" + w.QueueState + ")"
	case pending > 0:
		return fmt.Sprintf("waiting for %d required check(s)", pending)
	case out.AutoMerge && w.AutoMerge:
		return "auto-merge on, merge state " + w.MergeState
	}
	return "open, merge state " + w.MergeState
}

// waitQuery reads the merge, the auto-merge request, the merge-queue entry
// and the head's checks. Which are required is read from the base
// branch's rules (required, below) once per wait.
const waitQuery = `query($id:ID!){node(id:$id){... on PullRequest{merged mergeCommit{oid} mergeStateStatus
autoMergeRequest{enabledAt} mergeQueueEntry{state} statusCheckRollup{contexts(first:100){nodes{__typename
... on CheckRun{name conclusion} ... on StatusContext{context state}}}}}}}`

// readWait sends waitQuery; a check is required when its name is in
// required. GraphQL has no ETag: it is paced by the wait.
func readWait(ctx context.Context, env Env, id string, required map[string]bool) (*waitRead, error) {
	var reply struct {
		Node *struct {
			Merged           bool
			MergeCommit      *oid
			MergeStateStatus string
			AutoMergeRequest *struct{ EnabledAt string }
			MergeQueueEntry  *struct{ State string }
			// A pull request with no checks has no rollup.
			StatusCheckRollup *struct {
				Contexts struct {
					Nodes []struct {
						Typename                  string `json:"__typename"`
						Name, Conclusion, Context string
						State                     string
					}
				}
			}
		}
	}
	if err := env.GQL.Do(ctx, "read pull request's merge", false, waitQuery, map[string]any{"id": id}, &reply); err != nil {
		return nil, fmt.Errorf("read the merge state of the pull request: %w", err)
	}
	n := reply.Node
	if n == nil {
		return nil, errors.New("the pull request cannot be read any more")
	}
	w := &waitRead{Merged: n.Merged, MergeState: n.MergeStateStatus, AutoMerge: n.AutoMergeRequest != nil}
	if n.MergeCommit != nil {
		w.MergeCommit = n.MergeCommit.Oid
	}
	if n.MergeQueueEntry != nil {
		w.QueueState = n.MergeQueueEntry.State
	}
	if r := n.StatusCheckRollup; r != nil {
		for _, c := range r.Contexts.Nodes {
			if c.Typename == "StatusContext" {
				w.checks = append(w.checks, check{Name: c.Context, Required: required[c.Context], Verdict: c.State})
				continue
			}
			w.checks = append(w.checks, check{Name: c.Name, Required: required[c.Name], Verdict: c.Conclusion})
		}
	}
	return w, nil
}
