package committer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// Scale: cost per commit is independent of the repository's size, big files
// are streamed and uploaded once, and a sync uploads only what differs.
//
//	go test -run '^$' -bench 'Commit200k|Binary50MB' -benchmem -benchtime 1x ./committer/

// bigRepo seeds acme/mono with n files in one Seed call (40 top directories,
// 100 subdirectories each) and returns the seeding time.
func bigRepo(tb testing.TB, ts *githubtest.TestServer, n int) time.Duration {
	tb.Helper()
	files := make([]githubtest.File, n)
	for i := range files {
		files[i] = githubtest.File{Path: bigPath(i), Content: []byte(fmt.Sprintf("file %d\n", i))}
	}
	start := time.Now()
	if _, err := ts.Seed(owner, repo, "main", "big", files...); err != nil {
		tb.Fatal(err)
	}
	ts.Pass(time.Minute) // seeded a minute ago (see seed)
	return time.Since(start)
}

func bigPath(i int) string { return fmt.Sprintf("a%02d/b%03d/f%06d.txt", i%40, (i/40)%100, i) }

// wire sums the bytes sent and received by the requests logged since mark.
func wire(ts *githubtest.TestServer, mark int) (requests int, bytes int64) {
	log := ts.Requests()[mark:]
	for _, r := range log {
		bytes += r.RequestBytes + r.ResponseBytes
	}
	return len(log), bytes
}

// commit3 commits a change set that rewrites 3 files of the big repository.
func commit3(tb testing.TB, c *committer.Committer, n, round int) *committer.Result {
	tb.Helper()
	cs := committer.NewChangeSet(fmt.Sprintf("touch 3 files, round %d", round))
	for j := range 3 {
		cs.Put(bigPath((round*7919+j*104729)%n), []byte(fmt.Sprintf("round %d file %d\n", round, j)))
	}
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func TestCommitIn200kRepo(t *testing.T) {
	const n = 200_000
	if testing.Short() {
		// Estimate the seeding time from a tenth of the files.
		probe := githubtest.NewServer(t)
		if est := 10 * bigRepo(t, probe, n/10); est > 10*time.Second {
			t.Skipf("seeding %d files would take about %v (> 10 s); run without -short", n, est.Round(time.Second))
		}
	}
	ts, c := setup(t)
	took := bigRepo(t, ts, n)
	t.Logf("seeded %d files in %v", n, took)
	mark := len(ts.Requests())
	res := commit3(t, c, n, 1)
	reqs, b := wire(ts, mark)
	t.Logf("commit touching 3 of %d files: %d requests, %d bytes on the wire", n, reqs, b)
	// 3 writes, the branch, and one GraphQL query that says what is at the
	// three paths and the directories above them (a put goes neither
	// through a file nor onto a directory): no directory is read, so the
	// bytes depend on neither the repository's size nor its directories'
	// widths. The same query gives the repository's node ID, which
	// updateRefs names the repository by: no GET /repos.
	if reqs > 5 {
		t.Errorf("%d requests, want at most 5", reqs)
	}
	if b >= 32<<10 {
		t.Errorf("%d bytes on the wire, want under 32 KiB", b)
	}
	// The same files again: the Committer knows the directories it wrote.
	mark = len(ts.Requests())
	again := committer.NewChangeSet("again")
	for _, p := range res.Changed {
		again.Put(p, []byte("again\n"))
	}
	if _, err := c.Commit(context.Background(), "main", again); err != nil {
		t.Fatal(err)
	}
	reqs, b = wire(ts, mark)
	t.Logf("the same 3 files again: %d requests, %d bytes on the wire", reqs, b)
	if reqs > 4 || b >= 16<<10 {
		t.Errorf("again: %d requests and %d bytes, want at most 4 and under 16 KiB", reqs, b)
	}
	if len(res.Changed) != 3 {
		t.Errorf("changed %v, want 3 paths", res.Changed)
	}
	files, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != n+1 { // + README.md
		t.Errorf("%d files after the commit, want %d", len(files), n+1)
	}
}

func BenchmarkCommit200kFiles(b *testing.B) {
	for _, n := range []int{2_000, 200_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ts := githubtest.NewServer(b)
			if err := ts.CreateRepo(owner, repo, true); err != nil {
				b.Fatal(err)
			}
			c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
			if err != nil {
				b.Fatal(err)
			}
			took := bigRepo(b, ts, n)
			commit3(b, c, n, 0) // warm the client's connections
			runtime.GC()
			mark := len(ts.Requests())
			b.ResetTimer()
			for i := range b.N {
				commit3(b, c, n, i+1)
			}
			b.StopTimer()
			reqs, bytes := wire(ts, mark)
			b.ReportMetric(float64(reqs)/float64(b.N), "requests/op")
			b.ReportMetric(float64(bytes)/float64(b.N), "wire-B/op")
			b.ReportMetric(took.Seconds(), "seed-s")
		})
	}
}

// bigFile writes size bytes of binary content (not valid UTF-8) to a file.
func bigFile(tb testing.TB, size int) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "big.bin")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	block := make([]byte, 1<<20)
	for off := 0; off < size; off += len(block) {
		sum := sha256.Sum256([]byte(fmt.Sprint(off)))
		for i := range block {
			block[i] = sum[i%len(sum)] ^ byte(i)
		}
		block[0] = 0xff
		if _, err := f.Write(block[:min(len(block), size-off)]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// moveTwice makes another writer win the next two ref updates.
func moveTwice(ts *githubtest.TestServer, round int) {
	k := 0
	ts.Inject(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 2, Before: func(*http.Request) {
		k++
		_, _ = ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: fmt.Sprintf("other/%d-%d", round, k), Content: []byte("x")})
	}})
}

// commitBig commits the local file at p with the branch moved twice first,
// and checks that it landed on the third attempt with one blob upload.
func commitBig(tb testing.TB, ts *githubtest.TestServer, c *committer.Committer, p string, size, round int) {
	tb.Helper()
	moveTwice(ts, round)
	mark := ts.Count(rtBlobs)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet(fmt.Sprintf("big %d", round)).PutLocalFile("assets/big.bin", p, committer.ModeFile))
	if err != nil {
		tb.Fatal(err)
	}
	if res.Attempts != 3 {
		tb.Errorf("attempts = %d, want 3 (the branch moved twice)", res.Attempts)
	}
	if n := ts.Count(rtBlobs) - mark; n != 1 {
		tb.Errorf("POST git/blobs sent %d times over %d attempts, want 1", n, res.Attempts)
	}
	_ = size
}

func TestBinary5MBUploadedOnce(t *testing.T) {
	const size = 5 << 20
	ts, c := setup(t)
	p := bigFile(t, size)
	commitBig(t, ts, c, p, size, 0)
	got, _, err := ts.ReadFile(owner, repo, "main", "assets/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("assets/big.bin differs from the local file (%d vs %d bytes)", len(got), len(want))
	}
	for _, name := range []string{"other/0-1", "other/0-2"} {
		if _, _, err := ts.ReadFile(owner, repo, "main", name); err != nil {
			t.Errorf("the other writer's %s is lost: %v", name, err)
		}
	}
}

func BenchmarkBinary50MB(b *testing.B) {
	const size = 50 << 20
	p := bigFile(b, size)
	b.Run("committer", func(b *testing.B) { benchBinaryCommit(b, p, size) })
	b.Run("fake-only", func(b *testing.B) { benchBinaryFakeOnly(b, p, size) })
}

// benchBinaryFakeOnly measures what the in-process fake alone allocates to
// store the same blob: the body is streamed from the file through a pipe,
// so the client side of this request allocates next to nothing. Subtract
// it from the committer's B/op to estimate the library's own.
func benchBinaryFakeOnly(b *testing.B, p string, size int) {
	ts := githubtest.NewServer(b)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		pr, pw := io.Pipe()
		go func() {
			f, err := os.Open(p)
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			defer f.Close()
			_, _ = io.WriteString(pw, `{"encoding":"base64","content":"`)
			enc := base64.NewEncoder(base64.StdEncoding, pw)
			_, _ = enc.Write([]byte{byte(i)}) // different content each round
			_, err = io.CopyN(enc, f, int64(size)-1)
			_ = enc.Close()
			_, _ = io.WriteString(pw, `"}`)
			pw.CloseWithError(err)
		}()
		resp, err := http.Post(ts.URL+"repos/acme/mono/git/blobs", "application/json", pr)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

func benchBinaryCommit(b *testing.B, p string, size int) {
	ts := githubtest.NewServer(b)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		b.Fatal(err)
	}
	c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
	if err != nil {
		b.Fatal(err)
	}
	// Each round writes different content (its first byte), so it uploads.
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	peak := uint64(0)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		if _, err := f.WriteAt([]byte{byte(i), 0xff}, 1); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		commitBig(b, ts, c, p, size, i)
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(size), "file-B")
	// The fake keeps every blob in memory (and decodes the base64 body):
	// the heap that survives a GC is mostly its copy of the file.
	b.ReportMetric(float64(after.HeapInuse)-float64(before.HeapInuse), "retained-heap-B")
	b.ReportMetric(float64(peak), "peak-heap-inuse-B")
}

func TestSync10k(t *testing.T) {
	const n = 10_000
	ts, c := setup(t)
	dir := t.TempDir()
	content := func(i, version int) []byte {
		return []byte(fmt.Sprintf("\xff\xfebinary %d v%d\n", i, version)) // not UTF-8: blobs
	}
	var seedFiles []githubtest.File
	for i := range n {
		rel := fmt.Sprintf("d%02d/f%05d.bin", i%50, i)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), content(i, 1), 0o644); err != nil {
			t.Fatal(err)
		}
		seedFiles = append(seedFiles, githubtest.File{Path: "site/" + rel, Content: content(i, 1)})
	}
	if _, err := ts.Seed(owner, repo, "main", "site v1", seedFiles...); err != nil {
		t.Fatal(err)
	}
	changed := []int{7, n / 2, n - 1}
	for _, i := range changed {
		rel := fmt.Sprintf("d%02d/f%05d.bin", i%50, i)
		if err := os.WriteFile(filepath.Join(dir, rel), content(i, 2), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := committer.LoadDir(dir, committer.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mark := len(ts.Requests())
	blobs := ts.Count(rtBlobs)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("site", files))
	if err != nil {
		t.Fatal(err)
	}
	reqs, b := wire(ts, mark)
	t.Logf("sync of %d files with 3 changed: %d requests, %d bytes on the wire, changed %v", n, reqs, b, res.Changed)
	if got := ts.Count(rtBlobs) - blobs; got != 3 {
		t.Errorf("POST git/blobs sent %d times, want 3 (only the changed files)", got)
	}
	if len(res.Changed) != 3 {
		t.Errorf("changed %v, want the 3 changed files", res.Changed)
	}
	for _, i := range changed {
		p := fmt.Sprintf("site/d%02d/f%05d.bin", i%50, i)
		if got := readFile(t, ts, "main", p); got != string(content(i, 2)) {
			t.Errorf("%s = %q after the sync", p, got)
		}
	}
	all, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != n+1 {
		t.Errorf("%d files after the sync, want %d", len(all), n+1)
	}
}
