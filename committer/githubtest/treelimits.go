package githubtest

import (
	"strconv"
)

// treeLimits are the create-tree timeout thresholds and the recursive
// get-tree truncation limits.
type treeLimits struct {
	timeoutEntries int   // create-tree with more entries times out; 0 = never
	timeoutBytes   int64 // create-tree with a larger body times out; 0 = never
}

// Defaults of WithTreeTimeout.
//
// DefaultTreeTimeoutBytes comes from a user's measurement: create-tree
// payloads above about 2.5 MB (200-250 files with inline content) got 502
// or this 422, and chunks under 2.5 MB all went through
// (codesandbox/codesandbox-client#8614, 2024). DefaultTreeTimeoutEntries is
// a modelled guess: every report of the timeout by file count (ir-engine
// PR #647: "~200 or more files"; qoomon/actions--create-commit#90, which
// then chunked at 100) sent content inline, so was bound by size; no report
// measures a tree of entries that only reference blob SHAs. 5,000 entries
// is about 0.6 MB of such entries.
const (
	DefaultTreeTimeoutEntries = 5000
	DefaultTreeTimeoutBytes   = 2_500_000
)

var defaultTreeLimits = treeLimits{timeoutEntries: DefaultTreeTimeoutEntries, timeoutBytes: DefaultTreeTimeoutBytes}

// msgTreeTimeout is GitHub's reply to a create-tree request too large to
// process in time (qoomon/actions--create-commit#90; two spaces after each
// sentence, as GitHub sends it).
const msgTreeTimeout = "Sorry, your request timed out.  It's likely that your input was too large to process.  " +
	"Consider building the tree incrementally, or building the commits you need in a local clone of the " +
	"repository and then pushing them to GitHub."

// WithTreeTimeout sets when POST git/trees answers GitHub's timeout 422:
// when the request has more than entries tree entries, or a body of more
// than bytes bytes. 0 turns that measure off. The defaults are
// DefaultTreeTimeoutEntries and DefaultTreeTimeoutBytes.
func WithTreeTimeout(entries int, bytes int64) Option {
	return func(s *Server) {
		s.treeMax.timeoutEntries = max(entries, 0)
		s.treeMax.timeoutBytes = max(bytes, 0)
	}
}

func (t treeLimits) timesOut(entries int, bytes int64) bool {
	return (t.timeoutEntries > 0 && entries > t.timeoutEntries) ||
		(t.timeoutBytes > 0 && bytes > t.timeoutBytes)
}

// maxTreeBytes is where GitHub truncates recursive tree listings by size
// ("The limit for the tree array is 100,000 entries with a maximum size of 7
// MB when using the recursive parameter": spec get-tree). The fake counts
// the JSON bytes of the entries, taking 7 MB as 7,000,000 bytes.
const maxTreeBytes = 7_000_000

// entryJSONSize is the size of one entry of the tree array as JSON (path
// escaping aside).
func entryJSONSize(e treeEntryOut) int {
	n := len(`{"path":"","mode":"","type":"","sha":"","url":""},`) +
		len(e.Path) + len(e.Mode) + len(e.Type) + len(e.SHA) + len(e.URL)
	if e.Size != nil {
		n += len(`,"size":`) + len(strconv.FormatInt(*e.Size, 10))
	}
	return n
}
