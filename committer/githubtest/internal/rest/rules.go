package rest

import (
	"net/http"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

const (
	docBranchRules      = "https://docs.github.com/rest/repos/rules#get-rules-for-a-branch"
	docBranchProtection = "https://docs.github.com/rest/branches/branch-protection#get-branch-protection"
)

// BranchRules serves GET rules/branches/{branch}: the active rules of
// every ruleset that applies to the branch (whether or not it exists), with
// the ruleset each comes from, in the order the rulesets were added.
func (rh *Handler) BranchRules(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
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

// protectionSummary is branch.protection in GET branches/{b}. Caller holds mu.
func protectionSummary(rp *state.Repo, branch string) obj {
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
func (rh *Handler) handleBranchProtection(w http.ResponseWriter, r *http.Request, rp *state.Repo, branch string) {
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
	u := wire.RepoURL(rp, r) + "/branches/" + branch + "/protection"
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
	if len(p.RequiredStatusChecks) > 0 || p.RequireUpToDate {
		out["required_status_checks"] = obj{"url": u + "/required_status_checks", "strict": p.RequireUpToDate,
			"contexts": nonNil(p.RequiredStatusChecks), "checks": checksJSON(p.RequiredStatusChecks),
			"contexts_url": u + "/required_status_checks/contexts"}
	}
	if p.RequiredApprovingReviews > 0 {
		out["required_pull_request_reviews"] = obj{"url": u + "/required_pull_request_reviews",
			"dismiss_stale_reviews": false, "require_code_owner_reviews": false,
			"required_approving_review_count": p.RequiredApprovingReviews, "require_last_push_approval": false}
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}
