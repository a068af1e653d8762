// Package rest is the fake GitHub's REST route handlers below package
// githubtest, as methods of Handler, which holds what they use of the
// Server: the git data API (blobs, trees with GitHub's create-tree timeout
// and the recursive listing's truncation, commits, annotated tags, refs),
// branches and their rules and protection, compare, repository commits
// (one, and the list), contents reads and writes, pull requests and their
// labels, reviewers and assignees. Repositories, apps and rate limits are
// still in githubtest (issue #35).
package rest
