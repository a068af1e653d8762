package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// flagsWithoutInput are the commit command's flags the action has no input
// for, each with its reason. Every other flag must be an input of the same
// name (a flag added later fails TestActionInputsAreFlags until it is one).
var flagsWithoutInput = map[string]string{
	"help":            "cobra's own",
	"json":            "the step's outputs carry the result; a JSON object on stdout would only reach the log",
	"token-file":      "the token input reaches the CLI in the environment, never as a file or a flag value",
	"app-key-file":    "app-private-key holds the key itself; the step writes it to a file only the runner user reads",
	"remove-sign-key": "always passed with sign-key: the key file the step writes is temporary",
	"turn-dir":        "the default (the runner user's cache directory) is shared by every job of a runner machine; a hosted runner runs one job",
	"no-turns":        "turns only ever shorten a step: it waits for another writer of the machine instead of losing a race to it",
}

// inputsWithoutFlag are the action's inputs that are no flag, each with its
// reason.
var inputsWithoutFlag = map[string]string{
	"token":               "a token is never a flag value: it is passed as GH_TOKEN",
	"paths":               "the LOCAL_PATH arguments",
	"working-directory":   "the directory the step runs in",
	"version":             "which release binary to install",
	"sign-key-passphrase": "a secret: passed as GHCOMMITTER_SIGN_PASSPHRASE",
	"app-private-key":     "key contents: written to a file passed as --app-key-file",
}

type actionInput struct {
	Description string `yaml:"description"`
	Default     string `yaml:"default"`
}

func actionInputs(t *testing.T) map[string]actionInput {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]actionInput `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	return a.Inputs
}

func commitFlagSet(t *testing.T) (*cobra.Command, map[string]*pflag.Flag) {
	t.Helper()
	cmd := newCommitCmdWith(&Env{Getenv: func(string) string { return "" }}, nil)
	cmd.InitDefaultHelpFlag()
	flags := map[string]*pflag.Flag{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) { flags[f.Name] = f })
	return cmd, flags
}

// TestActionInputsAreFlags: every flag of commit is an input named as the
// flag, and every input a flag, but for the listed exceptions; and each
// input's value reaches its flag: the action's Commit step is run with every
// input set, and the arguments it passes, parsed as the CLI parses them, set
// every one of those flags.
func TestActionInputsAreFlags(t *testing.T) {
	needTools(t, "bash")
	inputs := actionInputs(t)
	_, flags := commitFlagSet(t)
	var missing, stray []string
	for name := range flags {
		if _, ok := inputs[name]; !ok && flagsWithoutInput[name] == "" {
			missing = append(missing, name)
		}
	}
	for name := range inputs {
		if _, ok := flags[name]; !ok && inputsWithoutFlag[name] == "" {
			stray = append(stray, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(stray)
	if len(missing) > 0 {
		t.Errorf("flags with no action input (add one named as the flag to action.yml, the Commit step and docs/github-actions.md, or list it in flagsWithoutInput with the reason): %v", missing)
	}
	if len(stray) > 0 {
		t.Errorf("action inputs that are no flag of commit: %v", stray)
	}
	for name := range flagsWithoutInput {
		if _, ok := inputs[name]; ok {
			t.Errorf("%s is listed as having no input, but action.yml has one", name)
		}
	}

	// Every input set, as the runner would set it.
	step := actionSteps(t)["commit"]
	dir := t.TempDir()
	stub := filepath.Join(dir, "ghcommitter")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "GHCOMMITTER=" + stub, "RUNNER_TEMP=" + dir, "GITHUB_OUTPUT=" + filepath.Join(dir, "out")}
	for k := range step.Env {
		if !strings.HasPrefix(k, "INPUT_") {
			continue
		}
		name := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(k, "INPUT_"), "_", "-"))
		if step.Env[k] != "${{ inputs."+name+" }}" {
			t.Errorf("the Commit step's %s is %q, want ${{ inputs.%s }}", k, step.Env[k], name)
		}
		if _, ok := inputs[name]; !ok {
			t.Errorf("the Commit step reads %s, but action.yml has no input %s", k, name)
		}
	}
	for name := range inputs {
		if f, ok := flags[name]; ok {
			k := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
			if _, ok := step.Env[k]; !ok {
				t.Errorf("the Commit step does not pass input %s as %s", name, k)
			}
			env = append(env, k+"="+sampleValue(f))
		}
	}
	env = append(env, "INPUT_APP_PRIVATE_KEY=-----BEGIN RSA PRIVATE KEY-----", "INPUT_PATHS=p")
	cmd := exec.Command("bash", "-c", step.Run)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("commit step: %v\n%s", err, out)
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if args[0] != "commit" {
		t.Fatalf("arguments %q", args)
	}
	parse, _ := commitFlagSet(t)
	if err := parse.ParseFlags(args[1:]); err != nil {
		t.Fatalf("the CLI refuses the step's arguments: %v\n%q", err, args)
	}
	for name := range inputs {
		if _, ok := flags[name]; ok && !parse.Flags().Changed(name) {
			t.Errorf("input %s set, but flag --%s not given: %q", name, name, args)
		}
	}
	if !parse.Flags().Changed("app-key-file") || !parse.Flags().Changed("remove-sign-key") {
		t.Errorf("the key inputs did not become key files: %q", args)
	}
}

// sampleValue is a value the flag accepts, as an input would hold it.
func sampleValue(f *pflag.Flag) string {
	switch {
	case f.Name == "engine":
		return "auto"
	case f.Name == "sign-key":
		return "-----BEGIN PGP PRIVATE KEY BLOCK-----"
	}
	switch f.Value.Type() {
	case "bool":
		return "true"
	case "int", "int64":
		return "7"
	case "duration":
		return "90s"
	case "stringArray", "stringSlice":
		return "first=1\n  second=2  \n"
	}
	return "value of " + f.Name
}

// TestActionInputsTable: docs/github-actions.md's inputs table lists every
// input of action.yml, once, and nothing else.
func TestActionInputsTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "github-actions.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, "<!-- inputs:begin -->"), strings.Index(doc, "<!-- inputs:end -->")
	if i < 0 || j < i {
		t.Fatal("docs/github-actions.md has no <!-- inputs:begin --> ... <!-- inputs:end --> table")
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(doc[i:j], -1)
	seen := map[string]int{}
	for _, r := range rows {
		seen[r[1]]++
	}
	inputs := actionInputs(t)
	for name := range inputs {
		if seen[name] != 1 {
			t.Errorf("input %s is in the table %d times, want once", name, seen[name])
		}
	}
	for name := range seen {
		if _, ok := inputs[name]; !ok {
			t.Errorf("the table lists %s, which action.yml has not", name)
		}
	}
}
