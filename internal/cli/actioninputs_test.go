package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// The two shapes ${{ toJSON(inputs) }} comes in: GitHub's runner gives
// every input under its name; act rebuilds the inputs context from the
// INPUT_* variables, so names come with _ for -.
var actionShapes = []string{"runner", "act"}

// actionJSON is ${{ toJSON(inputs) }} in shape: every input of action.yml
// with its default (as the runner applies them, without evaluating ${{ }}
// in one), set on top.
func actionJSON(t *testing.T, shape string, set map[string]string) string {
	t.Helper()
	obj := map[string]string{}
	for name, in := range actionInputs(t) {
		if !strings.Contains(in.Default, "${{") {
			obj[name] = in.Default
		}
	}
	declared := actionInputs(t)
	for k, v := range set {
		if _, ok := declared[k]; !ok {
			t.Fatalf("action.yml has no input %s", k)
		}
		obj[k] = v
	}
	if shape == "act" {
		act := map[string]string{}
		for k, v := range obj {
			act[strings.ReplaceAll(k, "-", "_")] = v
		}
		obj = act
	}
	data, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// actionRun is actionArgs for the inputs JSON with env (RUNNER_TEMP and
// GITHUB_OUTPUT in a temporary directory unless env names them).
func actionRun(t *testing.T, inputs string, env map[string]string) ([]string, error) {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"RUNNER_TEMP": dir, "GITHUB_OUTPUT": filepath.Join(dir, "output"), actions.InputsEnv: inputs}
	for k, v := range env {
		vars[k] = v
	}
	e := &cmdutil.Env{Getenv: func(k string) string { return vars[k] }}
	return actions.Args(e, commitcmd.NewCmd(e, nil).Flags())
}

// TestActionArgs: inputs become arguments, one per non-blank line of a
// repeatable flag's input, a switch when 'true', never split on spaces; the
// same from either shape of the inputs.
func TestActionArgs(t *testing.T) {
	for _, shape := range actionShapes {
		t.Run(shape, func(t *testing.T) {
			inputs := actionJSON(t, shape, map[string]string{
				"repo": "acme/mono", "branch": "main",
				"message":  "Promote $(touch x)\n\nbody",
				"paths":    "a file.txt\n\n  dir/b.txt  \r\n",
				"add":      "x/y.yaml=build/y.yaml",
				"edit":     "envs/index.txt=grep -v \"^$STAGE \" | sort\n",
				"set":      "deploy/values.yaml:image.tag=1.2 $(x)\n\n  c.json:a\\.b=x y  \n",
				"unset":    "v.yaml:old",
				"manifest": "promotions/staging.yaml", "must-exist": "true",
				"max-attempts": "20", "dry-run": "false", "token": "t0ken",
			})
			args, err := actionRun(t, inputs, map[string]string{"GITHUB_API_URL": "https://ghe.example/api/v3"})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				"commit", "--add", "x/y.yaml=build/y.yaml", "--branch", "main",
				"--edit", "envs/index.txt=grep -v \"^$STAGE \" | sort",
				"--manifest", "promotions/staging.yaml", "--max-attempts", "20",
				"--message", "Promote $(touch x)\n\nbody", "--must-exist", "--repo", "acme/mono",
				"--set", "deploy/values.yaml:image.tag=1.2 $(x)", "--set", "c.json:a\\.b=x y",
				"--unset", "v.yaml:old",
				"--api-url", "https://ghe.example/api/v3",
				"--", "a file.txt", "dir/b.txt",
			}
			if !slices.Equal(args, want) {
				t.Errorf("arguments\n%q\nwant\n%q", args, want)
			}
			if slices.Contains(args, "t0ken") {
				t.Error("the token became an argument")
			}
		})
	}
}

// TestActionArgsRefused: an input that is no flag and not one of the
// inputs without a flag, a value that is no string, and no inputs at all
// are refused, without the value in the message.
func TestActionArgsRefused(t *testing.T) {
	for name, inputs := range map[string]string{
		"unknown input":        `{"repo": "acme/mono", "no-such-input": "s3cret"}`,
		"flag, no input":       `{"json": "s3cret"}`,
		"object value":         `{"message": {"s3cret": 1}}`,
		"not an object":        `["s3cret"]`,
		"not JSON":             `s3cret`,
		"not set":              ``,
		"two names, one input": `{"message_file": "a", "message-file": "s3cret"}`,
	} {
		t.Run(name, func(t *testing.T) {
			args, err := actionRun(t, inputs, nil)
			if err == nil {
				t.Fatalf("accepted: %q", args)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error shows a value: %v", err)
			}
		})
	}
}

// TestActionKeyInputs: the key inputs become files only the user reads, in
// $RUNNER_TEMP, named in the step's outputs for the clean-up steps, passed
// with --remove-sign-key for the signing key.
func TestActionKeyInputs(t *testing.T) {
	for _, shape := range actionShapes {
		t.Run(shape, func(t *testing.T) {
			dir := t.TempDir()
			output := filepath.Join(dir, "output")
			inputs := actionJSON(t, shape, map[string]string{"sign-key": "SIGNKEY", "app-private-key": "APPKEY", "app-id": "1"})
			args, err := actionRun(t, inputs, map[string]string{"RUNNER_TEMP": dir, "GITHUB_OUTPUT": output})
			if err != nil {
				t.Fatal(err)
			}
			outputs, err := os.ReadFile(output)
			if err != nil {
				t.Fatal(err)
			}
			for flag, c := range map[string]struct{ output, key string }{
				"--sign-key": {"sign-key-file", "SIGNKEY\n"}, "--app-key-file": {"app-key-file", "APPKEY\n"},
			} {
				i := slices.Index(args, flag)
				if i < 0 {
					t.Fatalf("no %s in %q", flag, args)
				}
				f := args[i+1]
				if filepath.Dir(f) != dir || !strings.HasPrefix(filepath.Base(f), "ghcommitter-key.") {
					t.Errorf("%s %s: not a key file in $RUNNER_TEMP", flag, f)
				}
				if data, err := os.ReadFile(f); err != nil || string(data) != c.key {
					t.Errorf("%s holds %q (%v)", f, data, err)
				}
				if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v (%v), want 0600", f, fi.Mode(), err)
				}
				if !strings.Contains(string(outputs), c.output+"="+f+"\n") {
					t.Errorf("outputs %q do not name %s=%s", outputs, c.output, f)
				}
			}
			if !slices.Contains(args, "--remove-sign-key") || slices.Contains(args, "SIGNKEY") || slices.Contains(args, "APPKEY") {
				t.Errorf("arguments %q", args)
			}
		})
	}
}

// TestActionCommand: "ghcommitter action" commits what the inputs say, in
// either shape; with no inputs, or with arguments, it is a usage error
// that sends nothing.
func TestActionCommand(t *testing.T) {
	for _, shape := range actionShapes {
		t.Run(shape, func(t *testing.T) {
			srv := fake(t)
			dir := t.TempDir()
			local := filepath.Join(dir, "a.txt")
			writeFile(t, local, "from the action\n", 0o644)
			c := newCLI(t)
			c.env["RUNNER_TEMP"], c.env["GITHUB_OUTPUT"] = dir, filepath.Join(dir, "output")
			c.env[actions.InputsEnv] = actionJSON(t, shape, map[string]string{
				"repo": "acme/mono", "branch": "main", "message": "from inputs",
				"add": "x/a.txt=" + local, "api-url": srv.URL, "token": testToken,
			})
			r := c.run(actions.Command)
			r.wantCode(t, 0)
			if got, _ := readFile(t, srv, "main", "x/a.txt"); got != "from the action\n" {
				t.Errorf("x/a.txt = %q", got)
			}
			if out, err := os.ReadFile(c.env["GITHUB_OUTPUT"]); err != nil || !strings.Contains(string(out), "commit=") {
				t.Errorf("outputs %q (%v)", out, err)
			}
		})
	}
	srv := fake(t)
	c := newCLI(t)
	c.run(actions.Command).wantCode(t, cmdutil.ExitUsage)
	c.env[actions.InputsEnv] = actionJSON(t, "runner", map[string]string{"repo": "acme/mono", "api-url": srv.URL, "message": "m"})
	r := c.run(actions.Command, "--message", "m")
	r.wantCode(t, cmdutil.ExitUsage)
	if writes(srv) != 0 || !strings.Contains(r.stderr, "takes no arguments") {
		t.Errorf("%d writes; stderr %q", writes(srv), r.stderr)
	}
}

// TestActionArgsUnderAct: act's inputs context holds every INPUT_* variable
// the step sees: under act (ACT=true) a name that is no input is ignored,
// with a warning that does not show its value; the inputs still map.
func TestActionArgsUnderAct(t *testing.T) {
	inputs := actionJSON(t, "act", map[string]string{"repo": "acme/mono", "message": "m"})
	inputs = strings.Replace(inputs, "{", `{"WORKFLOW_INPUT": "s3cret",`, 1)
	if _, err := actionRun(t, inputs, nil); err == nil {
		t.Fatal("an unknown input was accepted outside act")
	}
	dir := t.TempDir()
	vars := map[string]string{"ACT": "true", "RUNNER_TEMP": dir, "GITHUB_OUTPUT": filepath.Join(dir, "output"), actions.InputsEnv: inputs}
	var stderr strings.Builder
	e := &cmdutil.Env{Getenv: func(k string) string { return vars[k] }, Stderr: &stderr}
	args, err := actions.Args(e, commitcmd.NewCmd(e, nil).Flags())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"commit", "--message", "m", "--repo", "acme/mono", "--"}; !slices.Equal(args, want) {
		t.Errorf("arguments %q, want %q", args, want)
	}
	if !strings.Contains(stderr.String(), `"workflow-input"`) || strings.Contains(stderr.String(), "s3cret") {
		t.Errorf("stderr %q", stderr.String())
	}
}
