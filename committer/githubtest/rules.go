package githubtest

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
)

// Rules: repository rulesets and classic branch protection, enforced in one
// place (refusal) that every write moving a ref goes through: REST
// POST/PATCH/DELETE git/refs, contents PUT/DELETE, GraphQL
// createCommitOnBranch and updateRefs. Seed and the other Go helpers are an
// admin's push and skip them.
//
// Each rule refuses what GitHub's refuses, with GitHub's message where it is
// known from git push output and issue reports (GH013 "Repository rule
// violations found for <ref>", GH006 "Protected branch update failed for
// <ref>"); the messages of file_path_restriction and max_file_size, and how
// the API (rather than git push) words a classic-protection refusal, are
// guesses. The reply per API:
//   - REST refs: 422 {"message": "Repository rule violations found\n\n<m1>\n\n…"}
//     for rulesets; 422 with the first message for classic protection;
//   - contents: 409 with the same message for rulesets; 409 "Could not update
//     file: <m1>" for classic protection (recorded: fluxcd/terraform-provider-flux#573);
//   - GraphQL: an UNPROCESSABLE error "Repository rule violations found for
//     <ref>.\n\n<m1>…" or "Protected branch update failed for <ref>.\n\n<m1>…"
//     (a guess in GitHub's general error format; the -tags github probe
//     records the real one where a ruled branch is given).

// Rule is one rule of a ruleset, as GitHub's rules API lists it: a type
// ("pull_request", "required_signatures", ...) and its parameters.
type Rule struct {
	Type       string
	Parameters map[string]any
}

// RequirePullRequest is the pull_request rule: changes to the branch must
// be made through a pull request.
func RequirePullRequest() Rule {
	return Rule{Type: "pull_request", Parameters: map[string]any{
		"allowed_merge_methods": []string{"merge", "squash", "rebase"}, "dismiss_stale_reviews_on_push": false,
		"require_code_owner_review": false, "require_last_push_approval": false,
		"required_approving_review_count": 0, "required_review_thread_resolution": false,
	}}
}

// RequireSignatures is the required_signatures rule: every commit the
// update brings must be Verified (GitHub-signed, or signed with a key
// registered with AddGPGKey by a matching committer).
func RequireSignatures() Rule { return Rule{Type: "required_signatures"} }

// RequireStatusChecks is the required_status_checks rule: the new head
// must have a "success" status (SetCommitStatus) for every context.
func RequireStatusChecks(contexts ...string) Rule {
	checks := make([]map[string]any, 0, len(contexts))
	for _, c := range contexts {
		checks = append(checks, map[string]any{"context": c})
	}
	return Rule{Type: "required_status_checks", Parameters: map[string]any{
		"required_status_checks": checks, "strict_required_status_checks_policy": false, "do_not_enforce_on_create": false,
	}}
}

// RequireMergeQueue is the merge_queue rule: changes go through the merge
// queue, never a direct update.
func RequireMergeQueue() Rule {
	return Rule{Type: "merge_queue", Parameters: map[string]any{
		"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
		"max_entries_to_merge": 5, "merge_method": "MERGE", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5,
	}}
}

// RestrictFilePaths is the file_path_restriction rule: no commit the
// update brings may change a path matching one of the patterns (fnmatch:
// "*" within a segment, "**" across segments).
func RestrictFilePaths(patterns ...string) Rule {
	return Rule{Type: "file_path_restriction", Parameters: map[string]any{"restricted_file_paths": patterns}}
}

// MaxFileSize is the max_file_size rule: no file the update brings may be
// larger than megabytes MB (1 to 100).
func MaxFileSize(megabytes int) Rule {
	return Rule{Type: "max_file_size", Parameters: map[string]any{"max_file_size": megabytes}}
}

// RestrictCreations is the creation rule; RestrictUpdates and
// RestrictDeletions are the update and deletion rules, BlockForcePushes is
// non_fast_forward.
func RestrictCreations() Rule { return Rule{Type: "creation"} }

// RestrictUpdates is the update rule (see RestrictCreations).
func RestrictUpdates() Rule {
	return Rule{Type: "update", Parameters: map[string]any{"update_allows_fetch_and_merge": false}}
}

// RestrictDeletions is the deletion rule (see RestrictCreations).
func RestrictDeletions() Rule { return Rule{Type: "deletion"} }

// BlockForcePushes is the non_fast_forward rule (see RestrictCreations).
func BlockForcePushes() Rule { return Rule{Type: "non_fast_forward"} }

// Ruleset is a repository ruleset. Include and Exclude are ref name
// patterns as GitHub's ref_name condition takes them: "refs/heads/main",
// "refs/heads/release/*", "refs/tags/v*", "~DEFAULT_BRANCH", "~ALL"; a
// pattern without "refs/" or "~" is a branch name. BypassLogins lists the
// users (the login of the request's token) whose writes skip the ruleset.
type Ruleset struct {
	Name             string
	Include, Exclude []string
	Rules            []Rule
	BypassLogins     []string
}

// BranchProtection is classic branch protection of one branch (or a
// pattern such as "release/*").
type BranchProtection struct {
	RequiredStatusChecks     []string // contexts that must be "success" on the new head
	RequiredApprovingReviews int      // > 0: changes need a pull request
	RequireSignatures        bool
	AllowForcePushes         bool
	AllowDeletions           bool
}

type ruleset struct {
	Ruleset
	id int64
}

type protection struct {
	pattern string
	BranchProtection
}

// AddRuleset adds an active ruleset to owner/name and returns its id.
func (s *Server) AddRuleset(owner, name string, rs Ruleset) (int64, error) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return 0, fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	for _, r := range rs.Rules {
		if r.Type == "" {
			return 0, fmt.Errorf("githubtest: ruleset %q: a rule without a type", rs.Name)
		}
	}
	id := s.rulesetSeq.Add(1) // not nextID: repository IDs stay as they were
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.rulesets = append(rp.rulesets, &ruleset{Ruleset: rs, id: id})
	return id, nil
}

// ProtectBranch sets classic branch protection on branch (a name or a
// pattern) of owner/name, replacing any it had.
func (s *Server) ProtectBranch(owner, name, branch string, p BranchProtection) error {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for _, pr := range rp.protections {
		if pr.pattern == branch {
			pr.BranchProtection = p
			return nil
		}
	}
	rp.protections = append(rp.protections, &protection{pattern: branch, BranchProtection: p})
	return nil
}

// SetCommitStatus records a commit status (state "success", "failure",
// "pending" or "error") for context on sha, which required status checks
// read.
func (s *Server) SetCommitStatus(owner, name, sha, context, state string) error {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	h := plumbing.NewHash(sha)
	if _, ok := rp.Commits[h]; !ok {
		return fmt.Errorf("githubtest: %s/%s: commit %s: %w", owner, name, sha, fs.ErrNotExist)
	}
	if rp.statuses[h] == nil {
		rp.statuses[h] = map[string]string{}
	}
	rp.statuses[h][context] = state
	return nil
}

// refChange is one ref update a write is about to make: old zero for a
// create, new zero for a delete.
type refChange struct {
	ref      string
	old, new plumbing.Hash
}

// ruleRefusal lists the messages of the rules that refuse a change.
type ruleRefusal struct {
	ref      string
	rulesets []string // messages of ruleset rules
	classic  []string // messages of classic branch protection
}

func (e *ruleRefusal) Error() string { return e.graphqlMessage() }

// restMessage is the message of a REST reply (refs or contents).
func (e *ruleRefusal) restMessage(contents bool) string {
	if len(e.rulesets) > 0 {
		return "Repository rule violations found\n\n" + strings.Join(e.rulesets, "\n\n") + "\n\n"
	}
	if contents {
		return "Could not update file: " + e.classic[0]
	}
	return e.classic[0]
}

// graphqlMessage names the ref, as GitHub's push refusals do (GH013, GH006).
func (e *ruleRefusal) graphqlMessage() string {
	if len(e.rulesets) > 0 {
		return "Repository rule violations found for " + e.ref + ".\n\n" + strings.Join(e.rulesets, "\n\n")
	}
	return "Protected branch update failed for " + e.ref + ".\n\n" + strings.Join(e.classic, "\n\n")
}

func (e *ruleRefusal) gqlError() *graphql.Error {
	return graphql.Errorf("UNPROCESSABLE", e.graphqlMessage())
}

// refusal checks changes against the repository's rules for the request's
// identity; nil when every change may go ahead. Caller holds rp.mu.
func (rp *repo) refusal(id identity, changes ...refChange) *ruleRefusal {
	if len(rp.rulesets) == 0 && len(rp.protections) == 0 {
		return nil
	}
	for _, ch := range changes {
		e := &ruleRefusal{ref: ch.ref}
		for _, rs := range rp.rulesets {
			if rs.applies(rp, ch.ref) && !contains(rs.BypassLogins, id.login) {
				for _, r := range rs.Rules {
					e.rulesets = append(e.rulesets, rp.ruleMessages(r, ch)...)
				}
			}
		}
		if branch, ok := strings.CutPrefix(ch.ref, "refs/heads/"); ok {
			for _, p := range rp.protections {
				if globMatch(p.pattern, branch) {
					e.classic = append(e.classic, rp.protectionMessages(p, ch)...)
				}
			}
		}
		e.rulesets, e.classic = dedupe(e.rulesets), dedupe(e.classic)
		if len(e.rulesets) > 0 || len(e.classic) > 0 {
			return e
		}
	}
	return nil
}

func (rs *ruleset) applies(rp *repo, ref string) bool {
	match := func(pats []string) bool {
		for _, p := range pats {
			switch {
			case p == "~ALL":
				return true
			case p == "~DEFAULT_BRANCH":
				if ref == "refs/heads/"+rp.defaultBranch {
					return true
				}
			case strings.HasPrefix(p, "refs/"):
				if globMatch(p, ref) {
					return true
				}
			default:
				if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok && globMatch(p, b) {
					return true
				}
			}
		}
		return false
	}
	return match(rs.Include) && !match(rs.Exclude)
}

// ruleMessages is what one ruleset rule says about a change. Caller holds mu.
func (rp *repo) ruleMessages(r Rule, ch refChange) []string {
	create, del := ch.old.IsZero(), ch.new.IsZero()
	update := !create && !del
	switch r.Type {
	case "creation":
		if create {
			return []string{"Cannot create ref due to creations being restricted."}
		}
	case "update":
		if update {
			return []string{"Cannot update this protected ref."}
		}
	case "deletion":
		if del {
			return []string{"Cannot delete this protected ref."}
		}
	case "non_fast_forward":
		if update && !rp.IsAncestor(ch.old, ch.new) {
			return []string{"Cannot force-push to this branch"}
		}
	case "pull_request":
		if update {
			return []string{"Changes must be made through a pull request."}
		}
	case "merge_queue":
		if update {
			return []string{"Changes must be made through the merge queue"}
		}
	case "required_linear_history":
		for _, c := range rp.newCommits(ch) {
			if len(c.ParentHashes) > 1 {
				return []string{"This branch must not contain merge commits."}
			}
		}
	case "required_status_checks":
		if del || (create && r.Parameters["do_not_enforce_on_create"] == true) {
			return nil
		}
		var contexts []string
		switch checks := r.Parameters["required_status_checks"].(type) {
		case []map[string]any:
			for _, c := range checks {
				contexts = append(contexts, fmt.Sprint(c["context"]))
			}
		case []any:
			for _, c := range checks {
				if m, ok := c.(map[string]any); ok {
					contexts = append(contexts, fmt.Sprint(m["context"]))
				}
			}
		}
		return rp.missingChecks(ch.new, contexts)
	case "required_signatures":
		for _, c := range rp.newCommits(ch) {
			if !rp.verif[c.Hash].Verified {
				return []string{"Commits must have verified signatures."}
			}
		}
	case "file_path_restriction":
		pats := stringsParam(r.Parameters["restricted_file_paths"])
		var hit []string
		for _, c := range rp.newCommits(ch) {
			for p := range rp.changedFiles(c) {
				for _, pat := range pats {
					if globMatch(pat, p) {
						hit = append(hit, p)
					}
				}
			}
		}
		if len(hit) > 0 {
			// Wording a guess.
			return []string{"Cannot change restricted file paths: " + strings.Join(dedupe(hit), ", ")}
		}
	case "max_file_size":
		mb, _ := argInt(r.Parameters, "max_file_size")
		var out []string
		for _, c := range rp.newCommits(ch) {
			for p, e := range rp.changedFiles(c) {
				if data, ok := rp.Blob(e.Hash); ok && int64(len(data)) > mb<<20 {
					// Wording a guess.
					out = append(out, "File "+p+" is "+strconv.Itoa(len(data))+" bytes, over the file size limit of "+strconv.FormatInt(mb, 10)+" MB.")
				}
			}
		}
		return out
	}
	return nil
}

// protectionMessages is what classic protection says about a change.
// Caller holds mu.
func (rp *repo) protectionMessages(p *protection, ch refChange) []string {
	create, del := ch.old.IsZero(), ch.new.IsZero()
	var out []string
	switch {
	case del:
		if !p.AllowDeletions {
			out = append(out, "Cannot delete this protected branch")
		}
		return out
	case !create && !p.AllowForcePushes && !rp.IsAncestor(ch.old, ch.new):
		out = append(out, "Cannot force-push to this protected branch")
	}
	if p.RequiredApprovingReviews > 0 && !create {
		n := p.RequiredApprovingReviews
		out = append(out, fmt.Sprintf("At least %d approving review%s required by reviewers with write access.", n, map[bool]string{true: " is", false: "s are"}[n == 1]))
	}
	out = append(out, rp.missingChecks(ch.new, p.RequiredStatusChecks)...)
	if p.RequireSignatures {
		for _, c := range rp.newCommits(ch) {
			if !rp.verif[c.Hash].Verified {
				out = append(out, "Commits must have verified signatures.")
				break
			}
		}
	}
	return out
}

func (rp *repo) missingChecks(h plumbing.Hash, contexts []string) []string {
	var out []string
	for _, c := range contexts {
		if rp.statuses[h][c] != "success" {
			out = append(out, "Required status check \""+c+"\" is expected.")
		}
	}
	return out
}

// newCommits are the commits a change brings: reachable from the new
// value and not from the old one (for a create: from no existing ref).
// Caller holds mu.
func (rp *repo) newCommits(ch refChange) []*object.Commit {
	if ch.new.IsZero() {
		return nil
	}
	known := map[plumbing.Hash]bool{}
	if ch.old.IsZero() {
		for _, h := range rp.refs {
			for k := range rp.reachable(rp.peel(h)) {
				known[k] = true
			}
		}
	} else {
		known = rp.reachable(rp.peel(ch.old))
	}
	var out []*object.Commit
	for h := range rp.reachable(rp.peel(ch.new)) {
		if c, ok := rp.Commits[h]; ok && !known[h] {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hash.String() < out[j].Hash.String() })
	return out
}

// changedFiles maps each file path c adds or changes against its first
// parent to its entry. Caller holds mu.
func (rp *repo) changedFiles(c *object.Commit) map[string]object.TreeEntry {
	files := func(root plumbing.Hash) map[string]object.TreeEntry {
		m := map[string]object.TreeEntry{}
		rp.WalkTree(root, "", func(p string, e object.TreeEntry) bool {
			if e.Mode != filemode.Dir {
				m[p] = e
			}
			return true
		})
		return m
	}
	now := files(c.TreeHash)
	var before map[string]object.TreeEntry
	if len(c.ParentHashes) > 0 {
		if pc, ok := rp.Commits[c.ParentHashes[0]]; ok {
			before = files(pc.TreeHash)
		}
	}
	changed := map[string]object.TreeEntry{}
	for p, e := range now {
		if b, ok := before[p]; !ok || b.Hash != e.Hash || b.Mode != e.Mode {
			changed[p] = e
		}
	}
	for p, e := range before { // a deleted path is changed too (no blob)
		if _, ok := now[p]; !ok {
			changed[p] = object.TreeEntry{Name: e.Name, Mode: e.Mode}
		}
	}
	return changed
}

// rulesRefuseRefUpdates checks updateRefs' changes. Caller holds rp.mu.
func (s *Server) rulesRefuseRefUpdates(rp *repo, ups []refUpdate, id identity) error {
	changes := make([]refChange, 0, len(ups))
	for _, u := range ups {
		ch := refChange{ref: u.name, old: rp.refs[u.name]}
		if u.after != zeroOid {
			ch.new = plumbing.NewHash(u.after)
		}
		changes = append(changes, ch)
	}
	if e := rp.refusal(id, changes...); e != nil {
		return e.gqlError()
	}
	return nil
}

// globMatch matches name against an fnmatch pattern: "*" within a path
// segment, "**" across segments, "?" one character.
func globMatch(pattern, name string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(name)
}

func stringsParam(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
