// Package committer commits files to a GitHub repository through the REST
// Git Data API, without a local clone, and stays correct when many writers
// commit to the same branch at the same time.
//
// A commit is built on GitHub from content-addressed objects on top of the
// branch's current head, and the branch is moved with a fast-forward-only
// ref update (force=false). When another writer moved the branch first,
// GitHub refuses the update (422); the Committer re-reads the head, rebuilds
// the commit on it — re-running edit functions on the fresh content — and
// tries again. Nothing is ever force-pushed, and nothing another writer
// committed is lost.
//
// # Cost
//
// One attempt of a commit of small text files costs five requests whatever
// the size of the repository and the width of its directories: read the
// head (GET branches/{b}, which also gives the head's tree), one GraphQL
// query that says what is at every changed path and every directory above
// it (a put must go neither through a file nor onto a directory), create
// the tree with the content inline and base_tree set to the head's tree,
// create the commit, update the ref. An edit reads its file's blob by SHA;
// a directory delete or a sync lists that directory. What the trees a
// Committer created hold is remembered, so a path it wrote needs no query;
// where GraphQL is unavailable the directories on the paths are read over
// REST (cached by SHA across attempts). Text goes inline however much of it
// there is, in create-tree requests of at most 1 MB of content and 200
// inline entries, each on the last, so writes grow with the bytes sent,
// not the files. Binary or large files are hashed locally and uploaded
// once as blobs, however many attempts the commit takes, streaming from
// disk.
//
// # Guarantees
//
//   - The branch only moves by fast-forward. Nothing is force-pushed.
//   - A change set either lands exactly once or is reported as not landed.
//     When the final ref update gets no answer, the ref is read back to tell.
//     A cancelled context does not cancel a landing write already sent:
//     its reply is waited for (WithLandingGrace), and the outcome is
//     "not landed" only when proven, else ErrUnknownOutcome.
//   - Nothing another writer committed is lost: every attempt builds on the
//     head it read.
//   - Nothing is visible on the branch before the final ref update, with
//     one exception: GitHub's Git Data API does not work on an empty
//     repository, so its first commit is made through the contents API and
//     holds one of the change set's own plain files, exactly as asked; the
//     rest follows in a second commit (Result.Bootstrapped). Preconditions
//     are checked, and edits run, against the empty tree before anything is
//     written; a change set with no plain file is ErrInvalid there. Should
//     the rest then fail (another writer got in between), the error says
//     that the first commit landed.
//
// GitHub's REST ref update checks only that the move is a fast-forward, not
// that the head is still the one read: if someone resets the branch
// backwards to an ancestor of that head, it still succeeds. So the branch
// is moved with GraphQL updateRefs and beforeOid = the head the commit was
// built on, a strict compare-and-swap; where GitHub has no updateRefs (or
// with WithFastForwardRefUpdates) the REST fast-forward is used, and
// ExpectHead is then checked when the head is read only.
//
// # Engines
//
// WithEngine chooses the API a commit goes through. EngineGitData (the
// default) is described above: three writes per attempt, and it carries
// everything. EngineGraphQL commits with one GraphQL createCommitOnBranch,
// pinned to the head read (plain files only, up to MaxGraphQLBytes, no
// chosen author). EngineContents writes one plain file through the contents
// API, guarded by its blob SHA. Both make commits GitHub signs (Verified for
// any token), and settle a lost reply by the commit's EditIDTrailer, which
// they always add: the change set's own, as the message's last line, even
// when the message already holds one (that one is never searched for). EngineAuto picks, per attempt, the engine with the fewest
// writes that carries the change set. An explicit engine that cannot carry
// a change set refuses it with ErrInvalid before any write. See
// docs/engines.md.
//
// # Errors
//
// Every error is an *Error naming the repository, branch and path, whose
// Kind matches one of ErrConflict, ErrInvalid, ErrNotFound, ErrUnauthorized,
// ErrPermission, ErrProtected, ErrRateLimited or ErrUnknownOutcome with
// errors.Is, and which carries GitHub's HTTP status, message and
// X-GitHub-Request-Id whenever a reply caused the failure (REST, GraphQL,
// a rate limit the transport gave up on, a refused redirect); an
// ErrRateLimited also carries the wait GitHub asked for (RetryAfter). Only
// the answers that mean another writer moved the branch are lost races
// (ErrConflict once attempts run out), on every engine. A change set is
// validated as a whole before any request: an invalid one sends nothing.
//
// # Clients
//
// New takes the caller's *http.Client (WithHTTPClient: any authentication,
// proxy or tracing, including the Client() of any go-github version) and
// the API's URL (WithBaseURL, for GitHub Enterprise Server), and always
// wraps the client with ghclient.Wrap: GitHub-aware retries of the
// idempotent requests, rate-limit waits and a redirect policy that sends
// credentials only to the API's own host. The commit loop itself only
// settles the ref update, so the two never multiply. ghclient.NewHTTPClient
// builds an authenticated client from a token or GitHub App credentials;
// such a client keeps its options (retries, pacing, the wait after a bare
// secondary limit, which the commit loop takes from it too), and the base
// URL is given once, to it or to WithBaseURL.
// The githubtest subpackage is a stateful fake of GitHub for tests.
// WithObserver reports each attempt, lost race, rate-limit wait and landing;
// the package logs nothing above debug level (WithLogger, which logs the
// HTTP requests too).
//
// # Internals
//
// A change set travels through files named for their stage:
//
//   - changeset.go, validate.go, prepare.go: the ChangeSet is validated as
//     a whole and every put is hashed locally, before any request (begin,
//     in commit.go, is the one gate of Commit, Plan and Queue.Commit).
//   - coordinator.go: every Commit (CommitPullRequest's too) and every
//     Queue.Commit joins the process's coordinator of its (API, repository,
//     branch). A change set that finds it idle runs at once, alone, on its
//     caller's context; those that come while a batch is in flight form
//     the next batch (batch.go): one credential, one engine, signer and
//     CreateBranchFrom per batch, within WithMaxBatch and a byte budget;
//     ExpectHead commits and one-write engines (outside a squashed GraphQL
//     Queue) go alone, in turn.
//   - commit.go: the attempt driver. Each attempt reads the head (refs.go:
//     GET branches/{b}, never following a redirect), settles earlier
//     unanswered ref updates first, then asks the work to build on the head
//     and moves the branch. A single change set (Commit) and a batch
//     (batch.go, Queue) are the two kinds of work; Plan (plan.go) runs only
//     the driver's read.
//   - bootstrap.go: an empty repository's first commit, through the
//     contents API.
//   - internal/tree (store.go is its boundary here): the change set is
//     resolved against the head's tree through a Store; the GitHub store
//     (tree/github.go) looks every changed path up in one GraphQL query
//     (internal/ghgraphql's Paths), holds what is known at each path of a
//     tree (tree/known.go: looked up, or learnt from a tree this Committer
//     created) and reads directories over REST where that is not enough;
//     edit functions run there. tree/predict.go works out the directories
//     the new tree will have from the listings read, so the next commit
//     reads none.
//   - upload.go, then commit.go's createTree (in chunks by inline bytes and
//     entries: tree.Chunks, sent by store.go's createTreeInChunks) and
//     createCommit: missing blobs are uploaded once, the tree is created on
//     the head's tree, the commit on the head.
//   - refs.go, refswap.go: the ref update, a strict compare-and-swap
//     (updateRefs, beforeOid = the head built on; the REST fast-forward
//     where GitHub has none), or the branch's creation; an unanswered
//     update is settled by reading the ref and one compare request, never
//     by sending it again.
//   - tags.go: a tag (Tag) moved in the same updateRefs as the branch.
//   - rules.go, onprotected.go: after ErrProtected, the rule that refused
//     the write (Error.Rule) and the way through; WithPullRequestOnProtected.
//   - engine.go, engine_stage.go, engine_driver.go, engine_write.go,
//     engine_batch.go: the one-write engines. When one is chosen, the
//     driver's attempt resolves the change set on the head without writing
//     (stage: edits run there, and what the engine cannot carry is refused),
//     sends it in one GraphQL mutation or contents-API write, and settles a
//     lost reply by the EditIDTrailer (settleOneWrite); a squashed Queue
//     batch goes through GraphQL the same way.
//   - urlpath.go: every file path or branch name that goes into a URL is
//     escaped there, segment by segment (the contents writes, GET
//     branches/{b}); go-github escapes refs itself.
//   - landing.go: every landing write (ref update, branch creation,
//     mutation, contents write, bootstrap, pull request) is sent on a
//     context detached from the caller's cancel once sent (httptrace), and
//     the driver's end settles any write still open before the work fails.
//   - errors.go: the error kinds, *Error, judge (the one table of what an
//     answer to a landing write means — lost race, wait, settle or error —
//     for the ref update and creation, GraphQL, the contents API and the
//     bootstrap) and classify (the kind and hint of any failure).
package committer
