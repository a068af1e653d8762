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
	"net/http/httptest"
	"os"
	"os/signal"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// The app the embedded fake knows.
const (
	fakeAppID          = 424242
	fakeInstallationID = 31337
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "github-app:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	_, err := runWith(ctx, args, stdout)
	return err
}

// runWith runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func runWith(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("github-app", flag.ContinueOnError)
	fs.SetOutput(stdout)
	repoFlag := fs.String("repo", "", "`owner/name` on GitHub (needs -app-id and -key-file); default: an embedded fake")
	appID := fs.Int64("app-id", 0, "the GitHub App's ID")
	keyFile := fs.String("key-file", "", "the GitHub App's private key (PEM)")
	installationID := fs.Int64("installation-id", 0, "the installation to act as; 0 looks it up from -repo")
	branch := fs.String("branch", "main", "branch to commit to")
	from := fs.String("from", "main", "branch to create -branch from when it does not exist")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}

	var (
		gh          *github.Client
		fake        *githubtest.Server
		owner, name string
		where       string
	)
	if *repoFlag != "" {
		if *appID == 0 || *keyFile == "" {
			return nil, errors.New("-repo needs -app-id and -key-file")
		}
		var err error
		if owner, name, err = committer.ParseRepo(*repoFlag); err != nil {
			return nil, err
		}
		api := os.Getenv("GITHUB_API_URL")
		if api == "" {
			api = "https://api.github.com/"
		}
		gh, err = ghclient.New(ctx,
			ghclient.WithAppKeyFile(*appID, *keyFile, *installationID),
			ghclient.WithRepository(owner, name),
			ghclient.WithBaseURL(api))
		if err != nil {
			return nil, err
		}
		where = api
	} else {
		owner, name = "acme", "monorepo"
		fake = githubtest.New()
		if err := fake.CreateRepo(owner, name, true); err != nil {
			return nil, err
		}
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		fake.RegisterApp(fakeAppID, &key.PublicKey)
		fake.InstallApp(fakeAppID, fakeInstallationID, owner, name)
		keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
		hs := httptest.NewServer(fake)
		defer hs.Close()
		*appID = fakeAppID
		// Installation ID 0: looked up with GET /repos/{owner}/{repo}/installation.
		gh, err = ghclient.New(ctx,
			ghclient.WithApp(fakeAppID, keyPEM, 0),
			ghclient.WithRepository(owner, name),
			ghclient.WithBaseURL(hs.URL))
		if err != nil {
			return fake, err
		}
		where = "embedded fake GitHub"
	}

	c, err := committer.New(gh, owner, name)
	if err != nil {
		return fake, err
	}
	// No Author or Committer: GitHub uses the app's bot identity and signs
	// the commit. Setting either would make it unsigned.
	cs := committer.NewChangeSet("github-app example: commit as an app installation").
		Put("app/last-run.txt", []byte("committed by a GitHub App installation\n"))
	var opts []committer.CommitOption
	if *branch != *from {
		opts = append(opts, committer.CreateBranchFrom(*from))
	}
	res, err := c.Commit(ctx, *branch, cs, opts...)
	if err != nil {
		return fake, err
	}
	gc, _, err := gh.Git.GetCommit(ctx, owner, name, res.Commit)
	if err != nil {
		return fake, err
	}
	v := gc.GetVerification()
	fmt.Fprintf(stdout, "repository  %s (%s)\n", res.Repository, where)
	fmt.Fprintf(stdout, "app         %d\n", *appID)
	fmt.Fprintf(stdout, "branch      %s\n", res.Branch)
	fmt.Fprintf(stdout, "commit      %s (no-op: %v)\n", res.Commit, res.NoOp)
	fmt.Fprintf(stdout, "author      %s <%s>\n", gc.GetAuthor().GetName(), gc.GetAuthor().GetEmail())
	fmt.Fprintf(stdout, "verified    %v (%s)\n", v.GetVerified(), v.GetReason())
	return fake, nil
}
