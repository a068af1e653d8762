package cli

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The workflow docs/github-actions.md shows ("Commit what a job changed"),
// run end to end: the action pinned @v1 (downloading the release its tree
// names, from a local stand-in for the release downloads), changed: true,
// engine: auto, pull-request: true, against the fake, with a push and a
// pull_request event payload. Each of action.yml's steps runs as the runner
// runs a composite action's steps: its env: and if: evaluated, inputs as
// ${{ inputs.* }} with action.yml's defaults, bash -eo pipefail, a fresh
// $GITHUB_OUTPUT per step read back as the step's outputs, one
// $GITHUB_STEP_SUMMARY.

// actionDef is the part of action.yml a runner reads.
type actionDef struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }   `yaml:"outputs"`
	Runs    struct {
		Steps []struct {
			ID               string            `yaml:"id"`
			Name             string            `yaml:"name"`
			If               string            `yaml:"if"`
			Uses             string            `yaml:"uses"`
			Shell            string            `yaml:"shell"`
			Env              map[string]string `yaml:"env"`
			Run              string            `yaml:"run"`
			WorkingDirectory string            `yaml:"working-directory"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// runner plays the GitHub Actions runner for one use of the action.
type runner struct {
	t         *testing.T
	actionDir string
	workspace string
	temp      string
	summary   string
	env       []string          // the job's environment
	github    map[string]string // ${{ github.* }}
	inputs    map[string]string // ${{ inputs.* }}, defaults applied
	steps     map[string]map[string]string
	ran       []string
}

var exprRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// value evaluates the expressions action.yml uses: a context value, or
// "a || b".
func (r *runner) value(expr string) string {
	r.t.Helper()
	for _, alt := range strings.Split(expr, "||") {
		alt = strings.TrimSpace(alt)
		var v string
		switch parts := strings.Split(alt, "."); {
		case alt == "toJSON(inputs)":
			data, err := json.MarshalIndent(r.inputs, "", "  ")
			if err != nil {
				r.t.Fatal(err)
			}
			v = string(data)
		case parts[0] == "inputs" && len(parts) == 2:
			v = r.inputs[parts[1]]
		case parts[0] == "github" && len(parts) == 2:
			var ok bool
			if v, ok = r.github[parts[1]]; !ok {
				r.t.Fatalf("the runner stand-in has no github.%s", parts[1])
			}
		case parts[0] == "steps" && len(parts) == 4 && parts[2] == "outputs":
			v = r.steps[parts[1]][parts[3]]
		default:
			r.t.Fatalf("the runner stand-in cannot evaluate %q", expr)
		}
		if v != "" {
			return v
		}
	}
	return ""
}

func (r *runner) expand(s string) string {
	return exprRE.ReplaceAllStringFunc(s, func(m string) string { return r.value(exprRE.FindStringSubmatch(m)[1]) })
}

// cond evaluates an if: of the forms action.yml uses: "X == 'v'",
// "X != ”", "always() && A", "A || B" of those, parenthesised or not.
func (r *runner) cond(s string) bool {
	r.t.Helper()
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	if strings.Contains(s, "&&") {
		for _, part := range strings.Split(s, "&&") {
			if part = strings.TrimSpace(part); part != "always()" && !r.cond(part) {
				return false
			}
		}
		return true
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	if strings.Contains(s, "||") && !strings.Contains(s, "==") {
		for _, alt := range strings.Split(s, "||") {
			if r.cond(alt) {
				return true
			}
		}
		return false
	}
	for _, op := range []string{"==", "!="} {
		if l, rhs, ok := strings.Cut(s, op); ok {
			lit := strings.Trim(strings.TrimSpace(rhs), "'")
			eq := r.value(strings.TrimSpace(l)) == lit
			return eq == (op == "==")
		}
	}
	r.t.Fatalf("the runner stand-in cannot evaluate if: %q", s)
	return false
}

// use runs the action with the workflow step's with: values and returns its
// outputs.
func (r *runner) use(with map[string]string) map[string]string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.actionDir, "action.yml"))
	if err != nil {
		r.t.Fatal(err)
	}
	var a actionDef
	if err := yaml.Unmarshal(data, &a); err != nil {
		r.t.Fatal(err)
	}
	r.inputs = map[string]string{}
	for name, in := range a.Inputs {
		r.inputs[name] = r.expand(in.Default)
	}
	for k, v := range with {
		if _, ok := a.Inputs[k]; !ok {
			r.t.Fatalf("with: %s: the action has no such input", k)
		}
		r.inputs[k] = v
	}
	r.steps, r.ran = map[string]map[string]string{}, nil
	for i, st := range a.Runs.Steps {
		if !r.cond(st.If) {
			continue
		}
		name := st.ID
		if name == "" {
			name = st.Name
		}
		if st.Uses != "" {
			r.t.Fatalf("step %q (uses: %s) runs: the @v1 pin must download, not build", name, st.Uses)
		}
		if st.Shell != "bash" {
			r.t.Fatalf("step %q: shell %q", name, st.Shell)
		}
		r.ran = append(r.ran, name)
		out := filepath.Join(r.temp, fmt.Sprintf("output-%d", i))
		script := filepath.Join(r.temp, fmt.Sprintf("step-%d.sh", i))
		if err := os.WriteFile(script, []byte(st.Run), 0o644); err != nil {
			r.t.Fatal(err)
		}
		env := append([]string{}, r.env...)
		env = append(env, "GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+r.summary, "GITHUB_ACTION_PATH="+r.actionDir)
		for k, v := range st.Env {
			env = append(env, k+"="+r.expand(v))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = r.workspace
		if wd := r.expand(st.WorkingDirectory); wd != "" {
			cmd.Dir = filepath.Join(r.workspace, wd)
		}
		cmd.Env = env
		outb, err := cmd.CombinedOutput()
		if err != nil {
			r.t.Fatalf("step %q: %v\n%s", name, err, outb)
		}
		r.t.Logf("step %q:\n%s", name, outb)
		r.steps[st.ID] = map[string]string{}
		if data, err := os.ReadFile(out); err == nil {
			for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					r.steps[st.ID][k] = v
				}
			}
		}
	}
	outputs := map[string]string{}
	for name, o := range a.Outputs {
		outputs[name] = r.expand(o.Value)
	}
	return outputs
}

// releaseStandIn lays out releases/download/TAG/ of owner/repo under root as
// .goreleaser.yaml publishes it, with the CLI built from this tree.
func releaseStandIn(t *testing.T, root, tag, bin string) {
	t.Helper()
	dir := filepath.Join(root, "ghcommitter", "ghcommitter", "releases", "download", tag)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("ghcommitter_%s_linux_%s.tar.gz", strings.TrimPrefix(tag, "v"), runtime.GOARCH)
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	gz := gzip.NewWriter(io.MultiWriter(f, h))
	tw := tar.NewWriter(gz)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.WriteHeader(&tar.Header{Name: "ghcommitter", Mode: 0o755, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	sums := hex.EncodeToString(h.Sum(nil)) + "  " + name + "\n"
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
}

// actionCheckout is the action as the runner downloads it for @v1: a copy
// of action.yml and its scripts whose tree names release tag.
func actionCheckout(t *testing.T, root, tag string) string {
	t.Helper()
	dir := filepath.Join(root, "_actions", "ghcommitter", "ghcommitter", "v1")
	for _, f := range []string{"action.yml", "scripts/action-install.sh"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), string(data), 0o755)
	}
	writeFile(t, filepath.Join(dir, ".github", "action-version"), tag+"\n", 0o644)
	return dir
}

func TestActionWorkflowEndToEnd(t *testing.T) {
	// Runs under -short too (make test): it is the action's promise.
	needTools(t, "bash", "curl", "tar", "awk", "git")
	bin := buildSharedCLI(t)
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if arch == "" {
		t.Skipf("no runner for %s", runtime.GOARCH)
	}
	for _, event := range []string{"push", "pull_request"} {
		t.Run(event, func(t *testing.T) {
			root := t.TempDir()
			releaseStandIn(t, filepath.Join(root, "server"), "v1.2.3", bin)
			actionDir := actionCheckout(t, root, "v1.2.3")

			// The repository: main, and in the pull_request case the pull
			// request's head branch feature; the checkout is the run's
			// branch, as actions/checkout leaves it.
			g := newGitRepo(t)
			g.write(".gitignore", "*.log\nnode_modules/\n", 0o644)
			g.write("config/app.yaml", "replicas: 1\n", 0o644)
			g.write("config/old.yaml", "old: true\n", 0o644)
			g.git("add", "-A")
			g.git("commit", "-q", "-m", "main")
			srv := fake(t, g.headFiles()...)
			runBranch, ref := "main", "refs/heads/main"
			payload := `{"ref":"refs/heads/main","repository":{"full_name":"acme/mono"}}`
			if event == "pull_request" {
				g.write("feature.txt", "feature\n", 0o644)
				g.git("add", "-A")
				g.git("commit", "-q", "-m", "feature")
				// The head branch as the checkout has it (a root commit of
				// the same tree).
				if _, err := srv.Seed("acme", "mono", "feature", "feature", g.headFiles()...); err != nil {
					t.Fatal(err)
				}
				runBranch, ref = "feature", "refs/pull/7/merge"
				payload = `{"number":7,"pull_request":{"head":{"ref":"feature","repo":{"full_name":"acme/mono"}},"base":{"ref":"main","repo":{"full_name":"acme/mono"}}}}`
			}
			runHead := head(t, srv, runBranch)
			// What the job's earlier steps changed.
			g.write("config/app.yaml", "replicas: 3\n", 0o644)
			g.write("config/new.yaml", "new: true\n", 0o644)
			g.write("debug.log", "ignored\n", 0o644)
			g.write("node_modules/x/index.js", "ignored\n", 0o644)
			if err := os.Remove(filepath.Join(g.dir, "config/old.yaml")); err != nil {
				t.Fatal(err)
			}
			eventFile := filepath.Join(root, "event.json")
			writeFile(t, eventFile, payload, 0o644)
			temp := filepath.Join(root, "runner-temp")
			if err := os.MkdirAll(temp, 0o755); err != nil {
				t.Fatal(err)
			}
			r := &runner{t: t, actionDir: actionDir, workspace: g.dir, temp: temp, summary: filepath.Join(root, "summary.md"),
				github: map[string]string{
					"action_ref": "v1", "action_repository": "ghcommitter/ghcommitter",
					"server_url": "file://" + filepath.Join(root, "server"),
					"repository": "acme/mono", "token": testToken,
				}}
			r.env = append([]string{
				"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "RUNNER_TEMP=" + temp, "RUNNER_OS=Linux", "RUNNER_ARCH=" + arch,
				"GITHUB_ACTIONS=true", "CI=true", "GITHUB_WORKSPACE=" + g.dir, "GITHUB_REPOSITORY=acme/mono",
				"GITHUB_API_URL=" + srv.URL, "GITHUB_SERVER_URL=" + srv.URL, "GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + eventFile,
				"GITHUB_REF=" + ref,
			}, g.env...)
			if event == "pull_request" {
				r.env = append(r.env, "GITHUB_HEAD_REF=feature", "GITHUB_BASE_REF=main")
			}
			with := map[string]string{"message": "Render config\n\nFrom the job.", "changed": "true", "engine": "auto", "pull-request": "true"}
			out := r.use(with)

			if strings.Join(r.ran, ",") != "mode,download,commit" {
				t.Errorf("steps run: %v, want mode, download, commit", r.ran)
			}
			if !strings.HasPrefix(r.steps["download"]["bin"], temp) {
				t.Errorf("the binary came from %q, not the release download", r.steps["download"]["bin"])
			}
			var files []string
			if err := json.Unmarshal([]byte(out["changed-files"]), &files); err != nil {
				t.Fatalf("changed-files %q: %v", out["changed-files"], err)
			}
			want := `["config/app.yaml","config/new.yaml","config/old.yaml"]`
			if got, _ := json.Marshal(files); string(got) != want || out["changed-count"] != "3" {
				t.Errorf("changed-files %s (count %s), want %s", got, out["changed-count"], want)
			}
			if out["noop"] != "false" || out["pull-request-operation"] != "created" || out["pull-request-number"] != "1" ||
				!strings.HasPrefix(out["branch"], "ghcommitter/") || out["engine"] == "" || out["commit"] != head(t, srv, out["branch"]) {
				t.Errorf("outputs = %v", out)
			}
			pr, ok := pullInfo(t, srv, 1)
			if !ok || pr.Base != runBranch || pr.Head != out["branch"] || pr.Title != "Render config" {
				t.Errorf("pull request = %+v, want from %s into %s", pr, out["branch"], runBranch)
			}
			if head(t, srv, runBranch) != runHead {
				t.Errorf("the run's branch %s moved", runBranch)
			}
			for p, want := range map[string]string{"config/app.yaml": "replicas: 3\n", "config/new.yaml": "new: true\n"} {
				if got, _ := readFile(t, srv, out["branch"], p); got != want {
					t.Errorf("%s = %q", p, got)
				}
			}
			for _, p := range []string{"config/old.yaml", "debug.log", "node_modules/x/index.js"} {
				if _, _, err := srv.ReadFile("acme", "mono", out["branch"], p); err == nil {
					t.Errorf("%s is on the branch", p)
				}
			}
			sum, _ := os.ReadFile(r.summary)
			if !strings.Contains(string(sum), "/commit/"+out["commit"]+")") || !strings.Contains(string(sum), "pull request [#1]("+out["pull-request-url"]+") created") {
				t.Errorf("job summary:\n%s", sum)
			}

			// A re-run of the same job: nothing new lands, the pull request
			// is unchanged.
			again := r.use(with)
			if again["pull-request-operation"] != "unchanged" || again["noop"] != "true" || again["branch"] != out["branch"] || again["commit"] != out["commit"] {
				t.Errorf("re-run outputs = %v", again)
			}
		})
	}
}
