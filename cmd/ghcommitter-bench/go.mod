// The contention benchmark in a module of its own: it ships in no release,
// and its tests (which build and run the CLI) stay out of the main module's
// `go test ./...`. `make bench` runs it, `make test` and `make lint` cover it.
// It builds the CLI in the repository's module (see buildCLI), and imports
// the repository's top-level internal/ packages through the replace.
module github.com/ghcommitter/ghcommitter/cmd/ghcommitter-bench

go 1.26.0

require github.com/ghcommitter/ghcommitter v0.0.0

require (
	github.com/ProtonMail/go-crypto v1.5.2 // indirect
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/bradleyfalzon/ghinstallation/v2 v2.12.0 // indirect
	github.com/cloudflare/circl v1.6.3 // indirect
	github.com/cyphar/filepath-securejoin v0.6.1 // indirect
	github.com/emirpasic/gods v1.18.1 // indirect
	github.com/go-git/gcfg v1.5.1-0.20230307220236-3a3c6141e376 // indirect
	github.com/go-git/go-billy/v5 v5.9.2 // indirect
	github.com/go-git/go-git/v5 v5.19.3 // indirect
	github.com/golang-jwt/jwt/v4 v4.5.2 // indirect
	github.com/google/go-github/v66 v66.0.0 // indirect
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/hiddeco/sshsig v0.2.0 // indirect
	github.com/jbenet/go-context v0.0.0-20150711004518-d14ea06fba99 // indirect
	github.com/pjbgf/sha1cd v0.7.0 // indirect
	github.com/sergi/go-diff v1.3.2-0.20230802210424-5b0b94c5c0d3 // indirect
	github.com/vektah/gqlparser/v2 v2.5.64 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/crypto v0.56.0 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/oauth2 v0.38.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	gopkg.in/warnings.v0 v0.1.2 // indirect
)

replace github.com/ghcommitter/ghcommitter => ../..
