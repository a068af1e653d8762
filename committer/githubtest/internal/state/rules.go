package state

import "github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"

// Refusal checks changes against the repository's rules for the request's
// identity; nil when every change may go ahead. Caller holds rp.mu.
func Refusal(rp *Repo, id Identity, changes ...rules.Change) *rules.Refusal {
	return rules.Refuse(rp, rp.Rulesets, rp.Protections, id.Login, changes...)
}
