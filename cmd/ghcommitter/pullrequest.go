package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ghcommitter/ghcommitter/committer"
	pgpsign "github.com/ghcommitter/ghcommitter/committer/openpgp"
	"github.com/google/go-github/v66/github"
	"github.com/spf13/cobra"
)

// prFlags are the flags of commit --pull-request.
type prFlags struct {
	enabled     bool
	base        string
	title, body string
	draft       bool
}

func (p *prFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&p.enabled, "pull-request", false, "commit to the -b branch (created from --base when missing) and open a pull request into --base, or reuse the one already open")
	fl.StringVar(&p.base, "base", "", "with --pull-request: the `BRANCH` the pull request goes into (default: the repository's default branch)")
	fl.StringVar(&p.title, "pr-title", "", "with --pull-request: the pull request's `TITLE` (default: the message's first line)")
	fl.StringVar(&p.body, "pr-body", "", "with --pull-request: the pull request's `BODY` (default: the rest of the message)")
	fl.BoolVar(&p.draft, "draft", false, "with --pull-request: open the pull request as a draft")
}

// run commits cs to the head branch and opens or reuses its pull request.
func (p *prFlags) run(ctx context.Context, e *env, c *committer.Committer, cs *committer.ChangeSet, f *commitFlags, apiURL string, prog *progress) error {
	if f.dryRun {
		return usageErrorf("drop one of them", "--dry-run and --pull-request cannot be combined")
	}
	base := p.base
	if base == "" {
		var err error
		if base, err = c.DefaultBranch(ctx); err != nil {
			return err
		}
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
			return usageErrorf("", "%v", err)
		}
	}
	if head == base {
		return usageErrorf("name the head branch with -b, different from --base", "--pull-request: head and base are both %q", base)
	}
	// The same engine and branch options as a direct commit: --engine,
	// and --create-branch-from as the ref head is created from (the
	// default is --base).
	cos := f.engine.commitOptions()
	if f.createFrom != "" {
		cos = append(cos, committer.CreateBranchFrom(f.createFrom))
	}
	res, err := c.CommitPullRequest(ctx, base, head, cs, committer.PullRequestOptions{Title: p.title, Body: p.body, Draft: p.draft}, cos...)
	prog.done()
	if err != nil {
		if res != nil && res.Commit != nil {
			fmt.Fprintf(e.stderr, "ghcommitter: the commit landed on %s (%s); only opening the pull request failed\n", head, res.Commit.Commit)
			return &afterLanding{err: err, branch: head, commit: res.Commit.Commit}
		}
		return err
	}
	out := &output{e: e, json: f.json, web: webURL(apiURL)}
	return out.pullRequest(res)
}

// signer loads --sign-key, and with --remove-sign-key deletes the file
// (before any --edit command runs: they run in the commit). Signing needs an
// author.
func (f *commitFlags) signer(e *env, cs *committer.ChangeSet) (github.MessageSigner, error) {
	if cs.Author == nil {
		return nil, usageErrorf(`add --author "Name <email>" matching the key's identity`, "--sign-key needs --author")
	}
	key, err := os.ReadFile(f.signKey)
	if err != nil {
		return nil, usageErrorf("", "--sign-key: %v", err)
	}
	if err := f.dropSignKey(); err != nil {
		return nil, usageErrorf("", "--remove-sign-key: %v", err)
	}
	s, err := pgpsign.NewSigner(bytes.NewReader(key), []byte(e.getenv("GHCOMMITTER_SIGN_PASSPHRASE")))
	if err != nil {
		return nil, usageErrorf("export it with gpg --armor --export-secret-keys KEYID", "--sign-key %s: %v", f.signKey, err)
	}
	return s, nil
}

// dropSignKey deletes the --sign-key file with --remove-sign-key; a file
// already gone is no error.
func (f *commitFlags) dropSignKey() error {
	if !f.removeSignKey || f.signKey == "" {
		return nil
	}
	if err := os.Remove(f.signKey); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
