package githubtest

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

// tickingClock is a clock that moves one minute on every reading, so that
// seeded commits have distinct committer dates.
func tickingClock() Option {
	var n atomic.Int64
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	return WithNow(func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Minute) })
}

// listRepo seeds acme/log with five commits on main (returned oldest
// first) and a branch topic one commit ahead of the third.
func listRepo(t *testing.T) (*TestServer, []string, string) {
	t.Helper()
	ts := NewServer(t, tickingClock())
	var main []string
	for i, f := range []File{file("a.txt", "1"), file("dir/b.txt", "2"), file("a.txt", "3"), file("c.txt", "4"), file("dir/sub/d.txt", "5")} {
		main = append(main, commitOn(t, ts, "log", "main", "commit "+strconv.Itoa(i+1), f))
	}
	expect(t, call(t, ts, "POST", "/repos/acme/log/git/refs", map[string]any{"ref": "refs/heads/topic", "sha": main[2]}), 201, "")
	topic := commitOn(t, ts, "log", "topic", "on topic", file("t.txt", "t"))
	return ts, main, topic
}

func shas(cs []*github.RepositoryCommit) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.GetSHA())
	}
	return out
}

func newestFirst(hs ...string) []string {
	out := []string{}
	for i := len(hs) - 1; i >= 0; i-- {
		out = append(out, hs[i])
	}
	return out
}

func TestListCommits(t *testing.T) {
	ts, main, topic := listRepo(t)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		opts github.CommitsListOptions
		want []string
	}{
		{"default branch", github.CommitsListOptions{}, newestFirst(main...)},
		{"sha=branch", github.CommitsListOptions{SHA: "topic"}, append([]string{topic}, newestFirst(main[:3]...)...)},
		{"sha=refs/heads/branch", github.CommitsListOptions{SHA: "refs/heads/topic"}, append([]string{topic}, newestFirst(main[:3]...)...)},
		{"sha=SHA", github.CommitsListOptions{SHA: main[3]}, newestFirst(main[:4]...)},
		{"path file", github.CommitsListOptions{Path: "a.txt"}, []string{main[2], main[0]}},
		{"path directory", github.CommitsListOptions{Path: "dir"}, []string{main[4], main[1]}},
		{"path subdirectory with slash", github.CommitsListOptions{Path: "dir/sub/"}, []string{main[4]}},
		{"path on a branch", github.CommitsListOptions{SHA: "topic", Path: "t.txt"}, []string{topic}},
		{"path never changed", github.CommitsListOptions{Path: "nope"}, []string{}},
	} {
		got, resp, err := ts.Client.Repositories.ListCommits(ctx, "acme", "log", &c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if g, w := strings.Join(shas(got), " "), strings.Join(c.want, " "); g != w {
			t.Errorf("%s: got\n %s\nwant\n %s", c.name, g, w)
		}
		if link := resp.Header.Get("Link"); link != "" {
			t.Errorf("%s: one page, yet Link %q", c.name, link)
		}
	}
	// Each element is the commit shape of GET commits/{ref} without files and stats.
	one := call(t, ts, "GET", "/repos/acme/log/commits/"+main[4], nil).obj(t)
	delete(one, "files")
	delete(one, "stats")
	list := call(t, ts, "GET", "/repos/acme/log/commits?per_page=1", nil)
	if got := list.JSON.([]any)[0].(map[string]any); !reflect.DeepEqual(got, one) {
		t.Errorf("listed commit\n %v\nwant GET commits/{ref} without files and stats\n %v", got, one)
	}
}

func TestListCommitsErrors(t *testing.T) {
	ts, _, _ := listRepo(t)
	if err := ts.CreateRepo("acme", "empty", false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		repo, sha string
		status    int
		msg       string
	}{
		{"log", "nope", 404, "No commit found for SHA: nope"},
		{"log", strings.Repeat("0", 40), 404, "No commit found for SHA: " + strings.Repeat("0", 40)},
		{"empty", "", 409, "Git Repository is empty."},
		{"empty", "main", 409, "Git Repository is empty."},
		{"missing", "", 404, "Not Found"},
	} {
		_, _, err := ts.Client.Repositories.ListCommits(ctx, "acme", c.repo, &github.CommitsListOptions{SHA: c.sha})
		var ge *github.ErrorResponse
		if !errors.As(err, &ge) {
			t.Fatalf("%s sha=%q: %v, want an HTTP error", c.repo, c.sha, err)
		}
		if ge.Response.StatusCode != c.status || ge.Message != c.msg {
			t.Errorf("%s sha=%q: %d %q, want %d %q", c.repo, c.sha, ge.Response.StatusCode, ge.Message, c.status, c.msg)
		}
	}
}

func TestListCommitsPages(t *testing.T) {
	ts, main, _ := listRepo(t)
	ctx := context.Background()
	all := newestFirst(main...)
	for _, c := range []struct {
		page                    int
		want                    []string
		prev, next, last, first int
	}{
		{1, all[0:2], 0, 2, 3, 0},
		{2, all[2:4], 1, 3, 3, 1},
		{3, all[4:5], 2, 0, 0, 1},
		{4, []string{}, 3, 0, 0, 1},
	} {
		got, resp, err := ts.Client.Repositories.ListCommits(ctx, "acme", "log",
			&github.CommitsListOptions{SHA: "main", ListOptions: github.ListOptions{Page: c.page, PerPage: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := strings.Join(shas(got), " "), strings.Join(c.want, " "); g != w {
			t.Errorf("page %d: got %s, want %s", c.page, g, w)
		}
		if resp.PrevPage != c.prev || resp.NextPage != c.next || resp.LastPage != c.last || resp.FirstPage != c.first {
			t.Errorf("page %d: Link %q gives prev %d next %d last %d first %d, want %d %d %d %d", c.page, resp.Header.Get("Link"),
				resp.PrevPage, resp.NextPage, resp.LastPage, resp.FirstPage, c.prev, c.next, c.last, c.first)
		}
	}
	// The links keep the request's other parameters, in GitHub's order.
	r := call(t, ts, "GET", "/repos/acme/log/commits?sha=main&per_page=2&page=2&path=", nil)
	u := strings.TrimSuffix(ts.URL, "/") + "/repos/acme/log/commits?page="
	want := `<` + u + `1&path=&per_page=2&sha=main>; rel="prev", <` + u + `3&path=&per_page=2&sha=main>; rel="next", <` +
		u + `3&path=&per_page=2&sha=main>; rel="last", <` + u + `1&path=&per_page=2&sha=main>; rel="first"`
	if got := r.Header.Get("Link"); got != want {
		t.Errorf("Link\n %s\nwant\n %s", got, want)
	}
}

func TestListCommitsPerPage(t *testing.T) {
	ts := NewServer(t, tickingClock())
	for i := range 102 {
		commitOn(t, ts, "many", "main", "c"+strconv.Itoa(i), file("f", strconv.Itoa(i)))
	}
	for _, c := range []struct {
		perPage, page, n, last int
	}{
		{0, 1, 30, 4},    // the default
		{500, 1, 100, 2}, // clamped to 100
		{100, 2, 2, 0},
		{-1, 1, 30, 4},
	} {
		got, resp, err := ts.Client.Repositories.ListCommits(context.Background(), "acme", "many",
			&github.CommitsListOptions{ListOptions: github.ListOptions{Page: c.page, PerPage: c.perPage}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.n || resp.LastPage != c.last {
			t.Errorf("per_page=%d page=%d: %d commits, last page %d (Link %q), want %d and %d",
				c.perPage, c.page, len(got), resp.LastPage, resp.Header.Get("Link"), c.n, c.last)
		}
	}
}
