// Package rest is the fake GitHub's REST route handlers below package
// githubtest, as methods of Handler, which holds what they use of the
// Server. So far the git data API: blobs, trees (with GitHub's create-tree
// timeout and the recursive listing's truncation), commits, annotated tags
// and refs. The other routes are still in githubtest (issue #35).
package rest
