// Package commit is the ghcommitter commit command: its flags of values
// and their checks (with a --manifest merged onto them), the change set it
// builds, its run, its output and progress, and Classify, which maps its
// errors to exit codes and hints.
package commit

import (
	"context"
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/turns"
	"github.com/spf13/cobra"
)

// commitFlags is the commit command's options: its flags and arguments, as
// given. NewCmd parses them; commitRun acts on them.
type commitFlags struct {
	repo, branch         string
	message, messageFile string
	prefix               string
	paths                []string // LOCAL_PATH arguments
	adds, deletes        []string
	syncs, edits         []string
	expectSHAs, absent   []string
	createFrom           string
	noFileMode           bool
	changed, noIgnore    bool
	author               string
	maxAttempts          int
	turnDir              string
	noTurns              bool
	noLFS                bool
	editTimeout          time.Duration
	dryRun, json         bool
	verbose              bool
	auth                 authFlags
	pr                   prFlags
	merge                mergeFlags // merge.go
	signKey              string
	removeSignKey        bool
	trailers             trailerFlags
	engine               engineFlags     // engine.go
	structured           structuredFlags // structured.go
	manifest             manifestFlags   // manifest.go
	tags                 tagFlags        // tags.go
	onProtected          string          // protected.go
}

// NewCmd builds the commit command; runF receives the parsed
// options (tests capture them without any request), nil for the commit's
// run.
func NewCmd(e *cmdutil.Env, runF func(context.Context, *commitFlags) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, f *commitFlags) error {
			return interrupted(ctx, commitRun(ctx, e, f))
		}
	}
	f := &commitFlags{}
	cmd := &cobra.Command{
		Use:     "commit [flags] [LOCAL_PATH...]",
		Short:   "Commit local files, deletes and edits to a branch as one commit",
		Long:    commitLong,
		Example: commitExample,
		RunE: cmdutil.RunE(func(cmd *cobra.Command, args []string) error {
			// Whatever happens: signer removes it once read, this on the
			// paths that fail before (saying so on stderr when it cannot:
			// the command's own error is the one returned).
			defer func() {
				if err := dropSignKey(f); err != nil {
					fmt.Fprintf(e.Stderr, "ghcommitter: --remove-sign-key: %v\n", err)
				}
			}()
			f.paths = args
			err := f.check(cmd)
			if err == nil {
				err = runF(cmd.Context(), f)
			}
			if err != nil && f.json {
				ee := Classify(err)
				if !ee.Reported {
					WriteFailureJSON(e, ee)
				}
				return ee
			}
			return err
		}),
	}
	f.register(cmd)
	return cmd
}

func (f *commitFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVarP(&f.repo, "repo", "R", "", "the repository, `OWNER/REPO` (default $GH_REPO, else $GITHUB_REPOSITORY)")
	fl.StringVarP(&f.branch, "branch", "b", "", "the branch `NAME` ("+actions.BranchDefaultHelp+")")
	fl.StringVarP(&f.message, "message", "m", "", "the commit message `TEXT`")
	fl.StringVarP(&f.messageFile, "message-file", "F", "", "read the commit message from `FILE` (- for stdin)")
	f.manifest.register(cmd)
	fl.StringVar(&f.prefix, "prefix", "", "commit LOCAL_PATH arguments under repository directory `DIR`")
	fl.BoolVar(&f.changed, "changed", false, "commit what git status says changed under the LOCAL_PATH arguments (default .) in this checkout: added, modified, deleted and mode changes, .gitignore honoured; each path must hold on the branch what the checkout's HEAD has, or already what the checkout has, else exit 3")
	fl.BoolVar(&f.noIgnore, "no-ignore", false, "take every file of a LOCAL_PATH directory, .gitignore or not")
	fl.StringArrayVar(&f.adds, "add", nil, "`REMOTE=LOCAL`: put local file or directory LOCAL at repository path REMOTE, split at the first = (LOCAL - reads stdin; REMOTE . is the root for a directory; repeatable)")
	fl.StringArrayVar(&f.deletes, "delete", nil, "delete `PATH`, or everything under it if a directory (repeatable)")
	fl.StringArrayVar(&f.syncs, "sync", nil, "`LOCAL_DIR=REMOTE_DIR`: make REMOTE_DIR mirror LOCAL_DIR, adding, updating and deleting, split at the last = (REMOTE_DIR . is the root; repeatable)")
	fl.StringArrayVar(&f.edits, "edit", nil, "`PATH=COMMAND`: on every attempt, replace PATH with the stdout of sh -c COMMAND fed PATH's current content, split at the first =; a failing COMMAND aborts (repeatable)")
	fl.DurationVar(&f.editTimeout, "edit-timeout", input.DefaultEditTimeout, "kill an --edit command, and commit nothing, after `DURATION`")
	f.structured.register(cmd)
	fl.StringArrayVar(&f.expectSHAs, "expect-sha", nil, "`PATH=SHA`: commit only if PATH still has blob SHA, else exit 3; split at the last = (repeatable)")
	fl.StringArrayVar(&f.absent, "expect-absent", nil, "commit only if `PATH` does not exist, else exit 3 (repeatable)")
	fl.StringVar(&f.createFrom, "create-branch-from", "", "create the branch from `REF` (a branch or commit SHA) when it does not exist (with --pull-request: the head branch, instead of from --base)")
	fl.BoolVar(&f.noFileMode, "no-file-mode", false, "store every file as 100644: drop executable bits, follow symlinks")
	fl.BoolVar(&f.noLFS, "no-lfs", false, "commit the bytes of paths the branch's .gitattributes routes through Git LFS (filter=lfs) as they are, instead of a pointer file with the content in LFS storage")
	fl.StringVar(&f.author, "author", "", "commit author `\"Name <email>\"` (default: none sent; GitHub uses the token's identity)")
	fl.IntVar(&f.maxAttempts, "max-attempts", 10, "give up (exit 3) after `N` attempts lost the race for the branch")
	fl.StringVar(&f.turnDir, "turn-dir", "", "take turns at the branch with the other ghcommitter processes of this machine through lock files in `DIR` (default: ghcommitter/turns in the user cache directory); writers started at once then land one after another instead of racing and spending writes on lost attempts")
	fl.BoolVar(&f.noTurns, "no-turns", false, "race for the branch without waiting for the other ghcommitter processes of this machine (see --turn-dir)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print what would change, path by path, and send no write request")
	fl.BoolVar(&f.json, "json", false, "print the result, or the error, as one JSON object on stdout")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every request and attempt to stderr")
	f.trailers.register(cmd)
	f.pr.register(cmd)
	f.merge.register(cmd)
	fl.StringVar(&f.signKey, "sign-key", "", "sign the commit with the private key in `FILE`: armored OpenPGP, or OpenSSH (ed25519, ECDSA, RSA; as git's gpg.format=ssh) (needs --author; passphrase from $GHCOMMITTER_SIGN_PASSPHRASE)")
	fl.BoolVar(&f.removeSignKey, "remove-sign-key", false, "delete the --sign-key FILE as soon as it is read, before any --edit command runs, and on every exit (for a temporary copy of a secret)")
	f.auth.register(cmd)
	f.engine.register(cmd)
	f.tags.register(cmd)
	registerOnProtected(cmd, &f.onProtected)
}

// check refuses flag combinations that are wrong whatever the files and the
// branch hold.
func (f *commitFlags) check(cmd *cobra.Command) error {
	if cmd.Flags().Changed("max-attempts") && f.maxAttempts < 1 {
		return cmdutil.UsageErrorf("", "--max-attempts must be at least 1, got %d", f.maxAttempts)
	}
	if f.noTurns && cmd.Flags().Changed("turn-dir") {
		return cmdutil.UsageErrorf("", "--no-turns and --turn-dir both given: choose one")
	}
	if cmd.Flags().Changed("turn-dir") && f.turnDir == "" {
		return cmdutil.UsageErrorf("", "--turn-dir needs a directory (--no-turns races without turns)")
	}
	if f.editTimeout <= 0 {
		return cmdutil.UsageErrorf("", "--edit-timeout must be positive, got %s", f.editTimeout)
	}
	if f.message != "" && f.messageFile != "" {
		return cmdutil.UsageErrorf("", "-m/--message and -F/--message-file both given: choose one")
	}
	if err := f.pr.check(cmd); err != nil {
		return err
	}
	if err := f.merge.check(cmd, f.pr.enabled || f.onProtected == "pull-request", f.dryRun); err != nil {
		return err
	}
	if f.removeSignKey && f.signKey == "" {
		return cmdutil.UsageErrorf("", "--remove-sign-key needs --sign-key FILE")
	}
	if err := checkOnProtected(f.onProtected, f.pr.enabled, f.tags.name != ""); err != nil {
		return err
	}
	return f.tags.check(f.pr.enabled)
}

// commitRun is the commit command: flags → change set → one library call →
// output.
func commitRun(ctx context.Context, e *cmdutil.Env, f *commitFlags) error {
	paths, fanIn, err := f.manifest.expand() // fanin.go
	if err != nil {
		return err
	}
	if fanIn {
		return fanInRun(ctx, e, f, paths)
	}
	owner, name, err := f.repository(e)
	if err != nil {
		return err
	}
	cs, b, err := buildChangeSet(ctx, f, e)
	if err != nil {
		return err
	}
	if err := f.trailers.apply(e, cs); err != nil {
		return err
	}
	apiURL := APIURLFor(f.auth.apiURL, f.repo, e)
	f.auth.graphql = GraphQLURLFor(f.auth.graphqlURL, f.auth.apiURL, f.repo, e)
	c, prog, client, err := newCommitter(ctx, f, e, owner, name, apiURL, cs, b)
	if err != nil {
		return err
	}
	defer prog.finish()
	out, rb := newOutput(e, f.json, apiURL), newReadBack(ctx, e, apiURL, client)
	if cs.Len() == 0 {
		// --changed found nothing: no commit to make, no pull request.
		return nothingChanged(ctx, f, e, c, out, rb)
	}
	if f.pr.enabled {
		return runPullRequest(ctx, &f.pr, e, c, cs, f, out, rb, prog, b.in)
	}
	branch, err := targetBranch(ctx, f, e, c)
	if err != nil {
		return err
	}
	cos := append(f.engine.commitOptions(), f.tags.commitOptions()...)
	cos = append(cos, onProtectedOptions(f.onProtected, &f.merge, e)...)
	if f.createFrom != "" {
		cos = append(cos, committer.CreateBranchFrom(f.createFrom))
	}
	if f.dryRun {
		plan, err := c.Plan(ctx, branch, cs, cos...)
		if err != nil {
			return err
		}
		return out.plan(plan)
	}
	res, err := c.Commit(ctx, branch, cs, cos...)
	prog.finish()
	switch {
	case err != nil && res != nil && res.PullRequest != nil:
		return protectedAfterLanding(out, rb, res, err) // protected.go
	case err != nil:
		return b.changedOnBranch(err, branch) // usererrors.go
	}
	return out.result(res, rb.verified(res.Repository, res.Commit))
}

// buildChangeSet reads the message and the local files into a change set.
// Everything wrong with them is a usage error: nothing has been sent yet.
func buildChangeSet(ctx context.Context, f *commitFlags, e *cmdutil.Env) (*committer.ChangeSet, *changeBuilder, error) {
	in, err := stdinUse(ctx, f, e)
	if err != nil {
		return nil, nil, err
	}
	if err := loadManifest(&f.manifest, in, f); err != nil { // manifest.go
		return nil, nil, err
	}
	if _, err := stdinUse(ctx, f, e); err != nil { // again, with the manifest's puts
		return nil, nil, err
	}
	msg, err := readMessage(f, in)
	if err != nil {
		return nil, nil, err
	}
	b := &changeBuilder{e: e, ctx: ctx, in: in, editTimeout: f.editTimeout, opts: committer.LoadOptions{NoFileMode: f.noFileMode}}
	cs, err := b.build(f, msg)
	if err != nil {
		return nil, nil, err
	}
	return cs, b, nil
}

// newCommitter builds the API client and the Committer, with a progress line
// for large uploads to a terminal.
func newCommitter(ctx context.Context, f *commitFlags, e *cmdutil.Env, owner, name, apiURL string, cs *committer.ChangeSet, b *changeBuilder) (*committer.Committer, *progress, *http.Client, error) {
	var logger *slog.Logger
	var verbose slog.Handler
	if f.verbose {
		verbose = slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})
		logger = slog.New(verbose)
	}
	var prog *progress
	if !f.dryRun {
		// The waits the client logs reach the progress display through
		// its log.
		prog = newProgress(e.Stderr, e.IsTerminal, b.files, b.bytes)
		logger = slog.New(progressLog{p: prog, next: verbose})
	}
	client, err := authClient(ctx, &f.auth, e, owner, name, apiURL, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	copts := []committer.Option{committer.WithRetries(f.maxAttempts, nil)}
	if f.noLFS {
		copts = append(copts, committer.WithUploads(committer.Uploads{NoLFS: true}))
	}
	switch {
	case f.noTurns:
		copts = append(copts, committer.WithoutTurns())
	case f.turnDir != "":
		copts = append(copts, committer.WithTurnDir(f.turnDir))
	default: // the command's default; the library's keeps turns in the process
		copts = append(copts, committer.WithTurnDir(turns.DefaultDir()))
	}
	// The commit loop's wait after a bare secondary limit is the client's
	// (scaled there by GHCOMMITTER_LIMIT_SCALE): set in one place.
	if f.signKey != "" {
		signer, err := loadSigner(f, e, cs)
		if err != nil {
			return nil, nil, nil, err
		}
		copts = append(copts, committer.WithSigner(signer))
	}
	// The committer logs to the client's logger (authClient).
	if prog != nil {
		copts = append(copts, committer.WithObserver(prog.observe))
	}
	c, err := committer.New(owner, name, append(copts, committer.WithHTTPClient(client))...)
	if err != nil {
		return nil, nil, nil, cmdutil.UsageErrorf("", "%w", err)
	}
	prog.start()
	return c, prog, client, nil
}

// repository returns the target repository: --repo, else $GITHUB_REPOSITORY.
func (f *commitFlags) repository(e *cmdutil.Env) (owner, name string, err error) {
	s := f.repo
	if s == "" {
		s = envRepo(e)
	}
	if s == "" {
		return "", "", cmdutil.UsageErrorf("pass -R OWNER/REPO, or set GH_REPO or GITHUB_REPOSITORY", "no repository given")
	}
	owner, name, err = committer.ParseRepo(repoArg(s))
	if err != nil {
		return "", "", cmdutil.UsageErrorf("pass the repository as OWNER/REPO, e.g. -R acme/mono", "repository %q: %v", s, err)
	}
	return owner, name, nil
}

// repoArg reads the forms people paste for a repository as OWNER/REPO: a
// web or clone URL (https://github.com/acme/mono, git@github.com:acme/mono,
// ssh://git@HOST/acme/mono.git), gh's HOST/OWNER/REPO, and OWNER/REPO.git;
// a trailing "/" is dropped. repoHost returns the host it names.
func repoArg(s string) string {
	_, repo := parseRepoArg(s)
	return repo
}

func repoHost(s string) string {
	host, _ := parseRepoArg(s)
	return host
}

func parseRepoArg(s string) (host, repo string) {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "://"); i >= 0 {
		hp, rest, _ := strings.Cut(s[i+3:], "/")
		if _, h, ok := strings.Cut(hp, "@"); ok {
			hp = h
		}
		host, s = hp, rest
	} else if at, rest, ok := strings.Cut(s, ":"); ok && strings.Contains(at, "@") && !strings.Contains(at, "/") {
		_, host, _ = strings.Cut(at, "@")
		s = rest // scp-like git@host:owner/repo
	}
	s = strings.TrimSuffix(strings.TrimRight(s, "/"), ".git")
	if host == "" && strings.Count(s, "/") == 2 {
		host, s, _ = strings.Cut(s, "/")
	}
	return host, s
}

// stdinUse checks that at most one input reads stdin, and returns a reader
// for it.
func stdinUse(ctx context.Context, f *commitFlags, e *cmdutil.Env) (*stdinOnce, error) {
	var users []string
	if f.manifest.file == "-" {
		users = append(users, "--manifest -")
	}
	if f.messageFile == "-" {
		users = append(users, "-F -")
	}
	if f.pr.bodyFile == "-" {
		users = append(users, "--pr-body-file -")
	}
	for _, a := range f.adds {
		if _, local, ok := strings.Cut(a, "="); ok && local == "-" {
			users = append(users, "--add "+a)
		}
	}
	if len(users) > 1 {
		return nil, cmdutil.UsageErrorf("read at most one of them from stdin; write the others to files", "%s all read stdin", strings.Join(users, ", "))
	}
	return &stdinOnce{ctx: ctx, r: e.Stdin}, nil
}

func readMessage(f *commitFlags, in *stdinOnce) (string, error) {
	var msg string
	switch {
	case f.message != "":
		msg = f.message
	case f.messageFile != "":
		data, err := readLocal(in, f.messageFile)
		if err != nil {
			return "", cmdutil.UsageErrorf("", "message file: %v", err)
		}
		msg = string(data)
	default:
		return "", cmdutil.UsageErrorf(`pass -m "what changed", or -F FILE`, "no commit message given")
	}
	if strings.TrimSpace(msg) == "" {
		return "", cmdutil.UsageErrorf("", "the commit message is empty")
	}
	return msg, nil
}

// targetBranch returns --branch; else, in an Actions run triggered on a
// branch, that branch; else the repository's default branch.
func targetBranch(ctx context.Context, f *commitFlags, e *cmdutil.Env, c *committer.Committer) (string, error) {
	if f.branch != "" {
		if err := committer.ValidateBranch(f.branch); err != nil {
			return "", cmdutil.UsageErrorf("", "%w", err)
		}
		return f.branch, nil
	}
	if name, ok, err := actions.Branch(e, c.Repository()); ok || err != nil {
		return name, err
	}
	b, err := c.DefaultBranch(ctx)
	var ce *committer.Error
	if errors.As(err, &ce) && ce.Status == 0 && errors.Is(err, committer.ErrNotFound) {
		return "", errors.New("the repository reports no default branch: pass -b BRANCH")
	}
	return b, err
}

// nothingChanged reports a --changed run that found nothing to commit as a
// no-op at the branch's head, read with one request (GET git/ref, which
// never redirects).
func nothingChanged(ctx context.Context, f *commitFlags, e *cmdutil.Env, c *committer.Committer, out *output, rb *readBack) error {
	var branch string
	var err error
	switch {
	case f.pr.enabled:
		branch, err = baseBranch(ctx, &f.pr, e, c)
	default:
		branch, err = targetBranch(ctx, f, e, c)
	}
	if err != nil {
		return err
	}
	owner, name, _ := strings.Cut(c.Repository(), "/")
	ref, _, err := rb.gh.Git.GetRef(ctx, owner, name, "heads/"+branch)
	if err != nil {
		return apiError("read the branch of", c.Repository(), err)
	}
	res := &committer.Result{Repository: c.Repository(), Branch: branch, Commit: ref.GetObject().GetSHA(), Parent: ref.GetObject().GetSHA(), NoOp: true}
	if !f.json {
		fmt.Fprintln(e.Stderr, "ghcommitter: --changed: git status shows nothing changed")
	}
	return out.result(res, rb.verified(res.Repository, res.Commit))
}
