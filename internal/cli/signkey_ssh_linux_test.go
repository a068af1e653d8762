//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/sshtest"
)

// TestActionStepHidesSSHKey runs action.yml's Commit step with the real
// binary and a passphrase-protected OpenSSH key in its sign-key input (the
// input the OpenPGP key takes), and an edit: command that reads /proc of
// ghcommitter, of its parent and of itself and lists $RUNNER_TEMP: the key
// and its passphrase are hidden as an OpenPGP key's are (the key file gone
// while edit commands run and after), and the commit is Verified on a
// branch that requires signatures.
func TestActionStepHidesSSHKey(t *testing.T) {
	needTools(t, "bash")
	bin := buildSharedCLI(t)
	steps := actionSteps(t)
	const passphrase = "s3cret-passphrase"
	priv, pub := sshtest.Keygen(t, "ed25519", "", passphrase)
	keyLines := strings.Split(strings.TrimSpace(string(priv)), "\n")
	srv := hiddenFake(t)
	requireSSHSigned(t, srv, pub)
	dir := t.TempDir()
	temp, dump, output := filepath.Join(dir, "runner-temp"), filepath.Join(dir, "dump"), filepath.Join(dir, "output")
	for _, d := range []string{temp, dump} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secrets := map[string]string{
		"GH_TOKEN": hiddenToken, "GHCOMMITTER_SIGN_PASSPHRASE": passphrase,
		"INPUT_SIGN_KEY": keyLines[1], "INPUT_SIGN_KEY (last line)": keyLines[len(keyLines)-2],
		actions.InputsEnv: hiddenToken,
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "GHCOMMITTER=" + bin, "RUNNER_TEMP=" + temp,
		"GITHUB_OUTPUT=" + output, "GITHUB_API_URL=" + srv.URL, "KEEP_ME=kept",
		actions.InputsEnv + "=" + actionJSON(t, "runner", map[string]string{
			"repo": "acme/mono", "branch": "main", "message": "m",
			"edit": "leak.txt=" + procDumpEdit(dump), "author": "Jane Doe <" + janeEmail + ">",
			"sign-key": string(priv), "token": hiddenToken, "sign-key-passphrase": passphrase,
		}),
		"GH_TOKEN=" + hiddenToken, "GHCOMMITTER_SIGN_PASSPHRASE=" + passphrase,
	}
	var inputs []string
	for k := range steps["commit"].Env {
		inputs = append(inputs, k+"=")
	}
	cmd := runnerBash(t, steps["commit"].Run)
	cmd.Env, cmd.Dir = append(inputs, env...), dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("commit step: %v\n%s", err, out)
	}
	checkProcDump(t, dump, secrets, "KEEP_ME=kept", os.Geteuid() == 0)
	ls, err := os.ReadFile(filepath.Join(dump, "temp.ls"))
	if err != nil || strings.Contains(string(ls), "ghcommitter-key.") || !strings.Contains(string(ls), "..") {
		t.Errorf("the key file was there while the edit command ran (or $RUNNER_TEMP was not listed: %v):\n%s", err, ls)
	}
	if left, _ := filepath.Glob(filepath.Join(temp, "ghcommitter-key.*")); len(left) != 0 {
		t.Errorf("the key file is still there after ghcommitter ended: %v", left)
	}
	gc, _, err := srv.Client.Git.GetCommit(t.Context(), "acme", "mono", head(t, srv, "main"))
	if err != nil {
		t.Fatal(err)
	}
	if v := gc.GetVerification(); !v.GetVerified() || !strings.HasPrefix(v.GetSignature(), "-----BEGIN SSH SIGNATURE-----") {
		t.Errorf("verification %+v, want an SSH signature, verified", v)
	}
}
