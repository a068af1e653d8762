package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

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
	cmd := commitcmd.NewCmd(&cmdutil.Env{Getenv: func(string) string { return "" }}, nil)
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
		if _, ok := inputs[name]; !ok && actions.FlagsWithoutInput[name] == "" {
			missing = append(missing, name)
		}
	}
	for name := range inputs {
		if _, ok := flags[name]; !ok && actions.InputsWithoutFlag[name] == "" {
			stray = append(stray, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(stray)
	if len(missing) > 0 {
		t.Errorf("flags with no action input (add an input named as the flag to action.yml and docs/github-actions.md, or list it in actions.FlagsWithoutInput with the reason): %v", missing)
	}
	if len(stray) > 0 {
		t.Errorf("action inputs that are no flag of commit: %v", stray)
	}
	for name := range actions.FlagsWithoutInput {
		if _, ok := inputs[name]; ok {
			t.Errorf("%s is listed as having no input, but action.yml has one", name)
		}
	}

	for name := range actions.InputsWithoutFlag {
		if _, ok := inputs[name]; !ok {
			t.Errorf("%s is listed as an input without a flag, but action.yml has no such input", name)
		}
	}

	// The Commit step passes every input as one JSON object and runs
	// "ghcommitter action", nothing else.
	step := actionSteps(t)["commit"]
	if v := step.Env[actions.InputsEnv]; v != "${{ toJSON(inputs) }}" {
		t.Errorf("the Commit step's %s is %q, want ${{ toJSON(inputs) }}", actions.InputsEnv, v)
	}
	for k := range step.Env {
		if strings.HasPrefix(k, "INPUT_") {
			t.Errorf("the Commit step passes %s: every input reaches the CLI in %s", k, actions.InputsEnv)
		}
	}
	if !strings.Contains(step.Run, `exec "$GHCOMMITTER" action`+"\n") {
		t.Errorf("the Commit step does not exec \"$GHCOMMITTER\" action:\n%s", step.Run)
	}

	// Every input set, in either shape: the arguments the CLI makes of
	// them, parsed as it parses them, set every one of those flags.
	set := map[string]string{"token": "t", "paths": "p", "app-private-key": "-----BEGIN RSA PRIVATE KEY-----", "sign-key-passphrase": "pass"}
	for name := range inputs {
		if f, ok := flags[name]; ok {
			set[name] = sampleValue(f)
		}
	}
	for _, shape := range actionShapes {
		args, err := actionRun(t, actionJSON(t, shape, set), nil)
		if err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		if args[0] != "commit" {
			t.Fatalf("arguments %q", args)
		}
		parse, _ := commitFlagSet(t)
		if err := parse.ParseFlags(args[1:]); err != nil {
			t.Fatalf("%s: the CLI refuses the arguments: %v\n%q", shape, err, args)
		}
		for name := range inputs {
			if _, ok := flags[name]; ok && !parse.Flags().Changed(name) {
				t.Errorf("%s: input %s set, but flag --%s not given: %q", shape, name, name, args)
			}
		}
		if !parse.Flags().Changed("app-key-file") || !parse.Flags().Changed("remove-sign-key") {
			t.Errorf("%s: the key inputs did not become key files: %q", shape, args)
		}
		if got := parse.Flags().Args(); !slices.Equal(got, []string{"p"}) {
			t.Errorf("%s: paths %q, want [p]", shape, got)
		}
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
