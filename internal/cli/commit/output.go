package commit

import (
	"encoding/json"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"net/url"
	"os"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
)

// output prints a commit's result for people, for scripts (--json) and for
// GitHub Actions ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY).
// It formats what it is given and makes no request: what it reports from
// GitHub beyond the library's result is read by the run (readBack).
type output struct {
	e    *cmdutil.Env
	json bool
	web  string // web root ending in "/", or ""
}

// newOutput is the output of a command talking to apiURL.
func newOutput(e *cmdutil.Env, json bool, apiURL string) *output {
	return &output{e: e, json: json, web: webURL(apiURL)}
}

// maxChangedFiles bounds the changed-files output: a job's outputs are
// capped at 1 MB in all, so the list stops before 256 KiB of JSON (and
// changed-files-truncated says so); changed-count is always exact.
const maxChangedFiles = 256 << 10

// changedFilesJSON is paths as a JSON list of at most maxChangedFiles bytes,
// and whether it had to be cut.
func changedFilesJSON(paths []string) (string, bool) {
	var b strings.Builder
	b.WriteByte('[')
	for i, p := range paths {
		q, _ := json.Marshal(p)
		if b.Len()+len(q)+2 > maxChangedFiles {
			b.WriteByte(']')
			return b.String(), true
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(q)
	}
	b.WriteByte(']')
	return b.String(), false
}

// JSONResult is the --json object; its keys are a contract.
type JSONResult struct {
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
	// PullRequest is set with --pull-request, and when --on-protected
	// pull-request opened one instead (branch is then the generated head
	// branch).
	PullRequest *jsonPR `json:"pull_request,omitempty"`
}

// jsonPR is --json's pull_request object, one shape for --pull-request and
// --on-protected pull-request.
type jsonPR struct {
	Number  int    `json:"number"` // 0: none opened (--pull-request of a no-op)
	URL     string `json:"url"`
	Created bool   `json:"created"`
	// Operation is created, updated or unchanged ("" when none was opened).
	Operation string `json:"operation"`
	Base      string `json:"base"`
	Head      string `json:"head"`
	// Merge is set with --auto-merge, --merge-now, --merge-queue or
	// --wait: merged, merge_commit, merged_via, merge_method, auto_merge,
	// queued, note.
	Merge *committer.MergeOutcome `json:"merge,omitempty"`
}

// changed is what the library reports the commit changed; never nil.
func changed(r *committer.Result) []string {
	if r.NoOp || r.Changed == nil {
		return []string{}
	}
	return r.Changed
}

func (o *output) jsonResult(r *committer.Result, u string) JSONResult {
	var pr *jsonPR
	if p := r.PullRequest; p != nil {
		pr = &jsonPR{p.Number, p.URL, p.Created, p.Operation, p.Base, r.Branch, p.Merge}
	}
	return JSONResult{r.Repository, r.Branch, r.Commit, r.Parent, r.Tree, r.Attempts, changed(r), r.NoOp, u, r.Engine, r.Bootstrapped, r.Tag, pr}
}

func (o *output) commitURL(repo, sha string) string {
	if o.web == "" || sha == "" {
		return ""
	}
	return o.web + repo + "/commit/" + sha
}

// result prints a commit's result; verified is whether GitHub shows the
// commit as Verified (readBack.verified). $GITHUB_OUTPUT and the step
// summary are written first: if that fails, --json prints the failure
// instead, never two objects.
func (o *output) result(r *committer.Result, verified bool) error {
	u := o.commitURL(r.Repository, r.Commit)
	var pr *committer.PullRequestResult // --on-protected pull-request's
	if p := r.PullRequest; p != nil {
		pr = &committer.PullRequestResult{Number: p.Number, URL: p.URL, Created: p.Created, Operation: p.Operation, Merge: p.Merge}
	}
	if err := o.actions(r, u, pr, verified); err != nil {
		return o.partlyDone(r, u, err)
	}
	if o.json {
		return writeJSON(o.e, o.jsonResult(r, u))
	}
	line := summary(r, r.Repository+"@"+r.Branch, cmdutil.Short(r.Commit), u)
	if pr != nil {
		line += "\n" + strings.TrimSuffix(mergeLine(pr.Number, r.PullRequest.Base, pr.Merge), "\n")
	}
	_, err := fmt.Fprintln(o.e.Stdout, strings.TrimSuffix(line, "\n"))
	return err
}

// partlyDone reports a commit r that landed while err, after it, failed:
// under --json, r's result object with err's error object beside it; the
// exit code is 4.
func (o *output) partlyDone(r *committer.Result, u string, err error) error {
	ee := Classify(err)
	pd := PartlyDone(ee.Err, "the commit landed ("+r.Commit+" on "+r.Branch+"): do not run again for it", o.json)
	if o.json {
		_ = writeJSON(o.e, partlyDoneJSON(o.jsonResult(r, u), pd)) // stdout failed too: the exit code still says it
	}
	return pd
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

// actions appends to $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY when set;
// pr, when not nil, is the pull request the commit went to.
func (o *output) actions(r *committer.Result, u string, pr *committer.PullRequestResult, verified bool) error {
	if p := o.e.Getenv("GITHUB_OUTPUT"); p != "" {
		files := changed(r)
		list, cut := changedFilesJSON(files)
		s := fmt.Sprintf("commit=%s\nnoop=%t\nbranch=%s\nchanged-count=%d\nchanged-files=%s\nchanged-files-truncated=%t\nengine=%s\nverified=%t\n",
			r.Commit, r.NoOp, r.Branch, len(files), list, cut, r.Engine, verified)
		if pr != nil && pr.Number != 0 {
			s += fmt.Sprintf("pull-request-number=%d\npull-request-url=%s\npull-request-operation=%s\n", pr.Number, pr.URL, pr.Operation)
			s += mergeOutputs(pr.Merge)
		}
		if err := appendFile(p, s); err != nil {
			return fmt.Errorf("the commit landed (%s), but writing $GITHUB_OUTPUT failed: %w", r.Commit, err)
		}
	}
	if p := o.e.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
		link := cmdutil.Short(r.Commit)
		if u != "" {
			link = fmt.Sprintf("[%s](%s)", cmdutil.Short(r.Commit), u)
		}
		line := "ghcommitter: " + summary(r, "`"+r.Repository+"@"+r.Branch+"`", link, "")
		if pr != nil && pr.Number != 0 {
			line += fmt.Sprintf("; pull request [#%d](%s) %s", pr.Number, pr.URL, pr.Operation)
			if pr.Merge != nil && pr.Merge.Merged {
				line += ", merged (" + pr.Merge.Via + ") as " + cmdutil.Short(pr.Merge.Commit)
			}
		}
		line += "\n"
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
		return writeJSON(o.e, o.jsonPlan(p))
	}
	return o.planText(p)
}

func (o *output) jsonPlan(p *committer.Plan) jsonPlan {
	files := p.Files
	if files == nil {
		files = []committer.FileChange{}
	}
	return jsonPlan{p.Repository, p.Branch, p.Head, p.NewBranch, true, files}
}

// planPullRequest prints a --dry-run --pull-request: the plan for the head
// branch, and the pull request into base that would be opened or reused.
func (o *output) planPullRequest(p *committer.Plan, base string) error {
	if o.json {
		return writeJSON(o.e, struct {
			jsonPlan
			PullRequest struct {
				Base string `json:"base"`
				Head string `json:"head"`
			} `json:"pull_request"`
		}{jsonPlan: o.jsonPlan(p), PullRequest: struct {
			Base string `json:"base"`
			Head string `json:"head"`
		}{base, p.Branch}})
	}
	if err := o.planText(p); err != nil {
		return err
	}
	_, err := fmt.Fprintf(o.e.Stdout, "would open a pull request from %s into %s, or reuse the one open\n", p.Branch, base)
	return err
}

func (o *output) planText(p *committer.Plan) error {
	w := o.e.Stdout
	head := cmdutil.Short(p.Head)
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

func writeJSON(e *cmdutil.Env, v any) error {
	enc := json.NewEncoder(e.Stdout)
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

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pullRequest prints commit --pull-request's result: the commit to the head
// branch and the pull request from it into base.
func (o *output) pullRequest(r *committer.PullRequestResult, base string, verified bool) error {
	c := r.Commit
	u := o.commitURL(c.Repository, c.Commit)
	if err := o.actions(c, u, r, verified); err != nil {
		return o.partlyDone(c, u, err)
	}
	if o.json {
		j := o.jsonResult(c, u)
		j.PullRequest = &jsonPR{r.Number, r.URL, r.Created, r.Operation, base, c.Branch, r.Merge}
		return writeJSON(o.e, j)
	}
	fmt.Fprintln(o.e.Stdout, summary(c, c.Repository+"@"+c.Branch, cmdutil.Short(c.Commit), u))
	switch {
	case r.Number == 0:
		fmt.Fprintf(o.e.Stdout, "no pull request: %s has nothing that its base lacks\n", c.Branch)
	case r.Created:
		fmt.Fprintf(o.e.Stdout, "opened pull request #%d: %s\n", r.Number, r.URL)
	case r.Operation == committer.PullRequestUnchanged:
		fmt.Fprintf(o.e.Stdout, "pull request #%d unchanged: %s\n", r.Number, r.URL)
	default:
		fmt.Fprintf(o.e.Stdout, "updated pull request #%d: %s\n", r.Number, r.URL)
	}
	if s := mergeLine(r.Number, base, r.Merge); s != "" {
		fmt.Fprintln(o.e.Stdout, s)
	}
	return nil
}
