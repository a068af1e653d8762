package githubtest

import (
	"net/http"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

const (
	docBranchRules      = "https://docs.github.com/rest/repos/rules#get-rules-for-a-branch"
	docBranchProtection = "https://docs.github.com/rest/branches/branch-protection#get-branch-protection"
)

// handleBranchRules serves GET rules/branches/{branch}: the active rules of
// every ruleset that applies to the branch (whether or not it exists), with
// the ruleset each comes from, in the order the rulesets were added.
func (s *Server) handleBranchRules(w http.ResponseWriter, r *http.Request, rp *repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	ref := "refs/heads/" + r.PathValue("branch")
	out := []obj{}
	for _, rs := range rp.Rulesets {
		if !rs.Applies(rp.DefaultBranch, ref) {
			continue
		}
		for _, rule := range rs.Rules {
			o := obj{"type": rule.Type}
			if rule.Parameters != nil {
				o["parameters"] = rule.Parameters
			}
			o["ruleset_source_type"] = "Repository"
			o["ruleset_source"] = rp.FullName()
			o["ruleset_id"] = rs.ID
			out = append(out, o)
		}
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

// classicProtection is the classic protection of branch, or nil. Caller
// holds mu.
func (rp *repo) ClassicProtection(branch string) *rules.Protection {
	for _, p := range rp.Protections {
		if rules.GlobMatch(p.Pattern, branch) {
			return p
		}
	}
	return nil
}

// branchProtected is GET branches/{b}'s "protected": classic protection
// or an applying ruleset (GitHub shows rulesets there too; a guess for
// rulesets that only restrict creations). Caller holds mu.
func (rp *repo) BranchProtected(branch string) bool {
	if rp.ClassicProtection(branch) != nil {
		return true
	}
	for _, rs := range rp.Rulesets {
		if rs.Applies(rp.DefaultBranch, "refs/heads/"+branch) && len(rs.Rules) > 0 {
			return true
		}
	}
	return false
}

// protectionSummary is branch.protection in GET branches/{b}. Caller holds mu.
func protectionSummary(rp *repo, branch string) obj {
	p := rp.ClassicProtection(branch)
	if p == nil {
		return obj{"enabled": rp.BranchProtected(branch), "required_status_checks": obj{
			"enforcement_level": "off", "contexts": []string{}, "checks": []obj{},
		}}
	}
	level := "off"
	if len(p.RequiredStatusChecks) > 0 {
		level = "non_admins"
	}
	return obj{"enabled": true, "required_status_checks": obj{
		"enforcement_level": level, "contexts": nonNil(p.RequiredStatusChecks), "checks": checksJSON(p.RequiredStatusChecks),
	}}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func checksJSON(contexts []string) []obj {
	out := []obj{}
	for _, c := range contexts {
		out = append(out, obj{"context": c, "app_id": nil})
	}
	return out
}

// handleBranchProtection serves GET branches/{b}/protection (classic
// protection only, as on GitHub): 404 "Branch not protected" without it.
func (s *Server) handleBranchProtection(w http.ResponseWriter, r *http.Request, rp *repo, branch string) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if _, ok := rp.Refs["refs/heads/"+branch]; !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Branch not found", docBranchProtection)
		return
	}
	p := rp.ClassicProtection(branch)
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Branch not protected", docBranchProtection)
		return
	}
	u := repoURL(rp, r) + "/branches/" + branch + "/protection"
	out := obj{
		"url":                              u,
		"required_signatures":              obj{"url": u + "/required_signatures", "enabled": p.RequireSignatures},
		"enforce_admins":                   obj{"url": u + "/enforce_admins", "enabled": false},
		"required_linear_history":          obj{"enabled": false},
		"allow_force_pushes":               obj{"enabled": p.AllowForcePushes},
		"allow_deletions":                  obj{"enabled": p.AllowDeletions},
		"block_creations":                  obj{"enabled": false},
		"required_conversation_resolution": obj{"enabled": false},
		"lock_branch":                      obj{"enabled": false},
		"allow_fork_syncing":               obj{"enabled": false},
	}
	if len(p.RequiredStatusChecks) > 0 {
		out["required_status_checks"] = obj{"url": u + "/required_status_checks", "strict": false,
			"contexts": p.RequiredStatusChecks, "checks": checksJSON(p.RequiredStatusChecks),
			"contexts_url": u + "/required_status_checks/contexts"}
	}
	if p.RequiredApprovingReviews > 0 {
		out["required_pull_request_reviews"] = obj{"url": u + "/required_pull_request_reviews",
			"dismiss_stale_reviews": false, "require_code_owner_reviews": false,
			"required_approving_review_count": p.RequiredApprovingReviews, "require_last_push_approval": false}
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

// splitProtection tells GET branches/{b}/protection from a branch whose
// name ends in "/protection". Caller holds mu.
func (rp *repo) SplitProtection(name string) (string, bool) {
	b, ok := strings.CutSuffix(name, "/protection")
	if !ok {
		return "", false
	}
	if _, exists := rp.Refs["refs/heads/"+name]; exists {
		return "", false
	}
	return b, true
}
