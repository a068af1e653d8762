package githubtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

type lfsReply struct {
	Transfer string `json:"transfer"`
	Message  string `json:"message"`
	Objects  []struct {
		OID     string `json:"oid"`
		Size    int64  `json:"size"`
		Actions map[string]struct {
			Href   string            `json:"href"`
			Header map[string]string `json:"header"`
		} `json:"actions"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"objects"`
}

// lfsBatch posts a batch request for owner/repo and decodes the reply.
func lfsBatch(t *testing.T, hc *http.Client, ts *TestServer, repoGit string, body any) (int, lfsReply) {
	t.Helper()
	r := callWith(t, hc, ts, "POST", "/acme/"+repoGit+"/info/lfs/objects/batch", body, "Accept", "application/vnd.git-lfs+json", "Content-Type", "application/vnd.git-lfs+json")
	var out lfsReply
	if ct := r.Header.Get("Content-Type"); (r.Status == http.StatusOK || r.Status == http.StatusUnprocessableEntity) && ct != "application/vnd.git-lfs+json" {
		t.Errorf("batch reply Content-Type %q, want the LFS media type", ct)
	}
	_ = json.Unmarshal(r.Raw, &out)
	return r.Status, out
}

// lfsRoutes exercises the batch API for TestReplySchemas, whose replies
// are not in GitHub's REST description: see TestLFSBatchAPI.
func lfsRoutes(t *testing.T, ts *TestServer, hc *http.Client) {
	if st, _ := lfsBatch(t, hc, ts, "mono.git", map[string]any{"operation": "download", "objects": []any{}}); st != http.StatusOK {
		t.Errorf("LFS batch: status %d, want 200", st)
	}
}

func storageDo(t *testing.T, method, href string, body []byte, hdr map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(method, href, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestLFSBatchAPI(t *testing.T) {
	ts := NewServer(t, WithToken("tok"))
	if err := ts.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: authed{"tok"}}
	data := []byte("large file content\n")
	sum := sha256.Sum256(data)
	oid := hex.EncodeToString(sum[:])
	obj := []map[string]any{{"oid": oid, "size": len(data)}}
	up := map[string]any{"operation": "upload", "transfers": []string{"basic"}, "objects": obj}

	// Hostile first: no repository, bad operation, bad object, too big,
	// no credentials.
	if st, _ := lfsBatch(t, hc, ts, "nope.git", up); st != http.StatusNotFound {
		t.Errorf("batch for a missing repository: %d, want 404", st)
	}
	if st, r := lfsBatch(t, hc, ts, "mono.git", map[string]any{"operation": "delete", "objects": obj}); st != http.StatusUnprocessableEntity || r.Message == "" {
		t.Errorf("bad operation: %d %q, want 422 with a message", st, r.Message)
	}
	ts.SetLFSMaxSize(4)
	_, r := lfsBatch(t, hc, ts, "mono.git", map[string]any{"operation": "upload", "objects": []map[string]any{{"oid": "XYZ", "size": 1}, {"oid": oid, "size": len(data)}}})
	if len(r.Objects) != 2 || r.Objects[0].Error == nil || r.Objects[0].Error.Code != 422 || r.Objects[1].Error == nil || !strings.Contains(r.Objects[1].Error.Message, "less than or equal to 4") {
		t.Errorf("bad oid and too big: %+v", r.Objects)
	}
	ts.SetLFSMaxSize(2 << 30)
	if st, _ := lfsBatch(t, http.DefaultClient, ts, "mono.git", up); st != http.StatusUnauthorized {
		t.Errorf("batch without the token: %d, want 401", st)
	}

	_, r = lfsBatch(t, hc, ts, "mono.git", up)
	if r.Transfer != "basic" || len(r.Objects) != 1 || r.Objects[0].Actions["upload"].Href == "" {
		t.Fatalf("upload batch: %+v", r)
	}
	put, verify := r.Objects[0].Actions["upload"], r.Objects[0].Actions["verify"]
	if !strings.HasPrefix(put.Href, "http://localhost:") {
		t.Errorf("upload href %s: want storage's own host name", put.Href)
	}
	if st := storageDo(t, "PUT", put.Href, data, nil); st != http.StatusUnauthorized {
		t.Errorf("storage PUT without the granted header: %d, want 401", st)
	}
	if st := storageDo(t, "PUT", put.Href, []byte("other content\n"), put.Header); st != http.StatusBadRequest {
		t.Errorf("storage PUT of other content: %d, want 400", st)
	}
	vbody, _ := json.Marshal(obj[0])
	if st := storageDo(t, "POST", verify.Href, vbody, verify.Header); st != http.StatusUnprocessableEntity {
		t.Errorf("verify before upload: %d, want 422", st)
	}
	if st := storageDo(t, "PUT", put.Href, data, put.Header); st != http.StatusOK {
		t.Fatalf("storage PUT: %d", st)
	}
	if st := storageDo(t, "POST", verify.Href, vbody, verify.Header); st != http.StatusOK {
		t.Errorf("verify after upload: %d, want 200", st)
	}
	if got, ok := ts.LFSObject("acme", "mono", oid); !ok || !bytes.Equal(got, data) {
		t.Fatalf("stored %q, %v", got, ok)
	}
	// Stored: an upload batch answers no action; download gives an href.
	if _, r = lfsBatch(t, hc, ts, "mono.git", up); len(r.Objects[0].Actions) != 0 {
		t.Errorf("upload of a stored object: actions %v, want none", r.Objects[0].Actions)
	}
	_, r = lfsBatch(t, hc, ts, "mono.git", map[string]any{"operation": "download", "objects": obj})
	if st := storageDo(t, "GET", r.Objects[0].Actions["download"].Href, nil, r.Objects[0].Actions["download"].Header); st != http.StatusOK {
		t.Errorf("download: %d", st)
	}
	_, r = lfsBatch(t, hc, ts, "mono.git", map[string]any{"operation": "download", "objects": []map[string]any{{"oid": strings.Repeat("0", 64), "size": 1}}})
	if r.Objects[0].Error == nil || r.Objects[0].Error.Code != 404 {
		t.Errorf("download of a missing object: %+v, want error 404", r.Objects[0])
	}
	for _, l := range ts.LFSStorageLog() {
		if strings.Contains(l.Authorization, "tok") && !strings.HasPrefix(l.Authorization, "RemoteAuth ") {
			t.Errorf("storage got the API token: %+v", l)
		}
	}
}

// authed adds the token to every request.
type authed struct{ tok string }

func (a authed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+a.tok)
	return http.DefaultTransport.RoundTrip(r)
}
