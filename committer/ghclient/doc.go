// Package ghclient builds a *github.Client (go-github v66) that behaves well
// against GitHub: it authenticates, retries what is safe to retry, waits
// out rate limits within a bound, and caps concurrent requests per
// repository.
//
//	gh, err := ghclient.New(ctx,
//		ghclient.WithToken(os.Getenv("GITHUB_TOKEN")),
//		ghclient.WithBaseURL(os.Getenv("GITHUB_API_URL")), // GHES: https://HOST/api/v3
//	)
//
// # Transport layers
//
// Each request passes, from the outside in, through: user agent → logging →
// per-repository concurrency limit → retry → auth → base transport. Every
// layer is an http.RoundTripper with one job.
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
// outer retry loop does not multiply with this one.
//
// A retryable request is retried (at most WithMaxRetries times) on
// connection errors, 5xx except 501, 429, and 403/429 rate limits. The
// policies are CheckRetry and Backoff, with go-retryablehttp's signatures:
//
//   - Retry-After, when present, is honoured;
//   - a primary limit (x-ratelimit-remaining: 0) waits until
//     x-ratelimit-reset plus a second;
//   - a secondary limit without either header waits at least one second,
//     growing exponentially (GitHub suggests a minute for production
//     traffic; the per-repository limit is what keeps a client below those
//     limits, so short waits suffice in practice);
//   - anything else backs off exponentially with full jitter (200ms base,
//     10s cap).
//
// A rate limit lifting later than WithMaxRateLimitWait (default 60s) is not
// waited for: the request fails at once with a *RateLimitError that says
// when the limit lifts. When retries run out, the last reply is handed to
// go-github untouched, so callers see *github.ErrorResponse,
// *github.RateLimitError or *github.AbuseRateLimitError with the real
// status. The context's deadline or cancellation ends every wait. All waits
// go through the WithSleep hook, so tests can record them instead of
// sleeping.
//
// # Authentication
//
// WithToken sends a static token (PAT, Actions GITHUB_TOKEN, installation
// token). WithApp and WithAppKeyFile authenticate as a GitHub App
// installation through ghinstallation: tokens are fetched and refreshed
// before they expire, and installation ID 0 is looked up with
// GET /repos/{owner}/{repo}/installation for WithRepository. Tokens, JWTs
// and the Authorization header never appear in logs or in errors made here.
//
// # Base URLs
//
// WithBaseURL accepts https://api.github.com/, a GitHub Enterprise Server
// URL with or without the /api/v3/ suffix, and a loopback URL (such as the
// fake in committer/githubtest) as is.
//
// # Caveats
//
// go-github's Repositories.GetBranch returns an untyped "unexpected status
// code" error for non-200 replies (it calls the transport directly and
// skips go-github's error classification); this client still retries it,
// but callers that need typed errors should read refs with Git.GetRef.
//
// go-github remembers x-ratelimit-remaining: 0 from a successful reply and
// then fails the next requests itself, without asking the transport, until
// the reset: such a *github.RateLimitError is not waited for here.
//
// A response body holds its repository's concurrency slot until it is
// closed or read to the end, so always close the bodies of BareDo and
// Client().Do calls.
package ghclient
