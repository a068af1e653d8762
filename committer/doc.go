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
// One attempt of a commit of small text files costs four requests whatever
// the size of the repository: read the head (GET branches/{b}, which also
// gives the head's tree), create the tree with the content inline and
// base_tree set to the head's tree, create the commit, update the ref.
// Deletes, edits, preconditions and syncs read only the directories on their
// paths, and trees are cached by SHA across attempts. Binary or large files
// are hashed locally and uploaded once as blobs, however many attempts the
// commit takes, streaming from disk.
//
// # Guarantees
//
//   - The branch only moves by fast-forward. Nothing is force-pushed.
//   - A change set either lands exactly once or is reported as not landed.
//     When the final ref update gets no answer, the ref is read back to tell.
//   - Nothing another writer committed is lost: every attempt builds on the
//     head it read.
//   - Nothing is visible on the branch before the final ref update.
//
// GitHub's ref update checks only that the move is a fast-forward, not that
// the head is still the one read: if someone resets the branch backwards to
// an ancestor of that head, the update still succeeds. ExpectHead makes a
// commit a strict compare-and-swap for callers that need one.
//
// # Errors
//
// Every error is an *Error naming the repository, branch and path, whose
// Kind matches one of ErrConflict, ErrInvalid, ErrNotFound, ErrUnauthorized,
// ErrPermission, ErrProtected or ErrUnknownOutcome with errors.Is. A change
// set is validated as a whole before any request: an invalid one sends
// nothing.
//
// # Clients
//
// New takes any go-github client. The ghclient subpackage builds one with
// GitHub-aware retries of the idempotent requests, rate-limit waits, token
// or GitHub App authentication and GitHub Enterprise Server URLs; the commit
// loop itself only retries the ref update, so the two never multiply.
// The githubtest subpackage is a stateful fake of GitHub for tests.
package committer
