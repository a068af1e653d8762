// Package actions is the CLI's side of the GitHub Action: the branch a run
// commits to (Branch) and the Action's inputs mapped onto the commit
// command's flags (Args). What a commit writes to $GITHUB_OUTPUT and the step
// summary is the commit command's output.
package actions

import (
	"encoding/json"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"os"
	"strings"
)

// Branch is the branch a GitHub Actions run commits to when no -b is
// given, for a commit to repo ("owner/name"). ok is false when the run names
// no branch to use, and the caller falls back to the repository's default
// branch: outside Actions, for another repository than the run's, and in runs
// triggered by a tag.
//
// GitHub sets, per event (docs: "Events that trigger workflows"):
//   - push, workflow_dispatch, schedule, and most others: GITHUB_REF is
//     refs/heads/BRANCH (or refs/tags/TAG): commit to BRANCH.
//   - pull_request (and pull_request_review[_comment]): GITHUB_REF is
//     refs/pull/N/merge, a ref nobody can commit to; GITHUB_HEAD_REF is the
//     head branch. Commit there when the head is in this repository; a fork's
//     branch is refused, since the token cannot write to the fork.
//   - pull_request_target: GITHUB_REF is the base branch, and the token writes
//     to the base repository whatever the head is; merge_group: GITHUB_REF is
//     a temporary gh-readonly-queue/ branch. Neither names a branch that is
//     safe to guess: -b is required.
func Branch(e *cmdutil.Env, repo string) (branch string, ok bool, err error) {
	if e.Getenv("GITHUB_ACTIONS") != "true" {
		return "", false, nil
	}
	if run := e.Getenv("GITHUB_REPOSITORY"); run == "" || !strings.EqualFold(run, repo) {
		return "", false, nil
	}
	event := e.Getenv("GITHUB_EVENT_NAME")
	ref := e.Getenv("GITHUB_REF")
	switch {
	case event == "pull_request_target" || event == "merge_group":
		return "", false, cmdutil.UsageErrorf("pass -b BRANCH (the action's branch: input) to say which branch to commit to",
			"in a %s run the branch must be given: the token writes to the base repository %s, and the run's ref %q is not a branch to commit to", event, repo, ref)
	case strings.HasPrefix(ref, "refs/pull/") || strings.HasPrefix(event, "pull_request"):
		return pullRequestHead(e, repo, event)
	}
	if name, isBranch := strings.CutPrefix(ref, "refs/heads/"); isBranch && name != "" {
		return name, true, nil
	}
	return "", false, nil
}

// prEvent is the part of a pull_request event payload that says where the
// pull request's head is.
type prEvent struct {
	PullRequest *struct {
		Head prEnd `json:"head"`
		Base prEnd `json:"base"`
	} `json:"pull_request"`
}

type prEnd struct {
	Ref  string `json:"ref"`
	Repo *struct {
		FullName string `json:"full_name"`
	} `json:"repo"`
}

// pullRequestHead returns the head branch of the pull request that triggered
// a pull_request run, after checking in the event payload that the head
// lives in repo (not in a fork).
func pullRequestHead(e *cmdutil.Env, repo, event string) (string, bool, error) {
	const hint = "pass -b BRANCH (the action's branch: input) to commit to a branch of this repository"
	path := e.Getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return "", false, cmdutil.UsageErrorf(hint, "in a %s run, GITHUB_EVENT_PATH is not set: cannot tell whether the pull request's head branch is in %s or in a fork", event, repo)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false, cmdutil.UsageErrorf(hint, "read the %s event (GITHUB_EVENT_PATH): %v", event, err)
	}
	var ev prEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return "", false, cmdutil.UsageErrorf(hint, "read the %s event (GITHUB_EVENT_PATH): %v", event, err)
	}
	if ev.PullRequest == nil {
		return "", false, cmdutil.UsageErrorf(hint, "the %s event (GITHUB_EVENT_PATH) holds no pull_request", event)
	}
	head := ev.PullRequest.Head
	branch := e.Getenv("GITHUB_HEAD_REF")
	if branch == "" {
		branch = head.Ref
	}
	if head.Repo == nil || !strings.EqualFold(head.Repo.FullName, repo) {
		from := "a deleted fork"
		if head.Repo != nil {
			from = head.Repo.FullName
		}
		return "", false, cmdutil.UsageErrorf("the token cannot write to a fork: "+hint+", or run on push instead",
			"the pull request's head branch %q is in %s, not in %s: refusing to guess a branch to commit to", branch, from, repo)
	}
	if branch == "" {
		return "", false, cmdutil.UsageErrorf(hint, "the %s event names no head branch", event)
	}
	return branch, true, nil
}

// BranchDefaultHelp describes the --branch flag's default.
const BranchDefaultHelp = "default: in an Actions run, the branch that triggered it (a pull request's head branch; " +
	"pull_request_target and merge_group runs need -b), else the repository's default branch"
