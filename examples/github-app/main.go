// Command github-app commits as a GitHub App installation: the client signs a
// JWT with the app's private key, exchanges it for an installation token
// (refreshed before it expires) and commits with it. With no author or
// committer set, GitHub signs such commits itself and shows them as Verified.
//
// By default it runs against an embedded fake GitHub: it generates an RSA key,
// registers an app with it and installs the app on acme/monorepo.
//
//	go run ./examples/github-app
//
// Against GitHub, give the app's ID, its private key file (from the app's
// settings page) and a repository it is installed on with contents: write;
// -installation-id 0 (the default) looks the installation up from the
// repository. GITHUB_API_URL selects a GitHub Enterprise Server.
//
//	go run ./examples/github-app -repo you/scratch -app-id 123456 -key-file app.private-key.pem
package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
)

// The app the embedded fake knows.
const (
	fakeAppID          = 424242
	fakeInstallationID = 31337
)

func main() { target.Main("github-app", run) }

// run runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func run(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("github-app", flag.ContinueOnError)
	fs.SetOutput(stdout)
	flags := target.DefineFlags(fs, "-app-id and -key-file", "branch to commit to")
	appID := fs.Int64("app-id", 0, "the GitHub App's ID")
	keyFile := fs.String("key-file", "", "the GitHub App's private key (PEM)")
	installationID := fs.Int64("installation-id", 0, "the installation to act as; 0 looks it up from -repo")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if flags.Repo != "" && (*appID == 0 || *keyFile == "") {
		return nil, errors.New("-repo needs -app-id and -key-file")
	}
	t, err := target.Open(flags.Repo)
	if err != nil {
		return nil, err
	}
	defer t.Close()

	// Installation ID 0: looked up with GET /repos/{owner}/{repo}/installation.
	app := ghclient.App{ID: *appID, KeyFile: *keyFile, InstallationID: *installationID, Owner: t.Owner, Repo: t.Name}
	if t.Fake != nil {
		// Register an app with a fresh key and install it on the repository.
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return t.Fake, err
		}
		t.Fake.RegisterApp(fakeAppID, &key.PublicKey)
		t.Fake.InstallApp(fakeAppID, fakeInstallationID, t.Owner, t.Name)
		keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
		*appID = fakeAppID
		app = ghclient.App{ID: fakeAppID, PrivateKey: keyPEM, Owner: t.Owner, Repo: t.Name}
	}
	gh, err := t.Client(ctx, ghclient.WithApp(app))
	if err != nil {
		return t.Fake, err
	}
	c, err := committer.New(t.Owner, t.Name, committer.WithHTTPClient(gh.Client()))
	if err != nil {
		return t.Fake, err
	}
	// No Author or Committer: GitHub uses the app's bot identity and signs
	// the commit. Setting either would make it unsigned.
	cs := committer.NewChangeSet("github-app example: commit as an app installation").
		Put("app/last-run.txt", []byte("committed by a GitHub App installation\n"))
	res, err := c.Commit(ctx, flags.Branch, cs, flags.CommitOptions()...)
	if err != nil {
		return t.Fake, err
	}
	gc, _, err := gh.Git.GetCommit(ctx, t.Owner, t.Name, res.Commit)
	if err != nil {
		return t.Fake, err
	}
	v := gc.GetVerification()
	fmt.Fprintf(stdout, "repository  %s (%s)\n", res.Repository, t.Where)
	fmt.Fprintf(stdout, "app         %d\n", *appID)
	fmt.Fprintf(stdout, "branch      %s\n", res.Branch)
	fmt.Fprintf(stdout, "commit      %s (no-op: %v)\n", res.Commit, res.NoOp)
	fmt.Fprintf(stdout, "author      %s <%s>\n", gc.GetAuthor().GetName(), gc.GetAuthor().GetEmail())
	fmt.Fprintf(stdout, "verified    %v (%s)\n", v.GetVerified(), v.GetReason())
	return t.Fake, nil
}
