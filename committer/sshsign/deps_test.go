package sshsign_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryDoesNotLinkSSH checks why this package exists: a program that
// uses the library (and its HTTP client) but does not sign links no SSH
// implementation.
func TestLibraryDoesNotLinkSSH(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	pkgs := []string{"github.com/ghcommitter/ghcommitter/committer", "github.com/ghcommitter/ghcommitter/committer/ghclient"}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "sshsig") || strings.HasPrefix(p, "golang.org/x/crypto/ssh") {
			t.Errorf("the library links %s", p)
		}
	}
	if !strings.Contains(string(out), "net/http") {
		t.Fatalf("go list printed no dependencies:\n%s", out)
	}
}
