package layout

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryLinksNoSigner checks why committer/openpgp and
// committer/sshsign are packages of their own: a program that uses the
// library (and its HTTP client) but does not sign links no OpenPGP and no
// SSH implementation.
func TestLibraryLinksNoSigner(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	pkgs := []string{committerPkg, ghclientPkg}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "openpgp") || strings.HasPrefix(p, "github.com/ProtonMail/") ||
			strings.Contains(p, "sshsig") || strings.HasPrefix(p, "golang.org/x/crypto/ssh") {
			t.Errorf("the library links %s", p)
		}
	}
	if !strings.Contains(string(out), "net/http") {
		t.Fatalf("go list printed no dependencies:\n%s", out)
	}
}
