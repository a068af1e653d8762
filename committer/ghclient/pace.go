package ghclient

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// GitHub's documented secondary limits on content-creating requests, per
// token: 80 a minute and 500 an hour.
const (
	defaultWritesPerMinute = 80
	defaultWriteBurst      = 8
	defaultWritesPerHour   = 500
)

// paceConfig is the write pacer's setting: at most perMinute writes in any
// minute, spaced evenly after a burst of burst, and at most perHour in any
// hour. minute and hour are the windows' lengths (shortened by
// testseam.Seams.LimitScale). A zero count turns its window off.
type paceConfig struct {
	perMinute, burst, perHour int
	minute, hour              time.Duration
}

func (p paceConfig) on() bool { return p.perMinute > 0 || p.perHour > 0 }

// reserve returns the time at which a write asked for at now may be sent,
// and books it. Reservations are never given back: a write whose caller
// gave up while waiting still counts, which errs on the slow side. Because
// the slot is booked before the wait, a sleep that returns at once (a test
// hook) never makes the pacer spin.
func (s *shared) reserve(now time.Time, p paceConfig) time.Time {
	s.mu.Lock() // the pacer is the process's own: no machine state
	defer s.mu.Unlock()
	return s.reserveLocked(now, p)
}

// reserveLocked is reserve between s.begin and s.end.
func (s *shared) reserveLocked(now time.Time, p paceConfig) time.Time {
	slot := now
	var interval time.Duration
	if p.perMinute > 0 {
		// GCRA: one write every interval, burst of them at once; both
		// scaled by the pacer's share of the budget (share.go).
		var burst int
		interval, burst = s.gcraLocked(now, p)
		if t := s.tat.Add(-time.Duration(burst-1) * interval); t.After(slot) {
			slot = t
		}
	}
	if n := len(s.sent); n > 0 && s.sent[n-1].After(slot) {
		slot = s.sent[n-1] // keep sent in order
	}
	// Hard caps: the n-th latest write must be a whole window back.
	for _, w := range []struct {
		n int
		d time.Duration
	}{{p.perMinute, p.minute}, {p.perHour, p.hour}} {
		if w.n > 0 && len(s.sent) >= w.n {
			if t := s.sent[len(s.sent)-w.n].Add(w.d); t.After(slot) {
				slot = t
			}
		}
	}
	if p.perMinute > 0 {
		s.tat = later(s.tat, slot).Add(interval)
	}
	s.sent = append(s.sent, slot)
	if keep := max(p.perMinute, p.perHour, 1); len(s.sent) > 2*keep {
		s.sent = append([]time.Time(nil), s.sent[len(s.sent)-keep:]...)
	}
	return slot
}

// gcraLocked is the pacer's spacing and burst at now (p.perMinute > 0),
// both scaled by its share of the budget (share.go). Caller holds s.mu.
func (s *shared) gcraLocked(now time.Time, p paceConfig) (interval time.Duration, burst int) {
	share := s.shareLocked(now, p.minute)
	return time.Duration(float64(p.minute/time.Duration(p.perMinute)) / share), max(int(float64(p.burst)*share), 1)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// isWrite reports whether a request creates content, as GitHub counts
// them for its secondary limits: POST, PATCH, PUT and DELETE, except a
// GraphQL POST that holds no mutation (a query).
func isWrite(req *http.Request, rel string) bool {
	switch req.Method {
	case http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	case http.MethodPost:
		if resourceOf(rel) == "graphql" {
			return graphQLMutation(req)
		}
		return true
	}
	return false
}

// graphQLMutation peeks at a GraphQL request's body (through GetBody, so
// the body itself is untouched). A body it cannot read counts as a
// mutation.
func graphQLMutation(req *http.Request) bool {
	if req.GetBody == nil {
		return true
	}
	b, err := req.GetBody()
	if err != nil {
		return true
	}
	defer b.Close()
	query, ok := graphQLDocument(io.LimitReader(b, maxBodyPeek))
	return !ok || hasMutation(query)
}

// graphQLDocument reads the "query" member of a GraphQL request body,
// skipping the members before it (variables may come first). ok is false
// when the body is not such an object or the document is past the peek.
func graphQLDocument(r io.Reader) (query string, ok bool) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false
		}
		if key == "query" {
			if err := dec.Decode(&query); err != nil {
				return "", false
			}
			return query, true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// hasMutation reports whether a GraphQL document defines a mutation: the
// keyword "mutation" as a top-level name (outside every selection set,
// string and comment), as an operation definition begins with it.
func hasMutation(doc string) bool {
	depth := 0
	for i := 0; i < len(doc); {
		c := doc[i]
		switch {
		case c == '#':
			for i < len(doc) && doc[i] != '\n' {
				i++
			}
		case c == '"':
			i++
			for i < len(doc) && doc[i] != '"' {
				if doc[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '{' || c == '(':
			depth++
			i++
		case c == '}' || c == ')':
			depth--
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(doc) && (doc[j] == '_' || doc[j] >= 'a' && doc[j] <= 'z' || doc[j] >= 'A' && doc[j] <= 'Z' || doc[j] >= '0' && doc[j] <= '9') {
				j++
			}
			if depth == 0 && doc[i:j] == "mutation" {
				return true
			}
			i = j
		default:
			i++
		}
	}
	return false
}
