// Package ghgraphql is a small typed client for the GitHub GraphQL
// operations ghcommitter uses: reading a branch's head and tree, committing
// with createCommitOnBranch, and walking a branch's history to settle a
// mutation whose reply was lost.
//
// It exists because the commit loop needs what general GraphQL clients drop.
// github.com/shurcooL/githubv4 (through github.com/shurcooL/graphql) keeps
// only each error's message and locations, in an unexported type: GitHub's
// error "type" (STALE_DATA, NOT_FOUND, RATE_LIMITED) and "path" are gone, so
// a caller can only match message strings; a non-200 reply becomes a
// formatted string holding the whole body, read without a bound, and the
// reply's status and headers (retry-after, x-ratelimit-*) are not returned.
// This client keeps them:
//
//   - *Errors: a reply with errors[]; each Error keeps Type, Path, Locations,
//     Message and Extensions, with the reply's status and headers;
//   - *HTTPError: a non-200 reply (401, 403/429 rate limits, 5xx), with the
//     status, headers, Retry-After and a body cut at MaxErrorBody;
//   - *NoReplyError: the request was sent and no reply was read. For a
//     mutation the outcome is unknown: the commit may have landed.
//
// The client never retries: a mutation must not be sent twice, and the
// caller's commit loop owns retries. It does not authenticate either: pass
// an *http.Client whose transport does (ghclient.NewHTTPClient).
//
// The endpoint is https://api.github.com/graphql on github.com and
// https://HOST/api/graphql on GitHub Enterprise Server; EndpointFor derives
// it from the REST base URL, and an explicit URL (GITHUB_GRAPHQL_URL in
// Actions) wins.
package ghgraphql
