package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
)

// output prints a commit's result for people, for scripts (--json) and for
// GitHub Actions ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY).
type output struct {
	e    *env
	json bool
	web  string // web root ending in "/", or ""
}

// jsonResult is the --json object; its keys are a contract.
type jsonResult struct {
	Repository string `json:"repository"`
	Branch     string `json:"branch"`
	Commit     string `json:"commit"`
	Parent     string `json:"parent"`
	Tree       string `json:"tree"`
	Attempts   int    `json:"attempts"`
	// Changed lists the paths the commit added, modified or deleted, as the
	// library reports them; [] for a no-op.
	Changed []string `json:"changed"`
	NoOp    bool     `json:"noop"`
	URL     string   `json:"url"`
	// Engine is the engine that made the commit (for --engine auto, the one
	// it picked).
	Engine string `json:"engine,omitempty"`
	// Bootstrapped is true when the repository was empty and its first
	// commit (one of the change set's plain files) went through the
	// contents API before this commit.
	Bootstrapped bool `json:"bootstrapped,omitempty"`
	// Tag is the tag (--tag) that now points at the commit.
	Tag string `json:"tag,omitempty"`
	// PullRequest is set when --on-protected pull-request opened one
	// instead (branch is then the generated head branch).
	PullRequest *committer.ProtectedPullRequest `json:"pull_request,omitempty"`
}

// changed is what the library reports the commit changed; never nil.
func changed(r *committer.Result) []string {
	if r.NoOp || r.Changed == nil {
		return []string{}
	}
	return r.Changed
}

func (o *output) jsonResult(r *committer.Result, u string) jsonResult {
	return jsonResult{r.Repository, r.Branch, r.Commit, r.Parent, r.Tree, r.Attempts, changed(r), r.NoOp, u, r.Engine, r.Bootstrapped, r.Tag, r.PullRequest}
}

func (o *output) commitURL(repo, sha string) string {
	if o.web == "" || sha == "" {
		return ""
	}
	return o.web + repo + "/commit/" + sha
}

// result prints a commit's result. $GITHUB_OUTPUT and the step summary are
// written first: if that fails, --json prints the failure instead, never two
// objects.
func (o *output) result(r *committer.Result) error {
	u := o.commitURL(r.Repository, r.Commit)
	if err := o.actions(r, u); err != nil {
		return err
	}
	if o.json {
		return writeJSON(o.e, o.jsonResult(r, u))
	}
	_, err := fmt.Fprintln(o.e.stdout, summary(r, r.Repository+"@"+r.Branch, short(r.Commit), u))
	return err
}

// summary is the human line for a commit, at where, named by link. It
// counts the files the library reports as changed, nothing else.
func summary(r *committer.Result, where, link, url string) string {
	if r.NoOp {
		return fmt.Sprintf("no changes: %s already up to date (%s)", where, link)
	}
	s := fmt.Sprintf("committed %s to %s: %s (%s)", plural(len(changed(r)), "file"), where, link, plural(r.Attempts, "attempt"))
	if url != "" {
		s += " " + url
	}
	if r.Tag != "" {
		s += ", tagged " + r.Tag
	}
	if p := r.PullRequest; p != nil {
		s += fmt.Sprintf("; %s is protected: pull request #%d %s", p.Base, p.Number, p.URL)
	}
	return s
}

// actions appends to $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY when set.
func (o *output) actions(r *committer.Result, u string) error {
	if p := o.e.getenv("GITHUB_OUTPUT"); p != "" {
		if err := appendFile(p, fmt.Sprintf("commit=%s\nnoop=%t\n", r.Commit, r.NoOp)); err != nil {
			return fmt.Errorf("the commit landed (%s), but writing $GITHUB_OUTPUT failed: %w", r.Commit, err)
		}
	}
	if p := o.e.getenv("GITHUB_STEP_SUMMARY"); p != "" {
		link := short(r.Commit)
		if u != "" {
			link = fmt.Sprintf("[%s](%s)", short(r.Commit), u)
		}
		line := "ghcommitter: " + summary(r, "`"+r.Repository+"@"+r.Branch+"`", link, "") + "\n"
		if err := appendFile(p, line); err != nil {
			return fmt.Errorf("the commit landed (%s), but writing $GITHUB_STEP_SUMMARY failed: %w", r.Commit, err)
		}
	}
	return nil
}

// jsonPlan is the --dry-run --json object.
type jsonPlan struct {
	Repository string                 `json:"repository"`
	Branch     string                 `json:"branch"`
	Head       string                 `json:"head"`
	NewBranch  bool                   `json:"new_branch"`
	DryRun     bool                   `json:"dry_run"`
	Files      []committer.FileChange `json:"files"`
}

func (o *output) plan(p *committer.Plan) error {
	if o.json {
		files := p.Files
		if files == nil {
			files = []committer.FileChange{}
		}
		return writeJSON(o.e, jsonPlan{p.Repository, p.Branch, p.Head, p.NewBranch, true, files})
	}
	w := o.e.stdout
	head := short(p.Head)
	if head == "" {
		head = "an empty repository"
	}
	fmt.Fprintf(w, "dry run: %s@%s at %s (nothing was written)\n", p.Repository, p.Branch, head)
	if p.NewBranch {
		fmt.Fprintf(w, "  the branch would be created\n")
	}
	counts := map[committer.Action]int{}
	for _, f := range p.Files {
		fmt.Fprintf(w, "  %-9s  %s\n", f.Action, f.Path)
		counts[f.Action]++
	}
	if !p.Changes() {
		fmt.Fprintf(w, "no changes: %s@%s already up to date\n", p.Repository, p.Branch)
		return nil
	}
	fmt.Fprintf(w, "would commit: %d added, %d modified, %d deleted, %d unchanged\n",
		counts[committer.Added], counts[committer.Modified], counts[committer.Deleted], counts[committer.Unchanged])
	return nil
}

func writeJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	return enc.Encode(v)
}

func appendFile(p, s string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// webURL derives the web root from the API root: api.github.com →
// https://github.com/; GHES https://HOST/api/v3/ → https://HOST/; GHE.com
// https://api.SUB.ghe.com/ → https://SUB.ghe.com/; anything else (a local
// fake) is used as is.
func webURL(api string) string {
	u, err := url.Parse(strings.TrimSpace(api))
	if err != nil || u.Host == "" {
		return ""
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.github.com":
		return "https://github.com/"
	case strings.HasSuffix(u.Path, "/api/v3/"):
		u.Path = strings.TrimSuffix(u.Path, "api/v3/")
	case strings.HasPrefix(host, "api.") && strings.HasSuffix(host, ".ghe.com"):
		u.Host = strings.TrimPrefix(u.Host, "api.")
	}
	u.RawPath = ""
	return u.String()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// jsonPullRequest is the --json object of commit --pull-request: the commit
// contract plus the pull request.
type jsonPullRequest struct {
	jsonResult
	PullRequest struct {
		Number  int    `json:"number"`
		URL     string `json:"url"`
		Created bool   `json:"created"`
	} `json:"pull_request"`
}

func (o *output) pullRequest(r *committer.PullRequestResult) error {
	c := r.Commit
	u := o.commitURL(c.Repository, c.Commit)
	if p := o.e.getenv("GITHUB_OUTPUT"); p != "" && r.Number != 0 {
		if err := appendFile(p, fmt.Sprintf("pull-request-number=%d\npull-request-url=%s\n", r.Number, r.URL)); err != nil {
			return fmt.Errorf("the commit landed (%s), but writing $GITHUB_OUTPUT failed: %w", c.Commit, err)
		}
	}
	if err := o.actions(c, u); err != nil {
		return err
	}
	if o.json {
		var j jsonPullRequest
		j.jsonResult = o.jsonResult(c, u)
		j.PullRequest.Number, j.PullRequest.URL, j.PullRequest.Created = r.Number, r.URL, r.Created
		return writeJSON(o.e, j)
	}
	fmt.Fprintln(o.e.stdout, summary(c, c.Repository+"@"+c.Branch, short(c.Commit), u))
	switch {
	case r.Number == 0:
		fmt.Fprintf(o.e.stdout, "no pull request: %s has nothing that its base lacks\n", c.Branch)
	case r.Created:
		fmt.Fprintf(o.e.stdout, "opened pull request #%d: %s\n", r.Number, r.URL)
	default:
		fmt.Fprintf(o.e.stdout, "updated pull request #%d: %s\n", r.Number, r.URL)
	}
	return nil
}
