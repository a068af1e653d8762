package committer_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const (
	lfsToken     = "ghp_lfsSecretToken123"
	lfsBatch     = "POST /{owner}/{repogit}/info/lfs/objects/batch"
	lfsPattern   = "*.bin filter=lfs diff=lfs merge=lfs -text\n"
	threeMB      = 3 << 20
	lfsSpecStart = "version https://git-lfs.github.com/spec/v1\n"
)

// setupLFS is setup with a fake that requires lfsToken, and acme/mono
// seeded with files (a .gitattributes among them, as the test wants).
func setupLFS(t *testing.T, files map[string]string, opts ...committer.Option) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	ts := githubtest.NewServer(t, githubtest.WithToken(lfsToken))
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	if len(files) > 0 {
		seed(t, ts, files)
	}
	ts.Pass(time.Minute)
	c, err := newWith(ts.Client, owner, repo, append([]committer.Option{committer.WithBackoffSleep(noSleep)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return ts, c
}

// randomBytes is n pseudo-random bytes (not text: they go as a blob).
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// specPointer is the pointer of data, written out by the spec's rules
// (docs/spec.md: version, then oid and size, sorted, each line ending in
// "\n"), independently of internal/lfs.
func specPointer(data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf("%soid sha256:%s\nsize %d\n", lfsSpecStart, hex.EncodeToString(sum[:]), len(data))
}

// storagePuts counts the uploads LFS storage received, and fails t if any
// storage request carried the API token.
func storagePuts(t *testing.T, ts *githubtest.TestServer) int {
	t.Helper()
	n := 0
	for _, r := range ts.LFSStorageLog() {
		if strings.Contains(r.Authorization, lfsToken) || !strings.HasPrefix(r.Authorization, "RemoteAuth ") {
			t.Errorf("storage request %s %s carried Authorization %q: want only the batch reply's header", r.Method, r.Path, r.Authorization)
		}
		if r.Host == "" || strings.HasPrefix(r.Host, "127.0.0.1") {
			t.Errorf("storage request %s %s went to host %q: want storage's own host", r.Method, r.Path, r.Host)
		}
		if r.Method == "PUT" {
			n++
		}
	}
	return n
}

func TestLFSPutLandsAsPointer(t *testing.T) {
	ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
	data := randomBytes(1, threeMB)
	ctx := context.Background()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("add model").Put("models/m.bin", data)); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, ts, "main", "models/m.bin")
	if want := specPointer(data); got != want {
		t.Fatalf("tree holds %d bytes %q, want the pointer %q", len(got), got[:min(len(got), 200)], want)
	}
	sum := sha256.Sum256(data)
	stored, ok := ts.LFSObject(owner, repo, hex.EncodeToString(sum[:]))
	if !ok || !bytes.Equal(stored, data) {
		t.Fatalf("LFS store holds %d bytes (ok=%v), want the %d bytes put", len(stored), ok, len(data))
	}
	if n := storagePuts(t, ts); n != 1 {
		t.Fatalf("storage received %d uploads, want 1", n)
	}
	// The same content again, at another path and at the same one with a
	// new head: nothing is uploaded.
	before := ts.Count(lfsBatch)
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("copy").Put("models/copy.bin", data)); err != nil {
		t.Fatal(err)
	}
	res, err := c.Commit(ctx, "main", committer.NewChangeSet("again").Put("models/m.bin", data))
	if err != nil {
		t.Fatal(err)
	}
	if n := storagePuts(t, ts); n != 1 {
		t.Fatalf("storage received %d uploads after committing the same content twice more, want 1", n)
	}
	if res.Commit != "" && len(res.Changed) != 0 {
		t.Fatalf("re-putting the same content changed %v", res.Changed)
	}
	if got := ts.Count(lfsBatch) - before; got != 0 {
		t.Fatalf("the same content committed again cost %d batch requests, want none (the Committer knows it stored it)", got)
	}
	// Another process (a new Committer): the batch API answers that the
	// object is stored, and nothing is uploaded.
	c2, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Commit(ctx, "main", committer.NewChangeSet("third copy").Put("models/third.bin", data)); err != nil {
		t.Fatal(err)
	}
	if n := storagePuts(t, ts); n != 1 || ts.Count(lfsBatch)-before != 1 {
		t.Fatalf("a new Committer's commit of stored content: %d uploads in all, %d batch requests; want 1 (the first) and 1", n, ts.Count(lfsBatch)-before)
	}
	if got := readFile(t, ts, "main", "models/copy.bin"); got != specPointer(data) {
		t.Fatalf("copy.bin = %q, want the pointer", got)
	}
}

func TestLFSRequestCountDoesNotGrow(t *testing.T) {
	small := []byte("plain text, not routed through LFS\n")
	count := func(files map[string]string, opts ...committer.Option) int {
		ts, c := setupLFS(t, files, opts...)
		before := len(ts.Requests())
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("small").Put("deploy/app.yaml", small)); err != nil {
			t.Fatal(err)
		}
		return len(ts.Requests()) - before
	}
	without := count(map[string]string{"README": "x"})
	with := count(map[string]string{"README": "x", ".gitattributes": lfsPattern, "deploy/.gitattributes": "*.tgz filter=lfs\n"})
	noLFS := count(map[string]string{"README": "x", ".gitattributes": lfsPattern}, committer.WithUploads(committer.Uploads{NoLFS: true}))
	t.Logf("requests of one commit: no .gitattributes %d, LFS patterns %d, NoLFS %d", without, with, noLFS)
	if with != without || noLFS != without {
		t.Fatalf("an uncontended commit cost %d requests with LFS patterns on the branch (%d with NoLFS), %d without: want the same", with, noLFS, without)
	}
	// An LFS put costs the batch request and storage's, nothing else more.
	ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
	before := len(ts.Requests())
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("lfs").Put("deploy/app.bin", small)); err != nil {
		t.Fatal(err)
	}
	if got := len(ts.Requests()) - before; got != without+1 {
		t.Fatalf("an LFS put cost %d API requests, want %d (a commit's, and one batch request)", got, without+1)
	}
}

func TestLFSNoLFSCommitsBytes(t *testing.T) {
	ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern}, committer.WithUploads(committer.Uploads{NoLFS: true}))
	data := randomBytes(2, 4096)
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("raw").Put("m.bin", data)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, ts, "main", "m.bin"); got != string(data) {
		t.Fatalf("NoLFS committed %d bytes, want the %d bytes as they are", len(got), len(data))
	}
	if ts.Count(lfsBatch) != 0 || len(ts.LFSStorageLog()) != 0 {
		t.Fatal("NoLFS talked to LFS")
	}
}

func TestLFSPointerCommittedAsItIs(t *testing.T) {
	ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
	ptr := specPointer([]byte("content this checkout never fetched"))
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("ptr").Put("p.bin", []byte(ptr))); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, ts, "main", "p.bin"); got != ptr {
		t.Fatalf("p.bin = %q, want the pointer as it was put", got)
	}
	if ts.Count(lfsBatch) != 0 {
		t.Fatal("a pointer put asked the batch API")
	}
}

func TestLFSNestedAttributesAndOverrides(t *testing.T) {
	ts, c := setupLFS(t, map[string]string{
		".gitattributes":        lfsPattern + "*.dat filter=lfs\n",
		"keep/.gitattributes":   "*.bin -filter\nraw.dat !filter\n",
		"deep/a/.gitattributes": "*.txt filter=lfs\n",
	})
	data := []byte("some bytes\n")
	cs := committer.NewChangeSet("mixed").
		Put("x.bin", data).Put("keep/x.bin", data).Put("keep/raw.dat", data).Put("keep/y.dat", data).
		Put("deep/a/b/t.txt", data).Put("deep/t.txt", data)
	if _, err := c.Commit(context.Background(), "main", cs); err != nil {
		t.Fatal(err)
	}
	for p, lfs := range map[string]bool{"x.bin": true, "keep/x.bin": false, "keep/raw.dat": false, "keep/y.dat": true, "deep/a/b/t.txt": true, "deep/t.txt": false} {
		got := readFile(t, ts, "main", p)
		if want := map[bool]string{true: specPointer(data), false: string(data)}[lfs]; got != want {
			t.Errorf("%s = %q, want LFS=%v", p, got, lfs)
		}
	}
}

func TestLFSEditReadsObject(t *testing.T) {
	ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
	ctx := context.Background()
	v1 := randomBytes(3, 200<<10)
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("v1").Put("e.bin", v1)); err != nil {
		t.Fatal(err)
	}
	var seen []byte
	_, err := c.Commit(ctx, "main", committer.NewChangeSet("edit").Edit("e.bin", func(old []byte, _ bool) ([]byte, error) {
		seen = old
		return append(bytes.Clone(old), "tail"...), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(seen, v1) {
		t.Fatalf("the edit saw %d bytes, want the %d bytes of the object", len(seen), len(v1))
	}
	v2 := append(bytes.Clone(v1), "tail"...)
	if got := readFile(t, ts, "main", "e.bin"); got != specPointer(v2) {
		t.Fatalf("edited e.bin = %q, want the pointer of the edit's output", got)
	}
	storagePuts(t, ts)
}

// zeros streams n bytes of a repeating pattern without holding them.
type zeros struct{ n, i int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.i >= z.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n-z.i)
	for j := range p[:k] {
		p[j] = byte((z.i + int64(j)) % 251)
	}
	z.i += k
	return int(k), nil
}
func (z *zeros) Close() error { return nil }

func TestLFSOver100MB(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 150 MB")
	}
	ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
	const size = 150 << 20
	open := func() (io.ReadCloser, error) { return &zeros{n: size}, nil }
	ctx := context.Background()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("big").PutReader("big.bin", committer.ModeFile, size, open)); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	_, _ = io.Copy(h, &zeros{n: size})
	oid := hex.EncodeToString(h.Sum(nil))
	want := fmt.Sprintf("%soid sha256:%s\nsize %d\n", lfsSpecStart, oid, size)
	if got := readFile(t, ts, "main", "big.bin"); got != want {
		t.Fatalf("big.bin = %q, want %q", got, want)
	}
	if b, ok := ts.LFSObject(owner, repo, oid); !ok || len(b) != size {
		t.Fatalf("LFS store holds %d bytes of the object (ok=%v)", len(b), ok)
	}
	storagePuts(t, ts)
	// Not routed through LFS: the 100 MB limit holds, before any write.
	w := writes(ts)
	headBefore := head(t, ts, "main")
	_, err := c.Commit(ctx, "main", committer.NewChangeSet("big raw").PutReader("big.raw", committer.ModeFile, size, open))
	if !errors.Is(err, committer.ErrInvalid) || !strings.Contains(err.Error(), "100 MB") {
		t.Fatalf("a 150 MB put outside LFS: %v, want ErrInvalid naming the 100 MB limit", err)
	}
	if writes(ts) != w || head(t, ts, "main") != headBefore {
		t.Fatal("the refused put wrote")
	}
}

func TestLFSRefusalChangesNothing(t *testing.T) {
	ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
	ts.SetLFSMaxSize(1 << 20)
	before, w := head(t, ts, "main"), writes(ts)
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("too big").Put("a.txt", []byte("a\n")).Put("m.bin", randomBytes(4, 2<<20)))
	if err == nil || !strings.Contains(err.Error(), "Size must be less than or equal to") {
		t.Fatalf("an object over the LFS limit: %v, want the batch API's refusal", err)
	}
	if head(t, ts, "main") != before || writes(ts)-w != ts.Count(lfsBatch) {
		t.Fatalf("the refused commit wrote %d requests besides the batch request, or moved the branch", writes(ts)-w-ts.Count(lfsBatch))
	}
	if n := storagePuts(t, ts); n != 0 {
		t.Fatalf("storage received %d uploads", n)
	}
}

func TestLFSOffRefusesOver100MBBeforeAnyRequest(t *testing.T) {
	ts, c := setupLFS(t, nil, committer.WithUploads(committer.Uploads{NoLFS: true}))
	ts.ResetRequests()
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").PutReader("big", committer.ModeFile, committer.MaxFileSize+1, func() (io.ReadCloser, error) {
		return nil, errors.New("must not be opened")
	}))
	if !errors.Is(err, committer.ErrInvalid) || !strings.Contains(err.Error(), "100 MB") {
		t.Fatalf("err = %v, want ErrInvalid naming the 100 MB limit", err)
	}
	if n := len(ts.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// Every engine stores the object before the pointer lands, and a pull
// request's commit too.
func TestLFSEveryEngine(t *testing.T) {
	for _, e := range []committer.Engine{committer.EngineGitData, committer.EngineGraphQL, committer.EngineContents, committer.EngineAuto} {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
			data := randomBytes(uint64(10+e), 5000)
			if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("e.bin", data), committer.WithEngine(e)); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, ts, "main", "e.bin"); got != specPointer(data) {
				t.Fatalf("e.bin = %q, want the pointer", got)
			}
			sum := sha256.Sum256(data)
			if _, ok := ts.LFSObject(owner, repo, hex.EncodeToString(sum[:])); !ok {
				t.Fatal("the pointer landed without its object in LFS storage")
			}
			storagePuts(t, ts)
		})
	}
}

// A batch of change sets (CommitAll: chained commits, and squashed)
// stores every object; one change set's .gitattributes routes its own
// puts.
func TestLFSBatch(t *testing.T) {
	for _, squash := range []bool{false, true} {
		ts, c := setupLFS(t, map[string]string{".gitattributes": lfsPattern})
		a, b := randomBytes(20, 3000), randomBytes(21, 3000)
		css := []*committer.ChangeSet{
			committer.NewChangeSet("a").Put("a.bin", a),
			committer.NewChangeSet("b").Put("sub/.gitattributes", []byte("*.dat filter=lfs\n")).Put("sub/b.dat", b),
		}
		if squash {
			q, err := committer.NewQueue(c, "main", committer.Squash())
			if err != nil {
				t.Fatal(err)
			}
			errs := make(chan error, len(css))
			for _, cs := range css {
				go func() { _, err := q.Commit(context.Background(), cs); errs <- err }()
			}
			for range css {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		} else if _, err := c.CommitAll(context.Background(), "main", css); err != nil {
			t.Fatal(err)
		}
		for p, data := range map[string][]byte{"a.bin": a, "sub/b.dat": b} {
			if got := readFile(t, ts, "main", p); got != specPointer(data) {
				t.Errorf("squash=%v: %s = %q, want the pointer", squash, p, got)
			}
			sum := sha256.Sum256(data)
			if _, ok := ts.LFSObject(owner, repo, hex.EncodeToString(sum[:])); !ok {
				t.Errorf("squash=%v: %s landed without its object", squash, p)
			}
		}
		storagePuts(t, ts)
	}
}
