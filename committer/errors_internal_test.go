package committer

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
	data, err := os.ReadFile("../testdata/github-api/examples/real-error-bodies.json")
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
		w      answerTo
		header http.Header
		want   verdict
		kind   error
	}{
		{"update-ref-non-fast-forward", toUpdateRef, nil, verdictLostRace, nil},
		{"update-ref-cannot-be-updated", toUpdateRef, nil, verdictLostRace, nil},
		{"ref-does-not-exist", toUpdateRef, nil, verdictMissing, nil},
		{"update-ref-unknown-sha", toUpdateRef, nil, verdictUnknown, nil},
		{"create-ref-already-exists", toCreateRef, nil, verdictLostRace, nil},
		{"create-ref-update-failed", toCreateRef, nil, verdictFailed, nil},
		{"create-ref-object-missing", toCreateRef, nil, verdictFailed, nil},
		{"create-ref-already-exists", toUpdateRef, nil, verdictFailed, nil}, // not an update's answer
		{"contents-stale-branch", toContents, nil, verdictLostRace, nil},
		{"contents-sha-mismatch", toContents, nil, verdictLostRace, nil},
		{"contents-sha-missing", toContents, nil, verdictLostRace, nil},
		{"contents-protected-branch", toContents, nil, verdictFailed, ErrProtected},
		{"empty-repository", toContents, nil, verdictFailed, nil}, // a 409 that is not a race
		{"contents-too-large", toContents, nil, verdictFailed, ErrPermission},
		{"update-ref-non-fast-forward", toContents, nil, verdictFailed, nil},
		{"secondary-rate-limit", toUpdateRef, nil, verdictLimited, nil},
		{"secondary-rate-limit", toContents, http.Header{"Retry-After": {"60"}}, verdictLimited, nil},
		{"secondary-rate-limit", toCreateRef, nil, verdictLimited, nil},
		{"primary-rate-limit", toUpdateRef, primary, verdictFailed, ErrRateLimited},
		{"primary-rate-limit", toContents, primary, verdictFailed, ErrRateLimited},
		{"timeout", toUpdateRef, nil, verdictUnknown, nil},
		{"timeout", toContents, nil, verdictUnknown, nil},
		{"problems-parsing-json", toContents, nil, verdictFailed, nil},
	} {
		t.Run(tc.id, func(t *testing.T) {
			err := realReply(t, bodies, tc.id, tc.header)
			got, out := judge(tc.w, err)
			if got != tc.want {
				t.Fatalf("judge(%d, %v) = %d, want %d", tc.w, err, got, tc.want)
			}
			if got != verdictFailed {
				return
			}
			kind, _ := classify(out)
			if !errors.Is(kind, tc.kind) {
				t.Errorf("kind %v, want %v (%v)", kind, tc.kind, out)
			}
			if s, _, id := apiDetails(out); s == 0 || id != "REAL:"+tc.id {
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
	if v, err := judge(toContents, parseErr); v != verdictFailed {
		t.Fatalf("judge = %d, want failed", v)
	} else if k, _ := classify(err); !errors.Is(k, ErrInvalid) {
		t.Fatalf("kind %v, want ErrInvalid", k)
	}
	sent := &url.Error{Op: "Put", URL: "https://api.github.com/repos/acme/mono/contents/a", Err: errors.New("connection reset by peer")}
	if v, _ := judge(toContents, sent); v != verdictUnknown {
		t.Fatalf("judge(transport error) = %d, want unknown", v)
	}
}
