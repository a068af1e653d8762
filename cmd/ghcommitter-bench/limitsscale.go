package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// scaleResult is one change measured for its cost at github.com's scale:
// a big mirror, a small commit in a big repository, a put under a wide
// directory. One Committer in one process, under the fake's limits, with
// the library's default pacing (scaled).
type scaleResult struct {
	Name     string
	Repo     string // what the repository holds
	Writes   int    // content-creating requests (the fake's log)
	Trees    int    // of which create-tree requests
	Blobs    int    // of which blob uploads
	Requests int
	Bytes    int64 // request and reply bodies
	Wall     time.Duration
	Exact    bool   // the branch holds what was sent, byte for byte
	Err      string // the commit's error, or ""
}

// runScale measures the cost rows of the limits section.
func runScale(ctx context.Context, cfg config, log io.Writer) []scaleResult {
	var out []scaleResult
	for _, n := range []int{5000, 20000} {
		out = append(out, measureScale(ctx, cfg, fmt.Sprintf("sync of %s text files of 2 KiB (%s MB) into an existing directory", num(n), fmt.Sprint(n*2048/1_000_000)),
			"100 files", seedFiles(100), func(_ *committer.Committer) (*committer.ChangeSet, func(*githubtest.Server) bool) {
				files := scaleFiles(n, 2048)
				check := func(srv *githubtest.Server) bool {
					got, err := srv.Files(owner, repoName, branch)
					if err != nil {
						return false
					}
					for _, f := range files {
						if !bytes.Equal(got["mirror/"+f.Path].Content, f.Data) {
							return false
						}
					}
					return true
				}
				return committer.NewChangeSet("bench: mirror").Sync("mirror", files), check
			}))
	}
	big := shapedSeed(20, 100, 100)
	out = append(out, measureScale(ctx, cfg, "commit of 3 files (2 modified, 1 added)", "200,000 files (20 × 100 directories of 100)", big,
		func(_ *committer.Committer) (*committer.ChangeSet, func(*githubtest.Server) bool) {
			cs := committer.NewChangeSet("bench: three files").Put("a03/b014/f001.txt", []byte("new\n")).
				Put("a19/b000/f002.txt", []byte("new\n")).Put("a07/b099/new.txt", []byte("added\n"))
			return cs, contentIs("a07/b099/new.txt", "added\n")
		}))
	for _, width := range []int{10, 20000} {
		var files []seedFile
		for i := range width {
			files = append(files, seedFile{Path: fmt.Sprintf("dir/w/f%05d.txt", i), Content: []byte("x\n")})
		}
		out = append(out, measureScale(ctx, cfg, "a put and an edit in dir/w/", fmt.Sprintf("dir/w/ of %s files", num(width)), files,
			func(_ *committer.Committer) (*committer.ChangeSet, func(*githubtest.Server) bool) {
				cs := committer.NewChangeSet("bench: wide").Put("dir/w/new.txt", []byte("new\n")).
					Edit("dir/w/f00003.txt", func(old []byte, _ bool) ([]byte, error) { return append(old, 'y'), nil })
				return cs, contentIs("dir/w/f00003.txt", "x\ny")
			}))
	}
	for _, r := range out {
		fmt.Fprintf(log, "scale: %s in %s: %d writes (%d trees, %d blobs), %d requests, %d bytes, %s, exact %v %s\n",
			r.Name, r.Repo, r.Writes, r.Trees, r.Blobs, r.Requests, r.Bytes, r.Wall.Round(time.Millisecond), r.Exact, r.Err)
	}
	return out
}

func contentIs(path, want string) func(*githubtest.Server) bool {
	return func(srv *githubtest.Server) bool {
		got, _, err := srv.ReadFile(owner, repoName, branch, path)
		return err == nil && string(got) == want
	}
}

// scaleFiles is n text files of size bytes each in 50 directories.
func scaleFiles(n, size int) []committer.LocalFile {
	files := make([]committer.LocalFile, n)
	for i := range files {
		line := fmt.Sprintf("file %06d ", i)
		data := bytes.Repeat([]byte(line), size/len(line)+1)[:size]
		data[size-1] = '\n'
		files[i] = committer.LocalFile{Path: fmt.Sprintf("d%02d/f%06d.txt", i%50, i), Mode: committer.ModeFile, Data: data, Size: int64(size)}
	}
	return files
}

// shapedSeed is a directories of b directories of f files each.
func shapedSeed(a, b, f int) []seedFile {
	out := make([]seedFile, 0, a*b*f)
	for i := range a {
		for j := range b {
			for k := range f {
				out = append(out, seedFile{Path: fmt.Sprintf("a%02d/b%03d/f%03d.txt", i, j, k), Content: []byte(fmt.Sprintf("file %d %d %d\n", i, j, k))})
			}
		}
	}
	return out
}

func measureScale(ctx context.Context, cfg config, name, repo string, seed []seedFile,
	change func(*committer.Committer) (*committer.ChangeSet, func(*githubtest.Server) bool)) scaleResult {
	res := scaleResult{Name: name, Repo: repo}
	srv := githubtest.New(githubtest.WithLatency(cfg.latency), githubtest.WithToken(fakeToken), githubtest.WithLimits(cfg.limits.fakeLimits()))
	files := make([]githubtest.File, len(seed))
	for i, f := range seed {
		files[i] = githubtest.File{Path: f.Path, Content: f.Content}
	}
	if _, err := srv.Seed(owner, repoName, branch, "Seed the repository", files...); err != nil {
		res.Err = err.Error()
		return res
	}
	// A repository seeded long before the commit: not a busy branch, whose
	// first attempt would look at it before each write.
	srv.Pass(time.Hour)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	url := ts.URL + "/"
	hc, err := ghclient.NewHTTPClient(ctx, ghclient.WithBaseURL(url), ghclient.WithToken(fakeToken), scaled(cfg.limits.scale))
	if err != nil {
		res.Err = err.Error()
		return res
	}
	c, err := committer.New(owner, repoName, committer.WithHTTPClient(hc))
	if err != nil {
		res.Err = err.Error()
		return res
	}
	cs, check := change(c)
	srv.ResetRequests()
	start := time.Now()
	_, err = c.Commit(ctx, branch, cs)
	res.Wall = time.Since(start)
	if err != nil {
		res.Err = err.Error()
	}
	res.Writes, res.Trees, res.Blobs = srv.CountWrites(), srv.Count("POST /repos/{owner}/{repo}/git/trees"), srv.Count("POST /repos/{owner}/{repo}/git/blobs")
	log := srv.Requests()
	res.Requests = len(log)
	for _, r := range log {
		res.Bytes += r.RequestBytes + r.ResponseBytes
	}
	res.Exact = err == nil && check(srv)
	return res
}

// renderScale writes the cost rows.
func renderScale(b *strings.Builder, lr *limitsReport) {
	if len(lr.Scale) == 0 {
		return
	}
	fmt.Fprintf(b, "### Cost at github.com's scale (issue #23)\n\n")
	fmt.Fprintf(b, "One `Committer.Commit` in one process against the same fake and limits (the library's default pacing, scaled), nothing else running. **writes** are content-creating requests (the fake's log: REST writes and GraphQL mutations, not the GraphQL path lookup, which is a read); **requests** and **bytes** count every request and both bodies. **exact** checks the branch afterwards: every file sent is there byte for byte. These counts are what the same commit sends to github.com (wall times are not: latency did not scale).\n\n")
	fmt.Fprintf(b, "| change | repository | writes | create-tree | blobs | requests | bytes | wall | exact |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range lr.Scale {
		exact := "yes"
		if !r.Exact {
			exact = "**no**"
			if r.Err != "" {
				exact += ": " + r.Err
			}
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %s | %s | %s |\n", r.Name, r.Repo, r.Writes, r.Trees, r.Blobs, r.Requests, num(int(r.Bytes)), secs(r.Wall), exact)
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "| goal (issue #23) | measured | verdict |\n|---|---|---|\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**NOT met**"
	}
	rs := lr.Scale
	if len(rs) == 5 {
		fmt.Fprintf(b, "| the 5,000-file 10 MB sync lands with at most 40 writes, byte for byte | %d writes, exact: %v | %s |\n", rs[0].Writes, rs[0].Exact, verdict(rs[0].Writes <= 40 && rs[0].Exact))
		fmt.Fprintf(b, "| 20,000 files of 2 KiB with at most 150 writes, byte for byte | %d writes, exact: %v | %s |\n", rs[1].Writes, rs[1].Exact, verdict(rs[1].Writes <= 150 && rs[1].Exact))
		fmt.Fprintf(b, "| the 3-file commit in the 200,000-file repository: at most 5 requests, under 32 KiB | %d requests, %s bytes | %s |\n", rs[2].Requests, num(int(rs[2].Bytes)), verdict(rs[2].Requests <= 5 && rs[2].Bytes < 32<<10 && rs[2].Exact))
		fmt.Fprintf(b, "| a put and an edit under 20,000 entries cost no more than under 10 | %d vs %d requests, %s vs %s bytes | %s |\n", rs[4].Requests, rs[3].Requests, num(int(rs[4].Bytes)), num(int(rs[3].Bytes)), verdict(rs[4].Requests <= rs[3].Requests && rs[4].Bytes <= rs[3].Bytes+64 && rs[4].Exact))
		fmt.Fprintln(b)
	}
}
