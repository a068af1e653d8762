// Package graphql is the fake's GraphQL engine below package githubtest:
// GitHub's published schema (embedded, schema.go), a request's parse,
// validation and variable coercion (Prepare), a small executor over
// resolver Objects (Exec: selection order, fragments, directives, null
// propagation), introspection as GitHub answers it (without the members of
// previews the request did not ask for), and GraphQL replies and errors as
// GitHub writes them. The resolvers, which read the fake's repositories,
// stay in githubtest.
package graphql
