//go:build linux

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
	"github.com/ghcommitter/ghcommitter/internal/cli/secure"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// hiddenToken is the only token the fakes of these tests accept: a commit
// that lands proves ghcommitter still had it after hiding it.
const hiddenToken = "ghs_hiddenTOKEN0123456789"

// procDumpEdit is an --edit command (one line, as the Action's edit: input
// takes it) that copies /proc/PID/environ and cmdline of itself, of its
// parent (ghcommitter) and of its grandparent into dir, and the listing of
// $RUNNER_TEMP (else dir), then prints "ok". An unreadable grandparent (owned
// by another user) leaves no grandparent.* file. When ghcommitter's environ
// cannot be read (it made itself non-dumpable, and the command is not root),
// it leaves parent.denied instead of parent.environ. Whether it could open
// ghcommitter's memory, where the credentials are once read, goes to
// parent.mem ("open" or "denied").
func procDumpEdit(dir string) string {
	return "d=" + commitcmd.ShellQuote(dir) + "; g=$(sed 's/.*) //' /proc/$PPID/stat | cut -d' ' -f2); " +
		"for w in self:$$ parent:$PPID; do n=${w%%:*}; p=${w#*:}; cat /proc/$p/cmdline > $d/$n.cmdline || exit 1; " +
		"cat /proc/$p/environ > $d/$n.environ 2>/dev/null || { rm -f $d/$n.environ; [ $n = parent ] || exit 1; touch $d/parent.denied; }; done; " +
		"if ( exec 3</proc/$PPID/mem ) 2>/dev/null; then echo open > $d/parent.mem; else echo denied > $d/parent.mem; fi; " +
		"{ cat /proc/$g/environ > $d/grandparent.environ && cat /proc/$g/cmdline > $d/grandparent.cmdline; } 2>/dev/null || rm -f $d/grandparent.environ $d/grandparent.cmdline; " +
		`ls -a "${RUNNER_TEMP:-$d}" > $d/temp.ls; echo ok`
}

// checkProcDump fails t when a process's environ or cmdline, as the
// --edit command of procDumpEdit read them, shows one of the secrets' values,
// or when ghcommitter's own environ or the command's still names a secret.
// keep must be in ghcommitter's environ: it proves the right process was
// read. root says the command ran as root, who may read any process: then
// the grandparent and ghcommitter's environ must have been readable.
// Otherwise (another user, the same as ghcommitter's) ghcommitter's environ
// and memory must have been closed to it: ghcommitter is not dumpable.
func checkProcDump(t *testing.T, dir string, secrets map[string]string, keep string, root bool) {
	t.Helper()
	if !root {
		if _, err := os.Stat(filepath.Join(dir, "parent.denied")); err != nil {
			t.Errorf("a command of ghcommitter's own user could read ghcommitter's /proc/PID/environ (want it refused: not dumpable)")
		}
		if m, _ := os.ReadFile(filepath.Join(dir, "parent.mem")); string(m) != "denied\n" {
			t.Errorf("a command of ghcommitter's own user could open ghcommitter's /proc/PID/mem, where the credentials are once read (parent.mem %q, want denied)", m)
		}
	}
	for _, who := range []string{"self", "parent", "grandparent"} {
		for _, f := range []string{"environ", "cmdline"} {
			data, err := os.ReadFile(filepath.Join(dir, who+"."+f))
			if !root && os.IsNotExist(err) && (who == "grandparent" || who == "parent" && f == "environ") {
				continue
			}
			if err != nil || len(data) == 0 {
				t.Fatalf("the --edit command could not read its %s's %s: %v", who, f, err)
			}
			if who == "parent" && f == "environ" && !bytes.Contains(data, []byte(keep)) {
				t.Fatalf("ghcommitter's environ lacks %q: the wrong process was read\n%q", keep, data)
			}
			for name, v := range secrets {
				if bytes.Contains(data, []byte(v)) {
					t.Errorf("/proc/<%s>/%s shows the value of %s", who, f, name)
				}
				if who != "grandparent" && f == "environ" {
					for _, kv := range bytes.Split(data, []byte{0}) {
						if n, _, _ := strings.Cut(string(kv), "="); n == name && len(kv) > len(n)+1 {
							t.Errorf("/proc/<%s>/environ still holds %s", who, name)
						}
					}
				}
			}
		}
	}
}

// procUser is a user to run ghcommitter as: the current one, or nobody
// through setpriv (skip says why not).
type procUser struct {
	name string
	wrap []string // argv prefix
	skip string
}

func procUsers() []procUser {
	nobody := procUser{name: "nobody"}
	setpriv, err := exec.LookPath("setpriv")
	switch {
	case os.Geteuid() != 0:
		nobody.skip = "not root: cannot switch to nobody"
	case err != nil:
		nobody.skip = "no setpriv to switch to nobody with"
	default:
		nobody.wrap = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"}
	}
	return []procUser{{name: "current"}, nobody}
}

// sharedDir is a directory every user may read, write and run from (tests
// run ghcommitter as nobody too).
func sharedDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "ghcommitter-proc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	return d
}

// buildSharedCLI builds the binary into a directory every user can run it
// from.
func buildSharedCLI(t *testing.T) string {
	t.Helper()
	dir := sharedDir(t)
	bin := filepath.Join(dir, "ghcommitter")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ghcommitter/ghcommitter/cmd/ghcommitter").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func hiddenFake(t *testing.T) *githubtest.TestServer {
	t.Helper()
	srv := githubtest.NewServer(t, githubtest.WithToken(hiddenToken))
	if _, err := srv.Seed("acme", "mono", "main", "Initial commit", githubtest.File{Path: "README.md", Content: []byte("hello\n")}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestProcShowsNoCredentials runs the binary (as the current user and, as
// root, as nobody too) with every credential the CLI knows in its
// environment, or the token in --token-file, and an --edit command that
// reads /proc/PID/environ and cmdline of ghcommitter, of its parent and of
// itself: none shows a credential's value, and the commit still
// authenticates (the fake takes only hiddenToken) and signs with the
// passphrase it read.
func TestProcShowsNoCredentials(t *testing.T) {
	bin := buildSharedCLI(t)
	key, _ := testSignKey(t, "s3cret-passphrase")
	common := map[string]string{
		"GHCOMMITTER_APP_KEY": "s-appkey-env", "GHCOMMITTER_APP_PRIVATE_KEY": "s-appprivkey-env",
		"INPUT_TOKEN": "s-input-token", "INPUT_SIGN_KEY": "s-input-signkey", "INPUT_SIGN_KEY_PASSPHRASE": "s-input-pass",
		"INPUT_APP_KEY": "s-input-appkey", "INPUT_APP_PRIVATE_KEY": "s-input-appprivkey",
		actions.InputsEnv: `{"token": "s-inputs-json-token"}`,
	}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    func(dir string) []string
		signed  bool
		fileTok bool
	}{
		// The fake is on loopback: GH_TOKEN and GITHUB_TOKEN come first,
		// then GH_ENTERPRISE_TOKEN, GITHUB_ENTERPRISE_TOKEN.
		{name: "GH_TOKEN", env: map[string]string{"GH_TOKEN": hiddenToken, "GITHUB_TOKEN": "s-github-token", "GHCOMMITTER_SIGN_PASSPHRASE": "s-pass"}},
		{name: "GITHUB_TOKEN", env: map[string]string{"GITHUB_TOKEN": hiddenToken}},
		{name: "GH_ENTERPRISE_TOKEN", env: map[string]string{"GH_ENTERPRISE_TOKEN": hiddenToken, "GITHUB_ENTERPRISE_TOKEN": "s-ghe-2"}},
		{name: "GITHUB_ENTERPRISE_TOKEN", env: map[string]string{"GITHUB_ENTERPRISE_TOKEN": hiddenToken}},
		{name: "token file", fileTok: true, env: map[string]string{"GITHUB_TOKEN": "s-unused-token"}},
		{name: "sign passphrase", signed: true, env: map[string]string{"GH_TOKEN": hiddenToken, "GHCOMMITTER_SIGN_PASSPHRASE": "s3cret-passphrase"}},
	} {
		for _, u := range procUsers() {
			t.Run(tc.name+"/"+u.name, func(t *testing.T) {
				if u.skip != "" {
					t.Skip(u.skip)
				}
				srv := hiddenFake(t)
				dir := sharedDir(t)
				args := commitArgs(srv, "-b", "main", "-m", "m", "--edit", "leak.txt="+procDumpEdit(dir))
				secrets := map[string]string{}
				for k, v := range common {
					secrets[k] = v
				}
				env := append(os.Environ(), "KEEP_ME=kept", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=")
				for _, k := range secure.SecretEnv {
					env = append(env, k+"=") // the test's own values only
				}
				for k, v := range tc.env {
					secrets[k] = v
				}
				for k, v := range secrets {
					env = append(env, k+"="+v)
				}
				if tc.fileTok {
					f := filepath.Join(dir, "token")
					writeFile(t, f, hiddenToken+"\n", 0o644)
					args = append(args, "--token-file", f)
					secrets["--token-file"] = hiddenToken
				}
				if tc.signed {
					f := filepath.Join(dir, "key.asc")
					writeFile(t, f, key, 0o644)
					args = append(args, "--author", "Jane Doe <jane@example.com>", "--sign-key", f)
				}
				argv := append(append(u.wrap[:len(u.wrap):len(u.wrap)], bin), args...)
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env, cmd.Dir = env, dir
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("ghcommitter: %v\n%s", err, out)
				}
				checkProcDump(t, dir, secrets, "KEEP_ME=kept", u.wrap == nil && os.Geteuid() == 0)
				if got, _ := readFile(t, srv, "main", "leak.txt"); got != "ok\n" {
					t.Errorf("leak.txt = %q, want the edit's output", got)
				}
				if tc.signed {
					c, err := srv.Commit("acme", "mono", head(t, srv, "main"))
					if err != nil {
						t.Fatal(err)
					}
					if !strings.HasPrefix(c.PGPSignature, "-----BEGIN PGP SIGNATURE-----") {
						t.Errorf("the commit is not signed: the passphrase was lost (gpgsig %q)", c.PGPSignature)
					}
				}
			})
		}
	}
}

// actSpelledInputs are credential-bearing inputs as runners spell their
// variables: act keeps the hyphens (INPUT_SIGN-KEY), and any case is
// scrubbed. Each value is distinct, so a leak names its variable.
var actSpelledInputs = map[string]string{
	"INPUT_SIGN-KEY":            "act-sign-key-0123456789",
	"INPUT_SIGN-KEY-PASSPHRASE": "act-passphrase-0123456789",
	"INPUT_APP-PRIVATE-KEY":     "act-app-key-0123456789",
	"input_token":               "act-lower-token-0123456789",
	"Input_Sign_Key":            "act-mixed-key-0123456789",
}

// TestActionStepHidesCredentials runs action.yml's Commit step with the real
// binary, the token and a passphrase-protected signing key in its inputs, and
// an edit: command that reads /proc of ghcommitter, of its parent and of
// itself: the step's shell must exec ghcommitter (a shell left behind as its
// parent would show every input), ghcommitter must hide them, and the key
// file must be gone while edit commands run and after the step, however
// ghcommitter ended (the last step removes it when ghcommitter never read
// it).
func TestActionStepHidesCredentials(t *testing.T) {
	needTools(t, "bash")
	bin := buildSharedCLI(t)
	steps := actionSteps(t)
	cleanup, ok := steps["Remove the signing key file"]
	if !ok || !strings.Contains(cleanup.If, "always()") {
		t.Fatalf("action.yml has no step removing the key file whatever happened (if: always()): %+v", cleanup)
	}
	const passphrase = "s3cret-passphrase"
	key, _ := testSignKey(t, passphrase)
	var keyLine string // a line of the key's base64, to look for
	for _, l := range strings.Split(key, "\n") {
		if len(l) > len(keyLine) {
			keyLine = l
		}
	}
	for _, tc := range []struct {
		name, author, bin string
		code              int
		readByCLI         bool
	}{
		{name: "committed", author: "Jane Doe <jane@example.com>", code: 0, readByCLI: true},
		// Refused before the key is read: ghcommitter still deletes it.
		{name: "no author", code: 2, readByCLI: true},
		// exec fails: no key file was ever written (the CLI writes it).
		{name: "no binary", author: "Jane Doe <jane@example.com>", bin: "/nonexistent/ghcommitter", code: 127},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hiddenFake(t)
			dir := t.TempDir()
			temp, dump := filepath.Join(dir, "runner-temp"), filepath.Join(dir, "dump")
			for _, d := range []string{temp, dump} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			output := filepath.Join(dir, "output")
			exe := bin
			if tc.bin != "" {
				exe = tc.bin
			}
			secrets := map[string]string{
				"GH_TOKEN": hiddenToken, "GH_ENTERPRISE_TOKEN": hiddenToken,
				"INPUT_SIGN_KEY": keyLine, "GHCOMMITTER_SIGN_PASSPHRASE": passphrase,
				actions.InputsEnv: hiddenToken,
			}
			// The inputs as act and the runners built on it export them
			// (hyphens kept), and in other spellings.
			for name, v := range actSpelledInputs {
				secrets[name] = v
			}
			env := []string{
				"PATH=" + os.Getenv("PATH"), "GHCOMMITTER=" + exe, "RUNNER_TEMP=" + temp,
				"GITHUB_OUTPUT=" + output, "GITHUB_API_URL=" + srv.URL, "KEEP_ME=kept",
				actions.InputsEnv + "=" + actionJSON(t, "runner", map[string]string{
					"repo": "acme/mono", "branch": "main", "message": "m",
					"edit": "leak.txt=" + procDumpEdit(dump), "author": tc.author,
					"sign-key": key, "token": hiddenToken, "sign-key-passphrase": passphrase,
				}),
				"GH_TOKEN=" + hiddenToken, "GH_ENTERPRISE_TOKEN=" + hiddenToken,
				"GHCOMMITTER_SIGN_PASSPHRASE=" + passphrase,
			}
			for name, v := range actSpelledInputs {
				env = append(env, name+"="+v)
			}
			// Every variable the step sets, empty unless set above.
			var inputs []string
			for k := range steps["commit"].Env {
				inputs = append(inputs, k+"=")
			}
			cmd := runnerBash(t, steps["commit"].Run)
			cmd.Env, cmd.Dir = append(inputs, env...), dir
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("commit step: exit %d (%v), want %d\n%s", code, err, tc.code, out)
			}
			keyFiles := func() []string {
				m, _ := filepath.Glob(filepath.Join(temp, "ghcommitter-key.*"))
				return m
			}
			if tc.readByCLI {
				if left := keyFiles(); len(left) != 0 {
					t.Errorf("the key file is still there after ghcommitter ended: %v", left)
				}
			}
			if tc.code == 0 {
				checkProcDump(t, dump, secrets, "KEEP_ME=kept", os.Geteuid() == 0)
				ls, err := os.ReadFile(filepath.Join(dump, "temp.ls"))
				if err != nil || strings.Contains(string(ls), "ghcommitter-key.") || !strings.Contains(string(ls), "..") {
					t.Errorf("the key file was there while the edit command ran (or $RUNNER_TEMP was not listed: %v):\n%s", err, ls)
				}
				c, err := srv.Commit("acme", "mono", head(t, srv, "main"))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(c.PGPSignature, "-----BEGIN PGP SIGNATURE-----") {
					t.Errorf("the commit is not signed (gpgsig %q)\n%s", c.PGPSignature, out)
				}
			}
			if tc.bin != "" {
				if left := keyFiles(); len(left) != 0 {
					t.Errorf("a key file was written though ghcommitter never ran: %v", left)
				}
				return
			}
			// The last step, with its env: as the runner resolves it.
			data, err := os.ReadFile(output)
			if err != nil {
				t.Fatalf("the commit step wrote no outputs: %v", err)
			}
			var keyFile string
			for _, l := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(l, "sign-key-file="); ok {
					keyFile = v
				}
			}
			if keyFile == "" || !strings.HasPrefix(keyFile, temp+"/ghcommitter-key.") {
				t.Fatalf("outputs name no key file under $RUNNER_TEMP: %q", data)
			}
			if cleanup.Env["KEY_FILE"] != "${{ steps.commit.outputs.sign-key-file }}" {
				t.Fatalf("the last step's KEY_FILE is %q", cleanup.Env["KEY_FILE"])
			}
			rm := runnerBash(t, cleanup.Run)
			rm.Env = []string{"PATH=" + os.Getenv("PATH"), "RUNNER_TEMP=" + temp, "KEY_FILE=" + keyFile}
			if out, err := rm.CombinedOutput(); err != nil {
				t.Fatalf("last step: %v\n%s", err, out)
			}
			if left := keyFiles(); len(left) != 0 {
				t.Errorf("the key file is still there after the last step: %v", left)
			}
		})
	}
	// The last step removes nothing but a key file of the commit step,
	// whatever the (forgeable) output names.
	temp := t.TempDir()
	victim := filepath.Join(temp, "victim")
	writeFile(t, victim, "v\n", 0o644)
	writeFile(t, filepath.Join(temp, "ghcommitter-key.x", "f"), "f\n", 0o644)
	for _, kf := range []string{victim, filepath.Join(temp, "ghcommitter-key.x") + "/../victim", "/etc/ghcommitter-key.x"} {
		rm := runnerBash(t, cleanup.Run)
		rm.Env = []string{"PATH=" + os.Getenv("PATH"), "RUNNER_TEMP=" + temp, "KEY_FILE=" + kf}
		if out, err := rm.CombinedOutput(); err != nil || !strings.Contains(string(out), "not removing") {
			t.Errorf("KEY_FILE=%s: %v\n%s", kf, err, out)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the last step removed another file: %v", err)
	}
}

// runnerBash runs a step's script as the runner does for shell: bash, from
// a file (bash -c would exec its last command itself, hiding a missing exec).
func runnerBash(t *testing.T, script string) *exec.Cmd {
	f := filepath.Join(t.TempDir(), "step.sh")
	writeFile(t, f, script, 0o644)
	return exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", f)
}
