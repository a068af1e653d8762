package deps
import (
 _ "github.com/google/go-github/v66/github"
 _ "github.com/go-git/go-git/v5/plumbing/object"
 _ "github.com/hashicorp/go-retryablehttp"
 _ "github.com/bradleyfalzon/ghinstallation/v2"
 _ "golang.org/x/oauth2"
 _ "github.com/spf13/cobra"
 _ "github.com/santhosh-tekuri/jsonschema/v6"
 _ "gopkg.in/yaml.v3"
 _ "golang.org/x/term"
 _ "github.com/ProtonMail/go-crypto/openpgp"
)
