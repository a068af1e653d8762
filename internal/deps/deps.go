package deps

import (
	_ "github.com/ProtonMail/go-crypto/openpgp"
	_ "github.com/bradleyfalzon/ghinstallation/v2"
	_ "github.com/go-git/go-git/v5/plumbing/object"
	_ "github.com/google/go-github/v66/github"
	_ "github.com/hashicorp/go-retryablehttp"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/oauth2"
	_ "golang.org/x/term"
	_ "gopkg.in/yaml.v3"
)
