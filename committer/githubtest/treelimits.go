package githubtest

import (
	"strconv"
)

// treeLimits are the create-tree timeout thresholds.
type treeLimits struct {
	inlineEntries int   // more entries carrying content time out; 0 = never
	inlineBytes   int64 // more bytes of inline content time out; 0 = never
	entries       int   // more entries of any kind time out; 0 = never
}

// Defaults of WithTreeTimeout and WithTreeEntryTimeout.
//
// GitHub's create-tree timeout grows with the content sent inline: users
// measured payloads above about 2.5 MB (200-250 files with inline content)
// answered with this 422 or a 502, and chunks under 2.5 MB all going
// through (codesandbox/codesandbox-client#8614, 2024); other reports by file
// count (ir-engine PR #647: "~200 or more files";
// qoomon/actions--create-commit#90, which then chunked at 100) all sent
// content inline. So the fake counts inline content and inline entries:
// DefaultTreeTimeoutBytes bytes of content (decoded, as GitHub stores it)
// and DefaultTreeTimeoutEntries entries with a content field.
//
// A cap on every entry, those carrying only a SHA (or a null SHA, a delete)
// included, stays as a modelled guess: no report measures a tree request of
// SHA-only entries timing out, but GitHub still has to write every path
// into the trees above it. DefaultTreeTimeoutAllEntries is about 0.6 MB of
// such entries.
const (
	DefaultTreeTimeoutEntries    = 250
	DefaultTreeTimeoutBytes      = 2_500_000
	DefaultTreeTimeoutAllEntries = 5000
)

var defaultTreeLimits = treeLimits{inlineEntries: DefaultTreeTimeoutEntries, inlineBytes: DefaultTreeTimeoutBytes, entries: DefaultTreeTimeoutAllEntries}

// msgTreeTimeout is GitHub's reply to a create-tree request too large to
// process in time (qoomon/actions--create-commit#90; two spaces after each
// sentence, as GitHub sends it).
const msgTreeTimeout = "Sorry, your request timed out.  It's likely that your input was too large to process.  " +
	"Consider building the tree incrementally, or building the commits you need in a local clone of the " +
	"repository and then pushing them to GitHub."

// WithTreeTimeout sets when POST git/trees answers GitHub's timeout 422 for
// its inline content: when more than entries tree entries carry a content
// field, or their contents add up to more than bytes bytes. 0 turns that
// measure off. The defaults are DefaultTreeTimeoutEntries and
// DefaultTreeTimeoutBytes. Entries that carry only a SHA are capped by
// WithTreeEntryTimeout.
func WithTreeTimeout(entries int, bytes int64) Option {
	return func(s *Server) {
		s.treeMax.inlineEntries = max(entries, 0)
		s.treeMax.inlineBytes = max(bytes, 0)
	}
}

// WithTreeEntryTimeout sets how many entries of any kind (inline content,
// a SHA, or a null SHA) a POST git/trees may carry before it answers
// GitHub's timeout 422; 0 never. The default is
// DefaultTreeTimeoutAllEntries.
func WithTreeEntryTimeout(entries int) Option {
	return func(s *Server) { s.treeMax.entries = max(entries, 0) }
}

// timesOut reports whether a create-tree request with these entries is too
// large to process in time.
func (t treeLimits) timesOut(entries []treeEntryIn) bool {
	var inline int
	var bytes int64
	for _, e := range entries {
		if e.Content != nil {
			inline++
			bytes += int64(len(*e.Content))
		}
	}
	return (t.entries > 0 && len(entries) > t.entries) ||
		(t.inlineEntries > 0 && inline > t.inlineEntries) ||
		(t.inlineBytes > 0 && bytes > t.inlineBytes)
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
