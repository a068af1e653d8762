package commit

import (
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

func TestGHEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name              string
		vars              map[string]string
		apiFlag, repoFlag string
		wantRepo, wantAPI string
		wantToken         string
	}{
		{name: "nothing set", wantAPI: DefaultAPIURL},
		{name: "Actions", vars: map[string]string{"GITHUB_REPOSITORY": "acme/mono", "GITHUB_API_URL": "https://api.github.com", "GITHUB_TOKEN": "gt"},
			wantRepo: "acme/mono", wantAPI: "https://api.github.com", wantToken: "gt"},
		{name: "GH_REPO before GITHUB_REPOSITORY", vars: map[string]string{"GH_REPO": "acme/other", "GITHUB_REPOSITORY": "acme/mono"},
			wantRepo: "acme/other", wantAPI: DefaultAPIURL},
		{name: "GH_REPO with a server host", vars: map[string]string{"GH_REPO": "ghe.corp.example/acme/mono", "GH_TOKEN": "dotcom", "GH_ENTERPRISE_TOKEN": "ent"},
			wantRepo: "acme/mono", wantAPI: "https://ghe.corp.example/api/v3/", wantToken: "ent"},
		{name: "GH_REPO's host is ignored with -R", vars: map[string]string{"GH_REPO": "ghe.corp.example/acme/mono"}, repoFlag: "acme/x",
			wantRepo: "acme/mono", wantAPI: DefaultAPIURL},
		{name: "GH_REPO on github.com", vars: map[string]string{"GH_REPO": "github.com/acme/mono", "GH_TOKEN": "dotcom", "GH_ENTERPRISE_TOKEN": "ent"},
			wantRepo: "acme/mono", wantAPI: DefaultAPIURL, wantToken: "dotcom"},
		{name: "GH_HOST before GITHUB_API_URL", vars: map[string]string{"GH_HOST": "ghe.corp.example", "GITHUB_API_URL": "https://api.github.com", "GITHUB_ENTERPRISE_TOKEN": "ent2", "GITHUB_TOKEN": "gt"},
			wantAPI: "https://ghe.corp.example/api/v3/", wantToken: "ent2"},
		{name: "GH_HOST on ghe.com", vars: map[string]string{"GH_HOST": "acme.ghe.com", "GH_TOKEN": "t", "GH_ENTERPRISE_TOKEN": "ent"},
			wantAPI: "https://api.acme.ghe.com/", wantToken: "t"},
		{name: "--api-url wins", vars: map[string]string{"GH_HOST": "ghe.corp.example", "GH_REPO": "h.example/a/b"}, apiFlag: "https://api.github.com/",
			wantRepo: "a/b", wantAPI: "https://api.github.com/"},
		{name: "server without GH_ENTERPRISE_TOKEN falls back to GH_TOKEN", vars: map[string]string{"GITHUB_API_URL": "https://ghe.corp.example/api/v3", "GH_TOKEN": "t"},
			wantAPI: "https://ghe.corp.example/api/v3", wantToken: "t"},
		{name: "GH_TOKEN before GITHUB_TOKEN", vars: map[string]string{"GH_TOKEN": " t1 ", "GITHUB_TOKEN": "t2"},
			wantAPI: DefaultAPIURL, wantToken: "t1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &cmdutil.Env{Getenv: func(k string) string { return tc.vars[k] }}
			if got := envRepo(e); got != tc.wantRepo {
				t.Errorf("repo = %q, want %q", got, tc.wantRepo)
			}
			api := APIURLFor(tc.apiFlag, tc.repoFlag, e)
			if api != tc.wantAPI {
				t.Errorf("API URL = %q, want %q", api, tc.wantAPI)
			}
			if got := envToken(e, api); got != tc.wantToken {
				t.Errorf("token = %q, want %q", got, tc.wantToken)
			}
		})
	}
}
