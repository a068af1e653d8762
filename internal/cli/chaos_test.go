package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

var chaosSeedFlag = flag.Uint64("chaos.seed", 0, "seed of the chaos test (0: from the clock)")

const (
	chaosPatchRoute = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
	// chaosUpdateRefs is git-data's strict ref update, an updateRefs
	// mutation: POST /graphql with githubtest.MutationUpdateRefs in the body.
	chaosUpdateRefs = githubtest.RouteGraphQL + "#" + githubtest.MutationUpdateRefs
)

// chaosFault is f on route (a fake route, or chaosUpdateRefs).
func chaosFault(route string, f githubtest.Fault) githubtest.Fault {
	f.Route, f.BodyContains, _ = strings.Cut(route, "#")
	return f
}

func chaosRefRoute(route string) bool { return route == chaosPatchRoute || route == chaosUpdateRefs }

// cliChaosRoute maps a request on acme/mono to its fake route pattern.
func cliChaosRoute(r *http.Request) string {
	if r.Method == http.MethodPost && r.URL.Path == "/graphql" && r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(githubtest.MutationUpdateRefs)) {
			return chaosUpdateRefs
		}
		return ""
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/repos/acme/mono/")
	if !ok {
		return ""
	}
	switch m := r.Method; {
	case m == http.MethodGet && strings.HasPrefix(rest, "branches/"):
		return "GET /repos/{owner}/{repo}/branches/{branch...}"
	case m == http.MethodGet && strings.HasPrefix(rest, "git/ref/"):
		return "GET /repos/{owner}/{repo}/git/ref/{ref...}"
	case m == http.MethodGet && strings.HasPrefix(rest, "git/trees/"):
		return "GET /repos/{owner}/{repo}/git/trees/{sha...}"
	case m == http.MethodPost && rest == "git/blobs":
		return "POST /repos/{owner}/{repo}/git/blobs"
	case m == http.MethodPost && rest == "git/trees":
		return "POST /repos/{owner}/{repo}/git/trees"
	case m == http.MethodPost && rest == "git/commits":
		return "POST /repos/{owner}/{repo}/git/commits"
	case m == http.MethodPatch && strings.HasPrefix(rest, "git/refs/"):
		return chaosPatchRoute
	}
	return ""
}

// TestChaosCLI runs several "ghcommitter commit" processes at once against
// the fake served in-process behind random faults (5xx, lost replies after
// the write applied, secondary rate limits, another writer moving the branch
// before a ref update, latency), then checks: exit 0 landed exactly once;
// exit 1 or 3 did not land (unless the outcome was reported unknown); the
// counter counts the landed increments; nothing is lost; fast-forward only.
func TestChaosCLI(t *testing.T) {
	seed := *chaosSeedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("chaos seed %d (rerun: go test -run '^TestChaosCLI$' ./internal/cli/ -chaos.seed=%d)", seed, seed)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("chaos seed %d: "+format, append([]any{seed}, args...)...)
	}
	procs, parallel := 48, 8
	if testing.Short() {
		procs, parallel = 8, 4
	}

	bin := filepath.Join(t.TempDir(), "ghcommitter")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ghcommitter/ghcommitter/cmd/ghcommitter").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	var tick atomic.Int64
	start := time.Now()
	srv := githubtest.New(githubtest.WithNow(func() time.Time { return start.Add(time.Duration(tick.Add(1)) * time.Second) }))
	if err := srv.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	base, _ := srv.Head("acme", "mono", "main")
	var (
		mu  sync.Mutex
		rng = rand.New(rand.NewPCG(seed, 1))
		ext []string
	)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if route := cliChaosRoute(r); route != "" {
			mu.Lock()
			hit, k, status := rng.Float64() < 0.12, rng.IntN(100), 500+rng.IntN(4)
			mu.Unlock()
			switch {
			case !hit:
			case k < 30:
				srv.Inject(chaosFault(route, githubtest.Fault{Method: r.Method, Times: 1, Status: status}))
			case k < 55 && r.Method != http.MethodGet:
				srv.Inject(chaosFault(route, githubtest.Fault{Method: r.Method, Times: 1, DropResponse: true}))
			case k < 65 && !chaosRefRoute(route):
				srv.SecondaryRateLimit(route, 1, 1)
			case k < 85 && chaosRefRoute(route):
				srv.Inject(chaosFault(route, githubtest.Fault{Method: r.Method, Times: 1, Before: func(*http.Request) {
					mu.Lock()
					p := fmt.Sprintf("ext/%03d.txt", len(ext))
					ext = append(ext, p)
					mu.Unlock()
					_, _ = srv.Seed("acme", "mono", "main", "external "+p, githubtest.File{Path: p, Content: []byte(p)})
				}}))
			default:
				srv.Inject(chaosFault(route, githubtest.Fault{Method: r.Method, Times: 1, Latency: time.Millisecond}))
			}
		}
		srv.ServeHTTP(w, r)
	}))
	defer hs.Close()

	type proc struct {
		i       int
		tag     string
		counter bool
		args    []string
		code    int
		stderr  strings.Builder
	}
	work := t.TempDir()
	var all []*proc
	for i := range procs {
		p := &proc{i: i, tag: fmt.Sprintf("[cli %d]", i), counter: i%3 == 0}
		marker := filepath.Join(work, fmt.Sprintf("m%d.txt", i))
		if err := os.WriteFile(marker, []byte(p.tag+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p.args = []string{"commit", "--api-url", hs.URL + "/", "-R", "acme/mono", "-b", "main", "--max-attempts", "20",
			"-m", "chaos " + p.tag, "--add", fmt.Sprintf("markers/%03d=%s", i, marker)}
		if i%2 == 1 {
			binFile := filepath.Join(work, fmt.Sprintf("b%d.bin", i))
			if err := os.WriteFile(binFile, []byte("\xff\xfe\x00binary "+p.tag), 0o644); err != nil {
				t.Fatal(err)
			}
			p.args = append(p.args, "--add", fmt.Sprintf("bin/%03d.bin=%s", i, binFile))
		}
		if p.counter {
			p.args = append(p.args, "--edit", "counter.txt=read n; echo $((${n:-0}+1))")
		}
		all = append(all, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.CommandContext(ctx, bin, p.args...)
			cmd.Env = append(os.Environ(), "GH_TOKEN=chaos-token", "GITHUB_TOKEN=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=", commitcmd.LimitScaleEnv+"=100")
			cmd.Stderr = &p.stderr
			err := cmd.Run()
			var xe *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &xe):
				p.code = xe.ExitCode()
			default:
				p.code = -1
			}
		}()
	}
	wg.Wait()
	srv.ClearFaults()

	files, err := srv.Files("acme", "mono", "main")
	if err != nil {
		t.Fatal(err)
	}
	hist, err := srv.History("acme", "mono", "main")
	if err != nil {
		t.Fatal(err)
	}
	var msgs strings.Builder
	baseSeen := false
	for _, c := range hist {
		msgs.WriteString(c.Message + "\x00")
		baseSeen = baseSeen || c.SHA == base
	}
	if !baseSeen {
		fail("the initial commit is not in main's first-parent history")
	}
	landed, counter := 0, 0
	codes := map[int]int{}
	for _, p := range all {
		codes[p.code]++
		n := strings.Count(msgs.String(), p.tag)
		_, marker := files[fmt.Sprintf("markers/%03d", p.i)]
		ok := false
		switch p.code {
		case 0:
			ok = true
			if n != 1 || !marker {
				fail("%s exited 0 but is in %d commits of main (marker present=%v)\nstderr: %s", p.tag, n, marker, p.stderr.String())
			}
		case 1, 3:
			if strings.Contains(p.stderr.String(), "outcome unknown") {
				ok = marker
				if n > 1 {
					fail("%s: outcome unknown, and in %d commits", p.tag, n)
				}
			} else if n != 0 || marker {
				fail("%s exited %d but is in %d commits (marker present=%v)\nstderr: %s", p.tag, p.code, n, marker, p.stderr.String())
			}
		default:
			fail("%s: exit %d\nstderr: %s", p.tag, p.code, p.stderr.String())
		}
		if ok {
			landed++
			if p.counter {
				counter++
			}
			if p.i%2 == 1 {
				if _, ok := files[fmt.Sprintf("bin/%03d.bin", p.i)]; !ok {
					fail("%s landed without its binary file", p.tag)
				}
			}
		}
	}
	got := 0
	if f, ok := files["counter.txt"]; ok {
		got, _ = strconv.Atoi(strings.TrimSpace(string(f.Content)))
	}
	if got != counter {
		fail("counter.txt = %d, want %d landed increments", got, counter)
	}
	mu.Lock()
	for _, p := range ext {
		if _, ok := files[p]; !ok {
			fail("the external writer's %s is lost", p)
		}
	}
	nExt := len(ext)
	mu.Unlock()
	for _, u := range srv.RefUpdates("acme", "mono") {
		if u.Ref == "refs/heads/main" && u.Old != "" && (u.Forced || !u.FastForward) {
			fail("main moved %s -> %s without fast-forward (forced=%v)", u.Old, u.New, u.Forced)
		}
	}
	t.Logf("%d processes: exit codes %v; landed %d; counter %d; external moves %d; %d requests", procs, codes, landed, got, nExt, len(srv.Requests()))
	if landed == 0 {
		fail("no process landed")
	}
}
