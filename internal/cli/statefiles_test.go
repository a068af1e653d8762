package cli

import (
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// nonLoopbackIP is an address of this machine that is not a loopback one,
// or "" when it has none.
func nonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

// TestCommandKeepsStateInFiles: the command, unlike the library, takes
// turns and shares the token's rate-limit state through files in the user
// cache directory by default (for an API not on a loopback address).
func TestCommandKeepsStateInFiles(t *testing.T) {
	ip := nonLoopbackIP()
	if ip == "" {
		t.Skip("no address other than loopback")
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skip(err)
	}
	fake := githubtest.New(githubtest.WithToken(testToken))
	if _, err := fake.Seed("acme", "mono", "main", "Initial commit", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(fake)
	_ = srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	newCLI(t).run("commit", "--api-url", srv.URL+"/", "-R", "acme/mono", "-b", "main", "-m", "m", "--add", "a.txt=-").wantCode(t, 0)
	for _, d := range []string{"turns", "limits"} {
		names, err := os.ReadDir(filepath.Join(cache, "ghcommitter", d))
		if err != nil || len(names) == 0 {
			t.Errorf("ghcommitter/%s in the user cache directory: %v, %v: want the command's files", d, names, err)
		}
	}
}
