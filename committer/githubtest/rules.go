package githubtest

// rulesRefuseRefUpdates is the hook where branch rules refuse ref updates
// (rules arrive with the rules work). Caller holds rp.mu.
func (s *Server) rulesRefuseRefUpdates(rp *repo, ups []refUpdate, id identity) error { return nil }
