package ghclient

import (
	"bytes"
	"io"
	"net/http"
	"strings"
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
// WithLimitScale). A zero count turns its window off.
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
	s.mu.Lock()
	defer s.mu.Unlock()
	slot := now
	var interval time.Duration
	if p.perMinute > 0 {
		// GCRA: one write every interval, burst of them at once.
		interval = p.minute / time.Duration(p.perMinute)
		if t := s.tat.Add(-time.Duration(max(p.burst-1, 0)) * interval); t.After(slot) {
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
	head, _ := io.ReadAll(io.LimitReader(b, maxBodyPeek))
	return bytes.Contains(bytes.ToLower(head), []byte("mutation")) || !strings.Contains(string(head), "query")
}
