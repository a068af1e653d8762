package committer

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
	"github.com/ghcommitter/ghcommitter/committer/turns"
)

// The attempt driver is internal/loop's Driver; this file is the
// Committer's side of it: its host (the work's errors, *Error, events and
// logs, the empty repository's bootstrap, the protection rule that refused
// a write) and the work of a single change set (single).

// driverConfig is the driver's configuration of a work of c's on branch
// under co; its caller sets what is particular to the work (the
// candidate engines, a known head, a dry run).
func (c *Committer) driverConfig(branch string, co commitOptions) loop.Config {
	return loop.Config{
		Repo: c.Repository(), Branch: branch, Refs: c.refs, Env: c.engineEnv(), Engine: co.engine.impl(),
		ExpectHead: co.expectHead, CreateFrom: co.createFrom, Tag: co.tag, Squash: co.squash,
		MaxAttempts: c.o.maxAttempts, Backoff: func(lc loop.Contention) time.Duration { return c.o.backoff(Contention(lc)) }, Sleep: c.o.sleep,
		SecondaryFloor: c.o.secondaryFloor, MaxLimitWait: c.o.maxLimitWait,
		PacerWait: func(n int) time.Duration { w, _ := ghclient.WritesWait(c.hc, n); return w },
		Turns:     c.o.turns, TurnWait: c.o.turnWait, TurnKey: c.turnKey(branch),
	}
}

// newDriver returns the driver of w under cfg: op names it in errors;
// watchers are the committers whose observers and loggers see the work's
// events (its callers').
func (c *Committer) newDriver(op string, cfg loop.Config, w loop.Work, watchers func() []*Committer) *loop.Driver {
	return loop.New(cfg, &host{c: c, op: op, branch: cfg.Branch, watchers: watchers}, w)
}

// host is a work's loop.Host.
type host struct {
	c        *Committer
	op       string
	branch   string
	watchers func() []*Committer
}

func (h *host) Error(f loop.Failure) error {
	e := h.c.fail(h.op, h.branch, f.Kind, f.Err)
	e.Head, e.Attempts = f.Head, f.Attempts
	if f.Hint != "" {
		e.Hint = f.Hint
	}
	if f.SetRetryAfter {
		e.RetryAfter = f.RetryAfter
	}
	return e
}

func (h *host) Owns(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

func (h *host) Cause(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return nil
	}
	return e.Err
}

func (h *host) MissingBranch(cause error) error {
	return h.c.missingBranch(h.op, h.branch, cause)
}

var eventKinds = [...]EventKind{
	loop.EventAttempt: EventAttempt, loop.EventLostRace: EventLostRace, loop.EventLanded: EventLanded,
	loop.EventRateLimitWait: EventRateLimitWait, loop.EventWritePaced: EventWritePaced,
}

// Observe reports e to the observers of every caller of the work.
func (h *host) Observe(le loop.Event) {
	e := Event{Kind: eventKinds[le.Kind], Branch: le.Branch, Attempt: le.Attempt, Head: le.Head, Commit: le.Commit, Took: le.Took, Wait: le.Wait, Changes: le.Changes, Shared: le.Changes > 1}
	for _, c := range h.watchers() {
		c.observe(e)
	}
}

func (h *host) ObservesWaits() bool {
	for _, c := range h.watchers() {
		if c.o.observer != nil {
			return true
		}
	}
	return false
}

// Debug logs msg to the logger of every caller of the work (each logger
// once).
func (h *host) Debug(ctx context.Context, msg string, args ...any) {
	seen := map[*slog.Logger]bool{}
	for _, c := range h.watchers() {
		if l := c.o.logger; !seen[l] {
			seen[l] = true
			l.DebugContext(ctx, msg, args...)
		}
	}
}

func (h *host) Bootstrap(ctx context.Context, u loop.Unit) (loop.Head, error) {
	return h.c.bootstrap(ctx, h.branch, u.(*unit))
}

func (h *host) PlanBootstrap(ctx context.Context, u loop.Unit) error {
	_, err := h.c.planBootstrap(ctx, u.(*unit).p)
	return err
}

func (h *host) ExplainProtected(ctx context.Context, err error) {
	var e *Error
	if errors.As(err, &e) {
		h.c.explainProtected(ctx, h.branch, e)
	}
}

// oneCommit is the one-write commit of u.
func oneCommit(u *unit) *loop.OneCommit {
	return &loop.OneCommit{Message: u.message, Author: toAuthor(u.cs.Author), Committer: toAuthor(u.cs.Committer), EditID: u.editID}
}

// turnKey names branch of the repository for the writers' turns: the API,
// the repository (GitHub's names are case-insensitive) and the branch. The
// API of a coordinator registry of its own (tests' "other processes", see
// options.process) is told apart by the registry's name.
func (c *Committer) turnKey(branch string) turns.Key {
	api := c.api
	if c.o.process != "" {
		api += "\x00" + c.o.process
	}
	return turns.Key{API: api, Repository: strings.ToLower(c.Repository()), Branch: branch}
}

// Rules that explain themselves: after a write refused by a rule
// (ErrProtected), the rule is named (Error.Rule) and the hint says the way
// through. Rulesets are read with GET rules/branches/{branch} after the
// refusal, never before a commit; classic branch protection is known by
// its refusal's message and GET branches/{branch}'s protected.

// ruleMessages maps what GitHub's refusals say to the rule's type, as GET
// rules/branches names it (classic protection's refusals say the same
// things for the same requirements).
var ruleMessages = []struct{ says, typ string }{
	{"through a pull request", "pull_request"},
	{"approving review", "pull_request"},
	{"verified signature", "required_signatures"},
	{"must be signed", "required_signatures"},
	{"merge queue", "merge_queue"},
	{"status check", "required_status_checks"},
	{"cannot force-push", "non_fast_forward"},
	{"creations being restricted", "creation"},
	{"cannot update this protected ref", "update"},
	{"file path", "file_path_restriction"},
	{"file size", "max_file_size"},
}

// RuleHints is the way through a refusal by each rule type (Error.Hint).
var ruleHints = map[string]string{
	"pull_request":           "the branch takes changes through pull requests: commit with CommitPullRequest (to a new branch, with a pull request into this one), or WithPullRequestOnProtected",
	"required_signatures":    "the branch needs verified signatures: commit through the graphql or contents engine (GitHub signs their commits), or sign with WithSigner using a key registered on GitHub",
	"merge_queue":            "the branch takes changes through its merge queue: open a pull request (CommitPullRequest) and add it to the queue; direct pushes need a bypass",
	"required_status_checks": "the branch needs status checks that pass on the new commit: commit to another branch and open a pull request (CommitPullRequest)",
}

// explainProtected names the rule that refused e's write and gives the
// way through. A read that fails leaves e as it is.
func (c *Committer) explainProtected(ctx context.Context, branch string, e *Error) {
	if e == nil || !errors.Is(e.Kind, ErrProtected) || e.Rule != "" {
		return
	}
	said := strings.ToLower(e.Error())
	var named []string
	for _, m := range ruleMessages {
		if strings.Contains(said, m.says) && !contains(named, m.typ) {
			named = append(named, m.typ)
		}
	}
	rctx, cancel := c.settleContext(ctx)
	defer cancel()
	active := c.branchRuleTypes(rctx, branch)
	rule := ""
	for _, t := range named {
		if contains(active, t) {
			rule = t
			break
		}
	}
	switch {
	case rule == "" && len(active) > 0 && len(named) == 0:
		rule = active[0]
	case rule == "" && len(named) > 0:
		rule = named[0] // classic branch protection: its own message says it
	}
	if rule == "" && c.branchProtected(rctx, branch) {
		rule = "branch_protection"
	}
	e.Rule = rule
	if h, ok := ruleHints[rule]; ok {
		e.Hint = h
	}
}

// branchRuleTypes lists the types of the rules active on branch (GET
// rules/branches/{branch}), nil when they cannot be read. See
// https://docs.github.com/rest/repos/rules#get-rules-for-a-branch.
func (c *Committer) branchRuleTypes(ctx context.Context, branch string) []string {
	types, err := c.rest.BranchRuleTypes(ctx, branch)
	if err != nil {
		return nil
	}
	return types
}

// branchProtected reports GET branches/{branch}'s protected (classic
// protection or rules).
func (c *Committer) branchProtected(ctx context.Context, branch string) bool {
	protected, err := c.rest.BranchProtected(ctx, branch)
	return err == nil && protected
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// landedResult completes the Result of a change set that landed, alone
// or in a batch: a commit that no one-write engine made was built by the
// work itself, through Git Data.
func landedResult(r *Result) {
	if r.Engine == "" {
		r.Engine = engine.GitData{}.Name()
	}
}
