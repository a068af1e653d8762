package githubtest

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql/resolve"
)

// childOf makes an unsigned commit on top of parent (on no branch) that
// puts path, over REST.
func childOf(t *testing.T, ts *TestServer, parent, path, content string) string {
	t.Helper()
	c, _ := ts.Commit("acme", "mono", parent)
	tr := call(t, ts, "POST", "/repos/acme/mono/git/trees", map[string]any{"base_tree": c.Tree,
		"tree": []any{map[string]any{"path": path, "mode": "100644", "type": "blob", "content": content}}})
	return call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "child", "tree": tr.str(t, "sha"),
		"parents": []string{parent}}).str(t, "sha")
}

// Every write that moves a ref goes through the rules: REST ref updates,
// contents writes, createCommitOnBranch and updateRefs, each with its
// refusal, and nothing moves; a bypass login goes through.
func TestRulesRefuseEveryWritePath(t *testing.T) {
	ts, repoID, head, next := refsFixture(t)
	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Name: "protect main", Include: []string{"~DEFAULT_BRANCH"},
		Rules: []Rule{RequirePullRequest()}, BypassLogins: []string{"release-bot"}}); err != nil {
		t.Fatal(err)
	}
	const msg = "Changes must be made through a pull request."
	rr := "/repos/acme/mono"
	r := call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": next})
	expect(t, r, 422, "Repository rule violations found")
	expect(t, r, 422, msg)
	validateReply(t, "git-update-ref", r.Status, r.Raw)

	r = call(t, ts, "PUT", rr+"/contents/new.txt", map[string]any{"message": "m", "content": b64("x")})
	expect(t, r, 409, msg)
	validateReply(t, "repos-create-or-update-file-contents", r.Status, r.Raw)

	g := gql(t, ts, "/graphql", mCommit, commitInput(head, map[string]string{"x.txt": "x"}))
	if errs := gqlErrors(t, g); len(errs) != 1 || errs[0]["type"] != "UNPROCESSABLE" ||
		!strings.Contains(errs[0]["message"].(string), "refs/heads/main") || !strings.Contains(errs[0]["message"].(string), msg) {
		t.Fatalf("createCommitOnBranch: %s", g.Raw)
	}
	// updateRefs: the ruled branch with a free tag; the tag is not created.
	g = updateRefs(t, ts, repoID, ru("refs/tags/free", resolve.ZeroOid, next, false), ru("refs/heads/main", head, next, false))
	if errs := gqlErrors(t, g); len(errs) != 1 || !strings.Contains(errs[0]["message"].(string), "refs/heads/main") {
		t.Fatalf("updateRefs: %s", g.Raw)
	}
	if got := call(t, ts, "GET", rr+"/git/ref/tags/free", nil); got.Status != 404 {
		t.Fatal("a refused updateRefs created the tag")
	}
	if h, _ := ts.Head("acme", "mono", "main"); h != head {
		t.Fatal("main moved")
	}
	// Other branches are free; the bypass actor is free on main.
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/topic", "sha": head}), 201, "")
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/topic", map[string]any{"sha": next}), 200, "")
}

// A ruleset's BypassLogins skip it: the login is the token's user.
func TestRulesBypass(t *testing.T) {
	ts, _, head, next := refsFixture(t)
	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Include: []string{"main"}, Rules: []Rule{RestrictUpdates()},
		BypassLogins: []string{"octocat"}}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "PATCH", "/repos/acme/mono/git/refs/heads/main", map[string]any{"sha": next}), 200, "")
	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Include: []string{"refs/heads/main"}, Rules: []Rule{RestrictUpdates()}}); err != nil {
		t.Fatal(err)
	}
	r := call(t, ts, "PATCH", "/repos/acme/mono/git/refs/heads/main", map[string]any{"sha": childOf(t, ts, next, "z", "z")})
	expect(t, r, 422, "Cannot update this protected ref.")
	if h, _ := ts.Head("acme", "mono", "main"); h != next || h == head {
		t.Fatal("main moved past the second ruleset")
	}
}

// required_signatures: GitHub-signed commits and commits signed with a
// registered key by a committer the key names pass; unsigned ones, and
// ones signed with an unknown key, do not.
func TestRulesRequiredSignatures(t *testing.T) {
	ts, head := seeded(t)
	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Include: []string{"~ALL"}, Rules: []Rule{RequireSignatures()}}); err != nil {
		t.Fatal(err)
	}
	rr := "/repos/acme/mono"
	unsigned := childOf(t, ts, head, "u.txt", "u")
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": unsigned}), 422, "Commits must have verified signatures.")

	// GitHub signs createCommitOnBranch's commit: accepted.
	g := gql(t, ts, "/graphql", mCommit, commitInput(head, map[string]string{"g.txt": "g"}))
	if len(gqlErrors(t, g)) != 0 {
		t.Fatalf("a GitHub-signed commit was refused: %s", g.Raw)
	}
	head, _ = ts.Head("acme", "mono", "main")

	key, err := openpgp.NewEntity("Dev", "", "dev@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	signed := func(email string, k *openpgp.Entity) (string, map[string]any) {
		t.Helper()
		c, _ := ts.Commit("acme", "mono", head)
		sig := map[string]any{"name": "Dev", "email": email, "date": "2024-01-01T00:00:00Z"}
		payload := "tree " + c.Tree + "\nparent " + head + "\nauthor Dev <" + email + "> 1704067200 +0000\ncommitter Dev <" + email + "> 1704067200 +0000\n\nsigned\n"
		var buf bytes.Buffer
		if err := openpgp.ArmoredDetachSign(&buf, k, strings.NewReader(payload), nil); err != nil {
			t.Fatal(err)
		}
		r := call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "signed\n", "tree": c.Tree, "parents": []string{head},
			"author": sig, "committer": sig, "signature": buf.String()})
		expect(t, r, 201, "")
		if got := r.obj(t)["verification"].(map[string]any)["payload"]; got != payload {
			t.Fatalf("payload %q, signed %q", got, payload)
		}
		return r.str(t, "sha"), r.obj(t)["verification"].(map[string]any)
	}
	sha, v := signed("dev@example.com", key)
	if v["verified"] != false || v["reason"] != "unknown_key" {
		t.Fatalf("before AddGPGKey: %v", v)
	}
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": sha}), 422, "verified signatures")

	var pub bytes.Buffer
	w, _ := armor.Encode(&pub, openpgp.PublicKeyType, nil)
	if err := key.Serialize(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := ts.AddGPGKey(pub.String()); err != nil {
		t.Fatal(err)
	}
	if _, v := signed("other@example.com", key); v["verified"] != false || v["reason"] != "bad_email" {
		t.Fatalf("another committer's email: %v", v)
	}
	sha, v = signed("dev@example.com", key)
	if v["verified"] != true || v["reason"] != "valid" {
		t.Fatalf("registered key: %v", v)
	}
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": sha}), 200, "")
}

// required_status_checks, file_path_restriction and max_file_size look at
// what the update brings.
func TestRulesChecksPathsAndSizes(t *testing.T) {
	ts, head := seeded(t)
	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Include: []string{"main"}, Rules: []Rule{
		RequireStatusChecks("ci"), RestrictFilePaths("secrets/**", "*.pem"), MaxFileSize(1),
	}}); err != nil {
		t.Fatal(err)
	}
	rr := "/repos/acme/mono"
	patch := func(sha string) reply {
		return call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": sha})
	}

	ok := childOf(t, ts, head, "docs/a.md", "a")
	expect(t, patch(ok), 422, `Required status check "ci" is expected.`)
	if err := ts.SetCommitStatus("acme", "mono", ok, "ci", "failure"); err != nil {
		t.Fatal(err)
	}
	expect(t, patch(ok), 422, `Required status check "ci" is expected.`)

	secret := childOf(t, ts, head, "secrets/db/password", "p")
	_ = ts.SetCommitStatus("acme", "mono", secret, "ci", "success")
	expect(t, patch(secret), 422, "secrets/db/password")
	pem := childOf(t, ts, head, "key.pem", "k")
	_ = ts.SetCommitStatus("acme", "mono", pem, "ci", "success")
	expect(t, patch(pem), 422, "key.pem")

	big := call(t, ts, "POST", rr+"/git/blobs", map[string]any{"content": base64.StdEncoding.EncodeToString(make([]byte, 1<<20+1)), "encoding": "base64"}).str(t, "sha")
	c, _ := ts.Commit("acme", "mono", head)
	tr := call(t, ts, "POST", rr+"/git/trees", map[string]any{"base_tree": c.Tree,
		"tree": []any{map[string]any{"path": "big.bin", "mode": "100644", "type": "blob", "sha": big}}}).str(t, "sha")
	bigCommit := call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "big", "tree": tr, "parents": []string{head}}).str(t, "sha")
	_ = ts.SetCommitStatus("acme", "mono", bigCommit, "ci", "success")
	expect(t, patch(bigCommit), 422, "big.bin")

	if h, _ := ts.Head("acme", "mono", "main"); h != head {
		t.Fatal("main moved")
	}
	if err := ts.SetCommitStatus("acme", "mono", ok, "ci", "success"); err != nil {
		t.Fatal(err)
	}
	expect(t, patch(ok), 200, "")
}

// creation, deletion, non_fast_forward and merge_queue.
func TestRulesRefLifecycle(t *testing.T) {
	ts, head := seeded(t)
	rr := "/repos/acme/mono"
	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Include: []string{"release/*", "refs/tags/v*"}, Rules: []Rule{
		RestrictCreations(), RestrictDeletions(), BlockForcePushes(),
	}}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/release/1", "sha": head}), 422, "creations being restricted")
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/tags/v1", "sha": head}), 422, "creations being restricted")
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/release-notes", "sha": head}), 201, "")
	if _, err := ts.Seed("acme", "mono", "release/2", "admin push", File{Path: "r", Content: []byte("r")}); err != nil {
		t.Fatal(err) // Seed is an admin's push: no rules
	}
	r2, _ := ts.Head("acme", "mono", "release/2")
	expect(t, call(t, ts, "DELETE", rr+"/git/refs/heads/release/2", nil), 422, "Cannot delete this protected ref.")
	root := call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "root", "tree": mustTree(t, ts, head)}).str(t, "sha")
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/release/2", map[string]any{"sha": root, "force": true}), 422, "Cannot force-push")
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/release/2", map[string]any{"sha": childOf(t, ts, r2, "x", "x")}), 200, "")

	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Include: []string{"main"}, Rules: []Rule{RequireMergeQueue()}}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": childOf(t, ts, head, "m", "m")}), 422, "merge queue")
}

func mustTree(t *testing.T, ts *TestServer, sha string) string {
	t.Helper()
	c, err := ts.Commit("acme", "mono", sha)
	if err != nil {
		t.Fatal(err)
	}
	return c.Tree
}

// GET rules/branches/{branch} lists the rules that apply, with their
// ruleset; GET branches/{b} says protected.
func TestBranchRulesEndpoint(t *testing.T) {
	ts, _ := seeded(t)
	id, err := ts.AddRuleset("acme", "mono", Ruleset{Name: "main", Include: []string{"~DEFAULT_BRANCH"}, Exclude: []string{"feature"},
		Rules: []Rule{RequirePullRequest(), RequireSignatures()}})
	if err != nil {
		t.Fatal(err)
	}
	r := call(t, ts, "GET", "/repos/acme/mono/rules/branches/main", nil)
	validateReply(t, "repos-get-branch-rules", r.Status, r.Raw)
	list, _ := r.JSON.([]any)
	if len(list) != 2 {
		t.Fatalf("rules: %s", r.Raw)
	}
	first := list[0].(map[string]any)
	if first["type"] != "pull_request" || first["ruleset_id"] != float64(id) || first["ruleset_source"] != "acme/mono" || first["ruleset_source_type"] != "Repository" {
		t.Fatalf("rule %v", first)
	}
	if r := call(t, ts, "GET", "/repos/acme/mono/rules/branches/feature", nil); r.Status != 200 || string(bytes.TrimSpace(r.Raw)) != "[]" {
		t.Fatalf("feature: %d %s", r.Status, r.Raw)
	}
	b := call(t, ts, "GET", "/repos/acme/mono/branches/main", nil)
	validateReply(t, "repos-get-branch", b.Status, b.Raw)
	if b.obj(t)["protected"] != true {
		t.Fatalf("main not protected: %s", b.Raw)
	}
}

// Classic branch protection: its refusals (REST refs 422, contents 409
// "Could not update file: ..."), GET branches/{b}/protection, protected.
func TestClassicBranchProtection(t *testing.T) {
	ts, head := seeded(t)
	rr := "/repos/acme/mono"
	expect(t, call(t, ts, "GET", rr+"/branches/main/protection", nil), 404, "Branch not protected")
	if err := ts.ProtectBranch("acme", "mono", "main", BranchProtection{RequiredStatusChecks: []string{"build"}, RequiredApprovingReviews: 1}); err != nil {
		t.Fatal(err)
	}
	p := call(t, ts, "GET", rr+"/branches/main/protection", nil)
	validateReply(t, "repos-get-branch-protection", p.Status, p.Raw)
	if p.Status != 200 || !strings.Contains(string(p.Raw), `"required_approving_review_count":1`) {
		t.Fatalf("protection: %d %s", p.Status, p.Raw)
	}
	b := call(t, ts, "GET", rr+"/branches/main", nil)
	if b.obj(t)["protected"] != true || !strings.Contains(string(b.Raw), `"contexts":["build"]`) {
		t.Fatalf("branch: %s", b.Raw)
	}
	r := call(t, ts, "PUT", rr+"/contents/x.txt", map[string]any{"message": "m", "content": b64("x")})
	expect(t, r, 409, "Could not update file: ")
	validateReply(t, "repos-create-or-update-file-contents", r.Status, r.Raw)
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": childOf(t, ts, head, "y", "y")}), 422, "approving review")
	expect(t, call(t, ts, "DELETE", rr+"/git/refs/heads/main", nil), 422, "")
	g := gql(t, ts, "/graphql", mCommit, commitInput(head, map[string]string{"x.txt": "x"}))
	if errs := gqlErrors(t, g); len(errs) != 1 || !strings.Contains(errs[0]["message"].(string), "Protected branch update failed for refs/heads/main") {
		t.Fatalf("createCommitOnBranch: %s", g.Raw)
	}
	if h, _ := ts.Head("acme", "mono", "main"); h != head {
		t.Fatal("main moved")
	}
}
