// Package resolve answers GitHub's GraphQL API from the fake's repositories:
// the endpoint's HTTP handler (Env.ServeHTTP) and the resolvers of the
// objects the fake models — Query and Mutation, Repository, Ref, Commit,
// Tree, Blob, Tag, PullRequest, the accounts, connections and payloads —
// each a graphql.Object run by package graphql's executor. Env holds what
// they use of the Server: its clock, repository lookups, the mutation's
// rate-limit charge and the race hooks of MoveBranchBeforeNextMutation.
package resolve
