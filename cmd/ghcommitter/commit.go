package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/spf13/cobra"
)

// commitFlags holds the commit command's flags, as given.
type commitFlags struct {
	repo, branch         string
	message, messageFile string
	prefix               string
	adds, deletes        []string
	syncs, edits         []string
	expectSHAs, absent   []string
	createFrom           string
	noFileMode           bool
	author               string
	maxAttempts          int
	dryRun, json         bool
	verbose              bool
	auth                 authFlags
	pr                   prFlags
	signKey              string
	engine               engineFlags // engine.go
}

func newCommitCmd(e *env) *cobra.Command {
	f := &commitFlags{}
	cmd := &cobra.Command{
		Use:   "commit [flags] [LOCAL_PATH...]",
		Short: "Commit local files, deletes and edits to a branch as one commit",
		Long: `Commit builds one commit on GitHub from the given changes and moves the
branch to it by fast-forward. If another writer moves the branch first, the
commit is rebuilt on the new head and retried (see --max-attempts); --edit
commands run again on the fresh content each time.

LOCAL_PATH arguments are files or directories, relative to the current
directory and inside it; each is committed at the same relative path (under
--prefix when given). Use --add REMOTE=LOCAL for anything else.

Executable bits and symlinks are kept (--no-file-mode stores every file as
100644). The token comes from $GH_TOKEN or $GITHUB_TOKEN, or --token-file;
a GitHub App authenticates with --app-id and --app-key-file.

Exit status: 0 committed or nothing to change; 1 failed (API, auth, an edit
command); 2 invalid usage or input (nothing was sent); 3 conflict (a
precondition failed, or every attempt lost the race).`,
		Example: `  # Commit two files at the same paths in the repository:
  ghcommitter commit -R acme/mono -b main -m "Update config" config/app.yaml config/db.yaml

  # Put a local file at another path, and delete a directory:
  ghcommitter commit -R acme/mono -m "Release" --add dist/app.tar.gz=build/app.tar.gz --delete old/

  # Make deploy/ mirror a local directory (adds, updates, deletes):
  ghcommitter commit -R acme/mono -m "Sync manifests" --sync ./out=deploy

  # Bump a counter safely under concurrent writers (re-run on every attempt):
  ghcommitter commit -R acme/mono -m "Count" --edit 'counter.txt=read n; echo $((${n:-0}+1))'

  # Show what would change, sending no write:
  ghcommitter commit -R acme/mono -m "Try" --dry-run config/

  # A protected branch: commit to a branch made from main, and open (or reuse) a pull request:
  ghcommitter commit -R acme/mono -b bump-api -m "Bump api to v2" --pull-request --add deploy/api.yaml=api.yaml`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("max-attempts") && f.maxAttempts < 1 {
				return usageErrorf("", "--max-attempts must be at least 1, got %d", f.maxAttempts)
			}
			return f.run(cmd.Context(), e, args)
		}),
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVarP(&f.repo, "repo", "R", "", "the repository, `OWNER/REPO` (default $GITHUB_REPOSITORY)")
	fl.StringVarP(&f.branch, "branch", "b", "", "the branch `NAME` (default: $GITHUB_REF_NAME in a branch-triggered Actions run, else the repository's default branch)")
	fl.StringVarP(&f.message, "message", "m", "", "the commit message `TEXT`")
	fl.StringVarP(&f.messageFile, "message-file", "F", "", "read the commit message from `FILE` (- for stdin)")
	fl.StringVar(&f.prefix, "prefix", "", "commit LOCAL_PATH arguments under repository directory `DIR`")
	fl.StringArrayVar(&f.adds, "add", nil, "`REMOTE=LOCAL`: put local file or directory LOCAL at repository path REMOTE (LOCAL - reads stdin; repeatable)")
	fl.StringArrayVar(&f.deletes, "delete", nil, "delete `PATH`, or everything under it if a directory (repeatable)")
	fl.StringArrayVar(&f.syncs, "sync", nil, "`LOCAL_DIR=REMOTE_DIR`: make REMOTE_DIR mirror LOCAL_DIR, adding, updating and deleting (REMOTE_DIR . is the root; repeatable)")
	fl.StringArrayVar(&f.edits, "edit", nil, "`PATH=COMMAND`: on every attempt, replace PATH with the stdout of sh -c COMMAND fed PATH's current content; a failing COMMAND aborts (repeatable)")
	fl.StringArrayVar(&f.expectSHAs, "expect-sha", nil, "`PATH=SHA`: commit only if PATH still has blob SHA, else exit 3 (repeatable)")
	fl.StringArrayVar(&f.absent, "expect-absent", nil, "commit only if `PATH` does not exist, else exit 3 (repeatable)")
	fl.StringVar(&f.createFrom, "create-branch-from", "", "create the branch from `REF` (a branch or commit SHA) when it does not exist")
	fl.BoolVar(&f.noFileMode, "no-file-mode", false, "store every file as 100644: drop executable bits, follow symlinks")
	fl.StringVar(&f.author, "author", "", "commit author `\"Name <email>\"` (default: none sent; GitHub uses the token's identity)")
	fl.IntVar(&f.maxAttempts, "max-attempts", 10, "give up (exit 3) after `N` attempts lost the race for the branch")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print what would change, path by path, and send no write request")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object on stdout")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every request and attempt to stderr")
	f.pr.register(cmd)
	fl.StringVar(&f.signKey, "sign-key", "", "sign the commit with the armored OpenPGP private key in `FILE` (needs --author; passphrase from $GHCOMMITTER_SIGN_PASSPHRASE)")
	f.auth.register(cmd)
	f.engine.register(cmd)
	return cmd
}

func (f *commitFlags) run(ctx context.Context, e *env, args []string) error {
	owner, name, err := f.repository(e)
	if err != nil {
		return err
	}
	in, err := f.stdinUse(e)
	if err != nil {
		return err
	}
	msg, err := f.readMessage(in)
	if err != nil {
		return err
	}
	b := &changeBuilder{e: e, ctx: ctx, in: in, opts: committer.LoadOptions{NoFileMode: f.noFileMode}}
	cs, err := b.build(f, msg, args)
	if err != nil {
		return err
	}
	var logger *slog.Logger
	if f.verbose {
		logger = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	apiURL := apiURLFrom(f.auth.apiURL, e)
	client, err := f.auth.client(ctx, e, owner, name, apiURL, logger)
	if err != nil {
		return err
	}
	copts := append(f.engine.committerOptions(e), committer.WithMaxAttempts(f.maxAttempts))
	if f.signKey != "" {
		signer, err := f.signer(e, cs)
		if err != nil {
			return err
		}
		copts = append(copts, committer.WithSigner(signer))
	}
	if logger != nil {
		copts = append(copts, committer.WithLogger(logger))
	}
	var prog *progress
	if e.isTerminal && !f.dryRun && (b.files >= 20 || b.bytes >= 4<<20) {
		prog = newProgress(e.stderr, b.bytes)
		copts = append(copts, committer.WithProgress(prog.add))
	}
	c, err := committer.New(owner, name, append(copts, committer.WithHTTPClient(client), committer.WithBaseURL(apiURL))...)
	if err != nil {
		return usageErrorf("", "%v", err)
	}
	if f.pr.enabled {
		return f.pr.run(ctx, e, c, cs, f, apiURL, prog)
	}
	branch, err := f.targetBranch(ctx, e, c)
	if err != nil {
		return err
	}
	cos := f.engine.commitOptions()
	if f.createFrom != "" {
		cos = append(cos, committer.CreateBranchFrom(f.createFrom))
	}
	out := &output{e: e, json: f.json, web: webURL(apiURL)}
	if f.dryRun {
		plan, err := c.Plan(ctx, branch, cs, cos...)
		if err != nil {
			return err
		}
		return out.plan(plan)
	}
	res, err := c.Commit(ctx, branch, cs, cos...)
	prog.done()
	if err != nil {
		return err
	}
	return out.result(res)
}

// repository returns the target repository: --repo, else $GITHUB_REPOSITORY.
func (f *commitFlags) repository(e *env) (owner, name string, err error) {
	s := f.repo
	if s == "" {
		s = e.getenv("GITHUB_REPOSITORY")
	}
	if s == "" {
		return "", "", usageErrorf("pass -R OWNER/REPO, or set GITHUB_REPOSITORY", "no repository given")
	}
	owner, name, err = committer.ParseRepo(s)
	if err != nil {
		return "", "", usageErrorf("pass the repository as OWNER/REPO, e.g. -R acme/mono", "repository %q: %v", s, err)
	}
	return owner, name, nil
}

// stdinUse checks that at most one input reads stdin, and returns a reader
// for it.
func (f *commitFlags) stdinUse(e *env) (*stdinOnce, error) {
	var users []string
	if f.messageFile == "-" {
		users = append(users, "-F -")
	}
	for _, a := range f.adds {
		if _, local, ok := strings.Cut(a, "="); ok && local == "-" {
			users = append(users, "--add "+a)
		}
	}
	if len(users) > 1 {
		return nil, usageErrorf("read at most one of them from stdin; write the others to files", "%s all read stdin", strings.Join(users, ", "))
	}
	return &stdinOnce{r: e.stdin}, nil
}

func (f *commitFlags) readMessage(in *stdinOnce) (string, error) {
	var msg string
	switch {
	case f.message != "" && f.messageFile != "":
		return "", usageErrorf("", "-m/--message and -F/--message-file both given: choose one")
	case f.message != "":
		msg = f.message
	case f.messageFile != "":
		data, err := readLocal(in, f.messageFile)
		if err != nil {
			return "", usageErrorf("", "message file: %v", err)
		}
		msg = string(data)
	default:
		return "", usageErrorf(`pass -m "what changed", or -F FILE`, "no commit message given")
	}
	if strings.TrimSpace(msg) == "" {
		return "", usageErrorf("", "the commit message is empty")
	}
	return msg, nil
}

// targetBranch returns --branch; else, in an Actions run triggered on a
// branch, that branch; else the repository's default branch.
func (f *commitFlags) targetBranch(ctx context.Context, e *env, c *committer.Committer) (string, error) {
	if f.branch != "" {
		if err := committer.ValidateBranch(f.branch); err != nil {
			return "", usageErrorf("", "branch %q: %v", f.branch, err)
		}
		return f.branch, nil
	}
	if e.getenv("GITHUB_ACTIONS") == "true" {
		if ref, ok := strings.CutPrefix(e.getenv("GITHUB_REF"), "refs/heads/"); ok {
			if name := e.getenv("GITHUB_REF_NAME"); name != "" {
				return name, nil
			}
			return ref, nil
		}
	}
	b, err := c.DefaultBranch(ctx)
	var ce *committer.Error
	if errors.As(err, &ce) && ce.Status == 0 && errors.Is(err, committer.ErrNotFound) {
		return "", errors.New("the repository reports no default branch: pass -b BRANCH")
	}
	return b, err
}

func ownerOf(c *committer.Committer) string {
	o, _, _ := strings.Cut(c.Repository(), "/")
	return o
}

func nameOf(c *committer.Committer) string {
	_, n, _ := strings.Cut(c.Repository(), "/")
	return n
}
