package committer_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	pgpsign "github.com/ghcommitter/ghcommitter/committer/openpgp"
)

// newPGPEntity generates an Ed25519 OpenPGP key (fast, unlike RSA).
func newPGPEntity(t *testing.T) *openpgp.Entity {
	t.Helper()
	e, err := openpgp.NewEntity("Release Bot", "", "release-bot@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// gitPayload rebuilds, with go-git and independently of the fake's and
// go-github's code, the commit object as git writes it without its gpgsig
// header: the bytes a commit signature signs.
func gitPayload(t *testing.T, c githubtest.Commit) string {
	t.Helper()
	oc := &object.Commit{
		Author:    object.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.Date},
		Committer: object.Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.Date},
		Message:   c.Message,
		TreeHash:  plumbing.NewHash(c.Tree),
	}
	for _, p := range c.Parents {
		oc.ParentHashes = append(oc.ParentHashes, plumbing.NewHash(p))
	}
	o := &plumbing.MemoryObject{}
	if err := oc.EncodeWithoutSignature(o); err != nil {
		t.Fatal(err)
	}
	rd, err := o.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkSigned verifies that the commit sha carries a valid signature by e
// over the commit as git stores it.
func checkSigned(t *testing.T, ts *githubtest.TestServer, sha string, e *openpgp.Entity) {
	t.Helper()
	c, err := ts.Commit(owner, repo, sha)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.PGPSignature, "-----BEGIN PGP SIGNATURE-----") {
		t.Fatalf("commit %s gpgsig = %q, want an armored signature", sha, c.PGPSignature)
	}
	payload := gitPayload(t, c)
	keyring := openpgp.EntityList{e}
	if _, err := openpgp.CheckArmoredDetachedSignature(keyring, strings.NewReader(payload), strings.NewReader(c.PGPSignature), nil); err != nil {
		t.Fatalf("signature does not verify over the commit object: %v\npayload:\n%s", err, payload)
	}
	// The check means something: a changed message does not verify.
	if _, err := openpgp.CheckArmoredDetachedSignature(keyring, strings.NewReader(payload+"x"), strings.NewReader(c.PGPSignature), nil); err == nil {
		t.Fatal("signature verifies over a tampered payload")
	}
	// GitHub's API reports the signed payload; it must be the same bytes.
	got, _, err := ts.Client.Git.GetCommit(context.Background(), owner, repo, sha)
	if err != nil {
		t.Fatal(err)
	}
	v := got.GetVerification()
	if v.GetPayload() != payload || v.GetSignature() != c.PGPSignature {
		t.Errorf("verification payload/signature differ from the stored commit:\npayload %q\nwant    %q", v.GetPayload(), payload)
	}
}

func TestSignedCommitVerifies(t *testing.T) {
	e := newPGPEntity(t)
	signer := github.MessageSignerFunc(func(w io.Writer, r io.Reader) error {
		return openpgp.ArmoredDetachSign(w, e, r, nil)
	})
	ts, c := setup(t, committer.WithSigner(signer))
	cs := committer.NewChangeSet("signed: bump api\n\nwith a body\n").Put("envs/api.txt", []byte("v2\n"))
	cs.Author = &committer.Signature{Name: "Release Bot", Email: "release-bot@example.com"}
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		t.Fatal(err)
	}
	checkSigned(t, ts, res.Commit, e)
	got, _ := ts.Commit(owner, repo, res.Commit)
	if got.Author.Name != "Release Bot" || got.Committer.Email != "release-bot@example.com" {
		t.Errorf("author %+v committer %+v, want Release Bot for both", got.Author, got.Committer)
	}
}

func TestSignedCommitKeepsDatesAndZone(t *testing.T) {
	e := newPGPEntity(t)
	signer, err := pgpsign.NewSigner(armoredPrivateKey(t, e, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, c := setup(t, committer.WithSigner(signer))
	zone := time.FixedZone("", -(4*3600 + 30*60))
	when := time.Date(2024, 3, 1, 12, 0, 0, 0, zone)
	cs := committer.NewChangeSet("signed with dates").Put("a.txt", []byte("a"))
	cs.Author = &committer.Signature{Name: "A U Thor", Email: "author@example.com", Date: when}
	cs.Committer = &committer.Signature{Name: "Com Mitter", Email: "committer@example.com", Date: when.Add(time.Hour)}
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		t.Fatal(err)
	}
	checkSigned(t, ts, res.Commit, e)
}

func TestSigningNeedsAuthor(t *testing.T) {
	e := newPGPEntity(t)
	signer, err := pgpsign.NewSigner(armoredPrivateKey(t, e, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, c := setup(t, committer.WithSigner(signer))
	before := head(t, ts, "main")
	_, err = c.Commit(context.Background(), "main", committer.NewChangeSet("no author").Put("a.txt", []byte("a")))
	if err == nil {
		t.Fatal("a signed commit without an author succeeded")
	}
	var ce *committer.Error
	if !errors.As(err, &ce) {
		t.Errorf("err %T is not a *committer.Error: %v", err, err)
	}
	if n := ts.Count("POST /repos/{owner}/{repo}/git/commits"); n != 0 {
		t.Errorf("%d commits created, want none", n)
	}
	if got := head(t, ts, "main"); got != before {
		t.Errorf("main moved to %s", got)
	}
}

// Without an author or committer the library sends neither: GitHub (here the
// fake) then uses the authenticated identity.
func TestUnsignedCommitSendsNoIdentity(t *testing.T) {
	ts, c := setup(t)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("anonymous").Put("a.txt", []byte("a")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ts.Commit(owner, repo, res.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if got.Author.Name != "The Octocat" || got.Author.Email != "octocat@users.noreply.github.com" || got.Committer.Name != "The Octocat" {
		t.Errorf("author %+v committer %+v, want the token's identity (the fake's octocat)", got.Author, got.Committer)
	}
	if got.PGPSignature != "" {
		t.Errorf("unsigned commit has gpgsig %q", got.PGPSignature)
	}
	gc, _, err := ts.Client.Git.GetCommit(context.Background(), owner, repo, res.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if v := gc.GetVerification(); v.GetVerified() || v.GetReason() != "unsigned" {
		t.Errorf("verification %+v, want unsigned (a token that is not an installation token)", v)
	}
}

// With a GitHub App installation token (as the Actions GITHUB_TOKEN is) and
// no author, committer or signature, GitHub signs the commit itself and marks
// it Verified; with an author it does not.
func TestInstallationTokenCommitVerified(t *testing.T) {
	ctx := context.Background()
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const appID, installationID = 4242, 77
	ts.RegisterApp(appID, &key.PublicKey)
	ts.InstallApp(appID, installationID, owner, repo)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	gh, err := ghclient.New(ctx, ghclient.WithApp(ghclient.App{ID: appID, PrivateKey: keyPEM, Owner: owner, Repo: repo}), ghclient.WithBaseURL(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	c, err := newWith(gh, owner, repo)
	if err != nil {
		t.Fatal(err)
	}

	bot, err := c.Commit(ctx, "main", committer.NewChangeSet("as the app").Put("bot.txt", []byte("bot")))
	if err != nil {
		t.Fatal(err)
	}
	cs := committer.NewChangeSet("as a person").Put("person.txt", []byte("p"))
	cs.Author = &committer.Signature{Name: "A Person", Email: "person@example.com"}
	person, err := c.Commit(ctx, "main", cs)
	if err != nil {
		t.Fatal(err)
	}

	verification := func(sha string) *github.SignatureVerification {
		gc, _, err := gh.Git.GetCommit(ctx, owner, repo, sha)
		if err != nil {
			t.Fatal(err)
		}
		return gc.GetVerification()
	}
	if v := verification(bot.Commit); !v.GetVerified() || v.GetReason() != "valid" {
		t.Errorf("installation-token commit without author: verification %+v, want verified/valid", v)
	}
	if got, _ := ts.Commit(owner, repo, bot.Commit); !strings.HasSuffix(got.Author.Name, "[bot]") {
		t.Errorf("installation-token commit author %q, want the app's bot", got.Author.Name)
	}
	if v := verification(person.Commit); v.GetVerified() || v.GetReason() != "unsigned" {
		t.Errorf("commit with a custom author: verification %+v, want unsigned", v)
	}
	if ts.TokensIssued(installationID) == 0 {
		t.Error("no installation token was issued")
	}
}

// armoredPrivateKey exports e's private key, armored, encrypted with
// passphrase when it is not nil.
func armoredPrivateKey(t *testing.T, e *openpgp.Entity, passphrase []byte) io.Reader {
	t.Helper()
	if passphrase != nil {
		if err := e.EncryptPrivateKeys(passphrase, nil); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := e.DecryptPrivateKeys(passphrase); err != nil {
				t.Fatal(err)
			}
		}()
	}
	var buf bytes.Buffer
	w, err := armor.Encode(&buf, openpgp.PrivateKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SerializePrivateWithoutSigning(w, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// The helper signs real commits end to end, from an encrypted key.
func TestOpenPGPSignerCommit(t *testing.T) {
	e := newPGPEntity(t)
	signer, err := pgpsign.NewSigner(armoredPrivateKey(t, e, []byte("pw")), []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	ts, c := setup(t, committer.WithSigner(signer))
	cs := committer.NewChangeSet("signed by OpenPGPSigner").Put("b.txt", []byte("b"))
	cs.Author = &committer.Signature{Name: "Release Bot", Email: "release-bot@example.com"}
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		t.Fatal(err)
	}
	checkSigned(t, ts, res.Commit, e)
}
