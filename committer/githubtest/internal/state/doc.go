// Package state is the fake GitHub's repository state below package
// githubtest: a repository (Repo) with its git objects, refs and their
// update log, pull requests and labels, rulesets and classic protection,
// commit statuses and signature verifications, and the reads of that state
// alone (resolving refs, peeling tags, reachability, merge bases). Building
// REST or GraphQL replies from it stays in githubtest. Callers hold a Repo's
// Mu as each method says.
package state
