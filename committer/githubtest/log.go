package githubtest

import "strings"

// Request is one entry of the request log.
type Request struct {
	Method, Route, Path         string // Route is the ServeMux pattern without the /api/v3 prefix; Path is decoded
	RawPath                     string // the path as sent, escapes kept (r.URL.EscapedPath()), without /api/v3
	RawQuery                    string // the query as sent, without "?"
	Status                      int
	RequestBytes, ResponseBytes int64
	Repo                        string // "owner/name" or ""
	// Write is true for a content-creating request: a REST POST, PATCH,
	// PUT or DELETE (the installation-token exchange aside) or a GraphQL
	// mutation; a GraphQL query is a read.
	Write bool
}

func (s *Server) appendLog(r Request) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.log = append(s.log, r)
}

// Requests returns a copy of the request log, oldest first.
func (s *Server) Requests() []Request {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]Request(nil), s.log...)
}

// Count returns how many logged requests matched route (a ServeMux pattern
// such as "POST /repos/{owner}/{repo}/git/trees").
func (s *Server) Count(route string) int {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.Route == route {
			n++
		}
	}
	return n
}

// CountMethod returns how many logged requests used method.
func (s *Server) CountMethod(method string) int {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	n := 0
	for _, r := range s.log {
		if strings.EqualFold(r.Method, method) {
			n++
		}
	}
	return n
}

// CountWrites returns how many logged requests were content-creating (see
// Request.Write).
func (s *Server) CountWrites() int {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	n := 0
	for _, r := range s.log {
		if r.Write {
			n++
		}
	}
	return n
}

// ResetRequests empties the request log.
func (s *Server) ResetRequests() {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.log = nil
}
