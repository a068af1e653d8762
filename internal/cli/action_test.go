package cli

import (
	"bytes"
	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the action's scripts are tested on Unix")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
}

// TestActionDownload runs scripts/test-action-download.sh: the action's
// download path against a local release directory (no network), including a
// tampered archive that must be refused.
func TestActionDownload(t *testing.T) {
	needTools(t, "bash", "curl", "tar", "awk", "git")
	cmd := exec.Command("bash", filepath.Join(repoRoot, "scripts", "test-action-download.sh"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("test-action-download.sh: %v\n%s", err, out)
	}
}

// TestActionBuildCleanEnv builds the CLI as the action does for an untagged
// ref, from a job environment that cross-compiles for another platform with
// its own GOFLAGS: the binary must still run here.
func TestActionBuildCleanEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	needTools(t, "bash", "go")
	dest := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(repoRoot, "scripts", "action-install.sh"), "build", repoRoot, dest)
	other := map[string]string{"linux": "windows", "darwin": "linux", "windows": "linux"}[runtime.GOOS]
	cmd.Env = append(os.Environ(), "GOOS="+other, "GOARCH=arm64", "GOFLAGS=-tags=nosuchtag -mod=mod", "CGO_ENABLED=1", "GOWORK="+filepath.Join(dest, "go.work"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("action-install.sh build: %v\n%s", err, stderr.String())
	}
	bin := strings.TrimSpace(string(out))
	v, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "ghcommitter ") {
		t.Fatalf("%s version: %q, %v (built for the job's GOOS/GOARCH?)", bin, v, err)
	}
}

// TestWorkflowsSpliceNoExpressions checks that no ${{ }} expression is
// spliced into shell text — a run: script, or an edit: command the action
// runs with sh -c — in action.yml, the release workflow, and the workflow
// examples in README.md and docs/github-actions.md. Values reach the shell
// through env: instead.
func TestWorkflowsSpliceNoExpressions(t *testing.T) {
	docs := map[string][]string{}
	for _, f := range []string{"action.yml", ".github/workflows/release.yml"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = []string{string(data)}
	}
	fence := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	for _, f := range []string{"README.md", "docs/github-actions.md"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllStringSubmatch(string(data), -1) {
			docs[f] = append(docs[f], m[1])
		}
	}
	checked := 0
	for f, blocks := range docs {
		for _, b := range blocks {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(b), &n); err != nil {
				t.Errorf("%s: a YAML block does not parse: %v\n%s", f, err, b)
				continue
			}
			walkShell(&n, func(key, text string, line int) {
				checked++
				if strings.Contains(text, "${{") {
					t.Errorf("%s: %s: at line %d of its block splices an expression into shell text: pass it through env: instead\n%s", f, key, line, text)
				}
			})
		}
	}
	if checked < 5 {
		t.Errorf("only %d shell texts found: the walk is broken", checked)
	}
}

// walkShell calls fn for every run: value and every edit: value in n.
func walkShell(n *yaml.Node, fn func(key, text string, line int)) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if (k.Value == "run" || k.Value == "edit") && v.Kind == yaml.ScalarNode {
				fn(k.Value, v.Value, k.Line)
			}
		}
	}
	for _, c := range n.Content {
		walkShell(c, fn)
	}
}

// actionStep is a step of action.yml's composite run.
type actionStep struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Env  map[string]string `yaml:"env"`
	Run  string            `yaml:"run"`
}

// actionSteps are action.yml's steps by id (by name for a step without
// one); the step with id commit must be there.
func actionSteps(t *testing.T) map[string]actionStep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	steps := map[string]actionStep{}
	for _, s := range action.Runs.Steps {
		k := s.ID
		if k == "" {
			k = s.Name
		}
		steps[k] = s
	}
	if steps["commit"].Run == "" {
		t.Fatal("action.yml has no step with id commit")
	}
	return steps
}

// TestActionCommitStep runs the action's Commit step script (from
// action.yml) with a stand-in CLI that prints its arguments and the inputs
// variable: the script runs "ghcommitter action" and nothing else, with the
// inputs as the runner gave them; no input is interpreted by the shell.
func TestActionCommitStep(t *testing.T) {
	needTools(t, "bash")
	script := actionSteps(t)["commit"].Run
	dir := t.TempDir()
	stub := filepath.Join(dir, "ghcommitter")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\nprintf '%s' \"$"+actions.InputsEnv+"\" > inputs.json\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "pwned")
	inputs := actionJSON(t, "runner", map[string]string{"message": "Promote $(touch " + marker + ")\n\nbody", "paths": "`touch " + marker + "`"})
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GHCOMMITTER=" + stub, "RUNNER_TEMP=" + dir, actions.InputsEnv + "=" + inputs}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("commit step: %v\n%s", err, out)
	}
	if string(out) != "<action>\n" {
		t.Errorf("arguments:\n%s\nwant <action>", out)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "inputs.json")); err != nil || string(got) != inputs {
		t.Errorf("the CLI got the inputs %q (%v), want %q", got, err, inputs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an input was executed by the shell")
	}
}
