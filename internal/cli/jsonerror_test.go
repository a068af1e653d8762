package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// oneJSON decodes stdout as exactly one JSON object.
func oneJSON(t *testing.T, stdout string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value:\n%s", stdout)
	}
	return obj
}

// TestJSONFailures: with --json, every failure prints exactly one
// {"error":{...}} object on stdout, with every contract key, beside the
// usual exit status and stderr.
func TestJSONFailures(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "lock", Content: []byte("held\n")})
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		fault  *githubtest.Fault
		code   int
		kind   string
		status int
	}{
		{"flag cobra rejects", []string{"--json", "--bogus"}, nil, nil, 2, "invalid", 0},
		{"flag check", []string{"--json", "-m", "m", "--max-attempts", "0", "--delete", "x"}, nil, nil, 2, "invalid", 0},
		{"nothing to commit", []string{"--json", "-m", "m"}, nil, nil, 2, "invalid", 0},
		{"precondition", []string{"--json", "-m", "m", "--expect-absent", "lock", "--delete", "lock"}, nil, nil, 3, "conflict", 0},
		{"edit command", []string{"--json", "-m", "m", "--edit", "a=exit 4"}, nil, nil, 1, "edit_failed", 0},
		{"unauthorized", []string{"--json", "-m", "m", "--delete", "lock"}, map[string]string{"GH_TOKEN": "wrong"}, nil, 1, "unauthorized", 401},
		{"refused ref update", []string{"--json", "-m", "m", "--delete", "lock"}, nil,
			&githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Status: 403, Body: `{"message":"Resource not accessible by integration"}`}, 1, "permission", 403},
	}
	want := jsonErrorKeys
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.ClearFaults()
			if tt.fault != nil {
				srv.Inject(*tt.fault)
			}
			c := newCLI(t)
			for k, v := range tt.env {
				c.env[k] = v
			}
			r := c.run(commitArgs(srv, tt.args...)...)
			r.wantCode(t, tt.code)
			if !strings.HasPrefix(r.stderr, "ghcommitter: ") {
				t.Errorf("stderr = %q, want the usual report too", r.stderr)
			}
			obj := oneJSON(t, r.stdout)
			body, ok := obj["error"].(map[string]any)
			if !ok || len(obj) != 1 {
				t.Fatalf("stdout = %s, want {\"error\":{...}}", r.stdout)
			}
			var keys []string
			for k := range body {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if strings.Join(keys, ",") != strings.Join(want, ",") {
				t.Errorf("keys = %v, want %v", keys, want)
			}
			if body["kind"] != tt.kind {
				t.Errorf("kind = %v, want %s", body["kind"], tt.kind)
			}
			if msg, _ := body["message"].(string); msg == "" || !strings.Contains(r.stderr, msg) {
				t.Errorf("message = %q, want stderr's message (%q)", msg, r.stderr)
			}
			if int(body["status"].(float64)) != tt.status {
				t.Errorf("status = %v, want %d", body["status"], tt.status)
			}
			if id, _ := body["request_id"].(string); (tt.status != 0) != (id != "") {
				t.Errorf("request_id = %q with status %d", id, tt.status)
			}
		})
	}
}

// jsonErrorKeys are the keys of every --json failure (docs/cli.md).
var jsonErrorKeys = []string{"attempts", "head", "hint", "kind", "message", "request_id", "retry_after", "rule", "status"}

// cliLandingFault matches the write that lands engine's commit (auto
// picks the contents API for one new file).
func cliLandingFault(engine string) githubtest.Fault {
	switch engine {
	case "git-data":
		return githubtest.Fault{Route: githubtest.RouteUpdateRef}
	case "graphql":
		return githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationCreateCommit}
	}
	return githubtest.Fault{Route: githubtest.RoutePutContents}
}

func cliLandingPath(engine string) string {
	switch engine {
	case "git-data":
		return "/repos/acme/mono/git/refs/heads/main"
	case "graphql":
		return "/graphql"
	}
	return "/repos/acme/mono/contents/w.txt"
}

// TestJSONLandingAnswers: through the CLI, on every engine, exactly the
// answers that mean another writer moved the branch are retried (exit 0);
// a rate limit on every attempt is rate_limited (exit 1) with the wait in
// retry_after, a refused redirect failed (exit 1) naming the host, a
// protection rule protected (exit 1) with the rule's message, a path
// GitHub refuses invalid (exit 2) — never conflict (exit 3), and every
// --json failure has every key, the reply's status and request ID.
func TestJSONLandingAnswers(t *testing.T) {
	lost := map[string]githubtest.Fault{
		"git-data": {Status: 422, Body: `{"message":"Reference cannot be updated","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference"}`},
		"graphql":  {Status: 200, Body: githubtest.GraphQLErrorBody("createCommitOnBranch", "STALE_DATA", `Expected branch to point to "0929670cc804228df5f0b3e8f7a741dfb735ba62" but it did not.  Pull and try again.`)},
		"contents": {Status: 409, Body: `{"message":"is at 0929670cc804228df5f0b3e8f7a741dfb735ba62 but expected c45b5444e7ae45df5356ca2b8dbf49db646826d4"}`},
	}
	lost["auto"] = lost["contents"]
	protected := map[string]githubtest.Fault{
		"git-data": {Status: 422, Body: githubtest.BodyRuleViolation},
		"graphql":  {Status: 200, Body: githubtest.GraphQLErrorBody("createCommitOnBranch", "BRANCH_PROTECTION_RULE_VIOLATION", "Changes must be made through a pull request.")},
		"contents": {Status: 409, Body: githubtest.BodyContentsProtected},
	}
	protected["auto"] = protected["contents"]
	with := func(engine string, f githubtest.Fault, times int) githubtest.Fault {
		m := cliLandingFault(engine)
		m.Status, m.Body, m.Header, m.Times = f.Status, f.Body, f.Header, times
		return m
	}
	for _, engine := range []string{"git-data", "graphql", "contents", "auto"} {
		for _, tc := range []struct {
			name       string
			inject     func(srv *githubtest.TestServer)
			code       int
			kind       string
			status     int
			retryAfter int
			says       string
			oneFile    bool // contents and auto only
		}{
			{name: "lost race once", code: 0, inject: func(srv *githubtest.TestServer) { srv.Inject(with(engine, lost[engine], 1)) }},
			{name: "bare 429 once", code: 0, inject: func(srv *githubtest.TestServer) {
				srv.Inject(githubtest.SecondaryLimitFault(with(engine, githubtest.Fault{}, 1), 429, 0))
			}},
			{name: "403 with retry-after", code: 1, kind: "rate_limited", status: 403, retryAfter: 1, inject: func(srv *githubtest.TestServer) {
				srv.Inject(githubtest.SecondaryLimitFault(with(engine, githubtest.Fault{}, 0), 403, 1))
			}},
			// GHCOMMITTER_LIMIT_SCALE=600: a minute's wait is 100ms, 1s rounded up.
			{name: "bare 429", code: 1, kind: "rate_limited", status: 429, retryAfter: 1, inject: func(srv *githubtest.TestServer) {
				srv.Inject(githubtest.SecondaryLimitFault(with(engine, githubtest.Fault{}, 0), 429, 0))
			}},
			{name: "307 to another host", code: 1, kind: "failed", status: 307, says: "elsewhere.example", inject: func(srv *githubtest.TestServer) {
				srv.Redirect(cliLandingFault(engine), "https://elsewhere.example"+cliLandingPath(engine))
			}},
			{name: "redirect loop", code: 1, kind: "failed", status: 307, says: "127.0.0.1", inject: func(srv *githubtest.TestServer) {
				srv.Redirect(cliLandingFault(engine), cliLandingPath(engine))
			}},
			{name: "protected", code: 1, kind: "protected", status: protected[engine].Status, says: "through a pull request", inject: func(srv *githubtest.TestServer) {
				srv.Inject(with(engine, protected[engine], 0))
			}},
			{name: "path GitHub refuses", code: 2, kind: "invalid", status: 422, says: "malformed path component", oneFile: true, inject: func(srv *githubtest.TestServer) {
				srv.Inject(with(engine, githubtest.Fault{Status: 422, Body: `{"message":"path contains a malformed path component"}`}, 0))
			}},
		} {
			if tc.oneFile && engine != "contents" && engine != "auto" {
				continue
			}
			if engine == "contents" || engine == "auto" {
				if tc.name == "protected" {
					tc.says = "Required status check"
				}
			}
			t.Run(engine+"/"+tc.name, func(t *testing.T) {
				srv := fake(t)
				if engine == "git-data" {
					noUpdateRefs(srv) // the REST PATCH answers; updateRefs': TestJSONUpdateRefsAnswers
				}
				before := head(t, srv, "main")
				tc.inject(srv)
				c := newCLI(t)
				c.env["GHCOMMITTER_LIMIT_SCALE"] = "600"
				c.stdin = "w\n"
				r := c.run(commitArgs(srv, "--json", "-m", "m", "--engine", engine, "--max-attempts", "2", "--add", "w.txt=-")...)
				r.wantCode(t, tc.code)
				obj := oneJSON(t, r.stdout)
				if tc.code == 0 {
					if obj["commit"] != head(t, srv, "main") {
						t.Fatalf("reported %v, head is %s", obj["commit"], head(t, srv, "main"))
					}
					return
				}
				body, ok := obj["error"].(map[string]any)
				if !ok {
					t.Fatalf("stdout = %s, want {\"error\":{...}}", r.stdout)
				}
				var keys []string
				for k := range body {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				if strings.Join(keys, ",") != strings.Join(jsonErrorKeys, ",") {
					t.Errorf("keys = %v, want %v", keys, jsonErrorKeys)
				}
				if body["kind"] != tc.kind {
					t.Errorf("kind = %v, want %s (%s)", body["kind"], tc.kind, r.stderr)
				}
				if n, _ := body["status"].(float64); int(n) != tc.status {
					t.Errorf("status = %v, want %d", body["status"], tc.status)
				}
				if id, _ := body["request_id"].(string); !strings.HasPrefix(id, "FAKE:") {
					t.Errorf("request_id = %q, want the reply's X-GitHub-Request-Id", id)
				}
				if n, ok := body["retry_after"].(float64); !ok || int(n) != tc.retryAfter {
					t.Errorf("retry_after = %v, want %d", body["retry_after"], tc.retryAfter)
				}
				if msg, _ := body["message"].(string); !strings.Contains(msg, tc.says) {
					t.Errorf("message = %q, want it to say %q", msg, tc.says)
				}
				if got := head(t, srv, "main"); got != before {
					t.Errorf("main moved to %s on a failure", got)
				}
			})
		}
	}
}

// TestJSONConflictCarriesHeadAndAttempts: a lost race reports the last head
// seen and the attempts made.
func TestJSONConflictCarriesHeadAndAttempts(t *testing.T) {
	srv := fake(t)
	before := head(t, srv, "main")
	srv.Inject(staleUpdateRefs())
	r := newCLI(t).run(commitArgs(srv, "--json", "-m", "m", "--max-attempts", "2", "--edit", "a=echo a")...)
	r.wantCode(t, 3)
	body := oneJSON(t, r.stdout)["error"].(map[string]any)
	if body["kind"] != "conflict" || body["head"] != before || body["attempts"] != 2.0 || body["hint"] == "" {
		t.Errorf("error = %v, want conflict at head %s after 2 attempts, with a hint", body, before)
	}
}

// TestCountsOnlyRealChanges: output never counts a file whose content
// was already there as changed.
func TestCountsOnlyRealChanges(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "same.txt", Content: []byte("same\n")})
	local := filepath.Join(t.TempDir(), "same.txt")
	writeFile(t, local, "same\n", 0o644)
	r := newCLI(t).run(commitArgs(srv, "--json", "-m", "m", "--add", "same.txt="+local, "--edit", "new.txt=echo new")...)
	r.wantCode(t, 0)
	obj := oneJSON(t, r.stdout)
	changed, _ := obj["changed"].([]any)
	for _, p := range changed {
		if p == "same.txt" {
			t.Errorf("changed = %v lists same.txt, whose content did not change", changed)
		}
	}
	if len(changed) != 1 || changed[0] != "new.txt" {
		t.Errorf("changed = %v, want [new.txt]", changed)
	}
	r = newCLI(t).run(commitArgs(srv, "-m", "m", "--add", "same.txt="+local, "--edit", "new.txt=echo newer")...)
	r.wantCode(t, 0)
	if !strings.HasPrefix(r.stdout, "committed 1 file to") {
		t.Errorf("stdout = %q, want 1 file: only new.txt changed", r.stdout)
	}
}

// TestJSONUpdateRefsAnswers: git-data's default landing write, updateRefs,
// through the CLI: a STALE_DATA naming the branch once is a lost race
// (retried, exit 0); a ruleset's refusal is protected (exit 1) with the
// rule's message.
func TestJSONUpdateRefsAnswers(t *testing.T) {
	t.Run("lost race once", func(t *testing.T) {
		srv := fake(t)
		f := staleUpdateRefs()
		f.Times = 1
		srv.Inject(f)
		updates := countUpdateRefs(srv)
		r := newCLI(t).run(commitArgs(srv, "--json", "-m", "m", "--edit", "a=echo a")...)
		r.wantCode(t, 0)
		if n := updates(); n != 2 || srv.CountMethod("PATCH") != 0 {
			t.Fatalf("%d updateRefs, %d PATCHes: want 2 and none", n, srv.CountMethod("PATCH"))
		}
	})
	t.Run("protected", func(t *testing.T) {
		srv := fake(t)
		if _, err := srv.AddRuleset("acme", "mono", githubtest.Ruleset{Name: "pr", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequirePullRequest()}}); err != nil {
			t.Fatal(err)
		}
		before := head(t, srv, "main")
		r := newCLI(t).run(commitArgs(srv, "--json", "-m", "m", "--edit", "a=echo a")...)
		r.wantCode(t, 1)
		obj, _ := oneJSON(t, r.stdout)["error"].(map[string]any)
		if obj["kind"] != "protected" || !strings.Contains(fmt.Sprint(obj["message"]), "through a pull request") {
			t.Fatalf("got %v", obj)
		}
		if head(t, srv, "main") != before {
			t.Fatal("the branch moved")
		}
	})
}

// TestJSONProtectedNamesTheRule: --json's rule names the rule that refused
// the write, the hint the way through in the CLI's flags; with
// --on-protected pull-request a pull-request rule's refusal becomes a pull
// request from a generated branch.
func TestJSONProtectedNamesTheRule(t *testing.T) {
	for _, tc := range []struct {
		rule githubtest.Rule
		hint string
	}{
		{githubtest.RequirePullRequest(), "--on-protected pull-request"},
		{githubtest.RequireSignatures(), "--engine graphql"},
		{githubtest.RequireMergeQueue(), "merge queue"},
	} {
		t.Run(tc.rule.Type, func(t *testing.T) {
			srv := fake(t)
			if _, err := srv.AddRuleset("acme", "mono", githubtest.Ruleset{Name: "r", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{tc.rule}}); err != nil {
				t.Fatal(err)
			}
			r := newCLI(t).run(commitArgs(srv, "--json", "-m", "m", "--edit", "a=echo a")...)
			r.wantCode(t, 1)
			obj, _ := oneJSON(t, r.stdout)["error"].(map[string]any)
			if obj["kind"] != "protected" || obj["rule"] != tc.rule.Type || !strings.Contains(fmt.Sprint(obj["hint"]), tc.hint) {
				t.Fatalf("got %v, want rule %s and a hint naming %q", obj, tc.rule.Type, tc.hint)
			}
		})
	}
	t.Run("on-protected pull-request", func(t *testing.T) {
		srv := fake(t)
		if _, err := srv.AddRuleset("acme", "mono", githubtest.Ruleset{Name: "r", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequirePullRequest()}}); err != nil {
			t.Fatal(err)
		}
		before := head(t, srv, "main")
		r := newCLI(t).run(commitArgs(srv, "--json", "-m", "m", "--on-protected", "pull-request", "--edit", "a=echo a")...)
		r.wantCode(t, 0)
		obj := oneJSON(t, r.stdout)
		pr, _ := obj["pull_request"].(map[string]any)
		branch, _ := obj["branch"].(string)
		if pr == nil || pr["number"] == 0.0 || pr["base"] != "main" || !strings.HasPrefix(branch, "ghcommitter/") {
			t.Fatalf("got %v", obj)
		}
		if head(t, srv, "main") != before || head(t, srv, branch) != obj["commit"] {
			t.Fatal("main moved, or the head branch is not at the commit")
		}
		r = newCLI(t).run(commitArgs(srv, "-m", "m", "--on-protected", "sometimes", "--edit", "a=echo a")...)
		r.wantCode(t, 2)
	})
}
