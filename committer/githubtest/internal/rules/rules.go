// Package rules is the fake GitHub's rules: repository rulesets and classic branch protection, enforced in one
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
package rules

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
)

// Rule is one rule of a ruleset, as GitHub's rules API lists it: a type
// ("pull_request", "required_signatures", ...) and its parameters.
type Rule struct {
	Type       string
	Parameters map[string]any
}

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
	RequireUpToDate          bool // required_status_checks.strict: a pull request's head must hold the branch's tip to merge
	AllowForcePushes         bool
	AllowDeletions           bool
}

// Set is a ruleset added to a repository, with its id.
type Set struct {
	Ruleset
	ID int64
}

// Protection is classic branch protection of the branches Pattern matches.
type Protection struct {
	Pattern string
	BranchProtection
}

// Change is one ref update a write is about to make: old zero for a
// create, new zero for a delete.
type Change struct {
	Ref      string
	Old, New plumbing.Hash
	Pull     *PullMerge // set when the change merges a pull request (merge.go)
}

// Refusal lists the messages of the rules that refuse a change.
type Refusal struct {
	ref      string
	rulesets []string // messages of ruleset rules
	classic  []string // messages of classic branch protection
}

func (e *Refusal) Error() string { return e.GraphQLMessage() }

// RestMessage is the message of a REST reply (refs or contents).
func (e *Refusal) RestMessage(contents bool) string {
	if len(e.rulesets) > 0 {
		return "Repository rule violations found\n\n" + strings.Join(e.rulesets, "\n\n") + "\n\n"
	}
	if contents {
		return "Could not update file: " + e.classic[0]
	}
	return e.classic[0]
}

// GraphQLMessage names the ref, as GitHub's push refusals do (GH013, GH006).
func (e *Refusal) GraphQLMessage() string {
	if len(e.rulesets) > 0 {
		return "Repository rule violations found for " + e.ref + ".\n\n" + strings.Join(e.rulesets, "\n\n")
	}
	return "Protected branch update failed for " + e.ref + ".\n\n" + strings.Join(e.classic, "\n\n")
}

// GQLError is the refusal as a GraphQL UNPROCESSABLE error.
func (e *Refusal) GQLError() *graphql.Error {
	return graphql.Errorf("UNPROCESSABLE", e.GraphQLMessage())
}

// Repo is what rule evaluation reads of a repository. Caller holds its
// lock.
type Repo interface {
	DefaultBranchName() string
	IsAncestor(anc, desc plumbing.Hash) bool
	Blob(h plumbing.Hash) ([]byte, bool)
	WalkTree(root plumbing.Hash, prefix string, fn func(path string, e object.TreeEntry) bool) bool
	CommitAt(h plumbing.Hash) (*object.Commit, bool)
	RefHashes() []plumbing.Hash
	ReachablePeeled(h plumbing.Hash) map[plumbing.Hash]bool // from h, annotated tags peeled
	Verified(h plumbing.Hash) bool
	Status(h plumbing.Hash, context string) string
}

// Refuse checks changes against a repository's rulesets and classic
// protections for the login of the request's token; nil when every change
// may go ahead. Caller holds the repository's lock.
func Refuse(rp Repo, sets []*Set, prots []*Protection, login string, changes ...Change) *Refusal {
	if len(sets) == 0 && len(prots) == 0 {
		return nil
	}
	for _, ch := range changes {
		e := &Refusal{ref: ch.Ref}
		for _, rs := range sets {
			if rs.Applies(rp.DefaultBranchName(), ch.Ref) && !slices.Contains(rs.BypassLogins, login) {
				for _, r := range rs.Rules {
					e.rulesets = append(e.rulesets, ruleMessages(rp, r, ch)...)
				}
			}
		}
		if branch, ok := strings.CutPrefix(ch.Ref, "refs/heads/"); ok {
			for _, p := range prots {
				if GlobMatch(p.Pattern, branch) {
					e.classic = append(e.classic, protectionMessages(rp, p, ch)...)
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

// Applies reports whether the ruleset applies to ref, given the
// repository's default branch.
func (rs *Set) Applies(defaultBranch, ref string) bool {
	match := func(pats []string) bool {
		for _, p := range pats {
			switch {
			case p == "~ALL":
				return true
			case p == "~DEFAULT_BRANCH":
				if ref == "refs/heads/"+defaultBranch {
					return true
				}
			case strings.HasPrefix(p, "refs/"):
				if GlobMatch(p, ref) {
					return true
				}
			default:
				if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok && GlobMatch(p, b) {
					return true
				}
			}
		}
		return false
	}
	return match(rs.Include) && !match(rs.Exclude)
}

// ruleMessages is what one ruleset rule says about a change. Caller holds mu.
func ruleMessages(rp Repo, r Rule, ch Change) []string {
	if msgs, ok := pullRuleMessages(rp, r, ch); ok {
		return msgs
	}
	create, del := ch.Old.IsZero(), ch.New.IsZero()
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
		if update && !rp.IsAncestor(ch.Old, ch.New) {
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
		for _, c := range newCommits(rp, ch) {
			if len(c.ParentHashes) > 1 {
				return []string{"This branch must not contain merge commits."}
			}
		}
	case "required_status_checks":
		if del || (create && r.Parameters["do_not_enforce_on_create"] == true) {
			return nil
		}
		return missingChecks(rp, ch.New, checkContexts(r.Parameters))
	case "required_signatures":
		return unsignedMessages(rp, ch)
	case "file_path_restriction":
		pats := stringsParam(r.Parameters["restricted_file_paths"])
		var hit []string
		for _, c := range newCommits(rp, ch) {
			for p := range changedFiles(rp, c) {
				for _, pat := range pats {
					if GlobMatch(pat, p) {
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
		mb, _ := graphql.ArgInt(r.Parameters, "max_file_size")
		var out []string
		for _, c := range newCommits(rp, ch) {
			for p, e := range changedFiles(rp, c) {
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
func protectionMessages(rp Repo, p *Protection, ch Change) []string {
	if ch.Pull != nil {
		return pullProtectionMessages(rp, p, ch)
	}
	create, del := ch.Old.IsZero(), ch.New.IsZero()
	var out []string
	switch {
	case del:
		if !p.AllowDeletions {
			out = append(out, "Cannot delete this protected branch")
		}
		return out
	case !create && !p.AllowForcePushes && !rp.IsAncestor(ch.Old, ch.New):
		out = append(out, "Cannot force-push to this protected branch")
	}
	if p.RequiredApprovingReviews > 0 && !create {
		out = append(out, reviewsMessage(p.RequiredApprovingReviews))
	}
	out = append(out, missingChecks(rp, ch.New, p.RequiredStatusChecks)...)
	if p.RequireSignatures {
		out = append(out, unsignedMessages(rp, ch)...)
	}
	return out
}

func missingChecks(rp Repo, h plumbing.Hash, contexts []string) []string {
	var out []string
	for _, c := range contexts {
		if rp.Status(h, c) != "success" {
			out = append(out, "Required status check \""+c+"\" is expected.")
		}
	}
	return out
}

// newCommits are the commits a change brings: reachable from the new
// value and not from the old one (for a create: from no existing ref).
// Caller holds mu.
func newCommits(rp Repo, ch Change) []*object.Commit {
	if ch.New.IsZero() {
		return nil
	}
	known := map[plumbing.Hash]bool{}
	if ch.Old.IsZero() {
		for _, h := range rp.RefHashes() {
			for k := range rp.ReachablePeeled(h) {
				known[k] = true
			}
		}
	} else {
		known = rp.ReachablePeeled(ch.Old)
	}
	var out []*object.Commit
	for h := range rp.ReachablePeeled(ch.New) {
		if c, ok := rp.CommitAt(h); ok && !known[h] {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hash.String() < out[j].Hash.String() })
	return out
}

// changedFiles maps each file path c adds or changes against its first
// parent to its entry. Caller holds mu.
func changedFiles(rp Repo, c *object.Commit) map[string]object.TreeEntry {
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
		if pc, ok := rp.CommitAt(c.ParentHashes[0]); ok {
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

// GlobMatch matches name against an fnmatch pattern: "*" within a path
// segment, "**" across segments, "?" one character.
func GlobMatch(pattern, name string) bool {
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
