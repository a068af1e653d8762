package resolve

import (
	"strconv"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Accounts in GraphQL: Query.viewer (the token's user), Repository.owner
// (a User, or an Organization for repositories created under /orgs) and
// the users of the fake's REST replies, with the fields clients read.

type gqlAccount struct {
	typ   string // "User" or "Organization"
	login string
	id    int64
	name  string // "" when the fake has none
	email string
}

func (g gqlAccount) TypeName() string { return g.typ }

func (g gqlAccount) Field(x *graphql.Exec, name string, args map[string]any) (any, error) {
	switch name {
	case "login":
		return g.login, nil
	case "id":
		kind := "U"
		if g.typ == "Organization" {
			kind = "O"
		}
		return wire.NodeID(kind, g.login), nil
	case "databaseId":
		return g.id, nil
	case "url":
		return wire.WebBase(x.R) + "/" + g.login, nil
	case "resourcePath":
		return "/" + g.login, nil
	case "avatarUrl":
		u := "https://avatars.githubusercontent.com/u/" + strconv.FormatInt(g.id, 10) + "?v=4"
		if size, ok := graphql.ArgInt(args, "size"); ok {
			u += "&s=" + strconv.FormatInt(size, 10)
		}
		return u, nil
	case "name":
		if g.name == "" {
			return nil, nil
		}
		return g.name, nil
	case "email":
		if g.typ == "User" {
			return g.email, nil // User.email is String!: "" when not public
		}
		return nil, nil
	}
	return nil, graphql.Unserved(g.typ, name)
}

// viewer is the account of the request's token.
func viewer(x *graphql.Exec) gqlAccount {
	id := wire.IdentOf(x.R)
	email := id.Email
	if strings.HasSuffix(email, "@users.noreply.github.com") {
		email = "" // GitHub shows only a public email
	}
	return gqlAccount{typ: "User", login: id.Login, id: id.UserID, name: id.Name, email: email}
}

// ownerAccount is Repository.owner. Caller holds rp.mu.
func ownerAccount(rp *state.Repo) gqlAccount {
	typ := "User"
	if rp.Org {
		typ = "Organization"
	}
	return gqlAccount{typ: typ, login: rp.Owner, id: rp.ID * 7}
}
