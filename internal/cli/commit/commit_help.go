package commit

const commitLong = `Commit builds one commit on GitHub from the given changes and moves the
branch to it by fast-forward. If another writer moves the branch first, the
commit is rebuilt on the new head and retried (see --max-attempts); --edit
commands run again on the fresh content each time.

LOCAL_PATH arguments are files or directories, relative to the current
directory and inside it; each is committed at the same relative path (under
--prefix when given). Use --add REMOTE=LOCAL for anything else. In a git
checkout a LOCAL_PATH directory is walked as git add walks it (.gitignore
honoured; --no-ignore takes every file; naming an ignored file is refused).
--changed commits what git status says changed under the LOCAL_PATH
arguments (default .): each path must hold on the branch what the
checkout's HEAD has (or already what the checkout has: a re-run is a
no-op), so a checkout behind the branch exits 3 naming the
path instead of reverting another writer's work. A LOCAL_DIR
given to --sync may be a symlink to a directory: the directory it points to
is synced.

Paths holding "=": --add REMOTE=LOCAL and --edit PATH=COMMAND split at the
first "=", so REMOTE and PATH cannot hold one (LOCAL and COMMAND can);
--sync LOCAL_DIR=REMOTE_DIR splits at the last "=", so REMOTE_DIR cannot
(LOCAL_DIR can); --expect-sha PATH=SHA splits at the last "=", so PATH can.
LOCAL_PATH arguments, --delete and --expect-absent take any path. A
repository directory is never empty: "." is the root, and an empty REMOTE_DIR,
"/" or "./" is refused (an unset shell variable must not sync over the whole
repository).

--edit commands run with sh -c in the current directory, in their own
process group, with the file's current content on stdin (empty and
GHCOMMITTER_EXISTS=0 when absent; GHCOMMITTER_PATH is the path). Their stdout
becomes the new content; more than GitHub's 100 MB file limit fails at once.
Their environment is this one without the credentials ghcommitter reads
(GH_TOKEN, GITHUB_TOKEN, GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN,
GHCOMMITTER_SIGN_PASSPHRASE, and the Action's token and key inputs); on Linux
ghcommitter also blanks them in its own /proc/PID/environ at start-up, and
refuses --edit when it cannot. They run as the same user: a --token-file or
--sign-key file stays readable to them (--remove-sign-key deletes a
temporary key file once read). Whatever a
command leaves running in its process group is killed when it exits; the
whole group is killed after --edit-timeout, and on SIGINT or SIGTERM, which
end ghcommitter (exit 130 or 143). See docs/cli.md.

Executable bits and symlinks are kept (--no-file-mode stores every file as
100644). The token comes from $GH_TOKEN or $GITHUB_TOKEN, or --token-file;
a GitHub App authenticates with --app-id and --app-key-file.

Output: "committed N files" counts the files the commit added, modified or
deleted, as the library reports them (a file whose content was already there
is not counted). With --json, stdout holds exactly one JSON value whatever
happens (an object; an array for several manifests): the result
{"repository","branch","commit","parent","tree","attempts","changed","noop",
"url","engine","bootstrapped","tag","pull_request"} (pull_request:
{"number","url","created","operation","base","head","merge"}, merge with
the merge flags: {"merged","merge_commit","merged_via","merge_method",
"auto_merge","queued","note","rebuilds","head"}; engine, bootstrapped,
tag and pull_request only when they apply), or on failure
{"error":{"kind","message","hint","head","attempts","status","request_id","retry_after","rule"}}
beside the exit status below (exit 4 aside). kind is one of: invalid, conflict, not_found,
unauthorized, permission, protected, rate_limited, unknown_outcome,
merge_timeout, pull_request_closed, dequeued, check_failed (--wait: not
merged in time, closed, removed from the merge queue, a required check
failed; exit 4), pull_request_stale (a stale pull request not rebuilt:
another writer's commit on its head branch, or a failed precondition;
exit 4), edit_failed, interrupted, failed. status and request_id are GitHub's HTTP
status and X-GitHub-Request-Id when a reply caused the failure; retry_after
is, for rate_limited, the seconds to wait before trying again (else 0);
rule, for protected, the rule that refused the write.
A partly-done run (exit 4) prints the result with the "error" object beside
its keys; several manifests print an array, one result or error per
manifest, in order.

Exit status:
  0    committed, or nothing to change
  1    failed (API, auth, a protection rule, a rate limit, an edit command);
       nothing was committed unless the error says the outcome is unknown
  2    invalid usage or input: nothing was written. Most input is refused
       before any request; what can only be judged against the branch (an
       --edit of a directory, a --sync onto a file, an edit's output) is
       refused after read requests, still before any write
  3    conflict: a precondition failed, or every attempt lost the race to
       another writer; nothing was committed
  4    partly done: something landed and something after or beside it did
       not (some of several manifests, the pull request or its merge after
       the commit, writing the Actions outputs); do not run the landed part
       again
  130  interrupted by SIGINT, 143 by SIGTERM: nothing was committed, unless
       the kind is unknown_outcome (the signal came after the commit was
       sent, and no reply came within 5 s): check the branch before running
       again. A commit whose reply comes after the signal exits 0`

const commitExample = `  # Commit two files at the same paths in the repository:
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
  ghcommitter commit -R acme/mono -b bump-api -m "Bump api to v2" --pull-request --add deploy/api.yaml=api.yaml

  # ... and done only once it is merged: auto-merge, then wait (exit 0 merged, 4 not):
  ghcommitter commit -R acme/mono -b bump-api -m "Bump api to v2" --pull-request --auto-merge --wait --add deploy/api.yaml=api.yaml`
