package rest

import "strconv"

// TreeLimits are the create-tree timeout thresholds.
type TreeLimits struct {
	InlineEntries int   // more entries carrying content time out; 0 = never
	InlineBytes   int64 // more bytes of inline content time out; 0 = never
	Entries       int   // more entries of any kind time out; 0 = never
}

// msgTreeTimeout is GitHub's reply to a create-tree request too large to
// process in time (qoomon/actions--create-commit#90; two spaces after each
// sentence, as GitHub sends it).
const msgTreeTimeout = "Sorry, your request timed out.  It's likely that your input was too large to process.  " +
	"Consider building the tree incrementally, or building the commits you need in a local clone of the " +
	"repository and then pushing them to GitHub."

// TimesOut reports whether a create-tree request with these entries is too
// large to process in time.
func (t TreeLimits) TimesOut(entries []treeEntryIn) bool {
	var inline int
	var bytes int64
	for _, e := range entries {
		if e.Content != nil {
			inline++
			bytes += int64(len(*e.Content))
		}
	}
	return (t.Entries > 0 && len(entries) > t.Entries) ||
		(t.InlineEntries > 0 && inline > t.InlineEntries) ||
		(t.InlineBytes > 0 && bytes > t.InlineBytes)
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
