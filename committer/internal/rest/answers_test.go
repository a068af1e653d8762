package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// realReply builds the error go-github returns for GitHub's real error
// body id (testdata/github-api/examples/real-error-bodies.json), with
// headers, exactly as CheckResponse types it.
func realReply(t *testing.T, bodies map[string]json.RawMessage, id string, header http.Header) error {
	t.Helper()
	var e struct {
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	}
	raw, ok := bodies[id]
	if !ok {
		t.Fatalf("no real body %q in testdata", id)
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	body := []byte(e.Body)
	if string(body) == "null" {
		body = nil
	}
	if header == nil {
		header = http.Header{}
	}
	header.Set("X-GitHub-Request-Id", "REAL:"+id)
	req, _ := http.NewRequest(http.MethodPatch, "https://api.github.com/repos/acme/mono/git/refs/heads/main", nil)
	resp := &http.Response{StatusCode: e.Status, Header: header, Body: io.NopCloser(bytes.NewReader(body)), Request: req}
	err := github.CheckResponse(resp)
	if err == nil {
		t.Fatalf("%s: CheckResponse accepted status %d", id, e.Status)
	}
	return err
}

func loadRealBodies(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("../../../testdata/github-api/examples/real-error-bodies.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, e := range doc.Errors {
		var x struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(e, &x)
		out[x.ID] = e
	}
	return out
}

// TestJudgeRealBodies: the classification table read against GitHub's real
// error bodies: only those that mean another writer moved the branch (or
// the file) are lost races.
func TestJudgeRealBodies(t *testing.T) {
	bodies := loadRealBodies(t)
	reset := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	primary := http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}, "X-Ratelimit-Limit": {"5000"}}
	for _, tc := range []struct {
		id     string
		w      Answer
		header http.Header
		want   Verdict
		kind   error
	}{
		{"update-ref-non-fast-forward", ToUpdateRef, nil, LostRace, nil},
		{"update-ref-cannot-be-updated", ToUpdateRef, nil, LostRace, nil},
		{"ref-does-not-exist", ToUpdateRef, nil, Missing, nil},
		{"update-ref-unknown-sha", ToUpdateRef, nil, Unknown, nil},
		{"create-ref-already-exists", ToCreateRef, nil, LostRace, nil},
		{"create-ref-update-failed", ToCreateRef, nil, Failed, nil},
		{"create-ref-object-missing", ToCreateRef, nil, Failed, nil},
		{"create-ref-already-exists", ToUpdateRef, nil, Failed, nil}, // not an update's answer
		{"contents-stale-branch", ToContents, nil, LostRace, nil},
		{"contents-sha-mismatch", ToContents, nil, LostRace, nil},
		{"contents-sha-missing", ToContents, nil, LostRace, nil},
		{"contents-protected-branch", ToContents, nil, Failed, kind.Protected},
		{"empty-repository", ToContents, nil, Failed, nil}, // a 409 that is not a race
		{"contents-too-large", ToContents, nil, Failed, kind.Permission},
		{"update-ref-non-fast-forward", ToContents, nil, Failed, nil},
		{"secondary-rate-limit", ToUpdateRef, nil, Limited, nil},
		{"secondary-rate-limit", ToContents, http.Header{"Retry-After": {"60"}}, Limited, nil},
		{"secondary-rate-limit", ToCreateRef, nil, Limited, nil},
		{"primary-rate-limit", ToUpdateRef, primary, Failed, kind.RateLimited},
		{"primary-rate-limit", ToContents, primary, Failed, kind.RateLimited},
		{"timeout", ToUpdateRef, nil, Unknown, nil},
		{"timeout", ToContents, nil, Unknown, nil},
		{"problems-parsing-json", ToContents, nil, Failed, nil},
	} {
		t.Run(tc.id, func(t *testing.T) {
			err := realReply(t, bodies, tc.id, tc.header)
			got, out := Judge(tc.w, err)
			if got != tc.want {
				t.Fatalf("Judge(%d, %v) = %d, want %d", tc.w, err, got, tc.want)
			}
			if got != Failed {
				return
			}
			k, _ := Classify(out)
			if !errors.Is(k, tc.kind) {
				t.Errorf("kind %v, want %v (%v)", k, tc.kind, out)
			}
			if s, _, id := Details(out); s == 0 || id != "REAL:"+tc.id {
				t.Errorf("status %d, request ID %q: want the reply's", s, id)
			}
		})
	}
}

// TestJudgeUnsendable: a request whose URL cannot be built was never
// sent: invalid input, not a lost reply to settle; a transport error
// after sending is.
func TestJudgeUnsendable(t *testing.T) {
	_, parseErr := url.Parse("repos/acme/mono/contents/a%zz.txt") //nolint:staticcheck // SA1007: the invalid escape is the point
	if parseErr == nil {
		t.Fatal("want a parse error")
	}
	if v, err := Judge(ToContents, parseErr); v != Failed {
		t.Fatalf("judge = %d, want failed", v)
	} else if k, _ := Classify(err); !errors.Is(k, kind.Invalid) {
		t.Fatalf("kind %v, want kind.Invalid", k)
	}
	sent := &url.Error{Op: "Put", URL: "https://api.github.com/repos/acme/mono/contents/a", Err: errors.New("connection reset by peer")}
	if v, _ := Judge(ToContents, sent); v != Unknown {
		t.Fatalf("Judge(transport error) = %d, want unknown", v)
	}
}
