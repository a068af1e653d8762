package githubtest

// checkRoutes mounts commit statuses and check runs (checks.go).
func (s *Server) checkRoutes(rr string) {
	rt := s.rest
	s.handleRepo("POST "+rr+"/statuses/{sha}", rt.CreateStatus)
	s.handleRepo("GET "+rr+"/commits/{ref}/statuses", rt.ListStatuses)
	s.handleRepo("GET "+rr+"/commits/{ref}/status", rt.CombinedStatus)
	s.handleRepo("POST "+rr+"/check-runs", rt.CreateCheckRun)
	s.handleRepo("GET "+rr+"/check-runs/{id}", rt.GetCheckRun)
	s.handleRepo("PATCH "+rr+"/check-runs/{id}", rt.UpdateCheckRun)
	s.handleRepo("GET "+rr+"/commits/{ref}/check-runs", rt.ListCheckRuns)
}
