// Package githubtest is a stateful, git-exact fake of the parts of GitHub's
// REST API that ghcommitter uses, for tests and demos.
//
// A Server is an http.Handler holding any number of repositories. Git
// objects are encoded with go-git's plumbing, so every blob, tree and commit
// SHA is the one real git computes (checked against the git CLI and fixed
// vectors in testdata/githubtest). It answers at "/" and at "/api/v3/" (the
// GitHub Enterprise Server prefix) and serves:
//
//   - Git data: blobs, trees (base_tree, nested paths, "sha": null deletes
//     files and directories, inline content), commits (author, committer,
//     dates, signature as a gpgsig header, verification), refs (get,
//     matching, create, fast-forward-only update unless force, delete).
//   - Repositories, branches, repos commits, contents (get, put, delete;
//     PUT on an empty repository bootstraps the root commit), pull requests,
//     rate limits, and the GitHub App installation-token flow.
//
// Replies follow GitHub's documented shapes and error bodies
// ({"message","documentation_url","status"}; Validation Failed adds
// errors[]), with X-RateLimit-*, X-GitHub-Request-Id and Location headers.
// Every ref update is an atomic compare-and-swap under the repository lock.
//
// Tests seed and inspect state with Go helpers (CreateRepo, Seed, Head,
// ReadFile, Files, Commit, History, RefUpdates), read the request log
// (Requests, Count, CountMethod) and inject faults (Inject with status,
// latency, dropped responses and Before hooks; MoveBranchBeforeNextUpdate;
// SecondaryRateLimit; TooManyRequests; ExhaustRateLimit).
//
// In tests, NewServer starts an httptest server and returns a go-github
// client pointed at it:
//
//	ts := githubtest.NewServer(t)
//	ts.Seed("acme", "mono", "main", "init", githubtest.File{Path: "a.txt", Content: []byte("a")})
//	br, _, err := ts.Client.Repositories.GetBranch(ctx, "acme", "mono", "main", 0)
//
// Known differences from GitHub: bot-verified commits are not actually
// signed (their SHA is the unsigned commit's); signatures sent by clients
// are stored but never verified (reason "unknown_key"); secondary rate
// limits are only produced on request (faults), never by load.
package githubtest
