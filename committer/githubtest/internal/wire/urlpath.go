package wire

import (
	"net/url"
	"strings"
)

// Names in URLs, as GitHub reads and writes them. The ServeMux matches the
// path as it was sent (r.URL.EscapedPath(), never r.URL.Path, which has
// lost the difference between "/" and "%2F") and decodes each wildcard
// from it: {x} one segment, {x...} the rest. So a handler's r.PathValue
// holds the name GitHub reads: "C%23.md" is "C#.md", "%41" is "A", "a+b"
// stays "a+b" (a "+" is a space only in a query), and "%2F" is a "/", as
// github.com takes an escaped slash in a ref (heads%2Fmain, sent by
// @octokit/rest) or a path. A client that sends a name as it is loses
// what follows a "#" (never sent) or a "?" (a query, ignored), and has its
// "%XX" decoded: the fake then writes the name it reads, as GitHub would,
// and the tree shows the wrong file. TestRouteNamesDecoded holds the
// routes to this.

// EscapeSegments escapes each "/"-separated segment of name for a URL
// path, keeping the slashes, as GitHub writes names into the URLs of its
// replies (Location, url, html_url, _links).
func EscapeSegments(name string) string {
	segs := strings.Split(name, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
