// Package ghclient is the HTTP layer between the committer and GitHub: an
// *http.Client that authenticates, sends credentials only to the API's own
// host, retries what is safe to retry, stays under GitHub's rate limits and
// makes reads conditional.
//
// Three ways in:
//
//	// The caller's own client (its auth, proxy, OpenTelemetry transport):
//	hc, err := ghclient.Wrap(callerClient, "https://api.github.com/")
//
//	// A client that authenticates itself:
//	hc, err := ghclient.NewHTTPClient(ctx,
//		ghclient.WithToken(os.Getenv("GITHUB_TOKEN")),
//		ghclient.WithBaseURL(os.Getenv("GITHUB_API_URL")), // GHES: https://HOST/api/v3
//	)
//
//	// The same, as a go-github v66 client:
//	gh, err := ghclient.New(ctx, ghclient.WithToken(token))
//
// A client that Wrap or NewHTTPClient made is never wrapped twice: Wrap
// returns it as it is, or rebuilt (never stacked) for the base URL or the
// options it is given when it was made without a base URL of its own.
// The client alone owns the base URL, the GraphQL endpoint
// (WithGraphQLURL), the logger and the rate-limit handling: ConfigOf
// reports them, and committer.New takes them from the client it is given.
//
// The repository's own tests and benchmarks replace the client's clock,
// waits and rate-limit scale through a marker transport of
// internal/testseam, which Wrap and NewHTTPClient recognize; they are not
// part of this API.
//
// # Transport layers
//
// Each request passes, from the outside in, through: host guard → user
// agent → logging → ETag cache → per-repository concurrency limit → retry
// → rate-limit gate and write pacer → auth (NewHTTPClient only) → base
// transport. Every layer is an http.RoundTripper with one job (redirect.go,
// transport.go, etag.go, limit.go, retryhttp.go with the policies of
// retry.go, gate.go and pace.go).
//
// # Redirects and credentials
//
// Credentials only ever go to the API's own host (and, on github.com,
// uploads.github.com and github.com, whose Git LFS batch API needs them;
// GHES serves it on the API's own host). The host guard refuses any request to another host
// or scheme with a *ForeignHostError, and the client's CheckRedirect
// refuses a redirect there the same way: an API or proxy answering 307 to
// another host never receives the token, the App's JWT or an installation
// token (the oauth2 and ghinstallation transports add them on every hop,
// so following such a redirect would leak them). On the API's host, a GET
// or HEAD follows redirects (GitHub answers 301 for a renamed or
// transferred repository); other methods follow only 307 and 308, which
// keep the method and body; a redirect that would turn a write into a GET,
// or the eleventh hop (a loop), is refused with a *RedirectError. Both
// errors carry the redirect's status and X-GitHub-Request-Id: GitHub
// answered, and nothing past the redirect was sent. Under a context from
// NoRedirect nothing is
// followed and the 3xx reply is returned (GitHub answers GET
// branches/{b} with 301 for a renamed branch).
//
// # Rate limits
//
// GitHub's guidance is followed to the letter: honour Retry-After; if
// x-ratelimit-remaining is 0, wait until x-ratelimit-reset; after a
// secondary limit that says neither, wait at least a minute (a 429 counts
// as a secondary limit). Continuing inside those windows "may result in
// the banning of your integration", so:
//
//   - the gate (gate.go) remembers every window a reply opens and holds
//     back every request of that credential until it is over — also a
//     successful reply with x-ratelimit-remaining: 0 opens one, since the
//     next request would be refused. A window ending later than
//     RateLimits.MaxWait (default 60s) fails at once with a
//     *RateLimitError, without sending anything (its StatusCode is 0;
//     when a reply's own wait is too long, the error carries that reply's
//     status and RequestID). A bare secondary limit reaches go-github
//     without its x-ratelimit-reset (the primary window's end, which
//     go-github would take as the secondary window's and refuse every
//     request until, up to an hour): the gate's floor is the wait;
//   - the write pacer (pace.go) spaces the credential's writes (POST,
//     PATCH, PUT, DELETE, GraphQL mutations) so that one process alone
//     never provokes a secondary limit: at most 80 in any minute, sent
//     one every 750ms after a burst of 8, and at most 500 in any hour
//     (RateLimits.Pacing). A process that writes more than that waits: 500
//     writes an hour is GitHub's budget for content creation, about 160
//     single-file commits through the Git Data API (3 writes each).
//     ReserveWrites (reserve.go) books a commit attempt's writes at its
//     first request, so that the wait comes before the attempt reads the
//     head and its writes then go back to back: a stretched attempt is
//     a lost attempt (the committer reserves every attempt's writes).
//     WritesWait foretells that wait without booking, so that a caller
//     about to wait anyway (the commit loop after a lost race) waits it
//     out instead of adding the two; a Tally (WithTally) sums the waits of
//     its context's requests (Tally.Waited), which the loop leaves out of
//     a lost attempt's duration. LostRace (share.go) cuts the pacer's
//     share of the budget when others are heard;
//   - both share their state with every client in the process that uses
//     the same credential on the same host, whichever Committer or Queue
//     holds it. The process-wide registry keys it by a hash of host and
//     credential, never the credential itself (shared.go). Clients that
//     Wrap made count as one credential per hc.Transport, since their
//     credentials are added below these layers; a request that carries
//     an Authorization header is counted by it;
//   - with RateLimits.StateDir or RateLimits.MachineState (the ghcommitter
//     command's default; the library's default keeps the state in the
//     process and writes no file), the processes of one machine share it
//     too (machine.go): a small file per credential under the directory
//     (with MachineState, ghcommitter/limits in the user cache directory)
//     holds the Retry-After windows any of
//     them was told and a record of the token's writes, against which
//     every write is admitted (80 in any minute, 500 in any hour, recorded
//     when sent), so that separate processes on one token stay under
//     GitHub's budget together; each keeps its own pacer and burst. A
//     ReserveWrites booking books its writes in that record too, before
//     the attempt's first request (machinebook.go), so that they are not
//     held one by one while the branch moves. Not for
//     a replaced clock (a test seam), a credential known only as a transport,
//     or, with MachineState and no StateDir, an API on a
//     loopback address (a test server, whose next run reuses its ports
//     and tokens).
//
// WithRateLimits tunes all of it: RateLimits.SecondaryWait changes the
// one-minute wait, and RateLimits{Pacing: &Pacing{}} turns pacing off (for
// tests against a fake without limits). For benchmarks and black-box
// tests, a test seam (testseam.Seams.LimitScale F) makes the client's own
// windows (the pacer's minute and hour, the one-minute wait after a bare
// secondary limit, which the commit loop takes from the client too) F
// times shorter, as the fake's --limits-scale F does its own; the CLI
// reads F from GHCOMMITTER_LIMIT_SCALE. Waits GitHub dictates are
// honoured as sent.
//
// # What is retried
//
// Only requests that may be sent twice without changing the outcome: GET
// and HEAD, and the POSTs that create content-addressed objects
// (/repos/{o}/{r}/git/blobs, git/trees, git/commits: the same body always
// yields the same SHA) or installation tokens. Ref updates, ref creation and
// deletion, contents writes and pull requests are sent exactly once; the
// caller's commit loop owns them (after an ambiguous outcome it reads the
// ref). Under a context from WithoutRetries, nothing is retried, so an
// outer retry loop does not multiply with this one; WithMaxRetries(0)
// turns retries off for the whole client.
//
// A retryable request is retried (at most WithMaxRetries times, default 4)
// on connection errors, 5xx except 501, 429, and 403 rate limits. When
// retries run out, the last reply is handed to go-github untouched, so
// callers see *github.ErrorResponse, *github.RateLimitError or
// *github.AbuseRateLimitError with the real status. The context's deadline
// or cancellation ends every wait.
//
// # How retries and waits are layered
//
// The retry loop is go-retryablehttp's Client (retryhttp.go), one per
// retryable request, with this package's policies plugged in:
//
//   - CheckRetry decides what is retried (above) and reads a rate-limited
//     reply while its body is still there: a limit lifting later than
//     RateLimits.MaxWait ends the loop at once with a *RateLimitError
//     naming the reply's status;
//   - Backoff is 0 for go-retryablehttp's own timer, which therefore never
//     waits: every wait goes through the client's sleep and clock, so the
//     test seams (fake clocks, the limit scale) hold for all of them;
//   - PrepareRetry, before each retry, sleeps what CheckRetry decided:
//     nothing for a rate limit, else a 5xx's Retry-After or exponential
//     backoff with full jitter (200ms base, 10s cap; the exported Backoff
//     computes both, and the rate-limit waits);
//   - the retry's next attempt then passes the rate-limit gate (gate.go),
//     which holds it — with every other request of the credential — until
//     the window the limited reply opened is over (Retry-After; the reset
//     at remaining 0; RateLimits.SecondaryWait after a bare secondary
//     limit): a rate-limit wait happens once, in the gate, whichever
//     request or layer meets the window next (the commit loop's next
//     attempt too);
//   - ErrorHandler is go-retryablehttp's PassthroughErrorHandler (the last
//     reply as it came), its Logger is nil (this package logs through
//     WithLogger's slog.Logger, at debug level only);
//   - bodies are never buffered: the first attempt sends the request's own
//     body, each retry a fresh one from req.GetBody, handed to
//     go-retryablehttp as a ReaderFunc (its FromRequest would read the
//     body into memory); a body without GetBody is sent once;
//   - each attempt is carried to the gate by an *http.Client that never
//     follows a redirect (the caller's client does, through every layer
//     and the redirect policy) and whose transport hides
//     CloseIdleConnections: go-retryablehttp calls it whenever it gives
//     up, and the caller's idle connections are not its to close.
//
// Rate-limit replies are read in one place for every client of the module
// (committer/internal/ratelimit: Retry-After, x-ratelimit-reset, primary
// and secondary limits, the one-minute default), by this package, the
// GraphQL client and the commit loop alike.
//
// # Conditional reads
//
// The ETag cache (etag.go) remembers GET replies that carry an ETag (per
// URL, Accept header and credential; bodies up to 1 MiB) and sends
// If-None-Match with the next GET of the same URL. GitHub answers 304 when
// nothing changed, which does not count against the primary rate limit;
// the client then returns the remembered body as a 200 with the 304's
// rate-limit headers and X-From-Cache: 1. A body is only ever served after
// GitHub said it is unchanged. WithETagCache sizes it or turns it off.
//
// # Authentication
//
// WithToken sends a static token (PAT, Actions GITHUB_TOKEN, installation
// token). WithApp authenticates as a GitHub App installation through
// ghinstallation (its key given as PEM bytes or a file): tokens are
// fetched and refreshed before they expire, and installation ID 0 is
// looked up with GET /repos/{owner}/{repo}/installation for the App's
// Owner and Repo. Tokens, JWTs
// and the Authorization header never appear in logs or in errors made here.
//
// # Base URLs
//
// WithBaseURL (or Wrap's baseURL) accepts https://api.github.com/, a
// GitHub Enterprise Server URL with or without the /api/v3/ suffix, and a
// loopback URL (such as the fake in committer/githubtest) as is.
//
// # Caveats
//
// go-github's Repositories.GetBranch returns an untyped "unexpected status
// code" error for non-200 replies (it calls the transport directly and
// skips go-github's error classification), and follows a 301 by itself
// when asked to (the host guard still refuses another host); callers that
// need typed errors should read refs with Git.GetRef.
//
// go-github remembers x-ratelimit-remaining: 0 from a successful reply and
// then fails the next requests itself, without asking the transport, until
// the reset: such a *github.RateLimitError is not waited for here.
//
// A response body holds its repository's concurrency slot until it is
// closed or read to the end, so always close the bodies of BareDo and
// Client().Do calls.
package ghclient
