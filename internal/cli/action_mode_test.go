package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// modeOutputs runs action.yml's "Choose how to install" step with the
// action checked out at actionPath (a copy of the scripts), the runner's
// github.action_repository and action_ref, the version: input and env, and
// returns its outputs.
func modeOutputs(t *testing.T, actionPath, repo, ref, version string, env ...string) (map[string]string, string, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "action-install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(actionPath, "scripts", "action-install.sh"), string(data), 0o755)
	out := filepath.Join(t.TempDir(), "output")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", actionSteps(t)["mode"].Run)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GITHUB_OUTPUT=" + out,
		"GITHUB_ACTION_PATH=" + actionPath, "ACTION_REPO=" + repo, "ACTION_REF=" + ref, "INPUT_VERSION=" + version,
		"SERVER_URL=https://ghe.example", "RUNNER_OS=Linux", "RUNNER_ARCH=X64", "RUNNER_TEMP=" + t.TempDir()}, env...)
	stderr, err := cmd.CombinedOutput()
	outputs := map[string]string{}
	data, _ = os.ReadFile(out)
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			outputs[k] = v
		}
	}
	return outputs, string(stderr), err
}

// TestActionModeLocal: a local action (uses: ./DIR: no repository or ref
// of its own) with version: downloads from the project's releases, not
// from a URL made of its directory's path; a remote action from its own
// repository's on the runner's server; GHCOMMITTER_RELEASES_URL names a
// mirror.
func TestActionModeLocal(t *testing.T) {
	needTools(t, "bash")
	local := filepath.Join(t.TempDir(), "work", "repo", "repo", "tools", "ghcommitter")
	remote := filepath.Join(t.TempDir(), "_actions", "acme", "ghc-fork", "v1.2.3")
	for _, tc := range []struct {
		name, path, repo, ref, version string
		env                            []string
		mode, releases                 string
	}{
		{name: "local with version", path: local, version: "v1.2.3", mode: "download", releases: "https://github.com/ghcommitter/ghcommitter/releases/download"},
		{name: "local without version", path: local, mode: "source"},
		{name: "remote", path: remote, repo: "acme/ghc-fork", ref: "v1.2.3", mode: "download", releases: "https://ghe.example/acme/ghc-fork/releases/download"},
		{name: "remote by path", path: remote, mode: "download", releases: "https://ghe.example/acme/ghc-fork/releases/download"},
		{name: "mirror", path: local, version: "v1.2.3", env: []string{"GHCOMMITTER_RELEASES_URL=https://mirror.example/r"}, mode: "download", releases: "https://mirror.example/r"},
	} {
		got, stderr, err := modeOutputs(t, tc.path, tc.repo, tc.ref, tc.version, tc.env...)
		if err != nil {
			t.Errorf("%s: %v\n%s", tc.name, err, stderr)
			continue
		}
		if got["mode"] != tc.mode || tc.releases != "" && got["releases"] != tc.releases {
			t.Errorf("%s: mode %q releases %q, want %q %q", tc.name, got["mode"], got["releases"], tc.mode, tc.releases)
		}
		if tc.mode == "source" && (got["cache-key"] == "" || got["build-dir"] == "" || got["host-go"] == "") {
			t.Errorf("%s: the source path's outputs are missing: %v", tc.name, got)
		}
	}
}
