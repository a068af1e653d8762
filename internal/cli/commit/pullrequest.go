package commit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"io/fs"
	"os"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/google/go-github/v66/github"
	"github.com/spf13/cobra"
)

// prFlags are the flags of commit --pull-request.
type prFlags struct {
	enabled     bool
	base        string
	title, body string
	bodyFile    string
	draft       bool
	keepTitle   bool
	keepBody    bool
	labels      []string
	reviewers   []string
	assignees   []string
}

func (p *prFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&p.enabled, "pull-request", false, "commit to the -b branch (created from --base when missing) and open a pull request into --base, or reuse the one already open")
	fl.StringVar(&p.base, "base", "", "with --pull-request: the `BRANCH` the pull request goes into (default: in Actions the run's branch, else the repository's default branch)")
	fl.StringVar(&p.title, "pr-title", "", "with --pull-request: the pull request's `TITLE` (default: the message's first line)")
	fl.StringVar(&p.body, "pr-body", "", "with --pull-request: the pull request's `BODY` (default: the rest of the message)")
	fl.StringVar(&p.bodyFile, "pr-body-file", "", "with --pull-request: read the pull request's body from `FILE` (- for stdin)")
	fl.BoolVar(&p.draft, "draft", false, "with --pull-request: open the pull request as a draft")
	fl.BoolVar(&p.keepTitle, "pr-keep-title", false, "with --pull-request: keep a reused pull request's title as it is (by default it follows each run: --pr-title, else the message's first line)")
	fl.BoolVar(&p.keepBody, "pr-keep-body", false, "with --pull-request: keep a reused pull request's body as it is (by default it follows each run: --pr-body, else the rest of the message)")
	fl.StringSliceVar(&p.labels, "label", nil, "with --pull-request: add `LABEL` to the pull request (repeatable, or comma-separated)")
	fl.StringSliceVar(&p.reviewers, "reviewer", nil, "with --pull-request: request a review from user `LOGIN` (repeatable, or comma-separated)")
	fl.StringSliceVar(&p.assignees, "assignee", nil, "with --pull-request: assign user `LOGIN` (repeatable, or comma-separated)")
}

// check refuses pull-request flags without --pull-request, and a body
// given twice.
func (p *prFlags) check(cmd *cobra.Command) error {
	if !p.enabled {
		for _, name := range []string{"base", "pr-title", "pr-body", "pr-body-file", "draft", "pr-keep-title", "pr-keep-body", "label", "reviewer", "assignee"} {
			if cmd.Flags().Changed(name) {
				return cmdutil.UsageErrorf("add --pull-request", "--%s needs --pull-request", name)
			}
		}
	}
	if p.body != "" && p.bodyFile != "" {
		return cmdutil.UsageErrorf("", "--pr-body and --pr-body-file both given: choose one")
	}
	return nil
}

// pullRequestOptions are the pull request's options; the body file is read here.
func pullRequestOptions(p *prFlags, in *stdinOnce) (committer.PullRequestOptions, error) {
	o := committer.PullRequestOptions{Title: p.title, Body: p.body, Draft: p.draft, KeepTitle: p.keepTitle, KeepBody: p.keepBody,
		Labels: nonEmpty(p.labels), Reviewers: nonEmpty(p.reviewers), Assignees: nonEmpty(p.assignees)}
	if p.bodyFile != "" {
		data, err := readLocal(in, p.bodyFile)
		if err != nil {
			return o, cmdutil.UsageErrorf("", "--pr-body-file: %v", err)
		}
		o.Body = string(data)
	}
	return o, nil
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// runPullRequest commits cs to the head branch and opens or reuses its pull request.
func runPullRequest(ctx context.Context, p *prFlags, e *cmdutil.Env, c *committer.Committer, cs *committer.ChangeSet, f *commitFlags, out *output, rb *readBack, prog *progress, in *stdinOnce) error {
	opts, err := pullRequestOptions(p, in)
	if err != nil {
		return err
	}
	f.merge.options(&opts, e)
	base, err := baseBranch(ctx, p, e, c)
	if err != nil {
		return err
	}
	head := f.branch
	if head == "" {
		// The same message gives the same branch, so a re-run reuses the
		// pull request it opened before.
		sum := sha256.Sum256([]byte(cs.Message))
		head = "ghcommitter/" + hex.EncodeToString(sum[:])[:12]
	}
	for _, b := range []string{base, head} {
		if err := committer.ValidateBranch(b); err != nil {
			return cmdutil.UsageErrorf("", "%v", err)
		}
	}
	if head == base {
		return cmdutil.UsageErrorf("name the head branch with -b, different from --base", "--pull-request: head and base are both %q", base)
	}
	// The same engine and branch options as a direct commit: --engine,
	// and --create-branch-from as the ref head is created from (the
	// default is --base).
	cos := f.engine.commitOptions()
	if f.createFrom != "" {
		cos = append(cos, committer.CreateBranchFrom(f.createFrom))
	}
	if f.dryRun {
		// What the commit would do to the head branch (created from base
		// when missing); the pull request is only named.
		plan, err := c.Plan(ctx, head, cs, append([]committer.CommitOption{committer.CreateBranchFrom(base)}, cos...)...)
		if err != nil {
			return err
		}
		return out.planPullRequest(plan, base)
	}
	res, err := c.CommitPullRequest(ctx, base, head, cs, opts, cos...)
	prog.finish()
	if err != nil {
		if res != nil && res.Commit != nil {
			// The commit landed: partly done (exit 4), never "nothing was
			// written", and the outputs are written first.
			return out.pullRequestAfterLanding(res, base, rb.verified(res.Commit.Repository, res.Commit.Commit), err)
		}
		return err
	}
	return out.pullRequest(res, base, rb.verified(res.Commit.Repository, res.Commit.Commit))
}

// baseBranch is --base; else, in an Actions run on a branch of this
// repository, that branch (a push's branch, a pull request's head, as the
// commit without --pull-request would go to); else the repository's
// default branch.
func baseBranch(ctx context.Context, p *prFlags, e *cmdutil.Env, c *committer.Committer) (string, error) {
	if p.base != "" {
		return p.base, nil
	}
	if name, ok, err := actions.Branch(e, c.Repository()); ok || err != nil {
		return name, err
	}
	return c.DefaultBranch(ctx)
}

// loadSigner loads --sign-key, and with --remove-sign-key deletes the file
// (before any --edit command runs: they run in the commit). Signing needs an
// author.
func loadSigner(f *commitFlags, e *cmdutil.Env, cs *committer.ChangeSet) (github.MessageSigner, error) {
	if cs.Author == nil {
		return nil, cmdutil.UsageErrorf(`add --author "Name <email>" matching the key's identity`, "--sign-key needs --author")
	}
	key, err := os.ReadFile(f.signKey)
	if err != nil {
		return nil, cmdutil.UsageErrorf("", "--sign-key: %v", err)
	}
	if err := dropSignKey(f); err != nil {
		return nil, cmdutil.UsageErrorf("", "--remove-sign-key: %v", err)
	}
	return newSigner(f.signKey, key, []byte(e.Getenv("GHCOMMITTER_SIGN_PASSPHRASE")))
}

// dropSignKey deletes the --sign-key file with --remove-sign-key; a file
// already gone is no error.
func dropSignKey(f *commitFlags) error {
	if !f.removeSignKey || f.signKey == "" {
		return nil
	}
	if err := os.Remove(f.signKey); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
