package cli

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// prInfo is a pull request as GitHub's API reports it.
type prInfo struct {
	Title, Body                  string
	Head, Base                   string
	Labels, Reviewers, Assignees []string
}

// pullInfo reads pull request n of acme/mono through the fake's API (GET
// pulls/{n}), as a client would.
func pullInfo(t *testing.T, srv *githubtest.TestServer, n int) (prInfo, bool) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+"repos/acme/mono/pulls/"+strconv.Itoa(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return prInfo{}, false
	}
	var p struct {
		Title, Body string
		Head, Base  struct{ Ref string }
		Labels      []struct{ Name string }
		Reviewers   []struct{ Login string } `json:"requested_reviewers"`
		Assignees   []struct{ Login string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	info := prInfo{Title: p.Title, Body: p.Body, Head: p.Head.Ref, Base: p.Base.Ref}
	for _, l := range p.Labels {
		info.Labels = append(info.Labels, l.Name)
	}
	for _, u := range p.Reviewers {
		info.Reviewers = append(info.Reviewers, u.Login)
	}
	for _, u := range p.Assignees {
		info.Assignees = append(info.Assignees, u.Login)
	}
	return info, true
}
